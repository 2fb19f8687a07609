//! `tracekit chart`: a flame chart of the tracks, one self-contained HTML
//! file.

use std::io::IsTerminal;

use crate::args::{help, NodeArgs, OutputArg, ProcessesArg, QueryArgs, SourceMapsArg, TraceArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("output", OUTPUT_HELP)))]
#[command(mut_args(help("window", WINDOW_HELP)))]
pub struct ChartArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    query: QueryArgs,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    nodes: NodeArgs,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

/// `-o` of `chart`.
const OUTPUT_HELP: &str = "Write the chart to this file (`-`: standard output, which must not be a terminal)";

/// `--window` of `chart`.
const WINDOW_HELP: &str = "Only nodes overlapping this window, in ms from the start of the trace: \
     START..END, START.. or ..END (or with a unit: 1.2s..2s); the chart opens on it";

pub fn run(args: ChartArgs, common: &Common) -> Result<(), CliError> {
    if args.output.is_stdout() && std::io::stdout().is_terminal() {
        return Err(CliError::ChartToTerminal);
    }
    // The page's tracks (network, timings, interactions, layout shifts,
    // frames, screenshots) come from every handler's data.
    // The tooltips say what tells an event apart (its args' details).
    let options = args
        .processes
        .options(&common.options)
        .with_all_handlers(true)
        .with_details(true);
    let (input, mut analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    crate::sourcemaps::apply(&args.source_maps, &input, &mut analysis, common.quiet, true)?;
    let query = args.query.selection().with_nodes(args.nodes).query(&input, &analysis)?;
    crate::query::report_hidden(&input, &analysis, &query, common.quiet);
    // The page is titled by the trace's file name.
    let title = match &input.path {
        Some(path) => path
            .file_name()
            .map_or_else(|| input.name(), |n| n.to_string_lossy().into_owned()),
        None => input.name(),
    };
    let html = {
        let _span = tracing::info_span!("output").entered();
        let page = tracekit::export::chart::page_tracks(&analysis);
        tracekit::export::chart::html_with_page(&analysis, &query, options.parallelism, &title, page.as_ref())
    };
    args.output.open().write(&html)
}
