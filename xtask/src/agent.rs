//! The goldens of the texts chrome-devtools-mcp gives an agent: the
//! oracle's `mcp-summary.mjs TRACE --bare` of each fixture, written to
//! `fixtures/expected/NAME/agent/FIXTURE.summary.txt` (no golden where the
//! oracle makes no summary), and its `--call-tree KEY` of a few keys
//! (`FIXTURE.calltree.KEY.txt`): the longest tasks, calls and dispatches of
//! the trace, and the first JS call each of those trees names), and its
//! `--insight SET NAME` of every insight, for each set
//! (`FIXTURE.insight.SET.NAME.txt`). Only
//! today's engine has an MCP server.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use tracekit_conformance::agent::agent_fixtures;

use crate::data::oracle_dir;
use crate::node::Engine;

/// The oracle's summary of `file`, or its one line when it makes none.
fn oracle_summary(oracle: &Path, file: &Path) -> anyhow::Result<Result<String, String>> {
    let file = std::fs::canonicalize(file)?;
    let out = Command::new(oracle.join("node_modules/.bin/node"))
        .arg("--max-old-space-size=6000")
        .arg(oracle.join("mcp-summary.mjs"))
        .arg(&file)
        .arg("--bare")
        .output()
        .context("running the oracle's mcp-summary.mjs")?;
    if out.status.success() {
        return Ok(Ok(String::from_utf8(out.stdout)?));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Ok(Err(stderr.lines().next().unwrap_or("failed").to_owned()))
}

/// The oracle's call tree of `key` in `file`, `None` when it has none.
fn oracle_call_tree(oracle: &Path, file: &Path, key: &str) -> anyhow::Result<Option<String>> {
    let file = std::fs::canonicalize(file)?;
    let out = Command::new(oracle.join("node_modules/.bin/node"))
        .arg("--max-old-space-size=6000")
        .arg(oracle.join("mcp-summary.mjs"))
        .arg(&file)
        .args(["--call-tree", key])
        .output()
        .context("running the oracle's mcp-summary.mjs")?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The keys of the longest tasks, function calls and event dispatches of
/// a trace (three of each at most).
fn candidate_keys(file: &Path) -> anyhow::Result<Vec<String>> {
    let bytes = std::fs::read(file)?;
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out)?;
        out
    } else {
        bytes
    };
    let doc: serde_json::Value = serde_json::from_slice(&text).unwrap_or_default();
    let events = doc
        .get("traceEvents")
        .unwrap_or(&doc)
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut keys = Vec::new();
    for name in ["RunTask", "FunctionCall", "EventDispatch"] {
        let mut found: Vec<(f64, usize)> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e["name"] == name && e["ph"] == "X")
            .map(|(i, e)| (e["dur"].as_f64().unwrap_or(0.0), i))
            .collect();
        found.sort_by(|a, b| b.0.total_cmp(&a.0));
        keys.extend(found.iter().take(3).map(|(_, i)| format!("r-{i}")));
    }
    Ok(keys)
}

/// Writes the call tree goldens of one fixture, next to its summary's.
fn write_call_trees(oracle: &Path, file: &Path, summary_golden: &Path) -> anyhow::Result<()> {
    let stem = summary_golden
        .to_string_lossy()
        .trim_end_matches(".summary.txt")
        .to_owned();
    let mut profile_key = None;
    for key in candidate_keys(file)? {
        let Some(tree) = oracle_call_tree(oracle, file, &key)? else {
            continue;
        };
        if profile_key.is_none() {
            profile_key = tree
                .lines()
                .find_map(|l| l.split(';').nth(1).filter(|k| k.starts_with("p-")).map(str::to_owned));
        }
        std::fs::write(format!("{stem}.calltree.{key}.txt"), tree)?;
        println!("{stem}.calltree.{key}.txt written");
    }
    if let Some(key) = profile_key {
        if let Some(tree) = oracle_call_tree(oracle, file, &key)? {
            std::fs::write(format!("{stem}.calltree.{key}.txt"), tree)?;
            println!("{stem}.calltree.{key}.txt written");
        }
    }
    Ok(())
}

/// Writes the insight goldens of one fixture (`FIXTURE.insight.SET.NAME.txt`),
/// one per set its summary names and insight DevTools has (none where the
/// oracle fails).
fn write_insights(oracle: &Path, file: &Path, summary_golden: &Path, summary: &str) -> anyhow::Result<()> {
    let stem = summary_golden
        .to_string_lossy()
        .trim_end_matches(".summary.txt")
        .to_owned();
    let file = std::fs::canonicalize(file)?;
    for set in summary.lines().filter_map(|l| l.strip_prefix("## insight set id: ")) {
        for name in tracekit::agent::insight::KEYS {
            let out = Command::new(oracle.join("node_modules/.bin/node"))
                .arg(oracle.join("mcp-summary.mjs"))
                .arg(&file)
                .args(["--insight", set, name])
                .output()
                .context("running the oracle's mcp-summary.mjs")?;
            if out.status.success() {
                std::fs::write(format!("{stem}.insight.{set}.{name}.txt"), &out.stdout)?;
                println!("{stem}.insight.{set}.{name}.txt written");
            }
        }
    }
    Ok(())
}

/// Writes the summary goldens of the fixtures whose path contains `only`.
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    if engine != Engine::Current {
        bail!("only today's engine (chrome-devtools-mcp 1.11.0) has the agent's texts");
    }
    let oracle = oracle_dir()?;
    if !oracle.join("mcp-summary.mjs").exists() {
        bail!("no mcp-summary.mjs in {}", oracle.display());
    }
    for (file, golden) in agent_fixtures(engine.devtools())? {
        if !file.to_string_lossy().contains(only) {
            continue;
        }
        std::fs::create_dir_all(golden.parent().context("a directory")?)?;
        match oracle_summary(&oracle, &file)? {
            Ok(text) => {
                std::fs::write(&golden, &text)?;
                println!("{:<60} written", golden.display());
                write_insights(&oracle, &file, &golden, &text)?;
                write_call_trees(&oracle, &file, &golden)?;
            }
            Err(message) => {
                let _ = std::fs::remove_file(&golden);
                println!("{:<60} no golden: {message}", file.display());
            }
        }
    }
    Ok(())
}
