//! The handlers' data as one document: the data conformance dump
//! (`tracekit data --format conformance`), which the DevTools engine's
//! own handler data, written by the same rules, is compared with
//! (`tracekit_events::dump` states the rules).

use tracekit_events::dump::{Dump, Rules, Value};

use crate::{Analysis, HandlerData, ProcessMap};
use tracekit_renderer::NumberedThreads;

/// The DevTools handlers whose data the dump holds, by DevTools' name, in
/// the dump's order.
pub const HANDLERS: &[&str] = &[
    "AnimationFrames",
    "Animations",
    "AsyncJSCalls",
    "DOMStats",
    "ExtensionTraceData",
    "Flows",
    "Frames",
    "GPU",
    "ImagePainting",
    "Initiators",
    "Invalidations",
    "LargestImagePaint",
    "LargestTextPaint",
    "LayerTree",
    "LayoutShifts",
    "Memory",
    "Meta",
    "NetworkRequests",
    "PageFrames",
    "PageLoadMetrics",
    "Screenshots",
    "Scripts",
    "SelectorStats",
    "UserInteractions",
    "UserTimings",
    "Warnings",
    "Workers",
];

/// Why the handlers' data cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DataError {
    /// No handler has this name.
    UnknownHandler(String),
    /// The analysis was made without
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers):
    /// the page's handlers did not run.
    NotGathered,
    /// The input is a profile on its own (a `.cpuprofile` or a JS
    /// Self-Profiling trace), which no handler reads: its name in words.
    NoHandlers(&'static str),
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataError::UnknownHandler(name) => {
                write!(f, "no handler named `{name}` (handlers: {})", HANDLERS.join(", "))
            }
            DataError::NotGathered => {
                f.write_str("the analysis was made without AnalyzeOptions::with_all_handlers(true)")
            }
            DataError::NoHandlers(kind) => {
                write!(f, "a {kind} has no handler data: only a Chrome trace has (tracks, calltree and summary read profiles)")
            }
        }
    }
}

impl std::error::Error for DataError {}

impl Analysis {
    /// Whether every handler ran
    /// ([`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)):
    /// the page's data is there.
    pub fn has_all_handlers(&self) -> bool {
        self.all_handlers
    }

    /// The data conformance dump of the handlers named in `only` (all of
    /// [`HANDLERS`] when empty), as one line of JSON. A profile on its own
    /// has no handler data (an error); a trace's analysis must have been
    /// made with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
    pub fn data_conformance(&self, only: &[&str]) -> Result<String, DataError> {
        self.data_document(Some(only).filter(|o| !o.is_empty()), Rules::CONFORMANCE, |_| ())
    }

    /// The same document as [`Analysis::data_conformance`], with every
    /// number and string as it is (not rounded, not hashed): the handlers'
    /// data for programs (`tracekit data --format json`).
    pub fn data_json(&self, only: &[&str]) -> Result<String, DataError> {
        self.data_document(Some(only).filter(|o| !o.is_empty()), Rules::EXACT, |_| ())
    }

    /// The document of the handlers named in `only` (every one when
    /// `None`, none when empty), written by `rules`, with what `more` adds
    /// to it after the handlers (the insight sets, which the crates above
    /// the engine compute).
    pub fn data_document(
        &self,
        only: Option<&[&str]>,
        rules: Rules,
        more: impl FnOnce(&mut Dump<'_>),
    ) -> Result<String, DataError> {
        if let Some(unknown) = only.unwrap_or_default().iter().find(|h| !HANDLERS.contains(h)) {
            return Err(DataError::UnknownHandler((*unknown).to_owned()));
        }
        if self.handlers.is_none() {
            return Err(DataError::NoHandlers(self.kind.name()));
        }
        if !self.all_handlers {
            return Err(DataError::NotGathered);
        }
        let mut dump = Dump::new(&self.strings);
        if let Some(data) = &self.handlers {
            let wanted = |name: &str| only.is_none_or(|only| only.contains(&name));
            for name in HANDLERS.iter().filter(|h| wanted(h)) {
                let value = handler_value(data, &self.processes, name, &mut dump);
                dump.handler(name, value);
            }
        }
        more(&mut dump);
        let mut out = String::new();
        dump.write_with(&mut out, rules);
        Ok(out)
    }
}

/// The data of the handler named `name` (one of [`HANDLERS`]) in the dump;
/// `processes`: the tracks, whose entries complete the entity mappings.
fn handler_value(data: &HandlerData, processes: &ProcessMap, name: &str, dump: &mut Dump<'_>) -> Value {
    match name {
        "AnimationFrames" => data.animation_frames().dump(dump),
        "Animations" => data.animations().dump(dump),
        "AsyncJSCalls" => data.async_js_calls().dump(&NumberedThreads(processes), dump),
        "DOMStats" => data.dom_stats().dump(dump),
        "ExtensionTraceData" => data.extension_trace_data().dump(dump),
        "Flows" => data.flows().dump(dump),
        "Frames" => data.frames().dump(dump),
        "GPU" => data.gpu().dump(dump),
        "ImagePainting" => data.image_painting().dump(dump),
        "Initiators" => data.initiators().dump(&NumberedThreads(processes), dump),
        "Invalidations" => data.invalidations().dump(dump),
        "LargestImagePaint" => {
            let network = data.network_requests();
            data.largest_image_paint().dump(dump, |position, dump| {
                Value::Synthetic(network.dump_request(position, dump))
            })
        }
        "LargestTextPaint" => data.largest_text_paint().dump(dump),
        "LayerTree" => data.layer_tree().dump(dump),
        "LayoutShifts" => data.layout_shifts().dump(data.screenshots(), dump),
        "Memory" => data.memory().dump(dump),
        "Meta" => data.meta().dump(dump),
        "NetworkRequests" => {
            let network = data.network_requests();
            let mappings = tracekit_renderer::entity_mappings(processes, network);
            network.dump_with(&mappings, &NumberedThreads(processes), dump)
        }
        "PageFrames" => data.page_frames().dump(dump),
        "PageLoadMetrics" => data.page_load_metrics().dump(dump),
        "Screenshots" => data.screenshots().dump(dump),
        "Scripts" => data.scripts().dump(data.network_requests(), dump),
        "SelectorStats" => data.selector_stats().dump(dump),
        "UserInteractions" => data.user_interactions().dump(dump),
        "UserTimings" => data.user_timings().dump(dump),
        "Warnings" => data.warnings().dump(data.user_interactions(), dump),
        "Workers" => data.workers().dump(dump),
        _ => unreachable!("{name} is not in HANDLERS"),
    }
}
