//! Document request latency: the navigation's document request checked for
//! redirects, a slow server response (over 600 ms) and an uncompressed
//! text body, with what fixing them would save of FCP and LCP (computed
//! from the request alone, not by Lantern).

use tracekit_engine::handlers::page::args::ArgKey;
use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::jsnum::js_round;
use tracekit_engine::Strings;

use crate::millis_text::millis_to_string;
use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, MetricSavings, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "DocumentLatency",
    title: "Document request latency",
    description: "Your first network request is the most important. [Reduce its latency](https://developer.chrome.com/docs/performance/insights/document-latency) by avoiding redirects, ensuring a fast server response, and enabling text compression.",
    docs: "https://developer.chrome.com/docs/performance/insights/document-latency",
    category: Category::All,
    strings: &[
        ("description", "Your first network request is the most important. [Reduce its latency](https://developer.chrome.com/docs/performance/insights/document-latency) by avoiding redirects, ensuring a fast server response, and enabling text compression."),
        ("failedRedirects", "Had redirects ({PH1} redirects, +{PH2})"),
        ("failedServerResponseTime", "Server responded slowly (observed {PH1})"),
        ("failedTextCompression", "No compression applied"),
        ("passingRedirects", "Avoids redirects"),
        ("passingServerResponseTime", "Server responds quickly (observed {PH1})"),
        ("passingTextCompression", "Applies text compression"),
        ("redirectsLabel", "Redirects"),
        ("serverResponseTimeLabel", "Server response time"),
        ("title", "Document request latency"),
        ("uncompressedDownload", "Uncompressed download"),
    ],
};

/// A server response slower than this (ms) fails.
const TOO_SLOW_MS: f64 = 600.0;
/// What a slow server should aim for (ms): the savings are down to it.
const TARGET_MS: f64 = 100.0;
/// Compression savings under this many bytes are not worth reporting.
const IGNORE_BYTES: f64 = 1400.0;

/// What the insight found about the navigation's document request
/// (`None`: a set without a navigation or without a document request).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocumentLatency {
    /// The document request and its checks.
    pub document: Option<LatencyDocument>,
}

/// The document request and how it fared.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyDocument {
    /// The request, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// From sending the request to the first byte of the response, ms,
    /// rounded.
    pub server_response_time: f64,
    /// The time its redirects took, ms, rounded.
    pub redirect_duration: f64,
    /// How many redirects it went through.
    pub redirects: usize,
    /// The bytes compression would have saved (0: compressed, not worth
    /// it, or a type that does not compress; `NaN` without a body size).
    pub uncompressed_response_bytes: f64,
}

impl LatencyDocument {
    fn no_redirects(&self) -> bool {
        self.redirect_duration == 0.0
    }

    fn server_is_fast(&self) -> bool {
        self.server_response_time <= TOO_SLOW_MS
    }

    fn uses_compression(&self) -> bool {
        self.uncompressed_response_bytes == 0.0
    }
}

/// Computes the insight; an error when the document request has no
/// timing (DevTools throws).
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let nothing = |state| Insight::new(state, Finding::DocumentLatency(DocumentLatency::default()));
    let Some(navigation_id) = cx.navigation.and_then(|n| n.navigation_id) else {
        return Ok(nothing(State::Pass));
    };
    let network = cx.data.network_requests();
    let key = ArgKey {
        text: navigation_id,
        is_number: false,
    };
    let Some(&at) = network.by_id.get(&key) else {
        let mut insight = nothing(State::Pass);
        insight.warnings.push(InsightWarning::NoDocumentRequest);
        return Ok(insight);
    };
    let request = &network.requests[at as usize];
    if !request.timing.is_truthy() {
        return Err("missing document request timing".to_owned());
    }
    let server_response_time = js_round(request.timings.server_response_time.0 / 1000.0);
    let redirect_duration = js_round(request.timings.redirection_duration.0 / 1000.0);
    let mut savings = if server_response_time > TOO_SLOW_MS {
        (server_response_time - TARGET_MS).max(0.0)
    } else {
        0.0
    };
    savings += redirect_duration;
    let doc = LatencyDocument {
        request: at as usize,
        server_response_time,
        redirect_duration,
        redirects: request.redirects.len(),
        uncompressed_response_bytes: compression_savings(request, cx.analysis.strings()),
    };
    let passes = doc.no_redirects() && doc.server_is_fast() && doc.uses_compression();
    let mut insight = Insight::new(
        if passes { State::Pass } else { State::Fail },
        Finding::DocumentLatency(DocumentLatency {
            document: Some(doc.clone()),
        }),
    );
    insight.related_events = Some(RelatedEvents::List(vec![EventRef::Request(at as usize)]));
    insight.metric_savings = Some(MetricSavings {
        fcp: Some(savings),
        lcp: Some(savings),
        ..MetricSavings::default()
    });
    insight.wasted_bytes = Some(doc.uncompressed_response_bytes);
    Ok(insight)
}

/// The response headers that say how the body was encoded on the network.
const ENCODING_HEADERS: [&str; 3] = [
    "content-encoding",
    "x-content-encoding-over-network",
    "x-original-content-encoding",
];

/// DevTools' `isRequestCompressed`: a header of [`ENCODING_HEADERS`] (any
/// case) whose value is exactly a compression DevTools knows.
pub(crate) fn is_compressed(request: &NetworkRequest) -> bool {
    request.response_header_list().iter().any(|h| {
        ENCODING_HEADERS.iter().any(|n| h.name.eq_ignore_ascii_case(n))
            && ["gzip", "br", "deflate", "zstd"].contains(&h.value.as_str())
    })
}

/// The bytes compressing the body would save, by the share HTTP Archive
/// sees for its MIME type; 0 when compressed or under [`IGNORE_BYTES`].
fn compression_savings(request: &NetworkRequest, strings: &Strings) -> f64 {
    if is_compressed(request) {
        return 0.0;
    }
    let size = request.decoded_body_length.to_number(strings);
    let mime = match &request.mime_type {
        JsValue::Str(s) => strings.resolve(*s),
        _ => "",
    };
    let share = match mime {
        "text/css" => 0.8,
        "text/html" | "text/javascript" => 0.67,
        "text/plain"
        | "text/xml"
        | "text/x-component"
        | "application/javascript"
        | "application/json"
        | "application/manifest+json"
        | "application/vnd.api+json"
        | "application/xml"
        | "application/xhtml+xml"
        | "application/rss+xml"
        | "application/atom+xml"
        | "application/vnd.ms-fontobject"
        | "application/x-font-ttf"
        | "application/x-font-opentype"
        | "application/x-font-truetype"
        | "image/svg+xml"
        | "image/x-icon"
        | "image/vnd.microsoft.icon"
        | "font/ttf"
        | "font/eot"
        | "font/otf"
        | "font/opentype" => 0.5,
        _ => return 0.0,
    };
    let savings = js_round(size * share);
    // NaN is not under the threshold: it stays.
    if savings < IGNORE_BYTES {
        0.0
    } else {
        savings
    }
}

impl DocumentLatency {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let Some(doc) = &self.document else {
            return;
        };
        let item = |label: String, value: bool| {
            Value::from(
                Object::new()
                    .with("label", Value::str(label))
                    .with("value", Value::Bool(value)),
            )
        };
        let redirects = if doc.no_redirects() {
            "Avoids redirects".to_owned()
        } else {
            format!(
                "Had redirects ({} redirects, +{})",
                doc.redirects,
                millis_to_string(doc.redirect_duration)
            )
        };
        let observed = millis_to_string(doc.server_response_time);
        let server = if doc.server_is_fast() {
            format!("Server responds quickly (observed {observed})")
        } else {
            format!("Server responded slowly (observed {observed})")
        };
        let compression = if doc.uses_compression() {
            "Applies text compression"
        } else {
            "No compression applied"
        };
        let checklist = Object::new()
            .with("noRedirects", item(redirects, doc.no_redirects()))
            .with("serverResponseIsFast", item(server, doc.server_is_fast()))
            .with("usesCompression", item(compression.to_owned(), doc.uses_compression()));
        let data = Object::new()
            .with("serverResponseTime", Value::Num(doc.server_response_time))
            .with("redirectDuration", Value::Num(doc.redirect_duration))
            .with("uncompressedResponseBytes", Value::Num(doc.uncompressed_response_bytes))
            .with("documentRequest", cx.event(EventRef::Request(doc.request)))
            .with("checklist", checklist.into());
        model.push("data", data.into());
    }
}
