use super::*;

const MAP: &[u8] = br#"{"version":3,"file":"main.4f3a.js","sources":["a.js"],"names":[],"mappings":"AAAA"}"#;

#[test]
fn matched_by_source_map_url_then_file_then_file_name() {
    let mut maps = SourceMaps::new();
    maps.add("dist/maps/main.map", MAP);
    maps.add(
        "dist/vendor.js.map",
        br#"{"version":3,"sources":[],"names":[],"mappings":""}"#,
    );
    let by_url = maps.find(
        "https://x.test/main.4f3a.js",
        Some("https://cdn.test/maps/vendor.js.map?v=2"),
    );
    assert_eq!(by_url, Some((1, MatchedBy::SourceMapUrl)));
    assert_eq!(
        maps.find("https://x.test/main.4f3a.js", None),
        Some((0, MatchedBy::File))
    );
    assert_eq!(
        maps.find("https://x.test/vendor.js#x", None),
        Some((1, MatchedBy::FileName))
    );
    assert_eq!(maps.find("https://x.test/other.js", None), None);
    assert_eq!(maps.find("", None), None);
}

#[test]
fn last_segments() {
    assert_eq!(last_segment("https://x.test/a/b.js?x=1#f"), "b.js");
    assert_eq!(last_segment("C:\\maps\\b.js.map"), "b.js.map");
    assert_eq!(last_segment("b.js"), "b.js");
}

#[test]
fn a_map_that_parsed_wins_over_one_that_did_not() {
    let mut maps = SourceMaps::new();
    maps.add("broken/bundle.js.map", b"{");
    assert_eq!(
        maps.find("https://x.test/bundle.js", None),
        Some((0, MatchedBy::FileName))
    );
    maps.add("bundle.js.map", MAP);
    assert_eq!(
        maps.find("https://x.test/bundle.js", None),
        Some((1, MatchedBy::FileName))
    );
}

#[test]
fn appended_maps_come_after_and_lose_a_tie() {
    let mut first = SourceMaps::new();
    first.add("a/main.4f3a.js.map", MAP);
    let mut second = SourceMaps::new();
    second.add("b/main.4f3a.js.map", MAP);
    second.set_script("text".to_owned());
    first.append(second);
    assert_eq!(first.len(), 2);
    assert_eq!(first.name(1), "b/main.4f3a.js.map");
    assert_eq!(first.script(1), Some("text"));
    assert_eq!(
        first.find("https://x.test/main.4f3a.js", None),
        Some((0, MatchedBy::File))
    );
}
