//! Lantern's requests, network analysis and page dependency graph against
//! the DevTools engine's: tracekit's (`tracekit::lantern`) written as the
//! JSON that `xtask/js/lantern.mjs` writes from DevTools' own Lantern, and
//! the two compared, numbers within 0.002; the graphs node by node, matched
//! by id ([`graph_difference`]). The metrics' part of the goldens is
//! compared elsewhere.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use tracekit::lantern::{analyze, create_graph, requests, Graph, LanternRequest, NodeKind};

/// Where the Lantern goldens of an engine are.
pub fn lantern_dir(devtools: tracekit::DevTools) -> PathBuf {
    crate::expected_dir(devtools).join("lantern")
}

fn r3(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

fn sorted(pairs: &[(String, f64)]) -> Value {
    let mut pairs = pairs.to_vec();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    // JavaScript's JSON leaves an undefined value out (an empty summary's).
    Value::Object(
        pairs
            .into_iter()
            .filter(|(_, v)| !v.is_nan())
            .map(|(k, v)| (k, r3(v)))
            .collect(),
    )
}

fn request_value(r: &LanternRequest, all: &[LanternRequest], strings: &tracekit::Strings) -> Value {
    let id = |i: Option<usize>| i.map(|i| all[i].request_id.clone());
    let timing = r.timing.map(|t| {
        let fields = [
            ("requestTime", t.request_time),
            ("proxyStart", t.proxy_start),
            ("proxyEnd", t.proxy_end),
            ("dnsStart", t.dns_start),
            ("dnsEnd", t.dns_end),
            ("connectStart", t.connect_start),
            ("connectEnd", t.connect_end),
            ("sslStart", t.ssl_start),
            ("sslEnd", t.ssl_end),
            ("sendStart", t.send_start),
            ("sendEnd", t.send_end),
            ("receiveHeadersStart", t.receive_headers_start),
            ("receiveHeadersEnd", t.receive_headers_end),
        ];
        Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_owned(), r3(v)))
                .collect::<Map<_, _>>(),
        )
    });
    let mut v = json!({
        "requestId": r.request_id, "url": r.url, "protocol": r.protocol, "connectionId": r3(r.connection_id),
        "connectionReused": r.connection_reused, "origin": r.origin, "scheme": r.scheme, "host": r.host,
        "rendererStartTime": r3(r.renderer_start_time), "networkRequestTime": r3(r.network_request_time),
        "responseHeadersEndTime": r3(r.response_headers_end_time), "networkEndTime": r3(r.network_end_time),
        "transferSize": r3(r.transfer_size), "resourceSize": r3(r.resource_size),
    });
    let more = json!({
        "fromDiskCache": r.from_disk_cache, "fromMemoryCache": r.from_memory_cache,
        "isLinkPreload": r.is_link_preload, "finished": r.finished, "failed": r.failed,
        "statusCode": r3(r.status_code), "resourceType": r.resource_type, "mimeType": r.mime_type,
        "priority": r.priority, "frameId": r.frame_id.map(|f| strings.resolve(f)), "fromWorker": r.from_worker,
        "initiatorType": r.initiator.kind, "initiatorRequest": id(r.initiator_request),
        "redirectSource": id(r.redirect_source), "timing": timing,
    });
    if let (Value::Object(v), Value::Object(more)) = (&mut v, more) {
        v.extend(more);
    }
    v
}

/// A graph in the golden's shape: the nodes a walk from the root along
/// dependents reaches, in its order (as [`create_graph`] numbers them),
/// their dependencies and dependents by index (`null` for one the walk
/// does not reach).
pub fn graph_value(graph: &Graph) -> Value {
    let mut reached = vec![false; graph.nodes.len()];
    let mut order = vec![graph.root];
    reached[graph.root] = true;
    let mut at = 0;
    while at < order.len() {
        for &next in &graph.nodes[order[at]].dependents {
            if !reached[next] {
                reached[next] = true;
                order.push(next);
            }
        }
        at += 1;
    }
    let mut index = vec![None; graph.nodes.len()];
    for (i, &n) in order.iter().enumerate() {
        index[n] = Some(i);
    }
    let list = |l: &[usize]| Value::Array(l.iter().map(|&d| json!(index[d])).collect());
    let nodes = order.iter().map(|&n| {
        let node = &graph.nodes[n];
        let mut v = json!({"id": node.id, "start": r3(node.start), "end": r3(node.end),
            "isMainDocument": node.is_main_document, "dependencies": list(&node.dependencies),
            "dependents": list(&node.dependents)});
        match &node.kind {
            NodeKind::Network(net) => {
                v["type"] = json!("network");
                v["request"] = json!(net.request);
            }
            NodeKind::Cpu(cpu) => {
                v["type"] = json!("cpu");
                v["tid"] = json!(cpu.tid);
                v["childEvents"] = json!(cpu.child_events);
                v["didPerformLayout"] = json!(cpu.did_perform_layout);
                v["didPaint"] = json!(cpu.did_paint);
                v["didParseHTML"] = json!(cpu.did_parse_html);
                v["evaluateScriptUrls"] = json!(cpu.evaluate_script_urls);
            }
        }
        v
    });
    Value::Array(nodes.collect())
}

/// A golden's graph by node id: each node with its dependencies and
/// dependents as ids (`null`: a node the walk does not reach).
fn graph_by_id(graph: &Value) -> Result<std::collections::BTreeMap<String, Value>, String> {
    let nodes = graph.as_array().ok_or("the graph is not an array")?;
    let id_of = |i: &Value| {
        i.as_u64()
            .and_then(|i| nodes.get(usize::try_from(i).ok()?))
            .map_or(Value::Null, |n| n["id"].clone())
    };
    let mut out = std::collections::BTreeMap::new();
    for node in nodes {
        let mut node = node.clone();
        for key in ["dependencies", "dependents"] {
            let ids = node[key]
                .as_array()
                .map(|l| l.iter().map(id_of).collect())
                .unwrap_or_default();
            node[key] = Value::Array(ids);
        }
        let id = node["id"].as_str().ok_or("a node without an id")?.to_owned();
        if out.insert(id.clone(), node).is_some() {
            return Err(format!("node {id} twice"));
        }
    }
    Ok(out)
}

/// The first difference between an expected graph and ours, node by node
/// matched by id: the same nodes, and for each its type, times, main
/// document flag, the ids of its dependencies and dependents in order,
/// its request or its task's thread, flags, scripts and child events.
pub fn graph_difference(expected: &Value, ours: &Value) -> Option<String> {
    let (expected, ours) = match (graph_by_id(expected), graph_by_id(ours)) {
        (Ok(e), Ok(o)) => (e, o),
        (Err(e), _) => return Some(format!("expected graph: {e}")),
        (_, Err(e)) => return Some(format!("our graph: {e}")),
    };
    if let Some(id) = expected.keys().find(|id| !ours.contains_key(*id)) {
        return Some(format!(
            "graph: node {id} missing ({} nodes, expected {})",
            ours.len(),
            expected.len()
        ));
    }
    if let Some(id) = ours.keys().find(|id| !expected.contains_key(*id)) {
        return Some(format!(
            "graph: node {id} not expected ({} nodes, expected {})",
            ours.len(),
            expected.len()
        ));
    }
    expected
        .iter()
        .find_map(|(id, e)| first_difference(e, &ours[id]).map(|d| format!("graph node {id}{d}")))
}

/// The parts of a golden's navigation that [`graph_difference`] and the
/// metrics' comparison look at, left out of one for [`first_difference`].
pub const GRAPH_AND_METRICS: [&str; 4] = ["graph", "processedNavigation", "metrics", "metricsError"];

/// A golden (or ours) without [`GRAPH_AND_METRICS`].
pub fn without_graph(golden: &Value) -> Value {
    let mut golden = golden.clone();
    if let Value::Array(entries) = &mut golden {
        for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
            for key in GRAPH_AND_METRICS {
                entry.remove(key);
            }
        }
    }
    golden
}

/// The comparison of every navigation's graph of a golden with ours:
/// how many were compared (those the golden has a graph of), how many
/// were identical, and the first difference of each other.
pub fn compare_graphs(expected: &Value, ours: &Value) -> (usize, usize, Vec<String>) {
    let (mut compared, mut identical, mut differences) = (0, 0, Vec::new());
    let empty = Vec::new();
    let (e, o) = (expected.as_array().unwrap_or(&empty), ours.as_array().unwrap_or(&empty));
    for (i, e) in e.iter().enumerate() {
        let Some(graph) = e.get("graph") else {
            continue;
        };
        compared += 1;
        let difference = match o.get(i) {
            None => Some("no such navigation".to_owned()),
            Some(o) => match o.get("graph") {
                Some(ours) => graph_difference(graph, ours),
                None => Some(format!("no graph: {}", o.get("error").unwrap_or(&Value::Null))),
            },
        };
        match difference {
            None => identical += 1,
            Some(d) => differences.push(format!("navigation {i}: {d}")),
        }
    }
    (compared, identical, differences)
}

/// tracekit's Lantern view of a trace, in the golden's shape.
pub fn run_ours_lantern(file: &Path, devtools: tracekit::DevTools) -> Result<Value, String> {
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    let mut out = Vec::new();
    let navigations = data
        .meta()
        .navigations
        .main_frame
        .iter()
        .filter(|n| n.frame.is_some() && n.navigation_id.is_some_and(|id| !strings.resolve(id).is_empty()));
    for navigation in navigations {
        let mut entry = json!({"navigation": navigation.event});
        match requests(data, strings, navigation) {
            Err(e) => entry["error"] = json!(e.to_string()),
            Ok(list) => {
                entry["requests"] = Value::Array(list.iter().map(|r| request_value(r, &list, strings)).collect());
                let analysis = analyze(&list);
                entry["analysis"] = analysis.as_ref().map_or(Value::Null, |a| {
                    json!({"throughput": r3(a.throughput), "rtt": r3(a.rtt),
                        "additionalRttByOrigin": sorted(&a.additional_rtt_by_origin),
                        "serverResponseTimeByOrigin": sorted(&a.server_response_time_by_origin)})
                });
                // DevTools builds the graph of a navigation it has a
                // network analysis of (its error is the navigation's).
                if analysis.is_some() {
                    match create_graph(data, strings, navigation, &list) {
                        Ok(graph) => entry["graph"] = graph_value(&graph),
                        Err(e) => entry["error"] = json!(e.to_string()),
                    }
                }
            }
        }
        out.push(entry);
    }
    Ok(Value::Array(out))
}

/// The first difference between the expected view and ours, if any.
pub fn first_difference(expected: &Value, ours: &Value) -> Option<String> {
    let mut work = vec![(expected, ours, String::new())];
    while let Some((e, a, path)) = work.pop() {
        match (e, a) {
            (Value::Object(eo), Value::Object(ao)) => {
                for (k, v) in eo {
                    match ao.get(k) {
                        Some(av) => work.push((v, av, format!("{path}.{k}"))),
                        None => return Some(format!("{path}.{k}: missing")),
                    }
                }
                if let Some(k) = ao.keys().find(|k| !eo.contains_key(*k)) {
                    return Some(format!("{path}.{k}: not expected"));
                }
            }
            (Value::Array(el), Value::Array(al)) => {
                if el.len() != al.len() {
                    return Some(format!("{path}: {} items, expected {}", al.len(), el.len()));
                }
                for (i, (x, y)) in el.iter().zip(al).enumerate().rev() {
                    work.push((x, y, format!("{path}[{i}]")));
                }
            }
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                if (x - y).abs() > 0.002 {
                    return Some(format!("{path}: expected {x}, got {y}"));
                }
            }
            _ if e != a => return Some(format!("{path}: expected {e}, got {a}")),
            _ => {}
        }
    }
    None
}
