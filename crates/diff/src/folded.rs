//! The folded stacks of a side, for the differential flame graph: a
//! line per distinct stack, `ROLE;FRAME;...;FRAME MICROSECONDS`, threads
//! named by role ([`crate::thread_role`]) so that two runs line up, and
//! the runs of a side averaged.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tracekit::Analysis;

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
    pub fn add(&mut self, analysis: &Analysis) {
        self.runs += 1;
        for thread in analysis.threads() {
            let role = frame_text(&thread_role(analysis, &thread));
            // The stack of frames down to the current node: (depth, where its frame starts in `line`).
            let mut line = role.clone();
            let mut starts: Vec<usize> = Vec::new();
            for node in thread.nodes() {
                let depth = node.depth() as usize;
                if let Some(&start) = starts.get(depth) {
                    line.truncate(start);
                    starts.truncate(depth);
                }
                starts.push(line.len());
                line.push(';');
                match node.function() {
                    Some(f) if node.is_js_call() => {
                        let _ = write!(line, "{} {}", frame_text(f.name()), frame_text(&f.location()));
                    }
                    _ => line.push_str(&frame_text(node.name())),
                }
                let us = node.self_time().map_or(0.0, |t| t.0);
                if us > 0.0 {
                    *self.self_us.entry(line.clone()).or_insert(0.0) += us;
                }
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
