//! `tracekit agent`: the texts chrome-devtools-mcp gives an AI agent
//! about a trace (its performance summary, ...), from a trace file.

use crate::args::{OutputArg, TraceArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    command: AgentCommand,
}

#[derive(clap::Subcommand)]
enum AgentCommand {
    /// The performance summary chrome-devtools-mcp gives when a trace is
    /// recorded (`performance_stop_trace`): the page, each insight set
    /// with its metrics and the insights worth a look, the custom tracks
    /// and the formats of the other answers.
    Summary(SummaryArgs),
    /// The AI call tree of one event, by its DevTools event key (`r-N`,
    /// `p-PID-TID-SAMPLE-NODE`), as DevTools' assistant formats it.
    CallTree(CallTreeArgs),
    /// One insight's analysis (`performance_analyze_insight`): SET as the
    /// summary names it (`NAVIGATION_0`, `NO_NAVIGATION`), NAME an insight
    /// (`INPBreakdown`).
    Insight(InsightArgs),
    /// Every set's every insight analysis, each into DIR/SET.NAME.txt (for
    /// comparing with chrome-devtools-mcp over a corpus).
    #[command(hide = true)]
    Insights(InsightsArgs),
    /// The main thread's activity (the MCP tool `main_thread_activity`):
    /// for each insight set, or for a window of the trace, the longest
    /// tasks and their top functions, the bottom-up summary and the 3rd
    /// parties.
    Activity(ActivityArgs),
}

#[derive(clap::Args)]
struct ActivityArgs {
    #[command(flatten)]
    trace: TraceArg,
    /// Only this window of the trace: `START,END` in the trace's
    /// microseconds (as the summary writes bounds).
    #[arg(long, value_parser = str::parse::<tracekit::agent::Window>)]
    window: Option<tracekit::agent::Window>,
    #[command(flatten)]
    output: OutputArg,
}

#[derive(clap::Args)]
struct InsightsArgs {
    #[command(flatten)]
    trace: TraceArg,
    /// The directory to write into.
    dir: std::path::PathBuf,
}

#[derive(clap::Args)]
struct InsightArgs {
    #[command(flatten)]
    trace: TraceArg,
    /// The insight set's id.
    set: String,
    /// The insight's name.
    name: String,
    #[command(flatten)]
    output: OutputArg,
}

#[derive(clap::Args)]
struct CallTreeArgs {
    #[command(flatten)]
    trace: TraceArg,
    /// The event's key, as the texts name it.
    key: String,
    #[command(flatten)]
    output: OutputArg,
}

#[derive(clap::Args)]
struct SummaryArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    /// The CPU slowdown the recording was made under (chrome-devtools-mcp
    /// says 1 without emulation).
    #[arg(long, default_value_t = 1.0)]
    cpu: f64,
    /// The network condition's name (default: the trace's metadata).
    #[arg(long)]
    network: Option<String>,
}

pub fn run(args: AgentArgs, common: &Common) -> Result<(), CliError> {
    match args.command {
        AgentCommand::Summary(args) => summary(args, common),
        AgentCommand::CallTree(args) => call_tree(args, common),
        AgentCommand::Insight(args) => insight(args, common),
        AgentCommand::Insights(args) => insights(args, common),
        AgentCommand::Activity(args) => activity(args, common),
    }
}

/// chrome-devtools-mcp hands its engine no source map (an enhanced
/// trace's maps are not read): so neither do the agent's texts.
fn agent_options(common: &Common) -> tracekit::AnalyzeOptions {
    common.options.with_all_handlers(true).with_trace_source_maps(false)
}

/// A trace loaded as the agent's texts read it, with its insight sets.
struct Loaded {
    analysis: tracekit::Analysis,
    sets: tracekit::insights::InsightSets,
    file: String,
}

impl Loaded {
    fn new(path: &std::path::Path, options: &tracekit::AnalyzeOptions, common: &Common) -> Result<Loaded, CliError> {
        let (input, analysis) = load_one(path, options, common.quiet)?;
        let file = input.name();
        let sets = tracekit::insights::compute_with(&analysis, options.parallelism).map_err(|e| CliError::Data {
            file: file.clone(),
            message: e.to_string(),
        })?;
        Ok(Loaded { analysis, sets, file })
    }

    /// The one-line error of a text about this trace.
    fn error(&self, message: impl std::fmt::Display) -> CliError {
        CliError::Data {
            file: self.file.clone(),
            message: message.to_string(),
        }
    }
}

fn activity(args: ActivityArgs, common: &Common) -> Result<(), CliError> {
    let options = agent_options(common).with_details(true).with_group_args(true);
    let loaded = Loaded::new(args.trace.path(), &options, common)?;
    let text = tracekit::agent::main_thread_activity(&loaded.analysis, &loaded.sets, args.window)
        .map_err(|e| loaded.error(e))?;
    args.output.open().write(&text)
}

fn insights(args: InsightsArgs, common: &Common) -> Result<(), CliError> {
    let loaded = Loaded::new(args.trace.path(), &agent_options(common), common)?;
    std::fs::create_dir_all(&args.dir).map_err(|e| loaded.error(e))?;
    for set in &loaded.sets.sets {
        for name in tracekit::agent::insight::KEYS {
            let id = set.id.to_string();
            let text = tracekit::agent::insight_text(&loaded.analysis, &loaded.sets, &id, name)
                .unwrap_or_else(|e| e.to_string());
            let file = args.dir.join(format!("{id}.{name}.txt"));
            std::fs::write(&file, text + "\n").map_err(|e| loaded.error(e))?;
        }
    }
    Ok(())
}

fn insight(args: InsightArgs, common: &Common) -> Result<(), CliError> {
    let loaded = Loaded::new(args.trace.path(), &agent_options(common), common)?;
    let text = tracekit::agent::insight_text(&loaded.analysis, &loaded.sets, &args.set, &args.name)
        .map_err(|e| loaded.error(e))?;
    args.output.open().write(&(text + "\n"))
}

fn call_tree(args: CallTreeArgs, common: &Common) -> Result<(), CliError> {
    let options = agent_options(common).with_details(true).with_group_args(true);
    let error = |file: String, message: String| CliError::Data { file, message };
    let key: tracekit::agent::EventKey = args
        .key
        .parse()
        .map_err(|e: tracekit::agent::BadKey| error(args.trace.path().display().to_string(), e.to_string()))?;
    let (input, analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    let text = tracekit::agent::call_tree(&analysis, key).map_err(|e| error(input.name(), e.to_string()))?;
    args.output.open().write(&(text + "\n"))
}

fn summary(args: SummaryArgs, common: &Common) -> Result<(), CliError> {
    let loaded = Loaded::new(args.trace.path(), &agent_options(common), common)?;
    let throttling = tracekit::agent::Throttling {
        cpu: Some(args.cpu),
        network: args.network,
    };
    let text = tracekit::agent::trace_summary(&loaded.analysis, &loaded.sets, &throttling);
    args.output.open().write(&(text + "\n"))
}
