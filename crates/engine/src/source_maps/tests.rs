use super::*;
use crate::{analyze_bytes, AnalyzeOptions};

/// `function a(){}function b(){}` in bundle.js, both made from one
/// `render` of app.js (as a bundler that duplicates a function does), and
/// `c` in other.js, which no map covers.
const PROFILE: &str = r#"{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3,4]},
 {"id":2,"callFrame":{"functionName":"a","scriptId":"7","url":"https://x.test/bundle.js","lineNumber":0,"columnNumber":10}},
 {"id":3,"callFrame":{"functionName":"b","scriptId":"7","url":"https://x.test/bundle.js","lineNumber":0,"columnNumber":24}},
 {"id":4,"callFrame":{"functionName":"c","scriptId":"8","url":"https://x.test/other.js","lineNumber":0,"columnNumber":3}}],
 "startTime":0,"endTime":4000,"samples":[2,3,4,2],"timeDeltas":[0,1000,1000,1000]}"#;
const MAP: &[u8] =
    br#"{"version":3,"file":"bundle.js","sources":["app.js"],"names":["render"],"mappings":"AAAA,SAASA,cAAAA"}"#;

fn frames(analysis: &Analysis) -> Vec<(String, String, Option<f64>, Option<f64>)> {
    let strings = analysis.strings();
    let mut out: Vec<_> = analysis
        .process_tracks()
        .values()
        .flat_map(|p| p.threads.values())
        .flat_map(|t| &t.js_frames)
        .map(|f| {
            let c = &f.call_frame;
            (
                strings.resolve(c.function_name).to_owned(),
                strings.resolve(c.url).to_owned(),
                c.line_number,
                c.column_number,
            )
        })
        .filter(|f| !f.0.starts_with('('))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    out
}

#[test]
fn frames_take_their_original_names_and_locations() {
    let mut analysis = analyze_bytes(PROFILE.as_bytes(), &AnalyzeOptions::default()).unwrap();
    let mut maps = SourceMaps::new();
    maps.add("maps/bundle.js.map", MAP);
    let report = analysis.apply_source_maps(&maps);
    let app = (
        "render".to_owned(),
        "https://x.test/app.js".to_owned(),
        Some(0.0),
        Some(9.0),
    );
    let other = (
        "c".to_owned(),
        "https://x.test/other.js".to_owned(),
        Some(0.0),
        Some(3.0),
    );
    assert_eq!(frames(&analysis), [other, app.clone(), app]);
    assert_eq!((report.frames_resolved, report.frames_renamed), (2, 2));
    assert_eq!(report.maps_used, ["maps/bundle.js.map"]);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn a_broken_map_leaves_the_frames_and_is_reported_once() {
    let mut analysis = analyze_bytes(PROFILE.as_bytes(), &AnalyzeOptions::default()).unwrap();
    let before = frames(&analysis);
    let mut maps = SourceMaps::new();
    maps.add(
        "bundle.js.map",
        br#"{"version":3,"sources":["app.js"],"names":[],"mappings":"!!"}"#,
    );
    let report = analysis.apply_source_maps(&maps);
    assert_eq!(frames(&analysis), before);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(report.problems[0].starts_with("bundle.js.map: not a source map"));
}

#[test]
fn positions_are_whole_non_negative_numbers() {
    assert_eq!(position(Some(3.0)), Some(3));
    assert_eq!(position(Some(-1.0)), None);
    assert_eq!(position(Some(1.5)), None);
    assert_eq!(position(None), None);
}
