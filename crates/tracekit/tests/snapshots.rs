//! Snapshots of the readable tracks of every hand-written fixture (one per
//! heuristic of the engine; see `fixtures/handwritten/README.md`), kept in
//! `fixtures/snapshots/`.

use std::path::{Path, PathBuf};

use tracekit::output::{text, Filter};
use tracekit::AnalyzeOptions;

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

fn tracks(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap();
    let options = AnalyzeOptions {
        all_processes: true,
        ..AnalyzeOptions::default()
    };
    let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
    let mut out = text(&analysis, &Filter::default());
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
