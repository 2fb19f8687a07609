//! The programs compared and their runs: the release CLI built from the
//! current sources, each program's command line, and one measured run (or
//! two at once) with its output kept under the work directory.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};

use super::format::{last_error, mb, secs};
use super::measure::{self, Run};
use super::trace::Trace;
use crate::node::Engine;

/// Builds the CLI as shipped (the `release-lto` profile) from the current
/// sources; returns its path.
pub(super) fn build_tracekit() -> anyhow::Result<PathBuf> {
    eprintln!("xtask: cargo build --profile release-lto -p tracekit-cli");
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--profile",
            "release-lto",
            "-p",
            "tracekit-cli",
            "--bin",
            "tracekit",
            "--message-format=json-render-diagnostics",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .context("running cargo build")?;
    let mut executable = None;
    for line in BufReader::new(child.stdout.take().context("cargo's stdout")?).lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact" && message["target"]["name"] == "tracekit" {
            if let Some(path) = message["executable"].as_str() {
                executable = Some(PathBuf::from(path));
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("cargo build --profile release-lto -p tracekit-cli failed ({status})");
    }
    executable.context("cargo build named no tracekit executable")
}

/// Reads a file just before a measured run, so that the run finds it all
/// in the page cache. Once is not enough: a kernel may page out file pages
/// it sees as cold (DAMON with a `pageout` scheme, on the VM these benches
/// were written on, took a few MB of the bench trace within a minute), and
/// a run that reads part of its input from disk measures the disk; with
/// two threads, the decoding core then waits for the reading one.
fn warm(path: &Path) -> anyhow::Result<()> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 4 << 20];
    while file.read(&mut buf)? > 0 {}
    Ok(())
}

/// The programs of a bench run and where their outputs go.
pub(super) struct Bench {
    /// The release CLI.
    pub(super) tracekit: PathBuf,
    /// Where each run writes its stdout and stderr.
    pub(super) work: PathBuf,
    /// Whether the DevTools engine runs too.
    pub(super) devtools: bool,
}

/// A program the bench runs.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Tool {
    /// `tracekit tracks --format conformance`.
    Tracekit,
    /// The DevTools engine's tracks as the conformance dump (`oracle.mjs`):
    /// run once, untimed, for the comparison of outputs.
    Devtools,
    /// The DevTools engine as a user runs it (`plain.mjs`: read, parse,
    /// the handlers the tracks need; no dump): the timed side.
    DevtoolsPlain,
    /// `tracekit calltree --format conformance`.
    TracekitViews,
    /// `tracekit data --format conformance`: every handler, and the
    /// whole of their data written.
    TracekitData,
    /// `tracekit metrics`: loading with every handler, a few lines
    /// written (what the DevTools engine's loading is timed against).
    TracekitMetrics,
    /// `tracekit insights`: every handler, then the insight sets DevTools
    /// computes after them, with Lantern's savings, written as text (a
    /// few KB: the work is the computing, as it is DevTools'; their
    /// conformance dump names every event of every third party, tens of
    /// MB, and is timed by none of the tables).
    TracekitInsights,
    /// The DevTools engine with every handler (`plain.mjs
    /// --all-handlers`), as the Performance panel loads a trace.
    DevtoolsAllHandlers,
    /// `tracekit diff INPUT INPUT --format json`: two runs loaded at once,
    /// measured and compared.
    TracekitDiff,
    /// The DevTools engine's views (`calltree.mjs --timings`).
    DevtoolsViews,
}

impl Bench {
    /// The command line of a program on `input`; `global` goes before
    /// tracekit's subcommand (`--timings`), `local` after it (`--threads 2`).
    fn command(&self, tool: Tool, input: &Path, global: &[&str], local: &[&str]) -> Command {
        match tool {
            Tool::Tracekit => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global)
                    .arg("tracks")
                    .arg(input)
                    .args(["--format", "conformance"])
                    .args(local);
                cmd
            }
            Tool::Devtools => {
                let mut cmd = Engine::Current.script("oracle", 16384);
                cmd.arg(input);
                cmd
            }
            Tool::DevtoolsPlain => {
                let mut cmd = Engine::Current.script("plain", 16384);
                cmd.arg(input);
                cmd
            }
            Tool::TracekitViews => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global)
                    .arg("calltree")
                    .arg(input)
                    .args(["--format", "conformance"])
                    .args(local);
                cmd
            }
            Tool::TracekitData => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global)
                    .arg("data")
                    .arg(input)
                    .args(["--format", "conformance"])
                    .args(local);
                cmd
            }
            Tool::TracekitMetrics => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global).arg("metrics").arg(input).args(local);
                cmd
            }
            Tool::TracekitInsights => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global).arg("insights").arg(input).args(local);
                cmd
            }
            Tool::TracekitDiff => {
                let mut cmd = Command::new(&self.tracekit);
                cmd.args(global)
                    .arg("diff")
                    .arg(input)
                    .arg(input)
                    .args(["--format", "json"])
                    .args(local);
                cmd
            }
            Tool::DevtoolsAllHandlers => {
                let mut cmd = Engine::Current.script("plain", 16384);
                cmd.arg("--all-handlers").arg(input);
                cmd
            }
            Tool::DevtoolsViews => {
                let mut cmd = Engine::Current.script("calltree", 16384);
                cmd.arg("--timings").args(local).arg(input);
                cmd
            }
        }
    }

    /// One measured run; its output goes to `work/<name>.out`.
    pub(super) fn run(
        &self,
        tool: Tool,
        input: &Path,
        global: &[&str],
        name: &str,
    ) -> anyhow::Result<(Run, PathBuf, String)> {
        self.run_with(tool, input, global, &[], name)
    }

    /// Where the run called `name` writes its stdout and its stderr.
    fn output_files(&self, name: &str) -> (PathBuf, PathBuf) {
        (
            self.work.join(format!("{name}.out")),
            self.work.join(format!("{name}.err")),
        )
    }

    /// [`Self::run`] with `local` arguments after tracekit's subcommand.
    pub(super) fn run_with(
        &self,
        tool: Tool,
        input: &Path,
        global: &[&str],
        local: &[&str],
        name: &str,
    ) -> anyhow::Result<(Run, PathBuf, String)> {
        self.run_command(self.command(tool, input, global, local), input, name)
    }

    /// One measured run of `cmd` on `input` (warmed first); its output goes
    /// to `work/<name>.out`.
    pub(super) fn run_command(
        &self,
        mut cmd: Command,
        input: &Path,
        name: &str,
    ) -> anyhow::Result<(Run, PathBuf, String)> {
        let (out, err) = self.output_files(name);
        eprintln!("xtask: {name}: {}", describe(&cmd));
        warm(input)?;
        let run = measure::run(&mut cmd, &out, &err)?;
        let stderr = std::fs::read_to_string(&err).unwrap_or_default();
        match &run.failure {
            None => eprintln!(
                "xtask:   {} s, peak RSS {} (sampled: VmHWM {}, anon {}, file {})",
                secs(run.wall),
                mb(run.max_rss),
                mb(run.sampled_hwm),
                mb(run.peak_anon),
                mb(run.peak_file)
            ),
            Some(f) => eprintln!("xtask:   failed ({f}): {}", last_error(&stderr)),
        }
        Ok((run, out, stderr))
    }

    /// Two `--threads 1` runs of the bench trace at once, each measured on
    /// its own; their runs and outputs.
    pub(super) fn run_pair(&self, trace: &Trace) -> anyhow::Result<((Run, PathBuf), (Run, PathBuf))> {
        let (out_a, err_a) = self.output_files("threads-pair-a");
        let (out_b, err_b) = self.output_files("threads-pair-b");
        let mut a = self.command(Tool::Tracekit, &trace.json, &[], &["--threads", "1"]);
        let mut b = self.command(Tool::Tracekit, &trace.json, &[], &["--threads", "1"]);
        eprintln!("xtask: threads-pair: two at once: {}", describe(&a));
        warm(&trace.json)?;
        let (run_a, run_b) = measure::run_pair((&mut a, &out_a, &err_a), (&mut b, &out_b, &err_b))?;
        for (run, err) in [(&run_a, &err_a), (&run_b, &err_b)] {
            if let Some(failure) = &run.failure {
                let stderr = std::fs::read_to_string(err).unwrap_or_default();
                bail!(
                    "tracekit --threads 1, run beside another, failed ({failure}): {}",
                    last_error(&stderr)
                );
            }
        }
        eprintln!("xtask:   {} s and {} s", secs(run_a.wall), secs(run_b.wall));
        Ok(((run_a, out_a), (run_b, out_b)))
    }
}

/// A command line as a shell would show it (unquoted), for the log.
fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}
