//! The Lantern savings of the ModernHTTP and RenderBlocking insights
//! against DevTools', over a corpus: `xtask/js/lantern-insight-savings.mjs`
//! run live on each trace (its output kept under
//! `target/oracle-lantern-savings/ENGINE/` for the next run), compared
//! navigation by navigation on each of its variants.

use anyhow::Context;

use crate::node::Engine;

/// Every trace under `dir`: one line per navigation that differs, then
/// the totals by insight and variant.
pub fn corpus(engine: Engine, dir: &std::path::Path) -> anyhow::Result<()> {
    use tracekit_conformance::lantern_savings::{compare_variants, VariantComparison};
    let mut files = Vec::new();
    crate::conformance::walk(dir, &mut files)?;
    let cache = std::path::PathBuf::from("target/oracle-lantern-savings").join(engine.arg());
    std::fs::create_dir_all(&cache)?;
    let mut totals = VariantComparison::new();
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let golden = cache.join(format!("{}.json", name.replace('/', "__")));
        if !golden.exists() {
            let output = engine
                .script("lantern-insight-savings", 8192)
                .arg(&file)
                .output()
                .context("running node")?;
            if !output.status.success() {
                let err = String::from_utf8_lossy(&output.stderr);
                println!("{name:<60} savings: DevTools: {}", err.lines().last().unwrap_or(""));
                continue;
            }
            std::fs::write(&golden, &output.stdout)?;
        }
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&golden)?)?;
        match compare_variants(&file, &expected, engine.devtools()) {
            Ok(one) => {
                for (key, c) in one {
                    c.differences.iter().for_each(|d| println!("{name:<60} {key}: {d}"));
                    let total = totals.entry(key).or_default();
                    total.identical += c.identical;
                    total.compared += c.compared;
                }
            }
            Err(e) => println!("{name:<60} savings: TRACEKIT FAILS: {e}"),
        }
    }
    for (key, c) in &totals {
        println!(
            "Lantern savings, {key}: {}/{} navigations identical",
            c.identical, c.compared
        );
    }
    Ok(())
}
