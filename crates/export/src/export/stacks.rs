//! A thread's calls merged by stack: one node per distinct path of
//! frames from a root, with the self and total time and the number of
//! calls along it. The aggregated exports (folded stacks, d3, pprof) are
//! written from it, as a flame graph is drawn from it.

use ahash::AHashMap;
use tracekit_engine::support::map_biggest_first;
use tracekit_engine::{Micros, Parallelism};

use super::{Frames, KeptThread};

/// The stack trees of threads, their frames numbered in one table in
/// order of first use, thread after thread, as [`StackTree::of`] numbers
/// them when the threads are merged one after the other. Each thread's
/// tree is made on its own (on all cores with [`Parallelism::Rayon`], the
/// biggest threads first), with its own numbering, then renumbered: a
/// thread's frames not used by the threads before it come in the order it
/// first used them.
pub(crate) fn stack_trees(threads: &[KeptThread<'_>], parallelism: Parallelism) -> (Frames, Vec<StackTree>) {
    let made: Vec<(Frames, StackTree)> = map_biggest_first(
        threads.iter().collect(),
        parallelism,
        |thread| thread.nodes.len(),
        |thread| {
            let mut frames = Frames::default();
            let tree = StackTree::of(thread, &mut frames);
            (frames, tree)
        },
    );
    let mut frames = Frames::default();
    let trees = made
        .into_iter()
        .map(|(own, mut tree)| {
            let numbers: Vec<u32> = own.keys().map(|key| frames.index(key)).collect();
            for stack in &mut tree.stacks {
                stack.frame = numbers[stack.frame as usize];
            }
            tree
        })
        .collect();
    (frames, trees)
}

/// No parent: a root of the tree.
const ROOT: u32 = u32::MAX;

/// One distinct stack.
pub(crate) struct Stack {
    /// Its last frame (a number of [`Frames`]).
    pub frame: u32,
    /// The stack it extends, or [`ROOT`].
    pub parent: u32,
    /// The stacks that extend it, in order of their first call.
    pub children: Vec<u32>,
    /// The self time of its calls, in microseconds.
    pub self_us: f64,
    /// How many calls it had.
    pub calls: u64,
}

/// A call being merged: its stack, and with a window, its time inside the
/// window and its children's.
struct Open {
    stack: u32,
    inside: f64,
    children_inside: f64,
}

/// A thread's distinct stacks. Stacks are numbered in order of their first
/// call, so a stack comes after the stack it extends.
pub(crate) struct StackTree {
    pub stacks: Vec<Stack>,
    /// The stacks of depth 1, in order of first call.
    pub roots: Vec<u32>,
}

impl StackTree {
    /// Merges the kept nodes of a thread by stack, numbering their frames
    /// in `frames`. A node's self time is the tracks' own; a node without
    /// one (a profile's frame left open) adds none. With a window, it is
    /// the node's time inside the window less its children's, as the
    /// Call Tree of a selection counts it.
    pub fn of(thread: &KeptThread<'_>, frames: &mut Frames) -> StackTree {
        let mut tree = StackTree {
            stacks: Vec::new(),
            roots: Vec::new(),
        };
        let mut by_parent_and_frame: AHashMap<(u32, u32), u32> = AHashMap::new();
        // The open calls, one per depth: their stack, and with a window,
        // their time inside it and their children's.
        let mut path: Vec<Open> = Vec::new();
        let mut frames = frames.of_thread(thread.track);
        for node in &thread.nodes {
            tree.close(&mut path, node.depth() as usize);
            let parent = path.last().map_or(ROOT, |open| open.stack);
            let frame = frames.index(node);
            let next = u32::try_from(tree.stacks.len()).expect("fewer stacks than nodes, and nodes than u32::MAX");
            let stack = *by_parent_and_frame.entry((parent, frame)).or_insert(next);
            if stack == next {
                tree.stacks.push(Stack {
                    frame,
                    parent,
                    children: Vec::new(),
                    self_us: 0.0,
                    calls: 0,
                });
                match parent {
                    ROOT => tree.roots.push(stack),
                    _ => tree.stacks[parent as usize].children.push(stack),
                }
            }
            tree.stacks[stack as usize].calls += 1;
            let inside = match thread.window {
                None => {
                    let self_time = node.self_time().unwrap_or(Micros::ZERO).0;
                    tree.stacks[stack as usize].self_us += self_time.max(0.0);
                    0.0
                }
                Some(_) => {
                    let end = node.ts() + node.dur().unwrap_or(Micros::ZERO);
                    let inside = (thread.clip(end) - thread.clip(node.ts())).0;
                    if let Some(parent) = path.last_mut() {
                        parent.children_inside += inside;
                    }
                    inside
                }
            };
            path.push(Open {
                stack,
                inside,
                children_inside: 0.0,
            });
        }
        tree.close(&mut path, 0);
        tree
    }

    /// Closes the open calls deeper than `depth`, adding their self time
    /// inside the window (zero without one: the self time was added when
    /// they opened).
    fn close(&mut self, path: &mut Vec<Open>, depth: usize) {
        while path.len() > depth {
            let open = path.pop().expect("checked above");
            self.stacks[open.stack as usize].self_us += (open.inside - open.children_inside).max(0.0);
        }
    }

    /// The stacks depth-first, each before those that extend it, children
    /// in order of first call: `(stack, depth)`, roots at depth 0.
    pub fn depth_first(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.stacks.len());
        let mut todo: Vec<(u32, u32)> = self.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((stack, depth)) = todo.pop() {
            out.push((stack, depth));
            let children = &self.stacks[stack as usize].children;
            todo.extend(children.iter().rev().map(|&c| (c, depth + 1)));
        }
        out
    }

    /// The total time of each stack in microseconds: its self time plus
    /// its children's totals (so that a parent is never narrower than its
    /// children, even under a frame a profile left open).
    pub fn totals(&self) -> Vec<f64> {
        self.summed_up(self.stacks.iter().map(|s| s.self_us).collect())
    }

    /// `own` (a value by stack) with each stack's value added to the
    /// stack it extends, and so on up: by stack, its value and that of
    /// every stack extending it.
    pub fn summed_up<T: Copy + std::ops::AddAssign>(&self, mut own: Vec<T>) -> Vec<T> {
        // Stacks come after their parents: adding in reverse order adds
        // each child's whole sum before its parent is added to.
        for index in (0..self.stacks.len()).rev() {
            let parent = self.stacks[index].parent;
            if parent != ROOT {
                let value = own[index];
                own[parent as usize] += value;
            }
        }
        own
    }

    /// The frames of a stack from its last to its root.
    pub fn frames_upwards(&self, mut stack: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::from_fn(move || {
            let entry = self.stacks.get(stack as usize)?;
            stack = entry.parent;
            Some(entry.frame)
        })
    }
}
