//! The handlers of what the browser reports about itself: its memory
//! counters per process ([`memory`], DevTools' `MemoryHandler`), the DOM
//! statistics per frame ([`dom_stats`], `DOMStatsHandler`) and the tasks of
//! the GPU process' main thread ([`gpu`], `GPUHandler`). Each keeps the
//! events themselves (their indices), grouped as DevTools groups them;
//! they run only with
//! [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).

pub mod dom_stats;
pub mod gpu;
pub mod memory;

pub use dom_stats::{DomStats, DomStatsEvent, DomStatsHandler};
pub use gpu::{Gpu, GpuHandler, GpuTaskTime};
pub use memory::{Counters, Memory, MemoryHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;

#[cfg(test)]
mod tests;
