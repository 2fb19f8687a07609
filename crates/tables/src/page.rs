//! The builders of the page tables (`requests`, `navigations`,
//! `layout_shifts`, `interactions`, `user_timings`, `initiators`,
//! `warnings`, `scripts`): the handlers' data,
//! through the page summaries of `tracekit::page` where they exist, one
//! row at a time into the columns [`page_columns`] lists.
//!
//! Times are as in `tracks`: a point in time is in µs of the trace's clock
//! (`ts_us`, `*_ts_us`), so that rows join with the track nodes; a
//! duration is in µs (`*_us`). Both are rounded to the nanosecond.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use tracekit::handlers::timeline::layout_shifts::ClusterNavigation;
use tracekit::page::{EntryFacts, PageError};
use tracekit::{Analysis, HandlerData, Micros, Millis};

use crate::build::{batch, count, id_value, time, trace_column, Text, Unbuilt};
use crate::schema::{page_columns, Column, Kind};
use crate::Table;

/// The builder of one column.
enum Builder {
    Text(Text),
    Float(Float64Builder),
    Int(Int64Builder),
    Bool(BooleanBuilder),
}

/// A page table's columns, filled a row at a time, each value in the
/// order of the table's columns (a value of the wrong type is a defect,
/// which the tests find).
struct Rows {
    table: Table,
    columns: &'static [Column],
    builders: Vec<Builder>,
    /// The column the next value goes to.
    next: usize,
    rows: usize,
}

impl Rows {
    fn new(table: Table, limit: usize) -> Rows {
        let columns = page_columns(table);
        let builders = columns
            .iter()
            .map(|&(name, kind, _)| match kind {
                Kind::Text => Builder::Text(Text::new(name, limit)),
                Kind::Float => Builder::Float(Float64Builder::new()),
                Kind::Int => Builder::Int(Int64Builder::new()),
                Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            })
            .collect();
        Rows {
            table,
            columns,
            builders,
            next: 0,
            rows: 0,
        }
    }

    /// The builder of the next column, which must be of `kind`.
    fn next(&mut self, kind: Kind) -> &mut Builder {
        let (name, expected, _) = self.columns[self.next];
        assert_eq!(expected, kind, "{}.{name}", self.table);
        self.next += 1;
        &mut self.builders[self.next - 1]
    }

    fn text(&mut self, value: Option<&str>) {
        if let Builder::Text(b) = self.next(Kind::Text) {
            b.append_option(value);
        }
    }

    /// A number; null when not finite.
    fn float(&mut self, value: Option<f64>) {
        if let Builder::Float(b) = self.next(Kind::Float) {
            b.append_option(value.filter(|x| x.is_finite()));
        }
    }

    fn int(&mut self, value: Option<i64>) {
        if let Builder::Int(b) = self.next(Kind::Int) {
            b.append_option(value);
        }
    }

    fn bool(&mut self, value: bool) {
        if let Builder::Bool(b) = self.next(Kind::Bool) {
            b.append_value(value);
        }
    }

    /// Ends a row: every column has its value.
    fn end_row(&mut self) {
        assert_eq!(self.next, self.columns.len(), "{}: a row of too few values", self.table);
        self.next = 0;
        self.rows += 1;
    }

    fn finish(self, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
        let mut columns = vec![trace_column(trace, self.rows, limit)?];
        for builder in self.builders {
            columns.push(match builder {
                Builder::Text(b) => b.finish()?,
                Builder::Float(mut b) => Arc::new(b.finish()) as ArrayRef,
                Builder::Int(mut b) => Arc::new(b.finish()),
                Builder::Bool(mut b) => Arc::new(b.finish()),
            });
        }
        Ok(batch(self.table, columns))
    }
}

fn page_error(e: PageError) -> Unbuilt {
    match e {
        PageError::NotGathered => Unbuilt::NotGathered,
        _ => Unbuilt::NoPage,
    }
}

/// The handlers' data, if the analysis gathered it all.
fn handlers(analysis: &Analysis) -> Result<&HandlerData, Unbuilt> {
    let data = analysis.handlers().ok_or(Unbuilt::NoPage)?;
    if !analysis.has_all_handlers() {
        return Err(Unbuilt::NotGathered);
    }
    Ok(data)
}

/// A number that is an integer of i64's range, else `None`.
fn integer(x: f64) -> Option<i64> {
    #[allow(clippy::cast_possible_truncation)]
    (x.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x)).then_some(x as i64)
}

/// A time in ms from the start of the trace (`origin`), in µs of the
/// trace's clock.
fn at(origin: Micros, ms: Millis) -> Option<f64> {
    time(origin.0 + ms.0 * 1000.0)
}

/// A duration in ms, in µs.
fn us(ms: Millis) -> Option<f64> {
    time(ms.0 * 1000.0)
}

/// `requests`: one row per network request, in the order they started.
pub(crate) fn requests(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let requests = tracekit::page::requests(analysis).map_err(page_error)?;
    let origin = analysis.bounds().min;
    let mut rows = Rows::new(Table::Requests, limit);
    for r in &requests {
        rows.text(Some(&r.request_id));
        rows.text(Some(&r.url));
        rows.float(at(origin, r.start));
        rows.float(at(origin, r.end));
        for phase in [
            r.queueing,
            r.stalled,
            r.dns,
            r.connect,
            r.ssl,
            r.send,
            r.wait,
            r.download,
            r.processing,
        ] {
            rows.float(us(phase));
        }
        for bytes in [r.transfer_size, r.body_size, r.status] {
            rows.int(bytes.and_then(integer));
        }
        for text in [
            &r.mime_type,
            &r.priority,
            &r.initial_priority,
            &r.render_blocking,
            &r.initiator_type,
            &r.initiator_url,
        ] {
            rows.text(text.as_deref());
        }
        rows.bool(r.from_memory_cache);
        rows.bool(r.from_disk_cache);
        rows.bool(r.from_service_worker);
        rows.text(r.protocol.as_deref());
        rows.bool(r.failed);
        rows.bool(r.finished);
        let redirects = r.redirects.join("\n");
        rows.text((!r.redirects.is_empty()).then_some(redirects.as_str()));
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `navigations`: one row per navigation of the main frame, with its
/// metrics, in time order.
pub(crate) fn navigations(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let navigations = tracekit::page::navigations(analysis).map_err(page_error)?;
    let origin = analysis.bounds().min;
    let mut rows = Rows::new(Table::Navigations, limit);
    for n in &navigations {
        rows.text(n.navigation_id.as_deref());
        rows.text(n.url.as_deref());
        rows.text(n.frame.as_deref());
        rows.float(at(origin, n.start));
        rows.float(n.fp.and_then(|m| us(m.value)));
        for metric in [n.fcp, n.lcp] {
            rows.float(metric.and_then(|m| us(m.value)));
            rows.text(metric.map(|m| m.rating));
        }
        rows.text(n.lcp_image.as_deref());
        rows.int(n.lcp_node.and_then(integer));
        rows.float(n.dcl.and_then(|m| us(m.value)));
        rows.float(n.load.and_then(|m| us(m.value)));
        rows.float(n.tbt.and_then(|m| us(m.value)));
        rows.text(n.tbt.map(|m| m.rating));
        rows.float(n.cls);
        rows.text(n.cls.map(tracekit::page::cls_rating));
        rows.float(n.cls_cluster.and_then(|(start, _)| at(origin, start)));
        rows.int(n.cls.map(|_| count(n.cls_cluster.map_or(0, |(_, shifts)| shifts))));
        rows.float(n.inp.and_then(us));
        rows.text(n.inp.map(tracekit::page::inp_rating));
        let inp = n.inp_interaction.as_ref();
        rows.text(inp.map(|i| i.kind.as_str()));
        rows.float(inp.and_then(|i| at(origin, i.start)));
        rows.float(inp.and_then(|i| us(i.input_delay)));
        rows.float(inp.and_then(|i| us(i.processing)));
        rows.float(inp.and_then(|i| us(i.presentation_delay)));
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `layout_shifts`: one row per layout shift, cluster by cluster, each's
/// shifts by time.
pub(crate) fn layout_shifts(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let data = handlers(analysis)?;
    let strings = analysis.strings();
    let mut rows = Rows::new(Table::LayoutShifts, limit);
    for cluster in &data.layout_shifts().clusters {
        for shift in &cluster.shifts {
            rows.float(time(shift.ts.0));
            rows.float(Some(shift.weighted_score_delta));
            rows.int(Some(count(shift.session_window_id)));
            rows.float(Some(shift.session_window_score));
            rows.float(time(cluster.ts.0));
            let navigation = match shift.navigation {
                ClusterNavigation::After(Some(id)) => Some(strings.resolve(id)),
                _ => None,
            };
            rows.text(navigation);
            rows.float(shift.time_from_navigation.and_then(|t| time(t.0)));
            rows.end_row();
        }
    }
    rows.finish(trace, limit)
}

/// `interactions`: one row per interaction, by time.
pub(crate) fn interactions(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let data = handlers(analysis)?;
    let strings = analysis.strings();
    let interactions = data.user_interactions();
    let mut rows = Rows::new(Table::Interactions, limit);
    for (i, x) in interactions.interactions.iter().enumerate() {
        rows.text(Some(strings.resolve(x.kind)));
        rows.float(time(x.ts.0));
        for d in [x.dur, x.input_delay, x.main_thread_handling, x.presentation_delay] {
            rows.float(time(d.0));
        }
        rows.bool(!interactions.without_nesting.contains(&i));
        rows.int(integer(x.interaction_id));
        rows.text(x.navigation_id.map(|id| strings.resolve(id)));
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `user_timings`: the performance marks (input order), measures and
/// console timings (DevTools' order), then the `console.timeStamp`s
/// (likewise).
pub(crate) fn user_timings(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let data = handlers(analysis)?.user_timings();
    let strings = analysis.strings();
    let mut rows = Rows::new(Table::UserTimings, limit);
    for mark in &data.performance_marks {
        rows.text(Some("mark"));
        rows.text(Some(strings.resolve(mark.name)));
        rows.float(time(mark.ts.0));
        rows.float(None);
        rows.end_row();
    }
    for (kind, timings) in [
        ("measure", &data.performance_measures),
        ("console", &data.console_timings),
    ] {
        for timing in timings {
            rows.text(Some(kind));
            rows.text(Some(strings.resolve(timing.name)));
            rows.float(time(timing.ts.0));
            rows.float(time(timing.dur.0));
            rows.end_row();
        }
    }
    for stamp in &data.timestamp_events {
        rows.text(Some("timestamp"));
        rows.text(stamp.name.map(|n| strings.resolve(n)));
        rows.float(time(stamp.start.0));
        let dur = stamp.end.0 - stamp.start.0;
        rows.float(if dur == 0.0 { None } else { time(dur) });
        rows.end_row();
    }
    rows.finish(trace, limit)
}

impl Rows {
    /// An event's `event`, `name`, `pid`, `tid`, `node`, `ts_us` and
    /// `dur_us`.
    fn entry(&mut self, e: &EntryFacts, origin: Micros) {
        self.int(e.event.map(i64::from));
        self.text(e.name.as_deref());
        self.int(e.pid.and_then(id_value));
        self.int(e.tid.and_then(id_value));
        self.int(e.node.map(i64::from));
        self.float(e.start.and_then(|s| at(origin, s)));
        self.float(e.dur.and_then(us));
    }
}

/// `initiators`: one row per event with an initiator, by the event's
/// start; an initiator on no track has what is known of it.
pub(crate) fn initiators(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let initiators = tracekit::page::initiators(analysis).map_err(page_error)?;
    let origin = analysis.bounds().min;
    let mut rows = Rows::new(Table::Initiators, limit);
    for r in &initiators {
        rows.entry(&r.event, origin);
        rows.entry(&r.initiator, origin);
        rows.text(r.kind.map(tracekit::page::LinkKind::name));
        rows.text(r.task.as_deref());
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `warnings`: one row per warning of an entry, by the entry's start.
pub(crate) fn warnings(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let warnings = tracekit::page::warnings(analysis).map_err(page_error)?;
    let origin = analysis.bounds().min;
    let mut rows = Rows::new(Table::Warnings, limit);
    for r in &warnings {
        rows.text(Some(r.warning.name()));
        rows.text(Some(tracekit::page::warning_label(r.warning)));
        rows.entry(&r.entry, origin);
        rows.text(r.interaction_type.as_deref());
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `scripts`: one row per script of V8's source rundown, in the order V8
/// first described them.
pub(crate) fn scripts(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    let scripts = tracekit::page::scripts(analysis).map_err(page_error)?;
    let origin = analysis.bounds().min;
    let mut rows = Rows::new(Table::Scripts, limit);
    for s in &scripts {
        rows.text(Some(&s.isolate));
        rows.text(Some(&s.script_id));
        for text in [
            &s.url,
            &s.frame,
            &s.source_url,
            &s.source_map_url,
            &s.resolved_source_map_url,
        ] {
            rows.text(text.as_deref());
        }
        rows.bool(s.source_map_url_elided);
        rows.bool(s.has_source_map);
        rows.bool(s.inline);
        rows.int(s.length.and_then(integer));
        rows.bool(s.has_source);
        rows.text(s.request_id.as_deref());
        rows.float(at(origin, s.ts));
        rows.end_row();
    }
    rows.finish(trace, limit)
}

/// `insights`: one row per insight of each insight set (a model DevTools
/// could not compute is a row with its error and no state).
pub(crate) fn insights(analysis: &Analysis, trace: &str, limit: usize) -> Result<RecordBatch, Unbuilt> {
    use tracekit::insights::{compute, InsightsError, RelatedEvents};
    let sets = match compute(analysis) {
        Ok(sets) => sets,
        Err(InsightsError::NoHandlers(_)) => return Err(Unbuilt::NoPage),
        Err(_) => return Err(Unbuilt::NotGathered),
    };
    let mut rows = Rows::new(Table::Insights, limit);
    for set in &sets.sets {
        for insight in &set.insights {
            rows.text(Some(&set.id.to_string()));
            rows.text(Some(&set.url));
            rows.int(set.navigation.map(|n| i64::from(n.event)));
            rows.float(time(set.bounds.min.0));
            rows.float(time(set.bounds.max.0));
            let ui = match insight {
                Ok(i) => i.ui(),
                Err(e) => e.ui,
            };
            rows.text(Some(ui.key));
            rows.text(Some(ui.title));
            rows.text(Some(ui.category.as_str()));
            let ok = insight.as_ref().ok();
            rows.text(ok.map(|i| i.state.as_str()));
            let savings = ok.and_then(|i| i.metric_savings).unwrap_or_default();
            for value in [savings.fcp, savings.lcp, savings.tbt, savings.cls, savings.inp] {
                rows.float(value);
            }
            rows.float(ok.and_then(|i| i.wasted_bytes));
            let related = ok.and_then(|i| i.related_events.as_ref()).map(RelatedEvents::len);
            rows.int(related.and_then(|n| i64::try_from(n).ok()));
            rows.text(insight.as_ref().err().map(|e| e.message.as_str()));
            rows.end_row();
        }
    }
    rows.finish(trace, limit)
}
