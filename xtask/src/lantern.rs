//! The Lantern goldens: `xtask/js/lantern.mjs` (DevTools' own Lantern: its
//! requests and network analysis per navigation) run on each fixture that
//! has a data golden, written under `fixtures/expected/NAME/lantern/`.

use anyhow::Context;
use tracekit_conformance::data::{data_dir, data_fixtures};
use tracekit_conformance::lantern::lantern_dir;

use crate::node::Engine;

/// Writes the Lantern goldens of `engine` for the fixtures whose path
/// contains `only`.
pub fn write_goldens(engine: Engine, only: &str) -> anyhow::Result<()> {
    for (file, data_golden) in data_fixtures(engine.devtools())? {
        if !file.to_string_lossy().contains(only) {
            continue;
        }
        let golden = lantern_dir(engine.devtools()).join(data_golden.strip_prefix(data_dir(engine.devtools()))?);
        std::fs::create_dir_all(golden.parent().context("a directory")?)?;
        let output = engine
            .script("lantern", 8192)
            .arg(&file)
            .output()
            .context("running node")?;
        if output.status.success() {
            std::fs::write(&golden, &output.stdout)?;
            println!("{:<60} written", golden.display());
        } else {
            let _ = std::fs::remove_file(&golden);
            let err = String::from_utf8_lossy(&output.stderr);
            println!("{:<60} no golden: {}", file.display(), err.lines().last().unwrap_or(""));
        }
    }
    Ok(())
}

/// Every trace under `dir` against DevTools' Lantern run live (its output
/// kept under `target/oracle-lantern/ENGINE/` for the next run): one line
/// per trace, then the totals.
pub fn corpus(engine: Engine, dir: &std::path::Path) -> anyhow::Result<()> {
    use tracekit_conformance::lantern::{first_difference, run_ours_lantern};
    let mut files = Vec::new();
    crate::conformance::walk(dir, &mut files)?;
    let cache = std::path::PathBuf::from("target/oracle-lantern").join(engine.arg());
    std::fs::create_dir_all(&cache)?;
    let (mut identical, mut compared, mut refused) = (0, 0, 0);
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let golden = cache.join(format!("{}.json", name.replace('/', "__")));
        if !golden.exists() {
            let output = engine
                .script("lantern", 8192)
                .arg(&file)
                .output()
                .context("running node")?;
            if !output.status.success() {
                refused += 1;
                let err = String::from_utf8_lossy(&output.stderr);
                println!("{name:<60} DevTools: {}", err.lines().last().unwrap_or(""));
                continue;
            }
            std::fs::write(&golden, &output.stdout)?;
        }
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&golden)?)?;
        compared += 1;
        match run_ours_lantern(&file, engine.devtools()) {
            Ok(ours) => match first_difference(&expected, &ours) {
                None => identical += 1,
                Some(d) => println!("{name:<60} {d}"),
            },
            Err(e) => println!("{name:<60} TRACEKIT FAILS: {e}"),
        }
    }
    println!("\nLantern's requests and network analysis: {identical}/{compared} traces identical; DevTools throws on {refused} more");
    Ok(())
}
