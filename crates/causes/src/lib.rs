//! The handlers of why things happened: the flows that tie an event to the
//! events it caused ([`flows`], DevTools' `FlowsHandler`). They run only
//! with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).

pub mod flows;

pub use flows::{Flows, FlowsHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
