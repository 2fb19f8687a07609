//! `tracekit tracks`: the call tree of every thread, as the DevTools
//! Performance panel's tracks show it.

use clap::ValueEnum;

use crate::args::{
    DepthArg, MinDurationArg, OutputArg, ProcessesArg, SourceMapsArg, ThreadArg, TracesArg, UrlsArg, WindowArg,
};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::load_one;
use crate::query::{report_hidden, Selection};

#[derive(clap::Args)]
pub struct TracksArgs {
    #[command(flatten)]
    traces: TracesArg,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    thread: ThreadArg,
    #[command(flatten)]
    processes: ProcessesArg,
    #[command(flatten)]
    window: WindowArg,
    #[command(flatten)]
    depth: DepthArg,
    #[command(flatten)]
    min_duration: MinDurationArg,
    #[command(flatten)]
    urls: UrlsArg,
    #[command(flatten)]
    source_maps: SourceMapsArg,
    /// Print on stderr what was skipped or repaired while loading.
    #[arg(long)]
    stats: bool,
    /// Say why, as the panel does: end each entry's line with its warnings
    /// ([long task], [forced reflow], ...); in JSON, give each node its
    /// initiator and warnings. Loads with every handler (slower).
    #[arg(long)]
    why: bool,
}

/// The formats of `tracks --format`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// An indented tree for people and snapshot tests: a line per node with
    /// what it is (an event's URL, type, timer or function; a JS call's
    /// function and place), its start, duration and self time in ms
    /// (docs/text-format.md). These are the panel's tracks: an event
    /// nested in another stays under it (the Bottom-Up of `calltree` folds
    /// `V8.Execute` into `EvaluateScript`, as DevTools does).
    Text,
    /// One JSON document for viewers, with every field of every node
    /// (docs/json-format.md).
    Json,
    /// The dump compared with the DevTools engine's (raw microseconds).
    Conformance,
}

impl TracksArgs {
    /// What is wrong with the command line, that clap cannot tell.
    pub fn usage_error(&self) -> Option<&'static str> {
        (self.why && matches!(self.format, Format::Conformance)).then_some(
            "--why adds to the text and json formats: the conformance dump is DevTools' and has no room for it",
        )
    }
}

pub fn run(args: TracksArgs, common: &Common) -> Result<(), CliError> {
    let mut out = args.output.clone().open();
    let headed = matches!(args.format, Format::Text);
    args.traces.each(&mut out, headed, |path, out, head| {
        section(&args, path, common, out, head)
    })
}

/// Prints the tracks of one trace, after `head`.
fn section(
    args: &TracksArgs,
    path: &std::path::Path,
    common: &Common,
    out: &mut crate::output::Output,
    head: &str,
) -> Result<(), CliError> {
    // What tells events apart is read from their args, which the
    // conformance dump does not show.
    let details = !matches!(args.format, Format::Conformance);
    let options = args
        .processes
        .options(&common.options)
        .with_all_handlers(args.why)
        .with_details(details);
    let options = args.source_maps.options(options);
    let (input, mut analysis) = load_one(path, &options, common.quiet)?;
    crate::sourcemaps::apply(&args.source_maps, &input, &mut analysis, common.quiet, details)?;
    let why = if args.why {
        why(&input.name(), &analysis, common.quiet)
    } else {
        None
    };
    let query = Selection::new(args.thread.clone(), args.window.clone())
        .with_depth(args.depth)
        .with_min_duration(args.min_duration)
        .query(&input, &analysis)?;
    report_hidden(&input, &analysis, &query, common.quiet);
    let _span = tracing::info_span!("output").entered();
    let w = out.writer()?;
    let written = w.write_all(head.as_bytes()).and_then(|()| match args.format {
        Format::Text => {
            let text = tracekit::output::TextOptions {
                why: why.as_ref(),
                full_urls: args.urls.full_urls,
            };
            tracekit::output::write_text_with(&analysis, &query, &text, w)
        }
        Format::Json => tracekit::output::write_json_why(&analysis, &query, options.parallelism, why.as_ref(), w),
        Format::Conformance => tracekit::output::write_conformance(&analysis, &query, options.parallelism, w),
    });
    out.done(written)?;
    if args.stats {
        // The warnings were printed above (unless --quiet).
        eprint!("{}", tracekit::output::stats_without_warnings(&analysis));
    }
    // With one trace, the process ends here, and its memory goes back to
    // the system at once: freeing the tracks node by node would add 2% to
    // a run. With several, the next trace needs the memory.
    if args.traces.is_one() {
        std::mem::forget(analysis);
    }
    Ok(())
}

/// The warnings and initiators of `--why`; a profile has none, which a
/// warning says (its tracks are printed as they are).
fn why(file: &str, analysis: &tracekit::Analysis, quiet: bool) -> Option<tracekit::page::Why> {
    match tracekit::page::Why::new(analysis) {
        Ok(why) => Some(why),
        Err(e) => {
            if !quiet {
                eprintln!("tracekit: warning: {file}: --why: {e}");
            }
            None
        }
    }
}
