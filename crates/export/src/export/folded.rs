//! Folded stacks, the input of flamegraph.pl and inferno: a line per
//! distinct stack, `process;thread;frame;frame VALUE`, VALUE the stack's
//! self time in whole microseconds.

use tracekit_engine::support::map_biggest_first;

use super::stacks::{stack_trees, StackTree};
use super::{kept_threads, KeptThread, RoundedSum};
use tracekit_engine::query::Query;
use tracekit_engine::Analysis;
use tracekit_engine::Parallelism;

/// The folded stacks of the threads `query` keeps: for each thread, a
/// line per distinct stack with self time, `PROCESS;THREAD;FRAME;...;FRAME
/// MICROSECONDS`, the root frame first. A frame is an event's name or a JS
/// function's name and `url:line:column`; `;` in a name is written `%3B`
/// and line breaks as spaces, so that a frame stays one frame. Values are
/// rounded so that a thread's lines add up to its self time rounded to
/// the microsecond (a line whose value rounds to 0 is left out).
pub fn folded(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> String {
    write_folded(analysis, query, parallelism, Direction::TopDown)
}

/// [`folded`] with each stack's frames after the thread reversed, from
/// the frame the time was spent in to the root: the callers of each
/// function, as DevTools' Bottom-Up shows them (`tracekit flamegraph
/// --bottom-up` draws it as an icicle).
pub fn folded_bottom_up(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> String {
    write_folded(analysis, query, parallelism, Direction::BottomUp)
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    TopDown,
    BottomUp,
}

/// The threads `query` keeps, their stack trees, and by frame number,
/// the frame's text in the lines.
fn stacks<'a>(
    analysis: &'a Analysis,
    query: &'a Query,
    parallelism: Parallelism,
) -> (Vec<KeptThread<'a>>, Vec<StackTree>, Vec<String>) {
    let threads = kept_threads(analysis, query);
    let (frames, trees) = stack_trees(&threads, parallelism);
    let labels = frames
        .keys()
        .map(|k| frame_text(&k.label(analysis.strings())))
        .collect();
    (threads, trees, labels)
}

fn write_folded(analysis: &Analysis, query: &Query, parallelism: Parallelism, direction: Direction) -> String {
    let (threads, trees, labels) = stacks(analysis, query, parallelism);
    let pieces: Vec<String> = map_biggest_first(
        threads.iter().zip(&trees).collect(),
        parallelism,
        |(_, tree)| tree.stacks.len(),
        |(thread, tree): (&KeptThread<'_>, &StackTree)| {
            let mut out = String::new();
            match direction {
                Direction::TopDown => {
                    let lines = Lines::of(tree);
                    top_down(&mut out, thread, tree, &labels, &lines.order, &lines.values, None);
                }
                Direction::BottomUp => bottom_up(&mut out, thread, tree, &labels),
            }
            out
        },
    );
    pieces.concat()
}

/// [`folded`], shortened for a flame graph that leaves out every frame
/// narrower than `min_width` percent of the whole (inferno's `min_width`,
/// 0.01 by default): a stack that narrow, with the stacks that extend it
/// (narrower still), is written as one line holding all their time. The
/// stack's frame keeps its place and width, and the frames left out were
/// not drawn, so inferno draws the same picture, byte for byte, from far
/// fewer lines (a test compares the two).
///
/// That holds because inferno merges its sorted lines into frames, and a
/// stack's lines stay next to each other once sorted, unless a sibling's
/// frame starts with its frame's text (`f a.js:1:2` and `f a.js:1:20`):
/// such siblings are never merged. Nor is anything merged when a frame's
/// text would read as part of a count (ending in a space or in a space and
/// digits, which inferno reads as a count or a differential one), or when
/// two threads have the same process and thread frames: then this is
/// [`folded`].
pub fn folded_to_draw(analysis: &Analysis, query: &Query, parallelism: Parallelism, min_width: f64) -> String {
    let (threads, trees, labels) = stacks(analysis, query, parallelism);
    let mut prefixes: Vec<String> = threads.iter().map(thread_prefix).collect();
    prefixes.sort_unstable();
    let mergeable = labels.iter().all(|label| !reads_as_a_count(label)) && prefixes.windows(2).all(|w| w[0] != w[1]);

    // The lines' values first: the width to leave out is a share of
    // their sum, over every thread.
    let lines: Vec<Lines> = map_biggest_first(trees.iter().collect(), parallelism, |tree| tree.stacks.len(), Lines::of);
    let time: i64 = lines.iter().flat_map(|lines| &lines.values).sum();
    // inferno's own arithmetic, so that the same frames are narrow.
    #[allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]
    let narrower_than = min_width / (100.0 / time as u64 as f64);

    let pieces: Vec<String> = map_biggest_first(
        threads.iter().zip(&trees).zip(&lines).collect(),
        parallelism,
        |((_, tree), _)| tree.stacks.len(),
        |((thread, tree), lines)| {
            let mut out = String::new();
            if mergeable {
                let (values, whole) = merge_narrow_stacks(tree, &lines.values, &labels, narrower_than);
                top_down(&mut out, thread, tree, &labels, &lines.order, &values, Some(&whole));
            } else {
                top_down(&mut out, thread, tree, &labels, &lines.order, &lines.values, None);
            }
            out
        },
    );
    pieces.concat()
}

/// Whether inferno, reading `label` as the last frame of a line, would
/// take part of it for a count: its end is blank, or its last word is
/// digits (with a point), which it reads as a differential count.
fn reads_as_a_count(label: &str) -> bool {
    if label.ends_with(char::is_whitespace) {
        return true;
    }
    label
        .rsplit_once(' ')
        .is_some_and(|(_, word)| word.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The lines of a thread with its narrow stacks merged: by stack, the
/// value of its line, and whether the line holds the stacks that extend
/// it too (which then have none). A stack is merged when its time with
/// its extensions' is below `narrower_than` and no sibling's frame text
/// starts with its own or its own with a sibling's (see
/// [`folded_to_draw`]).
fn merge_narrow_stacks(
    tree: &StackTree,
    values: &[i64],
    labels: &[String],
    narrower_than: f64,
) -> (Vec<i64>, Vec<bool>) {
    let widths = tree.summed_up(values.to_vec());
    let distinct = |siblings: &[u32]| {
        let mut texts: Vec<&str> = siblings
            .iter()
            .map(|&s| labels[tree.stacks[s as usize].frame as usize].as_str())
            .collect();
        texts.sort_unstable();
        texts.windows(2).all(|w| !w[1].starts_with(w[0]))
    };
    let mut whole = vec![false; tree.stacks.len()];
    let merge_among = |siblings: &[u32], whole: &mut Vec<bool>| {
        #[allow(clippy::cast_precision_loss)]
        let narrow = |s: u32| (widths[s as usize] as f64) < narrower_than;
        if siblings.iter().any(|&s| narrow(s)) && distinct(siblings) {
            for &s in siblings.iter().filter(|&&s| narrow(s)) {
                whole[s as usize] = true;
            }
        }
    };
    merge_among(&tree.roots, &mut whole);
    for stack in &tree.stacks {
        merge_among(&stack.children, &mut whole);
    }
    let values = values
        .iter()
        .zip(&widths)
        .zip(&whole)
        .map(|((&value, &width), &whole)| if whole { width } else { value })
        .collect();
    (values, whole)
}

/// The lines of a thread's stack tree, before they are written.
struct Lines {
    /// The stacks in the order of their lines, depth first: `(stack,
    /// depth)` ([`StackTree::depth_first`]).
    order: Vec<(u32, u32)>,
    /// By stack, the value of its line: its self time in whole
    /// microseconds, rounded so that the thread's lines, in `order`, add
    /// up to its self time rounded.
    values: Vec<i64>,
}

impl Lines {
    fn of(tree: &StackTree) -> Lines {
        let order = tree.depth_first();
        let mut rounded = RoundedSum::default();
        let mut values = vec![0; tree.stacks.len()];
        for &(stack, _) in &order {
            values[stack as usize] = rounded.take(tree.stacks[stack as usize].self_us);
        }
        Lines { order, values }
    }
}

/// The first two frames of every line of a thread.
fn thread_prefix(thread: &KeptThread<'_>) -> String {
    format!(
        "{};{}",
        frame_text(&thread.process_label),
        frame_text(&thread.thread_label)
    )
}

/// Writes a thread's lines, stacks in depth-first `order`, each with its
/// value. With `whole`, a stack marked there is written with its value
/// from `values` and the stacks that extend it are not written (`values`
/// then holds such a stack's time with theirs).
fn top_down(
    out: &mut String,
    thread: &KeptThread<'_>,
    tree: &StackTree,
    labels: &[String],
    order: &[(u32, u32)],
    values: &[i64],
    whole: Option<&[bool]>,
) {
    // The line of the current stack, and where each depth's frame starts
    // in it, so that a stack's line is its parent's plus one frame.
    let mut line = thread_prefix(thread);
    let mut starts: Vec<usize> = Vec::new();
    // The depth of a stack written whole: deeper ones are skipped until
    // the walk comes back up to it.
    let mut written_whole: Option<u32> = None;
    for &(stack, depth) in order {
        if let Some(whole_depth) = written_whole {
            if depth > whole_depth {
                continue;
            }
            written_whole = None;
        }
        if whole.is_some_and(|whole| whole[stack as usize]) {
            written_whole = Some(depth);
        }
        let depth = depth as usize;
        if let Some(&start) = starts.get(depth) {
            line.truncate(start);
        }
        starts.truncate(depth);
        starts.push(line.len());
        let entry = &tree.stacks[stack as usize];
        line.push(';');
        line.push_str(&labels[entry.frame as usize]);
        let value = values[stack as usize];
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

#[cfg(test)]
mod tests {
    use super::reads_as_a_count;

    #[test]
    fn frames_inferno_would_read_a_count_in_are_found() {
        for label in ["Frame 12", "tick 1.5", "x .", "trailing ", "tab\t", "a b 7"] {
            assert!(reads_as_a_count(label), "{label}");
        }
        for label in ["RunTask", "f a.js:1:20", "g :1:1", "12", "Frame 12a", "(tid 10)"] {
            assert!(!reads_as_a_count(label), "{label}");
        }
    }
}
