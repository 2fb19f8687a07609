//! What one run is measured by ([`Run`]): a value per [`Key`], each key
//! named so that two runs of the same code line up (never by pid or tid):
//! threads by role, functions as the Bottom-Up keys them, events by
//! name, the Summary's categories, the page metrics per navigation, the
//! page's requests and bytes, and the third parties.

use std::collections::BTreeMap;

use rayon::prelude::*;
use tracekit::views::{thread_bottom_up_and_summary, ViewError, Window};
use tracekit::{Analysis, InputKind, Parallelism, Thread};

/// What a key measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A page metric of a navigation of the main frame (FCP, LCP, CLS,
    /// INP, TBT), or the page's requests and the bytes they transferred.
    Page,
    /// A third party (an entity of DevTools' list, or a domain): its main
    /// thread time and the bytes it transferred, as DevTools' 3rd parties
    /// insight counts them over the whole trace.
    #[serde(rename = "third-party")]
    ThirdParty,
    /// A category of a thread's Summary (Scripting, Rendering, ...).
    Category,
    /// A JS function of a thread, as the Bottom-Up keys it: name, URL,
    /// line and column.
    Function,
    /// A trace event of a thread, by name (the Bottom-Up's id).
    Event,
}

impl Kind {
    /// The kind in words, as the reports title their sections.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Page => "Page metrics",
            Kind::ThirdParty => "Third parties",
            Kind::Category => "Categories",
            Kind::Function => "Functions",
            Kind::Event => "Events",
        }
    }
}

/// Which of a key's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantity {
    /// The one value of a page metric or a category.
    Value,
    /// A function's or event's self time.
    #[serde(rename = "self")]
    SelfTime,
    /// A function's or event's total time (the Bottom-Up's, counting
    /// recursion once).
    Total,
    /// The bytes a third party's requests transferred.
    #[serde(rename = "transfer")]
    TransferSize,
}

impl Quantity {
    /// `self`, `total`, or empty for a value.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Value => "",
            Quantity::SelfTime => "self",
            Quantity::Total => "total",
            Quantity::TransferSize => "transfer",
        }
    }
}

/// The unit of a key's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueUnit {
    /// Milliseconds.
    Ms,
    /// A score without unit (CLS).
    Score,
    /// A number of things (requests).
    Count,
    /// Bytes.
    Bytes,
}

/// The page's number of requests: a [`Kind::Page`] key's name.
pub const REQUESTS: &str = "Requests";
/// The bytes the page's requests transferred: a [`Kind::Page`] key's name.
pub const BYTES: &str = "Bytes";

/// One measured thing, named the same in every run of the same code.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Key {
    /// What it is.
    pub kind: Kind,
    /// The thread's role ([`thread_role`]); `page` for a page metric and
    /// a third party.
    pub thread: String,
    /// The metric (`LCP`, `LCP (navigation 2)`, [`REQUESTS`], [`BYTES`]),
    /// the category's title, the function as `NAME URL:LINE:COLUMN`
    /// (1-based, as the tracks' text format), the event's name, or the
    /// third party's.
    pub name: String,
    /// Which of its values.
    pub quantity: Quantity,
}

impl Key {
    /// The unit of its values: ms but for CLS (a score), the requests (a
    /// count) and bytes.
    pub fn unit(&self) -> ValueUnit {
        match (self.kind, self.quantity) {
            (Kind::ThirdParty, Quantity::TransferSize) => ValueUnit::Bytes,
            (Kind::Page, _) => match self.short_name() {
                "CLS" => ValueUnit::Score,
                REQUESTS => ValueUnit::Count,
                BYTES => ValueUnit::Bytes,
                _ => ValueUnit::Ms,
            },
            _ => ValueUnit::Ms,
        }
    }

    /// Whether its values are milliseconds.
    pub fn is_ms(&self) -> bool {
        self.unit() == ValueUnit::Ms
    }

    /// Whether the key is the page's rather than a thread's (page
    /// metrics, requests, bytes and third parties): it is compared
    /// whatever threads the two sides have in common.
    pub fn is_page_wide(&self) -> bool {
        matches!(self.kind, Kind::Page | Kind::ThirdParty)
    }

    /// The function's or metric's name alone: a function's before its
    /// location, a metric's before its navigation.
    pub fn short_name(&self) -> &str {
        match self.kind {
            Kind::Function | Kind::Page => self.name.split(' ').next().unwrap_or(&self.name),
            _ => &self.name,
        }
    }
}

/// One run measured: a value per key (ms, or a score for CLS).
#[derive(Debug, Clone)]
pub struct Run {
    /// What the input was.
    pub kind: InputKind,
    /// The value of each key the run has.
    pub values: BTreeMap<Key, f64>,
}

impl Run {
    /// The threads' roles of the run.
    pub fn threads(&self) -> std::collections::BTreeSet<&str> {
        self.values
            .keys()
            .filter(|k| !k.is_page_wide())
            .map(|k| k.thread.as_str())
            .collect()
    }
}

/// The role of a thread, which names it in every run: `main` for a CPU
/// profile's one thread; the renderer main thread of the main frame
/// `Main frame: CrRendererMain`; a worker `Worker URL` (with the Workers
/// handler's data, else by name); any other `PROCESS: THREAD` (the
/// process's name, as `Renderer` or `GPU Process`, and the thread's).
pub fn thread_role(analysis: &Analysis, thread: &Thread<'_>) -> String {
    if analysis.kind() != InputKind::ChromeTrace {
        return "main".to_owned();
    }
    let process = thread.process();
    let name = thread.name().unwrap_or("(unnamed thread)");
    if process.is_on_main_frame() && name == "CrRendererMain" {
        return "Main frame: CrRendererMain".to_owned();
    }
    if let Some(url) = worker_url(analysis, thread) {
        return format!("Worker {url}");
    }
    format!("{}: {name}", process.name().unwrap_or("(unnamed process)"))
}

/// The script URL of the worker a thread runs, when the Workers handler
/// ran and knows it.
fn worker_url<'a>(analysis: &'a Analysis, thread: &Thread<'_>) -> Option<&'a str> {
    let workers = analysis.data::<tracekit::WorkersHandler>()?;
    let worker = workers.worker_by_thread.get(&Some(thread.tid()))?;
    let url = (*workers.url_by_worker.get(worker)?)?;
    Some(analysis.strings().resolve(url)).filter(|u| !u.is_empty())
}

/// Measures one analysis: per thread, the Bottom-Up's first level (each
/// function's and event's self and total ms over the whole trace) and the
/// Summary's categories; when the page handlers ran
/// (`AnalyzeOptions::with_all_handlers`), the page metrics of each
/// navigation of the main frame, the page's requests and bytes, and the
/// third parties. Threads of the same role in one run add up.
///
/// # Errors
///
/// A thread whose Bottom-Up passes `max_nodes` nodes; a trace DevTools
/// cannot count the third parties of (a received-data event without its
/// data).
pub fn measure(analysis: &Analysis, max_nodes: usize) -> Result<Run, MeasureError> {
    measure_with(analysis, max_nodes, Parallelism::Sequential)
}

/// Some keys' values, in the order they were measured.
type Values = Vec<(Key, f64)>;

/// [`measure`], with the threads (and the third parties beside them)
/// measured on rayon's pool when `parallelism` is
/// [`Parallelism::Rayon`]: the same run either way (each thread's values
/// are added up in the threads' order).
///
/// # Errors
///
/// Those of [`measure`].
pub fn measure_with(analysis: &Analysis, max_nodes: usize, parallelism: Parallelism) -> Result<Run, MeasureError> {
    let window = Window::new(analysis.bounds(), None);
    let threads: Vec<Thread<'_>> = if window.is_finite() {
        analysis.threads().collect()
    } else {
        Vec::new()
    };
    // The threads are measured on the pool's threads: their stages are
    // the caller's (`views` under `--timings`) all the same.
    let parent = tracing::Span::current();
    let one = |thread: &Thread<'_>| {
        let _span = tracing::info_span!(parent: &parent, "threads").entered();
        let role = thread_role(analysis, thread);
        let mut values = Vec::new();
        measure_thread(analysis, thread, &role, window, max_nodes, &mut values).map(|()| values)
    };
    let (per_thread, third): (Vec<Result<Values, ViewError>>, _) = match parallelism {
        Parallelism::Rayon => rayon::join(
            || threads.par_iter().map(one).collect(),
            || third_parties(analysis, &parent),
        ),
        Parallelism::Sequential => (threads.iter().map(one).collect(), third_parties(analysis, &parent)),
    };
    let mut values: BTreeMap<Key, f64> = BTreeMap::new();
    for thread in per_thread {
        for (key, v) in thread? {
            *values.entry(key).or_insert(0.0) += v;
        }
    }
    page_metrics(analysis, &mut values);
    requests_and_bytes(analysis, &mut values);
    for (key, v) in third? {
        *values.entry(key).or_insert(0.0) += v;
    }
    Ok(Run {
        kind: analysis.kind(),
        values,
    })
}

fn measure_thread(
    analysis: &Analysis,
    thread: &Thread<'_>,
    role: &str,
    window: Window,
    max_nodes: usize,
    values: &mut Vec<(Key, f64)>,
) -> Result<(), ViewError> {
    let mut add = |kind: Kind, name: &str, quantity: Quantity, v: f64| {
        // Sums of clipped times leave residues of a few 1e-12 ms where there was no time.
        if v.is_finite() && v.abs() > 1e-9 {
            let key = Key {
                kind,
                thread: role.to_owned(),
                name: name.to_owned(),
                quantity,
            };
            values.push((key, v));
        }
    };
    let (views, summary) = thread_bottom_up_and_summary(analysis, thread.track(), window, Some(1), max_nodes)?;
    let root = &views.bottom_up.nodes[0];
    for &child in &root.children {
        let node = &views.bottom_up.nodes[child as usize];
        let (kind, name) = if views.frames[node.id as usize].is_some() {
            let label = views.label(node);
            (Kind::Function, label.strip_prefix("js ").unwrap_or(label))
        } else {
            (Kind::Event, views.id(node))
        };
        add(kind, name, Quantity::SelfTime, node.self_ms);
        add(kind, name, Quantity::Total, node.total_ms);
    }
    for (category, ms) in summary.rows() {
        add(Kind::Category, category.title(), Quantity::Value, ms);
    }
    Ok(())
}

/// The metrics of each navigation of the main frame: `LCP` for the
/// first, `LCP (navigation 2)` for the second, ...
fn page_metrics(analysis: &Analysis, values: &mut BTreeMap<Key, f64>) {
    let Ok(navigations) = tracekit::page::navigations(analysis) else {
        return;
    };
    for (i, nav) in navigations.iter().enumerate() {
        let suffix = if i == 0 {
            String::new()
        } else {
            format!(" (navigation {})", i + 1)
        };
        let metrics = [
            ("FCP", nav.fcp.map(|m| m.value.0)),
            ("LCP", nav.lcp.map(|m| m.value.0)),
            ("CLS", nav.cls),
            ("INP", nav.inp.map(|m| m.0)),
            ("TBT", nav.tbt.map(|m| m.value.0)),
        ];
        for (name, value) in metrics {
            if let Some(v) = value.filter(|v| v.is_finite()) {
                let key = Key {
                    kind: Kind::Page,
                    thread: "page".to_owned(),
                    name: format!("{name}{suffix}"),
                    quantity: Quantity::Value,
                };
                values.insert(key, v);
            }
        }
    }
}

/// A page-wide key.
fn page_key(kind: Kind, name: &str, quantity: Quantity) -> Key {
    Key {
        kind,
        thread: "page".to_owned(),
        name: name.to_owned(),
        quantity,
    }
}

/// The page's requests, and the bytes they transferred, over the whole
/// trace.
fn requests_and_bytes(analysis: &Analysis, values: &mut BTreeMap<Key, f64>) {
    let Ok(requests) = tracekit::page::requests(analysis) else {
        return;
    };
    let bytes: f64 = requests.iter().filter_map(|r| r.transfer_size).sum();
    values.insert(page_key(Kind::Page, REQUESTS, Quantity::Value), requests.len() as f64);
    values.insert(page_key(Kind::Page, BYTES, Quantity::Value), bytes);
}

/// Each entity's main thread time and transferred bytes over the whole
/// trace, as DevTools' 3rd parties insight counts them (the first party
/// among them: a change of the site's own share is as telling).
fn third_parties(analysis: &Analysis, parent: &tracing::Span) -> Result<Vec<(Key, f64)>, MeasureError> {
    let _span = tracing::info_span!(parent: parent, "third parties").entered();
    let mut values = Vec::new();
    if analysis.kind() != InputKind::ChromeTrace || !analysis.has_all_handlers() {
        return Ok(values);
    }
    let found = tracekit::insights::third_parties_of_trace(analysis).map_err(MeasureError::ThirdParties)?;
    for summary in found.summaries {
        let name = summary.entity.name(analysis.strings());
        for (quantity, v) in [
            (Quantity::SelfTime, summary.main_thread_time),
            (Quantity::TransferSize, summary.transfer_size),
        ] {
            if v.is_finite() && v != 0.0 {
                values.push((page_key(Kind::ThirdParty, name, quantity), v));
            }
        }
    }
    Ok(values)
}

/// Why a run cannot be measured.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureError {
    /// A thread's views cannot be built.
    View(ViewError),
    /// The third parties cannot be counted (DevTools' reason).
    ThirdParties(String),
}

impl std::fmt::Display for MeasureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeasureError::View(e) => e.fmt(f),
            MeasureError::ThirdParties(why) => write!(f, "the third parties cannot be counted: {why}"),
        }
    }
}

impl std::error::Error for MeasureError {}

impl From<ViewError> for MeasureError {
    fn from(e: ViewError) -> MeasureError {
        MeasureError::View(e)
    }
}
