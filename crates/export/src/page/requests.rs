//! The network requests of a trace as rows: what `tracekit network`
//! prints, `Trace.network()` returns and the `requests` table holds.

use tracekit_engine::handlers::page::network::NetworkRequest;
use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::support::json::{as_str, member};
use tracekit_engine::{Analysis, Micros, Millis, Strings};

use super::PageError;

/// One network request, its times in milliseconds from the start of the
/// trace (the clock of `--window`), its phases in milliseconds.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RequestRow {
    /// Its URL (the last one, after redirects).
    pub url: String,
    /// Chrome's request id.
    pub request_id: String,
    /// When it was asked for.
    pub start: Millis,
    /// When the main thread was done with it.
    pub end: Millis,
    /// Queued in the browser before it could be sent.
    pub queueing: Millis,
    /// Stalled: waiting for a connection, proxy and so on.
    pub stalled: Millis,
    /// The DNS lookup.
    pub dns: Millis,
    /// Setting up the connection (TCP and TLS).
    pub connect: Millis,
    /// Of which the TLS handshake.
    pub ssl: Millis,
    /// Sending the request.
    pub send: Millis,
    /// Waiting for the first byte of the response (time to first byte).
    pub wait: Millis,
    /// Downloading the response.
    pub download: Millis,
    /// From the last byte to the end on the main thread.
    pub processing: Millis,
    /// Bytes on the wire (`encodedDataLength`; 0 when served from a cache).
    pub transfer_size: Option<f64>,
    /// Bytes of the body, decoded.
    pub body_size: Option<f64>,
    /// The HTTP status.
    pub status: Option<f64>,
    /// The MIME type of the response.
    pub mime_type: Option<String>,
    /// The final priority (`VeryHigh` ... `VeryLow`).
    pub priority: Option<String>,
    /// The priority it was asked with.
    pub initial_priority: Option<String>,
    /// Whether it blocked rendering (`blocking`, `in_body_parser_blocking`,
    /// `non_blocking`, ...), as Chrome says.
    pub render_blocking: Option<String>,
    /// What started it (`parser`, `script`, `preload`, `other`, ...).
    pub initiator_type: Option<String>,
    /// The URL of what started it (the document or the script).
    pub initiator_url: Option<String>,
    /// Served from the memory cache.
    pub from_memory_cache: bool,
    /// Served from the disk cache.
    pub from_disk_cache: bool,
    /// Served by a service worker.
    pub from_service_worker: bool,
    /// The protocol (`h2`, `http/1.1`, ...).
    pub protocol: Option<String>,
    /// The request failed.
    pub failed: bool,
    /// The trace has its end.
    pub finished: bool,
    /// The URLs it was redirected from, in order.
    pub redirects: Vec<String>,
}

/// The network requests of a trace, in the order they started. A trace
/// without requests gives none (the caller says so).
pub fn requests(analysis: &Analysis) -> Result<Vec<RequestRow>, PageError> {
    let data = super::handlers(analysis)?;
    let strings = analysis.strings();
    let origin = analysis.bounds().min;
    let mut rows: Vec<RequestRow> = data
        .network_requests()
        .requests
        .iter()
        .map(|r| row(r, origin, strings))
        .collect();
    rows.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
    Ok(rows)
}

fn row(r: &NetworkRequest, origin: Micros, strings: &Strings) -> RequestRow {
    let t = &r.timings;
    let ms = |x: Micros| x.to_millis();
    let text = |v: &JsValue| v.as_sym().map(|s| strings.resolve(s).to_owned());
    let initiator = match &r.initiator {
        JsValue::Raw(raw) => Some(raw.as_ref()),
        _ => None,
    };
    let initiator_member = |key: &str| {
        initiator
            .and_then(|i| member(i, key))
            .and_then(as_str)
            .map(|s| s.into_owned())
    };
    RequestRow {
        url: strings.resolve(r.url).to_owned(),
        request_id: strings.resolve(r.request_id.text).to_owned(),
        start: ms(r.ts - origin),
        end: ms(r.ts + r.dur - origin),
        queueing: ms(t.queueing),
        stalled: ms(t.stalled),
        dns: ms(t.dns_lookup),
        connect: ms(t.initial_connection),
        ssl: ms(t.ssl),
        send: ms(t.request_sent),
        wait: ms(t.waiting),
        download: ms(t.download),
        processing: ms(t.processing_duration),
        transfer_size: r.encoded_data_length.as_f64(),
        body_size: r.decoded_body_length.as_f64(),
        status: r.status_code.as_f64(),
        mime_type: text(&r.mime_type),
        priority: text(&r.priority),
        initial_priority: text(&r.initial_priority),
        render_blocking: text(&r.render_blocking),
        initiator_type: initiator_member("type"),
        initiator_url: initiator_member("url").filter(|u| !u.is_empty()),
        from_memory_cache: r.is_memory_cached,
        from_disk_cache: r.is_disk_cached,
        from_service_worker: r.from_service_worker.is_truthy(),
        protocol: text(&r.protocol),
        failed: r.failed.is_truthy(),
        finished: r.finished,
        redirects: r.redirects.iter().map(|d| strings.resolve(d.url).to_owned()).collect(),
    }
}
