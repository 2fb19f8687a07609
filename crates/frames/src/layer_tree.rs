//! The LayerTree handler (DevTools' `LayerTreeHandler`): the `Paint`
//! events of the main frame's compositor layers, and which display list
//! snapshot recorded each (the picture a frame's paints show).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Phase, Skip, Sym, Wants};
use tracekit_meta::MetaData;

use crate::arg::ArgValue;
use crate::{sort_by_time, Map, When};

/// The LayerTree handler (see the module documentation).
#[derive(Debug, Default)]
pub struct LayerTreeHandler {
    events: Vec<(When, LayerEvent)>,
}

/// What the handler keeps of one of its events.
#[derive(Debug, Clone, Copy)]
enum LayerEvent {
    /// `SetLayerTreeId`: the frame (`args.data.frame`) whose layer tree is
    /// now `args.data.layerTreeId`.
    SetLayerTreeId { frame: ArgValue, layer_tree: ArgValue },
    /// `UpdateLayer`: the thread now updates layer `args.layerId` (as a
    /// property key) of layer tree `args.layerTreeId`.
    UpdateLayer { layer_tree: ArgValue, layer: Sym },
    /// `Paint`: the layer it painted (`args.data.layerId` as a property
    /// key), `None` when it names none (0 or absent).
    Paint { layer: Option<Sym> },
    /// A display list snapshot (`cc::DisplayItemList`).
    Snapshot,
}

/// The main frame's layer paints and their snapshots.
#[derive(Debug, Clone, Default)]
pub struct LayerTree {
    /// The `Paint` events of a compositor layer (a nonzero
    /// `args.data.layerId`), in time order.
    pub paints: Vec<EventIndex>,
    /// The display list snapshots of the main frame's layers that follow
    /// a paint of their layer, in time order.
    pub snapshots: Vec<EventIndex>,
    /// Each such paint's snapshot (the last one recorded after it), by the
    /// paint.
    pub paint_snapshots: Map<EventIndex, EventIndex>,
}

impl Handler for LayerTreeHandler {
    type Deps<'d> = &'d MetaData;
    type Data = LayerTree;

    const WANTS: Wants = Wants::Named(&[
        names::PAINT,
        names::DISPLAY_ITEM_LIST,
        names::DISPLAY_ITEM_LIST_SNAPSHOT,
        names::UPDATE_LAYER,
        names::SET_LAYER_TREE_ID,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let args = event.args;
        let interner = &mut cx.interner;
        let kind = match event.name {
            names::SET_LAYER_TREE_ID => {
                let data = args.and_then(|a| member(a, "data"));
                if data.is_none() {
                    cx.diagnostics.skip(Skip::FramesArgsWithoutData, || {
                        format!("SetLayerTreeId (event #{index}) without args.data")
                    });
                }
                LayerEvent::SetLayerTreeId {
                    frame: ArgValue::read(data.and_then(|d| member(d, "frame")), index, interner),
                    layer_tree: ArgValue::read(data.and_then(|d| member(d, "layerTreeId")), index, interner),
                }
            }
            names::UPDATE_LAYER => LayerEvent::UpdateLayer {
                layer_tree: ArgValue::read(args.and_then(|a| member(a, "layerTreeId")), index, interner),
                layer: ArgValue::read(args.and_then(|a| member(a, "layerId")), index, interner).property_key(interner),
            },
            names::PAINT => {
                let data = args.and_then(|a| member(a, "data"));
                if data.is_none() {
                    cx.diagnostics.skip(Skip::FramesArgsWithoutData, || {
                        format!("Paint (event #{index}) without args.data")
                    });
                }
                let layer = ArgValue::read(args.and_then(|a| member_path(a, &["data", "layerId"])), index, interner);
                LayerEvent::Paint {
                    layer: layer.is_truthy(interner).then(|| layer.property_key(interner)),
                }
            }
            names::DISPLAY_ITEM_LIST if event.ph == Phase(b'O') => LayerEvent::Snapshot,
            names::DISPLAY_ITEM_LIST_SNAPSHOT if event.ph == Phase::INSTANT => LayerEvent::Snapshot,
            _ => return,
        };
        self.events.push((When::of(index, event), kind));
    }

    fn finalize(mut self, meta: &MetaData, _cx: &mut Context) -> LayerTree {
        let mut data = LayerTree::default();
        if self.events.is_empty() {
            return data;
        }
        sort_by_time(&mut self.events, |(when, _)| when);
        let main_frame = ArgValue::Str(meta.main_frame_id.unwrap_or(names::EMPTY));
        // DevTools starts with no layer tree: `null`.
        let mut main_layer_tree = ArgValue::Null;
        let mut last_paint: Map<Sym, EventIndex> = Map::default();
        let mut last_update: Map<(Id, Id), (ArgValue, Sym)> = Map::default();
        for (when, event) in &self.events {
            match *event {
                LayerEvent::SetLayerTreeId { frame, layer_tree } => {
                    if frame == main_frame {
                        main_layer_tree = layer_tree;
                    }
                }
                LayerEvent::UpdateLayer { layer_tree, layer } => {
                    last_update.insert((when.pid, when.tid), (layer_tree, layer));
                }
                LayerEvent::Paint { layer: Some(layer) } => {
                    data.paints.push(when.index);
                    last_paint.insert(layer, when.index);
                }
                LayerEvent::Paint { layer: None } => {}
                LayerEvent::Snapshot => {
                    let Some(&(layer_tree, layer)) = last_update.get(&(when.pid, when.tid)) else {
                        continue;
                    };
                    if layer_tree != main_layer_tree {
                        continue;
                    }
                    let Some(&paint) = last_paint.get(&layer) else {
                        continue;
                    };
                    data.snapshots.push(when.index);
                    data.paint_snapshots.insert(paint, when.index);
                }
            }
        }
        data
    }
}

impl LayerTree {
    /// The snapshot recorded for paint `paint`, if any.
    pub fn snapshot_of(&self, paint: EventIndex) -> Option<EventIndex> {
        self.paint_snapshots.get(&paint).copied()
    }

    /// This data in the data conformance dump. DevTools keeps the paints'
    /// snapshots in a `WeakMap`, which its dump writes `{}` (and
    /// `--format json` in full: [`Value::Weak`]).
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let snapshots = self
            .paint_snapshots
            .iter()
            .map(|(&paint, &snapshot)| (Value::Event(paint), Value::Event(snapshot)))
            .collect();
        Object::new()
            .with("paints", Value::events(self.paints.iter().copied()))
            .with("paintsToSnapshots", Value::Weak(Box::new(Value::Map(snapshots))))
            .with("snapshots", Value::events(self.snapshots.iter().copied()))
            .into()
    }
}
