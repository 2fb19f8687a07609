//! Character set: whether the navigation's document declares its
//! character encoding, in its `Content-Type` response header or with a
//! `<meta charset>` in its first 1024 bytes (Blink's `MetaCharsetCheck`
//! event says where it found one).

use tracekit_engine::handlers::page::args::ArgKey;
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Sym;

use crate::model::{Category, EventRef, Finding, Insight, InsightWarning, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "CharacterSet",
    title: "Declare a character encoding",
    description: "A character encoding declaration is required. It can be done with a meta charset tag in the first 1024 bytes of the HTML or in the Content-Type HTTP response header. [Learn more about declaring the character encoding](https://developer.chrome.com/docs/insights/charset/).",
    docs: "https://developer.chrome.com/docs/insights/charset/",
    category: Category::All,
    strings: &[
        ("description", "A character encoding declaration is required. It can be done with a meta charset tag in the first 1024 bytes of the HTML or in the Content-Type HTTP response header. [Learn more about declaring the character encoding](https://developer.chrome.com/docs/insights/charset/)."),
        ("failedHttpHeader", "Doesn’t declare charset in HTTP header"),
        ("failedMetaCharsetLate", "Declares charset using a meta tag after the first 1024 bytes"),
        ("failedMetaCharsetMissing", "Doesn’t declare charset using a meta tag"),
        ("failedMetaCharsetUnknown", "Couldn’t determine meta charset declaration from trace"),
        ("passingHttpHeader", "Declares charset in HTTP header"),
        ("passingMetaCharsetEarly", "Declares charset using a meta tag in the first 1024 bytes"),
        ("title", "Declare a character encoding"),
    ],
};

/// The disposition Blink gives a `<meta charset>` in the first 1024 bytes.
const EARLY: &str = "found-in-first-1024-bytes";

/// What the insight found about the document of a navigation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CharacterSet {
    /// What it looked at: `None` for a set without a navigation or
    /// without a document request.
    pub document: Option<CharsetDocument>,
}

/// The navigation's document request and its declarations.
#[derive(Debug, Clone, PartialEq)]
pub struct CharsetDocument {
    /// The request, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// Its first `Content-Type` response header names a charset.
    pub has_http_charset: bool,
    /// The disposition of the navigation's last `MetaCharsetCheck`, as
    /// Blink wrote it (`None`: no such event, or none there).
    pub meta_charset_disposition: Option<Sym>,
    /// That disposition is `found-in-first-1024-bytes`.
    pub meta_charset_early: bool,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let nothing = |state| Insight::new(state, Finding::CharacterSet(CharacterSet::default()));
    let Some((navigation, Some(navigation_id))) = cx.navigation.map(|n| (n, n.navigation_id)) else {
        return Ok(nothing(State::Pass));
    };
    let network = cx.data.network_requests();
    let key = ArgKey {
        text: navigation_id,
        is_number: false,
    };
    let Some(&request) = network.by_id.get(&key) else {
        let mut insight = nothing(State::Pass);
        insight.warnings.push(InsightWarning::NoDocumentRequest);
        return Ok(insight);
    };
    let request = request as usize;
    let has_http_charset = content_type_has_charset(&network.requests[request]);
    let metrics = cx.data.page_load_metrics();
    let meta_charset_disposition = metrics
        .meta_charset_checks_by_navigation
        .get(&navigation.event)
        .and_then(|checks| checks.last())
        .and_then(|last| metrics.meta_charset_dispositions.get(last).copied());
    let strings = cx.analysis.strings();
    let meta_charset_early = meta_charset_disposition.is_some_and(|d| strings.resolve(d) == EARLY);
    let state = if has_http_charset || meta_charset_early {
        State::Pass
    } else {
        State::Fail
    };
    let mut insight = Insight::new(
        state,
        Finding::CharacterSet(CharacterSet {
            document: Some(CharsetDocument {
                request,
                has_http_charset,
                meta_charset_disposition,
                meta_charset_early,
            }),
        }),
    );
    insight.related_events = Some(RelatedEvents::List(vec![EventRef::Request(request)]));
    Ok(insight)
}

/// Whether the first `Content-Type` response header (any case) names a
/// charset of at least two characters.
fn content_type_has_charset(request: &tracekit_engine::handlers::page::NetworkRequest) -> bool {
    request
        .response_header_list()
        .into_iter()
        .find(|h| h.name.to_lowercase() == "content-type")
        .is_some_and(|h| names_charset(&h.value))
}

/// `charset`, any case, then `=` between optional white space, then two
/// or more of letters, digits and `-_:.()`, anywhere in the text.
fn names_charset(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    lower.match_indices("charset").any(|(at, word)| {
        let rest = lower[at + word.len()..].trim_start_matches(is_js_space);
        let Some(rest) = rest.strip_prefix('=') else {
            return false;
        };
        let name = rest.trim_start_matches(is_js_space);
        let is_name_char = |c: char| c.is_ascii_alphanumeric() || "-_:.()".contains(c);
        name.chars().take_while(|&c| is_name_char(c)).count() >= 2
    })
}

/// JavaScript's `\s`: Unicode white space and line terminators, and the
/// byte order mark.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// DevTools' label of a `<meta charset>` disposition.
fn meta_charset_label(disposition: Option<&str>) -> &'static str {
    match disposition {
        Some(EARLY) => "Declares charset using a meta tag in the first 1024 bytes",
        Some("found-after-first-1024-bytes") => "Declares charset using a meta tag after the first 1024 bytes",
        Some("not-found") => "Doesn’t declare charset using a meta tag",
        _ => "Couldn’t determine meta charset declaration from trace",
    }
}

impl CharacterSet {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let Some(doc) = &self.document else {
            return;
        };
        let http_label = if doc.has_http_charset {
            "Declares charset in HTTP header"
        } else {
            "Doesn’t declare charset in HTTP header"
        };
        let disposition = doc.meta_charset_disposition.map(|d| cx.dump.strings().resolve(d));
        let item = |label: &'static str, value: bool| {
            Value::from(
                Object::new()
                    .with("label", Value::str(label))
                    .with("value", Value::Bool(value)),
            )
        };
        let checklist = Object::new()
            .with("httpCharset", item(http_label, doc.has_http_charset))
            .with(
                "metaCharset",
                item(meta_charset_label(disposition), doc.meta_charset_early),
            );
        let data = Object::new()
            .with("hasHttpCharset", Value::Bool(doc.has_http_charset))
            .with(
                "metaCharsetDisposition",
                Value::opt(doc.meta_charset_disposition, Value::Sym),
            )
            .with("documentRequest", cx.event(EventRef::Request(doc.request)))
            .with("checklist", checklist.into());
        model.push("data", data.into());
    }
}

#[cfg(test)]
mod tests {
    use super::names_charset;

    #[test]
    fn a_charset_is_named_with_two_characters_or_more() {
        assert!(names_charset("text/html; charset=utf-8"));
        assert!(names_charset("text/html;CHARSET = \"x\"; charset=ab"));
        assert!(!names_charset("text/html; charset=a"));
        assert!(!names_charset("text/html"));
        assert!(!names_charset("text/html; charset="));
    }
}
