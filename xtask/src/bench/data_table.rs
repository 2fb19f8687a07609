//! The handlers table of `cargo xtask bench`: loading with every handler
//! (`tracekit metrics`: the load, and a few lines written) against the
//! DevTools engine with every handler (`plain.mjs --all-handlers`, as the
//! Performance panel loads a trace), beside tracekit's tracks alone and
//! tracekit's whole data dump (`data --format conformance`), alternating;
//! and, when
//! the oracle's `devtools-data.mjs` is at hand, tracekit's data compared
//! with DevTools' (one untimed run).

use std::fmt::Write as _;

use anyhow::bail;
use tracekit_conformance::data::compare_data;

use super::format::{escape, last_error, mb, secs};
use super::measure::{summarize, Run, Summary};
use super::runner::{Bench, Tool};
use super::trace::Trace;

impl Bench {
    /// The handlers table, as Markdown.
    pub(super) fn data_table(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        let (mut tracks, mut data, mut devtools) = (Vec::<Run>::new(), Vec::<Run>::new(), Vec::<Run>::new());
        let (mut loading, mut insights) = (Vec::<Run>::new(), Vec::<Run>::new());
        let mut devtools_failure = None;
        // The path of the data written (each run writes the same), read
        // once the runs are over: held during them (189 MB on the bench
        // trace), it was the xtask's resident memory when each child was
        // forked, which Linux counts in the child's peak (`ru_maxrss`
        // survives exec), and hid every peak of tracekit below it.
        let mut ours = None;
        for i in 0..runs {
            let (run, _, stderr) = self.run(Tool::Tracekit, &trace.json, &[], "data-tracks")?;
            if !run.ok() {
                bail!("tracekit tracks failed: {}", last_error(&stderr));
            }
            tracks.push(run);
            let (run, out, stderr) = self.run(Tool::TracekitData, &trace.json, &[], "data-tracekit")?;
            if !run.ok() {
                bail!("tracekit data failed: {}", last_error(&stderr));
            }
            data.push(run);
            let (run, _, stderr) = self.run(Tool::TracekitMetrics, &trace.json, &[], "data-metrics")?;
            if !run.ok() {
                bail!("tracekit metrics failed: {}", last_error(&stderr));
            }
            loading.push(run);
            let (run, _, stderr) = self.run(Tool::TracekitInsights, &trace.json, &[], "data-insights")?;
            if !run.ok() {
                bail!("tracekit insights failed: {}", last_error(&stderr));
            }
            insights.push(run);
            if i == 0 {
                ours = Some(out);
            }
            if self.devtools && devtools_failure.is_none() {
                let (run, _, stderr) = self.run(Tool::DevtoolsAllHandlers, &trace.json, &[], "data-devtools")?;
                if run.ok() {
                    devtools.push(run);
                } else {
                    devtools_failure = Some(last_error(&stderr));
                }
            }
        }
        let mut md = String::new();
        writeln!(md, "## Every handler\n")?;
        writeln!(
            md,
            "Input: `{}` ({}). tracekit: loading with every handler it has ({}) is `metrics` (a few \
             lines written); `data --format conformance` also writes all of their data (a document of \
             tens of MB); `tracks --format conformance` is the tracks alone. DevTools: `xtask/js/plain.mjs \
             --all-handlers` (`createWithAllHandlers`, as the Performance panel loads a trace; the \
             engine computes its insights after its handlers, as it always does). Runs alternate, \
             {runs} of each; medians.\n",
            trace.json.display(),
            mb(trace.json_size),
            tracekit::data::HANDLERS.join(", "),
        )?;
        writeln!(md, "| program | wall time (median) | CPU time | peak RSS (median) |")?;
        writeln!(md, "|---|---:|---:|---:|")?;
        let row = |md: &mut String, name: &str, s: &Summary| {
            writeln!(
                md,
                "| {name} | {} s | {} s | {} |",
                secs(s.wall),
                secs(s.cpu),
                mb(s.max_rss)
            )
        };
        let (tracks_s, data_s, loading_s) = (summarize(&tracks), summarize(&data), summarize(&loading));
        row(&mut md, "tracekit, tracks alone", &tracks_s)?;
        row(&mut md, "tracekit, loading with every handler (`metrics`)", &loading_s)?;
        let insights_s = summarize(&insights);
        row(
            &mut md,
            "tracekit, every handler and the insights it has (`insights`)",
            &insights_s,
        )?;
        row(
            &mut md,
            "tracekit, every handler's whole data written (`data`)",
            &data_s,
        )?;
        match (&devtools_failure, devtools.is_empty()) {
            (Some(f), _) => writeln!(md, "| DevTools engine, every handler | fails: {} | | |", escape(f))?,
            (None, true) => writeln!(md, "| DevTools engine, every handler | not run | | |")?,
            (None, false) => {
                let dt = summarize(&devtools);
                row(&mut md, "DevTools engine, every handler", &dt)?;
                writeln!(
                    md,
                    "\n- **speedup, every handler**: **{:.1}×**; **memory**: **{:.3}** of DevTools'",
                    dt.wall.as_secs_f64() / loading_s.wall.as_secs_f64(),
                    loading_s.max_rss as f64 / dt.max_rss as f64
                )?;
                writeln!(
                    md,
                    "- **with the insights** (tracekit computes {} of DevTools' 19, with Lantern's savings; `insights`, as text): **{:.1}×**, memory **{:.3}**",
                    tracekit::insights::computed_insights().len(),
                    dt.wall.as_secs_f64() / insights_s.wall.as_secs_f64(),
                    insights_s.max_rss as f64 / dt.max_rss as f64
                )?;
            }
        }
        writeln!(
            md,
            "- loading with every handler costs {:.0} ms over the tracks alone; writing all of the data, {:.0} ms more",
            (loading_s.wall.as_secs_f64() - tracks_s.wall.as_secs_f64()) * 1000.0,
            (data_s.wall.as_secs_f64() - loading_s.wall.as_secs_f64()) * 1000.0
        )?;
        let ours = ours.map(std::fs::read_to_string).transpose()?;
        self.data_verdict(&mut md, trace, ours)?;
        writeln!(md)?;
        Ok(md)
    }

    /// The line that compares tracekit's data with DevTools' (untimed),
    /// when the oracle is installed.
    fn data_verdict(&self, md: &mut String, trace: &Trace, ours: Option<String>) -> anyhow::Result<()> {
        if let (Some(ours), Some(expected)) = (ours, self.devtools_data(trace)?) {
            let report = compare_data(&expected, &ours, tracekit::data::HANDLERS).map_err(anyhow::Error::msg)?;
            let (matched, total) = report.values();
            let verdict = if report.identical() == report.handlers.len() {
                "identical"
            } else {
                "**DIFFERENT**"
            };
            writeln!(
                md,
                "- the data against DevTools' (`devtools-data.mjs`, untimed): {verdict}, handlers {}/{}, values {matched}/{total}",
                report.identical(),
                report.handlers.len()
            )?;
        }
        Ok(())
    }

    /// DevTools' data dump of the trace, from the oracle's script when it
    /// is installed (`None` otherwise, or with the engine left out).
    fn devtools_data(&self, trace: &Trace) -> anyhow::Result<Option<String>> {
        if !self.devtools {
            return Ok(None);
        }
        let out = self.work.join("data-devtools-dump.json");
        match crate::data::oracle_dump(crate::node::Engine::Current, &trace.json, &out) {
            Ok(true) => Ok(Some(std::fs::read_to_string(&out)?)),
            Ok(false) => Ok(None),
            Err(e) => {
                eprintln!("xtask: no comparison of the data: {e}");
                Ok(None)
            }
        }
    }
}
