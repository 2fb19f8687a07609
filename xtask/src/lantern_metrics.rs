//! Lantern's metrics on DevTools' own graph against DevTools', over a
//! corpus: the outputs of `xtask/js/lantern.mjs` that `conformance
//! --lantern --corpus` keeps under `target/oracle-lantern/ENGINE/`, where
//! they have the graph (`--graph`).

use crate::node::Engine;

/// Every trace under `dir` whose kept output has DevTools' graph: one line
/// per navigation that differs, then the totals.
pub fn corpus(engine: Engine, dir: &std::path::Path) -> anyhow::Result<()> {
    use tracekit_conformance::lantern_metrics::{compare_metrics, GraphSource};
    let mut files = Vec::new();
    crate::conformance::walk(dir, &mut files)?;
    let cache = std::path::PathBuf::from("target/oracle-lantern").join(engine.arg());
    let (mut identical, mut compared) = (0, 0);
    for file in files {
        let name = file.strip_prefix(dir).unwrap_or(&file).display().to_string();
        let golden = cache.join(format!("{}.json", name.replace('/', "__")));
        let Ok(text) = std::fs::read_to_string(&golden) else {
            continue;
        };
        let expected: serde_json::Value = serde_json::from_str(&text)?;
        match compare_metrics(&file, &expected, engine.devtools(), GraphSource::Ours) {
            Ok(c) => {
                identical += c.identical;
                compared += c.compared;
                c.differences.iter().for_each(|d| println!("{name:<60} metrics: {d}"));
            }
            Err(e) => println!("{name:<60} metrics: TRACEKIT FAILS: {e}"),
        }
    }
    println!("Lantern's metrics on DevTools' graph: {identical}/{compared} navigations identical");
    Ok(())
}
