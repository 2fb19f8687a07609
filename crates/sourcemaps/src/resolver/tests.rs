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

/// A map of 24 MB (2,000 lines of 2,000 named mappings) and 100,000
/// distinct frames: the figures of `docs/sourcemaps.md`. Timed, so
/// ignored by default: `cargo test --release -p tracekit-sourcemaps -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, for --release"]
fn a_ten_megabyte_map_and_a_hundred_thousand_frames() {
    let lines = 2_000;
    let per_line = 2_000;
    let names: Vec<String> = (0..per_line).map(|i| format!("\"function{i}\"")).collect();
    let mut mappings = String::new();
    for line in 0..lines {
        if line > 0 {
            mappings.push(';');
        }
        for i in 0..per_line {
            if i > 0 {
                mappings.push(',');
            }
            // Generated column +5, same source, original line +1 at the
            // first segment of a line, column 0, the next name (or back
            // to the first one at a line's start).
            let first = i == 0;
            mappings.push_str(match (first, line) {
                (true, 0) => "AAAAA",
                (true, _) => "AACA/8D",
                _ => "KAAAC",
            });
        }
    }
    let map = format!(
        r#"{{"version":3,"file":"big.js","sources":["big.src.js"],"names":[{}],"mappings":"{mappings}"}}"#,
        names.join(",")
    );
    let mut maps = SourceMaps::new();
    let start = std::time::Instant::now();
    maps.add("big.js.map", map.as_bytes());
    let parsed = start.elapsed();
    assert!(maps.get(0).is_ok());
    let mut resolver = Resolver::new(&maps);
    let start = std::time::Instant::now();
    let mut renamed = 0;
    for n in 0..100_000u32 {
        let frame = frame("https://x.test/big.js", n % lines, (n / lines) * 5 * 40 + 1);
        renamed += usize::from(resolver.resolve(&frame).and_then(|o| o.name).is_some());
    }
    let resolved = start.elapsed();
    eprintln!(
        "map of {:.1} MB parsed in {parsed:?}; 100,000 frames resolved in {resolved:?}",
        map.len() as f64 / 1e6
    );
    assert_eq!(renamed, 100_000);
}

#[test]
fn a_script_given_with_its_map_checks_the_names() {
    let mut maps = SourceMaps::new();
    maps.add("bundle.js.map", GOOD);
    let mut resolver = Resolver::new(&maps);
    // Column 9 is the name `a`, not a `(`: with the text, no name.
    assert_eq!(
        resolver
            .resolve(&frame("https://x.test/bundle.js", 0, 9))
            .unwrap()
            .name
            .as_deref(),
        Some("render")
    );
    maps.set_script("function a(){}".to_owned());
    let mut resolver = Resolver::new(&maps);
    assert_eq!(
        resolver.resolve(&frame("https://x.test/bundle.js", 0, 9)).unwrap().name,
        None
    );
    assert_eq!(
        resolver
            .resolve(&frame("https://x.test/bundle.js", 0, 10))
            .unwrap()
            .name
            .as_deref(),
        Some("render")
    );
}
