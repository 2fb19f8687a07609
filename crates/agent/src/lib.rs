//! The texts chrome-devtools-mcp (1.11.0) gives an AI agent about a
//! trace, from tracekit's analysis and insights: the performance summary
//! ([`trace_summary`]) and DevTools' event keys ([`EventKey`]), byte for
//! byte as its own code writes them.
//!
//! Nothing here reads a file: the caller loads the trace (with every
//! handler) and computes its insight sets.

mod bounds;
mod crux;
pub mod keys;
mod metrics;
mod order;
mod questions;
mod summary;
pub mod units;

pub use keys::{BadKey, EventKey};
pub use summary::{trace_summary, Throttling};
