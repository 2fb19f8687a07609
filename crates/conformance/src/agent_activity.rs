//! The main thread activity texts (`tracekit agent activity`) against the
//! oracle's (`xtask/js/activity.mjs`): each fixture's whole-trace text
//! (`FIXTURE.activity.txt` beside its summary golden) and the texts of a
//! few windows, the insights' relevant bounds its summary names
//! (`FIXTURE.activity.window.MIN-MAX.txt`).

use std::path::{Path, PathBuf};

/// How many windows of a fixture have goldens.
pub const WINDOWS: usize = 2;

/// The windows an activity golden is written for: the first distinct
/// "relevant trace bounds" of a summary, as `MIN,MAX` (µs).
pub fn summary_windows(summary: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in summary.lines() {
        let Some(rest) = line.trim_start().strip_prefix("relevant trace bounds: {min: ") else {
            continue;
        };
        let Some((min, rest)) = rest.split_once("µs, max: ") else {
            continue;
        };
        let Some(max) = rest.strip_suffix("µs}") else {
            continue;
        };
        let window = format!("{min},{max}");
        if !out.contains(&window) && out.len() < WINDOWS {
            out.push(window);
        }
    }
    out
}

/// A golden's file name for a window (`None`: the whole trace), beside
/// the summary golden.
pub fn activity_golden(summary_golden: &Path, window: Option<&str>) -> PathBuf {
    let name = summary_golden.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.trim_end_matches(".summary.txt");
    let file = match window {
        None => format!("{stem}.activity.txt"),
        Some(w) => format!("{stem}.activity.window.{}.txt", w.replace(',', "-")),
    };
    summary_golden.with_file_name(file)
}

/// The activity goldens of a fixture: each with its window (`None`: the
/// whole trace).
pub fn activity_goldens(summary_golden: &Path) -> Vec<(Option<String>, PathBuf)> {
    let Some(dir) = summary_golden.parent() else {
        return Vec::new();
    };
    let name = summary_golden.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.trim_end_matches(".summary.txt");
    let whole = format!("{stem}.activity.txt");
    let windowed = format!("{stem}.activity.window.");
    let mut out: Vec<(Option<String>, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let file = e.file_name().to_str()?.to_owned();
            if file == whole {
                return Some((None, e.path()));
            }
            let window = file.strip_prefix(&windowed)?.strip_suffix(".txt")?;
            let (min, max) = window.split_once('-')?;
            Some((Some(format!("{min},{max}")), e.path()))
        })
        .collect();
    out.sort();
    out
}

/// tracekit's activity text of a file, as `tracekit agent activity`
/// writes it.
pub fn run_ours_activity(file: &Path, window: Option<&str>, devtools: tracekit::DevTools) -> Result<String, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let options = tracekit::AnalyzeOptions::default()
        .with_devtools(devtools)
        .with_all_handlers(true)
        .with_details(true)
        .with_group_args(true);
    let analysis = tracekit::analyze_bytes(&bytes, &options).map_err(|e| e.to_string())?;
    let sets = tracekit::insights::compute(&analysis).map_err(|e| e.to_string())?;
    let window = window.map(str::parse::<tracekit::agent::Window>).transpose()?;
    tracekit::agent::main_thread_activity(&analysis, &sets, window).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_the_first_distinct_bounds_of_the_summary() {
        let summary = "  - insight name: A\n    relevant trace bounds: {min: 10µs, max: 20µs}\n  - insight name: B\n    relevant trace bounds: {min: 10µs, max: 20µs}\n    relevant trace bounds: {min: 5µs, max: 7µs}\n    relevant trace bounds: {min: 1µs, max: 2µs}\n";
        assert_eq!(summary_windows(summary), ["10,20", "5,7"]);
        let golden = Path::new("x/page.summary.txt");
        assert_eq!(
            activity_golden(golden, Some("5,7")),
            Path::new("x/page.activity.window.5-7.txt")
        );
        assert_eq!(activity_golden(golden, None), Path::new("x/page.activity.txt"));
    }
}
