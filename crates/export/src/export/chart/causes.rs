//! What the chart draws over the threads' nodes from the handlers: the
//! arrows from an initiator to what it initiated (the Initiators
//! handler), shown when one of them is selected, and the red corners of
//! the entries with warnings (the Warnings handler). Both name events of
//! the trace; the chart names its nodes by lane and position, so each
//! event named is looked for among the nodes charted, and a link or a
//! warning whose event is not charted is left out.

use ahash::{AHashMap, AHashSet};

use super::int_column;
use tracekit_engine::handlers::causes::EntryRef;
use tracekit_engine::handlers::page::EntityEvent;
use tracekit_engine::handlers::timeline::{Flagged, Warning};
use tracekit_engine::support::bits::Bits;
use tracekit_engine::{Analysis, Id, NodeKind, TrackNode};

/// An event as the chart finds it among a thread's nodes: an event of
/// the input by its index (a begin/end pair by its begin's), or a JS call
/// by its thread and position among the thread's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Wanted {
    Event(u32),
    Call(Id, Id, u32),
}

/// The bit of a warning in the `warnings` columns' `kinds`.
pub(super) fn warning_bit(warning: Warning) -> u8 {
    match warning {
        Warning::LongTask => 1,
        Warning::IdleCallbackOverTime => 2,
        Warning::ForcedReflow => 4,
        Warning::LongInteraction => 8,
    }
}

/// The initiators' links and the warnings of an analysis loaded with
/// every handler, by event; then where the chart put those events.
#[derive(Debug, Default)]
pub(super) struct Causes {
    /// (initiator, initiated), in the handler's order.
    links: Vec<(Wanted, Wanted)>,
    /// Each flagged event, with its warnings' bits.
    warnings: Vec<(Wanted, u8)>,
    /// The input events named, as a bit set by index.
    events: Bits,
    /// The JS calls named, by thread: their positions.
    calls: AHashMap<(Id, Id), AHashSet<u32>>,
    /// Where the chart put each event named: (lane as first made, node).
    found: AHashMap<Wanted, (u32, u32)>,
}

impl Causes {
    /// The links and warnings of `analysis` (none unless it was loaded
    /// with every handler).
    pub(super) fn of(analysis: &Analysis) -> Causes {
        let mut causes = Causes::default();
        if !analysis.has_all_handlers() {
            return causes;
        }
        let Some(data) = analysis.handlers() else {
            return causes;
        };
        let initiators = data.initiators();
        let threads = analysis.numbered_threads();
        let wanted = |entry: EntryRef| -> Option<Wanted> {
            match initiators.entry(entry)? {
                EntityEvent::Event(index) => Some(Wanted::Event(index)),
                EntityEvent::BeginEnd { begin, .. } => Some(Wanted::Event(begin)),
                EntityEvent::ProfileCall { thread, position, .. } => {
                    let (pid, tid, _) = threads.thread(thread)?;
                    Some(Wanted::Call(pid, tid, position))
                }
                // A network request is no thread's node.
                EntityEvent::Request(_) => None,
            }
        };
        for (&event, &initiator) in &initiators.event_to_initiator {
            if let (Some(from), Some(to)) = (wanted(initiator), wanted(event)) {
                causes.links.push((from, to));
            }
        }
        for (flagged, warnings) in &data.warnings().per_event {
            // Interactions have their own track, which flags the long ones.
            if let Flagged::Event(index) = flagged {
                let bits = warnings.iter().fold(0, |bits, w| bits | warning_bit(*w));
                causes.warnings.push((Wanted::Event(*index), bits));
            }
        }
        let named: Vec<Wanted> = causes
            .links
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .chain(causes.warnings.iter().map(|(w, _)| *w))
            .collect();
        for w in named {
            match w {
                Wanted::Event(index) => causes.events.insert(index as usize),
                Wanted::Call(pid, tid, position) => {
                    causes.calls.entry((pid, tid)).or_default().insert(position);
                }
            }
        }
        causes
    }

    /// Whether there is nothing to look for.
    pub(super) fn is_empty(&self) -> bool {
        self.links.is_empty() && self.warnings.is_empty()
    }

    /// The JS calls named on a thread, if any.
    pub(super) fn calls_of(&self, pid: Id, tid: Id) -> Option<&AHashSet<u32>> {
        self.calls.get(&(pid, tid))
    }

    /// Notes where the chart put a node (lane `lane` as first made, at
    /// `at`), when it is one of the events named. `calls`: the thread's
    /// JS calls named ([`Causes::calls_of`]).
    pub(super) fn saw(
        &mut self,
        node: &TrackNode,
        position: usize,
        thread: (Id, Id),
        calls: Option<&AHashSet<u32>>,
        lane: u32,
        at: u32,
    ) {
        let wanted = match node.kind() {
            NodeKind::Event { event, .. } => {
                if !self.events.contains(event as usize) {
                    return;
                }
                Wanted::Event(event)
            }
            NodeKind::Call { .. } => {
                let position = u32::try_from(position).unwrap_or(u32::MAX);
                if !calls.is_some_and(|c| c.contains(&position)) {
                    return;
                }
                Wanted::Call(thread.0, thread.1, position)
            }
        };
        // An event charted twice (it should not be) keeps its first place.
        self.found.entry(wanted).or_insert((lane, at));
    }

    /// The links whose both ends were charted, as (from lane, from node,
    /// to lane, to node) with the lanes renumbered by `lane_order` (a
    /// lane's place in the chart, by its first place).
    pub(super) fn charted_links(&self, lane_order: &[u32]) -> Vec<[u32; 4]> {
        let place = |w: &Wanted| self.found.get(w).map(|&(lane, node)| (lane_order[lane as usize], node));
        let mut seen = AHashSet::new();
        self.links
            .iter()
            .filter_map(|(from, to)| {
                let (a, b) = (place(from)?, place(to)?);
                let link = [a.0, a.1, b.0, b.1];
                // An event initiated by itself, or a link found twice: no arrow.
                (a != b && seen.insert(link)).then_some(link)
            })
            .collect()
    }

    /// The warnings whose events were charted, as (lane, node, bits),
    /// lanes renumbered as in [`Causes::charted_links`], by lane then node.
    pub(super) fn charted_warnings(&self, lane_order: &[u32]) -> Vec<[u32; 3]> {
        let mut out: Vec<[u32; 3]> = self
            .warnings
            .iter()
            .filter_map(|(w, bits)| {
                let &(lane, node) = self.found.get(w)?;
                Some([lane_order[lane as usize], node, u32::from(*bits)])
            })
            .collect();
        out.sort_unstable();
        out.dedup_by(|a, b| {
            if a[..2] == b[..2] {
                b[2] |= a[2];
                true
            } else {
                false
            }
        });
        out
    }
}

/// Writes `,"links":{...},"warnings":{...}` of the header, their columns
/// to `bytes`: the initiators' links (from lane and node, to lane and
/// node) and the warnings (lane, node, the bits of their kinds).
pub(super) fn write_causes(links: &[[u32; 4]], warnings: &[[u32; 3]], bytes: &mut Vec<u8>, header: &mut String) {
    let mut table = |header: &mut String, key: &str, names: &[&str], rows: &mut dyn Iterator<Item = &[u32]>| {
        let rows: Vec<&[u32]> = rows.collect();
        header.push_str(",\"");
        header.push_str(key);
        header.push_str("\":{\"count\":");
        header.push_str(itoa::Buffer::new().format(rows.len()));
        header.push_str(",\"columns\":{");
        for (c, name) in names.iter().enumerate() {
            if c > 0 {
                header.push(',');
            }
            let values: Vec<u32> = rows.iter().map(|row| row[c]).collect();
            int_column(bytes, header, name, &values);
        }
        header.push_str("}}");
    };
    table(
        header,
        "links",
        &["fromLane", "fromNode", "toLane", "toNode"],
        &mut links.iter().map(|l| &l[..]),
    );
    table(
        header,
        "warnings",
        &["lane", "node", "kinds"],
        &mut warnings.iter().map(|w| &w[..]),
    );
}
