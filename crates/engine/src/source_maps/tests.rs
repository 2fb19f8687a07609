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

/// An enhanced trace: a `CpuProfile` event whose frames are in bundle.js,
/// and the map DevTools saved for it in `metadata.sourceMaps`.
const ENHANCED: &str = r#"{"metadata":{"source":"DevTools","sourceMaps":[{"url":"https://a.test/bundle.js","sourceMapUrl":"bundle.js.map",
 "sourceMap":{"version":3,"file":"bundle.js","sources":["app.js"],"names":["render"],"mappings":"AAAA,SAASA,cAAAA"}}]},
"traceEvents":[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[{"frame":"F1","url":"https://a.test/","name":"","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"args":{}},
{"name":"CpuProfile","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
 {"id":2,"callFrame":{"functionName":"(program)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}},
 {"id":3,"callFrame":{"functionName":"a","scriptId":1,"url":"https://a.test/bundle.js","lineNumber":0,"columnNumber":10}}],
 "startTime":0,"endTime":100,"samples":[3,3,2,3],"timeDeltas":[10,20,20,20]}}}}]}"#;

#[test]
fn an_enhanced_traces_own_maps() {
    for all_handlers in [false, true] {
        let options = AnalyzeOptions::default().with_all_handlers(all_handlers);
        let mut analysis = analyze_bytes(ENHANCED.as_bytes(), &options).unwrap();
        let maps = analysis.embedded_source_maps();
        assert_eq!(maps.len(), 1);
        let report = analysis.apply_source_maps(&maps);
        assert_eq!(report.frames_renamed, 1, "{report:?}");
        let renamed = (
            "render".to_owned(),
            "https://a.test/app.js".to_owned(),
            Some(0.0),
            Some(9.0),
        );
        assert_eq!(frames(&analysis), [renamed]);
    }
    let plain = analyze_bytes(PROFILE.as_bytes(), &AnalyzeOptions::default()).unwrap();
    assert!(plain.embedded_source_maps().is_empty());
}

#[test]
fn a_profile_asks_for_the_map_of_each_script_url_once() {
    let analysis = analyze_bytes(PROFILE.as_bytes(), &AnalyzeOptions::default()).unwrap();
    let requests = analysis.source_map_requests();
    let urls: Vec<_> = requests
        .iter()
        .map(|r| (r.script_id.as_str(), r.script_url.as_str(), r.source_map_url.as_deref()))
        .collect();
    assert_eq!(
        urls,
        [
            ("7", "https://x.test/bundle.js", None),
            ("8", "https://x.test/other.js", None)
        ]
    );
}
