//! DevTools' Styles table (`Trace.Styles.maybeInitSylesMap()` of
//! `@paulirish/trace_engine` 0.0.65): every event name with a timeline
//! style, whether it is hidden, and its category. The visible types of the
//! aggregated views' filter are the names that are not hidden; grouping by
//! category reads the categories.

/// `(name, hidden, category)` for each of the 111 styled event names.
pub const STYLES: &[(&str, bool, Category)] = &[
    ("RunTask", false, Category::Other),
    ("ProfileCall", false, Category::Scripting),
    ("JSSample", false, Category::Scripting),
    ("Program", false, Category::Other),
    ("CpuProfiler::StartProfiling", false, Category::Other),
    ("Animation", false, Category::Rendering),
    ("EventDispatch", false, Category::Scripting),
    ("RequestMainThreadFrame", true, Category::Rendering),
    ("BeginFrame", true, Category::Rendering),
    ("BeginMainThreadFrame", true, Category::Rendering),
    ("DrawFrame", true, Category::Rendering),
    ("HitTest", false, Category::Rendering),
    ("ScheduleStyleRecalculation", false, Category::Rendering),
    ("UpdateLayoutTree", false, Category::Rendering),
    ("InvalidateLayout", true, Category::Rendering),
    ("Layerize", false, Category::Rendering),
    ("Layout", false, Category::Rendering),
    ("PaintSetup", false, Category::Painting),
    ("PaintImage", true, Category::Painting),
    ("UpdateLayer", true, Category::Painting),
    ("UpdateLayerTree", false, Category::Rendering),
    ("Paint", false, Category::Painting),
    ("PrePaint", false, Category::Rendering),
    ("RasterTask", false, Category::Painting),
    ("ScrollLayer", false, Category::Rendering),
    ("Commit", false, Category::Painting),
    ("CompositeLayers", false, Category::Painting),
    ("ComputeIntersections", false, Category::Rendering),
    ("ParseHTML", false, Category::Loading),
    ("ParseAuthorStyleSheet", false, Category::Loading),
    ("TimerInstall", false, Category::Scripting),
    ("TimerRemove", false, Category::Scripting),
    ("TimerFire", false, Category::Scripting),
    ("XHRReadyStateChange", false, Category::Scripting),
    ("XHRLoad", false, Category::Scripting),
    ("v8.compile", false, Category::Scripting),
    ("v8.produceCache", false, Category::Scripting),
    ("V8.CompileCode", false, Category::Scripting),
    ("V8.OptimizeCode", false, Category::Scripting),
    ("EvaluateScript", false, Category::Scripting),
    ("V8.CompileModule", false, Category::Scripting),
    ("v8.produceModuleCache", false, Category::Scripting),
    ("v8.evaluateModule", false, Category::Scripting),
    ("v8.parseOnBackground", false, Category::Other),
    ("v8.parseOnBackgroundWaiting", false, Category::Idle),
    ("v8.parseOnBackgroundParsing", false, Category::Scripting),
    ("v8.deserializeOnBackground", false, Category::Scripting),
    ("V8.FinalizeDeserialization", false, Category::Other),
    ("v8.wasm.streamFromResponseCallback", false, Category::Scripting),
    ("v8.wasm.compiledModule", false, Category::Scripting),
    ("v8.wasm.cachedModule", false, Category::Scripting),
    ("v8.wasm.moduleCacheHit", false, Category::Scripting),
    ("v8.wasm.moduleCacheInvalid", false, Category::Scripting),
    ("FrameStartedLoading", true, Category::Loading),
    ("MarkLoad", true, Category::Scripting),
    ("MarkDOMContent", true, Category::Scripting),
    ("firstPaint", true, Category::Painting),
    ("firstContentfulPaint", true, Category::Rendering),
    ("largestContentfulPaint::Candidate", true, Category::Rendering),
    (
        "largestContentfulPaint::CandidateForSoftNavigation",
        true,
        Category::Rendering,
    ),
    ("TimeStamp", false, Category::Scripting),
    ("ConsoleTime", false, Category::Scripting),
    ("UserTiming", false, Category::Scripting),
    ("ResourceWillSendRequest", false, Category::Loading),
    ("ResourceSendRequest", false, Category::Loading),
    ("ResourceReceiveResponse", false, Category::Loading),
    ("ResourceFinish", false, Category::Loading),
    ("ResourceReceivedData", false, Category::Loading),
    ("RunMicrotasks", false, Category::Scripting),
    ("FunctionCall", false, Category::Scripting),
    ("GCEvent", false, Category::Scripting),
    ("MajorGC", false, Category::Scripting),
    ("MinorGC", false, Category::Scripting),
    ("CppGC.IncrementalSweep", false, Category::Scripting),
    ("RequestAnimationFrame", false, Category::Scripting),
    ("CancelAnimationFrame", false, Category::Scripting),
    ("FireAnimationFrame", false, Category::Scripting),
    ("RequestIdleCallback", false, Category::Scripting),
    ("CancelIdleCallback", false, Category::Scripting),
    ("FireIdleCallback", false, Category::Scripting),
    ("WebSocketCreate", false, Category::Scripting),
    ("WebSocketSendHandshakeRequest", false, Category::Scripting),
    ("WebSocketReceiveHandshakeResponse", false, Category::Scripting),
    ("WebSocketDestroy", false, Category::Scripting),
    ("WebSocketSend", false, Category::Scripting),
    ("WebSocketReceive", false, Category::Scripting),
    ("EmbedderCallback", false, Category::Scripting),
    ("Decode Image", false, Category::Painting),
    ("GPUTask", false, Category::Gpu),
    ("BlinkGC.AtomicPhase", false, Category::Scripting),
    ("DoEncrypt", false, Category::Scripting),
    ("DoEncryptReply", false, Category::Scripting),
    ("DoDecrypt", false, Category::Scripting),
    ("DoDecryptReply", false, Category::Scripting),
    ("DoDigest", false, Category::Scripting),
    ("DoDigestReply", false, Category::Scripting),
    ("DoSign", false, Category::Scripting),
    ("DoSignReply", false, Category::Scripting),
    ("DoVerify", false, Category::Scripting),
    ("DoVerifyReply", false, Category::Scripting),
    ("AsyncTask", false, Category::Async),
    ("LayoutShift", true, Category::Experience),
    ("SyntheticLayoutShift", false, Category::Experience),
    ("SyntheticLayoutShiftCluster", false, Category::Experience),
    ("EventTiming", false, Category::Experience),
    ("HandlePostMessage", false, Category::Messaging),
    ("SchedulePostMessage", false, Category::Messaging),
    ("SchedulePostTaskCallback", false, Category::Scripting),
    ("RunPostTaskCallback", false, Category::Scripting),
    ("AbortPostTaskCallback", false, Category::Scripting),
    ("V8Console::runTask", false, Category::Scripting),
];

/// Whether `name` has a Styles entry that is not hidden (a visible type).
pub fn is_visible_type(name: &str) -> bool {
    STYLES.iter().any(|(n, hidden, _)| *n == name && !hidden)
}

/// The category of `name`'s Styles entry (hidden or not), `None` for a
/// name without one.
pub fn category_of(name: &str) -> Option<Category> {
    STYLES.iter().find(|(n, _, _)| *n == name).map(|(_, _, c)| *c)
}

/// A timeline category (`Trace.Styles.EventCategory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// `loading`.
    Loading,
    /// `experience`.
    Experience,
    /// `messaging`.
    Messaging,
    /// `scripting`.
    Scripting,
    /// `rendering`.
    Rendering,
    /// `painting`.
    Painting,
    /// `gpu`.
    Gpu,
    /// `async`.
    Async,
    /// `other`, titled "System".
    Other,
    /// `idle`.
    Idle,
    /// `layout`.
    Layout,
    /// `rasterizing`.
    Rasterizing,
    /// `drawing`.
    Drawing,
}

impl Category {
    /// Every category, in `getCategoryStyles()`' order.
    pub const ALL: [Category; 13] = [
        Category::Loading,
        Category::Experience,
        Category::Messaging,
        Category::Scripting,
        Category::Rendering,
        Category::Painting,
        Category::Gpu,
        Category::Async,
        Category::Other,
        Category::Idle,
        Category::Layout,
        Category::Rasterizing,
        Category::Drawing,
    ];

    /// Its name, the id of its group.
    pub fn name(self) -> &'static str {
        match self {
            Category::Loading => "loading",
            Category::Experience => "experience",
            Category::Messaging => "messaging",
            Category::Scripting => "scripting",
            Category::Rendering => "rendering",
            Category::Painting => "painting",
            Category::Gpu => "gpu",
            Category::Async => "async",
            Category::Other => "other",
            Category::Idle => "idle",
            Category::Layout => "layout",
            Category::Rasterizing => "rasterizing",
            Category::Drawing => "drawing",
        }
    }

    /// Its title in the panel (English).
    pub fn title(self) -> &'static str {
        match self {
            Category::Loading => "Loading",
            Category::Experience => "Experience",
            Category::Messaging => "Messaging",
            Category::Scripting => "Scripting",
            Category::Rendering => "Rendering",
            Category::Painting => "Painting",
            Category::Gpu => "GPU",
            Category::Async => "Async",
            Category::Other => "System",
            Category::Idle => "Idle",
            Category::Layout => "Layout",
            Category::Rasterizing => "Rasterizing",
            Category::Drawing => "Drawing",
        }
    }

    /// The category named `name`, if any.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}
