//! `tracekit diff`: two traces, or two sets of runs, compared key by key
//! (tracekit-diff), with `--fail-on` thresholds for CI (exit status 3)
//! and a differential flame graph.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tracekit::SourceMaps;
use tracekit_diff::{Options, Run, Stacks, Threshold};

use crate::args::{OutputArg, SourceMapsArg};
use crate::cli::Common;
use crate::error::CliError;
use crate::input::{load, print_warnings, Input};

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("inputs").required(true).args(["pair", "base"])))]
pub struct DiffArgs {
    /// BASE then NEW: a Chrome trace, .cpuprofile or JS Self-Profiling
    /// trace each (gzipped or not), of the same kind.
    #[arg(num_args = 2, value_names = ["BASE", "NEW"], conflicts_with_all = ["base", "new"])]
    pair: Vec<PathBuf>,
    /// Several runs of BASE (with --new): compared with statistics.
    #[arg(long, num_args = 1.., value_name = "TRACE", requires = "new")]
    base: Vec<PathBuf>,
    /// Several runs of NEW (with --base).
    #[arg(long, num_args = 1.., value_name = "TRACE", requires = "base")]
    new: Vec<PathBuf>,
    #[command(flatten)]
    output: OutputArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Exit with status 3 when a change crosses this threshold (with
    /// several runs, only a significant change): TARGET>+N or TARGET<-N,
    /// N in ms, s or %, TARGET one of any, FCP, LCP, CLS, INP, TBT,
    /// self:FUNCTION, total:FUNCTION, event:NAME, category:NAME (e.g.
    /// 'LCP>+100ms', 'self:render>+10%', 'category:Scripting>+50ms',
    /// 'any>+5%'). May be given several times.
    #[arg(long, value_name = "THRESHOLD", value_parser = parse_threshold)]
    fail_on: Vec<Threshold>,
    /// The false discovery rate (Benjamini-Hochberg) of the changes found
    /// over several runs; the intervals are at 1 - ALPHA.
    #[arg(long, value_name = "ALPHA", default_value_t = 0.05, value_parser = parse_alpha)]
    alpha: f64,
    /// Keys under this many ms on both sides are not compared.
    #[arg(long, value_name = "MS", default_value_t = 0.5)]
    min_ms: f64,
    /// Also write a differential flame graph (SVG): the stacks of NEW
    /// (the mean of its runs), each frame coloured by its change from
    /// BASE (red: slower, blue: faster).
    #[arg(long, value_name = "SVG")]
    flamegraph: Option<PathBuf>,
    /// Source maps of BASE's scripts only (.map files or directories),
    /// before those of --source-maps: the functions are then compared by
    /// their original names, whatever each build's minifier named them
    #[arg(long = "base-source-maps", num_args = 1.., value_name = "PATH")]
    base_source_maps: Vec<PathBuf>,
    /// Source maps of NEW's scripts only, before those of --source-maps
    #[arg(long = "new-source-maps", num_args = 1.., value_name = "PATH")]
    new_source_maps: Vec<PathBuf>,
    #[command(flatten)]
    source_maps: SourceMapsArg,
}

/// The formats of `diff --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum DiffFormat {
    /// For a terminal: per kind (page metrics, categories, functions,
    /// events), the changes, then the largest noise.
    Text,
    /// GitHub Markdown tables, for a pull request comment or a CI job
    /// summary.
    Markdown,
    /// Every key with its values, change and statistics (docs/diff.md).
    Json,
}

fn parse_threshold(text: &str) -> Result<Threshold, String> {
    text.parse::<Threshold>().map_err(|e| e.to_string())
}

fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("{text:?} is not a number between 0 and 1")),
    }
}

/// One input loaded and measured, with its stacks when a flame graph is
/// asked for.
fn measure_one(
    path: &Path,
    common: &Common,
    stacks: bool,
    maps: Option<&SourceMaps>,
) -> Result<(Run, Option<Stacks>), CliError> {
    let input = Input::new(path);
    let options = common.options.with_all_handlers(true);
    // Several inputs load at once: no progress bar.
    let mut analysis = load(&input, &options, true)
        .map_err(|error| CliError::Load {
            file: input.name(),
            error,
        })?
        .analysis;
    print_warnings(&input, &analysis, common.quiet);
    if let Some(maps) = maps {
        crate::sourcemaps::apply_given(maps, &input, &mut analysis, common.quiet, true);
    }
    // The Bottom-Up and Summary of every thread, and the stacks: the
    // `views` stage of --timings.
    let views_span = tracing::info_span!("views").entered();
    let run =
        tracekit_diff::measure_with(&analysis, options.max_nodes, options.parallelism).map_err(
            |error| match error {
                tracekit_diff::MeasureError::View(error) => CliError::View {
                    file: input.name(),
                    error,
                },
                error => CliError::Data {
                    file: input.name(),
                    message: error.to_string(),
                },
            },
        )?;
    let stacks = stacks.then(|| {
        let mut s = Stacks::default();
        s.add(&analysis);
        s
    });
    drop(views_span);
    Ok((run, stacks))
}

/// Loads a side's runs in parallel (on the pool, each trace's own work
/// on it too; one after the other with `--threads 1`), in the order given.
fn side(
    paths: &[PathBuf],
    common: &Common,
    stacks: bool,
    maps: Option<&SourceMaps>,
) -> Result<(Vec<Run>, Stacks), CliError> {
    let loaded: Vec<Result<(Run, Option<Stacks>), CliError>> = match common.options.parallelism {
        tracekit::Parallelism::Rayon => paths.par_iter().map(|p| measure_one(p, common, stacks, maps)).collect(),
        // `--threads 1`: no other thread.
        tracekit::Parallelism::Sequential => paths.iter().map(|p| measure_one(p, common, stacks, maps)).collect(),
    };
    let mut runs = Vec::with_capacity(paths.len());
    let mut all = Stacks::default();
    for result in loaded {
        let (run, s) = result?;
        runs.push(run);
        if let Some(s) = s {
            all.merge(s);
        }
    }
    Ok((runs, all))
}

pub fn run(args: DiffArgs, common: &Common) -> Result<(), CliError> {
    let (base_paths, new_paths) = if args.pair.is_empty() {
        (args.base, args.new)
    } else {
        (vec![args.pair[0].clone()], vec![args.pair[1].clone()])
    };
    let stacks = args.flamegraph.is_some();
    // Each side's maps, then the shared ones, read once.
    let side_maps = |own: &[PathBuf]| {
        crate::sourcemaps::given(&SourceMapsArg {
            source_maps: own.iter().chain(&args.source_maps.source_maps).cloned().collect(),
            no_source_maps: args.source_maps.no_source_maps,
        })
    };
    let base_maps = side_maps(&args.base_source_maps)?;
    let new_maps = side_maps(&args.new_source_maps)?;
    let (base, new) = common.options.parallelism.join(
        || side(&base_paths, common, stacks, base_maps.as_ref()),
        || side(&new_paths, common, stacks, new_maps.as_ref()),
    );
    let (base, base_stacks) = base?;
    let (new, new_stacks) = new?;
    let options = Options {
        alpha: args.alpha,
        min_ms: args.min_ms,
    };
    let report = tracekit_diff::compare(&base, &new, &options).map_err(|e| CliError::Diff(e.to_string()))?;
    let text = match args.format {
        DiffFormat::Text => tracekit_diff::render::text(&report),
        DiffFormat::Markdown => tracekit_diff::render::markdown(&report),
        DiffFormat::Json => tracekit_diff::render::json(&report) + "\n",
    };
    args.output.open().write(&text)?;
    if let Some(path) = &args.flamegraph {
        let svg = differential_svg(
            &base_stacks.folded(&report.threads),
            &new_stacks.folded(&report.threads),
        )
        .map_err(|error| CliError::Draw {
            file: path.display().to_string(),
            error,
        })?;
        crate::output::Output::new(Some(path.clone())).write_bytes(&svg)?;
    }
    let crossed = tracekit_diff::crossed(&args.fail_on, &report);
    if crossed.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = crossed
        .iter()
        .map(|(row, t)| {
            let what = match row.key.quantity.name() {
                "" => row.key.name.clone(),
                q => format!("{q} {}", row.key.name),
            };
            let rel = row.relative.map_or(String::new(), |r| format!(", {:+.1}%", r * 100.0));
            format!("{} ({what} [{}]: {:+.3}{rel})", t.text, row.key.thread, row.delta)
        })
        .collect();
    Err(CliError::ThresholdCrossed(lines.join("; ")))
}

/// The differential flame graph of two sides' folded stacks, drawn by
/// inferno: widths from NEW, colour by the change from BASE.
fn differential_svg(base: &str, new: &str) -> std::io::Result<Vec<u8>> {
    let mut diff = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options::default(),
        base.as_bytes(),
        new.as_bytes(),
        &mut diff,
    )?;
    let diff = String::from_utf8_lossy(&diff);
    let mut options = inferno::flamegraph::Options::default();
    options.title = "Differential flame graph: NEW against BASE".to_owned();
    options.subtitle = Some("widths: NEW; red: slower than BASE, blue: faster".to_owned());
    options.count_name = "µs".to_owned();
    options.name_type = "Frame:".to_owned();
    options.text_truncate_direction = inferno::flamegraph::TextTruncateDirection::Right;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, diff.lines(), &mut svg)?;
    Ok(svg)
}
