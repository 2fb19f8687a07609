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

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use tracekit::output::{Filter, FilterError};
use tracekit::{AnalyzeOptions, Parallelism};

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
    /// each); a thread with more is an error rather than gigabytes.
    #[arg(long, global = true, value_name = "N", default_value_t = tracekit::DEFAULT_MAX_NODES, display_order = 100)]
    max_nodes: usize,
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
        #[arg(value_parser = ["tracks", "info", "calltree", "summary", "chart", "completions", "man"])]
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
    /// Worker threads for per-thread work (default: all cores; 1: no extra thread).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
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
    let _span = tracing::info_span!("load").entered();
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
        let result = self.writer()?.write_all(text.as_bytes());
        self.done(result)
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
    for warning in tracekit::output::warnings(analysis) {
        eprintln!("tracekit: warning: {}: {warning}", input.name());
    }
}

/// The message of a filter that does not fit the trace.
fn filter_error(e: &FilterError) -> String {
    match e {
        FilterError::NoThread { query, not_built, .. } if !not_built.is_empty() => format!(
            "no thread matches '{query}' in the processes DevTools shows; add --all-processes for {}",
            tracekit::output::thread_list(not_built)
        ),
        FilterError::OverNodeBudget { .. } => format!(
            "{e}; choose other threads with --thread, or raise the limit with --max-nodes (about 100 bytes of memory each)"
        ),
        e => e.to_string(),
    }
}

fn tracks(args: TracksArgs, quiet: bool, max_nodes: usize) -> Result<(), String> {
    let parallelism = match args.threads {
        Some(0 | 1) => Parallelism::Sequential,
        Some(n) => {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global()
                .map_err(|e| format!("starting {n} threads: {e}"))?;
            Parallelism::Rayon
        }
        None => Parallelism::Rayon,
    };
    let options = AnalyzeOptions::default()
        .with_all_processes(args.all_processes)
        .with_parallelism(parallelism)
        .with_max_nodes(max_nodes);
    let (input, analysis) = load_one(&args.trace, &options, quiet)?;
    let filter = Filter {
        thread: args.thread,
        window_ms: args.window,
        // N levels: depths 0 to N - 1.
        max_depth: args.max_depth.map(|n| n.saturating_sub(1)),
        min_duration_ms: args.min_duration,
        parallelism,
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
    Ok(())
}

fn calltree(args: CalltreeArgs, quiet: bool, max_nodes: usize) -> Result<(), String> {
    let options = AnalyzeOptions::default().with_max_nodes(max_nodes);
    let (input, analysis) = load_one(&args.trace, &options, quiet)?;
    let filter = Filter {
        thread: args.thread.clone(),
        window_ms: args.window,
        ..Filter::default()
    };
    filter
        .validate(&analysis)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    let only = selected_threads(&input, &analysis, args.thread.as_deref())?;
    let window = args.window.filter(|(a, b)| a.is_finite() || b.is_finite());
    let text = match args.format {
        CalltreeFormat::Text => {
            let view = if args.bottom_up {
                tracekit_views::View::BottomUp
            } else {
                tracekit_views::View::TopDown
            };
            tracekit_views::write_text(&analysis, only.as_deref(), view, window, args.max_depth)
        }
        CalltreeFormat::Json => {
            let mut s = tracekit_views::calltree_json(&analysis, only.as_deref(), window, args.max_depth);
            s.push('\n');
            s
        }
        CalltreeFormat::Conformance => {
            let mut s = tracekit_views::calltree_conformance_of(&analysis, only.as_deref(), window, args.max_depth);
            s.push('\n');
            s
        }
    };
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
    let found = tracekit::output::find_threads(analysis, query)
        .map_err(|e| format!("{}: {}", input.name(), filter_error(&e)))?;
    Ok(Some(found.into_iter().map(|t| (t.pid, t.tid)).collect()))
}

fn summary(args: SummaryArgs, quiet: bool, max_nodes: usize) -> Result<(), String> {
    let options = AnalyzeOptions::default().with_max_nodes(max_nodes);
    let (input, analysis) = load_one(&args.trace, &options, quiet)?;
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
    // A Summary of no time is all zeros (or NaN percents): say why instead.
    let window = tracekit_views::Window::new(analysis.bounds, relative);
    if !window.is_finite() {
        return Err(format!(
            "{}: the trace has no timed events, so no window to summarize",
            input.name()
        ));
    }
    if window.end <= window.start {
        let lasts = analysis.bounds.range().to_millis().0;
        return Err(match args.window {
            Some(asked) => format!(
                "{}: the window {} ms is empty; the trace lasts 0..{lasts:.3} ms",
                input.name(),
                tracekit::output::window_text(asked),
            ),
            None => format!("{}: the trace lasts {lasts:.3} ms: no time to summarize", input.name()),
        });
    }
    let only = only.as_deref();
    // The JSON forms are one line each; the text ends its own lines.
    let text = match args.format {
        SummaryFormat::Text => tracekit_views::summary::write_text(&analysis, only, relative),
        SummaryFormat::Json => tracekit_views::summary::write_json(&analysis, only, relative) + "\n",
        SummaryFormat::Conformance => tracekit_views::summary::summary_conformance_of(&analysis, only, relative) + "\n",
    };
    Output::new(args.output).write(&text)
}

fn chart(args: ChartArgs, quiet: bool, max_nodes: usize) -> Result<(), String> {
    let to_stdout = args.output.as_ref().is_none_or(|p| p.as_os_str() == "-");
    if to_stdout && std::io::stdout().is_terminal() {
        return Err("the chart is an HTML file: give -o FILE, or redirect standard output".into());
    }
    let options = AnalyzeOptions::default()
        .with_all_processes(args.all_processes)
        .with_max_nodes(max_nodes);
    let (input, analysis) = load_one(&args.trace, &options, quiet)?;
    let filter = Filter {
        thread: args.thread,
        window_ms: args.window,
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
fn info_section(input: &Input, quiet: bool, max_nodes: usize) -> Result<String, String> {
    let options = AnalyzeOptions::default()
        .with_all_processes(true)
        .with_max_nodes(max_nodes);
    let loaded = load(input, &options, quiet)?;
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
fn info(args: InfoArgs, quiet: bool, max_nodes: usize) -> Result<(), String> {
    let mut out = Output::new(args.output);
    let mut failed = false;
    let mut first = true;
    for path in &args.traces {
        let input = Input::new(path);
        match info_section(&input, quiet, max_nodes) {
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

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Tracks(args) => tracks(args, cli.quiet, cli.max_nodes),
        Command::Info(args) => info(args, cli.quiet, cli.max_nodes),
        Command::Calltree(args) => calltree(args, cli.quiet, cli.max_nodes),
        Command::Summary(args) => summary(args, cli.quiet, cli.max_nodes),
        Command::Chart(args) => chart(args, cli.quiet, cli.max_nodes),
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
    if cli.timings {
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .with_target(false)
            .with_level(false)
            .with_ansi(false)
            .init();
    }
    match run(cli) {
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

    #[test]
    fn windows() {
        assert_eq!(parse_window("1..2"), Ok((1.0, 2.0)));
        assert_eq!(parse_window(" 1 .. "), Ok((1.0, f64::INFINITY)));
        assert_eq!(parse_window("..-2"), Ok((f64::NEG_INFINITY, -2.0)));
        assert!(parse_window("1..inf").is_err());
        assert!(parse_window("3..2").is_err());
    }
}
