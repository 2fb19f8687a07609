//! `cargo xtask conformance`: tracekit against the DevTools engine.

use std::path::{Path, PathBuf};

use std::time::Duration;

use anyhow::{bail, Context};
use tracekit_conformance::views::{compare_views, known_view_differences, views_cases, ViewsReport};
use tracekit_conformance::{
    check_engine_file, compare, documented_divergences, expected_dir, golden_name, run_ours, Report, ENGINE_FILE,
};

pub use tracekit_conformance::{fixture_files, FIXTURE_SETS};

use crate::node::{self, Engine, ViewsRun};

/// How long the views oracle may take on one corpus trace at full depth
/// (DevTools re-walks the thread for every node it expands), and five
/// times that to the depths of [`CORPUS_VIEWS_DEPTHS`].
const CORPUS_VIEWS_LIMIT: Duration = Duration::from_secs(60);
/// The depths (Call Tree, Bottom-Up) the views are compared to when the
/// whole trees take DevTools longer than [`CORPUS_VIEWS_LIMIT`]. The
/// Bottom-Up is the costly one: its second level took DevTools ten
/// minutes on a 6 MB profile (`sucrase.cpuprofile`, 205,507 calls).
const CORPUS_VIEWS_DEPTHS: (u32, u32) = (4, 1);

#[derive(Default)]
struct Totals {
    traces: usize,
    identical: usize,
    diverging: usize,
    failing: usize,
    threads: (usize, usize),
    entries: (usize, usize),
}

enum Outcome {
    Compared(Report, Vec<String>),
    OracleFailed(String, Vec<String>),
    OursFailed(String),
}

fn print_row(totals: &mut Totals, name: &str, outcome: Outcome, documented: &[String]) {
    totals.traces += 1;
    let undocumented = |names: &[String]| {
        names
            .iter()
            .filter(|n| !documented.contains(n))
            .cloned()
            .collect::<Vec<_>>()
    };
    match outcome {
        Outcome::Compared(report, divergences) => {
            totals.threads.0 += report.threads_identical;
            totals.threads.1 += report.threads_total;
            totals.entries.0 += report.entries_matched;
            totals.entries.1 += report.entries_total;
            let counts = format!(
                "threads {}/{} entries {}/{}",
                report.threads_identical, report.threads_total, report.entries_matched, report.entries_total
            );
            if report.is_match() {
                totals.identical += 1;
                let how = if report.identical { "identical" } else { "same data" };
                println!("{name:<52} {how:<10} {counts}");
            } else if !divergences.is_empty() && undocumented(&divergences).is_empty() {
                totals.diverging += 1;
                println!(
                    "{name:<52} diverges   {counts}  documented: {}  (first difference: {})",
                    divergences.join(", "),
                    report.first_difference.unwrap_or_default()
                );
            } else {
                totals.failing += 1;
                println!(
                    "{name:<52} DIFFERS    {counts}  first difference: {}",
                    report.first_difference.unwrap_or_default()
                );
            }
        }
        Outcome::OracleFailed(message, divergences) => {
            if !divergences.is_empty() && undocumented(&divergences).is_empty() {
                totals.diverging += 1;
                println!(
                    "{name:<52} diverges   DevTools fails ({message}); tracekit loads it: {}",
                    divergences.join(", ")
                );
            } else {
                totals.failing += 1;
                println!("{name:<52} ORACLE FAILS ({message}) and tracekit names no divergence");
            }
        }
        Outcome::OursFailed(message) => {
            totals.failing += 1;
            println!("{name:<52} TRACEKIT FAILS: {message}");
        }
    }
}

fn finish(totals: Totals) -> anyhow::Result<()> {
    println!(
        "\n{} traces: {} identical to DevTools, {} differ only by documented divergences, {} differ; threads {}/{} identical, entries {}/{} matched",
        totals.traces,
        totals.identical,
        totals.diverging,
        totals.failing,
        totals.threads.0,
        totals.threads.1,
        totals.entries.0,
        totals.entries.1
    );
    if totals.failing > 0 {
        bail!(
            "{} traces differ from DevTools without a documented divergence",
            totals.failing
        );
    }
    Ok(())
}

/// Writes the goldens of `engine`: the tracks of every fixture whose path
/// contains `only`, and the views of the indexes, to the engine's
/// directory, with its [`ENGINE_FILE`]. The engine installed must be the
/// one tracekit's behaviour describes: bumping the oracle to a newer
/// DevTools is a new behaviour of tracekit (`tracekit::DevTools`), with
/// goldens of its own.
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    let out = node::describe_engine(engine)?;
    let devtools = engine.devtools();
    if out != devtools.description() {
        bail!(
            "the oracle's engine `{}` is `{out}`, but tracekit's DevTools {} follows `{}`: add a tracekit::DevTools \
             for the new engine (docs/devtools-versions.md, \"Following a newer DevTools\")",
            engine.arg(),
            devtools.name(),
            devtools.description()
        );
    }
    let goldens = expected_dir(devtools);
    // What the report compares with: these goldens as they were, or those
    // of the engine before, for a new one.
    let previous = if goldens.exists() {
        Some(devtools)
    } else {
        tracekit::DevTools::ALL
            .into_iter()
            .rfind(|d| *d < devtools && expected_dir(*d).exists())
    };
    let before = previous.map(|d| read_goldens(&expected_dir(d))).transpose()?;
    for (dir, under) in FIXTURE_SETS {
        let mut files = fixture_files(Path::new(dir))?;
        files.retain(|f| f.to_string_lossy().contains(only));
        if files.is_empty() {
            continue;
        }
        let out = goldens.join(under);
        std::fs::create_dir_all(&out)?;
        let mut args: Vec<String> = vec!["--out-dir".into(), out.display().to_string()];
        args.extend(files.iter().map(|f| f.display().to_string()));
        // Some fixtures are refused by the oracle on purpose (documented divergences).
        if let Err(e) = node::run_script(engine, "oracle", &args) {
            eprintln!("xtask: the oracle failed on some fixtures ({e}); see above");
        }
    }
    write_views_goldens(engine, only)?;
    std::fs::write(
        goldens.join(ENGINE_FILE),
        format!(
            "{out}\nThe goldens of this directory were written by `cargo xtask oracle --engine {}`.\n",
            engine.arg()
        ),
    )?;
    if let (Some(previous), Some(before)) = (previous, before) {
        report_changes(&before, previous, &read_goldens(&goldens)?, devtools);
    }
    Ok(())
}

/// Every golden under `dir` (JSON files), by path relative to it.
fn read_goldens(dir: &Path) -> anyhow::Result<std::collections::BTreeMap<PathBuf, String>> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .map(|f| {
            let text = std::fs::read_to_string(&f)?;
            Ok((f.strip_prefix(dir).unwrap_or(&f).to_path_buf(), text))
        })
        .collect()
}

/// Prints what changed from the goldens `before` (of the engine
/// `previous`) to those `after` (of `devtools`): the tracks' goldens
/// thread by thread, the views' as same or not.
fn report_changes(
    before: &std::collections::BTreeMap<PathBuf, String>,
    previous: tracekit::DevTools,
    after: &std::collections::BTreeMap<PathBuf, String>,
    devtools: tracekit::DevTools,
) {
    println!(
        "\nGoldens of DevTools {} against DevTools {}'s:",
        devtools.name(),
        previous.name()
    );
    let (mut same, mut changed) = (0, 0);
    for (path, text) in after {
        let name = path.display();
        let Some(old) = before.get(path) else {
            println!("{name:<60} new");
            continue;
        };
        if old == text {
            same += 1;
            continue;
        }
        changed += 1;
        let is_view = path.starts_with("calltree") || path.starts_with("summary");
        match compare(text, old) {
            Ok(report) if !is_view => println!(
                "{name:<60} changed: threads {}/{} identical, entries {}/{} matched; first: {}",
                report.threads_identical,
                report.threads_total,
                report.entries_matched,
                report.entries_total,
                report.first_difference.unwrap_or_default()
            ),
            _ => println!("{name:<60} changed"),
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p)) {
        println!("{:<60} gone", path.display());
    }
    println!("{same} goldens the same, {changed} changed");
}

/// Every fixture against its committed golden.
pub fn fixtures(engine: Engine) -> anyhow::Result<()> {
    let documented = documented_divergences(Path::new("."));
    let devtools = engine.devtools();
    check_engine_file(Path::new("."), devtools).map_err(anyhow::Error::msg)?;
    let mut totals = Totals::default();
    for (dir, under) in FIXTURE_SETS {
        for file in fixture_files(Path::new(dir))? {
            let name = file.display().to_string();
            let golden = expected_dir(devtools).join(under).join(golden_name(&file));
            let outcome = match run_ours(&file, tracekit::Parallelism::Rayon, devtools) {
                Err(e) => Outcome::OursFailed(e),
                Ok(ours) => {
                    let divergences: Vec<String> = ours.divergences.keys().cloned().collect();
                    match std::fs::read_to_string(&golden) {
                        Ok(text) => match compare(&ours.dump, &text) {
                            Ok(report) => Outcome::Compared(report, divergences),
                            Err(e) => Outcome::OursFailed(e),
                        },
                        Err(_) => Outcome::OracleFailed("no golden (the oracle refused it)".into(), divergences),
                    }
                }
            };
            print_row(&mut totals, &name, outcome, &documented);
        }
    }
    let tracks = finish(totals);
    let views = views_fixtures(engine);
    tracks.and(views)
}

/// Views (Call Tree and Bottom-Up) of our views dump against the oracle's.
#[derive(Default)]
struct ViewsTotals {
    traces: usize,
    identical: usize,
    diverging: usize,
    failing: usize,
    /// Traces compared to a depth limit, not whole.
    limited: usize,
    counts: ViewsReport,
}

impl ViewsTotals {
    /// Prints one trace's row. `divergences` are the documented reasons it
    /// may differ (the engine's divergences, or a known difference).
    fn row(&mut self, name: &str, report: &ViewsReport, divergences: &[String]) {
        self.traces += 1;
        let mut counts = report.clone();
        counts.first_difference = None;
        self.counts.add(&counts);
        match &report.first_difference {
            None => {
                self.identical += 1;
                println!("{name:<60} identical  {counts}");
            }
            Some(first) if !divergences.is_empty() => {
                self.diverging += 1;
                println!(
                    "{name:<60} diverges   {counts}  documented: {}  (first difference: {first})",
                    divergences.join(", ")
                );
            }
            Some(first) => {
                self.failing += 1;
                println!("{name:<60} DIFFERS    {counts}  first difference: {first}");
            }
        }
    }

    fn failed(&mut self, name: &str, what: &str) {
        self.traces += 1;
        self.failing += 1;
        println!("{name:<60} {what}");
    }

    fn finish(self) -> anyhow::Result<()> {
        println!(
            "\nviews of {} traces: {} identical to DevTools, {} differ only by documented divergences, {} differ \
             ({} compared to a depth limit); {}",
            self.traces, self.identical, self.diverging, self.failing, self.limited, self.counts
        );
        if self.failing > 0 {
            bail!("the views of {} traces differ from DevTools", self.failing);
        }
        Ok(())
    }
}

/// The engine's divergences met on `analysis`, if all are documented.
fn documented_of(analysis: &tracekit::Analysis, documented: &[String]) -> Vec<String> {
    let met: Vec<String> = analysis
        .diagnostics()
        .divergences()
        .map(|(d, _)| d.as_str().to_owned())
        .collect();
    if met.iter().all(|d| documented.contains(d)) {
        met
    } else {
        Vec::new()
    }
}

/// Every golden of the engine's `calltree/index.txt`.
fn views_fixtures(engine: Engine) -> anyhow::Result<()> {
    let devtools = engine.devtools();
    let calltree = expected_dir(devtools).join("calltree");
    println!("\nAggregated views ({}):", calltree.join("index.txt").display());
    let documented = documented_divergences(Path::new("."));
    let known = known_view_differences(Path::new("."), devtools);
    let mut totals = ViewsTotals::default();
    for case in views_cases(Path::new("."), devtools).map_err(anyhow::Error::msg)? {
        let name = format!("{} {}", case.trace, case.options.join(" "));
        let group_by = match &case.group_by {
            Some(kind) => tracekit::views::GroupBy::from_name(kind)
                .with_context(|| format!("{name}: unknown group kind {kind}"))?,
            None => tracekit::views::GroupBy::None,
        };
        let bytes = std::fs::read(Path::new("fixtures").join(&case.trace))?;
        let options = tracekit::AnalyzeOptions::default()
            .with_group_args(group_by.reads_args())
            .with_devtools(devtools);
        let analysis = match tracekit::analyze_bytes(&bytes, &options) {
            Ok(a) => a,
            Err(e) => {
                totals.failed(&name, &format!("TRACEKIT FAILS: {e}"));
                continue;
            }
        };
        let ours = tracekit::views::calltree_conformance(
            &analysis,
            &tracekit::views::ViewOptions::new()
                .query(case.query())
                .group_by(group_by),
        )?;
        let golden = std::fs::read_to_string(calltree.join(&case.golden))?;
        let report =
            compare_views(&ours, &golden, case.top_down_depth, case.bottom_up_depth).map_err(anyhow::Error::msg)?;
        if case.top_down_depth.is_some() || case.bottom_up_depth.is_some() {
            totals.limited += 1;
        }
        let mut divergences = documented_of(&analysis, &documented);
        if let Some(reason) = known.get(&case.golden) {
            divergences.push(reason.split_whitespace().next().unwrap_or_default().to_owned());
        }
        totals.row(&name, &report, &divergences);
    }
    totals.finish()
}

/// The goldens of the aggregated views: the index of each (under an
/// engine's goldens) and the oracle script that makes them.
const VIEW_GOLDENS: &[(&str, &str)] = &[("calltree", "calltree"), ("summary", "summary")];

/// Writes the oracle's golden of every line of the views' indexes of the
/// engine (`{calltree,summary}/index.txt`: `TRACE GOLDEN [OPTIONS]`)
/// whose trace contains `only`. A trace DevTools fails on keeps no golden
/// (the index says why).
fn write_views_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    for (dir, script) in VIEW_GOLDENS {
        let dir = expected_dir(engine.devtools()).join(dir);
        let index = std::fs::read_to_string(dir.join("index.txt"))?;
        for line in index.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            let [trace, golden, options @ ..] = words.as_slice() else {
                bail!("{}: a line without a golden: {line}", dir.display());
            };
            if !trace.contains(only) {
                continue;
            }
            let golden = dir.join(golden);
            match node::script_dump(
                engine,
                script,
                &Path::new("fixtures").join(trace),
                options,
                Duration::MAX,
            )? {
                ViewsRun::Dump(dump) => {
                    if let Some(parent) = golden.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(&golden, dump)?;
                }
                ViewsRun::Failed(message) => {
                    eprintln!("xtask: no {script} golden for {trace} {}: {message}", options.join(" "));
                    let _ = std::fs::remove_file(&golden);
                }
                ViewsRun::TimedOut => unreachable!("no time limit"),
            }
        }
    }
    Ok(())
}

/// The views oracle's dump of a corpus trace: at full depth if DevTools
/// finishes within the limit, else to [`CORPUS_VIEWS_DEPTHS`].
fn corpus_views_oracle(engine: Engine, file: &Path) -> anyhow::Result<(ViewsRun, Option<(u32, u32)>)> {
    match node::views_dump(engine, file, &[], CORPUS_VIEWS_LIMIT)? {
        ViewsRun::TimedOut => {
            let (top_down, bottom_up) = CORPUS_VIEWS_DEPTHS;
            let options = [
                "--top-down-max-depth".to_owned(),
                top_down.to_string(),
                "--bottom-up-max-depth".to_owned(),
                bottom_up.to_string(),
            ];
            let run = node::views_dump(engine, file, &options, CORPUS_VIEWS_LIMIT * 5)?;
            Ok((run, Some(CORPUS_VIEWS_DEPTHS)))
        }
        run => Ok((run, None)),
    }
}

pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !(name.ends_with(".md") || name == "LICENSE" || name.starts_with('.')) {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// Every file under `dir`, against the oracle run live.
pub fn corpus(engine: Engine, dir: &Path) -> anyhow::Result<()> {
    node::ensure_packages()?;
    let documented = documented_divergences(Path::new("."));
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    let mut totals = Totals::default();
    for file in &files {
        let name = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        let ours = run_ours(file, tracekit::Parallelism::Rayon, engine.devtools());
        let oracle = node::oracle_dump(engine, file)?;
        let outcome = match (ours, oracle) {
            (Err(e), _) => Outcome::OursFailed(e),
            (Ok(ours), Err(message)) => Outcome::OracleFailed(message, ours.divergences.into_keys().collect()),
            (Ok(ours), Ok(golden)) => match compare(&ours.dump, &golden) {
                Ok(report) => Outcome::Compared(report, ours.divergences.into_keys().collect()),
                Err(e) => Outcome::OursFailed(e),
            },
        };
        print_row(&mut totals, &name, outcome, &documented);
    }
    let tracks = finish(totals);
    let views = corpus_views(engine, dir, &files, &documented);
    tracks.and(views)
}

/// The views of every corpus trace against the views oracle run live.
fn corpus_views(engine: Engine, dir: &Path, files: &[PathBuf], documented: &[String]) -> anyhow::Result<()> {
    println!("\nAggregated views (Call Tree and Bottom-Up, whole trace):");
    let mut totals = ViewsTotals::default();
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        let analysis = std::fs::read(file).map_err(|e| e.to_string()).and_then(|b| {
            tracekit::analyze_bytes(
                &b,
                &tracekit::AnalyzeOptions::default().with_devtools(engine.devtools()),
            )
            .map_err(|e| e.to_string())
        });
        let (oracle, depth) = corpus_views_oracle(engine, file)?;
        let name = match depth {
            Some((top_down, bottom_up)) => format!("{name} (depths {top_down}/{bottom_up})"),
            None => name,
        };
        match (analysis, oracle) {
            (Err(e), _) => totals.failed(&name, &format!("TRACEKIT FAILS: {e}")),
            (Ok(_), ViewsRun::TimedOut) => totals.failed(&name, "ORACLE TIMED OUT"),
            (Ok(analysis), ViewsRun::Failed(message)) => {
                let divergences = documented_of(&analysis, documented);
                if divergences.is_empty() {
                    totals.failed(
                        &name,
                        &format!("ORACLE FAILS ({message}) and tracekit names no divergence"),
                    );
                } else {
                    totals.traces += 1;
                    totals.diverging += 1;
                    println!(
                        "{name:<60} diverges   DevTools fails ({message}); tracekit loads it: {}",
                        divergences.join(", ")
                    );
                }
            }
            (Ok(analysis), ViewsRun::Dump(golden)) => {
                if depth.is_some() {
                    totals.limited += 1;
                }
                let ours = tracekit::views::calltree_conformance(&analysis, &tracekit::views::ViewOptions::new())
                    .unwrap_or_else(|e| unreachable!("{e}: no grouping reads no args"));
                let report = compare_views(&ours, &golden, depth.map(|d| d.0), depth.map(|d| d.1))
                    .map_err(anyhow::Error::msg)?;
                totals.row(&name, &report, &documented_of(&analysis, documented));
            }
        }
    }
    totals.finish()
}
