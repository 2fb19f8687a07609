//! A Perfetto protobuf trace (`.pftrace`): a track per process and per
//! thread, and the sync tracks as nested `TrackEvent` slices, so that
//! Perfetto's UI shows DevTools' merged JS calls and trace events, which
//! its own import of a Chrome JSON trace does not build.
//!
//! The messages are written by hand from Perfetto's public protos
//! (`protos/perfetto/trace/trace.proto`, `trace_packet.proto`,
//! `track_event/track_event.proto`, `track_descriptor.proto`,
//! `process_descriptor.proto`, `thread_descriptor.proto`,
//! `debug_annotation.proto`, `interned_data/interned_data.proto`), with
//! their field numbers; only the fields tracekit fills are declared. They
//! are proto2: repeated numbers are written unpacked, as Perfetto's own
//! writers do.

use ahash::AHashMap;
use tracekit_events::{Id, Micros, Strings};
use tracekit_renderer::NodeKind;

use super::{kept_threads, FrameKey, Step, Steps};
use crate::engine::Analysis;
use crate::output::Filter;

/// `perfetto.protos.TracePacket` (a `Trace` is its packets, field 1).
#[derive(Clone, PartialEq, prost::Message)]
struct TracePacket {
    #[prost(uint64, optional, tag = "8")]
    timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "10")]
    trusted_packet_sequence_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "12")]
    interned_data: Option<InternedData>,
    #[prost(uint32, optional, tag = "13")]
    sequence_flags: Option<u32>,
    #[prost(message, optional, tag = "60")]
    track_descriptor: Option<TrackDescriptor>,
    #[prost(bool, optional, tag = "87")]
    first_packet_on_sequence: Option<bool>,
}

/// `TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED`.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE`.
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `perfetto.protos.TrackDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    uuid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    name: Option<String>,
    #[prost(message, optional, tag = "3")]
    process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    thread: Option<ThreadDescriptor>,
    #[prost(uint64, optional, tag = "5")]
    parent_uuid: Option<u64>,
}

/// `perfetto.protos.ProcessDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
struct ProcessDescriptor {
    #[prost(int32, optional, tag = "1")]
    pid: Option<i32>,
    #[prost(string, optional, tag = "6")]
    process_name: Option<String>,
    #[prost(string, repeated, tag = "8")]
    process_labels: Vec<String>,
}

/// `perfetto.protos.ThreadDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
struct ThreadDescriptor {
    #[prost(int32, optional, tag = "1")]
    pid: Option<i32>,
    #[prost(int64, optional, tag = "2")]
    tid: Option<i64>,
    #[prost(string, optional, tag = "5")]
    thread_name: Option<String>,
}

/// `perfetto.protos.TrackEvent`.
#[derive(Clone, PartialEq, prost::Message)]
struct TrackEvent {
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    category_iids: Vec<u64>,
    #[prost(message, repeated, tag = "4")]
    debug_annotations: Vec<DebugAnnotation>,
    #[prost(enumeration = "TrackEventType", optional, tag = "9")]
    r#type: Option<i32>,
    #[prost(uint64, optional, tag = "10")]
    name_iid: Option<u64>,
    #[prost(uint64, optional, tag = "11")]
    track_uuid: Option<u64>,
}

/// `perfetto.protos.TrackEvent.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
enum TrackEventType {
    SliceBegin = 1,
    SliceEnd = 2,
    Instant = 3,
}

/// `perfetto.protos.DebugAnnotation`, with a string value.
#[derive(Clone, PartialEq, prost::Message)]
struct DebugAnnotation {
    #[prost(uint64, optional, tag = "1")]
    name_iid: Option<u64>,
    #[prost(string, optional, tag = "6")]
    string_value: Option<String>,
}

/// `perfetto.protos.InternedData`: names given once, then referred to by
/// number (`iid`) on the packet sequence.
#[derive(Clone, PartialEq, prost::Message)]
struct InternedData {
    #[prost(message, repeated, tag = "1")]
    event_categories: Vec<InternedString>,
    #[prost(message, repeated, tag = "2")]
    event_names: Vec<InternedString>,
    #[prost(message, repeated, tag = "3")]
    debug_annotation_names: Vec<InternedString>,
}

/// `EventCategory`, `EventName` and `DebugAnnotationName`, which share
/// this shape.
#[derive(Clone, PartialEq, prost::Message)]
struct InternedString {
    #[prost(uint64, optional, tag = "1")]
    iid: Option<u64>,
    #[prost(string, optional, tag = "2")]
    name: Option<String>,
}

/// The one packet sequence of the trace (any non-zero number).
const SEQUENCE: u32 = 1;

/// The category of JS calls, which are made from CPU samples rather than
/// trace events (V8's CPU profiler writes those samples).
const JS_CATEGORY: &str = "v8.cpu_profiler";

/// The Perfetto trace of the threads `filter` keeps: a process track per
/// process (its pid, its name and its URL as a label), a thread track per
/// thread under it (pid, tid, name), and on each thread track a slice per
/// node, nested as in the tracks: events with their name and category, JS
/// calls with the function's name, the category `v8.cpu_profiler`, and an
/// argument `location`, `URL:LINE:COLUMN` (1-based, as DevTools shows
/// it). Instant events are instants. Times are the trace's own, in
/// nanoseconds; names and categories are interned.
pub fn perfetto(analysis: &Analysis, filter: &Filter) -> Vec<u8> {
    let interner = &analysis.strings;
    let threads = kept_threads(analysis, filter);
    // Room for the whole trace at once (a node's two packets take about
    // 100 bytes): grown by doubling, the bench trace's 94 MB were copied
    // again at each size, into fresh pages each time. Natively, room not
    // used is never touched; in WebAssembly it is memory, but less than
    // doubling's old and new lists at once.
    let nodes: usize = threads.iter().map(|t| t.nodes.len()).sum();
    let mut out = Vec::with_capacity(nodes.saturating_mul(128));
    let mut ids = PerfettoIds::default();
    let mut interned = Interning::default();
    // Trace timestamps are unsigned: a trace with negative times (a
    // hand-made one) is shifted to start at 0.
    let earliest = threads
        .iter()
        .filter_map(|t| t.nodes.first().map(|n| t.clip(n.ts())))
        .fold(Micros::ZERO, Micros::min);
    let nanos = |t: Micros| {
        // Trace times in ns are far below 2^64 (584 years), and not negative
        // once shifted.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ns = ((t - earliest).0 * 1000.0).round().max(0.0) as u64;
        ns
    };
    let mut first = true;
    let mut process_uuids: AHashMap<Id, u64> = AHashMap::new();
    for thread in &threads {
        let pid = ids.pid(thread.pid, interner);
        let next_uuid = process_uuids.len() as u64 + 1;
        let process_uuid = *process_uuids.entry(thread.pid).or_insert_with(|| {
            let url = thread
                .process
                .url
                .map(|u| interner.resolve(u))
                .filter(|u| !u.is_empty());
            write_packet(
                &mut out,
                &TracePacket {
                    track_descriptor: Some(TrackDescriptor {
                        uuid: Some(next_uuid),
                        process: Some(ProcessDescriptor {
                            pid: Some(pid),
                            process_name: analysis.process_name(thread.pid).map(str::to_owned),
                            process_labels: url.map(str::to_owned).into_iter().collect(),
                        }),
                        ..TrackDescriptor::default()
                    }),
                    ..packet(&mut first)
                },
            );
            next_uuid
        });
        // Thread tracks are numbered after every possible process track.
        let thread_uuid = (1 << 32) + ids.threads;
        ids.threads += 1;
        write_packet(
            &mut out,
            &TracePacket {
                track_descriptor: Some(TrackDescriptor {
                    uuid: Some(thread_uuid),
                    parent_uuid: Some(process_uuid),
                    thread: Some(ThreadDescriptor {
                        pid: Some(pid),
                        tid: Some(ids.tid(thread.tid, interner)),
                        thread_name: thread.track.name.clone(),
                    }),
                    ..TrackDescriptor::default()
                }),
                ..packet(&mut first)
            },
        );
        for step in Steps::new(thread) {
            let (node, at, is_open) = match step {
                Step::Open(node, at) => (node, at, true),
                Step::Close(node, at) => (node, at, false),
            };
            let instant = node.dur().is_none();
            if instant && !is_open {
                continue;
            }
            let mut event = TrackEvent {
                track_uuid: Some(thread_uuid),
                ..TrackEvent::default()
            };
            let mut new_names = InternedData::default();
            if is_open {
                let key = FrameKey::of(thread.track, node);
                let category = match node.kind() {
                    NodeKind::Event { cat, .. } => interner.resolve(cat),
                    NodeKind::Call { .. } => JS_CATEGORY,
                };
                event.name_iid = Some(interned.name(key.name(interner), &mut new_names));
                event.category_iids = vec![interned.category(category, &mut new_names)];
                let location = key.location(interner);
                if !location.is_empty() {
                    event.debug_annotations.push(DebugAnnotation {
                        name_iid: Some(interned.annotation_name("location", &mut new_names)),
                        string_value: Some(location),
                    });
                }
            }
            event.r#type = Some(match (is_open, instant) {
                (true, true) => TrackEventType::Instant,
                (true, false) => TrackEventType::SliceBegin,
                (false, _) => TrackEventType::SliceEnd,
            } as i32);
            let has_new_names = new_names != InternedData::default();
            write_packet(
                &mut out,
                &TracePacket {
                    timestamp: Some(nanos(at)),
                    track_event: Some(event),
                    interned_data: has_new_names.then_some(new_names),
                    ..packet(&mut first)
                },
            );
        }
    }
    out
}

/// A packet of the sequence: the first clears the incremental state (the
/// interned names), the others need it.
fn packet(first: &mut bool) -> TracePacket {
    let flags = if std::mem::replace(first, false) {
        SEQ_INCREMENTAL_STATE_CLEARED
    } else {
        SEQ_NEEDS_INCREMENTAL_STATE
    };
    TracePacket {
        trusted_packet_sequence_id: Some(SEQUENCE),
        sequence_flags: Some(flags),
        first_packet_on_sequence: (flags == SEQ_INCREMENTAL_STATE_CLEARED).then_some(true),
        ..TracePacket::default()
    }
}

/// Appends a packet as the `Trace` message's field 1, so that the trace
/// is written packet by packet rather than held whole.
fn write_packet(out: &mut Vec<u8>, packet: &TracePacket) {
    prost::encoding::message::encode(1, packet, out);
}

/// The numbers interned so far, by kind.
#[derive(Default)]
struct Interning {
    names: AHashMap<String, u64>,
    categories: AHashMap<String, u64>,
    annotation_names: AHashMap<String, u64>,
}

impl Interning {
    fn name(&mut self, name: &str, new: &mut InternedData) -> u64 {
        intern(&mut self.names, name, &mut new.event_names)
    }

    fn category(&mut self, category: &str, new: &mut InternedData) -> u64 {
        intern(&mut self.categories, category, &mut new.event_categories)
    }

    fn annotation_name(&mut self, name: &str, new: &mut InternedData) -> u64 {
        intern(&mut self.annotation_names, name, &mut new.debug_annotation_names)
    }
}

/// The iid of `text`, given on first use (iids start at 1) and then added
/// to the packet's interned data.
fn intern(known: &mut AHashMap<String, u64>, text: &str, new: &mut Vec<InternedString>) -> u64 {
    if let Some(&iid) = known.get(text) {
        return iid;
    }
    let iid = known.len() as u64 + 1;
    known.insert(text.to_owned(), iid);
    new.push(InternedString {
        iid: Some(iid),
        name: Some(text.to_owned()),
    });
    iid
}

/// Perfetto's process and thread ids are integers: a pid or tid that is
/// not one (a string, a fraction, too large) gets a number of its own
/// counted down from `i32::MAX`, which no real id is near.
#[derive(Default)]
struct PerfettoIds {
    given: AHashMap<Id, i32>,
    threads: u64,
}

impl PerfettoIds {
    fn pid(&mut self, id: Id, interner: &Strings) -> i32 {
        self.number(id, interner)
    }

    fn tid(&mut self, id: Id, interner: &Strings) -> i64 {
        i64::from(self.number(id, interner))
    }

    fn number(&mut self, id: Id, interner: &Strings) -> i32 {
        if let Ok(n) = id.to_js_string(interner).parse::<i32>() {
            return n;
        }
        let next = i32::MAX - i32::try_from(self.given.len()).unwrap_or(i32::MAX);
        *self.given.entry(id).or_insert(next)
    }
}
