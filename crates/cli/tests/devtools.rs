//! End to end: `--devtools`, the DevTools engine whose answers tracekit
//! gives (docs/devtools-versions.md). Every command's output is made from
//! the tracks, so on a trace whose tracks differ between the engines, each
//! command's output must differ too: the option reaches them all. The
//! tracks themselves are each engine's golden, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use tracekit::DevTools;

/// A recorded trace whose tracks differ between the engines (JS calls
/// around traced events outside a JS invocation).
const TRACE: &str = "traces/navigation.json.gz";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Runs tracekit in `fixtures/`, expecting success: its stdout.
fn run(args: &[&str]) -> Vec<u8> {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("tracekit runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// `args` run with `--devtools` naming each engine, and without it.
fn by_engine(args: &[&str]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let with = |name: &str| {
        let mut all = args.to_vec();
        all.extend(["--devtools", name]);
        run(&all)
    };
    (run(args), with("2026-10"), with("2026-06"))
}

#[test]
fn the_default_is_the_latest_engine_and_version_says_which() {
    assert_eq!(DevTools::LATEST, DevTools::default());
    let version = String::from_utf8(run(&["--version"])).unwrap();
    let latest = DevTools::LATEST;
    assert!(
        version.contains(&format!("DevTools {}: {}", latest.name(), latest.description())),
        "{version}"
    );
    for devtools in DevTools::ALL.into_iter().filter(|d| *d != latest) {
        assert!(
            version.contains(&format!("--devtools {}: {}", devtools.name(), devtools.description())),
            "{version}"
        );
    }
}

#[test]
fn the_tracks_are_each_engines_golden() {
    let (default, latest, june) = by_engine(&["tracks", TRACE, "--format", "conformance"]);
    let golden = |dir: &str| std::fs::read(fixtures().join("expected").join(dir).join("navigation.json")).unwrap();
    assert!(
        default == golden("2026-10"),
        "the default is not DevTools 2026-10's golden"
    );
    assert!(latest == default);
    assert!(june == golden("2026-06"), "--devtools 2026-06 is not its golden");
    assert!(
        golden("2026-10") != golden("2026-06"),
        "the goldens should differ on {TRACE}"
    );
}

#[test]
fn every_command_follows_the_engine() {
    let commands: &[&[&str]] = &[
        &["tracks", TRACE],
        &["tracks", TRACE, "--format", "json"],
        &["info", TRACE],
        &["calltree", TRACE, "--format", "conformance"],
        &["calltree", TRACE, "--bottom-up", "--max-depth", "3"],
        // The Summary adds self times by category: on this trace today's
        // JS calls share the same scripting time differently, the same
        // sum; on another they do not.
        &["summary", "traces/iframe.json.gz", "--format", "json"],
        &["convert", TRACE, "--to", "speedscope"],
        &["convert", TRACE, "--to", "pprof"],
        &["convert", TRACE, "--to", "perfetto"],
        &["convert", TRACE, "--to", "folded"],
        &["convert", TRACE, "--to", "d3"],
        &["flamegraph", TRACE],
        &["chart", TRACE],
    ];
    for args in commands {
        let (default, latest, june) = by_engine(args);
        assert!(default == latest, "{args:?}: the default is not 2026-10");
        assert!(default != june, "{args:?}: --devtools 2026-06 changes nothing");
    }
}

#[test]
fn export_follows_the_engine() {
    let tables = |devtools: &str| {
        let out = std::env::temp_dir().join(format!("tracekit-devtools-{}-{devtools}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        run(&[
            "export",
            TRACE,
            "--parquet",
            out.to_str().unwrap(),
            "--devtools",
            devtools,
        ]);
        let calls = std::fs::read(out.join("calls.parquet")).unwrap();
        std::fs::remove_dir_all(&out).unwrap();
        calls
    };
    assert!(tables("2026-10") != tables("2026-06"));
}

#[test]
fn an_unknown_engine_is_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["tracks", TRACE, "--devtools", "2025-01"])
        .current_dir(fixtures())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("tracekit: invalid value '2025-01' for '--devtools <VERSION>'"),
        "{stderr}"
    );
    assert!(stderr.contains("[possible values: 2026-06, 2026-10]"), "{stderr}");
}
