//! The page, as people read it: the network requests of a trace
//! ([`requests`]), each as a row of times and facts, and their text and
//! JSON (`tracekit network`); the main frame's navigations and their
//! metrics ([`navigations`]) and their JSON (`tracekit metrics`); why
//! things happened: each event's initiator ([`initiators`]), each entry's
//! warnings ([`warnings`]), and what `tracekit tracks --why` adds to the
//! nodes ([`Why`]); the scripts V8 described ([`scripts`]). Built from the
//! handlers' data, which the analysis must have gathered
//! ([`AnalyzeOptions::all_handlers`](tracekit_engine::AnalyzeOptions::all_handlers)).

mod causes;
mod metrics;
mod requests;
mod scripts;

use std::fmt::Write as _;

use tracekit_engine::support::jsnum::write_json_number;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Analysis, HandlerData, Millis};

pub use causes::{
    initiators, initiators_json, warning_label, warnings, warnings_json, EntryFacts, InitiatorRow, LinkKind,
    WarningRow, Why,
};
pub use metrics::{cls_rating, inp_rating, navigations, InteractionFacts, Metric, NavigationRow};
pub use requests::{requests, RequestRow};
pub use scripts::{scripts, scripts_json, ScriptRow};

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

/// The metrics of each navigation, as lines of text.
pub fn navigations_text(rows: &[NavigationRow]) -> String {
    let mut out = String::new();
    for (i, n) in rows.iter().enumerate() {
        let _ = writeln!(
            out,
            "navigation {} at {:.1} ms: {}{}",
            i + 1,
            n.start.0,
            n.url.as_deref().unwrap_or("(no URL)"),
            n.navigation_id
                .as_deref()
                .map(|id| format!(" (id {id})"))
                .unwrap_or_default()
        );
        let metric = |out: &mut String, name: &str, m: &Option<Metric>, extra: &str| {
            if let Some(m) = m {
                let rating = if m.rating == "unclassified" { "" } else { m.rating };
                let line = format!("  {name:<5}{:>9.1} ms  {rating:<5}{extra}", m.value.0);
                out.push_str(line.trim_end());
                out.push('\n');
            }
        };
        metric(&mut out, "FP", &n.fp, "");
        metric(&mut out, "FCP", &n.fcp, "");
        let mut lcp_what = String::new();
        if let Some(image) = &n.lcp_image {
            let _ = write!(lcp_what, "  image {image}");
        } else if n.lcp.is_some() {
            lcp_what.push_str("  text");
        }
        if let Some(node) = n.lcp_node {
            let _ = write!(lcp_what, " (node {node})");
        }
        metric(&mut out, "LCP", &n.lcp, &lcp_what);
        metric(&mut out, "DCL", &n.dcl, "");
        metric(&mut out, "load", &n.load, "");
        metric(&mut out, "TBT", &n.tbt, "");
        if let Some(cls) = n.cls {
            let cluster = n
                .cls_cluster
                .map(|(start, shifts)| {
                    format!(
                        "  worst cluster at {:.1} ms, {shifts} shift{}",
                        start.0,
                        if shifts == 1 { "" } else { "s" }
                    )
                })
                .unwrap_or_else(|| "  no layout shift".to_owned());
            let _ = writeln!(out, "  CLS  {cls:>9.4}     {:<5}{cluster}", cls_rating(cls));
        }
        match (&n.inp, &n.inp_interaction) {
            (Some(inp), Some(i)) => {
                let _ = writeln!(
                    out,
                    "  INP  {:>9.1} ms  {:<5}  {} at {:.1} ms (input delay {:.1}, processing {:.1}, presentation delay {:.1} ms)",
                    inp.0,
                    inp_rating(*inp),
                    i.kind,
                    i.start.0,
                    i.input_delay.0,
                    i.processing.0,
                    i.presentation_delay.0
                );
            }
            _ => out.push_str("  INP          -         no interaction\n"),
        }
    }
    out.push_str("(metrics in ms from their navigation; starts in ms from the start of the trace)\n");
    out
}

/// The page in a few lines, for `tracekit info`: its URL, each
/// navigation's FCP, LCP (and what it painted), CLS and INP, the requests
/// (how many block rendering, bytes transferred), the screenshots, the
/// warnings by kind and the scripts with and without a source map.
/// `None` when the analysis has no page data (a profile, or loaded
/// without every handler) or the trace no page (no navigation, request,
/// screenshot, warning or script).
pub fn info_text(analysis: &Analysis) -> Option<String> {
    let data = handlers(analysis).ok()?;
    let navigations = navigations(analysis).ok()?;
    let requests = requests(analysis).ok()?;
    let screenshots = data.screenshots();
    let shots = screenshots.legacy.len() + screenshots.screenshots.len();
    let scripts = scripts(analysis).ok()?;
    let no_warnings = data.warnings().per_warning.is_empty();
    if navigations.is_empty() && requests.is_empty() && shots == 0 && no_warnings && scripts.is_empty() {
        return None;
    }
    let mut out = String::new();
    let url = data.meta().main_frame_url.map(|u| analysis.strings().resolve(u));
    let _ = writeln!(
        out,
        "page: {} ({} navigation{} of the main frame)",
        url.filter(|u| !u.is_empty()).unwrap_or("(no main frame URL)"),
        navigations.len(),
        if navigations.len() == 1 { "" } else { "s" }
    );
    for (i, n) in navigations.iter().enumerate() {
        let ms = |m: &Option<Metric>| m.map_or("-".to_owned(), |m| format!("{:.1} ms", m.value.0));
        let lcp_what = match (&n.lcp_image, n.lcp) {
            (Some(image), _) => format!(" (image {image})"),
            (None, Some(_)) => " (text)".to_owned(),
            (None, None) => String::new(),
        };
        let inp = match (&n.inp, &n.inp_interaction) {
            (Some(inp), Some(i)) => format!("{:.1} ms ({})", inp.0, i.kind),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            out,
            "  navigation {} at {:.1} ms: FCP {}, LCP {}{lcp_what}, CLS {}, INP {inp}",
            i + 1,
            n.start.0,
            ms(&n.fcp),
            ms(&n.lcp),
            n.cls.map_or("-".to_owned(), |c| format!("{c:.4}"))
        );
    }
    let blocking = requests
        .iter()
        .filter(|r| matches!(r.render_blocking.as_deref(), Some(b) if b != "non_blocking"))
        .count();
    let bytes: f64 = requests.iter().filter_map(|r| r.transfer_size).sum();
    let _ = writeln!(
        out,
        "  requests: {} ({blocking} render-blocking), {:.1} kB transferred",
        requests.len(),
        bytes / 1000.0
    );
    let _ = writeln!(out, "  screenshots: {shots}");
    causes::warnings_info(&mut out, data);
    scripts::scripts_info(&mut out, &scripts);
    Some(out)
}
