//! Decoding and parsing of arbitrary bytes: gzip detection and
//! decompression, UTF-8 checks, document detection, event splitting and
//! decoding, CPU profile and Self-Profiling parsing. Any input must give
//! either a trace or a `LoadError`, never a panic, an overflow or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = tracekit::decode(data) else {
        return;
    };
    if let Ok(trace) = tracekit::parse(&decoded.text) {
        // Touch what was parsed so that nothing is optimized away.
        std::hint::black_box((trace.kind, trace.events.len(), trace.diagnostics.total_skipped()));
    }
});
