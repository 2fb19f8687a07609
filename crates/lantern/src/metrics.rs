//! Lantern's metrics of a navigation: first contentful paint, largest
//! contentful paint, time to interactive and total blocking time. Each
//! simulates an optimistic and a pessimistic graph (the page dependency
//! graph cut down to what the metric is taken to wait for, or whole) and
//! weighs the two estimates.

use ahash::{AHashMap, AHashSet};

use crate::simulation::{js_max, js_min, NodeTiming, Simulation, Simulator};
use crate::{CpuNode, Graph, LanternError, LanternRequest, Node, NodeKind, ProcessedNavigation, Subgraph};

/// A task at least this long (ms) blocks the main thread.
pub const BLOCKING_TIME_THRESHOLD: f64 = 50.0;
/// A task longer than this (µs) may delay interactivity, optimistically.
const CRITICAL_LONG_TASK_THRESHOLD: f64 = 20.0 * 1000.0;

/// What a metric is computed from.
#[derive(Debug, Clone, Copy)]
pub struct MetricInput<'a> {
    /// The navigation's page dependency graph.
    pub graph: &'a Graph,
    /// The navigation's requests, which the graph's network nodes index.
    pub requests: &'a [LanternRequest],
    /// The simulator.
    pub simulator: &'a Simulator,
    /// The navigation's paints.
    pub navigation: &'a ProcessedNavigation,
}

/// One simulation's estimate of a metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The metric, ms.
    pub time_in_ms: f64,
    /// When each node simulated started and ended, by start time (nodes
    /// of the navigation's whole graph).
    pub node_timings: Vec<NodeTiming>,
}

/// A metric: its value and the two simulations it comes from.
#[derive(Debug, Clone)]
pub struct MetricResult {
    /// The metric, ms.
    pub timing: f64,
    /// The estimate of the optimistic graph.
    pub optimistic: Estimate,
    /// The estimate of the pessimistic graph.
    pub pessimistic: Estimate,
    /// The optimistic graph.
    pub optimistic_graph: Subgraph,
    /// The pessimistic graph.
    pub pessimistic_graph: Subgraph,
}

/// The four metrics of a navigation.
#[derive(Debug, Clone)]
pub struct Metrics {
    /// First contentful paint.
    pub first_contentful_paint: MetricResult,
    /// Largest contentful paint.
    pub largest_contentful_paint: MetricResult,
    /// Time to interactive.
    pub interactive: MetricResult,
    /// Total blocking time.
    pub total_blocking_time: MetricResult,
}

/// The four metrics, in DevTools' order (each after those it needs), or
/// the first one's error.
pub fn metrics(input: MetricInput<'_>) -> Result<Metrics, LanternError> {
    let first_contentful_paint = first_contentful_paint(input)?;
    let largest_contentful_paint = largest_contentful_paint(input, &first_contentful_paint)?;
    let interactive = interactive(input, &largest_contentful_paint)?;
    let total_blocking_time = total_blocking_time(input, &first_contentful_paint, &interactive)?;
    Ok(Metrics {
        first_contentful_paint,
        largest_contentful_paint,
        interactive,
        total_blocking_time,
    })
}

/// How a metric weighs its two estimates.
struct Coefficients {
    optimistic: f64,
    pessimistic: f64,
}

/// One simulation of a subgraph, its nodes those of the whole graph.
struct Simulated<'a> {
    sub: &'a Subgraph,
    simulation: Simulation,
}

impl Simulated<'_> {
    /// Each node's timing with the node of the whole graph it is.
    fn timings(&self) -> impl Iterator<Item = (&Node, &NodeTiming)> + '_ {
        self.simulation
            .node_timings
            .iter()
            .map(|t| (&self.sub.graph.nodes[t.node], t))
    }

    fn estimate(&self, time_in_ms: f64) -> Estimate {
        Estimate {
            time_in_ms,
            node_timings: self
                .simulation
                .node_timings
                .iter()
                .map(|t| NodeTiming {
                    node: self.sub.original[t.node],
                    ..*t
                })
                .collect(),
        }
    }
}

/// Simulates both graphs, estimates from each (`estimate` is told which
/// is the optimistic one) and weighs the two.
fn compute(
    input: MetricInput<'_>,
    coefficients: Coefficients,
    optimistic_graph: Subgraph,
    pessimistic_graph: Subgraph,
    estimate: impl Fn(&Simulated<'_>, bool) -> f64,
) -> Result<MetricResult, LanternError> {
    let optimistic = Simulated {
        sub: &optimistic_graph,
        simulation: input.simulator.simulate(&optimistic_graph.graph, input.requests)?,
    };
    let pessimistic = Simulated {
        sub: &pessimistic_graph,
        simulation: input.simulator.simulate(&pessimistic_graph.graph, input.requests)?,
    };
    let optimistic = optimistic.estimate(estimate(&optimistic, true));
    let pessimistic = pessimistic.estimate(estimate(&pessimistic, false));
    let timing =
        0.0 + coefficients.optimistic * optimistic.time_in_ms + coefficients.pessimistic * pessimistic.time_in_ms;
    Ok(MetricResult {
        timing,
        optimistic,
        pessimistic,
        optimistic_graph,
        pessimistic_graph,
    })
}

/// Whether a request is taken to block rendering: as the trace says it,
/// else by its priority (a very high one, or a high script or document).
pub fn has_render_blocking_priority(request: &LanternRequest) -> bool {
    match request.render_blocking.as_deref() {
        Some("non_blocking" | "dynamically_injected_non_blocking" | "potentially_blocking") => return false,
        Some("blocking") => return true,
        _ => {}
    }
    let kind = request.resource_type.as_deref();
    let high = request.priority == "High";
    request.priority == "VeryHigh" || (high && kind == Some("Script")) || (high && kind == Some("Document"))
}

/// Whether a node is not a low priority image (an image off screen, taken
/// not to be the largest paint).
fn is_not_low_priority_image(node: &Node, requests: &[LanternRequest]) -> bool {
    let NodeKind::Network(n) = &node.kind else {
        return true;
    };
    let request = &requests[n.request];
    let low = request.priority == "Low" || request.priority == "VeryLow";
    request.resource_type.as_deref() != Some("Image") || !low
}

/// Which requests and tasks a paint at `cutoff` waits for.
struct PaintOptions<'a> {
    cutoff: f64,
    blocking: &'a dyn Fn(&Node, &LanternRequest) -> bool,
    blocking_task: Option<&'a dyn Fn(&CpuNode) -> bool>,
}

/// The graph of what a paint at `cutoff` waits for: the main document,
/// the render blocking requests done by then (but scripts evaluated only
/// after), the tasks evaluating the others, and the first layout, paint
/// and HTML parsing before it.
fn first_paint_graph(input: MetricInput<'_>, options: &PaintOptions<'_>) -> Result<Subgraph, LanternError> {
    let (graph, requests, cutoff) = (input.graph, input.requests, options.cutoff);
    let order = graph.walk(graph.root);
    let mut tasks: Vec<usize> = Vec::new();
    let mut is_task = vec![false; graph.nodes.len()];
    // The first task evaluating each script URL.
    let mut evaluated_by: AHashMap<&str, usize> = AHashMap::new();
    for &i in &order {
        let NodeKind::Cpu(cpu) = &graph.nodes[i].kind else {
            continue;
        };
        if graph.nodes[i].start <= cutoff {
            tasks.push(i);
            is_task[i] = true;
        }
        for url in &cpu.evaluate_script_urls {
            let by = evaluated_by.entry(url).or_insert(i);
            if graph.nodes[i].start < graph.nodes[*by].start {
                *by = i;
            }
        }
    }
    tasks.sort_by(|&a, &b| {
        graph.nodes[a]
            .start
            .partial_cmp(&graph.nodes[b].start)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut scripts: AHashSet<&str> = AHashSet::new();
    for &i in &order {
        let node = &graph.nodes[i];
        let NodeKind::Network(n) = &node.kind else { continue };
        let request = &requests[n.request];
        if request.resource_type.as_deref() == Some("Script") && node.end <= cutoff && (options.blocking)(node, request)
        {
            scripts.insert(&request.url);
        }
    }
    let mut not_blocking: AHashSet<&str> = AHashSet::new();
    let mut blocking_tasks: AHashSet<&str> = AHashSet::new();
    for url in scripts {
        let Some(&task) = evaluated_by.get(url) else {
            continue;
        };
        if is_task[task] {
            blocking_tasks.insert(&graph.nodes[task].id);
        } else {
            not_blocking.insert(url);
        }
    }
    let cpu = |i: &usize| match &graph.nodes[*i].kind {
        NodeKind::Cpu(c) => Some(c),
        NodeKind::Network(_) => None,
    };
    let firsts = [
        tasks.iter().find(|i| cpu(i).is_some_and(|c| c.did_perform_layout)),
        tasks.iter().find(|i| cpu(i).is_some_and(|c| c.did_paint)),
        tasks.iter().find(|i| cpu(i).is_some_and(|c| c.did_parse_html)),
    ];
    blocking_tasks.extend(firsts.into_iter().flatten().map(|&i| graph.nodes[i].id.as_str()));
    if let Some(extra) = options.blocking_task {
        let more = tasks.iter().filter(|i| cpu(i).is_some_and(extra));
        blocking_tasks.extend(more.map(|&i| graph.nodes[i].id.as_str()));
    }
    graph.clone_keeping(graph.root, |node| match &node.kind {
        NodeKind::Network(n) => {
            let after_paint = node.end > cutoff || node.start > cutoff;
            let request = &requests[n.request];
            if (after_paint && !node.is_main_document) || not_blocking.contains(&request.url.as_str()) {
                return false;
            }
            (options.blocking)(node, request)
        }
        NodeKind::Cpu(_) => blocking_tasks.contains(&node.id.as_str()),
    })
}

/// The FCP's optimistic graph: what the paint waits for of the render
/// blocking requests not made by scripts.
fn fcp_optimistic_graph(input: MetricInput<'_>) -> Result<Subgraph, LanternError> {
    let blocking = |_: &Node, r: &LanternRequest| has_render_blocking_priority(r) && r.initiator.kind != "script";
    first_paint_graph(
        input,
        &PaintOptions {
            cutoff: input.navigation.first_contentful_paint,
            blocking: &blocking,
            blocking_task: None,
        },
    )
}

/// The FCP's pessimistic graph: what the paint waits for of every render
/// blocking request.
fn fcp_pessimistic_graph(input: MetricInput<'_>) -> Result<Subgraph, LanternError> {
    let blocking = |_: &Node, r: &LanternRequest| has_render_blocking_priority(r);
    first_paint_graph(
        input,
        &PaintOptions {
            cutoff: input.navigation.first_contentful_paint,
            blocking: &blocking,
            blocking_task: None,
        },
    )
}

/// Lantern's first contentful paint.
pub fn first_contentful_paint(input: MetricInput<'_>) -> Result<MetricResult, LanternError> {
    let optimistic = fcp_optimistic_graph(input)?;
    let pessimistic = fcp_pessimistic_graph(input)?;
    let coefficients = Coefficients {
        optimistic: 0.5,
        pessimistic: 0.5,
    };
    compute(input, coefficients, optimistic, pessimistic, |s, _| {
        s.simulation.time_in_ms
    })
}

/// Lantern's largest contentful paint (never before the FCP); `NO_LCP`
/// when the navigation has none.
pub fn largest_contentful_paint(input: MetricInput<'_>, fcp: &MetricResult) -> Result<MetricResult, LanternError> {
    let navigation = input.navigation;
    let lcp = navigation
        .largest_contentful_paint
        .filter(|l| *l != 0.0 && !l.is_nan())
        .ok_or_else(|| LanternError::new("NO_LCP"))?;
    let same_text = navigation.first_contentful_paint == lcp && navigation.largest_contentful_paint_is_text;
    let (optimistic, pessimistic) = if same_text {
        (fcp_optimistic_graph(input)?, fcp_pessimistic_graph(input)?)
    } else {
        let requests = input.requests;
        let not_low_image = |node: &Node, _: &LanternRequest| is_not_low_priority_image(node, requests);
        let optimistic = first_paint_graph(
            input,
            &PaintOptions {
                cutoff: lcp,
                blocking: &not_low_image,
                blocking_task: None,
            },
        )?;
        let all = |_: &Node, _: &LanternRequest| true;
        let layout = |c: &CpuNode| c.did_perform_layout;
        let pessimistic = first_paint_graph(
            input,
            &PaintOptions {
                cutoff: lcp,
                blocking: &all,
                blocking_task: Some(&layout),
            },
        )?;
        (optimistic, pessimistic)
    };
    let coefficients = Coefficients {
        optimistic: 0.5,
        pessimistic: 0.5,
    };
    let mut result = compute(input, coefficients, optimistic, pessimistic, |s, _| {
        s.timings()
            .filter(|(node, _)| is_not_low_priority_image(node, input.requests))
            .fold(f64::NEG_INFINITY, |max, (_, t)| js_max(max, t.end))
    })?;
    result.timing = js_max(result.timing, fcp.timing);
    Ok(result)
}

/// When the last task longer than 50 ms ended, 0 without one.
fn last_long_task_end(simulated: &Simulated<'_>) -> f64 {
    let truthy = |x: f64| if x.is_nan() { 0.0 } else { x };
    simulated
        .timings()
        .filter(|(node, t)| matches!(node.kind, NodeKind::Cpu(_)) && t.duration() > 50.0)
        .fold(0.0, |max, (_, t)| js_max(truthy(max), truthy(t.end)))
}

/// Lantern's time to interactive (never before the LCP): the optimistic
/// graph keeps the long tasks and the scripts and important requests
/// (images aside), the pessimistic one is whole.
pub fn interactive(input: MetricInput<'_>, lcp: &MetricResult) -> Result<MetricResult, LanternError> {
    let requests = input.requests;
    let optimistic = input.graph.clone_keeping(input.graph.root, |node| match &node.kind {
        NodeKind::Cpu(_) => node.duration() > CRITICAL_LONG_TASK_THRESHOLD,
        NodeKind::Network(n) => {
            let r = &requests[n.request];
            let kind = r.resource_type.as_deref();
            kind != Some("Image") && (kind == Some("Script") || r.priority == "High" || r.priority == "VeryHigh")
        }
    })?;
    let pessimistic = Subgraph::whole(input.graph);
    let coefficients = Coefficients {
        optimistic: 0.45,
        pessimistic: 0.55,
    };
    let mut result = compute(input, coefficients, optimistic, pessimistic, |s, is_optimistic| {
        let minimum = if is_optimistic {
            lcp.optimistic.time_in_ms
        } else {
            lcp.pessimistic.time_in_ms
        };
        js_max(minimum, last_long_task_end(s))
    })?;
    result.timing = js_max(result.timing, lcp.timing);
    Ok(result)
}

/// The blocking time of tasks `events` (start, end, duration, ms) between
/// `start` and `end`: of each, what of its time in that window is beyond
/// the 50 ms threshold.
pub fn sum_of_blocking_time(events: &[(f64, f64, f64)], start: f64, end: f64) -> f64 {
    if end <= start {
        return 0.0;
    }
    let mut sum = 0.0;
    for &(event_start, event_end, duration) in events {
        let threshold = BLOCKING_TIME_THRESHOLD;
        if duration < threshold || event_end < start || event_start > end {
            continue;
        }
        let clipped = js_min(event_end, end) - js_max(event_start, start);
        if clipped < threshold {
            continue;
        }
        sum += clipped - threshold;
    }
    sum
}

/// Lantern's total blocking time, of the whole graph, between the FCP and
/// the time to interactive (the optimistic estimate's window from the
/// pessimistic FCP, and the other way round).
pub fn total_blocking_time(
    input: MetricInput<'_>,
    fcp: &MetricResult,
    interactive: &MetricResult,
) -> Result<MetricResult, LanternError> {
    let coefficients = Coefficients {
        optimistic: 0.5,
        pessimistic: 0.5,
    };
    let whole = || Subgraph::whole(input.graph);
    compute(input, coefficients, whole(), whole(), |s, is_optimistic| {
        let (fcp_time, interactive_time) = if is_optimistic {
            (fcp.pessimistic.time_in_ms, interactive.optimistic.time_in_ms)
        } else {
            (fcp.optimistic.time_in_ms, interactive.pessimistic.time_in_ms)
        };
        // Tasks not shorter than the threshold (one of NaN long is kept).
        let long = |d: f64| d >= BLOCKING_TIME_THRESHOLD || d.is_nan();
        let events: Vec<(f64, f64, f64)> = s
            .timings()
            .filter(|(node, t)| matches!(node.kind, NodeKind::Cpu(_)) && long(t.duration()))
            .map(|(_, t)| (t.start, t.end, t.duration()))
            .collect();
        sum_of_blocking_time(&events, fcp_time, interactive_time)
    })
}
