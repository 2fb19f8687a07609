//! The Bottom-Up while the walk builds it: fed each call as it starts and
//! ends, it sums the first level per id and adds each ended call to the
//! chain of its callers (function, caller, caller's caller...), with
//! DevTools' end markers, in the order the calls end.
//!
//! A call adds to as many nodes as it has callers, which at full depth is
//! most of the views' time (on a recorded main thread, about 500K calls
//! with 30 callers each). Every call made at the same Call Tree node has
//! the same callers, so the chain of Bottom-Up nodes it adds to is found
//! once per Call Tree node and kept ([`Chains`]): the later calls there
//! add along a list of node indices instead of stepping from node to node
//! through the child tables. The additions themselves are made call by
//! call in the same order as before, so that every sum is the same to the
//! last bit (floating-point sums depend on their order).

use crate::js::{js_max, js_min};
use crate::Tree;
use tracekit_engine::Micros;

/// A row of the Bottom-Up's first level, while the walk sums it.
#[derive(Clone, Copy)]
pub(crate) struct FirstLevel {
    pub(crate) self_ms: f64,
    pub(crate) total_ms: f64,
    pub(crate) transfer_size: f64,
    /// The event whose end (or, for an instant, itself) made the row.
    made_by: u32,
}

/// What a call adds to, and what it reads, at one Bottom-Up node below the
/// first level. Kept apart from the tree's nodes, in one small record per
/// node, so that a step up a chain touches one record: the parent's end
/// marker was read or written by the step before.
#[derive(Clone, Copy)]
struct NodeSums {
    self_ms: f64,
    total_ms: f64,
    /// The end (ms) of the last call that added to a chain through this
    /// node: a later call adds only its time past it to the next node
    /// (the window start before any).
    end_marker: f64,
}

/// The chain of Bottom-Up nodes of each Call Tree node, once a call there
/// has ended: its first-level node, then one node per caller, innermost
/// first (as many as the depth limit allows).
///
/// Sound only when a Call Tree node's path determines its callers' ids,
/// which holds when each Call Tree id stands for one view id (always
/// without grouping).
struct Chains {
    /// By Call Tree node: where its chain is in `nodes`, once found.
    of_call_tree_node: Vec<Option<(u32, u32)>>,
    /// The chains, one after the other.
    nodes: Vec<u32>,
    /// The most node indices `nodes` may hold. Past it (a great many deep
    /// Call Tree nodes), the other calls step up the tree one caller at a
    /// time.
    budget: usize,
}

/// The most node indices a thread's [`Chains`] hold by default: 16 MB.
pub(crate) const CHAIN_BUDGET: usize = 1 << 22;

/// The Bottom-Up while the walk builds it, fed the calls as they start and
/// end.
pub(crate) struct BottomUpBuilder {
    tree: Tree,
    /// By node: see [`NodeSums`].
    sums: Vec<NodeSums>,
    /// `None` when the chains cannot be kept for this thread.
    chains: Option<Chains>,
    /// A chain found by stepping that is not kept.
    scratch: Vec<u32>,
    /// By id (ids are dense indices): the first-level row.
    first: Vec<Option<FirstLevel>>,
    /// The ids of the first-level rows, in the order of their first end
    /// or instant (DevTools' order of rows).
    first_order: Vec<u32>,
    /// By id: the clipped duration of its outermost open call, while one
    /// is open.
    open_total: Vec<Option<f64>>,
    /// By id: its first-level node, once made.
    root_child: Vec<u32>,
    /// Callers added below each first-level node (the depth limit).
    callers: usize,
    /// The most nodes the tree may have; past them, no caller is added
    /// (the views fail).
    max_nodes: usize,
    window_start_ms: f64,
    window_end_ms: f64,
}

/// A call that ended, as the Bottom-Up reads it.
pub(crate) struct EndedCall {
    /// The event that made it (an index into the thread's events).
    pub(crate) event: u32,
    /// Its view id.
    pub(crate) id: u32,
    /// Its Call Tree node.
    pub(crate) call_tree_node: u32,
    /// Start and end, µs (unclipped).
    pub(crate) ts: f64,
    pub(crate) end_us: f64,
    /// Its clipped duration less its kept children's (may be NaN).
    pub(crate) self_ms: f64,
    /// Whether no call with the same id was open around it.
    pub(crate) outermost: bool,
}

impl BottomUpBuilder {
    /// A builder for a thread with `id_count` view ids; `chain_budget`:
    /// the most node indices the kept chains may hold, `None` when they
    /// cannot be kept (a Call Tree id stands for several view ids).
    pub(crate) fn new(
        id_count: usize,
        chain_budget: Option<usize>,
        callers: usize,
        max_nodes: usize,
        window_start_ms: f64,
        window_end_ms: f64,
    ) -> BottomUpBuilder {
        BottomUpBuilder {
            tree: Tree::new(),
            sums: Vec::new(),
            chains: chain_budget.map(|budget| Chains {
                of_call_tree_node: Vec::new(),
                nodes: Vec::new(),
                // Chain nodes are indexed by u32.
                budget: budget.min(u32::MAX as usize - 1),
            }),
            scratch: Vec::new(),
            first: vec![None; id_count],
            first_order: Vec::new(),
            open_total: vec![None; id_count],
            root_child: vec![u32::MAX; id_count],
            callers,
            // Nodes are indexed by u32.
            max_nodes: max_nodes.min(u32::MAX as usize - 1),
            window_start_ms,
            window_end_ms,
        }
    }

    /// The first-level row of `id`, made (by event `event`) if needed.
    pub(crate) fn first_level(&mut self, id: u32, event: u32) -> &mut FirstLevel {
        let row = &mut self.first[id as usize];
        if row.is_none() {
            self.first_order.push(id);
        }
        row.get_or_insert(FirstLevel {
            self_ms: 0.0,
            total_ms: 0.0,
            transfer_size: 0.0,
            made_by: event,
        })
    }

    /// A call of `id` started, `clipped_ms` long in the window; whether no
    /// call of the same id is open around it.
    pub(crate) fn call_started(&mut self, id: u32, clipped_ms: f64) -> bool {
        let open = &mut self.open_total[id as usize];
        let outermost = open.is_none();
        if outermost {
            *open = Some(clipped_ms);
        }
        outermost
    }

    /// `call` ended; `callers` are its callers' ids, innermost first (read
    /// only when its Call Tree node's chain is not kept yet).
    pub(crate) fn call_ended(&mut self, call: &EndedCall, callers: impl Iterator<Item = u32>) {
        let self_or_zero = if call.self_ms.is_nan() { 0.0 } else { call.self_ms };
        let total = if call.outermost {
            self.open_total[call.id as usize].take().unwrap_or(0.0)
        } else {
            0.0
        };
        let row = self.first_level(call.id, call.event);
        row.self_ms += self_or_zero;
        row.total_ms += if total.is_nan() { 0.0 } else { total };

        // Deeper levels: the chain of callers, innermost first (the
        // first-level nodes are made at the end).
        if self.callers == 0 {
            return;
        }
        let Some(chain) = self.chain(call, callers) else {
            return;
        };
        let chain = match chain {
            Chain::Kept(start, len) => {
                let chains = self.chains.as_ref().expect("a kept chain is in the chains");
                &chains.nodes[start as usize..(start + len) as usize]
            }
            Chain::Scratch => &self.scratch[..],
        };
        let end = js_min(Micros(call.end_us).to_millis().0, self.window_end_ms);
        let start = Micros(call.ts).to_millis().0;
        for step in chain.windows(2) {
            let marker = &mut self.sums[step[0] as usize].end_marker;
            let added = end - js_max(start, *marker);
            *marker = end;
            let n = &mut self.sums[step[1] as usize];
            n.self_ms += self_or_zero;
            n.total_ms += added;
        }
    }

    /// The chain of `call`'s Call Tree node, found and kept if it is not
    /// yet; `None` past the node budget (the views fail).
    fn chain(&mut self, call: &EndedCall, callers: impl Iterator<Item = u32>) -> Option<Chain> {
        let td = call.call_tree_node as usize;
        if let Some(chains) = &self.chains {
            if let Some(Some((start, len))) = chains.of_call_tree_node.get(td) {
                return Some(Chain::Kept(*start, *len));
            }
        }
        let mut chain = std::mem::take(&mut self.scratch);
        chain.clear();
        let mut node = self.root_child(call.id);
        chain.push(node);
        let mut over_budget = self.over_budget();
        for caller in callers.take(self.callers) {
            if over_budget {
                break;
            }
            node = self.step(node, caller);
            chain.push(node);
            over_budget = self.over_budget();
        }
        if over_budget {
            self.scratch = chain;
            return None;
        }
        if let Some(chains) = &mut self.chains {
            if chains.nodes.len() + chain.len() <= chains.budget {
                // At most the chain budget, which `new` keeps below u32::MAX.
                #[allow(clippy::cast_possible_truncation)]
                let start = chains.nodes.len() as u32;
                // A chain is at most as long as the deepest stack of a track, whose nodes are indexed by u32.
                #[allow(clippy::cast_possible_truncation)]
                let len = chain.len() as u32;
                chains.nodes.extend_from_slice(&chain);
                if chains.of_call_tree_node.len() <= td {
                    chains.of_call_tree_node.resize(td + 1, None);
                }
                chains.of_call_tree_node[td] = Some((start, len));
                self.scratch = chain;
                return Some(Chain::Kept(start, len));
            }
        }
        self.scratch = chain;
        Some(Chain::Scratch)
    }

    /// Whether the tree has more nodes than its budget: the views fail,
    /// and building on would only take memory.
    fn over_budget(&self) -> bool {
        self.tree.nodes.len() > self.max_nodes
    }

    /// The first-level node of `id`, made if needed.
    fn root_child(&mut self, id: u32) -> u32 {
        let slot = self.root_child[id as usize];
        if slot != u32::MAX {
            return slot;
        }
        let node = self.step(0, id);
        self.root_child[id as usize] = node;
        node
    }

    /// The child `id` of `parent`, made if needed, with its sums.
    fn step(&mut self, parent: u32, id: u32) -> u32 {
        let child = self.tree.child(parent, id);
        if self.sums.len() < self.tree.nodes.len() {
            self.sums.resize(
                self.tree.nodes.len(),
                NodeSums {
                    self_ms: 0.0,
                    total_ms: 0.0,
                    end_marker: self.window_start_ms,
                },
            );
        }
        child
    }

    /// The finished tree, and the node count before the first level was
    /// kept: the first level as DevTools keeps it (rows with self time or
    /// a transfer size, in the order of their first end or instant), with
    /// the group of the event that made each row (`group_of` an event
    /// index).
    pub(crate) fn finish(mut self, group_of: impl Fn(u32) -> u32) -> (Tree, Vec<(u32, u32)>) {
        for (node, sums) in self.tree.nodes.iter_mut().zip(&self.sums).skip(1) {
            node.self_ms = sums.self_ms;
            node.total_ms = sums.total_ms;
        }
        let mut kept_children = Vec::new();
        for id in std::mem::take(&mut self.first_order) {
            let row = self.first[id as usize].expect("a row for each id in the order");
            if row.self_ms <= 0.0 && row.transfer_size <= 0.0 {
                continue;
            }
            let c = self.root_child(id);
            self.tree.nodes[c as usize].self_ms = row.self_ms;
            self.tree.nodes[c as usize].total_ms = row.total_ms;
            kept_children.push((c, group_of(row.made_by)));
        }
        self.tree.nodes[0].children = kept_children.iter().map(|(c, _)| *c).collect();
        (self.tree, kept_children)
    }
}

/// Where the chain of an ended call is.
enum Chain {
    /// In the kept chains: start and length.
    Kept(u32, u32),
    /// In the builder's scratch list.
    Scratch,
}
