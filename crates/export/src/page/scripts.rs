//! The scripts of a trace as rows: what `tracekit info` counts,
//! `Trace.scripts()` returns and the `scripts` table holds. From the
//! Scripts handler's data: V8's source rundown, which Chrome writes in
//! traces recorded with `disabled-by-default-devtools.v8-source-rundown`
//! (the Performance panel's "enhanced traces"); a trace without it has no
//! scripts.

use tracekit_engine::handlers::page::scripts::{Script, ScriptSource};
use tracekit_engine::{Analysis, Micros, Millis, Strings};

use super::{JsonObject, PageError};

/// One script V8 described.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ScriptRow {
    /// The V8 isolate it runs in, as the trace gives it.
    pub isolate: String,
    /// Its script id in the isolate.
    pub script_id: String,
    /// Its URL (`None` or empty for a script made by `eval` and the like).
    pub url: Option<String>,
    /// The frame it runs in (`None` or empty when none is known).
    pub frame: Option<String>,
    /// Its `//# sourceURL`, when it has one.
    pub source_url: Option<String>,
    /// Its `//# sourceMappingURL` as written in the script.
    pub source_map_url: Option<String>,
    /// The source map URL resolved as DevTools resolves it before
    /// fetching the map (against the script's URL); `None` when DevTools
    /// would not resolve it.
    pub resolved_source_map_url: Option<String>,
    /// The source map was a `data:` URL that Chrome left out of the trace
    /// (the script has a source map, which the trace does not hold).
    pub source_map_url_elided: bool,
    /// Whether it has a source map: a source map URL, or one left out.
    pub has_source_map: bool,
    /// An inline `<script>` (its URL is its frame's document's).
    pub inline: bool,
    /// Its length in characters, as V8 gives it.
    pub length: Option<f64>,
    /// Whether the trace holds its source text.
    pub has_source: bool,
    /// The request that loaded it (the first of its URL): its request id.
    pub request_id: Option<String>,
    /// When the trace last described it, in ms from the start of the
    /// trace.
    pub ts: Millis,
}

/// The scripts of a trace, in the order V8 first described them.
pub fn scripts(analysis: &Analysis) -> Result<Vec<ScriptRow>, PageError> {
    let data = super::handlers(analysis)?;
    let strings = analysis.strings();
    let requests = &data.network_requests().requests;
    let origin = analysis.bounds().min;
    Ok(data
        .scripts()
        .scripts
        .iter()
        .map(|s| {
            let request_id = s
                .request
                .and_then(|r| requests.get(r as usize))
                .map(|r| strings.resolve(r.request_id.text).to_owned());
            row(s, strings, request_id, origin)
        })
        .collect())
}

fn row(s: &Script, strings: &Strings, request_id: Option<String>, origin: Micros) -> ScriptRow {
    let text = |sym: Option<tracekit_engine::Sym>| sym.map(|s| strings.resolve(s).to_owned());
    let source_map_url = text(s.source_map_url);
    ScriptRow {
        isolate: s.isolate.to_js_string(strings),
        script_id: strings.resolve(s.script_id).to_owned(),
        url: text(s.url),
        frame: text(s.frame),
        source_url: text(s.source_url),
        has_source_map: s.source_map_url_elided || source_map_url.as_deref().is_some_and(|u| !u.is_empty()),
        source_map_url,
        resolved_source_map_url: text(s.resolved_source_map_url),
        source_map_url_elided: s.source_map_url_elided,
        inline: s.inline,
        length: s.length,
        has_source: matches!(s.content, Some(ScriptSource::Text(_) | ScriptSource::Long { .. })),
        request_id,
        ts: (s.ts - origin).to_millis(),
    }
}

/// The scripts as JSON (`Trace.scripts()`): an array of objects with the
/// fields of [`ScriptRow`] in camelCase, `ts` in ms from the start of the
/// trace.
pub fn scripts_json(rows: &[ScriptRow]) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = JsonObject::new(&mut out);
        o.str("isolate", Some(&r.isolate));
        o.str("scriptId", Some(&r.script_id));
        o.str("url", r.url.as_deref());
        o.str("frame", r.frame.as_deref());
        o.str("sourceUrl", r.source_url.as_deref());
        o.str("sourceMapUrl", r.source_map_url.as_deref());
        o.str("resolvedSourceMapUrl", r.resolved_source_map_url.as_deref());
        o.bool("sourceMapUrlElided", r.source_map_url_elided);
        o.bool("hasSourceMap", r.has_source_map);
        o.bool("inline", r.inline);
        o.num("length", r.length);
        o.bool("hasSource", r.has_source);
        o.str("requestId", r.request_id.as_deref());
        o.num("ts", Some(r.ts.0));
        o.close();
    }
    out.push(']');
    out
}

/// How many URLs `tracekit info` names of each group of scripts.
const INFO_URLS: usize = 3;

/// The `scripts:` lines of `tracekit info`: how many, with and without a
/// source map, and the first few URLs of each group.
pub(super) fn scripts_info(out: &mut String, rows: &[ScriptRow]) {
    use std::fmt::Write as _;
    if rows.is_empty() {
        out.push_str("  scripts: none (the trace has no V8 source rundown)\n");
        return;
    }
    let with = rows.iter().filter(|r| r.has_source_map).count();
    let _ = writeln!(
        out,
        "  scripts: {} ({with} with a source map, {} without)",
        rows.len(),
        rows.len() - with
    );
    for (has_map, what) in [(true, "with a source map"), (false, "without")] {
        let mut urls: Vec<&str> = Vec::new();
        for url in rows
            .iter()
            .filter(|r| r.has_source_map == has_map)
            .filter_map(|r| r.url.as_deref().filter(|u| !u.is_empty()))
        {
            if !urls.contains(&url) {
                urls.push(url);
            }
        }
        if urls.is_empty() {
            continue;
        }
        let more = urls.len().saturating_sub(INFO_URLS);
        let _ = write!(out, "    {what}: {}", urls[..urls.len().min(INFO_URLS)].join(", "));
        if more > 0 {
            let _ = write!(out, " (and {more} more URL{})", if more == 1 { "" } else { "s" });
        }
        out.push('\n');
    }
}
