//! The streaming tokenizer: the text of a trace comes in, in pieces of any
//! size; the events go out to a sink, a chunk at a time, and the text
//! they came from is dropped. It knows the top level of the trace event
//! format (a bare array, or an object whose `traceEvents` is the array and
//! whose other keys may come before or after it) and nothing of what the
//! events mean.
//!
//! Invariants:
//! - Memory grows with the largest single event or top-level value, never
//!   with the input: text is decoded in blocks of [`BLOCK`] bytes and
//!   dropped once its events went to the sink; whitespace between events is
//!   never kept.
//! - The events reach the sink in input order, and the result is the same
//!   whatever the size of the pieces and whatever the [`Parallelism`].
//! - A document that is not a stream of events (a CPU profile, a JS
//!   Self-Profiling trace, anything else) is kept whole and handed back as
//!   [`Tokenized::Document`], for the caller to tell apart.

use std::borrow::Cow;
use std::io::Read;
use std::ops::ControlFlow;

use crate::chunks::{scan_and_take, ScanEnd};
use crate::diag::Diagnostics;
use crate::error::{ErrorKind, LoadError};
use crate::event::Event;
use crate::handler::{join_here, AnalyzeOptions, Context, Parallelism};
use crate::json::{member_at, MemberAt};
use crate::scan::{self, ArrayEnd};

/// Text is decoded in blocks of at least this size (except the first
/// few, and the last).
pub const BLOCK: usize = 16 << 20;

/// The first block's size; each next one is twice the last, up to
/// [`BLOCK`]. Decoding starts while most of the input is still to be
/// read, rather than leaving a core idle while the first 16 MB are (a
/// block is read on one core, then decoded on all).
const FIRST_BLOCK: usize = 1 << 20;

/// Where the events of a trace go.
pub trait EventSink: Send {
    /// What [`EventSink::prepare`] finds in a chunk of events.
    type Prepared: Send;

    /// The work on a chunk of events that needs nothing of the sink's
    /// state, done with [`Parallelism::Rayon`](crate::Parallelism::Rayon)
    /// on the core that scanned the chunk, before it is taken: what it
    /// gives is handed to `take` with the events. The events' names are
    /// still the chunk's own symbols, but the [known
    /// names](crate::names) have their fixed ones.
    fn prepare(events: &[Event<'_>], options: &AnalyzeOptions) -> Self::Prepared;

    /// Takes the next events, in input order, with what was prepared of
    /// them (`None` when nothing was: the sink does that work itself).
    /// The events borrow from text that is dropped after the call.
    fn take(&mut self, events: &[Event<'_>], prepared: Option<Self::Prepared>, cx: &mut Context);
}

/// The keys besides `traceEvents` that a trace object may hold and that
/// tracekit reads, as raw JSON text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopLevel {
    /// `metadata`: what the recorder says about the trace.
    pub metadata: Option<String>,
    /// `samples`: CPU samples of the trace event format (Hermes, older Chrome).
    pub samples: Option<String>,
    /// `stackFrames`: the frames those samples name.
    pub stack_frames: Option<String>,
}

impl TopLevel {
    fn slot(&mut self, key: &str) -> Option<&mut Option<String>> {
        match key {
            "metadata" => Some(&mut self.metadata),
            "samples" => Some(&mut self.samples),
            "stackFrames" => Some(&mut self.stack_frames),
            _ => None,
        }
    }
}

/// What the text turned out to be.
#[derive(Debug)]
pub enum Tokenized<'t> {
    /// A trace: its events went to the sink.
    Trace {
        /// How many events went to the sink.
        events: usize,
        /// The top-level keys tracekit reads, when the trace is an object.
        top_level: TopLevel,
        /// Bytes of text in all.
        bytes: usize,
    },
    /// A JSON document that is not a stream of events, whole.
    Document {
        /// Its text.
        text: Cow<'t, str>,
        /// Bytes of text in all.
        bytes: usize,
    },
}

/// Where the decoding of the text stands.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Only whitespace so far.
    Start,
    /// Inside the top-level object, before the event array: `next` is where
    /// the next key starts. The text is kept from the object's start, in
    /// case this is not a trace after all.
    Head { next: usize },
    /// In the event array.
    Events {
        object_form: bool,
        next: usize,
        after_event: bool,
    },
    /// After the event array of an object: the keys that follow.
    Tail { next: usize },
    /// A JSON document that is not a stream of events: kept whole.
    Whole,
    /// Nothing more to read.
    Done,
}

/// Room left before the bytes read ahead, for the text of the block before
/// that is still to be decoded (an event cut by the block's end): copied
/// there, it joins the new bytes without moving them.
const READ_AHEAD_GAP: usize = 64 << 10;

/// The streaming tokenizer (see the module documentation).
pub struct Tokenizer {
    /// The text from absolute offset `base` on is `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    base: usize,
    /// The buffer of the block before, kept for the next read ahead so that
    /// its pages are reused.
    spare: Vec<u8>,
    total: usize,
    stage: Stage,
    /// Absolute ranges of the wanted keys met before the event array (their
    /// text is still in `buf`).
    head_keys: Vec<(String, std::ops::Range<usize>)>,
    top_level: TopLevel,
    end: Option<ArrayEnd>,
    events: usize,
    /// Buffer size at which the next step is taken.
    step_at: usize,
    /// The size of the block decoded next (see [`FIRST_BLOCK`]).
    block: usize,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Tokenizer {
    /// A tokenizer at the start of a text.
    pub fn new() -> Self {
        Tokenizer {
            buf: Vec::new(),
            start: 0,
            base: 0,
            spare: Vec::new(),
            total: 0,
            stage: Stage::Start,
            head_keys: Vec::new(),
            top_level: TopLevel::default(),
            end: None,
            events: 0,
            step_at: FIRST_BLOCK,
            block: FIRST_BLOCK,
        }
    }

    /// Bytes of text taken so far.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Takes the next bytes of UTF-8 text, and decodes what it can once
    /// enough has come.
    pub fn push(&mut self, bytes: &[u8], cx: &mut Context, sink: &mut impl EventSink) -> Result<(), LoadError> {
        self.buf.extend_from_slice(bytes);
        self.total += bytes.len();
        self.maybe_step(cx, sink)
    }

    /// Reads at most `max` bytes of UTF-8 text from `reader` straight into
    /// the buffer (no extra copy), then decodes what it can. Returns how
    /// many bytes were read: 0 at the end of the reader.
    ///
    /// With [`Parallelism::Rayon`], while a block of events is decoded on
    /// the pool, this thread reads the next block ahead into a buffer of
    /// its own: reading overlaps decoding, and the reader need not be
    /// `Send`.
    pub fn read_from(
        &mut self,
        reader: &mut impl Read,
        max: u64,
        cx: &mut Context,
        sink: &mut impl EventSink,
    ) -> Result<usize, LoadError> {
        let mut n = 0;
        if self.pending() < self.step_at {
            n = append_read(reader, max, &mut self.buf).map_err(read_error)?;
            self.total += n;
            if n == 0 || self.pending() < self.step_at {
                return Ok(n);
            }
        }
        let read_ahead = cx.options.parallelism == Parallelism::Rayon && matches!(self.stage, Stage::Events { .. });
        // Enough for the next block to be decoded at once.
        let want = (self.block * 2).min(BLOCK) as u64;
        let mut read_next = |next: &mut Vec<u8>| append_read(reader, want, next);
        let ahead = self.step_and_plan(cx, sink, read_ahead.then_some(&mut read_next as ReadNext<'_>))?;
        Ok(n + ahead)
    }

    /// Bytes of text held that are still to be decoded.
    fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Decodes once enough text has come.
    fn maybe_step(&mut self, cx: &mut Context, sink: &mut impl EventSink) -> Result<(), LoadError> {
        if self.pending() < self.step_at {
            return Ok(());
        }
        self.step_and_plan(cx, sink, None).map(|_| ())
    }

    /// A step, then the size at which the next is taken. When a step can
    /// take nothing (a document that is not a stream of events, or one
    /// event larger than a block), the next waits until the text held has
    /// doubled, so that the text is scanned a bounded number of times in
    /// all. Returns how many bytes `read_ahead` read (see [`Self::step`]).
    fn step_and_plan(
        &mut self,
        cx: &mut Context,
        sink: &mut impl EventSink,
        read_ahead: Option<ReadNext<'_>>,
    ) -> Result<usize, LoadError> {
        let before = self.base;
        let pending = self.pending();
        let read = self.step(false, cx, sink, read_ahead)?;
        if self.base == before {
            self.step_at = pending * 2;
        } else {
            self.block = (self.block * 2).min(BLOCK);
            self.step_at = self.block;
        }
        Ok(read)
    }

    /// Decodes what the buffer holds, then drops the text no longer needed.
    /// With `read_ahead`, this thread reads the next bytes while the text is
    /// decoded on the pool: they go after [`READ_AHEAD_GAP`] bytes of room
    /// in the spare buffer, and the text still to be decoded is copied
    /// into that room. Returns how many bytes were read ahead.
    fn step(
        &mut self,
        at_end: bool,
        cx: &mut Context,
        sink: &mut impl EventSink,
        read_ahead: Option<ReadNext<'_>>,
    ) -> Result<usize, LoadError> {
        let buf = std::mem::take(&mut self.buf);
        let start = self.start;
        let mut next = std::mem::take(&mut self.spare);
        let mut decode = || {
            utf8_prefix(&buf[start..], self.base, at_end, &mut cx.diagnostics)
                .and_then(|text| self.advance(text, at_end, cx, sink))
        };
        let (result, read) = match read_ahead {
            Some(read) => {
                next.clear();
                // Room for a whole block at once, though the first blocks
                // are smaller: grown block by block, each buffer took
                // fresh pages at each size (47 MB in all, against 33).
                // A new buffer, not a grown one: growing copies what the
                // old one held, though none of it is wanted.
                if next.capacity() < READ_AHEAD_GAP + BLOCK {
                    next = Vec::with_capacity(READ_AHEAD_GAP + BLOCK);
                }
                next.resize(READ_AHEAD_GAP, 0);
                let (result, read) = join_here(decode, || read(&mut next));
                (result, Some(read))
            }
            None => (decode(), None),
        };
        let keep_from = match result {
            Ok(keep_from) => keep_from,
            Err(e) => {
                self.buf = buf;
                return Err(e);
            }
        };
        let keep = start + (keep_from - self.base)..buf.len();
        self.base = keep_from;
        let Some(Ok(read)) = read else {
            self.buf = buf;
            self.buf.drain(..keep.start);
            self.start = 0;
            self.spare = next;
            return read.transpose().map(|_| 0).map_err(read_error);
        };
        // The text still to be decoded, then the bytes read ahead.
        let kept = keep.len();
        if kept <= READ_AHEAD_GAP {
            next[READ_AHEAD_GAP - kept..READ_AHEAD_GAP].copy_from_slice(&buf[keep]);
            self.start = READ_AHEAD_GAP - kept;
            self.buf = next;
        } else {
            let mut joined = Vec::with_capacity(kept + next.len() - READ_AHEAD_GAP);
            joined.extend_from_slice(&buf[keep]);
            joined.extend_from_slice(&next[READ_AHEAD_GAP..]);
            self.start = 0;
            self.buf = joined;
        }
        self.spare = buf;
        self.total += read;
        Ok(read)
    }

    /// Ends the text: decodes the rest and says what the text was.
    pub fn finish(mut self, cx: &mut Context, sink: &mut impl EventSink) -> Result<Tokenized<'static>, LoadError> {
        self.step(true, cx, sink, None)?;
        let mut buf = std::mem::take(&mut self.buf);
        buf.drain(..self.start);
        // `step` warned already of a character cut by the end of the input.
        if let Err(e) = std::str::from_utf8(&buf) {
            buf.truncate(e.valid_up_to());
        }
        let text = String::from_utf8(buf).unwrap_or_default();
        match self.conclude(cx)? {
            Some(trace) => Ok(trace),
            None => Ok(Tokenized::Document {
                text: Cow::Owned(text),
                bytes: self.total,
            }),
        }
    }

    /// Decodes a whole text held in memory, without copying it.
    pub fn run_whole<'t>(
        text: &'t [u8],
        cx: &mut Context,
        sink: &mut impl EventSink,
    ) -> Result<Tokenized<'t>, LoadError> {
        let mut tokenizer = Tokenizer::new();
        let valid = utf8_prefix(text, 0, true, &mut cx.diagnostics)?;
        tokenizer.total = text.len();
        tokenizer.advance(valid, true, cx, sink)?;
        match tokenizer.conclude(cx)? {
            Some(trace) => Ok(trace),
            None => Ok(Tokenized::Document {
                text: Cow::Borrowed(valid),
                bytes: text.len(),
            }),
        }
    }

    /// After the last step: the trace, `None` for a document kept whole, or
    /// the error that no event could be read.
    fn conclude(&mut self, cx: &mut Context) -> Result<Option<Tokenized<'static>>, LoadError> {
        let input_bytes = self.total;
        match self.stage {
            Stage::Start => Err(LoadError::new(
                ErrorKind::Empty,
                if input_bytes == 0 {
                    "empty file"
                } else {
                    "file holds only whitespace"
                },
            )),
            Stage::Whole => Ok(None),
            Stage::Head { .. } => Err(LoadError::at(
                ErrorKind::NotATrace,
                input_bytes,
                "unexpected end of input inside the top-level object",
            )),
            Stage::Events { .. } | Stage::Tail { .. } | Stage::Done => {
                let end = self.end.take().unwrap_or(ArrayEnd::Truncated { offset: input_bytes });
                let top_level = std::mem::take(&mut self.top_level);
                if self.events == 0 && top_level.samples.is_none() {
                    return Err(no_event_error(&end, &cx.diagnostics));
                }
                if let Some(warning) = array_end_warning(&end, self.events) {
                    cx.diagnostics.warn(warning);
                }
                Ok(Some(Tokenized::Trace {
                    events: self.events,
                    top_level,
                    bytes: input_bytes,
                }))
            }
        }
    }

    /// Runs the stages over `text` (which starts at `self.base`); returns
    /// the absolute offset from which text must be kept.
    fn advance(
        &mut self,
        text: &str,
        at_end: bool,
        cx: &mut Context,
        sink: &mut impl EventSink,
    ) -> Result<usize, LoadError> {
        let base = self.base;
        let b = text.as_bytes();
        loop {
            let flow = match self.stage {
                Stage::Start => self.read_start(text)?,
                Stage::Head { next } => self.read_head(text, next, at_end),
                Stage::Events {
                    object_form,
                    next,
                    after_event,
                } => {
                    // A block's worth of text, counting what came before
                    // the events in it (the first block, 1 MB, holds the
                    // trace's head too).
                    if !at_end && b.len() < self.block {
                        return Ok(next);
                    }
                    let scanned = self.decode_events(text, next - base, after_event, at_end, cx, sink);
                    // A string the table had no room for fails the load
                    // here, at the block's end, rather than at the input's.
                    cx.interner.check_overflow()?;
                    self.events_scanned(scanned, object_form, at_end, base + b.len())
                }
                Stage::Tail { next } => self.read_tail(text, next, at_end, cx),
                Stage::Whole => ControlFlow::Break(base),
                Stage::Done => ControlFlow::Break(base + b.len()),
            };
            if let ControlFlow::Break(keep_from) = flow {
                return Ok(keep_from);
            }
        }
    }

    /// [`Stage::Start`]: the first character says which form the text has.
    /// Breaks with the offset to keep text from when there is only
    /// whitespace so far.
    fn read_start(&mut self, text: &str) -> Result<ControlFlow<usize>, LoadError> {
        let base = self.base;
        let b = text.as_bytes();
        let mut i = scan::skip_ws(b, 0);
        if base == 0 && text.starts_with('\u{feff}') {
            i = scan::skip_ws(b, 3);
        }
        match b.get(i) {
            None => return Ok(ControlFlow::Break(base + b.len())),
            Some(b'[') => {
                self.stage = Stage::Events {
                    object_form: false,
                    next: base + i + 1,
                    after_event: false,
                }
            }
            Some(b'{') => self.stage = Stage::Head { next: base + i + 1 },
            Some(&c) => {
                return Err(LoadError::at(
                    ErrorKind::NotATrace,
                    base + i,
                    format!(
                        "not a trace or profile: expected '[' or '{{', found {}",
                        scan::describe_byte(c)
                    ),
                ))
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// [`Stage::Head`]: the key at `next`, kept if wanted, until the event
    /// array starts or the text proves not to be a trace. Breaks with the
    /// offset to keep text from when the key is not all there yet.
    fn read_head(&mut self, text: &str, next: usize, at_end: bool) -> ControlFlow<usize> {
        let base = self.base;
        let b = text.as_bytes();
        let local = |at: usize| at - base;
        match member_at(text, local(next)) {
            MemberAt::NeedMore if !at_end => return ControlFlow::Break(base),
            MemberAt::Key { key, value } if key == "traceEvents" && b[value] == b'[' => {
                // A trace after all: keep the wanted keys met so far,
                // and let the rest of the head go.
                for (key, range) in std::mem::take(&mut self.head_keys) {
                    if let Some(slot) = self.top_level.slot(&key) {
                        *slot = Some(text[local(range.start)..local(range.end)].to_owned());
                    }
                }
                self.stage = Stage::Events {
                    object_form: true,
                    next: base + value + 1,
                    after_event: false,
                };
            }
            MemberAt::Key { key, value } => match scan::skip_value(b, value) {
                Ok(end) => {
                    if self.top_level.slot(&key).is_some() {
                        self.head_keys.push((key.into_owned(), base + value..base + end));
                    }
                    self.stage = Stage::Head { next: base + end };
                }
                Err(scan::ScanError::UnexpectedEnd { .. }) if !at_end => return ControlFlow::Break(base),
                Err(_) => self.stage = Stage::Whole,
            },
            // Not a trace: the whole document goes to the caller.
            MemberAt::NeedMore | MemberAt::Closed { .. } | MemberAt::Bad { .. } => self.stage = Stage::Whole,
        }
        ControlFlow::Continue(())
    }

    /// [`Stage::Events`], after a scan of the events: on to the next block,
    /// to the keys after the array, or to the end. `text_end` is the
    /// absolute offset where the text ends. Breaks with the offset to keep
    /// text from when the array goes on in the text still to come.
    fn events_scanned(
        &mut self,
        scanned: ScanEnd,
        object_form: bool,
        at_end: bool,
        text_end: usize,
    ) -> ControlFlow<usize> {
        let ScanEnd {
            resume,
            resume_after_event: after_event,
            end,
        } = scanned;
        let resume = self.base + resume;
        match end {
            None if at_end => {
                self.end = Some(ArrayEnd::Truncated { offset: text_end });
                self.stage = Stage::Done;
            }
            None => {
                self.stage = Stage::Events {
                    object_form,
                    next: resume,
                    after_event,
                };
                return ControlFlow::Break(resume);
            }
            Some(ArrayEnd::Closed { after }) if object_form => {
                self.end = Some(ArrayEnd::Closed { after });
                self.stage = Stage::Tail { next: after };
            }
            Some(end) => {
                self.end = Some(end);
                self.stage = Stage::Done;
            }
        }
        ControlFlow::Continue(())
    }

    /// [`Stage::Tail`]: the key at `next`, after the event array, kept if
    /// wanted. Breaks with the offset to keep text from when the key is not
    /// all there yet.
    fn read_tail(&mut self, text: &str, next: usize, at_end: bool, cx: &mut Context) -> ControlFlow<usize> {
        let base = self.base;
        let b = text.as_bytes();
        match member_at(text, next - base) {
            MemberAt::NeedMore if !at_end => return ControlFlow::Break(next),
            MemberAt::Key { key, value } => match scan::skip_value(b, value) {
                Ok(end) => {
                    if let Some(slot) = self.top_level.slot(&key) {
                        *slot = Some(text[value..end].to_owned());
                    }
                    self.stage = Stage::Tail { next: base + end };
                }
                Err(scan::ScanError::UnexpectedEnd { .. }) if !at_end => return ControlFlow::Break(next),
                Err(e) => {
                    self.tail_damaged(
                        &LoadError::at(ErrorKind::NotATrace, base + e.offset(), e.describe()),
                        cx,
                    );
                }
            },
            // The closing brace, or the end of the input where it
            // should be: nothing is lost either way.
            MemberAt::Closed { .. } | MemberAt::NeedMore => self.stage = Stage::Done,
            MemberAt::Bad { offset, message } => {
                self.tail_damaged(&LoadError::at(ErrorKind::NotATrace, base + offset, message), cx);
            }
        }
        ControlFlow::Continue(())
    }

    /// Damage after the event array costs no event: only a warning.
    fn tail_damaged(&mut self, e: &LoadError, cx: &mut Context) {
        cx.diagnostics.warn(format!(
            "after the events, the trace object is damaged ({e}): its other keys are ignored"
        ));
        self.stage = Stage::Done;
    }

    /// Decodes the events of `text` from `start`, a chunk at a time: the
    /// sink takes each chunk as soon as it is scanned (with Rayon, while
    /// the chunks after it are scanned on the other cores). Returns where
    /// the scan stopped (in `text`), whether that is just after an event,
    /// and how the array ended, if it did.
    fn decode_events<S: EventSink>(
        &mut self,
        text: &str,
        start: usize,
        after_event: bool,
        at_end: bool,
        cx: &mut Context,
        sink: &mut S,
    ) -> ScanEnd {
        let (base, parallelism) = (self.base, cx.options.parallelism);
        // Called from outside the pool, the chunks are taken on one of its
        // threads: their stage belongs to the caller's all the same.
        let caller = tracing::Span::current();
        let mut decoded = 0;
        let options = cx.options;
        let prepare = |events: &[Event<'_>]| {
            (parallelism == Parallelism::Rayon).then(|| <S as EventSink>::prepare(events, &options))
        };
        let end = scan_and_take(
            text,
            start,
            after_event,
            at_end,
            base,
            parallelism,
            prepare,
            |chunk, prepared| {
                let _span = tracing::info_span!(parent: &caller, "handlers").entered();
                let events = chunk.into_events(&mut cx.interner, &mut cx.diagnostics);
                sink.take(&events, prepared, cx);
                decoded += events.len();
            },
        );
        self.events += decoded;
        end
    }
}

/// Appends the next bytes of the input to a buffer; how many, 0 at its
/// end.
type ReadNext<'r> = &'r mut dyn FnMut(&mut Vec<u8>) -> std::io::Result<usize>;

/// Appends up to `max` bytes of `reader` to `buf`, with room for them
/// (up to a block) made first: `read_to_end` alone grows the buffer by
/// doubling, each time a copy to fresh pages.
fn append_read(reader: &mut impl Read, max: u64, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    buf.reserve(usize::try_from(max).unwrap_or(BLOCK).min(BLOCK));
    reader.take(max).read_to_end(buf)
}

fn read_error(e: std::io::Error) -> LoadError {
    LoadError::new(ErrorKind::Io, format!("reading the input: {e}"))
}

/// The error of a trace from which no event could be read.
fn no_event_error(end: &ArrayEnd, diag: &Diagnostics) -> LoadError {
    match end {
        ArrayEnd::Damaged { offset, message } => LoadError::at(ErrorKind::Unreadable, *offset, message.clone()),
        ArrayEnd::Truncated { offset } => LoadError::at(
            ErrorKind::Unreadable,
            *offset,
            "the trace is truncated before its first event",
        ),
        ArrayEnd::Closed { .. } => match diag.skipped.iter().next() {
            Some((reason, record)) => LoadError::new(
                ErrorKind::Unreadable,
                format!(
                    "no event could be read: {} skipped (first: {reason}: {})",
                    diag.total_skipped(),
                    record.first_example
                ),
            ),
            None => LoadError::new(ErrorKind::Unreadable, "the trace holds no events"),
        },
    }
}

/// The warning for an event array that did not close.
fn array_end_warning(end: &ArrayEnd, events: usize) -> Option<String> {
    match end {
        ArrayEnd::Closed { .. } => None,
        ArrayEnd::Truncated { offset } => Some(format!(
            "the trace is truncated: loading stopped at byte {offset}, after {events} events"
        )),
        ArrayEnd::Damaged { offset, message } => Some(format!(
            "the trace is damaged: loading stopped at byte {offset} ({message}), after {events} events"
        )),
    }
}

/// The valid UTF-8 text at the start of `bytes` (which start at absolute
/// offset `base`): a character cut by the end of the buffer waits for the
/// next bytes, or, at the end of the input, is dropped with a warning.
fn utf8_prefix<'b>(bytes: &'b [u8], base: usize, at_end: bool, diag: &mut Diagnostics) -> Result<&'b str, LoadError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) if e.error_len().is_none() => {
            if at_end {
                diag.warn(format!(
                    "the input ends inside a UTF-8 character at byte {}",
                    base + e.valid_up_to()
                ));
            }
            Ok(std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default())
        }
        Err(e) => Err(LoadError::at(
            ErrorKind::Encoding,
            base + e.valid_up_to(),
            "invalid UTF-8: not a JSON trace or profile",
        )),
    }
}

#[cfg(test)]
mod tests;
