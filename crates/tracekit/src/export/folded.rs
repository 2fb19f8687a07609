//! Folded stacks, the input of flamegraph.pl and inferno: a line per
//! distinct stack, `process;thread;frame;frame VALUE`, VALUE the stack's
//! self time in whole microseconds.

use tracekit_events::map_biggest_first;

use super::stacks::{stack_trees, StackTree};
use super::{kept_threads, KeptThread, RoundedSum};
use crate::engine::Analysis;
use crate::output::Filter;

/// The folded stacks of the threads `filter` keeps: for each thread, a
/// line per distinct stack with self time, `PROCESS;THREAD;FRAME;...;FRAME
/// MICROSECONDS`, the root frame first. A frame is an event's name or a JS
/// function's name and `url:line:column`; `;` in a name is written `%3B`
/// and line breaks as spaces, so that a frame stays one frame. Values are
/// rounded so that a thread's lines add up to its self time rounded to
/// the microsecond (a line whose value rounds to 0 is left out).
pub fn folded(analysis: &Analysis, filter: &Filter) -> String {
    write_folded(analysis, filter, Direction::TopDown)
}

/// [`folded`] with each stack's frames after the thread reversed, from
/// the frame the time was spent in to the root: the callers of each
/// function, as DevTools' Bottom-Up shows them (`tracekit flamegraph
/// --bottom-up` draws it as an icicle).
pub fn folded_bottom_up(analysis: &Analysis, filter: &Filter) -> String {
    write_folded(analysis, filter, Direction::BottomUp)
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    TopDown,
    BottomUp,
}

fn write_folded(analysis: &Analysis, filter: &Filter, direction: Direction) -> String {
    let threads = kept_threads(analysis, filter);
    let (frames, trees) = stack_trees(&threads, filter.parallelism);
    let labels: Vec<String> = frames.keys().map(|k| frame_text(&k.label(&analysis.strings))).collect();
    let pieces: Vec<String> = map_biggest_first(
        threads.iter().zip(&trees).collect(),
        filter.parallelism,
        |(_, tree)| tree.stacks.len(),
        |(thread, tree): (&KeptThread<'_>, &StackTree)| {
            let mut out = String::new();
            match direction {
                Direction::TopDown => top_down(&mut out, thread, tree, &labels),
                Direction::BottomUp => bottom_up(&mut out, thread, tree, &labels),
            }
            out
        },
    );
    pieces.concat()
}

/// The first two frames of every line of a thread.
fn thread_prefix(thread: &KeptThread<'_>) -> String {
    format!(
        "{};{}",
        frame_text(&thread.process_label),
        frame_text(&thread.thread_label)
    )
}

fn top_down(out: &mut String, thread: &KeptThread<'_>, tree: &StackTree, labels: &[String]) {
    let mut rounded = RoundedSum::default();
    // The line of the current stack, and where each depth's frame starts
    // in it, so that a stack's line is its parent's plus one frame.
    let mut line = thread_prefix(thread);
    let mut starts: Vec<usize> = Vec::new();
    for (stack, depth) in tree.depth_first() {
        let depth = depth as usize;
        if let Some(&start) = starts.get(depth) {
            line.truncate(start);
        }
        starts.truncate(depth);
        starts.push(line.len());
        let entry = &tree.stacks[stack as usize];
        line.push(';');
        line.push_str(&labels[entry.frame as usize]);
        let value = rounded.take(entry.self_us);
        if value > 0 {
            out.push_str(&line);
            out.push(' ');
            out.push_str(itoa::Buffer::new().format(value));
            out.push('\n');
        }
    }
}

fn bottom_up(out: &mut String, thread: &KeptThread<'_>, tree: &StackTree, labels: &[String]) {
    let mut rounded = RoundedSum::default();
    let prefix = thread_prefix(thread);
    for (stack, _) in tree.depth_first() {
        let value = rounded.take(tree.stacks[stack as usize].self_us);
        if value <= 0 {
            continue;
        }
        out.push_str(&prefix);
        for frame in tree.frames_upwards(stack) {
            out.push(';');
            out.push_str(&labels[frame as usize]);
        }
        out.push(' ');
        out.push_str(itoa::Buffer::new().format(value));
        out.push('\n');
    }
}

/// A name as one frame of a folded line: `;` separates frames, so it is
/// written `%3B` (as in a URL); a line break would end the line, so it
/// becomes a space.
fn frame_text(name: &str) -> String {
    name.replace(';', "%3B").replace(['\n', '\r'], " ")
}
