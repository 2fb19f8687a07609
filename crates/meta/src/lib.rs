//! The Meta handler of tracekit: what the trace is about. It finds the
//! trace bounds, the thread names, the browser and GPU processes, the
//! frames and the renderer process of each (with the time window in which
//! that process rendered it), the main frame, the navigations, the
//! viewport, whether the trace is generic (not recorded by DevTools'
//! Performance panel). It mirrors DevTools' `MetaHandler`. The crate also
//! holds the handlers that need the same `args` readers: the frames of
//! the page ([`PageFramesHandler`], DevTools' `PageFramesHandler`), the
//! workers ([`WorkersHandler`]) and the auction worklet processes
//! ([`AuctionWorkletsHandler`]).

mod args;
mod dump;
pub mod navigations;
pub mod page_frames;
pub mod workers;
mod worklets;

use indexmap::IndexMap;
use serde_json::value::RawValue;
use tracekit_events::json::js_truthy;
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Interner, Micros, Phase, Skip, Sym};

pub use navigations::{Navigation, Navigations, SoftNavigation};
pub use page_frames::{PageFrames, PageFramesHandler};
pub use workers::{Workers, WorkersHandler};
pub use worklets::{AuctionWorklets, AuctionWorkletsHandler};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// The span of the trace, in µs in the trace's clock.
///
/// ```
/// # use tracekit_meta::Bounds;
/// # use tracekit_events::Micros;
/// let bounds = Bounds { min: Micros(1000.0), max: Micros(3500.0) };
/// assert_eq!(bounds.range().to_millis().0, 2.5);
/// assert!(!Bounds::EMPTY.range().is_finite());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The start of the trace.
    pub min: Micros,
    /// The end of the trace.
    pub max: Micros,
}

impl Bounds {
    /// Bounds that nothing has widened yet: infinite and empty.
    pub const EMPTY: Bounds = Bounds {
        min: Micros(f64::INFINITY),
        max: Micros(f64::NEG_INFINITY),
    };

    /// How long the trace lasts.
    pub fn range(&self) -> Micros {
        self.max - self.min
    }
}

/// A frame as the browser described it when it committed.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    /// The frame id (`frame`); `None` when the event gave none.
    pub frame: Option<Sym>,
    /// `None` when the event gave no URL (as a string).
    pub url: Option<Sym>,
    /// The renderer process: the frame data's `processId`, or the pid of
    /// the event for `CommitLoad`; [`Id::MISSING`] when absent.
    pub process_id: Id,
    /// The frame's name (`None` when not a string).
    pub name: Option<Sym>,
    /// The frame object as DevTools holds it, as JSON text: the trace's
    /// own object for `TracingStartedInBrowser` and
    /// `FrameCommittedInBrowser`, the one made of a `CommitLoad`'s `frame`,
    /// `name`, `url` and pid otherwise. Kept with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)
    /// only (the data dump writes it), `None` otherwise.
    pub object: Option<Box<str>>,
}

/// The main frame's viewport, from the first
/// `PaintTimingVisualizer::Viewport` event, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewportRect {
    /// Its left edge.
    pub x: f64,
    /// Its top edge.
    pub y: f64,
    /// Its width.
    pub width: f64,
    /// Its height.
    pub height: f64,
}

/// One period in which a process rendered a frame with a given URL.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessWindow {
    /// The frame, its URL and the process.
    pub frame: FrameInfo,
    /// When the process began to render the frame.
    pub min: Micros,
    /// When it stopped (the next window's start less 1 µs, or the end of
    /// the trace).
    pub max: Micros,
}

/// What the Meta handler found.
#[derive(Debug, Clone)]
pub struct MetaData {
    /// The span of the trace: the earliest start and latest end of its
    /// timed events (`B`, `E`, `X`, `I` with a nonzero `ts`, except
    /// `::UMA` ones); the start is `TracingStartedInBrowser`'s time when
    /// there is one.
    pub bounds: Bounds,
    /// The process named `Browser` (or `HeadlessBrowser`).
    pub browser_process_id: Option<Id>,
    /// The thread named `CrBrowserMain`.
    pub browser_thread_id: Option<Id>,
    /// The process named `Gpu` (or `GPU Process`).
    pub gpu_process_id: Option<Id>,
    /// The thread named `CrGpuMain` (whose name, as in DevTools, is not in
    /// `threads_in_process`).
    pub gpu_thread_id: Option<Id>,
    /// The frame id of the main frame, from `TracingStartedInBrowser`.
    pub main_frame_id: Option<Sym>,
    /// The main frame's URL at tracing start, or the URL of its first
    /// navigation when that started within half a second of the trace's
    /// start (the URL at tracing start is often still the previous page's
    /// or `about:blank`).
    pub main_frame_url: Option<Sym>,
    /// By frame id, then by process id: the windows in which that process
    /// rendered that frame (in the order they were seen).
    pub renderer_processes_by_frame: Map<Option<Sym>, Map<Id, Vec<ProcessWindow>>>,
    /// The processes that rendered a top-level frame.
    pub top_level_renderer_ids: Vec<Id>,
    /// `thread_name` metadata by process and thread: `Some(name)`, or `None`
    /// when the event gave no name.
    pub threads_in_process: Map<Id, Map<Id, Option<Sym>>>,
    /// `process_name` metadata by process (the last name given).
    pub process_names: Map<Id, Sym>,
    /// The last `process_name` event of each process, named or not.
    pub process_name_events: Map<Id, EventIndex>,
    /// The last `thread_name` event of each thread, by process and thread
    /// (the same threads as `threads_in_process`).
    pub thread_name_events: Map<Id, Map<Id, EventIndex>>,
    /// By renderer process, then by frame id: the frame as last described.
    pub frame_by_process_id: Map<Id, Map<Option<Sym>, FrameInfo>>,
    /// The navigations of the trace.
    pub navigations: Navigations,
    /// The main frame's viewport.
    pub viewport_rect: Option<ViewportRect>,
    /// The device pixel ratio, from the same event as the viewport.
    pub device_pixel_ratio: Option<f64>,
    /// True unless the trace shows it was recorded by Chrome's DevTools
    /// (`TracingStartedInBrowser`, `TracingStartedInPage`,
    /// `TracingSessionIdForWorker` or a `CpuProfile` event).
    pub trace_is_generic: bool,
    /// DevTools refuses the trace (a `TracingStartedInBrowser` without
    /// frame data, as Chrome 65 and 66 wrote): tracekit loads it as a
    /// generic trace instead.
    pub devtools_refuses: bool,
}

/// The Meta handler (see the crate documentation).
#[derive(Debug)]
pub struct MetaHandler {
    bounds: Bounds,
    tracing_started_at: Option<Micros>,
    browser_process_id: Option<Id>,
    browser_thread_id: Option<Id>,
    gpu_process_id: Option<Id>,
    gpu_thread_id: Option<Id>,
    main_frame_id: Option<Sym>,
    main_frame_url: Option<Sym>,
    renderer_processes_by_frame: Map<Option<Sym>, Map<Id, Vec<ProcessWindow>>>,
    top_level_renderer_ids: Vec<Id>,
    threads_in_process: Map<Id, Map<Id, Option<Sym>>>,
    process_names: Map<Id, Sym>,
    process_name_events: Map<Id, EventIndex>,
    thread_name_events: Map<Id, Map<Id, EventIndex>>,
    frame_by_process_id: Map<Id, Map<Option<Sym>, FrameInfo>>,
    navigations: navigations::NavigationState,
    viewport_seen: bool,
    viewport_rect: Option<ViewportRect>,
    device_pixel_ratio: Option<f64>,
    trace_is_generic: bool,
    devtools_refuses: bool,
}

impl Default for MetaHandler {
    fn default() -> Self {
        Self::new()
    }
}

impl MetaHandler {
    fn new() -> Self {
        MetaHandler {
            bounds: Bounds::EMPTY,
            tracing_started_at: None,
            browser_process_id: None,
            browser_thread_id: None,
            gpu_process_id: None,
            gpu_thread_id: None,
            main_frame_id: None,
            main_frame_url: None,
            renderer_processes_by_frame: Map::default(),
            top_level_renderer_ids: Vec::new(),
            threads_in_process: Map::default(),
            process_names: Map::default(),
            process_name_events: Map::default(),
            thread_name_events: Map::default(),
            frame_by_process_id: Map::default(),
            navigations: navigations::NavigationState::default(),
            viewport_seen: false,
            viewport_rect: None,
            device_pixel_ratio: None,
            trace_is_generic: true,
            devtools_refuses: false,
        }
    }

    fn on_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let all = cx.options.all_handlers;
        let interner = &mut cx.interner;
        let diag = &mut cx.diagnostics;
        let name = event.name;
        if self.trace_is_generic
            && matches!(
                name,
                names::TRACING_STARTED_IN_PAGE
                    | names::TRACING_SESSION_ID_FOR_WORKER
                    | names::TRACING_STARTED_IN_BROWSER
                    | names::CPU_PROFILE
            )
        {
            self.trace_is_generic = false;
        }

        if event.ts != Micros::ZERO
            && matches!(event.ph, Phase::BEGIN | Phase::END | Phase::COMPLETE | Phase::INSTANT)
            && !interner.ends_with_uma(name)
        {
            self.bounds.min = self.bounds.min.min(event.ts);
            self.bounds.max = self.bounds.max.max(event.ts + event.dur.unwrap_or(Micros::ZERO));
        }

        if matches!(name, names::PROCESS_NAME | names::THREAD_NAME)
            && args::name_metadata_breaks_devtools(event, name == names::THREAD_NAME)
        {
            diag.diverge(tracekit_events::Divergence::UnreadableNameMetadata, || {
                format!(
                    "{} event of pid {}, tid {} without a readable name",
                    interner.resolve(name),
                    event.pid.to_js_string(interner),
                    event.tid.to_js_string(interner)
                )
            });
        }

        match name {
            names::PROCESS_NAME => {
                self.process_name_events.insert(event.pid, index);
                let Some(process_name) = args::name_arg(event, interner) else {
                    return;
                };
                self.process_names.insert(event.pid, process_name);
                match interner.resolve(process_name) {
                    "Browser" | "HeadlessBrowser" => self.browser_process_id = Some(event.pid),
                    "Gpu" | "GPU Process" => self.gpu_process_id = Some(event.pid),
                    _ => {}
                }
            }
            names::THREAD_NAME => {
                let thread_name = args::name_arg(event, interner);
                let text = thread_name.map(|s| interner.resolve(s));
                if text == Some("CrGpuMain") {
                    // DevTools returns before recording this thread's name.
                    self.gpu_thread_id = Some(event.tid);
                    return;
                }
                if text == Some("CrBrowserMain") {
                    self.browser_thread_id = Some(event.tid);
                }
                self.threads_in_process
                    .entry(event.pid)
                    .or_default()
                    .insert(event.tid, thread_name);
                self.thread_name_events
                    .entry(event.pid)
                    .or_default()
                    .insert(event.tid, index);
            }
            names::TRACING_STARTED_IN_BROWSER => self.on_tracing_started(event, interner, diag, all),
            names::FRAME_COMMITTED_IN_BROWSER => {
                let Some((frame, raw)) = args::frame_committed(event, diag) else {
                    return;
                };
                let info = frame_info(&frame, raw, interner, all);
                self.update_renderer_process_by_frame(event.ts, info.clone());
                if frame.parent.is_some_and(js_truthy_raw) {
                    return;
                }
                self.add_top_level_renderer(info.process_id);
            }
            names::COMMIT_LOAD => {
                let Some((data, raw)) = args::commit_load(event, diag) else {
                    return;
                };
                let info = FrameInfo {
                    frame: data.frame.map(|f| interner.intern(&f)),
                    url: data.url.map(|u| interner.intern(&u)),
                    process_id: event.pid,
                    name: data.name.map(|n| interner.intern(&n)),
                    object: all.then(|| args::commit_load_object(raw, event.pid, interner)),
                };
                self.update_renderer_process_by_frame(event.ts, info);
            }
            _ => self.on_page_event(index, event, cx),
        }
    }

    /// The events of the page beyond its frames: navigations and the
    /// viewport.
    fn on_page_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        match event.name {
            names::NAVIGATION_START => {
                let main_frame = self.main_frame_id.unwrap_or(names::EMPTY);
                self.navigations.navigation_start(index, event, main_frame, cx);
            }
            names::SOFT_NAVIGATION_START => self.navigations.soft_navigation(index, event, cx),
            // Requests are many: read only for the data dump.
            names::RESOURCE_SEND_REQUEST if cx.options.all_handlers => self.navigations.send_request(event, cx),
            names::DID_COMMIT_SAME_DOCUMENT_NAVIGATION => self.navigations.same_document(index, event, cx),
            names::PAINT_TIMING_VISUALIZER_VIEWPORT if !self.viewport_seen => {
                self.viewport_seen = true;
                match args::viewport(event) {
                    Some((rect, dpr)) => {
                        self.viewport_rect = Some(rect);
                        self.device_pixel_ratio = dpr;
                    }
                    None => cx.diagnostics.skip(Skip::MetaUnreadableViewport, || {
                        format!(
                            "PaintTimingVisualizer::Viewport (event #{index}): {}",
                            event.args.unwrap_or("no args")
                        )
                    }),
                }
            }
            _ => {}
        }
    }

    fn on_tracing_started(
        &mut self,
        event: &Event<'_>,
        interner: &mut Interner,
        diag: &mut tracekit_events::Diagnostics,
        all: bool,
    ) {
        self.tracing_started_at = Some(event.ts);
        let Some(frames) = args::tracing_started_frames(event, Some(diag)) else {
            // DevTools gives up on the whole trace here ("No frames found").
            self.devtools_refuses = true;
            return;
        };
        for (frame, raw) in frames {
            let info = frame_info(&frame, raw, interner, all);
            self.update_renderer_process_by_frame(event.ts, info.clone());
            let has_parent = frame.parent.is_some_and(js_truthy_raw);
            if !has_parent {
                self.add_top_level_renderer(info.process_id);
            }
            let url_truthy = frame.url.as_deref().is_some_and(|u| !u.is_empty());
            let is_main = match (frame.is_in_primary_main_frame, frame.is_outermost_main_frame) {
                (Some(primary), Some(outermost)) => js_truthy_raw(primary) && js_truthy_raw(outermost),
                (None, Some(outermost)) => js_truthy_raw(outermost),
                _ => !has_parent && url_truthy,
            };
            if is_main {
                self.main_frame_id = info.frame;
                self.main_frame_url = info.url;
            }
        }
    }

    fn add_top_level_renderer(&mut self, pid: Id) {
        if !self.top_level_renderer_ids.contains(&pid) {
            self.top_level_renderer_ids.push(pid);
        }
    }

    fn update_renderer_process_by_frame(&mut self, ts: Micros, frame: FrameInfo) {
        self.frame_by_process_id
            .entry(frame.process_id)
            .or_default()
            .insert(frame.frame, frame.clone());
        let windows = self
            .renderer_processes_by_frame
            .entry(frame.frame)
            .or_default()
            .entry(frame.process_id)
            .or_default();
        // A new window only when the URL changed.
        if windows.last().is_some_and(|w| w.frame.url == frame.url) {
            return;
        }
        windows.push(ProcessWindow {
            frame,
            min: ts,
            max: Micros::ZERO,
        });
    }

    fn into_data(mut self, all_handlers: bool, diagnostics: &mut tracekit_events::Diagnostics) -> MetaData {
        if self.devtools_refuses {
            self.trace_is_generic = true;
        }
        if let Some(ts) = self.tracing_started_at {
            if ts >= Micros::ZERO {
                self.bounds.min = ts;
            }
        }
        // Each window of a frame lasts until the next one starts (in time
        // order), the last one until the end of the trace.
        for by_process in self.renderer_processes_by_frame.values_mut() {
            let mut windows: Vec<&mut ProcessWindow> = by_process.values_mut().flatten().collect();
            windows.sort_by(|a, b| a.min.partial_cmp(&b.min).unwrap_or(std::cmp::Ordering::Equal));
            for i in 0..windows.len() {
                windows[i].max = match windows.get(i + 1) {
                    Some(next) => next.min - Micros(1.0),
                    None => self.bounds.max,
                };
            }
        }
        let frames = &self.renderer_processes_by_frame;
        let navigations = self.navigations.finish(
            |frame| frames.contains_key(&frame),
            self.bounds.min,
            &mut self.main_frame_url,
            all_handlers,
            |navigation| {
                // Only the page's outputs read navigations: said with them.
                if all_handlers {
                    diagnostics.skip(tracekit_events::Skip::MetaNavigationOfUnknownFrame, || {
                        format!(
                            "navigationStart (event #{}) of a frame without a renderer process, or without a frame",
                            navigation.event
                        )
                    });
                }
            },
        );
        MetaData {
            bounds: self.bounds,
            browser_process_id: self.browser_process_id,
            browser_thread_id: self.browser_thread_id,
            gpu_process_id: self.gpu_process_id,
            gpu_thread_id: self.gpu_thread_id,
            main_frame_id: self.main_frame_id,
            main_frame_url: self.main_frame_url,
            renderer_processes_by_frame: self.renderer_processes_by_frame,
            top_level_renderer_ids: self.top_level_renderer_ids,
            threads_in_process: self.threads_in_process,
            process_names: self.process_names,
            process_name_events: self.process_name_events,
            thread_name_events: self.thread_name_events,
            frame_by_process_id: self.frame_by_process_id,
            navigations,
            viewport_rect: self.viewport_rect,
            device_pixel_ratio: self.device_pixel_ratio,
            trace_is_generic: self.trace_is_generic,
            devtools_refuses: self.devtools_refuses,
        }
    }
}

impl Handler for MetaHandler {
    type Deps<'d> = ();
    type Data = MetaData;

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_event(index, event, cx);
    }

    fn finalize(self, (): (), cx: &mut Context) -> MetaData {
        let data = self.into_data(cx.options.all_handlers, &mut cx.diagnostics);
        if data.devtools_refuses {
            cx.diagnostics
                .diverge(tracekit_events::Divergence::TracingStartedWithoutFrames, || {
                    "TracingStartedInBrowser without args.data".to_owned()
                });
            cx.diagnostics.warn(
                "DevTools refuses this trace (TracingStartedInBrowser without frame data, as Chrome 65 and 66 wrote): loaded as a generic trace, every process kept",
            );
        }
        data
    }
}

/// What the tracks and the data dump keep of a frame object.
pub(crate) fn frame_info(frame: &args::FrameJson<'_>, raw: &RawValue, interner: &mut Interner, all: bool) -> FrameInfo {
    FrameInfo {
        frame: frame.frame.as_ref().map(|f| interner.intern(f)),
        url: frame.url.as_ref().map(|u| interner.intern(u)),
        process_id: frame.process_id.map_or(Id::MISSING, Id::num),
        name: frame.name.as_ref().map(|n| interner.intern(n)),
        object: all.then(|| raw.get().into()),
    }
}

fn js_truthy_raw(raw: &serde_json::value::RawValue) -> bool {
    js_truthy(raw.get())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_frames;
