//! DevTools' own resolution as the oracle: every JavaScript frame of the
//! fixture's two profiles (fixtures/sourcemaps/) resolved by tracekit is
//! what DevTools' `SourceMap` and its rule for a function's name give
//! (`devtools-expected.json`, written by `devtools-oracle.ts`: its README
//! says how).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tracekit_sourcemaps::{Frame, Resolver, SourceMaps};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sourcemaps")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

#[test]
fn every_frame_resolves_as_devtools_resolves_it() {
    let expected: BTreeMap<String, Value> = serde_json::from_str(&read("devtools-expected.json")).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for name in ["bundle", "bundle-nocontent", "rollup", "rollup-nocontent"] {
        let mut maps = SourceMaps::new();
        maps.add(&format!("{name}.js.map"), read(&format!("{name}.js.map")).as_bytes());
        let script = read(&format!("{name}.js"));
        let profile: Value = serde_json::from_str(&read(&format!("{name}.cpuprofile"))).unwrap();
        let mut resolver = Resolver::new(&maps);
        for node in profile["nodes"].as_array().unwrap() {
            let call = &node["callFrame"];
            let url = call["url"].as_str().unwrap();
            if !url.ends_with(&format!("/{name}.js")) {
                continue;
            }
            let (line, column) = (
                call["lineNumber"].as_u64().unwrap(),
                call["columnNumber"].as_u64().unwrap(),
            );
            let frame = Frame {
                url,
                line: u32::try_from(line).unwrap(),
                column: u32::try_from(column).unwrap(),
                source_map_url: None,
                declared_source_map_url: None,
                script: Some(&script),
            };
            let ours = resolver
                .resolve(&frame)
                .map(|o| serde_json::json!([o.name, o.url, o.line, o.column]));
            let key = format!("{name}.js:{line}:{column}");
            let theirs = expected
                .get(&key)
                .unwrap_or_else(|| panic!("{key} is not in the oracle's answers"));
            assert_eq!(ours.as_ref().unwrap_or(&Value::Null), theirs, "{key}");
            seen.insert(key);
        }
    }
    // Every frame the oracle answered was compared.
    assert_eq!(seen.len(), expected.len());
}
