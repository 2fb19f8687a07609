//! The agent table of `cargo xtask bench` (`--agent` alone): issue 34's
//! scale figures. A trace of about 700 MB (the bench trace replicated, as
//! the scaling table makes them) summarized for an agent by
//! `tracekit agent summary` against chrome-devtools-mcp's offline parse and
//! summary of the same file (the oracle's `mcp-summary.mjs --bare`: its own
//! `parseRawTraceBuffer` and formatter), alternating; and the MCP server's
//! answers to a first question and to the next ones on the same trace,
//! which come from its cache (`xtask/js/mcp-cache-timing.mjs`, the official
//! TypeScript SDK over stdio).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};

use super::format::{last_error, mb, secs};
use super::measure::{summarize, Run};
use super::runner::Bench;
use super::scaling_table::ensure_scaled;
use super::trace::Trace;
use crate::node::NODE;

/// The size of the agent table's trace, MB: issue 34's "700 MB trace".
pub(super) const AGENT_TRACE_MB: u64 = 700;

impl Bench {
    /// The agent table, as Markdown.
    pub(super) fn agent_table(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        let (files, _) = ensure_scaled(trace, &[AGENT_TRACE_MB])?;
        let file = &files[0].1;
        let oracle = crate::data::oracle_dir()?;
        let (mut ours, mut theirs) = (Vec::<Run>::new(), Vec::<Run>::new());
        let mut their_failure = None;
        for i in 0..runs {
            let mut cmd = Command::new(&self.tracekit);
            cmd.args(["agent", "summary"]).arg(file);
            let (run, _, stderr) = self.run_command(cmd, file, &format!("agent-tracekit-{i}"))?;
            if !run.ok() {
                bail!("tracekit agent summary failed: {}", last_error(&stderr));
            }
            ours.push(run);
            if self.devtools && their_failure.is_none() {
                let mut cmd = Command::new(oracle.join("node_modules/.bin/node"));
                cmd.arg("--max-old-space-size=16384")
                    .arg(oracle.join("mcp-summary.mjs"))
                    .arg(std::fs::canonicalize(file)?)
                    .arg("--bare");
                let (run, _, stderr) = self.run_command(cmd, file, &format!("agent-devtools-{i}"))?;
                if run.ok() {
                    theirs.push(run);
                } else {
                    their_failure = Some(last_error(&stderr));
                }
            }
        }
        let cache = self.cache_timing(file)?;
        let mut md = String::new();
        writeln!(md, "## For AI agents\n")?;
        writeln!(
            md,
            "Input: `{}` ({}, the bench trace replicated). `tracekit agent summary` against \
             chrome-devtools-mcp 1.11.0's offline parse and summary of the same file \
             (`mcp-summary.mjs --bare`: `parseRawTraceBuffer`, then its formatter), alternating, \
             {runs} runs each; medians.\n",
            file.display(),
            mb(file.metadata()?.len())
        )?;
        writeln!(md, "| program | wall time (median) | CPU time | peak RSS (median) |")?;
        writeln!(md, "|---|---:|---:|---:|")?;
        let ours = summarize(&ours);
        writeln!(
            md,
            "| tracekit `agent summary` | {} s | {} s | {} |",
            secs(ours.wall),
            secs(ours.cpu),
            mb(ours.max_rss)
        )?;
        if !theirs.is_empty() {
            let theirs = summarize(&theirs);
            writeln!(
                md,
                "| chrome-devtools-mcp (`mcp-summary.mjs --bare`) | {} s | {} s | {} |",
                secs(theirs.wall),
                secs(theirs.cpu),
                mb(theirs.max_rss)
            )?;
            writeln!(
                md,
                "\n- tracekit is **{:.1}×** faster, in **{:.3}** of the memory (issue 34: at least 20×, at most 0.1)",
                theirs.wall.as_secs_f64() / ours.wall.as_secs_f64(),
                ours.max_rss as f64 / theirs.max_rss.max(1) as f64
            )?;
        }
        if let Some(why) = their_failure {
            writeln!(md, "\n- chrome-devtools-mcp failed on this file: {why}")?;
        }
        writeln!(
            md,
            "- `tracekit mcp`, the same trace asked again (from its cache): {cache}\n"
        )?;
        Ok(md)
    }

    /// The MCP server's answer times on `file`: the first question, then
    /// others from the cache, as `mcp-cache-timing.mjs` prints them.
    fn cache_timing(&self, file: &Path) -> anyhow::Result<String> {
        let dir = file.parent().context("the trace's folder")?;
        let name = file.file_name().context("the trace's name")?;
        eprintln!("xtask: agent-cache: tracekit mcp from the TypeScript SDK");
        let out = Command::new(NODE)
            .arg("xtask/js/mcp-cache-timing.mjs")
            .arg(&self.tracekit)
            .arg(std::fs::canonicalize(dir)?)
            .arg(name)
            .output()
            .context("running xtask/js/mcp-cache-timing.mjs")?;
        if !out.status.success() {
            bail!(
                "mcp-cache-timing.mjs failed: {}",
                last_error(&String::from_utf8_lossy(&out.stderr))
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }
}
