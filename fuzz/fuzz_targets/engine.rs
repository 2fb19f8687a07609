//! The whole pipeline on arbitrary bytes: load (the Meta, Samples and
//! Renderer handlers, the CPU profile models, the trees), then every
//! output: conformance, text, JSON and stats.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracekit::query::Filter;
use tracekit::AnalyzeOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(analysis) = tracekit::analyze_bytes(data, &AnalyzeOptions::default()) else {
        return;
    };
    let filter = Filter::default();
    std::hint::black_box(tracekit::output::conformance(&analysis));
    std::hint::black_box(tracekit::output::text(&analysis, &filter));
    std::hint::black_box(tracekit::output::json(&analysis, &filter));
    std::hint::black_box(tracekit::output::stats(&analysis));
});
