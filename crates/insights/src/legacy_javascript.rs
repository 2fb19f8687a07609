//! Legacy JavaScript: the set's scripts that carry polyfills and
//! transforms modern browsers do not need (found while loading by the
//! Scripts handler's detector, on each script of 5,000 characters or
//! more), with the bytes they cost over the network, the largest first.

use tracekit_engine::handlers::page::legacy_javascript::LegacyJavaScript as Found;
use tracekit_engine::handlers::page::{JsValue, NetworkRequest, Script, ScriptSource};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Strings;

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "LegacyJavaScript",
    title: "Legacy JavaScript",
    description: "Polyfills and transforms enable older browsers to use new JavaScript features. However, many aren\u{2019}t necessary for modern browsers. Consider modifying your JavaScript build process to not transpile [Baseline](https://web.dev/articles/baseline-and-polyfills) features, unless you know you must support older browsers. [Learn why most sites can deploy ES6+ code without transpiling](https://developer.chrome.com/docs/performance/insights/legacy-javascript).",
    docs: "https://developer.chrome.com/docs/performance/insights/legacy-javascript",
    category: Category::All,
    strings: &[
        ("columnScript", "Script"),
        ("columnWastedBytes", "Wasted bytes"),
        ("description", "Polyfills and transforms enable older browsers to use new JavaScript features. However, many aren\u{2019}t necessary for modern browsers. Consider modifying your JavaScript build process to not transpile [Baseline](https://web.dev/articles/baseline-and-polyfills) features, unless you know you must support older browsers. [Learn why most sites can deploy ES6+ code without transpiling](https://developer.chrome.com/docs/performance/insights/legacy-javascript)."),
        ("noLegacyJavaScript", "No legacy JavaScript found"),
        ("title", "Legacy JavaScript"),
    ],
};

/// A script with legacy JavaScript.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyScript {
    /// The script, by index in
    /// [`Scripts::scripts`](tracekit_engine::handlers::page::Scripts).
    pub script: usize,
    /// What the detector found in it.
    pub found: Found,
    /// The bytes it costs over the network (the detector's estimate
    /// scaled by the script's compression).
    pub wasted_bytes: f64,
}

/// What the insight found: the scripts with legacy JavaScript, the most
/// bytes first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegacyJavaScript {
    /// The scripts.
    pub scripts: Vec<LegacyScript>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let strings = cx.analysis.strings();
    let network = cx.data.network_requests();
    let mut scripts = Vec::new();
    for (at, script) in cx.data.scripts().scripts.iter().enumerate() {
        if script.frame != cx.frame_id
            || script
                .url
                .is_some_and(|u| strings.resolve(u).starts_with("chrome-extension://"))
        {
            continue;
        }
        let request = script.request.map(|r| &network.requests[r as usize]);
        if !cx.contains(script.ts) && !request.is_some_and(|r| cx.overlaps(r.ts, r.dur)) {
            continue;
        }
        let Some(found) = &script.legacy_javascript else {
            continue;
        };
        if found.matches.iter().any(|m| m.name.is_none()) {
            // DevTools reads the name of each match: an unnamed one throws.
            return Err("Cannot read properties of undefined (reading 'startsWith')".to_owned());
        }
        let ratio = request.map_or(1.0, |r| compression_ratio(script, r, strings));
        let wasted_bytes = js_round(found.estimated_byte_savings * ratio);
        scripts.push(LegacyScript {
            script: at,
            found: (**found).clone(),
            wasted_bytes,
        });
    }
    scripts.sort_by(|a, b| {
        (b.wasted_bytes - a.wasted_bytes)
            .partial_cmp(&0.0)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // By request: a request of two scripts counts with the last one's.
    let mut by_request: Vec<(usize, f64)> = Vec::new();
    let all = &cx.data.scripts().scripts;
    for s in &scripts {
        let Some(request) = all[s.script].request.map(|r| r as usize) else {
            continue;
        };
        match by_request.iter_mut().find(|(r, _)| *r == request) {
            Some(kept) => kept.1 = s.wasted_bytes,
            None => by_request.push((request, s.wasted_bytes)),
        }
    }
    let mut related: Vec<EventRef> = Vec::new();
    for s in &scripts {
        if let Some(r) = all[s.script].request.map(|r| EventRef::Request(r as usize)) {
            if !related.contains(&r) {
                related.push(r);
            }
        }
    }
    let state = if related.is_empty() { State::Pass } else { State::Fail };
    let mut insight = Insight::new(state, Finding::LegacyJavaScript(LegacyJavaScript { scripts }));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.wasted_bytes = Some(by_request.iter().map(|(_, b)| b).sum());
    insight.metric_savings = crate::estimates::wasted_bytes_savings(cx, by_request)?;
    Ok(insight)
}

/// JavaScript's `Math.round`: halves up.
fn js_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// How much smaller the script travels than it is: its request's bytes
/// over the network over its decoded bytes, as DevTools estimates it (a
/// request served from the browser's cache is taken as gzipped, a third).
pub(crate) fn compression_ratio(script: &Script, request: &NetworkRequest, strings: &Strings) -> f64 {
    let number = |v: &JsValue| {
        if v.is_nullish() {
            None
        } else {
            Some(v.to_number(strings))
        }
    };
    let content_length = number(&request.decoded_body_length)
        .or_else(|| match &script.content {
            Some(ScriptSource::Text(text)) => Some(text.encode_utf16().count() as f64),
            Some(ScriptSource::Long { length, .. }) => Some(*length as f64),
            _ => None,
        })
        .unwrap_or(0.0);
    let compressed = compressed_size(request, content_length, strings);
    if content_length == 0.0 || compressed == 0.0 {
        return 1.0;
    }
    compressed / content_length
}

/// DevTools' estimate of a script's bytes on the network.
fn compressed_size(request: &NetworkRequest, total: f64, strings: &Strings) -> f64 {
    let transfer = request.encoded_data_length.to_number(strings);
    let resource = request.decoded_body_length.to_number(strings);
    let headers = request.response_header_list();
    let has_headers = request.response_headers.is_truthy();
    let from_cache = has_headers
        && !request.failed.is_truthy()
        && (request.status_code.to_number(strings) == 304.0 || {
            let ratio = if resource != 0.0 && !resource.is_nan() {
                transfer / resource
            } else {
                0.0
            };
            ratio < 0.01
        });
    if from_cache {
        return js_round(total * 0.33);
    }
    let compressed = has_headers
        && headers.iter().any(|h| {
            let name = h.name.to_ascii_lowercase();
            matches!(
                name.as_str(),
                "content-encoding" | "x-content-encoding-over-network" | "x-original-content-encoding"
            ) && ["gzip", "br", "deflate", "zstd"].contains(&h.value.as_str())
        });
    let content_transfer = if compressed { transfer } else { resource };
    if request.resource_type.as_sym().map(|s| strings.resolve(s)) == Some("Script") {
        return content_transfer;
    }
    let ratio = if resource.is_finite() && resource > 0.0 {
        content_transfer / resource
    } else {
        1.0
    };
    js_round(total * ratio)
}

impl LegacyJavaScript {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let network = cx.data.network_requests();
        let scripts = cx.data.scripts();
        let results = self
            .scripts
            .iter()
            .map(|s| {
                let key = scripts.dump_script(s.script, network, cx.dump);
                let matches = (s.found.matches.iter())
                    .map(|m| {
                        Object::new()
                            .with("name", Value::str(m.name.as_deref().unwrap_or_default().to_owned()))
                            .with("line", Value::Num(f64::from(m.line)))
                            .with("column", Value::Num(f64::from(m.column)))
                            .into()
                    })
                    .collect();
                let result = Object::new()
                    .with("matches", Value::Array(matches))
                    .with("estimatedByteSavings", Value::Num(s.wasted_bytes));
                (key, result.into())
            })
            .collect();
        model.push("legacyJavaScriptResults", Value::Map(results));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.scripts.is_empty() {
            return vec![UI.string("noLegacyJavaScript").to_owned()];
        }
        let all = &cx.data.scripts().scripts;
        let strings = cx.analysis.strings();
        self.scripts
            .iter()
            .map(|s| {
                let url = all[s.script].url.map_or("(no URL)", |u| strings.resolve(u));
                let names: Vec<&str> = s.found.matches.iter().filter_map(|m| m.name.as_deref()).collect();
                format!("{url}: {:.0} bytes ({})", s.wasted_bytes, names.join(", "))
            })
            .collect()
    }
}
