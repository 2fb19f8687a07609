//! The page's tracks of the chart: what the Performance panel shows above
//! the threads (network requests, frames, screenshots, timings,
//! interactions, layout shifts), as plain data that callers fill from the
//! handlers of their choice, and its `page` section of the header
//! (`docs/chart.md`).
//!
//! Nothing here reads a trace: [`PageTracks`] is what the chart draws,
//! nothing more, so that the chart does not depend on the handlers' types.
//! Times are [`Micros`] in the trace's clock (the events' `ts`), as the
//! analysis has them; the header writes them from the chart's origin.

use ahash::AHashMap;
use tracekit_engine::support::jsnum::write_json_number;
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::Micros;

use super::timing_color;

/// What the Performance panel shows above the thread lanes. Every list
/// may be empty: a track with nothing is left out of the chart. The
/// order of the items does not matter (the chart sorts them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageTracks {
    /// The Network track: one bar per request, packed into rows.
    pub network: Vec<NetworkRequest>,
    /// The Frames track: one box per frame.
    pub frames: Vec<Frame>,
    /// The Screenshots track (the filmstrip), and the screenshot shown
    /// when the pointer is over the chart.
    pub screenshots: Vec<Screenshot>,
    /// The Timings track: performance marks and measures, console
    /// timings and `console.timeStamp`s.
    pub timings: Vec<Timing>,
    /// The page-load markers (FP, FCP, LCP, DCL, L): vertical lines across
    /// the chart, labelled in the Timings track.
    pub markers: Vec<PageLoadMarker>,
    /// The Interactions track: one bar per interaction.
    pub interactions: Vec<Interaction>,
    /// The Layout shifts track: clusters of shifts.
    pub layout_shifts: Vec<LayoutShiftCluster>,
    /// The GPU track: the tasks of the GPU process' main thread.
    pub gpu: Vec<GpuTask>,
    /// The memory counters graph (the panel's Memory checkbox): one
    /// renderer's `UpdateCounters`, in time order.
    pub memory: Vec<MemorySample>,
    /// The tracks pages and extensions add (the extensibility API), in the
    /// order of their first entries.
    pub extensions: Vec<ExtensionTrack>,
    /// The markers pages and extensions add: vertical lines across the
    /// chart, labelled in the Timings track.
    pub extension_markers: Vec<ExtensionMarker>,
}

/// A task of the GPU process' main thread (`GPUTask`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuTask {
    /// When it began.
    pub start: Micros,
    /// How long it ran.
    pub dur: Micros,
}

/// What a renderer's memory counters said at a time (an `UpdateCounters`
/// event); a counter the event did not give is `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemorySample {
    /// When.
    pub time: Micros,
    /// Bytes of JS heap in use.
    pub js_heap: Option<f64>,
    /// Documents.
    pub documents: Option<f64>,
    /// DOM nodes.
    pub nodes: Option<f64>,
    /// JS event listeners.
    pub listeners: Option<f64>,
}

/// A track that a page or an extension adds: a track of its own, or a
/// group of tracks (drawn as one track with a row of headers per track).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionTrack {
    /// Its name: the group's, or the track's.
    pub name: String,
    /// Whether it is a group of tracks.
    pub group: bool,
    /// Its tracks (one when not a group), in the order of their first
    /// entries.
    pub tracks: Vec<ExtensionSubTrack>,
}

/// One track of an [`ExtensionTrack`], with its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionSubTrack {
    /// Its name.
    pub name: String,
    /// Its entries, by time.
    pub entries: Vec<ExtensionEntry>,
}

/// An entry of an extension track (a `performance.measure` or
/// `console.timeStamp` with a track).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionEntry {
    /// Its label.
    pub name: String,
    /// When it began.
    pub start: Micros,
    /// How long it lasted.
    pub dur: Micros,
    /// Its colour (CSS; [`extension_color`](super::extension_color) of the colour it names).
    pub color: String,
    /// How many entries of its track it is nested in, when the track's
    /// entries nest (the handler's tree); `None` when they do not (the
    /// chart then packs them into rows).
    pub depth: Option<u32>,
    /// Its `tooltipText`, when it gives one.
    pub tooltip: Option<String>,
}

/// A marker a page or an extension adds (a `performance.mark` whose
/// `devtools` detail says `dataType: "marker"`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionMarker {
    /// Its label.
    pub name: String,
    /// When.
    pub time: Micros,
    /// Its colour (CSS).
    pub color: String,
}

impl PageTracks {
    /// Whether there is nothing to draw (the chart is then as without
    /// page tracks).
    pub fn is_empty(&self) -> bool {
        self.network.is_empty()
            && self.frames.is_empty()
            && self.screenshots.is_empty()
            && self.timings.is_empty()
            && self.markers.is_empty()
            && self.interactions.is_empty()
            && self.layout_shifts.is_empty()
            && self.gpu.is_empty()
            && self.memory.is_empty()
            && self.extensions.is_empty()
            && self.extension_markers.is_empty()
    }
}

/// One network request, with the times of its phases (the panel's
/// `SyntheticNetworkRequest`): `start <= send_start <= download_start <=
/// finish <= end`. The bar runs from `start` to `end`: a thin line while
/// queued and connecting (`start..send_start`), a light box while the
/// request is sent and the response awaited (`send_start..download_start`),
/// a solid box while downloading (`download_start..finish`), a thin line
/// until the main thread handles it (`finish..end`).
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkRequest {
    /// The URL requested.
    pub url: String,
    /// The kind of resource: the bar's colour.
    pub kind: ResourceKind,
    /// The priority it ended with, as the trace writes it (`VeryHigh`,
    /// `High`, `Medium`, `Low`, `VeryLow`); the tooltip shows the panel's
    /// words (Highest ... Lowest).
    pub priority: String,
    /// The priority it was requested with, when it changed
    /// (`None`: the same as `priority`).
    pub initial_priority: Option<String>,
    /// The HTTP status code (`None`: unknown, e.g. the request failed).
    pub status: Option<u16>,
    /// The response's MIME type (empty when unknown).
    pub mime_type: String,
    /// Bytes received over the network (`None`: unknown).
    pub transfer_size: Option<u64>,
    /// Bytes of the resource, decoded (`None`: unknown).
    pub decoded_size: Option<u64>,
    /// Whether the request blocks rendering (the trace's `renderBlocking`
    /// is `blocking` or `in_body_parser_blocking`).
    pub render_blocking: bool,
    /// Whether the response came from the cache.
    pub from_cache: bool,
    /// When the request was queued (the request's `ts`).
    pub start: Micros,
    /// When it was sent.
    pub send_start: Micros,
    /// When the response's headers came (the download starts).
    pub download_start: Micros,
    /// When its last byte came.
    pub finish: Micros,
    /// When the request ended on the main thread (`ts + dur`).
    pub end: Micros,
}

/// The kind of a network request's resource, as the panel colours it (its
/// `NetworkCategory`: from the request's `resourceType`, or its MIME type
/// for traces without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// An HTML document (`#4c8df6`).
    Document,
    /// A script, or a web socket (`#facc15`).
    Script,
    /// A style sheet (`#bf67ff`).
    Stylesheet,
    /// An image (`#6dd58c`).
    Image,
    /// Audio or video (`#1ea446`).
    Media,
    /// A font (`#009dc1`).
    Font,
    /// WebAssembly (`#8d7fff`).
    Wasm,
    /// Anything else: fetches, XHRs, pings... (`#c7c7c7`).
    Other,
}

impl ResourceKind {
    /// The kind's name in the header, and the panel's label for it.
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::Document => "Doc",
            ResourceKind::Script => "JS",
            ResourceKind::Stylesheet => "CSS",
            ResourceKind::Image => "Img",
            ResourceKind::Media => "Media",
            ResourceKind::Font => "Font",
            ResourceKind::Wasm => "Wasm",
            ResourceKind::Other => "Other",
        }
    }

    /// The panel's colour for the kind (its light theme's `--app-color-*`).
    pub fn color(self) -> &'static str {
        match self {
            ResourceKind::Document => "#4c8df6",
            ResourceKind::Script => "#facc15",
            ResourceKind::Stylesheet => "#bf67ff",
            ResourceKind::Image => "#6dd58c",
            ResourceKind::Media => "#1ea446",
            ResourceKind::Font => "#009dc1",
            ResourceKind::Wasm => "#8d7fff",
            ResourceKind::Other => "#c7c7c7",
        }
    }

    /// The kind of a request by its `resourceType` (the protocol's
    /// `Network.ResourceType`, e.g. `Script`) when the trace has one, else
    /// by its MIME type, as the panel decides.
    pub fn of(resource_type: Option<&str>, mime_type: &str) -> ResourceKind {
        match resource_type {
            Some("Document") => return ResourceKind::Document,
            Some("Stylesheet") => return ResourceKind::Stylesheet,
            Some("Image") => return ResourceKind::Image,
            Some("Media") => return ResourceKind::Media,
            Some("Font") => return ResourceKind::Font,
            Some("Script" | "WebSocket") => return ResourceKind::Script,
            Some(_) => return ResourceKind::Other,
            None => {}
        }
        let m = mime_type;
        if m.is_empty() {
            ResourceKind::Other
        } else if m.ends_with("/css") {
            ResourceKind::Stylesheet
        } else if m.ends_with("javascript") {
            ResourceKind::Script
        } else if m.starts_with("image/") {
            ResourceKind::Image
        } else if m.starts_with("audio/") || m.starts_with("video/") {
            ResourceKind::Media
        } else if m.starts_with("font/") || m.contains("font-") {
            ResourceKind::Font
        } else if m == "application/wasm" {
            ResourceKind::Wasm
        } else if m.starts_with("text/") {
            ResourceKind::Document
        } else {
            ResourceKind::Other
        }
    }
}

/// A frame of the Frames track (the panel's `LegacyTimelineFrame`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// When the frame began.
    pub start: Micros,
    /// When it ended (the next frame's start).
    pub end: Micros,
    /// What became of it: the box's colour.
    pub state: FrameState,
}

/// What became of a frame, as the panel colours its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameState {
    /// Presented in time (`#d7f0d1`).
    Good,
    /// Nothing to draw (white).
    Idle,
    /// Partly presented (`#f0e442`, white dashes over it).
    Partial,
    /// Dropped (`#f08080`, dense white stripes over it).
    Dropped,
}

impl FrameState {
    /// The state's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            FrameState::Good => "good",
            FrameState::Idle => "idle",
            FrameState::Partial => "partial",
            FrameState::Dropped => "dropped",
        }
    }
}

/// A screenshot: JPEG bytes (the `Screenshot` event's `snapshot`,
/// base64-decoded), shown from `time` to the next screenshot. A page holds
/// each distinct image once, however many screenshots show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// When the screen looked like this (the event's `ts`).
    pub time: Micros,
    /// The image, as JPEG.
    pub jpeg: Vec<u8>,
}

/// A user timing or console timing of the Timings track.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// What made it.
    pub kind: TimingKind,
    /// Its name (a timestamp's message).
    pub name: String,
    /// When it began (a mark's or timestamp's time).
    pub start: Micros,
    /// How long it took ([`Micros::ZERO`] for a mark or a timestamp).
    pub dur: Micros,
}

/// What made a [`Timing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimingKind {
    /// `performance.mark()`: an instant, titled `[mark]: NAME`.
    Mark,
    /// `performance.measure()`: a bar.
    Measure,
    /// `console.time()` .. `console.timeEnd()`: a bar.
    ConsoleTime,
    /// `console.timeStamp()`: an instant (or a bar when given a start and
    /// an end), titled `TimeStamp: MESSAGE`.
    TimeStamp,
}

impl TimingKind {
    /// The kind's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            TimingKind::Mark => "mark",
            TimingKind::Measure => "measure",
            TimingKind::ConsoleTime => "console",
            TimingKind::TimeStamp => "timestamp",
        }
    }
}

/// A page-load marker: a dashed vertical line across the chart, labelled
/// in the Timings track.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageLoadMarker {
    /// Which one.
    pub kind: MarkerKind,
    /// When (the event's `ts`).
    pub time: Micros,
}

/// The page-load markers the panel draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkerKind {
    /// First Paint (`firstPaint`).
    FirstPaint,
    /// First Contentful Paint (`firstContentfulPaint`).
    FirstContentfulPaint,
    /// Largest Contentful Paint (`largestContentfulPaint::Candidate`).
    LargestContentfulPaint,
    /// `DOMContentLoaded` (`MarkDOMContent`).
    DomContentLoaded,
    /// The load event (`MarkLoad`).
    Load,
}

impl MarkerKind {
    /// The panel's label: `FP`, `FCP`, `LCP`, `DCL`, `L`.
    pub fn label(self) -> &'static str {
        match self {
            MarkerKind::FirstPaint => "FP",
            MarkerKind::FirstContentfulPaint => "FCP",
            MarkerKind::LargestContentfulPaint => "LCP",
            MarkerKind::DomContentLoaded => "DCL",
            MarkerKind::Load => "L",
        }
    }

    /// The panel's colour for the marker.
    pub fn color(self) -> &'static str {
        match self {
            MarkerKind::FirstPaint => "#228847",
            MarkerKind::FirstContentfulPaint => "#1a6937",
            MarkerKind::LargestContentfulPaint => "#1a3422",
            MarkerKind::DomContentLoaded => "#0867cb",
            MarkerKind::Load => "#b31412",
        }
    }

    /// The marker's name in the tooltip.
    pub fn title(self) -> &'static str {
        match self {
            MarkerKind::FirstPaint => "First Paint",
            MarkerKind::FirstContentfulPaint => "First Contentful Paint",
            MarkerKind::LargestContentfulPaint => "Largest Contentful Paint",
            MarkerKind::DomContentLoaded => "DOMContentLoaded event",
            MarkerKind::Load => "Load event",
        }
    }
}

/// An interaction of the Interactions track (the panel's
/// `SyntheticInteractionPair`, those it shows: not nested in another):
/// its input delay (`start..processing_start`) and presentation delay
/// (`processing_end..end`) drawn as whiskers around the processing box.
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    /// Pointer, keyboard or other: the bar's title.
    pub kind: InteractionKind,
    /// The event's type (`click`, `pointerdown`, `keydown`...), for the
    /// tooltip.
    pub event_type: String,
    /// The trace's `interactionId` (the panel colours by title and id).
    pub interaction_id: u64,
    /// When the input came.
    pub start: Micros,
    /// When its handlers began.
    pub processing_start: Micros,
    /// When its handlers ended.
    pub processing_end: Micros,
    /// When the next frame was presented.
    pub end: Micros,
}

/// The category of an interaction, as the panel titles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InteractionKind {
    /// `pointerdown`, `pointerup`, `click`...: "Pointer".
    Pointer,
    /// `keydown`, `keypress`, `keyup`: "Keyboard".
    Keyboard,
    /// Anything else: "Other".
    Other,
}

impl InteractionKind {
    /// The panel's title for the interaction.
    pub fn title(self) -> &'static str {
        match self {
            InteractionKind::Pointer => "Pointer",
            InteractionKind::Keyboard => "Keyboard",
            InteractionKind::Other => "Other",
        }
    }
}

/// A cluster of layout shifts: a thin bar from its first shift to its
/// end, a diamond per shift.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutShiftCluster {
    /// When the cluster began (its first shift).
    pub start: Micros,
    /// When it ended (a second after its last shift, at most five after
    /// its first, or the next navigation).
    pub end: Micros,
    /// Its cumulative score.
    pub score: f64,
    /// Its shifts.
    pub shifts: Vec<LayoutShift>,
}

/// One layout shift: a diamond, larger for a larger score (full size from
/// 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutShift {
    /// When it happened.
    pub time: Micros,
    /// Its weighted score (`weighted_score_delta`).
    pub score: f64,
}

/// Writes `,"page":{...}` of the header (`docs/chart.md`), times in µs
/// from `origin`, and adds each distinct screenshot image to `images`.
pub(super) fn write_page(out: &mut String, page: &PageTracks, origin: Micros, images: &mut Vec<Vec<u8>>) {
    let mut w = Writer { out, origin };
    w.out.push_str(",\"page\":{\"network\":[");
    let mut network: Vec<&NetworkRequest> = page.network.iter().collect();
    network.sort_by(|a, b| a.start.0.total_cmp(&b.start.0).then(a.end.0.total_cmp(&b.end.0)));
    for (i, r) in network.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"url\":");
        write_json_string(w.out, &r.url);
        w.string_field("kind", r.kind.name());
        w.string_field("color", r.kind.color());
        w.string_field("priority", &r.priority);
        w.out.push_str(",\"initialPriority\":");
        write_json_string(w.out, r.initial_priority.as_deref().unwrap_or(&r.priority));
        w.number_field("status", r.status.map(f64::from));
        w.string_field("mimeType", &r.mime_type);
        #[allow(clippy::cast_precision_loss)] // sizes below 2^53
        let size = |s: Option<u64>| s.map(|s| s as f64);
        w.number_field("transferSize", size(r.transfer_size));
        w.number_field("decodedSize", size(r.decoded_size));
        w.bool_field("renderBlocking", r.render_blocking);
        w.bool_field("fromCache", r.from_cache);
        w.time_field("start", r.start);
        w.time_field("sendStart", r.send_start);
        w.time_field("downloadStart", r.download_start);
        w.time_field("finish", r.finish);
        w.time_field("end", r.end);
        w.out.push('}');
    }

    w.out.push_str("],\"frames\":[");
    let mut frames: Vec<&Frame> = page.frames.iter().collect();
    frames.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
    for (i, f) in frames.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"state\":");
        write_json_string(w.out, f.state.name());
        w.time_field("start", f.start);
        w.time_field("end", f.end);
        w.out.push('}');
    }

    w.out.push_str("],\"screenshots\":[");
    let mut screenshots: Vec<&Screenshot> = page.screenshots.iter().collect();
    screenshots.sort_by(|a, b| a.time.0.total_cmp(&b.time.0));
    let mut known: AHashMap<&[u8], usize> = AHashMap::new();
    for (i, s) in screenshots.into_iter().enumerate() {
        w.comma(i);
        let image = *known.entry(&s.jpeg).or_insert_with(|| {
            images.push(s.jpeg.clone());
            images.len() - 1
        });
        w.out.push_str("{\"image\":");
        w.out.push_str(itoa::Buffer::new().format(image));
        w.time_field("time", s.time);
        w.out.push('}');
    }

    write_timelines(&mut w, page);
}

/// The page's tracks of times: timings, markers, interactions and layout
/// shifts (the rest of [`write_page`]).
fn write_timelines(w: &mut Writer<'_>, page: &PageTracks) {
    w.out.push_str("],\"timings\":[");
    // In time order; at one time, bars before instants (a mark then
    // decorates the bottom of its measure), as the panel orders them.
    let mut timings: Vec<&Timing> = page.timings.iter().collect();
    timings.sort_by(|a, b| {
        a.start
            .0
            .total_cmp(&b.start.0)
            .then((a.dur.0 <= 0.0).cmp(&(b.dur.0 <= 0.0)))
            .then(b.dur.0.total_cmp(&a.dur.0))
    });
    for (i, t) in timings.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"kind\":");
        write_json_string(w.out, t.kind.name());
        w.string_field("name", &t.name);
        w.string_field("color", &timing_color(&t.name));
        w.time_field("start", t.start);
        w.out.push_str(",\"dur\":");
        write_json_number(w.out, t.dur.0.max(0.0));
        w.out.push('}');
    }

    w.out.push_str("],\"markers\":[");
    // The page-load markers and those of extensions, by time.
    let mut markers: Vec<(&str, &str, &str, Micros)> = page
        .markers
        .iter()
        .map(|m| (m.kind.label(), m.kind.title(), m.kind.color(), m.time))
        .chain(
            page.extension_markers
                .iter()
                .map(|m| (m.name.as_str(), m.name.as_str(), m.color.as_str(), m.time)),
        )
        .collect();
    markers.sort_by(|a, b| a.3 .0.total_cmp(&b.3 .0));
    for (i, (label, title, color, time)) in markers.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"label\":");
        write_json_string(w.out, label);
        w.string_field("title", title);
        w.string_field("color", color);
        w.time_field("time", time);
        w.out.push('}');
    }

    w.out.push_str("],\"interactions\":[");
    let mut interactions: Vec<&Interaction> = page.interactions.iter().collect();
    interactions.sort_by(|a, b| a.start.0.total_cmp(&b.start.0).then(b.end.0.total_cmp(&a.end.0)));
    for (i, x) in interactions.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"title\":");
        write_json_string(w.out, x.kind.title());
        w.string_field("type", &x.event_type);
        #[allow(clippy::cast_precision_loss)] // ids below 2^53
        w.number_field("id", Some(x.interaction_id as f64));
        let id = format!("{}{}", x.kind.title(), x.interaction_id);
        w.string_field("color", &timing_color(&id));
        w.time_field("start", x.start);
        w.time_field("processingStart", x.processing_start);
        w.time_field("processingEnd", x.processing_end);
        w.time_field("end", x.end);
        w.out.push('}');
    }

    w.out.push_str("],\"layoutShifts\":[");
    let mut clusters: Vec<&LayoutShiftCluster> = page.layout_shifts.iter().collect();
    clusters.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
    for (i, c) in clusters.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"score\":");
        write_json_number(w.out, c.score);
        w.time_field("start", c.start);
        w.time_field("end", c.end);
        w.out.push_str(",\"shifts\":[");
        let mut shifts: Vec<&LayoutShift> = c.shifts.iter().collect();
        shifts.sort_by(|a, b| a.time.0.total_cmp(&b.time.0));
        for (j, s) in shifts.into_iter().enumerate() {
            w.comma(j);
            w.out.push_str("{\"score\":");
            write_json_number(w.out, s.score);
            w.time_field("time", s.time);
            w.out.push('}');
        }
        w.out.push_str("]}");
    }
    w.out.push(']');
    write_system(w, page);
    w.out.push('}');
}

/// One memory counter of a sample (or its time).
type Counter<'a> = dyn Fn(&MemorySample) -> Option<f64> + 'a;

/// The GPU track, the memory counters and the extension tracks: the
/// `gpu`, `memory` and `extensions` members of the page.
fn write_system(w: &mut Writer<'_>, page: &PageTracks) {
    w.out.push_str(",\"gpu\":[");
    let mut gpu: Vec<&GpuTask> = page.gpu.iter().collect();
    gpu.sort_by(|a, b| a.start.0.total_cmp(&b.start.0).then(b.dur.0.total_cmp(&a.dur.0)));
    for (i, t) in gpu.into_iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"start\":");
        write_json_number(w.out, (t.start - w.origin).0);
        w.out.push_str(",\"dur\":");
        write_json_number(w.out, t.dur.0.max(0.0));
        w.out.push('}');
    }

    // The counters as columns: a list of each, in time order.
    w.out.push_str("],\"memory\":{");
    let mut memory: Vec<&MemorySample> = page.memory.iter().collect();
    memory.sort_by(|a, b| a.time.0.total_cmp(&b.time.0));
    let origin = w.origin;
    let columns: [(&str, &Counter<'_>); 5] = [
        ("time", &|m| Some((m.time - origin).0)),
        ("jsHeap", &|m| m.js_heap),
        ("documents", &|m| m.documents),
        ("nodes", &|m| m.nodes),
        ("listeners", &|m| m.listeners),
    ];
    for (c, (key, value)) in columns.iter().enumerate() {
        w.comma(c);
        write_json_string(w.out, key);
        w.out.push_str(":[");
        for (i, m) in memory.iter().enumerate() {
            w.comma(i);
            // An unknown value is null.
            write_json_number(w.out, value(m).unwrap_or(f64::NAN));
        }
        w.out.push(']');
    }

    w.out.push_str("},\"extensions\":[");
    for (i, track) in page.extensions.iter().enumerate() {
        w.comma(i);
        w.out.push_str("{\"name\":");
        write_json_string(w.out, &track.name);
        w.bool_field("group", track.group);
        w.out.push_str(",\"tracks\":[");
        for (j, sub) in track.tracks.iter().enumerate() {
            w.comma(j);
            w.out.push_str("{\"name\":");
            write_json_string(w.out, &sub.name);
            w.out.push_str(",\"entries\":[");
            let mut entries: Vec<&ExtensionEntry> = sub.entries.iter().collect();
            entries.sort_by(|a, b| a.start.0.total_cmp(&b.start.0).then(b.dur.0.total_cmp(&a.dur.0)));
            for (k, e) in entries.into_iter().enumerate() {
                w.comma(k);
                w.out.push_str("{\"name\":");
                write_json_string(w.out, &e.name);
                w.time_field("start", e.start);
                w.out.push_str(",\"dur\":");
                write_json_number(w.out, e.dur.0.max(0.0));
                w.string_field("color", &e.color);
                w.number_field("depth", e.depth.map(f64::from));
                w.out.push_str(",\"tooltip\":");
                match &e.tooltip {
                    Some(t) => write_json_string(w.out, t),
                    None => w.out.push_str("null"),
                }
                w.out.push('}');
            }
            w.out.push_str("]}");
        }
        w.out.push_str("]}");
    }
    w.out.push(']');
}

/// Writes the fields of the page's objects.
struct Writer<'o> {
    out: &'o mut String,
    origin: Micros,
}

impl Writer<'_> {
    fn comma(&mut self, i: usize) {
        if i > 0 {
            self.out.push(',');
        }
    }

    fn key(&mut self, key: &str) {
        self.out.push_str(",\"");
        self.out.push_str(key);
        self.out.push_str("\":");
    }

    fn string_field(&mut self, key: &str, value: &str) {
        self.key(key);
        write_json_string(self.out, value);
    }

    /// A number, `null` when unknown (or not finite).
    fn number_field(&mut self, key: &str, value: Option<f64>) {
        self.key(key);
        write_json_number(self.out, value.unwrap_or(f64::NAN));
    }

    fn bool_field(&mut self, key: &str, value: bool) {
        self.key(key);
        self.out.push_str(if value { "true" } else { "false" });
    }

    /// A time of the trace's clock, in µs from the origin.
    fn time_field(&mut self, key: &str, value: Micros) {
        self.key(key);
        write_json_number(self.out, (value - self.origin).0);
    }
}
