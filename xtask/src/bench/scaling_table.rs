//! The scaling table: traces of 50 MB to 2 GB made by replicating the bench
//! trace (see `replicate.rs`), tracekit on each and DevTools on those it
//! can load.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::format::{escape, last_error, mb, secs, size_label};
use super::measure::{same_bytes, summarize};
use super::replicate;
use super::report::environment;
use super::runner::{Bench, Tool};
use super::trace::Trace;
use super::BIG_DIR;

impl Bench {
    /// The scaling table, as Markdown.
    pub(super) fn scaling_table(&self, trace: &Trace, sizes_mb: &[u64], runs: usize) -> anyhow::Result<String> {
        let environment = environment(&self.tracekit);
        let (files, shift_note) = ensure_scaled(trace, sizes_mb)?;

        let mut md = String::new();
        writeln!(md, "## Scaling\n")?;
        writeln!(md, "{environment}\n")?;
        writeln!(
            md,
            "Traces built from the real one (`{}`, {}) by replicating it: each copy is the recorded \
             session again, later in time and in other processes and threads (timestamps shifted by the \
             trace's span plus a second, process and thread ids offset{shift_note}); \
             the last copy is cut in time to reach the size. `tracks --format conformance` to a file (the earlier runs' \
             output written back to disk by `sync` before each run, and a new file each time), \
             median of {runs} runs per size; DevTools where it can load the file (Node cannot make a \
             string of more than 2²⁹−24 characters, about 537 MB).\n",
            trace.json.display(),
            mb(trace.json_size)
        )?;
        writeln!(
            md,
            "| input | tracekit time | tracekit MB/s | tracekit peak RSS | RSS / input | (anon / file-backed¹) | DevTools time | DevTools peak RSS | speedup | memory | outputs |"
        )?;
        writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")?;
        for (_, file) in &files {
            md.push_str(&self.scaling_row(file, runs)?);
        }
        writeln!(
            md,
            "\n¹ sampled every 5 ms from `/proc/PID/status`: heap vs pages of the memory-mapped input. \
             speedup = DevTools time / tracekit time; memory = tracekit RSS / DevTools RSS. MB = 10⁶ bytes.\n"
        )?;
        Ok(md)
    }

    /// The row of a scaled trace: tracekit and the DevTools engine,
    /// alternating `runs` times, and their outputs compared once.
    fn scaling_row(&self, file: &Path, runs: usize) -> anyhow::Result<String> {
        let size = file.metadata()?.len();
        let mut tk = Vec::new();
        let mut dt = Vec::new();
        let mut dt_failure: Option<String> = None;
        let mut same: Option<Result<(), u64>> = None;
        let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("scaled").to_owned();
        for _ in 0..runs {
            let (run, out_tk, stderr) = self.run(Tool::Tracekit, file, &[], &format!("{name}-tracekit"))?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", file.display(), last_error(&stderr));
            }
            tk.push(run);
            if self.devtools && dt_failure.is_none() {
                let (run, _, stderr) = self.run(Tool::DevtoolsPlain, file, &[], &format!("{name}-devtools"))?;
                if run.ok() {
                    dt.push(run);
                } else {
                    dt_failure = Some(last_error(&stderr));
                }
            }
            if same.is_none() && !dt.is_empty() {
                // The outputs, compared once through the oracle's dump (untimed).
                let (run, out_dt, stderr) = self.run(Tool::Devtools, file, &[], &format!("{name}-dump"))?;
                if !run.ok() {
                    bail!("the oracle failed on {}: {}", file.display(), last_error(&stderr));
                }
                same = Some(same_bytes(&out_tk, &out_dt)?);
                let _ = std::fs::remove_file(&out_dt);
            }
        }
        let _ = std::fs::remove_file(self.work.join(format!("{name}-tracekit.out")));
        let t = summarize(&tk);
        let (dt_time, dt_rss, speedup, memory, outputs) = match (dt.is_empty(), &dt_failure) {
            (false, _) => {
                let d = summarize(&dt);
                (
                    format!("{} s", secs(d.wall)),
                    mb(d.max_rss),
                    format!("{:.1}×", d.wall.as_secs_f64() / t.wall.as_secs_f64()),
                    format!("{:.3}", t.max_rss as f64 / d.max_rss as f64),
                    match same {
                        Some(Ok(())) => "identical".to_owned(),
                        Some(Err(at)) => format!("**DIFFERENT** at byte {at}"),
                        None => "–".to_owned(),
                    },
                )
            }
            (true, Some(f)) => (
                format!("fails: {}", escape(f)),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ),
            (true, None) => ("not run".into(), "–".into(), "–".into(), "–".into(), "–".into()),
        };
        let mut row = String::new();
        writeln!(
            row,
            "| {} | {} s | {:.0} | {} | {:.2} | {} / {} | {dt_time} | {dt_rss} | {speedup} | {memory} | {outputs} |",
            mb(size),
            secs(t.wall),
            size as f64 / 1e6 / t.wall.as_secs_f64(),
            mb(t.max_rss),
            t.max_rss as f64 / size as f64,
            mb(t.peak_anon),
            mb(t.peak_file),
        )?;
        Ok(row)
    }
}

/// The scaled traces of `sizes_mb`, built from the bench trace where
/// missing or older than it; and how the copies were moved, for the
/// table's text (empty when none was built).
pub(super) fn ensure_scaled(trace: &Trace, sizes_mb: &[u64]) -> anyhow::Result<(Vec<(u64, PathBuf)>, String)> {
    // Build what is missing or older than the real trace.
    let files: Vec<(u64, PathBuf)> = sizes_mb
        .iter()
        .map(|&s| (s, Path::new(BIG_DIR).join(format!("scaled-{}.json", size_label(s)))))
        .collect();
    let source_time = trace.json.metadata()?.modified()?;
    let stale: Vec<&(u64, PathBuf)> = files
        .iter()
        .filter(|(_, f)| {
            f.metadata()
                .and_then(|m| m.modified())
                .map_or(true, |t| t < source_time)
        })
        .collect();
    let mut shift_note = String::new();
    if !stale.is_empty() {
        eprintln!("xtask: reading {} to replicate it", trace.json.display());
        let text = std::fs::read_to_string(&trace.json)?;
        let source = replicate::Source::parse(&text)?;
        shift_note = format!(
            " (here: {} s apart, ids + k × {})",
            source.shift / 1_000_000,
            source.id_offset
        );
        for (size, file) in stale {
            let start = std::time::Instant::now();
            let copies = source.write(size * 1_000_000, file)?;
            eprintln!(
                "xtask: wrote {} ({}, {copies:.2} copies) in {} s",
                file.display(),
                mb(file.metadata()?.len()),
                secs(start.elapsed())
            );
        }
    }
    Ok((files, shift_note))
}
