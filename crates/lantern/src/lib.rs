//! Lantern, the page load simulator of Lighthouse that DevTools runs to
//! estimate what fixing an insight would save: from a navigation's
//! requests (as Lantern sees them, [`requests`]) it estimates the network
//! (round trip time and server response time per origin, throughput:
//! [`analyze`]), the inputs of its simulation; from those requests and the
//! main thread's tasks it builds the page dependency graph
//! ([`create_graph`], a [`Graph`]). Its [`Simulator`] plays the graph out
//! over that network, and its [`metrics`] (FCP, LCP, time to interactive,
//! total blocking time) are simulations of cut down graphs; [`context`]
//! runs it all for a navigation, as DevTools does for its insights. The
//! insights' estimates simulate that context's graphs again, changed: with
//! fewer bytes ([`metric_savings_for_wasted_bytes`]), over HTTP/2
//! ([`modern_http_savings`]), without the render-blocking requests
//! ([`render_blocking_savings`]).
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
mod modern_http;
mod navigation;
mod render_blocking;
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
pub use modern_http::modern_http_savings;
pub use navigation::{processed_navigation, ProcessedNavigation};
pub use render_blocking::{render_blocking_savings, RenderBlockingSavings};
pub use request::{requests, Initiator, LanternRequest, ResourceTiming};
pub use savings::{metric_savings_for_wasted_bytes, savings_for_wasted_bytes};
pub use simulation::{ConnectionPool, DnsCache, Download, NodeTiming, Simulation, Simulator, TcpConnection};
pub use walk::{Direction, Subgraph};

#[cfg(test)]
mod savings_tests;
#[cfg(test)]
mod sim_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graph;
