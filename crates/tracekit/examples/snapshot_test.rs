//! How a crate that uses tracekit snapshot-tests the tracks of its own
//! traces with [insta](https://insta.rs): a change in what the page does
//! (a new long task, a function that got slower or moved) shows up as a
//! diff of readable text, reviewed with `cargo insta review`.
//!
//! In your crate, this file is a test, `tests/tracks.rs`, with
//!
//! ```toml
//! [dev-dependencies]
//! tracekit = "0.1"
//! insta = "1"
//!
//! # tracekit loads a trace about 8 times slower unoptimized
//! # (README, "Use as a library").
//! [profile.dev.package."*"]
//! opt-level = 3
//! ```
//!
//! Here it is an example that `cargo test` runs as a test (`test = true`
//! in tracekit's Cargo.toml), on a bundled trace; its snapshots are in
//! `examples/snapshots/`. `cargo run --example snapshot_test` prints what
//! is snapshotted.

use std::fmt::Write;

use tracekit::output::text;
use tracekit::query::{Query, Window};
use tracekit::{Analysis, AnalyzeOptions, Millis};

/// A page's main thread, recorded by Chrome (your test would record its
/// own, with Puppeteer or `chrome --trace-startup`).
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/traces/main-thread.json.gz");

fn load() -> Analysis {
    let bytes = std::fs::read(TRACE).expect("the trace");
    tracekit::analyze_bytes(&bytes, &AnalyzeOptions::default()).expect("a trace tracekit loads")
}

/// The main thread's first 200 ms, three levels deep, what lasts 1 ms or
/// more: the text format (`docs/text-format.md`) is stable and meant for
/// diffs, times in ms from the start of the trace.
fn first_tasks(analysis: &Analysis) -> String {
    let window = Window::new(Millis(0.0), Millis(200.0)).expect("a window");
    let query =
        Query::from_parts(Some("CrRendererMain".into()), Some(window), Some(3), Some(Millis(1.0))).expect("a query");
    text(analysis, &query)
}

/// A snapshot of your own making, from the model: each task of 50 ms or
/// more, with the JS function that took the most of it.
fn long_tasks(analysis: &Analysis) -> String {
    let mut out = String::new();
    let main = analysis.find_threads("CrRendererMain").expect("a main thread")[0];
    let origin = analysis.bounds().min;
    for task in main.roots().filter(|t| t.duration().to_millis().0 >= 50.0) {
        let busiest = task
            .descendants()
            .filter(|n| n.function().is_some())
            .filter_map(|n| Some((n.name(), n.self_time()?)))
            .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
        let _ = write!(
            out,
            "{} at {:.1} ms, {:.1} ms",
            task.name(),
            (task.start() - origin).to_millis().0,
            task.duration().to_millis().0
        );
        if let Some((name, self_time)) = busiest {
            let _ = write!(out, "; most in {name} ({:.1} ms)", self_time.to_millis().0);
        }
        out.push('\n');
    }
    out
}

fn main() {
    let analysis = load();
    print!("{}\n{}", first_tasks(&analysis), long_tasks(&analysis));
}

#[test]
fn the_first_tasks_of_the_main_thread() {
    insta::assert_snapshot!(first_tasks(&load()));
}

#[test]
fn the_long_tasks() {
    insta::assert_snapshot!(long_tasks(&load()));
}
