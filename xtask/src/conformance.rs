//! `cargo xtask conformance`: tracekit against the DevTools engine.

use std::path::{Path, PathBuf};

use anyhow::bail;
use tracekit_conformance::{compare, documented_divergences, golden_name, run_ours, Report};

pub use tracekit_conformance::{fixture_files, FIXTURE_SETS};

use crate::node;

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

/// Every fixture against its committed golden.
pub fn fixtures() -> anyhow::Result<()> {
    let documented = documented_divergences(Path::new("."));
    let mut totals = Totals::default();
    for (dir, expected) in FIXTURE_SETS {
        for file in fixture_files(Path::new(dir))? {
            let name = file.display().to_string();
            let golden = Path::new(expected).join(golden_name(&file));
            let outcome = match run_ours(&file, tracekit::Parallelism::Rayon) {
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
    finish(totals)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
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
pub fn corpus(dir: &Path) -> anyhow::Result<()> {
    node::ensure_packages()?;
    let documented = documented_divergences(Path::new("."));
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    let mut totals = Totals::default();
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let ours = run_ours(&file, tracekit::Parallelism::Rayon);
        let oracle = node::oracle_dump(&file)?;
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
    finish(totals)
}
