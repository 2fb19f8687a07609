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
