//! Lantern's simulator: plays a page dependency graph out over a modelled
//! network and main thread (requests start in the order they were made,
//! priority breaking near ties, at most so many at once, each on a
//! connection of its origin; one task at a time), and says when each node
//! would start and end, and when the last would end.
//!
//! The settings are DevTools' (`throttlingMethod: 'provided'`): the network
//! analysis's round trip time and throughput as they are, no CPU slowdown.

mod connection;

pub use connection::{ConnectionPool, DnsCache, Download, TcpConnection};
pub(crate) use tracekit_engine::support::jsnum::{js_max, js_min, js_round};

use crate::{Graph, LanternError, LanternRequest, NetworkAnalysis, Node, NodeId, NodeKind};

/// Requests in flight at most, before the throughput lowers it.
const DEFAULT_MAXIMUM_CONCURRENT_REQUESTS: f64 = 10.0;
/// A task longer than this (ms) is likely not all CPU work: it is cut.
const DEFAULT_MAXIMUM_CPU_TASK_DURATION: f64 = 10000.0;
/// The schemes of requests that use no network.
const NON_NETWORK_SCHEMES: [&str; 6] = ["blob", "data", "intent", "file", "filesystem", "chrome-extension"];

/// When a node of a simulated graph started and ended, ms from the
/// simulation's start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeTiming {
    /// The node (index in the graph simulated).
    pub node: NodeId,
    /// When it started.
    pub start: f64,
    /// When it ended.
    pub end: f64,
}

impl NodeTiming {
    /// How long it took, ms.
    pub fn duration(&self) -> f64 {
        self.end - self.start
    }
}

/// What a simulation came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// When the last node ended, ms.
    pub time_in_ms: f64,
    /// Every node's timing, by start time (ties in the order the nodes
    /// became ready).
    pub node_timings: Vec<NodeTiming>,
}

/// The simulator, with the network it models.
#[derive(Debug, Clone)]
pub struct Simulator {
    /// Round trip time, ms.
    pub rtt: f64,
    /// Throughput, bits per second.
    pub throughput: f64,
    /// The throughput observed (the same here).
    pub observed_throughput: f64,
    /// Requests in flight at most.
    pub maximum_concurrent_requests: f64,
    /// How much slower tasks run (1: as recorded).
    pub cpu_slowdown_multiplier: f64,
    /// How much slower tasks that lay out run.
    pub layout_task_multiplier: f64,
    /// Each origin's round trip time beyond `rtt`, ms.
    pub additional_rtt_by_origin: Vec<(String, f64)>,
    /// Each origin's server response time, ms.
    pub server_response_time_by_origin: Vec<(String, f64)>,
}

/// Whether a scheme or protocol is one of a request that uses no network.
fn is_non_network(protocol: &str) -> bool {
    let scheme = protocol.split(':').next().unwrap_or_default();
    NON_NETWORK_SCHEMES.contains(&scheme)
}

/// Whether a request needs no connection (from the disk cache, or of a
/// scheme that uses no network).
pub(crate) fn is_connectionless(request: &LanternRequest) -> bool {
    request.from_disk_cache || is_non_network(&request.protocol) || is_non_network(&request.scheme)
}

/// The position a node starts in when several are ready: its start, a
/// request's later the lower its priority (by a second per step).
fn start_position(node: &Node, requests: &[LanternRequest]) -> f64 {
    match &node.kind {
        NodeKind::Cpu(_) => node.start,
        NodeKind::Network(n) => {
            let penalty = match requests[n.request].priority.as_str() {
                "VeryHigh" => 0.0,
                "High" => 0.25,
                "Medium" => 0.5,
                "Low" => 1.0,
                "VeryLow" => 2.0,
                _ => 0.0,
            };
            node.start + penalty * 1000.0 * 1000.0
        }
    }
}

impl Simulator {
    /// The simulator DevTools makes for the insights from a network
    /// analysis; Lantern's error when its round trip time or throughput is
    /// not a finite number.
    pub fn new(analysis: &NetworkAnalysis) -> Result<Simulator, LanternError> {
        let (rtt, throughput) = (analysis.rtt, analysis.throughput);
        let saturated = TcpConnection::maximum_saturated_connections(rtt, throughput);
        let simulator = Simulator {
            rtt,
            throughput,
            observed_throughput: analysis.throughput,
            maximum_concurrent_requests: js_max(js_min(saturated, DEFAULT_MAXIMUM_CONCURRENT_REQUESTS), 1.0),
            cpu_slowdown_multiplier: 1.0,
            layout_task_multiplier: 1.0,
            additional_rtt_by_origin: analysis.additional_rtt_by_origin.clone(),
            server_response_time_by_origin: analysis.server_response_time_by_origin.clone(),
        };
        if !rtt.is_finite() {
            return Err(LanternError::new(format!("Invalid rtt {}", js_number(rtt))));
        }
        if !throughput.is_finite() {
            return Err(LanternError::new(format!(
                "Invalid throughput {}",
                js_number(throughput)
            )));
        }
        Ok(simulator)
    }

    /// The time `wasted_bytes` take to download at the throughput, ms to
    /// the nearest 10.
    pub fn wasted_ms_from_wasted_bytes(&self, wasted_bytes: f64) -> f64 {
        let bits_per_second = if self.throughput == 0.0 {
            self.observed_throughput
        } else {
            self.throughput
        };
        if bits_per_second == 0.0 {
            return 0.0;
        }
        let wasted_ms = wasted_bytes * 8.0 / bits_per_second * 1000.0;
        js_round(wasted_ms / 10.0) * 10.0
    }

    /// Simulates the graph from its root (its requests are indexes in
    /// `requests`); Lantern's error when the graph has a cycle or the
    /// simulation cannot go on.
    pub fn simulate(&self, graph: &Graph, requests: &[LanternRequest]) -> Result<Simulation, LanternError> {
        if graph.has_cycle(graph.root) {
            return Err(LanternError::new("Cannot simulate graph with cycle"));
        }
        let root = graph.root_of(graph.root);
        let network: Vec<usize> = graph
            .walk(root)
            .into_iter()
            .filter_map(|n| match &graph.nodes[n].kind {
                NodeKind::Network(net) => Some(net.request),
                NodeKind::Cpu(_) => None,
            })
            .collect();
        let pool = ConnectionPool::new(
            &network,
            requests,
            self.rtt,
            self.throughput,
            &self.additional_rtt_by_origin,
            &self.server_response_time_by_origin,
        )?;
        let mut run = Run::new(self, graph, requests, pool);
        run.mark_ready(root, 0.0);
        run.play()?;
        Ok(run.finish())
    }
}

/// How JavaScript writes a number that is not finite.
fn js_number(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x == f64::INFINITY {
        "Infinity".to_owned()
    } else if x == f64::NEG_INFINITY {
        "-Infinity".to_owned()
    } else {
        x.to_string()
    }
}

/// Where a node is in a simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    NotReady,
    Ready,
    InProgress,
    Complete,
}

/// What a simulation knows of one node.
#[derive(Debug, Clone, Copy, Default)]
struct Timing {
    start: f64,
    end: f64,
    time_elapsed: f64,
    estimated_time_elapsed: f64,
    time_elapsed_overshoot: f64,
    bytes_downloaded: f64,
}

/// One simulation under way.
struct Run<'a> {
    simulator: &'a Simulator,
    graph: &'a Graph,
    requests: &'a [LanternRequest],
    pool: ConnectionPool,
    dns: DnsCache,
    state: Vec<State>,
    timing: Vec<Timing>,
    /// The nodes in the order they became ready (that of the results' ties).
    queued: Vec<NodeId>,
    was_queued: Vec<bool>,
    /// The ready nodes by start position.
    by_start_position: Vec<NodeId>,
    /// The nodes in flight, in the order they started.
    in_progress: Vec<NodeId>,
    ready_count: usize,
    network_in_progress: usize,
    cpu_in_progress: usize,
    elapsed: f64,
}

impl<'a> Run<'a> {
    fn new(
        simulator: &'a Simulator,
        graph: &'a Graph,
        requests: &'a [LanternRequest],
        pool: ConnectionPool,
    ) -> Run<'a> {
        let n = graph.nodes.len();
        Run {
            simulator,
            graph,
            requests,
            pool,
            dns: DnsCache::new(simulator.rtt),
            state: vec![State::NotReady; n],
            timing: vec![Timing::default(); n],
            queued: Vec::new(),
            was_queued: vec![false; n],
            by_start_position: Vec::new(),
            in_progress: Vec::new(),
            ready_count: 0,
            network_in_progress: 0,
            cpu_in_progress: 0,
            elapsed: 0.0,
        }
    }

    fn request_of(&self, node: NodeId) -> Option<usize> {
        match &self.graph.nodes[node].kind {
            NodeKind::Network(n) => Some(n.request),
            NodeKind::Cpu(_) => None,
        }
    }

    /// Whether the node is a request that holds no connection.
    fn connectionless(&self, node: NodeId) -> bool {
        self.request_of(node)
            .is_some_and(|r| is_connectionless(&self.requests[r]))
    }

    fn mark_ready(&mut self, node: NodeId, _queued_time: f64) {
        let position = start_position(&self.graph.nodes[node], self.requests);
        let at = self
            .by_start_position
            .iter()
            .position(|&c| start_position(&self.graph.nodes[c], self.requests) > position)
            .unwrap_or(self.by_start_position.len());
        self.by_start_position.insert(at, node);
        if self.state[node] != State::Ready {
            self.ready_count += 1;
        }
        self.state[node] = State::Ready;
        if !self.was_queued[node] {
            self.was_queued[node] = true;
            self.queued.push(node);
        }
        self.timing[node] = Timing::default();
    }

    fn mark_in_progress(&mut self, node: NodeId, start: f64) {
        if let Some(at) = self.by_start_position.iter().position(|&c| c == node) {
            self.by_start_position.remove(at);
        }
        self.state[node] = State::InProgress;
        self.ready_count -= 1;
        self.in_progress.push(node);
        match self.request_of(node) {
            None => self.cpu_in_progress += 1,
            Some(_) if self.connectionless(node) => {}
            Some(_) => self.network_in_progress += 1,
        }
        self.timing[node] = Timing {
            start,
            ..Timing::default()
        };
    }

    fn mark_complete(&mut self, node: NodeId, end: f64) {
        self.state[node] = State::Complete;
        self.in_progress.retain(|&n| n != node);
        match self.request_of(node) {
            None => self.cpu_in_progress -= 1,
            Some(_) if self.connectionless(node) => {}
            Some(_) => self.network_in_progress -= 1,
        }
        self.timing[node].end = end;
        let graph = self.graph;
        for &dependent in &graph.nodes[node].dependents {
            let waiting = graph.nodes[dependent]
                .dependencies
                .iter()
                .any(|&d| self.state[d] != State::Complete);
            if !waiting {
                self.mark_ready(dependent, end);
            }
        }
    }

    fn start_if_possible(&mut self, node: NodeId, elapsed: f64) -> Result<(), LanternError> {
        let Some(request) = self.request_of(node) else {
            if self.cpu_in_progress == 0 {
                self.mark_in_progress(node, elapsed);
            }
            return Ok(());
        };
        if !self.connectionless(node) {
            if self.network_in_progress as f64 >= self.simulator.maximum_concurrent_requests {
                return Ok(());
            }
            if self.pool.acquire(request, self.requests)?.is_none() {
                return Ok(());
            }
        }
        self.mark_in_progress(node, elapsed);
        Ok(())
    }

    fn update_network_capacity(&mut self) {
        let in_flight = self.network_in_progress;
        if in_flight == 0 {
            return;
        }
        let share = self.simulator.throughput / in_flight as f64;
        for &c in self.pool.in_use().to_vec().iter() {
            self.pool.connections[c].throughput = share;
        }
    }

    fn estimate_time_remaining(&mut self, node: NodeId) -> Result<f64, LanternError> {
        let (graph, requests) = (self.graph, self.requests);
        let graph_node = &graph.nodes[node];
        let timing = self.timing[node];
        let estimate = match &graph_node.kind {
            NodeKind::Cpu(cpu) => {
                let multiplier = if cpu.did_perform_layout {
                    self.simulator.layout_task_multiplier
                } else {
                    self.simulator.cpu_slowdown_multiplier
                };
                let total = js_min(
                    js_round(graph_node.duration() / 1000.0 * multiplier),
                    DEFAULT_MAXIMUM_CPU_TASK_DURATION,
                );
                total - timing.time_elapsed
            }
            NodeKind::Network(net) => {
                let request = &requests[net.request];
                let size_in_mb = |r: &LanternRequest| {
                    let size = if r.resource_size == 0.0 || r.resource_size.is_nan() {
                        0.0
                    } else {
                        r.resource_size
                    };
                    size / 1024.0 / 1024.0
                };
                let elapsed = if request.from_disk_cache {
                    8.0 + 20.0 * size_in_mb(request) - timing.time_elapsed
                } else if is_non_network(&request.protocol) || is_non_network(&request.scheme) {
                    2.0 + 10.0 * size_in_mb(request) - timing.time_elapsed
                } else {
                    let connection = self.pool.active(net.request)?;
                    let dns = self.dns.time_until_resolution(&request.host, timing.start);
                    let download = self.pool.connections[connection].simulate_download_until(
                        request.transfer_size - timing.bytes_downloaded,
                        timing.time_elapsed,
                        f64::INFINITY,
                        dns,
                    );
                    download.time_elapsed
                };
                elapsed + timing.time_elapsed_overshoot
            }
        };
        self.timing[node].estimated_time_elapsed = estimate;
        Ok(estimate)
    }

    fn update_progress(&mut self, node: NodeId, period: f64, elapsed: f64) -> Result<(), LanternError> {
        let timing = self.timing[node];
        let finished = timing.estimated_time_elapsed == period;
        let request = match self.request_of(node) {
            Some(r) if !self.connectionless(node) => r,
            _ => {
                if finished {
                    self.mark_complete(node, elapsed);
                } else {
                    self.timing[node].time_elapsed += period;
                }
                return Ok(());
            }
        };
        let r = &self.requests[request];
        let c = self.pool.active(request)?;
        let dns = self.dns.time_until_resolution(&r.host, timing.start);
        let to_download = r.transfer_size - timing.bytes_downloaded;
        let connection = &mut self.pool.connections[c];
        let overflow_used = if connection.multiplexed {
            js_min(to_download, connection.h2_overflow_bytes_downloaded)
        } else {
            0.0
        };
        let download = connection.simulate_download_until(
            to_download,
            timing.time_elapsed,
            period - timing.time_elapsed_overshoot,
            dns,
        );
        connection.congestion_window = download.congestion_window;
        connection.set_h2_overflow_bytes_downloaded(download.extra_bytes_downloaded);
        if finished {
            connection.warmed = true;
            self.pool.release(request);
            self.mark_complete(node, elapsed);
        } else {
            let t = &mut self.timing[node];
            t.time_elapsed += download.time_elapsed;
            t.time_elapsed_overshoot += download.time_elapsed - period;
            t.bytes_downloaded += download.bytes_downloaded + overflow_used;
        }
        Ok(())
    }

    /// Runs until every node reached is complete.
    fn play(&mut self) -> Result<(), LanternError> {
        let mut elapsed = 0.0;
        let mut iteration = 0;
        while self.ready_count > 0 || !self.in_progress.is_empty() {
            for node in self.by_start_position.clone() {
                self.start_if_possible(node, elapsed)?;
            }
            if self.in_progress.is_empty() {
                return Err(LanternError::new("Failed to start a node"));
            }
            self.update_network_capacity();
            let mut minimum = f64::INFINITY;
            for node in self.in_progress.clone() {
                minimum = js_min(minimum, self.estimate_time_remaining(node)?);
            }
            elapsed += minimum;
            if !minimum.is_finite() || iteration > 100_000 {
                return Err(LanternError::new("Simulation failed, depth exceeded"));
            }
            iteration += 1;
            for node in self.in_progress.clone() {
                self.update_progress(node, minimum, elapsed)?;
            }
        }
        self.elapsed = elapsed;
        Ok(())
    }

    /// The simulation's results: every node queued, by start time.
    fn finish(self) -> Simulation {
        let mut node_timings: Vec<NodeTiming> = self
            .queued
            .iter()
            .map(|&node| NodeTiming {
                node,
                start: self.timing[node].start,
                end: self.timing[node].end,
            })
            .collect();
        // A stable sort, as JavaScript's (the times are never NaN).
        node_timings.sort_by(|a, b| a.start.partial_cmp(&b.start).unwrap_or(std::cmp::Ordering::Equal));
        Simulation {
            time_in_ms: self.elapsed,
            node_timings,
        }
    }
}
