use crate::{MatchedBy, SourceMaps};

const METADATA: &str = r#"{"source":"DevTools","sourceMaps":[
  {"url":"https://a.test/inline.js","sourceMap":{"version":3,"sources":["x.js"],"names":[],"mappings":"AAAA"}},
  {"url":"https://a.test/main.js","sourceMapUrl":"main.js.map","sourceMap":{"version":3,"sources":["y.js"],"names":[],"mappings":"AAAA"}},
  {"url":"https://a.test/bad.js","sourceMapUrl":"bad.js.map","sourceMap":"not a map"}]}"#;

#[test]
fn maps_of_an_enhanced_trace_match_by_declared_url_then_script_url() {
    let mut maps = SourceMaps::new();
    assert_eq!(maps.add_trace_metadata(METADATA), 3);
    assert_eq!(maps.name(1), "main.js.map");
    // By the declared (unresolved) source map URL, whatever the script's URL.
    let found = maps.find_declared(
        "https://b.test/other.js",
        Some("https://a.test/main.js.map"),
        Some("main.js.map"),
    );
    assert_eq!(found, Some((1, MatchedBy::Embedded)));
    // An inline map, by the script's URL.
    assert_eq!(
        maps.find("https://a.test/inline.js", None),
        Some((0, MatchedBy::Embedded))
    );
    assert!(maps.get(2).is_err());
    assert_eq!(maps.find("https://a.test/none.js", None), None);
}

#[test]
fn metadata_without_maps_or_broken() {
    let mut maps = SourceMaps::new();
    assert_eq!(maps.add_trace_metadata(r#"{"source":"DevTools"}"#), 0);
    assert_eq!(maps.add_trace_metadata(r#"{"sourceMaps":[{"url":1}]}"#), 1);
    assert_eq!(maps.name(0), "metadata.sourceMaps");
    assert!(maps.get(0).is_err());
}
