//! The handlers of the page in tracekit: its network requests
//! ([`network`], DevTools' `NetworkRequestsHandler`) and its painted images
//! ([`images`], DevTools' `ImagePaintingHandler`), so far as far as the
//! aggregated views' grouping by URL reads them, and the readers of the
//! events' args they share with the Renderer handler ([`args`]).

pub mod args;
pub mod images;
mod js_sort;
pub mod lcp;
pub mod metrics;
pub mod navigations;
pub mod network;
pub mod screenshots;
pub mod user_timings;

pub use images::{ImagePainting, ImagePaintingHandler};
pub use lcp::{LargestImagePaint, LargestImagePaintHandler, LargestTextPaint, LargestTextPaintHandler};
pub use metrics::{PageLoadMetrics, PageLoadMetricsHandler};
pub use network::{NetworkRequests, NetworkRequestsHandler};
pub use screenshots::{Screenshots, ScreenshotsHandler};
pub use user_timings::{UserTimings, UserTimingsHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
