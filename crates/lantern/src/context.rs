//! Everything Lantern works out for a navigation, in the order DevTools
//! does for the insights (`Processor`'s Lantern context): the requests, the
//! page dependency graph, the paints, the network analysis, the simulator
//! and the four metrics, stopping at the first error.

use tracekit_engine::handlers::meta::Navigation;
use tracekit_engine::{HandlerData, Strings};

use crate::{
    analyze, create_graph, metrics, processed_navigation, requests, Graph, LanternError, LanternRequest, MetricInput,
    Metrics, Simulator,
};

/// A navigation's Lantern context, which the insights' estimates read.
#[derive(Debug, Clone)]
pub struct LanternContext {
    /// The navigation's requests as Lantern sees them.
    pub requests: Vec<LanternRequest>,
    /// Its page dependency graph (network nodes index `requests`).
    pub graph: Graph,
    /// The simulator of its network.
    pub simulator: Simulator,
    /// Its four metrics.
    pub metrics: Metrics,
}

/// The Lantern context of `navigation` (of the main frame), as DevTools
/// makes it for the navigation's insight set: `None` when no request
/// downloaded anything (no network analysis), DevTools' error when a step
/// fails.
pub fn context(
    data: &HandlerData,
    strings: &Strings,
    navigation: &Navigation,
) -> Result<Option<LanternContext>, LanternError> {
    context_with_graph(data, strings, navigation, |requests| {
        create_graph(data, strings, navigation, requests)
    })
}

/// [`context`] with the graph made by `build_graph` from the requests (a
/// test's graph).
pub(crate) fn context_with_graph(
    data: &HandlerData,
    strings: &Strings,
    navigation: &Navigation,
    build_graph: impl FnOnce(&[LanternRequest]) -> Result<Graph, LanternError>,
) -> Result<Option<LanternContext>, LanternError> {
    let requests = requests(data, strings, navigation)?;
    let graph = build_graph(&requests)?;
    let processed = processed_navigation(data, navigation)?;
    let Some(analysis) = analyze(&requests) else {
        return Ok(None);
    };
    let simulator = Simulator::new(&analysis)?;
    let metrics = metrics(MetricInput {
        graph: &graph,
        requests: &requests,
        simulator: &simulator,
        navigation: &processed,
    })?;
    Ok(Some(LanternContext {
        requests,
        graph,
        simulator,
        metrics,
    }))
}
