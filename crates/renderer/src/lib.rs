//! The Renderer handler of tracekit: the sync tracks. It gathers every
//! complete, instant and begin/end event by process and thread, gives
//! processes their URL and main-frame flag and threads their name (from
//! the Meta handler), drops what DevTools drops (processes without a URL
//! unless the trace is generic, threads without entries), merges each
//! thread's CPU samples into JS calls ([`integrator`]), and nests
//! everything into one call tree per thread ([`timeline`]). It mirrors
//! DevTools' `RendererHandler`. It also keeps the few args of the events
//! that the aggregated views read ([`view_args`]), with the request URLs
//! and image ties their grouping looks up; and, when all handlers run,
//! the third-party entities of its entries, which complete the
//! NetworkRequests handler's entity mappings ([`entity_mappings`]).

pub mod integrator;
pub mod timeline;
pub mod view_args;

mod entities;
mod entries;
mod finalize;
mod thread_tree;

use indexmap::IndexMap;
use tracekit_cpuprofile::CallFrame;
use tracekit_events::prepared::{ArgsSpan, Prepared, PreparedChunk};
use tracekit_events::{
    names, AnalyzeOptions, ArgsKey, Context, Event, EventIndex, Handler, Id, LoadError, Micros, Phase, Sym,
};
use tracekit_meta::{AuctionWorklets, MetaData};
use tracekit_page::{ImagePainting, NetworkRequests};
use tracekit_samples::SamplesData;

pub use entities::{entity_mappings, NumberedThreads};
use entries::ProcessEntries;
pub use view_args::{GroupArgs, ViewArgs};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

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
/// A thread can have millions of nodes, so a node is 40 bytes, read
/// through its methods: the kind, the event's fields and the depth fill
/// four `u32`s (a JS call is marked by `u32::MAX` where an event has its
/// category; the phase shares its `u32` with the depth, which is at most
/// [`MAX_DEPTH`]), and an absent duration or self time is a NaN of a
/// payload no arithmetic makes (one fixed bit pattern), rather than an
/// `Option` (16 bytes each).
#[derive(Clone, Copy)]
pub struct TrackNode {
    /// An event's name, or a JS call's frame.
    name_or_frame: u32,
    /// An event's category, or [`CALL`].
    cat_or_call: u32,
    /// An event's index among the trace's events (0 for a JS call).
    event: u32,
    /// The depth, shifted left by 8, and an event's phase in the low byte.
    depth_phase: u32,
    ts: Micros,
    dur: f64,
    self_time: f64,
}

/// The deepest a node can be: a tree's items nested deeper are left out
/// and counted ([`build_tree`](timeline::build_tree)); a profile on its
/// own that deep is not built.
pub const MAX_DEPTH: u32 = (1 << 24) - 1;

/// [`TrackNode::cat_or_call`] of a JS call: no string's symbol, since the
/// interner gives none past `u32::MAX - 1`.
const CALL: u32 = u32::MAX;

/// The bits of an absent duration or self time: a NaN with a payload.
/// JSON cannot write a NaN, and arithmetic makes NaNs without a payload
/// (or passes on the payload of one it is given, which is then this one).
const ABSENT: u64 = 0x7FF8_0000_0000_0A85;

const fn stored(time: Option<Micros>) -> f64 {
    match time {
        Some(t) => t.0,
        None => f64::from_bits(ABSENT),
    }
}

fn read(stored: f64) -> Option<Micros> {
    (stored.to_bits() != ABSENT).then_some(Micros(stored))
}

// The size is the point of the layout above.
const _: () = assert!(std::mem::size_of::<TrackNode>() == 40);

impl TrackNode {
    /// A node (for tests and for tracks built by hand; loading makes the
    /// tracks' own).
    ///
    /// # Panics
    ///
    /// If `depth` is more than [`MAX_DEPTH`], or an event's category is
    /// `Sym(u32::MAX)`, which no interner gives (it marks JS calls).
    pub fn new(kind: NodeKind, depth: u32, ts: Micros, dur: Option<Micros>, self_time: Option<Micros>) -> TrackNode {
        assert!(
            depth <= MAX_DEPTH,
            "a track node's depth is at most {MAX_DEPTH}, not {depth}"
        );
        let (name_or_frame, cat_or_call, event, ph) = match kind {
            NodeKind::Event { name, cat, ph, event } => {
                assert_ne!(cat.0, CALL, "a track node's event has no category Sym(u32::MAX)");
                (name.0, cat.0, event, ph.0)
            }
            NodeKind::Call { frame } => (frame, CALL, 0, 0),
        };
        TrackNode {
            name_or_frame,
            cat_or_call,
            event,
            depth_phase: depth << 8 | u32::from(ph),
            ts,
            dur: stored(dur),
            self_time: stored(self_time),
        }
    }

    /// A trace event or a JS call.
    pub fn kind(&self) -> NodeKind {
        if self.cat_or_call == CALL {
            NodeKind::Call {
                frame: self.name_or_frame,
            }
        } else {
            // The low byte is the phase.
            #[allow(clippy::cast_possible_truncation)]
            let ph = Phase(self.depth_phase as u8);
            NodeKind::Event {
                name: Sym(self.name_or_frame),
                cat: Sym(self.cat_or_call),
                ph,
                event: self.event,
            }
        }
    }

    /// Depth in the thread's tree (roots at 0).
    pub fn depth(&self) -> u32 {
        self.depth_phase >> 8
    }

    /// When it started.
    pub fn ts(&self) -> Micros {
        self.ts
    }

    /// How long it lasted; `None` for entries without a duration (instants).
    pub fn dur(&self) -> Option<Micros> {
        read(self.dur)
    }

    /// Its duration less its children's; `None` where DevTools has none
    /// (an unclosed frame of a profile on its own).
    pub fn self_time(&self) -> Option<Micros> {
        read(self.self_time)
    }

    /// Its self time, to lessen while the tree is built (set: the trees
    /// built from a trace give every node one).
    pub(crate) fn self_time_mut(&mut self) -> &mut f64 {
        &mut self.self_time
    }
}

impl PartialEq for TrackNode {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind()
            && self.depth() == other.depth()
            && self.ts == other.ts
            && self.dur() == other.dur()
            && self.self_time() == other.self_time()
    }
}

impl std::fmt::Debug for TrackNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackNode")
            .field("kind", &self.kind())
            .field("depth", &self.depth())
            .field("ts", &self.ts)
            .field("dur", &self.dur())
            .field("self_time", &self.self_time())
            .finish()
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
    /// What the third-party entities of its entries need (with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)
    /// only): read by [`entity_mappings`].
    pub(crate) entities: entities::ThreadEntities,
    /// The raw `args.data` of the entries whose lines say what they are
    /// (with [`AnalyzeOptions::details`](tracekit_events::AnalyzeOptions::details)
    /// only), by the index of their source event, sorted ([`event_details`]).
    pub(crate) details: Vec<(u32, Box<str>)>,
    /// The thread's layouts and style recalculations with their sizes
    /// (with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)
    /// only), in input order: what the DOM size insight reads.
    pub dom_updates: Vec<DomUpdate>,
}

/// What a layout or a style recalculation updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomUpdateKind {
    /// A `Layout` event (one with `args.beginData`).
    Layout,
    /// An `UpdateLayoutTree` event.
    RecalcStyle,
}

/// A `Layout` or `UpdateLayoutTree` event of a thread (of any phase but
/// begin and end, as DevTools' Renderer handler lists them), with its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DomUpdate {
    /// The event.
    pub event: EventIndex,
    /// Which kind of update.
    pub kind: DomUpdateKind,
    /// When it started.
    pub ts: Micros,
    /// How long it lasted, when it says.
    pub dur: Option<Micros>,
    /// How much it updated: a layout's `args.beginData.dirtyObjects`, a
    /// recalculation's `args.elementCount` (`None`: not a number).
    pub size: Option<f64>,
    /// Out of how much: a layout's `args.beginData.totalObjects` (`None`
    /// for a recalculation, or not a number).
    pub total: Option<f64>,
}

impl ThreadTrack {
    /// The index, among all the samples of the thread's profile, of the
    /// CPU sample whose stack opened the `call`-th JS call node (counted
    /// in node order from 0): what tells DevTools' ProfileCalls apart.
    /// `None` when a trace event's sample trace id opened it (DevTools
    /// numbers it -1), or when the analysis was made without
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
    pub fn call_sample(&self, call: usize) -> Option<u32> {
        self.entities
            .call_samples
            .get(call)
            .copied()
            .filter(|&s| s != integrator::FROM_TRACE_ID)
    }

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

/// The raw `args.data` of the entry of `track` made from source event
/// `event`, for the events whose lines say what they are (`EvaluateScript`,
/// `ParseHTML`, `EventDispatch`, `ResourceSendRequest`, `TimerFire`,
/// `FunctionCall`) and whose stack trace DevTools points at (`Layout`,
/// `UpdateLayoutTree`: their `args.beginData`, as `ParseHTML`'s); `None`
/// for the others, or when the analysis did not
/// keep them ([`AnalyzeOptions::details`](tracekit_events::AnalyzeOptions::details)).
pub fn event_details(track: &ThreadTrack, event: u32) -> Option<&str> {
    let at = track.details.binary_search_by_key(&event, |(e, _)| *e).ok()?;
    Some(&track.details[at].1)
}

/// The track of a profile on its own: its tree (the profile's frames,
/// `(program)`, `(idle)` and `(garbage collector)` included, as DevTools
/// draws a CPU profile file), functions and samples. `Err(count)`: the
/// tree would have more than `max_nodes` nodes (at least `count`), or
/// frames nested deeper than [`MAX_DEPTH`] (`count` its nodes).
pub fn profile_track(model: &tracekit_cpuprofile::CpuProfileModel, max_nodes: usize) -> Result<ThreadTrack, usize> {
    let tree = tracekit_samples::profile_only_tree(model, max_nodes)?;
    // A frame this deep needs more nested frames than a track node can
    // say; such a profile is refused as too big, its nodes counted.
    if tree.iter().any(|n| n.depth.max(0).unsigned_abs() > MAX_DEPTH) {
        return Err(tree.len());
    }
    let nodes = tree
        .into_iter()
        .map(|n| {
            TrackNode::new(
                NodeKind::Call { frame: n.node },
                n.depth.max(0).unsigned_abs(),
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
        entities: entities::ThreadEntities::default(),
        details: Vec::new(),
        dom_updates: Vec::new(),
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
    /// The raw URL values of the events handed over last, looked for on
    /// all cores (with all handlers): see [`entities::entity_url_value`].
    prepared_urls: Prepared<ArgsSpan>,
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

    /// Looks for the URLs of the events' entities, with all handlers: the
    /// walk of their args is most of the Renderer handler's work then.
    fn prepare(events: &[Event<'_>], options: &AnalyzeOptions) -> Option<PreparedChunk> {
        let devtools = options.all_handlers.then_some(options.devtools)?;
        Some(Prepared::of_chunk(events, |event| {
            entities::entity_url_value(event, devtools)
        }))
    }

    fn take_prepared(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.prepared_urls.set(first, prepared);
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let layout_begin = if event.name == names::LAYOUT && cx.options.all_handlers {
            cx.args_member(index, event, ArgsKey::BeginData)
        } else {
            None
        };
        self.on_event(
            index,
            event,
            layout_begin,
            &cx.options,
            &mut cx.interner,
            &mut cx.diagnostics,
        );
    }

    fn finalize(self, deps: Self::Deps<'_>, cx: &mut Context) -> Self::Data {
        // The event pass's blocks and the handlers' raw lists are freed;
        // the trees' lists are about to be allocated.
        tracekit_events::memory::release_freed();
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

#[cfg(test)]
mod tests;
