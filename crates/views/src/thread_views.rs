//! What the walk gives for a thread ([`ThreadViews`]): both views with
//! their tables of node and group ids and labels, and their rows in the
//! panel's default order of siblings ([`View`]).

use tracekit_engine::CallFrame;

use crate::tree::preorder;
use crate::{SampleCounts, Tree, TreeNode};

/// Both views of one thread.
#[derive(Debug, Clone)]
pub struct ThreadViews {
    /// The node ids (DevTools' `generateEventID`, which with grouping the
    /// Call Tree suffixes with `/GROUP` for a non-empty group), indexed by
    /// [`TreeNode::id`].
    pub ids: Vec<String>,
    /// A readable label of each id: the id itself, or for a JS call
    /// `js NAME URL:LINE:COLUMN` (1-based, as the tracks' text format);
    /// an id with a group suffix has the label of the id without it.
    pub labels: Vec<String>,
    /// The call frame of each id that names a JS call.
    pub frames: Vec<Option<CallFrame>>,
    /// The group ids (empty with no grouping), indexed by the
    /// [`TreeNode::id`] of group nodes; `""` is the empty group.
    pub group_ids: Vec<String>,
    /// A readable label of each group ([`GroupBy::label`](crate::GroupBy::label)).
    pub group_labels: Vec<String>,
    /// The Call Tree.
    pub top_down: Tree,
    /// The Bottom-Up; its first-level nodes with no self time (and no
    /// transfer size) are already removed.
    pub bottom_up: Tree,
    /// The CPU samples in each Call Tree node, for a thread with a CPU
    /// profile; `None` without one.
    pub samples: Option<SampleCounts>,
}

impl ThreadViews {
    /// The rows `(depth, node)` of `view` as the panel lists them when
    /// fully expanded: pre-order, siblings in [`View`]'s default order,
    /// rows of depth < `max_depth` only (`None`: all). `node` indexes the
    /// view's [`Tree::nodes`]; the root (node 0) is not a row.
    pub fn rows(&self, view: View, max_depth: Option<u32>) -> Vec<(u32, u32)> {
        let tree = match view {
            View::TopDown => &self.top_down,
            View::BottomUp => &self.bottom_up,
        };
        preorder(tree, max_depth, sibling_order(self, view))
    }

    /// The id of a node (a node id or a group id).
    pub fn id(&self, node: &TreeNode) -> &str {
        if node.is_group {
            &self.group_ids[node.id as usize]
        } else {
            &self.ids[node.id as usize]
        }
    }

    /// The readable label of a node.
    pub fn label(&self, node: &TreeNode) -> &str {
        if node.is_group {
            &self.group_labels[node.id as usize]
        } else {
            &self.labels[node.id as usize]
        }
    }
}

/// Which view [`write_text`](crate::write_text) prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The Call Tree: children by total time, largest first.
    TopDown,
    /// The Bottom-Up: children by self time, largest first.
    BottomUp,
}

/// The order of siblings as the panel sorts them by default: by total
/// time (Call Tree) or self time (Bottom-Up), largest first, then by id.
pub(crate) fn sibling_order(
    views: &ThreadViews,
    view: View,
) -> impl FnMut(&TreeNode, &TreeNode) -> std::cmp::Ordering + '_ {
    move |a, b| {
        let (x, y) = match view {
            View::TopDown => (a.total_ms, b.total_ms),
            View::BottomUp => (a.self_ms, b.self_ms),
        };
        y.total_cmp(&x).then_with(|| views.id(a).cmp(views.id(b)))
    }
}
