//! The Samples handler of tracekit: it stitches `Profile` and
//! `ProfileChunk` events (and whole-profile `CpuProfile` events) into one
//! CPU profile per (process, profile id), attributes each to the thread of
//! its `Profile` head, picks one profile per thread by source priority, and
//! builds the profile models. Profiles of the trace event format's
//! top-level `samples` and `stackFrames` (which DevTools does not read)
//! come last in that priority (read from `Context::top_level` when the
//! handler is finalized). For
//! a trace that is a CPU profile on its own, the crate also builds the call
//! tree DevTools draws from the profile alone ([`profile_only_tree`]). It
//! mirrors DevTools' `SamplesHandler`.

mod chunk;
mod tree;

use indexmap::IndexMap;
use tracekit_cpuprofile::{profiles_from_trace_samples, CpuProfileModel, RawProfile, TraceIdKey};
use tracekit_events::prepared::{Prepared, PreparedChunk};
use tracekit_events::{
    map_biggest_first, names, AnalyzeOptions, Context, Diagnostics, Event, EventIndex, Handler, Id, Micros, Phase, Skip,
};
use tracekit_meta::MetaData;

pub use tree::{profile_only_tree, ProfileTreeNode};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// Who asked for a profile, as `args.data.source` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProfileSource {
    /// The Performance panel's own recording.
    Internal,
    /// `console.profile()` and the protocol's `Profiler` domain.
    Inspector,
    /// The page's JS Self-Profiling API.
    SelfProfiling,
}

impl ProfileSource {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "Internal" => Some(Self::Internal),
            "Inspector" => Some(Self::Inspector),
            "SelfProfiling" => Some(Self::SelfProfiling),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct PendingProfile {
    raw: RawProfile,
    /// The chunks' samples, time deltas and `trace_ids` members, a list
    /// per chunk, in order: appended to `raw`'s when the profile is built
    /// (in parallel with the others), rather than on the handlers' pass,
    /// which is sequential.
    chunks: ChunkLists,
    thread: Option<Id>,
    source: Option<ProfileSource>,
}

/// What the chunks of a profile add to its samples, time deltas and trace
/// ids (see [`PendingProfile::chunks`]).
#[derive(Debug, Default)]
struct ChunkLists {
    samples: Vec<Vec<i64>>,
    time_deltas: Vec<Vec<f64>>,
    /// `None` until a chunk has `trace_ids`.
    trace_ids: Option<Vec<Vec<(TraceIdKey, i64)>>>,
    /// How many samples and time deltas the profile has, its own and its
    /// chunks'.
    sample_count: usize,
    delta_count: usize,
}

impl PendingProfile {
    /// The profile with its chunks' lists appended.
    fn stitched(self) -> RawProfile {
        let PendingProfile { mut raw, chunks, .. } = self;
        fn append<T>(to: &mut Option<Vec<T>>, lists: Vec<Vec<T>>) {
            if lists.is_empty() {
                return;
            }
            let to = to.get_or_insert_with(Vec::new);
            to.reserve_exact(lists.iter().map(Vec::len).sum());
            for list in lists {
                to.extend(list);
            }
        }
        append(&mut raw.samples, chunks.samples);
        append(&mut raw.time_deltas, chunks.time_deltas);
        if let Some(lists) = chunks.trace_ids {
            let trace_ids = raw.trace_ids.get_or_insert_with(Default::default);
            trace_ids.reserve(lists.iter().map(Vec::len).sum());
            trace_ids.extend(lists.into_iter().flatten());
        }
        raw
    }
}

/// A profile built from the trace event format's top-level samples.
#[derive(Debug)]
struct TraceSamples {
    pid: Id,
    tid: Id,
    raw: RawProfile,
}

/// A profile with empty (not absent) `samples` and `timeDeltas`, ready
/// for its chunks.
impl Default for PendingProfile {
    fn default() -> Self {
        PendingProfile {
            raw: RawProfile {
                samples: Some(Vec::new()),
                time_deltas: Some(Vec::new()),
                ..RawProfile::default()
            },
            chunks: ChunkLists::default(),
            thread: None,
            source: None,
        }
    }
}

/// The profile chosen for one thread.
#[derive(Debug, Clone)]
pub struct ThreadProfile {
    /// The id of its `Profile` event (`Missing` for top-level samples).
    pub profile_id: Id,
    /// The profile.
    pub model: CpuProfileModel,
    /// Built from the trace event format's top-level `samples`: its JS
    /// calls are drawn even on a thread without trace events.
    pub from_trace_samples: bool,
}

/// What the Samples handler found: one profile per thread, by process.
#[derive(Debug, Clone, Default)]
pub struct SamplesData {
    /// By process, then thread.
    pub profiles: Map<Id, Map<Id, ThreadProfile>>,
}

impl SamplesData {
    /// The profile of a thread, if it has one.
    pub fn profile(&self, pid: Id, tid: Id) -> Option<&ThreadProfile> {
        self.profiles.get(&pid)?.get(&tid)
    }
}

/// The Samples handler (see the crate documentation).
#[derive(Debug, Default)]
pub struct SamplesHandler {
    pending: Map<Id, Map<Id, PendingProfile>>,
    trace_samples: Vec<TraceSamples>,
    /// The `ProfileChunk`s of the events being handed over, read by
    /// `prepare`.
    prepared: Prepared<Result<chunk::ParsedChunk, String>>,
}

impl SamplesHandler {
    /// Adds a profile made of the trace event format's top-level samples
    /// of one thread. It is used only when the thread has no profile of
    /// its own (`Profile`, `ProfileChunk` or `CpuProfile` events).
    pub(crate) fn add_trace_samples(&mut self, pid: Id, tid: Id, raw: RawProfile) {
        self.trace_samples.push(TraceSamples { pid, tid, raw });
    }

    /// Reads the trace event format's top-level samples
    /// ([`Context::top_level`]), one profile per thread. A sample without a
    /// pid belongs to the process whose thread metadata names its tid (when
    /// one alone does), else to a process of the tid's number, as the
    /// Catapult viewer does.
    fn read_trace_samples(&mut self, meta: &MetaData, cx: &mut Context) {
        let Some(samples) = cx.top_level.samples.take() else {
            return;
        };
        let stack_frames = cx.top_level.stack_frames.take();
        let profiles = match profiles_from_trace_samples(
            &samples,
            stack_frames.as_deref().unwrap_or("{}"),
            &mut cx.interner,
            &mut cx.diagnostics,
        ) {
            Ok(profiles) => profiles,
            Err(e) => {
                cx.diagnostics.skip(Skip::TraceSamplesUnreadable, || e.to_string());
                return;
            }
        };
        for profile in profiles {
            let pid = profile.pid.unwrap_or_else(|| {
                let mut owners = meta
                    .threads_in_process
                    .iter()
                    .filter(|(_, threads)| threads.contains_key(&profile.tid))
                    .map(|(pid, _)| *pid);
                match (owners.next(), owners.next()) {
                    (Some(pid), None) => pid,
                    _ => profile.tid,
                }
            });
            self.add_trace_samples(pid, profile.tid, profile.raw);
        }
    }

    fn pending(&mut self, event: &Event<'_>) -> &mut PendingProfile {
        self.pending
            .entry(event.pid)
            .or_default()
            .entry(event.id.unwrap_or(Id::MISSING))
            .or_default()
    }

    fn on_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let (interner, diag) = (&mut cx.interner, &mut cx.diagnostics);
        match event.name {
            names::CPU_PROFILE if event.ph == Phase::COMPLETE => {
                let Some(raw) = chunk::whole_profile(event, interner, diag) else {
                    return;
                };
                let pending = self.pending(event);
                pending.chunks = ChunkLists {
                    sample_count: raw.samples.as_ref().map_or(0, Vec::len),
                    delta_count: raw.time_deltas.as_ref().map_or(0, Vec::len),
                    ..ChunkLists::default()
                };
                pending.raw = raw;
                pending.thread = Some(event.tid);
            }
            names::PROFILE => {
                let source = chunk::source(event).as_deref().and_then(ProfileSource::parse);
                let pending = self.pending(event);
                // The head's own startTime is in another clock domain: the
                // event's timestamp is the one that lines up with the trace.
                pending.raw.start_time = event.ts;
                pending.thread = Some(event.tid);
                if source.is_some() {
                    pending.source = source;
                }
            }
            names::PROFILE_CHUNK => {
                let parsed = self.prepared.take(index).flatten();
                let mut chunk = match parsed.unwrap_or_else(|| chunk::parse(event)) {
                    Ok(chunk) => chunk,
                    Err(e) => {
                        diag.skip(Skip::SamplesUnreadableChunk, || format!("at ts {}: {e}", event.ts.0));
                        self.pending(event);
                        return;
                    }
                };
                let nodes = chunk.take_nodes(interner);
                let pending = self.pending(event);
                let (raw, lists) = (&mut pending.raw, &mut pending.chunks);
                raw.nodes.extend(nodes);
                raw.samples.get_or_insert_with(Vec::new);
                raw.time_deltas.get_or_insert_with(Vec::new);
                lists.sample_count += chunk.samples.len();
                lists.delta_count += chunk.time_deltas.len();
                lists.samples.push(chunk.samples);
                lists.time_deltas.push(chunk.time_deltas);
                if let Some(trace_ids) = chunk.trace_ids {
                    lists.trace_ids.get_or_insert_with(Vec::new).push(trace_ids);
                }
                if lists.sample_count != lists.delta_count {
                    diag.skip(Skip::SamplesUnevenChunks, || {
                        format!("profile chunk at ts {}", event.ts.0)
                    });
                    return;
                }
                // JavaScript's `!endTime`: zero or NaN. The sum of every
                // delta so far, the profile's own then its chunks', added
                // in that order.
                if raw.end_time == Micros::ZERO || raw.end_time.0.is_nan() {
                    let own = raw.time_deltas.iter().flatten();
                    let deltas = own.chain(lists.time_deltas.iter().flatten());
                    raw.end_time = deltas.fold(raw.start_time, |acc, d| acc + Micros(*d));
                }
                if let Some(source) = chunk.source.as_deref().and_then(ProfileSource::parse) {
                    pending.source = Some(source);
                }
            }
            _ => {}
        }
    }

    /// Picks one profile per thread and builds the models: by source,
    /// `Internal` (the Performance panel's own recording), then
    /// `Inspector`, else the thread's first profile; then, for threads
    /// without one, the top-level samples.
    fn into_data(self, cx: &mut Context) -> SamplesData {
        let diag = &mut cx.diagnostics;
        let interner = &cx.interner;
        const PRIORITY: [ProfileSource; 2] = [ProfileSource::Internal, ProfileSource::Inspector];
        let mut data = SamplesData::default();
        // Each thread's chosen profile, in order; their models are built
        // apart (in parallel where allowed), then kept in that order.
        let mut chosen_profiles = Vec::new();
        for (pid, profiles) in self.pending {
            let mut by_thread: Map<Id, Vec<(Id, PendingProfile)>> = Map::default();
            for (profile_id, pending) in profiles {
                let Some(thread) = pending.thread else {
                    diag.skip(Skip::SamplesChunksWithoutHead, || {
                        format!(
                            "pid {}, profile {}",
                            pid.to_js_string(interner),
                            profile_id.to_js_string(interner)
                        )
                    });
                    continue;
                };
                by_thread.entry(thread).or_default().push((profile_id, pending));
            }
            for (tid, mut candidates) in by_thread {
                let chosen = PRIORITY
                    .iter()
                    .find_map(|wanted| candidates.iter().position(|(_, p)| p.source == Some(*wanted)))
                    .unwrap_or(0);
                let (profile_id, pending) = candidates.swap_remove(chosen);
                if !pending.raw.nodes.is_empty() {
                    chosen_profiles.push((pid, tid, profile_id, pending));
                }
            }
        }
        let parallelism = cx.options.parallelism;
        let build = |(pid, tid, profile_id, pending): (Id, Id, Id, PendingProfile)| {
            let mut diag = Diagnostics::default();
            let model = CpuProfileModel::with_parallelism(pending.stitched(), &mut diag, parallelism);
            (pid, tid, profile_id, model, diag)
        };
        let built = map_biggest_first(
            chosen_profiles,
            parallelism,
            |(.., pending)| pending.chunks.sample_count,
            build,
        );
        for (pid, tid, profile_id, model, model_diag) in built {
            // In the order a sequential build gives them.
            diag.merge(model_diag);
            match model {
                Ok(model) => {
                    data.profiles.entry(pid).or_default().insert(
                        tid,
                        ThreadProfile {
                            profile_id,
                            model,
                            from_trace_samples: false,
                        },
                    );
                }
                Err(e) => diag.skip(Skip::SamplesUnusableProfile, || {
                    format!(
                        "pid {} tid {}: {e}",
                        pid.to_js_string(interner),
                        tid.to_js_string(interner)
                    )
                }),
            }
        }
        for TraceSamples { pid, tid, raw } in self.trace_samples {
            if data.profile(pid, tid).is_some() || raw.nodes.is_empty() {
                continue;
            }
            match CpuProfileModel::new(raw, diag) {
                Ok(model) => {
                    diag.diverge(tracekit_events::Divergence::TraceEventSamples, || {
                        format!(
                            "top-level samples of pid {} tid {}",
                            pid.to_js_string(interner),
                            tid.to_js_string(interner)
                        )
                    });
                    data.profiles.entry(pid).or_default().insert(
                        tid,
                        ThreadProfile {
                            profile_id: Id::MISSING,
                            model,
                            from_trace_samples: true,
                        },
                    );
                }
                Err(e) => diag.skip(Skip::SamplesUnusableProfile, || {
                    format!(
                        "top-level samples of pid {} tid {}: {e}",
                        pid.to_js_string(interner),
                        tid.to_js_string(interner)
                    )
                }),
            }
        }
        data
    }
}

impl Handler for SamplesHandler {
    /// The threads of the Meta handler tell whose the trace's top-level
    /// samples without a pid are.
    type Deps<'d> = &'d MetaData;
    type Data = SamplesData;

    /// Reads the `ProfileChunk`s among the events handed over, the bulk of
    /// this handler's work, on the cores that scanned them: only interning
    /// their names and adding them to their profiles is left for
    /// `handle_event`, in input order.
    fn prepare(events: &[Event<'_>], _: &AnalyzeOptions) -> Option<PreparedChunk> {
        Some(Prepared::of_chunk(events, |event| {
            (event.name == names::PROFILE_CHUNK).then(|| chunk::parse(event))
        }))
    }

    fn take_prepared(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.prepared.set(first, prepared);
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_event(index, event, cx);
    }

    fn finalize(mut self, meta: &MetaData, cx: &mut Context) -> SamplesData {
        self.read_trace_samples(meta, cx);
        let _span = tracing::info_span!("profiles").entered();
        self.into_data(cx)
    }
}

#[cfg(test)]
mod tests;
