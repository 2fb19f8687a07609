//! `cargo xtask bench`: tracekit against the DevTools trace engine on a big
//! real trace, on the same machine, in the same run.
//!
//! - Main table: `tracekit tracks FILE --format conformance` (release build)
//!   and the DevTools engine as a user runs it (`xtask/js/plain.mjs`: read,
//!   `JSON.parse`, `Model.parse` with Meta, Samples, Renderer and their
//!   dependencies), alternating, `--runs N` times each, on the uncompressed
//!   trace; tracekit's output must be byte-identical to the conformance
//!   oracle's dump (`xtask/js/oracle.mjs`, one untimed run). Median wall time and peak
//!   RSS (each child's own, from `wait4`), speedup and memory ratio;
//!   tracekit on the gzipped trace too.
//! - Stage table: tracekit's `--timings` table, per stage, with throughput;
//!   the loading alone also with `--threads 1`.
//! - Threads: tracekit's output with `--threads 1` and `--threads 2`, and
//!   two `--threads 1` runs at once (what the machine's two cores give two
//!   independent runs: the most `--threads 2` could be given).
//! - Scaling table (`--scaling` alone, `--all` with the others): traces of
//!   50 MB to 2 GB made by replicating the real one (see `replicate.rs`),
//!   tracekit on each and DevTools on those it can load.
//! - `--micro`: the criterion micro-benchmarks (`cargo bench -p tracekit-benches`).
//!
//! The real trace is `fixtures/big/kitchen-sink.json.gz` (about 200 MB of
//! JSON), recorded by `xtask/js/record.mjs` when missing (`--record` to
//! record it again), and decompressed next to it. The tables are printed as
//! Markdown and written to `<target dir>/bench-report.md`.

mod measure;
pub(crate) mod replicate;
mod stages;
mod views;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context};

use crate::node;
use measure::{same_bytes, summarize, Run, Summary};

const BIG_DIR: &str = "fixtures/big";
const TRACE_NAME: &str = "kitchen-sink";
/// The recorder's scale for a trace of about 200 MB of JSON.
const RECORD_SCALE: &str = "34";
const DEFAULT_SIZES_MB: &[u64] = &[50, 200, 500, 1000, 2000];

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Runs of each program in the main and stage tables (medians are reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Record the big trace again even if fixtures/big/ has it.
    #[arg(long)]
    record: bool,
    /// Only the scaling table (traces of 50 MB to 2 GB built from the real one).
    #[arg(long)]
    scaling: bool,
    /// The main tables and the scaling table.
    #[arg(long, conflicts_with = "scaling")]
    all: bool,
    /// Only the aggregated views' table (tracekit's whole views beside
    /// DevTools' first levels); `--all` includes it.
    #[arg(long, conflicts_with = "scaling")]
    views: bool,
    /// The depth of DevTools' views in the views table (expanding a node
    /// costs DevTools a walk of the thread).
    #[arg(long, default_value_t = 3)]
    devtools_views_depth: u32,
    /// Sizes of the scaling table, in MB (10^6 bytes).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SIZES_MB.to_vec())]
    sizes: Vec<u64>,
    /// Runs of each program per size in the scaling table.
    #[arg(long, default_value_t = 3)]
    scaling_runs: usize,
    /// Leave the DevTools engine out (tracekit alone).
    #[arg(long)]
    no_devtools: bool,
    /// Run the criterion micro-benchmarks (`cargo bench -p tracekit-benches`) and nothing else.
    #[arg(long)]
    micro: bool,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    if args.micro {
        return micro();
    }
    if args.runs == 0 || args.scaling_runs == 0 {
        bail!("--runs and --scaling-runs must be at least 1");
    }
    let trace = ensure_trace(args.record)?;
    if !args.no_devtools {
        node::ensure_packages()?;
    }
    let tracekit = build_tracekit()?;
    let target_dir = tracekit
        .parent()
        .and_then(Path::parent)
        .context("where is the target directory?")?
        .to_path_buf();
    let work = target_dir.join("bench");
    std::fs::create_dir_all(&work)?;
    let bench = Bench {
        tracekit,
        work,
        devtools: !args.no_devtools,
    };

    let mut sections: Vec<(&str, String)> = Vec::new();
    let main = !args.scaling && !args.views;
    let scaling = args.scaling || args.all;
    let views = args.views || args.all;
    if main {
        let text = bench.main_tables(&trace, args.runs)?;
        print!("{text}");
        sections.push(("main", text));
    }
    if views {
        let text = bench.views_table(&trace, args.runs, args.devtools_views_depth)?;
        print!("{text}");
        sections.push(("views", text));
        let text = bench.after_loading_table(&trace, args.runs)?;
        print!("{text}");
        sections.push(("after loading", text));
    }
    if scaling {
        let text = bench.scaling_table(&trace, &args.sizes, args.scaling_runs)?;
        print!("{text}");
        sections.push(("scaling", text));
    }
    let report = target_dir.join("bench-report.md");
    write_report(&report, &sections)?;
    eprintln!("xtask: wrote {}", report.display());
    if sections.iter().any(|(_, text)| text.contains("**DIFFERENT**")) {
        bail!("some outputs differ (see the tables)");
    }
    Ok(())
}

fn micro() -> anyhow::Result<()> {
    eprintln!("xtask: running the criterion micro-benchmarks: cargo bench -p tracekit-benches");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["bench", "-p", "tracekit-benches"])
        .status()
        .context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench -p tracekit-benches failed ({status})");
    }
    Ok(())
}

/// The big trace, gzipped as recorded and decompressed.
struct Trace {
    json: PathBuf,
    gz: PathBuf,
    json_size: u64,
    gz_size: u64,
}

fn ensure_trace(record: bool) -> anyhow::Result<Trace> {
    let dir = Path::new(BIG_DIR);
    let gz = dir.join(format!("{TRACE_NAME}.json.gz"));
    let json = dir.join(format!("{TRACE_NAME}.json"));
    if record || !gz.exists() {
        eprintln!(
            "xtask: recording {} (scenario {TRACE_NAME}, scale {RECORD_SCALE}: about 200 MB of JSON, a few minutes)",
            gz.display()
        );
        node::ensure_chromium()?;
        node::ensure_packages()?;
        node::run_node(&[
            "xtask/js/record.mjs".into(),
            "--out".into(),
            BIG_DIR.into(),
            "--scenario".into(),
            TRACE_NAME.into(),
            "--scale".into(),
            RECORD_SCALE.into(),
        ])?;
        if !gz.exists() {
            bail!("the recorder did not write {}", gz.display());
        }
    }
    let stale = match (json.metadata(), gz.metadata()) {
        (Ok(j), Ok(g)) => j.modified()? < g.modified()?,
        _ => true,
    };
    if stale {
        eprintln!("xtask: decompressing {} to {}", gz.display(), json.display());
        let tmp = json.with_extension("json.partial");
        let mut decoder = flate2::read::MultiGzDecoder::new(BufReader::new(std::fs::File::open(&gz)?));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        std::io::copy(&mut decoder, &mut out).with_context(|| format!("decompressing {}", gz.display()))?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &json)?;
    }
    Ok(Trace {
        json_size: json.metadata()?.len(),
        gz_size: gz.metadata()?.len(),
        json,
        gz,
    })
}

/// Builds the release CLI from the current sources; returns its path.
fn build_tracekit() -> anyhow::Result<PathBuf> {
    eprintln!("xtask: cargo build --release -p tracekit-cli");
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
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
        bail!("cargo build --release -p tracekit-cli failed ({status})");
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

struct Bench {
    tracekit: PathBuf,
    work: PathBuf,
    devtools: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
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
                let mut cmd = Command::new("node");
                cmd.args(["--max-old-space-size=16384", "xtask/js/oracle.mjs"])
                    .arg(input);
                cmd
            }
            Tool::DevtoolsPlain => {
                let mut cmd = Command::new("node");
                cmd.args(["--max-old-space-size=16384", "xtask/js/plain.mjs"])
                    .arg(input);
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
            Tool::DevtoolsViews => {
                let mut cmd = Command::new("node");
                cmd.args(["--max-old-space-size=16384", "xtask/js/calltree.mjs", "--timings"])
                    .args(local)
                    .arg(input);
                cmd
            }
        }
    }

    /// One measured run; its output goes to `work/<name>.out`.
    fn run(&self, tool: Tool, input: &Path, global: &[&str], name: &str) -> anyhow::Result<(Run, PathBuf, String)> {
        self.run_with(tool, input, global, &[], name)
    }

    /// Where the run called `name` writes its stdout and its stderr.
    fn output_files(&self, name: &str) -> (PathBuf, PathBuf) {
        (
            self.work.join(format!("{name}.out")),
            self.work.join(format!("{name}.err")),
        )
    }

    fn run_with(
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
    fn run_command(&self, mut cmd: Command, input: &Path, name: &str) -> anyhow::Result<(Run, PathBuf, String)> {
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

    fn main_tables(&self, trace: &Trace, runs: usize) -> anyhow::Result<String> {
        let environment = environment(&self.tracekit);
        let mut tk: Vec<Run> = Vec::new();
        let mut dt: Vec<Run> = Vec::new();
        let mut tk_gz: Vec<Run> = Vec::new();
        let mut dt_failure: Option<String> = None;
        let mut identical_dt: Option<Result<(), u64>> = None;
        let mut identical_gz: Result<(), u64> = Ok(());
        let mut tk_stable: Result<(), u64> = Ok(());
        let reference = self.work.join("main-tracekit-first.out");
        for i in 0..runs {
            let (run, out_tk, stderr) = self.run(Tool::Tracekit, &trace.json, &[], "main-tracekit")?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", trace.json.display(), last_error(&stderr));
            }
            tk.push(run);
            if i == 0 {
                std::fs::copy(&out_tk, &reference)?;
            } else if tk_stable.is_ok() {
                tk_stable = same_bytes(&reference, &out_tk)?;
            }
            if self.devtools && dt_failure.is_none() {
                let (run, _, stderr) = self.run(Tool::DevtoolsPlain, &trace.json, &[], "main-devtools")?;
                if run.ok() {
                    dt.push(run);
                } else {
                    dt_failure = Some(last_error(&stderr));
                }
            }
            let (run, out_gz, stderr) = self.run(Tool::Tracekit, &trace.gz, &[], "main-tracekit-gz")?;
            if !run.ok() {
                bail!("tracekit failed on {}: {}", trace.gz.display(), last_error(&stderr));
            }
            tk_gz.push(run);
            if identical_gz.is_ok() {
                identical_gz = same_bytes(&reference, &out_gz)?;
            }
        }
        let output_size = reference.metadata()?.len();
        // The outputs compared: the DevTools engine's dump, made once by
        // the oracle (its dump is not part of what a user runs).
        if self.devtools && dt_failure.is_none() {
            let (run, out_dt, stderr) = self.run(Tool::Devtools, &trace.json, &[], "main-devtools-dump")?;
            identical_dt = Some(if run.ok() {
                same_bytes(&reference, &out_dt)?
            } else {
                bail!("the oracle failed on {}: {}", trace.json.display(), last_error(&stderr));
            });
        }

        let mut md = String::new();
        writeln!(md, "## tracekit vs the DevTools trace engine\n")?;
        writeln!(md, "{environment}\n")?;
        writeln!(
            md,
            "Input: a real trace recorded by `xtask/js/record.mjs --scenario kitchen-sink --scale {RECORD_SCALE}`: \
             `{}` ({} of JSON; {} gzipped). tracekit: `tracks --format conformance`, the sync tracks of \
             every thread written to a file ({} of output). DevTools: the engine as a user runs it \
             (`xtask/js/plain.mjs`: the file read into one string, `JSON.parse`, `Model.parse` with Meta, \
             Samples, Renderer and the handlers they need; no output), its tracks compared with tracekit's \
             through one untimed run of the conformance oracle (`xtask/js/oracle.mjs`). Runs alternate, \
             {runs} of each; times and peak RSS are medians (RSS: each child's own `ru_maxrss`). Page cache warm: each run's input is read just before it, as a kernel may page out file pages it sees as cold (DAMON does on the machine this was written on); before each run, `sync` writes the earlier runs' output back to disk, and each run writes a new file.\n",
            trace.json.display(),
            mb(trace.json_size),
            mb(trace.gz_size),
            mb(output_size),
        )?;
        writeln!(
            md,
            "| program | input | wall time (median) | min – max | CPU time | peak RSS (median) | peak anon / file-backed¹ | throughput² |"
        )?;
        writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|")?;
        let row = |md: &mut String, name: &str, input: &str, s: &Summary| -> std::fmt::Result {
            writeln!(
                md,
                "| {name} | {input} | {} s | {} – {} s | {} s | {} | {} / {} | {:.0} MB/s |",
                secs(s.wall),
                secs(s.wall_min),
                secs(s.wall_max),
                secs(s.cpu),
                mb(s.max_rss),
                mb(s.peak_anon),
                mb(s.peak_file),
                trace.json_size as f64 / 1e6 / s.wall.as_secs_f64(),
            )
        };
        let tk_s = summarize(&tk);
        let gz_s = summarize(&tk_gz);
        row(&mut md, "tracekit", "JSON", &tk_s)?;
        let dt_s = (!dt.is_empty()).then(|| summarize(&dt));
        match (&dt_s, &dt_failure) {
            (Some(s), _) => row(&mut md, "DevTools engine (Node)", "JSON", s)?,
            (None, Some(f)) => writeln!(md, "| DevTools engine (Node) | JSON | fails: {} | | | | | |", escape(f))?,
            (None, None) => writeln!(
                md,
                "| DevTools engine (Node) | JSON | not run (`--no-devtools`) | | | | | |"
            )?,
        }
        row(&mut md, "tracekit", "gzip", &gz_s)?;
        writeln!(md)?;
        if let Some(d) = &dt_s {
            writeln!(
                md,
                "- **speedup** (DevTools time / tracekit time): **{:.1}×** (gzipped input: {:.1}×)",
                d.wall.as_secs_f64() / tk_s.wall.as_secs_f64(),
                d.wall.as_secs_f64() / gz_s.wall.as_secs_f64()
            )?;
            writeln!(
                md,
                "- **memory** (tracekit peak RSS / DevTools peak RSS): **{:.3}** (1/{:.1}; gzipped input: {:.3})",
                tk_s.max_rss as f64 / d.max_rss as f64,
                d.max_rss as f64 / tk_s.max_rss as f64,
                gz_s.max_rss as f64 / d.max_rss as f64,
            )?;
        }
        writeln!(
            md,
            "- decompression costs tracekit {} s (gzip median − JSON median)",
            secs_signed(gz_s.wall.as_secs_f64() - tk_s.wall.as_secs_f64())
        )?;
        let verdict = |r: &Result<(), u64>| match r {
            Ok(()) => "byte-identical".to_owned(),
            Err(at) => format!("**DIFFERENT** (first difference at byte {at})"),
        };
        match &identical_dt {
            Some(r) => writeln!(md, "- outputs, tracekit vs DevTools: {}", verdict(r))?,
            None => writeln!(
                md,
                "- outputs, tracekit vs DevTools: not compared (DevTools did not run)"
            )?,
        }
        writeln!(md, "- outputs, tracekit on gzip vs on JSON: {}", verdict(&identical_gz))?;
        writeln!(md, "- outputs, tracekit from run to run: {}", verdict(&tk_stable))?;
        writeln!(
            md,
            "\n¹ sampled every 5 ms from `/proc/PID/status` (`RssAnon` / `RssFile`): the heap vs the \
             pages of memory-mapped files (a mapped input counts in RSS). \
             ² uncompressed trace size / wall time, for both inputs. MB = 10⁶ bytes.\n"
        )?;

        let (stages, loading) = self.stage_table(trace, runs, tk_s.wall)?;
        md.push_str(&stages);
        md.push_str(&self.threads_table(trace, runs, &tk_s, &reference, loading)?);
        Ok(md)
    }

    /// The stage table, and the loading alone (median wall) with
    /// `--threads 1` and with the default threads, on the JSON input.
    fn stage_table(
        &self,
        trace: &Trace,
        runs: usize,
        plain_wall: Duration,
    ) -> anyhow::Result<(String, Option<(Duration, Duration)>)> {
        // The JSON input, the gzipped one, and the JSON input on one
        // thread (for its loading alone only), in turn round by round, so
        // that a slower spell of the machine falls on all three alike (on
        // the VM these benches were written on, spells of seconds slowed
        // runs on two threads by 10%).
        let one_thread: &[&str] = &["--threads", "1"];
        let configs = [(&trace.json, &[][..]), (&trace.gz, &[][..]), (&trace.json, one_thread)];
        let mut per_input: Vec<(Vec<Vec<stages::Stage>>, Vec<Run>)> =
            configs.iter().map(|_| Default::default()).collect();
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
        // Rows: every stage seen, in the order of the run that has the most
        // (the gzipped input's, which has a decompression stage).
        let mut paths: Vec<Vec<String>> = Vec::new();
        let mut all_runs: Vec<&Vec<stages::Stage>> = per_input.iter().flat_map(|(runs, _)| runs.iter()).collect();
        all_runs.sort_by_key(|run| std::cmp::Reverse(run.len()));
        for run in all_runs {
            for stage in run {
                if !paths.contains(&stage.path) {
                    paths.push(stage.path.clone());
                }
            }
        }
        if paths.is_empty() {
            return Ok((
                "## tracekit's stages\n\n`tracekit --timings` printed no stage table (is the flag gone?)\n\n".into(),
                None,
            ));
        }
        // Medians over runs of a stage's own and wall time, and its runs in the first.
        let median_of = |runs: &[Vec<stages::Stage>], path: &[String]| -> Option<(Duration, Duration, usize)> {
            let found: Vec<&stages::Stage> = runs.iter().filter_map(|r| r.iter().find(|s| s.path == path)).collect();
            let first = found.first()?;
            Some((
                measure::median(found.iter().map(|s| s.own).collect::<Vec<_>>()),
                measure::median(found.iter().map(|s| s.wall).collect::<Vec<_>>()),
                first.runs,
            ))
        };
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
                match median_of(runs, path) {
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
        // The "loading alone" (reading, inflating, scanning and the
        // handlers' pass): the load's wall time less the handlers' finalize
        // (profiles, trees), which run after the last event.
        let loading_alone = |runs: &[Vec<stages::Stage>]| {
            let wall = |path: &[&str]| {
                let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
                median_of(runs, &path).map(|(_, wall, _)| wall)
            };
            match (wall(&["load"]), wall(&["load", "profiles"]), wall(&["load", "trees"])) {
                (Some(load), Some(profiles), Some(trees)) => Some(load.saturating_sub(profiles + trees)),
                _ => None,
            }
        };
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

    /// `loading`: the loading alone with `--threads 1` and with the
    /// default threads, from the stage table.
    fn threads_table(
        &self,
        trace: &Trace,
        runs: usize,
        default: &Summary,
        reference: &Path,
        loading: Option<(Duration, Duration)>,
    ) -> anyhow::Result<String> {
        let counts = [1usize, 2];
        let mut measured: Vec<(Vec<Run>, Result<(), u64>)> = counts.iter().map(|_| (Vec::new(), Ok(()))).collect();
        // Two `--threads 1` runs at once, per round: their walls, and
        // whether both outputs were the reference's.
        let mut pairs: Vec<(Run, Run)> = Vec::new();
        let mut pairs_same: Result<(), u64> = Ok(());
        for _ in 0..runs {
            for (i, n) in counts.iter().enumerate() {
                let flag = n.to_string();
                let (run, out, stderr) = self.run_with(
                    Tool::Tracekit,
                    &trace.json,
                    &[],
                    &["--threads", &flag],
                    &format!("threads-{n}"),
                )?;
                if !run.ok() {
                    bail!("tracekit --threads {n} failed: {}", last_error(&stderr));
                }
                measured[i].0.push(run);
                if measured[i].1.is_ok() {
                    measured[i].1 = same_bytes(reference, &out)?;
                }
            }
            let (a, b) = self.run_pair(trace)?;
            pairs_same = pairs_same
                .and(same_bytes(reference, &a.1)?)
                .and(same_bytes(reference, &b.1)?);
            pairs.push((a.0, b.0));
        }
        let verdict = |r: &Result<(), u64>| match r {
            Ok(()) => "byte-identical".to_owned(),
            Err(at) => format!("**DIFFERENT** at byte {at}"),
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut md = String::new();
        writeln!(md, "## tracekit's threads\n")?;
        writeln!(
            md,
            "Same JSON input, `tracks --format conformance --threads N`, median of {runs} runs; \
             output compared with the default run's. The last row is two `--threads 1` runs started \
             together, in the same rounds: how much the machine's two cores give two independent runs \
             of the same work, the most `--threads 2` could be given.\n"
        )?;
        writeln!(md, "| threads | wall time | CPU time | peak RSS | output |")?;
        writeln!(md, "|---|---:|---:|---:|---|")?;
        for (n, (runs, same)) in counts.iter().zip(&measured) {
            let s = summarize(runs);
            writeln!(
                md,
                "| `--threads {n}` | {} s | {} s | {} | {} |",
                secs(s.wall),
                secs(s.cpu),
                mb(s.max_rss),
                verdict(same)
            )?;
        }
        writeln!(
            md,
            "| default ({cores} cores) | {} s | {} s | {} | (reference) |",
            secs(default.wall),
            secs(default.cpu),
            mb(default.max_rss)
        )?;
        // A pair is done when its slower run is.
        let pair_wall = measure::median(pairs.iter().map(|(a, b)| a.wall.max(b.wall)));
        let pair_runs: Vec<Run> = pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
        let pair = summarize(&pair_runs);
        writeln!(
            md,
            "| two `--threads 1` at once | {} s (each: {} s) | {} s each | {} each | {} |\n",
            secs(pair_wall),
            secs(pair.wall),
            secs(pair.cpu),
            mb(pair.max_rss),
            verdict(&pairs_same)
        )?;
        let one_thread = summarize(&measured[0].0).wall;
        let speedup = one_thread.as_secs_f64() / summarize(&measured[1].0).wall.as_secs_f64();
        // Two runs' work in the pair's time, against one run's alone.
        let machine = 2.0 * one_thread.as_secs_f64() / pair_wall.as_secs_f64();
        writeln!(
            md,
            "- `--threads 2` against `--threads 1`: **{speedup:.2}x**.\n\
             - The machine, two runs at once against one alone (2 x {} s / {} s): **{machine:.2}x**; \
             `--threads 2` gets {:.0}% of it.\n",
            secs(one_thread),
            secs(pair_wall),
            100.0 * speedup / machine
        )?;
        if let Some((one, default)) = loading {
            // What two cores would give the loading if it were spread over
            // them perfectly, at the machine's own factor.
            let best = one.div_f64(machine);
            writeln!(
                md,
                "- Loading alone (stage table): {} with `--threads 1`, {} with the default threads ({:.2}x). \
                 Spread perfectly over two cores at the machine's {machine:.2}x, it would take {} \
                 ({} MB/s).\n",
                ms(one),
                ms(default),
                one.as_secs_f64() / default.as_secs_f64(),
                ms(best),
                rate(trace.json_size as f64 / 1e6, best)
            )?;
        }
        Ok(md)
    }

    /// Two `--threads 1` runs of the bench trace at once, each measured on
    /// its own; their runs and outputs.
    fn run_pair(&self, trace: &Trace) -> anyhow::Result<((Run, PathBuf), (Run, PathBuf))> {
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

    fn scaling_table(&self, trace: &Trace, sizes_mb: &[u64], runs: usize) -> anyhow::Result<String> {
        let environment = environment(&self.tracekit);
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
            writeln!(
                md,
                "| {} | {} s | {:.0} | {} | {:.2} | {} / {} | {dt_time} | {dt_rss} | {speedup} | {memory} | {outputs} |",
                mb(size),
                secs(t.wall),
                size as f64 / 1e6 / t.wall.as_secs_f64(),
                mb(t.max_rss),
                t.max_rss as f64 / size as f64,
                mb(t.peak_anon),
                mb(t.peak_file),
            )?;
        }
        writeln!(
            md,
            "\n¹ sampled every 5 ms from `/proc/PID/status`: heap vs pages of the memory-mapped input. \
             speedup = DevTools time / tracekit time; memory = tracekit RSS / DevTools RSS. MB = 10⁶ bytes.\n"
        )?;
        Ok(md)
    }
}

/// Replaces this run's sections of the report, keeping the others.
fn write_report(path: &Path, sections: &[(&str, String)]) -> anyhow::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in old.lines() {
        if let Some(name) = line.strip_prefix("<!-- bench:").and_then(|l| l.strip_suffix(" -->")) {
            if let Some(done) = current.take() {
                kept.push(done);
            }
            current = Some((name.to_owned(), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    kept.extend(current);
    for (name, text) in sections {
        match kept.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = text.clone(),
            None => kept.push(((*name).to_owned(), text.clone())),
        }
    }
    let order = |n: &str| if n == "main" { 0 } else { 1 };
    kept.sort_by_key(|(n, _)| order(n));
    let mut out = String::from("# tracekit benchmarks (`cargo xtask bench`)\n\n");
    for (name, text) in kept {
        writeln!(out, "<!-- bench:{name} -->")?;
        out.push_str(text.trim_end());
        out.push_str("\n\n");
    }
    std::fs::write(path, out)?;
    Ok(())
}

/// Machine, versions and date, for the report.
fn environment(tracekit: &Path) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map(|kb| format!(", {:.0} GB RAM", kb as f64 * 1024.0 / 1e9))
        .unwrap_or_default();
    let output = |cmd: &mut Command| {
        cmd.output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_else(|| "?".into())
    };
    let commit = output(Command::new("git").args(["rev-parse", "--short", "HEAD"]));
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    let node = output(Command::new("node").arg("--version"));
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"]));
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| {
            l.split_whitespace()
                .next()
                .map(|l| format!(" (load average {l} before the runs)"))
        })
        .unwrap_or_default();
    let _ = tracekit;
    format!(
        "Machine: {cpu}, {cores} cores{memory}; tracekit {commit}{} (release build), Node {node}, \
         @paulirish/trace_engine 0.0.65; {date}{load}.",
        if dirty { " + uncommitted changes" } else { "" }
    )
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// The line of a failed run's stderr that says what went wrong.
fn last_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("oracle:") || l.starts_with("tracekit:"))
        .or_else(|| lines.iter().rev().find(|l| l.contains("Error")))
        .or(lines.last())
        .map(|l| l.chars().take(200).collect())
        .unwrap_or_else(|| "(no message)".into())
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn size_label(mb: u64) -> String {
    match mb % 1000 {
        0 => format!("{}GB", mb / 1000),
        _ => format!("{mb}MB"),
    }
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 100.0 {
        format!("{s:.0}")
    } else if s >= 10.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.2}")
    }
}

fn secs_signed(s: f64) -> String {
    format!("{s:.2}")
}

fn ms(d: Duration) -> String {
    format!("{} ms", ms_f(d))
}

fn ms_f(d: Duration) -> String {
    let m = d.as_secs_f64() * 1e3;
    if m >= 10.0 {
        format!("{m:.0}")
    } else {
        format!("{m:.1}")
    }
}

fn rate(size_mb: f64, d: Duration) -> String {
    let s = d.as_secs_f64();
    if s <= 0.0 {
        return "–".into();
    }
    let r = size_mb / s;
    if r >= 100_000.0 {
        "≫".into()
    } else {
        format!("{r:.0}")
    }
}

fn mb(bytes: u64) -> String {
    let m = bytes as f64 / 1e6;
    if m >= 10_000.0 {
        format!("{:.1} GB", m / 1e3)
    } else if m >= 10.0 {
        format!("{m:.0} MB")
    } else {
        format!("{m:.1} MB")
    }
}
