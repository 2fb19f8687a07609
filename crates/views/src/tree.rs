//! One view's tree ([`Tree`], [`TreeNode`]): its nodes, the lookup of a
//! node's child by id (made if needed) that the walk and the Bottom-Up's
//! builder step through, the group nodes put over the top level, and the
//! rows in pre-order.

use ahash::AHashMap;

/// A node of a view. Times in ms, clipped to the window.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// Index of the node's id in [`ThreadViews::ids`](crate::ThreadViews::ids), or for a group node
    /// in [`ThreadViews::group_ids`](crate::ThreadViews::group_ids) (unused for the root).
    pub id: u32,
    /// A group node (the top level of a grouped view).
    pub is_group: bool,
    /// Time spent in the node itself.
    pub self_ms: f64,
    /// Time of the node with its children (for a Bottom-Up node: see
    /// `docs/views.md`).
    pub total_ms: f64,
    /// Children, indices into [`Tree::nodes`], in order of creation.
    pub children: Vec<u32>,
}

/// One view of a thread: node 0 is the root (not printed).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// The nodes, the root first.
    pub nodes: Vec<TreeNode>,
    /// The children of the nodes with more than [`Tree::FEW_CHILDREN`], by
    /// `parent << 32 | id` (one word hashes faster than a pair).
    children_by_id: AHashMap<u64, u32>,
    /// By node: the id and index of the child last asked for. Calls
    /// repeat (a function called in a loop), so the child asked for next
    /// is most often the same, found without hashing.
    last_child: Vec<(u32, u32)>,
}

impl Tree {
    /// Up to this many children, a node's child is found by reading them
    /// (the most nodes have fewer): a hash lookup costs more, and so does
    /// keeping each child in the table.
    const FEW_CHILDREN: usize = 8;

    pub(crate) fn new() -> Tree {
        Tree {
            nodes: vec![TreeNode {
                id: u32::MAX,
                is_group: false,
                self_ms: 0.0,
                total_ms: 0.0,
                children: Vec::new(),
            }],
            children_by_id: AHashMap::new(),
            last_child: vec![(u32::MAX, u32::MAX)],
        }
    }

    /// The child of `parent` with id `id`, made if needed.
    pub(crate) fn child(&mut self, parent: u32, id: u32) -> u32 {
        let (last_id, last) = self.last_child[parent as usize];
        if last_id == id {
            return last;
        }
        let c = self.child_by_id(parent, id);
        self.last_child[parent as usize] = (id, c);
        c
    }

    /// The child of `parent` with id `id`, found among its children (a
    /// node with few) or in the table (one with more), made if needed.
    fn child_by_id(&mut self, parent: u32, id: u32) -> u32 {
        let key = |child: u32| u64::from(parent) << 32 | u64::from(child);
        let siblings = &self.nodes[parent as usize].children;
        let found = if siblings.len() <= Tree::FEW_CHILDREN {
            siblings.iter().copied().find(|&c| self.nodes[c as usize].id == id)
        } else {
            self.children_by_id.get(&key(id)).copied()
        };
        if let Some(c) = found {
            return c;
        }
        // A tree has at most one node per event and ancestor, and stops at its node budget, below u32::MAX.
        #[allow(clippy::cast_possible_truncation)]
        let c = self.nodes.len() as u32;
        self.last_child.push((u32::MAX, u32::MAX));
        self.nodes.push(TreeNode {
            id,
            is_group: false,
            self_ms: 0.0,
            total_ms: 0.0,
            children: Vec::new(),
        });
        let siblings = &mut self.nodes[parent as usize].children;
        siblings.push(c);
        // Past a few children, the table holds them all.
        if siblings.len() == Tree::FEW_CHILDREN + 1 {
            for &s in &self.nodes[parent as usize].children {
                self.children_by_id.insert(key(self.nodes[s as usize].id), s);
            }
        } else if siblings.len() > Tree::FEW_CHILDREN + 1 {
            self.children_by_id.insert(key(id), c);
        }
        c
    }

    /// Puts the root's children under group nodes: one per group, in the
    /// order the groups first appear among the children (given with their
    /// group, in the root's order). A group node's self time is the sum of
    /// its children's, its total the sum of `total_of` them.
    pub(crate) fn group_roots(&mut self, children: &[(u32, u32)], total_of: impl Fn(&TreeNode) -> f64) {
        let mut group_nodes: AHashMap<u32, u32> = AHashMap::new();
        let mut roots = Vec::new();
        for &(child, group) in children {
            let node = *group_nodes.entry(group).or_insert_with(|| {
                self.nodes.push(TreeNode {
                    id: group,
                    is_group: true,
                    self_ms: 0.0,
                    total_ms: 0.0,
                    children: Vec::new(),
                });
                self.last_child.push((u32::MAX, u32::MAX));
                // As in `child`: the node budget is below u32::MAX.
                #[allow(clippy::cast_possible_truncation)]
                let node = (self.nodes.len() - 1) as u32;
                roots.push(node);
                node
            });
            let (self_ms, total_ms) = {
                let c = &self.nodes[child as usize];
                (c.self_ms, total_of(c))
            };
            let g = &mut self.nodes[node as usize];
            g.self_ms += self_ms;
            g.total_ms += total_ms;
            g.children.push(child);
        }
        self.nodes[0].children = roots;
    }
}

/// Pre-order rows `(depth, node)` of a tree, siblings ordered by `order`,
/// rows of depth < `max_depth` only.
pub(crate) fn preorder(
    tree: &Tree,
    max_depth: Option<u32>,
    mut order: impl FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering,
) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let limit = max_depth.unwrap_or(u32::MAX);
    if limit == 0 {
        return out;
    }
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let push_children = |stack: &mut Vec<(u32, u32)>,
                         node: u32,
                         depth: u32,
                         order: &mut dyn FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering| {
        let mut children = tree.nodes[node as usize].children.clone();
        children.sort_by(|a, b| order(&tree.nodes[*a as usize], &tree.nodes[*b as usize]));
        for c in children.into_iter().rev() {
            stack.push((c, depth));
        }
    };
    push_children(&mut stack, 0, 0, &mut order);
    while let Some((node, depth)) = stack.pop() {
        out.push((depth, node));
        if depth + 1 < limit {
            push_children(&mut stack, node, depth + 1, &mut order);
        }
    }
    out
}
