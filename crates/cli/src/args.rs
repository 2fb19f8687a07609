//! The options several commands share, each declared once as a group that
//! a command flattens (`#[command(flatten)]`), their value parsers, and the
//! macro of the value enums that mirror a library enum.
//!
//! A command flattens the groups in the order its options are listed: that
//! order is the one of its `--help`, man page and completion scripts.
//!
//! The groups have `//` comments, not doc comments: the doc comment of a
//! flattened struct would become the `about` of the command flattening it.
//! A command whose `-o` or `--window` does something of its own words its
//! help itself, with `#[command(mut_args(help("window", TEXT)))]` (the
//! text as clap shows a doc comment: one line, no final period).

use std::path::{Path, PathBuf};

use clap::Arg;
use tracekit::query::{Query, Window};
use tracekit::{AnalyzeOptions, Millis};

use crate::output::Output;
use crate::query::Selection;

// The input of a one-trace command.
#[derive(clap::Args)]
pub struct TraceArg {
    /// A Chrome trace, .cpuprofile or JS Self-Profiling trace (gzipped or
    /// not); `-` reads standard input.
    trace: PathBuf,
}

impl TraceArg {
    /// The path given (`-`: standard input).
    pub fn path(&self) -> &Path {
        &self.trace
    }
}

// The inputs of a command that prints a section per trace, as `info`.
#[derive(clap::Args)]
pub struct TracesArg {
    /// Chrome traces, .cpuprofile or JS Self-Profiling traces (gzipped or
    /// not); `-` reads standard input. With several, the text gives each
    /// its section after a line `file: NAME`; JSON, a document per line.
    #[arg(required = true, num_args = 1.., value_name = "TRACE")]
    traces: Vec<PathBuf>,
}

impl TracesArg {
    /// Whether one trace was given.
    pub fn is_one(&self) -> bool {
        self.traces.len() == 1
    }

    /// Runs `section` on each trace, in order, with the output and the
    /// text to write before its own (`file: NAME` when there are several
    /// and `headed`; else nothing). With one trace, its error is the
    /// command's; with several, an input that fails gets its error on
    /// stderr, the others are still printed, and the status is 1.
    pub fn each(
        &self,
        out: &mut Output,
        headed: bool,
        mut section: impl FnMut(&Path, &mut Output, &str) -> Result<(), crate::error::CliError>,
    ) -> Result<(), crate::error::CliError> {
        if let [one] = self.traces.as_slice() {
            return section(one, out, "");
        }
        let mut failed = false;
        let mut first = true;
        for path in &self.traces {
            let head = if headed {
                let gap = if first { "" } else { "\n" };
                format!("{gap}file: {}\n", crate::input::Input::new(path).name())
            } else {
                String::new()
            };
            match section(path, out, &head) {
                Ok(()) => first = false,
                Err(e) => {
                    eprintln!("tracekit: {e}");
                    failed = true;
                }
            }
        }
        if failed {
            Err(crate::error::CliError::AlreadyReported)
        } else {
            Ok(())
        }
    }
}

// `-o FILE`.
#[derive(clap::Args, Clone)]
pub struct OutputArg {
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

impl OutputArg {
    /// The output (nothing is created before the first write).
    pub fn open(self) -> Output {
        Output::new(self.output)
    }

    /// Whether the output is standard output (no `-o`, or `-o -`).
    pub fn is_stdout(&self) -> bool {
        self.output.as_ref().is_none_or(|p| p.as_os_str() == "-")
    }
}

// `--all-processes`.
#[derive(clap::Args)]
pub struct ProcessesArg {
    /// Also the processes DevTools drops (browser, GPU, ...).
    #[arg(long)]
    all_processes: bool,
}

impl ProcessesArg {
    /// `options`, with the processes DevTools drops if asked.
    pub fn options(&self, options: &AnalyzeOptions) -> AnalyzeOptions {
        options.with_all_processes(self.all_processes)
    }
}

// `--thread`.
#[derive(clap::Args, Clone)]
pub struct ThreadArg {
    /// Only the threads with this name (any case; else a unique part of
    /// it), this tid, or PID:TID.
    #[arg(long, value_name = "NAME_OR_TID", value_parser = Query::parse_thread)]
    pub thread: Option<String>,
}

// `--window`. What the window does differs by command (it keeps the nodes
// overlapping it, or clips the times to it, or is where the chart opens):
// each command but `tracks` words it with [`help`].
#[derive(clap::Args, Clone)]
pub struct WindowArg {
    /// Only nodes overlapping this window, in ms from the start of the
    /// trace: START..END, START.. or ..END (or with a unit: 1.2s..2s,
    /// 1200ms..).
    #[arg(long, value_name = "START..END", value_parser = Window::parse, allow_hyphen_values = true)]
    pub window: Option<Window>,
}

/// `--window` of the commands that clip the calls' times to it (`convert`,
/// `flamegraph`).
pub const CLIPPED_WINDOW_HELP: &str = "Only calls overlapping this window, in ms from the start of the trace \
     (START..END, START.. or ..END, or with a unit: 1.2s..2s); their times are clipped to it";

// `--thread` then `--window`, as most commands list them.
#[derive(clap::Args, Clone)]
pub struct QueryArgs {
    #[command(flatten)]
    pub thread: ThreadArg,
    #[command(flatten)]
    pub window: WindowArg,
}

impl QueryArgs {
    /// The threads and window chosen.
    pub fn selection(&self) -> Selection {
        Selection::new(self.thread.clone(), self.window.clone())
    }
}

// `--max-depth`.
#[derive(clap::Args, Clone, Copy)]
pub struct DepthArg {
    /// Only the first N levels of each tree (1: the roots only).
    #[arg(long, value_name = "N", value_parser = Query::parse_levels)]
    pub max_depth: Option<u32>,
}

// `--min-duration`.
#[derive(clap::Args, Clone, Copy)]
pub struct MinDurationArg {
    /// Only nodes lasting at least this many ms (or with a unit: 0.05s),
    /// a node left out taking its subtree with it.
    #[arg(long, value_name = "MS", value_parser = Query::parse_min_duration, allow_hyphen_values = true)]
    pub min_duration: Option<Millis>,
}

// `--max-depth` then `--min-duration`: what keeps the nodes of a tree.
#[derive(clap::Args, Clone, Copy)]
pub struct NodeArgs {
    #[command(flatten)]
    pub depth: DepthArg,
    #[command(flatten)]
    pub min_duration: MinDurationArg,
}

// `--full-urls`.
#[derive(clap::Args)]
pub struct UrlsArg {
    /// Write URLs whole (by default the text shortens them: `app.js:1:19`,
    /// with the host when it is not the process' own).
    #[arg(long)]
    pub full_urls: bool,
}

/// For `Command::mut_args`: gives the option `id` the help `text`, for a
/// command whose option does something of its own. (`Command::mut_arg`
/// would move the option last: the completion scripts list the options in
/// the order they were added.)
pub fn help(id: &'static str, text: &'static str) -> impl FnMut(Arg) -> Arg {
    move |arg| {
        if arg.get_id() == id {
            arg.help(text)
        } else {
            arg
        }
    }
}

/// `--devtools`: the names of the engines tracekit follows.
pub fn devtools_parser() -> impl clap::builder::TypedValueParser<Value = tracekit::DevTools> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(tracekit::DevTools::ALL.map(tracekit::DevTools::name))
        .map(|name| tracekit::DevTools::from_name(&name).expect("one of the possible values"))
}

/// A `clap::ValueEnum` with the variants of a library enum that cannot
/// derive it (the library does not depend on clap), and its conversion to
/// that enum, variant to variant of the same name. The variants' doc
/// comments are the help of the values.
macro_rules! value_enum_mirror {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident => $target:ty {
            $( $(#[$variant_attr:meta])* $variant:ident, )*
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, clap::ValueEnum)]
        $vis enum $name {
            $( $(#[$variant_attr])* $variant, )*
        }

        impl From<$name> for $target {
            fn from(value: $name) -> Self {
                match value {
                    $( $name::$variant => Self::$variant, )*
                }
            }
        }
    };
}
pub(crate) use value_enum_mirror;

// The source maps of a command that prints names (`docs/sourcemaps.md`).
#[derive(clap::Args)]
pub struct SourceMapsArg {
    /// Source maps (.map files, or directories searched for them) giving
    /// the JavaScript functions their original names, files and lines
    #[arg(long = "source-maps", num_args = 1.., value_name = "PATH")]
    pub source_maps: Vec<PathBuf>,
    /// Show the names of the profile as they are: neither the maps of
    /// --source-maps nor those an enhanced trace carries
    #[arg(long = "no-source-maps")]
    pub no_source_maps: bool,
}

impl SourceMapsArg {
    /// Whether maps are to be applied.
    pub fn wanted(&self) -> bool {
        !self.no_source_maps && !self.source_maps.is_empty()
    }

    /// The options of the load: with maps, every handler runs, so that the
    /// scripts' source map URLs are known.
    pub fn options(&self, options: AnalyzeOptions) -> AnalyzeOptions {
        if self.wanted() {
            options.with_all_handlers(true)
        } else {
            options
        }
    }
}
