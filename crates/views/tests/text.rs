//! Snapshots of the text views (`tracekit calltree`'s default output) on
//! small hand-written traces: recursion, direct and indirect, in both
//! views; a window that cuts events; instants; native V8 frames and the
//! sample counts of a profile. The numbers are the DevTools oracle's (the
//! golden test checks them); these pin the layout and order people read.
//! Snapshots: `fixtures/snapshots/views/`; review changes with
//! `cargo insta review`.

use std::path::Path;

use tracekit_views::{write_text, View};

/// The query of a window (ms from the trace start) and a number of levels.
fn q(window: Option<(f64, f64)>, levels: Option<u32>) -> tracekit::query::Query {
    let query = tracekit::query::Query::from_parts(None, None, levels, None).unwrap();
    match window {
        Some((a, b)) => {
            query.with_window(tracekit::query::Window::new(tracekit::Millis(a), tracekit::Millis(b)).unwrap())
        }
        None => query,
    }
}

fn text(name: &str, view: View, window: Option<(f64, f64)>) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/handwritten/views")
        .join(name);
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &Default::default()).unwrap();
    write_text(
        &analysis,
        view,
        &tracekit_views::ViewOptions::new().query(q(window, None)),
    )
    .unwrap()
}

fn snapshot(name: &str, view: View, window: Option<(f64, f64)>) {
    let which = match view {
        View::TopDown => "call-tree",
        View::BottomUp => "bottom-up",
    };
    let suffix = window.map(|(a, b)| format!(".window-{a}..{b}")).unwrap_or_default();
    insta::with_settings!({
        snapshot_path => "../../../fixtures/snapshots/views",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(format!("{name}.{which}{suffix}"), text(name, view, window));
    });
}

#[test]
fn recursion_in_both_views() {
    for name in ["recursion-direct.json", "recursion-indirect.json"] {
        snapshot(name, View::TopDown, None);
        snapshot(name, View::BottomUp, None);
    }
}

#[test]
fn a_window_that_cuts_events() {
    snapshot("window.json", View::TopDown, Some((1.15, 1.85)));
    snapshot("window.json", View::BottomUp, Some((1.15, 1.85)));
}

#[test]
fn instants() {
    snapshot("instants.json", View::TopDown, None);
    snapshot("instants.json", View::BottomUp, None);
}

#[test]
fn native_frames_and_sample_counts_of_a_profile() {
    snapshot("js.cpuprofile", View::TopDown, None);
    snapshot("js.cpuprofile", View::BottomUp, None);
}
