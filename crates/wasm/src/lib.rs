//! tracekit in WebAssembly: the wasm-bindgen bindings behind the npm
//! package `tracekit` (built by `cargo xtask wasm`; `docs/wasm.md`).
//!
//! The package's public API is the hand-written ES module
//! `js/tracekit.js`, which wraps these raw bindings: it turns thrown
//! messages into `Error`s, option objects into arguments, JSON text into
//! objects and packed bytes into typed arrays. Everything here runs on the
//! library's sequential path ([`tracekit::Parallelism::Sequential`]: a
//! wasm module has no threads) and gives the CLI's output, byte for byte.
//!
//! The crate also builds natively, so that the workspace's tests and
//! clippy cover it; the logic lives in plain functions ([`query`],
//! [`packed`], [`diagnostics_json`]) tested without a JS engine.

pub mod packed;
pub mod query;
pub mod sourcemaps;

use std::cell::RefCell;
use std::fmt::Write;
use std::io;

use tracekit::support::json::write_json_string;
use tracekit::{Analysis, AnalyzeOptions, DevTools, Parallelism};
use wasm_bindgen::prelude::*;

use crate::packed::PackedTracks;

thread_local! {
    /// The message of the last panic, for the JS side to report: a panic
    /// aborts (traps) the module, which loses the message otherwise.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps the message of a panic, which the JS wrapper reads after the
/// trap (`lastPanic`). Loading never panics on bad input (that is a
/// `LoadError`); this is for bugs, so that they are reported with words.
#[wasm_bindgen(js_name = "installPanicHook")]
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        LAST_PANIC.with(|last| *last.borrow_mut() = Some(message));
    }));
}

/// The message of the last panic, if one happened.
#[wasm_bindgen(js_name = "lastPanic")]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|last| last.borrow().clone())
}

/// The version of the package (the workspace's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The raw loader: `tracekit::Loader` on the sequential path.
#[wasm_bindgen(js_name = "RawLoader")]
pub struct RawLoader {
    /// `None` once finished.
    loader: Option<tracekit::Loader>,
}

#[wasm_bindgen(js_class = "RawLoader")]
impl RawLoader {
    /// A loader; `max_nodes` bounds the track nodes of one thread
    /// (`tracekit::DEFAULT_MAX_NODES` when `None`); `group_args` keeps what
    /// grouping the call tree by URL, domain or frame reads; `devtools`
    /// names the DevTools engine to answer as ([`DevTools::LATEST`] when
    /// `None`); `all_handlers` runs every handler (`data()`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        all_processes: bool,
        max_nodes: Option<f64>,
        group_args: bool,
        devtools: Option<String>,
        all_handlers: bool,
    ) -> Result<RawLoader, String> {
        let options =
            options(all_processes, max_nodes, group_args, devtools.as_deref())?.with_all_handlers(all_handlers);
        Ok(RawLoader {
            loader: Some(tracekit::Loader::new(options)),
        })
    }

    /// Feeds the next bytes of the input.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), String> {
        let loader = self.loader.as_mut().ok_or(FINISHED)?;
        loader.push(bytes).map_err(|e| load_error(&e))
    }

    /// Ends the input and builds the tracks.
    pub fn finish(&mut self) -> Result<RawTrace, String> {
        let loader = self.loader.take().ok_or(FINISHED)?;
        let analysis = loader.finish().map_err(|e| load_error(&e))?;
        Ok(RawTrace { analysis })
    }
}

/// The message of a loader used after `finish()`.
const FINISHED: &str = "this Loader was finished (or failed): make a new one";

/// The library's options from the JS ones.
fn options(
    all_processes: bool,
    max_nodes: Option<f64>,
    group_args: bool,
    devtools: Option<&str>,
) -> Result<AnalyzeOptions, String> {
    // The details tell events apart in `tracks()` and the chart's
    // tooltips, as the CLI's do.
    let mut options = AnalyzeOptions::default()
        .with_all_processes(all_processes)
        .with_group_args(group_args)
        .with_details(true)
        .with_parallelism(Parallelism::Sequential);
    if let Some(name) = devtools {
        options = options.with_devtools(devtools_named(name)?);
    }
    if let Some(n) = max_nodes {
        if !(n >= 1.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
            return Err(format!("maxNodes: expected a whole number >= 1, not {n}"));
        }
        // Whole and at most 2^53 - 1: exact; usize saturates on wasm32
        // (4 GB of memory holds far fewer nodes anyway).
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = n as usize;
        options = options.with_max_nodes(n);
    }
    Ok(options)
}

/// The engine named `name` (`DevTools::name`), or the message of the
/// `devtools` option listing the names.
fn devtools_named(name: &str) -> Result<DevTools, String> {
    DevTools::from_name(name).ok_or_else(|| {
        let names: Vec<String> = DevTools::ALL.iter().map(|d| format!("'{}'", d.name())).collect();
        format!("devtools: expected one of {}, not '{name}'", names.join(", "))
    })
}

/// The DevTools engines the `devtools` option names, as JSON:
/// `{"default": NAME, "versions": [NAME, ...], "engines": {NAME:
/// DESCRIPTION, ...}}`, oldest first.
#[wasm_bindgen(js_name = "devtoolsJson")]
pub fn devtools_json() -> String {
    let mut out = String::from("{\"default\":");
    write_json_string(&mut out, DevTools::LATEST.name());
    out.push_str(",\"versions\":[");
    for (i, d) in DevTools::ALL.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(&mut out, d.name());
    }
    out.push_str("],\"engines\":{");
    for (i, d) in DevTools::ALL.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(&mut out, d.name());
        out.push(':');
        write_json_string(&mut out, d.description());
    }
    out.push_str("}}");
    out
}

/// Loads a whole input held in one buffer.
#[wasm_bindgen(js_name = "rawAnalyze")]
pub fn raw_analyze(
    bytes: &[u8],
    all_processes: bool,
    max_nodes: Option<f64>,
    group_args: bool,
    devtools: Option<String>,
    all_handlers: bool,
) -> Result<RawTrace, String> {
    let options = options(all_processes, max_nodes, group_args, devtools.as_deref())?.with_all_handlers(all_handlers);
    let analysis = tracekit::analyze_bytes(bytes, &options).map_err(|e| load_error(&e))?;
    Ok(RawTrace { analysis })
}

/// A loaded trace.
#[wasm_bindgen(js_name = "RawTrace")]
pub struct RawTrace {
    analysis: Analysis,
}

#[wasm_bindgen(js_class = "RawTrace")]
impl RawTrace {
    /// `tracekit tracks --format conformance`, handed to `sink` in pieces
    /// of about a megabyte (so that no string of the whole is made in the
    /// module's memory).
    #[wasm_bindgen(js_name = "conformanceTo")]
    pub fn conformance_to(&self, sink: &js_sys::Function) -> Result<(), JsValue> {
        let mut sink = JsSink::new(sink);
        let written = tracekit::output::write_conformance(
            &self.analysis,
            &tracekit::query::Query::new(),
            Parallelism::Sequential,
            &mut sink,
        );
        sink.finish(written)
    }

    /// `tracekit tracks --format json` with the query's filters, handed to
    /// `sink` in pieces.
    #[wasm_bindgen(js_name = "tracksJsonTo")]
    #[allow(clippy::too_many_arguments)]
    pub fn tracks_json_to(
        &self,
        sink: &js_sys::Function,
        thread: Option<String>,
        window_start: Option<f64>,
        window_end: Option<f64>,
        max_depth: Option<u32>,
        min_duration: Option<f64>,
    ) -> Result<(), JsValue> {
        let query = query::query(thread, window_start, window_end, max_depth, min_duration)?;
        query::check(&query, &self.analysis)?;
        let mut sink = JsSink::new(sink);
        let written = tracekit::output::write_json(&self.analysis, &query, Parallelism::Sequential, &mut sink);
        sink.finish(written)
    }

    /// The tracks in columns ([`packed`]).
    #[wasm_bindgen(js_name = "tracksPacked")]
    pub fn tracks_packed(
        &self,
        thread: Option<String>,
        window_start: Option<f64>,
        window_end: Option<f64>,
        max_depth: Option<u32>,
        min_duration: Option<f64>,
    ) -> Result<RawPackedTracks, String> {
        let query = query::query(thread, window_start, window_end, max_depth, min_duration)?;
        query::check(&query, &self.analysis)?;
        let packed = packed::pack(&self.analysis, &query);
        Ok(RawPackedTracks { packed })
    }

    /// `tracekit calltree --format json [--group-by GROUP_BY]`: both views
    /// of each thread.
    #[wasm_bindgen(js_name = "callTreeJson")]
    pub fn call_tree_json(
        &self,
        thread: Option<String>,
        window_start: Option<f64>,
        window_end: Option<f64>,
        max_depth: Option<u32>,
        group_by: Option<String>,
    ) -> Result<String, String> {
        let group_by = query::group_by(group_by.as_deref())?;
        let query = query::query(thread, window_start, window_end, max_depth, None)?;
        group_by.check(&self.analysis).map_err(|e| query::grouping_error(&e))?;
        query::check_aggregated(&query, &self.analysis)?;
        tracekit::views::calltree_json(
            &self.analysis,
            &tracekit::views::ViewOptions::new().query(query).group_by(group_by),
        )
        .map_err(|e| query::view_error(&e))
    }

    /// The flame chart's data (`tracekit chart`'s, `docs/chart.md`) of the
    /// threads and window the query selects: the JSON header and the
    /// columns, which the chart's renderer (`chart/renderer.js` in the
    /// package) draws as they are.
    pub fn chart(
        &self,
        thread: Option<String>,
        window_start: Option<f64>,
        window_end: Option<f64>,
        title: Option<String>,
    ) -> Result<RawChart, String> {
        let query = query::query(thread, window_start, window_end, None, None)?;
        query::check(&query, &self.analysis)?;
        // The page's tracks when the trace was loaded with every handler,
        // as `tracekit chart` draws them.
        let page = tracekit::export::chart::page_tracks(&self.analysis);
        let data = tracekit::export::chart::data_with_page(
            &self.analysis,
            &query,
            title.as_deref().unwrap_or(""),
            page.as_ref(),
        );
        Ok(RawChart {
            header: data.header,
            columns: data.columns,
            images: data.images,
        })
    }

    /// The handlers' data (`tracekit data`): the handlers named in the
    /// comma-separated `handlers` (every one when `None`), as JSON, exact
    /// or by the conformance rules.
    #[wasm_bindgen(js_name = "dataJson")]
    pub fn data_json(&self, handlers: Option<String>, conformance: bool) -> Result<String, String> {
        let names: Vec<&str> = handlers.as_deref().map_or_else(Vec::new, |h| h.split(',').collect());
        let written = if conformance {
            tracekit::insights::data_conformance(&self.analysis, &names)
        } else {
            tracekit::insights::data_json(&self.analysis, &names)
        };
        written.map_err(|e| format!("tracekit: {e}"))
    }

    /// The network requests, as `tracekit network --format json` writes
    /// them (`tracekit::page::requests_json`); the analysis must have all
    /// the handlers.
    #[wasm_bindgen(js_name = "networkJson")]
    pub fn network_json(&self) -> Result<String, String> {
        tracekit::page::requests(&self.analysis)
            .map(|rows| tracekit::page::requests_json(&rows))
            .map_err(|e| format!("tracekit: {e}"))
    }

    /// The main frame's navigations and their metrics, as `tracekit
    /// metrics --format json` writes them
    /// (`tracekit::page::navigations_json`); the analysis must have all
    /// the handlers.
    #[wasm_bindgen(js_name = "metricsJson")]
    pub fn metrics_json(&self) -> Result<String, String> {
        tracekit::page::navigations(&self.analysis)
            .map(|rows| tracekit::page::navigations_json(&rows))
            .map_err(|e| format!("tracekit: {e}"))
    }

    /// Each event's initiator, as `tracekit::page::initiators_json`
    /// writes them; the analysis must have all the handlers.
    #[wasm_bindgen(js_name = "initiatorsJson")]
    pub fn initiators_json(&self) -> Result<String, String> {
        tracekit::page::initiators(&self.analysis)
            .map(|rows| tracekit::page::initiators_json(&rows, &self.analysis))
            .map_err(|e| format!("tracekit: {e}"))
    }

    /// The insight sets, as `tracekit insights --format json` (or, with
    /// `conformance`, `--format conformance`) writes them; the analysis
    /// must have all the handlers.
    #[wasm_bindgen(js_name = "insightsJson")]
    pub fn insights_json(&self, conformance: bool) -> Result<String, String> {
        let sets = tracekit::insights::compute(&self.analysis).map_err(|e| format!("tracekit: {e}"))?;
        tracekit::insights::sets_document(&self.analysis, &sets, conformance).map_err(|e| format!("tracekit: {e}"))
    }

    /// The insight sets as text, as `tracekit insights` prints them.
    #[wasm_bindgen(js_name = "insightsText")]
    pub fn insights_text(&self) -> Result<String, String> {
        let sets = tracekit::insights::compute(&self.analysis).map_err(|e| format!("tracekit: {e}"))?;
        Ok(tracekit::insights::sets_text(&sets, &self.analysis))
    }

    /// Each entry's warnings, as `tracekit::page::warnings_json` writes
    /// them; the analysis must have all the handlers.
    #[wasm_bindgen(js_name = "warningsJson")]
    pub fn warnings_json(&self) -> Result<String, String> {
        tracekit::page::warnings(&self.analysis)
            .map(|rows| tracekit::page::warnings_json(&rows, &self.analysis))
            .map_err(|e| format!("tracekit: {e}"))
    }

    /// The scripts of V8's source rundown, as
    /// `tracekit::page::scripts_json` writes them; the analysis must have
    /// all the handlers.
    #[wasm_bindgen(js_name = "scriptsJson")]
    pub fn scripts_json(&self) -> Result<String, String> {
        tracekit::page::scripts(&self.analysis)
            .map(|rows| tracekit::page::scripts_json(&rows))
            .map_err(|e| format!("tracekit: {e}"))
    }

    /// The names of the handlers `dataJson` knows, comma-separated.
    #[wasm_bindgen(js_name = "dataHandlers")]
    pub fn data_handlers() -> String {
        tracekit::data::HANDLERS.join(",")
    }

    /// What was skipped or repaired ([`diagnostics_json`]).
    #[wasm_bindgen(js_name = "diagnosticsJson")]
    pub fn diagnostics_json(&self) -> String {
        diagnostics_json(&self.analysis)
    }
}

/// A writer that hands what the output formats write to a JS function,
/// as strings: an output crosses in pieces of about a megabyte (the
/// formats write that much at a time), never as one string in the
/// module's memory, which would keep its high-water mark (a module's
/// memory never shrinks) at the size of the largest output.
struct JsSink<'f> {
    sink: &'f js_sys::Function,
    /// The bytes of a character cut by the end of a write.
    carry: Vec<u8>,
    /// What the function threw, rethrown as it is.
    thrown: Option<JsValue>,
}

impl<'f> JsSink<'f> {
    fn new(sink: &'f js_sys::Function) -> Self {
        JsSink {
            sink,
            carry: Vec::new(),
            thrown: None,
        }
    }

    /// The outcome of writing: what the function threw, else an I/O error
    /// (none happens: the formats write UTF-8 to a sink that only fails
    /// when the function throws).
    fn finish(self, written: io::Result<()>) -> Result<(), JsValue> {
        match (self.thrown, written) {
            (Some(thrown), _) => Err(thrown),
            (None, Err(e)) => Err(JsValue::from_str(&format!("writing the output: {e}"))),
            (None, Ok(())) => Ok(()),
        }
    }

    fn send(&mut self, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.sink
            .call1(&JsValue::NULL, &JsValue::from_str(text))
            .map(drop)
            .map_err(|thrown| {
                self.thrown = Some(thrown);
                io::Error::other("the output's function threw")
            })
    }
}

impl io::Write for JsSink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // The formats write whole characters: the usual case copies nothing.
        if self.carry.is_empty() {
            if let Ok(text) = std::str::from_utf8(buf) {
                self.send(text)?;
                return Ok(buf.len());
            }
        }
        self.carry.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&self.carry) {
            Ok(text) => text.len(),
            // A character cut at the end waits for the next write.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        };
        let carry = std::mem::take(&mut self.carry);
        let (text, rest) = carry.split_at(valid);
        self.send(std::str::from_utf8(text).expect("checked above"))?;
        self.carry = rest.to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The packed tracks, taken out once by the JS side.
#[wasm_bindgen(js_name = "RawPackedTracks")]
pub struct RawPackedTracks {
    packed: PackedTracks,
}

#[wasm_bindgen(js_class = "RawPackedTracks")]
impl RawPackedTracks {
    /// The JSON header.
    pub fn header(&self) -> String {
        self.packed.header.clone()
    }

    /// The columns of thread `i` (in the header's order), moved out.
    #[wasm_bindgen(js_name = "takeThread")]
    pub fn take_thread(&mut self, i: usize) -> Vec<u8> {
        self.packed.threads.get_mut(i).map(std::mem::take).unwrap_or_default()
    }
}

/// The flame chart's data, taken out once by the JS side.
#[wasm_bindgen(js_name = "RawChart")]
pub struct RawChart {
    header: String,
    columns: Vec<u8>,
    images: Vec<Vec<u8>>,
}

#[wasm_bindgen(js_class = "RawChart")]
impl RawChart {
    /// The JSON header.
    pub fn header(&self) -> String {
        self.header.clone()
    }

    /// The columns, moved out (one copy into JavaScript's memory).
    #[wasm_bindgen(js_name = "takeColumns")]
    pub fn take_columns(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.columns)
    }

    /// How many screenshot images the page's tracks refer to.
    #[wasm_bindgen(js_name = "imageCount")]
    pub fn image_count(&self) -> usize {
        self.images.len()
    }

    /// Screenshot image `i` (JPEG bytes), moved out.
    #[wasm_bindgen(js_name = "takeImage")]
    pub fn take_image(&mut self, i: usize) -> Vec<u8> {
        self.images.get_mut(i).map(std::mem::take).unwrap_or_default()
    }
}

/// What `trace.diagnostics()` returns, as JSON: the input's kind, its
/// events and bytes, the warnings (each once), the divergences from
/// DevTools met, the skips with their counts and first examples, and
/// `text`, the lines `tracekit tracks --stats` prints (warnings included).
pub fn diagnostics_json(analysis: &Analysis) -> String {
    let d = analysis.diagnostics();
    let mut out = String::from("{\"input\":");
    write_json_string(&mut out, &format!("{:?}", analysis.kind()));
    let _ = write!(
        out,
        ",\"events\":{},\"inputBytes\":{},\"warnings\":[",
        analysis.event_count(),
        analysis.input_bytes()
    );
    for (i, warning) in d.warnings().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(&mut out, warning);
    }
    out.push_str("],\"divergences\":[");
    for (i, (divergence, example)) in d.divergences().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"name\":");
        write_json_string(&mut out, divergence.as_str());
        out.push_str(",\"example\":");
        write_json_string(&mut out, example);
        out.push('}');
    }
    out.push_str("],\"skipped\":[");
    for (i, (reason, record)) in d.skipped().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"reason\":");
        write_json_string(&mut out, reason.as_str());
        let _ = write!(out, ",\"count\":{},\"firstExample\":", record.count);
        write_json_string(&mut out, &record.first_example);
        out.push('}');
    }
    out.push_str("],\"text\":");
    write_json_string(&mut out, &tracekit::output::stats(analysis));
    out.push('}');
    out
}

/// A load error's message, with what the JS API's user can do about it
/// (the library's message says what, not which option).
fn load_error(error: &tracekit::LoadError) -> String {
    match error.kind() {
        tracekit::ErrorKind::TooManyNodes => {
            format!("{error}; raise the Loader's maxNodes (about 100 bytes of memory each)")
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &[u8] = br#"[{"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
{"ph":"X","pid":1,"tid":10,"ts":1,"dur":1},
{"name":"RunTask","cat":"toplevel","ph":"X","pid":1,"tid":10,"ts":10,"dur":5},
{"name":"Layout","cat":"devtools.timeline","ph":"X","pid":1,"tid":10,"ts":11,"dur":2}]"#;

    fn analysis() -> Analysis {
        tracekit::analyze_bytes(TRACE, &options(false, None, false, None).unwrap()).unwrap()
    }

    #[test]
    fn diagnostics_are_json_with_the_stats_text() {
        let a = analysis();
        let d: serde_json::Value = serde_json::from_str(&diagnostics_json(&a)).unwrap();
        assert_eq!(d["input"], "ChromeTrace");
        assert_eq!(d["skipped"][0]["count"], 1);
        assert_eq!(d["text"], tracekit::output::stats(&a));
    }

    #[test]
    fn packed_columns_follow_the_documented_layout() {
        let a = analysis();
        let packed = packed::pack(&a, &tracekit::query::Query::new());
        let header: serde_json::Value = serde_json::from_str(&packed.header).unwrap();
        let thread = &header["processes"][0]["threads"][0];
        assert_eq!(thread["nodeCount"], 2);
        assert_eq!(thread["frameCount"], 0);
        let bytes = &packed.threads[0];
        // n = 2 nodes: ts, dur, self (f64); depth, name, category (u32);
        // frame (i32); type, phase (u8).
        assert_eq!(bytes.len(), 2 * (3 * 8 + 4 * 4 + 2));
        let f64_at = |i: usize| f64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
        let u32_at = |i: usize| u32::from_le_bytes(bytes[48 + i * 4..48 + i * 4 + 4].try_into().unwrap());
        assert_eq!((f64_at(0), f64_at(1)), (10.0, 11.0));
        assert_eq!((f64_at(2), f64_at(3)), (5.0, 2.0));
        assert_eq!((f64_at(4), f64_at(5)), (3.0, 2.0));
        assert_eq!((u32_at(0), u32_at(1)), (0, 1));
        let strings = header["strings"].as_array().unwrap();
        assert_eq!(strings[u32_at(2) as usize], "RunTask");
        assert_eq!(strings[u32_at(3) as usize], "Layout");
        assert_eq!(strings[u32_at(4) as usize], "toplevel");
        assert_eq!(&bytes[bytes.len() - 4..], &[0, 0, b'X', b'X']);
    }

    #[test]
    fn the_chart_is_the_chart_commands_data() {
        let a = analysis();
        let trace = RawTrace { analysis: a };
        let mut chart = trace
            .chart(Some("CrRendererMain".into()), None, None, Some("t".into()))
            .unwrap();
        let expected = tracekit::export::chart::data(
            &trace.analysis,
            &tracekit::query::Query::new().with_thread("CrRendererMain").unwrap(),
            "t",
        );
        assert_eq!(chart.header(), expected.header);
        assert_eq!(chart.take_columns(), expected.columns);
        let header: serde_json::Value = serde_json::from_str(&chart.header()).unwrap();
        assert_eq!(header["lanes"][0]["nodes"], 2);
        assert!(trace.chart(Some("gpu".into()), None, None, None).is_err());
    }

    #[test]
    fn options_are_checked() {
        assert!(options(false, Some(0.0), false, None).is_err());
        assert!(options(false, Some(1.5), false, None).is_err());
        assert_eq!(options(true, Some(10.0), false, None).unwrap().max_nodes, 10);
        assert!(options(false, None, true, None).unwrap().group_args);
        assert_eq!(options(false, None, false, None).unwrap().devtools, DevTools::LATEST);
        for d in DevTools::ALL {
            assert_eq!(options(false, None, false, Some(d.name())).unwrap().devtools, d);
        }
        assert_eq!(
            options(false, None, false, Some("2026-11")).unwrap_err(),
            "devtools: expected one of '2026-06', '2026-10', not '2026-11'"
        );
    }

    #[test]
    fn the_engines_are_json_with_the_default() {
        let d: serde_json::Value = serde_json::from_str(&devtools_json()).unwrap();
        assert_eq!(d["default"], DevTools::LATEST.name());
        let names: Vec<&str> = DevTools::ALL.iter().map(|d| d.name()).collect();
        assert_eq!(d["versions"], serde_json::json!(names));
        for engine in DevTools::ALL {
            assert_eq!(d["engines"][engine.name()], engine.description());
        }
    }
}

/// A comparison of two sides (`tracekit diff`): each side's runs are
/// measured as they are added, so the traces can be freed in between.
#[wasm_bindgen(js_name = "RawDiff")]
#[derive(Default)]
pub struct RawDiff {
    base: Vec<tracekit_diff::Run>,
    new: Vec<tracekit_diff::Run>,
}

#[wasm_bindgen(js_class = "RawDiff")]
impl RawDiff {
    /// A comparison with no run yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawDiff {
        RawDiff::default()
    }

    /// Measures `trace` as one more run of NEW (`to_new`) or of BASE.
    pub fn add(&mut self, trace: &RawTrace, to_new: bool) -> Result<(), String> {
        let run = tracekit_diff::measure(&trace.analysis, tracekit::DEFAULT_MAX_NODES)
            .map_err(|e| format!("tracekit: {e}"))?;
        if to_new {
            self.new.push(run);
        } else {
            self.base.push(run);
        }
        Ok(())
    }

    /// The report as `tracekit diff --format FORMAT` writes it (`json`,
    /// `text` or `markdown`), with `alpha` and `min_ms` as `--alpha` and
    /// `--min-ms`; in JSON, with `"crossed"`: the thresholds of `fail_on`
    /// (`--fail-on`'s syntax) the report crosses, each with its row.
    pub fn report(&self, format: &str, alpha: f64, min_ms: f64, fail_on: Vec<String>) -> Result<String, String> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(format!("tracekit: alpha is a number between 0 and 1, not {alpha}"));
        }
        if min_ms.is_nan() || min_ms < 0.0 {
            return Err(format!("tracekit: minMs is a number of ms, 0 or more, not {min_ms}"));
        }
        let thresholds = fail_on
            .iter()
            .map(|t| t.parse::<tracekit_diff::Threshold>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("tracekit: {e}"))?;
        let options = tracekit_diff::Options { alpha, min_ms };
        let report = tracekit_diff::compare(&self.base, &self.new, &options).map_err(|e| format!("tracekit: {e}"))?;
        match format {
            "text" => Ok(tracekit_diff::render::text(&report)),
            "markdown" => Ok(tracekit_diff::render::markdown(&report)),
            "json" => {
                let crossed: Vec<serde_json::Value> = tracekit_diff::crossed(&thresholds, &report)
                    .into_iter()
                    .map(|(row, t)| serde_json::json!({"threshold": t.text, "row": row}))
                    .collect();
                let mut doc = serde_json::to_value(&report).map_err(|e| format!("tracekit: {e}"))?;
                doc["crossed"] = serde_json::Value::Array(crossed);
                Ok(doc.to_string())
            }
            other => Err(format!(
                "tracekit: diff: format is 'json', 'text' or 'markdown', not '{other}'"
            )),
        }
    }
}
