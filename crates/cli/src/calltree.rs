//! `tracekit calltree`: the Call Tree (top-down) or the Bottom-Up of every
//! thread, as the DevTools Performance panel's tree views aggregate it.

use clap::ValueEnum;
use tracekit::views::{GroupBy, View};

use crate::args::{
    help, value_enum_mirror, DepthArg, MinDurationArg, OutputArg, ProcessesArg, QueryArgs, SourceMapsArg, TracesArg,
    UrlsArg,
};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("window", WINDOW_HELP)))]
#[command(mut_args(help("min_duration", MIN_DURATION_HELP)))]
pub struct CalltreeArgs {
    #[command(flatten)]
    traces: TracesArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = CalltreeFormat::Text)]
    format: CalltreeFormat,
    /// The Bottom-Up (callers under each function) instead of the Call Tree
    /// (text format; the other formats hold both).
    #[arg(long)]
    bottom_up: bool,
    #[command(flatten)]
    query: QueryArgs,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    depth: DepthArg,
    #[command(flatten)]
    min_duration: MinDurationArg,
    /// Only the first N rows of each thread (text format).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    top: Option<u64>,
    #[command(flatten)]
    urls: UrlsArg,
    /// Group the top-level nodes as the Performance panel's "Group by"
    /// does; group nodes are the first level.
    #[arg(long, value_enum, value_name = "KIND", default_value_t = CalltreeGroupBy::None)]
    group_by: CalltreeGroupBy,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

/// `--window` of `calltree`.
const WINDOW_HELP: &str = "The selected range, in ms from the start of the trace: START..END, \
     START.. or ..END, or with a unit: 1.2s..2s (default: the whole trace). Times are clipped to it";

/// `--min-duration` of `calltree`.
const MIN_DURATION_HELP: &str = "Only rows whose total is at least this many ms (or with a unit: 0.05s), \
     a row left out taking the rows under it along (text format)";

value_enum_mirror! {
    /// The kinds of `calltree --group-by`.
    enum CalltreeGroupBy => GroupBy {
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
}

/// The formats of `calltree --format`.
#[derive(Clone, Copy, ValueEnum)]
enum CalltreeFormat {
    /// An indented tree under a header row: a line per node with its
    /// self and total time in ms and in percent of the window, and its
    /// name. The Bottom-Up folds an event into the one that started it
    /// where DevTools does (`V8.Execute` into `EvaluateScript`), so its
    /// rows are not always the tracks' events (docs/text-format.md).
    Text,
    /// Both views of each thread as JSON: nodes in the text format's
    /// order with parent, function, self and total ms, and sample counts
    /// for a thread with a CPU profile (docs/views.md).
    Json,
    /// The dump compared with the DevTools engine's (xtask/js/calltree.mjs).
    Conformance,
}

pub fn run(args: CalltreeArgs, common: &Common) -> Result<(), CliError> {
    let mut out = args.output.clone().open();
    let headed = matches!(args.format, CalltreeFormat::Text);
    args.traces.each(&mut out, headed, |path, out, head| {
        let text = section(&args, path, common)?;
        out.write(&(head.to_owned() + &text))
    })
}

/// The views of one trace, as the format asks.
fn section(args: &CalltreeArgs, path: &std::path::Path, common: &Common) -> Result<String, CliError> {
    let group_by = GroupBy::from(args.group_by);
    let options = args
        .processes
        .options(&common.options)
        .with_group_args(group_by.reads_args());
    let options = args.source_maps.options(options);
    let (input, mut analysis) = load_one(path, &options, common.quiet)?;
    let embedded = !matches!(args.format, CalltreeFormat::Conformance);
    crate::sourcemaps::apply(&args.source_maps, &input, &mut analysis, common.quiet, embedded)?;
    let query = (args.query.selection().with_depth(args.depth)).aggregated_query(&input, &analysis, "aggregate")?;
    let rows = tracekit::views::TextRows::new()
        .top(args.top.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
        .min_total(args.min_duration.min_duration)
        .full_urls(args.urls.full_urls);
    let view_options = tracekit::views::ViewOptions::new()
        .query(query)
        .text(rows)
        .group_by(group_by)
        .max_nodes(options.max_nodes)
        .parallelism(options.parallelism);
    let views_span = tracing::info_span!("views").entered();
    let text = match args.format {
        CalltreeFormat::Text => {
            let view = if args.bottom_up { View::BottomUp } else { View::TopDown };
            tracekit::views::write_text(&analysis, view, &view_options)
        }
        CalltreeFormat::Json => tracekit::views::calltree_json(&analysis, &view_options).map(|s| s + "\n"),
        CalltreeFormat::Conformance => {
            tracekit::views::calltree_conformance(&analysis, &view_options).map(|s| s + "\n")
        }
    }
    .map_err(|error| CliError::View {
        file: input.name(),
        error,
    })?;
    drop(views_span);
    Ok(text)
}
