//! tracekit's outputs of an [`Analysis`](tracekit_engine::Analysis):
//! [`output`] prints the tracks as `tracekit tracks` does (text for people
//! and snapshot tests, JSON for programs, the conformance dump compared
//! with DevTools); [`export`] writes the files other tools read
//! (speedscope, pprof, Perfetto, folded stacks, d3-flame-graph) and the
//! flame chart page; [`detail`] says what tells an event apart. Both honour a [`Query`](tracekit_engine::query::Query).
//!
//! It does no I/O but write to the writers it is handed, and starts no
//! thread except through [`Parallelism::Rayon`](tracekit_engine::Parallelism::Rayon).

pub mod detail;
pub mod export;
mod in_order;
pub mod output;
pub mod page;
