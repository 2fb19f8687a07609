//! The stage table: tracekit's own `--timings` table, per stage, median
//! over runs, on the JSON and the gzipped input, with throughput; and the
//! loading alone, also with `--threads 1`, for the threads table.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::bail;

use super::format::{last_error, mb, ms, ms_f, rate};
use super::measure::{self, summarize, Run};
use super::runner::{Bench, Tool};
use super::stages::{self, Stage};
use super::trace::Trace;

/// The stage tables of an input's runs, and the runs.
type InputRuns = (Vec<Vec<Stage>>, Vec<Run>);

impl Bench {
    /// The stage table, and the loading alone (median wall) with
    /// `--threads 1` and with the default threads, on the JSON input.
    pub(super) fn stage_table(
        &self,
        trace: &Trace,
        runs: usize,
        plain_wall: Duration,
    ) -> anyhow::Result<(String, Option<(Duration, Duration)>)> {
        let mut per_input = self.stage_runs(trace, runs)?;
        let paths = stage_paths(&per_input);
        if paths.is_empty() {
            return Ok((
                "## tracekit's stages\n\n`tracekit --timings` printed no stage table (is the flag gone?)\n\n".into(),
                None,
            ));
        }
        let size_mb = trace.json_size as f64 / 1e6;
        let mut md = String::new();
        writeln!(md, "## tracekit's stages\n")?;
        writeln!(
            md,
            "`tracekit --timings tracks FILE --format conformance`: its stage table, median of {runs} runs per \
             input (and as many of the JSON input with `--threads 1`, for its loading alone), the three in \
             turn. *Own* is a stage's time outside the stages nested in it, summed over the threads that ran \
             it (×N: how many times it ran); *wall* is the time it covered. Stages that run on both cores at \
             once (parse and handlers overlap) have more own time than wall time. Throughput = uncompressed \
             trace size ({}) / own time.\n",
            mb(trace.json_size)
        )?;
        writeln!(md, "| stage | JSON: own | wall | MB/s | gzip: own | wall | MB/s |")?;
        writeln!(md, "|---|---:|---:|---:|---:|---:|---:|")?;
        let one_thread_runs = per_input.pop().map(|(runs, _)| runs).unwrap_or_default();
        let walls: Vec<Duration> = per_input.iter().map(|(_, w)| summarize(w).wall).collect();
        for path in &paths {
            let indent = "&nbsp;&nbsp;&nbsp;&nbsp;".repeat(path.len() - 1);
            let mut cells = String::new();
            for (runs, _) in &per_input {
                match stage_medians(runs, path) {
                    Some((own, wall, count)) => {
                        let times = if count > 1 {
                            format!(" (×{count})")
                        } else {
                            String::new()
                        };
                        write!(cells, " {}{times} | {} | {} |", ms(own), ms(wall), rate(size_mb, own))?;
                    }
                    None => cells.push_str(" – | | |"),
                }
            }
            writeln!(md, "| {indent}{} |{cells}", path.last().map_or("", String::as_str))?;
        }
        let mut cells = String::new();
        for (runs, _) in &per_input {
            match loading_alone(runs) {
                Some(alone) => write!(cells, " – | {} | {} |", ms(alone), rate(size_mb, alone))?,
                None => cells.push_str(" – | | |"),
            }
        }
        writeln!(md, "| loading alone (load less profiles and trees) |{cells}")?;
        let loading = loading_alone(&one_thread_runs).zip(loading_alone(&per_input[0].0));
        if let Some((alone, _)) = loading {
            writeln!(
                md,
                "| loading alone, `--threads 1` | – | {} | {} | | | |",
                ms(alone),
                rate(size_mb, alone)
            )?;
        }
        let mut cells = String::new();
        for wall in &walls {
            write!(cells, " | **{}** | **{}** |", ms(*wall), rate(size_mb, *wall))?;
        }
        writeln!(md, "| **wall time (process)** |{cells}")?;
        writeln!(
            md,
            "\nWithout `--timings`, the JSON input's median wall time is {} ms (main table).\n",
            ms_f(plain_wall)
        )?;
        Ok((md, loading))
    }

    /// `tracekit --timings` `runs` times on the JSON input, the gzipped one
    /// and the JSON input on one thread, in that order.
    fn stage_runs(&self, trace: &Trace, runs: usize) -> anyhow::Result<Vec<InputRuns>> {
        // The JSON input, the gzipped one, and the JSON input on one
        // thread (for its loading alone only), in turn round by round, so
        // that a slower spell of the machine falls on all three alike (on
        // the VM these benches were written on, spells of seconds slowed
        // runs on two threads by 10%).
        let one_thread: &[&str] = &["--threads", "1"];
        let configs = [(&trace.json, &[][..]), (&trace.gz, &[][..]), (&trace.json, one_thread)];
        let mut per_input: Vec<InputRuns> = configs.iter().map(|_| Default::default()).collect();
        for _ in 0..runs {
            for ((input, local), (all, walls)) in configs.iter().zip(per_input.iter_mut()) {
                let (run, _, stderr) =
                    self.run_with(Tool::Tracekit, input, &["--timings"], local, "stages-tracekit")?;
                if !run.ok() {
                    bail!(
                        "tracekit --timings failed on {}: {}",
                        input.display(),
                        last_error(&stderr)
                    );
                }
                all.push(stages::parse(&stderr).0);
                walls.push(run);
            }
        }
        Ok(per_input)
    }
}

/// The table's rows: every stage seen, in the order of the run that has
/// the most (the gzipped input's, which has a decompression stage).
fn stage_paths(per_input: &[InputRuns]) -> Vec<Vec<String>> {
    let mut paths: Vec<Vec<String>> = Vec::new();
    let mut all_runs: Vec<&Vec<Stage>> = per_input.iter().flat_map(|(runs, _)| runs.iter()).collect();
    all_runs.sort_by_key(|run| std::cmp::Reverse(run.len()));
    for run in all_runs {
        for stage in run {
            if !paths.contains(&stage.path) {
                paths.push(stage.path.clone());
            }
        }
    }
    paths
}

/// Medians over runs of a stage's own and wall time, and its runs in the
/// first.
fn stage_medians(runs: &[Vec<Stage>], path: &[String]) -> Option<(Duration, Duration, usize)> {
    let found: Vec<&Stage> = runs.iter().filter_map(|r| r.iter().find(|s| s.path == path)).collect();
    let first = found.first()?;
    Some((
        measure::median(found.iter().map(|s| s.own).collect::<Vec<_>>()),
        measure::median(found.iter().map(|s| s.wall).collect::<Vec<_>>()),
        first.runs,
    ))
}

/// The "loading alone" (reading, inflating, scanning and the
/// handlers' pass): the load's wall time less the handlers' finalize
/// (profiles, trees), which run after the last event.
fn loading_alone(runs: &[Vec<Stage>]) -> Option<Duration> {
    let wall = |path: &[&str]| {
        let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
        stage_medians(runs, &path).map(|(_, wall, _)| wall)
    };
    match (wall(&["load"]), wall(&["load", "profiles"]), wall(&["load", "trees"])) {
        (Some(load), Some(profiles), Some(trees)) => Some(load.saturating_sub(profiles + trees)),
        _ => None,
    }
}
