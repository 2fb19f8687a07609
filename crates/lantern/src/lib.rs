//! Lantern, the page load simulator of Lighthouse that DevTools runs to
//! estimate what fixing an insight would save: from a navigation's
//! requests (as Lantern sees them, [`requests`]) it estimates the network
//! (round trip time and server response time per origin, throughput:
//! [`analyze`]), the inputs of its simulation, and from those requests
//! and the main thread's tasks the page dependency graph it simulates
//! ([`create_graph`]).
//!
//! Lantern's errors are DevTools' (their messages are its), so that an
//! insight set records the same reason for having no estimate.

mod analyzer;
mod build;
mod error;
mod graph;
mod link;
mod request;

pub use analyzer::{analyze, NetworkAnalysis, SUMMARY};
pub use build::create_graph;
pub use error::LanternError;
pub use graph::{CpuNode, Graph, NetworkNode, Node, NodeId, NodeKind};
pub use request::{requests, Initiator, LanternRequest, ResourceTiming};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graph;
