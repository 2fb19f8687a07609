//! The top-level `samples` and `stackFrames` of a JSON trace (the "Global
//! Samples" and "StackFrames Dictionary" of the Trace Event Format, written
//! by Hermes and React Native, by Linux `perf` converters and by older
//! Chrome) turned into one CPU profile per thread, so that their stacks
//! become JS calls exactly as a V8 profile's samples do.
//!
//! The input, as writers spell it:
//!
//! ```json
//! "samples": [{"cpu": "-1", "name": "", "ts": "11552125241", "pid": 7512,
//!              "tid": "7695", "weight": "1", "sf": 2}, ...],
//! "stackFrames": {"1": {"name": "[root]", "category": "root"},
//!                 "2": {"name": "fn(http://host/index.bundle:17:3)",
//!                       "category": "JavaScript", "parent": 1,
//!                       "line": "17", "column": "3",
//!                       "funcLine": "16", "funcColumn": "1"}}
//! ```
//!
//! `stackFrames` is a tree of frames, each naming its caller in `parent`; a
//! sample's `sf` names its leaf frame. Ids are JavaScript property keys:
//! `sf: 2`, `sf: 2.0` and `sf: "2"` all name the frame `"2"`.
//!
//! The rules:
//!
//! - **Threads.** Samples are grouped by `tid`, kept as written (a number
//!   or a string, as the event reader keeps tids: `1` and `"1"` are two
//!   threads) and by `pid` when the samples give one. A sample without a
//!   `pid` takes the pid of the other samples of its tid if they all name
//!   the same one; otherwise it stays without (`pid: None`) and the caller
//!   attributes the profile, as the trace events of the same tid say.
//!   Profiles come in the order of their thread's first sample.
//! - **Nodes.** Each profile has a `(root)` node (id 1) and one node for
//!   each stack frame its samples reach (a frame's node is the child of its
//!   parent frame's node). A frame without a parent whose `category` is
//!   `"root"` (Hermes' `[root]`, one per thread) *is* the root, as it is
//!   in Hermes' own `Profiler.Profile` output; any other frame without a
//!   parent is a child of the root. Frames are not merged: two frames with
//!   the same name under one parent stay two nodes.
//! - **Call frames.** `functionName` is the frame's `name` as written
//!   (Hermes writes `fn(url:line:column)` there, and writes the same name
//!   in its `Profiler.Profile` output). `url` is the frame's `url` if it is
//!   a string, else the `url` of such a trailing `(url:line:column)`, else
//!   "". Line and column, 1-based in the input (Hermes' debug info is
//!   1-based), become 0-based: from `funcLine`/`funcColumn` (where the
//!   function starts, which is what a V8 call frame gives), else from
//!   `line`/`column` (where the sample was taken), else from the name's
//!   suffix; -1 where there is none. Numbers may be written as strings.
//!   `scriptId` is "0" (the input has none). `category` only marks roots;
//!   Hermes' `[GC Young Gen]` and other `Metadata` frames stay ordinary
//!   frames, as they do in Hermes' `Profiler.Profile` output.
//! - **Samples.** A sample without `sf` (or with `sf: null`) has no stack:
//!   it goes to a `(program)` child of the root, which the tracks leave
//!   out, like an empty stack in speedscope. `ts` is microseconds, a number
//!   or a string holding one; each thread's samples are sorted stably by
//!   `ts`, the profile starts at the first and ends at the last, and the
//!   time deltas are the differences (the first is 0). `weight`, `cpu` and
//!   `name` are read over: a sample lasts until the next one whatever its
//!   weight (Hermes always writes 1; the format means it for aggregation).
//! - **Bad input** is skipped and counted in [`Diagnostics`], never a
//!   panic: a sample that is not an object, or has no usable `tid` or
//!   `ts`; a sample whose `sf` names no frame; a sample whose frame chain
//!   is broken (a parent that names no frame, parents that form a cycle, a
//!   frame that is not an object) — each broken chain is also counted once
//!   under its cause. Parent chains are walked with loops, never recursion,
//!   so any depth is fine; each frame is checked once. Only `samples` not
//!   being an array, `stackFrames` being neither an object nor an array (an
//!   array's frames are keyed by index, as JavaScript would) or having
//!   2^32 frames or more (they are indexed by `u32`), or text that is not
//!   JSON make the whole conversion fail.

mod build;
mod decode;
mod frames;

use serde::de;
use tracekit_events::{Diagnostics, Id, Interner};

use crate::raw::RawProfile;
use build::build;
use decode::{decode, FramesJson, Object, SampleJson};

pub use decode::MapKey;

/// The samples of one thread, as a CPU profile.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSamplesProfile {
    /// The thread, as the samples' `tid` spells it.
    pub tid: Id,
    /// The pid the samples give, if they do (see the module doc).
    pub pid: Option<Id>,
    /// Times in microseconds, on the clock of the trace events.
    pub raw: RawProfile,
}

/// Builds one CPU profile per thread from the JSON text of a trace's
/// top-level `samples` array and `stackFrames` object (pass `{}` when the
/// trace has none: every sample with an `sf` is then skipped).
pub fn profiles_from_trace_samples(
    samples_json: &str,
    stack_frames_json: &str,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Result<Vec<TraceSamplesProfile>, serde_json::Error> {
    let frames: FramesJson = decode(stack_frames_json)?;
    if u32::try_from(frames.0.len()).is_err() {
        return Err(de::Error::custom("more than 4294967295 stack frames"));
    }
    let samples: Vec<Object<SampleJson>> = decode(samples_json)?;
    Ok(build(frames, samples, interner, diag))
}

#[cfg(test)]
mod tests;
