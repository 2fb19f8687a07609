use super::*;

/// `function a(b){return b}` from `function render(props) { return props }`
/// in `src/app.js`: the function's name is mapped at `a`.
const MAP: &str = r#"{"version":3,"file":"bundle.js","sources":["src/app.js"],"sourcesContent":["function render(props) { return props }"],"names":["render","props"],"mappings":"AAAA,SAASA,EAAOC"}"#;
const SCRIPT: &str = "function a(b){return b}";

#[test]
fn the_name_at_the_functions_start_is_the_mappings() {
    let map = SourceMap::parse(MAP.as_bytes()).unwrap();
    let original = map
        .resolve(0, 10, Some(SCRIPT), Some("https://x.test/js/bundle.js.map"))
        .unwrap()
        .unwrap();
    assert_eq!(original.name.as_deref(), Some("render"));
    assert_eq!(original.url, "https://x.test/js/src/app.js");
    assert_eq!((original.line, original.column), (0, 9));
    assert_eq!(map.file(), Some("bundle.js"));
    assert_eq!(
        map.sources().next(),
        Some(("src/app.js", Some("function render(props) { return props }")))
    );
}

#[test]
fn no_name_unless_the_script_opens_a_parameter_list_there() {
    let map = SourceMap::parse(MAP.as_bytes()).unwrap();
    // Column 11 is `b`, an arrow function's bare parameter would be there.
    let original = map.resolve(0, 11, Some(SCRIPT), None).unwrap().unwrap();
    assert_eq!(original.name, None);
    assert_eq!(original.url, "src/app.js");
    // Without the text, the mapping's name is taken.
    assert_eq!(
        map.resolve(0, 11, None, None).unwrap().unwrap().name.as_deref(),
        Some("props")
    );
}

#[test]
fn a_position_before_every_mapping_or_past_the_end() {
    let map = SourceMap::parse(br#"{"version":3,"sources":["a.js"],"names":[],"mappings":";AAAA"}"#).unwrap();
    assert_eq!(map.resolve(0, 5, None, None), Ok(None));
    assert!(matches!(
        map.resolve(7, 0, None, None),
        Err(MapError::PastEnd { line: 7, last_line: 1 })
    ));
}

#[test]
fn bad_maps_are_errors() {
    assert!(matches!(SourceMap::parse(b"not json"), Err(MapError::Parse(_))));
    assert!(matches!(
        SourceMap::parse(br#"{"version":2,"sources":[],"names":[],"mappings":""}"#),
        Err(MapError::Version(v)) if v == "2"
    ));
    assert!(matches!(
        SourceMap::parse(br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"A!!!"}"#),
        Err(MapError::Parse(_))
    ));
}

#[test]
fn indexed_maps_are_flattened() {
    let index = r#"{"version":3,"file":"all.js","sections":[
        {"offset":{"line":0,"column":0},"map":{"version":3,"sources":["one.js"],"names":["first"],"mappings":"AAAAA"}},
        {"offset":{"line":1,"column":0},"map":{"version":3,"sources":["two.js"],"names":["second"],"mappings":"AAAAA"}}]}"#;
    let map = SourceMap::parse(index.as_bytes()).unwrap();
    let original = map.resolve(1, 3, None, None).unwrap().unwrap();
    assert_eq!(
        (original.name.as_deref(), original.url.as_str()),
        (Some("second"), "two.js")
    );
    assert_eq!(map.file(), Some("all.js"));
}

#[test]
fn columns_count_utf16_units() {
    assert_eq!(char_at("é😀(x", 0, 3), Some('('));
    assert_eq!(char_at("a\nbc(", 1, 2), Some('('));
    assert_eq!(char_at("a", 3, 0), None);
}
