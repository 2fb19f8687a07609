//! Snapshots of the readable tracks of every hand-written fixture (one per
//! heuristic of the engine; see `fixtures/handwritten/README.md`), kept in
//! `fixtures/snapshots/`.

use std::path::{Path, PathBuf};

use tracekit::output::text;
use tracekit::query::{Query, Window};
use tracekit::AnalyzeOptions;
use tracekit::Millis;

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension() != Some("md".as_ref()))
        .collect();
    files.sort();
    files
}

fn tracks(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    let options = AnalyzeOptions::default().with_all_processes(true);
    let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
    let mut out = text(&analysis, &Query::new());
    out.push_str("--- diagnostics\n");
    out.push_str(&tracekit::output::stats(&analysis));
    out
}

#[test]
fn handwritten_fixtures() {
    for dir in ["handwritten", "hostile"] {
        for file in fixtures(dir) {
            let name = format!("{dir}__{}", file.file_name().unwrap().to_string_lossy());
            insta::with_settings!({
                snapshot_path => "../../../fixtures/snapshots",
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name, tracks(&file));
            });
        }
    }
}

fn analysis_of(name: &str) -> tracekit::Analysis {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/handwritten")
        .join(name);
    tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &AnalyzeOptions::default()).unwrap()
}

#[test]
fn filters_keep_what_they_say() {
    let analysis = analysis_of("truncate.json");
    let shallow = Query::new().with_levels(3).unwrap();
    let out = text(&analysis, &shallow);
    assert!(out.contains("js main") && !out.contains("js work"), "{out}");
    let long = Query::new().with_min_duration(Millis(0.08)).unwrap();
    let out = text(&analysis, &long);
    // inner lasts 0.060 and 0.035 ms; the work calls 0.085 and 0.075.
    assert!(out.contains("js work") && !out.contains("js inner"), "{out}");
    let window = Query::new().with_window(Window::new(Millis(0.1), Millis(0.2)).unwrap());
    let out = text(&analysis, &window);
    assert_eq!(out.matches("RunTask").count(), 1, "{out}");
    let thread = Query::new().with_thread("nope").unwrap();
    assert!(!text(&analysis, &thread).contains("RunTask"));
    let by_name = Query::new().with_thread("CrRendererMain").unwrap();
    assert!(text(&analysis, &by_name).contains("RunTask"));
}

#[test]
fn json_format() {
    let analysis = analysis_of("gc.json");
    let json = tracekit::output::json(&analysis, &Query::new());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    insta::with_settings!({
        snapshot_path => "../../../fixtures/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("json__gc", serde_json::to_string_pretty(&value).unwrap());
    });
}

#[test]
fn large_tracks_print_the_same_on_all_cores() {
    let mut trace = String::from("[");
    for i in 0..100_000u64 {
        let (ts, depth_name) = (i * 10, if i % 3 == 0 { "Outer" } else { "Inner" });
        let dur = if i % 3 == 0 { 25 } else { 4 };
        trace.push_str(&format!(
            r#"{{"name":"{depth_name}","ph":"X","ts":{ts},"dur":{dur},"pid":1,"tid":1}},"#
        ));
    }
    trace.push_str(r#"{"name":"End","ph":"I","ts":1,"pid":1,"tid":1}]"#);
    let analysis = tracekit::analyze_bytes(trace.as_bytes(), &AnalyzeOptions::default()).unwrap();
    let run = |parallelism| {
        let filter = Query::new();
        let mut conformance = Vec::new();
        tracekit::output::write_conformance(&analysis, &filter, parallelism, &mut conformance).unwrap();
        let mut json = Vec::new();
        tracekit::output::write_json(&analysis, &filter, parallelism, &mut json).unwrap();
        (conformance, json)
    };
    let sequential = run(tracekit::Parallelism::Sequential);
    let parallel = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap()
        .install(|| run(tracekit::Parallelism::Rayon));
    assert!(sequential.0.len() > 1 << 20);
    assert!(sequential == parallel);
}
