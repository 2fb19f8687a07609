//! tracekit: the engine behind the DevTools Performance panel's thread
//! tracks, in Rust. It loads a Chrome trace, a V8 CPU profile or a JS
//! Self-Profiling trace from bytes, runs the Meta, Samples and Renderer
//! handlers over its events in one pass, finalizes them in dependency
//! order, and returns one call tree per thread (the sync tracks), which
//! [`output`] prints in several formats.
//!
//! ```no_run
//! let bytes = std::fs::read("trace.json.gz").unwrap();
//! let text = tracekit::decode(&bytes).unwrap();
//! let trace = tracekit::parse(&text.text, tracekit::Parallelism::Sequential).unwrap();
//! let analysis = tracekit::analyze(trace, &tracekit::AnalyzeOptions::default());
//! print!("{}", tracekit::output::conformance(&analysis));
//! ```
//!
//! This crate does no I/O and starts no thread, except through
//! [`Parallelism::Rayon`], which runs per-thread work on rayon's pool.

pub mod engine;
pub mod input;
pub mod output;

pub use engine::{analyze, Analysis, AnalyzeOptions};
pub use input::{decode, parse, Decoded, InputKind, Trace};
pub use tracekit_events::{Diagnostics, Id, Interner, LoadError, SkipRecord, Sym};
pub use tracekit_meta::Bounds;
pub use tracekit_renderer::{NodeKind, Parallelism, ProcessTracks, ThreadTrack, TrackNode};
