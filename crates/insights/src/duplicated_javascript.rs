//! Duplicated JavaScript: the original modules bundled more than once
//! across the set's scripts, found through the scripts' source maps (an
//! enhanced trace's `metadata.sourceMaps`, which DevTools' panel hands its
//! engine when it loads such a trace; a trace without maps finds
//! nothing). Each copy is sized by its map (the bytes of the script that
//! map to the module, at the script's compression), the copies smaller
//! than a tenth of the largest or half a kilobyte set aside, and every
//! copy after the largest counted as wasted.

use tracekit_engine::handlers::page::{Script, ScriptSource, Sizes};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Sym;

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "DuplicatedJavaScript",
    title: "Duplicated JavaScript",
    description: "Remove large, [duplicate JavaScript modules](https://developer.chrome.com/docs/performance/insights/duplicated-javascript) from bundles to reduce unnecessary bytes consumed by network activity",
    docs: "https://developer.chrome.com/docs/performance/insights/duplicated-javascript",
    category: Category::Lcp,
    strings: &[
        ("columnDuplicatedBytes", "Duplicated bytes"),
        ("columnSource", "Source"),
        ("description", "Remove large, [duplicate JavaScript modules](https://developer.chrome.com/docs/performance/insights/duplicated-javascript) from bundles to reduce unnecessary bytes consumed by network activity"),
        ("noDuplicatedJavaScript", "No duplicated JavaScript found"),
        ("title", "Duplicated JavaScript"),
    ],
};

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DuplicatedJavaScript {
    /// The scripts of the set (loaded in its window, in its frame, not a
    /// Chrome extension's), by index in
    /// [`Scripts::scripts`](tracekit_engine::handlers::page::Scripts).
    pub scripts: Vec<usize>,
    /// The page's URL: the navigation's document URL, else the main
    /// frame's.
    pub main_document_url: Option<Sym>,
    /// Each module found in more than one script, the most wasted bytes
    /// first.
    pub duplication: Vec<Duplicated>,
    /// The same, a `node_modules` package's files taken together.
    pub grouped_by_node_modules: Vec<Duplicated>,
    /// The scripts with a duplicated module, in the order first met.
    pub scripts_with_duplication: Vec<usize>,
}

/// One module and its copies.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicated {
    /// The module's source URL (from its `node_modules/` on, for a
    /// package's file), or `node_modules/PACKAGE` for a package.
    pub source: String,
    /// The bytes of every copy but the largest.
    pub estimated_duplicate_bytes: f64,
    /// Each copy: its script and its bytes over the network, the largest
    /// first.
    pub duplicates: Vec<(usize, f64)>,
}

/// Below this, a copy is not counted (bytes).
const ABSOLUTE_SIZE_THRESHOLD_BYTES: f64 = 512.0;
/// Below this share of the largest copy, a copy is not counted.
const RELATIVE_SIZE_THRESHOLD: f64 = 0.1;

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let strings = cx.analysis.strings();
    let all = &cx.data.scripts().scripts;
    let scripts: Vec<usize> = (all.iter().enumerate())
        .filter(|(_, s)| s.frame == cx.frame_id && cx.contains(s.ts))
        .filter(|(_, s)| {
            !s.url
                .is_some_and(|u| strings.resolve(u).starts_with("chrome-extension://"))
        })
        .map(|(at, _)| at)
        .collect();
    // The navigation's document URL, else (a set without one) the main
    // frame's. DevTools also reads a `url` of the navigation's data, which
    // Chrome's `navigationStart` does not have.
    let main_document_url = match cx.navigation {
        Some(n) => n.url.or(cx.data.meta().main_frame_url),
        None => cx.data.meta().main_frame_url,
    };
    let ratios = compression_ratios(cx, &scripts);
    let mut duplication = copies(cx, &scripts, &ratios);
    let mut grouped = group_by_node_modules(&duplication);
    normalize(&mut duplication);
    normalize(&mut grouped);
    let mut wasted: Vec<(usize, f64)> = Vec::new();
    let mut scripts_with_duplication: Vec<usize> = Vec::new();
    for d in &duplication {
        for &(script, _) in &d.duplicates {
            if !scripts_with_duplication.contains(&script) {
                scripts_with_duplication.push(script);
            }
        }
        for &(script, bytes) in d.duplicates.iter().skip(1) {
            let Some(request) = all[script].request.map(|r| r as usize) else {
                continue;
            };
            match wasted.iter_mut().find(|(r, _)| *r == request) {
                Some(kept) => kept.1 += bytes,
                None => wasted.push((request, bytes)),
            }
        }
    }
    let mut related: Vec<EventRef> = Vec::new();
    for &script in &scripts_with_duplication {
        if let Some(r) = all[script].request.map(|r| EventRef::Request(r as usize)) {
            if !related.contains(&r) {
                related.push(r);
            }
        }
    }
    let state = if duplication.is_empty() {
        State::Pass
    } else {
        State::Fail
    };
    let finding = DuplicatedJavaScript {
        scripts,
        main_document_url,
        duplication,
        grouped_by_node_modules: grouped,
        scripts_with_duplication,
    };
    let mut insight = Insight::new(state, Finding::DuplicatedJavaScript(finding));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.wasted_bytes = Some(wasted.iter().map(|(_, b)| b).sum());
    insight.metric_savings = crate::estimates::wasted_bytes_savings(cx, wasted)?;
    Ok(insight)
}

/// Each script's compression, by its request: a request of two scripts
/// takes the last one's.
fn compression_ratios(cx: &Context<'_>, scripts: &[usize]) -> Vec<(u32, f64)> {
    let all = &cx.data.scripts().scripts;
    let network = cx.data.network_requests();
    let mut ratios: Vec<(u32, f64)> = Vec::new();
    for &at in scripts {
        let Some(request) = all[at].request else {
            continue;
        };
        let ratio = crate::legacy_javascript::compression_ratio(
            &all[at],
            &network.requests[request as usize],
            cx.analysis.strings(),
        );
        match ratios.iter_mut().find(|(r, _)| *r == request) {
            Some(kept) => kept.1 = ratio,
            None => ratios.push((request, ratio)),
        }
    }
    ratios
}

/// Whether a script has text (DevTools' `content` is truthy).
fn has_text(script: &Script) -> bool {
    match &script.content {
        Some(ScriptSource::Text(text)) => !text.is_empty(),
        Some(ScriptSource::Long { .. }) => true,
        _ => false,
    }
}

/// Every module of every sized script, with each copy's bytes over the
/// network, before any copy is set aside.
fn copies(cx: &Context<'_>, scripts: &[usize], ratios: &[(u32, f64)]) -> Vec<Duplicated> {
    let strings = cx.analysis.strings();
    let all = &cx.data.scripts().scripts;
    let mut duplication: Vec<Duplicated> = Vec::new();
    for &at in scripts {
        let script = &all[at];
        let Some(map) = script.source_map.as_deref().filter(|_| has_text(script)) else {
            continue;
        };
        // A map whose mappings run past the text is left out (DevTools
        // logs it).
        let Some(Ok(sizes)) = &map.sizes else {
            continue;
        };
        let ratio = script
            .request
            .and_then(|r| ratios.iter().find(|(q, _)| *q == r))
            .map_or(1.0, |(_, ratio)| *ratio);
        for &source in &map.sources {
            let url = strings.resolve(source);
            if ["webpack/bootstrap", "(webpack)/buildin", "external "]
                .iter()
                .any(|p| url.contains(p))
            {
                continue;
            }
            let bytes = js_round(size_of(sizes, source) * ratio);
            let key = normalize_source(url);
            match duplication.iter_mut().find(|d| d.source == key) {
                Some(d) => d.duplicates.push((at, bytes)),
                None => duplication.push(Duplicated {
                    source: key,
                    estimated_duplicate_bytes: 0.0,
                    duplicates: vec![(at, bytes)],
                }),
            }
        }
    }
    duplication
}

/// A source's bytes in a script (`NaN` for one no mapping covers, as
/// DevTools reads a missing member).
fn size_of(sizes: &Sizes, source: Sym) -> f64 {
    sizes
        .files
        .iter()
        .find(|(url, _)| *url == source)
        .map_or(f64::NAN, |(_, bytes)| *bytes)
}

/// A source's URL without a trailing `?`, and from its last
/// `node_modules` on.
fn normalize_source(source: &str) -> String {
    let source = source.strip_suffix('?').unwrap_or(source);
    match source.rfind("node_modules") {
        Some(at) => source[at..].to_owned(),
        None => source.to_owned(),
    }
}

/// The package of a `node_modules` path (`@scope/name` or `name`).
fn node_module_name(source: &str) -> &str {
    let rest = source.rsplit("node_modules/").next().unwrap_or(source);
    let slash_from = |from: usize| {
        rest.get(from..)
            .and_then(|r| r.find('/'))
            .map_or(rest.len(), |i| from + i)
    };
    let first_slash = slash_from(0);
    if rest.starts_with('@') {
        return &rest[..slash_from(first_slash + 1)];
    }
    &rest[..first_slash]
}

/// The modules with a package's files taken together, each script's
/// bytes of the package added up.
fn group_by_node_modules(duplication: &[Duplicated]) -> Vec<Duplicated> {
    let mut grouped: Vec<Duplicated> = Vec::new();
    for d in duplication {
        if !d.source.contains("node_modules") {
            grouped.push(d.clone());
            continue;
        }
        let key = format!("node_modules/{}", node_module_name(&d.source));
        let at = match grouped.iter().position(|g| g.source == key) {
            Some(at) => at,
            None => {
                grouped.push(Duplicated {
                    source: key,
                    estimated_duplicate_bytes: 0.0,
                    duplicates: Vec::new(),
                });
                grouped.len() - 1
            }
        };
        for &(script, bytes) in &d.duplicates {
            let copies = &mut grouped[at].duplicates;
            match copies.iter_mut().find(|(s, _)| *s == script) {
                Some(copy) => copy.1 += bytes,
                None => copies.push((script, bytes)),
            }
        }
    }
    grouped
}

/// The copies counted (largest first, those too small set aside), the
/// modules with more than one, and their wasted bytes, most first.
fn normalize(duplication: &mut Vec<Duplicated>) {
    for d in duplication.iter_mut() {
        d.duplicates.sort_by(|a, b| js_compare(b.1 - a.1));
        if d.duplicates.len() > 1 {
            let largest = d.duplicates[0].1;
            d.duplicates
                .retain(|(_, bytes)| bytes / largest >= RELATIVE_SIZE_THRESHOLD);
        }
        d.duplicates
            .retain(|(_, bytes)| *bytes >= ABSOLUTE_SIZE_THRESHOLD_BYTES);
        d.estimated_duplicate_bytes = d.duplicates.iter().skip(1).map(|(_, b)| b).sum();
    }
    duplication.retain(|d| d.duplicates.len() > 1);
    duplication.sort_by(|a, b| js_compare(b.estimated_duplicate_bytes - a.estimated_duplicate_bytes));
}

/// A JavaScript comparator's number as an ordering (`NaN`: equal).
fn js_compare(difference: f64) -> std::cmp::Ordering {
    difference.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal)
}

/// JavaScript's `Math.round`: halves up.
fn js_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

impl DuplicatedJavaScript {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let network = cx.data.network_requests();
        let scripts_data = cx.data.scripts();
        let script = |at: usize, cx: &mut crate::DumpCx<'_, '_>| scripts_data.dump_script(at, network, cx.dump);
        let map = |list: &[Duplicated], cx: &mut crate::DumpCx<'_, '_>| {
            let rows = (list.iter())
                .map(|d| {
                    let duplicates = (d.duplicates.iter())
                        .map(|&(at, bytes)| {
                            Object::new()
                                .with("script", script(at, cx))
                                .with("attributedSize", Value::Num(bytes))
                                .into()
                        })
                        .collect();
                    let value = Object::new()
                        .with("estimatedDuplicateBytes", Value::Num(d.estimated_duplicate_bytes))
                        .with("duplicates", Value::Array(duplicates));
                    (Value::str(d.source.clone()), value.into())
                })
                .collect();
            Value::Map(rows)
        };
        let duplication = map(&self.duplication, cx);
        let grouped = map(&self.grouped_by_node_modules, cx);
        model.push("duplication", duplication);
        model.push("duplicationGroupedByNodeModules", grouped);
        let with = (self.scripts_with_duplication.iter())
            .map(|&at| scripts_data.dump_script(at, network, cx.dump))
            .collect();
        model.push("scriptsWithDuplication", Value::Array(with));
        let scripts = (self.scripts.iter())
            .map(|&at| scripts_data.dump_script(at, network, cx.dump))
            .collect();
        model.push("scripts", Value::Array(scripts));
        model.push("mainDocumentUrl", Value::opt(self.main_document_url, Value::Sym));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.duplication.is_empty() {
            return vec![format!(
                "{} ({} scripts; without source maps no module can be told apart)",
                UI.string("noDuplicatedJavaScript"),
                self.scripts.len()
            )];
        }
        let all = &cx.data.scripts().scripts;
        (self.duplication.iter())
            .map(|d| {
                let copies = (d.duplicates.iter())
                    .map(|&(at, bytes)| {
                        let url = all[at].url.map_or("", |u| cx.analysis.strings().resolve(u));
                        format!("{url} ({bytes} B)")
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "{}: {} B duplicated, in {copies}",
                    d.source, d.estimated_duplicate_bytes
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::test_trace::{navigation_set, sets, trace};
    use crate::{Finding, State};

    /// A script's rundown (its URL) and its compile event (its frame).
    fn script(id: u32, ts: u32, frame: &str, url: &str) -> String {
        format!(
            r#"{{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{ts},"cat":"disabled-by-default-devtools.v8-source-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"url":"{url}","executionContextId":1}}}}}},
  {{"name":"ScriptCompiled","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.target-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"frame":"{frame}"}}}}}}"#,
            ts + 1
        )
    }

    #[test]
    fn packages_and_sources_are_named_as_devtools_names_them() {
        use super::{node_module_name, normalize_source};
        assert_eq!(node_module_name("node_modules/@scope/pkg/lib/a.js"), "@scope/pkg");
        assert_eq!(node_module_name("x/node_modules/a/node_modules/b/index.js"), "b");
        assert_eq!(node_module_name("node_modules/solo"), "solo");
        assert_eq!(
            normalize_source("https://x.test/src/node_modules/b/i.js?"),
            "node_modules/b/i.js"
        );
        assert_eq!(normalize_source("https://x.test/src/a.js"), "https://x.test/src/a.js");
    }

    #[test]
    fn the_scripts_of_the_frame_in_the_window_are_listed_without_duplication() {
        let events = [
            script(1, 5000, "F1", "https://a.test/a.js"),
            script(2, 6000, "F2", "https://b.test/b.js"),
            script(3, 7000, "F1", "chrome-extension://x/c.js"),
        ]
        .join(",");
        let sets = sets(&trace(&events));
        let insight = duplicated_javascript(&sets);
        assert_eq!(insight.state, State::Pass);
        let f = finding(insight.finding);
        assert_eq!(f.scripts.len(), 1);
    }

    /// The navigation set's DuplicatedJavaScript insight.
    fn duplicated_javascript(sets: &crate::InsightSets) -> crate::Insight {
        navigation_set(sets)
            .computed()
            .find(|i| matches!(i.finding, Finding::DuplicatedJavaScript(_)))
            .unwrap()
            .clone()
    }

    fn finding(finding: Finding) -> super::DuplicatedJavaScript {
        let Finding::DuplicatedJavaScript(f) = finding else {
            unreachable!()
        };
        f
    }

    /// A script with a source map URL, its frame and its text.
    fn mapped_script(id: u32, ts: u32, url: &str, text: &str) -> String {
        format!(
            r#"{{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{ts},"cat":"disabled-by-default-devtools.v8-source-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"url":"{url}","sourceMapUrl":"{url}.map","executionContextId":1}}}}}},
  {{"name":"ScriptCompiled","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.target-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"frame":"F1"}}}}}},
  {{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.v8-source-rundown-sources",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"sourceText":"{text}"}}}}}}"#,
            ts + 1,
            ts + 2
        )
    }

    /// The map the trace saved for a script: its first line from `lib.js`
    /// up to `split`, then from the script's own source.
    fn saved_map(url: &str, split: u32) -> String {
        // Base64 VLQ of `split`, the second mapping's column delta.
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let (mut v, mut delta) = (split << 1, String::new());
        loop {
            let digit = v & 31;
            v >>= 5;
            delta.push(B64[(digit | if v > 0 { 32 } else { 0 }) as usize] as char);
            if v == 0 {
                break;
            }
        }
        format!(
            r#"{{"url":"{url}","sourceMapUrl":"{url}.map","sourceMap":{{"version":3,"sources":["src/lib.js","src/own.js"],
            "names":[],"mappings":"AAAA,{delta}CAA"}}}}"#
        )
    }

    #[test]
    fn a_module_in_two_bundles_is_duplicated_through_the_saved_maps() {
        let (a, b) = ("x".repeat(900), "y".repeat(700));
        let events = [
            mapped_script(1, 5000, "https://a.test/a.js", &a),
            mapped_script(2, 6000, "https://a.test/b.js", &b),
        ]
        .join(",");
        let maps = [
            saved_map("https://a.test/a.js", 800),
            saved_map("https://a.test/b.js", 608),
        ]
        .join(",");
        let text = format!(
            r#"{{"traceEvents":{},"metadata":{{"sourceMaps":[{maps}]}}}}"#,
            trace(&events)
        );
        let sets = sets(&text);
        let insight = duplicated_javascript(&sets);
        assert_eq!(insight.state, State::Fail);
        let f = finding(insight.finding);
        // lib.js: 800 bytes of a.js, 608 of b.js (the rest of each line is
        // the script's own, and its newline counts with it).
        assert_eq!(f.duplication.len(), 1);
        let d = &f.duplication[0];
        assert_eq!(d.source, "https://a.test/src/lib.js");
        assert_eq!(d.duplicates.iter().map(|c| c.1).collect::<Vec<_>>(), vec![800.0, 608.0]);
        assert_eq!(d.estimated_duplicate_bytes, 608.0);
        assert_eq!(f.scripts_with_duplication.len(), 2);
        assert_eq!(f.grouped_by_node_modules, f.duplication);
        // Without the maps nothing is duplicated.
        let sets = super::tests::sets(&trace(&events));
        let insight = duplicated_javascript(&sets);
        assert_eq!(insight.state, State::Pass);
    }
}
