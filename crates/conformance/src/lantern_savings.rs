//! The Lantern savings of the ModernHTTP and RenderBlocking insights
//! against the DevTools engine's: for each navigation's insight set of a
//! data dump (`devtools-data.mjs`'s `insights`), the insight's inputs are
//! taken from DevTools' model (the HTTP/1.1 requests' URLs, the
//! render-blocking requests' ids), the savings are simulated on tracekit's
//! Lantern context of that navigation, and compared with the model's
//! `metricSavings` (and RenderBlocking's `requestIdToWastedMs`).

use std::path::Path;

use serde_json::{json, Map, Value};
use tracekit::handlers::meta::Navigation;
use tracekit::lantern::{context, modern_http_savings, render_blocking_savings, LanternContext};

use crate::lantern::first_difference;
use crate::lantern_metrics::Comparison;

/// How the two insights' savings of one trace compared.
#[derive(Debug, Default, Clone)]
pub struct SavingsComparison {
    /// ModernHTTP's, navigation by navigation.
    pub modern_http: Comparison,
    /// RenderBlocking's.
    pub render_blocking: Comparison,
}

/// The synthetic event a model's reference (`$KEY`) is, from the dump's
/// `synthetic` table.
fn resolve<'a>(synthetic: &'a Map<String, Value>, reference: &Value) -> Option<&'a Value> {
    synthetic.get(reference.as_str()?.strip_prefix('$')?)
}

/// The requests a model lists under `key`, resolved.
fn model_requests<'a>(synthetic: &'a Map<String, Value>, model: &Value, key: &str) -> Vec<&'a Value> {
    model[key]
        .as_array()
        .map(|a| a.iter().filter_map(|r| resolve(synthetic, r)).collect())
        .unwrap_or_default()
}

/// Compares the savings of each navigation set of `expected` (a data
/// dump of `file` with its `insights` and `synthetic`) with ours.
pub fn compare_insight_savings(
    file: &Path,
    expected: &Value,
    devtools: tracekit::DevTools,
) -> Result<SavingsComparison, String> {
    let mut out = SavingsComparison::default();
    let empty = Map::new();
    let synthetic = expected["synthetic"].as_object().unwrap_or(&empty);
    let sets = expected["insights"].as_array().ok_or("no insight sets")?;
    if !sets.iter().any(|s| s["navigation"].is_string()) {
        return Ok(out);
    }
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    for set in sets {
        let Some(reference) = set["navigation"].as_str() else {
            continue;
        };
        let index = reference.strip_prefix('#').and_then(|i| i.parse::<u64>().ok());
        let navigation: Option<&Navigation> = data
            .meta()
            .navigations
            .main_frame
            .iter()
            .find(|n| Some(u64::from(n.event)) == index);
        let lantern = navigation.and_then(|n| context(data, strings, n).ok().flatten());
        let model = &set["model"];
        if let Some(m) = model.get("ModernHTTP") {
            let theirs = json!({"metricSavings": m["metricSavings"]});
            let ours = json!({"metricSavings": lantern.as_ref().map(|cx| ours_modern_http(cx, synthetic, m))});
            record(&mut out.modern_http, reference, &theirs, &ours);
        }
        if let Some(m) = model.get("RenderBlocking") {
            let no_paint = m["warnings"].as_array().is_some_and(|w| w.iter().any(|x| x == "NO_FP"));
            let lcp_is_image = navigation.is_some_and(|n| {
                data.largest_image_paint()
                    .lcp_request_by_navigation
                    .contains_key(&n.navigation_id)
            });
            let mut theirs = json!({});
            for key in ["metricSavings", "requestIdToWastedMs"] {
                if let Some(v) = m.get(key) {
                    theirs[key] = v.clone();
                }
            }
            let ours = match lantern.as_ref().filter(|_| !no_paint) {
                Some(cx) => ours_render_blocking(cx, synthetic, m, lcp_is_image),
                None => json!({}),
            };
            record(&mut out.render_blocking, reference, &theirs, &ours);
        }
    }
    Ok(out)
}

/// Counts one navigation's comparison.
fn record(out: &mut Comparison, navigation: &str, theirs: &Value, ours: &Value) {
    out.compared += 1;
    match first_difference(theirs, ours) {
        None => out.identical += 1,
        Some(d) => out.differences.push(format!("navigation {navigation}: {d}")),
    }
}

/// Our ModernHTTP savings for the URLs of DevTools' HTTP/1.1 requests.
fn ours_modern_http(cx: &LanternContext, synthetic: &Map<String, Value>, model: &Value) -> Value {
    let requests = model_requests(synthetic, model, "http1Requests");
    let urls: Vec<&str> = requests
        .iter()
        .filter_map(|r| r["args"]["data"]["url"].as_str())
        .collect();
    match modern_http_savings(cx, &urls) {
        Ok((fcp, lcp)) => json!({"FCP": fcp, "LCP": lcp}),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// Our RenderBlocking savings for DevTools' render-blocking requests, in
/// the order the insight found them (by start time: its list is sorted
/// by duration only afterwards).
fn ours_render_blocking(
    cx: &LanternContext,
    synthetic: &Map<String, Value>,
    model: &Value,
    lcp_is_image: bool,
) -> Value {
    let mut requests = model_requests(synthetic, model, "renderBlockingRequests");
    requests.sort_by(|a, b| {
        a["ts"]
            .as_f64()
            .unwrap_or(0.0)
            .total_cmp(&b["ts"].as_f64().unwrap_or(0.0))
    });
    let ids: Vec<&str> = requests
        .iter()
        .filter_map(|r| r["args"]["data"]["requestId"].as_str())
        .collect();
    match render_blocking_savings(cx, &ids, lcp_is_image) {
        Ok(s) => json!({
            "metricSavings": {"FCP": s.fcp, "LCP": s.lcp},
            "requestIdToWastedMs": {"$map": s.wasted_ms.iter().map(|(id, ms)| json!([id, ms])).collect::<Vec<_>>()},
        }),
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// How the savings of the made-up variants compared, by insight and
/// variant (`ModernHTTP http1`, `RenderBlocking allBlocking`, ...).
pub type VariantComparison = std::collections::BTreeMap<String, Comparison>;

/// The variants of `xtask/js/lantern-insight-savings.mjs` and which
/// insights each runs (those named `http1...` on the context with every
/// HTTP/2 or 3 request taken as HTTP/1.1).
const VARIANTS: &[(&str, &[&str])] = &[
    ("asIs", &["modernHttp", "renderBlocking"]),
    ("http1", &["modernHttp", "renderBlocking"]),
    ("allBlocking", &["renderBlocking"]),
    ("allUrls", &["modernHttp"]),
    ("http1AllUrls", &["modernHttp"]),
    ("allButDocument", &["renderBlocking"]),
    ("http1AllButDocument", &["renderBlocking"]),
];

/// The name of an insight in the comparison's keys.
fn insight_name(part: &str) -> &'static str {
    if part == "modernHttp" {
        "ModernHTTP"
    } else {
        "RenderBlocking"
    }
}

/// Compares, for each navigation of `file`, our savings with DevTools'
/// on the variants of `lantern-insight-savings.mjs` (its output
/// `expected`), the inputs the insights picked taken from it; ours are
/// simulated on tracekit's Lantern context, made with the variant's
/// change.
pub fn compare_variants(
    file: &Path,
    expected: &Value,
    devtools: tracekit::DevTools,
) -> Result<VariantComparison, String> {
    let mut out = VariantComparison::new();
    let entries = expected.as_array().ok_or("not a list of navigations")?;
    if entries.is_empty() {
        return Ok(out);
    }
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let data = analysis.handlers().ok_or("no handler data")?;
    let strings = analysis.strings();
    for entry in entries {
        let index = entry["navigation"].as_u64();
        let reference = format!("#{}", index.unwrap_or_default());
        let navigation = data
            .meta()
            .navigations
            .main_frame
            .iter()
            .find(|n| Some(u64::from(n.event)) == index);
        // The context as is and the one over HTTP/1.1, each made once.
        let contexts = navigation.map(|n| {
            let http1 = context_with_change(data, strings, n, |r| {
                if r.protocol == "h2" || r.protocol.starts_with("h3") {
                    "http/1.1".clone_into(&mut r.protocol);
                }
            });
            (n, context(data, strings, n), http1)
        });
        for &(variant, parts) in VARIANTS {
            let Some(theirs) = entry["variants"].get(variant) else {
                continue;
            };
            let ours = match &contexts {
                Some((n, real, http1)) => {
                    let lantern = if variant.starts_with("http1") { http1 } else { real };
                    let lcp_is_image = data
                        .largest_image_paint()
                        .lcp_request_by_navigation
                        .contains_key(&n.navigation_id);
                    ours_variant(lantern, lcp_is_image, parts, theirs)
                }
                None => json!({"error": "not our navigation"}),
            };
            for &part in parts {
                let pick = |v: &Value| -> Value {
                    match v.get("error") {
                        Some(e) => json!({"error": e}),
                        None => json!({"lanternError": v.get("lanternError"), "savings": v[part]}),
                    }
                };
                let key = format!("{} {variant}", insight_name(part));
                record(out.entry(key).or_default(), &reference, &pick(theirs), &pick(&ours));
            }
        }
    }
    Ok(out)
}

/// Our side of one variant of a navigation, in the shape of DevTools'.
fn ours_variant(
    lantern: &Result<Option<LanternContext>, tracekit::lantern::LanternError>,
    lcp_is_image: bool,
    parts: &[&str],
    theirs: &Value,
) -> Value {
    let (lantern, lantern_error) = match lantern {
        Ok(cx) => (cx.as_ref(), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let mut out = json!({});
    if let Some(e) = lantern_error {
        out["lanternError"] = json!(e);
    }
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    for &part in parts {
        let inputs = &theirs[part];
        let mut savings = inputs.clone();
        let Some(cx) = lantern else {
            savings["metricSavings"] = Value::Null;
            if part == "renderBlocking" {
                savings["requestIdToWastedMs"] = Value::Null;
            }
            out[part] = savings;
            continue;
        };
        let result = if part == "modernHttp" {
            let urls = strs(&inputs["urls"]);
            let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
            modern_http_savings(cx, &urls).map(|(fcp, lcp)| {
                savings["metricSavings"] = json!({"FCP": fcp, "LCP": lcp});
            })
        } else {
            let ids = strs(&inputs["requestIds"]);
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            render_blocking_savings(cx, &ids, lcp_is_image).map(|s| {
                savings["metricSavings"] = json!({"FCP": s.fcp, "LCP": s.lcp});
                savings["requestIdToWastedMs"] = s.wasted_ms.iter().map(|(id, ms)| json!([id, ms])).collect();
            })
        };
        if let Err(e) = result {
            savings["error"] = json!(e.to_string());
        }
        out[part] = savings;
    }
    out
}

/// A navigation's Lantern context as [`context`] makes it, `change` made
/// to each of its requests before the graph is built.
fn context_with_change(
    data: &tracekit::HandlerData,
    strings: &tracekit::Strings,
    navigation: &Navigation,
    change: impl Fn(&mut tracekit::lantern::LanternRequest),
) -> Result<Option<LanternContext>, tracekit::lantern::LanternError> {
    use tracekit::lantern::{analyze, create_graph, metrics, processed_navigation, requests, MetricInput, Simulator};
    let mut list = requests(data, strings, navigation)?;
    list.iter_mut().for_each(change);
    let graph = create_graph(data, strings, navigation, &list)?;
    let processed = processed_navigation(data, navigation)?;
    let Some(analysis) = analyze(&list) else {
        return Ok(None);
    };
    let simulator = Simulator::new(&analysis)?;
    let metrics = metrics(MetricInput {
        graph: &graph,
        requests: &list,
        simulator: &simulator,
        navigation: &processed,
    })?;
    Ok(Some(LanternContext {
        requests: list,
        graph,
        simulator,
        metrics,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_resolves_to_its_synthetic_event() {
        let synthetic: Map<String, Value> =
            serde_json::from_str(r#"{"R:1:1:5:#2":{"args":{"data":{"url":"u","requestId":"1.2"}}}}"#).unwrap();
        let model = json!({"http1Requests": ["$R:1:1:5:#2", "$R:9:9:9:#9"]});
        let found = model_requests(&synthetic, &model, "http1Requests");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0]["args"]["data"]["url"], "u");
    }

    #[test]
    fn a_navigation_counts_as_identical_or_not() {
        let mut out = Comparison::default();
        record(
            &mut out,
            "#1",
            &json!({"metricSavings": {"FCP": 10}}),
            &json!({"metricSavings": {"FCP": 10.0}}),
        );
        record(
            &mut out,
            "#2",
            &json!({"metricSavings": null}),
            &json!({"metricSavings": {"FCP": 0}}),
        );
        assert_eq!((out.compared, out.identical), (2, 1));
        assert!(out.differences[0].starts_with("navigation #2"));
    }
}
