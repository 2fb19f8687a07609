//! End to end: `tracekit convert` and `tracekit flamegraph` (issue 8).
//! Each export is read back by the real tool it is made for: speedscope's
//! app in headless Chromium, `go tool pprof`, Perfetto's own Python
//! bindings, inferno; and every format keeps each thread's self time, on
//! every recorded fixture. The tools install themselves on first use
//! (`support/tools.rs`).

#[path = "support/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use tracekit::query::{Query, Window};
use tracekit::Millis;
use tracekit::{AnalyzeOptions, NodeKind, Parallelism};

/// A fixture of `fixtures/traces/`.
fn fixture(name: &str) -> PathBuf {
    tools::root().join("fixtures/traces").join(name)
}

/// Runs tracekit: (exit code, stdout, stderr).
fn tracekit(args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs tracekit, which must succeed quietly; its stdout.
fn tracekit_ok(args: &[&str]) -> Vec<u8> {
    let (code, stdout, stderr) = tracekit(args);
    assert_eq!((code, stderr.as_str()), (Some(0), ""), "tracekit {args:?}");
    stdout
}

/// Runs a tool, which must succeed; its stdout.
fn run(command: &mut Command) -> String {
    let shown = format!("{command:?}");
    let output = command.output().unwrap_or_else(|e| panic!("running {shown}: {e}"));
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the tool prints UTF-8")
}

/// A thread of the tracks, as the exports must keep it.
#[derive(Debug)]
struct ExpectedThread {
    pid: String,
    /// `CrRendererMain (tid 2)`.
    label: String,
    name: Option<String>,
    tid: String,
    /// The self times of its nodes, added up, in µs.
    self_us: f64,
    nodes: usize,
    /// Its JS calls, and those whose function has a URL or a line.
    js_calls: usize,
    js_located: usize,
}

/// The threads with nodes of an analysis, in the formats' order.
fn expected_threads(analysis: &tracekit::Analysis) -> Vec<ExpectedThread> {
    let mut out = Vec::new();
    for thread in analysis.threads() {
        let track = thread.track();
        if track.nodes.is_empty() {
            continue;
        }
        let js: Vec<_> = track
            .nodes
            .iter()
            .filter(|n| matches!(n.kind(), NodeKind::Call { .. }))
            .collect();
        let located = js
            .iter()
            .filter(|n| {
                track.js_frame(&n.kind()).is_some_and(|f| {
                    let url = analysis.strings().resolve(f.call_frame.url);
                    !url.is_empty() || f.call_frame.line_number.is_some_and(|l| l >= 0.0)
                })
            })
            .count();
        out.push(ExpectedThread {
            pid: thread.pid().to_js_string(analysis.strings()),
            label: thread.to_string(),
            name: thread.name().map(str::to_owned),
            tid: thread.tid_text(),
            self_us: track.nodes.iter().filter_map(|n| n.self_time()).map(|t| t.0).sum(),
            nodes: track.nodes.len(),
            js_calls: js.len(),
            js_located: located,
        });
    }
    out
}

/// The pid in a process label (`Renderer (pid 12) http://…` or `pid 12`).
fn pid_in(process_label: &str) -> String {
    let at = process_label.find("pid ").expect("a process label names its pid") + 4;
    process_label[at..]
        .split([')', ' '])
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn assert_close(what: &str, got: f64, expected: f64, tolerance: f64) {
    assert!(
        (got - expected).abs() <= tolerance,
        "{what}: {got} where the tracks have {expected} (tolerance {tolerance})"
    );
}

/// The self time of each profile of a speedscope file, in its unit: each
/// frame's time open less its children's, from the open and close events.
fn speedscope_self_times(file: &Value) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for profile in file["profiles"].as_array().expect("profiles") {
        let mut stack: Vec<(u64, f64, f64)> = Vec::new();
        let mut self_time = 0.0;
        let mut last = f64::NEG_INFINITY;
        for event in profile["events"].as_array().expect("events") {
            let (frame, at) = (event["frame"].as_u64().unwrap(), event["at"].as_f64().unwrap());
            assert!(at >= last, "speedscope events go back in time at {at}");
            last = at;
            match event["type"].as_str() {
                Some("O") => stack.push((frame, at, 0.0)),
                Some("C") => {
                    let (open, start, children) = stack.pop().expect("a close with a frame open");
                    assert_eq!(open, frame, "frames close in the order they opened");
                    self_time += at - start - children;
                    if let Some(parent) = stack.last_mut() {
                        parent.2 += at - start;
                    }
                }
                other => panic!("event type {other:?}"),
            }
        }
        assert!(stack.is_empty(), "every frame closes");
        assert!(profile["startValue"].as_f64().unwrap() <= profile["events"][0]["at"].as_f64().unwrap());
        out.push((profile["name"].as_str().unwrap().to_owned(), self_time));
    }
    out
}

/// The values of the fields of a protobuf message, by field number, in
/// order: numbers for varints, bytes for length-delimited fields. A
/// decoder of its own, so that the test does not read pprof with the code
/// that wrote it.
fn protobuf_fields(mut buf: &[u8]) -> Vec<(u64, Result<u64, &[u8]>)> {
    fn varint(buf: &mut &[u8]) -> u64 {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = buf[0];
            *buf = &buf[1..];
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
        }
        value
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf);
        let value = match key & 7 {
            0 => Ok(varint(&mut buf)),
            2 => {
                let len = usize::try_from(varint(&mut buf)).unwrap();
                let (bytes, rest) = buf.split_at(len);
                buf = rest;
                Err(bytes)
            }
            wire => panic!("pprof uses no wire type {wire}"),
        };
        out.push((key >> 3, value));
    }
    out
}

/// The time (ns) of a pprof profile's samples, by their `process` and
/// `thread` labels, and the names of its sample types.
fn pprof_time_by_thread(gzipped: &[u8]) -> (BTreeMap<(String, String), i64>, Vec<String>) {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gzipped), &mut bytes).expect("pprof is gzipped");
    let fields = protobuf_fields(&bytes);
    let strings: Vec<String> = fields
        .iter()
        .filter(|(n, _)| *n == 6)
        .map(|(_, v)| String::from_utf8(v.unwrap_err().to_vec()).unwrap())
        .collect();
    let string = |i: u64| strings[usize::try_from(i).unwrap()].clone();
    let sample_types = fields
        .iter()
        .filter(|(n, _)| *n == 1)
        .map(|(_, v)| {
            let vt = protobuf_fields(v.unwrap_err());
            format!("{}/{}", string(vt[0].1.unwrap()), string(vt[1].1.unwrap()))
        })
        .collect();
    let mut by_thread = BTreeMap::new();
    for (_, sample) in fields.iter().filter(|(n, _)| *n == 2) {
        let mut values = Vec::new();
        let (mut process, mut thread) = (String::new(), String::new());
        for (n, v) in protobuf_fields(sample.unwrap_err()) {
            match (n, v) {
                (2, Ok(x)) => values.push(i64::try_from(x).unwrap()),
                (2, Err(packed)) => {
                    values.extend(
                        protobuf_fields_packed(packed)
                            .into_iter()
                            .map(|x| i64::try_from(x).unwrap()),
                    );
                }
                (3, Err(label)) => {
                    let label = protobuf_fields(label);
                    let (key, value) = (string(label[0].1.unwrap()), string(label[1].1.unwrap()));
                    match key.as_str() {
                        "process" => process = value,
                        "thread" => thread = value,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        *by_thread.entry((process, thread)).or_insert(0) += values[1];
    }
    (by_thread, sample_types)
}

/// Varints one after the other (a packed repeated field).
fn protobuf_fields_packed(buf: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut value = 0u64;
    let mut shift = 0;
    for &byte in buf {
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            out.push(value);
            (value, shift) = (0, 0);
        }
    }
    out
}

/// For every recorded fixture (all processes), every format keeps each
/// thread's self time: what speedscope, a flame graph tool, d3 and pprof
/// compute from the export adds up to the tracks' own self times (Perfetto:
/// `perfetto_trace_decodes_with_perfettos_python_bindings`).
#[test]
fn every_format_keeps_each_threads_self_time_on_the_recorded_fixtures() {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(tools::root().join("fixtures/traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 5, "the recorded fixtures are there");
    let options = AnalyzeOptions::default()
        .with_all_processes(true)
        .with_parallelism(Parallelism::Rayon);
    let filter = Query::new();
    for path in &fixtures {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let analysis = tracekit::analyze_bytes(&std::fs::read(path).unwrap(), &options).unwrap();
        let expected = expected_threads(&analysis);
        assert!(!expected.is_empty(), "{name} has threads");
        let by_key: BTreeMap<(String, String), &ExpectedThread> =
            expected.iter().map(|t| ((t.pid.clone(), t.label.clone()), t)).collect();

        // speedscope: a profile per thread, in order, in µs.
        let speedscope: Value = serde_json::from_str(&tracekit::export::speedscope(
            &analysis,
            &filter,
            Parallelism::Sequential,
        ))
        .unwrap();
        let profiles = speedscope_self_times(&speedscope);
        assert_eq!(
            profiles.len(),
            expected.len(),
            "{name}: a speedscope profile per thread"
        );
        for ((profile, self_us), thread) in profiles.iter().zip(&expected) {
            assert!(
                profile.starts_with(&format!("{} in ", thread.label)),
                "{name}: {profile}"
            );
            let tolerance = 1e-3 + thread.self_us * 1e-9;
            assert_close(
                &format!("{name} speedscope {profile}"),
                *self_us,
                thread.self_us,
                tolerance,
            );
        }

        // Folded stacks: whole µs per line, a thread's lines add up to its
        // self time rounded.
        let folded = tracekit::export::folded(&analysis, &filter, Parallelism::Sequential);
        let mut folded_us: BTreeMap<(String, String), i64> = BTreeMap::new();
        for line in folded.lines() {
            let (stack, value) = line.rsplit_once(' ').expect("STACK VALUE");
            let mut frames = stack.split(';');
            let (process, thread) = (frames.next().unwrap(), frames.next().unwrap());
            assert!(
                frames.next().is_some(),
                "{name}: a line has frames after its thread: {line}"
            );
            *folded_us.entry((pid_in(process), thread.to_owned())).or_default() += value.parse::<i64>().unwrap();
        }
        for (key, thread) in &by_key {
            let got = folded_us.get(key).copied().unwrap_or(0) as f64;
            assert_close(&format!("{name} folded {key:?}"), got, thread.self_us, 0.5 + 1e-6);
        }
        assert!(
            folded_us.keys().all(|k| by_key.contains_key(k)),
            "{name}: folded threads are the tracks'"
        );

        // d3: a node per process, then per thread; values are totals, in µs.
        let d3 = tracekit::export::d3(&analysis, &filter, Parallelism::Sequential);
        // Stacks are deeper than serde_json's default limit.
        let mut reader = serde_json::Deserializer::from_str(&d3);
        reader.disable_recursion_limit();
        let d3: Value = reader.into_iter().next().unwrap().unwrap();
        let mut d3_threads = Vec::new();
        for process in d3["children"].as_array().unwrap() {
            for thread in process["children"].as_array().unwrap() {
                d3_threads.push((pid_in(process["name"].as_str().unwrap()), thread.clone()));
            }
        }
        assert_eq!(d3_threads.len(), expected.len(), "{name}: a d3 node per thread");
        for ((pid, node), thread) in d3_threads.iter().zip(&expected) {
            assert_eq!(
                (pid, node["name"].as_str().unwrap()),
                (&thread.pid, thread.label.as_str())
            );
            // A node's self time is its value less its children's: they
            // add up to the thread's value, which must be its self time.
            let tolerance = 1e-3 * thread.nodes as f64;
            assert_close(
                &format!("{name} d3 {}", thread.label),
                node["value"].as_f64().unwrap(),
                thread.self_us,
                tolerance,
            );
            let mut todo = vec![node];
            while let Some(node) = todo.pop() {
                let children = node["children"].as_array().unwrap();
                let sum: f64 = children.iter().map(|c| c["value"].as_f64().unwrap()).sum();
                assert!(
                    sum <= node["value"].as_f64().unwrap() + 1e-3 * children.len() as f64,
                    "{name}: d3 children fit in their parent"
                );
                todo.extend(children);
            }
        }

        // pprof: the time of a thread's samples, in ns.
        let (pprof_ns, sample_types) =
            pprof_time_by_thread(&tracekit::export::pprof(&analysis, &filter, Parallelism::Sequential));
        assert_eq!(sample_types, ["calls/count", "time/nanoseconds"]);
        for ((process, thread_label), ns) in &pprof_ns {
            let thread = by_key[&(pid_in(process), thread_label.clone())];
            assert_close(
                &format!("{name} pprof {thread_label}"),
                *ns as f64 / 1000.0,
                thread.self_us,
                1e-3,
            );
        }
        assert_eq!(pprof_ns.len(), expected.len(), "{name}: pprof has every thread");
    }
}

/// The subset of JSON Schema (draft 7) that speedscope's schema uses,
/// checked strictly: a keyword the validator does not know is a failure,
/// so that a new version of the schema cannot pass unchecked.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let schema = schema.as_object().expect("a schema is an object");
    for (keyword, rule) in schema {
        match keyword.as_str() {
            "title" | "$schema" | "definitions" => {}
            "$ref" => {
                let name = rule
                    .as_str()
                    .unwrap()
                    .strip_prefix("#/definitions/")
                    .expect("a local $ref");
                validate(root, &root["definitions"][name], value, at)?;
            }
            "anyOf" => {
                let options = rule.as_array().unwrap();
                if !options.iter().any(|s| validate(root, s, value, at).is_ok()) {
                    return Err(format!("{at}: matches none of {rule}"));
                }
            }
            "type" => {
                let ok = match rule.as_str().unwrap() {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "number" => value.is_number(),
                    "integer" => value.is_i64() || value.is_u64(),
                    "boolean" => value.is_boolean(),
                    "null" => value.is_null(),
                    other => panic!("type {other}"),
                };
                if !ok {
                    return Err(format!("{at}: not of type {rule}: {value}"));
                }
            }
            "const" if value != rule => return Err(format!("{at}: {value} is not {rule}")),
            "const" => {}
            "enum" if !rule.as_array().unwrap().contains(value) => return Err(format!("{at}: {value} not in {rule}")),
            "enum" => {}
            "required" => {
                for key in rule.as_array().unwrap() {
                    if value.get(key.as_str().unwrap()).is_none() {
                        return Err(format!("{at}: {key} is missing"));
                    }
                }
            }
            "properties" => {
                for (key, property) in rule.as_object().unwrap() {
                    if let Some(v) = value.get(key) {
                        validate(root, property, v, &format!("{at}.{key}"))?;
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    validate(root, rule, item, &format!("{at}[{i}]"))?;
                }
            }
            other => panic!("the schema uses {other}, which this validator does not check"),
        }
    }
    Ok(())
}

#[test]
fn speedscope_export_is_valid_against_the_schema_speedscope_ships() {
    let schema_path = tools::node_packages().join("speedscope/dist/release/file-format-schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(&schema_path).unwrap()).unwrap();
    let trace = fixture("main-thread.json.gz");
    let export: Value = serde_json::from_slice(&tracekit_ok(&[
        "convert",
        trace.to_str().unwrap(),
        "--to",
        "speedscope",
        "--all-processes",
    ]))
    .unwrap();
    validate(&schema, &schema, &export, "$").unwrap();
    assert!(export["profiles"].as_array().unwrap().len() > 5);
    // The validator tells broken files apart.
    for (path, broken) in [
        ("/shared", Value::Null),
        ("/profiles/0/events/0/type", "X".into()),
        ("/profiles/0/unit", "ticks".into()),
        ("/profiles/0/events/0/at", "0".into()),
        ("/$schema", "speedscope".into()),
    ] {
        let mut file = export.clone();
        *file.pointer_mut(path).unwrap() = broken;
        if path == "/shared" {
            file.as_object_mut().unwrap().remove("shared");
        }
        assert!(
            validate(&schema, &schema, &file, "$").is_err(),
            "{path} broken is invalid"
        );
    }
}

#[test]
fn speedscope_app_loads_the_export_and_shows_the_threads() {
    let node_modules = tools::node_packages();
    tools::browser();
    let dir = tools::artifacts("exports-speedscope");
    let export = dir.join("main-thread.speedscope.json");
    let trace = fixture("main-thread.json.gz");
    tracekit_ok(&[
        "convert",
        trace.to_str().unwrap(),
        "--to",
        "speedscope",
        "-o",
        export.to_str().unwrap(),
    ]);
    let report = run(Command::new("node")
        .arg(tools::root().join("crates/cli/tests/support/speedscope.mjs"))
        .arg(&node_modules)
        .arg(&export)
        .arg(dir.join("speedscope.png")));
    let report: Value = serde_json::from_str(report.lines().last().unwrap()).unwrap();
    assert_eq!(report["errors"], Value::Array(Vec::new()), "{report}");
    assert_eq!(report["imported"], true, "{report}");
    assert_eq!(report["title"], "Chrome trace - speedscope");
    // It opens on the main thread, and lists every thread.
    let toolbar = report["toolbar"].as_str().unwrap();
    assert!(
        toolbar.contains("CrRendererMain (tid 19383) in Renderer (pid 19383)"),
        "{toolbar}"
    );
    let analysis = tracekit::analyze_bytes(&std::fs::read(&trace).unwrap(), &AnalyzeOptions::default()).unwrap();
    let listed = report["profiles"].as_array().unwrap();
    for thread in expected_threads(&analysis) {
        assert!(
            listed
                .iter()
                .any(|p| p.as_str().unwrap().contains(&format!("{} in ", thread.label))),
            "{} listed in {listed:?}",
            thread.label
        );
    }
}

/// A duration as `go tool pprof -top` prints it: in ms, and half its last
/// printed digit, the tolerance of a comparison.
#[derive(Debug, Clone, Copy)]
struct PrintedMs {
    ms: f64,
    tolerance: f64,
}

/// A row of `go tool pprof -top`.
#[derive(Debug)]
struct PprofRow {
    name: String,
    flat: PrintedMs,
    cum: PrintedMs,
}

/// `1.25s`, `248.84ms`, `950us`, `0`.
fn pprof_ms(text: &str) -> PrintedMs {
    let (number, unit) = text.split_at(
        text.find(|c: char| c.is_ascii_alphabetic() || c == 'µ')
            .unwrap_or(text.len()),
    );
    let scale = match unit {
        "s" => 1000.0,
        "ms" | "" => 1.0,
        "us" | "µs" => 1e-3,
        "ns" => 1e-6,
        other => panic!("unit {other}"),
    };
    let decimals = number.split_once('.').map_or(0, |(_, d)| d.len());
    let half_digit = 0.5 * 10f64.powi(-i32::try_from(decimals).unwrap());
    PrintedMs {
        ms: number.parse::<f64>().unwrap() * scale,
        tolerance: half_digit * scale,
    }
}

/// `go tool pprof -top` reads the export of a main thread; the JS
/// functions it ranks first by flat time are the Bottom-Up's first by self
/// time, in the same order; their flat time is the self time the tracks
/// give them (summed over their calls) and their cum time the Bottom-Up's
/// total. (The Bottom-Up's self time of a JS function is a little more
/// than the flat time: it also counts the events under it that the panel's
/// tree views hide, `V8.*` ones, which in the tracks, and so in the
/// exports, are calls of their own.)
#[test]
fn go_tool_pprof_reads_the_export_and_ranks_functions_as_the_bottom_up() {
    let go = tools::go();
    let dir = tools::artifacts("exports-pprof");
    let trace = fixture("main-thread.json.gz");
    let trace = trace.to_str().unwrap();
    let export = dir.join("main-thread.pb.gz");
    tracekit_ok(&[
        "convert",
        trace,
        "--to",
        "pprof",
        "--thread",
        "CrRendererMain",
        "-o",
        export.to_str().unwrap(),
    ]);
    let (home, cache) = (dir.join("home"), dir.join("gocache"));
    let top = run(Command::new(&go)
        .args(["tool", "pprof", "-top", "-nodecount=1000"])
        .arg(&export)
        .env("HOME", &home)
        .env("GOCACHE", &cache)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("PPROF_TMPDIR", &dir));
    std::fs::write(dir.join("top.txt"), &top).unwrap();
    assert!(top.contains("Type: time"), "{top}");
    // `flat flat% sum% cum cum% NAME`.
    let rows: Vec<PprofRow> = top
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"))
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            PprofRow {
                name: cols[5..].join(" "),
                flat: pprof_ms(cols[0]),
                cum: pprof_ms(cols[3]),
            }
        })
        .collect();
    assert!(rows.len() > 20, "{top}");

    // The tracks: each JS function's self time, summed over its calls,
    // by name (pprof's -top shows names); and the names of several
    // functions, or of a function and an event, which -top would merge.
    let tracks: Value = serde_json::from_slice(&tracekit_ok(&[
        "tracks",
        trace,
        "--format",
        "json",
        "--thread",
        "CrRendererMain",
    ]))
    .unwrap();
    let mut js_self: BTreeMap<String, f64> = BTreeMap::new();
    let mut locations: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for node in tracks["processes"][0]["threads"][0]["nodes"].as_array().unwrap() {
        let name = match node["type"].as_str().unwrap() {
            "js" => node["functionName"].as_str().unwrap().to_owned(),
            _ => node["name"].as_str().unwrap().to_owned(),
        };
        let place = format!("{}{}{}", node["type"], node["url"], node["lineNumber"]);
        locations.entry(name.clone()).or_default().insert(place);
        if node["type"] == "js" {
            *js_self.entry(name).or_default() += node["self"].as_f64().unwrap() / 1000.0;
        }
    }
    let bottom_up: Value = serde_json::from_slice(&tracekit_ok(&[
        "calltree",
        trace,
        "--format",
        "json",
        "--thread",
        "CrRendererMain",
        "--max-depth",
        "1",
    ]))
    .unwrap();
    let js_of_bottom_up = bottom_up["threads"][0]["bottomUp"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["id"].as_str().unwrap().starts_with("f:"));
    let field = |key: &'static str| move |n: &Value| (n["name"].as_str().unwrap().to_owned(), n[key].as_f64().unwrap());
    let bottom_up: BTreeMap<String, f64> = js_of_bottom_up.clone().map(field("totalMs")).collect();
    let bottom_up_self: BTreeMap<String, f64> = js_of_bottom_up.map(field("selfMs")).collect();

    let unique = |name: &str| locations.get(name).is_some_and(|l| l.len() == 1);
    let top_js: Vec<_> = rows
        .iter()
        .filter(|row| js_self.contains_key(&row.name) && unique(&row.name))
        .take(10)
        .collect();
    assert_eq!(top_js.len(), 10, "{top}");
    for PprofRow { name, flat, cum } in &top_js {
        assert_close(
            &format!("pprof flat of {name}"),
            flat.ms,
            js_self[name],
            flat.tolerance + 1e-6,
        );
        assert_close(
            &format!("pprof cum of {name}"),
            cum.ms,
            bottom_up[name],
            cum.tolerance + 1e-6,
        );
    }
    // pprof ranks them as the tracks' self times do, and its heaviest is
    // the Bottom-Up's heaviest JS function.
    let mut by_self: Vec<(&String, &f64)> = js_self.iter().filter(|(name, _)| unique(name)).collect();
    by_self.sort_by(|a, b| b.1.total_cmp(a.1));
    let ranked: Vec<&String> = top_js.iter().map(|row| &row.name).collect();
    assert_eq!(
        ranked,
        by_self.iter().take(10).map(|(name, _)| *name).collect::<Vec<_>>()
    );
    // The Bottom-Up ranks the heaviest JS functions by self time as pprof
    // does, with a little more time each (up to a tenth here: the hidden
    // events under them).
    let mut bottom_up_ranked: Vec<(&String, &f64)> = bottom_up_self.iter().filter(|(name, _)| unique(name)).collect();
    bottom_up_ranked.sort_by(|a, b| b.1.total_cmp(a.1));
    for (row, (name, self_ms)) in top_js.iter().zip(&bottom_up_ranked).take(8) {
        assert_eq!(&row.name, *name, "pprof ranks as the Bottom-Up");
        let flat = row.flat.ms;
        assert!(
            flat <= **self_ms + row.flat.tolerance && flat >= 0.9 * **self_ms,
            "{name}: pprof flat {flat} ms, Bottom-Up self {self_ms} ms"
        );
    }
}

/// Perfetto's Python bindings decode the export of every recorded fixture:
/// every slice of a track ends inside its parent, there is a slice per
/// track node, and the processes and threads are named; the self time of
/// each thread's slices is the tracks'.
#[test]
fn perfetto_trace_decodes_with_perfettos_python_bindings() {
    let python = tools::python_with("perfetto==0.59.1", "perfetto.protos.perfetto.trace.perfetto_trace_pb2");
    let dir = tools::artifacts("exports-perfetto");
    let script = tools::root().join("crates/cli/tests/support/perfetto_check.py");
    for name in ["kitchen-sink.json.gz", "node-work.cpuprofile.gz"] {
        let trace = fixture(name);
        let export = dir.join(format!("{name}.pftrace"));
        tracekit_ok(&[
            "convert",
            trace.to_str().unwrap(),
            "--to",
            "perfetto",
            "--all-processes",
            "-o",
            export.to_str().unwrap(),
        ]);
        let report: Value = serde_json::from_str(&run(Command::new(&python).arg(&script).arg(&export))).unwrap();
        assert_eq!(report["errors"], Value::Array(Vec::new()), "{name}: {report}");
        let options = AnalyzeOptions::default()
            .with_all_processes(true)
            .with_parallelism(Parallelism::Rayon);
        let analysis = tracekit::analyze_bytes(&std::fs::read(&trace).unwrap(), &options).unwrap();
        let expected = expected_threads(&analysis);
        let tracks = report["threads"].as_array().unwrap();
        assert_eq!(tracks.len(), expected.len(), "{name}: a track per thread");
        for (track, thread) in tracks.iter().zip(&expected) {
            let what = format!("{name} {}", thread.label);
            assert_eq!(track["pid"].to_string(), thread.pid, "{what}");
            assert_eq!(track["tid"].to_string(), thread.tid, "{what}");
            assert_eq!(track["thread"].as_str(), thread.name.as_deref(), "{what}");
            assert_eq!(track["slices"], thread.nodes, "{what}: a slice per node");
            assert_eq!(track["jsSlices"], thread.js_calls, "{what}: JS calls");
            assert_eq!(
                track["jsWithLocation"], thread.js_located,
                "{what}: JS calls with a location"
            );
            let tolerance = 1e-3 * thread.nodes as f64;
            assert_close(&what, track["selfUs"].as_f64().unwrap(), thread.self_us, tolerance);
            let process = analysis
                .processes()
                .find(|p| p.pid().to_js_string(analysis.strings()) == thread.pid);
            let process_name = process.and_then(|p| p.name());
            assert_eq!(track["process"].as_str(), process_name, "{what}: the process's name");
        }
        if name == "kitchen-sink.json.gz" {
            let renderer = tracks.iter().find(|t| t["thread"] == "CrRendererMain").unwrap();
            assert_eq!(renderer["process"], "Renderer");
            assert_eq!(
                renderer["processLabels"][0],
                "http://a.test:32883/kitchen-sink.html?scale=1"
            );
        }
    }
}

/// The value of the root frame (`all`) of an inferno SVG, in µs.
fn svg_total(svg: &str) -> i64 {
    let at = svg.find("<title>all (").expect("the root frame") + "<title>all (".len();
    let number: String = svg[at..]
        .chars()
        .take_while(|c| *c != ' ')
        .filter(|c| *c != ',')
        .collect();
    number.parse().unwrap()
}

/// inferno's flame graph of folded stacks, its colours chosen by name
/// (at random otherwise).
fn inferno_svg(folded: &str) -> String {
    let mut options = inferno::flamegraph::Options::default();
    options.hash = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.lines(), &mut svg).unwrap();
    String::from_utf8(svg).unwrap()
}

/// A CPU profile where two functions' frames start alike (`f a.js:1:2`
/// and `f a.js:1:20`): the first is too narrow to draw, the second is
/// the widest. Once sorted, the second's lines come between the first's
/// own line and its callee's, so merging the first's stacks would move the
/// second.
fn frames_starting_alike() -> Vec<u8> {
    let node = |id: u32, name: &str, url: &str, column: u32, children: &str| {
        format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"{url}","lineNumber":0,"columnNumber":{column}}},"children":[{children}]}}"#
        )
    };
    let nodes = [
        node(1, "(root)", "", 0, "2,3,6"),
        node(2, "f", "a.js", 1, "4"),
        node(3, "f", "a.js", 19, "5"),
        node(4, "c", "a.js", 5, ""),
        node(5, "d", "a.js", 7, ""),
        node(6, "g", "", 0, ""),
    ];
    format!(
        r#"{{"nodes":[{}],"startTime":0,"endTime":10000450,"samples":[2,4,2,3,5,2,6],"timeDeltas":[0,50,60,70,80,10000000,90]}}"#,
        nodes.join(",")
    )
    .into_bytes()
}

#[test]
fn the_stacks_merged_for_drawing_draw_the_same_flame_graph() {
    let min_width = inferno::flamegraph::Options::default().min_width;
    let mut traces: Vec<(String, Vec<u8>)> = std::fs::read_dir(tools::root().join("fixtures/traces"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&path).unwrap(),
            )
        })
        .collect();
    traces.sort();
    traces.push(("frames starting alike".into(), frames_starting_alike()));
    let options = AnalyzeOptions::default().with_all_processes(true);
    let (mut lines, mut lines_to_draw) = (0, 0);
    for (name, bytes) in &traces {
        let analysis = tracekit::analyze_bytes(bytes, &options).unwrap();
        let length = (analysis.bounds().max - analysis.bounds().min).to_millis().0;
        let windows = [None, Window::new(Millis(length / 3.0), Millis(2.0 * length / 3.0)).ok()];
        for window_ms in windows {
            let filter = match window_ms {
                Some(window) => Query::new().with_window(window),
                None => Query::new(),
            };
            let folded = tracekit::export::folded(&analysis, &filter, Parallelism::Sequential);
            let to_draw = tracekit::export::folded_to_draw(&analysis, &filter, Parallelism::Sequential, min_width);
            if folded.is_empty() {
                // Nothing ran in the window: nothing to draw either way.
                assert_eq!(to_draw, "", "{name} {window_ms:?}");
                continue;
            }
            assert_eq!(inferno_svg(&to_draw), inferno_svg(&folded), "{name} {window_ms:?}");
            lines += folded.lines().count();
            lines_to_draw += to_draw.lines().count();
        }
    }
    // Many of the recordings' stacks are too narrow to draw (on these
    // small recordings, a fifth of the lines; on the bench trace, most).
    assert!(lines_to_draw * 10 < lines * 9, "{lines_to_draw} of {lines} lines");

    // The narrow function whose frame a wider one's starts with keeps its
    // stacks apart.
    let analysis = tracekit::analyze_bytes(&frames_starting_alike(), &options).unwrap();
    let to_draw = tracekit::export::folded_to_draw(&analysis, &Query::new(), Parallelism::Sequential, min_width);
    assert!(to_draw.contains("f a.js:1:2;c a.js:1:6 60\n"), "{to_draw}");
}

#[test]
fn folded_stacks_read_back_in_inferno_and_the_flame_graph_names_the_threads() {
    let dir = tools::artifacts("exports-flamegraph");
    let trace = fixture("main-thread.json.gz");
    let trace = trace.to_str().unwrap();
    let folded = String::from_utf8(tracekit_ok(&["convert", trace, "--to", "folded"])).unwrap();
    let total: i64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
        .sum();
    // inferno reads the folded stacks back: its root is their total.
    let mut options = inferno::flamegraph::Options::default();
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.lines(), &mut svg).unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert_eq!(svg_total(&svg), total);
    for thread in ["CrRendererMain (tid 19383)", "Compositor (tid"] {
        assert!(svg.contains(thread), "{thread}");
    }

    // `tracekit flamegraph` draws the same stacks.
    let graph = dir.join("main-thread.svg");
    tracekit_ok(&["flamegraph", trace, "-o", graph.to_str().unwrap()]);
    let graph = std::fs::read_to_string(graph).unwrap();
    assert_eq!(svg_total(&graph), total);
    assert!(graph.contains("Flame graph: ") && graph.contains("CrRendererMain (tid 19383)"));
    assert_eq!(
        String::from_utf8(tracekit_ok(&["flamegraph", trace, "--folded"])).unwrap(),
        folded
    );

    // The Bottom-Up: an icicle of each function's callers, below its thread.
    let icicle = dir.join("main-thread-bottom-up.svg");
    tracekit_ok(&[
        "flamegraph",
        trace,
        "--thread",
        "CrRendererMain",
        "--bottom-up",
        "-o",
        icicle.to_str().unwrap(),
    ]);
    let icicle = std::fs::read_to_string(icicle).unwrap();
    assert!(icicle.contains("Bottom-Up: ") && icicle.contains("CrRendererMain (tid 19383)"));
    let bottom_up = String::from_utf8(tracekit_ok(&[
        "flamegraph",
        trace,
        "--thread",
        "CrRendererMain",
        "--bottom-up",
        "--folded",
    ]))
    .unwrap();
    assert_eq!(
        svg_total(&icicle),
        bottom_up
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
            .sum::<i64>()
    );
    let leaf_trig = bottom_up
        .lines()
        .find(|l| l.split(';').nth(2).is_some_and(|f| f.starts_with("leafTrig ")))
        .expect("leafTrig's callers");
    assert!(leaf_trig.starts_with("Renderer (pid 19383) "), "{leaf_trig}");
}

#[test]
fn convert_errors() {
    let trace = fixture("main-thread.json.gz");
    let trace = trace.to_str().unwrap();
    let (code, _, stderr) = tracekit(&[
        "convert",
        trace,
        "--to",
        "pprof",
        "--thread",
        "nosuchthread",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.starts_with(&format!("tracekit: {trace}: no thread matches 'nosuchthread'")),
        "{stderr}"
    );
    let (code, _, stderr) = tracekit(&["convert", trace, "--to", "svg"]);
    assert_eq!(code, Some(2));
    assert!(stderr.starts_with("tracekit: invalid value 'svg'"), "{stderr}");
    let (code, _, stderr) = tracekit(&["flamegraph", trace, "--window", "0..0.0001", "--thread", "Compositor"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("nothing to draw"), "{stderr}");
}

#[test]
fn a_window_clips_the_exports_to_it() {
    let trace = fixture("main-thread.json.gz");
    let trace = trace.to_str().unwrap();
    let window = ["--thread", "CrRendererMain", "--window", "1000..1100"];
    let folded = String::from_utf8(tracekit_ok(
        &[&["convert", trace, "--to", "folded"][..], &window].concat(),
    ))
    .unwrap();
    let total: i64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
        .sum();
    // The self time inside a window adds up to the time of the roots
    // inside it.
    let tracks: Value = serde_json::from_slice(&tracekit_ok(&[
        "tracks",
        trace,
        "--format",
        "json",
        "--thread",
        "CrRendererMain",
    ]))
    .unwrap();
    let origin = tracks["bounds"]["min"].as_f64().unwrap();
    let (start, end) = (origin + 1_000_000.0, origin + 1_100_000.0);
    let roots_inside: f64 = tracks["processes"][0]["threads"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"] == 0)
        .map(|n| {
            let (ts, dur) = (n["ts"].as_f64().unwrap(), n["dur"].as_f64().unwrap());
            ((ts + dur).min(end) - ts.max(start)).max(0.0)
        })
        .sum();
    assert!(roots_inside > 10_000.0, "the window is busy: {roots_inside} µs");
    assert_close("folded in a window", total as f64, roots_inside, 0.5 + 1e-6);
    let speedscope: Value = serde_json::from_slice(&tracekit_ok(
        &[&["convert", trace, "--to", "speedscope"][..], &window].concat(),
    ))
    .unwrap();
    let events = speedscope["profiles"][0]["events"].as_array().unwrap();
    let times: Vec<f64> = events.iter().map(|e| e["at"].as_f64().unwrap()).collect();
    // (To float precision: the window is in ms from the trace start.)
    assert!(
        times.iter().all(|t| (999_999.99..=1_100_000.01).contains(t)),
        "times inside the window"
    );
    let (_, self_us) = &speedscope_self_times(&speedscope)[0];
    assert_close("speedscope in a window", *self_us, roots_inside, 1e-3);
}

/// The source maps fixture's profile, exported with its map.
fn sourcemaps_export(to: &str, out: &std::path::Path) {
    let root = tools::root().join("fixtures/sourcemaps");
    tracekit_ok(&[
        "convert",
        root.join("bundle.cpuprofile").to_str().unwrap(),
        "--to",
        to,
        "--source-maps",
        root.join("bundle.js.map").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
}

#[test]
fn go_tool_pprof_reads_the_original_names_of_a_source_mapped_export() {
    let go = tools::go();
    let dir = tools::artifacts("exports-pprof-sourcemaps");
    let export = dir.join("bundle.pb.gz");
    sourcemaps_export("pprof", &export);
    let top = run(Command::new(&go)
        .args(["tool", "pprof", "-top", "-nodecount=1000"])
        .arg(&export)
        .env("HOME", dir.join("home"))
        .env("GOCACHE", dir.join("gocache"))
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("PPROF_TMPDIR", &dir));
    let names: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(5))
        .collect();
    for name in ["runPrimes", "sieveOfEratosthenes", "countWordFrequencies"] {
        assert!(names.contains(&name), "{name}: {top}");
    }
    assert!(!names.contains(&"h"), "a minified name: {top}");
}

#[test]
fn perfettos_python_bindings_read_the_original_names_of_a_source_mapped_export() {
    let python = tools::python_with("perfetto==0.59.1", "perfetto.protos.perfetto.trace.perfetto_trace_pb2");
    let dir = tools::artifacts("exports-perfetto-sourcemaps");
    let export = dir.join("bundle.pftrace");
    sourcemaps_export("perfetto", &export);
    let script = tools::root().join("crates/cli/tests/support/perfetto_check.py");
    let report: Value = serde_json::from_str(&run(Command::new(&python).arg(&script).arg(&export))).unwrap();
    assert_eq!(report["errors"], Value::Array(Vec::new()), "{report}");
    let names: Vec<&str> = report["threads"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["jsNames"].as_array().unwrap())
        .filter_map(Value::as_str)
        .collect();
    for name in ["runPrimes", "sieveOfEratosthenes", "countWordFrequencies"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    assert!(!names.contains(&"h"), "a minified name: {names:?}");
}
