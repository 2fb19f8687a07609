//! The trace event model of tracekit and its tokenizer: from the text of a
//! trace to typed events that borrow from it, and the shape of the
//! handlers that consume them.
//!
//! - [`Tokenizer`] takes text in pieces and hands events to an
//!   [`EventSink`] a chunk at a time (scanned in parallel where
//!   [`Parallelism::Rayon`] allows), keeping only what one event needs.
//! - [`Event`] is one event: the fields the handlers read are decoded,
//!   `args` stays raw JSON text for the few handlers that need it. Names,
//!   categories and string ids are interned ([`Interner`], [`Sym`]).
//! - [`Handler`] is the one shape of every handler; [`Context`] is what
//!   they share.
//! - [`Diagnostics`] counts everything skipped, by [`Skip`] reason, so that
//!   one bad event is skipped and counted rather than failing the load.
//!
//! No I/O happens here but reading from a caller's reader
//! ([`Tokenizer::read_from`]); threads are started only with
//! [`Parallelism::Rayon`].

// `known_names!` recurses once per name.
#![recursion_limit = "256"]

pub mod bits;
mod chunks;
mod diag;
pub mod dump;
mod error;
mod event;
mod handler;
pub mod jsnum;
pub mod json;
pub mod memory;
mod pipeline;
pub mod prepared;
pub mod scan;
mod sym;
mod tokenizer;
mod trace_id;
mod units;

pub use diag::{Diagnostics, Divergence, Skip, SkipRecord};
pub use error::{ErrorKind, LoadError};
pub use event::{Event, Id, Phase};
pub use handler::{
    feed, join_here, map_biggest_first, AnalyzeOptions, ArgsKey, Context, DevTools, EventIndex, Handler, Parallelism,
    WantedBy, Wants, DEFAULT_MAX_NODES,
};
pub use sym::{names, Interner, Strings, Sym};
pub use tokenizer::{EventSink, Tokenized, Tokenizer, TopLevel, BLOCK};
pub use trace_id::SampleTraceId;
pub use units::{Micros, Millis, Seconds};
