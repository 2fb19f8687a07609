//! The event array, a chunk at a time: with [`Parallelism::Rayon`] the
//! text is cut into chunks at guessed event boundaries, scanned and
//! decoded on all cores, and every guessed boundary is checked against
//! where the chunk before it really stopped, so that the result is exactly
//! a sequential scan's. Chunks intern names on their own;
//! [`ScannedChunk::into_events`] puts them in the shared table, in order.

use crate::diag::{Diagnostics, Divergence, Skip};
use crate::event::Id;
use crate::event::{read_event_object, Event, Phase, RawEvent, ReadError};
use crate::handler::Parallelism;
use crate::pipeline::make_ahead;
use crate::scan::{self, describe_byte, ArrayEnd};
use crate::sym::{Interner, Sym};
use crate::units::Micros;

/// What one worker found between two event boundaries.
struct Chunk<'a> {
    start: usize,
    events: Vec<Event<'a>>,
    interner: Interner,
    diag: Diagnostics,
    /// Where the next event starts, when the array did not end here.
    stop: usize,
    /// `stop` is just after an event whose separator is still to come.
    stopped_after_event: bool,
    end: Option<ArrayEnd>,
}

/// Scans and decodes the events from `start` (an element boundary, or
/// just after an event) until the next event would start at or after
/// `limit`, or the array ends, or the text does. An event complete at the
/// end of the text is taken even before its separator has come (the next
/// block then starts with `after_event` set), so that whitespace
/// after an event is never kept. `base` is the absolute offset of `text`;
/// `at_end` says the input ends with it.
fn scan_chunk(
    text: &str,
    start: usize,
    after_event: bool,
    limit: usize,
    at_end: bool,
    base: usize,
    mut interner: Interner,
) -> Chunk<'_> {
    let b = text.as_bytes();
    let mut diag = Diagnostics::default();
    let mut pending = Diagnostics::default();
    // Sized for events of 128 bytes, smaller than most, so that the list
    // is seldom grown (each time a copy): what is reserved and not used
    // is never touched, so it takes no memory.
    let mut events = Vec::with_capacity(limit.min(b.len()).saturating_sub(start) / 128);
    let mut i = start;
    let mut stop;
    let mut stopped_after_event = false;
    // Just after an event, a separator must come first.
    let mut need_separator = after_event;
    let end = loop {
        i = scan::skip_ws(b, i);
        stop = i;
        if need_separator {
            match b.get(i) {
                None => {
                    // The separator is in the next block, if any.
                    stopped_after_event = true;
                    break at_end.then_some(ArrayEnd::Truncated { offset: base + b.len() });
                }
                Some(b',') => {
                    i += 1;
                    need_separator = false;
                    continue;
                }
                Some(b']') => break Some(ArrayEnd::Closed { after: base + i + 1 }),
                Some(&c) => {
                    break Some(ArrayEnd::Damaged {
                        offset: base + i,
                        message: format!("expected ',' or ']' after an event, found {}", describe_byte(c)),
                    })
                }
            }
        }
        if i >= b.len() {
            break at_end.then_some(ArrayEnd::Truncated { offset: base + b.len() });
        }
        if b[i] == b']' {
            // Also accepts a trailing comma before the bracket.
            break Some(ArrayEnd::Closed { after: base + i + 1 });
        }
        if i >= limit {
            break None;
        }
        let element = i;
        match read_element(text, element, base, &mut interner, &mut pending, &mut events) {
            Ok(after) => {
                if !pending.is_empty() {
                    diag.merge(std::mem::take(&mut pending));
                }
                i = after;
                need_separator = true;
            }
            Err(scan::ScanError::UnexpectedEnd { .. }) => {
                break at_end.then_some(ArrayEnd::Truncated { offset: base + element });
            }
            Err(e) => {
                break Some(ArrayEnd::Damaged {
                    offset: base + e.offset(),
                    message: e.describe(),
                })
            }
        }
    };
    Chunk {
        start,
        events,
        interner,
        diag,
        stop,
        stopped_after_event,
        end,
    }
}

/// A likely event boundary at or after `from` and before `to`: an object
/// that follows a comma, preferably at the start of a line (Chrome writes
/// one event per line). It may be wrong (an object in a list inside an
/// event): the merge checks every boundary and rescans where it was.
fn guess_boundary(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let follows_comma = |j: usize| {
        let mut k = j;
        while k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\n' | b'\r') {
            k -= 1;
        }
        k > 0 && b[k - 1] == b','
    };
    let window = to.min(from.saturating_add(1 << 20));
    let mut at = from;
    while let Some(nl) = memchr::memchr(b'\n', &b[at..window]) {
        let j = scan::skip_ws(b, at + nl);
        if j < to && b[j] == b'{' && follows_comma(j) {
            return Some(j);
        }
        at = at + nl + 1;
    }
    let mut at = from;
    while let Some(k) = memchr::memchr(b'{', &b[at..to]) {
        let j = at + k;
        if follows_comma(j) {
            return Some(j);
        }
        at = j + 1;
    }
    None
}

/// The size of the chunks scanned on all cores with
/// [`Parallelism::Rayon`]. Smaller chunks leave a core less to wait for
/// when the text of a block runs out, but each costs a table of names of
/// its own, put in the shared one when it is taken (bench trace, two
/// threads, 21 runs alternating: loading alone 188 ms with 512 KB, 196 ms
/// with 256 KB, 188 ms with 1 MB).
const PARALLEL_CHUNK: usize = 512 << 10;

/// The size of the chunks scanned in turn on one core
/// ([`Parallelism::Sequential`], or a pool of one thread): there, a chunk
/// only bounds the events held at once.
const SEQUENTIAL_CHUNK: usize = 4 << 20;

/// The events of one chunk of an event array, scanned and decoded, with
/// their names still in a table of the chunk's own. Making it needs no
/// shared state, so it can be made on any core, while the handlers take
/// the chunks before it.
pub struct ScannedChunk<'a>(Chunk<'a>);

impl<'a> ScannedChunk<'a> {
    /// The events, in order, with their names interned in `interner`.
    pub fn into_events(self, interner: &mut Interner, diag: &mut Diagnostics) -> Vec<Event<'a>> {
        let Chunk {
            events,
            interner: own,
            diag: own_diag,
            ..
        } = self.0;
        let remap = interner.remap(&own);
        let sym = |s: Sym| remap[s.0 as usize];
        let id = |v: Id| v.as_sym().map_or(v, |s| Id::str(sym(s)));
        diag.merge(own_diag);
        // Collected in place, in the chunk's own list.
        events
            .into_iter()
            .map(|e| Event {
                name: sym(e.name),
                cat: sym(e.cat),
                pid: id(e.pid),
                tid: id(e.tid),
                id: e.id.map(id),
                sample_trace_id: e.sample_trace_id.map(|t| match t {
                    crate::SampleTraceId::Str(s) => crate::SampleTraceId::Str(sym(s)),
                    other => other,
                }),
                ..e
            })
            .collect()
    }
}

/// Where [`scan_and_take`] stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanEnd {
    /// Where the next event (or the whitespace before it, or the separator
    /// after the last one) starts, in the text scanned.
    pub resume: usize,
    /// `resume` is just after an event whose separator is still to come.
    pub resume_after_event: bool,
    /// How the array ended, if it did. Offsets are absolute.
    pub end: Option<ArrayEnd>,
}

/// Scans and decodes the events of an event array found in `text` from
/// `start` (just after the `[`, or where the last scan resumed) until the
/// array ends or the text does, and hands them to `take` a chunk at a
/// time, in order, on the calling thread. Events that cannot be decoded
/// are skipped and counted. An event cut by the end of the text is left
/// for the next text (`ScanEnd::resume`). `at_end` says the input ends
/// with `text`; `base` is the absolute offset of `text`.
///
/// With [`Parallelism::Rayon`] (and more than one thread) the chunks are
/// cut at guessed event boundaries and all queued at once on the pool;
/// each is taken as soon as it is scanned, while the others are scanned
/// on the other cores, and the taking thread scans queued ones while it
/// waits, so that no core waits for a batch to end. A chunk whose guessed
/// start is not where the one before stopped is scanned again from there.
///
/// Each chunk's events are handed to `prepare` by the core that scanned
/// them (their names still the chunk's own symbols, the known names at
/// their fixed ones), and what it gives to `take` with the chunk.
#[allow(clippy::too_many_arguments)]
pub fn scan_and_take<'a, P: Send>(
    text: &'a str,
    start: usize,
    after_event: bool,
    at_end: bool,
    base: usize,
    parallelism: Parallelism,
    prepare: impl Fn(&[Event<'a>]) -> P + Sync,
    mut take: impl FnMut(ScannedChunk<'a>, P) + Send,
) -> ScanEnd {
    let b = text.as_bytes();
    // The scans belong to the caller's stage, on whichever core they run.
    let caller = tracing::Span::current();
    let scan = |from: usize, after_event: bool, limit: usize| {
        let _span = tracing::info_span!(parent: &caller, "parse").entered();
        scan_chunk(text, from, after_event, limit, at_end, base, Interner::new())
    };
    let prepare = |chunk: &Chunk<'a>| {
        let _span = tracing::info_span!(parent: &caller, "prepare").entered();
        prepare(&chunk.events)
    };
    let scan_and_prepare = |from: usize, after_event: bool, limit: usize| {
        let chunk = scan(from, after_event, limit);
        let prepared = prepare(&chunk);
        (chunk, prepared)
    };
    let mut stitch = Stitch {
        at: ScanEnd {
            resume: start,
            resume_after_event: after_event,
            end: None,
        },
        done: false,
    };
    // Takes the next chunk, whose range ends at `limit`; whether to go on.
    let mut hand_over = |stitch: &mut Stitch, (chunk, prepared): (Chunk<'a>, P), limit: usize| {
        let start = chunk.start;
        if let Some(chunk) = stitch.accept(chunk, limit, scan) {
            // Scanned again from elsewhere: prepared again.
            let prepared = if chunk.start == start {
                prepared
            } else {
                prepare(&chunk)
            };
            take(ScannedChunk(chunk), prepared);
        }
        !stitch.done
    };
    if parallelism == Parallelism::Rayon && rayon::current_num_threads() > 1 {
        let pieces = (b.len().saturating_sub(start) / PARALLEL_CHUNK).max(1);
        let starts = guessed_starts(b, start, pieces);
        let limits: Vec<usize> = starts.iter().skip(1).copied().chain([usize::MAX]).collect();
        make_ahead(
            starts.len(),
            |k| scan_and_prepare(starts[k], k == 0 && after_event, limits[k]),
            |k, chunk| hand_over(&mut stitch, chunk, limits[k]),
        );
    } else {
        loop {
            let (from, after_event) = (stitch.at.resume, stitch.at.resume_after_event);
            let limit = if b.len().saturating_sub(from) > 2 * SEQUENTIAL_CHUNK {
                from + SEQUENTIAL_CHUNK
            } else {
                usize::MAX
            };
            if !hand_over(&mut stitch, scan_and_prepare(from, after_event, limit), limit) {
                break;
            }
        }
    }
    stitch.at
}

/// The starts of `pieces` chunks of about equal size from `start` to the
/// end of `b`: `start` itself, then a guessed event boundary in each next
/// piece that has one.
fn guessed_starts(b: &[u8], start: usize, pieces: usize) -> Vec<usize> {
    let len = b.len().saturating_sub(start);
    let mut starts = vec![start];
    for k in 1..pieces {
        let from = start + len * k / pieces;
        let to = start + len * (k + 1) / pieces;
        let after_last = starts.last().map_or(start, |s| s + 1);
        if let Some(s) = guess_boundary(b, from.max(after_last), to) {
            starts.push(s);
        }
    }
    starts
}

/// Chunks scanned apart, taken back in order.
struct Stitch {
    /// Where the chunks taken so far stopped.
    at: ScanEnd,
    /// The array ended, or the text did: no later chunk counts.
    done: bool,
}

impl Stitch {
    /// The next chunk, whose range ends at `limit`: kept as it is if it
    /// starts where the one before stopped, else scanned again from there
    /// with `scan`; `None` if an event of the chunk before ran past it.
    fn accept<'a>(
        &mut self,
        chunk: Chunk<'a>,
        limit: usize,
        scan: impl Fn(usize, bool, usize) -> Chunk<'a>,
    ) -> Option<Chunk<'a>> {
        let at = &mut self.at;
        if at.resume >= limit {
            return None;
        }
        let chunk = if chunk.start == at.resume {
            chunk
        } else {
            scan(at.resume, at.resume_after_event, limit)
        };
        at.resume = chunk.stop;
        at.resume_after_event = chunk.stopped_after_event;
        at.end = chunk.end.clone();
        // Stopped before its limit: the text ended there.
        self.done = at.end.is_some() || chunk.stop < limit;
        Some(chunk)
    }
}

/// Decodes one event from its raw fields and adds it to `events` (pushed
/// here rather than returned: handed up through the callers, each event
/// was copied twice more, each copy reading back fields just written).
/// `offset` (where it starts in the input) only serves to name it in
/// diagnostics.
fn finish_event<'a>(
    raw: RawEvent<'a>,
    text: &'a str,
    offset: usize,
    interner: &mut Interner,
    diag: &mut Diagnostics,
    events: &mut Vec<Event<'a>>,
) {
    if raw.ts.as_ref().is_some_and(|n| n.was_string) || raw.dur.as_ref().is_some_and(|n| n.was_string) {
        diag.diverge(Divergence::NumericStrings, || {
            format!("event at byte {offset} writes its ts or dur as a string")
        });
    }
    let Some(name) = raw.name else {
        diag.skip(Skip::EventMissingName, || format!("event at byte {offset}"));
        diag.diverge(Divergence::EventWithoutName, || format!("event at byte {offset}"));
        return;
    };
    let ph = raw.ph.map(|p| Phase::from_str(&p)).unwrap_or(Phase::OTHER);
    if raw.cat.is_none() && ph != Phase::METADATA {
        diag.diverge(Divergence::EventWithoutCategory, || {
            format!("event at byte {offset} has no cat (DevTools' aggregated views fail on it)")
        });
    }
    let ts = match raw.ts.map(|n| Micros(n.value)) {
        Some(ts) => ts,
        None if ph == Phase::METADATA => Micros::ZERO,
        None => {
            diag.skip(Skip::EventMissingTs, || format!("event at byte {offset}"));
            return;
        }
    };
    events.push(Event {
        name: interner.intern(&name),
        cat: raw.cat.map(|c| interner.intern(&c)).unwrap_or(crate::names::EMPTY),
        ph,
        ts,
        dur: raw.dur.map(|n| Micros(n.value)),
        pid: raw.pid.map(|p| p.intern(interner)).unwrap_or(Id::MISSING),
        tid: raw.tid.map(|t| t.intern(interner)).unwrap_or(Id::MISSING),
        id: raw.id.map(|i| i.intern(interner)),
        sample_trace_id: match (ph, raw.args) {
            (Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT, Some(args)) => {
                crate::trace_id::sample_trace_id(args, interner)
            }
            _ => None,
        },
        args: raw.args,
        text,
    });
}

/// Reads the array element at `start`: an event, added to `events`, or
/// something skipped and counted. Returns the offset past the element.
fn read_element<'a>(
    text: &'a str,
    start: usize,
    base: usize,
    interner: &mut Interner,
    diag: &mut Diagnostics,
    events: &mut Vec<Event<'a>>,
) -> Result<usize, scan::ScanError> {
    let b = text.as_bytes();
    let problem = if b[start] == b'{' {
        match read_event_object(text, start) {
            Ok((raw, end)) => {
                finish_event(raw, &text[start..end], base + start, interner, diag, events);
                return Ok(end);
            }
            Err(ReadError::End) => return Err(scan::ScanError::UnexpectedEnd { offset: b.len() }),
            Err(ReadError::Bad { offset, message }) => format!("at byte {}: {message}", base + offset),
        }
    } else {
        "not an object".to_owned()
    };
    let end = scan::skip_value(b, start)?;
    diag.skip(Skip::EventNotAnObject, || {
        format!("event at byte {}: {problem}", base + start)
    });
    Ok(end)
}
