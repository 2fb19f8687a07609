//! tracekit: the engine behind the DevTools Performance panel's thread
//! tracks, in Rust. It loads a Chrome trace, a V8 CPU profile or a JS
//! Self-Profiling trace from bytes, runs the Meta, Samples and Renderer
//! handlers over its events in one pass, finalizes them in dependency
//! order, and returns one call tree per thread (the sync tracks), which
//! [`output`] prints in several formats.
//!
//! ```no_run
//! let bytes = std::fs::read("trace.json.gz").unwrap();
//! let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default()).unwrap();
//! print!("{}", tracekit::output::conformance(&analysis));
//! ```
//!
//! [`export`] writes them in the formats other tools read (speedscope,
//! pprof, Perfetto, folded stacks, d3-flame-graph).
//!
//! [`Loader`] takes the input in pieces instead, so that a trace of any
//! size loads in bounded memory. [`export`] turns an analysis into files
//! other tools read: [`export::chart`] is a flame chart in one HTML file.
//!
//! This crate does no I/O and starts no thread, except through
//! [`Parallelism::Rayon`], which runs per-thread work on rayon's pool.

mod engine;
pub mod export;
mod input;
mod loader;
pub mod output;
pub mod styles;

pub use engine::Analysis;
pub use loader::{analyze_bytes, InputKind, Loader};
pub use tracekit_events::{
    AnalyzeOptions, Diagnostics, Divergence, ErrorKind, Id, Interner, LoadError, Parallelism, Skip, SkipRecord, Sym,
    DEFAULT_MAX_NODES,
};
pub use tracekit_meta::Bounds;
pub use tracekit_renderer::{
    CpuSample, EventUrls, GroupArgs, NodeKind, ProcessTracks, ThreadTrack, TrackNode, UrlSource,
};
