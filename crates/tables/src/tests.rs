//! The tables against the library's own outputs (the JSON formats the CLI
//! prints), on the recorded and hand-written fixtures, and the export's
//! files read back.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use serde_json::Value;
use tracekit::{Analysis, AnalyzeOptions};

use crate::export::{export, find_inputs, ExportOptions, Input};
use crate::Table;

mod page;
mod why;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Every fixture the tests load: the recorded traces and the hand-written
/// ones.
fn fixture_files() -> Vec<PathBuf> {
    let (inputs, errors) = find_inputs(&[fixtures().join("traces"), fixtures().join("handwritten")]);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(inputs.len() > 20, "fixtures found: {}", inputs.len());
    inputs.into_iter().map(|i| i.path).collect()
}

fn load(path: &Path, all_processes: bool) -> Analysis {
    let options = AnalyzeOptions::default().with_all_processes(all_processes);
    crate::load_file(path, &path.display().to_string(), &options).unwrap()
}

// Column readers: a value as JSON, so that rows compare with the CLI's
// JSON documents.

fn column<'b>(batch: &'b RecordBatch, name: &str) -> &'b dyn Array {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_ref()
}

fn string(batch: &RecordBatch, name: &str, row: usize) -> Value {
    let c = column(batch, name).as_string::<i32>();
    if c.is_null(row) {
        Value::Null
    } else {
        Value::from(c.value(row))
    }
}

fn int(batch: &RecordBatch, name: &str, row: usize) -> Option<i64> {
    let c = column(batch, name);
    if c.is_null(row) {
        return None;
    }
    Some(match c.data_type() {
        arrow_schema::DataType::Int32 => i64::from(c.as_primitive::<Int32Type>().value(row)),
        _ => c.as_primitive::<Int64Type>().value(row),
    })
}

fn float(batch: &RecordBatch, name: &str, row: usize) -> Option<f64> {
    let c = column(batch, name).as_primitive::<Float64Type>();
    (!c.is_null(row)).then(|| c.value(row))
}

/// A column's number as the JSON formats write it, then read back by the
/// same JSON reader as theirs: equal to theirs when the numbers are.
fn number(batch: &RecordBatch, name: &str, row: usize) -> Value {
    let mut text = String::new();
    match float(batch, name, row) {
        Some(x) => tracekit::support::jsnum::write_json_number(&mut text, x),
        None => text.push_str("null"),
    }
    serde_json::from_str(&text).unwrap()
}

/// The tracks table holds every node of `tracekit tracks --format json`,
/// field by field, in its order, with the parent each node's depth gives.
#[test]
fn tracks_are_the_json_format_nodes() {
    for path in fixture_files() {
        for all_processes in [false, true] {
            let analysis = load(&path, all_processes);
            let json: Value = serde_json::from_str(&tracekit::output::json(&analysis, &Default::default())).unwrap();
            let batch = Table::Tracks.build(&analysis, "t").unwrap();
            let mut row = 0;
            for process in json["processes"].as_array().unwrap() {
                for thread in process["threads"].as_array().unwrap() {
                    let mut last_at_depth: Vec<i64> = Vec::new();
                    for (i, node) in thread["nodes"].as_array().unwrap().iter().enumerate() {
                        let at = format!("{} row {row}: {node}", path.display());
                        assert_eq!(string(&batch, "trace", row), "t", "{at}");
                        assert_eq!(int(&batch, "pid", row), process["pid"].as_i64(), "{at}");
                        assert_eq!(int(&batch, "tid", row), thread["tid"].as_i64(), "{at}");
                        assert_eq!(string(&batch, "process_url", row), process["url"], "{at}");
                        assert_eq!(string(&batch, "thread_name", row), thread["name"], "{at}");
                        let depth = node["depth"].as_i64().unwrap();
                        assert_eq!(int(&batch, "depth", row), Some(depth), "{at}");
                        assert_eq!(int(&batch, "node", row), Some(i as i64), "{at}");
                        last_at_depth.truncate(usize::try_from(depth).unwrap());
                        assert_eq!(int(&batch, "parent", row), last_at_depth.last().copied(), "{at}");
                        last_at_depth.push(i as i64);
                        assert_eq!(string(&batch, "kind", row), node["type"], "{at}");
                        if node["type"] == "event" {
                            assert_eq!(string(&batch, "name", row), node["name"], "{at}");
                            assert_eq!(string(&batch, "category", row), node["cat"], "{at}");
                            assert_eq!(string(&batch, "script_url", row), Value::Null, "{at}");
                        } else {
                            assert_eq!(string(&batch, "name", row), node["functionName"], "{at}");
                            assert_eq!(string(&batch, "category", row), Value::Null, "{at}");
                            assert_eq!(string(&batch, "script_url", row), node["url"], "{at}");
                            assert_eq!(int(&batch, "line_number", row), node["lineNumber"].as_i64(), "{at}");
                            assert_eq!(int(&batch, "column_number", row), node["columnNumber"].as_i64(), "{at}");
                        }
                        assert_eq!(number(&batch, "ts_us", row), node["ts"], "{at}");
                        // No duration (an instant) is null; the JSON writes 0.
                        match float(&batch, "dur_us", row) {
                            None => assert_eq!(node["dur"], 0, "{at}"),
                            Some(_) => assert_eq!(number(&batch, "dur_us", row), node["dur"], "{at}"),
                        }
                        assert_eq!(number(&batch, "self_us", row), node["self"], "{at}");
                        row += 1;
                    }
                }
            }
            assert_eq!(row, batch.num_rows(), "{}", path.display());
        }
    }
}

/// The calls table holds the Call Tree of `tracekit calltree --format
/// json`, row for row.
#[test]
fn calls_are_the_calltree_json_rows() {
    for path in fixture_files() {
        let analysis = load(&path, false);
        let batch = Table::Calls.build(&analysis, "t").unwrap();
        let window = tracekit::views::Window::new(analysis.bounds(), None);
        if !window.is_finite() {
            assert_eq!(batch.num_rows(), 0);
            continue;
        }
        let json = tracekit::views::calltree_json(&analysis, &tracekit::views::ViewOptions::new()).unwrap();
        let json: Value = serde_json::from_str(&json).unwrap();
        let mut row = 0;
        for thread in json["threads"].as_array().unwrap() {
            for (i, node) in thread["topDown"].as_array().unwrap().iter().enumerate() {
                let at = format!("{} row {row}: {node}", path.display());
                assert_eq!(int(&batch, "pid", row), thread["pid"].as_i64(), "{at}");
                assert_eq!(int(&batch, "tid", row), thread["tid"].as_i64(), "{at}");
                assert_eq!(int(&batch, "node", row), Some(i as i64), "{at}");
                assert_eq!(int(&batch, "parent", row), node["parent"].as_i64(), "{at}");
                assert_eq!(int(&batch, "depth", row), node["depth"].as_i64(), "{at}");
                assert_eq!(string(&batch, "id", row), node["id"], "{at}");
                assert_eq!(string(&batch, "name", row), node["name"], "{at}");
                assert_eq!(string(&batch, "script_url", row), node["url"], "{at}");
                assert_eq!(int(&batch, "line_number", row), node["line"].as_i64(), "{at}");
                assert_eq!(int(&batch, "column_number", row), node["column"].as_i64(), "{at}");
                assert_eq!(number(&batch, "self_ms", row), node["selfMs"], "{at}");
                assert_eq!(number(&batch, "total_ms", row), node["totalMs"], "{at}");
                assert_eq!(int(&batch, "samples", row), node["samples"].as_i64(), "{at}");
                assert_eq!(int(&batch, "self_samples", row), node["selfCount"].as_i64(), "{at}");
                row += 1;
            }
        }
        assert_eq!(row, batch.num_rows(), "{}", path.display());
    }
}

/// Every sample of every thread is a row; each attributed to a node names
/// a JS call of its own function that was running then, and as many are
/// attributed as the Call Tree counts.
#[test]
fn samples_are_each_threads_samples() {
    let mut attributed_somewhere = false;
    for path in fixture_files() {
        let analysis = load(&path, false);
        let samples = Table::Samples.build(&analysis, "t").unwrap();
        let tracks = Table::Tracks.build(&analysis, "t").unwrap();
        let window = tracekit::views::Window::new(analysis.bounds(), None);
        let mut row = 0;
        // The first tracks row of each thread.
        let mut thread_start = 0;
        for thread in analysis.threads() {
            let track = thread.track();
            let mut attributed = 0;
            for sample in &track.samples {
                let at = format!("{} sample row {row}", path.display());
                assert_eq!(float(&samples, "ts_us", row), Some(sample.ts.0), "{at}");
                let frame = &track.js_frames[sample.frame as usize];
                assert_eq!(int(&samples, "profile_node", row), Some(frame.node_id), "{at}");
                if let Some(node) = int(&samples, "node", row) {
                    attributed += 1;
                    let t = thread_start + usize::try_from(node).unwrap();
                    assert_eq!(string(&tracks, "kind", t), "js", "{at}");
                    assert_eq!(string(&tracks, "name", t), string(&samples, "name", row), "{at}");
                    assert_eq!(
                        string(&tracks, "script_url", t),
                        string(&samples, "script_url", row),
                        "{at}"
                    );
                    // The exact times: the table's are rounded to the ns.
                    let call = &track.nodes[usize::try_from(node).unwrap()];
                    let (start, end) = (call.ts().0, call.ts().0 + call.dur().unwrap().0);
                    assert!(start <= sample.ts.0 && sample.ts.0 < end, "{at}");
                }
                row += 1;
            }
            if window.is_finite() {
                let views = tracekit::views::thread_views(&analysis, track, window).unwrap();
                if let Some(counts) = views.samples {
                    assert_eq!(attributed, counts.total[0], "{}", path.display());
                    attributed_somewhere |= attributed > 0;
                }
            }
            thread_start += track.nodes.len();
        }
        assert_eq!(row, samples.num_rows(), "{}", path.display());
    }
    assert!(attributed_somewhere);
}

/// The threads table has the threads of `tracekit info`, with their counts.
#[test]
fn threads_and_their_counts() {
    let path = fixtures().join("traces/main-thread.json.gz");
    let analysis = load(&path, true);
    let batch = Table::Threads.build(&analysis, "t").unwrap();
    let refs: Vec<_> = analysis.threads().collect();
    assert_eq!(batch.num_rows(), refs.len());
    let info = tracekit::output::info(&analysis);
    for (row, thread) in refs.iter().enumerate() {
        let nodes = int(&batch, "nodes", row).unwrap();
        let calls = int(&batch, "js_calls", row).unwrap();
        assert_eq!(int(&batch, "events", row), Some(nodes - calls));
        let name = thread.name().map(|n| format!(" {n}")).unwrap_or_default();
        let line = format!(
            "  thread {}{name}: {nodes} node{}",
            thread.tid_text(),
            if nodes == 1 { "" } else { "s" }
        );
        assert!(info.contains(&line), "{line} not in\n{info}");
        if let Some(samples) = int(&batch, "samples", row) {
            assert!(info.contains(&format!("CPU profile of {samples} sample")));
        }
    }
    // The renderer's main thread: on the main frame, shown by DevTools.
    let main = (0..batch.num_rows())
        .find(|r| string(&batch, "thread_name", *r) == "CrRendererMain")
        .unwrap();
    assert!(column(&batch, "is_on_main_frame").as_boolean().value(main));
    assert!(column(&batch, "kept_by_devtools").as_boolean().value(main));
    assert!(string(&batch, "process_url", main)
        .as_str()
        .unwrap()
        .starts_with("http"));
}

/// Skips, warnings and divergences are rows; a string pid is null in the
/// tables and counted.
#[test]
fn diagnostics_rows() {
    let trace = br#"[
{"name":"thread_name","ph":"M","pid":"browser","tid":1,"args":{"name":"Main"}},
{"ph":"X","pid":"browser","tid":1,"ts":1,"dur":1},
{"name":"A","ph":"X","pid":"browser","tid":1,"ts":"5","dur":2},
{"name":"B","ph":"X","pid":"browser","tid":1,"ts":10,"dur":2},
{"name":"C","ph":"X","pid":"browser","tid":1,"ts":12,"dur":2},
{"name":"D","ph":"X","pid":"browser","tid":1,"ts":14,"du"#;
    let analysis = crate::load_bytes(trace, "t", &AnalyzeOptions::default()).unwrap();
    let batch = Table::Diagnostics.build(&analysis, "t").unwrap();
    let rows: Vec<(Value, Value, Option<i64>)> = (0..batch.num_rows())
        .map(|r| {
            (
                string(&batch, "kind", r),
                string(&batch, "reason", r),
                int(&batch, "count", r),
            )
        })
        .collect();
    let has = |kind: &str, reason: &str, count: i64| {
        rows.iter()
            .any(|(k, r, n)| k == kind && r.as_str().is_some_and(|r| r.starts_with(reason)) && *n == Some(count))
    };
    assert!(has("skip", "event: missing name", 1), "{rows:?}");
    assert!(has("divergence", "numeric-strings", 1), "{rows:?}");
    assert!(has("warning", "the trace is truncated", 1), "{rows:?}");
    assert!(has("warning", crate::build::ODD_IDS, 1), "{rows:?}");
    let tracks = Table::Tracks.build(&analysis, "t").unwrap();
    assert!(tracks.num_rows() >= 3);
    assert_eq!(column(&tracks, "pid").null_count(), tracks.num_rows());
    assert_eq!(column(&tracks, "tid").null_count(), 0);
}

/// A trace that cannot be loaded: one `diagnostics` row with the CLI's
/// message, no row elsewhere.
#[test]
fn a_failed_trace_is_one_diagnostics_row() {
    let error = crate::load_bytes(b"{\"nothing\": 1}", "bad.json", &AnalyzeOptions::default()).unwrap_err();
    assert!(error.to_string().starts_with("bad.json: "), "{error}");
    for table in Table::ALL {
        let batch = table.build_failed("bad.json", &error);
        assert_eq!(batch.schema(), table.schema());
        if table == Table::Diagnostics {
            assert_eq!(batch.num_rows(), 1);
            assert_eq!(string(&batch, "kind", 0), "error");
            assert_eq!(string(&batch, "reason", 0), "load error: not a trace");
            assert_eq!(string(&batch, "first_example", 0), error.to_string());
        } else {
            assert_eq!(batch.num_rows(), 0);
        }
    }
}

fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracekit-tables-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The export writes each trace's rows in input order, the failed ones as
/// diagnostics, and the same bytes whatever the number of workers.
#[test]
fn export_is_ordered_and_the_same_for_any_number_of_workers() {
    let mut inputs: Vec<Input> = [
        "traces/node-work.cpuprofile.gz",
        "handwritten/trace-ids.json",
        "missing.json",
    ]
    .iter()
    .map(|p| Input {
        path: fixtures().join(p),
        name: (*p).to_owned(),
    })
    .collect();
    inputs.extend(inputs.clone());
    let mut files = Vec::new();
    for (jobs, window) in [(1, 1), (3, 3), (2, 5)] {
        let dir = out_dir(&format!("jobs{jobs}"));
        // Every table, the page tables too (their traces load with the
        // page handlers).
        let options = ExportOptions {
            jobs,
            window,
            ..ExportOptions::new().with_tables(Table::ALL)
        };
        let mut told = Vec::new();
        let summary = export(&inputs, &[], &dir, &options, |done| {
            told.push((done.index, done.error.is_some()));
        })
        .unwrap();
        assert_eq!(
            told,
            [(0, false), (1, false), (2, true), (3, false), (4, false), (5, true)]
        );
        assert_eq!(summary.traces, 6);
        assert_eq!(summary.failed.len(), 2);
        assert_eq!(summary.failed[0].trace, "missing.json");
        // The rows of each table, in input order.
        let tracks = read_parquet(&dir.join("tracks.parquet"));
        let names: Vec<String> = tracks
            .iter()
            .flat_map(|b| {
                let c = b.column(0).as_string::<i32>();
                (0..c.len()).map(|i| c.value(i).to_owned()).collect::<Vec<_>>()
            })
            .collect();
        let mut runs = names.clone();
        runs.dedup();
        assert_eq!(
            runs,
            ["traces/node-work.cpuprofile.gz", "handwritten/trace-ids.json"].repeat(2)
        );
        let one = Table::Tracks
            .build(&load(&inputs[0].path, false), "x")
            .unwrap()
            .num_rows();
        assert_eq!(
            names.iter().filter(|n| *n == "traces/node-work.cpuprofile.gz").count(),
            2 * one
        );
        let rows: u64 = summary.rows.iter().find(|(t, _)| *t == Table::Tracks).unwrap().1;
        assert_eq!(usize::try_from(rows).unwrap(), names.len());
        let diagnostics = read_parquet(&dir.join("diagnostics.parquet"));
        let errors: usize = diagnostics
            .iter()
            .map(|b| {
                let kind = b.column_by_name("kind").unwrap().as_string::<i32>();
                (0..kind.len()).filter(|i| kind.value(*i) == "error").count()
            })
            .sum();
        assert_eq!(errors, 2);
        let bytes: Vec<Vec<u8>> = Table::ALL
            .iter()
            .map(|t| std::fs::read(dir.join(format!("{t}.parquet"))).unwrap())
            .collect();
        files.push(bytes);
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(files.windows(2).all(|w| w[0] == w[1]));
}

/// Directories are walked for trace files, sorted; other files are left.
#[test]
fn directories_give_their_trace_files() {
    let dir = out_dir("walk");
    std::fs::create_dir_all(dir.join("b/c")).unwrap();
    for name in [
        "b/c/z.json",
        "b/a.cpuprofile.GZ",
        "b/notes.txt",
        ".hidden.json",
        "a.json.gz",
    ] {
        std::fs::write(dir.join(name), b"").unwrap();
    }
    let (inputs, errors) = find_inputs(std::slice::from_ref(&dir));
    assert!(errors.is_empty());
    let names: Vec<String> = inputs
        .iter()
        .map(|i| i.path.strip_prefix(&dir).unwrap().display().to_string())
        .collect();
    assert_eq!(names, ["a.json.gz", "b/a.cpuprofile.GZ", "b/c/z.json"]);
    assert_eq!(inputs[0].name, dir.join("a.json.gz").display().to_string());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A column that would hold more text than an Arrow string array indexes
/// is the trace's error, naming the column, rather than Arrow's panic:
/// here a long thread name repeated on each row of `tracks`, against a
/// lowered limit (the real one is 2 GiB).
#[test]
fn a_column_past_the_text_limit_is_an_error() {
    let long_name = "n".repeat(1000);
    let mut events = vec![serde_json::json!({
        "name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": long_name}
    })];
    for i in 0..10 {
        events.push(
            serde_json::json!({"name": "Work", "cat": "c", "ph": "X", "ts": i * 10, "dur": 5, "pid": 1, "tid": 1}),
        );
    }
    let trace = serde_json::to_vec(&serde_json::json!({ "traceEvents": events })).unwrap();
    let analysis = crate::load_bytes(&trace, "long.json", &AnalyzeOptions::default()).unwrap();
    let rows = Table::Tracks.build(&analysis, "t").unwrap().num_rows();
    assert_eq!(rows, 10);
    // The names take 10 000 bytes: the limit just below fails, at it passes.
    let error = Table::Tracks.build_within(&analysis, "t", 9_999).unwrap_err();
    assert_eq!(error.reason, "table too large");
    assert!(error.message.contains("tracks table's thread_name column"), "{error}");
    assert_eq!(
        Table::Tracks.build_within(&analysis, "t", 10_000).unwrap().num_rows(),
        rows
    );
    // The threads table has the name once.
    assert!(Table::Threads.build_within(&analysis, "t", 1_000).is_ok());
    assert!(Table::Threads.build_within(&analysis, "t", 999).is_err());
}

/// A trace whose export panics (a defect) is that trace's error, and the
/// export goes on with the next ones instead of waiting for it forever.
#[test]
fn a_trace_whose_export_panics_is_its_error() {
    let inputs: Vec<Input> = ["handwritten/trace-ids.json", "traces/node-work.cpuprofile.gz"]
        .iter()
        .map(|p| Input {
            path: fixtures().join(p),
            name: (*p).to_owned(),
        })
        .collect();
    let dir = out_dir("panics");
    let (sender, receiver) = std::sync::mpsc::channel();
    let worker = {
        let dir = dir.clone();
        std::thread::spawn(move || {
            let one = |input: &Input, options: &ExportOptions| {
                if input.name.starts_with("handwritten") {
                    panic!("a defect");
                }
                crate::export::export_one(input, options)
            };
            let summary = crate::export::export_each(&inputs, &[], &dir, &ExportOptions::new(), |_| {}, one);
            let _ = sender.send(summary);
        })
    };
    let summary = receiver
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the export ends")
        .unwrap();
    worker.join().unwrap();
    assert_eq!(summary.traces, 2);
    assert_eq!(summary.failed.len(), 1);
    assert_eq!(summary.failed[0].trace, "handwritten/trace-ids.json");
    assert_eq!(summary.failed[0].reason, "internal error");
    assert_eq!(summary.failed[0].message, "tracekit panicked: a defect");
    let tracks: usize = read_parquet(&dir.join("tracks.parquet"))
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert!(tracks > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
