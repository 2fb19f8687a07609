//! The Renderer handler of tracekit: the sync tracks. It gathers every
//! complete, instant and begin/end event by process and thread, gives
//! processes their URL and main-frame flag and threads their name (from
//! the Meta handler), drops what DevTools drops (processes without a URL
//! unless the trace is generic, threads without entries), merges each
//! thread's CPU samples into JS calls ([`integrator`]), and nests
//! everything into one call tree per thread ([`timeline`]). It mirrors
//! DevTools' `RendererHandler`. It also keeps the few args of the events
//! that the aggregated views read ([`view_args`]), with the request URLs
//! and image ties their grouping looks up.

pub mod integrator;
pub mod timeline;
pub mod view_args;

use indexmap::IndexMap;
use tracekit_cpuprofile::CallFrame;
use tracekit_events::{
    map_biggest_first, names, Context, Diagnostics, Event, EventIndex, Handler, Id, Interner, LoadError, Micros, Phase,
    SampleTraceId, Sym,
};
use tracekit_meta::{AuctionWorklets, MetaData};
use tracekit_page::{ImagePainting, NetworkRequests};
use tracekit_samples::{SamplesData, ThreadProfile};

use integrator::{SamplesIntegrator, TraceEntry};
use timeline::{build_tree, merge, Span};
use view_args::PendingGroupArgs;
pub use view_args::{GroupArgs, ViewArgs};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// A trace event of a thread, in the Renderer handler's list. Begin/end
/// pairs are one complete entry. Its optional duration and sample trace
/// id are stored as plain values beside a byte of flags (40 bytes, not
/// 56): a big trace holds millions of entries at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub ts: Micros,
    /// See [`Entry::dur`].
    dur: Micros,
    /// The sample trace id: a number's bits, or a string's `Sym` (see
    /// [`Entry::trace_id`]).
    trace_id: u64,
    pub name: Sym,
    pub cat: Sym,
    /// Index of the source event in the input.
    pub event: u32,
    /// `X` for a begin/end pair, else the event's own.
    pub ph: Phase,
    /// [`HAS_DUR_FLAG`], and which sample trace id there is
    /// ([`TRACE_ID_NUM`], [`TRACE_ID_STR`], or neither).
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 40);

/// An [`Entry`]'s flags: it has a duration; its sample trace id is a
/// number; it is a string.
const HAS_DUR_FLAG: u8 = 1;
const TRACE_ID_NUM: u8 = 2;
const TRACE_ID_STR: u8 = 4;

impl Entry {
    fn new(
        ts: Micros,
        dur: Option<Micros>,
        name: Sym,
        cat: Sym,
        ph: Phase,
        event: u32,
        trace_id: Option<SampleTraceId>,
    ) -> Entry {
        let (trace_id, id_flag) = match trace_id {
            None => (0, 0),
            Some(SampleTraceId::Num(x)) => (x.to_bits(), TRACE_ID_NUM),
            Some(SampleTraceId::Str(s)) => (u64::from(s.0), TRACE_ID_STR),
        };
        Entry {
            ts,
            dur: dur.unwrap_or(Micros::ZERO),
            trace_id,
            name,
            cat,
            event,
            ph,
            flags: if dur.is_some() { HAS_DUR_FLAG } else { 0 } | id_flag,
        }
    }

    /// `dur` for `X`, the end's time less the begin's for a `B`/`E` pair
    /// (0 while unmatched), `None` for instants without one.
    pub fn dur(&self) -> Option<Micros> {
        (self.flags & HAS_DUR_FLAG != 0).then_some(self.dur)
    }

    fn set_dur(&mut self, dur: Micros) {
        self.dur = dur;
        self.flags |= HAS_DUR_FLAG;
    }

    /// The sample trace id in the event's args.
    pub fn trace_id(&self) -> Option<SampleTraceId> {
        if self.flags & TRACE_ID_NUM != 0 {
            Some(SampleTraceId::Num(f64::from_bits(self.trace_id)))
        } else if self.flags & TRACE_ID_STR != 0 {
            // Made from a `Sym`'s `u32` in `new`.
            #[allow(clippy::cast_possible_truncation)]
            Some(SampleTraceId::Str(Sym(self.trace_id as u32)))
        } else {
            None
        }
    }
}

#[derive(Debug, Default)]
struct ThreadEntries {
    entries: Vec<Entry>,
    /// The aggregated views' few args of some entries, by event index.
    view_args: Vec<(u32, ViewArgs)>,
    /// What grouping needs of some entries, by event index.
    group_args: Vec<(u32, PendingGroupArgs)>,
}

#[derive(Debug, Default)]
struct ProcessEntries {
    threads: Map<Id, ThreadEntries>,
}

/// What a node of a track is: a trace event, or a JS call built from CPU
/// samples. A track holds nothing else (asynchronous events, frames,
/// network requests are other tracks of the panel), so this is not
/// expected to grow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind {
    /// A trace event: its name, category and phase, and the index of the
    /// source event in the loaded trace (`u32::MAX` for synthetic ones).
    Event {
        /// The event's name.
        name: Sym,
        /// Its category.
        cat: Sym,
        /// Its phase: `X` for a begin/end pair, else as written (`X`, `I`).
        ph: Phase,
        /// Its index among the trace's events, counting only those that
        /// could be read.
        event: u32,
    },
    /// A JS call built from samples: an index into its thread's
    /// [`ThreadTrack::js_frames`].
    Call {
        /// Index into [`ThreadTrack::js_frames`] (the profile node's index).
        frame: u32,
    },
}

/// A function of a thread's CPU profile: a node of the profile's tree.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct JsFrame {
    /// Where the function lives.
    pub call_frame: CallFrame,
    /// The profile node's id.
    pub node_id: i64,
}

/// A CPU sample of a thread's profile: when it was taken, and the frame on
/// top of the stack then.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct CpuSample {
    /// When it was taken, as the JS calls built from it start then.
    pub ts: Micros,
    /// Its leaf frame: an index into [`ThreadTrack::js_frames`].
    pub frame: u32,
}

/// A node of a thread's call tree. Times in microseconds, in the trace's
/// clock.
///
/// A thread can have millions of nodes, so a node is 48 bytes: the
/// optional times are stored as plain numbers beside a byte saying which
/// are there (two `Option<Micros>` would take 16 bytes each), and read
/// through its methods.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackNode {
    kind: NodeKind,
    depth: u32,
    /// [`HAS_DUR`] and [`HAS_SELF_TIME`]: which of the next two are set
    /// (an unset one is 0, so that equal nodes compare equal).
    present: u8,
    ts: Micros,
    dur: Micros,
    self_time: Micros,
}

const HAS_DUR: u8 = 1;
const HAS_SELF_TIME: u8 = 2;

// The size is the point of the layout above.
const _: () = assert!(std::mem::size_of::<TrackNode>() == 48);

impl TrackNode {
    /// A node (for tests and for tracks built by hand; loading makes the
    /// tracks' own).
    pub fn new(kind: NodeKind, depth: u32, ts: Micros, dur: Option<Micros>, self_time: Option<Micros>) -> TrackNode {
        TrackNode {
            kind,
            depth,
            present: if dur.is_some() { HAS_DUR } else { 0 } | if self_time.is_some() { HAS_SELF_TIME } else { 0 },
            ts,
            dur: dur.unwrap_or(Micros(0.0)),
            self_time: self_time.unwrap_or(Micros(0.0)),
        }
    }

    /// A trace event or a JS call.
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// Depth in the thread's tree (roots at 0).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// When it started.
    pub fn ts(&self) -> Micros {
        self.ts
    }

    /// How long it lasted; `None` for entries without a duration (instants).
    pub fn dur(&self) -> Option<Micros> {
        (self.present & HAS_DUR != 0).then_some(self.dur)
    }

    /// Its duration less its children's; `None` where DevTools has none
    /// (an unclosed frame of a profile on its own).
    pub fn self_time(&self) -> Option<Micros> {
        (self.present & HAS_SELF_TIME != 0).then_some(self.self_time)
    }
}

/// A thread's call tree, nodes in pre-order, with the functions and CPU
/// samples of its profile.
#[derive(Debug, Clone, Default)]
pub struct ThreadTrack {
    /// The thread's name from its metadata, or its id when the metadata
    /// gave none; `None` when there was no metadata.
    pub name: Option<String>,
    /// The call tree, in pre-order: each node is followed by its
    /// descendants (a node's parent is the nearest node before it that is
    /// one level less deep).
    pub nodes: Vec<TrackNode>,
    /// The functions JS calls refer to (the profile's nodes).
    pub js_frames: Vec<JsFrame>,
    /// The CPU samples of the thread's profile, in time order (empty
    /// without a profile).
    pub samples: Vec<CpuSample>,
    /// The thread would have more nodes than
    /// [`AnalyzeOptions::max_nodes`](tracekit_events::AnalyzeOptions::max_nodes)
    /// allows (at least this many): it was not built, and `nodes` is
    /// empty. Output that selects it is an error; the others load.
    pub over_budget: Option<usize>,
    /// The aggregated views' args ([`ViewArgs`]) of the entries that need
    /// them, by the index of their source event, sorted
    /// ([`event_view_args`]).
    pub(crate) view_args: Vec<(u32, ViewArgs)>,
    /// What grouping the aggregated views needs ([`GroupArgs`]) of the
    /// entries that have a URL or a frame, by the index of their source
    /// event, sorted ([`event_group_args`]).
    pub(crate) group_args: Vec<(u32, GroupArgs)>,
}

impl ThreadTrack {
    /// The function of a JS call node (`None` for a trace event).
    pub fn js_frame(&self, kind: &NodeKind) -> Option<&JsFrame> {
        match kind {
            NodeKind::Call { frame } => self.js_frames.get(*frame as usize),
            NodeKind::Event { .. } => None,
        }
    }
}

/// The [`ViewArgs`] of the entry of `track` made from source event `event`
/// (what the aggregated views read of it).
pub fn event_view_args(track: &ThreadTrack, event: u32) -> Option<&ViewArgs> {
    let at = track.view_args.binary_search_by_key(&event, |(e, _)| *e).ok()?;
    Some(&track.view_args[at].1)
}

/// The [`GroupArgs`] of the entry of `track` made from source event
/// `event` (`None`: it has no URL and no frame, or the analysis did not
/// keep them: [`AnalyzeOptions::group_args`](tracekit_events::AnalyzeOptions::group_args)).
pub fn event_group_args(track: &ThreadTrack, event: u32) -> Option<&GroupArgs> {
    let at = track.group_args.binary_search_by_key(&event, |(e, _)| *e).ok()?;
    Some(&track.group_args[at].1)
}

/// The track of a profile on its own: its tree (the profile's frames,
/// `(program)`, `(idle)` and `(garbage collector)` included, as DevTools
/// draws a CPU profile file), functions and samples. `Err(count)`: the
/// tree would have more than `max_nodes` nodes (at least `count`).
pub fn profile_track(model: &tracekit_cpuprofile::CpuProfileModel, max_nodes: usize) -> Result<ThreadTrack, usize> {
    let tree = tracekit_samples::profile_only_tree(model, max_nodes)?;
    let nodes = tree
        .into_iter()
        .map(|n| {
            TrackNode::new(
                NodeKind::Call { frame: n.node },
                n.depth.max(0) as u32,
                n.ts,
                Some(n.dur),
                n.self_time,
            )
        })
        .collect();
    Ok(ThreadTrack {
        name: None,
        nodes,
        js_frames: js_frames_of(model),
        samples: cpu_samples_of(model),
        over_budget: None,
        view_args: Vec::new(),
        group_args: Vec::new(),
    })
}

/// The tracks of one process.
#[derive(Debug, Clone, Default)]
pub struct ProcessTracks {
    /// The URL of the process: the first valid URL of the frames it
    /// rendered (an `about:blank` one gives way to the next), else the URL
    /// of the auction worklet it hosts; `None` when neither is known.
    pub url: Option<Sym>,
    /// Whether the process rendered the main frame.
    pub is_on_main_frame: bool,
    /// False for processes DevTools drops (no URL in a DevTools trace).
    pub kept_by_devtools: bool,
    /// Threads with a non-empty tree, in DevTools' order.
    pub threads: Map<Id, ThreadTrack>,
}

/// The sync tracks of a trace, by process, in DevTools' order.
#[derive(Debug, Clone, Default)]
pub struct RendererData {
    /// By process id.
    pub processes: Map<Id, ProcessTracks>,
    /// The number of CPU samples of each thread's profile, by process and
    /// thread: every profile of the Samples handler's data, whether its
    /// thread has tracks or not.
    pub profile_samples: Map<Id, Map<Id, usize>>,
}

/// The Renderer handler (see the crate documentation): it keeps the
/// events of every thread while loading, and builds the tracks when
/// finalized, from the Meta and Samples handlers' data.
#[derive(Debug, Default)]
pub struct RendererHandler {
    processes: Map<Id, ProcessEntries>,
    /// Open begin events, across all threads, as DevTools pairs them.
    open_begins: Vec<(Id, Id, usize)>,
    /// The last thread an event went to, with its indices in `processes`
    /// and in its process' `threads` (which only grow while loading): the
    /// next event is nearly always on the same thread.
    last_thread: Option<(Id, Id, usize, usize)>,
}

impl RendererHandler {
    fn thread(&mut self, pid: Id, tid: Id) -> &mut ThreadEntries {
        let (process, thread) = match self.last_thread {
            Some((p, t, process, thread)) if p == pid && t == tid => (process, thread),
            _ => {
                let process = self.processes.entry(pid);
                let process_index = process.index();
                let thread = process.or_default().threads.entry(tid);
                let thread_index = thread.index();
                thread.or_default();
                self.last_thread = Some((pid, tid, process_index, thread_index));
                (process_index, thread_index)
            }
        };
        &mut self.processes[process].threads[thread]
    }

    /// Takes one event. Nothing of it is kept by reference: the caller may
    /// free the text it came from.
    /// `group_args`: also keep what grouping needs
    /// ([`tracekit_events::AnalyzeOptions::group_args`]).
    fn on_event(
        &mut self,
        index: EventIndex,
        event: &Event<'_>,
        group_args: bool,
        interner: &mut Interner,
        diag: &mut Diagnostics,
    ) {
        if matches!(event.ph, Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT) {
            if let Some(args) = ViewArgs::of(event, interner) {
                self.thread(event.pid, event.tid).view_args.push((index, args));
            }
        }
        if group_args {
            if let Some(args) = view_args::pending_group_args(index, event, interner) {
                self.thread(event.pid, event.tid).group_args.push((index, args));
            }
        }
        match event.ph {
            Phase::BEGIN => {
                let trace_id = event.sample_trace_id;
                let thread = self.thread(event.pid, event.tid);
                thread.entries.push(Entry::new(
                    event.ts,
                    Some(Micros::ZERO),
                    event.name,
                    event.cat,
                    Phase::COMPLETE,
                    index,
                    trace_id,
                ));
                let at = thread.entries.len() - 1;
                self.open_begins.push((event.pid, event.tid, at));
            }
            Phase::END => {
                self.thread(event.pid, event.tid);
                let Some((pid, tid, at)) = self.open_begins.pop() else {
                    diag.skip(tracekit_events::Skip::RendererEndWithoutBegin, || {
                        format!("event {index} at ts {}", event.ts.0)
                    });
                    return;
                };
                let begin = &mut self.processes[&pid].threads[&tid].entries[at];
                if begin.name != event.name || begin.cat != event.cat {
                    diag.skip(tracekit_events::Skip::RendererMismatchedEnd, || {
                        format!("event {index} at ts {}", event.ts.0)
                    });
                    return;
                }
                begin.set_dur(event.ts - begin.ts);
            }
            Phase::COMPLETE | Phase::INSTANT => {
                let trace_id = event.sample_trace_id;
                self.thread(event.pid, event.tid).entries.push(Entry::new(
                    event.ts, event.dur, event.name, event.cat, event.ph, index, trace_id,
                ));
            }
            _ => {}
        }
    }

    /// Builds the tracks: who each process is, then each thread's tree, in
    /// parallel where allowed; with `all_processes`, also the processes
    /// DevTools drops (marked `kept_by_devtools: false`).
    fn into_data(
        mut self,
        (meta, mut samples, worklets, network, images): <Self as Handler>::Deps<'_>,
        cx: &mut Context,
    ) -> Result<RendererData, LoadError> {
        let profile_samples = samples
            .profiles
            .iter()
            .map(|(pid, threads)| {
                let counts = threads.iter().map(|(tid, p)| (*tid, p.model.samples.len())).collect();
                (*pid, counts)
            })
            .collect();
        // Threads with a profile made of top-level samples are drawn even
        // without trace events of their own.
        for (pid, threads) in &samples.profiles {
            for (tid, profile) in threads {
                if profile.from_trace_samples {
                    self.thread(*pid, *tid);
                }
            }
        }
        let identities = self.identify_processes(meta, worklets, &cx.interner);
        let names_by_thread = self.thread_names(meta, &cx.interner);
        let keep_dropped = cx.options.all_processes;
        let mut jobs = Vec::new();
        for (pid, process) in self.processes.iter_mut() {
            if !identities[pid].kept && !keep_dropped {
                continue;
            }
            for (tid, thread) in process.threads.iter_mut() {
                jobs.push(ThreadJob {
                    pid: *pid,
                    tid: *tid,
                    entries: std::mem::take(&mut thread.entries),
                    profile: samples.profiles.get_mut(pid).and_then(|p| p.swap_remove(tid)),
                });
            }
        }
        // The profiles of threads without tracks.
        drop(samples);
        let built = build_threads(jobs, meta, cx);

        let mut built = built.into_iter();
        let mut data = RendererData {
            processes: Map::default(),
            profile_samples,
        };
        for (pid, process) in self.processes {
            let identity = identities[&pid];
            if !identity.kept && !keep_dropped {
                continue;
            }
            let mut tracks = ProcessTracks {
                url: identity.url,
                is_on_main_frame: identity.is_on_main_frame,
                kept_by_devtools: identity.kept,
                threads: Map::default(),
            };
            for (tid, thread) in process.threads {
                let Some(BuiltThread {
                    nodes,
                    js_frames,
                    samples,
                    diagnostics,
                    over_budget,
                }) = built.next()
                else {
                    break;
                };
                cx.diagnostics.merge(diagnostics);
                if nodes.is_empty() && over_budget.is_none() {
                    continue;
                }
                tracks.threads.insert(
                    tid,
                    ThreadTrack {
                        name: names_by_thread.get(&(pid, tid)).cloned(),
                        nodes,
                        js_frames,
                        samples,
                        view_args: thread.view_args,
                        group_args: view_args::resolve_all(thread.group_args, network, images),
                        over_budget,
                    },
                );
            }
            data.processes.insert(pid, tracks);
        }
        Ok(data)
    }

    /// Each process's URL (its first frame's valid URL, where an
    /// about:blank one gives way to the next; a worklet's host), whether it
    /// renders the main frame, and whether DevTools keeps it (not when it
    /// has no URL, in a trace DevTools recorded). Every process that
    /// rendered a frame is added.
    fn identify_processes(
        &mut self,
        meta: &MetaData,
        worklets: &AuctionWorklets,
        interner: &Interner,
    ) -> Map<Id, ProcessIdentity> {
        let mut identities: Map<Id, ProcessIdentity> = Map::default();
        for pid in self.processes.keys() {
            identities.insert(*pid, ProcessIdentity::default());
        }
        for by_process in meta.renderer_processes_by_frame.values() {
            for (pid, windows) in by_process {
                for window in windows {
                    self.processes.entry(*pid).or_default();
                    let url = &mut identities.entry(*pid).or_default().url;
                    if url.is_none() || url.map(|u| interner.resolve(u)) == Some("about:blank") {
                        *url = window.frame.url.filter(|u| is_valid_url(interner.resolve(*u)));
                    }
                }
            }
        }
        let main_frame = meta.main_frame_id.unwrap_or(names::EMPTY);
        for (frame, by_process) in &meta.renderer_processes_by_frame {
            for pid in by_process.keys() {
                self.processes.entry(*pid).or_default();
                let identity = identities.entry(*pid).or_default();
                if *frame == Some(main_frame) {
                    identity.is_on_main_frame = true;
                }
            }
        }
        for (pid, identity) in identities.iter_mut() {
            identity.kept = meta.trace_is_generic || identity.url.is_some() || worklets.hosts.contains_key(pid);
        }
        for (pid, host) in &worklets.hosts {
            if let Some(identity) = identities.get_mut(pid) {
                if identity.url.is_none() {
                    identity.url = *host;
                }
            }
        }
        identities
    }

    /// The name of each thread with `thread_name` metadata (its id when the
    /// metadata gave no name); such threads are added to their process.
    fn thread_names(&mut self, meta: &MetaData, interner: &Interner) -> Map<(Id, Id), String> {
        let mut names_by_thread: Map<(Id, Id), String> = Map::default();
        for (pid, process) in self.processes.iter_mut() {
            let Some(threads) = meta.threads_in_process.get(pid) else {
                continue;
            };
            for (tid, name) in threads {
                process.threads.entry(*tid).or_default();
                let name = match name {
                    Some(sym) => interner.resolve(*sym).to_owned(),
                    None => tid.to_js_string(interner),
                };
                names_by_thread.insert((*pid, *tid), name);
            }
        }
        names_by_thread
    }
}

/// Who a process is, as DevTools sees it.
#[derive(Debug, Clone, Copy, Default)]
struct ProcessIdentity {
    url: Option<Sym>,
    is_on_main_frame: bool,
    /// DevTools keeps the process.
    kept: bool,
}

/// The entries of one thread, to build its tree.
struct ThreadJob {
    pid: Id,
    tid: Id,
    entries: Vec<Entry>,
    /// The thread's profile, dropped once its tree is built: the tracks
    /// keep what they need of it (functions and samples), and the memory
    /// goes back while the other threads are built.
    profile: Option<ThreadProfile>,
}

/// One thread's tree, its functions, and what was skipped building it.
struct BuiltThread {
    nodes: Vec<TrackNode>,
    js_frames: Vec<JsFrame>,
    samples: Vec<CpuSample>,
    diagnostics: Diagnostics,
    /// Over the node budget: at least this many nodes.
    over_budget: Option<usize>,
}

/// Builds each thread's tree (in parallel with [`Parallelism::Rayon`](tracekit_events::Parallelism::Rayon)),
/// in the order of `jobs`. A thread over the node budget is left empty,
/// marked and counted: it is an error only for output that selects it.
fn build_threads(jobs: Vec<ThreadJob>, meta: &MetaData, cx: &Context) -> Vec<BuiltThread> {
    let (interner, max_nodes, parallelism) = (&cx.interner, cx.options.max_nodes, cx.options.parallelism);
    let build = |job: ThreadJob| -> Result<BuiltThread, usize> {
        let mut diagnostics = Diagnostics::default();
        let profile = job.profile.as_ref();
        let tree = || build_thread_tree(job.entries, profile, interner, max_nodes, &mut diagnostics);
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
                    diagnostics,
                    over_budget: Some(count),
                });
            }
        }
    }
    done
}

impl Handler for RendererHandler {
    /// The Samples handler's data is taken, not lent: each profile is
    /// dropped once its thread is built.
    type Deps<'d> = (
        &'d MetaData,
        SamplesData,
        &'d AuctionWorklets,
        &'d NetworkRequests,
        &'d ImagePainting,
    );
    type Data = Result<RendererData, LoadError>;

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_event(
            index,
            event,
            cx.options.group_args,
            &mut cx.interner,
            &mut cx.diagnostics,
        );
    }

    fn finalize(self, deps: Self::Deps<'_>, cx: &mut Context) -> Self::Data {
        let _span = tracing::info_span!("trees").entered();
        self.into_data(deps, cx)
    }
}

/// The table of functions of a profile, indexed like its nodes.
pub fn js_frames_of(model: &tracekit_cpuprofile::CpuProfileModel) -> Vec<JsFrame> {
    model
        .nodes
        .iter()
        .map(|n| JsFrame {
            call_frame: n.call_frame,
            node_id: n.id,
        })
        .collect()
}

/// The samples of a profile (those naming a known node), in time order.
pub fn cpu_samples_of(model: &tracekit_cpuprofile::CpuProfileModel) -> Vec<CpuSample> {
    // Sized for all samples: a sample without a node is rare, and growing
    // a list of a million samples copies it to fresh pages.
    let mut samples = Vec::with_capacity(model.samples.len());
    samples.extend((0..model.samples.len()).filter_map(|i| {
        let frame = model.node_by_index(i)?;
        let ts = tracekit_events::Millis(model.timestamps.get(i).copied().unwrap_or(f64::NAN)).to_micros();
        Some(CpuSample { ts, frame })
    }));
    samples
}

/// Whether the WHATWG URL parser (JavaScript's `new URL`) accepts `s`.
fn is_valid_url(s: &str) -> bool {
    url::Url::parse(s).is_ok()
}

impl TraceEntry for Entry {
    fn span(&self) -> Span {
        Span {
            ts: self.ts.0,
            dur: self.dur().map(|d| d.0),
            is_profile_call: false,
        }
    }
    fn name(&self) -> Sym {
        self.name
    }
    fn ph(&self) -> Phase {
        self.ph
    }
    fn sample_trace_id(&self) -> Option<SampleTraceId> {
        self.trace_id()
    }
}

#[derive(Copy, Clone)]
enum Item {
    Entry(u32),
    Call(u32),
}

/// Sorts a thread's entries, integrates its samples and builds its tree;
/// a tree of more than `max_nodes` nodes is the error of how many there
/// were at least. The nodes are indexed by `u32` on the way, so
/// `max_nodes` counts as `u32::MAX` at most.
fn build_thread_tree(
    mut entries: Vec<Entry>,
    profile: Option<&ThreadProfile>,
    interner: &Interner,
    max_nodes: usize,
    diag: &mut Diagnostics,
) -> Result<Vec<TrackNode>, usize> {
    if entries.is_empty() && !profile.is_some_and(|p| p.from_trace_samples) {
        return Ok(Vec::new());
    }
    // Entries and calls together are at most `max_nodes`: every index
    // below fits a `u32`.
    let max_nodes = max_nodes.min(u32::MAX as usize);
    if entries.len() > max_nodes {
        return Err(entries.len());
    }
    entries.sort_by(|a, b| timeline::compare(&a.span(), &b.span()));
    let calls = match profile {
        Some(p) => SamplesIntegrator::new(&p.model, interner, false)
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
    Ok(build_tree(
        items,
        span,
        track_node,
        |node: &mut TrackNode| &mut node.self_time.0,
        diag,
    ))
}

#[cfg(test)]
mod tests;
