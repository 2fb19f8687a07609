//! The builders of the tables: a walk over an [`Analysis`] appending to
//! Arrow column builders, in the analysis' order (processes and threads as
//! DevTools orders them, nodes in pre-order, samples in time order).

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use tracekit::{Analysis, Id, NodeKind, Strings, ThreadTrack};

use crate::{Table, TraceError};

/// A trace's id (pid or tid) as an integer; `None` for a string, missing
/// or fractional id, which the tables leave null (and `diagnostics`
/// counts, [`odd_ids`]).
pub(crate) fn id_value(id: Id) -> Option<i64> {
    let x = id.as_f64()?;
    // Exactly an integer of i64's range (2^63 is not).
    #[allow(clippy::cast_possible_truncation)]
    (x.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x)).then_some(x as i64)
}

/// A finite number; NaN and infinities are null (as in the JSON formats).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// A track node's time in µs as the tracks' JSON format has it: rounded
/// to the nanosecond, which drops the noise of sums and differences of
/// doubles (`8800.000001986973`); null when not finite.
pub(crate) fn time(x: f64) -> Option<f64> {
    finite(x).map(tracekit::support::jsnum::round3)
}

/// A line or column number as written: an integer of i32's range, else
/// null (missing, fractional or absurd).
fn position(x: Option<f64>) -> Option<i32> {
    let x = x?;
    #[allow(clippy::cast_possible_truncation)]
    (x.fract() == 0.0 && x >= f64::from(i32::MIN) && x <= f64::from(i32::MAX)).then_some(x as i32)
}

/// An index or count as an Int64 value (saturating: a `usize` above 2^63
/// cannot be a count of things in memory).
pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A depth as an Int32 value: a thread has at most
/// `AnalyzeOptions::max_nodes` nodes, far fewer than 2^31.
fn depth(d: u32) -> i32 {
    i32::try_from(d).unwrap_or(i32::MAX)
}

/// The most text one string column of a table may hold: an Arrow string
/// array indexes its text with `i32` offsets.
pub(crate) const TEXT_LIMIT: usize = i32::MAX as usize;

/// Why a table of a trace cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unbuilt {
    /// A column would hold more text than the limit (its name).
    TooLarge(&'static str),
    /// The views of a thread (the `calls` table's Call Trees).
    Views(tracekit::views::ViewError),
    /// A page table of a trace without a page (a profile): no rows.
    NoPage,
    /// A page table of an analysis made without the page handlers.
    NotGathered,
}

/// A string column's builder that stops at the limit of its text rather
/// than panic there, as Arrow's builder does: past it, values are no
/// longer appended, and [`Text::finish`] is an error naming the column.
/// Little input can reach it: a thread name of a megabyte, repeated on
/// each of a few thousand rows of `tracks`.
pub(crate) struct Text {
    builder: StringBuilder,
    column: &'static str,
    /// Text bytes left below the limit.
    room: usize,
    full: bool,
}

impl Text {
    pub(crate) fn new(column: &'static str, limit: usize) -> Text {
        Text::with_capacity(column, limit, 0, 0)
    }

    fn with_capacity(column: &'static str, limit: usize, rows: usize, bytes: usize) -> Text {
        Text {
            builder: StringBuilder::with_capacity(rows, bytes.min(limit)),
            column,
            room: limit,
            full: false,
        }
    }

    fn append_value(&mut self, value: &str) {
        if self.full || value.len() > self.room {
            self.full = true;
            return;
        }
        self.room -= value.len();
        self.builder.append_value(value);
    }

    pub(crate) fn append_option(&mut self, value: Option<&str>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    fn append_null(&mut self) {
        self.builder.append_null();
    }

    pub(crate) fn finish(mut self) -> Result<ArrayRef, Unbuilt> {
        if self.full {
            return Err(Unbuilt::TooLarge(self.column));
        }
        Ok(Arc::new(self.builder.finish()))
    }
}

/// The `trace`, `pid` and `tid` columns.
#[derive(Default)]
struct ThreadKey {
    rows: usize,
    pid: Int64Builder,
    tid: Int64Builder,
}

impl ThreadKey {
    fn append(&mut self, pid: Id, tid: Id) {
        self.rows += 1;
        self.pid.append_option(id_value(pid));
        self.tid.append_option(id_value(tid));
    }

    /// The rows of `n` of the same thread.
    fn append_n(&mut self, n: usize, pid: Id, tid: Id) {
        self.rows += n;
        match id_value(pid) {
            Some(p) => self.pid.append_value_n(p, n),
            None => self.pid.append_nulls(n),
        }
        match id_value(tid) {
            Some(t) => self.tid.append_value_n(t, n),
            None => self.tid.append_nulls(n),
        }
    }

    fn finish(mut self, trace: &str, limit: usize) -> Result<Vec<ArrayRef>, Unbuilt> {
        Ok(vec![
            trace_column(trace, self.rows, limit)?,
            Arc::new(self.pid.finish()),
            Arc::new(self.tid.finish()),
        ])
    }
}

/// The trace's name on each of `rows` rows.
pub(crate) fn trace_column(trace: &str, rows: usize, limit: usize) -> Result<ArrayRef, Unbuilt> {
    if trace.len().saturating_mul(rows) > limit {
        return Err(Unbuilt::TooLarge("trace"));
    }
    Ok(Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
        trace, rows,
    ))))
}

pub(crate) fn batch(table: Table, columns: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(table.schema(), columns).expect("the columns are built to the table's schema")
}

/// The location columns of a JS function.
struct Location {
    url: Text,
    line: Int32Builder,
    column: Int32Builder,
}

impl Location {
    fn new(limit: usize) -> Location {
        Location {
            url: Text::new("url", limit),
            line: Int32Builder::new(),
            column: Int32Builder::new(),
        }
    }

    fn append(&mut self, strings: &Strings, frame: Option<&tracekit::CallFrame>) {
        match frame {
            Some(f) => {
                self.url.append_value(strings.resolve(f.url));
                self.line.append_option(position(f.line_number));
                self.column.append_option(position(f.column_number));
            }
            None => {
                self.url.append_null();
                self.line.append_null();
                self.column.append_null();
            }
        }
    }

    fn finish(mut self) -> Result<[ArrayRef; 3], Unbuilt> {
        Ok([
            self.url.finish()?,
            Arc::new(self.line.finish()),
            Arc::new(self.column.finish()),
        ])
    }
}

/// `tracks`: one row per track node.
pub(crate) fn tracks(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let strings = analysis.strings();
    let rows: usize = analysis.threads().map(|t| t.node_count()).sum();
    let mut key = ThreadKey::default();
    let mut process_url = Text::new("process_url", limit);
    let mut thread_name = Text::new("thread_name", limit);
    let mut node = Int64Builder::with_capacity(rows);
    let mut parent = Int64Builder::with_capacity(rows);
    let mut depth_col = Int32Builder::with_capacity(rows);
    let mut kind = Text::with_capacity("kind", limit, rows, rows * 5);
    let mut name = Text::with_capacity("name", limit, rows, rows * 16);
    let mut category = Text::with_capacity("category", limit, rows, rows * 16);
    let mut location = Location::new(limit);
    let mut ts = Float64Builder::with_capacity(rows);
    let mut dur = Float64Builder::with_capacity(rows);
    let mut self_time = Float64Builder::with_capacity(rows);
    // The index of the latest node at each depth: the parent of the next
    // node one level deeper (pre-order).
    let mut last_at_depth: Vec<usize> = Vec::new();
    for thread in analysis.threads() {
        let track = thread.track();
        let n = track.nodes.len();
        key.append_n(n, thread.pid(), thread.tid());
        let url = thread.process().url();
        for _ in 0..n {
            process_url.append_option(url);
            thread_name.append_option(thread.name());
        }
        last_at_depth.clear();
        for (i, tn) in track.nodes.iter().enumerate() {
            let d = tn.depth() as usize;
            last_at_depth.truncate(d);
            parent.append_option(last_at_depth.last().map(|p| count(*p)));
            last_at_depth.push(i);
            node.append_value(count(i));
            depth_col.append_value(depth(tn.depth()));
            match (&tn.kind(), track.js_frame(&tn.kind())) {
                (NodeKind::Event { name: n, cat, .. }, _) => {
                    kind.append_value("event");
                    name.append_value(strings.resolve(*n));
                    category.append_value(strings.resolve(*cat));
                    location.append(strings, None);
                }
                (NodeKind::Call { .. }, frame) => {
                    kind.append_value("js");
                    let frame = frame.map(|f| &f.call_frame);
                    name.append_value(frame.map_or("", |f| strings.resolve(f.function_name)));
                    category.append_null();
                    location.append(strings, frame);
                }
            }
            ts.append_option(time(tn.ts().0));
            dur.append_option(tn.dur().and_then(|d| time(d.0)));
            self_time.append_option(tn.self_time().and_then(|s| time(s.0)));
        }
    }
    let mut columns = key.finish(trace, limit)?;
    columns.extend([
        process_url.finish()?,
        thread_name.finish()?,
        Arc::new(node.finish()),
        Arc::new(parent.finish()),
        Arc::new(depth_col.finish()),
        kind.finish()?,
        name.finish()?,
        category.finish()?,
    ]);
    columns.extend(location.finish()?);
    columns.extend([
        Arc::new(ts.finish()) as ArrayRef,
        Arc::new(dur.finish()),
        Arc::new(self_time.finish()),
    ]);
    Ok(batch(Table::Tracks, columns))
}

/// `calls`: the Call Tree of each thread over the whole trace, in the
/// order of `tracekit calltree --format json` (pre-order, children by
/// total time, largest first, then by id).
pub(crate) fn calls(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let strings = analysis.strings();
    let window = tracekit::views::Window::new(analysis.bounds(), None);
    let mut key = ThreadKey::default();
    let mut node = Int64Builder::new();
    let mut parent = Int64Builder::new();
    let mut depth_col = Int32Builder::new();
    let mut id = Text::new("id", limit);
    let mut name = Text::new("name", limit);
    let mut location = Location::new(limit);
    let mut self_ms = Float64Builder::new();
    let mut total_ms = Float64Builder::new();
    let mut samples = Int64Builder::new();
    let mut self_samples = Int64Builder::new();
    for thread in analysis.threads() {
        let (pid, tid) = (thread.pid(), thread.tid());
        // The Call Tree only: the Bottom-Up to its first level (its
        // deeper levels are the views' costly part, and unused here).
        let views = tracekit::views::thread_views_to_depth(
            analysis,
            thread.track(),
            window,
            Some(1),
            tracekit::views::GroupBy::None,
            tracekit::DEFAULT_MAX_NODES,
        )
        .map_err(Unbuilt::Views)?;
        let tree = &views.top_down;
        let mut last_at_depth: Vec<usize> = Vec::new();
        for (i, (d, n)) in views.rows(tracekit::views::View::TopDown, None).into_iter().enumerate() {
            let tn = &tree.nodes[n as usize];
            key.append(pid, tid);
            let d_ix = d as usize;
            last_at_depth.truncate(d_ix);
            parent.append_option(last_at_depth.last().map(|p| count(*p)));
            last_at_depth.push(i);
            node.append_value(count(i));
            depth_col.append_value(depth(d));
            id.append_value(views.id(tn));
            let frame = if tn.is_group {
                None
            } else {
                views.frames[tn.id as usize].as_ref()
            };
            match frame {
                Some(f) => name.append_value(strings.resolve(f.function_name)),
                None => name.append_value(views.label(tn)),
            }
            location.append(strings, frame);
            self_ms.append_option(finite(tn.self_ms));
            total_ms.append_option(finite(tn.total_ms));
            match &views.samples {
                Some(counts) => {
                    samples.append_value(i64::from(counts.total[n as usize]));
                    self_samples.append_value(i64::from(counts.own[n as usize]));
                }
                None => {
                    samples.append_null();
                    self_samples.append_null();
                }
            }
        }
    }
    let mut columns = key.finish(trace, limit)?;
    columns.extend([
        Arc::new(node.finish()) as ArrayRef,
        Arc::new(parent.finish()),
        Arc::new(depth_col.finish()),
        id.finish()?,
        name.finish()?,
    ]);
    columns.extend(location.finish()?);
    columns.extend([
        Arc::new(self_ms.finish()) as ArrayRef,
        Arc::new(total_ms.finish()),
        Arc::new(samples.finish()),
        Arc::new(self_samples.finish()),
    ]);
    Ok(batch(Table::Calls, columns))
}

/// The track node each sample of a thread belongs to: the call of the
/// sample's leaf frame that was running when it was taken (`start <= t <
/// end`, the latest such call), as the Call Tree's sample counts
/// attribute samples (`docs/views.md`, "Sample counts"); `None` when no
/// call of its frame was running (a `(program)` or `(idle)` sample, or a
/// call of zero duration).
fn sample_nodes(track: &ThreadTrack) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(track.samples.len());
    // The latest call of each frame: (node, start, end).
    let mut call_of_frame: std::collections::HashMap<u32, (usize, f64, f64)> = std::collections::HashMap::new();
    let mut next = 0;
    let mut attribute_before = |until: f64, call_of_frame: &std::collections::HashMap<u32, (usize, f64, f64)>| {
        while let Some(sample) = track.samples.get(next) {
            let t = sample.ts.0;
            // A NaN time is before nothing.
            if t.partial_cmp(&until) != Some(std::cmp::Ordering::Less) {
                break;
            }
            next += 1;
            out.push(match call_of_frame.get(&sample.frame) {
                Some(&(node, start, end)) if start <= t && t < end => Some(node),
                _ => None,
            });
        }
    };
    for (i, tn) in track.nodes.iter().enumerate() {
        if let NodeKind::Call { frame } = tn.kind() {
            let start = tn.ts().0;
            attribute_before(start, &call_of_frame);
            let end = start + tn.dur().map_or(0.0, |d| d.0);
            call_of_frame.insert(frame, (i, start, end));
        }
    }
    attribute_before(f64::INFINITY, &call_of_frame);
    // Samples at NaN times (none in a valid profile) are after every call.
    out.resize(track.samples.len(), None);
    out
}

/// `samples`: one row per CPU sample of each thread with tracks.
pub(crate) fn samples(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let strings = analysis.strings();
    let mut key = ThreadKey::default();
    let mut ts = Float64Builder::new();
    let mut profile_node = Int64Builder::new();
    let mut name = Text::new("name", limit);
    let mut location = Location::new(limit);
    let mut node = Int64Builder::new();
    for thread in analysis.threads() {
        let track = thread.track();
        key.append_n(track.samples.len(), thread.pid(), thread.tid());
        let nodes = sample_nodes(track);
        for (sample, tn) in track.samples.iter().zip(nodes) {
            ts.append_option(finite(sample.ts.0));
            let frame = track.js_frames.get(sample.frame as usize);
            profile_node.append_value(frame.map_or(-1, |f| f.node_id));
            name.append_value(frame.map_or("", |f| strings.resolve(f.call_frame.function_name)));
            location.append(strings, frame.map(|f| &f.call_frame));
            node.append_option(tn.map(count));
        }
    }
    let mut columns = key.finish(trace, limit)?;
    columns.extend([
        Arc::new(ts.finish()) as ArrayRef,
        Arc::new(profile_node.finish()),
        name.finish()?,
    ]);
    columns.extend(location.finish()?);
    columns.push(Arc::new(node.finish()));
    Ok(batch(Table::Samples, columns))
}

/// `threads`: one row per thread with tracks.
pub(crate) fn threads_table(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let mut key = ThreadKey::default();
    let mut process_name = Text::new("process_name", limit);
    let mut process_url = Text::new("process_url", limit);
    let mut thread_name = Text::new("thread_name", limit);
    let mut main_frame = BooleanBuilder::new();
    let mut kept = BooleanBuilder::new();
    let mut nodes = Int64Builder::new();
    let mut events = Int64Builder::new();
    let mut js_calls = Int64Builder::new();
    let mut samples = Int64Builder::new();
    let mut over_budget = Int64Builder::new();
    for thread in analysis.threads() {
        let (process, track) = (thread.process(), thread.track());
        key.append(thread.pid(), thread.tid());
        process_name.append_option(process.name());
        process_url.append_option(process.url());
        thread_name.append_option(thread.name());
        main_frame.append_value(process.is_on_main_frame());
        kept.append_value(process.kept_by_devtools());
        let calls = track
            .nodes
            .iter()
            .filter(|n| matches!(n.kind(), NodeKind::Call { .. }))
            .count();
        nodes.append_value(count(track.nodes.len()));
        events.append_value(count(track.nodes.len() - calls));
        js_calls.append_value(count(calls));
        samples.append_option(thread.profile_sample_count().map(count));
        over_budget.append_option(track.over_budget.map(count));
    }
    let mut columns = key.finish(trace, limit)?;
    columns.extend([
        process_name.finish()?,
        process_url.finish()?,
        thread_name.finish()?,
        Arc::new(main_frame.finish()),
        Arc::new(kept.finish()),
        Arc::new(nodes.finish()),
        Arc::new(events.finish()),
        Arc::new(js_calls.finish()),
        Arc::new(samples.finish()),
        Arc::new(over_budget.finish()),
    ]);
    Ok(batch(Table::Threads, columns))
}

/// The reason of the `diagnostics` row counting the threads whose pid or
/// tid is not an integer: their `pid` or `tid` is null in the tables.
pub(crate) const ODD_IDS: &str = "tables: pid or tid that is not an integer (null in the tables)";

/// The threads with tracks whose pid or tid is no integer, and the first
/// of them in words.
fn odd_ids(analysis: &Analysis) -> Option<(usize, String)> {
    let strings = analysis.strings();
    let mut odd = analysis
        .threads()
        .filter(|t| id_value(t.pid()).is_none() || id_value(t.tid()).is_none());
    let thread = odd.next()?;
    let first = format!(
        "pid {}, tid {}",
        quoted_id(thread.pid(), strings),
        quoted_id(thread.tid(), strings)
    );
    Some((1 + odd.count(), first))
}

/// An id as the trace wrote it: a number, a quoted string, or `missing`.
fn quoted_id(id: Id, strings: &Strings) -> String {
    match id.as_sym() {
        _ if id.is_missing() => "missing".to_owned(),
        Some(s) => format!("{:?}", strings.resolve(s)),
        None => id.to_js_string(strings),
    }
}

/// `diagnostics`: the load's warnings, divergences from DevTools and
/// skips, then what the tables could not say.
pub(crate) fn diagnostics(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let diag = analysis.diagnostics();
    let mut kind = Text::new("kind", limit);
    let mut reason = Text::new("reason", limit);
    let mut count_col = Int64Builder::new();
    let mut example = Text::new("first_example", limit);
    let mut rows = 0;
    let mut row = |k: &str, r: &str, n: i64, e: Option<&str>| {
        rows += 1;
        kind.append_value(k);
        reason.append_value(r);
        count_col.append_value(n);
        example.append_option(e);
    };
    for warning in diag.warnings() {
        row("warning", warning, 1, None);
    }
    for (divergence, first) in diag.divergences() {
        row("divergence", divergence.as_str(), 1, Some(first));
    }
    for (skip, record) in diag.skipped() {
        row(
            "skip",
            skip.as_str(),
            i64::try_from(record.count).unwrap_or(i64::MAX),
            Some(&record.first_example),
        );
    }
    if let Some((n, first)) = odd_ids(analysis) {
        row("warning", ODD_IDS, count(n), Some(&first));
    }
    let columns: Vec<ArrayRef> = vec![
        trace_column(trace, rows, limit)?,
        kind.finish()?,
        reason.finish()?,
        Arc::new(count_col.finish()),
        example.finish()?,
    ];
    Ok(batch(Table::Diagnostics, columns))
}

/// The `diagnostics` row of a trace that could not be loaded.
pub(crate) fn error_row(trace: &str, error: &TraceError) -> RecordBatch {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![trace])),
        Arc::new(StringArray::from(vec!["error"])),
        Arc::new(StringArray::from(vec![error.reason.as_str()])),
        Arc::new(arrow_array::Int64Array::from(vec![1])),
        Arc::new(StringArray::from(vec![error.to_string()])),
    ];
    batch(Table::Diagnostics, columns)
}
