//! tracekit: the DevTools trace engine in Rust. It loads a Chrome trace, a
//! V8 CPU profile or a JS Self-Profiling trace from bytes, runs the
//! DevTools handlers over its events in one pass, finalizes them in
//! dependency order, and gives one call tree per thread (the sync tracks),
//! the aggregated views of the Performance panel, and files for other
//! tools. This crate is the one a user depends on: it re-exports the whole
//! API of the crates below it.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("trace.json.gz")?;
//! let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default())?;
//! for thread in analysis.find_threads("CrRendererMain")? {
//!     for node in thread.nodes().filter(|n| n.depth() < 2) {
//!         let indent = "  ".repeat(node.depth() as usize);
//!         println!("{indent}{} {:.3} ms", node.name(), node.duration().to_millis().0);
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! - Loading: [`analyze_bytes`] for an input in memory, or a [`Loader`]
//!   fed in pieces ([`Loader::push`], [`Loader::read_from`]) for a trace of
//!   any size in bounded memory; [`AnalyzeOptions`] say what to build.
//!   Errors are [`LoadError`]s, with a [`LoadError::kind`] to act on.
//! - The result, [`Analysis`]: its [`Process`]es, each with its
//!   [`Thread`]s, each with its call tree of [`Node`]s (trace events, and
//!   JS calls whose [`Function`] comes from the CPU profile), names as
//!   text and ids ([`Id`]) as the numbers the trace gives; what was
//!   skipped ([`Diagnostics`]).
//! - [`query`]: which threads, window, depth and durations a caller asks
//!   for ([`query::Query`]), checked once, and against an analysis, with one set of
//!   messages.
//! - [`output`] prints the tracks as `tracekit tracks` does (text for
//!   people and snapshot tests, JSON for programs, the conformance dump);
//!   [`export`] writes them in the formats other tools read (speedscope,
//!   pprof, Perfetto, folded stacks, d3-flame-graph, a flame chart in one
//!   HTML file).
//! - [`views`]: the aggregated views of the Performance panel (Call Tree,
//!   Bottom-Up, grouping, Summary) of a thread's [`Thread::track`].
//! - With the `serde` feature, the model implements `serde::Serialize`:
//!   an [`Analysis`] serializes as the document of `tracekit tracks
//!   --format json` (`docs/json-format.md`).
//!
//! The library does no I/O (but read from a reader handed to
//! [`Loader::read_from`]) and starts no thread, except through
//! [`Parallelism::Rayon`], which runs per-thread work on rayon's pool. It
//! compiles to WebAssembly.
//!
//! A debug build of a crate that uses tracekit compiles tracekit without
//! optimizations, which makes loading a trace about 8 times slower; see
//! "Use as a library" in the README for the two lines that fix it.

pub use tracekit_agent as agent;
pub use tracekit_engine::support;
pub use tracekit_engine::*;
pub use tracekit_export::{export, output, page};
pub use tracekit_insights as insights;
pub use tracekit_lantern as lantern;
pub use tracekit_views as views;
