//! Lantern, the page load simulator of Lighthouse that DevTools runs to
//! estimate what fixing an insight would save: from a navigation's
//! requests (as Lantern sees them, [`requests`]) it estimates the network
//! (round trip time and server response time per origin, throughput:
//! [`analyze`]), the inputs of its simulation; from those requests and the
//! main thread's tasks it builds the page dependency graph
//! ([`create_graph`], a [`Graph`]). Its [`Simulator`] plays the graph out
//! over that network, and its [`metrics`] (FCP, LCP, time to interactive,
//! total blocking time) are simulations of cut down graphs; [`context`]
//! runs it all for a navigation, as DevTools does for its insights.
//!
//! Lantern's errors are DevTools' (their messages are its), so that an
//! insight set records the same reason for having no estimate.

mod analyzer;
mod build;
mod context;
mod error;
mod graph;
mod link;
mod metrics;
mod navigation;
mod request;
mod savings;
mod simulation;
mod walk;

pub use analyzer::{analyze, NetworkAnalysis, SUMMARY};
pub use build::create_graph;
pub use context::{context, LanternContext};
pub use error::LanternError;
pub use graph::{CpuNode, Graph, NetworkNode, Node, NodeId, NodeKind};
pub use metrics::{
    first_contentful_paint, has_render_blocking_priority, interactive, largest_contentful_paint, metrics,
    sum_of_blocking_time, total_blocking_time, Estimate, MetricInput, MetricResult, Metrics, BLOCKING_TIME_THRESHOLD,
};
pub use navigation::{processed_navigation, ProcessedNavigation};
pub use request::{requests, Initiator, LanternRequest, ResourceTiming};
pub use savings::{metric_savings_for_wasted_bytes, savings_for_wasted_bytes};
pub use simulation::{ConnectionPool, DnsCache, Download, NodeTiming, Simulation, Simulator, TcpConnection};
pub use walk::{Direction, Subgraph};

#[cfg(test)]
mod sim_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graph;
