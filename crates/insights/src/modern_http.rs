//! Modern HTTP: the requests of the set served over HTTP/1.1 or older from
//! an origin that served at least six static resources (not counting
//! localhost, and not the small requests of known third parties, which are
//! mostly tracking pixels), that HTTP/2 would have multiplexed.

use tracekit_engine::handlers::page::{Entity, JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::{Strings, Sym};

use crate::model::{Category, EventRef, Finding, Insight, MetricSavings, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "ModernHTTP",
    title: "Modern HTTP",
    description: "HTTP/2 and HTTP/3 offer many benefits over HTTP/1.1, such as multiplexing. [Learn more about using modern HTTP](https://developer.chrome.com/docs/performance/insights/modern-http).",
    docs: "https://developer.chrome.com/docs/performance/insights/modern-http",
    category: Category::Lcp,
    strings: &[
        ("description", "HTTP/2 and HTTP/3 offer many benefits over HTTP/1.1, such as multiplexing. [Learn more about using modern HTTP](https://developer.chrome.com/docs/performance/insights/modern-http)."),
        ("noOldProtocolRequests", "No requests used HTTP/1.1, or its current use of HTTP/1.1 doesn\u{2019}t present a significant optimization opportunity. HTTP/1.1 requests are only flagged if six or more static assets originate from the same origin, and they aren\u{2019}t served from a local development environment or a third-party source."),
        ("protocol", "Protocol"),
        ("request", "Request"),
        ("title", "Modern HTTP"),
    ],
};

/// An origin with fewer static resources than this gains little from
/// multiplexing (browsers open six connections a host).
const RESOURCES_WORTH_MULTIPLEXING: usize = 6;

/// The resource types HTTP/2 multiplexes with profit.
const STATIC_TYPES: [&str; 5] = ["Font", "Image", "Media", "Script", "Stylesheet"];

/// What the insight found: the requests served over an old HTTP, in time
/// order, one per URL.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModernHttp {
    /// The requests, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub http1_requests: Vec<usize>,
}

/// Computes the insight; an error when a request's URL does not parse
/// (DevTools throws).
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let network = cx.data.network_requests();
    let strings = cx.analysis.strings();
    let in_set: Vec<(usize, &NetworkRequest, url::Url)> = network
        .requests
        .iter()
        .enumerate()
        .filter(|(_, r)| cx.overlaps(r.ts, r.dur))
        .map(|(at, r)| {
            let text = strings.resolve(r.url);
            url::Url::parse(text)
                .map(|u| (at, r, u))
                .map_err(|_| format!("invalid URL: {text}"))
        })
        .collect::<Result<_, _>>()?;
    let first_party = first_party_name(cx);
    let mut static_by_origin: ahash::AHashMap<String, usize> = ahash::AHashMap::new();
    for (_, request, url) in &in_set {
        if !is_multiplexable(request, strings, first_party.as_deref()) || is_localhost(url) {
            continue;
        }
        *static_by_origin.entry(url.origin().ascii_serialization()).or_default() += 1;
    }
    let mut seen: ahash::AHashSet<Sym> = ahash::AHashSet::new();
    let mut http1_requests = Vec::new();
    for (at, request, url) in &in_set {
        if seen.contains(&request.url) || request.from_service_worker.is_truthy() {
            continue;
        }
        if !is_old_http(&request.protocol, strings) {
            continue;
        }
        let origin = url.origin().ascii_serialization();
        if static_by_origin.get(&origin).copied().unwrap_or(0) < RESOURCES_WORTH_MULTIPLEXING {
            continue;
        }
        seen.insert(request.url);
        http1_requests.push(*at);
    }
    let state = if http1_requests.is_empty() {
        State::Pass
    } else {
        State::Fail
    };
    let related = http1_requests.iter().map(|&at| EventRef::Request(at)).collect();
    let savings = match cx.lantern() {
        Some(lantern) => {
            let strings = cx.analysis.strings();
            let urls: Vec<&str> = http1_requests
                .iter()
                .map(|&at| strings.resolve(cx.data.network_requests().requests[at].url))
                .collect();
            let (fcp, lcp) = tracekit_lantern::modern_http_savings(lantern, &urls).map_err(|e| e.to_string())?;
            Some(MetricSavings {
                fcp: Some(fcp),
                lcp: Some(lcp),
                ..MetricSavings::default()
            })
        }
        None => None,
    };
    let mut insight = Insight::new(state, Finding::ModernHttp(ModernHttp { http1_requests }));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.metric_savings = savings;
    Ok(insight)
}

/// The name of the page's own entity: that of the navigation's URL, else
/// the main frame's.
fn first_party_name(cx: &Context<'_>) -> Option<String> {
    let strings = cx.analysis.strings();
    let url = cx.navigation.and_then(|n| n.url).or(cx.data.meta().main_frame_url)?;
    Entity::find_for_url(strings.resolve(url), strings).map(|(_, name)| name)
}

/// Whether a request is a static resource multiplexing helps: of a static
/// type, and not a small (under 100 bytes) request of a known third party
/// other than the page's own.
fn is_multiplexable(request: &NetworkRequest, strings: &Strings, first_party: Option<&str>) -> bool {
    let kind = request.resource_type.as_sym().map(|s| strings.resolve(s));
    if !kind.is_some_and(|k| STATIC_TYPES.contains(&k)) {
        return false;
    }
    if request.decoded_body_length.to_number(strings) < 100.0 {
        if let Some((entity, name)) = Entity::find_for_url(strings.resolve(request.url), strings) {
            if first_party == Some(name.as_str()) {
                return true;
            }
            // Entities made up for a domain are not recognized: kept.
            if !matches!(entity, Some(Entity::MadeUp(_)) | None) {
                return false;
            }
        }
    }
    true
}

/// Whether a URL is on the local machine (`localhost`, `127.0.0.1`, or a
/// host under `.localhost`).
fn is_localhost(url: &url::Url) -> bool {
    let host = url.host_str().unwrap_or("");
    host == "localhost" || host == "127.0.0.1" || host.ends_with(".localhost")
}

/// Whether a protocol names HTTP/0.x or HTTP/1.x (any case, anywhere in
/// it).
fn is_old_http(protocol: &JsValue, strings: &Strings) -> bool {
    let Some(text) = protocol.as_sym().map(|s| strings.resolve(s).to_ascii_lowercase()) else {
        return false;
    };
    text.match_indices("http/")
        .any(|(i, _)| matches!(text.as_bytes().get(i + 5), Some(b'0' | b'1')))
}

impl ModernHttp {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let requests = self
            .http1_requests
            .iter()
            .map(|&at| cx.event(EventRef::Request(at)))
            .collect();
        model.push("http1Requests", Value::Array(requests));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.http1_requests.is_empty() {
            return vec!["no request worth moving to HTTP/2".to_owned()];
        }
        let strings = cx.analysis.strings();
        let requests = &cx.data.network_requests().requests;
        self.http1_requests
            .iter()
            .map(|&at| {
                let r = &requests[at];
                let protocol = r.protocol.as_sym().map_or("", |s| strings.resolve(s));
                format!("{} ({protocol})", strings.resolve(r.url))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_trace::{navigation_set, sets, trace};
    use crate::{Finding, State};

    /// `n` scripts of `https://{host}/` over `protocol`.
    fn scripts(host: &str, n: u32, protocol: &str) -> String {
        (0..n)
            .map(|i| {
                let ts = 5000 + i * 1000;
                format!(
                    r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"{host}{i}",
    "url":"https://{host}/{i}.js","priority":"Low","requestMethod":"GET","frame":"F1","resourceType":"Script"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{host}{i}",
    "fromCache":false,"mimeType":"text/javascript","statusCode":200,"protocol":"{protocol}","headers":[]}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{host}{i}",
    "encodedDataLength":5000,"decodedBodyLength":5000,"finishTime":0.5}}}}}}"#,
                    ts + 100,
                    ts + 200
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn http1(text: &str) -> (State, Vec<usize>) {
        let sets = sets(text);
        let insight = navigation_set(&sets)
            .computed()
            .find(|i| matches!(i.finding, Finding::ModernHttp(_)))
            .unwrap()
            .clone();
        let Finding::ModernHttp(f) = insight.finding else {
            unreachable!()
        };
        (insight.state, f.http1_requests)
    }

    #[test]
    fn six_http1_scripts_of_an_origin_fail_and_five_or_h2_pass() {
        let (state, found) = http1(&trace(&scripts("b.test", 6, "http/1.1")));
        assert_eq!(state, State::Fail);
        assert_eq!(found.len(), 6);
        assert_eq!(http1(&trace(&scripts("b.test", 5, "http/1.1"))).0, State::Pass);
        assert_eq!(http1(&trace(&scripts("b.test", 6, "h2"))).0, State::Pass);
        assert_eq!(http1(&trace(&scripts("localhost", 6, "http/1.1"))).0, State::Pass);
    }
}
