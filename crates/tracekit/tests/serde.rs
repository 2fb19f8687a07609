//! The `serde` feature: an analysis serializes as the document of
//! `tracekit tracks --format json`, byte for byte with serde_json, on
//! every fixture; the handles serialize as its parts.

use std::path::{Path, PathBuf};

use tracekit::output::json;
use tracekit::query::Query;
use tracekit::AnalyzeOptions;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in ["traces", "handwritten", "repaired", "hostile"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() && path.extension() != Some("md".as_ref()) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn an_analysis_serializes_as_the_json_format() {
    let options = AnalyzeOptions::default().with_all_processes(true);
    let mut checked = 0;
    for file in fixtures() {
        let Ok(analysis) = tracekit::analyze_bytes(&std::fs::read(&file).unwrap(), &options) else {
            continue;
        };
        let ours = serde_json::to_string(&analysis).unwrap();
        let document = json(&analysis, &Query::new());
        assert!(
            ours + "\n" == document,
            "{}: serde_json differs from output::json",
            file.display()
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked} fixtures");
}

#[test]
fn the_handles_serialize_as_the_parts_of_the_document() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/main-thread.json.gz");
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &AnalyzeOptions::default()).unwrap();
    let document: serde_json::Value = serde_json::to_value(&analysis).unwrap();
    let thread = analysis.find_threads("CrRendererMain").unwrap()[0];
    let process = thread.process();
    let p = analysis.processes().position(|p| p.pid() == process.pid()).unwrap();
    let t = process.threads().position(|t| t.tid() == thread.tid()).unwrap();
    assert_eq!(serde_json::to_value(process).unwrap(), document["processes"][p]);
    let thread_value = serde_json::to_value(thread).unwrap();
    assert_eq!(thread_value, document["processes"][p]["threads"][t]);
    assert_eq!(thread_value["tid"], serde_json::json!(thread.tid().as_u64().unwrap()));
    let call = thread.nodes().find(|n| n.is_js_call()).unwrap();
    let node = serde_json::to_value(call).unwrap();
    assert_eq!(node, thread_value["nodes"][call.index()]);
    let function = serde_json::to_value(call.function().unwrap()).unwrap();
    for key in [
        "functionName",
        "url",
        "scriptId",
        "lineNumber",
        "columnNumber",
        "nodeId",
    ] {
        assert_eq!(function[key], node[key], "{key}");
    }
    assert_eq!(
        serde_json::to_value(analysis.diagnostics()).unwrap(),
        document["diagnostics"]
    );
}
