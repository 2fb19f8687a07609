//! The aggregated views on a real trace already loaded: both views of
//! every thread at full depth (`thread_views`), the Summary of every
//! thread, and the same beside the load they come after, for the ratio
//! the target is about (views well under the load time).
//!
//! Input: `fixtures/traces/kitchen-sink.json.gz`, decompressed once.
//! Run with `cargo bench -p tracekit-benches --bench views` (or
//! `cargo xtask bench --micro`).

// `criterion_group!` defines a `pub fn`, which cannot be given a doc.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode};
use tracekit::{analyze_bytes, AnalyzeOptions, Parallelism};
use tracekit_views::{thread_views, Window};

fn bench(c: &mut Criterion) {
    let bytes = tracekit_benches::kitchen_sink();
    let options = AnalyzeOptions::default().with_parallelism(Parallelism::Sequential);
    let analysis = analyze_bytes(&bytes, &options).expect("the fixture loads");
    let window = Window::new(analysis.bounds(), None);
    let threads: Vec<_> = analysis.threads().map(|t| t.track()).collect();
    let mut group = c.benchmark_group("views");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("load (sequential), for scale", |b| {
        b.iter(|| black_box(analyze_bytes(&bytes, &options).expect("loads")));
    });
    group.bench_function("call tree and bottom-up, every thread, full depth", |b| {
        b.iter(|| {
            for track in &threads {
                black_box(thread_views(&analysis, track, window).expect("the bench trace is within the budget"));
            }
        });
    });
    group.bench_function("summary, every thread", |b| {
        b.iter(|| {
            black_box(tracekit_views::summary::summary_conformance(
                &analysis,
                &tracekit::query::Query::new(),
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
