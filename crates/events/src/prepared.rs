//! What a handler reads of its events' raw args, read on all cores before
//! the events are taken one by one on the handlers' thread (see
//! [`Handler::prepare`](crate::Handler::prepare)): the walks of the JSON
//! text need nothing shared, only the interning of what they find does.
//! The handlers take the chunks of events one after the other on one
//! thread, while the other cores scan the chunks after it: the walks are
//! done there, by the core that scanned the chunk.

use std::any::Any;
use std::collections::VecDeque;
use std::ops::Range;

use crate::event::Event;
use crate::handler::EventIndex;

/// A piece of an event's raw `args`, by its place in them: what a prepared
/// result keeps of the text (the handler outlives the text, so it cannot
/// keep a borrow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsSpan(Range<u32>);

impl ArgsSpan {
    /// The span of `part`, a slice of `args` (the empty span, which reads
    /// as nothing, when it is not one).
    pub fn of(args: &str, part: &str) -> ArgsSpan {
        let within = || {
            let start = (part.as_ptr() as usize).checked_sub(args.as_ptr() as usize)?;
            let end = start.checked_add(part.len()).filter(|&end| end <= args.len())?;
            Some(u32::try_from(start).ok()?..u32::try_from(end).ok()?)
        };
        ArgsSpan(within().unwrap_or(0..0))
    }

    /// The piece of `event`'s args this span is (empty when the event has
    /// no args that long: not the event it was made of).
    pub fn in_args<'a>(&self, event: &Event<'a>) -> &'a str {
        let range = self.0.start as usize..self.0.end as usize;
        event.args.and_then(|args| args.get(range)).unwrap_or_default()
    }
}

/// What a handler's [`Handler::prepare`](crate::Handler::prepare) found in
/// a chunk of events, of a type of the handler's own, handed back to its
/// [`Handler::take_prepared`](crate::Handler::take_prepared).
pub type PreparedChunk = Box<dyn Any + Send>;

/// What [`Prepared::of_chunk`] found: per event of the chunk that has a
/// result, its position in the chunk and the result.
struct ChunkResults<T> {
    events: usize,
    items: Vec<(usize, T)>,
}

/// Per event, what a pure function of the event gave, for the chunk of
/// events handed over last: made by [`Prepared::of_chunk`] on the core
/// that scanned the chunk, then taken back in input order by
/// [`Prepared::take`].
#[derive(Debug)]
pub struct Prepared<T> {
    /// The indices of the events prepared.
    covered: Range<EventIndex>,
    /// The results, by event index, of the events that have one.
    items: VecDeque<(EventIndex, T)>,
}

impl<T> Default for Prepared<T> {
    fn default() -> Self {
        Prepared {
            covered: 0..0,
            items: VecDeque::new(),
        }
    }
}

impl<T: Send + 'static> Prepared<T> {
    /// `read` of each of a chunk's events, kept for the events it gives
    /// something for: what a handler's `prepare` returns. `read` must be
    /// what the handler would compute for the event itself.
    pub fn of_chunk(events: &[Event<'_>], read: impl Fn(&Event<'_>) -> Option<T>) -> PreparedChunk {
        let items = events
            .iter()
            .enumerate()
            .filter_map(|(at, event)| read(event).map(|item| (at, item)))
            .collect();
        Box::new(ChunkResults {
            events: events.len(),
            items,
        })
    }

    /// Replaces what was prepared with what [`Prepared::of_chunk`] found in
    /// the chunk whose first event has index `first`. A `prepared` of
    /// another type is a mistake, caught in debug builds; in others,
    /// nothing is prepared (the handler reads each event itself).
    pub fn set(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.items.clear();
        self.covered = first..first;
        let Ok(found) = prepared.downcast::<ChunkResults<T>>() else {
            debug_assert!(false, "a chunk prepared with another type of result");
            return;
        };
        // Past 2^32 events the indices stay at their maximum, as the
        // handlers' count does: those are left unprepared.
        let index = |at: usize| first.saturating_add(u32::try_from(at).unwrap_or(u32::MAX));
        self.covered = first..index(found.events);
        self.items
            .extend(found.items.into_iter().map(|(at, item)| (index(at), item)));
    }

    /// What was found for event `index`: `Some(Some(item))`, or
    /// `Some(None)` when `read` gave nothing; `None` when the event was not
    /// prepared (the handler reads it itself). Events are taken in input
    /// order: the results of the events before `index` are dropped.
    pub fn take(&mut self, index: EventIndex) -> Option<Option<T>> {
        if !self.covered.contains(&index) {
            return None;
        }
        while self.items.front().is_some_and(|(at, _)| *at < index) {
            self.items.pop_front();
        }
        if self.items.front().is_some_and(|(at, _)| *at == index) {
            return Some(self.items.pop_front().map(|(_, item)| item));
        }
        Some(None)
    }

    /// What was found for `event` (of index `index`), or `read` of it now
    /// when it was not prepared. `read` is the function the chunk was
    /// prepared with, so that both ways give the same.
    pub fn take_or_read(
        &mut self,
        index: EventIndex,
        event: &Event<'_>,
        read: impl FnOnce(&Event<'_>) -> Option<T>,
    ) -> Option<T> {
        self.take(index).unwrap_or_else(|| read(event))
    }

    /// Whether every result found was taken.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::args_member_tests::event;

    #[test]
    fn a_span_is_a_piece_of_the_args_found_again() {
        let args = r#"{"data":{"url":"u"}}"#;
        let span = ArgsSpan::of(args, &args[8..19]);
        assert_eq!(span.in_args(&event(Some(args))), r#"{"url":"u"}"#);
        assert_eq!(ArgsSpan::of(args, "elsewhere").in_args(&event(Some(args))), "");
        assert_eq!(span.in_args(&event(Some("{}"))), "", "not the event it was made of");
        assert_eq!(span.in_args(&event(None)), "");
    }

    /// Results come back by event index, `Some(None)` for a prepared event
    /// without one, `None` outside the events prepared.
    #[test]
    fn results_are_taken_back_in_order() {
        let texts: Vec<String> = (0..1000).map(|k| k.to_string()).collect();
        let events: Vec<Event<'_>> = texts.iter().map(|t| event(Some(t))).collect();
        let read = |e: &Event<'_>| e.args.and_then(|a| a.parse::<u32>().ok()).filter(|n| n % 3 == 0);
        let mut prepared = Prepared::<u32>::default();
        assert_eq!(prepared.take(0), None, "nothing prepared yet");
        prepared.set(10, Prepared::of_chunk(&events, read));
        assert_eq!(prepared.take(9), None);
        assert_eq!(prepared.take(10), Some(Some(0)));
        assert_eq!(prepared.take(11), Some(None));
        assert_eq!(prepared.take(13), Some(Some(3)), "skipped ones are dropped");
        assert!(!prepared.is_empty());
        assert_eq!(prepared.take(1009), Some(Some(999)));
        assert!(prepared.is_empty());
        assert_eq!(prepared.take(1010), None);
        assert_eq!(
            prepared.take_or_read(1010, &event(Some("6")), read),
            Some(6),
            "read when not prepared"
        );
    }

    #[test]
    fn indices_past_the_last_saturate_and_are_not_prepared() {
        let events = [event(Some("1")), event(Some("2")), event(Some("3"))];
        let mut prepared = Prepared::<usize>::default();
        prepared.set(u32::MAX - 1, Prepared::of_chunk(&events, |e| e.args.map(str::len)));
        assert_eq!(prepared.take(u32::MAX - 1), Some(Some(1)));
        assert_eq!(prepared.take(u32::MAX), None);
    }
}
