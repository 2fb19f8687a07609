//! String interning: every event name and category is stored once and
//! referred to by a [`Sym`], so that the hot loops compare integers.

use ahash::AHashMap;

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
}

/// The strings of one trace, each stored once: what a [`Sym`] stands for.
/// Read-only; the loader fills it through an [`Interner`].
///
/// ```
/// # use tracekit_events::Interner;
/// let mut interner = Interner::new();
/// let layout = interner.intern("Layout");
/// let strings = interner.into_strings();
/// assert_eq!(strings.resolve(layout), "Layout");
/// assert_eq!(strings.lookup("Layout"), Some(layout));
/// assert_eq!(strings.lookup("Paint"), None);
/// ```
#[derive(Debug, Clone)]
pub struct Strings {
    index: AHashMap<Box<str>, Sym>,
    strings: Vec<Box<str>>,
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

    /// Whether there is no string (never true of a trace's table, which
    /// holds the [`names`] the handlers test for).
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
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
            },
            v8_prefixed: Vec::with_capacity(1024),
            uma_suffixed: Vec::with_capacity(1024),
        };
        for name in names::ALL {
            interner.intern(name);
        }
        interner
    }

    /// The symbol of `s`, interning it if it is new.
    ///
    /// # Panics
    ///
    /// When `s` would be the 2^32nd distinct string (symbols are `u32`).
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.strings.index.get(s) {
            return sym;
        }
        let table = &mut self.strings;
        let sym = Sym(u32::try_from(table.strings.len()).expect("more than 4 billion distinct strings"));
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

    #[test]
    fn interning_is_idempotent() {
        let mut interner = Interner::new();
        let a = interner.intern("Layout");
        let b = interner.intern("Layout");
        assert_eq!(a, b);
        assert_eq!(interner.lookup("Layout"), Some(a));
        assert_eq!(interner.lookup("Paint"), None);
        assert!(interner.starts_with_v8(interner.lookup("V8.Execute").unwrap()));
    }
}
