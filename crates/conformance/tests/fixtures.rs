//! Every fixture against the DevTools oracle's golden dump, for each
//! DevTools engine tracekit follows (`fixtures/expected/NAME/`, written by
//! `cargo xtask oracle --engine E`), tracekit following the same engine.
//!
//! A fixture on which tracekit meets no divergence must give the golden,
//! byte for byte. A fixture on which it meets divergences documented in
//! `docs/divergences.md` may differ from DevTools only as they explain,
//! which is checked in one or both of two ways:
//!
//! - **against its own golden** (when the oracle could read the fixture):
//!   every thread the divergences cannot touch must be identical, and so
//!   must the processes and, unless a divergence moves them, the bounds
//!   (see [`reach`]);
//! - **against its repaired counterpart** in `fixtures/repaired/` (same file
//!   name): the same trace with the cause of each divergence taken out, so
//!   that DevTools reads it as tracekit reads the original (see [`repair`]).
//!   The repaired file must be that repair of the original, have a golden
//!   of its own, and tracekit's dump of the original must be the oracle's
//!   dump of the repaired trace, byte for byte.
//!
//! A diverging fixture that neither check applies to fails the test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tracekit::{DevTools, Parallelism};
use tracekit_conformance::{
    check_engine_file, compare, documented_divergences, expected_dir, fixture_files, golden_name, run_ours,
    FIXTURE_SETS,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repaired counterparts of diverging fixtures (also a fixture set, so
/// that `cargo xtask oracle` writes their goldens).
const REPAIRED: &str = "fixtures/repaired";

/// Fixtures the oracle is never run on (it would not return): they have
/// no golden, only, when they diverge, a repaired counterpart.
const HOSTILE: &str = "fixtures/hostile";

/// The name the repaired trace gives a `TracingStartedInBrowser` without
/// frame data, so that DevTools loads the trace as the generic trace
/// tracekit makes of it (and still draws the instant).
const RENAMED_TRACING_STARTED: &str = "TracingStartedInBrowser without frames";

fn read_text(path: &Path) -> String {
    use std::io::Read;
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text
    } else {
        String::from_utf8(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
}

/// The event array of a trace (an array, or an object's `traceEvents`).
fn events(trace: &Value) -> &[Value] {
    match trace {
        Value::Array(events) => events,
        Value::Object(o) => o
            .get("traceEvents")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice),
        _ => &[],
    }
}

fn events_mut(trace: &mut Value) -> Option<&mut Vec<Value>> {
    match trace {
        Value::Array(events) => Some(events),
        Value::Object(o) => o.get_mut("traceEvents").and_then(Value::as_array_mut),
        _ => None,
    }
}

/// A JSON number for what a string holds, integral ones as integers (as a
/// person repairing the file by hand writes them).
fn number_of(text: &str) -> Option<Value> {
    let x: f64 = text.trim().parse().ok()?;
    if x.fract() == 0.0 && x.abs() < 9e15 {
        // Integral and below 2^53: exact as an i64.
        #[allow(clippy::cast_possible_truncation)]
        Some(Value::from(x as i64))
    } else {
        serde_json::Number::from_f64(x).map(Value::Number)
    }
}

/// Takes the cause of a divergence out of a trace: what DevTools must be
/// given to answer what tracekit answers on the original. `None` for a
/// divergence without a mechanical repair (`profile-node-cycle`: which
/// links close a cycle depends on the walk; see [`only_children_removed`]).
fn repair(divergence: &str, trace: &mut Value) -> Option<()> {
    let events = events_mut(trace)?;
    match divergence {
        // Strings holding numbers become those numbers.
        "numeric-strings" => {
            for event in events.iter_mut().filter_map(Value::as_object_mut) {
                for key in ["ts", "dur"] {
                    if let Some(number) = event.get(key).and_then(Value::as_str).and_then(number_of) {
                        event.insert(key.to_owned(), number);
                    }
                }
            }
        }
        // Events without a name go.
        "event-without-name" => events.retain(|e| !e.is_object() || e.get("name").is_some()),
        // A TracingStartedInBrowser without frame data is renamed: the
        // trace is then generic to DevTools too.
        "tracing-started-without-frames" => {
            for event in events.iter_mut().filter_map(Value::as_object_mut) {
                let has_data = event
                    .get("args")
                    .and_then(|a| a.get("data"))
                    .is_some_and(Value::is_object);
                if event.get("name").and_then(Value::as_str) == Some("TracingStartedInBrowser") && !has_data {
                    event.insert("name".to_owned(), Value::from(RENAMED_TRACING_STARTED));
                }
            }
        }
        // Name metadata DevTools cannot read gets `args` without a name.
        "unreadable-name-metadata" => {
            for event in events.iter_mut().filter_map(Value::as_object_mut) {
                let name = event.get("name").and_then(Value::as_str);
                if !matches!(name, Some("thread_name" | "process_name")) {
                    continue;
                }
                let thread = name == Some("thread_name");
                match event.get_mut("args") {
                    None | Some(Value::Null) => {
                        event.insert("args".to_owned(), serde_json::json!({}));
                    }
                    Some(Value::Object(args)) if thread => {
                        if args.get("name").is_some_and(|n| !n.is_string() && !n.is_null()) {
                            args.remove("name");
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        _ => return None,
    }
    Some(())
}

/// `repaired` is `original` with ids taken out of `children` lists only
/// (each repaired list a subsequence of the original one): the repair of a
/// profile whose links form cycles.
fn only_children_removed(original: &Value, repaired: &Value, at: &str) -> Result<(), String> {
    match (original, repaired) {
        (Value::Object(a), Value::Object(b)) => {
            if a.keys().ne(b.keys()) {
                return Err(format!("{at}: keys differ"));
            }
            for (key, va) in a {
                let path = format!("{at}.{key}");
                match (key.as_str(), va, &b[key]) {
                    ("children", Value::Array(xs), Value::Array(ys)) => {
                        let mut rest = xs.iter();
                        if !ys.iter().all(|y| rest.any(|x| x == y)) {
                            return Err(format!("{path}: {ys:?} is not a part of {xs:?}"));
                        }
                    }
                    (_, va, vb) => only_children_removed(va, vb, &path)?,
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{at}: {} elements, repaired {}", a.len(), b.len()));
            }
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                only_children_removed(va, vb, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{at}: {a} became {b}")),
    }
}

/// Checks that `repaired` is the repair of `original` for `divergences`.
fn is_repair_of(original: &Value, repaired: &Value, divergences: &[&str]) -> Result<(), String> {
    let mut expected = original.clone();
    let mut by_hand = false;
    for divergence in divergences {
        if repair(divergence, &mut expected).is_none() {
            by_hand = true;
        }
    }
    if by_hand {
        only_children_removed(&expected, repaired, "$")
    } else if expected == *repaired {
        Ok(())
    } else {
        Err(format!("it is not the repair of the original for {divergences:?}"))
    }
}

/// The parts of the dump that a divergence can change: threads, as
/// `(pid, Some(tid))` or `(pid, None)` for every thread of a process
/// (ids as the dump writes them), and whether the bounds.
#[derive(Debug, Default)]
struct Reach {
    threads: BTreeSet<(String, Option<String>)>,
    bounds: bool,
}

fn id_of(event: &Value, key: &str) -> String {
    event.get(key).map_or_else(|| "?".to_owned(), Value::to_string)
}

/// Adds what `divergence` can change in the dump of a trace of these
/// events; `None` when it can change anything.
fn reach(divergence: &str, trace: &Value, reach: &mut Reach) -> Option<()> {
    let events = events(trace);
    match divergence {
        // Only the aggregated views differ: the tracks are the same.
        "event-without-category" => Some(()),
        // The events written with string times move, and with them their
        // thread's tree and the bounds; a begin or end event with a string
        // time moves the pairing on the stack that all threads share.
        "numeric-strings" => {
            let is_string = |e: &Value, key: &str| e.get(key).is_some_and(Value::is_string);
            let is_begin_end = |e: &Value| matches!(e.get("ph").and_then(Value::as_str), Some("B" | "E"));
            let mut begin_end = false;
            for e in events.iter().filter(|e| is_string(e, "ts") || is_string(e, "dur")) {
                reach.threads.insert((id_of(e, "pid"), Some(id_of(e, "tid"))));
                reach.bounds = true;
                begin_end |= is_begin_end(e);
            }
            if begin_end {
                for e in events.iter().filter(|e| is_begin_end(e)) {
                    reach.threads.insert((id_of(e, "pid"), Some(id_of(e, "tid"))));
                }
            }
            Some(())
        }
        // A profile's JS calls, on any thread of its process (chunks may
        // come from another thread than their head).
        "profile-node-cycle" => {
            let profiles = ["Profile", "ProfileChunk", "CpuProfile"];
            for e in events {
                if profiles.contains(&e.get("name").and_then(Value::as_str).unwrap_or("")) {
                    reach.threads.insert((id_of(e, "pid"), None));
                }
            }
            Some(())
        }
        // The threads the top-level samples name get JS calls (and may
        // exist only because of them); a sample without a pid may belong to
        // any process with a thread of its tid.
        "trace-event-samples" => {
            for sample in list(trace, "samples") {
                let tid = id_of(sample, "tid");
                match sample.get("pid") {
                    Some(_) => {
                        reach.threads.insert((id_of(sample, "pid"), Some(tid)));
                    }
                    None => {
                        for e in events {
                            reach.threads.insert((id_of(e, "pid"), Some(tid.clone())));
                        }
                    }
                }
            }
            Some(())
        }
        _ => None,
    }
}

fn list<'v>(v: &'v Value, field: &str) -> &'v [Value] {
    v.get(field).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Whether two dumps are the same outside what `reach` says may differ.
fn same_outside(ours: &str, oracle: &str, reach: &Reach) -> Result<(), String> {
    let a: Value = serde_json::from_str(ours).map_err(|e| format!("our dump: {e}"))?;
    let b: Value = serde_json::from_str(oracle).map_err(|e| format!("the golden: {e}"))?;
    if !reach.bounds && a.get("bounds") != b.get("bounds") {
        return Err(format!(
            "bounds: ours {:?} oracle {:?}",
            a.get("bounds"),
            b.get("bounds")
        ));
    }
    let pids = |v: &Value| list(v, "processes").iter().map(|p| id_of(p, "pid")).collect::<Vec<_>>();
    if pids(&a) != pids(&b) {
        return Err(format!("processes: ours {:?} oracle {:?}", pids(&a), pids(&b)));
    }
    for (pa, pb) in list(&a, "processes").iter().zip(list(&b, "processes")) {
        let pid = id_of(pa, "pid");
        for field in ["url", "isOnMainFrame"] {
            if pa.get(field) != pb.get(field) {
                return Err(format!(
                    "process {pid} {field}: ours {:?} oracle {:?}",
                    pa.get(field),
                    pb.get(field)
                ));
            }
        }
        let untouched = |p: &'_ Value| -> Vec<Value> {
            list(p, "threads")
                .iter()
                .filter(|t| {
                    !reach.threads.contains(&(pid.clone(), None))
                        && !reach.threads.contains(&(pid.clone(), Some(id_of(t, "tid"))))
                })
                .cloned()
                .collect()
        };
        let (ta, tb) = (untouched(pa), untouched(pb));
        if ta != tb {
            let k = (0..ta.len().max(tb.len()))
                .find(|&k| ta.get(k) != tb.get(k))
                .unwrap_or(0);
            return Err(format!(
                "process {pid}, a thread the divergences cannot touch: ours {} oracle {}",
                ta.get(k).map_or("(none)".into(), Value::to_string),
                tb.get(k).map_or("(none)".into(), Value::to_string)
            ));
        }
    }
    Ok(())
}

/// The conformance dump of a file with every process built (DevTools'
/// dropped ones too): what the repaired trace must also give.
fn dump_of_all_processes(file: &Path, devtools: DevTools) -> String {
    let options = tracekit::AnalyzeOptions::default()
        .with_all_processes(true)
        .with_devtools(devtools);
    let analysis = tracekit::analyze_bytes(&std::fs::read(file).unwrap(), &options).unwrap();
    tracekit::output::conformance(&analysis)
}

/// The checks of a diverging fixture against its repaired counterpart.
fn check_repaired(
    root: &Path,
    devtools: DevTools,
    file: &Path,
    original_dump: &str,
    divergences: &[&str],
) -> Result<(), String> {
    let name = file.file_name().unwrap();
    let repaired = root.join(REPAIRED).join(name);
    let text = |path: &Path| -> Result<Value, String> {
        serde_json::from_str(&read_text(path)).map_err(|e| format!("{}: {e}", path.display()))
    };
    is_repair_of(&text(file)?, &text(&repaired)?, divergences).map_err(|e| format!("{}: {e}", repaired.display()))?;
    let ours = run_ours(&repaired, Parallelism::Sequential, devtools)?;
    if !ours.divergences.is_empty() {
        return Err(format!(
            "{}: diverges still: {:?}",
            repaired.display(),
            ours.divergences
        ));
    }
    let (_, expected) = FIXTURE_SETS
        .iter()
        .find(|(dir, _)| *dir == REPAIRED)
        .ok_or("the repaired traces are not a fixture set")?;
    let golden_path = root
        .join(expected_dir(devtools))
        .join(expected)
        .join(golden_name(&repaired));
    let golden = std::fs::read_to_string(&golden_path).map_err(|e| {
        format!(
            "{}: {e} (cargo xtask oracle --engine E writes it)",
            golden_path.display()
        )
    })?;
    // The one name the repair changes, given back.
    let unrename = |dump: &str| {
        dump.trim_end()
            .replace(&format!("\"{RENAMED_TRACING_STARTED}\""), "\"TracingStartedInBrowser\"")
    };
    if ours.dump.trim_end() != golden.trim_end() {
        return Err(format!(
            "{}: differs from its golden: {}",
            repaired.display(),
            compare(&ours.dump, &golden)?
        ));
    }
    if original_dump.trim_end() != unrename(&golden) {
        return Err(format!(
            "differs from the oracle's dump of {}: {}",
            repaired.display(),
            compare(original_dump, &unrename(&golden))?
        ));
    }
    // Also the processes DevTools drops, which the oracle does not show.
    if dump_of_all_processes(file, devtools).trim_end() != unrename(&dump_of_all_processes(&repaired, devtools)) {
        return Err(format!(
            "with every process built, differs from tracekit's dump of {}",
            repaired.display()
        ));
    }
    Ok(())
}

/// What a fixture on which tracekit diverges is checked against; an
/// error says what failed or that nothing could be checked.
fn check_diverging(
    root: &Path,
    devtools: DevTools,
    file: &Path,
    dump: &str,
    golden: Option<&str>,
    divergences: &[&str],
) -> Result<(), String> {
    let mut checks = 0;
    if let Some(golden) = golden {
        let trace: Value = serde_json::from_str(&read_text(file)).map_err(|e| e.to_string())?;
        let mut touched = Reach::default();
        if divergences.iter().all(|d| reach(d, &trace, &mut touched).is_some()) {
            same_outside(dump, golden, &touched)?;
            checks += 1;
        }
    }
    if root.join(REPAIRED).join(file.file_name().unwrap()).exists() {
        check_repaired(root, devtools, file, dump, divergences)?;
        checks += 1;
    }
    if checks == 0 {
        return Err(format!(
            "diverges ({divergences:?}) and nothing checks the rest: give it a repaired counterpart in {REPAIRED}/"
        ));
    }
    Ok(())
}

#[test]
fn every_fixture_matches_the_devtools_engines() {
    for devtools in DevTools::ALL {
        every_fixture_matches(devtools);
    }
}

/// Every fixture, with tracekit following `devtools`, against that
/// engine's goldens.
fn every_fixture_matches(devtools: DevTools) {
    let root = root();
    check_engine_file(&root, devtools).unwrap();
    let goldens = root.join(expected_dir(devtools));
    let documented = documented_divergences(&root);
    let mut checked = 0;
    let mut diverging = 0;
    let mut failures = Vec::new();
    let sets = FIXTURE_SETS
        .iter()
        .map(|(dir, expected)| (*dir, Some(*expected)))
        .chain([(HOSTILE, None)]);
    for (dir, expected) in sets {
        for file in fixture_files(&root.join(dir)).unwrap() {
            let ours = run_ours(&file, Parallelism::Sequential, devtools)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let divergences: Vec<&str> = ours.divergences.keys().map(String::as_str).collect();
            let undocumented: Vec<&&str> = divergences
                .iter()
                .filter(|name| !documented.iter().any(|d| d == *name))
                .collect();
            assert!(
                undocumented.is_empty(),
                "{}: undocumented divergences {undocumented:?}",
                file.display()
            );
            let golden = expected.and_then(|e| std::fs::read_to_string(goldens.join(e).join(golden_name(&file))).ok());
            if divergences.is_empty() {
                let Some(golden) = golden else {
                    // A hostile fixture on which nothing diverges.
                    assert!(expected.is_none(), "{}: no golden", file.display());
                    continue;
                };
                let report = compare(&ours.dump, &golden).unwrap();
                checked += 1;
                if !report.identical {
                    failures.push(format!("{}: {report}", file.display()));
                }
                continue;
            }
            assert!(dir != REPAIRED, "{}: a repaired trace diverges", file.display());
            diverging += 1;
            checked += usize::from(golden.is_some());
            if let Err(e) = check_diverging(&root, devtools, &file, &ours.dump, golden.as_deref(), &divergences) {
                failures.push(format!("{}: {e}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "differences from {devtools}:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 20, "only {checked} fixtures had goldens");
    assert!(diverging >= 4, "only {diverging} fixtures diverge");
}

/// Each repaired trace stands for a fixture that diverges.
#[test]
fn every_repaired_trace_has_its_diverging_fixture() {
    let root = root();
    for repaired in fixture_files(&root.join(REPAIRED)).unwrap() {
        let name = repaired.file_name().unwrap();
        let original = FIXTURE_SETS
            .iter()
            .map(|(dir, _)| *dir)
            .chain([HOSTILE])
            .filter(|dir| *dir != REPAIRED)
            .map(|dir| root.join(dir).join(name))
            .find(|path| path.exists())
            .unwrap_or_else(|| panic!("{}: no fixture of that name", repaired.display()));
        let ours = run_ours(&original, Parallelism::Sequential, tracekit::DevTools::LATEST).unwrap();
        assert!(
            !ours.divergences.is_empty(),
            "{}: repairs {}, on which tracekit does not diverge",
            repaired.display(),
            original.display()
        );
    }
}

#[test]
fn the_repairs_take_out_what_they_say() {
    let mut trace: Value = serde_json::from_str(
        r#"[{"name":"A","ph":"X","ts":"1.5","dur":"2","pid":1,"tid":1},{"ph":"X","ts":1,"pid":1,"tid":1},
            {"name":"TracingStartedInBrowser","ph":"I","ts":1,"pid":1,"tid":1,"args":{}},
            {"name":"TracingStartedInBrowser","ph":"I","ts":1,"pid":1,"tid":1,"args":{"data":{"frames":[]}}}]"#,
    )
    .unwrap();
    for divergence in [
        "numeric-strings",
        "event-without-name",
        "tracing-started-without-frames",
    ] {
        repair(divergence, &mut trace).unwrap();
    }
    let expected: Value = serde_json::from_str(&format!(
        r#"[{{"name":"A","ph":"X","ts":1.5,"dur":2,"pid":1,"tid":1}},
            {{"name":"{RENAMED_TRACING_STARTED}","ph":"I","ts":1,"pid":1,"tid":1,"args":{{}}}},
            {{"name":"TracingStartedInBrowser","ph":"I","ts":1,"pid":1,"tid":1,"args":{{"data":{{"frames":[]}}}}}}]"#
    ))
    .unwrap();
    assert_eq!(trace, expected);
    let mut trace: Value = serde_json::from_str(
        r#"[{"name":"thread_name","ph":"M","pid":1,"tid":1},{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":7,"x":1}},
            {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":null}},{"name":"process_name","ph":"M","pid":1,"args":null},
            {"name":"process_name","ph":"M","pid":2,"args":{"name":7}}]"#,
    )
    .unwrap();
    repair("unreadable-name-metadata", &mut trace).unwrap();
    let expected: Value = serde_json::from_str(
        r#"[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{}},{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"x":1}},
            {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":null}},{"name":"process_name","ph":"M","pid":1,"args":{}},
            {"name":"process_name","ph":"M","pid":2,"args":{"name":7}}]"#,
    )
    .unwrap();
    assert_eq!(trace, expected);
    let nodes = |children: &str| -> Value {
        serde_json::from_str(&format!(r#"{{"nodes":[{{"id":1,"children":{children}}}]}}"#)).unwrap()
    };
    assert!(only_children_removed(&nodes("[2,3,2]"), &nodes("[2,2]"), "$").is_ok());
    assert!(only_children_removed(&nodes("[2,3]"), &nodes("[3,2]"), "$").is_err());
    assert!(only_children_removed(&nodes("[2]"), &nodes("[2,2]"), "$").is_err());
}

#[test]
fn top_level_samples_touch_their_threads_only() {
    let trace: Value = serde_json::from_str(
        r#"{"traceEvents":[{"name":"X","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},{"name":"Y","ph":"X","ts":1,"dur":1,"pid":2,"tid":1}],
            "samples":[{"tid":1,"ts":1,"sf":1,"pid":2},{"tid":"7","ts":1,"sf":1}],"stackFrames":{"1":{"name":"f","category":"js"}}}"#,
    )
    .unwrap();
    let mut touched = Reach::default();
    reach("trace-event-samples", &trace, &mut touched).unwrap();
    assert_eq!(
        touched.threads,
        BTreeSet::from([
            ("2".to_owned(), Some("1".to_owned())),
            ("1".to_owned(), Some("\"7\"".to_owned())),
            ("2".to_owned(), Some("\"7\"".to_owned())),
        ])
    );
    assert!(!touched.bounds);
}

#[test]
fn a_thread_the_divergence_cannot_touch_must_be_identical() {
    const GOLDEN: &str = r#"{"processes":[{"pid":1,"url":null,"isOnMainFrame":false,"threads":[{"tid":1,"name":"a","entries":[[0,"X",1,2,2]]},{"tid":2,"name":"b","entries":[[0,"Y",1,1,1]]}]}],"bounds":{"min":1,"max":3}}"#;
    let events: Value = serde_json::from_str(
        r#"[{"name":"X","ph":"X","ts":"1","dur":2,"pid":1,"tid":1},{"name":"Y","ph":"X","ts":1,"dur":1,"pid":1,"tid":2}]"#,
    )
    .unwrap();
    let mut touched = Reach::default();
    reach("numeric-strings", &events, &mut touched).unwrap();
    assert_eq!(
        touched.threads,
        BTreeSet::from([("1".to_owned(), Some("1".to_owned()))])
    );
    let moved_x = GOLDEN
        .replace("[0,\"X\",1,2,2]", "[0,\"X\",1,5,5]")
        .replace("\"max\":3", "\"max\":6");
    assert_eq!(same_outside(&moved_x, GOLDEN, &touched), Ok(()));
    let moved_y = GOLDEN.replace("[0,\"Y\",1,1,1]", "[0,\"Y\",1,1,0.5]");
    assert!(same_outside(&moved_y, GOLDEN, &touched)
        .unwrap_err()
        .contains("cannot touch"));
    let renamed = GOLDEN.replace("\"name\":\"b\"", "\"name\":\"c\"");
    assert!(same_outside(&renamed, GOLDEN, &touched).is_err());
    let other_url = GOLDEN.replace("\"url\":null", "\"url\":\"https://a.test/\"");
    assert!(same_outside(&other_url, GOLDEN, &touched).is_err());
    // Without a string time, the bounds may not move.
    assert!(same_outside(&moved_x, GOLDEN, &Reach::default()).is_err());
}

#[test]
fn output_is_the_same_with_and_without_threads() {
    let root = root();
    for file in fixture_files(&root.join("fixtures/traces")).unwrap() {
        let sequential = run_ours(&file, Parallelism::Sequential, tracekit::DevTools::LATEST)
            .unwrap()
            .dump;
        let parallel = run_ours(&file, Parallelism::Rayon, tracekit::DevTools::LATEST)
            .unwrap()
            .dump;
        assert!(sequential == parallel, "{}: output depends on threads", file.display());
    }
}

fn dump_of(bytes: &[u8]) -> (String, Vec<String>) {
    let analysis = tracekit::analyze_bytes(bytes, &tracekit::AnalyzeOptions::default()).unwrap();
    (
        tracekit::output::conformance(&analysis),
        analysis.diagnostics().warnings().map(str::to_owned).collect(),
    )
}

#[test]
fn a_trace_cut_anywhere_gives_the_tracks_of_the_trace_repaired_by_hand() {
    use std::io::Read;
    let gz = std::fs::read(root().join("fixtures/traces/main-thread.json.gz")).unwrap();
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    for fraction in [0.31, 0.5, 0.77] {
        // Cut in the middle of an event (not on a boundary).
        #[allow(clippy::cast_possible_truncation)] // a fraction of a length
        let mut cut = (text.len() as f64 * fraction) as usize;
        while !text.is_char_boundary(cut) || text[..cut].ends_with('}') {
            cut += 1;
        }
        let damaged = &text[..cut];
        // By hand: drop the partial event (Chrome writes one per line) and
        // the comma before it, close the array and the object.
        let last_event_end = damaged.rfind("},\n").expect("an event ends before the cut") + 1;
        let repaired = format!("{}]}}", &damaged[..last_event_end]);
        let (ours, warnings) = dump_of(damaged.as_bytes());
        let (expected, repaired_warnings) = dump_of(repaired.as_bytes());
        assert!(repaired_warnings.is_empty(), "{repaired_warnings:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("the trace is truncated: loading stopped at byte "),
            "{warnings:?}"
        );
        assert!(ours == expected, "cut at {cut}: tracks differ from the repaired trace");
        // Also with the trailing comma and with whitespace after it.
        let with_comma = format!("{},\n  ", &damaged[..last_event_end]);
        assert!(dump_of(with_comma.as_bytes()).0 == expected);
    }
}
