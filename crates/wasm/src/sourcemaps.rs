//! Source maps pushed from JavaScript as bytes and applied to a loaded
//! trace (`docs/sourcemaps.md`); the package's `resolveSourceMap` option
//! asks for the maps `sourceMapRequests` lists.

use std::fmt::Write;

use tracekit::support::json::write_json_string;
use tracekit::{SourceMapReport, SourceMapRequest, SourceMaps};
use wasm_bindgen::prelude::*;

use crate::RawTrace;

/// Maps given by the page, each under the URL or name it came by.
#[wasm_bindgen(js_name = "RawSourceMaps")]
#[derive(Default)]
pub struct RawSourceMaps {
    maps: SourceMaps,
}

#[wasm_bindgen(js_class = "RawSourceMaps")]
impl RawSourceMaps {
    /// No maps.
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawSourceMaps {
        RawSourceMaps::default()
    }

    /// Adds a map's bytes (JSON text) under `name`: a URL or a file name,
    /// matched to scripts as `docs/sourcemaps.md` says.
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        self.maps.add(name, bytes);
    }

    /// Gives the last map added its generated script's text, so that its
    /// names are checked as DevTools checks them.
    #[wasm_bindgen(js_name = "setScript")]
    pub fn set_script(&mut self, text: String) {
        self.maps.set_script(text);
    }
}

#[wasm_bindgen(js_class = "RawTrace")]
impl RawTrace {
    /// Applies the maps the trace carries (an enhanced trace's, when
    /// `embedded`) and then `maps`, which are used up; returns
    /// [`report_json`].
    #[wasm_bindgen(js_name = "applySourceMaps")]
    pub fn apply_source_maps(&mut self, maps: &mut RawSourceMaps, embedded: bool) -> String {
        let mut all = if embedded {
            self.analysis.embedded_source_maps()
        } else {
            SourceMaps::new()
        };
        all.append(std::mem::take(&mut maps.maps));
        let report = self.analysis.apply_source_maps(&all);
        report_json(&report)
    }

    /// The scripts whose maps to ask for, as [`requests_json`].
    #[wasm_bindgen(js_name = "sourceMapRequests")]
    pub fn source_map_requests(&self) -> String {
        requests_json(&self.analysis.source_map_requests())
    }
}

/// A report as JSON: `{framesResolved, framesRenamed, framesUnmapped,
/// mapsUsed: [NAME], problems: [TEXT]}`.
pub fn report_json(report: &SourceMapReport) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"framesResolved\":{},\"framesRenamed\":{},\"framesUnmapped\":{},\"mapsUsed\":",
        report.frames_resolved, report.frames_renamed, report.frames_unmapped
    );
    strings(&mut out, &report.maps_used);
    out.push_str(",\"problems\":");
    strings(&mut out, &report.problems);
    out.push('}');
    out
}

/// The requests as JSON: `[{scriptId, scriptUrl, sourceMapUrl}]`,
/// `sourceMapUrl` null when unknown.
pub fn requests_json(requests: &[SourceMapRequest]) -> String {
    let mut out = String::from("[");
    for (i, r) in requests.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"scriptId\":");
        write_json_string(&mut out, &r.script_id);
        out.push_str(",\"scriptUrl\":");
        write_json_string(&mut out, &r.script_url);
        out.push_str(",\"sourceMapUrl\":");
        match &r.source_map_url {
            Some(url) => write_json_string(&mut out, url),
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push(']');
    out
}

/// A JSON array of strings.
fn strings(out: &mut String, items: &[String]) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(out, item);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_json_with_its_counts_and_texts() {
        let report = SourceMapReport {
            frames_resolved: 3,
            frames_renamed: 2,
            frames_unmapped: 1,
            maps_used: vec!["a.js.map".to_owned()],
            problems: vec!["b \"x\"".to_owned()],
        };
        assert_eq!(
            report_json(&report),
            r#"{"framesResolved":3,"framesRenamed":2,"framesUnmapped":1,"mapsUsed":["a.js.map"],"problems":["b \"x\""]}"#
        );
    }

    #[test]
    fn requests_are_json_with_null_for_an_unknown_map_url() {
        let requests = [
            SourceMapRequest {
                script_id: "7".to_owned(),
                script_url: "https://x.test/a.js".to_owned(),
                source_map_url: Some("https://x.test/a.js.map".to_owned()),
            },
            SourceMapRequest {
                script_id: "8".to_owned(),
                script_url: "file:///b.js".to_owned(),
                source_map_url: None,
            },
        ];
        assert_eq!(
            requests_json(&requests),
            r#"[{"scriptId":"7","scriptUrl":"https://x.test/a.js","sourceMapUrl":"https://x.test/a.js.map"},{"scriptId":"8","scriptUrl":"file:///b.js","sourceMapUrl":null}]"#
        );
    }
}
