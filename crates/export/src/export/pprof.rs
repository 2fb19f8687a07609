//! pprof's `profile.proto`, gzipped, as `go tool pprof` reads it: a sample
//! per distinct stack of each thread, valued by its calls and its self
//! time, JS functions with their file and line.
//!
//! The messages are written by hand from pprof's public
//! `proto/profile.proto` (package `perftools.profiles`, proto3), with its
//! field numbers; only the fields tracekit fills are declared.

use std::io::Write as _;

use indexmap::IndexSet;

use super::stacks::stack_trees;
use super::{kept_threads, FrameKey, RoundedSum};
use tracekit_engine::query::Query;
use tracekit_engine::Analysis;
use tracekit_engine::Micros;
use tracekit_engine::Parallelism;

/// `perftools.profiles.Profile`.
#[derive(Clone, PartialEq, prost::Message)]
struct Profile {
    #[prost(message, repeated, tag = "1")]
    sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    sample: Vec<Sample>,
    #[prost(message, repeated, tag = "4")]
    location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    string_table: Vec<String>,
    #[prost(int64, tag = "10")]
    duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    period: i64,
    #[prost(int64, repeated, tag = "13")]
    comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    default_sample_type: i64,
}

/// `perftools.profiles.ValueType`: strings are indices into the string
/// table.
#[derive(Clone, PartialEq, prost::Message)]
struct ValueType {
    #[prost(int64, tag = "1")]
    r#type: i64,
    #[prost(int64, tag = "2")]
    unit: i64,
}

/// `perftools.profiles.Sample`: locations from the leaf to the root.
#[derive(Clone, PartialEq, prost::Message)]
struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    label: Vec<Label>,
}

/// `perftools.profiles.Label`.
#[derive(Clone, PartialEq, prost::Message)]
struct Label {
    #[prost(int64, tag = "1")]
    key: i64,
    #[prost(int64, tag = "2")]
    str: i64,
}

/// `perftools.profiles.Location`.
#[derive(Clone, PartialEq, prost::Message)]
struct Location {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(message, repeated, tag = "4")]
    line: Vec<Line>,
}

/// `perftools.profiles.Line`.
#[derive(Clone, PartialEq, prost::Message)]
struct Line {
    #[prost(uint64, tag = "1")]
    function_id: u64,
    #[prost(int64, tag = "2")]
    line: i64,
    #[prost(int64, tag = "3")]
    column: i64,
}

/// `perftools.profiles.Function`.
#[derive(Clone, PartialEq, prost::Message)]
struct Function {
    #[prost(uint64, tag = "1")]
    id: u64,
    #[prost(int64, tag = "2")]
    name: i64,
    #[prost(int64, tag = "3")]
    system_name: i64,
    #[prost(int64, tag = "4")]
    filename: i64,
    #[prost(int64, tag = "5")]
    start_line: i64,
}

/// pprof's string table: index 0 is the empty string.
struct Strings(IndexSet<String, ahash::RandomState>);

impl Strings {
    fn new() -> Strings {
        let mut set = IndexSet::default();
        set.insert(String::new());
        Strings(set)
    }

    fn index(&mut self, s: &str) -> i64 {
        let index = match self.0.get_index_of(s) {
            Some(index) => index,
            None => self.0.insert_full(s.to_owned()).0,
        };
        i64::try_from(index).expect("fewer strings than i64::MAX")
    }
}

/// The pprof profile of the threads `query` keeps, gzipped: a sample per
/// distinct stack of each thread (the stacks of [`super::folded()`],
/// without the process and thread frames), with two values, `calls`
/// (count: the calls along that stack) and `time` (nanoseconds of self
/// time, the default), and the labels `process` and `thread` naming where
/// it ran (`go tool pprof -tagfocus`, `-tagroot`). A function is an event
/// name (no file) or a JS function with its script's URL as file and its
/// 1-based line; a location per function. Self times are rounded to the
/// nanosecond so that a thread's samples add up to its self time.
pub fn pprof(analysis: &Analysis, query: &Query, parallelism: Parallelism) -> Vec<u8> {
    let interner = analysis.strings();
    let mut strings = Strings::new();
    let threads = kept_threads(analysis, query);
    let (frames, trees) = stack_trees(&threads, parallelism);
    let mut samples = Vec::new();
    let (process_key, thread_key) = (strings.index("process"), strings.index("thread"));
    for (thread, tree) in threads.iter().zip(&trees) {
        let labels = vec![
            Label {
                key: process_key,
                str: strings.index(&thread.process_label),
            },
            Label {
                key: thread_key,
                str: strings.index(&thread.thread_label),
            },
        ];
        let mut nanos = RoundedSum::default();
        for (stack, _) in tree.depth_first() {
            let entry = &tree.stacks[stack as usize];
            let time = nanos.take(Micros(entry.self_us).to_nanos());
            samples.push(Sample {
                // Location ids are frame numbers plus one (0 is no id).
                location_id: tree.frames_upwards(stack).map(|f| u64::from(f) + 1).collect(),
                value: vec![i64::try_from(entry.calls).unwrap_or(i64::MAX), time],
                label: labels.clone(),
            });
        }
    }
    let mut functions = Vec::with_capacity(frames.len());
    let mut locations = Vec::with_capacity(frames.len());
    for (id, key) in (1..).zip(frames.keys()) {
        let name = strings.index(key.name(interner));
        let line = match key {
            FrameKey::Js { line, .. } => line.and_then(|l| i64::try_from(l).ok()).unwrap_or(0),
            _ => 0,
        };
        let column = match key {
            FrameKey::Js { column, .. } => column.and_then(|c| i64::try_from(c).ok()).unwrap_or(0),
            _ => 0,
        };
        functions.push(Function {
            id,
            name,
            system_name: name,
            filename: strings.index(key.url(interner)),
            start_line: line,
        });
        locations.push(Location {
            id,
            line: vec![Line {
                function_id: id,
                line,
                column,
            }],
        });
    }
    let calls = ValueType {
        r#type: strings.index("calls"),
        unit: strings.index("count"),
    };
    let time = ValueType {
        r#type: strings.index("time"),
        unit: strings.index("nanoseconds"),
    };
    let range = analysis.bounds().range();
    // A trace lasts far less than 2^63 ns (292 years).
    #[allow(clippy::cast_possible_truncation)]
    let duration_nanos = if range.is_finite() {
        range.to_nanos().round() as i64
    } else {
        0
    };
    let comment = vec![strings.index(&format!(
        "tracekit {}: the sync tracks of a {}, self time per stack",
        env!("CARGO_PKG_VERSION"),
        crate::output::kind_name(analysis.kind())
    ))];
    let profile = Profile {
        default_sample_type: time.r#type,
        period_type: Some(time.clone()),
        sample_type: vec![calls, time],
        sample: samples,
        location: locations,
        function: functions,
        duration_nanos,
        period: 1,
        comment,
        string_table: strings.0.into_iter().collect(),
    };
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&prost::Message::encode_to_vec(&profile))
        .expect("writing to memory cannot fail");
    gzip.finish().expect("writing to memory cannot fail")
}
