//! The whole pipeline on arbitrary bytes: decode, parse, analyze (the Meta,
//! Samples and Renderer handlers, the CPU profile models, the trees), then
//! the conformance, text, JSON and stats outputs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracekit::output::Filter;
use tracekit::AnalyzeOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = tracekit::decode(data) else {
        return;
    };
    let Ok(trace) = tracekit::parse(&decoded.text) else {
        return;
    };
    let analysis = tracekit::analyze(trace, &AnalyzeOptions::default());
    let filter = Filter::default();
    std::hint::black_box(tracekit::output::conformance(&analysis));
    std::hint::black_box(tracekit::output::text(&analysis, &filter));
    std::hint::black_box(tracekit::output::json(&analysis, &filter));
    std::hint::black_box(tracekit::output::stats(&analysis));
});
