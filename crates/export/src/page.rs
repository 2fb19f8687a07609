//! The page, as people read it: the network requests of a trace
//! ([`requests`]), each as a row of times and facts, and their text and
//! JSON (`tracekit network`); the main frame's navigations and their
//! metrics ([`navigations`]) and their JSON (`tracekit metrics`). Built from the handlers' data, which the
//! analysis must have gathered
//! ([`AnalyzeOptions::all_handlers`](tracekit_engine::AnalyzeOptions::all_handlers)).

mod metrics;
mod requests;

use std::fmt::Write as _;

use tracekit_engine::support::jsnum::write_json_number;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Analysis, HandlerData, Millis};

pub use metrics::{cls_rating, inp_rating, navigations, InteractionFacts, Metric, NavigationRow};
pub use requests::{requests, RequestRow};

/// Why the page cannot be summarized.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageError {
    /// A profile on its own has no page (its kind, in words).
    NoPage(&'static str),
    /// The analysis was made without
    /// [`AnalyzeOptions::all_handlers`](tracekit_engine::AnalyzeOptions::all_handlers).
    NotGathered,
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageError::NoPage(kind) => write!(f, "a {kind} has no page: only a Chrome trace has requests and metrics"),
            PageError::NotGathered => {
                f.write_str("the analysis was made without AnalyzeOptions::with_all_handlers(true)")
            }
        }
    }
}

impl std::error::Error for PageError {}

/// The handlers' data, if the analysis gathered it all.
fn handlers(analysis: &Analysis) -> Result<&HandlerData, PageError> {
    let data = analysis.handlers().ok_or(PageError::NoPage(analysis.kind().name()))?;
    if !analysis.has_all_handlers() {
        return Err(PageError::NotGathered);
    }
    Ok(data)
}

/// A duration or a time in ms, 1 decimal, right-aligned in `width`.
fn ms_cell(out: &mut String, x: Millis, width: usize) {
    let _ = write!(out, "{:>width$.1}", x.0);
}

/// The requests as a table: start and duration, the phases, size, status,
/// priority, render blocking, what started it, and the URL.
pub fn requests_text(rows: &[RequestRow]) -> String {
    let mut out = String::from(
        "   start    total   queue     dns  connect    wait download     size status priority  blocking                initiator  url\n",
    );
    for r in rows {
        ms_cell(&mut out, r.start, 8);
        ms_cell(&mut out, Millis(r.end.0 - r.start.0), 9);
        ms_cell(&mut out, Millis(r.queueing.0 + r.stalled.0), 8);
        ms_cell(&mut out, r.dns, 8);
        ms_cell(&mut out, r.connect, 9);
        ms_cell(&mut out, r.wait, 8);
        ms_cell(&mut out, r.download, 9);
        let size = match (r.transfer_size, r.from_memory_cache || r.from_disk_cache) {
            (_, true) => "(cache)".to_owned(),
            (Some(bytes), false) => format!("{:.1} kB", bytes / 1000.0),
            (None, false) => "-".to_owned(),
        };
        let status = r.status.map_or("-".to_owned(), |s| format!("{s}"));
        let blocking = match r.render_blocking.as_deref() {
            Some("non_blocking") | None => "-",
            Some(other) => other,
        };
        let initiator = r.initiator_type.as_deref().unwrap_or("-");
        let _ = writeln!(
            out,
            " {size:>8} {status:>6} {:<9} {blocking:<23} {initiator:<10} {}{}",
            r.priority.as_deref().unwrap_or("-"),
            r.url,
            if r.failed { "  (failed)" } else { "" }
        );
    }
    out.push_str("(times in ms from the start of the trace; queue: queued and stalled; wait: time to first byte)\n");
    out
}

/// The requests as JSON: an array of objects, times in ms.
pub fn requests_json(rows: &[RequestRow]) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = JsonObject::new(&mut out);
        o.str("url", Some(&r.url));
        o.str("requestId", Some(&r.request_id));
        for (key, x) in [
            ("start", r.start),
            ("end", r.end),
            ("queueing", r.queueing),
            ("stalled", r.stalled),
            ("dns", r.dns),
            ("connect", r.connect),
            ("ssl", r.ssl),
            ("send", r.send),
            ("wait", r.wait),
            ("download", r.download),
            ("processing", r.processing),
        ] {
            o.num(key, Some(x.0));
        }
        o.num("transferSize", r.transfer_size);
        o.num("bodySize", r.body_size);
        o.num("status", r.status);
        o.str("mimeType", r.mime_type.as_deref());
        o.str("priority", r.priority.as_deref());
        o.str("initialPriority", r.initial_priority.as_deref());
        o.str("renderBlocking", r.render_blocking.as_deref());
        o.str("initiatorType", r.initiator_type.as_deref());
        o.str("initiatorUrl", r.initiator_url.as_deref());
        o.bool("fromMemoryCache", r.from_memory_cache);
        o.bool("fromDiskCache", r.from_disk_cache);
        o.bool("fromServiceWorker", r.from_service_worker);
        o.str("protocol", r.protocol.as_deref());
        o.bool("failed", r.failed);
        o.bool("finished", r.finished);
        o.key("redirects");
        o.out.push('[');
        for (j, url) in r.redirects.iter().enumerate() {
            if j > 0 {
                o.out.push(',');
            }
            write_json_string(o.out, url);
        }
        o.out.push(']');
        o.close();
    }
    out.push(']');
    out
}

/// The navigations and their metrics as JSON (`tracekit metrics --format
/// json`, `Trace.metrics()`): an array of objects, times in ms from the
/// start of the trace, metrics in ms from the navigation. Each metric is
/// `{"value", "rating"}` or `null`; `cls` adds its worst cluster's
/// `clusterStart` and `shifts`, `inp` its interaction's `type`, `start`,
/// `inputDelay`, `processing` and `presentationDelay`. CLS and INP are
/// rated as DevTools does: CLS good below 0.1, bad from 0.25; INP good up
/// to 200 ms, bad above 500 ms.
pub fn navigations_json(rows: &[NavigationRow]) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = JsonObject::new(&mut out);
        o.str("navigationId", r.navigation_id.as_deref());
        o.str("url", r.url.as_deref());
        o.str("frame", r.frame.as_deref());
        o.num("start", Some(r.start.0));
        for (key, metric) in [("fp", r.fp), ("fcp", r.fcp), ("lcp", r.lcp)] {
            o.metric(key, metric.map(|m| (m.value.0, m.rating)));
        }
        o.str("lcpImage", r.lcp_image.as_deref());
        o.num("lcpNode", r.lcp_node);
        for (key, metric) in [("dcl", r.dcl), ("load", r.load), ("tbt", r.tbt)] {
            o.metric(key, metric.map(|m| (m.value.0, m.rating)));
        }
        o.key("cls");
        match r.cls {
            Some(score) => {
                let mut cls = JsonObject::new(o.out);
                cls.num("value", Some(score));
                cls.str("rating", Some(cls_rating(score)));
                cls.num("clusterStart", r.cls_cluster.map(|(start, _)| start.0));
                cls.num("shifts", Some(r.cls_cluster.map_or(0, |(_, n)| n) as f64));
                cls.close();
            }
            None => o.out.push_str("null"),
        }
        o.key("inp");
        match (r.inp, &r.inp_interaction) {
            (Some(inp), Some(facts)) => {
                let mut obj = JsonObject::new(o.out);
                obj.num("value", Some(inp.0));
                obj.str("rating", Some(inp_rating(inp)));
                obj.str("type", Some(&facts.kind));
                obj.num("start", Some(facts.start.0));
                obj.num("inputDelay", Some(facts.input_delay.0));
                obj.num("processing", Some(facts.processing.0));
                obj.num("presentationDelay", Some(facts.presentation_delay.0));
                obj.close();
            }
            _ => o.out.push_str("null"),
        }
        o.close();
    }
    out.push(']');
    out
}

/// A JSON object written member by member.
struct JsonObject<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> JsonObject<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('{');
        JsonObject { out, first: true }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        write_json_string(self.out, key);
        self.out.push(':');
    }

    fn str(&mut self, key: &str, value: Option<&str>) {
        self.key(key);
        match value {
            Some(s) => write_json_string(self.out, s),
            None => self.out.push_str("null"),
        }
    }

    fn num(&mut self, key: &str, value: Option<f64>) {
        self.key(key);
        match value {
            Some(x) => write_json_number(self.out, x),
            None => self.out.push_str("null"),
        }
    }

    /// A metric: `{"value", "rating"}` or `null`.
    fn metric(&mut self, key: &str, value: Option<(f64, &str)>) {
        self.key(key);
        match value {
            Some((value, rating)) => {
                let mut o = JsonObject::new(self.out);
                o.num("value", Some(value));
                o.str("rating", Some(rating));
                o.close();
            }
            None => self.out.push_str("null"),
        }
    }

    fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.out.push_str(if value { "true" } else { "false" });
    }

    fn close(self) {
        self.out.push('}');
    }
}
