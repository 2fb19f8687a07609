//! The timeline exports' walk of a thread (speedscope, Perfetto): its kept
//! nodes as nested open and close steps in time order, cut into pieces
//! that can be written apart, on several cores, and joined in order into
//! the bytes a single walk would make.

use std::ops::Range;

use tracekit_engine::Micros;
use tracekit_engine::TrackNode;

use super::KeptThread;

/// One step of a timeline: a node opens or closes, at a time in
/// microseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step<'a> {
    pub node: &'a TrackNode,
    /// The node's place among its thread's kept nodes.
    pub kept: usize,
    /// Whether the node opens (else it closes).
    pub opens: bool,
    pub at: Micros,
}

/// The nodes of a thread as properly nested open and close steps, in
/// time order, clipped to the window. Each node closes at its end, except
/// when that would come before a time already stepped past (a node a
/// profile left open, with no duration, but children): then it closes
/// there, so that the steps never go back in time and children close
/// inside their parents, as timeline viewers require.
pub(crate) struct Steps<'a, 'n> {
    thread: &'n KeptThread<'a>,
    /// The nodes left to open, with their places among the kept nodes.
    nodes: std::iter::Zip<Range<usize>, std::slice::Iter<'n, &'a TrackNode>>,
    /// The open nodes, with their places and ends.
    open: Vec<(&'a TrackNode, usize, Micros)>,
    /// The next node to open, once the nodes it is not inside are closed.
    pending: Option<(usize, &'a TrackNode)>,
    /// The latest time stepped to.
    now: Micros,
}

impl<'a, 'n> Steps<'a, 'n> {
    /// The steps of all a thread's kept nodes.
    #[cfg(test)]
    pub fn new(thread: &'n KeptThread<'a>) -> Self {
        Steps::of_piece(
            thread,
            &Piece {
                thread: 0,
                nodes: 0..thread.nodes.len(),
                now: Micros(f64::NEG_INFINITY),
            },
        )
    }

    /// The steps of a piece of the thread's kept nodes: the same as the
    /// whole thread's steps from the piece's first node to its last one's
    /// close.
    pub fn of_piece(thread: &'n KeptThread<'a>, piece: &Piece) -> Self {
        Steps {
            thread,
            nodes: piece.nodes.clone().zip(thread.nodes[piece.nodes.clone()].iter()),
            open: Vec::new(),
            pending: None,
            now: piece.now,
        }
    }
}

impl<'a> Iterator for Steps<'a, '_> {
    type Item = Step<'a>;

    fn next(&mut self) -> Option<Step<'a>> {
        if self.pending.is_none() {
            self.pending = self.nodes.next().map(|(kept, node)| (kept, *node));
        }
        // The nodes a node is not inside are those open as deep as it or
        // deeper; all of them when there is no node left.
        let deepest_kept = self.pending.map_or(0, |(_, n)| n.depth() as usize);
        if self.open.len() > deepest_kept {
            let (node, kept, end) = self.open.pop().expect("more open nodes than kept");
            self.now = self.now.max(end);
            return Some(Step {
                node,
                kept,
                opens: false,
                at: self.now,
            });
        }
        let (kept, node) = self.pending.take()?;
        self.now = self.now.max(self.thread.clip(node.ts()));
        self.open.push((node, kept, end_of(self.thread, node)));
        Some(Step {
            node,
            kept,
            opens: true,
            at: self.now,
        })
    }
}

/// Where a node's close step would be without earlier steps: its end,
/// clipped to the window (its start for an instant).
fn end_of(thread: &KeptThread<'_>, node: &TrackNode) -> Micros {
    thread.clip(node.ts() + node.dur().unwrap_or(Micros::ZERO))
}

/// About how many nodes a piece has: about a megabyte of speedscope text
/// or of Perfetto packets.
const PIECE_NODES: usize = 1 << 14;

/// A run of a thread's kept nodes whose steps are written as one piece.
/// It starts at a root, where the thread's steps have closed every node
/// before it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Piece {
    /// The thread's place among the kept threads.
    pub thread: usize,
    /// The nodes: a range of the thread's kept nodes, never empty.
    pub nodes: Range<usize>,
    /// The time the thread's steps reached before the piece (`-inf` before
    /// any step).
    pub now: Micros,
}

impl Piece {
    /// Whether the piece is its thread's first.
    pub fn is_first(&self) -> bool {
        self.nodes.start == 0
    }

    /// Whether the piece is its thread's last.
    pub fn is_last(&self, threads: &[KeptThread<'_>]) -> bool {
        self.nodes.end == threads[self.thread].nodes.len()
    }
}

/// The threads' steps in pieces, and when each thread's steps begin and end.
pub(crate) struct Timeline {
    /// The pieces, thread after thread, each thread's in order.
    pub pieces: Vec<Piece>,
    /// For each thread, the times of its first and last steps (its steps
    /// never go back in time).
    pub spans: Vec<(Micros, Micros)>,
}

/// Cuts each thread's kept nodes into pieces of about [`PIECE_NODES`]
/// nodes, at roots, in one pass over the nodes: the time the steps reached
/// before a root is the latest start or end of the nodes before it (every
/// step's time is one of those, or a time already reached).
pub(crate) fn timeline(threads: &[KeptThread<'_>]) -> Timeline {
    timeline_in_pieces_of(threads, PIECE_NODES)
}

/// [`timeline`], with pieces of about `piece_nodes` nodes.
pub(crate) fn timeline_in_pieces_of(threads: &[KeptThread<'_>], piece_nodes: usize) -> Timeline {
    let mut pieces = Vec::new();
    let mut spans = Vec::with_capacity(threads.len());
    for (index, thread) in threads.iter().enumerate() {
        let start_of_time = Micros(f64::NEG_INFINITY);
        let (mut piece_start, mut piece_now, mut now) = (0, start_of_time, start_of_time);
        for (kept, node) in thread.nodes.iter().enumerate() {
            if node.depth() == 0 && kept - piece_start >= piece_nodes {
                pieces.push(Piece {
                    thread: index,
                    nodes: piece_start..kept,
                    now: piece_now,
                });
                (piece_start, piece_now) = (kept, now);
            }
            now = now.max(thread.clip(node.ts())).max(end_of(thread, node));
        }
        if piece_start < thread.nodes.len() {
            pieces.push(Piece {
                thread: index,
                nodes: piece_start..thread.nodes.len(),
                now: piece_now,
            });
        }
        let first = thread
            .nodes
            .first()
            .map_or(start_of_time, |node| start_of_time.max(thread.clip(node.ts())));
        spans.push((first, now));
    }
    Timeline { pieces, spans }
}
