//! Lantern, the page load simulator of Lighthouse that DevTools runs to
//! estimate what fixing an insight would save: from a navigation's
//! requests (as Lantern sees them, [`requests`]) it estimates the network
//! (round trip time and server response time per origin, throughput:
//! [`analyze`]), the inputs of its simulation.
//!
//! Lantern's errors are DevTools' (their messages are its), so that an
//! insight set records the same reason for having no estimate.

mod analyzer;
mod error;
mod graph;
mod request;

pub use analyzer::{analyze, NetworkAnalysis, SUMMARY};
pub use error::LanternError;
pub use graph::{CpuNode, Graph, NetworkNode, Node, NodeId, NodeKind};
pub use request::{requests, Initiator, LanternRequest, ResourceTiming};

#[cfg(test)]
mod tests;
