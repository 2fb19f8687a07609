//! The handlers of the page in tracekit: its network requests
//! ([`network`], DevTools' `NetworkRequestsHandler`, with the third-party
//! entities of [`entities`]), its painted images ([`images`], DevTools'
//! `ImagePaintingHandler`), its scripts ([`scripts`], DevTools'
//! `ScriptsHandler`), the main thread's events Lantern reads
//! ([`main_thread`]), the readers of the events' args they share with the
//! Renderer handler ([`args`]), and the args' values copied as they are
//! ([`value`]).

pub mod args;
pub mod entities;
pub mod extensions;
pub mod images;
mod js_sort;
pub mod lcp;
pub mod legacy_javascript;
pub mod main_thread;
pub mod metrics;
pub mod navigations;
pub mod network;
pub mod screenshots;
pub mod scripts;
pub mod user_timings;
pub mod value;

pub use entities::{CallSample, Entity, EntityEvent, EntityMappings, ThreadNumber, TrackEntries, TrackEntry};
pub use extensions::{ExtensionTraceData, ExtensionTraceDataHandler};
pub use images::{DisplaySize, ImagePainting, ImagePaintingHandler, PaintImage};
pub use lcp::{LargestImagePaint, LargestImagePaintHandler, LargestTextPaint, LargestTextPaintHandler};
pub use main_thread::{MainThreadEvents, MainThreadEventsHandler};
pub use metrics::{PageLoadMetrics, PageLoadMetricsHandler};
pub use network::{NetworkRequest, NetworkRequests, NetworkRequestsHandler};
pub use screenshots::{Screenshots, ScreenshotsHandler};
pub use scripts::{Script, ScriptMap, ScriptSource, Scripts, ScriptsHandler, Sizes};
pub use user_timings::{UserTimings, UserTimingsHandler};
pub use value::JsValue;

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
