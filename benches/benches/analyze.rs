//! The whole engine on a real trace held in memory: loading (scan and
//! parse), the Meta, Samples and Renderer handlers, the samples integrator
//! and the tree builder of every thread; then the conformance output.
//!
//! Input: `fixtures/traces/kitchen-sink.json.gz`, decompressed once.
//! Run with `cargo bench -p tracekit` (or `cargo xtask bench --micro`).

// `criterion_group!` defines a `pub fn`, which cannot be given a doc.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tracekit::{analyze_bytes, AnalyzeOptions, Parallelism};

fn bench(c: &mut Criterion) {
    let bytes = tracekit_benches::kitchen_sink();
    let mut group = c.benchmark_group("analyze");
    group
        .throughput(Throughput::Bytes(bytes.len() as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, parallelism) in [("sequential", Parallelism::Sequential), ("rayon", Parallelism::Rayon)] {
        let options = AnalyzeOptions::default().with_parallelism(parallelism);
        group.bench_function(format!("kitchen-sink 12 MB, {name}"), |b| {
            b.iter(|| analyze_bytes(black_box(&bytes), &options).expect("loads").event_count())
        });
    }
    let analysis = analyze_bytes(&bytes, &AnalyzeOptions::default()).expect("loads");
    group.bench_function("conformance output", |b| {
        b.iter(|| tracekit::output::conformance(black_box(&analysis)).len())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
