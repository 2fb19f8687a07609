//! `tracekit convert`: the tracks in a format another tool reads.

use clap::ValueEnum;

use crate::args::{
    help, value_enum_mirror, NodeArgs, OutputArg, ProcessesArg, QueryArgs, SourceMapsArg, TraceArg, CLIPPED_WINDOW_HELP,
};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;

#[derive(clap::Args)]
#[command(mut_args(help("output", OUTPUT_HELP)))]
#[command(mut_args(help("window", CLIPPED_WINDOW_HELP)))]
pub struct ConvertArgs {
    #[command(flatten)]
    trace: TraceArg,
    #[command(flatten)]
    output: OutputArg,
    /// The format to write.
    #[arg(long, value_enum)]
    to: ConvertFormat,
    #[command(flatten)]
    query: QueryArgs,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    nodes: NodeArgs,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

/// `-o` of `convert`.
const OUTPUT_HELP: &str =
    "Write the output to this file instead of standard output (binary formats are not written to a terminal)";

value_enum_mirror! {
    /// The formats of `convert --to`.
    enum ConvertFormat => tracekit::export::Format {
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
}

pub fn run(args: ConvertArgs, common: &Common) -> Result<(), CliError> {
    let format = tracekit::export::Format::from(args.to);
    let mut out = args.output.open();
    if format.is_binary() && out.is_terminal() {
        let format = args
            .to
            .to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default();
        return Err(CliError::BinaryToTerminal { format });
    }
    let options = args.source_maps.options(args.processes.options(&common.options));
    let (input, mut analysis) = load_one(args.trace.path(), &options, common.quiet)?;
    crate::sourcemaps::apply(&args.source_maps, &input, &mut analysis, common.quiet, true)?;
    let query = args.query.selection().with_nodes(args.nodes).query(&input, &analysis)?;
    crate::query::report_hidden(&input, &analysis, &query, common.quiet);
    let _span = tracing::info_span!("export").entered();
    let written = format.write(&analysis, &query, options.parallelism, out.writer()?);
    out.done(written)
}
