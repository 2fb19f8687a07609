//! Loading: bytes in, in pieces of any size; an [`Analysis`] out. The
//! input is told apart by content: gzip by its magic bytes, UTF-16 by its
//! first bytes ([`crate::input`]); then a Chrome trace streams through the
//! tokenizer into the handlers, block by block, while a CPU profile or a
//! JS Self-Profiling trace is kept whole and read at the end.

use std::io::Read;

use tracekit_cpuprofile::{parse_profile_json, self_profiling::parse_self_profile, RawProfile};
use tracekit_events::json::{member_at, MemberAt};
use tracekit_events::{scan, AnalyzeOptions, Context, ErrorKind, Interner, LoadError, Tokenized, Tokenizer};

use crate::engine::{analyze_profile, Analysis, TraceHandlers};
use crate::input::{Layers, GZIP_MAGIC};

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputKind {
    /// A Chrome trace (trace event format): an array of events, or an
    /// object with `traceEvents`.
    ChromeTrace,
    /// A V8 CPU profile (`.cpuprofile`, `Profiler.Profile`, legacy `head`).
    CpuProfile,
    /// What the JS Self-Profiling API's `Profiler.stop()` returns.
    SelfProfiling,
}

impl InputKind {
    /// What the input is, in words: `Chrome trace`, `CPU profile`, `JS
    /// Self-Profiling trace`.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::ChromeTrace => "Chrome trace",
            InputKind::CpuProfile => "CPU profile",
            InputKind::SelfProfiling => "JS Self-Profiling trace",
        }
    }
}

/// Loads one input, fed in pieces of any size:
///
/// ```
/// let mut loader = tracekit::Loader::new(tracekit::AnalyzeOptions::default());
/// loader.push(br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":1},"#).unwrap();
/// loader.push(br#"{"name":"Layout","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]"#).unwrap();
/// let analysis = loader.finish().unwrap();
/// assert_eq!(analysis.event_count(), 2);
/// ```
pub struct Loader {
    layers: Layers,
    cx: Context,
    handlers: TraceHandlers,
}

impl Loader {
    /// A loader for one input.
    pub fn new(options: AnalyzeOptions) -> Self {
        Loader {
            layers: Layers::new(),
            cx: Context::new(options),
            handlers: TraceHandlers::default(),
        }
    }

    /// Feeds the next bytes of the input (compressed or not).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.layers.push(bytes, &mut self.cx, &mut self.handlers)
    }

    /// Reads the rest of the input from `reader`, calling `progress` with
    /// the number of bytes of each piece read. This is the one place where
    /// the library reads (from the caller's reader): plain text is read
    /// straight into the tokenizer's buffer, without an extra copy.
    ///
    /// With [`Parallelism::Rayon`](crate::Parallelism::Rayon), this thread
    /// reads ahead while the pool decodes. Call it on one of the pool's
    /// threads (inside `ThreadPool::install`, as the `tracekit` command
    /// does), so that the reading takes that thread and lends it to the
    /// pool while it waits: from a thread of its own, the reading is one
    /// thread more than the cores, and takes a core from a worker.
    pub fn read_from(&mut self, reader: &mut impl Read, mut progress: impl FnMut(usize)) -> Result<(), LoadError> {
        const PIECE: u64 = 8 << 20;
        let io = |e: std::io::Error| LoadError::new(ErrorKind::Io, format!("reading the input: {e}"));
        let mut piece = Vec::new();
        // A first piece just big enough to tell the input's layers (gzip,
        // UTF-16), so that a plain input is read straight into the
        // tokenizer's buffer from its first megabyte on. Then small pieces,
        // so that decoding (on all cores) starts early (the tokenizer's
        // first blocks are small too); then 8 MB ones.
        let mut piece_size: u64 = 64 << 10;
        loop {
            let n = if self.layers.is_plain_utf8() {
                self.layers
                    .tokenizer
                    .read_from(reader, piece_size, &mut self.cx, &mut self.handlers)?
            } else {
                piece.clear();
                let n = reader.by_ref().take(piece_size).read_to_end(&mut piece).map_err(io)?;
                self.push(&piece)?;
                n
            };
            if n == 0 {
                return Ok(());
            }
            progress(n);
            piece_size = (piece_size * 2).clamp(1 << 20, PIECE);
        }
    }

    /// Ends the input and builds the tracks.
    pub fn finish(mut self) -> Result<Analysis, LoadError> {
        let tokenized = self.layers.finish(&mut self.cx, &mut self.handlers)?;
        conclude(tokenized, self.handlers, self.cx)
    }
}

/// Loads a whole input held in memory (gzipped or not, any format
/// [`Loader`] reads). A plain UTF-8 input is decoded in place, without a
/// copy.
///
/// ```
/// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":2}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// assert_eq!(analysis.threads().count(), 1);
/// let error = tracekit::analyze_bytes(b"[]", &tracekit::AnalyzeOptions::default()).unwrap_err();
/// assert_eq!(error.to_string(), "the trace holds no events");
/// let error = tracekit::analyze_bytes(b"{\"foo\": 1}", &tracekit::AnalyzeOptions::default()).unwrap_err();
/// assert_eq!(error.kind(), tracekit::ErrorKind::NotATrace);
/// # Ok::<(), tracekit::LoadError>(())
/// ```
pub fn analyze_bytes(bytes: &[u8], options: &AnalyzeOptions) -> Result<Analysis, LoadError> {
    let needs_layers = bytes.starts_with(&GZIP_MAGIC) || crate::input::utf16::sniff(bytes).is_some();
    if needs_layers {
        let mut loader = Loader::new(*options);
        for piece in bytes.chunks(1 << 20) {
            loader.push(piece)?;
        }
        return loader.finish();
    }
    let mut cx = Context::new(*options);
    let mut handlers = TraceHandlers::default();
    let tokenized = Tokenizer::run_whole(bytes, &mut cx, &mut handlers)?;
    conclude(tokenized, handlers, cx)
}

/// The analysis of what the tokenizer found. It fails if the trace has
/// more distinct strings than there are symbols (the tokenizer checks the
/// events' own; the handlers' last steps and a profile intern more).
fn conclude(tokenized: Tokenized<'_>, handlers: TraceHandlers, mut cx: Context) -> Result<Analysis, LoadError> {
    let analysis = match tokenized {
        Tokenized::Trace { top_level, bytes, .. } => handlers.finish(cx, top_level, bytes),
        Tokenized::Document { text, bytes } => {
            let (kind, profile) = whole_document(&text, &mut cx.interner, &mut cx.diagnostics)?;
            cx.interner.check_overflow()?;
            analyze_profile(kind, profile, cx, bytes)
        }
    }?;
    analysis.strings.check_overflow()?;
    Ok(analysis)
}

/// A document that is not a stream of events: a CPU profile or a
/// Self-Profiling trace, or else the error that says what is wrong.
fn whole_document(
    text: &str,
    interner: &mut Interner,
    diag: &mut tracekit_events::Diagnostics,
) -> Result<(InputKind, RawProfile), LoadError> {
    let keys = top_level_keys(text)?;
    let has = |k: &str| keys.iter().any(|(key, _)| key == k);
    if let Some((_, start)) = keys.iter().find(|(key, _)| key == "traceEvents") {
        let found = text[*start..]
            .chars()
            .next()
            .map_or("nothing".to_owned(), |c| format!("'{c}'"));
        return Err(LoadError::at(
            ErrorKind::NotATrace,
            *start,
            format!("traceEvents is not an array of events (it starts with {found})"),
        ));
    }
    if has("nodes") || has("head") {
        let profile = parse_profile_json(text, interner).map_err(|e| json_error(text, e, "CPU profile"))?;
        Ok((InputKind::CpuProfile, profile))
    } else if has("frames") && has("stacks") && has("samples") {
        let profile =
            parse_self_profile(text, interner, diag).map_err(|e| json_error(text, e, "JS Self-Profiling trace"))?;
        Ok((InputKind::SelfProfiling, profile))
    } else {
        let found: Vec<&str> = keys.iter().take(5).map(|(k, _)| k.as_str()).collect();
        Err(LoadError::new(
            ErrorKind::NotATrace,
            format!(
                "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: {})",
                if found.is_empty() {
                    "none".to_owned()
                } else {
                    found.join(", ")
                }
            ),
        ))
    }
}

/// The keys of the top-level object `text`, each with the offset where its
/// value starts, or the error that says where the object is broken.
fn top_level_keys(text: &str) -> Result<Vec<(String, usize)>, LoadError> {
    let b = text.as_bytes();
    let open = scan::skip_ws(b, 0);
    if b.get(open) != Some(&b'{') {
        return Err(LoadError::at(ErrorKind::NotATrace, open, "not a trace or profile"));
    }
    let mut keys = Vec::new();
    let mut i = open + 1;
    loop {
        match member_at(text, i) {
            MemberAt::Closed { .. } => return Ok(keys),
            MemberAt::NeedMore => {
                return Err(LoadError::at(
                    ErrorKind::NotATrace,
                    b.len(),
                    "unexpected end of input inside the top-level object",
                ))
            }
            MemberAt::Bad { offset, message } => return Err(LoadError::at(ErrorKind::NotATrace, offset, message)),
            MemberAt::Key { key, value } => {
                let end = scan::skip_value(b, value)
                    .map_err(|e| LoadError::at(ErrorKind::NotATrace, e.offset(), e.describe()))?;
                keys.push((key.into_owned(), value));
                i = end;
            }
        }
    }
}

/// A serde error with the byte offset of its line and column.
fn json_error(text: &str, e: serde_json::Error, what: &str) -> LoadError {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == e.line() {
            offset += e.column().saturating_sub(1);
            break;
        }
        offset += line.len();
    }
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    LoadError::at(ErrorKind::NotATrace, offset, format!("invalid {what}: {message}"))
}
