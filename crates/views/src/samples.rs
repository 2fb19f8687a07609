//! The CPU samples of a thread's window counted per Call Tree node
//! ([`SampleCounts`]), attributed alongside the walk to the call that each
//! sample's leaf frame was running.

use ahash::AHashMap;
use tracekit_engine::CpuSample;

use crate::Tree;

/// The CPU samples of a thread's window counted per Call Tree node (the
/// trie of call sites with `samples` and `selfCount`): a sample taken at
/// `t`, with `start <= t <= end` of the window, counts for the JS call
/// that its leaf frame made and that was running at `t`, and for each of
/// that call's ancestors. The Performance panel shows no such counts;
/// the profile's own samples are the reference (see `docs/views.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Samples taken in each node or below it, indexed like the Call
    /// Tree's nodes (the root's: every attributed sample).
    pub total: Vec<u32>,
    /// Samples taken with the node's call on top of the stack.
    pub own: Vec<u32>,
    /// Samples taken in the window.
    pub in_window: u32,
    /// Samples in the window whose leaf call is no Call Tree node: a call
    /// of zero duration (two samples at the same time), which the views
    /// take for an instant.
    pub unattributed: u32,
}

/// Attributes a thread's samples to the Call Tree node of the call each
/// one's leaf frame was running, fed in time order alongside the walk.
pub(crate) struct SampleAttribution<'t> {
    samples: &'t [CpuSample],
    /// The next sample to attribute.
    next: usize,
    /// Samples at or after this time (µs) are outside the window.
    end_us: f64,
    /// The latest call of each frame: (Call Tree node, start, end), µs;
    /// by frame for the track's frames, and for a frame past them (of no
    /// known function) in `call_of_unknown_frame`.
    call_of_frame: Vec<Option<(u32, f64, f64)>>,
    call_of_unknown_frame: AHashMap<u32, (u32, f64, f64)>,
    counts: SampleCounts,
}

impl<'t> SampleAttribution<'t> {
    pub(crate) fn new(samples: &'t [CpuSample], frame_count: usize, start_us: f64, end_us: f64) -> Self {
        SampleAttribution {
            samples,
            next: samples.partition_point(|s| s.ts.0 < start_us),
            end_us,
            call_of_frame: vec![None; frame_count],
            call_of_unknown_frame: AHashMap::new(),
            counts: SampleCounts::default(),
        }
    }

    /// A call of `frame` started, as Call Tree node `node`.
    pub(crate) fn call_started(&mut self, frame: u32, node: u32, start_us: f64, end_us: f64) {
        let call = (node, start_us, end_us);
        match self.call_of_frame.get_mut(frame as usize) {
            Some(slot) => *slot = Some(call),
            None => {
                self.call_of_unknown_frame.insert(frame, call);
            }
        }
    }

    /// Attributes the samples taken before `until_us`: every call running
    /// then has started.
    pub(crate) fn attribute_before(&mut self, until_us: f64) {
        while let Some(sample) = self.samples.get(self.next) {
            let t = sample.ts.0;
            if !(t < until_us && t <= self.end_us) {
                break;
            }
            self.next += 1;
            self.counts.in_window += 1;
            let call = match self.call_of_frame.get(sample.frame as usize) {
                Some(known) => *known,
                None => self.call_of_unknown_frame.get(&sample.frame).copied(),
            };
            match call {
                Some((node, start, end)) if start <= t && t < end => {
                    let own = &mut self.counts.own;
                    if own.len() <= node as usize {
                        own.resize(node as usize + 1, 0);
                    }
                    own[node as usize] += 1;
                }
                _ => self.counts.unattributed += 1,
            }
        }
    }

    /// The counts, totals summed up the tree (group nodes included, which
    /// are made after their children).
    pub(crate) fn finish(mut self, top_down: &Tree) -> SampleCounts {
        self.attribute_before(f64::INFINITY);
        let mut counts = self.counts;
        counts.own.resize(top_down.nodes.len(), 0);
        counts.total.clone_from(&counts.own);
        // Post-order: a node's total once all its children's are summed.
        let mut stack: Vec<(u32, bool)> = vec![(0, false)];
        while let Some((node, children_done)) = stack.pop() {
            let children = &top_down.nodes[node as usize].children;
            if children_done {
                let sum: u32 = children.iter().map(|&c| counts.total[c as usize]).sum();
                counts.total[node as usize] += sum;
            } else {
                stack.push((node, true));
                stack.extend(children.iter().map(|&c| (c, false)));
            }
        }
        counts
    }
}
