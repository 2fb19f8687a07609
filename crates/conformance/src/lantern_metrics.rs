//! Lantern's simulator and metrics against the DevTools engine's, on
//! DevTools' own page dependency graph: the graph `xtask/js/lantern.mjs
//! --graph` writes is loaded as a [`Graph`] (its network nodes pointing at
//! tracekit's Lantern requests of the navigation, which are DevTools'), the
//! four metrics are simulated on it, and the processed navigation and the
//! metrics (timing, both estimates with every node's start and end, both
//! graphs' nodes) are compared with DevTools', numbers within 0.002.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tracekit::lantern::{
    analyze, processed_navigation, requests, CpuNode, Estimate, Graph, LanternRequest, MetricInput, MetricResult,
    NetworkNode, Node, NodeKind, Simulator,
};

use crate::lantern::first_difference;

/// DevTools' graph of a navigation (the `graph` of an entry of
/// `lantern.mjs --graph`) as a [`Graph`] over `requests`, node indexes
/// kept, the first node its root.
pub fn graph_from_json(nodes: &[Value], requests: &[LanternRequest]) -> Result<Graph, String> {
    let indexes = |v: &Value| -> Vec<usize> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_u64)
                    .filter_map(|i| usize::try_from(i).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let number = |v: &Value, key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    let flag = |v: &Value, key: &str| v[key].as_bool().unwrap_or(false);
    let mut out = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let (kind, start, end) = if n["type"] == "network" {
            let request = n["request"]
                .as_u64()
                .and_then(|r| usize::try_from(r).ok())
                .ok_or(format!("graph node {i}: no request"))?;
            let r = requests
                .get(request)
                .ok_or(format!("graph node {i}: request {request} of {}", requests.len()))?;
            // The node's times are its request's, as Lantern reads them.
            let times = (r.renderer_start_time * 1000.0, r.network_end_time * 1000.0);
            (NodeKind::Network(NetworkNode { request }), times.0, times.1)
        } else {
            let urls = n["evaluateScriptUrls"]
                .as_array()
                .map(|a| a.iter().filter_map(|u| u.as_str().map(str::to_owned)).collect())
                .unwrap_or_default();
            // What the metrics read of a task (the rest, as the thread, is
            // left at its default).
            let cpu = CpuNode {
                did_perform_layout: flag(n, "didPerformLayout"),
                did_paint: flag(n, "didPaint"),
                did_parse_html: flag(n, "didParseHTML"),
                evaluate_script_urls: urls,
                ..CpuNode::default()
            };
            (NodeKind::Cpu(cpu), number(n, "start"), number(n, "end"))
        };
        out.push(Node {
            id: n["id"].as_str().unwrap_or_default().to_owned(),
            kind,
            start,
            end,
            is_main_document: flag(n, "isMainDocument"),
            dependencies: indexes(&n["dependencies"]),
            dependents: indexes(&n["dependents"]),
        });
    }
    if out.is_empty() {
        return Err("an empty graph".to_owned());
    }
    Ok(Graph { nodes: out, root: 0 })
}

fn r3(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

fn estimate_value(e: &Estimate) -> Value {
    let mut timings: Vec<_> = e.node_timings.iter().map(|t| (t.node, t.start, t.end)).collect();
    timings.sort_by_key(|t| t.0);
    json!({"timeInMs": r3(e.time_in_ms),
        "nodeTimings": timings.into_iter().map(|(n, s, e)| json!([n, r3(s), r3(e)])).collect::<Vec<_>>()})
}

fn result_value(r: &MetricResult) -> Value {
    json!({"timing": r3(r.timing), "optimistic": estimate_value(&r.optimistic),
        "pessimistic": estimate_value(&r.pessimistic),
        "optimisticGraph": r.optimistic_graph.original_nodes(), "pessimisticGraph": r.pessimistic_graph.original_nodes()})
}

/// Our processed navigation and metrics of one navigation on DevTools'
/// graph `graph`, in the shape of `lantern.mjs --graph`'s entry
/// (`processedNavigation`, `metrics`, `metricsError`).
fn ours_on_graph(
    data: &tracekit::HandlerData,
    navigation: &tracekit::handlers::meta::Navigation,
    list: &[LanternRequest],
    graph: &Graph,
) -> Value {
    let mut part = json!({});
    let processed = match processed_navigation(data, navigation) {
        Ok(p) => p,
        Err(e) => {
            part["metricsError"] = json!(e.to_string());
            return part;
        }
    };
    let mut timestamps = json!({"firstContentfulPaint": r3(processed.first_contentful_paint)});
    if let Some(lcp) = processed.largest_contentful_paint {
        timestamps["largestContentfulPaint"] = r3(lcp);
    }
    part["processedNavigation"] = timestamps;
    part["metrics"] = json!({});
    let Some(analysis) = analyze(list) else {
        return part;
    };
    let simulator = match Simulator::new(&analysis) {
        Ok(s) => s,
        Err(e) => {
            part["metricsError"] = json!(e.to_string());
            return part;
        }
    };
    let input = MetricInput {
        graph,
        requests: list,
        simulator: &simulator,
        navigation: &processed,
    };
    if let Err(e) = fill_metrics(&mut part["metrics"], input) {
        part["metricsError"] = json!(e.to_string());
    }
    part
}

/// The four metrics, one at a time: DevTools keeps those done before an
/// error.
fn fill_metrics(out: &mut Value, input: MetricInput<'_>) -> Result<(), tracekit::lantern::LanternError> {
    use tracekit::lantern::{first_contentful_paint, interactive, largest_contentful_paint, total_blocking_time};
    let fcp = first_contentful_paint(input)?;
    out["firstContentfulPaint"] = result_value(&fcp);
    let lcp = largest_contentful_paint(input, &fcp)?;
    out["largestContentfulPaint"] = result_value(&lcp);
    let tti = interactive(input, &lcp)?;
    out["interactive"] = result_value(&tti);
    let tbt = total_blocking_time(input, &fcp, &tti)?;
    out["totalBlockingTime"] = result_value(&tbt);
    Ok(())
}

/// How one trace compared.
#[derive(Debug, Default, Clone)]
pub struct Comparison {
    /// Navigations with DevTools' graph compared.
    pub compared: usize,
    /// Of those, identical.
    pub identical: usize,
    /// The first difference of each navigation that differs.
    pub differences: Vec<String>,
}

/// Which page dependency graph the metrics are simulated on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphSource {
    /// DevTools' own, from the oracle's output: the simulator and metrics
    /// alone are compared.
    DevTools,
    /// tracekit's (`create_graph`): the whole chain is compared.
    Ours,
}

/// Our metrics of each navigation of `file` that has DevTools' graph in
/// `expected` (the output of `lantern.mjs --graph`) against DevTools', on
/// the graph of `source`.
pub fn compare_metrics(
    file: &Path,
    expected: &Value,
    devtools: tracekit::DevTools,
    source: GraphSource,
) -> Result<Comparison, String> {
    let mut out = Comparison::default();
    let entries = expected.as_array().ok_or("not a list of navigations")?;
    if !entries.iter().any(|e| e.get("graph").is_some()) {
        return Ok(out);
    }
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    for entry in entries {
        let Some(nodes) = entry["graph"].as_array() else {
            continue;
        };
        out.compared += 1;
        let index = entry["navigation"].as_u64();
        let navigation = data
            .meta()
            .navigations
            .main_frame
            .iter()
            .find(|n| Some(u64::from(n.event)) == index);
        let Some(navigation) = navigation else {
            out.differences.push(format!("navigation {index:?}: not ours"));
            continue;
        };
        let list = match requests(data, strings, navigation) {
            Ok(list) => list,
            Err(e) => {
                out.differences.push(format!("navigation {index:?}: requests: {e}"));
                continue;
            }
        };
        let graph = match source {
            GraphSource::DevTools => graph_from_json(nodes, &list),
            GraphSource::Ours => {
                tracekit::lantern::create_graph(data, strings, navigation, &list).map_err(|e| e.to_string())
            }
        };
        let graph = match graph {
            Ok(g) => g,
            Err(e) => {
                out.differences.push(format!("navigation {index:?}: graph: {e}"));
                continue;
            }
        };
        let ours = ours_on_graph(data, navigation, &list, &graph);
        let mut theirs = json!({});
        for key in ["processedNavigation", "metrics", "metricsError"] {
            if let Some(v) = entry.get(key) {
                theirs[key] = v.clone();
            }
        }
        match first_difference(&theirs, &ours) {
            None => out.identical += 1,
            Some(d) => out.differences.push(format!("navigation {index:?}: {d}")),
        }
    }
    Ok(out)
}

/// The trace of a cached oracle output `NAME.json`: `NAME.json.gz` (or
/// `NAME.json`) in the first of `dirs` that has it.
pub fn trace_of(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let stem = name.strip_suffix(".json").unwrap_or(name);
    dirs.iter()
        .flat_map(|d| [d.join(format!("{stem}.json.gz")), d.join(format!("{stem}.json"))])
        .find(|p| p.is_file())
}

/// The oracle's outputs cached in `cache` (`NAME.json`, by name), each
/// with its trace (a fixture, or a trace of `$LANTERN_CORPUS`'s
/// `devtools` or `lighthouse` directories, default `/work/shared/corpus`)
/// and its parsed JSON; those whose name contains `only` when given. An
/// output without its trace, or that does not read or parse, is left out
/// (the cache is a developer machine's: none is there on a fresh one).
pub fn cached_outputs(cache: &Path, only: Option<&str>) -> Vec<(String, PathBuf, Value)> {
    let corpus = PathBuf::from(std::env::var("LANTERN_CORPUS").unwrap_or_else(|_| "/work/shared/corpus".to_owned()));
    let dirs = [
        PathBuf::from("fixtures/traces"),
        corpus.join("devtools"),
        corpus.join("lighthouse"),
    ];
    let mut names: Vec<String> = std::fs::read_dir(cache)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter(|name| only.is_none_or(|o| name.contains(o)))
        .filter_map(|name| {
            let file = trace_of(&name, &dirs)?;
            let text = std::fs::read_to_string(cache.join(&name)).ok()?;
            let expected = serde_json::from_str::<Value>(&text).ok()?;
            Some((name, file, expected))
        })
        .collect()
}

/// Our savings of fewer bytes (`metric_savings_for_wasted_bytes`) on
/// DevTools' graph of each navigation of `file`, against DevTools' (each
/// entry of `savings`, the output of `xtask/js/lantern-savings.mjs`: the
/// bytes wasted by request index, and DevTools' FCP and LCP savings), the
/// graph from `expected` (the output of `lantern.mjs --graph`).
pub fn compare_savings(
    file: &Path,
    expected: &Value,
    savings: &Value,
    devtools: tracekit::DevTools,
) -> Result<Comparison, String> {
    use tracekit::lantern::{
        first_contentful_paint, largest_contentful_paint, metric_savings_for_wasted_bytes, Metrics,
    };
    let mut out = Comparison::default();
    let entries = savings.as_array().ok_or("not a list of navigations")?;
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    for entry in entries.iter().filter(|e| e.get("FCP").is_some()) {
        out.compared += 1;
        let index = entry["navigation"].as_u64();
        let nodes = expected
            .as_array()
            .and_then(|a| a.iter().find(|e| e["navigation"].as_u64() == index))
            .and_then(|e| e["graph"].as_array());
        let navigation = data
            .meta()
            .navigations
            .main_frame
            .iter()
            .find(|n| Some(u64::from(n.event)) == index);
        let (Some(nodes), Some(navigation)) = (nodes, navigation) else {
            out.differences.push(format!("navigation {index:?}: no graph"));
            continue;
        };
        let result = (|| -> Result<(f64, f64), String> {
            let list = requests(data, strings, navigation).map_err(|e| e.to_string())?;
            let graph = graph_from_json(nodes, &list)?;
            let processed = processed_navigation(data, navigation).map_err(|e| e.to_string())?;
            let simulator = Simulator::new(&analyze(&list).ok_or("no analysis")?).map_err(|e| e.to_string())?;
            let input = MetricInput {
                graph: &graph,
                requests: &list,
                simulator: &simulator,
                navigation: &processed,
            };
            let fcp = first_contentful_paint(input).map_err(|e| e.to_string())?;
            let lcp = largest_contentful_paint(input, &fcp).map_err(|e| e.to_string())?;
            let wasted: Vec<(usize, f64)> = entry["wasted"]
                .as_array()
                .map(|a| a.as_slice())
                .unwrap_or_default()
                .iter()
                .filter_map(|w| {
                    let i = usize::try_from(w[0].as_u64()?).ok()?;
                    Some((list.get(i)?.request, w[1].as_f64()?))
                })
                .collect();
            // The two metrics the savings read; the others are not needed.
            let metrics = Metrics {
                interactive: lcp.clone(),
                total_blocking_time: lcp.clone(),
                first_contentful_paint: fcp,
                largest_contentful_paint: lcp,
            };
            metric_savings_for_wasted_bytes(&wasted, &simulator, &list, &metrics).map_err(|e| e.to_string())
        })();
        let theirs = json!({"FCP": entry["FCP"], "LCP": entry["LCP"]});
        let ours = match result {
            Ok((fcp, lcp)) => json!({"FCP": r3(fcp), "LCP": r3(lcp)}),
            Err(e) => json!({"error": e}),
        };
        match first_difference(&theirs, &ours) {
            None => out.identical += 1,
            Some(d) => out.differences.push(format!("navigation {index:?}: savings: {d}")),
        }
    }
    Ok(out)
}
