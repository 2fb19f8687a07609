//! Lantern's requests and network analysis against the DevTools engine's:
//! tracekit's (`tracekit::lantern`) written as the JSON that
//! `xtask/js/lantern.mjs` writes from DevTools' own Lantern, and the two
//! compared, numbers within 0.002.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use tracekit::lantern::{analyze, requests, LanternRequest};

/// Where the Lantern goldens of an engine are.
pub fn lantern_dir(devtools: tracekit::DevTools) -> PathBuf {
    crate::expected_dir(devtools).join("lantern")
}

fn r3(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

fn sorted(pairs: &[(String, f64)]) -> Value {
    let mut pairs = pairs.to_vec();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    // JavaScript's JSON leaves an undefined value out (an empty summary's).
    Value::Object(
        pairs
            .into_iter()
            .filter(|(_, v)| !v.is_nan())
            .map(|(k, v)| (k, r3(v)))
            .collect(),
    )
}

fn request_value(r: &LanternRequest, all: &[LanternRequest], strings: &tracekit::Strings) -> Value {
    let id = |i: Option<usize>| i.map(|i| all[i].request_id.clone());
    let timing = r.timing.map(|t| {
        let fields = [
            ("requestTime", t.request_time),
            ("proxyStart", t.proxy_start),
            ("proxyEnd", t.proxy_end),
            ("dnsStart", t.dns_start),
            ("dnsEnd", t.dns_end),
            ("connectStart", t.connect_start),
            ("connectEnd", t.connect_end),
            ("sslStart", t.ssl_start),
            ("sslEnd", t.ssl_end),
            ("sendStart", t.send_start),
            ("sendEnd", t.send_end),
            ("receiveHeadersStart", t.receive_headers_start),
            ("receiveHeadersEnd", t.receive_headers_end),
        ];
        Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_owned(), r3(v)))
                .collect::<Map<_, _>>(),
        )
    });
    let mut v = json!({
        "requestId": r.request_id, "url": r.url, "protocol": r.protocol, "connectionId": r3(r.connection_id),
        "connectionReused": r.connection_reused, "origin": r.origin, "scheme": r.scheme, "host": r.host,
        "rendererStartTime": r3(r.renderer_start_time), "networkRequestTime": r3(r.network_request_time),
        "responseHeadersEndTime": r3(r.response_headers_end_time), "networkEndTime": r3(r.network_end_time),
        "transferSize": r3(r.transfer_size), "resourceSize": r3(r.resource_size),
    });
    let more = json!({
        "fromDiskCache": r.from_disk_cache, "fromMemoryCache": r.from_memory_cache,
        "isLinkPreload": r.is_link_preload, "finished": r.finished, "failed": r.failed,
        "statusCode": r3(r.status_code), "resourceType": r.resource_type, "mimeType": r.mime_type,
        "priority": r.priority, "frameId": r.frame_id.map(|f| strings.resolve(f)), "fromWorker": r.from_worker,
        "initiatorType": r.initiator.kind, "initiatorRequest": id(r.initiator_request),
        "redirectSource": id(r.redirect_source), "timing": timing,
    });
    if let (Value::Object(v), Value::Object(more)) = (&mut v, more) {
        v.extend(more);
    }
    v
}

/// tracekit's Lantern view of a trace, in the golden's shape.
pub fn run_ours_lantern(file: &Path, devtools: tracekit::DevTools) -> Result<Value, String> {
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    let mut out = Vec::new();
    let navigations = data
        .meta()
        .navigations
        .main_frame
        .iter()
        .filter(|n| n.frame.is_some() && n.navigation_id.is_some_and(|id| !strings.resolve(id).is_empty()));
    for navigation in navigations {
        let mut entry = json!({"navigation": navigation.event});
        match requests(data, strings, navigation) {
            Err(e) => entry["error"] = json!(e.to_string()),
            Ok(list) => {
                entry["requests"] = Value::Array(list.iter().map(|r| request_value(r, &list, strings)).collect());
                entry["analysis"] = analyze(&list).map_or(Value::Null, |a| {
                    json!({"throughput": r3(a.throughput), "rtt": r3(a.rtt),
                        "additionalRttByOrigin": sorted(&a.additional_rtt_by_origin),
                        "serverResponseTimeByOrigin": sorted(&a.server_response_time_by_origin)})
                });
            }
        }
        out.push(entry);
    }
    Ok(Value::Array(out))
}

/// The first difference between the expected view and ours, if any.
pub fn first_difference(expected: &Value, ours: &Value) -> Option<String> {
    let mut work = vec![(expected, ours, String::new())];
    while let Some((e, a, path)) = work.pop() {
        match (e, a) {
            (Value::Object(eo), Value::Object(ao)) => {
                for (k, v) in eo {
                    match ao.get(k) {
                        Some(av) => work.push((v, av, format!("{path}.{k}"))),
                        None => return Some(format!("{path}.{k}: missing")),
                    }
                }
                if let Some(k) = ao.keys().find(|k| !eo.contains_key(*k)) {
                    return Some(format!("{path}.{k}: not expected"));
                }
            }
            (Value::Array(el), Value::Array(al)) => {
                if el.len() != al.len() {
                    return Some(format!("{path}: {} items, expected {}", al.len(), el.len()));
                }
                for (i, (x, y)) in el.iter().zip(al).enumerate().rev() {
                    work.push((x, y, format!("{path}[{i}]")));
                }
            }
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                if (x - y).abs() > 0.002 {
                    return Some(format!("{path}: expected {x}, got {y}"));
                }
            }
            _ if e != a => return Some(format!("{path}: expected {e}, got {a}")),
            _ => {}
        }
    }
    None
}
