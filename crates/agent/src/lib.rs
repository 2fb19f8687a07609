//! The texts chrome-devtools-mcp (1.11.0) gives an AI agent about a
//! trace, from tracekit's analysis and insights: the performance summary
//! ([`trace_summary`]), DevTools' event keys ([`EventKey`]), the AI
//! call tree of an event ([`call_tree`]), each insight's analysis
//! ([`insight_text`]) and the main thread's activity
//! ([`main_thread_activity`]), byte for byte as its own code writes them.
//!
//! Nothing here reads a file: the caller loads the trace (with every
//! handler) and computes its insight sets.

pub mod activity;
mod bounds;
pub mod calltree;
mod crux;
pub mod insight;
pub mod keys;
mod metrics;
mod order;
mod questions;
mod summary;
mod titles;
pub mod units;

pub use activity::{main_thread_activity, ActivityError};
pub use bounds::Window;
pub use calltree::{call_tree, CallTreeError};
pub use insight::{insight_text, InsightTextError};
pub use keys::{BadKey, EventKey};
pub use summary::{trace_summary, Throttling};
