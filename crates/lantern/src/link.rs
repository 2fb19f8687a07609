//! The tasks of the page dependency graph: a CPU node per task of the main
//! thread in the navigation's window (its child events those that start
//! before it ends, up to the next task), tied to the requests and tasks
//! its events name (the script it evaluates, the timer it fires, the
//! request it sends, ...), then the short tasks that are not the first to
//! lay out, paint or parse pruned, their ties kept through them.

use std::ops::Range;

use ahash::AHashMap;
use tracekit_engine::handlers::meta::Navigation;
use tracekit_engine::handlers::page::main_thread::{EventDetail, JsKey, LinkArgs, LinkKind, MainThreadEvent};
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::{HandlerData, MainThreadEvents, Strings, Sym};

use crate::build::{add_dependency, Network};
use crate::graph::{CpuNode, Node, NodeId, NodeKind};
use crate::{LanternError, LanternRequest};

/// Tasks shorter than this (µs) are pruned, unless they are the first to
/// lay out, paint or parse: they barely change a simulation.
const SIGNIFICANT_DURATION: f64 = 10_000.0;

/// How long before a task a request may end and still be what the task
/// runs (µs): a script may start to run before it is all in.
const EARLIEST_END_BEFORE: f64 = -100_000.0;

/// The main thread's tasks of a navigation, as CPU nodes.
pub(crate) struct Cpu<'a> {
    /// The main thread's events.
    main: &'a MainThreadEvents,
    /// Those in the navigation's window, in input order.
    events: Vec<MainThreadEvent>,
    /// Each task's node and its child events (a range of `events`).
    tasks: Vec<(NodeId, Range<usize>)>,
    /// The URL of each module by script id, from its compilation.
    scripts: AHashMap<JsKey, Sym>,
}

/// The main thread's events whose `ts` is in the navigation's window:
/// from it to the frame's next navigation.
pub(crate) fn window_events(data: &HandlerData, navigation: &Navigation) -> Vec<MainThreadEvent> {
    let starts = data.meta().navigations.by_frame_id.get(&navigation.frame);
    let next = starts.and_then(|s| {
        s.iter()
            .position(|n| n.event == navigation.event)
            .and_then(|at| s.get(at + 1))
    });
    let (start, end) = (navigation.ts.0, next.map_or(f64::INFINITY, |n| n.ts.0));
    let events = &data.main_thread_events().events;
    let in_window = |e: &&MainThreadEvent| e.ts.0 >= start && e.ts.0 < end;
    // Counted first: the list is most of a big trace's main thread, and
    // grown step by step it left twice its size of garbage.
    let mut found = Vec::with_capacity(events.iter().filter(in_window).count());
    found.extend(events.iter().filter(in_window).copied());
    found
}

/// A task's duration (0: none) and thread, if the event is a task.
fn task(main: &MainThreadEvents, event: &MainThreadEvent) -> Option<(f64, tracekit_engine::Id)> {
    match main.detail(event) {
        Some(EventDetail::Task { dur, tid }) => Some((dur.0, *tid)),
        _ => None,
    }
}

/// A CPU node per task with a duration, its children the events after it
/// that start before it ends; a task among them ends it (1 µs before).
pub(crate) fn cpu_nodes<'a>(
    main: &'a MainThreadEvents,
    events: Vec<MainThreadEvent>,
    strings: &Strings,
    nodes: &mut Vec<Node>,
) -> Result<Cpu<'a>, LanternError> {
    if !events.iter().any(|e| task(main, e).is_some()) {
        return Err(LanternError::new("Could not find any top level events"));
    }
    let mut cpu = Cpu {
        main,
        events,
        tasks: Vec::new(),
        scripts: AHashMap::new(),
    };
    let events = &cpu.events;
    let mut i = 0;
    while i < events.len() {
        let event = events[i];
        i += 1;
        let Some((dur, tid)) = task(main, &event).filter(|(dur, _)| *dur != 0.0) else {
            continue;
        };
        let end = event.ts.0 + dur;
        let first = i;
        let mut corrected = None;
        while i < events.len() && events[i].ts.0 < end {
            if task(main, &events[i]).is_some_and(|(d, _)| d != 0.0) {
                corrected = Some((events[i].ts.0 - 1.0).max(event.ts.0));
                break;
            }
            if let Some(EventDetail::Link(args)) = main.detail(&events[i]) {
                if args.kind == LinkKind::CompileModule && args.key != JsKey::Undefined && args.key != JsKey::Other {
                    if let Some(url) = args.url {
                        cpu.scripts.insert(args.key, url);
                    }
                }
            }
            i += 1;
        }
        // A thread id is an integer in Chrome's traces.
        #[allow(clippy::cast_possible_truncation)]
        let tid_number = tid.as_f64().map_or(0, |t| t as i64);
        cpu.tasks.push((nodes.len(), first..i));
        nodes.push(Node {
            id: format!("{}.{}", tid.to_js_string(strings), js_number_string(event.ts.0)),
            kind: NodeKind::Cpu(CpuNode {
                tid: tid_number,
                ..CpuNode::default()
            }),
            start: event.ts.0,
            end: corrected.filter(|c| *c != 0.0).unwrap_or(end),
            is_main_document: false,
            dependencies: Vec::new(),
            dependents: Vec::new(),
        });
    }
    for (node, children) in &cpu.tasks {
        if let NodeKind::Cpu(c) = &mut nodes[*node].kind {
            describe(c, &cpu, children.clone(), strings);
        }
    }
    Ok(cpu)
}

/// What a task's child events say of it: whether it laid out, painted,
/// parsed HTML, and the scripts it evaluated.
fn describe(node: &mut CpuNode, cpu: &Cpu<'_>, children: Range<usize>, strings: &Strings) {
    node.child_events = children.len();
    for event in &cpu.events[children] {
        match cpu.main.detail(event) {
            Some(EventDetail::Layout) => node.did_perform_layout = true,
            Some(EventDetail::Paint) => node.did_paint = true,
            Some(EventDetail::ParseHtml) => node.did_parse_html = true,
            Some(EventDetail::Link(args)) => {
                let url = match args.kind {
                    LinkKind::EvaluateScript => args.url,
                    LinkKind::ModuleEvaluated => cpu.scripts.get(&args.key).copied(),
                    _ => None,
                };
                if let Some(url) = url.map(|u| strings.resolve(u)) {
                    if !node.evaluate_script_urls.iter().any(|u| u == url) {
                        node.evaluate_script_urls.push(url.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
}

/// What ties a task to the network's nodes.
struct Linker<'a, 'r> {
    network: &'a Network<'r>,
    requests: &'a [LanternRequest],
    strings: &'a Strings,
}

impl Linker<'_, '_> {
    /// The task depends on the document of the frame, if the frame has
    /// one that started before the task.
    fn on_frame(&self, nodes: &mut [Node], node: NodeId, frame: Option<Sym>) -> Result<(), LanternError> {
        let Some(Some(document)) = frame.and_then(|f| self.network.by_frame.get(&f)) else {
            return Ok(());
        };
        if nodes[*document].start >= nodes[node].start {
            return Ok(());
        }
        add_dependency(nodes, node, *document)
    }

    /// The task depends on the request of `url` that ended last before it
    /// started (or up to 100 ms after).
    fn on_url(&self, nodes: &mut [Node], node: NodeId, url: Option<Sym>) -> Result<(), LanternError> {
        let Some(url) = url.map(|u| self.strings.resolve(u)).filter(|u| !u.is_empty()) else {
            return Ok(());
        };
        let start = nodes[node].start;
        let mut best: Option<(NodeId, f64)> = None;
        for &candidate in self.network.by_url.get(url).map_or(&[][..], Vec::as_slice) {
            if start <= nodes[candidate].start {
                continue;
            }
            let distance = start - nodes[candidate].end;
            if distance >= EARLIEST_END_BEFORE && best.is_none_or(|(_, d)| distance < d) {
                best = Some((candidate, distance));
            }
        }
        match best {
            Some((candidate, _)) => add_dependency(nodes, node, candidate),
            None => Ok(()),
        }
    }

    /// The request a task sent depends on it, if it is a script, an XHR
    /// or a fetch that started after the task did.
    fn sent(&self, nodes: &mut [Node], node: NodeId, request_id: Option<Sym>) -> Result<(), LanternError> {
        let Some(&sent) = request_id.and_then(|id| self.network.by_id.get(self.strings.resolve(id))) else {
            return Ok(());
        };
        if nodes[sent].start <= nodes[node].start {
            return Ok(());
        }
        let NodeKind::Network(network) = &nodes[sent].kind else {
            return Ok(());
        };
        let request = &self.requests[network.request];
        let kind = request.resource_type.as_deref().or_else(|| {
            request
                .redirect_destination
                .and_then(|d| self.requests[d].resource_type.as_deref())
        });
        if !matches!(kind, Some("XHR" | "Fetch" | "Script")) {
            return Ok(());
        }
        add_dependency(nodes, sent, node)
    }

    fn on_stack(&self, nodes: &mut [Node], node: NodeId, args: &LinkArgs) -> Result<(), LanternError> {
        args.stack_urls
            .iter()
            .try_for_each(|&url| self.on_url(nodes, node, Some(url)))
    }
}

/// Ties each task to what its events name, and to the root when nothing
/// else; then prunes the short tasks.
pub(crate) fn link_cpu_nodes(
    nodes: &mut [Node],
    network: &Network<'_>,
    requests: &[LanternRequest],
    root: NodeId,
    cpu: &Cpu<'_>,
    strings: &Strings,
) -> Result<(), LanternError> {
    let linker = Linker {
        network,
        requests,
        strings,
    };
    let mut timers: AHashMap<JsKey, NodeId> = AHashMap::new();
    for (node, children) in &cpu.tasks {
        let node = *node;
        for event in &cpu.events[children.clone()] {
            let Some(EventDetail::Link(args)) = cpu.main.detail(event) else {
                continue;
            };
            match args.kind {
                LinkKind::TimerInstall => {
                    if args.key != JsKey::Other {
                        timers.insert(args.key, node);
                    }
                    linker.on_stack(nodes, node, args)?;
                }
                LinkKind::TimerFire => {
                    let installer = timers.get(&args.key).copied().filter(|_| args.key != JsKey::Other);
                    if let Some(installer) = installer.filter(|&i| nodes[i].end <= nodes[node].start) {
                        add_dependency(nodes, node, installer)?;
                    }
                }
                LinkKind::Invalidate => {
                    linker.on_frame(nodes, node, args.frame)?;
                    linker.on_stack(nodes, node, args)?;
                }
                LinkKind::EvaluateScript => {
                    linker.on_frame(nodes, node, args.frame)?;
                    linker.on_url(nodes, node, args.url)?;
                    linker.on_stack(nodes, node, args)?;
                }
                LinkKind::ModuleEvaluated => {
                    linker.on_frame(nodes, node, args.frame)?;
                    if args.key != JsKey::Undefined {
                        linker.on_url(nodes, node, cpu.scripts.get(&args.key).copied())?;
                    }
                }
                LinkKind::XhrReadyStateChange => {
                    if args.done {
                        linker.on_url(nodes, node, args.url)?;
                        linker.on_stack(nodes, node, args)?;
                    }
                }
                LinkKind::FunctionCall | LinkKind::CompileModule | LinkKind::ParseStyleSheet => {
                    linker.on_frame(nodes, node, args.frame)?;
                    linker.on_url(nodes, node, args.url)?;
                }
                LinkKind::SendRequest => {
                    linker.on_frame(nodes, node, args.frame)?;
                    linker.sent(nodes, node, args.request_id)?;
                    linker.on_stack(nodes, node, args)?;
                }
            }
        }
        if nodes[node].dependencies.is_empty() && nodes[root].start <= nodes[node].start {
            add_dependency(nodes, node, root)?;
        }
    }
    prune(nodes, cpu)
}

/// Removes the short tasks that are not the first to lay out, paint or
/// parse HTML, where that adds few ties: those with one dependency or at
/// most one dependent. Their dependents then depend on their
/// dependencies.
fn prune(nodes: &mut [Node], cpu: &Cpu<'_>) -> Result<(), LanternError> {
    let (mut layout, mut paint, mut parse) = (false, false, false);
    // The tasks pruned so far: still in the dependents lists of the nodes
    // they depended on until the end (read as absent there).
    let mut pruned = vec![false; nodes.len()];
    for (node, _) in &cpu.tasks {
        let node = *node;
        let NodeKind::Cpu(c) = &nodes[node].kind else {
            continue;
        };
        let mut first = false;
        if !layout && c.did_perform_layout {
            (first, layout) = (true, true);
        }
        if !paint && c.did_paint {
            (first, paint) = (true, true);
        }
        if !parse && c.did_parse_html {
            (first, parse) = (true, true);
        }
        if first || nodes[node].duration() >= SIGNIFICANT_DURATION {
            continue;
        }
        let dependents: Vec<NodeId> = nodes[node].dependents.iter().copied().filter(|&d| !pruned[d]).collect();
        if nodes[node].dependencies.len() == 1 || dependents.len() <= 1 {
            let dependencies = std::mem::take(&mut nodes[node].dependencies);
            for &dependency in &dependencies {
                for &dependent in &dependents {
                    add_dependency(nodes, dependent, dependency)?;
                }
            }
            for &dependent in &dependents {
                let list = &mut nodes[dependent].dependencies;
                if let Some(at) = list.iter().position(|&d| d == node) {
                    list.remove(at);
                }
            }
            nodes[node].dependents.clear();
            pruned[node] = true;
        }
    }
    // The pruned tasks leave the lists of those they depended on here, in
    // one pass: taken out one at a time, each from the front of a list of
    // thousands (the root request's), they cost more than the rest of the
    // graph. Dependents are unique in a list, and a pruned task is never
    // tied again, so the order left is the one removing each at once gives.
    if pruned.contains(&true) {
        for node in nodes.iter_mut() {
            node.dependents.retain(|&d| !pruned[d]);
        }
    }
    Ok(())
}
