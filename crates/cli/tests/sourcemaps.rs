//! End to end: `--source-maps` on a real build (fixtures/sourcemaps/: a
//! program bundled and minified by esbuild, profiled by Node 22): the
//! Bottom-Up's top functions, the tracks, the flame graph's stacks and the
//! speedscope export name the functions as the source does
//! (docs/sourcemaps.md).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs tracekit in `fixtures/`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The function names `src/` declares (`function NAME(`).
fn declared() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(fixtures().join("sourcemaps/src")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for piece in text.split("function ").skip(1) {
            if let Some((name, _)) = piece.split_once('(') {
                names.insert(name.trim().to_owned());
            }
        }
    }
    names
}

/// The JS functions of the Bottom-Up's first `top` rows, in order.
fn bottom_up_top(profile: &str, top: &str, maps: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["calltree", profile, "--bottom-up", "--max-depth", "1", "--top", top];
    args.extend(maps);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, Some(0), "{stderr}");
    let names = stdout
        .lines()
        .filter_map(|line| line.split_once("  js ").map(|(_, call)| call))
        .map(|call| call.split(' ').next().unwrap().to_owned())
        .filter(|name| !name.starts_with('('))
        .collect();
    (names, stderr)
}

#[test]
fn the_bottom_ups_top_functions_are_the_sources_names() {
    let source = declared();
    assert!(
        source.contains("runPrimes") && source.contains("sieveOfEratosthenes"),
        "{source:?}"
    );
    for (profile, map) in [
        ("sourcemaps/bundle.cpuprofile", "sourcemaps/bundle.js.map"),
        (
            "sourcemaps/bundle-nocontent.cpuprofile",
            "sourcemaps/bundle-nocontent.js.map",
        ),
    ] {
        let (minified, _) = bottom_up_top(profile, "6", &[]);
        assert!(minified.iter().all(|name| name.len() == 1), "{profile}: {minified:?}");
        let (names, stderr) = bottom_up_top(profile, "6", &["--source-maps", map]);
        assert_eq!(stderr, "");
        assert!(names.len() >= 4, "{profile}: {names:?}");
        for name in &names {
            assert!(
                source.contains(name),
                "{profile}: {name} is not a function of src/: {names:?}"
            );
        }
        // What V8 inlined differs between the two runs; these two were not.
        for name in ["generateSentence", "sieveOfEratosthenes"] {
            assert!(names.iter().any(|n| n == name), "{profile}: {names:?}");
        }
    }
}

#[test]
fn a_directory_of_maps_with_a_broken_one() {
    let (names, stderr) = bottom_up_top("sourcemaps/bundle.cpuprofile", "4", &["--source-maps", "sourcemaps"]);
    assert_eq!(names[0], "runPrimes");
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(warnings[0].ends_with("sourcemaps/broken/bundle.js.map: not a source map: got 2 segments, expected 4 or 5"));
    assert!(warnings[1].ends_with("sourcemaps/bundle-nocontent.js.map: matched no script of the profile"));
    // --no-source-maps wins, and the broken map alone leaves the names.
    let (names, stderr) = bottom_up_top(
        "sourcemaps/bundle.cpuprofile",
        "4",
        &["--source-maps", "sourcemaps", "--no-source-maps"],
    );
    assert_eq!((names[0].as_str(), stderr.as_str()), ("h", ""));
    let (names, stderr) = bottom_up_top(
        "sourcemaps/bundle.cpuprofile",
        "4",
        &["--source-maps", "sourcemaps/broken/bundle.js.map", "--quiet"],
    );
    assert_eq!((names[0].as_str(), stderr.as_str()), ("h", ""));
}

#[test]
fn tracks_flame_graph_and_exports_carry_the_names() {
    let maps = ["--source-maps", "sourcemaps/bundle.js.map"];
    let profile = "sourcemaps/bundle.cpuprofile";
    let (code, tracks, _) = run(&[&["tracks", profile][..], &maps].concat());
    assert_eq!(code, Some(0));
    assert!(tracks.contains("js main main.js:24:10"), "{tracks}");
    let (code, folded, _) = run(&[&["flamegraph", profile, "--folded"][..], &maps].concat());
    assert_eq!(code, Some(0));
    assert!(
        folded.contains("/sourcemaps/src/main.js:24:10;runPrimes file://"),
        "{folded}"
    );
    let (code, speedscope, _) = run(&[&["convert", profile, "--to", "speedscope"][..], &maps].concat());
    assert_eq!(code, Some(0));
    assert!(speedscope.contains("\"name\":\"sieveOfEratosthenes\""), "{speedscope}");
    assert!(speedscope.contains("src/primes.js"), "{speedscope}");
    let (code, chart, _) = run(&[&["chart", profile, "-o", "-"][..], &maps].concat());
    assert_eq!(code, Some(0));
    assert!(
        chart.contains("countWordFrequencies"),
        "the chart has not the original names"
    );
}

#[test]
fn a_missing_map_file_is_an_error() {
    let (code, _, stderr) = run(&[
        "calltree",
        "sourcemaps/bundle.cpuprofile",
        "--source-maps",
        "sourcemaps/nothing.map",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("sourcemaps/nothing.map: cannot read the source maps"),
        "{stderr}"
    );
}

#[test]
fn an_enhanced_traces_own_maps_apply_unless_turned_off() {
    let trace = "sourcemaps/enhanced-trace.json";
    let (code, stdout, stderr) = run(&["tracks", trace]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert!(stdout.contains("js render app.js:1:10"), "{stdout}");
    let (code, stdout, _) = run(&["tracks", trace, "--no-source-maps"]);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("js a bundle.js:1:11"), "{stdout}");
}
