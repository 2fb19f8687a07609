//! The event loader on a real trace: the structural scan that splits the
//! event array, and the decoding of every event (names interned, args kept
//! raw), sequential and on rayon's pool.
//!
//! Input: `fixtures/traces/kitchen-sink.json.gz`, decompressed once.
//! Run with `cargo bench -p tracekit-events` (or `cargo xtask bench --micro`).

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tracekit_events::{detect, parse_events, Diagnostics, Document, Interner, Parallelism};

fn fixture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/kitchen-sink.json.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("the fixture is gzipped UTF-8");
    text
}

fn parse(text: &str, parallelism: Parallelism) -> usize {
    let Ok(Document::Trace(doc)) = detect(text) else {
        panic!("not a trace")
    };
    let mut interner = Interner::new();
    let mut diag = Diagnostics::default();
    parse_events(text, &doc, parallelism, &mut interner, &mut diag)
        .events
        .len()
}

fn bench(c: &mut Criterion) {
    let text = fixture();
    let mut group = c.benchmark_group("events");
    group
        .throughput(Throughput::Bytes(text.len() as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("detect+parse sequential (kitchen-sink, 12 MB)", |b| {
        b.iter(|| parse(black_box(&text), Parallelism::Sequential))
    });
    group.bench_function("detect+parse rayon (kitchen-sink, 12 MB)", |b| {
        b.iter(|| parse(black_box(&text), Parallelism::Rayon))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
