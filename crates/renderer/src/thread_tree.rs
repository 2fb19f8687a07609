//! One thread's track: its entries sorted, its CPU samples integrated into
//! JS calls, and both nested into one tree under the node budget; every
//! thread's, biggest first, in parallel where allowed.

use tracekit_events::{map_biggest_first, Context, DevTools, Diagnostics, Id, Interner, Micros};
use tracekit_meta::MetaData;
use tracekit_samples::ThreadProfile;

use crate::entries::Entry;
use crate::integrator::{SamplesIntegrator, TraceEntry};
use crate::timeline::{self, build_tree, merge, Span};
use crate::{cpu_samples_of, js_frames_of, CpuSample, JsFrame, NodeKind, TrackNode};

/// The entries of one thread, to build its tree.
pub(crate) struct ThreadJob {
    pub(crate) pid: Id,
    pub(crate) tid: Id,
    pub(crate) entries: Vec<Entry>,
    /// The thread's profile, dropped once its tree is built: the tracks
    /// keep what they need of it (functions and samples), and the memory
    /// goes back while the other threads are built.
    pub(crate) profile: Option<ThreadProfile>,
}

/// One thread's tree, its functions, and what was skipped building it.
pub(crate) struct BuiltThread {
    pub(crate) nodes: Vec<TrackNode>,
    pub(crate) js_frames: Vec<JsFrame>,
    pub(crate) samples: Vec<CpuSample>,
    /// With [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers):
    /// the [`ProfileCall::sample`](crate::integrator::ProfileCall::sample)
    /// of each JS call node, in node order (else empty).
    pub(crate) call_samples: Vec<u32>,
    /// With all handlers: the entries the tree leaves out (DevTools keeps
    /// them in the thread's entries, not in its tree), each with the
    /// number of nodes before it in the entries' order.
    pub(crate) off_tree: Vec<(u32, TrackNode)>,
    pub(crate) diagnostics: Diagnostics,
    /// Over the node budget: at least this many nodes.
    pub(crate) over_budget: Option<usize>,
}

/// Builds each thread's tree (in parallel with [`Parallelism::Rayon`](tracekit_events::Parallelism::Rayon)),
/// in the order of `jobs`. A thread over the node budget is left empty,
/// marked and counted: it is an error only for output that selects it.
pub(crate) fn build_threads(jobs: Vec<ThreadJob>, meta: &MetaData, cx: &Context) -> Vec<BuiltThread> {
    let (interner, max_nodes, parallelism) = (&cx.interner, cx.options.max_nodes, cx.options.parallelism);
    let devtools = cx.options.devtools;
    let want_samples = cx.options.all_handlers;
    let build = |job: ThreadJob| -> Result<BuiltThread, usize> {
        let mut diagnostics = Diagnostics::default();
        let profile = job.profile.as_ref();
        let mut call_samples = Vec::new();
        let mut off_tree = Vec::new();
        let samples_out = want_samples.then_some((&mut call_samples, &mut off_tree));
        let tree = || {
            let rules = TreeRules {
                interner,
                devtools,
                max_nodes,
            };
            build_thread_tree(job.entries, profile, rules, samples_out, &mut diagnostics)
        };
        let functions_and_samples = || {
            let js_frames = profile.map(|p| js_frames_of(&p.model)).unwrap_or_default();
            let samples = profile.map(|p| cpu_samples_of(&p.model)).unwrap_or_default();
            (js_frames, samples)
        };
        let (nodes, (js_frames, samples)) = parallelism.join(tree, functions_and_samples);
        let nodes = nodes?;
        Ok(BuiltThread {
            nodes,
            js_frames,
            samples,
            call_samples,
            off_tree,
            diagnostics,
            over_budget: None,
        })
    };
    let threads: Vec<(Id, Id)> = jobs.iter().map(|j| (j.pid, j.tid)).collect();
    // The biggest threads first: a trace's main thread can take longer
    // than all the others together.
    let built = map_biggest_first(jobs, parallelism, |job| job.entries.len(), build);
    let mut done = Vec::with_capacity(built.len());
    for ((pid, tid), result) in threads.into_iter().zip(built) {
        match result {
            Ok(thread) => done.push(thread),
            Err(count) => {
                let name = meta
                    .threads_in_process
                    .get(&pid)
                    .and_then(|t| t.get(&tid).copied().flatten())
                    .map(|s| format!("{} ", interner.resolve(s)))
                    .unwrap_or_default();
                let mut diagnostics = Diagnostics::default();
                diagnostics.skip(tracekit_events::Skip::ThreadOverNodeBudget, || {
                    format!(
                        "thread {name}(pid {}, tid {}): at least {count} nodes, more than {max_nodes}",
                        pid.to_js_string(interner),
                        tid.to_js_string(interner),
                    )
                });
                done.push(BuiltThread {
                    nodes: Vec::new(),
                    js_frames: Vec::new(),
                    samples: Vec::new(),
                    call_samples: Vec::new(),
                    off_tree: Vec::new(),
                    diagnostics,
                    over_budget: Some(count),
                });
            }
        }
    }
    done
}

/// What the page handlers' pass notes while building a tree: each JS
/// call's sample, and the entries left out of the tree.
type PageLists<'a> = (&'a mut Vec<u32>, &'a mut Vec<(u32, TrackNode)>);

#[derive(Copy, Clone)]
enum Item {
    Entry(u32),
    Call(u32),
}

/// How a thread's tree is built: as the DevTools engine `devtools` builds
/// it, with at most `max_nodes` nodes.
#[derive(Clone, Copy)]
struct TreeRules<'i> {
    interner: &'i Interner,
    devtools: DevTools,
    max_nodes: usize,
}

/// Sorts a thread's entries, integrates its samples and builds its tree,
/// as the DevTools engine `devtools` does; a tree of more than `max_nodes`
/// nodes is the error of how many there were at least. The nodes are
/// indexed by `u32` on the way, so `max_nodes` counts as `u32::MAX` at
/// most. With `call_samples`, the sample index of each JS call node is
/// pushed to its first list, in node order, and the entries left out of
/// the tree to its second ([`BuiltThread::off_tree`]).
fn build_thread_tree(
    mut entries: Vec<Entry>,
    profile: Option<&ThreadProfile>,
    TreeRules {
        interner,
        devtools,
        max_nodes,
    }: TreeRules<'_>,
    call_samples: Option<PageLists<'_>>,
    diag: &mut Diagnostics,
) -> Result<Vec<TrackNode>, usize> {
    // A thread of samples alone has a track since DevTools 2026-10; before,
    // only when the samples were the trace's top-level ones.
    let samples_alone_drawn = if devtools >= DevTools::V2026_10 {
        profile.is_some()
    } else {
        profile.is_some_and(|p| p.from_trace_samples)
    };
    if entries.is_empty() && !samples_alone_drawn {
        return Ok(Vec::new());
    }
    // Entries and calls together are at most `max_nodes`: every index
    // below fits a `u32`.
    let max_nodes = max_nodes.min(u32::MAX as usize);
    if entries.len() > max_nodes {
        return Err(entries.len());
    }
    // The entries came in input order, each from its own event: ties
    // broken by the event's index give the stable sort's order, sorted in
    // place (a stable sort's buffer is half the list, garbage of up to
    // 10 MB beside the tree on the bench trace's main thread).
    entries.sort_unstable_by(|a, b| timeline::compare(&a.span(), &b.span()).then(a.event.cmp(&b.event)));
    let calls = match profile {
        Some(p) => SamplesIntegrator::new(&p.model, interner, false, devtools)
            .build(&entries, max_nodes - entries.len())
            .map_err(|_| max_nodes + 1)?,
        None => Vec::new(),
    };
    let span = |item: Item| match item {
        Item::Entry(i) => entries[i as usize].span(),
        Item::Call(i) => {
            let c = &calls[i as usize];
            Span {
                ts: c.ts.0,
                dur: Some(c.dur.0),
                is_profile_call: true,
            }
        }
    };
    #[allow(clippy::cast_possible_truncation)] // both at most `max_nodes`
    let (entry_count, call_count) = (entries.len() as u32, calls.len() as u32);
    let items = merge((0..entry_count).map(Item::Entry), (0..call_count).map(Item::Call), span);
    let track_node = |item: Item, s: Span, depth: u32| {
        let kind = match item {
            Item::Entry(i) => {
                let e = &entries[i as usize];
                NodeKind::Event {
                    name: e.name,
                    cat: e.cat,
                    ph: e.ph,
                    event: e.event,
                }
            }
            Item::Call(i) => NodeKind::Call {
                frame: calls[i as usize].node,
            },
        };
        let dur = s.dur.map(Micros);
        TrackNode::new(kind, depth, Micros(s.ts), dur, Some(dur.unwrap_or(Micros::ZERO)))
    };
    let Some((call_samples, off_tree)) = call_samples else {
        return Ok(build_tree(items, span, track_node, node_self_time, diag));
    };
    // The page handlers' pass: the same tree, noting each call's sample
    // and which items it took.
    let mut made = (vec![false; entries.len()], vec![false; calls.len()]);
    // Most calls are in the tree: one list at its size, not grown.
    call_samples.reserve_exact(calls.len());
    let noting = |item: Item, s: Span, depth: u32| {
        match item {
            Item::Entry(i) => made.0[i as usize] = true,
            Item::Call(i) => {
                made.1[i as usize] = true;
                call_samples.push(calls[i as usize].sample);
            }
        }
        track_node(item, s, depth)
    };
    let nodes = build_tree(items, span, noting, node_self_time, diag);
    let mut before = 0u32;
    for item in merge((0..entry_count).map(Item::Entry), (0..call_count).map(Item::Call), span) {
        let taken = match item {
            Item::Entry(i) => made.0[i as usize],
            Item::Call(i) => made.1[i as usize],
        };
        if taken {
            before += 1;
        } else {
            off_tree.push((before, track_node(item, span(item), 0)));
        }
    }
    Ok(nodes)
}

/// A node's self time, for [`build_tree`] to lessen.
fn node_self_time(node: &mut TrackNode) -> &mut f64 {
    node.self_time_mut()
}
