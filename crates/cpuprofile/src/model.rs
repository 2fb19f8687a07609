//! The CPU profile model: the node tree with depths and parents, samples
//! sorted by time, timestamps in milliseconds, and the meta nodes
//! (`(program)`, `(idle)`, `(garbage collector)`), built as the DevTools
//! `CPUProfileDataModel` builds them.

use ahash::AHashMap;
use rayon::slice::ParallelSliceMut;
use tracekit_events::{names, Diagnostics, Divergence, Micros, Millis, Parallelism, Skip};

use crate::callframe::CallFrame;
use crate::raw::{RawNode, RawProfile};

/// Index of a node in [`CpuProfileModel::nodes`].
pub type NodeIx = u32;

/// A node of the model's tree: a function called from the chain of
/// functions its ancestors are.
#[derive(Clone, Debug)]
pub struct ProfileNode {
    /// The node's id in the input.
    pub id: i64,
    /// Where its function lives.
    pub call_frame: CallFrame,
    /// Its parent; `None` for the root only.
    pub parent: Option<NodeIx>,
    /// The root is at depth -1, its children at 0.
    pub depth: i32,
    /// In the order DevTools' model lists them (the reverse of the input's).
    pub children: Vec<NodeIx>,
}

/// Why no model can be built from a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The profile has no nodes (so no root).
    NoNodes,
    /// Its root has no `hitCount` and the profile no `samples`: DevTools
    /// refuses such a profile.
    NoHitCountNorSamples,
    /// It has more nodes than `NodeIx::MAX` (2^32 - 1), which a
    /// [`NodeIx`] cannot all index.
    TooManyNodes,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelError::NoNodes => "the profile has no nodes",
            ModelError::NoHitCountNorSamples => "the profile has neither hitCount nor samples",
            ModelError::TooManyNodes => "the profile has more than 4294967295 nodes",
        })
    }
}

impl std::error::Error for ModelError {}

/// A CPU profile ready to be drawn: the node tree (depth-first from the
/// root, with depths and parents), and the samples sorted by time with
/// their timestamps in milliseconds.
#[derive(Clone, Debug)]
pub struct CpuProfileModel {
    /// The nodes reachable from the root, in the order DevTools' walk
    /// visits them; [`NodeIx`] indexes this list. At most `NodeIx::MAX`.
    pub nodes: Vec<ProfileNode>,
    /// The root (the input's first node): always 0.
    pub root: NodeIx,
    by_id: AHashMap<i64, NodeIx>,
    /// The node of each sample; `None` where the sample names no known node.
    pub samples: Vec<Option<NodeIx>>,
    /// Milliseconds. After normalization it holds one more timestamp than
    /// there are samples (the estimated end of the last one).
    pub timestamps: Vec<f64>,
    /// The profile's `traceIds`: sample trace ids (the object's keys, as
    /// written) to node ids.
    pub trace_ids: Option<crate::TraceIds>,
    /// The `(garbage collector)` child of the root, if any.
    pub gc_node: Option<NodeIx>,
    /// The `(program)` child of the root, if any.
    pub program_node: Option<NodeIx>,
    /// The `(idle)` child of the root, if any.
    pub idle_node: Option<NodeIx>,
    /// The greatest node depth (the root's children are at 0).
    pub max_depth: i32,
    /// Milliseconds: the first sample's timestamp when it is truthy, else
    /// the profile's `startTime`.
    pub profile_start_time: f64,
    /// Milliseconds: the last timestamp (the estimated end of the last
    /// sample) when it is truthy, else the profile's `endTime`.
    pub profile_end_time: f64,
}

/// JavaScript truthiness of a number (`0` and `NaN` are false).
fn truthy(x: f64) -> bool {
    x != 0.0 && !x.is_nan()
}

/// Profiles with fewer samples are sorted on one core: splitting would
/// cost more than it saves.
const PARALLEL_SORT_MIN: usize = 1 << 16;

impl CpuProfileModel {
    /// Builds the model as DevTools' `CPUProfileDataModel` does. What it
    /// repairs or leaves out (unknown or repeated nodes, unpaired samples)
    /// is counted in `diag`; only a profile without nodes, without any
    /// sample data, or too large to index is refused.
    pub fn new(profile: RawProfile, diag: &mut Diagnostics) -> Result<Self, ModelError> {
        Self::with_parallelism(profile, diag, Parallelism::Sequential)
    }

    /// [`CpuProfileModel::new`], sorting a large profile's samples on all
    /// cores with [`Parallelism::Rayon`]: the same model either way.
    pub fn with_parallelism(
        profile: RawProfile,
        diag: &mut Diagnostics,
        parallelism: Parallelism,
    ) -> Result<Self, ModelError> {
        let legacy = profile.legacy.is_some();
        let (start, end, timestamps) = raw_times(&profile);
        let RawProfile {
            nodes: raw_nodes,
            samples: raw_samples,
            trace_ids,
            ..
        } = profile;
        if raw_nodes.is_empty() {
            return Err(ModelError::NoNodes);
        }
        // Nodes are indexed by `NodeIx`: this bounds every index below.
        if raw_nodes.len() > NodeIx::MAX as usize {
            return Err(ModelError::TooManyNodes);
        }
        if raw_nodes[0].hit_count.is_none() && raw_samples.is_none() {
            return Err(ModelError::NoHitCountNorSamples);
        }
        let Tree {
            nodes,
            by_id,
            max_depth,
        } = build_node_tree(&raw_nodes, diag);
        let samples: Option<Vec<Option<NodeIx>>> = raw_samples.map(|s| {
            s.iter()
                .map(|id| {
                    let ix = by_id.get(id).copied();
                    if ix.is_none() {
                        diag.skip(Skip::ProfileUnknownSampleNode, || format!("node id {id}"));
                    }
                    ix
                })
                .collect()
        });

        let mut model = CpuProfileModel {
            nodes,
            root: 0,
            by_id,
            samples: Vec::new(),
            timestamps: Vec::new(),
            trace_ids,
            gc_node: None,
            program_node: None,
            idle_node: None,
            max_depth,
            profile_start_time: start.0,
            profile_end_time: end.0,
        };
        model.extract_meta_nodes();
        let has_samples = samples.as_ref().is_some_and(|s| !s.is_empty());
        if let (true, Some(samples), Some(timestamps)) = (has_samples, &samples, &timestamps) {
            // Sorting pairs them up: what has no partner is lost, as in
            // DevTools. (Legacy profiles give one more timestamp, the end.)
            let (n, t) = (samples.len(), timestamps.len());
            if t < n || t > n + usize::from(legacy) {
                diag.skip(Skip::ProfileUnpairedSamples, || {
                    format!("{} samples, {} timestamps", samples.len(), timestamps.len())
                });
            }
        }
        match (samples, timestamps) {
            (Some(samples), timestamps) if has_samples => {
                model.sort_and_normalize(samples, timestamps, parallelism);
                model.fix_missing_samples();
            }
            (samples, timestamps) => {
                model.samples = samples.unwrap_or_default();
                model.timestamps = timestamps.unwrap_or_default();
            }
        }
        Ok(model)
    }

    fn extract_meta_nodes(&mut self) {
        for &child in &self.nodes[self.root as usize].children {
            if self.gc_node.is_some() && self.program_node.is_some() && self.idle_node.is_some() {
                break;
            }
            match self.nodes[child as usize].call_frame.function_name {
                names::GARBAGE_COLLECTOR => self.gc_node = Some(child),
                names::PROGRAM => self.program_node = Some(child),
                names::IDLE => self.idle_node = Some(child),
                _ => {}
            }
        }
    }

    /// Sorts samples by time and turns timestamps into milliseconds, adding
    /// the estimated end of the last sample.
    fn sort_and_normalize(
        &mut self,
        samples: Vec<Option<NodeIx>>,
        timestamps: Option<Vec<f64>>,
        parallelism: Parallelism,
    ) {
        let Some(mut timestamps) = timestamps else {
            // No timing at all: spread the samples evenly over the profile.
            let interval = (self.profile_end_time - self.profile_start_time) / samples.len() as f64;
            self.timestamps = (0..=samples.len())
                .map(|i| self.profile_start_time + i as f64 * interval)
                .collect();
            self.samples = samples;
            return;
        };
        // The sorted lists are as long as the timestamps: samples without a
        // timestamp are dropped, timestamps without a sample name no node.
        let mut samples = samples;
        samples.resize(timestamps.len(), None);
        // Without NaN the times are totally ordered, and every stable sort
        // gives the one same order: an insertion sort in place where the
        // samples are in order or nearly (a sample out of order is most
        // often only a few places late), else a merge sort, a large
        // profile's on all cores where allowed. With a NaN (which compares
        // equal to everything), only the same algorithm would give the
        // same order, so the sequential sort keeps it. Such a comparator is
        // consistent only because NaN times form a suffix: they come only
        // from `raw_times`' sums of deltas (JSON has no NaN), and a NaN sum
        // stays NaN. With NaNs scattered, std's sort may panic on it (3.5%
        // of random arrays with one NaN in ten).
        let totally_ordered = !timestamps.iter().any(|t| t.is_nan());
        let budget = timestamps.len();
        if !(totally_ordered && sort_nearly_sorted(&mut timestamps, &mut samples, budget)) {
            // Each time beside its sample's index: the sort compares times
            // next to each other in memory, not looked up through indices.
            let mut order: Vec<(f64, usize)> = timestamps.iter().copied().zip(0..).collect();
            let by_time =
                |a: &(f64, usize), b: &(f64, usize)| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal);
            if totally_ordered && parallelism == Parallelism::Rayon && order.len() >= PARALLEL_SORT_MIN {
                order.par_sort_by(by_time);
            } else {
                order.sort_by(by_time);
            }
            samples = order.iter().map(|&(_, i)| samples[i]).collect();
            // With room for the estimated end (see `raw_times`).
            timestamps = Vec::with_capacity(order.len() + 1);
            timestamps.extend(order.iter().map(|&(t, _)| t));
        }
        self.samples = samples;
        for t in &mut timestamps {
            *t = Micros(*t).to_millis().0;
        }
        if self.samples.len() == timestamps.len() {
            let last = timestamps.last().copied().unwrap_or(0.0);
            let first = timestamps.first().copied().unwrap_or(f64::NAN);
            let average = (last - first) / (timestamps.len() as f64 - 1.0);
            timestamps.push(last + average);
        }
        if let Some(&first) = timestamps.first() {
            if truthy(first) {
                self.profile_start_time = first;
            }
        }
        if let Some(&last) = timestamps.last() {
            if truthy(last) {
                self.profile_end_time = last;
            }
        }
        self.timestamps = timestamps;
    }

    /// A lone `(program)` sample between two stacks with the same bottom
    /// frame is a sampler failure: it takes the previous sample's node.
    fn fix_missing_samples(&mut self) {
        let Some(program) = self.program_node else {
            return;
        };
        let count = self.samples.len();
        if count < 3 {
            return;
        }
        let is_system =
            |n: NodeIx| Some(n) == self.program_node || Some(n) == self.gc_node || Some(n) == self.idle_node;
        let mut prev = self.samples[0];
        let mut current = self.samples[1];
        for i in 1..count - 1 {
            let next = self.samples[i + 1];
            let (Some(p), Some(n)) = (prev, next) else {
                // DevTools moves on without advancing its window here.
                continue;
            };
            if current == Some(program) && !is_system(p) && !is_system(n) && self.bottom_node(p) == self.bottom_node(n)
            {
                self.samples[i] = Some(p);
            }
            prev = current;
            current = next;
        }
    }

    /// The ancestor just below the root.
    fn bottom_node(&self, mut n: NodeIx) -> NodeIx {
        while let Some(p) = self.nodes[n as usize].parent {
            if self.nodes[p as usize].parent.is_none() {
                break;
            }
            n = p;
        }
        n
    }

    /// The node whose input id is `id`, if it is in the tree.
    pub fn node_by_id(&self, id: i64) -> Option<NodeIx> {
        self.by_id.get(&id).copied()
    }

    /// The node of sample `i` (in time order); `None` past the end, or
    /// where the sample named no node of the tree.
    pub fn node_by_index(&self, i: usize) -> Option<NodeIx> {
        self.samples.get(i).copied().flatten()
    }

    /// The node at `ix`, which must come from this model.
    pub fn node(&self, ix: NodeIx) -> &ProfileNode {
        &self.nodes[ix as usize]
    }

    /// Whether `ix` is the root or one of the meta nodes the tracks hide.
    pub fn is_root_or_meta(&self, ix: NodeIx) -> bool {
        ix == self.root || Some(ix) == self.program_node || Some(ix) == self.idle_node || Some(ix) == self.gc_node
    }
}

/// A profile's start and end (in milliseconds, as the model counts them),
/// and its raw sample timestamps in microseconds: the legacy form's as
/// written, else the running sum of the time deltas from the start.
///
/// The list has room for one more time, the estimated end that
/// `sort_and_normalize` adds: a list grown by one is copied whole.
fn raw_times(profile: &RawProfile) -> (Millis, Millis, Option<Vec<f64>>) {
    match profile.legacy {
        Some(span) => {
            let timestamps = profile.timestamps.as_ref().map(|times| {
                let mut copy = Vec::with_capacity(times.len() + 1);
                copy.extend_from_slice(times);
                copy
            });
            (span.start.to_millis(), span.end.to_millis(), timestamps)
        }
        None => {
            let mut ts = Vec::with_capacity(profile.time_deltas.as_ref().map_or(0, Vec::len) + 1);
            let mut last = profile.start_time.0;
            for delta in profile.time_deltas.iter().flatten() {
                last += delta;
                ts.push(last);
            }
            (profile.start_time.to_millis(), profile.end_time.to_millis(), Some(ts))
        }
    }
}

/// The node tree, before samples.
struct Tree {
    nodes: Vec<ProfileNode>,
    by_id: AHashMap<i64, NodeIx>,
    max_depth: i32,
}

/// Walks the nodes depth-first from the first one, which is taken as the
/// root, with DevTools' stack discipline so that child order matches; a
/// node is visited once (cycles and shared children are counted), and
/// unknown or unreachable ones are counted.
fn build_node_tree(raw_nodes: &[RawNode], diag: &mut Diagnostics) -> Tree {
    let mut raw_by_id: AHashMap<i64, usize> = AHashMap::with_capacity(raw_nodes.len());
    for (i, n) in raw_nodes.iter().enumerate() {
        raw_by_id.insert(n.id, i);
    }
    // Children lists, from parent links when the root has none.
    let mut children: Vec<Vec<i64>> = raw_nodes
        .iter()
        .map(|n| n.children.clone().unwrap_or_default())
        .collect();
    if raw_nodes[0].children.is_none() {
        for n in &raw_nodes[1..] {
            let Some(&p) = n.parent.as_ref().and_then(|p| raw_by_id.get(p)) else {
                if n.parent.is_some() {
                    diag.skip(Skip::ProfileUnknownParent, || format!("node {}", n.id));
                }
                continue;
            };
            children[p].push(n.id);
        }
    }

    let mut nodes: Vec<ProfileNode> = Vec::with_capacity(raw_nodes.len());
    let mut by_id: AHashMap<i64, NodeIx> = AHashMap::with_capacity(raw_nodes.len());
    let mut visited = vec![false; raw_nodes.len()];
    visited[0] = true;
    nodes.push(ProfileNode {
        id: raw_nodes[0].id,
        call_frame: raw_nodes[0].call_frame,
        parent: None,
        depth: -1,
        children: Vec::new(),
    });
    by_id.insert(raw_nodes[0].id, 0);
    let mut max_depth = 0;
    let mut stack: Vec<(NodeIx, i64)> = children[0].iter().map(|&c| (0, c)).collect();
    while let Some((parent, id)) = stack.pop() {
        let Some(&raw) = raw_by_id.get(&id) else {
            diag.skip(Skip::ProfileUnknownChild, || format!("node id {id}"));
            continue;
        };
        if visited[raw] {
            diag.skip(Skip::ProfileNodeReachedTwice, || format!("node id {id}"));
            diag.diverge(Divergence::ProfileNodeCycle, || format!("node id {id}"));
            continue;
        }
        visited[raw] = true;
        // Fewer nodes than raw nodes, which were checked to fit.
        #[allow(clippy::cast_possible_truncation)]
        let ix = nodes.len() as NodeIx;
        let depth = nodes[parent as usize].depth + 1;
        max_depth = max_depth.max(depth);
        nodes.push(ProfileNode {
            id,
            call_frame: raw_nodes[raw].call_frame,
            parent: Some(parent),
            depth,
            children: Vec::new(),
        });
        nodes[parent as usize].children.push(ix);
        by_id.insert(id, ix);
        stack.extend(children[raw].iter().map(|&c| (ix, c)));
    }
    let unreachable = visited.iter().filter(|v| !**v).count();
    if unreachable > 0 {
        diag.skip(Skip::ProfileUnreachableNodes, || {
            format!(
                "{unreachable} nodes, e.g. id {}",
                raw_nodes[visited.iter().position(|v| !v).unwrap_or(0)].id
            )
        });
    }
    Tree {
        nodes,
        by_id,
        max_depth,
    }
}

/// Sorts times and their samples (lists of one length) stably by time,
/// in place, by insertion, when they are nearly in order: a profile's
/// samples are, but for some a few places late (about one in ten on
/// Chrome's). Gives up, returning false, once it has moved samples
/// `max_moves` places in all, so that it costs at most a pass and
/// `max_moves` moves; what it leaves is then in order but for what it has
/// not reached, equal times in their first order, for the caller's stable
/// sort to finish with the same result. Without NaN, which the caller
/// rules out.
fn sort_nearly_sorted(times: &mut [f64], samples: &mut [Option<NodeIx>], max_moves: usize) -> bool {
    debug_assert_eq!(times.len(), samples.len());
    let mut moves = 0usize;
    for next in 1..times.len().min(samples.len()) {
        let time = times[next];
        let mut at = next;
        while at > 0 && times[at - 1] > time {
            at -= 1;
        }
        if at == next {
            continue;
        }
        moves += next - at;
        if moves > max_moves {
            return false;
        }
        let sample = samples[next];
        times.copy_within(at..next, at + 1);
        samples.copy_within(at..next, at + 1);
        times[at] = time;
        samples[at] = sample;
    }
    true
}

#[cfg(test)]
mod tests;
