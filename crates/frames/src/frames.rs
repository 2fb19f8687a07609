//! The Frames handler (DevTools' `FramesHandler`): gathers the events the
//! frame model reads (the compositor's frame events, the main-frame
//! markers and tasks of the main thread, paints, layer tree snapshots),
//! then runs the model (the crate's `model` module) over them in time order, on the
//! main threads the Renderer handler found.

use tracekit_events::dump::{Dump, Object, SyntheticId, Value};
use tracekit_events::json::{js_truthy, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};
use tracekit_meta::MetaData;
use tracekit_renderer::RendererData;

use crate::arg::{js_string_to_number, ArgValue};
use crate::layer_tree::LayerTree;
use crate::model::{FrameModel, MainThread};
use crate::{sort_by_time, Map, When};

/// The Frames handler (see the module documentation).
#[derive(Debug, Default)]
pub struct FramesHandler {
    /// The events the model reads, but the top-level tasks.
    events: Vec<(When, FrameEvent)>,
    /// The top-level tasks, by thread: most of the events the model reads
    /// (every task of a busy page), of which only the main threads' count;
    /// kept in 24 bytes each until the main threads are known, instead of
    /// the 96 of a model event.
    tasks: Map<(Id, Id), Vec<Task>>,
    /// The category of the last `RunTask` seen, and whether it makes the
    /// task a top-level one (most tasks share one category).
    last_task_cat: Option<(Sym, bool)>,
}

/// A top-level task, as kept while loading.
#[derive(Debug, Clone, Copy)]
struct Task {
    index: EventIndex,
    ts: Micros,
    end: Micros,
}

/// What the frame model reads of one event.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FrameEvent {
    /// `SetLayerTreeId`: the frame (`args.data.frame`) whose layer tree is
    /// now `args.data.layerTreeId`.
    SetLayerTreeId { frame: ArgValue, layer_tree: ArgValue },
    /// A `cc::LayerTreeHostImpl` snapshot: `Number(event.id)`.
    LayerTreeSnapshot { id: f64 },
    /// `BeginFrame` (with a `frameSeqId`).
    BeginFrame { layer_tree: ArgValue, seq: ArgValue },
    /// `DroppedFrame` (with a `frameSeqId`): whether it was a partial
    /// update.
    DroppedFrame {
        layer_tree: ArgValue,
        seq: ArgValue,
        partial: bool,
    },
    /// An instant `DrawFrame`.
    DrawFrame { layer_tree: ArgValue, seq: ArgValue },
    /// `ActivateLayerTree`.
    ActivateLayerTree { layer_tree: ArgValue },
    /// `RequestMainThreadFrame`.
    RequestMainThreadFrame { layer_tree: ArgValue },
    /// `NeedsBeginFrameChanged`: whether frames are now needed.
    NeedsBeginFrameChanged { layer_tree: ArgValue, needs: bool },
    /// `Commit` (with a `frameSeqId`).
    Commit { layer_tree: ArgValue },
    /// `CompositeLayers`, the older name of the commit.
    CompositeLayers { layer_tree: ArgValue },
    /// `BeginMainThreadFrame`: its `args.data.frameId`, and whether it is
    /// truthy.
    BeginMainThreadFrame { frame_id: ArgValue, frame_id_truthy: bool },
    /// A top-level `RunTask` (of the `disabled-by-default-devtools.timeline`
    /// category).
    TopLevelTask,
    /// `ScheduleStyleRecalculation`, `InvalidateLayout` or `ScrollLayer`:
    /// the main thread starts a frame.
    Marker,
    /// `Paint`.
    Paint,
}

impl FrameEvent {
    /// The layer tree of a compositor event the model acts on.
    pub(crate) fn layer_tree(&self) -> Option<ArgValue> {
        match *self {
            FrameEvent::BeginFrame { layer_tree, .. }
            | FrameEvent::DroppedFrame { layer_tree, .. }
            | FrameEvent::DrawFrame { layer_tree, .. }
            | FrameEvent::ActivateLayerTree { layer_tree }
            | FrameEvent::RequestMainThreadFrame { layer_tree }
            | FrameEvent::NeedsBeginFrameChanged { layer_tree, .. } => Some(layer_tree),
            _ => None,
        }
    }

    /// Whether the main thread starts a frame with it.
    pub(crate) fn is_main_frame_marker(&self) -> bool {
        matches!(self, FrameEvent::Marker | FrameEvent::BeginMainThreadFrame { .. })
    }
}

/// A paint of a compositor layer and the display list snapshot it
/// recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerPaint {
    /// The `Paint` event.
    pub paint: EventIndex,
    /// Its snapshot ([`LayerTree::paint_snapshots`]).
    pub snapshot: EventIndex,
}

/// A snapshot of the main frame's layer tree (`cc::LayerTreeHostImpl`).
#[derive(Debug, Clone, PartialEq)]
pub struct LayerTreeSnapshot {
    /// The snapshot event.
    pub entry: EventIndex,
    /// The paints of the last frame drawn with this layer tree.
    pub paints: Vec<LayerPaint>,
}

/// One frame: from its start to the next frame's.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The compositor's sequence number of the frame (`frameSeqId`) that
    /// started it.
    pub seq_id: ArgValue,
    /// When it started.
    pub start: Micros,
    /// Its start from the trace's start.
    pub start_offset: Micros,
    /// When it ended: the next frame's start.
    pub end: Micros,
    /// `end - start`.
    pub duration: Micros,
    /// Nothing was drawn: the compositor waited for frames to be needed.
    pub idle: bool,
    /// The frame was dropped.
    pub dropped: bool,
    /// The frame was dropped with a partial update.
    pub partial: bool,
    /// The layer tree it was drawn with: an index into
    /// [`Frames::layer_trees`].
    pub layer_tree: Option<usize>,
    /// The paints its main-thread frame committed.
    pub paints: Vec<LayerPaint>,
    /// The main-thread frame it drew (`BeginMainThreadFrame`'s
    /// `args.data.frameId`; undefined when none).
    pub main_frame_id: ArgValue,
}

impl Frame {
    pub(crate) fn new(seq_id: ArgValue, start: Micros, start_offset: Micros) -> Frame {
        Frame {
            seq_id,
            start,
            start_offset,
            end: start,
            duration: Micros::ZERO,
            idle: false,
            dropped: false,
            partial: false,
            layer_tree: None,
            paints: Vec::new(),
            main_frame_id: ArgValue::Undefined,
        }
    }
}

/// The frames of a trace.
#[derive(Debug, Clone, Default)]
pub struct Frames {
    /// The frames, in time order (the last one, never ended, is not one).
    pub frames: Vec<Frame>,
    /// The frame that drew each main-thread frame, by its numeric
    /// `frameId` (the last such frame): an index into `frames`.
    pub by_main_frame_id: Map<Id, usize>,
    /// The snapshots of the main frame's layer tree the frames were drawn
    /// with.
    pub layer_trees: Vec<LayerTreeSnapshot>,
}

/// The category whose `RunTask`s are top-level tasks.
const TIMELINE_CATEGORY: &str = "disabled-by-default-devtools.timeline";

impl Handler for FramesHandler {
    type Deps<'d> = (&'d MetaData, &'d RendererData, &'d LayerTree);
    type Data = Frames;

    const WANTS: Wants = Wants::Named(&[
        names::SET_LAYER_TREE_ID,
        names::LAYER_TREE_HOST_IMPL,
        names::BEGIN_FRAME,
        names::DROPPED_FRAME,
        names::DRAW_FRAME,
        names::ACTIVATE_LAYER_TREE,
        names::REQUEST_MAIN_THREAD_FRAME,
        names::NEEDS_BEGIN_FRAME_CHANGED,
        names::COMMIT,
        names::COMPOSITE_LAYERS,
        names::BEGIN_MAIN_THREAD_FRAME,
        names::RUN_TASK,
        names::SCHEDULE_STYLE_RECALCULATION,
        names::INVALIDATE_LAYOUT,
        names::SCROLL_LAYER,
        names::PAINT,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        match self.read(index, event, cx) {
            Some(FrameEvent::TopLevelTask) => {
                let when = When::of(index, event);
                self.tasks.entry((event.pid, event.tid)).or_default().push(Task {
                    index,
                    ts: when.ts,
                    end: when.end,
                });
            }
            Some(kind) => self.events.push((When::of(index, event), kind)),
            None => {}
        }
    }

    fn finalize(mut self, (meta, renderer, layer_tree): Self::Deps<'_>, _cx: &mut Context) -> Frames {
        if self.events.is_empty() && self.tasks.is_empty() {
            return Frames::default();
        }
        let threads = main_threads(renderer);
        self.add_main_threads_tasks(&threads);
        sort_by_time(&mut self.events, |(when, _)| when);
        let main_frame = meta.main_frame_id.unwrap_or(names::EMPTY);
        let model = FrameModel::new(layer_tree, meta.bounds.min);
        model.run(&self.events, &threads, main_frame, names::EMPTY)
    }
}

impl FramesHandler {
    /// Adds the top-level tasks of the main threads to the model's events,
    /// in input order (the time sort that follows is stable).
    fn add_main_threads_tasks(&mut self, threads: &[MainThread]) {
        let mut kept = Vec::new();
        for thread in threads {
            if let Some(tasks) = self.tasks.swap_remove(&(thread.pid, thread.tid)) {
                kept.push((thread, tasks));
            }
        }
        // The other threads' tasks (most of them, on a big trace) are
        // freed before the model's list grows.
        self.tasks = Map::default();
        if kept.is_empty() {
            return;
        }
        self.events
            .reserve_exact(kept.iter().map(|(_, tasks)| tasks.len()).sum());
        for (thread, tasks) in kept {
            self.events.extend(tasks.into_iter().map(|t| {
                let when = When {
                    index: t.index,
                    ts: t.ts,
                    end: t.end,
                    pid: thread.pid,
                    tid: thread.tid,
                };
                (when, FrameEvent::TopLevelTask)
            }));
        }
        // An event is at most one of the list's: sorted in place, without
        // a stable sort's buffer, the order is the same.
        self.events.sort_unstable_by_key(|(when, _)| when.index);
    }

    /// What the model reads of an event, `None` for one it ignores.
    fn read(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) -> Option<FrameEvent> {
        let args = event.args;
        let interner = &mut cx.interner;
        let arg = |path: &[&str], interner: &mut tracekit_events::Interner| {
            ArgValue::read(args.and_then(|a| member_path(a, path)), index, interner)
        };
        // Read only for the events whose kind depends on it (not for the
        // many tasks).
        let has_seq = || args.is_some_and(|a| member(a, "frameSeqId").is_some());
        let kind = match event.name {
            names::SET_LAYER_TREE_ID => FrameEvent::SetLayerTreeId {
                frame: arg(&["data", "frame"], interner),
                layer_tree: arg(&["data", "layerTreeId"], interner),
            },
            names::LAYER_TREE_HOST_IMPL => FrameEvent::LayerTreeSnapshot {
                id: match event.id {
                    Some(id) => match (id.as_f64(), id.as_sym()) {
                        (Some(x), _) => x,
                        (None, Some(s)) => js_string_to_number(interner.resolve(s)),
                        (None, None) => f64::NAN,
                    },
                    None => f64::NAN,
                },
            },
            names::BEGIN_FRAME if has_seq() => FrameEvent::BeginFrame {
                layer_tree: arg(&["layerTreeId"], interner),
                seq: arg(&["frameSeqId"], interner),
            },
            names::DROPPED_FRAME if has_seq() => FrameEvent::DroppedFrame {
                layer_tree: arg(&["layerTreeId"], interner),
                seq: arg(&["frameSeqId"], interner),
                partial: args.and_then(|a| member(a, "hasPartialUpdate")).is_some_and(js_truthy),
            },
            names::DRAW_FRAME if event.ph == Phase::INSTANT => FrameEvent::DrawFrame {
                layer_tree: arg(&["layerTreeId"], interner),
                seq: arg(&["frameSeqId"], interner),
            },
            names::ACTIVATE_LAYER_TREE => FrameEvent::ActivateLayerTree {
                layer_tree: arg(&["layerTreeId"], interner),
            },
            names::REQUEST_MAIN_THREAD_FRAME => FrameEvent::RequestMainThreadFrame {
                layer_tree: arg(&["layerTreeId"], interner),
            },
            names::NEEDS_BEGIN_FRAME_CHANGED => {
                let data = args.and_then(|a| member(a, "data")).filter(|d| js_truthy(d));
                FrameEvent::NeedsBeginFrameChanged {
                    layer_tree: arg(&["layerTreeId"], interner),
                    needs: data.and_then(|d| member(d, "needsBeginFrame")).is_some_and(js_truthy),
                }
            }
            names::COMMIT if has_seq() => FrameEvent::Commit {
                layer_tree: arg(&["layerTreeId"], interner),
            },
            names::COMPOSITE_LAYERS => FrameEvent::CompositeLayers {
                layer_tree: arg(&["layerTreeId"], interner),
            },
            names::BEGIN_MAIN_THREAD_FRAME => {
                if args.and_then(|a| member(a, "data")).is_none() {
                    cx.diagnostics.skip(Skip::FramesArgsWithoutData, || {
                        format!("BeginMainThreadFrame (event #{index}) without args.data")
                    });
                }
                let frame_id = arg(&["data", "frameId"], interner);
                FrameEvent::BeginMainThreadFrame {
                    frame_id,
                    frame_id_truthy: frame_id.is_truthy(interner),
                }
            }
            names::RUN_TASK => {
                let top_level = match self.last_task_cat {
                    Some((cat, top_level)) if cat == event.cat => top_level,
                    _ => {
                        let top_level = interner.resolve(event.cat).contains(TIMELINE_CATEGORY);
                        self.last_task_cat = Some((event.cat, top_level));
                        top_level
                    }
                };
                if !top_level {
                    return None;
                }
                FrameEvent::TopLevelTask
            }
            names::SCHEDULE_STYLE_RECALCULATION | names::INVALIDATE_LAYOUT | names::SCROLL_LAYER => FrameEvent::Marker,
            names::PAINT => FrameEvent::Paint,
            _ => return None,
        };
        Some(kind)
    }
}

/// The main threads (`CrRendererMain`) of the processes on the main frame
/// that DevTools keeps, in the Renderer handler's order, each with the time
/// of its first entry.
fn main_threads(renderer: &RendererData) -> Vec<MainThread> {
    let mut threads = Vec::new();
    for (pid, process) in &renderer.processes {
        if !process.kept_by_devtools || !process.is_on_main_frame {
            continue;
        }
        for (tid, thread) in &process.threads {
            if thread.name.as_deref() != Some("CrRendererMain") {
                continue;
            }
            if let Some(first) = thread.nodes.first() {
                threads.push(MainThread {
                    pid: *pid,
                    tid: *tid,
                    start: first.ts(),
                });
            }
        }
    }
    threads
}

/// An [`ArgValue`] as the dump writes it (`undefined` as `null`).
fn arg_value(value: ArgValue, dump: &Dump<'_>) -> Value {
    match value {
        ArgValue::Undefined | ArgValue::Null => Value::Null,
        ArgValue::Bool(b) => Value::Bool(b),
        ArgValue::Num(x) => Value::Num(x),
        ArgValue::Str(s) => Value::Sym(s),
        ArgValue::Other { text, .. } => Value::Json(dump.strings().resolve(text).into()),
    }
}

impl Frames {
    /// This data in the data conformance dump: each frame a synthetic
    /// event (DevTools' `TimelineFrame`), its paints written as DevTools'
    /// `LayerPaintEvent`s are (no fields of their own: `{}`).
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let paints = |paints: &[LayerPaint]| Value::Array(paints.iter().map(|_| Object::new().into()).collect());
        let ids: Vec<SyntheticId> = self
            .frames
            .iter()
            .enumerate()
            .map(|(index, frame)| {
                let layer_tree = Value::opt(frame.layer_tree.and_then(|t| self.layer_trees.get(t)), |tree| {
                    Object::new()
                        .with("entry", Value::Event(tree.entry))
                        .with("paints", paints(&tree.paints))
                        .into()
                });
                #[allow(clippy::cast_precision_loss)]
                let fields = Object::new()
                    .with("cat", Value::str("devtools.legacy_frame"))
                    .with("dropped", Value::Bool(frame.dropped))
                    .with("duration", Value::Num(frame.duration.0))
                    .with("endTime", Value::Num(frame.end.0))
                    .with("idle", Value::Bool(frame.idle))
                    .with("index", Value::Num(index as f64))
                    .with("isPartial", Value::Bool(frame.partial))
                    .with("layerTree", layer_tree)
                    .with("mainFrameId", arg_value(frame.main_frame_id, dump))
                    .with("name", Value::str("frame"))
                    .with("paints", paints(&frame.paints))
                    .with("ph", Value::str("X"))
                    .with("pid", Value::Num(-1.0))
                    .with("seqId", arg_value(frame.seq_id, dump))
                    .with("startTime", Value::Num(frame.start.0))
                    .with("startTimeOffset", Value::Num(frame.start_offset.0))
                    .with("tid", Value::Num(-1.0))
                    .with("ts", Value::Num(frame.start.0));
                dump.synthetic(tracekit_events::dump::Synthetic {
                    name: "frame".into(),
                    pid: Value::Num(-1.0),
                    tid: Value::Num(-1.0),
                    ts: frame.start.0,
                    raw: None,
                    profile_call: None,
                    fields: Some(fields.into()),
                })
            })
            .collect();
        let mut by_id = Object::new();
        for (id, &frame) in &self.by_main_frame_id {
            let key = tracekit_events::jsnum::js_number_string(id.as_f64().unwrap_or(f64::NAN));
            by_id.push(key, Value::Synthetic(ids[frame]));
        }
        Object::new()
            .with(
                "frames",
                Value::Array(ids.iter().map(|id| Value::Synthetic(*id)).collect()),
            )
            .with("framesById", by_id.into())
            .into()
    }
}
