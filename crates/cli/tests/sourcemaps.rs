//! End to end: `--source-maps` on a real build (fixtures/sourcemaps/: a
//! program bundled and minified by esbuild, profiled by Node 22): the
//! Bottom-Up's top functions, the tracks, the flame graph's stacks and the
//! speedscope export name the functions as the source does
//! (docs/sourcemaps.md).

use std::collections::BTreeSet;
use std::path::Path;

#[path = "support/run.rs"]
mod support;

use support::{fixtures, run};

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
    assert_eq!(warnings.len(), 5, "{stderr}");
    assert!(warnings[0].ends_with("sourcemaps/broken/bundle.js.map: not a source map: got 2 segments, expected 4 or 5"));
    for (warning, map) in warnings[1..]
        .iter()
        .zip(["bundle-nocontent", "npm-bundle", "rollup-nocontent", "rollup"])
    {
        assert!(
            warning.ends_with(&format!("sourcemaps/{map}.js.map: matched no script of the profile")),
            "{stderr}"
        );
    }
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

/// The distinct values of the string column `column` of a Parquet file.
fn parquet_strings(path: &Path, column: &str) -> BTreeSet<String> {
    use arrow_array::cast::AsArray;
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut out = BTreeSet::new();
    for batch in reader {
        let batch = batch.unwrap();
        let values = batch.column_by_name(column).unwrap().as_string::<i32>();
        out.extend(values.iter().flatten().map(str::to_owned));
    }
    out
}

#[test]
fn export_tables_carry_the_names() {
    let out = std::env::temp_dir().join(format!("tracekit-sourcemaps-export-{}", std::process::id()));
    let out_arg = out.display().to_string();
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "sourcemaps/bundle.cpuprofile",
            "--parquet",
            &out_arg,
            "--tables",
            "calls,samples",
            "-q",
        ];
        args.extend(extra);
        let (code, _, stderr) = run(&args);
        assert_eq!((code, stderr.as_str()), (Some(0), ""));
        (
            parquet_strings(&out.join("calls.parquet"), "name"),
            parquet_strings(&out.join("samples.parquet"), "name"),
            parquet_strings(&out.join("calls.parquet"), "script_url"),
        )
    };
    let (calls, samples, _) = export(&[]);
    assert!(calls.contains("h") && !calls.contains("runPrimes"), "{calls:?}");
    assert!(samples.contains("h"), "{samples:?}");
    let (calls, samples, urls) = export(&["--source-maps", "sourcemaps/bundle.js.map"]);
    for name in ["runPrimes", "sieveOfEratosthenes", "countWordFrequencies"] {
        assert!(calls.contains(name), "{name}: {calls:?}");
        assert!(samples.contains(name), "{name}: {samples:?}");
    }
    assert!(!calls.contains("h"), "{calls:?}");
    assert!(
        urls.iter().any(|u| u.ends_with("/sourcemaps/src/primes.js")),
        "{urls:?}"
    );
    // A map's problem is a warning naming the trace.
    let (code, _, stderr) = run(&[
        "export",
        "sourcemaps/bundle.cpuprofile",
        "--parquet",
        &out_arg,
        "--source-maps",
        "sourcemaps/broken/bundle.js.map",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        stderr.contains("warning: sourcemaps/bundle.cpuprofile: source maps: ") && stderr.contains("not a source map"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The function keys of `tracekit diff --format json` present on both
/// sides, and all of them.
fn diff_functions(base: &str, new: &str, extra: &[&str]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut args = vec!["diff", base, new, "--format", "json", "-q"];
    args.extend(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (mut both, mut all) = (BTreeSet::new(), BTreeSet::new());
    for row in report["rows"].as_array().unwrap() {
        if row["key"]["kind"] != "function" {
            continue;
        }
        let name = row["key"]["name"]
            .as_str()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned();
        if row["presence"] != "added" && row["presence"] != "removed" {
            both.insert(name.clone());
        }
        all.insert(name);
    }
    (both, all)
}

#[test]
fn diff_compares_functions_by_their_original_names() {
    // The two bundles' functions are at other columns: no key matches.
    let pair = ("sourcemaps/bundle.cpuprofile", "sourcemaps/bundle-nocontent.cpuprofile");
    let (both, all) = diff_functions(pair.0, pair.1, &[]);
    assert!(both.iter().all(|name| name.starts_with('(')), "{both:?}");
    assert!(all.contains("h"), "{all:?}");
    // Each side's map, or both maps for both sides: the original names,
    // on both sides.
    for maps in [
        &[
            "--base-source-maps",
            "sourcemaps/bundle.js.map",
            "--new-source-maps",
            "sourcemaps/bundle-nocontent.js.map",
        ][..],
        &[
            "--source-maps",
            "sourcemaps/bundle.js.map",
            "sourcemaps/bundle-nocontent.js.map",
        ][..],
    ] {
        let (both, all) = diff_functions(pair.0, pair.1, maps);
        for name in ["runPrimes", "sieveOfEratosthenes"] {
            assert!(both.contains(name), "{maps:?}: {name}: {both:?}");
        }
        assert!(!all.contains("h"), "{maps:?}: {all:?}");
    }
}

/// The JS rows of the Bottom-Up's first 8 roots: (name, location).
fn bottom_up_rows(profile: &str, maps: &[&str]) -> Vec<(String, String)> {
    bottom_up_js_rows(profile, "8", maps)
        .into_iter()
        .filter(|(name, location)| !name.starts_with('(') || location.contains(".js:"))
        .filter(|(_, location)| !location.starts_with("node:"))
        .collect()
}

/// Every JS row of `tracekit calltree PROFILE --bottom-up` over its first
/// `top` roots: (name, location).
fn bottom_up_js_rows(profile: &str, top: &str, extra: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["calltree", profile, "--bottom-up", "--max-depth", "1", "--top", top];
    args.extend(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, Some(0), "{stderr}");
    stdout
        .lines()
        .filter_map(|line| line.split_once("  js ").map(|(_, call)| call))
        .filter_map(|call| call.rsplit_once(' '))
        .map(|(name, location)| (name.to_owned(), location.to_owned()))
        .collect()
}

#[test]
fn a_second_bundler_rollup_and_terser() {
    let source = declared();
    let files = ["main.js:", "primes.js:", "text.js:", "matrix.js:"];
    for (profile, map) in [
        ("sourcemaps/rollup.cpuprofile", "sourcemaps/rollup.js.map"),
        (
            "sourcemaps/rollup-nocontent.cpuprofile",
            "sourcemaps/rollup-nocontent.js.map",
        ),
    ] {
        let minified = bottom_up_rows(profile, &[]);
        assert!(minified.len() >= 5, "{profile}: {minified:?}");
        assert!(
            minified
                .iter()
                .all(|(name, location)| location.starts_with("rollup") && (name.len() == 1 || name == "(anonymous)")),
            "{profile}: {minified:?}"
        );
        let rows = bottom_up_rows(profile, &["--source-maps", map]);
        assert_eq!(rows.len(), minified.len(), "{profile}: {rows:?}");
        for (name, location) in &rows {
            assert!(
                files.iter().any(|f| location.starts_with(f)),
                "{profile}: {name} at {location}, not in src/: {rows:?}"
            );
            // Terser inlines some functions as anonymous function
            // expressions, whose start maps to no name: DevTools shows
            // them so too (devtools-expected.json).
            assert!(
                source.contains(name) || name == "(anonymous)",
                "{profile}: {name}: {rows:?}"
            );
        }
        assert!(rows.iter().any(|(name, _)| name == "runPrimes"), "{profile}: {rows:?}");
    }
}

#[test]
fn diff_of_two_bundlers_builds_compares_the_functions_both_kept() {
    let pair = ("sourcemaps/bundle.cpuprofile", "sourcemaps/rollup.cpuprofile");
    let (both, _) = diff_functions(pair.0, pair.1, &[]);
    assert!(both.iter().all(|name| name.starts_with('(')), "{both:?}");
    let (both, _) = diff_functions(pair.0, pair.1, &["--source-maps", "sourcemaps"]);
    for name in [
        "runPrimes",
        "runText",
        "runMatrices",
        "isPrimeByTrialDivision",
        "createMatrix",
    ] {
        assert!(both.contains(name), "{name}: {both:?}");
    }
}

#[test]
fn a_chromium_recording_saved_with_its_maps_names_the_sources_functions() {
    // fixtures/traces/bundles.json.gz: a page load recorded in Chromium
    // and saved as DevTools saves an enhanced trace (metadata.sourceMaps);
    // its two esbuild bundles share src/lib/format.js.
    let source = std::fs::read_to_string(fixtures().join("pages/bundles/src/lib/format.js")).unwrap();
    let declared_at = |name: &str| {
        source
            .lines()
            .position(|line| line.contains(&format!("function {name}(")))
            .map(|i| i + 1)
    };
    let rows = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["calltree", "traces/bundles.json.gz", "--bottom-up", "--max-depth", "1"];
        args.extend(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, Some(0), "{stderr}");
        stdout
            .lines()
            .filter_map(|line| line.split_once("  js ").map(|(_, call)| call.to_owned()))
            .collect()
    };
    let mut named = 0;
    for call in rows(&[]) {
        let Some((name, at)) = call.split_once(" format.js:") else {
            continue;
        };
        let line: usize = at.split(':').next().unwrap().parse().unwrap();
        if let Some(declared) = declared_at(name) {
            assert_eq!(line, declared, "{call}");
            named += 1;
        }
    }
    assert!(named >= 4, "the format.js functions that ran are named as declared");
    let minified = rows(&["--no-source-maps"]);
    assert!(minified.iter().all(|call| !call.contains("format.js")), "{minified:?}");
    assert!(
        minified.iter().any(|call| call.contains(" app-a.js:1:")),
        "{minified:?}"
    );
}

#[test]
fn real_npm_libraries_bundled_are_named_from_their_sources() {
    // fixtures/sourcemaps/npm-bundle.js: zod and qs bundled and minified by
    // esbuild (the map keeps their sources), profiled by Node.
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("sourcemaps/npm-bundle.js.map")).unwrap())
            .unwrap();
    let source_line = |file: &str, line: usize| -> String {
        let sources = map["sources"].as_array().unwrap();
        let at = sources
            .iter()
            .position(|s| s.as_str().unwrap().ends_with(file))
            .unwrap();
        let text = map["sourcesContent"][at].as_str().unwrap();
        text.lines().nth(line - 1).unwrap().to_owned()
    };
    let top = |extra: &[&str]| -> Vec<(String, String)> {
        bottom_up_js_rows("sourcemaps/npm-bundle.cpuprofile", "16", extra)
            .into_iter()
            .filter(|(_, at)| !at.starts_with("node:") && at.contains(".js:"))
            .collect()
    };
    let named = top(&["--source-maps", "sourcemaps/npm-bundle.js.map"]);
    assert!(
        named.iter().all(|(_, at)| !at.starts_with("npm-bundle.js")),
        "{named:?}"
    );
    // Functions the sources declare by name are named so, at their line.
    for (name, file) in [("roundTrip", "npm/main.js"), ("stringify", "qs/lib/stringify.js")] {
        let (_, at) = named
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name}: {named:?}"));
        let line: usize = at.split(':').nth(1).unwrap().parse().unwrap();
        assert!(source_line(file, line).contains(&format!("{name}(")), "{name} at {at}");
    }
    // And zod's methods, from its own source.
    assert!(
        named
            .iter()
            .any(|(n, at)| n.starts_with("t._zod.") && at.starts_with("schemas.js")),
        "{named:?}"
    );
    let minified = top(&["--no-source-maps"]);
    assert!(
        minified.iter().all(|(_, at)| at.starts_with("npm-bundle.js")),
        "{minified:?}"
    );
}
