//! The goldens of the texts chrome-devtools-mcp gives an agent: the
//! oracle's `mcp-summary.mjs TRACE --bare` of each fixture, written to
//! `fixtures/expected/NAME/agent/FIXTURE.summary.txt` (no golden where the
//! oracle makes no summary). Only today's engine has an MCP server.

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
                std::fs::write(&golden, text)?;
                println!("{:<60} written", golden.display());
            }
            Err(message) => {
                let _ = std::fs::remove_file(&golden);
                println!("{:<60} no golden: {message}", file.display());
            }
        }
    }
    Ok(())
}
