//! The page dependency graph Lantern simulates: a node per network request
//! and per main-thread task of a navigation, each depending on the nodes
//! that had to finish before it could start (the request that discovered a
//! script, the script that started a timer, ...). The builder fills it; the
//! simulator and the metrics read it.

/// A node of a [`Graph`]: its index in [`Graph::nodes`].
pub type NodeId = usize;

/// The page dependency graph of a navigation.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// The nodes. A node's dependencies and dependents are indexes here.
    pub nodes: Vec<Node>,
    /// The node every other one is reached from: the navigation's first
    /// request.
    pub root: NodeId,
}

/// A request or a task, and the nodes it waits for and that wait for it.
#[derive(Debug, Clone)]
pub struct Node {
    /// Lantern's id of the node: the request id for a request (a redirect
    /// hop's with `:redirect` appended), `TID.TS` for a task.
    pub id: String,
    /// What the node stands for.
    pub kind: NodeKind,
    /// When it started, in microseconds: the request's renderer start time,
    /// or the task's start.
    pub start: f64,
    /// When it ended, in microseconds: the request's network end time, or
    /// the task's (corrected) end.
    pub end: f64,
    /// Whether it is the navigation's main document request.
    pub is_main_document: bool,
    /// The nodes it waits for, in the order Lantern added them (the order
    /// of a walk of the graph, and so of its simulation, depends on it).
    pub dependencies: Vec<NodeId>,
    /// The nodes that wait for it, in the order Lantern added them.
    pub dependents: Vec<NodeId>,
}

/// What a [`Node`] stands for.
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// A network request.
    Network(NetworkNode),
    /// A task of the main thread.
    Cpu(CpuNode),
}

/// A network request of the graph.
#[derive(Debug, Clone)]
pub struct NetworkNode {
    /// The request: its index in the navigation's Lantern requests
    /// ([`crate::requests`]).
    pub request: usize,
}

/// A main-thread task of the graph, with what the simulation and the
/// metrics read of the events inside it.
#[derive(Debug, Clone, Default)]
pub struct CpuNode {
    /// The thread of the task.
    pub tid: i64,
    /// Whether a `Layout` event ran inside it (such tasks are slowed by
    /// the layout multiplier, and may block a paint).
    pub did_perform_layout: bool,
    /// Whether a `Paint` event ran inside it.
    pub did_paint: bool,
    /// Whether a `ParseHTML` event ran inside it.
    pub did_parse_html: bool,
    /// The URLs of the scripts evaluated inside it (`EvaluateScript`'s
    /// `data.url`), each once, in the order first evaluated.
    pub evaluate_script_urls: Vec<String>,
    /// How many events ran inside it (every event of the thread from its
    /// start to its end, or to the next task).
    pub child_events: usize,
}

impl Node {
    /// The node's duration, in microseconds.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}
