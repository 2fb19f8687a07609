//! The walks of a page dependency graph Lantern's simulation and metrics
//! make: breadth first from a node (along dependents or dependencies), the
//! search for a cycle, and the copy of a graph keeping only the nodes a
//! predicate keeps (with everything they wait for).
//!
//! Lantern tells nodes apart by their id (two nodes of one id are one to a
//! walk), so the walks here do too.

use ahash::AHashMap;

use crate::{Graph, LanternError, Node, NodeId};

/// Which way a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// To the nodes that wait for a node.
    Dependents,
    /// To the nodes a node waits for.
    Dependencies,
}

/// A graph copied from another with some of its nodes only, and where each
/// of its nodes comes from.
#[derive(Debug, Clone, Default)]
pub struct Subgraph {
    /// The copy: its own nodes, dependencies and dependents.
    pub graph: Graph,
    /// The node of the original graph each node of the copy is, by index.
    pub original: Vec<NodeId>,
}

impl Subgraph {
    /// A whole graph as a subgraph of itself.
    pub fn whole(graph: &Graph) -> Subgraph {
        Subgraph {
            graph: graph.clone(),
            original: (0..graph.nodes.len()).collect(),
        }
    }

    /// The nodes of the original graph it keeps, in increasing order.
    pub fn original_nodes(&self) -> Vec<NodeId> {
        let mut out: Vec<NodeId> = self
            .graph
            .walk(self.graph.root)
            .into_iter()
            .map(|n| self.original[n])
            .collect();
        out.sort_unstable();
        out
    }
}

impl Graph {
    /// For each node, the first node of the same id: what the walks tell
    /// nodes apart by.
    pub(crate) fn id_keys(&self) -> Vec<usize> {
        let mut first: AHashMap<&str, usize> = AHashMap::new();
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| *first.entry(n.id.as_str()).or_insert(i))
            .collect()
    }

    /// The nodes reached from `start` along dependents, breadth first,
    /// `start` first.
    pub fn walk(&self, start: NodeId) -> Vec<NodeId> {
        self.walk_along(start, Direction::Dependents)
    }

    /// The nodes reached from `start` going `direction`, breadth first.
    pub fn walk_along(&self, start: NodeId, direction: Direction) -> Vec<NodeId> {
        let keys = self.id_keys();
        let mut seen = vec![false; self.nodes.len()];
        seen[keys[start]] = true;
        let mut order = vec![start];
        let mut at = 0;
        while at < order.len() {
            let node = &self.nodes[order[at]];
            at += 1;
            let next = match direction {
                Direction::Dependents => &node.dependents,
                Direction::Dependencies => &node.dependencies,
            };
            for &n in next {
                if !seen[keys[n]] {
                    seen[keys[n]] = true;
                    order.push(n);
                }
            }
        }
        order
    }

    /// The node a walk of the dependencies' first ends at: where the graph
    /// of `node` starts.
    pub fn root_of(&self, mut node: NodeId) -> NodeId {
        while let Some(&first) = self.nodes[node].dependencies.first() {
            node = first;
        }
        node
    }

    /// Whether a cycle is reached from `start`, along dependents or along
    /// dependencies (a depth-first search, as Lantern's).
    pub fn has_cycle(&self, start: NodeId) -> bool {
        self.cycle_along(start, Direction::Dependents) || self.cycle_along(start, Direction::Dependencies)
    }

    fn cycle_along(&self, start: NodeId, direction: Direction) -> bool {
        let n = self.nodes.len();
        let (mut visited, mut on_path, mut queued) = (vec![false; n], vec![false; n], vec![false; n]);
        let mut depth_added = vec![0usize; n];
        let mut path: Vec<NodeId> = Vec::new();
        let mut to_visit = vec![start];
        queued[start] = true;
        while let Some(node) = to_visit.pop() {
            queued[node] = false;
            if on_path[node] {
                return true;
            }
            if visited[node] {
                continue;
            }
            while path.len() > depth_added[node] {
                if let Some(p) = path.pop() {
                    on_path[p] = false;
                }
            }
            visited[node] = true;
            path.push(node);
            on_path[node] = true;
            let next = match direction {
                Direction::Dependents => &self.nodes[node].dependents,
                Direction::Dependencies => &self.nodes[node].dependencies,
            };
            for &m in next {
                if queued[m] {
                    continue;
                }
                to_visit.push(m);
                queued[m] = true;
                depth_added[m] = path.len();
            }
        }
        false
    }

    /// A copy of the graph of `start` with the nodes `keep` keeps and every
    /// node they wait for, linked as in the original; its root is the copy
    /// of `start`. Lantern's error when `start` is not kept.
    pub fn clone_keeping(&self, start: NodeId, keep: impl Fn(&Node) -> bool) -> Result<Subgraph, LanternError> {
        let keys = self.id_keys();
        let root = self.root_of(start);
        // The copy of each kept node, by its id's key.
        let mut copy_of: Vec<Option<NodeId>> = vec![None; self.nodes.len()];
        let mut original: Vec<NodeId> = Vec::new();
        let order = self.walk(root);
        for &node in &order {
            if copy_of[keys[node]].is_some() || !keep(&self.nodes[node]) {
                continue;
            }
            // A walk of what it waits for and is not kept yet, each node
            // copied as the walk reaches it.
            let mut seen = vec![false; self.nodes.len()];
            seen[keys[node]] = true;
            let mut queue = vec![node];
            let mut at = 0;
            while at < queue.len() {
                let current = queue[at];
                at += 1;
                copy_of[keys[current]] = Some(original.len());
                original.push(current);
                for &dep in &self.nodes[current].dependencies {
                    if copy_of[keys[dep]].is_none() && !seen[keys[dep]] {
                        seen[keys[dep]] = true;
                        queue.push(dep);
                    }
                }
            }
        }
        let mut nodes: Vec<Node> = original
            .iter()
            .map(|&o| Node {
                dependencies: Vec::new(),
                dependents: Vec::new(),
                ..self.nodes[o].clone()
            })
            .collect();
        for &node in &order {
            let Some(copy) = copy_of[keys[node]] else { continue };
            for &dep in &self.nodes[node].dependencies {
                let dep_copy = copy_of[keys[dep]].ok_or_else(|| LanternError::new("Dependency somehow not cloned"))?;
                if dep_copy == copy {
                    return Err(LanternError::new("Cannot add dependency on itself"));
                }
                if !nodes[copy].dependencies.contains(&dep_copy) {
                    nodes[dep_copy].dependents.push(copy);
                    nodes[copy].dependencies.push(dep_copy);
                }
            }
        }
        let root = copy_of[keys[start]].ok_or_else(|| LanternError::new("Cloned graph missing node"))?;
        Ok(Subgraph {
            graph: Graph { nodes, root },
            original,
        })
    }
}
