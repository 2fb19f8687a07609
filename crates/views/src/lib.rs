//! The aggregated views of the Performance panel (issue 7): the Call Tree
//! (top-down) and the Bottom-Up of a thread, with no grouping or grouped as
//! the panel's "Group by" setting does it ([`GroupBy`]), as DevTools'
//! `TopDownRootNode` / `BottomUpRootNode` (`models/trace/extras/TraceTree`)
//! build them for the panel's tree views. The behaviour reproduced is
//! described in `docs/views.md`.
//!
//! DevTools builds both trees lazily and re-walks the whole thread for
//! every node it expands. Here one walk over the thread builds both:
//!
//! - the events of the thread are the track's nodes kept by the panel's
//!   "visible in the timeline" test, stably sorted by start;
//! - the walk is DevTools' `forEachEvent` (start index at the last
//!   top-level task, window, stack of started events, filters);
//! - the Call Tree is a trie of node-id paths: each started event adds its
//!   clipped duration to the trie node of its path of kept ancestors;
//! - the Bottom-Up's first level sums self times per id, and totals over
//!   outermost occurrences; each deeper node is a chain of ids (function,
//!   caller, caller's caller...), and each event, when it ends, adds to
//!   every chain of its ancestors, with one end marker per parent node
//!   updated in end order, which is the order DevTools sees them in
//!   (the Bottom-Up's builder, with the chains of callers it keeps per
//!   Call Tree node, is the `bottom_up` module);
//! - with grouping, every event also has a group (see [`GroupBy`]): the Call
//!   Tree's ids carry it (`ID/GROUP`), and after the walk the top-level
//!   nodes of both views go under one group node per group.
//!
//! The Summary (time per category over a window) is [`summary`]; the
//! events it walks are the same as the views', chosen by the same code.
//!
//! Types: [`Window`] is the selected range in ms; [`Tree`] is one view
//! (nodes with an id index, self and total ms, children); [`ThreadViews`]
//! is both views of one thread with the tables of node and group ids;
//! [`calltree_conformance`] writes the dump of `xtask/js/calltree.mjs`;
//! [`write_text`] writes a readable indented tree.

mod bottom_up;
mod conformance;
mod error;
mod events;
mod grouping;
mod ids;
mod js;
mod json;
mod options;
mod samples;
pub mod summary;
mod text;
mod thread_views;
mod tree;
mod url;
mod walk;
mod window;

pub use conformance::calltree_conformance;
pub use error::ViewError;
pub use grouping::{domain_group, GroupBy, GroupingError};
pub use json::calltree_json;
pub use options::{TextRows, ViewOptions};
pub use samples::SampleCounts;
pub use text::write_text;
pub use thread_views::{ThreadViews, View};
/// DevTools' Styles table, in the core crate (the flame chart uses it too).
pub use tracekit_engine::styles;
pub use tree::{Tree, TreeNode};
pub use walk::{thread_bottom_up_and_summary, thread_views, thread_views_to_depth};
pub use window::Window;

#[cfg(test)]
mod tests;
