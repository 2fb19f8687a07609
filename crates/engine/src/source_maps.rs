//! Source maps applied to an analysis: its JavaScript frames given their
//! original names, URLs and positions before any view aggregates them.

use ahash::AHashMap;
use tracekit_events::Sym;
use tracekit_page::ScriptSource;
use tracekit_sourcemaps::{Frame, Resolver, SourceMapReport, SourceMaps};

use crate::Analysis;

/// What the trace says of a script: its source map URL resolved against
/// its URL, and its text when the trace kept it whole.
struct ScriptInfo {
    source_map_url: Option<String>,
    declared_source_map_url: Option<String>,
    text: Option<String>,
}

/// A frame's 0-based line or column as a map's lookup takes it: none for
/// V8's -1 ("unknown") or anything that is not a whole number.
fn position(value: Option<f64>) -> Option<u32> {
    let v = value?;
    // Checked to be a whole number within u32 first.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (v >= 0.0 && v <= f64::from(u32::MAX) && v.fract() == 0.0).then_some(v as u32)
}

/// A script whose map [`Analysis::source_map_requests`] asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMapRequest {
    /// The script's id, as the trace or profile gives it.
    pub script_id: String,
    /// The script's URL.
    pub script_url: String,
    /// Its source map URL, resolved against its URL; none when only a
    /// profile's frames name the script.
    pub source_map_url: Option<String>,
}

impl Analysis {
    /// Gives the JavaScript frames of every thread their original names,
    /// URLs and positions from `maps`, as DevTools' source maps resolver
    /// does (`docs/sourcemaps.md`): every view, export and table made
    /// afterwards shows them, and two minified functions that map to one
    /// original function are one row of the Call Tree and Bottom-Up. A
    /// frame no map resolves keeps what it had; a frame a map places but
    /// does not name keeps its name and takes the original location. A
    /// trace's scripts (all handlers) match maps by their source map URL;
    /// a profile's frames by their URL. Apply it once: the frames it
    /// changed are no longer the generated code's.
    pub fn apply_source_maps(&mut self, maps: &SourceMaps) -> SourceMapReport {
        let scripts = self.scripts_by_frame();
        let mut resolver = Resolver::new(maps);
        let strings = &mut self.strings;
        for process in self.processes.values_mut() {
            for thread in process.threads.values_mut() {
                for js in &mut thread.js_frames {
                    let call = &mut js.call_frame;
                    let (Some(line), Some(column)) = (position(call.line_number), position(call.column_number)) else {
                        continue;
                    };
                    let script = scripts.get(&(call.script_id, call.url));
                    let frame = Frame {
                        url: strings.resolve(call.url),
                        line,
                        column,
                        source_map_url: script.and_then(|s| s.source_map_url.as_deref()),
                        declared_source_map_url: script.and_then(|s| s.declared_source_map_url.as_deref()),
                        script: script.and_then(|s| s.text.as_deref()),
                    };
                    let Some(original) = resolver.resolve(&frame) else {
                        continue;
                    };
                    // A full table (2^32 strings) leaves the frame as it was.
                    let name = match &original.name {
                        Some(name) => strings.add(name),
                        None => Some(call.function_name),
                    };
                    if let (Some(name), Some(url)) = (name, strings.add(&original.url)) {
                        call.function_name = name;
                        call.url = url;
                        call.line_number = Some(f64::from(original.line));
                        call.column_number = Some(f64::from(original.column));
                    }
                }
            }
        }
        resolver.finish()
    }

    /// The source maps the trace carries (an enhanced trace's
    /// `metadata.sourceMaps`, as DevTools' "Save trace" with source maps
    /// writes it), for [`Self::apply_source_maps`]; none for other traces.
    /// Each matches the script it was saved for, by the source map URL the
    /// script declared (with all handlers) or by the script's URL.
    pub fn embedded_source_maps(&self) -> SourceMaps {
        let mut maps = SourceMaps::new();
        if let Some(metadata) = self.metadata.as_deref() {
            maps.add_trace_metadata(metadata);
        }
        maps
    }

    /// The scripts whose maps a caller may fetch for
    /// [`Self::apply_source_maps`], as DevTools' `resolveSourceMap` option
    /// is asked for them: each script of the trace (with all handlers)
    /// that has a URL and a source map URL (resolved against it; not an
    /// inline `data:` URL Chrome left out), in the trace's order, then,
    /// by URL, each script URL of a frame no such script covers (a
    /// `.cpuprofile`'s), without a source map URL. Each script URL once.
    pub fn source_map_requests(&self) -> Vec<SourceMapRequest> {
        let mut requests = Vec::new();
        let mut seen = ahash::AHashSet::new();
        if let Some(handlers) = self.handlers.as_ref() {
            for script in &handlers.scripts().scripts {
                let (Some(url), Some(map_url)) = (script.url, script.resolved_source_map_url.or(script.source_map_url))
                else {
                    continue;
                };
                if script.source_map_url_elided || !seen.insert(url) {
                    continue;
                }
                requests.push(SourceMapRequest {
                    script_id: self.strings.resolve(script.script_id).to_owned(),
                    script_url: self.strings.resolve(url).to_owned(),
                    source_map_url: Some(self.strings.resolve(map_url).to_owned()),
                });
            }
        }
        let scripts = requests.len();
        for process in self.processes.values() {
            for thread in process.threads.values() {
                for js in &thread.js_frames {
                    let call = &js.call_frame;
                    let url = self.strings.resolve(call.url);
                    if url.is_empty() || position(call.line_number).is_none() || !seen.insert(call.url) {
                        continue;
                    }
                    requests.push(SourceMapRequest {
                        script_id: self.strings.resolve(call.script_id).to_owned(),
                        script_url: url.to_owned(),
                        source_map_url: None,
                    });
                }
            }
        }
        requests[scripts..].sort_by(|a, b| a.script_url.cmp(&b.script_url));
        requests
    }

    /// The scripts of the trace (with all handlers) by their script id and
    /// URL, as a profile's frames name them.
    fn scripts_by_frame(&self) -> AHashMap<(Sym, Sym), ScriptInfo> {
        let mut by_frame = AHashMap::new();
        let Some(handlers) = self.handlers.as_ref() else {
            return by_frame;
        };
        for script in &handlers.scripts().scripts {
            let Some(url) = script.url else { continue };
            let text = match &script.content {
                Some(ScriptSource::Text(text)) => Some(text.to_string()),
                _ => None,
            };
            let source_map_url = script
                .resolved_source_map_url
                .or(script.source_map_url)
                .map(|u| self.strings.resolve(u).to_owned());
            let declared_source_map_url = script
                .source_map_url
                .filter(|_| !script.source_map_url_elided)
                .map(|u| self.strings.resolve(u).to_owned());
            by_frame.entry((script.script_id, url)).or_insert(ScriptInfo {
                source_map_url,
                declared_source_map_url,
                text,
            });
        }
        by_frame
    }
}

#[cfg(test)]
mod tests;
