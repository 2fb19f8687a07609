//! `tracekit flamegraph`: a flame graph (SVG) of the calls of every
//! thread, drawn by inferno, or the folded stacks it is drawn from.

use crate::args::{help, NodeArgs, OutputArg, ProcessesArg, QueryArgs, SourceMapsArg, TraceArg, CLIPPED_WINDOW_HELP};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("output", OUTPUT_HELP)))]
#[command(mut_args(help("window", CLIPPED_WINDOW_HELP)))]
pub struct FlamegraphArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    query: QueryArgs,
    /// Each function's callers, as an icicle (DevTools' Bottom-Up): the
    /// frames of each stack reversed below its process and thread.
    #[arg(long)]
    bottom_up: bool,
    /// Write the folded stacks the graph is drawn from instead of the SVG.
    #[arg(long)]
    folded: bool,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    nodes: NodeArgs,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

/// `-o` of `flamegraph`.
const OUTPUT_HELP: &str = "Write the SVG (or the folded stacks) to this file instead of standard output";

pub fn run(args: FlamegraphArgs, common: &Common) -> Result<(), CliError> {
    let options = args.source_maps.options(args.processes.options(&common.options));
    let (input, mut analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    crate::sourcemaps::apply(&args.source_maps, &input, &mut analysis, common.quiet, true)?;
    let selection = args.query.selection().with_nodes(args.nodes);
    let query = selection.query(&input, &analysis)?;
    crate::query::report_hidden(&input, &analysis, &query, common.quiet);
    let parallelism = options.parallelism;
    let folded = if args.bottom_up {
        tracekit::export::folded_bottom_up(&analysis, &query, parallelism)
    } else if args.folded {
        tracekit::export::folded(&analysis, &query, parallelism)
    } else {
        // The frames the picture leaves out are merged first: the same
        // picture from far fewer lines (`flamegraph_svg` keeps inferno's
        // default width too).
        let min_width = inferno::flamegraph::Options::default().min_width;
        tracekit::export::folded_to_draw(&analysis, &query, parallelism, min_width)
    };
    let mut out = args.output.open();
    if args.folded {
        return out.write(&folded);
    }
    if folded.is_empty() {
        return Err(CliError::NothingToDraw { file: input.name() });
    }
    let mut subtitle = Vec::new();
    if let Some(thread) = selection.thread() {
        subtitle.push(format!("thread {thread}"));
    }
    if let Some(window) = selection.window() {
        subtitle.push(format!("window {window} ms"));
    }
    // The title names the file, not the path it was given by.
    let path = args.trace.path();
    let file_name = match path.file_name() {
        Some(name) if path.as_os_str() != "-" => name.to_string_lossy().into_owned(),
        _ => input.name(),
    };
    let svg =
        flamegraph_svg(&folded, &file_name, args.bottom_up, &subtitle.join(", ")).map_err(|error| CliError::Draw {
            file: input.name(),
            error,
        })?;
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
