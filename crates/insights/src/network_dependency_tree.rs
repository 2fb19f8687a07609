//! Network dependency tree: the chains of critical requests the page had
//! to wait for, one after the other, before it could render (read from the
//! navigation's Lantern graph, walked in the order of its dependencies),
//! the origins the page asked to preconnect to, and the origins it would
//! have gained most from preconnecting to (by the simulator's round trip
//! times). A chain of two requests or more fails the insight.

use tracekit_engine::handlers::page::args::ArgKey;
use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::json::{as_f64, as_str, member};
use tracekit_engine::{Micros, Strings, Sym};
use tracekit_lantern::{LanternContext, NodeKind};

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

#[path = "network_dependency_preconnect.rs"]
mod preconnect;

#[cfg(test)]
pub(crate) use preconnect::preconnects_of_link_header;
pub use preconnect::{PreconnectCandidate, PreconnectSource, PreconnectedOrigin};

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "NetworkDependencyTree",
    title: "Network dependency tree",
    description: "[Avoid chaining critical requests](https://developer.chrome.com/docs/performance/insights/network-dependency-tree) by reducing the length of chains, reducing the download size of resources, or deferring the download of unnecessary resources to improve page load",
    docs: "https://developer.chrome.com/docs/performance/insights/network-dependency-tree",
    category: Category::Lcp,
    strings: &[
        ("columnOrigin", "Origin"),
        ("columnRequest", "Request"),
        ("columnSource", "Source"),
        ("columnTime", "Time"),
        ("columnWastedMs", "Est LCP savings"),
        ("crossoriginWarning", "Unused preconnect. Check that the `crossorigin` attribute is used properly."),
        ("description", "[Avoid chaining critical requests](https://developer.chrome.com/docs/performance/insights/network-dependency-tree) by reducing the length of chains, reducing the download size of resources, or deferring the download of unnecessary resources to improve page load"),
        ("estSavingTableDescription", "Add [preconnect](https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/) hints to your most important origins, but try to use no more than 4"),
        ("estSavingTableTitle", "Preconnect candidates"),
        ("maxCriticalPathLatency", "Max critical path latency:"),
        ("noNetworkDependencyTree", "No rendering tasks impacted by network dependencies"),
        ("noPreconnectCandidates", "No additional origins are good candidates for preconnecting"),
        ("noPreconnectOrigins", "No origins were preconnected"),
        ("preconnectOriginsTableDescription", "[preconnect](https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/) hints help the browser establish a connection earlier in the page load, saving time when the first request for that origin is made. The following are the origins that the page preconnected to."),
        ("preconnectOriginsTableTitle", "Preconnected origins"),
        ("title", "Network dependency tree"),
        ("tooManyPreconnectLinksWarning", "More than 4 `preconnect` connections were found. These should be used sparingly and only to the most important origins."),
        ("unusedWarning", "Unused preconnect. Only use `preconnect` for origins that the page is likely to request."),
        ("warningDescription", "Avoid chaining critical requests by reducing the length of chains, reducing the download size of resources, or deferring the download of unnecessary resources to improve page load"),
    ],
};

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetworkDependencyTree {
    /// The chains of critical requests, as a tree from the requests that
    /// start them (the navigation's document, mostly).
    pub root_nodes: Vec<CriticalNode>,
    /// The time of the longest chain: from its first request's start to
    /// its last one's end.
    pub max_time: Micros,
    /// Whether a chain has two requests or more.
    pub fail: bool,
    /// The origins the page asked to preconnect to.
    pub preconnected_origins: Vec<PreconnectedOrigin>,
    /// The origins worth preconnecting to, the most time saved first (4 at
    /// most).
    pub preconnect_candidates: Vec<PreconnectCandidate>,
}

/// A request of a chain, with the requests that waited for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CriticalNode {
    /// The request: a request of the NetworkRequests handler, or one of
    /// the redirect hops Lantern copies from it.
    pub request: EventRef,
    /// From the start of its chain's first request to its own end.
    pub time_from_initial_request: Micros,
    /// The requests that waited for it, the one ending the longest chain
    /// first.
    pub children: Vec<CriticalNode>,
    /// Whether it is on the longest chain.
    pub is_longest: bool,
    /// The requests of every chain it is in, in the order first met.
    pub related_requests: Vec<EventRef>,
    /// Its Lantern request (what tells two nodes apart).
    lantern_request: usize,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let Some(navigation) = cx.navigation.filter(|n| n.navigation_id.is_some()) else {
        let finding = NetworkDependencyTree::default();
        return Ok(Insight::new(State::Pass, Finding::NetworkDependencyTree(finding)));
    };
    let strings = cx.analysis.strings();
    let critical = Critical {
        navigation_id: navigation.navigation_id,
        frame_id: cx.frame_id,
        strings,
    };
    let mut chains = Chains::default();
    if let Some(lantern) = cx.lantern() {
        walk_critical_chains(cx, lantern, &critical, &mut chains);
    }
    chains.mark_longest();
    sort_children(&mut chains.roots);
    // The handler's requests are in DevTools' `byTime` order.
    let context_requests: Vec<usize> = (cx.data.network_requests().requests.iter().enumerate())
        .filter(|(_, r)| cx.overlaps(r.ts, r.dur))
        .map(|(at, _)| at)
        .collect();
    let preconnect_candidates = preconnect::candidates(cx, &context_requests)?;
    let preconnected_origins = preconnect::preconnected(cx, &context_requests, &preconnect_candidates);
    let related = chains.related.clone();
    let state = if chains.fail { State::Fail } else { State::Pass };
    let finding = NetworkDependencyTree {
        root_nodes: chains.roots,
        max_time: Micros(chains.max_time),
        fail: chains.fail,
        preconnected_origins,
        preconnect_candidates,
    };
    let mut insight = Insight::new(state, Finding::NetworkDependencyTree(finding));
    insight.related_events = Some(RelatedEvents::Labelled(related));
    Ok(insight)
}

/// What tells a critical request: the navigation's document, or a request
/// of high priority or blocking rendering that something on the page
/// started (not an image, a fetch, a preload or an iframe).
struct Critical<'a> {
    navigation_id: Option<Sym>,
    frame_id: Option<Sym>,
    strings: &'a Strings,
}

/// Resource types never critical: fetched at high priority, yet unlikely
/// to hold up rendering.
const NOT_CRITICAL_TYPES: [&str; 4] = ["Image", "XHR", "Fetch", "EventSource"];

/// Chrome's `renderBlocking` values of a request that does not block
/// rendering.
const NOT_BLOCKING: [&str; 3] = [
    "non_blocking",
    "dynamically_injected_non_blocking",
    "potentially_blocking",
];

/// The priorities DevTools counts as high.
const HIGH_PRIORITIES: [&str; 3] = ["VeryHigh", "High", "Medium"];

impl Critical<'_> {
    fn text<'v>(&'v self, value: &JsValue) -> Option<&'v str> {
        value.as_sym().map(|s| self.strings.resolve(s))
    }

    fn is_critical(&self, request: &NetworkRequest) -> bool {
        if !request.request_id.is_number && Some(request.request_id.text) == self.navigation_id {
            return true;
        }
        if request.is_link_preload.is_truthy() {
            return false;
        }
        let kind = self.text(&request.resource_type);
        let is_iframe = kind == Some("Document") && request.frame.as_sym() != self.frame_id;
        if kind.is_some_and(|k| NOT_CRITICAL_TYPES.contains(&k)) || is_iframe {
            return false;
        }
        if self.text(&request.mime_type).is_some_and(|m| m.starts_with("image/")) {
            return false;
        }
        // A request nothing on the page is known to have started (a late
        // asset, mostly) has no parent to chain it to.
        if !has_initiator_url(request) {
            return false;
        }
        let blocking = !self
            .text(&request.render_blocking)
            .is_some_and(|b| NOT_BLOCKING.contains(&b));
        let high = self
            .text(&request.priority)
            .is_some_and(|p| HIGH_PRIORITIES.contains(&p));
        high || blocking
    }
}

/// Whether the request's initiator has a URL, or else the top frame of
/// its stack trace (either non-empty).
fn has_initiator_url(request: &NetworkRequest) -> bool {
    let url_of = |text: &str| member(text, "url").and_then(as_str).is_some_and(|u| !u.is_empty());
    if let JsValue::Raw(initiator) = &request.initiator {
        if url_of(initiator) {
            return true;
        }
    }
    let JsValue::Raw(stack) = &request.stack_trace else {
        return false;
    };
    first_array_item(stack).is_some_and(url_of)
}

/// The raw text of the first item of a JSON array.
fn first_array_item(text: &str) -> Option<&str> {
    let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).ok()?;
    items.first().map(|raw| raw.get())
}

/// The chains found so far, as DevTools builds them.
#[derive(Default)]
struct Chains {
    roots: Vec<CriticalNode>,
    related: Vec<(EventRef, Vec<String>)>,
    max_time: f64,
    fail: bool,
    longest: Vec<usize>,
}

impl Chains {
    /// Adds a chain (Lantern requests, first to last) to the tree.
    fn add(&mut self, path: &[(usize, EventRef, Micros, Micros)]) {
        let (Some(first), Some(last)) = (path.first(), path.last()) else {
            return;
        };
        if path.len() >= 2 {
            self.fail = true;
        }
        let start = first.2 .0;
        let total = last.2 .0 + last.3 .0 - start;
        if total > self.max_time {
            self.max_time = total;
            self.longest = path.iter().map(|p| p.0).collect();
        }
        let mut nodes = &mut self.roots;
        for (depth, &(lantern_request, request, ts, dur)) in path.iter().enumerate() {
            let at = match nodes.iter().position(|n| n.lantern_request == lantern_request) {
                Some(at) => at,
                None => {
                    nodes.push(CriticalNode {
                        request,
                        time_from_initial_request: Micros(ts.0 + dur.0 - start),
                        children: Vec::new(),
                        is_longest: false,
                        related_requests: Vec::new(),
                        lantern_request,
                    });
                    nodes.len() - 1
                }
            };
            let node = &mut nodes[at];
            for p in path {
                if !node.related_requests.contains(&p.1) {
                    node.related_requests.push(p.1);
                }
            }
            let labels = if depth < 2 {
                Vec::new()
            } else {
                vec![UI.string("warningDescription").to_owned()]
            };
            match self.related.iter_mut().find(|(e, _)| *e == request) {
                Some(kept) => kept.1 = labels,
                None => self.related.push((request, labels)),
            }
            nodes = &mut node.children;
        }
    }

    /// Marks the nodes of the longest chain.
    fn mark_longest(&mut self) {
        let mut nodes = &mut self.roots;
        for &lantern_request in &self.longest {
            let Some(node) = nodes.iter_mut().find(|n| n.lantern_request == lantern_request) else {
                break;
            };
            node.is_longest = true;
            nodes = &mut node.children;
        }
    }
}

/// The time from its chain's start of the node's latest leaf, as DevTools
/// picks it (its first child stands for the first comparison).
fn max_leaf_time(node: &CriticalNode) -> f64 {
    let Some(first) = node.children.first() else {
        return node.time_from_initial_request.0;
    };
    let mut best = first.time_from_initial_request.0;
    for child in &node.children {
        let t = max_leaf_time(child);
        if t > best {
            best = t;
        }
    }
    best
}

/// Sorts every node's children by their latest leaf, latest first (the
/// roots keep their order).
fn sort_children(nodes: &mut [CriticalNode]) {
    for node in nodes {
        if !node.children.is_empty() {
            node.children.sort_by(|a, b| {
                max_leaf_time(b)
                    .partial_cmp(&max_leaf_time(a))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            sort_children(&mut node.children);
        }
    }
}

/// Walks the Lantern graph breadth first from its root, a node once all
/// it depends on has been seen, and adds the chain of network requests
/// leading to each critical request whose chain is critical throughout.
fn walk_critical_chains(cx: &Context<'_>, lantern: &LanternContext, critical: &Critical<'_>, chains: &mut Chains) {
    let graph = &lantern.graph;
    if graph.nodes.is_empty() {
        return;
    }
    // Lantern tells nodes apart by id in a walk.
    let mut first_of_id: ahash::AHashMap<&str, usize> = ahash::AHashMap::new();
    let keys: Vec<usize> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| *first_of_id.entry(n.id.as_str()).or_insert(i))
        .collect();
    let requests = &cx.data.network_requests().requests;
    let mut seen = vec![false; graph.nodes.len()];
    let mut queued = vec![false; graph.nodes.len()];
    queued[keys[graph.root]] = true;
    // Each entry: a node and the entry it was reached from.
    let mut entries: Vec<(usize, Option<usize>)> = vec![(graph.root, None)];
    let mut at = 0;
    while at < entries.len() {
        let (node, _) = entries[at];
        seen[node] = true;
        if let NodeKind::Network(network) = &graph.nodes[node].kind {
            let path = network_path(&entries, at, graph);
            let all_critical = path
                .iter()
                .all(|&k| critical.is_critical(&requests[lantern.requests[k].request]));
            if all_critical && !is_non_network(&lantern.requests[network.request]) {
                let chain: Vec<_> = path
                    .iter()
                    .map(|&k| {
                        let raw = &requests[lantern.requests[k].request];
                        (k, request_ref(lantern, k), raw.ts, raw.dur)
                    })
                    .collect();
                chains.add(&chain);
            }
        }
        for &next in &graph.nodes[node].dependents {
            if !graph.nodes[next].dependencies.iter().all(|&d| seen[d]) || queued[keys[next]] {
                continue;
            }
            queued[keys[next]] = true;
            entries.push((next, Some(at)));
        }
        at += 1;
    }
}

/// The Lantern requests of the network nodes on the way from the root to
/// an entry of the walk, root first.
fn network_path(entries: &[(usize, Option<usize>)], mut at: usize, graph: &tracekit_lantern::Graph) -> Vec<usize> {
    let mut path = Vec::new();
    loop {
        let (node, from) = entries[at];
        if let NodeKind::Network(n) = &graph.nodes[node].kind {
            path.push(n.request);
        }
        match from {
            Some(f) => at = f,
            None => break,
        }
    }
    path.reverse();
    path
}

/// Whether a Lantern request uses no network (a `data:` URL, ...).
fn is_non_network(request: &tracekit_lantern::LanternRequest) -> bool {
    const SCHEMES: [&str; 6] = ["blob", "data", "intent", "file", "filesystem", "chrome-extension"];
    let scheme_of = |s: &str| s.split(':').next().unwrap_or_default().to_owned();
    SCHEMES.contains(&scheme_of(&request.protocol).as_str()) || SCHEMES.contains(&scheme_of(&request.scheme).as_str())
}

/// The event a Lantern request stands for: its request, or for a hop
/// before a redirect the copy of it Lantern made for that hop.
fn request_ref(lantern: &LanternContext, k: usize) -> EventRef {
    let request = &lantern.requests[k];
    if request.redirect_destination.is_none() {
        return EventRef::Request(request.request);
    }
    let hop = request.request_id.matches(":redirect").count();
    EventRef::RedirectHop(request.request, u32::try_from(hop).unwrap_or(u32::MAX))
}

/// The key of the navigation's document request.
pub(crate) fn navigation_key(cx: &Context<'_>) -> Option<ArgKey> {
    Some(ArgKey {
        text: cx.navigation?.navigation_id?,
        is_number: false,
    })
}

/// A number of a JSON object's member (`None` when absent or not a
/// number).
pub(crate) fn number_member(text: &str, key: &str) -> Option<f64> {
    member(text, key).and_then(as_f64)
}

impl NetworkDependencyTree {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let roots = self.root_nodes.iter().map(|n| node_value(n, cx)).collect();
        model.push("rootNodes", Value::Array(roots));
        model.push("maxTime", Value::Num(self.max_time.0));
        model.push("fail", Value::Bool(self.fail));
        let origins = self.preconnected_origins.iter().map(|o| o.value(cx)).collect();
        model.push("preconnectedOrigins", Value::Array(origins));
        let candidates = self
            .preconnect_candidates
            .iter()
            .map(PreconnectCandidate::value)
            .collect();
        model.push("preconnectCandidates", Value::Array(candidates));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, _cx: &crate::TextCx<'_>) -> Vec<String> {
        let mut lines = Vec::new();
        if self.root_nodes.is_empty() {
            lines.push(UI.string("noNetworkDependencyTree").to_owned());
        } else {
            lines.push(format!(
                "{} {:.0} ms",
                UI.string("maxCriticalPathLatency"),
                self.max_time.0 / 1000.0
            ));
            let mut count = 0;
            count_nodes(&self.root_nodes, &mut count);
            lines.push(format!("{count} critical requests in chains"));
        }
        if self.preconnected_origins.is_empty() {
            lines.push(UI.string("noPreconnectOrigins").to_owned());
        } else {
            for origin in &self.preconnected_origins {
                lines.push(format!("{}: {}", UI.string("preconnectOriginsTableTitle"), origin.url));
            }
        }
        if self.preconnect_candidates.is_empty() {
            lines.push(UI.string("noPreconnectCandidates").to_owned());
        } else {
            for c in &self.preconnect_candidates {
                lines.push(format!(
                    "{}: {} ({:.0} ms)",
                    UI.string("estSavingTableTitle"),
                    c.origin,
                    c.wasted_ms
                ));
            }
        }
        lines
    }
}

fn count_nodes(nodes: &[CriticalNode], count: &mut usize) {
    for n in nodes {
        *count += 1;
        count_nodes(&n.children, count);
    }
}

/// A node of the tree in the dump.
fn node_value(node: &CriticalNode, cx: &mut crate::DumpCx<'_, '_>) -> Value {
    let request = cx.event(node.request);
    let children = node.children.iter().map(|c| node_value(c, cx)).collect();
    let related = node.related_requests.iter().map(|&r| cx.event(r)).collect();
    let mut object = Object::new()
        .with("request", request)
        .with("timeFromInitialRequest", Value::Num(node.time_from_initial_request.0))
        .with("children", Value::Array(children));
    if node.is_longest {
        object.push("isLongest", Value::Bool(true));
    }
    object.push("relatedRequests", Value::Set(related));
    object.into()
}
