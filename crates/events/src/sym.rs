//! String interning: every event name and category is stored once and
//! referred to by a [`Sym`], so that the hot loops compare integers.

use ahash::AHashMap;

/// An interned string. Cheap to copy, compare and hash. The number is its
/// index in the [`Interner`] that made it, meaningful only there; two
/// symbols of one interner are equal exactly when their strings are.
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

/// The string table of one trace.
#[derive(Debug, Clone)]
pub struct Interner {
    index: AHashMap<Box<str>, Sym>,
    strings: Vec<Box<str>>,
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

impl Interner {
    /// An interner holding the [`names`] at their fixed symbols.
    pub fn new() -> Self {
        let mut interner = Interner {
            index: AHashMap::with_capacity(1024),
            strings: Vec::with_capacity(1024),
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
        if let Some(&sym) = self.index.get(s) {
            return sym;
        }
        let sym = Sym(u32::try_from(self.strings.len()).expect("more than 4 billion distinct strings"));
        self.strings.push(s.into());
        self.v8_prefixed.push(s.starts_with("v8") || s.starts_with("V8"));
        self.uma_suffixed.push(s.ends_with("::UMA"));
        self.index.insert(s.into(), sym);
        sym
    }

    /// The symbol of `s` if it was interned, without interning it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.index.get(s).copied()
    }

    /// The string of `sym`, which must come from this interner (a symbol
    /// of another one gives another string, or panics if out of range).
    pub fn resolve(&self, sym: Sym) -> &str {
        &self.strings[sym.0 as usize]
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

    /// How many strings are interned, the [`names`] included.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// The strings, in the order of their symbols.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }

    /// Whether no string is interned (never true of an interner made by
    /// [`Interner::new`], which holds the [`names`]).
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
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
