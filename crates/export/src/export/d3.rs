//! d3-flame-graph's JSON: the distinct stacks as nested
//! `{"name", "value", "children"}` objects, values the total time in
//! microseconds.

use tracekit_engine::support::jsnum::{round3, write_json_number};
use tracekit_engine::support::json::write_json_string;

use super::kept_threads;
use super::stacks::{stack_trees, StackTree};
use tracekit_engine::query::Query;
use tracekit_engine::Analysis;
use tracekit_engine::Parallelism;

/// The d3-flame-graph JSON of the threads `query` keeps: a root `all`,
/// a child per process, a child per thread under it, then the distinct
/// stacks of the thread's calls (merged as in a flame graph; a frame is
/// named as in [`super::folded()`], without its escapes). Each `value`
/// is the node's total time in microseconds (to the nanosecond): its
/// self time plus its children's values, so that a node is never narrower
/// than its children.
pub fn d3(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> String {
    let interner = analysis.strings();
    let threads = kept_threads(analysis, query);
    let (frames, trees) = stack_trees(&threads, parallelism);
    let labels: Vec<String> = frames.keys().map(|k| k.label(interner)).collect();
    let mut processes: Vec<ProcessStacks> = Vec::new();
    for (thread, tree) in threads.iter().zip(trees) {
        let stacks = ThreadStacks {
            label: thread.thread_label.clone(),
            totals: tree.totals(),
            tree,
        };
        match processes.last_mut() {
            Some(process) if process.label == thread.process_label => process.threads.push(stacks),
            _ => processes.push(ProcessStacks {
                label: thread.process_label.clone(),
                threads: vec![stacks],
            }),
        }
    }
    let mut out = String::new();
    open_node(&mut out, "all", processes.iter().map(ProcessStacks::total).sum());
    for (pi, process) in processes.iter().enumerate() {
        if pi > 0 {
            out.push(',');
        }
        open_node(&mut out, &process.label, process.total());
        for (ti, thread) in process.threads.iter().enumerate() {
            if ti > 0 {
                out.push(',');
            }
            open_node(&mut out, &thread.label, thread.total());
            write_stacks(&mut out, &thread.tree, &thread.totals, &labels);
            out.push_str("]}");
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    out
}

/// A process's node: its threads.
struct ProcessStacks {
    label: String,
    threads: Vec<ThreadStacks>,
}

impl ProcessStacks {
    fn total(&self) -> f64 {
        self.threads.iter().map(ThreadStacks::total).sum()
    }
}

/// A thread's node: its stacks, with their totals.
struct ThreadStacks {
    label: String,
    tree: StackTree,
    totals: Vec<f64>,
}

impl ThreadStacks {
    fn total(&self) -> f64 {
        self.tree.roots.iter().map(|&r| self.totals[r as usize]).sum()
    }
}

/// `{"name":NAME,"value":VALUE,"children":[`.
fn open_node(out: &mut String, name: &str, value: f64) {
    out.push_str("{\"name\":");
    write_json_string(out, name);
    out.push_str(",\"value\":");
    write_json_number(out, round3(value));
    out.push_str(",\"children\":[");
}

/// The stacks of a thread as nested nodes, without recursion (stacks can
/// be hundreds of thousands deep).
fn write_stacks(out: &mut String, tree: &StackTree, totals: &[f64], labels: &[String]) {
    // Each open node, with how many of its children were written.
    let mut open: Vec<(u32, usize)> = Vec::new();
    let mut roots = tree.roots.iter();
    let mut first_root = true;
    loop {
        let (next, first) = match open.last_mut() {
            Some((stack, written)) => {
                let Some(&child) = tree.stacks[*stack as usize].children.get(*written) else {
                    out.push_str("]}");
                    open.pop();
                    continue;
                };
                *written += 1;
                (child, *written == 1)
            }
            None => match roots.next() {
                Some(&root) => (root, std::mem::replace(&mut first_root, false)),
                None => break,
            },
        };
        if !first {
            out.push(',');
        }
        let frame = tree.stacks[next as usize].frame;
        open_node(out, &labels[frame as usize], totals[next as usize]);
        open.push((next, 0));
    }
}
