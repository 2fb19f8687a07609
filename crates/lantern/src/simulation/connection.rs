//! The network as Lantern's simulator models it: TCP connections (slow
//! start, TLS, h2's leftover bytes), the pool of connections of each
//! origin a simulation hands requests, and the DNS cache.

use ahash::AHashMap;

use tracekit_engine::support::jsnum::{js_max, js_min};

use crate::analyzer::{by_origin, coarse_reused};
use crate::{LanternError, LanternRequest};

/// Segments a new connection may send before its first ack.
const INITIAL_CONGESTION_WINDOW: f64 = 10.0;
/// Bytes in a TCP segment.
const TCP_SEGMENT_SIZE: f64 = 1460.0;
/// The server response time of an origin the analysis has none for, ms.
const DEFAULT_SERVER_RESPONSE_TIME: f64 = 30.0;
/// Connections a browser opens to an origin over HTTP/1.
const CONNECTIONS_PER_ORIGIN: usize = 6;
/// A DNS lookup takes this many round trips.
const DNS_RESOLUTION_RTT_MULTIPLIER: f64 = 2.0;

/// Whether a protocol sends many requests over one connection at once.
pub(crate) fn is_multiplexed(protocol: &str) -> bool {
    protocol == "h2" || protocol.starts_with("h3")
}

/// One TCP (or QUIC) connection of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConnection {
    /// It has carried a request already (no handshake any more).
    pub warmed: bool,
    /// It needs a TLS handshake.
    pub ssl: bool,
    /// It carries several requests at once (h2, h3).
    pub multiplexed: bool,
    /// Its round trip time, ms.
    pub rtt: f64,
    /// Its share of the throughput, bits per second.
    pub throughput: f64,
    /// The server's response time, ms.
    pub server_latency: f64,
    /// Segments it may send per round trip.
    pub congestion_window: f64,
    /// Bytes a multiplexed connection downloaded beyond its last request,
    /// which the next one needs no more.
    pub h2_overflow_bytes_downloaded: f64,
}

/// What a download over a connection came to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Download {
    /// Time it took, ms.
    pub time_elapsed: f64,
    /// Bytes it downloaded of those asked.
    pub bytes_downloaded: f64,
    /// Bytes beyond those asked (multiplexed connections only).
    pub extra_bytes_downloaded: f64,
    /// The congestion window at its end.
    pub congestion_window: f64,
}

impl TcpConnection {
    /// A cold connection.
    pub fn new(rtt: f64, throughput: f64, server_latency: f64, ssl: bool, multiplexed: bool) -> TcpConnection {
        TcpConnection {
            warmed: false,
            ssl,
            multiplexed,
            rtt,
            throughput,
            server_latency,
            congestion_window: INITIAL_CONGESTION_WINDOW,
            h2_overflow_bytes_downloaded: 0.0,
        }
    }

    /// How many connections of this round trip time the throughput keeps
    /// busy with one segment per round trip each.
    pub fn maximum_saturated_connections(rtt: f64, throughput: f64) -> f64 {
        let round_trips_per_second = 1000.0 / rtt;
        let bytes_per_second = round_trips_per_second * TCP_SEGMENT_SIZE;
        let minimum_throughput_per_request = bytes_per_second * 8.0;
        (throughput / minimum_throughput_per_request).floor()
    }

    fn maximum_congestion_window(&self) -> f64 {
        let bytes_per_second = self.throughput / 8.0;
        let seconds_per_round_trip = self.rtt / 1000.0;
        let bytes_per_round_trip = bytes_per_second * seconds_per_round_trip;
        (bytes_per_round_trip / TCP_SEGMENT_SIZE).floor()
    }

    /// Keeps what a multiplexed connection downloaded too much.
    pub fn set_h2_overflow_bytes_downloaded(&mut self, bytes: f64) {
        if self.multiplexed {
            self.h2_overflow_bytes_downloaded = bytes;
        }
    }

    /// Downloads `bytes` (or as much as fits in `maximum_time` ms):
    /// handshakes when cold (after `dns_time`), the time to first byte
    /// (less `time_already_elapsed`), then round trips of a doubling
    /// window.
    pub fn simulate_download_until(
        &self,
        mut bytes: f64,
        time_already_elapsed: f64,
        maximum_time: f64,
        dns_time: f64,
    ) -> Download {
        if self.multiplexed {
            bytes -= self.h2_overflow_bytes_downloaded;
        }
        let two_way = self.rtt;
        let one_way = two_way / 2.0;
        let maximum_window = self.maximum_congestion_window();
        let mut handshake_and_request = one_way;
        if !self.warmed {
            handshake_and_request = dns_time + one_way + one_way + one_way + if self.ssl { two_way } else { 0.0 };
        }
        let mut time_to_first_byte = handshake_and_request + self.server_latency + one_way;
        if self.warmed && self.multiplexed {
            time_to_first_byte = 0.0;
        }
        let time_for_first_byte = js_max(time_to_first_byte - time_already_elapsed, 0.0);
        let maximum_download_time = maximum_time - time_for_first_byte;
        let mut window = js_min(self.congestion_window, maximum_window);
        let mut total = 0.0;
        if time_for_first_byte > 0.0 {
            total = window * TCP_SEGMENT_SIZE;
        }
        let mut download_time = 0.0;
        let mut remaining = bytes - total;
        while remaining > 0.0 && download_time <= maximum_download_time {
            download_time += two_way;
            window = js_max(js_min(maximum_window, window * 2.0), 1.0);
            let in_window = window * TCP_SEGMENT_SIZE;
            total += in_window;
            remaining -= in_window;
        }
        Download {
            time_elapsed: time_for_first_byte + download_time,
            bytes_downloaded: js_max(js_min(total, bytes), 0.0),
            extra_bytes_downloaded: if self.multiplexed {
                js_max(total - bytes, 0.0)
            } else {
                0.0
            },
            congestion_window: window,
        }
    }
}

/// The connections of a simulation, by origin, and the one each request
/// in flight holds.
#[derive(Debug, Clone)]
pub struct ConnectionPool {
    /// Every connection.
    pub connections: Vec<TcpConnection>,
    /// The connections of each origin (indexes in `connections`).
    by_origin: AHashMap<String, Vec<usize>>,
    /// The connection each request in flight holds, by request index.
    by_request: AHashMap<usize, usize>,
    /// The connections held, in the order they were taken.
    in_use: Vec<usize>,
}

impl ConnectionPool {
    /// The connections for `requests` (indexes in `all`): one per request
    /// that did not reuse one (as estimated from the timings alone), at
    /// least six per HTTP/1 origin; Lantern's error when an origin has none.
    pub fn new(
        requests: &[usize],
        all: &[LanternRequest],
        rtt: f64,
        throughput: f64,
        additional_rtt_by_origin: &[(String, f64)],
        server_response_time_by_origin: &[(String, f64)],
    ) -> Result<ConnectionPool, LanternError> {
        let records: Vec<&LanternRequest> = requests.iter().map(|&r| &all[r]).collect();
        let reused = coarse_reused(records.iter().copied());
        let truthy = |pairs: &[(String, f64)], origin: &str| {
            pairs
                .iter()
                .find(|(o, _)| o == origin)
                .map(|(_, v)| *v)
                .filter(|v| *v != 0.0 && !v.is_nan())
        };
        let mut pool = ConnectionPool {
            connections: Vec::new(),
            by_origin: AHashMap::new(),
            by_request: AHashMap::new(),
            in_use: Vec::new(),
        };
        for (origin, list) in by_origin(records.iter().copied()) {
            let additional = truthy(additional_rtt_by_origin, origin).unwrap_or(0.0);
            let response = truthy(server_response_time_by_origin, origin).unwrap_or(DEFAULT_SERVER_RESPONSE_TIME);
            let mut mine = Vec::new();
            for r in list {
                if reused.get(r.request_id.as_str()).copied().unwrap_or(false) {
                    continue;
                }
                let tls = r.scheme == "https" || r.scheme == "wss";
                let connection =
                    TcpConnection::new(rtt + additional, throughput, response, tls, is_multiplexed(&r.protocol));
                mine.push(pool.connections.len());
                pool.connections.push(connection);
            }
            let Some(&first) = mine.first() else {
                return Err(LanternError::new(format!(
                    "Could not find a connection for origin: {origin}"
                )));
            };
            let minimum = if pool.connections[first].multiplexed {
                1
            } else {
                CONNECTIONS_PER_ORIGIN
            };
            while mine.len() < minimum {
                mine.push(pool.connections.len());
                pool.connections.push(pool.connections[first].clone());
            }
            pool.by_origin.insert(origin.to_owned(), mine);
        }
        Ok(pool)
    }

    /// The connections held, in the order they were taken.
    pub fn in_use(&self) -> &[usize] {
        &self.in_use
    }

    /// Hands request `request` (index in `all`) the free connection of its
    /// origin with the largest congestion window, if one is free.
    pub fn acquire(&mut self, request: usize, all: &[LanternRequest]) -> Result<Option<usize>, LanternError> {
        if self.by_request.contains_key(&request) {
            return Err(LanternError::new("Record already has a connection"));
        }
        let Some(connections) = self.by_origin.get(&all[request].origin) else {
            return Ok(None);
        };
        let mut best: Option<usize> = None;
        for &c in connections {
            if self.in_use.contains(&c) {
                continue;
            }
            // JavaScript's `max?.congestionWindow || -Infinity`.
            let current = best
                .map(|b| self.connections[b].congestion_window)
                .filter(|w| *w != 0.0 && !w.is_nan())
                .unwrap_or(f64::NEG_INFINITY);
            if self.connections[c].congestion_window > current {
                best = Some(c);
            }
        }
        if let Some(c) = best {
            self.in_use.push(c);
            self.by_request.insert(request, c);
        }
        Ok(best)
    }

    /// The connection request `request` holds.
    pub fn active(&self, request: usize) -> Result<usize, LanternError> {
        self.by_request
            .get(&request)
            .copied()
            .ok_or_else(|| LanternError::new("Could not find an active connection for request"))
    }

    /// Gives back the connection request `request` holds.
    pub fn release(&mut self, request: usize) {
        if let Some(c) = self.by_request.remove(&request) {
            self.in_use.retain(|&u| u != c);
        }
    }
}

/// When each host's name was (or will be) resolved in a simulation.
#[derive(Debug, Clone, Default)]
pub struct DnsCache {
    rtt: f64,
    resolved_at: AHashMap<String, f64>,
}

impl DnsCache {
    /// An empty cache for a network of this round trip time.
    pub fn new(rtt: f64) -> DnsCache {
        DnsCache {
            rtt,
            resolved_at: AHashMap::new(),
        }
    }

    /// How long a request of `host` made at `requested_at` waits for its
    /// name, remembering when it is resolved.
    pub fn time_until_resolution(&mut self, host: &str, requested_at: f64) -> f64 {
        let mut time = self.rtt * DNS_RESOLUTION_RTT_MULTIPLIER;
        if let Some(&at) = self.resolved_at.get(host) {
            time = js_min(js_max(at - requested_at, 0.0), time);
        }
        let resolved = requested_at + time;
        let entry = self.resolved_at.entry(host.to_owned()).or_insert(resolved);
        *entry = js_min(*entry, resolved);
        time
    }
}
