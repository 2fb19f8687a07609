//! The views computed on rayon's pool ([`Parallelism::Rayon`]) are the
//! same, byte for byte, as on the caller's thread, in every format.

use std::path::Path;

use tracekit::Parallelism;
use tracekit_views::{GroupBy, View, ViewOptions};

#[test]
fn every_format_is_the_same_whatever_the_parallelism() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    for name in ["kitchen-sink.json.gz", "worker.json.gz"] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let options = tracekit::AnalyzeOptions::default().with_group_args(true);
        let analysis = tracekit::analyze_bytes(&bytes, &options).unwrap();
        assert!(analysis.threads().count() > 3, "{name}: a trace of several threads");
        for group_by in [GroupBy::None, GroupBy::Domain] {
            let sequential = ViewOptions::new().group_by(group_by);
            let parallel = sequential.clone().parallelism(Parallelism::Rayon);
            assert_eq!(
                tracekit_views::calltree_conformance(&analysis, &sequential).unwrap(),
                tracekit_views::calltree_conformance(&analysis, &parallel).unwrap(),
                "{name} {group_by:?}"
            );
            assert_eq!(
                tracekit_views::calltree_json(&analysis, &sequential).unwrap(),
                tracekit_views::calltree_json(&analysis, &parallel).unwrap(),
                "{name} {group_by:?}"
            );
            for view in [View::TopDown, View::BottomUp] {
                assert_eq!(
                    tracekit_views::write_text(&analysis, view, &sequential).unwrap(),
                    tracekit_views::write_text(&analysis, view, &parallel).unwrap(),
                    "{name} {group_by:?} {view:?}"
                );
            }
        }
    }
}
