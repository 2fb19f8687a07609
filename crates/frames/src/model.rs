//! The frame model (DevTools' `TimelineFrameModel`): a state machine over
//! the compositor's events (begin, drop, draw, activate, commit) of the
//! main frame's layer tree and the main thread's tasks, which cuts the
//! trace into frames, each drawn, dropped, idle or partial, with the
//! paints its main-thread frame committed.

use std::collections::VecDeque;

use tracekit_events::{Id, Micros, Sym};

use crate::arg::ArgValue;
use crate::frames::{Frame, FrameEvent, Frames, LayerPaint, LayerTreeSnapshot};
use crate::layer_tree::LayerTree;
use crate::{Map, When};

/// A main thread of a process on the main frame: its process, thread, and
/// the time of its first entry (from then on, its events are the main
/// thread's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MainThread {
    pub pid: Id,
    pub tid: Id,
    pub start: Micros,
}

/// A main-thread frame on its way to the screen: begun by a main-frame
/// marker, then committed, then activated into the frame being drawn.
#[derive(Debug, Default)]
struct PendingFrame {
    paints: Vec<LayerPaint>,
    main_frame_id: ArgValue,
    trigger_time: f64,
}

/// An impl-side BeginFrame waiting for its DrawFrame.
#[derive(Debug, Clone, Copy)]
struct BeginFrameInfo {
    start: Micros,
    dropped: bool,
    partial: bool,
}

/// The BeginFrames not drawn yet, in the order they came, by sequence id.
#[derive(Debug, Default)]
struct BeginFrameQueue {
    order: VecDeque<ArgValue>,
    by_seq: Map<ArgValue, BeginFrameInfo>,
}

impl BeginFrameQueue {
    fn add_if_new(&mut self, seq: ArgValue, info: BeginFrameInfo) {
        if !self.by_seq.contains_key(&seq) {
            self.by_seq.insert(seq, info);
            self.order.push_back(seq);
        }
    }

    /// The frames a DrawFrame of `seq` shows: the dropped ones queued
    /// before it, then its own; none when it has no BeginFrame.
    fn take_drawn(&mut self, seq: ArgValue) -> Vec<BeginFrameInfo> {
        let mut shown = Vec::new();
        if !self.by_seq.contains_key(&seq) {
            return shown;
        }
        while let Some(&first) = self.order.front() {
            if first == seq {
                break;
            }
            if let Some(info) = self.by_seq.swap_remove(&first) {
                if info.dropped {
                    shown.push(info);
                }
            }
            self.order.pop_front();
        }
        if let Some(info) = self.by_seq.swap_remove(&seq) {
            shown.push(info);
        }
        self.order.pop_front();
        shown
    }
}

/// The frame model's state while it walks the events.
pub(crate) struct FrameModel<'a> {
    layer_tree_data: &'a LayerTree,
    trace_start: Micros,
    frames: Frames,
    queue: BeginFrameQueue,
    last_frame: Option<Frame>,
    main_frame_committed: bool,
    main_frame_requested: bool,
    /// The index in `frames.layer_trees` of the last snapshot of the main
    /// frame's layer tree.
    last_layer_tree: Option<usize>,
    pending_activation: Option<PendingFrame>,
    pending_commit: Option<PendingFrame>,
    last_begin_frame: Option<f64>,
    last_needs_begin_frame: Option<f64>,
    last_task_begin: Option<f64>,
    layer_tree_id: ArgValue,
    active: (Option<Id>, Option<Id>),
}

/// JavaScript's truthiness of a time that may be `null`.
fn truthy(x: Option<f64>) -> Option<f64> {
    x.filter(|x| *x != 0.0 && !x.is_nan())
}

impl<'a> FrameModel<'a> {
    pub(crate) fn new(layer_tree_data: &'a LayerTree, trace_start: Micros) -> FrameModel<'a> {
        FrameModel {
            layer_tree_data,
            trace_start,
            frames: Frames::default(),
            queue: BeginFrameQueue::default(),
            last_frame: None,
            main_frame_committed: false,
            main_frame_requested: false,
            last_layer_tree: None,
            pending_activation: None,
            pending_commit: None,
            last_begin_frame: None,
            last_needs_begin_frame: None,
            last_task_begin: None,
            // DevTools starts with no layer tree: `null`.
            layer_tree_id: ArgValue::Null,
            active: (None, None),
        }
    }

    /// Walks the events (in time order), the main thread being, at each
    /// event, the last of `threads` (in their order) to have started by
    /// then; gives the frames.
    pub(crate) fn run(
        mut self,
        events: &[(When, FrameEvent)],
        threads: &[MainThread],
        main_frame: Sym,
        empty: Sym,
    ) -> Frames {
        // As DevTools: a first thread whose id is 0 or "" matches no event.
        let falsy = |id: Id| id.as_f64() == Some(0.0) || id.as_sym() == Some(empty);
        let mut j = 0;
        if let Some(first) = threads.first() {
            self.active = (
                Some(first.pid).filter(|p| !falsy(*p)),
                Some(first.tid).filter(|t| !falsy(*t)),
            );
        }
        for (when, event) in events {
            while j + 1 < threads.len() && threads[j + 1].start.0 <= when.ts.0 {
                j += 1;
                self.active = (Some(threads[j].pid), Some(threads[j].tid));
            }
            self.add_event(when, event, main_frame);
        }
        self.frames
    }

    fn add_event(&mut self, when: &When, event: &FrameEvent, main_frame: Sym) {
        match *event {
            FrameEvent::SetLayerTreeId { frame, layer_tree } if frame == ArgValue::Str(main_frame) => {
                self.layer_tree_id = layer_tree;
                return;
            }
            FrameEvent::LayerTreeSnapshot { id } if ArgValue::Num(id) == self.layer_tree_id => {
                self.frames.layer_trees.push(LayerTreeSnapshot {
                    entry: when.index,
                    paints: Vec::new(),
                });
                self.last_layer_tree = Some(self.frames.layer_trees.len() - 1);
                return;
            }
            _ => {}
        }
        self.compositor_event(when, event);
        if self.active == (Some(when.pid), Some(when.tid)) {
            self.main_thread_event(when, event);
        }
    }

    fn compositor_event(&mut self, when: &When, event: &FrameEvent) {
        let Some(layer_tree) = event.layer_tree() else {
            return;
        };
        if layer_tree != self.layer_tree_id {
            return;
        }
        let ts = when.ts;
        match *event {
            FrameEvent::BeginFrame { seq, .. } => {
                if self.last_frame.is_none() {
                    self.start_frame(ts, seq);
                }
                self.last_begin_frame = Some(ts.0);
                let info = BeginFrameInfo {
                    start: ts,
                    dropped: false,
                    partial: false,
                };
                self.queue.add_if_new(seq, info);
            }
            FrameEvent::DrawFrame { seq, .. } => self.draw_frame(ts, seq),
            FrameEvent::ActivateLayerTree { .. } => {
                let waiting = truthy(self.last_needs_begin_frame).is_some();
                if self.last_frame.is_some() && self.pending_activation.is_some() && !waiting {
                    self.commit_pending_frame();
                }
            }
            FrameEvent::RequestMainThreadFrame { .. } if self.last_frame.is_some() => {
                self.main_frame_requested = true;
            }
            FrameEvent::NeedsBeginFrameChanged { needs: true, .. } => self.last_needs_begin_frame = Some(ts.0),
            FrameEvent::DroppedFrame { seq, partial, .. } => {
                if self.last_frame.is_none() {
                    self.start_frame(ts, seq);
                }
                let info = BeginFrameInfo {
                    start: ts,
                    dropped: true,
                    partial,
                };
                self.queue.add_if_new(seq, info);
                if let Some(queued) = self.queue.by_seq.get_mut(&seq) {
                    queued.dropped = true;
                    queued.partial = partial;
                }
            }
            _ => {}
        }
    }

    fn draw_frame(&mut self, ts: Micros, seq: ArgValue) {
        let Some(last) = &mut self.last_frame else {
            self.start_frame(ts, seq);
            return;
        };
        // A frame that waited for the main thread is drawn once committed.
        if self.main_frame_committed || !self.main_frame_requested {
            if truthy(self.last_needs_begin_frame).is_some() {
                let idle_end = match &self.pending_activation {
                    Some(pending) => pending.trigger_time,
                    None => truthy(self.last_begin_frame)
                        .or(self.last_needs_begin_frame)
                        .unwrap_or(0.0),
                };
                if idle_end > last.start.0 {
                    last.idle = true;
                    self.last_begin_frame = None;
                }
                self.last_needs_begin_frame = None;
            }
            for shown in self.queue.take_drawn(seq) {
                let last_was_idle = self.last_frame.as_ref().is_some_and(|f| f.idle);
                self.start_frame(shown.start, seq);
                if last_was_idle && self.pending_activation.is_some() {
                    self.commit_pending_frame();
                }
                if let Some(frame) = &mut self.last_frame {
                    frame.dropped |= shown.dropped;
                    frame.partial |= shown.partial;
                }
            }
        }
        self.main_frame_committed = false;
    }

    fn main_thread_event(&mut self, when: &When, event: &FrameEvent) {
        let ts = when.ts.0;
        if matches!(event, FrameEvent::TopLevelTask) {
            self.last_task_begin = Some(ts);
        }
        if self.pending_commit.is_none() && event.is_main_frame_marker() {
            self.pending_commit = Some(PendingFrame {
                trigger_time: truthy(self.last_task_begin).unwrap_or(ts),
                ..PendingFrame::default()
            });
        }
        let Some(pending) = &mut self.pending_commit else {
            return;
        };
        match *event {
            FrameEvent::BeginMainThreadFrame {
                frame_id,
                frame_id_truthy: true,
                ..
            } => pending.main_frame_id = frame_id,
            FrameEvent::Paint => {
                if let Some(snapshot) = self.layer_tree_data.snapshot_of(when.index) {
                    pending.paints.push(LayerPaint {
                        paint: when.index,
                        snapshot,
                    });
                }
            }
            FrameEvent::Commit { layer_tree } | FrameEvent::CompositeLayers { layer_tree }
                if layer_tree == self.layer_tree_id =>
            {
                self.pending_activation = self.pending_commit.take();
                self.main_frame_requested = false;
                self.main_frame_committed = true;
            }
            _ => {}
        }
    }

    fn start_frame(&mut self, start: Micros, seq: ArgValue) {
        if let Some(last) = self.last_frame.take() {
            self.flush_frame(last, start);
        }
        self.last_frame = Some(Frame::new(seq, start, start - self.trace_start));
    }

    fn flush_frame(&mut self, mut frame: Frame, end: Micros) {
        frame.layer_tree = self.last_layer_tree;
        frame.end = end;
        frame.duration = end - frame.start;
        if let Some(tree) = self.last_layer_tree {
            // The layer tree's paints are those of the last frame drawn
            // with it.
            self.frames.layer_trees[tree].paints = frame.paints.clone();
        }
        let index = self.frames.frames.len();
        if let ArgValue::Num(id) = frame.main_frame_id {
            self.frames.by_main_frame_id.insert(Id::num(id), index);
        }
        self.frames.frames.push(frame);
    }

    fn commit_pending_frame(&mut self) {
        let Some(last) = &mut self.last_frame else {
            return;
        };
        let Some(pending) = self.pending_activation.take() else {
            return;
        };
        last.paints = pending.paints;
        last.main_frame_id = pending.main_frame_id;
    }
}
