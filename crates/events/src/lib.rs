//! The trace event model of tracekit and its loader: from the text of a
//! trace to typed events that borrow from it.
//!
//! Events keep their `args` as raw JSON text; handlers decode the few they
//! need. Names and categories are interned
//! ([`Interner`], [`Sym`]). The loader splits the event array with a
//! non-recursive scanner ([`scan`]) so that a truncated or damaged file
//! keeps every complete event, and one bad event is skipped and counted
//! ([`Diagnostics`]) rather than failing the load. No I/O happens here.

pub mod diag;
pub mod event;
pub mod jsnum;
pub mod json;
pub mod load;
pub mod scan;
pub mod sym;
pub mod trace_id;

pub use diag::{Diagnostics, SkipRecord};
pub use event::{Event, Id, Phase};
pub use load::{
    array_end_warning, detect, metadata_after, parse_event_block, parse_events, scan_event_block, Document, EventBlock,
    LoadError, Parallelism, ParsedEvents, ScannedBlock, TraceDocument,
};
pub use sym::{names, Interner, Sym};
pub use trace_id::SampleTraceId;
