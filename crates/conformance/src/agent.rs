//! The texts chrome-devtools-mcp gives an agent, against its own: the
//! goldens under `fixtures/expected/NAME/agent/` (`cargo xtask oracle
//! --agent`), one `FIXTURE.summary.txt` per fixture the oracle reads, and
//! what tells a difference that is only an insight tracekit does not
//! compute yet from any other.

use std::path::{Path, PathBuf};

/// The insights tracekit does not compute yet: they wait for Lantern's
/// savings.
pub const NOT_COMPUTED: &[&str] = &[
    "Cache",
    "DuplicatedJavaScript",
    "ImageDelivery",
    "LegacyJavaScript",
    "ModernHTTP",
    "NetworkDependencyTree",
    "RenderBlocking",
];

/// Where the agent goldens of `devtools` are.
pub fn agent_dir(devtools: tracekit::DevTools) -> PathBuf {
    crate::expected_dir(devtools).join("agent")
}

/// The fixtures whose texts are compared, each with the path of its
/// summary golden (which exists only where the oracle made a summary).
pub fn agent_fixtures(devtools: tracekit::DevTools) -> std::io::Result<Vec<(PathBuf, PathBuf)>> {
    let data_dir = crate::data::data_dir(devtools);
    Ok(crate::data::data_fixtures(devtools)?
        .into_iter()
        .map(|(file, data_golden)| {
            let under = data_golden.strip_prefix(&data_dir).unwrap_or(&data_golden);
            let golden = agent_dir(devtools).join(under).with_extension("summary.txt");
            (file, golden)
        })
        .collect())
}

/// tracekit's summary of a file, as `tracekit agent summary` writes it
/// (with the newline the oracle ends its output with).
pub fn run_ours_summary(file: &Path, devtools: tracekit::DevTools) -> Result<String, String> {
    let analysis = load_as_the_agent(file, devtools)?;
    let sets = tracekit::insights::compute(&analysis).map_err(|e| e.to_string())?;
    let throttling = tracekit::agent::Throttling::default();
    Ok(tracekit::agent::trace_summary(&analysis, &sets, &throttling) + "\n")
}

/// A file loaded as `tracekit agent` loads it: every handler, and no
/// source maps of the trace's (chrome-devtools-mcp reads none).
fn load_as_the_agent(file: &Path, devtools: tracekit::DevTools) -> Result<tracekit::Analysis, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let options = tracekit::AnalyzeOptions::default()
        .with_devtools(devtools)
        .with_all_handlers(true)
        .with_trace_source_maps(false);
    tracekit::analyze_bytes(&bytes, &options).map_err(|e| e.to_string())
}

/// The call tree goldens of a fixture's summary golden: each with its key.
pub fn call_tree_goldens(summary_golden: &Path) -> Vec<(String, PathBuf)> {
    let Some(dir) = summary_golden.parent() else {
        return Vec::new();
    };
    let name = summary_golden.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let prefix = format!("{}.calltree.", name.trim_end_matches(".summary.txt"));
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let file = e.file_name().to_str()?.to_owned();
            let key = file.strip_prefix(&prefix)?.strip_suffix(".txt")?.to_owned();
            Some((key, e.path()))
        })
        .collect();
    out.sort();
    out
}

/// The insight goldens of a fixture's summary golden: each with its set
/// and insight name.
pub fn insight_goldens(summary_golden: &Path) -> Vec<(String, String, PathBuf)> {
    let Some(dir) = summary_golden.parent() else {
        return Vec::new();
    };
    let name = summary_golden.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let prefix = format!("{}.insight.", name.trim_end_matches(".summary.txt"));
    let mut out: Vec<(String, String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let file = e.file_name().to_str()?.to_owned();
            let rest = file.strip_prefix(&prefix)?.strip_suffix(".txt")?;
            let (set, insight) = rest.split_once('.')?;
            Some((set.to_owned(), insight.to_owned(), e.path()))
        })
        .collect();
    out.sort();
    out
}

/// tracekit's analysis of one insight of a file, as `tracekit agent
/// insight` writes it.
pub fn run_ours_insight(file: &Path, set: &str, name: &str, devtools: tracekit::DevTools) -> Result<String, String> {
    let wanted = [(set.to_owned(), name.to_owned())];
    run_ours_analyses(file, &wanted, devtools)?.remove(0)
}

/// tracekit's analyses of several insights (set, name) of a file, loaded
/// once: each as `analyze_insight` answers (chrome-devtools-mcp's own
/// words when it has no such set or insight), with a newline.
pub fn run_ours_analyses(
    file: &Path,
    wanted: &[(String, String)],
    devtools: tracekit::DevTools,
) -> Result<Vec<Result<String, String>>, String> {
    use tracekit::agent::InsightTextError;
    let analysis = load_as_the_agent(file, devtools)?;
    let sets = tracekit::insights::compute(&analysis).map_err(|e| e.to_string())?;
    Ok(wanted
        .iter()
        .map(
            |(set, name)| match tracekit::agent::insight_text(&analysis, &sets, set, name) {
                Ok(text) | Err(InsightTextError::Devtools(text)) => Ok(text + "\n"),
                Err(e) => Err(e.to_string()),
            },
        )
        .collect())
}

/// tracekit's call tree of the event `key` of a file, as `tracekit agent
/// call-tree` writes it.
pub fn run_ours_call_tree(file: &Path, key: &str, devtools: tracekit::DevTools) -> Result<String, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let options = tracekit::AnalyzeOptions::default()
        .with_devtools(devtools)
        .with_all_handlers(true)
        .with_details(true)
        .with_group_args(true)
        .with_trace_source_maps(false);
    let analysis = tracekit::analyze_bytes(&bytes, &options).map_err(|e| e.to_string())?;
    let key: tracekit::agent::EventKey = key.parse().map_err(|e: tracekit::agent::BadKey| e.to_string())?;
    Ok(tracekit::agent::call_tree(&analysis, key).map_err(|e| e.to_string())? + "\n")
}

/// A summary without the insights tracekit does not compute: what is left
/// must be identical when those are the only difference.
pub fn without_not_computed(summary: &str) -> String {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in summary.split('\n') {
        if let Some(name) = line.strip_prefix("  - insight name: ") {
            skipping = NOT_COMPUTED.contains(&name);
        } else if !line.starts_with("    ") {
            skipping = false;
        }
        if !skipping {
            out.push(line);
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_insights_not_computed_are_left_out() {
        let text = "Available insights:\n  - insight name: ModernHTTP\n    description: d\n  - insight name: LCPBreakdown\n    description: e\n\n# Custom tracks";
        assert_eq!(
            without_not_computed(text),
            "Available insights:\n  - insight name: LCPBreakdown\n    description: e\n\n# Custom tracks"
        );
    }
}
