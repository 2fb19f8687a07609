//! Network requests as DevTools' AI texts write them: one request in full
//! (its timings from its navigation, durations, initiators, headers), or
//! many in the compressed one-line format the summary's format
//! description explains, with their URLs listed once.

use std::cell::OnceCell;

use ahash::{AHashMap, AHashSet};
use tracekit_engine::handlers::page::{EntityEvent, JsValue, NetworkRequest};
use tracekit_engine::support::jsnum::js_number_string;
use tracekit_engine::support::EventIndex;
use tracekit_engine::{Analysis, HandlerData, Id, NodeKind, Strings, Sym};

use crate::keys::EventKey;
use crate::units::micros;

/// The response headers whose values DevTools shows; others are
/// redacted (fixed data).
const ALLOWED_HEADERS: &str = include_str!("allowed_headers.txt");

/// The most characters of response headers a full request shows.
const MAX_HEADERS_SIZE: usize = 1000;

/// The response headers a cross-origin request shows (the CORS
/// safelist).
const CORS_SAFELISTED: &[&str] = &[
    "cache-control",
    "content-language",
    "content-length",
    "content-type",
    "expires",
    "last-modified",
    "pragma",
];

/// The renderBlocking values that do not block rendering.
const NON_BLOCKING: &[&str] = &[
    "non_blocking",
    "dynamically_injected_non_blocking",
    "potentially_blocking",
];

/// What the request formats read.
#[derive(Clone, Copy)]
pub(crate) struct Requests<'a> {
    pub data: &'a HandlerData,
    pub strings: &'a Strings,
    pub analysis: &'a Analysis,
    /// Where the requests' sends are in the tracks, found at the first
    /// initiator asked for.
    pub sends: &'a OnceCell<SendNodes>,
}

/// The node of each request's send event, and the async tasks' starts:
/// what the stack of a send needs.
#[derive(Default)]
pub(crate) struct SendNodes {
    /// The thread and track position of each send event (and of each
    /// schedule event that starts an async task).
    node_of_event: AHashMap<EventIndex, (Id, Id, usize)>,
    /// The scheduler of the task each JS call is first below, by its
    /// thread and position.
    call_scheduler: AHashMap<(Id, Id, usize), EntityEvent>,
    /// The scheduler of the task each run's entry point starts, by event.
    run_scheduler: AHashMap<EventIndex, EntityEvent>,
}

impl SendNodes {
    fn new(analysis: &Analysis, data: &HandlerData) -> SendNodes {
        let async_calls = data.async_js_calls();
        let mut found = SendNodes::default();
        for (call, task) in &async_calls.async_call_to_scheduler {
            if let EntityEvent::ProfileCall { thread, position, .. } = *call {
                if let Some((pid, tid, _)) = analysis.numbered_threads().thread(thread) {
                    found
                        .call_scheduler
                        .insert((pid, tid, position as usize), task.scheduler);
                }
            }
        }
        for (entry, task) in &async_calls.run_entry_point_to_scheduler {
            if let EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } = *entry {
                found.run_scheduler.insert(i, task.scheduler);
            }
        }
        let mut wanted: AHashSet<EventIndex> = data.network_requests().requests.iter().map(|r| r.event).collect();
        for task in
            (async_calls.run_entry_point_to_scheduler.values()).chain(async_calls.async_call_to_scheduler.values())
        {
            if let EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } = task.scheduler {
                wanted.insert(i);
            }
        }
        for process in analysis.processes() {
            for thread in process.threads() {
                for (at, node) in thread.track().nodes.iter().enumerate() {
                    if let NodeKind::Event { event, .. } = node.kind() {
                        if wanted.contains(&event) {
                            found
                                .node_of_event
                                .entry(event)
                                .or_insert((thread.pid(), thread.tid(), at));
                        }
                    }
                }
            }
        }
        found
    }
}

/// One response header.
#[derive(serde::Deserialize)]
struct Header {
    #[serde(default)]
    name: String,
    #[serde(default)]
    value: String,
}

/// A value as a JavaScript template literal writes it.
pub(crate) fn js_text(value: &JsValue, strings: &Strings) -> String {
    match value {
        JsValue::Undefined => "undefined".to_owned(),
        JsValue::Null => "null".to_owned(),
        JsValue::Bool(b) => b.to_string(),
        JsValue::Num(x) => js_number_string(*x),
        JsValue::Str(s) => strings.resolve(*s).to_owned(),
        JsValue::Raw(r) if r.trim_start().starts_with('{') => "[object Object]".to_owned(),
        JsValue::Raw(r) => r.to_string(),
    }
}

fn allowed(name: &str) -> bool {
    let name = name.trim().to_lowercase();
    ALLOWED_HEADERS.lines().any(|h| h == name)
}

impl<'a> Requests<'a> {
    /// The request at `at` of the NetworkRequests handler.
    pub fn get(&self, at: usize) -> Option<&'a NetworkRequest> {
        self.data.network_requests().requests.get(at)
    }

    /// The request's URL.
    pub fn url(&self, r: &NetworkRequest) -> &'a str {
        self.strings.resolve(r.url)
    }

    /// `URL (eventKey: s-N, ts: T)`, the URL as shown ([`Self::shown_url`]).
    pub fn url_and_key(&self, r: &NetworkRequest) -> String {
        format!("{} {}", self.shown_url(r), serialized(r))
    }

    /// When the request's navigation started (else the trace's start).
    fn base_time(&self, r: &NetworkRequest) -> f64 {
        let meta = self.data.meta();
        let frame = match &r.frame {
            JsValue::Str(s) if !self.strings.resolve(*s).is_empty() => Some(*s),
            _ => None,
        };
        frame
            .and_then(|f| meta.navigations.by_frame_id.get(&Some(f)))
            .and_then(|navs| navs.iter().rev().find(|n| n.ts.0 <= r.ts.0))
            .map_or(meta.bounds.min.0, |n| n.ts.0)
    }

    /// The request that started `r`, as far as the NetworkRequests
    /// handler tells.
    fn handler_initiator(&self, at: usize) -> Option<usize> {
        let network = self.data.network_requests();
        (network.incomplete_initiator.iter())
            .rfind(|(initiated, _)| *initiated as usize == at)
            .map(|&(_, initiator)| initiator as usize)
    }

    /// The request that started request `at`, as DevTools' AI texts tell
    /// it: the NetworkRequests handler's when it is a stylesheet; else,
    /// when the stack of the request's send has an async parent whose top
    /// frame has a URL, the last request of that URL started before it
    /// (none if no such); else the handler's.
    fn initiator(&self, at: usize) -> Option<usize> {
        let handler = self.handler_initiator(at);
        let is_css = |i: usize| {
            self.get(i)
                .is_some_and(|r| matches!(r.mime_type, JsValue::Str(m) if self.strings.resolve(m) == "text/css"))
        };
        if handler.is_some_and(is_css) {
            return handler;
        }
        let r = self.get(at)?;
        let Some(url) = self.async_parent_top_url(r.event) else {
            return handler;
        };
        let network = self.data.network_requests();
        let ids = network.ids_by_url.get(&url)?;
        (ids.iter())
            .filter_map(|id| network.by_id.get(id))
            .map(|&i| i as usize)
            .rfind(|&i| self.get(i).is_some_and(|m| m.ts.0 < r.ts.0))
    }

    /// The URL of the first frame of the async parent of the stack of
    /// `event` (DevTools' stack of an event: its JS calls up its tree,
    /// crossing to the call that scheduled an async task where one
    /// starts; V8's native frames are left out). `None` without an async
    /// parent, or when the parent has no frame before the next one.
    fn async_parent_top_url(&self, event: EventIndex) -> Option<Sym> {
        let sends = self.sends.get_or_init(|| SendNodes::new(self.analysis, self.data));
        let node_at = |(pid, tid, at): (Id, Id, usize)| self.analysis.thread(pid, tid)?.node(at);
        let mut node = node_at(*sends.node_of_event.get(&event)?)?;
        // Up the tree, across at most one async parent: it ends.
        let mut in_parent = false;
        loop {
            let thread = node.thread();
            let scheduler = match node.raw().kind() {
                NodeKind::Event { event, .. } => sends.run_scheduler.get(&event),
                NodeKind::Call { frame } => {
                    let call_frame = &thread.track().js_frames.get(frame as usize)?.call_frame;
                    if in_parent && !call_frame.is_v8_native() {
                        return Some(call_frame.url);
                    }
                    sends.call_scheduler.get(&(thread.pid(), thread.tid(), node.index()))
                }
            };
            let scheduler_node = scheduler.and_then(|s| match *s {
                EntityEvent::ProfileCall { thread, position, .. } => {
                    let (pid, tid, _) = self.analysis.numbered_threads().thread(thread)?;
                    Some((pid, tid, position as usize))
                }
                EntityEvent::Event(i) | EntityEvent::BeginEnd { begin: i, .. } => sends.node_of_event.get(&i).copied(),
                _ => None,
            });
            node = match scheduler_node {
                Some(_) if in_parent => return None, // a second async parent before a frame of the first
                Some(at) => {
                    in_parent = true;
                    node_at(at)?
                }
                None => node.parent()?,
            };
        }
    }

    /// The chain of initiators of `at`, from its root; empty on a loop.
    fn initiator_chain(&self, at: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut cur = at;
        while let Some(i) = self.initiator(cur) {
            if chain.contains(&i) {
                return Vec::new();
            }
            chain.insert(0, i);
            cur = i;
        }
        chain
    }

    /// Whether the request, and each of its redirects, is of the main
    /// frame's origin: only then are its redirects and all its headers
    /// shown.
    fn same_origin(&self, r: &NetworkRequest) -> bool {
        let Some(main) = self.data.meta().main_frame_url.map(|u| self.strings.resolve(u)) else {
            return false;
        };
        let Some(origin) = origin_of(main) else {
            return false;
        };
        let url = self.url(r);
        !url.is_empty()
            && (r.redirects.iter()).all(|d| origin_of(self.strings.resolve(d.url)).as_ref() == Some(&origin))
            && origin_of(url).as_ref() == Some(&origin)
    }

    /// The URL shown for a request: a cross-origin request that was
    /// redirected shows where it started.
    fn shown_url(&self, r: &NetworkRequest) -> &'a str {
        match r.redirects.first() {
            Some(first) if !self.same_origin(r) => {
                let url = self.strings.resolve(first.url);
                if url.is_empty() {
                    "<redacted cross-origin redirect destination>"
                } else {
                    url
                }
            }
            _ => self.url(r),
        }
    }

    /// The redirects shown for a request: none for a cross-origin one.
    fn shown_redirects<'r>(&self, r: &'r NetworkRequest) -> &'r [tracekit_engine::handlers::page::network::Redirect] {
        if self.same_origin(r) {
            &r.redirects
        } else {
            &[]
        }
    }

    /// The response headers shown: a cross-origin request's safelisted
    /// ones only.
    fn headers(&self, r: &NetworkRequest) -> Option<Vec<Header>> {
        let headers: Vec<Header> = match &r.response_headers {
            JsValue::Raw(raw) => serde_json::from_str(raw).ok()?,
            _ => return None,
        };
        if self.same_origin(r) {
            return Some(headers);
        }
        let safe = |h: &Header| CORS_SAFELISTED.contains(&h.name.trim().to_lowercase().as_str());
        Some(headers.into_iter().filter(safe).collect())
    }

    fn position(&self, r: &NetworkRequest) -> usize {
        let network = self.data.network_requests();
        network.by_id.get(&r.request_id).map_or(usize::MAX, |&i| i as usize)
    }

    /// The requests, each in full when `verbose`, else compressed; by
    /// default in full only when there is one.
    pub fn format(&self, requests: &[usize], verbose: Option<bool>, title: Option<&str>) -> String {
        if requests.is_empty() {
            return String::new();
        }
        if verbose.unwrap_or(requests.len() == 1) {
            let texts: Vec<String> = (requests.iter().filter_map(|&at| self.get(at)))
                .map(|r| self.verbose(r, title))
                .collect();
            return texts.join("\n");
        }
        self.compressed(requests)
    }

    /// One request in full.
    pub fn verbose(&self, r: &NetworkRequest, title: Option<&str>) -> String {
        let base = self.base_time(r);
        let t = &r.timings;
        let priority = js_text(&r.priority, self.strings);
        let initial = js_text(&r.initial_priority, self.strings);
        let priorities = if priority == initial {
            format!("Priority: {priority}")
        } else {
            format!("Initial priority: {initial}\nFinal priority: {priority}")
        };
        let redirects: Vec<String> = (self.shown_redirects(r).iter().enumerate())
            .map(|(i, d)| {
                format!(
                    "#### Redirect {}: {}\n- Start time: {}\n- Duration: {}",
                    i + 1,
                    self.strings.resolve(d.url),
                    micros(d.ts.0 - base),
                    micros(d.dur.0)
                )
            })
            .collect();
        let at = self.position(r);
        let initiator = self.initiator(at).and_then(|i| self.get(i));
        let chain: Vec<&str> = (self.initiator_chain(at).iter())
            .filter_map(|&i| self.get(i))
            .map(|i| self.shown_url(i))
            .collect();
        let lines: Vec<String> = (self.headers(r).unwrap_or_default().iter())
            .map(|h| {
                format!(
                    "- {}: {}\n",
                    h.name,
                    if allowed(&h.name) {
                        h.value.as_str()
                    } else {
                        "<redacted>"
                    }
                )
            })
            .collect();
        format!(
            "## {}: {}\neventKey: {}\nTimings:\n- Queued at: {}\n- Request sent at: {}\n- Download complete at: {}\n- Main thread processing completed at: {}\nDurations:\n- Download time: {}\n- Main thread processing time: {}\n- Total duration: {}{}\nRedirects:{}\nStatus code: {}\nMIME Type: {}\nProtocol: {}\n{priorities}\nRender-blocking: {}\nFrom a service worker: {}\nInitiators (root request to the request that directly loaded this one): {}\n{}",
            title.unwrap_or("Network request"),
            self.shown_url(r),
            EventKey::Synthetic(r.event),
            micros(r.ts.0 - base),
            micros(t.send_start_time.0 - base),
            micros(t.finish_time.0 - base),
            micros(r.ts.0 + r.dur.0 - base),
            micros(t.finish_time.0 - t.download_start.0),
            micros(r.ts.0 + r.dur.0 - t.finish_time.0),
            micros(r.dur.0),
            initiator.map_or(String::new(), |i| format!("\nInitiator: {}", self.shown_url(i))),
            if redirects.is_empty() { " no redirects".to_owned() } else { format!("\n{}", redirects.join("\n")) },
            js_text(&r.status_code, self.strings),
            js_text(&r.mime_type, self.strings),
            js_text(&r.protocol, self.strings),
            if render_blocking(r, self.strings) { "Yes" } else { "No" },
            if r.from_service_worker.is_truthy() { "Yes" } else { "No" },
            if chain.is_empty() { "none".to_owned() } else { chain.join(", ") },
            format_lines("Response headers", &lines, MAX_HEADERS_SIZE),
        )
    }

    /// Many requests, one line each, their URLs listed once.
    fn compressed(&self, requests: &[usize]) -> String {
        let mut urls: Vec<String> = Vec::new();
        let lines: Vec<String> = (requests.iter().filter_map(|&at| self.get(at).map(|r| (at, r))))
            .map(|(at, r)| {
                let index = url_index(&mut urls, self.shown_url(r));
                self.compressed_line(index, at, r, &mut urls)
            })
            .collect();
        let all: Vec<String> = urls.iter().enumerate().map(|(i, u)| format!("{i}: {u}")).collect();
        format!(
            "\nNetwork requests data:\n\n\n\nallUrls = [{}]\n\n{}",
            all.join(", "),
            lines.join("\n")
        )
    }

    fn compressed_line(&self, index: usize, at: usize, r: &NetworkRequest, urls: &mut Vec<String>) -> String {
        let base = self.base_time(r);
        let t = &r.timings;
        let headers: Option<Vec<String>> = self.headers(r).map(|hs| {
            hs.iter()
                .map(|h| {
                    format!(
                        "{}: {}",
                        h.name,
                        if allowed(&h.name) {
                            h.value.as_str()
                        } else {
                            "<redacted>"
                        }
                    )
                })
                .collect()
        });
        let redirects: Vec<String> = (self.shown_redirects(r).iter())
            .map(|d| {
                let i = url_index(urls, self.strings.resolve(d.url));
                format!("[{i}|{}|{}]", micros(d.ts.0 - base), micros(d.dur.0))
            })
            .collect();
        let initiators: Vec<String> = (self.initiator_chain(at).iter())
            .filter_map(|&i| self.get(i))
            .map(|i| url_index(urls, self.shown_url(i)).to_string())
            .collect();
        let priority = js_text(&r.priority, self.strings);
        let parts = [
            index.to_string(),
            EventKey::Synthetic(r.event).to_string(),
            micros(r.ts.0 - base),
            micros(t.send_start_time.0 - base),
            micros(t.finish_time.0 - base),
            micros(r.ts.0 + r.dur.0 - base),
            micros(r.dur.0),
            micros(t.finish_time.0 - t.download_start.0),
            micros(r.ts.0 + r.dur.0 - t.finish_time.0),
            js_text(&r.status_code, self.strings),
            js_text(&r.mime_type, self.strings),
            priority.clone(),
            js_text(&r.initial_priority, self.strings),
            priority,
            if render_blocking(r, self.strings) { "t" } else { "f" }.to_owned(),
            js_text(&r.protocol, self.strings),
            if r.from_service_worker.is_truthy() { "t" } else { "f" }.to_owned(),
            initiators.join(","),
            format!("[{}]", redirects.join(",")),
            format!("[{}]", headers.map(|h| h.join("|")).unwrap_or_default()),
        ];
        parts.join(";")
    }
}

/// `(eventKey: s-N, ts: T)` of a request.
pub(crate) fn serialized(r: &NetworkRequest) -> String {
    format!(
        "(eventKey: {}, ts: {})",
        EventKey::Synthetic(r.event),
        js_number_string(r.ts.0)
    )
}

/// Whether DevTools counts the request as render-blocking.
pub(crate) fn render_blocking(r: &NetworkRequest, strings: &Strings) -> bool {
    match &r.render_blocking {
        JsValue::Str(s) => !NON_BLOCKING.contains(&strings.resolve(*s)),
        _ => true,
    }
}

/// A URL's origin as DevTools' security origins tell them apart
/// (`None`: opaque, never the same as another).
fn origin_of(url: &str) -> Option<String> {
    const OPAQUE: &[&str] = &["", "null", "undefined", "data:", "detached"];
    const OPAQUE_PREFIXES: &[&str] = &["about:", "blob:about", "blob:data", "blob:file", "blob:null", "data:"];
    let lower = url.trim().to_lowercase();
    if OPAQUE.contains(&lower.as_str()) || OPAQUE_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return None;
    }
    let lower = lower.strip_prefix("blob:").unwrap_or(&lower);
    let (scheme, rest) = lower.split_once("://")?;
    if scheme == "file" {
        let end = rest.find(['?', '#']).unwrap_or(rest.len());
        return Some(format!("file://{}", &rest[..end]));
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!scheme.is_empty() || !host.is_empty()).then(|| format!("{scheme}://{host}"))
}

fn url_index(urls: &mut Vec<String>, url: &str) -> usize {
    if let Some(i) = urls.iter().position(|u| u == url) {
        return i;
    }
    urls.push(url.to_owned());
    urls.len() - 1
}

/// Lines under a title, as many as fit in `max` UTF-16 units, trimmed;
/// nothing (not even the title) when none is left.
fn format_lines(title: &str, lines: &[String], max: usize) -> String {
    let mut result = String::new();
    let mut len = 0;
    for line in lines {
        let n = line.encode_utf16().count();
        if len + n > max {
            break;
        }
        result.push_str(line);
        len += n;
    }
    let result = result.trim();
    if result.is_empty() {
        String::new()
    } else {
        format!("{title}\n{result}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_beyond_the_limit_are_left_out_and_an_empty_list_has_no_title() {
        let lines = vec!["- a: 1\n".to_owned(), "- b: 2\n".to_owned()];
        assert_eq!(format_lines("H", &lines, 1000), "H\n- a: 1\n- b: 2");
        assert_eq!(format_lines("H", &lines, 8), "H\n- a: 1");
        assert_eq!(format_lines("H", &[], 1000), "");
    }

    #[test]
    fn origins_are_scheme_and_host_and_opaque_urls_have_none() {
        assert_eq!(
            origin_of("https://A.com:8080/x?y").as_deref(),
            Some("https://a.com:8080")
        );
        assert_eq!(origin_of("https://u@a.com/x").as_deref(), Some("https://a.com"));
        assert_eq!(origin_of("about:blank"), None);
        assert_eq!(origin_of("data:image/png;base64,AA"), None);
        assert_ne!(origin_of("https://a.com/"), origin_of("http://a.com/"));
    }

    #[test]
    fn only_listed_headers_show_their_values() {
        assert!(allowed(" Content-Type"));
        assert!(allowed("x-xss-protection"));
        assert!(!allowed("set-cookie"));
    }
}
