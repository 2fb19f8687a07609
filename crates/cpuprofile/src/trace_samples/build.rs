//! Building the profiles: the samples checked, given the pid their thread
//! agrees on, grouped by thread, and each thread's stacks turned into the
//! nodes, samples and time deltas of a CPU profile.

use ahash::AHashMap;
use tracekit_events::{names, Diagnostics, Id, Interner, Micros};

use super::decode::{FramesJson, Object, SampleJson, Scalar};
use super::frames::{Frames, Parent};
use super::TraceSamplesProfile;
use crate::callframe::CallFrame;
use crate::raw::{RawNode, RawProfile};

/// A sample that passed the checks: its thread, time and leaf frame (none
/// for a sample without a stack).
struct Accepted {
    tid: Id,
    pid: Option<Id>,
    ts: f64,
    leaf: Option<u32>,
}

/// The id of a profile's `(root)` node.
pub(super) const ROOT_ID: i64 = 1;

/// The nodes of one thread's profile.
struct ProfileBuilder {
    nodes: Vec<RawNode>,
    node_of_frame: AHashMap<u32, i64>,
    program: Option<i64>,
    chain: Vec<u32>,
}

impl ProfileBuilder {
    fn new() -> Self {
        let mut b = ProfileBuilder {
            nodes: Vec::new(),
            node_of_frame: AHashMap::new(),
            program: None,
            chain: Vec::new(),
        };
        b.push(None, CallFrame::meta(names::ROOT));
        b
    }

    fn push(&mut self, parent: Option<i64>, call_frame: CallFrame) -> i64 {
        crate::raw::push_node(&mut self.nodes, parent, call_frame)
    }

    /// The node of `leaf`, a frame whose chain is whole; creates the nodes
    /// of its chain that this profile lacks.
    fn node(&mut self, leaf: u32, frames: &Frames, interner: &mut Interner) -> i64 {
        self.chain.clear();
        let mut base = ROOT_ID;
        let mut cursor = Some(leaf);
        while let Some(f) = cursor {
            if let Some(&id) = self.node_of_frame.get(&f) {
                base = id;
                break;
            }
            self.chain.push(f);
            cursor = match frames.parents[f as usize] {
                Parent::Frame(p) => Some(p),
                Parent::None | Parent::Unknown => None,
            };
        }
        while let Some(f) = self.chain.pop() {
            base = if base == ROOT_ID && frames.is_root(f) {
                ROOT_ID
            } else {
                let call_frame = frames.call_frame(f, interner);
                self.push(Some(base), call_frame)
            };
            self.node_of_frame.insert(f, base);
        }
        base
    }

    fn program(&mut self) -> i64 {
        match self.program {
            Some(id) => id,
            None => {
                let id = self.push(Some(ROOT_ID), CallFrame::meta(names::PROGRAM));
                self.program = Some(id);
                id
            }
        }
    }
}

/// The profiles of `samples`, one a thread, in the order the threads first
/// appear.
pub(super) fn build(
    frames: FramesJson<'_>,
    samples: Vec<Object<SampleJson<'_>>>,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Vec<TraceSamplesProfile> {
    let mut frames = Frames::new(frames);
    let mut accepted = accept_samples(samples, &mut frames, interner, diag);
    fill_in_pids(&mut accepted);
    group_by_thread(accepted)
        .into_iter()
        .map(|((tid, pid), samples)| thread_profile(tid, pid, samples, &frames, interner))
        .collect()
}

/// The samples that pass the checks, in input order; the others are
/// skipped and counted in `diag`.
fn accept_samples(
    samples: Vec<Object<SampleJson<'_>>>,
    frames: &mut Frames<'_>,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Vec<Accepted> {
    let mut accepted = Vec::with_capacity(samples.len());
    for (i, sample) in samples.into_iter().enumerate() {
        let Some(sample) = sample.0 else {
            diag.skip(tracekit_events::Skip::TraceSamplesNotAnObject, || format!("sample {i}"));
            continue;
        };
        let Some(tid) = sample.tid.as_ref().and_then(|t| t.id(interner)) else {
            diag.skip(tracekit_events::Skip::TraceSamplesWithoutTid, || format!("sample {i}"));
            continue;
        };
        let Some(ts) = sample.ts.as_ref().and_then(Scalar::number) else {
            diag.skip(tracekit_events::Skip::TraceSamplesWithoutTs, || format!("sample {i}"));
            continue;
        };
        let leaf = match &sample.sf {
            None | Some(Scalar::Null) => None,
            Some(sf) => match sf.key().and_then(|k| frames.by_key.get(k.as_ref()).copied()) {
                Some(f) => Some(f),
                None => {
                    diag.skip(tracekit_events::Skip::TraceSamplesUnknownFrame, || {
                        format!("sample {i}, sf {sf:?}")
                    });
                    continue;
                }
            },
        };
        if let Some(f) = leaf {
            if !frames.is_whole(f, diag) {
                diag.skip(tracekit_events::Skip::TraceSamplesBrokenChain, || {
                    format!("sample {i}, stack frame {}", frames.keys[f as usize])
                });
                continue;
            }
        }
        let pid = sample.pid.as_ref().and_then(|p| p.id(interner));
        accepted.push(Accepted { tid, pid, ts, leaf });
    }
    accepted
}

/// The pids the samples of one tid give.
#[derive(Clone, Copy)]
enum Pids {
    None,
    One(Id),
    Several,
}

/// A sample without a pid takes the one pid the other samples of its tid
/// agree on.
fn fill_in_pids(accepted: &mut [Accepted]) {
    let mut pids: AHashMap<Id, Pids> = AHashMap::new();
    for s in accepted.iter() {
        let entry = pids.entry(s.tid).or_insert(Pids::None);
        if let Some(pid) = s.pid {
            *entry = match *entry {
                Pids::None => Pids::One(pid),
                Pids::One(p) if p == pid => Pids::One(p),
                _ => Pids::Several,
            };
        }
    }
    for s in accepted {
        if s.pid.is_none() {
            if let Some(Pids::One(pid)) = pids.get(&s.tid) {
                s.pid = Some(*pid);
            }
        }
    }
}

/// A thread: its tid and pid.
type Thread = (Id, Option<Id>);
/// A thread's samples: the time and leaf frame of each.
type Samples = Vec<(f64, Option<u32>)>;

/// The samples of each thread, in the order the threads first appear.
fn group_by_thread(accepted: Vec<Accepted>) -> Vec<(Thread, Samples)> {
    let mut groups: Vec<(Thread, Samples)> = Vec::new();
    let mut group_of: AHashMap<Thread, usize> = AHashMap::new();
    for s in accepted {
        let key = (s.tid, s.pid);
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push((s.ts, s.leaf));
    }
    groups
}

/// The profile of one thread's samples.
fn thread_profile(
    tid: Id,
    pid: Option<Id>,
    mut samples: Samples,
    frames: &Frames<'_>,
    interner: &mut Interner,
) -> TraceSamplesProfile {
    // Stable: samples at the same time keep their input order.
    samples.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut b = ProfileBuilder::new();
    let mut nodes = Vec::with_capacity(samples.len());
    let mut deltas = Vec::with_capacity(samples.len());
    let start_time = samples.first().map_or(0.0, |s| s.0);
    let end_time = samples.last().map_or(0.0, |s| s.0);
    let mut previous = start_time;
    for &(ts, leaf) in &samples {
        nodes.push(match leaf {
            Some(f) => b.node(f, frames, interner),
            None => b.program(),
        });
        deltas.push(ts - previous);
        previous = ts;
    }
    TraceSamplesProfile {
        tid,
        pid,
        raw: RawProfile {
            nodes: b.nodes,
            start_time: Micros(start_time),
            end_time: Micros(end_time),
            samples: Some(nodes),
            time_deltas: Some(deltas),
            timestamps: None,
            trace_ids: None,
            legacy: None,
        },
    }
}
