//! The folded stacks of a side, for the differential flame graph: a
//! line per distinct stack, `ROLE;FRAME;...;FRAME MICROSECONDS`, threads
//! named by role ([`crate::thread_role`]) so that two runs line up, and
//! the runs of a side averaged.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use std::collections::HashMap;

use tracekit::{Analysis, NodeKind, Sym, Thread};

use crate::keys::thread_role;

/// A side's stacks: self time in µs per stack, summed over its runs.
#[derive(Debug, Clone, Default)]
pub struct Stacks {
    /// Per stack (`ROLE;FRAME;...`), the self µs summed over the runs.
    pub self_us: BTreeMap<String, f64>,
    /// The runs added.
    pub runs: usize,
}

/// A frame as the folded stacks write it: `;` as `%3B`, line breaks as
/// spaces.
fn frame_text(s: &str) -> String {
    s.replace(';', "%3B").replace(['\n', '\r'], " ")
}

impl Stacks {
    /// Adds a run: every node with self time, under its thread's role.
    /// Each thread's nodes are merged into a tree of stacks first (a
    /// frame's label made once per distinct frame, a stack found by its
    /// parent and frame), so that a line is written once per distinct
    /// stack, not per node.
    pub fn add(&mut self, analysis: &Analysis) {
        self.runs += 1;
        for thread in analysis.threads() {
            let role = frame_text(&thread_role(analysis, &thread));
            let tree = StackTree::of(&thread);
            for (stack, us) in tree.lines(&role) {
                *self.self_us.entry(stack).or_insert(0.0) += us;
            }
        }
    }

    /// Adds another side's runs to this one.
    pub fn merge(&mut self, other: Stacks) {
        self.runs += other.runs;
        for (stack, us) in other.self_us {
            *self.self_us.entry(stack).or_insert(0.0) += us;
        }
    }

    /// The stacks of the thread roles in `roles` (all when empty), each
    /// value the mean over the runs, rounded to the µs (lines that round
    /// to 0 are left out).
    pub fn folded(&self, roles: &[String]) -> String {
        let mut out = String::new();
        let runs = self.runs.max(1) as f64;
        let kept = |stack: &str| {
            roles.is_empty()
                || roles
                    .iter()
                    .any(|r| stack.split(';').next() == Some(frame_text(r).as_str()))
        };
        for (stack, us) in &self.self_us {
            let mean = (us / runs).round();
            if mean >= 1.0 && kept(stack) {
                let _ = writeln!(out, "{stack} {mean}");
            }
        }
        out
    }
}

/// A frame of a thread: an event by name, or a JS call by its profile node.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FrameKey {
    Event(Sym),
    Call(u32),
}

/// One thread's nodes merged by stack.
struct StackTree {
    /// The frames' labels, by frame id.
    labels: Vec<String>,
    /// By stack id: its parent's stack id (`u32::MAX` at the root), its
    /// frame id, its self µs.
    stacks: Vec<(u32, u32, f64)>,
}

impl StackTree {
    fn of(thread: &Thread<'_>) -> StackTree {
        let mut frames: HashMap<FrameKey, u32> = HashMap::new();
        let mut labels: Vec<String> = Vec::new();
        let mut by_parent: HashMap<(u32, u32), u32> = HashMap::new();
        let mut stacks: Vec<(u32, u32, f64)> = Vec::new();
        // The stack id of each depth down to the current node.
        let mut path: Vec<u32> = Vec::new();
        for node in thread.nodes() {
            let key = match node.raw().kind() {
                NodeKind::Event { name, .. } => FrameKey::Event(name),
                NodeKind::Call { frame } => FrameKey::Call(frame),
            };
            let frame = *frames.entry(key).or_insert_with(|| {
                labels.push(match node.function() {
                    Some(f) if node.is_js_call() => format!("{} {}", frame_text(f.name()), frame_text(&f.location())),
                    _ => frame_text(node.name()),
                });
                // Fewer distinct frames than nodes, which a thread numbers in u32.
                #[allow(clippy::cast_possible_truncation)]
                let id = (labels.len() - 1) as u32;
                id
            });
            path.truncate(node.depth() as usize);
            let parent = path.last().copied().unwrap_or(u32::MAX);
            let stack = *by_parent.entry((parent, frame)).or_insert_with(|| {
                stacks.push((parent, frame, 0.0));
                // As frames: fewer stacks than nodes.
                #[allow(clippy::cast_possible_truncation)]
                let id = (stacks.len() - 1) as u32;
                id
            });
            stacks[stack as usize].2 += node.self_time().map_or(0.0, |t| t.0.max(0.0));
            path.push(stack);
        }
        StackTree { labels, stacks }
    }

    /// The lines `ROLE;FRAME;...` of the stacks with self time, and their µs.
    fn lines(&self, role: &str) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        let mut chain: Vec<u32> = Vec::new();
        for (i, &(_, _, us)) in self.stacks.iter().enumerate() {
            if us <= 0.0 {
                continue;
            }
            chain.clear();
            // Stack ids fit in u32 (see `of`).
            #[allow(clippy::cast_possible_truncation)]
            let mut s = i as u32;
            while s != u32::MAX {
                let (parent, frame, _) = self.stacks[s as usize];
                chain.push(frame);
                s = parent;
            }
            let mut line = role.to_owned();
            for &frame in chain.iter().rev() {
                line.push(';');
                line.push_str(&self.labels[frame as usize]);
            }
            out.push((line, us));
        }
        out
    }
}
