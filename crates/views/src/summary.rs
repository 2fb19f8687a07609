//! The Summary of the Performance panel: for each thread and a window, the
//! time spent in each category (Scripting, Rendering, ... and Idle), as
//! DevTools' `statsForTimeRange` (`panels/timeline/components/
//! TimelineRangeSummaryView`) computes it for the selected track. The
//! behaviour reproduced is described in `docs/views.md`, "Summary".
//!
//! DevTools walks all the thread's events once, whatever the window, with
//! a stack of the categories of the open events: whenever the category on
//! top changes, the category left and the category entered each record
//! the time and their cumulative time on top so far. A category's time in
//! a window is its cumulative time at the window's end less that at its
//! start, each read between the two records around it by linear
//! interpolation; idle is what the categories leave of the window.
//!
//! [`CategoryTimeline`] is that record, made in one walk over the thread's
//! events; [`CategoryTimeline::times`] answers a window with two binary
//! searches per category. Every sum and difference is made in DevTools'
//! order, so that the result is the same number, not only a close one.
//! [`summary_conformance`] writes the dump of `xtask/js/summary.mjs`,
//! [`write_text`] and [`write_json`] the readable forms.

use tracekit_engine::query::Query;
use tracekit_engine::support::jsnum::{round3, write_json_number};
use tracekit_engine::support::json::write_json_string;
use tracekit_engine::{Analysis, Id, Micros, NodeKind, Sym, ThreadTrack};

use crate::conformance::{write_rounded_window, write_thread_keys};
use crate::events::{is_top_level_task, passed_over, ByStart, Ev, Visibility};
use crate::js::{js_max, truthy};
use crate::options::threads;
use crate::styles::{event_category, Category};
use crate::text::write_thread_heading;
use crate::Window;

/// The events the panel hands to the Summary for a thread: those of its
/// Call Tree (`docs/views.md`, "Events of a thread"), `RunTask` included,
/// each with its category, sorted by start. (The views' list,
/// [`crate::events::thread_events`], has the same events in the same order,
/// with their ids besides.)
fn walk_events(analysis: &Analysis, track: &ThreadTrack) -> Vec<Ev> {
    let interner = analysis.strings();
    let mut visibility = Visibility::new(analysis);
    let mut category_of: ahash::AHashMap<Sym, Category> = ahash::AHashMap::new();
    let mut events = ByStart::with_capacity(track.nodes.len());
    for node in &track.nodes {
        let ev = Ev::new(node.ts().0, node.dur().map(|d| d.0));
        let ev = match node.kind() {
            // A JS call is a ProfileCall, styled as scripting (as `Ev::new` makes it).
            NodeKind::Call { .. } => ev,
            NodeKind::Event { name, cat, ph, .. } => {
                let cat_text = interner.resolve(cat);
                if !visibility.in_timeline(name, cat_text, ph) {
                    continue;
                }
                let category = *category_of
                    .entry(name)
                    .or_insert_with(|| event_category(interner.resolve(name)));
                ev.for_summary(category, is_top_level_task(name, cat_text), passed_over(ph))
            }
        };
        events.push(ev);
    }
    events.sorted()
}

/// JavaScript's `upperBound` of DevTools' array utilities: the binary
/// search of the first index `m` of `0..len` for which `not_after(m)` is
/// false, probing the same indices as DevTools does (which matters when the
/// array is not sorted, as a category's record can be after a NaN end).
fn upper_bound(len: usize, mut not_after: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = (low + high) >> 1;
        if not_after(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    high
}

/// Whether DevTools' default comparator (`a < b ? -1 : a > b ? 1 : 0`)
/// gives `a` against `b` a result >= 0: `a` is not below `b`, a NaN on
/// either side comparing as equal.
fn not_below(a: f64, b: f64) -> bool {
    a.partial_cmp(&b) != Some(std::cmp::Ordering::Less)
}

/// The record of one category: at `times[i]` (ms), it had been the
/// category on top for `values[i]` ms in all.
#[derive(Debug, Clone)]
struct Cumulative {
    category: Category,
    times: Vec<f64>,
    values: Vec<f64>,
}

impl Cumulative {
    /// The cumulative time at `time`, interpolated between the records
    /// around it; 0 before the first, the last value after the last.
    fn at(&self, time: f64) -> f64 {
        let len = self.times.len();
        let index = upper_bound(len, |m| not_below(time, self.times[m]));
        if index == 0 {
            0.0
        } else if index == len {
            self.values[len - 1]
        } else {
            let (t0, t1) = (self.times[index - 1], self.times[index]);
            let (v0, v1) = (self.values[index - 1], self.values[index]);
            v0 + (v1 - v0) * (time - t0) / (t1 - t0)
        }
    }
}

/// The cumulative time of each category of a thread, recorded at every
/// change of the category on top: the panel's cache for a track, from
/// which the Summary of any window is read.
#[derive(Debug, Clone)]
pub struct CategoryTimeline {
    /// The categories in the order the walk first met them, which is the
    /// order DevTools adds them up in.
    series: Vec<Cumulative>,
    /// The thread had no event: every window is idle.
    no_events: bool,
}

/// The walk's state: the records, and the time of the last change.
struct Recorder {
    series: Vec<Cumulative>,
    /// Index into `series` of each category, once met.
    index: [Option<usize>; Category::ALL.len()],
    last_change: f64,
}

impl Recorder {
    /// Records that `category` is entered or left at `time`. A category is
    /// registered even when nothing is recorded (a change back in time).
    fn record(&mut self, category: Category, time: f64) {
        let slot = &mut self.index[category as usize];
        let i = *slot.get_or_insert_with(|| {
            self.series.push(Cumulative {
                category,
                times: Vec::new(),
                values: Vec::new(),
            });
            self.series.len() - 1
        });
        let series = &mut self.series[i];
        if series.times.last() == Some(&time) || self.last_change > time {
            return;
        }
        let last_value = series.values.last().copied().unwrap_or(0.0);
        // DevTools' order of operations: (last value + time) - last change.
        series.values.push(last_value + time - self.last_change);
        series.times.push(time);
    }

    /// The category on top changes from `from` to `to` at `time`.
    fn change(&mut self, from: Option<Category>, to: Option<Category>, time: f64) {
        if let Some(from) = from {
            self.record(from, time);
        }
        self.last_change = time;
        if let Some(to) = to {
            self.record(to, time);
        }
    }
}

impl CategoryTimeline {
    /// Walks the thread's events once, as DevTools' `forEachEvent` with
    /// no window: from the last top-level task starting at or before 0 µs,
    /// skipping events that end before 0 µs and async or flow events; an
    /// event with a (truthy) duration is entered at its start and left at
    /// its end (a NaN or zero end counts as 0), instants are not counted.
    pub fn new(analysis: &Analysis, track: &ThreadTrack) -> CategoryTimeline {
        CategoryTimeline::of_events(&walk_events(analysis, track))
    }

    /// [`CategoryTimeline::new`] over the thread's event list.
    pub(crate) fn of_events(events: &[Ev]) -> CategoryTimeline {
        let mut recorder = Recorder {
            series: Vec::new(),
            index: [None; Category::ALL.len()],
            last_change: 0.0,
        };
        let mut stack: Vec<usize> = Vec::new();
        let mut categories: Vec<Category> = Vec::new();
        let leave = |recorder: &mut Recorder, categories: &mut Vec<Category>, ev: &Ev| {
            let left = categories.pop();
            let below = categories.last().copied();
            if left != below {
                let end = Micros(ev.end).to_millis().0;
                recorder.change(left, below, if truthy(end) { end } else { 0.0 });
            }
        };

        let mut start = upper_bound(events.len(), |m| 0.0 - events[m].ts >= 0.0) as isize - 1;
        while start > 0 && !events[start as usize].top_level() {
            start -= 1;
        }
        for (i, ev) in events.iter().enumerate().skip(start.max(0) as usize) {
            if ev.end < 0.0 || ev.passed_over() {
                continue;
            }
            while let Some(&top) = stack.last() {
                let top_end = events[top].end;
                if !(truthy(top_end) && top_end <= ev.ts) {
                    break;
                }
                stack.pop();
                leave(&mut recorder, &mut categories, &events[top]);
            }
            if ev.lasts() {
                let below = categories.last().copied();
                if below != Some(ev.category) {
                    recorder.change(below, Some(ev.category), Micros(ev.ts).to_millis().0);
                }
                categories.push(ev.category);
                stack.push(i);
            }
        }
        while let Some(top) = stack.pop() {
            leave(&mut recorder, &mut categories, &events[top]);
        }
        CategoryTimeline {
            series: recorder.series,
            no_events: events.is_empty(),
        }
    }

    /// The time per category over `window`: each category met, end less
    /// start, in the order met; then idle, `max(0, window − their sum)`
    /// (in the place of the idle category if an event had it).
    pub fn times(&self, window: Window) -> CategoryTimes {
        let (start, end) = (window.start.0, window.end.0);
        if self.no_events {
            return CategoryTimes {
                window,
                times: vec![(Category::Idle, end - start)],
            };
        }
        let mut times: Vec<(Category, f64)> = self
            .series
            .iter()
            .map(|s| (s.category, s.at(end) - s.at(start)))
            .collect();
        let busy = times.iter().fold(0.0, |sum, (_, ms)| sum + ms);
        let idle = js_max(0.0, end - start - busy);
        match times.iter_mut().find(|(c, _)| *c == Category::Idle) {
            Some(entry) => entry.1 = idle,
            None => times.push((Category::Idle, idle)),
        }
        CategoryTimes { window, times }
    }
}

/// The Summary of one thread over a window.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryTimes {
    /// The window, absolute ms.
    pub window: Window,
    /// Ms per category, idle included, in DevTools' order of its stats
    /// (the categories as the walk met them, then idle unless met).
    pub times: Vec<(Category, f64)>,
}

impl CategoryTimes {
    /// The ms of `category`; `None` if the walk never met it.
    pub fn get(&self, category: Category) -> Option<f64> {
        self.times.iter().find(|(c, _)| *c == category).map(|(_, ms)| *ms)
    }

    /// Idle ms.
    pub fn idle(&self) -> f64 {
        self.get(Category::Idle).unwrap_or(0.0)
    }

    /// The panel's total: every category's ms and idle, added in order.
    /// It is the window's length unless the categories overrun it.
    pub fn total(&self) -> f64 {
        self.times.iter().fold(0.0, |sum, (_, ms)| sum + ms)
    }

    /// The rows the panel lists: the categories other than idle with a
    /// (JS-truthy) time, in palette order, then stably by time, largest
    /// first.
    pub fn rows(&self) -> Vec<(Category, f64)> {
        let mut rows: Vec<(Category, f64)> = Category::ALL
            .into_iter()
            .filter(|c| *c != Category::Idle)
            .filter_map(|c| self.get(c).filter(|ms| truthy(*ms)).map(|ms| (c, ms)))
            .collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        rows
    }
}

/// The Summary of a thread over `window` (absolute ms).
pub fn thread_summary(analysis: &Analysis, track: &ThreadTrack, window: Window) -> CategoryTimes {
    CategoryTimeline::new(analysis, track).times(window)
}

/// The threads `query` keeps (all without a thread query), in the
/// tracks' order, with their Summary over its window (`None`: the trace
/// bounds). The Summary reads the query's threads and window only.
pub fn summaries<'a>(
    analysis: &'a Analysis,
    query: &Query,
) -> impl Iterator<Item = (Id, Id, &'a ThreadTrack, CategoryTimes)> + 'a {
    let window = Window::of(analysis, query);
    let only = query.kept_threads(analysis);
    threads(analysis)
        .filter(move |(pid, tid, _)| only.as_ref().is_none_or(|o| o.contains(&(*pid, *tid))))
        .map(move |(pid, tid, track)| (pid, tid, track, thread_summary(analysis, track, window)))
}

/// The "summary conformance" dump: exactly what `xtask/js/summary.mjs`
/// prints from the DevTools engine (one line, no newline), for the threads
/// and window `query` keeps:
/// `{"threads":[{"pid","tid","name","categories":{NAME:MS,...},"total":MS}],
/// "window":{"start":MS,"end":MS}}`, the categories DevTools' stats hold in
/// palette order, ms rounded as `Math.round(x*1000)/1000`.
pub fn summary_conformance(analysis: &Analysis, query: &Query) -> String {
    let window = Window::of(analysis, query);
    let mut out = String::from("{\"threads\":[");
    for (i, (pid, tid, track, times)) in summaries(analysis, query).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        write_thread_keys(&mut out, analysis, pid, tid, track);
        out.push_str(",\"categories\":{");
        let mut first = true;
        for category in Category::ALL {
            if let Some(ms) = times.get(category) {
                if !first {
                    out.push(',');
                }
                first = false;
                write_json_string(&mut out, category.name());
                out.push(':');
                write_json_number(&mut out, round3(ms));
            }
        }
        out.push_str("},\"total\":");
        write_json_number(&mut out, round3(times.total()));
        out.push('}');
    }
    out.push_str("],");
    write_rounded_window(&mut out, window);
    out.push('}');
    out
}

/// The panel's share of a row: `ms * 100 / total`.
fn percent(ms: f64, total: f64) -> f64 {
    ms * 100.0 / total
}

/// The readable Summary of each thread `query` keeps, over its window: a
/// line per category the panel lists (title, ms, percent of the total),
/// then Idle and Total.
pub fn write_text(analysis: &Analysis, query: &Query) -> String {
    use std::fmt::Write;
    let window = Window::of(analysis, query);
    let origin = analysis.bounds().min.to_millis();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Summary, window {:.3}..{:.3} ms from the trace start ({:.3} ms)",
        (window.start - origin).0,
        (window.end - origin).0,
        window.length().0
    );
    for (pid, tid, track, times) in summaries(analysis, query) {
        write_thread_heading(&mut out, analysis, pid, tid, track);
        let total = times.total();
        let mut row = |title: &str, ms: f64| {
            let _ = writeln!(out, "  {title:<11} {ms:>10.3} ms {:>6.1}%", percent(ms, total));
        };
        for (category, ms) in times.rows() {
            row(category.title(), ms);
        }
        row(Category::Idle.title(), times.idle());
        row("Total", total);
    }
    out
}

/// The Summary of each thread `query` keeps as JSON, over its window, numbers
/// unrounded (`null` for NaN): `{"window":{"start","end","traceStart"}
/// (absolute ms), "threads":[{"pid","tid","name","categories":[{"name",
/// "title","ms","percent"},...],"idle","total"}]}`, categories as the
/// panel lists them (see [`CategoryTimes::rows`]), percents of the total.
pub fn write_json(analysis: &Analysis, query: &Query) -> String {
    let window = Window::of(analysis, query);
    let mut out = String::from("{\"window\":{\"start\":");
    write_json_number(&mut out, window.start.0);
    out.push_str(",\"end\":");
    write_json_number(&mut out, window.end.0);
    out.push_str(",\"traceStart\":");
    write_json_number(&mut out, analysis.bounds().min.to_millis().0);
    out.push_str("},\"threads\":[");
    for (i, (pid, tid, track, times)) in summaries(analysis, query).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        write_thread_keys(&mut out, analysis, pid, tid, track);
        out.push_str(",\"categories\":[");
        let total = times.total();
        for (j, (category, ms)) in times.rows().into_iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            write_json_string(&mut out, category.name());
            out.push_str(",\"title\":");
            write_json_string(&mut out, category.title());
            out.push_str(",\"ms\":");
            write_json_number(&mut out, ms);
            out.push_str(",\"percent\":");
            write_json_number(&mut out, percent(ms, total));
            out.push('}');
        }
        out.push_str("],\"idle\":");
        write_json_number(&mut out, times.idle());
        out.push_str(",\"total\":");
        write_json_number(&mut out, total);
        out.push('}');
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace of one renderer main thread (pid 1, tid 1) holding `events`
    /// (JSON objects, `pid`, `tid` and `cat` added), starting at 0 µs.
    fn analysis(events: &[&str]) -> Analysis {
        let mut json = String::from(
            r#"{"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":9,"tid":9,"ts":0,"args":{"data":{"frameTreeNodeId":1,"persistentIds":true,"frames":[{"frame":"F1","url":"https://a.test/","name":"","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}}"#,
        );
        for event in events {
            json.push_str(r#",{"pid":1,"tid":1,"cat":"disabled-by-default-devtools.timeline","args":{},"#);
            json.push_str(event.trim_start_matches('{'));
        }
        json.push_str("]}");
        tracekit_engine::analyze_bytes(json.as_bytes(), &tracekit_engine::AnalyzeOptions::default()).unwrap()
    }

    fn main_thread(analysis: &Analysis) -> &ThreadTrack {
        let (_, _, track) = threads(analysis).next().expect("a thread");
        track
    }

    fn window(start: f64, end: f64) -> Window {
        Window {
            start: tracekit_engine::Millis(start),
            end: tracekit_engine::Millis(end),
        }
    }

    fn assert_times(times: &CategoryTimes, expected: &[(Category, f64)]) {
        let order: Vec<Category> = times.times.iter().map(|(c, _)| *c).collect();
        let expected_order: Vec<Category> = expected.iter().map(|(c, _)| *c).collect();
        assert_eq!(order, expected_order, "{times:?}");
        for ((_, ms), (c, want)) in times.times.iter().zip(expected) {
            assert!((ms - want).abs() < 1e-12, "{c:?}: {ms} != {want} in {times:?}");
        }
    }

    #[test]
    fn upper_bound_probes_as_javascript() {
        let sorted = [1.0, 2.0, 2.0, 3.0];
        let search = |x: f64| upper_bound(sorted.len(), |m| not_below(x, sorted[m]));
        assert_eq!([search(0.5), search(2.0), search(2.5), search(9.0)], [0, 3, 3, 4]);
        // A NaN compares neither below nor above (DevTools' comparator
        // returns 0): the search goes right past it, even for a number
        // below everything.
        let with_nan = [1.0, f64::NAN, 3.0];
        assert_eq!(upper_bound(3, |m| not_below(2.0, with_nan[m])), 2);
        assert_eq!(upper_bound(3, |m| not_below(0.5, with_nan[m])), 2);
    }

    /// A task of 1 ms, and a script call inside it from 0.1 to 0.9 ms.
    const TASK_AND_CALL: [&str; 2] = [
        r#""name":"RunTask","ph":"X","ts":0,"dur":1000}"#,
        r#""name":"FunctionCall","ph":"X","ts":100,"dur":800}"#,
    ];

    /// Categories in the order the walk meets them; each is cut at the
    /// window's ends; RunTask is `other`, and a category change inside it
    /// leaves it no time.
    #[test]
    fn nested_categories_are_cut_at_the_window() {
        let [task, call] = TASK_AND_CALL;
        let a = analysis(&[task, call, r#""name":"Layout","ph":"X","ts":300,"dur":200}"#]);
        let timeline = CategoryTimeline::new(&a, main_thread(&a));
        let whole = timeline.times(window(0.0, 1.0));
        use Category::*;
        assert_times(&whole, &[(Other, 0.2), (Scripting, 0.6), (Rendering, 0.2), (Idle, 0.0)]);
        // From inside the script to inside the layout.
        let cut = timeline.times(window(0.25, 0.4));
        assert_times(&cut, &[(Other, 0.0), (Scripting, 0.05), (Rendering, 0.1), (Idle, 0.0)]);
        // Past the end of the events: idle.
        let after = timeline.times(window(0.95, 2.0));
        assert_times(
            &after,
            &[(Other, 0.05), (Scripting, 0.0), (Rendering, 0.0), (Idle, 1.0)],
        );
        assert!((after.total() - 1.05).abs() < 1e-12);
    }

    /// An event of an async phase counts nothing, in the Summary's own
    /// list and in the views' list it can share.
    #[test]
    fn async_events_count_nothing() {
        let [task, call] = TASK_AND_CALL;
        let a = analysis(&[task, call, r#""name":"Layout","ph":"p","ts":300,"dur":200}"#]);
        use Category::*;
        let expected = [(Other, 0.2), (Scripting, 0.8), (Idle, 0.0)];
        assert_times(&thread_summary(&a, main_thread(&a), window(0.0, 1.0)), &expected);
        let (_, shared) =
            crate::thread_bottom_up_and_summary(&a, main_thread(&a), window(0.0, 1.0), Some(1), 100).unwrap();
        assert_times(&shared, &expected);
    }

    /// The time of an event of the `idle` category counts as busy, then
    /// idle is replaced by what is left of the window: that time is missing
    /// from the total (DevTools does the same).
    #[test]
    fn idle_category_events_leave_the_total_short() {
        let a = analysis(&[
            r#""name":"RunTask","ph":"X","ts":0,"dur":1000}"#,
            r#""name":"v8.parseOnBackgroundWaiting","ph":"X","ts":200,"dur":300}"#,
        ]);
        let times = thread_summary(&a, main_thread(&a), window(0.0, 2.0));
        use Category::*;
        assert_times(&times, &[(Other, 0.7), (Idle, 1.0)]);
        assert!((times.total() - 1.7).abs() < 1e-12, "{}", times.total());
    }

    /// A thread whose events the panel does not draw has no events for the
    /// Summary: all idle, even for a window longer than the trace.
    #[test]
    fn a_thread_without_drawn_events_is_idle() {
        let a = analysis(&[r#""name":"BeginFrame","ph":"X","ts":0,"dur":1000}"#]);
        let times = thread_summary(&a, main_thread(&a), window(0.0, 3.0));
        assert_eq!(times.times, vec![(Category::Idle, 3.0)]);
    }

    /// Instants count nothing; a B/E pair counts as a complete event.
    #[test]
    fn instants_count_nothing() {
        let a = analysis(&[
            r#""name":"TimerInstall","ph":"I","s":"t","ts":100}"#,
            r#""name":"Paint","ph":"B","ts":200}"#,
            r#""name":"Paint","ph":"E","ts":500}"#,
        ]);
        let times = thread_summary(&a, main_thread(&a), window(0.0, 1.0));
        assert_times(&times, &[(Category::Painting, 0.3), (Category::Idle, 0.7)]);
    }

    /// The panel's rows: no idle, no zero, largest first, ties in palette
    /// order (Scripting before System).
    #[test]
    fn rows_are_listed_as_the_panel_does() {
        use Category::*;
        let times = CategoryTimes {
            window: window(0.0, 3.0),
            times: vec![
                (Other, 0.5),
                (Scripting, 0.5),
                (Rendering, 0.0),
                (Idle, 1.3),
                (Painting, 0.7),
            ],
        };
        assert_eq!(times.rows(), vec![(Painting, 0.7), (Scripting, 0.5), (Other, 0.5)]);
        assert!((times.total() - 3.0).abs() < 1e-12);
        assert_eq!(times.idle(), 1.3);
    }

    #[test]
    fn every_styled_name_has_a_category_and_unstyled_ones_are_other() {
        assert_eq!(event_category("ProfileCall"), Category::Scripting);
        assert_eq!(event_category("RunTask"), Category::Other);
        assert_eq!(event_category("GPUTask"), Category::Gpu);
        assert_eq!(event_category("v8.parseOnBackgroundWaiting"), Category::Idle);
        // Hidden names keep their category.
        assert_eq!(event_category("BeginFrame"), Category::Rendering);
        assert_eq!(event_category("NoSuchEvent"), Category::Other);
        for category in Category::ALL {
            assert_eq!(Category::from_name(category.name()), Some(category));
        }
    }
}
