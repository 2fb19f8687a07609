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
//!
//! The packets of the slices, nearly all of the file, are encoded by hand
//! ([`SlicePacket`]), with the bytes prost writes for the declared
//! messages (a test compares them), but without a message and its lists
//! and strings made for each packet. The names they refer to are numbered
//! first, node after node, as the packets will use them ([`Prepared`]), so
//! that the packets can then be written in pieces, on several cores.

use std::io;

use ahash::AHashMap;
use prost::Message as _;
use tracekit_engine::{Id, Micros, Parallelism, Strings};
use tracekit_engine::{NodeKind, TrackNode};

use super::timeline::{timeline, Piece, Steps};
use super::{timeline_bytes, write_timeline, Frames, KeptThread};
use crate::in_order::write_in_order;
use tracekit_engine::query::Query;
use tracekit_engine::Analysis;

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

/// The Perfetto trace of the threads `query` keeps: a process track per
/// process (its pid, its name and its URL as a label), a thread track per
/// thread under it (pid, tid, name), and on each thread track a slice per
/// node, nested as in the tracks: events with their name and category, JS
/// calls with the function's name, the category `v8.cpu_profiler`, and an
/// argument `location`, `URL:LINE:COLUMN` (1-based, as DevTools shows
/// it). Instant events are instants. Times are the trace's own, in
/// nanoseconds; names and categories are interned.
pub fn perfetto(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> Vec<u8> {
    // A node's two packets take about 100 bytes.
    timeline_bytes(analysis, query, parallelism, 128, write_threads)
}

/// Writes [`perfetto()`]'s trace to `w`, piece by piece as it is made
/// (on all cores with [`Parallelism::Rayon`]; the bytes are the same).
pub fn write_perfetto(
    analysis: &Analysis,
    query: &Query,
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    write_timeline(analysis, query, parallelism, w, write_threads)
}

fn write_threads(
    analysis: &Analysis,
    threads: &[KeptThread<'_>],
    parallelism: Parallelism,
    w: &mut dyn io::Write,
) -> io::Result<()> {
    // The pieces are cut beside the numbering of the names.
    let (prepared, timeline) = parallelism.join(|| Prepared::of(analysis, threads), || timeline(threads));
    write_in_order(&timeline.pieces, parallelism, w, |piece| {
        let thread = &threads[piece.thread];
        let mut out = Vec::with_capacity(piece.nodes.len() * 128);
        if piece.is_first() {
            out.extend_from_slice(&prepared.track_packets[piece.thread]);
        }
        prepared.write_slices(&mut out, thread, piece);
        out
    })
}

/// What the slice packets refer to, made in one pass over the threads'
/// nodes in the order of their packets: the thread tracks, and the numbers
/// of the names each node's packet uses, with those it uses first.
struct Prepared<'a> {
    interner: &'a Strings,
    /// For each thread, the packets of its track, and of its process's
    /// before it for the process's first thread.
    track_packets: Vec<Vec<u8>>,
    /// For each thread, its track's uuid.
    track_uuids: Vec<u64>,
    /// For each thread, the names of each kept node's opening packet.
    names: Vec<Vec<NodeNames>>,
    /// The frames of the nodes, whose names the slices show.
    frames: Frames,
    /// For each frame, its name's iid.
    frame_name_iids: Vec<u64>,
    /// For each frame, its location (`URL:LINE:COLUMN`, empty for events).
    frame_locations: Vec<String>,
    /// The iid of the annotation name `location`, the only one: 1 once
    /// used, 0 before.
    location_iid: u64,
    /// The time that is 0 in the trace.
    earliest: Micros,
}

/// The tracks given so far: the process and thread ids as Perfetto's
/// numbers, the uuids of the process tracks, and whether a packet was
/// written.
struct Tracks {
    ids: PerfettoIds,
    process_uuids: AHashMap<Id, u64>,
    first: bool,
}

/// Writes the packets of a thread's track, and before them its process's
/// for the process's first thread; the thread track's uuid.
fn write_track_packets(out: &mut Vec<u8>, analysis: &Analysis, thread: &KeptThread<'_>, tracks: &mut Tracks) -> u64 {
    let interner = analysis.strings();
    let pid = tracks.ids.pid(thread.pid, interner);
    let next_uuid = tracks.process_uuids.len() as u64 + 1;
    let process_uuid = *tracks.process_uuids.entry(thread.pid).or_insert_with(|| {
        let url = thread
            .process
            .url
            .map(|u| interner.resolve(u))
            .filter(|u| !u.is_empty());
        write_packet(
            out,
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
                ..packet(&mut tracks.first)
            },
        );
        next_uuid
    });
    // Thread tracks are numbered after every possible process track.
    let thread_uuid = (1 << 32) + tracks.ids.threads;
    tracks.ids.threads += 1;
    write_packet(
        out,
        &TracePacket {
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(thread_uuid),
                parent_uuid: Some(process_uuid),
                thread: Some(ThreadDescriptor {
                    pid: Some(pid),
                    tid: Some(tracks.ids.tid(thread.tid, interner)),
                    thread_name: thread.track.name.clone(),
                }),
                ..TrackDescriptor::default()
            }),
            ..packet(&mut tracks.first)
        },
    );
    thread_uuid
}

/// The names of a node's opening packet.
#[derive(Clone, Copy)]
struct NodeNames {
    /// Its frame (a number of [`Frames`]): its name and location.
    frame: u32,
    /// Its category's iid.
    category: u64,
    /// Which of its names the packet is the first to use, to be given in
    /// its interned data ([`NEW_NAME`], [`NEW_CATEGORY`],
    /// [`NEW_LOCATION_NAME`]).
    new: u8,
}

const NEW_NAME: u8 = 1;
const NEW_CATEGORY: u8 = 2;
const NEW_LOCATION_NAME: u8 = 4;

impl<'a> Prepared<'a> {
    fn of(analysis: &'a Analysis, threads: &[KeptThread<'a>]) -> Prepared<'a> {
        let interner = analysis.strings();
        let mut prepared = Prepared {
            interner,
            track_packets: Vec::with_capacity(threads.len()),
            track_uuids: Vec::with_capacity(threads.len()),
            names: Vec::with_capacity(threads.len()),
            frames: Frames::default(),
            frame_name_iids: Vec::new(),
            frame_locations: Vec::new(),
            location_iid: 0,
            // Trace timestamps are unsigned: a trace with negative times (a
            // hand-made one) is shifted to start at 0.
            earliest: threads
                .iter()
                .filter_map(|t| t.nodes.first().map(|n| t.clip(n.ts())))
                .fold(Micros::ZERO, Micros::min),
        };
        let mut tracks = Tracks {
            ids: PerfettoIds::default(),
            process_uuids: AHashMap::new(),
            first: true,
        };
        // Iids are numbered from 1 in order of first use, by kind; names
        // are told apart by their text, as the trace shows them.
        let mut name_iids: AHashMap<&str, u64> = AHashMap::new();
        let mut category_iids: AHashMap<&str, u64> = AHashMap::new();
        // The iids of categories by their symbol, and of JS calls' (0
        // before their first use).
        let mut category_iid_by_sym: Vec<u64> = Vec::new();
        let mut js_category_iid = 0;
        for thread in threads {
            let mut packets = Vec::new();
            let thread_uuid = write_track_packets(&mut packets, analysis, thread, &mut tracks);
            prepared.track_packets.push(packets);
            prepared.track_uuids.push(thread_uuid);

            let mut frames = prepared.frames.of_thread(thread.track);
            let mut names = Vec::with_capacity(thread.nodes.len());
            for node in &thread.nodes {
                let frame = frames.index(node);
                let mut new = 0;
                // Frames are numbered in order of first use: a number not
                // seen yet is the next one.
                if frame as usize == prepared.frame_name_iids.len() {
                    // A new frame: its name's iid and its location, once.
                    let key = frames.key(frame);
                    let (iid, is_new) = intern(&mut name_iids, key.name(interner));
                    prepared.frame_name_iids.push(iid);
                    prepared.frame_locations.push(key.location(interner));
                    if is_new {
                        new |= NEW_NAME;
                    }
                }
                let category = match node.kind() {
                    NodeKind::Event { cat, .. } => {
                        let at = cat.0 as usize;
                        if at >= category_iid_by_sym.len() {
                            category_iid_by_sym.resize(at + 1, 0);
                        }
                        if category_iid_by_sym[at] == 0 {
                            let (iid, is_new) = intern(&mut category_iids, interner.resolve(cat));
                            category_iid_by_sym[at] = iid;
                            if is_new {
                                new |= NEW_CATEGORY;
                            }
                        }
                        category_iid_by_sym[at]
                    }
                    NodeKind::Call { .. } => {
                        if js_category_iid == 0 {
                            let (iid, is_new) = intern(&mut category_iids, JS_CATEGORY);
                            js_category_iid = iid;
                            if is_new {
                                new |= NEW_CATEGORY;
                            }
                        }
                        js_category_iid
                    }
                };
                if prepared.location_iid == 0 && !prepared.frame_locations[frame as usize].is_empty() {
                    prepared.location_iid = 1;
                    new |= NEW_LOCATION_NAME;
                }
                names.push(NodeNames { frame, category, new });
            }
            prepared.names.push(names);
        }
        prepared
    }

    /// A time as the trace's, in nanoseconds, rounded.
    fn nanos(&self, t: Micros) -> u64 {
        let ns = (t - self.earliest).to_nanos();
        // Not negative once shifted (nor NaN: a NaN time is 0). Trace times
        // in ns are far below 2^53 (104 days): a whole part and a fraction,
        // both exact, rounded half up as `round` would, without its call.
        if (0.0..9e15).contains(&ns) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let whole = ns as u64;
            #[allow(clippy::cast_precision_loss)] // below 2^53: exact
            let half_up = ns - whole as f64 >= 0.5;
            whole + u64::from(half_up)
        } else {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let ns = ns.round().max(0.0) as u64;
            ns
        }
    }

    /// Appends the packets of a piece of a thread's slices: a begin and an
    /// end per node, an instant for an instant event.
    fn write_slices(&self, out: &mut Vec<u8>, thread: &KeptThread<'_>, piece: &Piece) {
        let names = &self.names[piece.thread];
        let track_uuid = self.track_uuids[piece.thread];
        let mut packet = SlicePacket::default();
        for step in Steps::of_piece(thread, piece) {
            let instant = step.node.dur().is_none();
            if instant && !step.opens {
                continue;
            }
            let (kind, names) = match (step.opens, instant) {
                (true, true) => (TrackEventType::Instant, Some(names[step.kept])),
                (true, false) => (TrackEventType::SliceBegin, Some(names[step.kept])),
                (false, _) => (TrackEventType::SliceEnd, None),
            };
            let named = names.map(|names| {
                let frame = names.frame as usize;
                Named {
                    name_iid: self.frame_name_iids[frame],
                    category_iid: names.category,
                    location: &self.frame_locations[frame],
                    location_iid: self.location_iid,
                    new_names: (names.new != 0).then(|| self.new_names(step.node, names)),
                }
            });
            packet.write(out, self.nanos(step.at), track_uuid, kind, named.as_ref());
        }
    }

    /// The interned data of a packet that is the first to use some of its
    /// names.
    fn new_names(&self, node: &TrackNode, names: NodeNames) -> InternedData {
        let interner = self.interner;
        let text = |iid: u64, name: &str| InternedString {
            iid: Some(iid),
            name: Some(name.to_owned()),
        };
        let mut data = InternedData::default();
        if names.new & NEW_CATEGORY != 0 {
            let category = match node.kind() {
                NodeKind::Event { cat, .. } => interner.resolve(cat),
                NodeKind::Call { .. } => JS_CATEGORY,
            };
            data.event_categories.push(text(names.category, category));
        }
        if names.new & NEW_NAME != 0 {
            let name = self.frames.key(names.frame).name(interner);
            data.event_names
                .push(text(self.frame_name_iids[names.frame as usize], name));
        }
        if names.new & NEW_LOCATION_NAME != 0 {
            data.debug_annotation_names.push(text(self.location_iid, "location"));
        }
        data
    }
}

/// What a slice's opening packet names.
struct Named<'p> {
    name_iid: u64,
    category_iid: u64,
    /// Its `location` argument, if not empty.
    location: &'p str,
    /// The iid of the annotation name `location`.
    location_iid: u64,
    /// The names it is the first to use.
    new_names: Option<InternedData>,
}

/// Writes the `TracePacket` of a slice's begin, end or instant by hand:
/// the bytes prost writes for the message with these fields set, field
/// after field in the order of their numbers, but with the lengths of the
/// nested messages counted beforehand, so that each byte is written once,
/// straight to the output, with no message, list or string made. It keeps
/// the buffer that a packet's interned data, when it has some, is encoded
/// to.
#[derive(Default)]
struct SlicePacket {
    interned: Vec<u8>,
}

impl SlicePacket {
    fn write(
        &mut self,
        out: &mut Vec<u8>,
        timestamp: u64,
        track_uuid: u64,
        kind: TrackEventType,
        named: Option<&Named<'_>>,
    ) {
        // Every field number here is below 16: each key is one byte.
        let kind = kind as u64;
        // TrackEvent: category_iids (3, one of them), debug_annotations
        // (4, one: DebugAnnotation's name_iid (1) and string_value (6)),
        // type (9), name_iid (10), track_uuid (11).
        let annotation_len = named
            .filter(|named| !named.location.is_empty())
            .map(|named| 1 + varint_len(named.location_iid) + bytes_field_len(named.location.len()));
        let mut event_len = 1 + varint_len(kind) + 1 + varint_len(track_uuid);
        if let Some(named) = named {
            event_len += 1 + varint_len(named.category_iid) + 1 + varint_len(named.name_iid);
        }
        if let Some(annotation_len) = annotation_len {
            event_len += bytes_field_len(annotation_len);
        }
        let interned = &mut self.interned;
        interned.clear();
        if let Some(new_names) = named.and_then(|named| named.new_names.as_ref()) {
            new_names.encode_raw(interned);
        }
        // TracePacket: timestamp (8), trusted_packet_sequence_id (10),
        // track_event (11), interned_data (12), sequence_flags (13).
        let mut packet_len = 1 + varint_len(timestamp) + 2 + bytes_field_len(event_len) + 2;
        if !interned.is_empty() {
            packet_len += bytes_field_len(interned.len());
        }

        // The Trace message's field 1, written into room made for it.
        let start = out.len();
        out.resize(start + bytes_field_len(packet_len), 0);
        let mut w = Cursor {
            room: &mut out[start..],
            at: 0,
        };
        w.key(1, LEN);
        w.varint(packet_len as u64);
        w.key(8, VARINT);
        w.varint(timestamp);
        w.key(10, VARINT);
        w.varint(u64::from(SEQUENCE));
        w.key(11, LEN);
        w.varint(event_len as u64);
        if let Some(named) = named {
            w.key(3, VARINT);
            w.varint(named.category_iid);
            if let Some(annotation_len) = annotation_len {
                w.key(4, LEN);
                w.varint(annotation_len as u64);
                w.key(1, VARINT);
                w.varint(named.location_iid);
                w.key(6, LEN);
                w.varint(named.location.len() as u64);
                w.bytes(named.location.as_bytes());
            }
        }
        w.key(9, VARINT);
        w.varint(kind);
        if let Some(named) = named {
            w.key(10, VARINT);
            w.varint(named.name_iid);
        }
        w.key(11, VARINT);
        w.varint(track_uuid);
        if !interned.is_empty() {
            w.key(12, LEN);
            w.varint(interned.len() as u64);
            w.bytes(interned);
        }
        w.key(13, VARINT);
        w.varint(u64::from(SEQ_NEEDS_INCREMENTAL_STATE));
        debug_assert_eq!(w.at, w.room.len(), "the packet's length as counted");
    }
}

/// Writes bytes into room made for them beforehand: cheaper than a push
/// each (which checks the room and stores the length every time).
struct Cursor<'o> {
    room: &'o mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self, byte: u8) {
        self.room[self.at] = byte;
        self.at += 1;
    }

    /// A field's key, for field numbers below 16 (one byte).
    fn key(&mut self, field: u8, wire_type: u8) {
        debug_assert!(field < 16);
        self.byte((field << 3) | wire_type);
    }

    /// A protobuf varint: 7 bits a byte, low bits first, the high bit set
    /// on all bytes but the last.
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            // The low 7 bits, with the continuation bit.
            #[allow(clippy::cast_possible_truncation)]
            self.byte((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        #[allow(clippy::cast_possible_truncation)]
        self.byte(value as u8);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.room[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Wire type of a varint field.
const VARINT: u8 = 0;
/// Wire type of a length-delimited field.
const LEN: u8 = 2;

/// How many bytes a varint takes.
fn varint_len(value: u64) -> usize {
    // 7 bits a byte, at least one byte.
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// How many bytes a length-delimited field of `len` bytes takes, with its
/// one-byte key and its length.
fn bytes_field_len(len: usize) -> usize {
    1 + varint_len(len as u64) + len
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

/// Appends a packet as the `Trace` message's field 1.
fn write_packet(out: &mut Vec<u8>, packet: &TracePacket) {
    prost::encoding::message::encode(1, packet, out);
}

/// The iid of `text`, given on first use (iids start at 1), and whether
/// this is its first use.
fn intern<'t>(known: &mut AHashMap<&'t str, u64>, text: &'t str) -> (u64, bool) {
    let next = known.len() as u64 + 1;
    let iid = *known.entry(text).or_insert(next);
    (iid, iid == next)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_lengths_are_prosts() {
        for value in [
            0,
            1,
            127,
            128,
            300,
            (1 << 14) - 1,
            1 << 14,
            1 << 35,
            (1 << 63) - 1,
            u64::MAX,
        ] {
            assert_eq!(varint_len(value), prost::encoding::encoded_len_varint(value), "{value}");
        }
    }

    /// The packets written by hand are byte for byte those prost writes
    /// for the same message: begins with and without a location and with
    /// new names, ends, instants, small and large numbers.
    #[test]
    fn slice_packets_are_the_bytes_prost_writes() {
        let long_location = format!("https://a.test/{}.js:3:9", "x".repeat(200));
        let new_names = InternedData {
            event_categories: vec![InternedString {
                iid: Some(2),
                name: Some("devtools.timeline".into()),
            }],
            event_names: vec![InternedString {
                iid: Some(300),
                name: Some("(anonymous)".into()),
            }],
            debug_annotation_names: vec![InternedString {
                iid: Some(1),
                name: Some("location".into()),
            }],
        };
        let named = |location: &'static str, new_names: Option<InternedData>| Named {
            name_iid: 5,
            category_iid: 130,
            location,
            location_iid: 1,
            new_names,
        };
        let cases: Vec<(u64, u64, TrackEventType, Option<Named<'_>>)> = vec![
            (0, 1 << 32, TrackEventType::SliceBegin, Some(named("", None))),
            (
                123_456_789_000,
                (1 << 32) + 7,
                TrackEventType::SliceBegin,
                Some(named("a.js:1:2", None)),
            ),
            (
                u64::MAX,
                1 << 40,
                TrackEventType::Instant,
                Some(named("", Some(new_names.clone()))),
            ),
            (
                1,
                (1 << 32) + 1,
                TrackEventType::SliceBegin,
                Some(Named {
                    location: &long_location,
                    ..named("", Some(new_names))
                }),
            ),
            (42, 1 << 32, TrackEventType::SliceEnd, None),
        ];
        for (timestamp, track_uuid, kind, named) in cases {
            let mut by_hand = vec![0xff];
            SlicePacket::default().write(&mut by_hand, timestamp, track_uuid, kind, named.as_ref());
            let mut event = TrackEvent {
                track_uuid: Some(track_uuid),
                r#type: Some(kind as i32),
                ..TrackEvent::default()
            };
            let mut interned_data = None;
            if let Some(named) = &named {
                event.name_iid = Some(named.name_iid);
                event.category_iids = vec![named.category_iid];
                if !named.location.is_empty() {
                    event.debug_annotations.push(DebugAnnotation {
                        name_iid: Some(named.location_iid),
                        string_value: Some(named.location.to_owned()),
                    });
                }
                interned_data.clone_from(&named.new_names);
            }
            let mut by_prost = vec![0xff];
            write_packet(
                &mut by_prost,
                &TracePacket {
                    timestamp: Some(timestamp),
                    trusted_packet_sequence_id: Some(SEQUENCE),
                    track_event: Some(event),
                    interned_data,
                    sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
                    ..TracePacket::default()
                },
            );
            assert_eq!(by_hand, by_prost, "{timestamp} {kind:?}");
        }
    }
}
