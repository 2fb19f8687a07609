//! The handlers' data as one document: the data conformance dump
//! (`tracekit data --format conformance`), which the DevTools engine's
//! own handler data, written by the same rules, is compared with
//! (`tracekit_events::dump` states the rules).

use tracekit_events::dump::Dump;

use crate::Analysis;

/// The DevTools handlers whose data the dump holds, by DevTools' name, in
/// the dump's order.
pub const HANDLERS: &[&str] = &[
    "Workers",
    "PageLoadMetrics",
    "LargestTextPaint",
    "LargestImagePaint",
    "UserTimings",
    "Screenshots",
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
        }
    }
}

impl std::error::Error for DataError {}

impl Analysis {
    /// The data conformance dump of the handlers named in `only` (all of
    /// [`HANDLERS`] when empty), as one line of JSON. A profile on its own
    /// has no handler data: its dump has no handler. A trace's analysis
    /// must have been made with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers).
    pub fn data_conformance(&self, only: &[&str]) -> Result<String, DataError> {
        if let Some(unknown) = only.iter().find(|h| !HANDLERS.contains(h)) {
            return Err(DataError::UnknownHandler((*unknown).to_owned()));
        }
        if self.handlers.is_some() && !self.all_handlers {
            return Err(DataError::NotGathered);
        }
        let mut dump = Dump::new(&self.strings);
        if let Some(data) = &self.handlers {
            let wanted = |name: &str| only.is_empty() || only.contains(&name);
            if wanted("Workers") {
                let value = data.workers().dump(&mut dump);
                dump.handler("Workers", value);
            }
            if wanted("PageLoadMetrics") {
                let value = data.page_load_metrics().dump(&mut dump);
                dump.handler("PageLoadMetrics", value);
            }
            if wanted("LargestTextPaint") {
                let value = data.largest_text_paint().dump(&mut dump);
                dump.handler("LargestTextPaint", value);
            }
            if wanted("LargestImagePaint") {
                // To wire up: the NetworkRequests handler's synthetic request at this position.
                let value = data
                    .largest_image_paint()
                    .dump(&mut dump, |_, _| tracekit_events::dump::Value::Null);
                dump.handler("LargestImagePaint", value);
            }
            if wanted("UserTimings") {
                let value = data.user_timings().dump(&mut dump);
                dump.handler("UserTimings", value);
            }
            if wanted("Screenshots") {
                let value = data.screenshots().dump(&mut dump);
                dump.handler("Screenshots", value);
            }
        }
        let mut out = String::new();
        dump.write(&mut out);
        Ok(out)
    }
}
