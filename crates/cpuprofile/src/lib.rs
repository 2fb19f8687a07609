//! The V8 CPU profile model of tracekit: a profile's node tree, its samples
//! sorted by time and their timestamps, as the DevTools
//! `CPUProfileDataModel` builds them, plus the readers of the input forms
//! (the protocol's `Profiler.Profile`, its legacy `head` form, and the JS
//! Self-Profiling API's traces). Pure data: no I/O, and no threads but
//! with [`Parallelism::Rayon`](tracekit_events::Parallelism::Rayon)
//! ([`CpuProfileModel::with_parallelism`]).

pub mod callframe;
pub mod frames;
pub mod model;
pub mod raw;
pub mod self_profiling;
pub mod trace_ids;
pub mod trace_samples;

pub use callframe::{CallFrame, IdLocation};
pub use frames::FrameEvent;
pub use model::{CpuProfileModel, ModelError, NodeIx, ProfileNode};
pub use raw::{parse_profile_json, IntId, RawNode, RawProfile, Text};
pub use trace_ids::{TraceIdKey, TraceIds};
pub use trace_samples::{profiles_from_trace_samples, MapKey, TraceSamplesProfile};
