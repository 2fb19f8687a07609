//! The Samples handler of tracekit: it stitches `Profile` and
//! `ProfileChunk` events (and whole-profile `CpuProfile` events) into one
//! CPU profile per (process, profile id), attributes each to the thread of
//! its `Profile` head, picks one profile per thread by source priority, and
//! builds the profile models. For a trace that is a CPU profile on its own,
//! it also builds the call tree DevTools draws from the profile alone
//! ([`profile_only_tree`]). It mirrors DevTools' `SamplesHandler`.

mod chunk;
mod tree;

use indexmap::IndexMap;
use tracekit_cpuprofile::{CpuProfileModel, RawProfile};
use tracekit_events::{names, Diagnostics, Event, Id, Interner};

pub use tree::{profile_only_tree, ProfileTreeNode};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// Who asked for a profile, as `args.data.source` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileSource {
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

#[derive(Debug, Default)]
struct PendingProfile {
    raw: RawProfile,
    thread: Option<Id>,
    source: Option<ProfileSource>,
}

impl PendingProfile {
    fn new() -> Self {
        PendingProfile {
            raw: RawProfile {
                samples: Some(Vec::new()),
                time_deltas: Some(Vec::new()),
                ..RawProfile::default()
            },
            thread: None,
            source: None,
        }
    }
}

/// The profile chosen for one thread.
#[derive(Debug, Clone)]
pub struct ThreadProfile {
    pub profile_id: Id,
    pub model: CpuProfileModel,
}

/// What the Samples handler found: one profile per thread, by process.
#[derive(Debug, Clone, Default)]
pub struct SamplesData {
    pub profiles: Map<Id, Map<Id, ThreadProfile>>,
}

impl SamplesData {
    pub fn profile(&self, pid: Id, tid: Id) -> Option<&ThreadProfile> {
        self.profiles.get(&pid)?.get(&tid)
    }
}

#[derive(Debug, Default)]
pub struct SamplesHandler {
    pending: Map<Id, Map<Id, PendingProfile>>,
}

impl SamplesHandler {
    pub fn new() -> Self {
        Self::default()
    }

    fn pending(&mut self, event: &Event<'_>) -> &mut PendingProfile {
        self.pending
            .entry(event.pid)
            .or_default()
            .entry(event.id.unwrap_or(Id::Missing))
            .or_insert_with(PendingProfile::new)
    }

    pub fn handle_event(&mut self, event: &Event<'_>, interner: &mut Interner, diag: &mut Diagnostics) {
        match event.name {
            names::CPU_PROFILE if event.ph == tracekit_events::Phase::COMPLETE => {
                let Some(raw) = chunk::whole_profile(event, interner, diag) else {
                    return;
                };
                let pending = self.pending(event);
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
                let Some(chunk) = chunk::decode(event, interner, diag) else {
                    self.pending(event);
                    return;
                };
                let pending = self.pending(event);
                let raw = &mut pending.raw;
                raw.nodes.extend(chunk.nodes);
                let samples = raw.samples.get_or_insert_with(Vec::new);
                samples.extend(chunk.samples);
                let deltas = raw.time_deltas.get_or_insert_with(Vec::new);
                deltas.extend(chunk.time_deltas);
                if let Some(trace_ids) = chunk.trace_ids {
                    raw.trace_ids.get_or_insert_with(Default::default).extend(trace_ids);
                }
                if samples.len() != deltas.len() {
                    diag.skip("samples: profile with more samples than time deltas or fewer", || {
                        format!("profile chunk at ts {}", event.ts)
                    });
                    return;
                }
                if raw.end_time == 0.0 || raw.end_time.is_nan() {
                    raw.end_time = deltas.iter().fold(raw.start_time, |acc, d| acc + d);
                }
                if let Some(source) = chunk.source.as_deref().and_then(ProfileSource::parse) {
                    pending.source = Some(source);
                }
            }
            _ => {}
        }
    }

    /// Picks one profile per thread and builds the models. For a trace that
    /// is a CPU profile on its own, the `Inspector` source is preferred;
    /// for a Performance panel trace, `Internal`, then `Inspector`;
    /// otherwise the thread's first profile.
    pub fn finalize(self, is_cpu_profile: bool, diag: &mut Diagnostics) -> SamplesData {
        let priority: &[ProfileSource] = if is_cpu_profile {
            &[ProfileSource::Inspector]
        } else {
            &[ProfileSource::Internal, ProfileSource::Inspector]
        };
        let mut data = SamplesData::default();
        for (pid, profiles) in self.pending {
            let mut by_thread: Map<Id, Vec<(Id, PendingProfile)>> = Map::default();
            for (profile_id, pending) in profiles {
                let Some(thread) = pending.thread else {
                    diag.skip("samples: profile chunks without a Profile head", || {
                        format!("process {pid:?}, profile {profile_id:?}")
                    });
                    continue;
                };
                by_thread.entry(thread).or_default().push((profile_id, pending));
            }
            for (tid, mut candidates) in by_thread {
                let chosen = priority
                    .iter()
                    .find_map(|wanted| candidates.iter().position(|(_, p)| p.source == Some(*wanted)))
                    .unwrap_or(0);
                let (profile_id, pending) = candidates.swap_remove(chosen);
                if pending.raw.nodes.is_empty() {
                    continue;
                }
                match CpuProfileModel::new(pending.raw, diag) {
                    Ok(model) => {
                        data.profiles
                            .entry(pid)
                            .or_default()
                            .insert(tid, ThreadProfile { profile_id, model });
                    }
                    Err(e) => diag.skip("samples: unusable profile", || {
                        format!("process {pid:?} thread {tid:?}: {e}")
                    }),
                }
            }
        }
        data
    }
}
