//! The diff table of `cargo xtask bench` (`--diff` alone): `tracekit diff
//! BIG BIG` (two runs of the bench trace loaded at once, each with every
//! handler, then measured: the Bottom-Up and Summary of every thread, the
//! page metrics, requests, bytes and third parties) against loading the
//! trace twice, one after the other (`tracekit metrics`), alternating; and
//! the diff's own `--timings`: what its measuring adds to its loading, the
//! figure issue 36 bounds at 10%.

use std::fmt::Write as _;

use anyhow::bail;

use super::format::{last_error, mb, secs};
use super::measure::{median, summarize, Run};
use super::runner::{Bench, Tool};
use super::stages;
use super::trace::Trace;

impl Bench {
    /// The diff table, as Markdown.
    pub(super) fn diff_table(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        let (mut diffs, mut loads) = (Vec::<Run>::new(), Vec::<Run>::new());
        let (mut load_ms, mut total_ms) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (run, _, stderr) = self.run(Tool::TracekitDiff, &trace.json, &["--timings"], "diff")?;
            if !run.ok() {
                bail!("tracekit diff failed: {}", last_error(&stderr));
            }
            let (table, total) = stages::parse(&stderr);
            let load = table.iter().find(|s| s.path == ["load"]).map(|s| s.wall);
            let (Some(load), Some(total)) = (load, total) else {
                bail!("tracekit diff --timings printed no load and total");
            };
            load_ms.push(load.as_millis());
            total_ms.push(total.as_millis());
            diffs.push(run);
            let mut twice = Run::default();
            for _ in 0..2 {
                let (run, _, stderr) = self.run(Tool::TracekitMetrics, &trace.json, &[], "diff-metrics")?;
                if !run.ok() {
                    bail!("tracekit metrics failed: {}", last_error(&stderr));
                }
                twice = twice.then(&run);
            }
            loads.push(twice);
        }
        let (diff_s, loads_s) = (summarize(&diffs), summarize(&loads));
        let (load, total) = (median(load_ms.iter().copied()), median(total_ms.iter().copied()));
        let mut md = String::new();
        writeln!(md, "## Diff of two traces\n")?;
        writeln!(
            md,
            "Input: `{}` ({}) against itself. `tracekit diff` loads both at once (each with every \
             handler), then measures each; `metrics` twice is the loading alone, one trace after \
             the other. Runs alternate, {runs} of each; medians.\n",
            trace.json.display(),
            mb(trace.json_size),
        )?;
        writeln!(md, "| program | wall time (median) | CPU time | peak RSS (median) |")?;
        writeln!(md, "|---|---:|---:|---:|")?;
        for (name, s) in [
            ("tracekit `metrics`, twice", &loads_s),
            ("tracekit `diff BIG BIG`", &diff_s),
        ] {
            writeln!(
                md,
                "| {name} | {} s | {} s | {} |",
                secs(s.wall),
                secs(s.cpu),
                mb(s.max_rss)
            )?;
        }
        let over = total.saturating_sub(load);
        writeln!(
            md,
            "\n- in the diff's `--timings` (medians): loading both {load} ms, the whole {total} ms: \
             measuring adds **{over} ms, {:.1}%** of the loading (issue 36: at most 10%)",
            over as f64 * 100.0 / load.max(1) as f64
        )?;
        writeln!(md)?;
        Ok(md)
    }
}
