//! DevTools' Styles table (`Trace.Styles.maybeInitSylesMap()` of
//! `@paulirish/trace_engine` 0.0.65): every event name with a timeline
//! style, whether it is hidden, and its category; the categories' colours;
//! which events the panel's flame chart draws. The visible types of the
//! aggregated views' filter are the names that are not hidden; the Summary
//! counts an event's time in its category ([`event_category`]); the flame
//! chart (`tracekit::export::chart`) draws the events [`in_timeline`], in
//! their category's [`Category::color`]. The aggregated views
//! (`tracekit-views`) use it from here, as the core crate's chart does.

use tracekit_events::Phase;
use Category::*;

/// A category of the Performance panel's Summary (DevTools'
/// `EventCategory`), in the order of its category palette
/// (`Trace.Styles.getCategoryStyles()`), which is [`Category::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Network and parsing work (`ParseHTML`, resource events).
    Loading,
    /// Layout shifts and interactions.
    Experience,
    /// `postMessage` scheduling and handling.
    Messaging,
    /// JavaScript: JS calls, timers, GC, compilation.
    Scripting,
    /// Style and layout.
    Rendering,
    /// Paint, raster, compositing.
    Painting,
    /// GPU tasks.
    Gpu,
    /// `AsyncTask`.
    Async,
    /// Everything else, tasks and unstyled names included (titled "System").
    Other,
    /// Time with no event; also the category of a few waiting events.
    Idle,
    /// In the palette, but no styled event has it.
    Layout,
    /// In the palette, but no styled event has it.
    Rasterizing,
    /// In the palette, but no styled event has it.
    Drawing,
}

impl Category {
    /// Every category, in the order of DevTools' category palette.
    pub const ALL: [Category; 13] = [
        Loading,
        Experience,
        Messaging,
        Scripting,
        Rendering,
        Painting,
        Gpu,
        Async,
        Other,
        Idle,
        Layout,
        Rasterizing,
        Drawing,
    ];

    /// DevTools' name of the category (`scripting`, `other`, ...), the key
    /// of the Summary's stats.
    pub fn name(self) -> &'static str {
        match self {
            Loading => "loading",
            Experience => "experience",
            Messaging => "messaging",
            Scripting => "scripting",
            Rendering => "rendering",
            Painting => "painting",
            Gpu => "gpu",
            Async => "async",
            Other => "other",
            Idle => "idle",
            Layout => "layout",
            Rasterizing => "rasterizing",
            Drawing => "drawing",
        }
    }

    /// The title the panel shows (English): `other` is "System".
    pub fn title(self) -> &'static str {
        match self {
            Loading => "Loading",
            Experience => "Experience",
            Messaging => "Messaging",
            Scripting => "Scripting",
            Rendering => "Rendering",
            Painting => "Painting",
            Gpu => "GPU",
            Async => "Async",
            Other => "System",
            Idle => "Idle",
            Layout => "Layout",
            Rasterizing => "Rasterizing",
            Drawing => "Drawing",
        }
    }

    /// The colour the panel draws the category's events in, in its light
    /// theme (the category's `--app-color-*` variable of
    /// `application_tokens.css`, resolved through the reference palette of
    /// `design_system_tokens.css`). Several categories share a colour, as
    /// in DevTools: experience and drawing are drawn as rendering, GPU as
    /// painting, layout as loading, rasterizing as scripting.
    pub fn color(self) -> &'static str {
        match self {
            // --ref-palette-blue70
            Loading | Layout => "#7cacf8",
            // --ref-palette-purple70
            Rendering | Experience | Drawing => "#d190ff",
            // --ref-palette-cyan70
            Messaging => "#38b9de",
            // --ref-palette-yellow70
            Scripting | Rasterizing => "#facc15",
            // --ref-palette-green70
            Painting | Gpu => "#37be5f",
            // --ref-palette-error60
            Async => "#e46962",
            // --app-color-system: --ref-palette-neutral80
            Other => "#c7c7c7",
            // --ref-palette-neutral90
            Idle => "#e3e3e3",
        }
    }

    /// The category named `name` (see [`Category::name`]).
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// `(name, hidden, category)` for each of the 111 styled event names.
pub const STYLES: &[(&str, bool, Category)] = &[
    ("RunTask", false, Other),
    ("ProfileCall", false, Scripting),
    ("JSSample", false, Scripting),
    ("Program", false, Other),
    ("CpuProfiler::StartProfiling", false, Other),
    ("Animation", false, Rendering),
    ("EventDispatch", false, Scripting),
    ("RequestMainThreadFrame", true, Rendering),
    ("BeginFrame", true, Rendering),
    ("BeginMainThreadFrame", true, Rendering),
    ("DrawFrame", true, Rendering),
    ("HitTest", false, Rendering),
    ("ScheduleStyleRecalculation", false, Rendering),
    ("UpdateLayoutTree", false, Rendering),
    ("InvalidateLayout", true, Rendering),
    ("Layerize", false, Rendering),
    ("Layout", false, Rendering),
    ("PaintSetup", false, Painting),
    ("PaintImage", true, Painting),
    ("UpdateLayer", true, Painting),
    ("UpdateLayerTree", false, Rendering),
    ("Paint", false, Painting),
    ("PrePaint", false, Rendering),
    ("RasterTask", false, Painting),
    ("ScrollLayer", false, Rendering),
    ("Commit", false, Painting),
    ("CompositeLayers", false, Painting),
    ("ComputeIntersections", false, Rendering),
    ("ParseHTML", false, Loading),
    ("ParseAuthorStyleSheet", false, Loading),
    ("TimerInstall", false, Scripting),
    ("TimerRemove", false, Scripting),
    ("TimerFire", false, Scripting),
    ("XHRReadyStateChange", false, Scripting),
    ("XHRLoad", false, Scripting),
    ("v8.compile", false, Scripting),
    ("v8.produceCache", false, Scripting),
    ("V8.CompileCode", false, Scripting),
    ("V8.OptimizeCode", false, Scripting),
    ("EvaluateScript", false, Scripting),
    ("V8.CompileModule", false, Scripting),
    ("v8.produceModuleCache", false, Scripting),
    ("v8.evaluateModule", false, Scripting),
    ("v8.parseOnBackground", false, Other),
    ("v8.parseOnBackgroundWaiting", false, Idle),
    ("v8.parseOnBackgroundParsing", false, Scripting),
    ("v8.deserializeOnBackground", false, Scripting),
    ("V8.FinalizeDeserialization", false, Other),
    ("v8.wasm.streamFromResponseCallback", false, Scripting),
    ("v8.wasm.compiledModule", false, Scripting),
    ("v8.wasm.cachedModule", false, Scripting),
    ("v8.wasm.moduleCacheHit", false, Scripting),
    ("v8.wasm.moduleCacheInvalid", false, Scripting),
    ("FrameStartedLoading", true, Loading),
    ("MarkLoad", true, Scripting),
    ("MarkDOMContent", true, Scripting),
    ("firstPaint", true, Painting),
    ("firstContentfulPaint", true, Rendering),
    ("largestContentfulPaint::Candidate", true, Rendering),
    ("largestContentfulPaint::CandidateForSoftNavigation", true, Rendering),
    ("TimeStamp", false, Scripting),
    ("ConsoleTime", false, Scripting),
    ("UserTiming", false, Scripting),
    ("ResourceWillSendRequest", false, Loading),
    ("ResourceSendRequest", false, Loading),
    ("ResourceReceiveResponse", false, Loading),
    ("ResourceFinish", false, Loading),
    ("ResourceReceivedData", false, Loading),
    ("RunMicrotasks", false, Scripting),
    ("FunctionCall", false, Scripting),
    ("GCEvent", false, Scripting),
    ("MajorGC", false, Scripting),
    ("MinorGC", false, Scripting),
    ("CppGC.IncrementalSweep", false, Scripting),
    ("RequestAnimationFrame", false, Scripting),
    ("CancelAnimationFrame", false, Scripting),
    ("FireAnimationFrame", false, Scripting),
    ("RequestIdleCallback", false, Scripting),
    ("CancelIdleCallback", false, Scripting),
    ("FireIdleCallback", false, Scripting),
    ("WebSocketCreate", false, Scripting),
    ("WebSocketSendHandshakeRequest", false, Scripting),
    ("WebSocketReceiveHandshakeResponse", false, Scripting),
    ("WebSocketDestroy", false, Scripting),
    ("WebSocketSend", false, Scripting),
    ("WebSocketReceive", false, Scripting),
    ("EmbedderCallback", false, Scripting),
    ("Decode Image", false, Painting),
    ("GPUTask", false, Gpu),
    ("BlinkGC.AtomicPhase", false, Scripting),
    ("DoEncrypt", false, Scripting),
    ("DoEncryptReply", false, Scripting),
    ("DoDecrypt", false, Scripting),
    ("DoDecryptReply", false, Scripting),
    ("DoDigest", false, Scripting),
    ("DoDigestReply", false, Scripting),
    ("DoSign", false, Scripting),
    ("DoSignReply", false, Scripting),
    ("DoVerify", false, Scripting),
    ("DoVerifyReply", false, Scripting),
    ("AsyncTask", false, Async),
    ("LayoutShift", true, Experience),
    ("SyntheticLayoutShift", false, Experience),
    ("SyntheticLayoutShiftCluster", false, Experience),
    ("EventTiming", false, Experience),
    ("HandlePostMessage", false, Messaging),
    ("SchedulePostMessage", false, Messaging),
    ("SchedulePostTaskCallback", false, Scripting),
    ("RunPostTaskCallback", false, Scripting),
    ("AbortPostTaskCallback", false, Scripting),
    ("V8Console::runTask", false, Scripting),
];

/// Whether `name` has a Styles entry that is not hidden (a visible type).
pub fn is_visible_type(name: &str) -> bool {
    STYLES.iter().any(|(n, hidden, _)| *n == name && !hidden)
}

/// The category of `name`'s Styles entry (hidden or not), `None` for a
/// name without one (grouping by category).
pub fn category_of(name: &str) -> Option<Category> {
    STYLES.iter().find(|(n, _, _)| *n == name).map(|(_, _, c)| *c)
}

/// Whether the phase is one of an async event (`b`, `e`, `n`, `S`, `T`,
/// `p`, `F`).
pub fn is_async_phase(ph: Phase) -> bool {
    matches!(ph.0, b'b' | b'e' | b'n' | b'S' | b'T' | b'p' | b'F')
}

/// Whether the panel draws an event that may have no visible style
/// (DevTools' `entryIsVisibleInTimeline` before its styles check):
/// `UpdateCounters`, post-message events, extension entries, console and
/// user timings, `TimeStamp` instants.
pub fn drawn_without_style(name: &str, cat: &str, ph: Phase) -> bool {
    name == "UpdateCounters"
        || name == "SchedulePostMessage"
        || (name == "HandlePostMessage" && ph == Phase::COMPLETE)
        || cat == "devtools.extension"
        || (cat == "blink.console" && is_async_phase(ph))
        || (cat == "blink.user_timing" && (is_async_phase(ph) || ph.0 == b'R' || ph.0 == b'I'))
        || (name == "TimeStamp" && ph == Phase::INSTANT)
}

/// Whether the panel's flame chart draws an event of a trace that is not
/// generic (DevTools' `entryIsVisibleInTimeline`; in a generic trace it
/// draws every event): [`drawn_without_style`] or a visible type. A JS
/// call (`ProfileCall`) is always drawn. An event it does not draw leaves
/// its level to its children.
pub fn in_timeline(name: &str, cat: &str, ph: Phase) -> bool {
    drawn_without_style(name, cat, ph) || is_visible_type(name)
}

/// The Summary's category of an event named `name`: that of its Styles
/// entry, hidden or not, else [`Category::Other`]. A JS call is a
/// `ProfileCall`, so [`Category::Scripting`].
pub fn event_category(name: &str) -> Category {
    STYLES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map_or(Other, |(_, _, category)| *category)
}
