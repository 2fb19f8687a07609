//! The field data (CrUX, the Chrome User Experience Report) a trace may
//! carry in its `metadata.cruxFieldData`: the 75th percentiles of real
//! users' LCP, INP and CLS for the page's URL or origin, which the summary
//! shows beside the lab metrics and which weigh the insights' order.

use std::collections::HashMap;

use serde::Deserialize;

/// The metadata members read here.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Metadata {
    #[serde(default)]
    crux_field_data: Option<Vec<HashMap<String, Entry>>>,
}

impl Metadata {
    /// The metadata of a trace, from its text (empty when unreadable).
    pub(crate) fn read(text: Option<&str>) -> Metadata {
        text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
    }
}

/// A member of a page's results: a scope's result, or something else
/// (`null`, its `warnings`).
#[derive(Deserialize)]
#[serde(untagged)]
enum Entry {
    Scope(ScopeResult),
    #[allow(dead_code)]
    Other(serde::de::IgnoredAny),
}

impl Entry {
    fn scope(&self) -> Option<&ScopeResult> {
        match self {
            Entry::Scope(s) => Some(s),
            Entry::Other(_) => None,
        }
    }
}

#[derive(Deserialize)]
struct ScopeResult {
    record: Record,
}

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    key: Key,
    #[serde(default)]
    metrics: HashMap<String, Option<Metric>>,
}

#[derive(Deserialize, Default)]
struct Key {
    url: Option<String>,
    origin: Option<String>,
}

#[derive(Deserialize)]
struct Metric {
    percentiles: Option<Percentiles>,
}

#[derive(Deserialize)]
struct Percentiles {
    p75: Option<NumberOrText>,
}

/// CrUX writes some percentiles as strings.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumberOrText {
    Number(f64),
    Text(String),
    #[allow(dead_code)]
    Other(serde::de::IgnoredAny),
}

/// Which results are read: the page's own URL or its origin, on a device.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope {
    /// `url` or `origin`.
    pub page: &'static str,
    /// `ALL`, `DESKTOP` or `PHONE`.
    pub device: &'static str,
}

/// One field metric: its value (µs for times, the score for CLS) and the
/// scope it was found in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldValue {
    pub value: f64,
    pub page_scope: &'static str,
}

/// The field metrics of a page.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FieldMetrics {
    pub lcp: Option<FieldValue>,
    pub inp: Option<FieldValue>,
    pub cls: Option<FieldValue>,
    pub ttfb: Option<FieldValue>,
    pub load_delay: Option<FieldValue>,
    pub load_duration: Option<FieldValue>,
    pub render_delay: Option<FieldValue>,
}

/// The field metrics of the page at `url` in `scope` (with none, the
/// URL's over all devices, else the origin's).
pub(crate) fn field_metrics(meta: &Metadata, url: &str, scope: Option<Scope>) -> Option<FieldMetrics> {
    let results = meta.crux_field_data.as_ref()?;
    let origin = url::Url::parse(url).ok().map(|u| u.origin().ascii_serialization());
    let result = results.iter().find(|r| {
        let scoped = match scope {
            Some(s) => r.get(&format!("{}-{}", s.page, s.device)).and_then(Entry::scope),
            None => r
                .get("url-ALL")
                .and_then(Entry::scope)
                .or_else(|| r.get("origin-ALL").and_then(Entry::scope)),
        };
        let Some(key) = scoped.map(|s| &s.record.key) else {
            return false;
        };
        key.url.as_deref().is_some_and(|u| !u.is_empty() && u == url)
            || key
                .origin
                .as_deref()
                .is_some_and(|o| !o.is_empty() && Some(o) == origin.as_deref())
    })?;
    let time = |name: &str| {
        metric(result, name, scope).map(|v| FieldValue {
            value: v.value * 1000.0,
            ..v
        })
    };
    Some(FieldMetrics {
        lcp: time("largest_contentful_paint"),
        inp: time("interaction_to_next_paint"),
        cls: metric(result, "cumulative_layout_shift", scope),
        ttfb: time("largest_contentful_paint_image_time_to_first_byte"),
        load_delay: time("largest_contentful_paint_image_resource_load_delay"),
        load_duration: time("largest_contentful_paint_image_resource_load_duration"),
        render_delay: time("largest_contentful_paint_image_element_render_delay"),
    })
}

fn metric(result: &HashMap<String, Entry>, name: &str, scope: Option<Scope>) -> Option<FieldValue> {
    let scopes: Vec<Scope> = match scope {
        Some(s) => vec![s],
        None => vec![
            Scope {
                page: "url",
                device: "ALL",
            },
            Scope {
                page: "origin",
                device: "ALL",
            },
        ],
    };
    scopes.into_iter().find_map(|s| {
        let r = result.get(&format!("{}-{}", s.page, s.device))?.scope()?;
        let p75 = r
            .record
            .metrics
            .get(name)?
            .as_ref()?
            .percentiles
            .as_ref()?
            .p75
            .as_ref()?;
        let value = match p75 {
            NumberOrText::Number(x) => *x,
            NumberOrText::Text(t) => js_number_of(t),
            NumberOrText::Other(_) => return None,
        };
        value.is_finite().then_some(FieldValue {
            value,
            page_scope: s.page,
        })
    })
}

/// JavaScript's `Number(text)` for the decimal texts CrUX writes.
fn js_number_of(text: &str) -> f64 {
    let t = text.trim();
    if t.is_empty() {
        return 0.0;
    }
    t.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#"{"cruxFieldData":[{"url-ALL":{"record":{"key":{"url":"https://a.test/"},
        "metrics":{"largest_contentful_paint":{"percentiles":{"p75":883}},
        "cumulative_layout_shift":{"percentiles":{"p75":"0.01"}}}}},
        "url-DESKTOP":null,"warnings":[]}]}"#;

    #[test]
    fn the_page_results_are_found_by_url_and_scope() {
        let meta = Metadata::read(Some(META));
        let all = field_metrics(&meta, "https://a.test/", None).unwrap();
        assert_eq!(all.lcp.unwrap().value, 883_000.0);
        assert_eq!(all.cls.unwrap().value, 0.01);
        assert!(all.inp.is_none());
        let desktop = Scope {
            page: "url",
            device: "DESKTOP",
        };
        assert!(field_metrics(&meta, "https://a.test/", Some(desktop)).is_none());
        assert!(field_metrics(&meta, "https://b.test/", None).is_none());
    }
}
