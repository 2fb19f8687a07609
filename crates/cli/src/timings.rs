//! `--timings`: a table of where the time went, stage by stage, printed on
//! stderr when the command ends.
//!
//! The stages are the library's and the command's `tracing` spans (`load`,
//! `inflate`, `parse`, `handlers`, `profiles`, `trees`, `views`, `output`,
//! ...). A [`StageTimes`] layer keeps, per stage, how many times it ran, the
//! time it ran on its own (its entered time less that of the stages
//! entered inside it on the same thread, so that `inflate` does not count
//! the parsing it feeds), and the span of wall time it covered. Stages are
//! shown on two levels: the command's (`load`, `output`) and, indented,
//! every stage inside one of them, however deeply nested. Stages
//! that run on several cores at once (parse and handlers overlap) have more
//! own time than wall time: the table says so rather than hiding it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// One stage's figures.
#[derive(Debug, Clone, Default)]
struct Stage {
    /// Its name, after its outermost parent's (`load/parse`).
    path: String,
    runs: u64,
    /// Time entered, less nested stages on the same thread.
    own: Duration,
    /// Its periods, merged at the end into wall time.
    periods: Vec<(Instant, Instant)>,
}

/// What the layer has seen; shared with the [`Report`] that prints it.
#[derive(Debug, Default)]
struct Shared {
    /// Stages in order of first appearance.
    stages: Vec<Stage>,
    /// The bytes of JSON read, as the `load` stage records them in its
    /// `json_bytes` field.
    json_bytes: Option<u64>,
}

/// Reads the `json_bytes` field of a span.
struct JsonBytes(Option<u64>);

impl tracing::field::Visit for JsonBytes {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        if field.name() == "json_bytes" {
            self.0 = Some(value);
        }
    }

    fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
}

/// Per span: its stage, when it was entered, and the time of stages
/// entered inside it on the same thread while it was.
struct Entered {
    stage: usize,
    since: Instant,
    nested: Duration,
}

/// The `tracing` layer that measures the stages.
pub struct StageTimes {
    shared: Arc<Mutex<Shared>>,
}

/// Prints the table of a [`StageTimes`] layer.
pub struct Report {
    shared: Arc<Mutex<Shared>>,
    started: Instant,
}

/// A layer and the report of what it measures.
pub fn layer() -> (StageTimes, Report) {
    let shared = Arc::new(Mutex::new(Shared::default()));
    (
        StageTimes {
            shared: Arc::clone(&shared),
        },
        Report {
            shared,
            started: Instant::now(),
        },
    )
}

thread_local! {
    /// The spans entered on this thread, innermost last.
    static ENTERED: std::cell::RefCell<Vec<Entered>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl<S> Layer<S> for StageTimes
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        // Two levels: a command's stage, and the stages inside it however
        // deep (the parsing inside `inflate` and the parsing of the last
        // piece outside it are one row).
        let name = attrs.metadata().name();
        let path = match span.scope().skip(1).last() {
            Some(outermost) => format!("{}/{name}", outermost.name()),
            None => name.to_owned(),
        };
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let index = match shared.stages.iter().position(|s| s.path == path) {
            Some(i) => i,
            None => {
                shared.stages.push(Stage {
                    path,
                    ..Stage::default()
                });
                shared.stages.len() - 1
            }
        };
        shared.stages[index].runs += 1;
        span.extensions_mut().insert(StageIndex(index));
    }

    fn on_record(&self, _id: &Id, values: &tracing::span::Record<'_>, _ctx: Context<'_, S>) {
        let mut bytes = JsonBytes(None);
        values.record(&mut bytes);
        if let Some(n) = bytes.0 {
            self.shared.lock().unwrap_or_else(|e| e.into_inner()).json_bytes = Some(n);
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        let Some(stage) = ctx
            .span(id)
            .and_then(|s| s.extensions().get::<StageIndex>().map(|i| i.0))
        else {
            return;
        };
        ENTERED.with(|e| {
            e.borrow_mut().push(Entered {
                stage,
                since: Instant::now(),
                nested: Duration::ZERO,
            })
        });
    }

    fn on_exit(&self, _id: &Id, _ctx: Context<'_, S>) {
        let now = Instant::now();
        let Some((entered, elapsed)) = ENTERED.with(|e| {
            let mut stack = e.borrow_mut();
            let entered = stack.pop()?;
            let elapsed = now - entered.since;
            if let Some(outer) = stack.last_mut() {
                outer.nested += elapsed;
            }
            Some((entered, elapsed))
        }) else {
            return;
        };
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let stage = &mut shared.stages[entered.stage];
        stage.own += elapsed.saturating_sub(entered.nested);
        stage.periods.push((entered.since, now));
    }
}

/// The stage of a span, kept in its extensions.
struct StageIndex(usize);

/// The stages with each one's nested stages right after it, siblings in
/// order of first appearance.
fn tree_order(stages: &[Stage]) -> Vec<&Stage> {
    let first = |path: &str| stages.iter().position(|s| s.path == path).unwrap_or(usize::MAX);
    let key = |stage: &Stage| -> Vec<usize> {
        let mut key: Vec<usize> = stage
            .path
            .match_indices('/')
            .map(|(at, _)| first(&stage.path[..at]))
            .collect();
        key.push(first(&stage.path));
        key
    };
    let mut ordered: Vec<&Stage> = stages.iter().collect();
    ordered.sort_by_cached_key(|s| key(s));
    ordered
}

/// The wall time the periods cover (overlaps counted once).
fn wall(periods: &[(Instant, Instant)]) -> Duration {
    let mut sorted = periods.to_vec();
    sorted.sort();
    let mut total = Duration::ZERO;
    let mut current: Option<(Instant, Instant)> = None;
    for (start, end) in sorted {
        current = match current {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total
}

impl Report {
    /// The table: a row per stage, nested stages indented under their
    /// parent; MB/s is the JSON read over the stage's own time for the
    /// stages that read the whole input (`inflate`, `parse`, `handlers`,
    /// `load`).
    pub fn table(&self) -> String {
        use std::fmt::Write;
        let shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let input_bytes = shared.json_bytes;
        let total = self.started.elapsed();
        let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1000.0);
        let mut out = String::from("stage               runs    wall ms     own ms      MB/s\n");
        let reads_input = |name: &str| matches!(name, "load" | "inflate" | "parse" | "handlers");
        for stage in tree_order(&shared.stages) {
            let depth = stage.path.matches('/').count();
            let name = stage.path.rsplit('/').next().unwrap_or(&stage.path);
            let rate = match input_bytes {
                Some(bytes) if reads_input(name) && !stage.own.is_zero() => {
                    format!("{:.0}", bytes as f64 / 1e6 / stage.own.as_secs_f64())
                }
                _ => String::new(),
            };
            let label = format!("{}{name}", "  ".repeat(depth));
            let _ = writeln!(
                out,
                "{label:<18} {:>6} {:>10} {:>10} {rate:>9}",
                stage.runs,
                ms(wall(&stage.periods)),
                ms(stage.own)
            );
        }
        let _ = writeln!(out, "{:<18} {:>6} {:>10}", "total", "", ms(total));
        if let Some(bytes) = input_bytes {
            let _ = writeln!(
                out,
                "input {:.1} MB: {:.0} MB/s end to end; own time of stages run on several cores at once adds up past their wall time",
                bytes as f64 / 1e6,
                bytes as f64 / 1e6 / total.as_secs_f64()
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    #[test]
    fn nested_stages_follow_their_parent() {
        let stage = |path: &str| Stage {
            path: path.to_owned(),
            ..Stage::default()
        };
        let stages = [stage("load"), stage("load/parse"), stage("output"), stage("load/trees")];
        let order: Vec<&str> = tree_order(&stages).iter().map(|s| s.path.as_str()).collect();
        assert_eq!(order, ["load", "load/parse", "load/trees", "output"]);
    }

    #[test]
    fn wall_counts_overlaps_once() {
        let t = Instant::now();
        let at = |ms: u64| t + Duration::from_millis(ms);
        assert_eq!(
            wall(&[(at(0), at(10)), (at(5), at(15)), (at(20), at(25))]),
            Duration::from_millis(20)
        );
        assert_eq!(wall(&[]), Duration::ZERO);
    }

    #[test]
    fn nested_stages_are_not_counted_in_their_parent() {
        let (layer, report) = layer();
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let _load = tracing::info_span!("load", json_bytes = tracing::field::Empty).entered();
            _load.record("json_bytes", 100_000_000u64);
            std::thread::sleep(Duration::from_millis(20));
            for _ in 0..2 {
                let _parse = tracing::info_span!("parse").entered();
                std::thread::sleep(Duration::from_millis(30));
            }
        });
        let shared = report.shared.lock().unwrap();
        let load = shared.stages.iter().find(|s| s.path == "load").unwrap();
        let parse = shared.stages.iter().find(|s| s.path == "load/parse").unwrap();
        assert_eq!((load.runs, parse.runs), (1, 2));
        assert!(parse.own >= Duration::from_millis(60));
        // The load's own time is its 20 ms of sleep, not the 80 ms it spans.
        assert!(load.own >= Duration::from_millis(20) && load.own < Duration::from_millis(60));
        assert!(wall(&load.periods) >= Duration::from_millis(80));
        drop(shared);
        let table = report.table();
        assert!(table.contains("\n  parse "), "{table}");
        assert!(table.contains("input 100.0 MB"), "{table}");
    }
}
