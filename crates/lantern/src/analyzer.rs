//! The network as a navigation's requests show it (Lantern's network
//! analyzer): the round trip time to each origin (its least estimate, from
//! the connection's setup, or coarsely from the download, the send start
//! or the headers), how much slower than the fastest origin each is (for
//! every origin with either estimate), each origin's server response time
//! (the median of its requests'), and the
//! throughput while any download was in flight.

use crate::LanternRequest;

/// The key of the figures over every origin, as Lantern names it.
pub const SUMMARY: &str = "__SUMMARY__";

/// What Lantern's simulation is told of the network.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkAnalysis {
    /// Bits per second while downloading.
    pub throughput: f64,
    /// The least round trip time of any origin, ms.
    pub rtt: f64,
    /// Each origin's round trip time beyond `rtt`, ms (with [`SUMMARY`]).
    pub additional_rtt_by_origin: Vec<(String, f64)>,
    /// Each origin's server response time, ms (with [`SUMMARY`]).
    pub server_response_time_by_origin: Vec<(String, f64)>,
}

/// Bytes a new TCP connection sends before it waits for an ack.
const INITIAL_CWD: f64 = 14.0 * 1024.0;

/// The analysis of a navigation's requests, `None` when no request
/// downloaded anything (Lantern then makes no estimate).
pub fn analyze(requests: &[LanternRequest]) -> Option<NetworkAnalysis> {
    let throughput = throughput(requests)?;
    let rtt_by_origin: Vec<(String, f64)> = summaries(&rtt_estimates(requests))
        .into_iter()
        .map(|(origin, s)| (origin, s.min))
        .collect();
    // JavaScript's Math.min: NaN as soon as one is (an empty summary's).
    let minimum = rtt_by_origin.iter().map(|(_, r)| *r).fold(f64::INFINITY, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.min(b)
        }
    });
    let responses = summaries(&response_time_estimates(requests, &rtt_by_origin));
    let mut additional = Vec::new();
    let mut server = Vec::new();
    for (origin, summary) in responses {
        // An origin without usable timings is taken to be as fast as the
        // fastest (JavaScript's `|| minimum`: a zero estimate too).
        let rtt = lookup(&rtt_by_origin, &origin)
            .filter(|r| *r != 0.0 && !r.is_nan())
            .unwrap_or(minimum);
        additional.push((origin.clone(), rtt - minimum));
        server.push((origin, summary.median));
    }
    // The origins with a round trip estimate but no response time one.
    for (origin, rtt) in &rtt_by_origin {
        if lookup(&additional, origin).is_none() {
            additional.push((origin.clone(), rtt - minimum));
        }
    }
    Some(NetworkAnalysis {
        throughput,
        rtt: minimum,
        additional_rtt_by_origin: additional,
        server_response_time_by_origin: server,
    })
}

fn lookup(by_origin: &[(String, f64)], origin: &str) -> Option<f64> {
    by_origin.iter().find(|(o, _)| o == origin).map(|(_, v)| *v)
}

/// Least, greatest, mean and median of some estimates.
#[derive(Debug, Clone, Copy)]
struct Summary {
    min: f64,
    median: f64,
}

fn summary(values: &mut [f64]) -> Summary {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = match n {
        0 => f64::NAN,
        _ if n.is_multiple_of(2) => (values[(n - 1) / 2] + values[(n - 1) / 2 + 1]) / 2.0,
        _ => values[(n - 1) / 2],
    };
    Summary {
        min: values.first().copied().unwrap_or(f64::NAN),
        median,
    }
}

/// Each origin's summary, in the order of the origins, then that of every
/// estimate together under [`SUMMARY`].
fn summaries(estimates: &[(String, Vec<f64>)]) -> Vec<(String, Summary)> {
    let mut all = Vec::new();
    let mut out: Vec<(String, Summary)> = estimates
        .iter()
        .map(|(origin, values)| {
            all.extend_from_slice(values);
            (origin.clone(), summary(&mut values.clone()))
        })
        .collect();
    out.push((SUMMARY.to_owned(), summary(&mut all)));
    out
}

/// The requests by origin, in the order origins first appear (extensions'
/// left out).
pub(crate) fn by_origin<'a>(
    requests: impl IntoIterator<Item = &'a LanternRequest>,
) -> Vec<(&'a str, Vec<&'a LanternRequest>)> {
    let mut out: Vec<(&str, Vec<&LanternRequest>)> = Vec::new();
    for r in requests
        .into_iter()
        .filter(|r| !r.origin.starts_with("chrome-extension:"))
    {
        match out.iter_mut().find(|(o, _)| *o == r.origin) {
            Some((_, list)) => list.push(r),
            None => out.push((&r.origin, vec![r])),
        }
    }
    out
}

/// Whether the trace's connection ids can be trusted: more than one
/// connection, and each started by a request that did not reuse it.
fn trusts_connections(requests: &[LanternRequest]) -> bool {
    let mut started: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        match started
            .iter_mut()
            .find(|(id, _)| id.to_bits() == r.connection_id.to_bits())
        {
            Some((_, s)) => *s = *s || !r.connection_reused,
            None => started.push((r.connection_id, !r.connection_reused)),
        }
    }
    started.len() > 1 && started.iter().all(|(_, s)| *s)
}

/// Whether each request reused a connection, by request id (a later
/// request of an id overrides an earlier's, as in DevTools' map): as the
/// trace says when it can be trusted, else estimated per origin (every
/// request after the origin's first finished, and h2 ones, but the first).
fn reused(requests: &[LanternRequest]) -> ahash::AHashMap<&str, bool> {
    let mut by_id: ahash::AHashMap<&str, bool> = ahash::AHashMap::new();
    if trusts_connections(requests) {
        for r in requests {
            by_id.insert(&r.request_id, r.connection_reused);
        }
        return by_id;
    }
    coarse_reused(requests)
}

/// Whether each request reused a connection, estimated from the timings
/// alone, per origin: every request after the origin's first finished, and
/// h2 ones, but the origin's first (the simulator's connection pool trusts
/// nothing else).
pub(crate) fn coarse_reused<'a>(
    requests: impl IntoIterator<Item = &'a LanternRequest>,
) -> ahash::AHashMap<&'a str, bool> {
    let mut by_id: ahash::AHashMap<&str, bool> = ahash::AHashMap::new();
    for (_, list) in by_origin(requests) {
        // JavaScript's Math.min: NaN as soon as one is.
        let earliest = list
            .iter()
            .map(|r| r.network_end_time)
            .fold(f64::INFINITY, crate::simulation::js_min);
        for r in &list {
            let multiplexed = r.protocol == "h2" || r.protocol.starts_with("h3");
            by_id.insert(&r.request_id, r.network_request_time >= earliest || multiplexed);
        }
        let first = list.iter().copied().reduce(|a, b| {
            if a.network_request_time > b.network_request_time {
                b
            } else {
                a
            }
        });
        if let Some(first) = first {
            by_id.insert(&first.request_id, false);
        }
    }
    by_id
}

/// One request's estimates of its origin's round trip time.
type Estimator = fn(&LanternRequest, &crate::ResourceTiming, bool) -> Vec<f64>;

fn via_connection(r: &LanternRequest, t: &crate::ResourceTiming, reused: bool) -> Vec<f64> {
    if reused {
        return Vec::new();
    }
    let (cs, ce, ss, se) = (t.connect_start, t.connect_end, t.ssl_start, t.ssl_end);
    if ce >= 0.0 && cs >= 0.0 && r.protocol.starts_with("h3") {
        return vec![ce - cs];
    }
    if ss >= 0.0 && se >= 0.0 && ss != cs {
        return vec![ce - ss, ss - cs];
    }
    if cs >= 0.0 && ce >= 0.0 {
        return vec![ce - cs];
    }
    Vec::new()
}

fn via_download(r: &LanternRequest, t: &crate::ResourceTiming, reused: bool) -> Vec<f64> {
    if reused || r.transfer_size <= INITIAL_CWD || !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
        return Vec::new();
    }
    let total = r.network_end_time - r.network_request_time;
    let after_first_byte = total - t.receive_headers_end;
    let round_trips = (r.transfer_size / INITIAL_CWD).log2();
    if round_trips > 5.0 {
        return Vec::new();
    }
    vec![after_first_byte / round_trips]
}

fn via_send_start(r: &LanternRequest, t: &crate::ResourceTiming, reused: bool) -> Vec<f64> {
    if reused || !t.send_start.is_finite() || t.send_start < 0.0 {
        return Vec::new();
    }
    let mut round_trips = 1.0;
    if !r.protocol.starts_with("h3") {
        round_trips += 1.0;
    }
    if r.scheme == "https" {
        round_trips += 1.0;
    }
    vec![t.send_start / round_trips]
}

fn via_headers_end(r: &LanternRequest, t: &crate::ResourceTiming, reused: bool) -> Vec<f64> {
    if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
        return Vec::new();
    }
    let Some(kind) = r.resource_type.as_deref().filter(|k| !k.is_empty()) else {
        return Vec::new();
    };
    let server_share = match kind {
        "Document" | "XHR" | "Fetch" => 0.9,
        _ => 0.4,
    };
    let server_time = t.receive_headers_end * server_share;
    let mut round_trips = 1.0;
    if !reused {
        round_trips += 1.0;
        if !r.protocol.starts_with("h3") {
            round_trips += 1.0;
        }
        if r.scheme == "https" {
            round_trips += 1.0;
        }
    }
    vec![((t.receive_headers_end - server_time) / round_trips).max(3.0)]
}

/// Each origin's round trip estimates: from connection setups, or else
/// the coarse ones (download, send start, headers), weighted by 0.3.
fn rtt_estimates(requests: &[LanternRequest]) -> Vec<(String, Vec<f64>)> {
    let reused = reused(requests);
    let reused_of = |r: &LanternRequest| reused.get(r.request_id.as_str()).copied().unwrap_or(false);
    let mut out = Vec::new();
    for (origin, list) in by_origin(requests) {
        let collect = |estimates: &mut Vec<f64>, estimator: Estimator, weight: f64| {
            for r in list
                .iter()
                .filter(|r| r.transfer_size != 0.0 && !r.transfer_size.is_nan())
            {
                let Some(timing) = &r.timing else { continue };
                estimates.extend(estimator(r, timing, reused_of(r)).into_iter().map(|e| e * weight));
            }
        };
        let mut estimates = Vec::new();
        collect(&mut estimates, via_connection, 1.0);
        if estimates.is_empty() {
            collect(&mut estimates, via_download, 0.3);
            collect(&mut estimates, via_send_start, 0.3);
            collect(&mut estimates, via_headers_end, 0.3);
        }
        if !estimates.is_empty() {
            out.push((origin.to_owned(), estimates));
        }
    }
    out
}

/// Each origin's server response time estimates: the time to first byte
/// less the origin's round trip time.
fn response_time_estimates(requests: &[LanternRequest], rtt_by_origin: &[(String, f64)]) -> Vec<(String, Vec<f64>)> {
    let summary_rtt = lookup(rtt_by_origin, SUMMARY);
    let mut out = Vec::new();
    for (origin, list) in by_origin(requests) {
        let mut estimates = Vec::new();
        for r in &list {
            let Some(t) = &r.timing else { continue };
            if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
                continue;
            }
            if !t.send_end.is_finite() || t.send_end < 0.0 {
                continue;
            }
            let ttfb = t.receive_headers_end - t.send_end;
            let truthy = |x: Option<f64>| x.filter(|v| *v != 0.0 && !v.is_nan());
            let rtt = truthy(lookup(rtt_by_origin, &r.origin))
                .or(truthy(summary_rtt))
                .unwrap_or(0.0);
            estimates.push((ttfb - rtt).max(0.0));
        }
        if !estimates.is_empty() {
            out.push((origin.to_owned(), estimates));
        }
    }
    out
}

/// Bits per second over the time any download was in flight, `None` when
/// none downloaded.
fn throughput(requests: &[LanternRequest]) -> Option<f64> {
    let mut total_bytes = 0.0;
    let mut boundaries: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        let unusable = r.scheme == "data"
            || r.failed
            || !r.finished
            || r.status_code > 300.0
            || r.transfer_size == 0.0
            || r.transfer_size.is_nan();
        if unusable {
            continue;
        }
        total_bytes += r.transfer_size;
        boundaries.push((r.response_headers_end_time / 1000.0, true));
        boundaries.push((r.network_end_time / 1000.0, false));
    }
    if boundaries.is_empty() {
        return None;
    }
    // A stable sort by time, as JavaScript's.
    boundaries.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut inflight, mut start, mut duration) = (0i64, 0.0, 0.0);
    for (time, is_start) in boundaries {
        if is_start {
            if inflight == 0 {
                start = time;
            }
            inflight += 1;
        } else {
            inflight -= 1;
            if inflight == 0 {
                duration += time - start;
            }
        }
    }
    Some(total_bytes * 8.0 / duration)
}
