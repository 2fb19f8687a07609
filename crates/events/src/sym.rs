//! String interning: every event name and category is stored once and
//! referred to by a [`Sym`], so that the hot loops compare integers.

use ahash::AHashMap;

use crate::error::{ErrorKind, LoadError};

/// An interned string: an index into a trace's [`Strings`], cheap to copy,
/// compare and hash, meaningful only with that table
/// ([`Strings::resolve`] gives its string). Two symbols of one table are
/// equal exactly when their strings are.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Sym(pub u32);

macro_rules! known_names {
    ($($konst:ident = $text:expr,)*) => {
        /// Names the handlers test for, interned at fixed ids by every
        /// [`Interner`], so that `event.name == names::RUN_TASK` is one compare.
        pub mod names {
            use super::Sym;
            known_names!(@consts 0u32; $($konst = $text,)*);
            pub(crate) const ALL: &[&str] = &[$($text,)*];
        }
    };
    (@consts $n:expr; $konst:ident = $text:expr, $($rest:ident = $rest_text:expr,)*) => {
        #[doc = concat!("The symbol of `\"", $text, "\"`.")]
        pub const $konst: Sym = Sym($n);
        known_names!(@consts $n + 1u32; $($rest = $rest_text,)*);
    };
    (@consts $n:expr;) => {};
}

known_names! {
    EMPTY = "",
    RUN_TASK = "RunTask",
    RUN_MICROTASKS = "RunMicrotasks",
    FUNCTION_CALL = "FunctionCall",
    EVALUATE_SCRIPT = "EvaluateScript",
    EVALUATE_MODULE = "v8.evaluateModule",
    EVENT_DISPATCH = "EventDispatch",
    V8_EXECUTE = "V8.Execute",
    V8_CONSOLE_RUN_TASK = "V8Console::runTask",
    PROFILE = "Profile",
    PROFILE_CHUNK = "ProfileChunk",
    CPU_PROFILE = "CpuProfile",
    THREAD_NAME = "thread_name",
    PROCESS_NAME = "process_name",
    TRACING_STARTED_IN_BROWSER = "TracingStartedInBrowser",
    TRACING_STARTED_IN_PAGE = "TracingStartedInPage",
    TRACING_SESSION_ID_FOR_WORKER = "TracingSessionIdForWorker",
    FRAME_COMMITTED_IN_BROWSER = "FrameCommittedInBrowser",
    COMMIT_LOAD = "CommitLoad",
    AUCTION_WORKLET_RUNNING_IN_PROCESS = "AuctionWorkletRunningInProcess",
    AUCTION_WORKLET_DONE_WITH_PROCESS = "AuctionWorkletDoneWithProcess",
    PROGRAM = "(program)",
    IDLE = "(idle)",
    GARBAGE_COLLECTOR = "(garbage collector)",
    ROOT = "(root)",
    NATIVE_V8_RUNTIME = "native V8Runtime",
    ZERO = "0",
    TIME_STAMP = "TimeStamp",
    RESOURCE_RECEIVED_DATA = "ResourceReceivedData",
    RESOURCE_FINISH = "ResourceFinish",
    RESOURCE_RECEIVE_RESPONSE = "ResourceReceiveResponse",
    RESOURCE_SEND_REQUEST = "ResourceSendRequest",
    PARSE_HTML = "ParseHTML",
    PARSE_AUTHOR_STYLE_SHEET = "ParseAuthorStyleSheet",
    PAINT_IMAGE = "PaintImage",
    DECODE_IMAGE = "Decode Image",
    DRAW_LAZY_PIXEL_REF = "Draw LazyPixelRef",
    DECODE_LAZY_PIXEL_REF = "Decode LazyPixelRef",
    // The system handlers (tracekit-system).
    GPU_TASK = "GPUTask",
    UPDATE_COUNTERS = "UpdateCounters",
    DOM_STATS = "DOMStats",
    // The causes handlers (tracekit-causes).
    UPDATE_LAYOUT_TREE = "UpdateLayoutTree",
    LAYOUT = "Layout",
    PAINT = "Paint",
    SCHEDULE_STYLE_INVALIDATION_TRACKING = "ScheduleStyleInvalidationTracking",
    STYLE_RECALC_INVALIDATION_TRACKING = "StyleRecalcInvalidationTracking",
    STYLE_INVALIDATOR_INVALIDATION_TRACKING = "StyleInvalidatorInvalidationTracking",
    LAYOUT_INVALIDATION_TRACKING = "LayoutInvalidationTracking",
    NAVIGATION_START = "navigationStart",
    SOFT_NAVIGATION_START = "SoftNavigationStart",
    DID_COMMIT_SAME_DOCUMENT_NAVIGATION = "RenderFrameHostImpl::DidCommitSameDocumentNavigation",
    PAINT_TIMING_VISUALIZER_VIEWPORT = "PaintTimingVisualizer::Viewport",
    LAYOUT_SHIFT = "LayoutShift",
    PRE_PAINT = "PrePaint",
    RENDER_FRAME_IMPL_CREATE_CHILD_FRAME = "RenderFrameImpl::createChildFrame",
    DOM_LOADING = "domLoading",
    LAYOUT_IMAGE_UNSIZED = "LayoutImageUnsized",
    BEGIN_REMOTE_FONT_LOAD = "BeginRemoteFontLoad",
    REMOTE_FONT_LOADED = "RemoteFontLoaded",
    SCREENSHOT = "Screenshot",
    EVENT_TIMING = "EventTiming",
    BEGIN_COMMIT_COMPOSITOR_FRAME = "BeginCommitCompositorFrame",
    PARSE_META_VIEWPORT = "ParseMetaViewport",
    ANIMATION = "Animation",
    ANIMATION_FRAME = "AnimationFrame",
    ANIMATION_FRAME_PRESENTATION = "AnimationFrame::Presentation",
    UPDATE_LAYER = "UpdateLayer",
    SET_LAYER_TREE_ID = "SetLayerTreeId",
    DISPLAY_ITEM_LIST = "cc::DisplayItemList",
    DISPLAY_ITEM_LIST_SNAPSHOT = "cc::DisplayItemList:snapshot",
    LAYER_TREE_HOST_IMPL = "cc::LayerTreeHostImpl",
    BEGIN_FRAME = "BeginFrame",
    DROPPED_FRAME = "DroppedFrame",
    DRAW_FRAME = "DrawFrame",
    ACTIVATE_LAYER_TREE = "ActivateLayerTree",
    REQUEST_MAIN_THREAD_FRAME = "RequestMainThreadFrame",
    NEEDS_BEGIN_FRAME_CHANGED = "NeedsBeginFrameChanged",
    COMMIT = "Commit",
    COMPOSITE_LAYERS = "CompositeLayers",
    BEGIN_MAIN_THREAD_FRAME = "BeginMainThreadFrame",
    SCHEDULE_STYLE_RECALCULATION = "ScheduleStyleRecalculation",
    INVALIDATE_LAYOUT = "InvalidateLayout",
    SCROLL_LAYER = "ScrollLayer",
    RESOURCE_WILL_SEND_REQUEST = "ResourceWillSendRequest",
    RESOURCE_CHANGE_PRIORITY = "ResourceChangePriority",
    RESOURCE_MARK_AS_CACHED = "ResourceMarkAsCached",
    PRELOAD_RENDER_BLOCKING_STATUS_CHANGE = "PreloadRenderBlockingStatusChange",
    WEB_SOCKET_CREATE = "WebSocketCreate",
    WEB_SOCKET_SEND_HANDSHAKE_REQUEST = "WebSocketSendHandshakeRequest",
    WEB_SOCKET_RECEIVE_HANDSHAKE_RESPONSE = "WebSocketReceiveHandshakeResponse",
    WEB_SOCKET_DESTROY = "WebSocketDestroy",
    WEB_SOCKET_SEND = "WebSocketSend",
    WEB_SOCKET_RECEIVE = "WebSocketReceive",
    LINK_PRECONNECT = "LinkPreconnect",
    MARK_FIRST_PAINT = "firstPaint",
    MARK_FCP = "firstContentfulPaint",
    MARK_SOFT_FCP = "SyntheticSoftFirstContentfulPaint",
    MARK_LCP_CANDIDATE = "largestContentfulPaint::Candidate",
    MARK_LCP_CANDIDATE_FOR_SOFT_NAVIGATION = "largestContentfulPaint::CandidateForSoftNavigation",
    MARK_DOM_CONTENT = "MarkDOMContent",
    MARK_LOAD = "MarkLoad",
    INTERACTIVE_TIME = "InteractiveTime",
    META_CHARSET_CHECK = "MetaCharsetCheck",
    LARGEST_IMAGE_PAINT_CANDIDATE = "LargestImagePaint::Candidate",
    LARGEST_TEXT_PAINT_CANDIDATE = "LargestTextPaint::Candidate",
    USER_TIMING_MEASURE = "UserTiming::Measure",
    CAT_BLINK_USER_TIMING = "blink.user_timing",
    CAT_BLINK_CONSOLE = "blink.console",
    TIMER_INSTALL = "TimerInstall",
    TIMER_FIRE = "TimerFire",
    REQUEST_IDLE_CALLBACK = "RequestIdleCallback",
    FIRE_IDLE_CALLBACK = "FireIdleCallback",
    SCHEDULE_POST_TASK_CALLBACK = "SchedulePostTaskCallback",
    RUN_POST_TASK_CALLBACK = "RunPostTaskCallback",
    ABORT_POST_TASK_CALLBACK = "AbortPostTaskCallback",
    DEBUGGER_ASYNC_TASK_SCHEDULED = "v8::Debugger::AsyncTaskScheduled",
    DEBUGGER_ASYNC_TASK_RUN = "v8::Debugger::AsyncTaskRun",
    SCRIPT_CATCHUP = "ScriptCatchup",
    LARGE_SCRIPT_CATCHUP = "LargeScriptCatchup",
    SCRIPT_COMPILED = "ScriptCompiled",
    CAT_V8_SOURCE_RUNDOWN = "disabled-by-default-devtools.v8-source-rundown",
    CAT_V8_SOURCE_RUNDOWN_SOURCES = "disabled-by-default-devtools.v8-source-rundown-sources",
    CAT_TARGET_RUNDOWN = "disabled-by-default-devtools.target-rundown",
    SELECTOR_STATS = "SelectorStats",
    XHR_READY_STATE_CHANGE = "XHRReadyStateChange",
    V8_COMPILE = "v8.compile",
    V8_COMPILE_MODULE = "v8.compileModule",
    MODULE_EVALUATED = "ModuleEvaluated",
    THREAD_CONTROLLER_RUN_TASK = "ThreadControllerImpl::RunTask",
    THREAD_CONTROLLER_DO_WORK = "ThreadControllerImpl::DoWork",
    TASK_QUEUE_MANAGER_PROCESS_TASK = "TaskQueueManager::ProcessTaskFromWorkQueue",
}

/// The strings of one trace, each stored once: what a [`Sym`] stands for.
/// Read-only; the loader fills it through an [`Interner`].
///
/// ```
/// # use tracekit_events::Interner;
/// let mut interner = Interner::new();
/// let name = interner.intern("MyFunction");
/// let strings = interner.into_strings();
/// assert_eq!(strings.resolve(name), "MyFunction");
/// assert_eq!(strings.lookup("MyFunction"), Some(name));
/// assert_eq!(strings.lookup("NotInTheTrace"), None);
/// ```
#[derive(Debug, Clone)]
pub struct Strings {
    index: AHashMap<Box<str>, Sym>,
    strings: Vec<Box<str>>,
    /// A string was turned away: the table was full.
    overflowed: bool,
}

impl Strings {
    /// The symbol of `s`, if the trace has that string (a name, a
    /// category, a URL...): comparing symbols is cheaper than comparing
    /// strings.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.index.get(s).copied()
    }

    /// The string of `sym`, which must come from this table (a symbol of
    /// another one gives another string, or panics if out of range).
    pub fn resolve(&self, sym: Sym) -> &str {
        &self.strings[sym.0 as usize]
    }

    /// How many strings there are (a few dozen names every table holds
    /// included).
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// The strings, in the order of their symbols.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }

    /// The symbol of `s`, added to the table if it is new: for the names
    /// a step after loading gives (source maps' original names and URLs).
    /// `None` when the table is full (2^32 strings).
    pub fn add(&mut self, s: &str) -> Option<Sym> {
        if let Some(&sym) = self.index.get(s) {
            return Some(sym);
        }
        let sym = Sym(u32::try_from(self.strings.len()).ok()?);
        self.strings.push(s.into());
        self.index.insert(s.into(), sym);
        Some(sym)
    }

    /// Whether there is no string (never true of a trace's table, which
    /// holds the [`names`] the handlers test for).
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// Whether a string was turned away because the table was full (it
    /// holds 2^32 strings, as many as there are symbols): the
    /// [`Interner`] gave it [`names::EMPTY`] instead. A load checks it
    /// ([`Self::check_overflow`]) and fails, so that the table of a
    /// loaded trace never has.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The error of a load whose strings did not all fit in the table
    /// ([`ErrorKind::TooManyStrings`]), if they did not.
    pub fn check_overflow(&self) -> Result<(), LoadError> {
        if self.overflowed {
            return Err(LoadError::new(
                ErrorKind::TooManyStrings,
                format!(
                    "the trace has more than {} distinct strings (names, categories, ids, URLs...)",
                    self.len()
                ),
            ));
        }
        Ok(())
    }
}

/// Interning while loading: the [`Strings`] of a trace being filled, with
/// what the handlers precompute about each string. It reads as the table
/// it fills ([`Deref`](std::ops::Deref) to [`Strings`]);
/// [`Interner::into_strings`] gives the table once loading is done.
#[derive(Debug, Clone)]
pub struct Interner {
    strings: Strings,
    /// Whether each symbol's name starts with "v8" or "V8": DevTools counts
    /// every such event as a JS invocation.
    v8_prefixed: Vec<bool>,
    /// Whether each symbol's name ends with "::UMA": DevTools leaves such
    /// events out of the trace bounds.
    uma_suffixed: Vec<bool>,
    /// Strings interned lately, by a cheap hash of their length and three
    /// of their bytes ([`recent_slot`]): the symbol plus one, 0 for none.
    /// Most events repeat the name and category of one a little before
    /// them; such a string is found by comparing it with the one in its
    /// slot, without hashing it whole and probing the index.
    recent: [u32; RECENT],
    /// The last symbol it gives: `u32::MAX - 1` (lower in tests, to fill it
    /// cheaply).
    last_sym: u32,
}

/// Slots of [`Interner::recent`].
const RECENT: usize = 256;

/// The slot of `s` in [`Interner::recent`].
#[inline]
fn recent_slot(s: &str) -> usize {
    let b = s.as_bytes();
    match b {
        [] => 0,
        [first, .., last] | [first @ last] => {
            let middle = b[b.len() / 2];
            (b.len() * 31 + usize::from(*first) * 7 + usize::from(*last) * 13 + usize::from(middle)) % RECENT
        }
    }
}

impl Default for Interner {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for Interner {
    type Target = Strings;

    fn deref(&self) -> &Strings {
        &self.strings
    }
}

impl Interner {
    /// An interner holding the [`names`] at their fixed symbols.
    pub fn new() -> Self {
        let mut interner = Interner {
            strings: Strings {
                index: AHashMap::with_capacity(1024),
                strings: Vec::with_capacity(1024),
                overflowed: false,
            },
            v8_prefixed: Vec::with_capacity(1024),
            uma_suffixed: Vec::with_capacity(1024),
            recent: [0; RECENT],
            // `u32::MAX` is no symbol: a track node marks its JS calls
            // with it where an event's category is.
            last_sym: u32::MAX - 1,
        };
        for name in names::ALL {
            interner.intern(name);
        }
        interner
    }

    /// An interner that gives no symbol past `last_sym` (at least the
    /// [`names`]' own): filled after a few strings.
    #[cfg(test)]
    pub(crate) fn with_last_sym(last_sym: u32) -> Self {
        Interner {
            last_sym,
            ..Interner::new()
        }
    }

    /// The symbol of `s`, interning it if it is new. When the table is
    /// full (2^32 strings: symbols are `u32`), a new string is not
    /// interned: it gets [`names::EMPTY`], and the table says it
    /// [`overflowed`](Strings::overflowed), for the load to fail.
    pub fn intern(&mut self, s: &str) -> Sym {
        let slot = recent_slot(s);
        if let Some(recent) = self.recent[slot].checked_sub(1) {
            if *self.strings.strings[recent as usize] == *s {
                return Sym(recent);
            }
        }
        let sym = self.intern_new_or_old(s);
        // A last symbol of u32::MAX would not be remembered: one more would wrap.
        self.recent[slot] = sym.0.checked_add(1).unwrap_or(0);
        sym
    }

    /// [`Self::intern`] through the index.
    fn intern_new_or_old(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.strings.index.get(s) {
            return sym;
        }
        let table = &mut self.strings;
        let sym = match u32::try_from(table.strings.len()) {
            Ok(n) if n <= self.last_sym => Sym(n),
            _ => {
                table.overflowed = true;
                return names::EMPTY;
            }
        };
        table.strings.push(s.into());
        table.index.insert(s.into(), sym);
        self.v8_prefixed.push(s.starts_with("v8") || s.starts_with("V8"));
        self.uma_suffixed.push(s.ends_with("::UMA"));
        sym
    }

    /// Whether the string of `sym` starts with "v8" or "V8" (DevTools
    /// counts every such event as a JS invocation). Precomputed: no string
    /// is read.
    pub fn starts_with_v8(&self, sym: Sym) -> bool {
        self.v8_prefixed[sym.0 as usize]
    }

    /// Whether the string of `sym` ends with "::UMA" (DevTools leaves such
    /// events out of the trace bounds). Precomputed: no string is read.
    pub fn ends_with_uma(&self, sym: Sym) -> bool {
        self.uma_suffixed[sym.0 as usize]
    }

    /// The symbols in this table of the strings of `other` (a chunk's own
    /// table), in the order of their symbols there. A string `other`
    /// turned away is turned away here too.
    pub(crate) fn remap(&mut self, other: &Strings) -> Vec<Sym> {
        self.strings.overflowed |= other.overflowed;
        other.iter().map(|s| self.intern(s)).collect()
    }

    /// The table, once loading is done (what load-time flags the interner
    /// kept about each string are dropped).
    pub fn into_strings(self) -> Strings {
        self.strings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_have_fixed_ids() {
        let mut interner = Interner::new();
        assert_eq!(interner.intern("RunTask"), names::RUN_TASK);
        assert_eq!(interner.resolve(names::PROFILE_CHUNK), "ProfileChunk");
        assert_eq!(interner.intern(""), names::EMPTY);
    }

    /// Strings that share a slot of the recent ones (thousands of them
    /// over 256 slots), in any order, get the symbols the index alone
    /// gives: the first time each is seen, in order.
    #[test]
    fn recent_strings_are_the_strings_of_their_symbols() {
        let mut interner = Interner::new();
        let mut expected: std::collections::HashMap<String, Sym> = std::collections::HashMap::new();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Short strings of few letters: many equal, many alike.
            let len = (state % 6) as usize;
            let s: String = (0..len)
                .map(|k| char::from(b'a' + (state >> (8 + 2 * k) & 3) as u8))
                .collect();
            let next = Sym(u32::try_from(names::ALL.len() + expected.len()).unwrap());
            let want = names::ALL
                .iter()
                .position(|n| *n == s)
                .map(|i| Sym(u32::try_from(i).unwrap()))
                .unwrap_or_else(|| *expected.entry(s.clone()).or_insert(next));
            assert_eq!(interner.intern(&s), want, "{s:?}");
            assert_eq!(interner.resolve(want), s);
        }
        assert!(expected.len() > 1000);
    }

    /// Past its last symbol, an interner gives new strings the empty
    /// string's symbol and says it overflowed; the strings it holds keep
    /// theirs.
    #[test]
    fn a_full_interner_turns_new_strings_away() {
        let last = u32::try_from(names::ALL.len()).unwrap();
        let mut interner = Interner::with_last_sym(last);
        let a = interner.intern("a");
        assert_eq!(a, Sym(last));
        assert!(!interner.overflowed());
        assert!(interner.check_overflow().is_ok());
        assert_eq!(interner.intern("b"), names::EMPTY);
        assert_eq!(interner.intern("b"), names::EMPTY);
        assert_eq!(interner.intern("a"), a);
        assert_eq!(interner.intern("RunTask"), names::RUN_TASK);
        assert!(interner.overflowed());
        assert_eq!(interner.lookup("b"), None);
        let v8 = interner.intern("V8.b");
        assert_eq!(v8, names::EMPTY);
        assert!(!interner.starts_with_v8(v8));
        let error = interner.check_overflow().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TooManyStrings);
        let strings = interner.into_strings();
        assert!(strings.overflowed());
        assert_eq!(strings.len(), names::ALL.len() + 1);
        assert_eq!(
            error.to_string(),
            format!(
                "the trace has more than {} distinct strings (names, categories, ids, URLs...)",
                strings.len()
            )
        );
    }

    #[test]
    fn strings_added_after_loading_are_new_symbols_or_old_ones() {
        let mut interner = Interner::new();
        let old = interner.intern("a");
        let mut strings = interner.into_strings();
        assert_eq!(strings.add("a"), Some(old));
        let new = strings.add("render").unwrap();
        assert_eq!(strings.resolve(new), "render");
        assert_eq!(strings.lookup("render"), Some(new));
    }

    #[test]
    fn interning_is_idempotent() {
        let mut interner = Interner::new();
        let a = interner.intern("MyFunction");
        let b = interner.intern("MyFunction");
        assert_eq!(a, b);
        assert_eq!(interner.lookup("MyFunction"), Some(a));
        assert_eq!(interner.lookup("NotInTheTrace"), None);
        assert!(interner.starts_with_v8(interner.lookup("V8.Execute").unwrap()));
    }
}
