//! The tracks in columns, for viewers of big traces: per thread, one byte
//! buffer holding a typed array per field (the JS side makes views on it,
//! without copying), and one table of the strings those arrays index.
//! The tracks of a million nodes thus cross into JavaScript as a dozen
//! arrays rather than a million objects. `docs/wasm.md` ("The packed
//! tracks") documents the layout; `js/tracekit.js` reads it.

use std::fmt::Write;

use ahash::AHashMap;
use tracekit::query::Query;
use tracekit::support::jsnum::{round3, write_json_number};
use tracekit::support::json::write_json_string;
use tracekit::support::names;
use tracekit::{Analysis, Micros, NodeKind, Sym, ThreadTrack};

/// The value of the `type` column for a trace event.
pub const TYPE_EVENT: u8 = 0;
/// The value of the `type` column for a JS call built from CPU samples.
pub const TYPE_JS: u8 = 1;

/// The packed tracks of a trace: a JSON header (processes, threads, the
/// string table, diagnostics) and each thread's columns.
#[derive(Debug, Default)]
pub struct PackedTracks {
    /// The JSON header (`docs/wasm.md`).
    pub header: String,
    /// The columns of each thread, in the header's order.
    pub threads: Vec<Vec<u8>>,
}

/// The strings the columns refer to, each once, by first use.
#[derive(Default)]
struct StringTable {
    index: AHashMap<Sym, u32>,
    strings: Vec<Sym>,
}

impl StringTable {
    fn of(&mut self, sym: Sym) -> u32 {
        let next = u32::try_from(self.strings.len()).expect("fewer than 2^32 distinct strings");
        *self.index.entry(sym).or_insert_with(|| {
            self.strings.push(sym);
            next
        })
    }
}

/// One thread's columns before they are laid out in one buffer.
#[derive(Default)]
struct Columns {
    ts: Vec<f64>,
    dur: Vec<f64>,
    self_time: Vec<f64>,
    depth: Vec<u32>,
    name: Vec<u32>,
    category: Vec<u32>,
    frame: Vec<i32>,
    kind: Vec<u8>,
    phase: Vec<u8>,
    frame_line: Vec<f64>,
    frame_column: Vec<f64>,
    frame_node_id: Vec<f64>,
    frame_function_name: Vec<u32>,
    frame_url: Vec<u32>,
    frame_script_id: Vec<u32>,
}

impl Columns {
    /// The buffer: the 8-byte columns, then the 4-byte ones, then the
    /// bytes, each little-endian, so that every array is aligned for a
    /// typed array view (the order `docs/wasm.md` gives).
    fn into_bytes(self) -> Vec<u8> {
        let (n, m) = (self.ts.len(), self.frame_line.len());
        let mut out = Vec::with_capacity(n * (3 * 8 + 4 * 4 + 2) + m * (3 * 8 + 3 * 4));
        for column in [
            &self.ts,
            &self.dur,
            &self.self_time,
            &self.frame_line,
            &self.frame_column,
            &self.frame_node_id,
        ] {
            for x in column {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        for column in [
            &self.depth,
            &self.name,
            &self.category,
            &self.frame_function_name,
            &self.frame_url,
            &self.frame_script_id,
        ] {
            for x in column {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        for x in &self.frame {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.kind);
        out.extend_from_slice(&self.phase);
        out
    }
}

/// Packs the tracks `query` keeps; the query was validated.
pub fn pack(analysis: &Analysis, query: &Query) -> PackedTracks {
    let threads = query.kept_threads(analysis);
    let interner = analysis.strings();
    let bounds = analysis.bounds();
    let origin = bounds.min;
    let mut strings = StringTable::default();
    let mut packed = PackedTracks::default();
    let mut header = String::from("{\"format\":\"tracekit-tracks-packed\",\"version\":1,\"input\":");
    write_json_string(&mut header, &format!("{:?}", analysis.kind()));
    header.push_str(",\"bounds\":{\"min\":");
    write_json_number(&mut header, round3(bounds.min.0));
    header.push_str(",\"max\":");
    write_json_number(&mut header, round3(bounds.max.0));
    header.push_str("},\"processes\":[");
    for (pi, process) in analysis.processes().enumerate() {
        if pi > 0 {
            header.push(',');
        }
        header.push_str("{\"pid\":");
        process.pid().write_json(&mut header, interner);
        header.push_str(",\"url\":");
        match process.url() {
            Some(url) => write_json_string(&mut header, url),
            None => header.push_str("null"),
        }
        let _ = write!(
            header,
            ",\"isOnMainFrame\":{},\"keptByDevTools\":{},\"threads\":[",
            process.is_on_main_frame(),
            process.kept_by_devtools()
        );
        let mut first = true;
        for thread in process.threads() {
            let (tid, track) = (thread.tid(), thread.track());
            if threads.as_ref().is_some_and(|t| !t.contains(&(process.pid(), tid))) {
                continue;
            }
            if !first {
                header.push(',');
            }
            first = false;
            let columns = thread_columns(track, query, origin, &mut strings);
            header.push_str("{\"tid\":");
            tid.write_json(&mut header, interner);
            header.push_str(",\"name\":");
            match &track.name {
                Some(name) => write_json_string(&mut header, name),
                None => header.push_str("null"),
            }
            let _ = write!(
                header,
                ",\"nodeCount\":{},\"frameCount\":{}}}",
                columns.ts.len(),
                columns.frame_line.len()
            );
            packed.threads.push(columns.into_bytes());
        }
        header.push_str("]}");
    }
    header.push_str("],\"strings\":[");
    for (i, sym) in strings.strings.iter().enumerate() {
        if i > 0 {
            header.push(',');
        }
        write_json_string(&mut header, interner.resolve(*sym));
    }
    header.push_str("]}");
    packed.header = header;
    packed
}

/// The columns of the nodes of `track` that `query` keeps, and of every
/// JS function of the thread.
fn thread_columns(track: &ThreadTrack, query: &Query, origin: Micros, strings: &mut StringTable) -> Columns {
    let mut c = Columns::default();
    for node in query.nodes(track, origin) {
        // Rounded to the nanosecond, as `tracks()` (the JSON format) has them.
        c.ts.push(round3(node.ts().0));
        c.dur.push(node.dur().map_or(0.0, |d| round3(d.0)));
        c.self_time.push(node.self_time().map_or(f64::NAN, |s| round3(s.0)));
        c.depth.push(node.depth());
        match node.kind() {
            NodeKind::Event { name, cat, ph, .. } => {
                c.kind.push(TYPE_EVENT);
                c.name.push(strings.of(name));
                c.category.push(strings.of(cat));
                c.phase.push(ph.0);
                c.frame.push(-1);
            }
            NodeKind::Call { frame } => {
                c.kind.push(TYPE_JS);
                let function_name = track.js_frame(&node.kind()).map(|f| f.call_frame.function_name);
                c.name.push(strings.of(function_name.unwrap_or(names::EMPTY)));
                c.category.push(strings.of(names::EMPTY));
                c.phase.push(0);
                // A frame index past i32::MAX would need more profile
                // nodes than a wasm32 memory holds.
                c.frame.push(i32::try_from(frame).unwrap_or(-1));
            }
        }
    }
    for js in &track.js_frames {
        let frame = &js.call_frame;
        c.frame_function_name.push(strings.of(frame.function_name));
        c.frame_url.push(strings.of(frame.url));
        c.frame_script_id.push(strings.of(frame.script_id));
        c.frame_line.push(frame.line_number.unwrap_or(f64::NAN));
        c.frame_column.push(frame.column_number.unwrap_or(f64::NAN));
        // Profile node ids are small integers (exact as a double).
        #[allow(clippy::cast_precision_loss)]
        c.frame_node_id.push(js.node_id as f64);
    }
    c
}
