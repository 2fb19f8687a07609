//! The samples integrator: turns a thread's CPU samples into JS calls with
//! durations, using the thread's trace events to bound them. It walks
//! samples and trace events together in time order, keeping the JS stack
//! as it must have been:
//! - a sample's stack is merged with the current one: shared bottom frames
//!   are extended, the others closed, new ones opened;
//! - a top-level task (`RunTask`, `RunMicrotasks`) **truncates** the stack:
//!   no JS call can span two tasks;
//! - while a trace event lasts, the stack is **locked** at the depth it had
//!   when the event began: calls below it cannot end inside the event;
//! - samples outside any JS invocation event still show (the recording may
//!   have started mid-invocation), by pretending such an event began: the
//!   **fake JS invocation**;
//! - a garbage collection sample has no stack: it stands on the previous
//!   sample's stack;
//! - a trace event carrying a sample trace id takes its stack from the
//!   sample with that id; since DevTools 2026-10, one that is not inside a
//!   JS invocation event also begins a fake JS invocation, so that the
//!   samples after it can change the stack it set (before, they were
//!   ignored while that stack stood);
//! - `(root)`, `(program)`, `(idle)` and `(garbage collector)` frames are
//!   never shown, nor (unless asked) native `V8Runtime` frames.
//!
//! The behaviour, including its known flaws, is DevTools' (its
//! `SamplesIntegrator`), so that the tracks match.

use tracekit_cpuprofile::{CpuProfileModel, NodeIx};
use tracekit_events::{names, DevTools, Interner, Micros, Millis, Phase, SampleTraceId, Sym};

use crate::timeline::{merge, Span};

/// A trace event as the integrator sees it.
pub trait TraceEntry {
    /// When it starts and how long it lasts (microseconds).
    fn span(&self) -> Span;
    /// Its name: top-level tasks and JS invocations are told by name.
    fn name(&self) -> Sym;
    /// Its phase (instants bound no call unless they carry a sample trace
    /// id).
    fn ph(&self) -> Phase;
    /// The sample trace id in the event's args (`None` when absent or
    /// falsy).
    fn sample_trace_id(&self) -> Option<SampleTraceId>;
}

/// The integrator would build more calls than it was allowed (or was
/// given more trace events or samples than its `u32` indexes address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyCalls;

/// A JS call built from samples. Times in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileCall {
    /// The function's profile node.
    pub node: NodeIx,
    /// When the call started.
    pub ts: Micros,
    /// How long it lasted.
    pub dur: Micros,
    /// The index, among the profile's samples, of the sample whose stack
    /// opened it ([`FROM_TRACE_ID`] when a trace event's sample trace id
    /// gave the stack).
    pub sample: u32,
}

/// The [`ProfileCall::sample`] of a call whose stack came from a trace
/// event's sample trace id.
pub const FROM_TRACE_ID: u32 = u32::MAX;

/// One item of the integrator's walk: a trace event or a sample.
#[derive(Copy, Clone, Debug)]
enum Step {
    Event(u32),
    /// A sample (its index among the profile's) and its node.
    Sample(u32, NodeIx),
}

/// The candidate stack of the last sample or trace id: its frames, bottom
/// first, and the function of each. Consecutive samples of a hot loop
/// share their node, and then the stack is not walked again; consecutive
/// samples of a deep stack share most of their frames, and then only the
/// nodes below the frames they share are walked.
#[derive(Default)]
struct Candidate {
    /// The node and GC parent the frames were made from.
    key: Option<(NodeIx, Option<NodeIx>)>,
    frames: Vec<NodeIx>,
    functions: Vec<u32>,
    /// The frames are the node's whole chain of ancestors below the root,
    /// `frames[d]` at depth `d` (no GC node added, no native frame taken
    /// out): the next candidate may keep those it shares.
    is_chain: bool,
    /// Scratch for the nodes walked by [`SamplesIntegrator::load_shared`].
    walked: Vec<NodeIx>,
}

/// The time of a profile's sample `i`, in microseconds.
fn sample_ts(model: &CpuProfileModel, i: u32) -> f64 {
    let ts = model.timestamps.get(i as usize).copied().unwrap_or(f64::NAN);
    Millis(ts).to_micros().0
}

struct SampleCall {
    node: NodeIx,
    /// Its index among the profile's samples.
    index: u32,
    ts: f64,
    /// For a garbage collection sample: the node of the sample before it.
    gc_parent: Option<NodeIx>,
}

/// The samples integrator of one thread (see the module documentation):
/// made from the thread's CPU profile, consumed by [`SamplesIntegrator::build`].
pub struct SamplesIntegrator<'m> {
    model: &'m CpuProfileModel,
    interner: &'m Interner,
    /// Whether native `V8Runtime` frames must be taken out of stacks (none
    /// shown, and the profile has some).
    filter_native_frames: bool,
    /// The candidate stack being merged.
    candidate: Candidate,
    /// For each profile node, a number that two nodes share exactly when
    /// DevTools takes them for the same function (script, name, line); a
    /// node whose line is NaN matches nothing, not even itself
    /// (`u32::MAX`).
    function_of: Vec<u32>,
    calls: Vec<ProfileCall>,
    /// The open calls, bottom first (indices into `calls`).
    js_stack: Vec<u32>,
    /// The function of each open call (`function_of` its node), so that a
    /// stack is compared with the candidate as two slices.
    js_stack_functions: Vec<u32>,
    /// Every truncation ends all the open calls at its time, as DevTools
    /// does, which is a write per open call. Instead the bottom
    /// `ended_below` calls of the stack (those open at the last
    /// truncation) end at `ended_at`, written when they leave the stack or
    /// when the walk ends; the calls above were opened since, and have no
    /// duration yet.
    ended_at: f64,
    ended_below: usize,
    locked_depths: Vec<usize>,
    fake_js_invocation: bool,
    /// Whether a traced event outside a JS invocation begins a fake one
    /// (DevTools 2026-10 on).
    traced_events_fake_invocation: bool,
    /// The most calls `build` may make.
    max_calls: usize,
    /// Off in tests, to compare with candidates always walked in full.
    #[cfg(test)]
    share_frames: bool,
}

/// JavaScript's `Math.max(x, 0)`: NaN stays NaN.
fn non_negative(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.max(0.0)
    }
}

fn is_js_invocation(name: Sym, interner: &Interner) -> bool {
    matches!(
        name,
        names::RUN_MICROTASKS
            | names::FUNCTION_CALL
            | names::EVALUATE_SCRIPT
            | names::EVALUATE_MODULE
            | names::EVENT_DISPATCH
            | names::V8_EXECUTE
            | names::V8_CONSOLE_RUN_TASK
    ) || interner.starts_with_v8(name)
}

impl<'m> SamplesIntegrator<'m> {
    /// An integrator for the samples of `model`, as the DevTools engine
    /// `devtools` integrates them. Native `V8Runtime` frames are kept only
    /// with `show_native_frames` (DevTools' setting).
    pub fn new(
        model: &'m CpuProfileModel,
        interner: &'m Interner,
        show_native_frames: bool,
        devtools: DevTools,
    ) -> Self {
        let has_native_frames = model.nodes.iter().any(|n| n.call_frame.url == names::NATIVE_V8_RUNTIME);
        let mut functions: ahash::AHashMap<(Sym, Sym, Option<u64>), u32> = ahash::AHashMap::new();
        let function_of = model
            .nodes
            .iter()
            .map(|n| {
                let f = &n.call_frame;
                if f.line_number.is_some_and(f64::is_nan) {
                    return u32::MAX;
                }
                let key = (f.script_id, f.function_name, f.line_number.map(|l| (l + 0.0).to_bits()));
                // Fewer functions than nodes, which a `NodeIx` (u32) indexes:
                // `next` is also never the `u32::MAX` of NaN lines.
                #[allow(clippy::cast_possible_truncation)]
                let next = functions.len() as u32;
                *functions.entry(key).or_insert(next)
            })
            .collect();
        SamplesIntegrator {
            model,
            interner,
            filter_native_frames: !show_native_frames && has_native_frames,
            candidate: Candidate::default(),
            function_of,
            calls: Vec::new(),
            js_stack: Vec::new(),
            js_stack_functions: Vec::new(),
            ended_at: 0.0,
            ended_below: 0,
            locked_depths: Vec::new(),
            fake_js_invocation: false,
            traced_events_fake_invocation: devtools >= DevTools::V2026_10,
            max_calls: usize::MAX,
            #[cfg(test)]
            share_frames: true,
        }
    }

    /// Builds the JS calls of the thread whose trace events are `entries`
    /// (sorted). Returns them in the order they were opened.
    /// More than `max_calls` calls is an error ([`TooManyCalls`]): the
    /// walk stops there, before the memory they would take is taken. So
    /// are more than `u32::MAX` entries or samples (steps and calls are
    /// indexed by `u32`; `max_calls` counts as `u32::MAX` at most).
    pub fn build<E: TraceEntry>(mut self, entries: &[E], max_calls: usize) -> Result<Vec<ProfileCall>, TooManyCalls> {
        // Every call index is at most `max_calls` (see `extract_stack`).
        self.max_calls = max_calls.min(u32::MAX as usize);
        let model = self.model;
        let (Ok(entry_count), Ok(sample_count)) = (u32::try_from(entries.len()), u32::try_from(model.samples.len()))
        else {
            return Err(TooManyCalls);
        };
        // Room for the calls at once rather than by doubling, each doubling
        // leaving the last list's memory to the allocator while the tree is
        // built: threads with samples have had up to 1.3 calls a sample on
        // the corpus (up to 2.6 where trace events cut the calls); pages
        // reserved and never written take no memory.
        self.calls
            .reserve((sample_count as usize).saturating_mul(3) / 2 + entries.len() / 4 + 16);
        // The samples are made into steps as the walk reaches them, not
        // listed first: the list was as big as the thread's calls.
        let span = |s: Step| match s {
            Step::Event(i) => entries[i as usize].span(),
            Step::Sample(i, _) => Span {
                ts: sample_ts(model, i),
                dur: Some(0.0),
                is_profile_call: true,
            },
        };
        let samples = (0..sample_count).filter_map(|i| Some(Step::Sample(i, model.node_by_index(i as usize)?)));
        let mut steps = merge((0..entry_count).map(Step::Event), samples, span).peekable();
        // The node of the last sample that was not a garbage collection
        // after another sample: the stack a garbage collection stands on.
        let mut previous: Option<NodeIx> = None;
        let mut sample_call = |i: u32, node: NodeIx| {
            let is_gc = Some(node) == model.gc_node;
            let call = SampleCall {
                node,
                index: i,
                ts: sample_ts(model, i),
                gc_parent: if is_gc { previous } else { None },
            };
            if !(is_gc && previous.is_some()) {
                previous = Some(node);
            }
            call
        };

        let traced = self.traced_nodes(entries);
        let traced_node = |e: u32| traced.as_ref().and_then(|t| t[e as usize]);

        let mut open_events: Vec<u32> = Vec::new();
        while let Some(&step) = steps.peek() {
            if self.calls.len() > self.max_calls {
                return Err(TooManyCalls);
            }
            if let Step::Event(e) = step {
                let entry = &entries[e as usize];
                // Instants say nothing about durations, unless they point at
                // a sample.
                if entry.ph() == Phase::INSTANT && entry.sample_trace_id().is_none() {
                    steps.next();
                    continue;
                }
            }
            let Some(&parent) = open_events.last() else {
                match step {
                    Step::Sample(s, node) => self.on_sample(&sample_call(s, node), None::<&E>),
                    Step::Event(e) => {
                        open_events.push(e);
                        self.on_event_start(&entries[e as usize], None, traced_node(e));
                    }
                }
                steps.next();
                continue;
            };
            let parent_entry = &entries[parent as usize];
            let parent_span = parent_entry.span();
            if span(step).ts >= parent_span.ts + parent_span.dur.unwrap_or(0.0) {
                self.on_event_end(parent_entry);
                open_events.pop();
                continue;
            }
            match step {
                Step::Sample(s, node) => self.on_sample(&sample_call(s, node), Some(parent_entry)),
                Step::Event(e) => {
                    self.on_event_start(&entries[e as usize], Some(parent_entry), traced_node(e));
                    open_events.push(e);
                }
            }
            steps.next();
        }
        while let Some(e) = open_events.pop() {
            self.on_event_end(&entries[e as usize]);
        }
        if self.calls.len() > self.max_calls {
            return Err(TooManyCalls);
        }
        self.end_calls(0..self.ended_below, self.ended_at);
        Ok(self.calls)
    }

    /// The node each entry's sample trace id points at, looked up for all
    /// entries before the walk (`None` when the profile has no trace ids).
    /// The lookups miss the cache (two maps of a key per traced event,
    /// 180k events on the bench trace); in a loop of their own they do not
    /// wait for each other, as they did one per event inside the walk
    /// (a third of `extract_stack`'s time was the wait).
    fn traced_nodes<E: TraceEntry>(&self, entries: &[E]) -> Option<Vec<Option<NodeIx>>> {
        self.model.trace_ids.as_ref()?;
        Some(
            entries
                .iter()
                .map(|e| e.sample_trace_id().and_then(|id| self.node_of_trace_id(id)))
                .collect(),
        )
    }

    /// `parent`: the innermost event open around the entry; `traced`: the
    /// node the entry's sample trace id points at.
    fn on_event_start<E: TraceEntry>(&mut self, entry: &E, parent: Option<&E>, traced: Option<NodeIx>) {
        let span = entry.span();
        let name = entry.name();
        if name == names::RUN_MICROTASKS || name == names::RUN_TASK {
            self.locked_depths.clear();
            self.truncate(0, span.ts);
            self.fake_js_invocation = false;
        }
        if self.fake_js_invocation {
            let depth = self.locked_depths.pop().unwrap_or(0);
            self.truncate(depth, span.ts);
            self.fake_js_invocation = false;
        }
        self.extract_stack(None, traced, span.ts);
        if self.traced_events_fake_invocation
            && entry.sample_trace_id().is_some()
            && !parent.is_some_and(|p| is_js_invocation(p.name(), self.interner))
        {
            self.fake_js_invocation = true;
        }
        self.locked_depths.push(self.js_stack.len());
    }

    fn on_sample<E: TraceEntry>(&mut self, sample: &SampleCall, parent: Option<&E>) {
        let in_invocation = parent.is_some_and(|p| is_js_invocation(p.name(), self.interner));
        if in_invocation || self.fake_js_invocation {
            self.extract_stack(Some(sample), None, sample.ts);
        } else if self.js_stack.is_empty() {
            self.fake_js_invocation = true;
            let depth_before = self.js_stack.len();
            self.extract_stack(Some(sample), None, sample.ts);
            self.locked_depths.push(depth_before);
        }
    }

    fn on_event_end<E: TraceEntry>(&mut self, entry: &E) {
        let depth = self.locked_depths.pop().unwrap_or(0);
        self.truncate(depth, entry.span().end());
    }

    /// Makes `candidate` the stack of `node` (bottom first, root left out),
    /// without native frames when they are filtered. A garbage collection
    /// node stands on `gc_parent`'s stack, or has none.
    fn load_candidate(&mut self, node: NodeIx, gc_parent: Option<NodeIx>) {
        let key = Some((node, gc_parent));
        if self.candidate.key == key {
            return;
        }
        let model = self.model;
        let is_gc = Some(node) == model.gc_node;
        let plain = !is_gc && !self.filter_native_frames;
        #[cfg(test)]
        let plain = plain && self.share_frames;
        if plain && self.candidate.is_chain && self.load_shared(node) {
            self.candidate.key = key;
            return;
        }
        let candidate = &mut self.candidate;
        candidate.key = key;
        candidate.is_chain = false;
        let frames = &mut candidate.frames;
        frames.clear();
        let start = match (is_gc, gc_parent) {
            (false, _) => Some(node),
            (true, Some(p)) => Some(p),
            (true, None) => None,
        };
        if let Some(start) = start {
            // Depth d means d + 1 frames below the root: fill them top down.
            let count = (model.node(start).depth + 1).max(0) as usize;
            frames.resize(count, start);
            let mut cursor = Some(start);
            let mut slot = count;
            while let (Some(n), true) = (cursor, slot > 0) {
                let profile_node = model.node(n);
                if profile_node.parent.is_none() {
                    break;
                }
                slot -= 1;
                frames[slot] = n;
                cursor = profile_node.parent;
            }
            if slot > 0 {
                // Depths disagree with the parent chain: keep what was found.
                frames.drain(..slot);
            }
            // Every slot filled, and the last frame walked stands on the root.
            candidate.is_chain = plain && slot == 0 && cursor.is_some_and(|r| model.node(r).parent.is_none());
            if is_gc {
                frames.push(node);
            }
            if self.filter_native_frames {
                frames.retain(|&f| model.node(f).call_frame.url != names::NATIVE_V8_RUNTIME);
            }
        }
        candidate.functions.clear();
        candidate
            .functions
            .extend(frames.iter().map(|&f| self.function_of[f as usize]));
    }

    /// Makes the candidate (the chain of a node) the chain of `node`,
    /// keeping the frames the two share: walks up from `node` only to the
    /// first of its ancestors found among the frames at its depth. False
    /// when `node`'s depth does not match the chain found (inconsistent
    /// depths): the full walk then decides, as for any other node.
    fn load_shared(&mut self, node: NodeIx) -> bool {
        let model = self.model;
        let candidate = &mut self.candidate;
        let mut walked = std::mem::take(&mut candidate.walked);
        walked.clear();
        // The chain `node`'s depth promises: a longer walk (a cycle of
        // parents included) gives up.
        let length = usize::try_from(model.node(node).depth + 1).unwrap_or(0);
        let mut cursor = node;
        let kept = loop {
            let n = model.node(cursor);
            let Some(parent) = n.parent else {
                // The root: nothing shared.
                break Some(0);
            };
            let at_depth = usize::try_from(n.depth).ok().and_then(|d| candidate.frames.get(d));
            if at_depth == Some(&cursor) {
                // The frames up to here are `cursor`'s chain.
                break Some(n.depth as usize + 1);
            }
            if walked.len() == length {
                break None;
            }
            walked.push(cursor);
            cursor = parent;
        };
        let kept = kept.filter(|kept| kept + walked.len() == length);
        if let Some(kept) = kept {
            candidate.frames.truncate(kept);
            candidate.functions.truncate(kept);
            candidate.frames.extend(walked.iter().rev());
            let function_of = &self.function_of;
            candidate
                .functions
                .extend(walked.iter().rev().map(|&f| function_of[f as usize]));
        }
        candidate.walked = walked;
        kept.is_some()
    }

    /// Updates the JS stack with a sample's stack, or with the stack of the
    /// node a trace id points at (`traced`); with neither, only closes the
    /// stack's calls at `ts` (for a trace event that starts).
    fn extract_stack(&mut self, sample: Option<&SampleCall>, traced: Option<NodeIx>, ts: f64) {
        // The trace id's stack wins over the sample's when both are given.
        let source = match traced {
            Some(node) => Some((node, None)),
            None => sample.map(|s| (s.node, s.gc_parent)),
        };
        let sample_index = match (traced, sample) {
            (None, Some(s)) => s.index,
            _ => FROM_TRACE_ID,
        };
        let has_candidate = source.is_some();
        if let Some((node, gc_parent)) = source {
            self.load_candidate(node, gc_parent);
        }
        let from = self.locked_depths.last().copied().unwrap_or(0);
        let mut i = from;
        if has_candidate {
            // The first frame where the functions differ (a NaN line's
            // function, `u32::MAX`, equals nothing).
            let shared = self.candidate.functions.len().min(self.js_stack.len());
            if i < shared {
                let ours = &self.js_stack_functions[i..shared];
                let theirs = &self.candidate.functions[i..shared];
                i += ours
                    .iter()
                    .zip(theirs)
                    .position(|(&a, &b)| a != b || a == u32::MAX)
                    .unwrap_or(shared - i);
            }
        } else {
            // The stack compared with itself: equal but for NaN lines.
            if i < self.js_stack.len() {
                i += self.js_stack_functions[i..]
                    .iter()
                    .position(|&f| f == u32::MAX)
                    .unwrap_or(self.js_stack.len() - i);
            }
        }
        self.truncate(i, ts);
        if has_candidate {
            let model = self.model;
            for k in i..self.candidate.frames.len() {
                let node = self.candidate.frames[k];
                if model.is_root_or_meta(node) {
                    continue;
                }
                if self.calls.len() > self.max_calls {
                    // Over budget: `build` gives up at its next step.
                    break;
                }
                self.calls.push(ProfileCall {
                    node,
                    ts: Micros(ts),
                    dur: Micros::ZERO,
                    sample: sample_index,
                });
                // At most `max_calls` (itself at most `u32::MAX`), checked
                // just above.
                #[allow(clippy::cast_possible_truncation)]
                let call = (self.calls.len() - 1) as u32;
                self.js_stack.push(call);
                self.js_stack_functions.push(self.candidate.functions[k]);
            }
        }
    }

    /// The node a sample trace id points at, if any.
    fn node_of_trace_id(&self, trace_id: SampleTraceId) -> Option<NodeIx> {
        let trace_ids = self.model.trace_ids.as_ref()?;
        let node_id = match trace_id {
            SampleTraceId::Num(x) => trace_ids.get_number(x)?,
            SampleTraceId::Str(_) => trace_ids.get(&trace_id.key(self.interner))?,
        };
        if node_id == 0 {
            return None;
        }
        self.model.node_by_id(node_id)
    }

    /// Keeps the bottom `depth` calls of the JS stack (never fewer than the
    /// locked depth) and ends every call of the stack at `time`: those that
    /// leave it now, the others lazily (see `ended_at`).
    fn truncate(&mut self, mut depth: usize, time: f64) {
        if let Some(&locked) = self.locked_depths.last() {
            if locked != 0 && depth < locked {
                depth = locked;
            }
        }
        depth = depth.min(self.js_stack.len());
        self.end_calls(depth..self.js_stack.len(), time);
        self.js_stack.truncate(depth);
        self.js_stack_functions.truncate(depth);
        self.ended_at = time;
        self.ended_below = depth;
    }

    /// Ends the calls at `positions` of the JS stack at `time`.
    fn end_calls(&mut self, positions: std::ops::Range<usize>, time: f64) {
        for &k in &self.js_stack[positions] {
            let call = &mut self.calls[k as usize];
            call.dur = Micros(non_negative(time - call.ts.0));
        }
    }
}

#[cfg(test)]
mod tests;
