//! The two halves of a thread's track, on synthetic input of a known size:
//!
//! - `integrator`: [`SamplesIntegrator`] turning 200,000 CPU samples of a
//!   2,000-function profile into JS calls, bounded by 20,000 trace events
//!   (a `RunTask` every 2 ms, each with a `FunctionCall` inside);
//! - `build_tree`: [`build_tree`] nesting 1,000,000 sorted spans (tasks with
//!   nested children down to depth 12, some instants).
//!
//! Run with `cargo bench -p tracekit-renderer` (or `cargo xtask bench --micro`).

// `criterion_group!` defines a `pub fn`, which cannot be given a doc.
#![allow(missing_docs)]

use std::fmt::Write;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use tracekit_cpuprofile::{parse_profile_json, CpuProfileModel};
use tracekit_events::{names, Diagnostics, Interner, Phase, Sym};
use tracekit_renderer::integrator::{SamplesIntegrator, TraceEntry};
use tracekit_renderer::timeline::{build_tree, compare, Nested, Span};

/// A small deterministic generator (xorshift64*), so that every run
/// measures the same input.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const FUNCTIONS: u64 = 2_000;
const SAMPLES: usize = 200_000;
const START_US: f64 = 1_000_000.0;
const INTERVAL_US: u64 = 100;
const TASK_EVERY_US: f64 = 2_000.0;

/// A CPU profile as Chrome writes it (parent links, samples, time deltas).
// Node ids index `depth`: they are below `FUNCTIONS + 5`.
#[allow(clippy::cast_possible_truncation)]
fn profile_json(rng: &mut Rng) -> String {
    let mut json = String::from(r#"{"nodes":["#);
    let specials = ["(root)", "(program)", "(idle)", "(garbage collector)"];
    for (i, name) in specials.iter().enumerate() {
        let parent = if i == 0 {
            String::new()
        } else {
            r#","parent":1"#.to_owned()
        };
        write!(
            json,
            r#"{{"id":{},"callFrame":{{"functionName":"{name}","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}{parent}}},"#,
            i + 1
        )
        .unwrap();
    }
    let mut depth = vec![0u32; (FUNCTIONS + 5) as usize];
    for id in 5..5 + FUNCTIONS {
        let mut parent = if id < 10 || rng.below(8) == 0 {
            1
        } else {
            id - 1 - rng.below((id - 5).min(50))
        };
        if parent != 1 && depth[parent as usize] >= 40 {
            parent = 1;
        }
        depth[id as usize] = if parent == 1 { 1 } else { depth[parent as usize] + 1 };
        write!(
            json,
            r#"{{"id":{id},"parent":{parent},"callFrame":{{"functionName":"f{id}","scriptId":"{}","url":"https://example.test/app{}.js","lineNumber":{},"columnNumber":{}}}}},"#,
            5 + id % 7,
            id % 7,
            id * 3,
            id % 80
        )
        .unwrap();
    }
    json.pop();
    let end = START_US + (SAMPLES as u64 * INTERVAL_US) as f64;
    write!(json, r#"],"startTime":{START_US},"endTime":{end},"samples":["#).unwrap();
    let mut node = 5u64;
    let mut deltas = String::new();
    for i in 0..SAMPLES {
        let roll = rng.below(100);
        node = match roll {
            0..=69 => node,
            70..=79 => 3,
            80..=81 => 4,
            82..=83 => 2,
            _ => 5 + rng.below(FUNCTIONS),
        };
        if i > 0 {
            json.push(',');
            deltas.push(',');
        }
        write!(json, "{node}").unwrap();
        write!(deltas, "{}", INTERVAL_US - 20 + rng.below(41)).unwrap();
    }
    write!(json, r#"],"timeDeltas":[{deltas}]}}"#).unwrap();
    json
}

#[derive(Clone, Copy)]
struct Event {
    ts: f64,
    dur: f64,
    name: Sym,
}

impl TraceEntry for Event {
    fn span(&self) -> Span {
        Span {
            ts: self.ts,
            dur: Some(self.dur),
            is_profile_call: false,
        }
    }
    fn name(&self) -> Sym {
        self.name
    }
    fn ph(&self) -> Phase {
        Phase::COMPLETE
    }
    fn sample_trace_id(&self) -> Option<tracekit_events::SampleTraceId> {
        None
    }
}

fn trace_events() -> Vec<Event> {
    let end = START_US + (SAMPLES as u64 * INTERVAL_US) as f64;
    let mut events = Vec::new();
    let mut t = START_US;
    while t < end {
        events.push(Event {
            ts: t,
            dur: 1_800.0,
            name: names::RUN_TASK,
        });
        events.push(Event {
            ts: t + 100.0,
            dur: 1_600.0,
            name: names::FUNCTION_CALL,
        });
        t += TASK_EVERY_US;
    }
    events
}

/// 1M spans, sorted as DevTools sorts them.
fn spans(n: usize, rng: &mut Rng) -> Vec<Span> {
    fn subtree(start: f64, dur: f64, depth: u32, rng: &mut Rng, out: &mut Vec<Span>, n: usize) {
        if out.len() >= n {
            return;
        }
        let instant = depth > 0 && rng.below(20) == 0;
        out.push(Span {
            ts: start,
            dur: if instant { None } else { Some(dur) },
            is_profile_call: depth % 2 == 1,
        });
        if instant || depth >= 12 || dur < 8.0 {
            return;
        }
        let children = 1 + rng.below(4);
        let slot = dur / children as f64;
        for k in 0..children {
            // Strictly inside the slot, so that rounding never makes a
            // child end after its parent.
            let a = (0.01 + rng.below(1000) as f64 / 1000.0 * 0.3) * slot;
            let b = (0.01 + rng.below(1000) as f64 / 1000.0 * 0.3) * slot;
            subtree(start + k as f64 * slot + a, slot - a - b, depth + 1, rng, out, n);
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut t = 0.0;
    while out.len() < n {
        subtree(t, 5_000.0, 0, rng, &mut out, n);
        t += 5_500.0;
    }
    out.sort_by(compare);
    out
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut interner = Interner::new();
    let raw = parse_profile_json(&profile_json(&mut rng), &mut interner).expect("a valid profile");
    let model = CpuProfileModel::new(raw, &mut Diagnostics::default()).expect("a valid model");
    let events = trace_events();
    let calls = SamplesIntegrator::new(&model, &interner, false, tracekit_events::DevTools::LATEST)
        .build(&events, usize::MAX)
        .map_or(0, |calls| calls.len());
    assert!(calls > SAMPLES / 10, "the synthetic profile gives {calls} calls");

    let mut group = c.benchmark_group("integrator");
    group
        .throughput(Throughput::Elements(SAMPLES as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("200k samples, 20k events", |b| {
        b.iter(|| {
            SamplesIntegrator::new(&model, &interner, false, tracekit_events::DevTools::LATEST)
                .build(black_box(&events), usize::MAX)
                .map_or(0, |calls| calls.len())
        })
    });
    group.finish();

    let spans = spans(1_000_000, &mut rng);
    let nested = build_tree(
        spans.iter().copied(),
        |s| s,
        Nested::new,
        Nested::self_time_mut,
        &mut Diagnostics::default(),
    );
    assert_eq!(nested.len(), spans.len(), "the synthetic spans nest");
    assert!(nested.iter().any(|n| n.depth >= 10));
    let mut group = c.benchmark_group("build_tree");
    group
        .throughput(Throughput::Elements(spans.len() as u64))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("1M sorted spans", |b| {
        b.iter(|| {
            let mut diag = Diagnostics::default();
            build_tree(
                black_box(&spans).iter().copied(),
                |s| s,
                Nested::new,
                Nested::self_time_mut,
                &mut diag,
            )
            .len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
