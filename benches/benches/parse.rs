//! The tokenizer on a real trace, through the path production runs (the
//! streaming `Tokenizer`, pushed in 8 MB pieces as the CLI reads a file):
//! the structural scan that splits the event array, and the decoding of
//! every event (names interned, args kept raw), sequential and on rayon's
//! pool. The sink only counts.
//!
//! Input: `fixtures/traces/kitchen-sink.json.gz`, decompressed once.
//! Run with `cargo bench -p tracekit-events` (or `cargo xtask bench --micro`).

// `criterion_group!` defines a `pub fn`, which cannot be given a doc.
#![allow(missing_docs)]

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tracekit_events::{AnalyzeOptions, Context, Event, EventSink, Parallelism, Tokenizer};

fn fixture() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces/kitchen-sink.json.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("the fixture is gzipped UTF-8");
    text
}

struct Count(usize);

impl EventSink for Count {
    type Prepared = ();

    fn prepare(_: &[Event<'_>], _: &AnalyzeOptions) {}

    fn take(&mut self, events: &[Event<'_>], _: Option<()>, _cx: &mut Context) {
        self.0 += events.len();
    }
}

fn parse(text: &str, parallelism: Parallelism) -> usize {
    let mut cx = Context::new(AnalyzeOptions::default().with_parallelism(parallelism));
    let mut count = Count(0);
    let mut tokenizer = Tokenizer::new();
    for piece in text.as_bytes().chunks(8 << 20) {
        tokenizer.push(piece, &mut cx, &mut count).expect("a trace");
    }
    tokenizer.finish(&mut cx, &mut count).expect("a trace");
    count.0
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
    group.bench_function("tokenize sequential (kitchen-sink, 12 MB)", |b| {
        b.iter(|| parse(black_box(&text), Parallelism::Sequential))
    });
    group.bench_function("tokenize rayon (kitchen-sink, 12 MB)", |b| {
        b.iter(|| parse(black_box(&text), Parallelism::Rayon))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
