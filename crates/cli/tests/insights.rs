//! `tracekit insights`: DevTools' insight sets of a trace, end to end.

#[path = "support/run.rs"]
mod run;

use run::tracekit;

#[test]
fn text_puts_the_failing_insights_of_the_page_load_first() {
    let out = tracekit(&["insights", "traces/page-load.json.gz"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // The navigation's set, its URL and window, then the failing insights
    // in DevTools' order: the layout shift culprits, then the INP
    // breakdown with the click and its three parts.
    let set = text
        .lines()
        .position(|l| l.starts_with("NAVIGATION_") && l.contains("page-load.html"))
        .unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = text.lines().skip(set).collect();
    // Lantern's simulation of the load (DevTools' own numbers: its
    // Lantern golden of the fixture).
    assert_eq!(
        lines[1],
        "  simulated by Lantern, as Lighthouse reports it: FCP 139.5 ms, LCP 575.2 ms, TTI 924.8 ms, TBT 361.5 ms"
    );
    assert!(lines[2].starts_with("  [fail] Layout shift culprits (CLS)"), "{text}");
    assert!(lines[3].contains("worst layout shift cluster at "), "{text}");
    let inp = lines
        .iter()
        .position(|l| l.starts_with("  [fail] INP breakdown (INP)"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        lines[inp + 1].contains("longest interaction: click at ") && lines[inp + 1].contains("input delay"),
        "{text}"
    );
}

#[test]
fn json_and_conformance_hold_the_sets_alone() {
    for format in ["json", "conformance"] {
        let out = tracekit(&["insights", "traces/page-load.json.gz", "--format", format]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["handlers"], serde_json::json!({}));
        let sets = doc["insights"].as_array().unwrap();
        let navigation = sets.iter().find(|s| s["navigation"].is_string()).unwrap();
        let inp = &navigation["model"]["INPBreakdown"];
        assert_eq!(inp["state"], "fail");
        let longest = inp["longestInteractionEvent"].as_str().unwrap();
        assert!(longest.starts_with("$EventTiming:"), "{longest}");
        assert!(doc["synthetic"][&longest[1..]].is_object());
    }
}

#[test]
fn a_profile_has_no_insights() {
    let out = tracekit(&["insights", "handwritten/node.cpuprofile"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no insights"), "{err}");
}

#[test]
fn a_trace_without_a_set_is_an_error_in_text_and_a_warning_in_json() {
    let out = tracekit(&["insights", "handwritten/nesting.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no insight set"));
    let out = tracekit(&["insights", "handwritten/nesting.json", "--format", "json"]);
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["insights"], serde_json::json!([]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning") && err.contains("no insight set"), "{err}");
    let quiet = tracekit(&["-q", "insights", "handwritten/nesting.json", "--format", "json"]);
    assert!(quiet.stderr.is_empty());
}

/// The three insights only the recordings made for them fail: Duplicated
/// JavaScript through the maps an enhanced trace carries (and not in the
/// agent's texts, made without them as chrome-devtools-mcp makes them),
/// Legacy JavaScript and the CSS selector costs.
#[test]
fn the_recordings_made_for_them_fail_the_last_three_insights() {
    let text = |args: &[&str]| {
        let out = tracekit(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let bundles = text(&["insights", "traces/bundles.json.gz"]);
    let at = bundles
        .lines()
        .position(|l| l == "  [fail] Duplicated JavaScript (LCP)")
        .unwrap_or_else(|| panic!("{bundles}"));
    let line = bundles.lines().nth(at + 1).unwrap();
    assert!(
        line.ends_with("/bundles/src/lib/format.js: 970 B duplicated, in http://a.test:45355/bundles/app-a.js (1726 B), http://a.test:45355/bundles/app-b.js (970 B)"),
        "{line}"
    );
    let summary = text(&["agent", "summary", "traces/bundles.json.gz"]);
    assert!(!summary.contains("DuplicatedJavaScript"), "{summary}");
    let legacy = text(&["insights", "traces/legacy-css.json.gz"]);
    assert!(legacy.contains("  [fail] Legacy JavaScript (All)\n"), "{legacy}");
    assert!(
        legacy.contains("/legacy.js: 45049 bytes (@babel/plugin-transform-classes,"),
        "{legacy}"
    );
    assert!(
        legacy.contains("  [informative] CSS selector costs (All)\n"),
        "{legacy}"
    );
}
