//! Builds a navigation's page dependency graph as DevTools builds it
//! (`LanternComputationData.createGraph`): a node per request (but videos
//! and workers' requests) and per task of the main thread, the requests
//! tied to their initiators, the tasks to the requests and tasks their
//! events name (in `link`), the short tasks pruned, and the nodes
//! reachable from the root kept, numbered in the order of a walk from it.

use ahash::{AHashMap, AHashSet};
use tracekit_engine::handlers::meta::Navigation;
use tracekit_engine::{HandlerData, Strings};

use crate::graph::{Graph, NetworkNode, Node, NodeId, NodeKind};
use crate::link::{cpu_nodes, link_cpu_nodes, window_events};
use crate::{LanternError, LanternRequest};

/// The network nodes and the maps the linking looks them up by.
pub(crate) struct Network<'r> {
    /// Each request's node, if it has one.
    pub by_request: Vec<Option<NodeId>>,
    /// The nodes by id (a repeated request id made unique with
    /// `:duplicate`).
    pub by_id: AHashMap<String, NodeId>,
    /// The nodes by URL, in request order.
    pub by_url: AHashMap<&'r str, Vec<NodeId>>,
    /// The document request of each frame (`None` when the frame has
    /// several: ambiguous).
    pub by_frame: AHashMap<tracekit_engine::Sym, Option<NodeId>>,
}

/// The page dependency graph of `navigation`, from its Lantern requests
/// (as [`crate::requests`] gives them) and the main thread's events (the
/// MainThreadEvents handler's, gathered with `all_handlers`), or DevTools'
/// error. The root is node 0; the nodes are in the order of a walk in
/// breadth from it along dependents (DevTools' `traverse`), followed by any
/// node one of them depends on that the walk does not reach.
pub fn create_graph(
    data: &HandlerData,
    strings: &Strings,
    navigation: &Navigation,
    requests: &[LanternRequest],
) -> Result<Graph, LanternError> {
    let Some(first) = requests.first() else {
        // DevTools reads the first request's URL without a check.
        return Err(LanternError::new("Cannot read properties of undefined (reading 'url')"));
    };
    let mut nodes = Vec::new();
    let network = network_nodes(data, strings, requests, &mut nodes);
    let events = window_events(data, navigation);
    let cpu = cpu_nodes(data.main_thread_events(), events, strings, &mut nodes)?;
    let requested = first.url.as_str();
    let mut last = 0;
    while let Some(next) = requests[last].redirect_destination {
        last = next;
    }
    let main_document_url = requests[last].url.as_str();
    let root_request =
        find_resource_for_url(requests, requested).ok_or_else(|| LanternError::new("rootRequest not found"))?;
    let root = network.by_request[root_request]
        .or_else(|| network.by_id.get(&requests[root_request].request_id).copied())
        .ok_or_else(|| LanternError::new("rootNode not found"))?;
    let main_request = find_last_document_for_url(requests, main_document_url)
        .ok_or_else(|| LanternError::new("mainDocumentRequest not found"))?;
    let main_document = network.by_request[main_request]
        .or_else(|| network.by_id.get(&requests[main_request].request_id).copied())
        .ok_or_else(|| LanternError::new("mainDocumentNode not found"))?;
    link_network_nodes(&mut nodes, &network, requests, root, root_request)?;
    link_cpu_nodes(&mut nodes, &network, requests, root, &cpu, strings)?;
    nodes[main_document].is_main_document = true;
    if has_cycle(&nodes, root, true) || has_cycle(&nodes, root, false) {
        return Err(LanternError::new("Invalid dependency graph created, cycle detected"));
    }
    Ok(reachable(nodes, root))
}

/// A request's node's id: its request id, with `:duplicate` appended
/// until no node before has it.
fn unique_id(id: &str, taken: &AHashMap<String, NodeId>) -> String {
    let mut id = id.to_owned();
    while taken.contains_key(&id) {
        id.push_str(":duplicate");
    }
    id
}

/// One node per request but videos and workers' requests, in request
/// order.
fn network_nodes<'r>(
    data: &HandlerData,
    strings: &Strings,
    requests: &'r [LanternRequest],
    nodes: &mut Vec<Node>,
) -> Network<'r> {
    let raw = &data.network_requests().requests;
    let mut network = Network {
        by_request: vec![None; requests.len()],
        by_id: AHashMap::new(),
        by_url: AHashMap::new(),
        by_frame: AHashMap::new(),
    };
    for (i, r) in requests.iter().enumerate() {
        if r.mime_type.starts_with("video") || r.from_worker {
            continue;
        }
        let id = unique_id(&r.request_id, &network.by_id);
        let node = nodes.len();
        nodes.push(Node {
            id: id.clone(),
            kind: NodeKind::Network(NetworkNode { request: i }),
            start: r.renderer_start_time * 1000.0,
            end: r.network_end_time * 1000.0,
            is_main_document: false,
            dependencies: Vec::new(),
            dependents: Vec::new(),
        });
        network.by_request[i] = Some(node);
        network.by_url.entry(r.url.as_str()).or_default().push(node);
        network.by_id.insert(id, node);
        // A frame's own document (requested by the frame at its own URL).
        let document_url = raw.get(r.request).map(|raw| strings.resolve(raw.requesting_frame_url));
        let frame = r.frame_id.filter(|&f| !strings.resolve(f).is_empty());
        if let Some(frame) = frame {
            if r.resource_type.as_deref() == Some("Document") && document_url == Some(r.url.as_str()) {
                let ambiguous = network.by_frame.contains_key(&frame);
                network.by_frame.insert(frame, (!ambiguous).then_some(node));
            }
        }
    }
    network
}

/// Two URLs equal but for their fragments (both must parse).
fn equal_without_fragments(a: &str, b: &str) -> bool {
    let (Ok(mut a), Ok(mut b)) = (url::Url::parse(a), url::Url::parse(b)) else {
        return false;
    };
    a.set_fragment(None);
    b.set_fragment(None);
    a.as_str() == b.as_str()
}

/// The request of `url` (fragments aside), else the redirect of its
/// origin's root.
fn find_resource_for_url(requests: &[LanternRequest], url: &str) -> Option<usize> {
    let same = |r: &LanternRequest, url: &str| url.starts_with(r.url.as_str()) && equal_without_fragments(&r.url, url);
    if let Some(i) = requests.iter().position(|r| same(r, url)) {
        return Some(i);
    }
    let origin = format!("{}/", url::Url::parse(url).ok()?.origin().ascii_serialization());
    requests
        .iter()
        .position(|r| r.redirect_destination.is_some() && same(r, &origin))
}

/// The last document request of `url` (fragments aside) that did not fail.
fn find_last_document_for_url(requests: &[LanternRequest], url: &str) -> Option<usize> {
    requests.iter().rposition(|r| {
        r.resource_type.as_deref() == Some("Document")
            && !r.failed
            && url.starts_with(r.url.as_str())
            && equal_without_fragments(&r.url, url)
    })
}

/// Makes `node` depend on `on` (once; DevTools' error on itself).
pub(crate) fn add_dependency(nodes: &mut [Node], node: NodeId, on: NodeId) -> Result<(), LanternError> {
    if node == on {
        return Err(LanternError::new("Cannot add dependency on itself"));
    }
    if nodes[node].dependencies.contains(&on) {
        return Ok(());
    }
    nodes[on].dependents.push(node);
    nodes[node].dependencies.push(on);
    Ok(())
}

/// Whether `node` reaches `target` through its dependencies (itself
/// included).
pub(crate) fn is_dependent_on(nodes: &[Node], node: NodeId, target: NodeId) -> bool {
    let mut seen = AHashSet::new();
    seen.insert(node);
    let mut queue = std::collections::VecDeque::from([node]);
    while let Some(at) = queue.pop_front() {
        if at == target {
            return true;
        }
        for &next in &nodes[at].dependencies {
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    false
}

/// The URLs a request's initiator names: its URL, else for a script the
/// URLs of its stack.
fn network_initiators(request: &LanternRequest) -> Vec<&str> {
    if let Some(url) = request.initiator.url.as_deref().filter(|u| !u.is_empty()) {
        return vec![url];
    }
    if request.initiator.kind == "script" {
        return request.initiator.stack_urls.iter().map(String::as_str).collect();
    }
    Vec::new()
}

/// Ties each request to its initiator (the one request of the URL its
/// initiator names, else its initiator request, else the root), and each
/// redirect to the hop before it.
fn link_network_nodes(
    nodes: &mut [Node],
    network: &Network<'_>,
    requests: &[LanternRequest],
    root: NodeId,
    root_request: usize,
) -> Result<(), LanternError> {
    // A request without a node is looked up by its id, as DevTools does.
    let node_of = |request: usize| {
        network.by_request[request].or_else(|| network.by_id.get(&requests[request].request_id).copied())
    };
    for (i, request) in requests.iter().enumerate() {
        let Some(node) = network.by_request[i] else {
            continue;
        };
        let direct_request = request.initiator_request.unwrap_or(root_request);
        let direct = node_of(direct_request).unwrap_or(root);
        let can_depend = !is_dependent_on(nodes, direct, node) && nodes[direct].start <= nodes[node].start;
        let initiators = network_initiators(request);
        for url in &initiators {
            let candidates = network.by_url.get(url).map_or(&[][..], Vec::as_slice);
            if candidates.len() == 1
                && nodes[candidates[0]].start <= nodes[node].start
                && !is_dependent_on(nodes, candidates[0], node)
            {
                add_dependency(nodes, node, candidates[0])?;
            } else if can_depend {
                add_dependency(nodes, node, direct)?;
            }
        }
        if initiators.is_empty() && can_depend {
            add_dependency(nodes, node, direct)?;
        }
        if node != root && nodes[node].dependencies.is_empty() && nodes[root].start <= nodes[node].start {
            add_dependency(nodes, node, root)?;
        }
        if request.redirect_source.is_none() {
            continue;
        }
        let mut chain = vec![i];
        while let Some(source) = requests[*chain.last().unwrap_or(&i)].redirect_source {
            chain.push(source);
        }
        chain.reverse();
        for pair in chain.windows(2) {
            if let (Some(before), Some(after)) = (node_of(pair[0]), node_of(pair[1])) {
                add_dependency(nodes, after, before)?;
            }
        }
    }
    Ok(())
}

/// Whether the graph has a cycle, found as DevTools finds one: a walk in
/// depth from the root along dependents (or dependencies), the path to
/// the current node kept.
fn has_cycle(nodes: &[Node], root: NodeId, dependents: bool) -> bool {
    let n = nodes.len();
    let (mut visited, mut on_path, mut queued) = (vec![false; n], vec![false; n], vec![false; n]);
    let mut depth_added = vec![0usize; n];
    let (mut path, mut to_visit) = (Vec::new(), vec![root]);
    queued[root] = true;
    while let Some(at) = to_visit.pop() {
        queued[at] = false;
        if on_path[at] {
            return true;
        }
        if visited[at] {
            continue;
        }
        while path.len() > depth_added[at] {
            if let Some(gone) = path.pop() {
                on_path[gone] = false;
            }
        }
        visited[at] = true;
        path.push(at);
        on_path[at] = true;
        let next = if dependents {
            &nodes[at].dependents
        } else {
            &nodes[at].dependencies
        };
        for &next in next {
            if queued[next] {
                continue;
            }
            to_visit.push(next);
            queued[next] = true;
            depth_added[next] = path.len();
        }
    }
    false
}

/// The nodes reachable from the root along dependents (a node by its id,
/// once), numbered in the order of a walk in breadth from it, then those
/// they depend on that the walk does not reach.
fn reachable(nodes: Vec<Node>, root: NodeId) -> Graph {
    let mut order = vec![root];
    let mut seen: AHashSet<&str> = AHashSet::new();
    seen.insert(nodes[root].id.as_str());
    let mut at = 0;
    while at < order.len() {
        for &next in &nodes[order[at]].dependents {
            if seen.insert(nodes[next].id.as_str()) {
                order.push(next);
            }
        }
        at += 1;
    }
    // A node reached may depend on one the walk does not reach (a task
    // that started before the root): it stays, after the others.
    let mut at = 0;
    let mut taken = vec![false; nodes.len()];
    for &i in &order {
        taken[i] = true;
    }
    while at < order.len() {
        for &dependency in &nodes[order[at]].dependencies {
            if !taken[dependency] {
                taken[dependency] = true;
                order.push(dependency);
            }
        }
        at += 1;
    }
    let mut new_index = vec![usize::MAX; nodes.len()];
    for (i, &old) in order.iter().enumerate() {
        new_index[old] = i;
    }
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    let renumber = |list: &[NodeId]| -> Vec<NodeId> {
        list.iter()
            .map(|&d| new_index[d])
            .filter(|&d| d != usize::MAX)
            .collect()
    };
    let mut out = Vec::with_capacity(order.len());
    for &old in &order {
        if let Some(mut node) = slots[old].take() {
            node.dependencies = renumber(&node.dependencies);
            node.dependents = renumber(&node.dependents);
            out.push(node);
        }
    }
    Graph { nodes: out, root: 0 }
}
