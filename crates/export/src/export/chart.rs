//! The flame chart (`tracekit chart`): the sync tracks drawn as the
//! Performance panel's flame chart, in one self-contained HTML file.
//!
//! [`data`] turns an analysis into the chart's data: a JSON header (the
//! lanes, a string table, the labels nodes refer to, the colours) and
//! binary columns (per lane, the start, duration, self time, depth and
//! label of each node, as little-endian typed arrays); `docs/chart.md`
//! describes both. [`html`] puts them, the columns deflated and in
//! base64, into the page (`chart/page.html`) beside the renderer (`chart/renderer.js`,
//! [`RENDERER_JS`]), which draws them on a canvas. Nothing in the page
//! asks for anything outside the file.
//!
//! The chart shows what the panel shows: the events it draws
//! ([`styles::in_timeline`]; the others leave their level to their
//! children, which the renderer works out), coloured by category
//! ([`Category::color`]), and the JS calls coloured by script
//! ([`script_color`]). The data keeps every node, so that the page can
//! also show all events, as the panel's "show all events" setting does.
//!
//! Above the threads, [`html_with_page`] draws the page's tracks as the
//! panel does (network, frames, screenshots, timings, interactions,
//! layout shifts) from [`PageTracks`], plain data the caller fills from
//! the handlers (module `page`).

use ahash::AHashMap;
use indexmap::IndexSet;
use tracekit_engine::support::jsnum::write_json_number;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Micros, Parallelism, Sym};
use tracekit_engine::{NodeKind, ThreadTrack};

use crate::detail::{node_detail, Urls};
use crate::output::kind_name;
use tracekit_engine::query::Query;
use tracekit_engine::styles::{self, Category};
use tracekit_engine::Analysis;

mod causes;
mod colors;
mod of_analysis;
mod pack;
mod page;
use colors::generic_color;
pub use colors::{devtools_hash_code, extension_color, script_color, timing_color};
pub use of_analysis::page_tracks;
use pack::{base64, deflate};
pub use page::{
    ExtensionEntry, ExtensionMarker, ExtensionSubTrack, ExtensionTrack, Frame, FrameState, GpuTask, Interaction,
    InteractionKind, LayoutShift, LayoutShiftCluster, MarkerKind, MemorySample, NetworkRequest, PageLoadMarker,
    PageTracks, ResourceKind, Screenshot, Timing, TimingKind,
};

/// The renderer: a canvas flame chart of [`ChartData`], with zoom, pan,
/// tooltips and search (plain JavaScript, no dependency). Another page
/// can load it and hand it the data; `docs/chart.md` tells how.
pub const RENDERER_JS: &str = include_str!("chart/renderer.js");

/// The page around the renderer: `{{TITLE}}`, `{{RENDERER}}`,
/// `{{HEADER}}`, `{{COLUMNS}}` and `{{IMAGES}}` are filled in by [`html`].
const PAGE: &str = include_str!("chart/page.html");

/// The version of the data format (`docs/chart.md`), in the header.
pub const FORMAT_VERSION: u32 = 3;

/// The data of a chart, as the renderer reads it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChartData {
    /// The header: one JSON object (`docs/chart.md`).
    pub header: String,
    /// The columns the header's lanes point into: little-endian typed
    /// arrays, each starting at a multiple of 8 bytes.
    pub columns: Vec<u8>,
    /// The screenshots' images (JPEG), each once: the header's
    /// `page.screenshots` refer to them by index. Empty without page
    /// tracks.
    pub images: Vec<Vec<u8>>,
}

/// The chart of the tracks `query` keeps, as one HTML page titled
/// `title` (the trace's file name, say). The query's thread and window
/// choose the lanes and nodes, and the window is the first view. The
/// columns are compressed on all cores with [`Parallelism::Rayon`] (the
/// page is the same).
pub fn html(analysis: &Analysis, query: &Query, parallelism: Parallelism, title: &str) -> String {
    html_with_page(analysis, query, parallelism, title, None)
}

/// [`html`] with the page's tracks above the threads, as the Performance
/// panel shows them: network, frames, screenshots, timings, interactions,
/// layout shifts (those `page` has; `None`, or empty tracks: as [`html`]).
/// The screenshots' images are in the page, each once, in base64.
pub fn html_with_page(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    title: &str,
    page: Option<&PageTracks>,
) -> String {
    let data = data_with_page(analysis, query, title, page);
    // The header goes into a <script> element: a `<` (only ever inside a
    // JSON string) is escaped so that no `</script>` or `<!--` can end or
    // change it.
    let header = data.header.replace('<', "\\u003c");
    // Deflated, the columns of a large trace take an eighth of the room,
    // and a browser reads and inflates them faster than it would parse
    // the base64 of the raw bytes (timestamps of nearby nodes share most
    // of their bytes). The fastest level compresses nearly as well as
    // the best.
    let packed = deflate(&data.columns, parallelism);
    let mut columns = String::with_capacity(packed.len().div_ceil(3) * 4);
    base64(&packed, &mut columns);
    // One line of base64 per image (no `<` in base64: nothing to escape).
    let mut images = String::with_capacity(data.images.iter().map(|i| i.len().div_ceil(3) * 4 + 1).sum());
    for image in &data.images {
        base64(image, &mut images);
        images.push('\n');
    }
    fill(
        PAGE,
        &[
            ("{{TITLE}}", &html_text(title)),
            ("{{RENDERER}}", RENDERER_JS),
            ("{{HEADER}}", &header),
            ("{{COLUMNS}}", &columns),
            ("{{IMAGES}}", &images),
        ],
    )
}

/// The chart's data of the tracks `query` keeps (see [`html`]).
pub fn data(analysis: &Analysis, query: &Query, title: &str) -> ChartData {
    data_with_page(analysis, query, title, None)
}

/// The chart's data, with the page's tracks (see [`html_with_page`]).
pub fn data_with_page(analysis: &Analysis, query: &Query, title: &str, page: Option<&PageTracks>) -> ChartData {
    let origin = if analysis.bounds().min.is_finite() {
        analysis.bounds().min
    } else {
        Micros::ZERO
    };
    let generic = analysis.meta().as_ref().is_some_and(|m| m.trace_is_generic);
    let mut tables = Tables::new(generic);
    let mut causes = causes::Causes::of(analysis);
    let (lanes, (first, last)) = build_lanes(analysis, query, (origin, generic), &mut tables, &mut causes);
    // The panel's order: by kind of thread, then the busiest first.
    let mut order: Vec<usize> = (0..lanes.len()).collect();
    order.sort_by_key(|&i| (lanes[i].order, std::cmp::Reverse(lanes[i].columns.start.len())));
    // Each lane's place in the chart, by the place it was made in.
    let mut place_of = vec![0; lanes.len()];
    for (place, &made) in order.iter().enumerate() {
        place_of[made] = index(place);
    }
    let mut lanes: Vec<Option<Lane<'_>>> = lanes.into_iter().map(Some).collect();
    let lanes: Vec<Lane<'_>> = order.iter().filter_map(|&i| lanes[i].take()).collect();
    // Room for every column at once (32 bytes a node, and the padding to
    // 8 bytes of two columns of u32 a lane), rather than grown by doubling.
    let mut columns = Vec::with_capacity(lanes.iter().map(|l| l.columns.start.len() * 32 + 8).sum());
    let mut lanes_json = String::new();
    for (i, lane) in lanes.iter().enumerate() {
        if i > 0 {
            lanes_json.push(',');
        }
        lane.write(&mut columns, &mut lanes_json);
    }
    let mut causes_json = String::new();
    causes::write_causes(
        &causes.charted_links(&place_of),
        &causes.charted_warnings(&place_of),
        &mut columns,
        &mut causes_json,
    );

    let mut header = String::with_capacity(lanes_json.len() + tables.strings.len() * 32 + 1024);
    header.push_str("{\"format\":\"tracekit-chart\",\"version\":");
    header.push_str(itoa::Buffer::new().format(FORMAT_VERSION));
    header.push_str(",\"title\":");
    write_json_string(&mut header, title);
    header.push_str(",\"input\":");
    write_json_string(&mut header, kind_name(analysis.kind()));
    header.push_str(",\"origin\":");
    write_json_number(&mut header, origin.0);
    let range = analysis.bounds().range().0;
    header.push_str(",\"bounds\":");
    if range.is_finite() {
        header.push_str("[0,");
        write_json_number(&mut header, range);
        header.push(']');
    } else {
        header.push_str("null");
    }
    let (from, to) = first_view(query, range, (first, last));
    header.push_str(",\"view\":[");
    write_json_number(&mut header, from);
    header.push(',');
    write_json_number(&mut header, to);
    header.push_str("],\"generic\":");
    header.push_str(if generic { "true" } else { "false" });
    tables.write(&mut header);
    header.push_str(",\"lanes\":[");
    header.push_str(&lanes_json);
    header.push(']');
    header.push_str(&causes_json);
    let mut images = Vec::new();
    match page.filter(|p| !p.is_empty()) {
        Some(page) => page::write_page(&mut header, page, origin, &mut images),
        None => header.push_str(",\"page\":null"),
    }
    header.push_str(",\"bytes\":");
    header.push_str(itoa::Buffer::new().format(columns.len()));
    header.push('}');
    ChartData {
        header,
        columns,
        images,
    }
}

/// Each kept thread's lane, in the tracks' order, noting the causes of its
/// nodes; and the span of all their nodes (µs from `origin`).
fn build_lanes<'a>(
    analysis: &'a Analysis,
    query: &Query,
    (origin, generic): (Micros, bool),
    tables: &mut Tables,
    causes: &mut causes::Causes,
) -> (Vec<Lane<'a>>, (f64, f64)) {
    let interner = analysis.strings();
    let kept = query.kept_threads(analysis);
    let mut lanes = Vec::new();
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    for (pid, process) in analysis.process_tracks() {
        for (tid, track) in &process.threads {
            if kept.as_ref().is_some_and(|k| !k.contains(&(*pid, *tid))) {
                continue;
            }
            let mut columns = LaneColumns::with_capacity(if query.keeps_every_node() { track.nodes.len() } else { 0 });
            let mut labels = tables.of_thread(track);
            let lane = index(lanes.len());
            let calls = causes.calls_of(*pid, *tid).cloned();
            let mut details = Vec::new();
            for (position, node) in query.positioned_nodes(track, origin) {
                if !causes.is_empty() {
                    let at = index(columns.start.len());
                    causes.saw(node, position, (*pid, *tid), calls.as_ref(), lane, at);
                }
                let start = (node.ts() - origin).0;
                let dur = node.dur().unwrap_or(Micros::ZERO).0;
                first = first.min(start);
                last = last.max(start + dur);
                columns.start.push(start);
                columns.dur.push(dur);
                columns.self_time.push(node.self_time().map_or(f64::NAN, |s| s.0));
                columns.depth.push(node.depth());
                columns.label.push(labels.label(analysis, &node.kind()));
                if let NodeKind::Event { name, .. } = node.kind() {
                    let detail = node_detail(track, &node.kind(), interner.resolve(name), Urls::Full);
                    details.extend(detail.map(|d| (columns.start.len() - 1, d)));
                }
            }
            if columns.start.is_empty() {
                continue;
            }
            let url = process.url.map(|u| interner.resolve(u));
            let thread = track.name.as_deref();
            lanes.push(Lane {
                order: lane_order(generic, thread, process.is_on_main_frame, url),
                // DevTools leaves out these threads unless it shows all
                // events: their lanes start folded.
                folded: !generic && thread.is_some_and(|t| HIDDEN_THREAD_NAMES.contains(&t)),
                pid: pid.to_js_string(interner),
                tid: tid.to_js_string(interner),
                process: analysis.process_name(*pid),
                url,
                main_frame: process.is_on_main_frame,
                thread,
                columns,
                details,
            });
        }
    }
    (lanes, (first, last))
}

/// The first view (and Reset's), µs from the origin: the window asked
/// for, its open ends at the trace's bounds (`range`), else the bounds,
/// else (a trace without any) the span of the nodes.
fn first_view(query: &Query, range: f64, (first, last): (f64, f64)) -> (f64, f64) {
    let (from, to) = if range.is_finite() { (0.0, range) } else { (first, last) };
    let (from, to) = match query.window() {
        Some(window) => (
            if window.start().is_finite() {
                window.start().to_micros().0
            } else {
                from
            },
            if window.end().is_finite() {
                window.end().to_micros().0
            } else {
                to
            },
        ),
        None => (from, to),
    };
    if from.is_finite() && to.is_finite() && to > from {
        (from, to)
    } else {
        (0.0, 1000.0)
    }
}

/// Threads the panel leaves out of its flame chart (DevTools'
/// `HIDDEN_THREAD_NAMES`) unless it shows all events.
const HIDDEN_THREAD_NAMES: [&str; 4] = ["Chrome_ChildIOThread", "Compositor", "GpuMemoryThread", "PerfettoTrace"];

/// Where the panel puts a thread's track (DevTools' `threadTrackOrder`
/// of its thread appenders): the main thread of the main frame first
/// (after it, those of `about:` and `chrome:` pages), other frames' main
/// threads, workers, rasterizers, the thread pool, the rest. In a generic
/// trace every thread is of the rest.
fn lane_order(generic: bool, thread: Option<&str>, main_frame: bool, url: Option<&str>) -> u8 {
    let thread = thread.unwrap_or_default();
    if generic {
        return 7;
    }
    match thread {
        "CrRendererMain" if main_frame => {
            let url = url.unwrap_or_default();
            if url.starts_with("about:") || url.starts_with("chrome:") {
                2
            } else {
                0
            }
        }
        "CrRendererMain" => 1,
        "DedicatedWorker thread" => 3,
        _ if thread.starts_with("CompositorTileWorker") => 4,
        _ if thread.starts_with("ThreadPool") => 5,
        _ => 7,
    }
}

/// A thread's lane: who it is, and its nodes.
struct Lane<'a> {
    order: u8,
    folded: bool,
    pid: String,
    tid: String,
    process: Option<&'a str>,
    url: Option<&'a str>,
    main_frame: bool,
    thread: Option<&'a str>,
    columns: LaneColumns,
    /// What tells some events apart (`crate::detail`), by node.
    details: Vec<(usize, String)>,
}

impl Lane<'_> {
    /// Writes the lane's entry of the header, and its columns to `bytes`.
    fn write(&self, bytes: &mut Vec<u8>, header: &mut String) {
        header.push_str("{\"pid\":");
        write_json_string(header, &self.pid);
        header.push_str(",\"tid\":");
        write_json_string(header, &self.tid);
        header.push_str(",\"process\":");
        write_optional_string(header, self.process);
        header.push_str(",\"url\":");
        write_optional_string(header, self.url);
        header.push_str(",\"mainFrame\":");
        header.push_str(if self.main_frame { "true" } else { "false" });
        header.push_str(",\"thread\":");
        write_optional_string(header, self.thread);
        header.push_str(",\"folded\":");
        header.push_str(if self.folded { "true" } else { "false" });
        header.push_str(",\"nodes\":");
        header.push_str(itoa::Buffer::new().format(self.columns.start.len()));
        for (i, (node, detail)) in self.details.iter().enumerate() {
            header.push_str(if i == 0 { ",\"details\":{\"" } else { ",\"" });
            header.push_str(itoa::Buffer::new().format(*node));
            header.push_str("\":");
            write_json_string(header, detail);
        }
        if !self.details.is_empty() {
            header.push('}');
        }
        header.push_str(",\"columns\":");
        self.columns.write(bytes, header);
        header.push('}');
    }
}

/// An index into a table, as the data stores it: tables never have 2^32
/// entries (a thread has at most `max_nodes` nodes), so this saturates
/// rather than wraps if one ever did.
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn write_optional_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => write_json_string(out, s),
        None => out.push_str("null"),
    }
}

/// What tells two labels apart: an event's name, category and phase (its
/// colour and whether it is drawn depend on them), a JS call's function
/// and location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum LabelKey {
    Event {
        name: Sym,
        cat: Sym,
        ph: u8,
    },
    Call {
        function: Sym,
        url: Sym,
        script: Sym,
        line: Option<u64>,
        column: Option<u64>,
    },
    /// A JS call whose frame is missing (should not happen).
    UnknownCall,
}

/// The tables the nodes refer to: strings, colours and labels (a label
/// is what a node shows: its name, location, colour, category).
struct Tables {
    generic: bool,
    strings: IndexSet<String>,
    colors: IndexSet<String>,
    labels: AHashMap<LabelKey, u32>,
    /// The label of the last event of each name ([`Sym`]) looked up, with
    /// its category and phase: most events of a name have the same, and
    /// are found here without hashing their key.
    by_event_name: Vec<Option<(Sym, u8, u32)>>,
    name: Vec<u32>,
    url: Vec<u32>,
    line: Vec<f64>,
    column: Vec<f64>,
    color: Vec<u32>,
    category: Vec<u32>,
    js: Vec<bool>,
    drawn: Vec<bool>,
}

impl Tables {
    fn new(generic: bool) -> Tables {
        let mut tables = Tables {
            generic,
            strings: IndexSet::new(),
            colors: IndexSet::new(),
            labels: AHashMap::new(),
            by_event_name: Vec::new(),
            name: Vec::new(),
            url: Vec::new(),
            line: Vec::new(),
            column: Vec::new(),
            color: Vec::new(),
            category: Vec::new(),
            js: Vec::new(),
            drawn: Vec::new(),
        };
        // String 0 is the empty string: "no URL".
        tables.string("");
        tables
    }

    fn string(&mut self, s: &str) -> u32 {
        match self.strings.get_index_of(s) {
            Some(i) => index(i),
            None => index(self.strings.insert_full(s.to_owned()).0),
        }
    }

    fn color(&mut self, css: String) -> u32 {
        index(self.colors.insert_full(css).0)
    }

    /// The labels of a thread's nodes.
    fn of_thread<'t>(&'t mut self, track: &'t ThreadTrack) -> ThreadLabels<'t> {
        ThreadLabels {
            by_js_frame: vec![None; track.js_frames.len()],
            tables: self,
            track,
        }
    }

    /// The label of a node, added to the tables the first time.
    fn label(&mut self, analysis: &Analysis, track: &ThreadTrack, kind: &NodeKind) -> u32 {
        let interner = analysis.strings();
        let frame = track.js_frame(kind).map(|js| js.call_frame);
        let key = match (kind, frame) {
            (NodeKind::Event { name, cat, ph, .. }, _) => LabelKey::Event {
                name: *name,
                cat: *cat,
                ph: ph.0,
            },
            (NodeKind::Call { .. }, Some(f)) => LabelKey::Call {
                function: f.function_name,
                url: f.url,
                script: f.script_id,
                line: f.line_number.map(f64::to_bits),
                column: f.column_number.map(f64::to_bits),
            },
            (NodeKind::Call { .. }, None) => LabelKey::UnknownCall,
        };
        if let Some(&label) = self.labels.get(&key) {
            return label;
        }
        let (name, url, line, column, color, category, js, drawn) = match (kind, frame) {
            (NodeKind::Event { name, cat, ph, .. }, _) => {
                let name = interner.resolve(*name);
                let category = styles::event_category(name);
                let color = if self.generic {
                    generic_color(name)
                } else {
                    category.color().to_owned()
                };
                let drawn = self.generic || styles::in_timeline(name, interner.resolve(*cat), *ph);
                (name, "", None, None, color, category, false, drawn)
            }
            (NodeKind::Call { .. }, frame) => {
                let function = frame.map_or("js ?", |f| interner.resolve(f.function_name));
                let url = frame.map_or("", |f| interner.resolve(f.url));
                let color = if self.generic {
                    // A generic trace colours every entry by its name, and
                    // a JS call's is `ProfileCall`.
                    generic_color("ProfileCall")
                } else {
                    match (function, frame.map(|f| interner.resolve(f.script_id))) {
                        ("(idle)", _) => Category::Idle.color().to_owned(),
                        ("(program)", _) => Category::Other.color().to_owned(),
                        // A frame that matches no script.
                        (_, Some("0") | None) => Category::Scripting.color().to_owned(),
                        _ => script_color(url),
                    }
                };
                let name = if function.is_empty() { "(anonymous)" } else { function };
                let line = frame.and_then(|f| f.line_number);
                let column = frame.and_then(|f| f.column_number);
                // A JS call is a `ProfileCall`: Scripting, always drawn.
                (name, url, line, column, color, Category::Scripting, true, true)
            }
        };
        let label = index(self.name.len());
        let name = self.string(name);
        let url = self.string(url);
        let color = self.color(color);
        let category = self.string(category.title());
        self.name.push(name);
        self.url.push(url);
        // -1 for an unknown (or negative) line or column, as profiles write.
        let known = |x: Option<f64>| x.filter(|x| x.is_finite() && *x >= 0.0).unwrap_or(-1.0);
        self.line.push(known(line));
        self.column.push(known(column));
        self.color.push(color);
        self.category.push(category);
        self.js.push(js);
        self.drawn.push(drawn);
        self.labels.insert(key, label);
        label
    }

    /// `,"strings":[...],"colors":[...],"labels":{...}` of the header.
    fn write(&self, out: &mut String) {
        out.push_str(",\"strings\":[");
        for (i, s) in self.strings.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json_string(out, s);
        }
        out.push_str("],\"colors\":[");
        for (i, s) in self.colors.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json_string(out, s);
        }
        out.push_str("],\"labels\":{");
        let numbers = |out: &mut String, key: &str, values: &mut dyn Iterator<Item = f64>| {
            out.push('"');
            out.push_str(key);
            out.push_str("\":[");
            for (i, x) in values.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_number(out, x);
            }
            out.push(']');
        };
        let flag = |b: &bool| if *b { 1.0 } else { 0.0 };
        numbers(out, "name", &mut self.name.iter().map(|&x| f64::from(x)));
        out.push(',');
        numbers(out, "url", &mut self.url.iter().map(|&x| f64::from(x)));
        out.push(',');
        numbers(out, "line", &mut self.line.iter().copied());
        out.push(',');
        numbers(out, "column", &mut self.column.iter().copied());
        out.push(',');
        numbers(out, "color", &mut self.color.iter().map(|&x| f64::from(x)));
        out.push(',');
        numbers(out, "category", &mut self.category.iter().map(|&x| f64::from(x)));
        out.push(',');
        numbers(out, "js", &mut self.js.iter().map(flag));
        out.push(',');
        numbers(out, "drawn", &mut self.drawn.iter().map(flag));
        out.push('}');
    }
}

/// The labels of one thread's nodes: those of [`Tables`], found for most
/// nodes in a table by their JS function (a profile node's index) or
/// event name, without making and hashing their [`LabelKey`].
struct ThreadLabels<'t> {
    tables: &'t mut Tables,
    track: &'t ThreadTrack,
    /// The label of each of the thread's JS functions, by index into its
    /// `js_frames`, once looked up.
    by_js_frame: Vec<Option<u32>>,
}

impl ThreadLabels<'_> {
    fn label(&mut self, analysis: &Analysis, kind: &NodeKind) -> u32 {
        match *kind {
            NodeKind::Call { frame } => match self.by_js_frame.get(frame as usize) {
                Some(Some(label)) => *label,
                Some(None) => {
                    let label = self.tables.label(analysis, self.track, kind);
                    self.by_js_frame[frame as usize] = Some(label);
                    label
                }
                None => self.tables.label(analysis, self.track, kind),
            },
            NodeKind::Event { name, cat, ph, .. } => {
                let at = name.0 as usize;
                if let Some(Some((known_cat, known_ph, label))) = self.tables.by_event_name.get(at) {
                    if (*known_cat, *known_ph) == (cat, ph.0) {
                        return *label;
                    }
                }
                let label = self.tables.label(analysis, self.track, kind);
                if at >= self.tables.by_event_name.len() {
                    self.tables.by_event_name.resize(at + 1, None);
                }
                self.tables.by_event_name[at] = Some((cat, ph.0, label));
                label
            }
        }
    }
}

/// The columns of one lane, a value per node in pre-order.
struct LaneColumns {
    start: Vec<f64>,
    dur: Vec<f64>,
    self_time: Vec<f64>,
    depth: Vec<u32>,
    label: Vec<u32>,
}

impl LaneColumns {
    /// Columns with room for `nodes` nodes.
    fn with_capacity(nodes: usize) -> LaneColumns {
        LaneColumns {
            start: Vec::with_capacity(nodes),
            dur: Vec::with_capacity(nodes),
            self_time: Vec::with_capacity(nodes),
            depth: Vec::with_capacity(nodes),
            label: Vec::with_capacity(nodes),
        }
    }

    /// Appends the columns to `bytes` (each at a multiple of 8 bytes, so
    /// that the renderer can view them in place as typed arrays), and
    /// writes where they are to `header` as a JSON object.
    fn write(&self, bytes: &mut Vec<u8>, header: &mut String) {
        header.push('{');
        let mut float_column = |key: &str, values: &[f64], header: &mut String| {
            align(bytes);
            column_entry(header, key, "f64", bytes.len());
            for x in values {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
            header.push(',');
        };
        float_column("start", &self.start, header);
        float_column("dur", &self.dur, header);
        float_column("self", &self.self_time, header);
        int_column(bytes, header, "depth", &self.depth);
        header.push(',');
        int_column(bytes, header, "label", &self.label);
        header.push('}');
    }
}

/// Pads `bytes` to a multiple of 8.
fn align(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(8), 0);
}

fn column_entry(header: &mut String, key: &str, kind: &str, offset: usize) {
    header.push('"');
    header.push_str(key);
    header.push_str("\":{\"type\":\"");
    header.push_str(kind);
    header.push_str("\",\"offset\":");
    header.push_str(itoa::Buffer::new().format(offset));
    header.push('}');
}

/// Writes integers in the narrowest of `u8`, `u16` and `u32` that holds
/// them all: most depths fit a byte, most label tables two.
fn int_column(bytes: &mut Vec<u8>, header: &mut String, key: &str, values: &[u32]) {
    align(bytes);
    let max = values.iter().copied().max().unwrap_or(0);
    if u8::try_from(max).is_ok() {
        column_entry(header, key, "u8", bytes.len());
        bytes.extend(values.iter().map(|&x| u8::try_from(x).unwrap_or(u8::MAX)));
    } else if u16::try_from(max).is_ok() {
        column_entry(header, key, "u16", bytes.len());
        for &x in values {
            bytes.extend_from_slice(&u16::try_from(x).unwrap_or(u16::MAX).to_le_bytes());
        }
    } else {
        column_entry(header, key, "u32", bytes.len());
        for &x in values {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
}

/// `template` with each placeholder replaced by its value; placeholders
/// are looked for in the template only, never in the values put in.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut at: Vec<(usize, &str, &str)> = values
        .iter()
        .filter_map(|(key, value)| template.find(key).map(|i| (i, *key, *value)))
        .collect();
    at.sort_unstable_by_key(|(i, _, _)| *i);
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut from = 0;
    for (i, key, value) in at {
        out.push_str(&template[from..i]);
        out.push_str(value);
        from = i + key.len();
    }
    out.push_str(&template[from..]);
    out
}

/// Text for an HTML element's content or attribute.
fn html_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
