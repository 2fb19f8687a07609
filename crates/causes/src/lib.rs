//! The handlers of why things happened: the flows that tie an event to the
//! events it caused ([`flows`], DevTools' `FlowsHandler`), and the DOM
//! changes that made a style recalculation or a layout necessary
//! ([`invalidations`], `InvalidationsHandler`), and the selectors that
//! cost style recalculations or invalidated nodes ([`selector_stats`],
//! `SelectorStatsHandler`). They run only
//! with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).

pub mod flows;
pub mod invalidations;
pub mod selector_stats;

pub use flows::{Flows, FlowsHandler};
pub use invalidations::{Invalidations, InvalidationsHandler};
pub use selector_stats::{SelectorStats, SelectorStatsHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
