//! tracekit's engine: it loads a Chrome trace, a V8 CPU profile or a JS
//! Self-Profiling trace from bytes, hands every event of a trace to the
//! registered handlers (Meta, Samples, Renderer, ...) in one pass,
//! finalizes them in dependency order, and keeps what they made as an
//! [`Analysis`]: one call tree per thread (the sync tracks), and every
//! handler's data.
//!
//! Users depend on the facade, the `tracekit` crate, which re-exports
//! this crate's API beside the views and the exports; the crates above
//! this one (views, exports) read an [`Analysis`] through its accessors
//! and the handles it lends ([`Process`], [`Thread`], [`Node`]), and
//! select what they read with a [`query::Query`].
//!
//! This crate does no I/O (but read from a reader handed to
//! [`Loader::read_from`]) and starts no thread, except through
//! [`Parallelism::Rayon`], which runs per-thread work on rayon's pool. It
//! compiles to WebAssembly.

pub mod data;
mod diagnostics;
mod engine;
mod input;
mod labels;
mod loader;
mod model;
pub mod query;
mod registry;
#[cfg(feature = "serde")]
mod serde_impls;
mod source_maps;
pub use source_maps::SourceMapRequest;
pub mod styles;

pub use engine::{Analysis, ProcessMap};
pub use loader::{analyze_bytes, InputKind, Loader};
pub use model::{Children, Diagnostics, Function, Node, Process, Thread, ANONYMOUS};
pub use registry::{HandlerData, Registered};
pub use tracekit_causes::{AsyncJsCalls, AsyncJsCallsHandler, Initiators, InitiatorsHandler};
pub use tracekit_causes::{Flows, FlowsHandler, Invalidations, InvalidationsHandler};
pub use tracekit_causes::{SelectorStats, SelectorStatsHandler};
pub use tracekit_cpuprofile::{CallFrame, IdLocation};
pub use tracekit_events::memory;
pub use tracekit_events::{
    AnalyzeOptions, DevTools, Divergence, ErrorKind, Id, LoadError, Micros, Millis, Parallelism, Phase, Seconds, Skip,
    SkipRecord, Strings, Sym, DEFAULT_MAX_NODES,
};
pub use tracekit_frames::{
    ArgValue, Frame, Frames, FramesHandler, LayerPaint, LayerTree, LayerTreeHandler, LayerTreeSnapshot,
};
pub use tracekit_meta::{
    AuctionWorklets, AuctionWorkletsHandler, Bounds, FrameInfo, MetaData, MetaHandler, Navigation, Navigations,
    PageFrames, PageFramesHandler, ProcessWindow, SoftNavigation, ViewportRect, Workers, WorkersHandler,
};
pub use tracekit_page::{ExtensionTraceData, ExtensionTraceDataHandler};
pub use tracekit_page::{ImagePainting, ImagePaintingHandler, NetworkRequests, NetworkRequestsHandler};
pub use tracekit_page::{MainThreadEvents, MainThreadEventsHandler};
pub use tracekit_renderer::{CpuSample, JsFrame, NodeKind, ProcessTracks, RendererHandler, ThreadTrack, TrackNode};
pub use tracekit_renderer::{DomUpdate, DomUpdateKind};
pub use tracekit_samples::SamplesHandler;
/// Source maps on their own: one map parsed and asked, frames resolved.
pub use tracekit_sourcemaps as sourcemaps;
pub use tracekit_sourcemaps::{SourceMapReport, SourceMaps};
pub use tracekit_timeline::{
    AnimationFrames, AnimationFramesHandler, Animations, AnimationsHandler, Interaction, LayoutShift,
    LayoutShiftCluster, LayoutShifts, LayoutShiftsHandler, UserInteractions, UserInteractionsHandler,
};
pub use tracekit_timeline::{Warning, Warnings, WarningsHandler};

/// The handler crates, whole: every handler's data type and the types it
/// is made of (a request's timings, a layout shift's cluster, ...), by
/// domain. The most used are also at the root.
pub mod handlers {
    pub use tracekit_causes as causes;
    pub use tracekit_frames as frames;
    pub use tracekit_meta as meta;
    pub use tracekit_page as page;
    pub use tracekit_system as system;
    pub use tracekit_timeline as timeline;
}

/// What the crates built on the engine (views, exports, the bindings)
/// share with it to read and write what the handlers kept: numbers and
/// strings as JavaScript writes them, the names of the events the engine
/// knows, the args the aggregated views read, and per-thread work on the
/// pool.
pub mod support {
    pub use crate::labels::{is_recording_overhead, js_call_id, short_url};
    pub use crate::model::write_js_location;
    pub use tracekit_events::{
        bits, dump, jsnum, json, map_biggest_first, names, Diagnostics as RawDiagnostics, EventIndex,
    };
    pub use tracekit_renderer::{
        entity_mappings, event_details, event_group_args, event_view_args, GroupArgs, NumberedThreads, ViewArgs,
    };
}
