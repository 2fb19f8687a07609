//! Traces of the JS Self-Profiling API (what `Profiler.stop()` returns:
//! `frames`, `resources`, `samples`, `stacks`) turned into the equivalent
//! CPU profile.
//!
//! The rules: a `(root)` node; one node for each distinct path of frames
//! from the root (a stack's node is the child, for its `frameId`, of its
//! `parentId` stack's node); a node's call frame has the frame's `name`,
//! `url` = `resources[resourceId]` or "", 0-based `line - 1` and
//! `column - 1` (or -1 where absent) and script id "0"; a sample without a
//! `stackId` goes to a `(program)` child of the root. Timestamps are
//! milliseconds: microseconds are `timestamp * 1000`, unrounded; the profile
//! spans the first to the last sample.

use ahash::AHashMap;
use serde::Deserialize;
use tracekit_events::{names, Diagnostics, Interner, Micros, Millis};

use crate::callframe::{CallFrame, IdLocation};
use crate::raw::{RawNode, RawProfile};

#[derive(Deserialize)]
struct SelfProfile {
    frames: Vec<Frame>,
    #[serde(default)]
    resources: Vec<String>,
    samples: Vec<Sample>,
    stacks: Vec<Stack>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    #[serde(default)]
    name: String,
    resource_id: Option<usize>,
    line: Option<f64>,
    column: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sample {
    timestamp: f64,
    stack_id: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stack {
    frame_id: usize,
    parent_id: Option<usize>,
}

/// Reads a Self-Profiling trace and builds its CPU profile.
pub fn parse_self_profile(
    text: &str,
    interner: &mut Interner,
    diag: &mut Diagnostics,
) -> Result<RawProfile, serde_json::Error> {
    let input: SelfProfile = serde_json::from_str(text)?;
    Ok(build(&input, interner, diag))
}

struct Builder<'i> {
    interner: &'i mut Interner,
    nodes: Vec<RawNode>,
    child_by_frame: AHashMap<(i64, usize), i64>,
}

impl Builder<'_> {
    fn push(&mut self, parent: Option<i64>, call_frame: CallFrame) -> i64 {
        crate::raw::push_node(&mut self.nodes, parent, call_frame)
    }

    fn child(&mut self, parent: i64, frame_id: usize, frame: &Frame, resources: &[String]) -> i64 {
        if let Some(&id) = self.child_by_frame.get(&(parent, frame_id)) {
            return id;
        }
        let url = frame
            .resource_id
            .and_then(|r| resources.get(r))
            .map_or(names::EMPTY, |u| self.interner.intern(u));
        let call_frame = CallFrame {
            function_name: self.interner.intern(&frame.name),
            url,
            script_id: names::ZERO,
            id_location: IdLocation::ScriptId,
            line_number: Some(frame.line.map_or(-1.0, |l| l - 1.0)),
            column_number: Some(frame.column.map_or(-1.0, |c| c - 1.0)),
            code_type: None,
        };
        let id = self.push(Some(parent), call_frame);
        self.child_by_frame.insert((parent, frame_id), id);
        id
    }
}

fn build(input: &SelfProfile, interner: &mut Interner, diag: &mut Diagnostics) -> RawProfile {
    let mut b = Builder {
        interner,
        nodes: Vec::new(),
        child_by_frame: AHashMap::new(),
    };
    let root = b.push(None, CallFrame::meta(names::ROOT));

    // The node of each stack, resolved iteratively so that neither depth
    // nor a cycle of parent ids can hurt.
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unresolved,
        Resolving,
        Node(i64),
        Invalid,
    }
    let mut state = vec![State::Unresolved; input.stacks.len()];
    for start in 0..input.stacks.len() {
        let mut chain = Vec::new();
        let mut cursor = Some(start);
        let mut base = root;
        while let Some(s) = cursor {
            match state.get(s).copied() {
                None | Some(State::Invalid) | Some(State::Resolving) => {
                    if state.get(s).copied() == Some(State::Resolving) {
                        diag.skip(tracekit_events::Skip::SelfProfileStackCycle, || format!("stack {s}"));
                    } else {
                        diag.skip(tracekit_events::Skip::SelfProfileUnknownParentOrFrame, || {
                            format!("stack {s}")
                        });
                    }
                    base = -1;
                    break;
                }
                Some(State::Node(id)) => {
                    base = id;
                    break;
                }
                Some(State::Unresolved) => {
                    state[s] = State::Resolving;
                    chain.push(s);
                    cursor = input.stacks[s].parent_id;
                }
            }
        }
        while let Some(s) = chain.pop() {
            let frame_id = input.stacks[s].frame_id;
            state[s] = match (base, input.frames.get(frame_id)) {
                (-1, _) | (_, None) => {
                    base = -1;
                    State::Invalid
                }
                (parent, Some(frame)) => {
                    base = b.child(parent, frame_id, frame, &input.resources);
                    State::Node(base)
                }
            };
        }
    }

    let mut program = None;
    let mut samples = Vec::with_capacity(input.samples.len());
    let mut times = Vec::with_capacity(input.samples.len());
    for (i, sample) in input.samples.iter().enumerate() {
        let node = match sample.stack_id {
            None => *program.get_or_insert_with(|| b.push(Some(root), CallFrame::meta(names::PROGRAM))),
            Some(s) => match state.get(s) {
                Some(State::Node(id)) => *id,
                _ => {
                    diag.skip(tracekit_events::Skip::SelfProfileUnknownStack, || format!("sample {i}"));
                    continue;
                }
            },
        };
        samples.push(node);
        times.push(Millis(sample.timestamp).to_micros().0);
    }
    let start_time = times.first().copied().unwrap_or(0.0);
    let end_time = times.last().copied().unwrap_or(0.0);
    let mut previous = start_time;
    let time_deltas = times
        .iter()
        .map(|&t| {
            let delta = t - previous;
            previous = t;
            delta
        })
        .collect();
    RawProfile {
        nodes: b.nodes,
        start_time: Micros(start_time),
        end_time: Micros(end_time),
        samples: Some(samples),
        time_deltas: Some(time_deltas),
        timestamps: None,
        trace_ids: None,
        legacy: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_one_node_per_path() {
        let text = r#"{"frames":[{"name":"Profiler"},{"column":27,"line":5,"name":"handleClick","resourceId":0},
            {"column":17,"line":6,"name":"isPrime","resourceId":1},{"column":26,"line":15,"name":"genPrimes","resourceId":1}],
            "resources":["http://localhost:3000/main.js","http://localhost:3000/generate.js"],
            "samples":[{"stackId":1,"timestamp":2972.5},{"stackId":3,"timestamp":2973.5},{"timestamp":2974}],
            "stacks":[{"frameId":1},{"frameId":0,"parentId":0},{"frameId":3,"parentId":0},{"frameId":2,"parentId":2}]}"#;
        let mut interner = Interner::new();
        let mut diag = Diagnostics::default();
        let p = parse_self_profile(text, &mut interner, &mut diag).unwrap();
        // root, handleClick, Profiler, genPrimes, isPrime, (program)
        assert_eq!(p.nodes.len(), 6);
        let labels: Vec<String> = p.nodes.iter().map(|n| n.call_frame.label(&interner)).collect();
        assert_eq!(labels[1], "js:handleClick@http://localhost:3000/main.js:4:26");
        assert_eq!(labels[4], "js:isPrime@http://localhost:3000/generate.js:5:16");
        assert_eq!(labels[5], "js:(program)@:-1:-1");
        assert_eq!(p.samples, Some(vec![3, 5, 6]));
        assert_eq!(p.start_time, Micros(2972500.0));
        assert_eq!(p.time_deltas, Some(vec![0.0, 1000.0, 500.0]));
        assert!(diag.skipped.is_empty());
    }

    #[test]
    fn survives_cycles_and_bad_ids() {
        let text = r#"{"frames":[{"name":"a"}],"resources":[],
            "samples":[{"stackId":0,"timestamp":1},{"stackId":9,"timestamp":2},{"stackId":2,"timestamp":3}],
            "stacks":[{"frameId":0,"parentId":1},{"frameId":0,"parentId":0},{"frameId":5}]}"#;
        let mut interner = Interner::new();
        let mut diag = Diagnostics::default();
        let p = parse_self_profile(text, &mut interner, &mut diag).unwrap();
        assert_eq!(p.samples, Some(vec![]));
        assert_eq!(diag.total_skipped(), 5);
    }
}
