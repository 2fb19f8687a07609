use super::*;

const GOOD: &[u8] =
    br#"{"version":3,"file":"bundle.js","sources":["app.js"],"names":["render"],"mappings":"AAAA,SAASA"}"#;

fn frame(url: &str, line: u32, column: u32) -> Frame<'_> {
    Frame {
        url,
        line,
        column,
        source_map_url: None,
        declared_source_map_url: None,
        script: None,
    }
}

#[test]
fn problems_are_reported_once_per_map() {
    let mut maps = SourceMaps::new();
    maps.add("bundle.js.map", GOOD);
    maps.add("broken.js.map", b"{\"version\":3,");
    maps.add(
        "unused.js.map",
        br#"{"version":3,"sources":[],"names":[],"mappings":""}"#,
    );
    let mut resolver = Resolver::new(&maps);
    for _ in 0..3 {
        assert_eq!(
            resolver
                .resolve(&frame("https://x.test/bundle.js", 0, 10))
                .unwrap()
                .name
                .as_deref(),
            Some("render")
        );
        assert_eq!(resolver.resolve(&frame("https://x.test/bundle.js", 9, 0)), None);
        assert_eq!(resolver.resolve(&frame("https://x.test/broken.js", 0, 0)), None);
    }
    let with_map_url = Frame {
        source_map_url: Some("https://x.test/lost.js.map"),
        ..frame("https://x.test/lost.js", 0, 0)
    };
    assert_eq!(resolver.resolve(&with_map_url), None);
    assert_eq!(resolver.resolve(&with_map_url), None);
    let report = resolver.finish();
    assert_eq!((report.frames_resolved, report.frames_renamed), (3, 3));
    assert_eq!(report.maps_used, ["bundle.js.map"]);
    assert_eq!(report.problems.len(), 4, "{:?}", report.problems);
    assert!(report.problems[0].starts_with("bundle.js.map: a frame at line 10 is past"));
    assert!(report.problems[1].starts_with("broken.js.map: not a source map"));
    assert!(report.problems[2].contains("lost.js.map was not given"));
    assert_eq!(report.problems[3], "unused.js.map: matched no script of the profile");
}
