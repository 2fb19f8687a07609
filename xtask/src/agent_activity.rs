//! The goldens of `tracekit agent activity`: `xtask/js/activity.mjs`
//! (chrome-devtools-mcp's own formatter) on each fixture whose summary
//! golden exists, for the whole trace (`FIXTURE.activity.txt`) and for
//! the first insights' relevant bounds its summary names
//! (`FIXTURE.activity.window.MIN-MAX.txt`).

use std::path::Path;
use std::process::Command;

use anyhow::Context;
use tracekit_conformance::agent::agent_fixtures;
use tracekit_conformance::agent_activity::{activity_golden, summary_windows};

use crate::node::{ensure_packages, Engine, NODE};

/// The oracle's activity text of `file` (of `window`, `MIN,MAX` µs).
fn oracle_activity(file: &Path, window: Option<&str>) -> anyhow::Result<Result<String, String>> {
    let mut cmd = Command::new(NODE);
    cmd.arg("--max-old-space-size=6000")
        .arg("xtask/js/activity.mjs")
        .arg(file);
    if let Some(window) = window {
        cmd.args(["--window", window]);
    }
    let out = cmd.output().context("running xtask/js/activity.mjs")?;
    if out.status.success() {
        return Ok(Ok(String::from_utf8(out.stdout)?));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Ok(Err(stderr.lines().next().unwrap_or("failed").to_owned()))
}

/// Writes the activity goldens of the fixtures whose path contains `only`
/// (after their summaries: the windows come from those).
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    ensure_packages()?;
    for (file, summary_golden) in agent_fixtures(engine.devtools())? {
        if !file.to_string_lossy().contains(only) {
            continue;
        }
        let Ok(summary) = std::fs::read_to_string(&summary_golden) else {
            continue;
        };
        let windows = summary_windows(&summary);
        let all = std::iter::once(None).chain(windows.iter().map(|w| Some(w.as_str())));
        for window in all {
            let golden = activity_golden(&summary_golden, window);
            match oracle_activity(&file, window)? {
                Ok(text) => {
                    std::fs::write(&golden, text)?;
                    println!("{:<60} written", golden.display());
                }
                Err(message) => {
                    let _ = std::fs::remove_file(&golden);
                    println!("{:<60} no golden: {message}", golden.display());
                }
            }
        }
    }
    Ok(())
}
