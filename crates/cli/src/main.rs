//! The `tracekit` command: reads a file or standard input in pieces, hands
//! its bytes to the library, prints the tracks. All I/O of tracekit is here.
//!
//! Messages: an error is one line on stderr, `tracekit: FILE: WHAT` (or
//! `tracekit: WHAT` when no file is concerned), a warning `tracekit:
//! warning: FILE: WHAT`, each once. Exit status: 0 on success, 1 when an
//! input cannot be read or used or the output cannot be written, 2 when
//! the command line is wrong: clap's message with `tracekit: ` for its
//! `error: `, and clap's status. (ripgrep gives 2 for every error, as its
//! 1 means "no match"; tracekit has no such outcome.)

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod timings;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use tracekit::query::{Filter, FilterError};
use tracekit::{AnalyzeOptions, Parallelism};

/// jemalloc for the command, with the settings of `.cargo/config.toml`:
/// glibc's allocator kept a big trace's freed loading buffers in the
/// process while its tracks were built (2 GB trace: peak RSS 1.33 GB
/// against about 0.9 GB), and the bench trace loads a tenth faster. The library
/// leaves the allocator to its users.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const AFTER_HELP: &str = "\
Exit status: 0 on success; 1 when an input cannot be read or used, or the \
output cannot be written (one line on stderr: `tracekit: FILE: WHAT`); 2 \
when the command line is wrong.";

#[derive(Parser)]
#[command(
    name = "tracekit",
    version,
    about = "Sync tracks of Chrome performance traces and JavaScript CPU profiles",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print how long each stage took, on stderr.
    #[arg(long, global = true, display_order = 100)]
    timings: bool,
    /// Print no warning and no progress bar (errors are still printed).
    #[arg(short, long, global = true, display_order = 100)]
    quiet: bool,
    /// The most track nodes one thread may have (about 100 bytes of memory
    /// each), and the most nodes of a thread's Bottom-Up in `calltree`; a
    /// thread with more is an error rather than gigabytes.
    #[arg(long, global = true, value_name = "N", default_value_t = tracekit::DEFAULT_MAX_NODES, display_order = 100)]
    max_nodes: usize,
    /// Worker threads for loading and per-thread work (default: all cores;
    /// 1: no extra thread); for `export`, the traces loaded at once. The
    /// output is the same whatever the number.
    #[arg(long, global = true, value_name = "N", display_order = 100)]
    threads: Option<usize>,
}

/// What every subcommand takes from the global options.
struct Common {
    quiet: bool,
    /// `--threads`, as given.
    threads: Option<usize>,
    /// The options every load starts from: `--max-nodes` and `--threads`.
    options: AnalyzeOptions,
}

/// The stack of each of the pool's threads: the command runs on one of
/// them (see [`run`]), so they get the main thread's usual 8 MiB rather
/// than the 2 MiB of a spawned thread.
const POOL_STACK: usize = 8 << 20;

impl Common {
    /// The global options, and the pool the command runs on (`None` for
    /// `--threads 1`: everything on this thread).
    fn new(cli: &Cli) -> Result<(Common, Option<rayon::ThreadPool>), String> {
        let pool = match cli.threads {
            Some(0 | 1) => None,
            threads => Some(
                rayon::ThreadPoolBuilder::new()
                    .stack_size(POOL_STACK)
                    // Without `--threads`, 0: rayon's default, all cores.
                    .num_threads(threads.unwrap_or(0))
                    .build()
                    .map_err(|e| match threads {
                        Some(n) => format!("starting {n} threads: {e}"),
                        None => format!("starting the worker threads: {e}"),
                    })?,
            ),
        };
        let parallelism = if pool.is_some() {
            Parallelism::Rayon
        } else {
            Parallelism::Sequential
        };
        let options = AnalyzeOptions::default()
            .with_parallelism(parallelism)
            .with_max_nodes(cli.max_nodes);
        let common = Common {
            quiet: cli.quiet,
            threads: cli.threads,
            options,
        };
        Ok((common, pool))
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print the call tree of every thread (the DevTools Performance panel's tracks).
    Tracks(TracksArgs),
    /// Print what each trace holds (processes, threads, their tracks and
    /// profiles) and what was skipped while loading it.
    Info(InfoArgs),
    /// Print the Call Tree (top-down) or the Bottom-Up of every thread, as
    /// the DevTools Performance panel's tree views aggregate it (no
    /// grouping; docs/views.md).
    Calltree(CalltreeArgs),
    /// Print the Summary of every thread: the time per category
    /// (Scripting, Rendering, ...), idle and total, over the trace or a
    /// window, as the DevTools Performance panel's Summary tab shows it
    /// for a selected thread (docs/views.md).
    Summary(SummaryArgs),
    /// Write a flame chart of the tracks: one self-contained HTML file
    /// (no request leaves it) that draws them as the DevTools Performance
    /// panel does, a lane per thread, with zoom, pan, tooltips and search
    /// (docs/chart.md).
    Chart(ChartArgs),
    /// Write the tracks in a format another tool reads: speedscope,
    /// pprof, Perfetto, folded stacks or d3-flame-graph JSON
    /// (docs/exports.md).
    Convert(ConvertArgs),
    /// Draw a flame graph (SVG) of the calls of every thread, merged by
    /// stack, widths their self and total times; `--bottom-up` draws the
    /// callers of each function as an icicle.
    Flamegraph(FlamegraphArgs),
    /// Write the tables of many traces as Parquet files, one per table
    /// (tracks, calls, samples, threads, diagnostics; docs/tables.md),
    /// loading traces in parallel. A trace that cannot be loaded is
    /// reported and counted in `diagnostics`, and the others are still
    /// exported; the exit status is 1 if any failed.
    Export(ExportArgs),
    /// Print a completion script for a shell.
    ///
    /// For bash: `tracekit completions bash >
    /// ~/.local/share/bash-completion/completions/tracekit`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): tracekit(1), or that of a subcommand.
    ///
    /// Read one with `tracekit man tracks | man -l -`.
    Man {
        /// The subcommand whose page to print.
        #[arg(value_parser = ["tracks", "info", "calltree", "summary", "chart", "convert", "flamegraph", "export", "completions", "man"])]
        subcommand: Option<String>,
    },
}

#[derive(clap::Args)]
struct TracksArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
    /// Only nodes overlapping this window, in ms from the start of the
    /// trace: START..END, START.. or ..END.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
    /// Only the first N levels of each tree (1: the roots only).
    #[arg(long, value_name = "N", value_parser = parse_max_depth)]
    max_depth: Option<u32>,
    /// Only nodes lasting at least this many ms.
    #[arg(long, value_name = "MS", value_parser = parse_min_duration, allow_hyphen_values = true)]
    min_duration: Option<f64>,
    /// Print on stderr what was skipped or repaired while loading.
    #[arg(long)]
    stats: bool,
}

#[derive(clap::Args)]
struct CalltreeArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = CalltreeFormat::Text)]
    format: CalltreeFormat,
    /// The Bottom-Up (callers under each function) instead of the Call Tree
    /// (text format; the other formats hold both).
    #[arg(long)]
    bottom_up: bool,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// The selected range, in ms from the start of the trace: START..END,
    /// START.. or ..END (default: the whole trace). Times are clipped to it.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
    /// Only the first N levels of each tree (1: the roots only).
    #[arg(long, value_name = "N", value_parser = parse_max_depth)]
    max_depth: Option<u32>,
    /// Group the top-level nodes as the Performance panel's "Group by"
    /// does; group nodes are the first level.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = CalltreeGroupBy::None)]
    group_by: CalltreeGroupBy,
}

/// The kinds of `calltree --group-by`.
#[derive(Clone, Copy, ValueEnum)]
enum CalltreeGroupBy {
    /// No grouping.
    None,
    /// By the category of the event (Scripting, Rendering, Painting...).
    Category,
    /// By the domain of its script or resource URL (example.com).
    Domain,
    /// By the host of its URL (www.example.com).
    Subdomain,
    /// By its URL.
    Url,
    /// By its frame (the main frame when it names none).
    Frame,
}

impl From<CalltreeGroupBy> for tracekit::views::GroupBy {
    fn from(kind: CalltreeGroupBy) -> Self {
        match kind {
            CalltreeGroupBy::None => tracekit::views::GroupBy::None,
            CalltreeGroupBy::Category => tracekit::views::GroupBy::Category,
            CalltreeGroupBy::Domain => tracekit::views::GroupBy::Domain,
            CalltreeGroupBy::Subdomain => tracekit::views::GroupBy::Subdomain,
            CalltreeGroupBy::Url => tracekit::views::GroupBy::Url,
            CalltreeGroupBy::Frame => tracekit::views::GroupBy::Frame,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum CalltreeFormat {
    /// An indented tree: a line per node with its self and total time in
    /// ms and in percent of the window.
    Text,
    /// Both views of each thread as JSON: nodes in the text format's
    /// order with parent, function, self and total ms, and sample counts
    /// for a thread with a CPU profile (docs/views.md).
    Json,
    /// The dump compared with the DevTools engine's (xtask/js/calltree.mjs).
    Conformance,
}

#[derive(clap::Args)]
struct SummaryArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
    format: SummaryFormat,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// The selected range, in ms from the start of the trace: START..END,
    /// START.. or ..END (default: the whole trace). It must not be empty.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
}

#[derive(Clone, Copy, ValueEnum)]
enum SummaryFormat {
    /// A table per thread: each category's ms and percent of the total,
    /// largest first, then idle and the total.
    Text,
    /// The same as JSON, numbers unrounded (docs/views.md).
    Json,
    /// The dump compared with the DevTools engine's (xtask/js/summary.mjs).
    Conformance,
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the output to this file instead of standard output (binary
    /// formats are not written to a terminal).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The format to write.
    #[arg(long, value_enum)]
    to: ConvertFormat,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// Only calls overlapping this window, in ms from the start of the
    /// trace (START..END, START.. or ..END); their times are clipped to it.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ConvertFormat {
    /// speedscope's JSON: a profile per thread, its calls in time order
    /// (open it at speedscope.app, or with `speedscope FILE`).
    Speedscope,
    /// pprof's gzipped profile.proto: self time and calls per stack
    /// (`go tool pprof -top FILE`).
    Pprof,
    /// A Perfetto trace (protobuf): a track per process and thread, the
    /// calls as nested slices (open it in the Perfetto UI).
    Perfetto,
    /// Folded stacks, `process;thread;frame;... MICROSECONDS` (for
    /// flamegraph.pl and inferno-flamegraph).
    Folded,
    /// d3-flame-graph's JSON: nested {name, value, children}, values the
    /// total µs.
    D3,
}

impl ConvertFormat {
    fn export_format(self) -> tracekit::export::Format {
        use tracekit::export::Format;
        match self {
            ConvertFormat::Speedscope => Format::Speedscope,
            ConvertFormat::Pprof => Format::Pprof,
            ConvertFormat::Perfetto => Format::Perfetto,
            ConvertFormat::Folded => Format::Folded,
            ConvertFormat::D3 => Format::D3,
        }
    }
}

#[derive(clap::Args)]
struct FlamegraphArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the SVG (or the folded stacks) to this file instead of
    /// standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// Only calls overlapping this window, in ms from the start of the
    /// trace (START..END, START.. or ..END); their times are clipped to it.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
    /// Each function's callers, as an icicle (DevTools' Bottom-Up): the
    /// frames of each stack reversed below its process and thread.
    #[arg(long)]
    bottom_up: bool,
    /// Write the folded stacks the graph is drawn from instead of the SVG.
    #[arg(long)]
    folded: bool,
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
}

#[derive(clap::Args)]
struct ChartArgs {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
    /// Write the chart to this file (`-`: standard output, which must not
    /// be a terminal).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Only the threads with this name (any case; else a unique part of
    /// it) or this tid.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = parse_thread)]
    thread: Option<String>,
    /// Only nodes overlapping this window, in ms from the start of the
    /// trace: START..END, START.. or ..END; the chart opens on it.
    #[arg(long, value_name = "START..END", value_parser = parse_window, allow_hyphen_values = true)]
    window: Option<(f64, f64)>,
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// Traces (Chrome traces, .cpuprofile or JS Self-Profiling traces,
    /// gzipped or not), or directories: their `.json` and `.cpuprofile`
    /// files (`.gz` too), recursively.
    #[arg(required = true, num_args = 1.., value_name = "TRACE_OR_DIR")]
    traces: Vec<PathBuf>,
    /// The directory to write `TABLE.parquet` files to (made if needed;
    /// files of the same names are replaced).
    #[arg(long, value_name = "OUT_DIR")]
    parquet: PathBuf,
    /// The tables to write, separated by commas.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["tracks", "calls", "samples", "threads", "diagnostics"])]
    tables: Vec<TableName>,
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
}

/// The tables of `export --tables`.
#[derive(Clone, Copy, ValueEnum)]
enum TableName {
    /// One row per track node (trace event or JS call).
    Tracks,
    /// The Call Tree of every thread (top-down, the whole trace).
    Calls,
    /// One row per CPU sample.
    Samples,
    /// One row per thread.
    Threads,
    /// What was skipped or repaired, and the traces that failed.
    Diagnostics,
}

impl From<TableName> for tracekit_tables::Table {
    fn from(name: TableName) -> Self {
        match name {
            TableName::Tracks => tracekit_tables::Table::Tracks,
            TableName::Calls => tracekit_tables::Table::Calls,
            TableName::Samples => tracekit_tables::Table::Samples,
            TableName::Threads => tracekit_tables::Table::Threads,
            TableName::Diagnostics => tracekit_tables::Table::Diagnostics,
        }
    }
}

#[derive(clap::Args)]
struct InfoArgs {
    /// Chrome traces, .cpuprofile or JS Self-Profiling traces (gzipped or
    /// not); `-` reads standard input.
    #[arg(required = true, num_args = 1..)]
    traces: Vec<PathBuf>,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// An indented tree for people and snapshot tests: a line per node with
    /// its start, duration and self time in ms (docs/text-format.md).
    Text,
    /// One JSON document for viewers, with every field of every node
    /// (docs/json-format.md).
    Json,
    /// The dump compared with the DevTools engine's (raw microseconds).
    Conformance,
}

fn parse_ms(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("not a number of milliseconds: '{s}'")),
    }
}

fn parse_window(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or("expected START..END, START.. or ..END (milliseconds)")?;
    if a.trim().is_empty() && b.trim().is_empty() {
        return Err("expected START..END, START.. or ..END (milliseconds)".into());
    }
    let start = if a.trim().is_empty() {
        f64::NEG_INFINITY
    } else {
        parse_ms(a)?
    };
    let end = if b.trim().is_empty() {
        f64::INFINITY
    } else {
        parse_ms(b)?
    };
    if end < start {
        return Err(format!("END ({}) is before START ({})", b.trim(), a.trim()));
    }
    Ok((start, end))
}

fn parse_thread(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("give a thread name, part of one, or a tid".into());
    }
    Ok(s.to_owned())
}

fn parse_max_depth(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("0 levels would show nothing: 1 shows the roots only".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("not a number of levels: '{s}'")),
    }
}

fn parse_min_duration(s: &str) -> Result<f64, String> {
    match parse_ms(s)? {
        x if x >= 0.0 => Ok(x),
        _ => Err(format!("a duration cannot be negative: '{s}'")),
    }
}

/// An input: a file, or standard input (`-`).
struct Input {
    path: Option<PathBuf>,
}

impl Input {
    fn new(path: &Path) -> Input {
        Input {
            path: (path.as_os_str() != "-").then(|| path.to_owned()),
        }
    }

    /// How messages name the input.
    fn name(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "<stdin>".to_owned(),
        }
    }
}

/// Gzip's magic bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The progress bar is shown for inputs at least this large: plain text
/// loads at several hundred MB/s, gzip about ten times slower per byte
/// read (the bar counts the bytes read, compressed or not).
fn progress_threshold(gzip: bool) -> u64 {
    if gzip {
        8 << 20
    } else {
        64 << 20
    }
}

/// A progress bar on stderr, for large inputs when stderr is a terminal.
/// The size of a file is known up front; standard input gets a spinner
/// once it has been read past the threshold.
struct Progress {
    enabled: bool,
    threshold: u64,
    read: u64,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(enabled: bool, size: Option<u64>, gzip: bool) -> Progress {
        let threshold = progress_threshold(gzip);
        let mut progress = Progress {
            enabled: enabled && std::io::stderr().is_terminal(),
            threshold,
            read: 0,
            bar: None,
        };
        if let Some(size) = size {
            if progress.enabled && size >= threshold {
                let bar = indicatif::ProgressBar::new(size);
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} loading {bytes}/{total_bytes} {wide_bar} {eta}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                progress.bar = Some(bar);
            }
            progress.enabled = false;
        }
        progress
    }

    fn add(&mut self, n: usize) {
        self.read += n as u64;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        } else if self.enabled && self.read >= self.threshold {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} loading: {bytes} read")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar.set_position(self.read);
            self.bar = Some(bar);
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// What was read of an input.
struct Loaded {
    analysis: tracekit::Analysis,
    /// Bytes read (compressed, for gzip).
    bytes: u64,
    gzip: bool,
}

/// Reads the input in pieces and feeds them to the loader, with a progress
/// bar on stderr when it is a terminal and the input is large.
fn load(input: &Input, options: &AnalyzeOptions, quiet: bool) -> Result<Loaded, String> {
    let span = tracing::info_span!("load", json_bytes = tracing::field::Empty);
    let _entered = span.enter();
    let (mut reader, size): (Box<dyn Read>, Option<u64>) = match &input.path {
        Some(path) => {
            let file = File::open(path).map_err(|e| e.to_string())?;
            let meta = file.metadata().map_err(|e| e.to_string())?;
            if meta.is_dir() {
                return Err("is a directory".into());
            }
            (Box::new(file), meta.is_file().then_some(meta.len()))
        }
        None => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err("standard input is a terminal: give a file, or pipe a trace in".into());
            }
            (Box::new(stdin.lock()), None)
        }
    };
    // The first two bytes tell gzip, which sets the progress bar's threshold.
    let mut head = Vec::with_capacity(2);
    reader
        .by_ref()
        .take(2)
        .read_to_end(&mut head)
        .map_err(|e| format!("reading the input: {e}"))?;
    let gzip = head.starts_with(&GZIP_MAGIC);
    let mut progress = Progress::new(!quiet, size, gzip);
    let mut loader = tracekit::Loader::new(*options);
    loader.push(&head).map_err(|e| e.to_string())?;
    progress.add(head.len());
    let read = if gzip {
        // Compressed input is pushed a MB at a time, so that the bar moves
        // as it is inflated (the loader's own pieces are of 8 MB).
        let mut piece = vec![0u8; 1 << 20];
        loop {
            match reader.read(&mut piece) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if let Err(e) = loader.push(&piece[..n]) {
                        break Err(e);
                    }
                    progress.add(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    break Err(tracekit::LoadError::new(
                        tracekit::ErrorKind::Io,
                        format!("reading the input: {e}"),
                    ))
                }
            }
        }
    } else {
        // Plain text is read straight into the loader's buffer.
        loader.read_from(&mut reader, |n| progress.add(n))
    };
    let bytes = progress.read;
    progress.finish();
    read.map_err(|e| e.to_string())?;
    let analysis = loader.finish().map_err(|e| e.to_string())?;
    span.record("json_bytes", analysis.input_bytes() as u64);
    Ok(Loaded { analysis, bytes, gzip })
}

/// Where the output goes: standard output, or a file (`-o`), created when
/// the first output is ready, so that a failed load leaves no file.
struct Output {
    path: Option<PathBuf>,
    writer: Option<Box<dyn Write>>,
}

impl Output {
    fn new(path: Option<PathBuf>) -> Output {
        Output {
            path: path.filter(|p| p.as_os_str() != "-"),
            writer: None,
        }
    }

    fn writer(&mut self) -> Result<&mut dyn Write, String> {
        if self.writer.is_none() {
            let writer: Box<dyn Write> = match &self.path {
                Some(path) => Box::new(std::io::BufWriter::with_capacity(
                    1 << 20,
                    File::create(path)
                        .map_err(|e| format!("{}: cannot create the output file: {e}", path.display()))?,
                )),
                None => Box::new(std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock())),
            };
            self.writer = Some(writer);
        }
        Ok(self.writer.as_deref_mut().expect("created above"))
    }

    fn error(&self, e: &std::io::Error) -> String {
        match &self.path {
            Some(path) => format!("{}: writing the output: {e}", path.display()),
            None => format!("writing the output: {e}"),
        }
    }

    /// Judges the outcome of writing (and flushes).
    fn done(&mut self, result: std::io::Result<()>) -> Result<(), String> {
        let result = result.and_then(|()| match &mut self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        });
        match result {
            Ok(()) => Ok(()),
            // A closed pipe (`| head`) is not an error worth a message.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe && self.path.is_none() => Ok(()),
            Err(e) => Err(self.error(&e)),
        }
    }

    fn write(&mut self, text: &str) -> Result<(), String> {
        self.write_bytes(text.as_bytes())
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let result = self.writer()?.write_all(bytes);
        self.done(result)
    }

    /// Whether the output goes to a terminal (standard output, not
    /// redirected).
    fn is_terminal(&self) -> bool {
        self.path.is_none() && std::io::stdout().is_terminal()
    }
}

/// Prints the warnings of a load, each once, unless `quiet`.
/// Loads the one input of `tracks` or `calltree`, and prints its warnings;
/// an error names the input.
fn load_one(trace: &Path, options: &AnalyzeOptions, quiet: bool) -> Result<(Input, tracekit::Analysis), String> {
    let input = Input::new(trace);
    let analysis = load(&input, options, quiet)
        .map_err(|e| format!("{}: {e}", input.name()))?
        .analysis;
    print_warnings(&input, &analysis, quiet);
    Ok((input, analysis))
}

fn print_warnings(input: &Input, analysis: &tracekit::Analysis, quiet: bool) {
    if quiet {
        return;
    }
    for warning in analysis.diagnostics().warnings() {
        eprintln!("tracekit: warning: {}: {warning}", input.name());
    }
}

/// The message of a filter that does not fit the trace.
fn filter_error(e: &FilterError) -> String {
    match e {
        FilterError::NoThread { query, not_built, .. } if !not_built.is_empty() => format!(
            "no thread matches '{query}' in the processes DevTools shows; add --all-processes for {}",
            tracekit::query::thread_list(not_built)
        ),
        FilterError::OverNodeBudget { .. } => format!(
            "{e}; choose other threads with --thread, or raise the limit with --max-nodes (about 100 bytes of memory each)"
        ),
        e => e.to_string(),
    }
}

fn tracks(args: TracksArgs, common: &Common) -> Result<(), String> {
    let options = common.options.with_all_processes(args.all_processes);
    let (input, analysis) = load_one(&args.trace, &options, common.quiet)?;
    let filter = Filter {
        thread: args.thread,
        window_ms: args.window,
        // N levels: depths 0 to N - 1.
        max_depth: args.max_depth.map(|n| n.saturating_sub(1)),
        min_duration_ms: args.min_duration,
        parallelism: options.parallelism,
    };
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    let _span = tracing::info_span!("output").entered();
    let mut out = Output::new(args.output);
    let w = out.writer()?;
    let written = match args.format {
        Format::Text => tracekit::output::write_text(&analysis, &filter, w),
        Format::Json => tracekit::output::write_json(&analysis, &filter, w),
        Format::Conformance => tracekit::output::write_conformance(&analysis, &filter, w),
    };
    out.done(written)?;
    if args.stats {
        // The warnings were printed above (unless --quiet).
        eprint!("{}", tracekit::output::stats_without_warnings(&analysis));
    }
    // The process ends here, and its memory goes back to the system at
    // once: freeing the tracks node by node would add 2% to a run.
    std::mem::forget(analysis);
    Ok(())
}

fn calltree(args: CalltreeArgs, common: &Common) -> Result<(), String> {
    let group_by = tracekit::views::GroupBy::from(args.group_by);
    let options = common.options.with_group_args(group_by.reads_args());
    let (input, analysis) = load_one(&args.trace, &options, common.quiet)?;
    let filter = Filter {
        thread: args.thread.clone(),
        window_ms: args.window,
        ..Filter::default()
    };
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    let only = selected_threads(&input, &analysis, args.thread.as_deref())?;
    check_window_has_time(&input, &analysis, args.window, "aggregate")?;
    let window = args.window.filter(|(a, b)| a.is_finite() || b.is_finite());
    let view_options = tracekit::views::ViewOptions::new()
        .threads(only.as_deref())
        .window(window)
        .max_depth(args.max_depth)
        .group_by(group_by)
        .max_nodes(options.max_nodes)
        .parallelism(options.parallelism);
    let views_span = tracing::info_span!("views").entered();
    let text = match args.format {
        CalltreeFormat::Text => {
            let view = if args.bottom_up {
                tracekit::views::View::BottomUp
            } else {
                tracekit::views::View::TopDown
            };
            tracekit::views::write_text(&analysis, view, &view_options)
        }
        CalltreeFormat::Json => tracekit::views::calltree_json(&analysis, &view_options).map(|s| s + "\n"),
        CalltreeFormat::Conformance => {
            tracekit::views::calltree_conformance(&analysis, &view_options).map(|s| s + "\n")
        }
    }
    .map_err(|e| match e {
        tracekit::views::ViewError::TooManyNodes { .. } => format!(
            "{}: {e}; build fewer levels with --max-depth, or raise --max-nodes",
            input.name()
        ),
        // The analysis was loaded with what the grouping reads: not met.
        e => format!("{}: {e}", input.name()),
    })?;
    drop(views_span);
    Output::new(args.output).write(&text)
}

/// The threads `--thread` names (`None`: all), or the error naming those
/// that exist.
fn selected_threads(
    input: &Input,
    analysis: &tracekit::Analysis,
    thread: Option<&str>,
) -> Result<Option<Vec<(tracekit::Id, tracekit::Id)>>, String> {
    let Some(query) = thread else {
        return Ok(None);
    };
    let found = analysis
        .find_threads(query)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    Ok(Some(found.into_iter().map(|t| (t.pid(), t.tid())).collect()))
}

/// The aggregated views of no time are all zeros (or NaN percents): an
/// empty window, or a trace without timed events, is an error saying why.
/// `what` is what the command would do with the time ("summarize").
fn check_window_has_time(
    input: &Input,
    analysis: &tracekit::Analysis,
    asked: Option<(f64, f64)>,
    what: &str,
) -> Result<(), String> {
    let relative = asked.filter(|(a, b)| a.is_finite() || b.is_finite());
    let window = tracekit::views::Window::new(analysis.bounds(), relative);
    if !window.is_finite() {
        return Err(format!(
            "{}: the trace has no timed events, so no window to {what}",
            input.name()
        ));
    }
    if window.end <= window.start {
        let lasts = analysis.bounds().range().to_millis().0;
        return Err(match asked {
            Some(asked) => format!(
                "{}: the window {} ms is empty; the trace lasts 0..{lasts:.3} ms",
                input.name(),
                tracekit::query::window_text(asked),
            ),
            None => format!("{}: the trace lasts {lasts:.3} ms: no time to {what}", input.name()),
        });
    }
    Ok(())
}

fn summary(args: SummaryArgs, common: &Common) -> Result<(), String> {
    let (input, analysis) = load_one(&args.trace, &common.options, common.quiet)?;
    let filter = Filter {
        thread: args.thread.clone(),
        window_ms: args.window,
        ..Filter::default()
    };
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    let only = selected_threads(&input, &analysis, args.thread.as_deref())?;
    let relative = args.window.filter(|(a, b)| a.is_finite() || b.is_finite());
    check_window_has_time(&input, &analysis, args.window, "summarize")?;
    let only = only.as_deref();
    // The JSON forms are one line each; the text ends its own lines.
    let text = match args.format {
        SummaryFormat::Text => tracekit::views::summary::write_text(&analysis, only, relative),
        SummaryFormat::Json => tracekit::views::summary::write_json(&analysis, only, relative) + "\n",
        SummaryFormat::Conformance => {
            tracekit::views::summary::summary_conformance_of(&analysis, only, relative) + "\n"
        }
    };
    Output::new(args.output).write(&text)
}

/// Loads the input of `convert` or `flamegraph` and checks the filter
/// against it.
fn load_for_export(
    trace: &Path,
    all_processes: bool,
    filter: &Filter,
    common: &Common,
) -> Result<(Input, tracekit::Analysis), String> {
    let options = common.options.with_all_processes(all_processes);
    let (input, analysis) = load_one(trace, &options, common.quiet)?;
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    Ok((input, analysis))
}

fn convert(args: ConvertArgs, common: &Common) -> Result<(), String> {
    let format = args.to.export_format();
    let mut out = Output::new(args.output);
    if format.is_binary() && out.is_terminal() {
        let name = args
            .to
            .to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default();
        return Err(format!(
            "the {name} format is binary: give -o FILE, or redirect the output"
        ));
    }
    let filter = Filter {
        thread: args.thread,
        window_ms: args.window,
        parallelism: common.options.parallelism,
        ..Filter::default()
    };
    let (_, analysis) = load_for_export(&args.trace, args.all_processes, &filter, common)?;
    let _span = tracing::info_span!("export").entered();
    let written = format.write(&analysis, &filter, out.writer()?);
    out.done(written)
}

fn flamegraph(args: FlamegraphArgs, common: &Common) -> Result<(), String> {
    let filter = Filter {
        thread: args.thread.clone(),
        window_ms: args.window,
        parallelism: common.options.parallelism,
        ..Filter::default()
    };
    let (input, analysis) = load_for_export(&args.trace, args.all_processes, &filter, common)?;
    let folded = if args.bottom_up {
        tracekit::export::folded_bottom_up(&analysis, &filter)
    } else if args.folded {
        tracekit::export::folded(&analysis, &filter)
    } else {
        // The frames the picture leaves out are merged first: the same
        // picture from far fewer lines (`flamegraph_svg` keeps inferno's
        // default width too).
        let min_width = inferno::flamegraph::Options::default().min_width;
        tracekit::export::folded_to_draw(&analysis, &filter, min_width)
    };
    let mut out = Output::new(args.output);
    if args.folded {
        return out.write(&folded);
    }
    if folded.is_empty() {
        return Err(format!(
            "{}: nothing to draw: no call has self time in the threads and window chosen",
            input.name()
        ));
    }
    let mut subtitle = Vec::new();
    if let Some(thread) = &args.thread {
        subtitle.push(format!("thread {thread}"));
    }
    if let Some(window) = args.window {
        subtitle.push(format!("window {} ms", tracekit::query::window_text(window)));
    }
    // The title names the file, not the path it was given by.
    let file_name = match args.trace.file_name() {
        Some(name) if args.trace.as_os_str() != "-" => name.to_string_lossy().into_owned(),
        _ => input.name(),
    };
    let svg = flamegraph_svg(&folded, &file_name, args.bottom_up, &subtitle.join(", "))
        .map_err(|e| format!("{}: drawing the flame graph: {e}", input.name()))?;
    out.write_bytes(&svg)
}

/// Draws folded stacks with inferno: a flame graph, or an icicle (the
/// root at the top) for the Bottom-Up. The stacks of the Bottom-Up come
/// reversed already, below their process and thread: inferno's own
/// `reverse_stack_order` would reverse those too.
fn flamegraph_svg(folded: &str, name: &str, bottom_up: bool, subtitle: &str) -> std::io::Result<Vec<u8>> {
    use inferno::flamegraph::{color, Direction, Options, TextTruncateDirection};
    let mut options = Options::default();
    options.title = if bottom_up {
        format!("Bottom-Up: {name}")
    } else {
        format!("Flame graph: {name}")
    };
    if !subtitle.is_empty() {
        options.subtitle = Some(subtitle.to_owned());
    }
    options.count_name = "µs".to_owned();
    options.name_type = "Frame:".to_owned();
    // JS frames (with a `url:line:column`) apart from trace events, and
    // the same colour for the same name from one run to the next.
    options.colors = color::Palette::Multi(color::MultiPalette::Js);
    options.hash = true;
    // A frame's name comes first, its location after: cut the end.
    options.text_truncate_direction = TextTruncateDirection::Right;
    if bottom_up {
        options.direction = Direction::Inverted;
    }
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.lines(), &mut svg)?;
    Ok(svg)
}

fn chart(args: ChartArgs, common: &Common) -> Result<(), String> {
    let to_stdout = args.output.as_ref().is_none_or(|p| p.as_os_str() == "-");
    if to_stdout && std::io::stdout().is_terminal() {
        return Err("the chart is an HTML file: give -o FILE, or redirect standard output".into());
    }
    let options = common.options.with_all_processes(args.all_processes);
    let (input, analysis) = load_one(&args.trace, &options, common.quiet)?;
    let filter = Filter {
        thread: args.thread,
        window_ms: args.window,
        parallelism: options.parallelism,
        ..Filter::default()
    };
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    // The page is titled by the trace's file name.
    let title = match &input.path {
        Some(path) => path
            .file_name()
            .map_or_else(|| input.name(), |n| n.to_string_lossy().into_owned()),
        None => input.name(),
    };
    let html = {
        let _span = tracing::info_span!("output").entered();
        tracekit::export::chart::html(&analysis, &filter, &title)
    };
    Output::new(args.output).write(&html)
}

/// `NAME: N bytes, gzip` and the summary of one input.
fn info_section(input: &Input, common: &Common) -> Result<String, String> {
    let options = common.options.with_all_processes(true);
    let loaded = load(input, &options, common.quiet)?;
    Ok(format!(
        "file: {} ({} bytes{})\n{}",
        input.name(),
        loaded.bytes,
        if loaded.gzip { ", gzip" } else { "" },
        tracekit::output::info(&loaded.analysis)
    ))
}

/// Prints a section per input; an input that fails gets its error on
/// stderr, the others are still printed, and the status is 1.
fn info(args: InfoArgs, common: &Common) -> Result<(), String> {
    let mut out = Output::new(args.output);
    let mut failed = false;
    let mut first = true;
    for path in &args.traces {
        let input = Input::new(path);
        match info_section(&input, common) {
            Ok(text) => {
                out.write(if first { "" } else { "\n" })?;
                out.write(&text)?;
                first = false;
            }
            Err(e) => {
                eprintln!("tracekit: {}: {e}", input.name());
                failed = true;
            }
        }
    }
    if failed {
        Err(String::new())
    } else {
        Ok(())
    }
}

/// Exports the traces' tables; each trace that fails gets its line on
/// stderr as it is written, and the status is 1 if any did.
fn export(args: ExportArgs, common: &Common) -> Result<(), String> {
    use tracekit_tables::export::{export, find_inputs, ExportOptions};
    let (inputs, unlisted) = find_inputs(&args.traces);
    for error in &unlisted {
        eprintln!("tracekit: {error}");
    }
    let mut options = ExportOptions::new().with_tables(args.tables.iter().map(|t| (*t).into()));
    // Each trace loads on one thread; `--threads` is how many load at once.
    options.analyze = common.options.with_all_processes(args.all_processes);
    if let Some(jobs) = common.threads {
        options = options.with_jobs(jobs);
    }
    let bar = (!common.quiet && std::io::stderr().is_terminal() && inputs.len() > 1).then(|| {
        let bar = indicatif::ProgressBar::new(inputs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} exporting {pos}/{len} traces, {msg} {wide_bar} {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let (mut bytes, mut failed) = (0u64, 0usize);
    let summary = export(&inputs, &unlisted, &args.parquet, &options, |done| {
        bytes += done.file_bytes;
        let report = |e: &tracekit_tables::TraceError| eprintln!("tracekit: {e}");
        if let Some(error) = done.error {
            failed += 1;
            match &bar {
                Some(bar) => bar.suspend(|| report(error)),
                None => report(error),
            }
        }
        if let Some(bar) = &bar {
            bar.set_message(format!("{} MB read, {failed} failed", bytes >> 20));
            bar.inc(1);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let summary = summary?;
    if !common.quiet {
        let rows: Vec<String> = summary.rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
        eprintln!(
            "tracekit: exported {} traces ({} failed) to {}: rows: {}",
            summary.traces,
            summary.failed.len(),
            args.parquet.display(),
            rows.join(", ")
        );
    }
    if summary.failed.is_empty() {
        Ok(())
    } else {
        Err(String::new())
    }
}

fn man(subcommand: Option<String>) -> Result<(), String> {
    let mut command = Cli::command();
    command.build();
    let page = match &subcommand {
        None => command,
        Some(name) => {
            let sub = command
                .find_subcommand(name)
                .ok_or_else(|| format!("no subcommand {name}"))?
                .clone();
            let full = format!("tracekit-{name}");
            sub.name(full.clone())
                .bin_name(format!("tracekit {name}"))
                .display_name(full)
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|e| format!("writing the man page: {e}"))?;
    Output::new(None).write(&String::from_utf8_lossy(&roff))
}

/// Runs the command, on one of the pool's threads when there is a pool.
/// The command's own work (reading the input ahead while the pool decodes
/// a block, writing the output while the pool formats the next part) then
/// takes a pool thread while it runs and lends it to the pool while it
/// waits. From a thread of its own beside the pool, it was one thread
/// more than the cores: on two cores, the reading thread took a core from
/// a worker that had work left, and the other core, whose worker had
/// none, stayed idle for 1 to 3 ms at each block until the kernel moved
/// the waiting worker over (`perf sched`: 22 to 52 core-ms idle per run
/// on the bench trace, against 15). Bench trace, `--threads 2`, 15 runs
/// alternating: loading alone 222 -> 203 ms.
fn run(cli: Cli) -> Result<(), String> {
    let (common, pool) = Common::new(&cli)?;
    on_pool(pool.as_ref(), || dispatch(cli, &common))
}

/// Runs `work` on one of `pool`'s threads, or on this thread without one.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Runs the subcommand.
fn dispatch(cli: Cli, common: &Common) -> Result<(), String> {
    match cli.command {
        Command::Tracks(args) => tracks(args, common),
        Command::Info(args) => info(args, common),
        Command::Calltree(args) => calltree(args, common),
        Command::Summary(args) => summary(args, common),
        Command::Chart(args) => chart(args, common),
        Command::Convert(args) => convert(args, common),
        Command::Flamegraph(args) => flamegraph(args, common),
        Command::Export(args) => export(args, common),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "tracekit", &mut script);
            Output::new(None).write(&String::from_utf8_lossy(&script))
        }
        Command::Man { subcommand } => man(subcommand),
    }
}

/// Parses the command line. Help and version go to stdout (status 0); an
/// error is clap's message with `tracekit: ` for its `error: `, status 2.
fn parse() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            Err(ExitCode::from(2))
        }
        Err(e) => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprint!("tracekit: {text}");
            Err(ExitCode::from(2))
        }
    }
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let report = cli.timings.then(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let (layer, report) = timings::layer();
        let subscriber = tracing_subscriber::registry().with(layer);
        // Nothing else sets one: this cannot fail.
        let _ = tracing::subscriber::set_global_default(subscriber);
        report
    });
    let result = run(cli);
    if let Some(report) = report {
        eprint!("{}", report.table());
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("tracekit: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 MB gzip (some 300 MB of JSON) gets a bar; 20 MB of JSON loads
    /// too fast to need one.
    #[test]
    fn progress_threshold_by_kind() {
        assert!(20 << 20 >= progress_threshold(true));
        assert!(20 << 20 < progress_threshold(false));
    }

    /// `--threads N` makes a pool of N threads, which the command runs on;
    /// `--threads 1`, none: everything on the calling thread.
    #[test]
    fn the_command_runs_on_the_pool_it_loads_with() {
        let cli = Cli::try_parse_from(["tracekit", "--threads", "3", "info", "t.json"]).unwrap();
        let (common, pool) = Common::new(&cli).unwrap();
        assert!(matches!(common.options.parallelism, Parallelism::Rayon));
        let pool = pool.expect("a pool for --threads 3");
        assert_eq!(on_pool(Some(&pool), rayon::current_num_threads), 3);
        assert!(on_pool(Some(&pool), rayon::current_thread_index).is_some());

        let cli = Cli::try_parse_from(["tracekit", "--threads", "1", "info", "t.json"]).unwrap();
        let (common, pool) = Common::new(&cli).unwrap();
        assert!(matches!(common.options.parallelism, Parallelism::Sequential));
        assert!(pool.is_none());
        assert!(on_pool(None, rayon::current_thread_index).is_none());
    }

    #[test]
    fn windows() {
        assert_eq!(parse_window("1..2"), Ok((1.0, 2.0)));
        assert_eq!(parse_window(" 1 .. "), Ok((1.0, f64::INFINITY)));
        assert_eq!(parse_window("..-2"), Ok((f64::NEG_INFINITY, -2.0)));
        assert!(parse_window("1..inf").is_err());
        assert!(parse_window("3..2").is_err());
    }
}
