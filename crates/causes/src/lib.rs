//! The handlers of why things happened: the flows that tie an event to the
//! events it caused ([`flows`], DevTools' `FlowsHandler`), and the DOM
//! changes that made a style recalculation or a layout necessary
//! ([`invalidations`], `InvalidationsHandler`); the selectors that cost
//! style recalculations or invalidated nodes ([`selector_stats`],
//! `SelectorStatsHandler`); which JS call scheduled which async task
//! ([`async_calls`], `AsyncJSCallsHandler`); and the event that initiated
//! each event ([`initiators`], `InitiatorsHandler`). They run only with
//! [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).

pub mod async_calls;
pub mod flows;
pub mod initiators;
pub mod invalidations;
pub mod selector_stats;

pub use async_calls::{AsyncJsCalls, AsyncJsCallsHandler, AsyncScheduler};
pub use flows::{Flows, FlowsHandler};
pub use initiators::{EntryRef, Initiators, InitiatorsHandler};
pub use invalidations::{Invalidations, InvalidationsHandler};
pub use selector_stats::{RecalcStyleStats, SelectorStats, SelectorStatsHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
