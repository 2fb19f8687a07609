//! The views tables of `cargo xtask bench --views`: what the aggregated
//! views (Call Tree and Bottom-Up, `tracekit calltree`) cost on top of
//! loading, at full depth for every thread, beside what the DevTools
//! engine takes to expand its trees to a few levels (`calltree.mjs
//! --max-depth N`, the same trees the panel builds lazily); and what each
//! command's work after loading (views, pages, exports) costs against the
//! loading itself, from tracekit's own stage table.

use std::fmt::Write as _;
use std::time::Duration;

use anyhow::bail;
use tracekit_conformance::views::compare_views;

use super::format::{escape, last_error, mb, secs, secs_signed};
use super::measure::{median, summarize, Run};
use super::runner::{Bench, Tool};
use super::stages;
use super::trace::Trace;

/// The commands of the after-loading table: what they make, and their
/// arguments between `tracekit --timings` and the trace (stdout goes to
/// a file).
const AFTER_LOADING: &[(&str, &[&str])] = &[
    (
        "the sync tracks, conformance dump",
        &["tracks", "--format", "conformance"],
    ),
    ("Summary of every thread", &["summary"]),
    (
        "Call Tree + Bottom-Up, every thread, 3 levels",
        &["calltree", "--format", "conformance", "--max-depth", "3"],
    ),
    (
        "Call Tree + Bottom-Up, every thread, full depth",
        &["calltree", "--format", "conformance"],
    ),
    ("flame chart page", &["chart"]),
    ("flame graph SVG", &["flamegraph"]),
    ("speedscope", &["convert", "--to", "speedscope"]),
    ("Perfetto", &["convert", "--to", "perfetto"]),
    ("pprof", &["convert", "--to", "pprof"]),
    ("folded stacks", &["convert", "--to", "folded"]),
    ("d3-flame-graph", &["convert", "--to", "d3"]),
];

/// DevTools' own account of one views run (`--timings`): parse, Call
/// Tree and Bottom-Up times, and the rows it built.
struct DevtoolsTimings {
    parse: Duration,
    top_down: Duration,
    bottom_up: Duration,
    rows: u64,
}

/// Reads `calltree: FILE: timings: parse P ms, call tree C ms, bottom-up
/// B ms (T threads, E events, R rows...)`.
fn parse_timings(stderr: &str) -> Option<DevtoolsTimings> {
    let line = stderr.lines().find(|l| l.contains(": timings: parse "))?;
    let after = |key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()?
            .parse()
            .ok()
    };
    let ms = |key: &str| after(key).map(|x| Duration::from_secs_f64(x / 1000.0));
    Some(DevtoolsTimings {
        parse: ms("parse ")?,
        top_down: ms("call tree ")?,
        bottom_up: ms("bottom-up ")?,
        rows: line.split(" events, ").nth(1)?.split(' ').next()?.parse().ok()?,
    })
}

impl Bench {
    pub(super) fn views_table(&self, trace: &Trace, runs: usize, devtools_depth: u32) -> anyhow::Result<String> {
        let mut loading: Vec<Run> = Vec::new();
        let mut views: Vec<Run> = Vec::new();
        let mut rows = 0usize;
        for _ in 0..runs {
            let (run, _, stderr) = self.run(Tool::Tracekit, &trace.json, &[], "views-tracks")?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", trace.json.display(), last_error(&stderr));
            }
            loading.push(run);
            let (run, out, stderr) = self.run(Tool::TracekitViews, &trace.json, &[], "views-tracekit")?;
            if !run.ok() {
                bail!(
                    "tracekit calltree failed on {}: {}",
                    trace.json.display(),
                    last_error(&stderr)
                );
            }
            views.push(run);
            let dump: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out)?)?;
            rows = dump["threads"]
                .as_array()
                .map(|ts| {
                    ts.iter()
                        .map(|t| {
                            t["topDown"].as_array().map_or(0, Vec::len) + t["bottomUp"].as_array().map_or(0, Vec::len)
                        })
                        .sum()
                })
                .unwrap_or(0);
        }
        let (loading, views) = (summarize(&loading), summarize(&views));

        let mut md = String::new();
        writeln!(md, "## Aggregated views: Call Tree and Bottom-Up\n")?;
        writeln!(
            md,
            "Input: `{}` ({} of JSON). tracekit: `tracks --format conformance` (loading and the \
             tracks) and `calltree --format conformance` (loading, then both views of every thread at \
             full depth: {rows} rows), alternating, {runs} runs each, medians.\n",
            trace.json.display(),
            mb(trace.json_size),
        )?;
        writeln!(md, "| program | what | wall time | peak RSS |")?;
        writeln!(md, "|---|---|---:|---:|")?;
        writeln!(
            md,
            "| tracekit | tracks (loading) | {} s | {} |",
            secs(loading.wall),
            mb(loading.max_rss)
        )?;
        writeln!(
            md,
            "| tracekit | both views, every thread, full depth | {} s | {} |",
            secs(views.wall),
            mb(views.max_rss)
        )?;

        let depth = devtools_depth.to_string();
        let mut verdict = String::from("not compared (`--no-devtools`)");
        if self.devtools {
            let local = ["--max-depth", depth.as_str()];
            let (run, out_dt, stderr) =
                self.run_with(Tool::DevtoolsViews, &trace.json, &[], &local, "views-devtools")?;
            let (_, out_tk, _) =
                self.run_with(Tool::TracekitViews, &trace.json, &[], &local, "views-tracekit-depth")?;
            match parse_timings(&stderr).filter(|_| run.ok()) {
                Some(t) => {
                    writeln!(
                        md,
                        "| DevTools engine (Node) | both views, every thread, {depth} levels ({} rows) | {} s: \
                         parse {} s, Call Tree {} s, Bottom-Up {} s | {} |",
                        t.rows,
                        secs(run.wall),
                        secs(t.parse),
                        secs(t.top_down),
                        secs(t.bottom_up),
                        mb(run.max_rss)
                    )?;
                    let report = compare_views(
                        &std::fs::read_to_string(out_tk)?,
                        &std::fs::read_to_string(out_dt)?,
                        None,
                        None,
                    )
                    .map_err(anyhow::Error::msg)?;
                    verdict = if report.is_match() {
                        format!("identical ({report})")
                    } else {
                        format!("**DIFFERENT** ({report})")
                    };
                    writeln!(md)?;
                    writeln!(
                        md,
                        "- DevTools' views alone, {depth} levels: {} s (Call Tree + Bottom-Up, from its \
                         own timings); tracekit's, full depth: {} s",
                        secs(t.top_down + t.bottom_up),
                        secs_signed(views.wall.as_secs_f64() - loading.wall.as_secs_f64()),
                    )?;
                }
                None => writeln!(
                    md,
                    "| DevTools engine (Node) | {depth} levels | fails: {} | |",
                    escape(&last_error(&stderr))
                )?,
            }
        } else {
            writeln!(md)?;
        }
        writeln!(
            md,
            "- the views cost tracekit {} s on top of loading (calltree median − tracks median; target: under 1 s)",
            secs_signed(views.wall.as_secs_f64() - loading.wall.as_secs_f64())
        )?;
        writeln!(md, "- views to {depth} levels, tracekit vs DevTools: {verdict}\n")?;
        Ok(md)
    }
}

impl Bench {
    /// What each command of [`AFTER_LOADING`] costs after loading, against
    /// the loading, read from its own `--timings` table in the same run:
    /// its total less its `load` stage. The commands alternate, `runs`
    /// times each; medians.
    pub(super) fn after_loading_table(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        // For each command, each run's load and after-load times.
        let mut measured: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); AFTER_LOADING.len()];
        for _ in 0..runs {
            for (i, (_, args)) in AFTER_LOADING.iter().enumerate() {
                let mut cmd = std::process::Command::new(&self.tracekit);
                cmd.arg("--timings").args(*args).arg(&trace.json);
                let (run, _, stderr) = self.run_command(cmd, &trace.json, &format!("after-loading-{i}"))?;
                if !run.ok() {
                    bail!("tracekit {} failed: {}", args.join(" "), last_error(&stderr));
                }
                let (stages, total) = stages::parse(&stderr);
                let load = stages.iter().find(|s| s.path == ["load"]).map(|s| s.wall);
                let (Some(load), Some(total)) = (load, total) else {
                    bail!("tracekit {}: no stage table with a load and a total", args.join(" "));
                };
                measured[i].push((load, total.saturating_sub(load)));
            }
        }
        let mut md = String::new();
        writeln!(md, "## Work after loading: views, pages and exports\n")?;
        writeln!(
            md,
            "Input: `{}` ({} of JSON). Each command with `--timings`, output to a file, alternating, \
             {runs} runs each; from each run's own stage table, the loading (`load`, wall) and the work \
             after it (the total less the loading: the views, the page or the file, and writing it); \
             medians. The ratio is the median of each run's after / load.\n",
            trace.json.display(),
            mb(trace.json_size),
        )?;
        writeln!(md, "| command | loading | after loading | after / loading |")?;
        writeln!(md, "|---|---:|---:|---:|")?;
        for ((what, args), runs) in AFTER_LOADING.iter().zip(&measured) {
            let load = median(runs.iter().map(|r| r.0));
            let after = median(runs.iter().map(|r| r.1));
            let mut ratios: Vec<f64> = runs.iter().map(|(l, a)| a.as_secs_f64() / l.as_secs_f64()).collect();
            ratios.sort_by(f64::total_cmp);
            let ratio = ratios[(ratios.len() - 1) / 2];
            writeln!(
                md,
                "| {what} (`{}`) | {:.0} ms | {:.0} ms | {:.2} |",
                args.join(" "),
                load.as_secs_f64() * 1000.0,
                after.as_secs_f64() * 1000.0,
                ratio
            )?;
        }
        writeln!(md)?;
        Ok(md)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_oracles_timings_line() {
        let t = parse_timings(
            "noise\ncalltree: big.json: timings: parse 8123 ms, call tree 15000 ms, bottom-up 402311 ms (12 threads, 600000 events, 4460 rows)\n",
        )
        .unwrap();
        assert_eq!(t.parse, Duration::from_millis(8123));
        assert_eq!(t.top_down, Duration::from_secs(15));
        assert_eq!(t.bottom_up, Duration::from_millis(402_311));
        assert_eq!(t.rows, 4460);
        assert!(parse_timings("calltree: x: No frames found").is_none());
    }
}
