//! The page's timeline handlers in tracekit: its layout shifts and their
//! clusters ([`layout_shifts`], DevTools' `LayoutShiftsHandler`), its user
//! interactions ([`interactions`], `UserInteractionsHandler`), its
//! animations ([`animations`], `AnimationHandler`) and animation frames
//! ([`animation_frames`], `AnimationFramesHandler`), the problems the
//! timeline flags ([`warnings`], `WarningsHandler`: long tasks and
//! interactions, forced reflows, idle callbacks over time), and the few
//! events of other handlers they read meanwhile ([`stand_in`]).

pub mod animation_frames;
pub mod animations;
pub mod interactions;
pub mod layout_shifts;
mod layout_shifts_dump;
pub mod stand_in;
mod util;
pub mod warnings;

pub use animation_frames::{AnimationFrame, AnimationFrames, AnimationFramesHandler};
pub use animations::{Animation, Animations, AnimationsHandler, CompositeFailure};
pub use interactions::{FrameEvent, Interaction, UserInteractions, UserInteractionsHandler};
pub use layout_shifts::{
    CauseEvents, ClusterNavigation, DomLoading, EventSpan, ImageEvent, LayoutShift, LayoutShiftCluster, LayoutShifts,
    LayoutShiftsHandler, RawKey, RemoteFont, ScoreRecord, ScoreWindows, TraceWindow,
};
pub use warnings::{Flagged, Warning, Warnings, WarningsHandler};

type Map<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;

#[cfg(test)]
mod tests;
