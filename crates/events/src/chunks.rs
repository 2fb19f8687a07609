//! The event array, a stretch at a time: the stretch is cut into chunks
//! at guessed event boundaries, each chunk is scanned and its events
//! decoded (on all cores with [`Parallelism::Rayon`]), and every guessed
//! boundary is checked against where the chunk before it really stopped,
//! so that the result is exactly a sequential scan's. Chunks intern names
//! on their own; [`ScannedBlock::into_events`] stitches them in order.

use crate::diag::{Diagnostics, Divergence, Skip};
use crate::event::Id;
use crate::event::{read_event_object, Event, Phase, RawEvent, ReadError};
use crate::handler::Parallelism;
use crate::scan::{self, describe_byte, ArrayEnd};
use crate::sym::{Interner, Sym};
use crate::units::Micros;

/// Stretches shorter than this are scanned by one worker: cutting them
/// would cost more than it saves. Below a stretch (4 MB), so that a
/// stretch scanned while the previous one is handled is cut too: the core
/// that finishes handling first takes the scan's remaining pieces, and the
/// first stretch of a block, which nothing else overlaps, is scanned on
/// every core. (On the bench trace, `--threads 2` was faster in 9 runs of
/// 10 than with 4 MB, 5% on average.)
pub(crate) const PARALLEL_MIN: usize = 1 << 20;

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

/// A stretch of an event array, scanned and decoded (possibly on several
/// cores) but not yet stitched: names are still interned per chunk. Making
/// it needs no shared state, so it can run while the handlers take the
/// stretch before it.
pub struct ScannedBlock<'a> {
    chunks: Vec<Chunk<'a>>,
    /// Where the scan stopped in the text: the next event (or the
    /// whitespace before it, or the separator after the last one) starts
    /// there.
    pub resume: usize,
    /// `resume` is just after an event whose separator is still to come.
    pub resume_after_event: bool,
    /// How the array ended, if it did in this stretch. Offsets are absolute.
    pub end: Option<ArrayEnd>,
}

/// Scans and decodes the events of an event array found in `text` from
/// `start` (just after the `[`, or where the previous stretch resumed)
/// until the next event would start at or after `limit`, the array ends,
/// or the text does. Events that cannot be decoded are skipped and counted.
/// With [`Parallelism::Rayon`] a large stretch is cut into chunks at guessed
/// event boundaries and decoded on all cores; every guessed boundary is
/// checked against the chunk before it (and the stretch scanned again from
/// there when wrong), so the result is a sequential scan's. `at_end` says
/// the input ends with `text`; `base` is the absolute offset of `text`.
#[allow(clippy::too_many_arguments)]
pub fn scan_event_block<'a>(
    text: &'a str,
    start: usize,
    after_event: bool,
    limit: usize,
    at_end: bool,
    base: usize,
    parallelism: Parallelism,
) -> ScannedBlock<'a> {
    let b = text.as_bytes();
    let workers = match parallelism {
        Parallelism::Sequential => 1,
        Parallelism::Rayon => rayon::current_num_threads(),
    };
    let stop_at = limit.min(b.len());
    let len = stop_at.saturating_sub(start);
    let pieces = if workers > 1 && len > PARALLEL_MIN {
        workers * 4
    } else {
        1
    };
    let mut starts = vec![start];
    for k in 1..pieces {
        let from = start + len * k / pieces;
        let to = start + len * (k + 1) / pieces;
        let after_last = starts.last().map_or(start, |s| s + 1);
        if let Some(s) = guess_boundary(b, from.max(after_last), to) {
            starts.push(s);
        }
    }
    let limits: Vec<usize> = starts.iter().skip(1).copied().chain(std::iter::once(limit)).collect();
    let chunks: Vec<Chunk<'a>> = if starts.len() == 1 {
        vec![scan_chunk(
            text,
            start,
            after_event,
            limit,
            at_end,
            base,
            Interner::new(),
        )]
    } else {
        use rayon::prelude::*;
        starts
            .par_iter()
            .zip(limits.par_iter())
            .enumerate()
            .map(|(k, (&s, &l))| scan_chunk(text, s, k == 0 && after_event, l, at_end, base, Interner::new()))
            .collect()
    };

    // A chunk counts only if it starts where the one before stopped;
    // otherwise that stretch is scanned again from there.
    let mut kept = Vec::with_capacity(chunks.len());
    let mut resume = start;
    let mut resume_after_event = after_event;
    let mut end: Option<ArrayEnd> = None;
    for (index, chunk) in chunks.into_iter().enumerate() {
        let chunk_limit = limits[index];
        if resume >= chunk_limit {
            // An event of the chunk before ran past this whole chunk.
            continue;
        }
        let chunk = if chunk.start == resume {
            chunk
        } else {
            scan_chunk(
                text,
                resume,
                resume_after_event,
                chunk_limit,
                at_end,
                base,
                Interner::new(),
            )
        };
        resume = chunk.stop;
        resume_after_event = chunk.stopped_after_event;
        end = chunk.end.clone();
        let stopped_early = chunk.stop < chunk_limit;
        kept.push(chunk);
        if end.is_some() || stopped_early {
            // The array ended, or the text did (before the limit).
            break;
        }
    }
    ScannedBlock {
        chunks: kept,
        resume,
        resume_after_event,
        end,
    }
}

impl<'a> ScannedBlock<'a> {
    /// How many chunks the stretch was cut into (more than one when it was
    /// scanned in parallel).
    #[cfg(test)]
    pub(crate) fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The events, in order, with their names interned in `interner`.
    pub fn into_events(self, interner: &mut Interner, diag: &mut Diagnostics) -> Vec<Event<'a>> {
        let total: usize = self.chunks.iter().map(|c| c.events.len()).sum();
        let mut events: Vec<Event<'a>> = Vec::with_capacity(total);
        for chunk in self.chunks {
            let remap: Vec<Sym> = chunk.interner.iter().map(|s| interner.intern(s)).collect();
            let sym = |s: Sym| remap[s.0 as usize];
            let id = |v: Id| v.as_sym().map_or(v, |s| Id::str(sym(s)));
            events.extend(chunk.events.into_iter().map(|e| Event {
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
            }));
            diag.merge(chunk.diag);
        }
        events
    }
}

/// Decodes one event from its raw fields and adds it to `events` (pushed
/// here rather than returned: handed up through the callers, each event
/// was copied twice more, each copy reading back fields just written).
/// `offset` (where it starts in the input) only serves to name it in
/// diagnostics.
fn finish_event<'a>(
    raw: RawEvent<'a>,
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
                finish_event(raw, base + start, interner, diag, events);
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
