//! LCP request discovery: whether the LCP image's request could start
//! early: found in the document's HTML (or preloaded), given a high fetch
//! priority, and not loaded lazily.

use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::json::{as_str, member};
use tracekit_engine::support::EventIndex;

use crate::lcp_breakdown::{document_first_byte, document_request, lcp_score};
use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "LCPDiscovery",
    title: "LCP request discovery",
    description: "[Optimize LCP](https://developer.chrome.com/docs/performance/insights/lcp-discovery) by making the LCP image discoverable from the HTML immediately, and avoiding lazy-loading",
    docs: "https://developer.chrome.com/docs/performance/insights/lcp-discovery",
    category: Category::Lcp,
    strings: &[
        ("title", "LCP request discovery"),
        ("description", "[Optimize LCP](https://developer.chrome.com/docs/performance/insights/lcp-discovery) by making the LCP image discoverable from the HTML immediately, and avoiding lazy-loading"),
        ("lcpLoadDelay", "LCP image loaded {PH1} after earliest start point"),
        ("fetchPriorityApplied", "fetchpriority=high applied"),
        ("fetchPriorityShouldBeApplied", "fetchpriority=high should be applied"),
        ("fetchPriorityShouldBeAppliedToImagePreload", "fetchpriority=high should be applied to the image preload request"),
        ("requestDiscoverable", "Request is discoverable in initial document"),
        ("lazyLoadNotApplied", "LCP resources shouldn\u{2019}t use loading=lazy"),
        ("noLcp", "No LCP detected"),
        ("noLcpResource", "No LCP resource detected because the LCP isn\u{2019}t an image"),
    ],
};

/// What the insight found of the LCP image's request.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageDiscovery {
    /// The request, by index in the network requests.
    pub request: usize,
    /// When the document's first byte arrived: the earliest the request
    /// could have started (`None` when unknown or 0).
    pub earliest_discovery: Option<f64>,
    /// The request's `fetchPriorityHint` is `high`.
    pub priority_hinted: bool,
    /// The request's `isLinkPreload` (`false` unless truthy).
    pub link_preload: JsValue,
    /// The document's parser started it.
    pub initiated_by_document: bool,
    /// The LCP candidate says `loading=lazy`.
    pub lazy: bool,
}

impl ImageDiscovery {
    /// Whether the request was discoverable in the document: preloaded
    /// (`isLinkPreload`'s value) or found by its parser.
    fn discoverable(&self) -> Value {
        if self.link_preload.is_truthy() {
            self.link_preload.dump()
        } else {
            Value::Bool(self.initiated_by_document)
        }
    }

    /// Whether the image was loaded eagerly (or preloaded).
    fn eager(&self) -> Value {
        if self.lazy {
            self.link_preload.dump()
        } else {
            Value::Bool(true)
        }
    }

    fn fails(&self) -> bool {
        let discoverable = self.link_preload.is_truthy() || self.initiated_by_document;
        let eager = !self.lazy || self.link_preload.is_truthy();
        !eager || !discoverable || !self.priority_hinted
    }
}

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LcpDiscovery {
    /// The LCP candidate, when the navigation has one and its document
    /// request is known.
    pub lcp_event: Option<EventIndex>,
    /// The LCP image's request, when the LCP is an image.
    pub image: Option<ImageDiscovery>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let Some(navigation) = cx.navigation else {
        return Ok(finish(LcpDiscovery::default(), None));
    };
    let Some((event, _)) = lcp_score(cx, navigation.event)? else {
        return Ok(finish(LcpDiscovery::default(), Some(InsightWarning::NoLcp)));
    };
    let Some(doc) = document_request(cx) else {
        return Ok(finish(LcpDiscovery::default(), Some(InsightWarning::NoDocumentRequest)));
    };
    let mut found = LcpDiscovery {
        lcp_event: Some(event),
        image: None,
    };
    let image = cx
        .data
        .largest_image_paint()
        .lcp_request_by_navigation
        .get(&navigation.navigation_id);
    let Some(&request) = image else {
        return Ok(finish(found, None));
    };
    let strings = cx.analysis.strings();
    let requests = &cx.data.network_requests().requests;
    let (req, doc) = (&requests[request], &requests[doc]);
    let initiator = match &req.initiator {
        JsValue::Raw(raw) => Some(&**raw),
        _ => None,
    };
    let initiator_member = |key: &str| initiator.and_then(|i| member(i, key)).and_then(as_str);
    let by_parser = initiator_member("type").is_some_and(|t| t == "parser");
    let from_document = initiator_member("url").is_some_and(|u| u == strings.resolve(doc.url));
    let hint = matches!(req.fetch_priority_hint, JsValue::Str(h) if strings.resolve(h) == "high");
    let lazy = cx
        .data
        .page_load_metrics()
        .lcp_candidates
        .get(&event)
        .is_some_and(|c| c.lazy);
    found.image = Some(ImageDiscovery {
        request,
        earliest_discovery: document_first_byte(cx, doc).filter(|&t| t != 0.0 && !t.is_nan()),
        priority_hinted: hint,
        link_preload: req.is_link_preload.clone(),
        initiated_by_document: by_parser && from_document,
        lazy,
    });
    Ok(finish(found, None))
}

fn finish(found: LcpDiscovery, warning: Option<InsightWarning>) -> Insight {
    let state = match &found.image {
        Some(image) if image.fails() => State::Fail,
        _ => State::Pass,
    };
    let related = match (found.lcp_event, &found.image) {
        (Some(event), Some(image)) => vec![EventRef::Input(event), EventRef::Request(image.request)],
        _ => Vec::new(),
    };
    let mut insight = Insight::new(state, Finding::LcpDiscovery(found));
    insight.warnings.extend(warning);
    insight.related_events = Some(RelatedEvents::List(related));
    insight
}

impl LcpDiscovery {
    /// What it found, in words: the LCP image's request and its checklist.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        let Some(image) = &self.image else {
            let why = if self.lcp_event.is_some() {
                "noLcpResource"
            } else {
                "noLcp"
            };
            return vec![UI.string(why).to_owned()];
        };
        let yes_no = |ok: bool| if ok { "yes" } else { "no" };
        let discoverable = image.link_preload.is_truthy() || image.initiated_by_document;
        let eager = !image.lazy || image.link_preload.is_truthy();
        vec![
            format!("LCP image: {}", cx.event(EventRef::Request(image.request))),
            format!(
                "fetchpriority=high: {}; discoverable in the document: {}; not lazily loaded: {}",
                yes_no(image.priority_hinted),
                yes_no(discoverable),
                yes_no(eager)
            ),
        ]
    }

    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        if let Some(event) = self.lcp_event {
            model.push("lcpEvent", Value::Event(event));
        }
        let Some(image) = &self.image else {
            return;
        };
        model.push("lcpRequest", cx.event(EventRef::Request(image.request)));
        model.push(
            "earliestDiscoveryTimeTs",
            Value::opt(image.earliest_discovery, Value::Num),
        );
        let item =
            |label: &'static str, value: Value| Object::new().with("label", Value::str(label)).with("value", value);
        let priority_label = if image.priority_hinted {
            "fetchpriority=high applied"
        } else if image.link_preload.is_truthy() {
            "fetchpriority=high should be applied to the image preload request"
        } else {
            "fetchpriority=high should be applied"
        };
        let checklist = Object::new()
            .with(
                "priorityHinted",
                item(priority_label, Value::Bool(image.priority_hinted)).into(),
            )
            .with(
                "requestDiscoverable",
                item("Request is discoverable in initial document", image.discoverable()).into(),
            )
            .with(
                "eagerlyLoaded",
                item("LCP resources shouldn\u{2019}t use loading=lazy", image.eager()).into(),
            );
        model.push("checklist", checklist.into());
    }
}

#[cfg(test)]
#[path = "lcp_discovery_tests.rs"]
mod tests;
