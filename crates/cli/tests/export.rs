//! End to end: `tracekit export --parquet` (issue 11). The Parquet files
//! are read back with the parquet crate and with DuckDB (from the pinned
//! Python environment of `bindings/python/requirements-test.txt`), and
//! their rows per trace are those of `tracekit tracks --format json`; bad
//! files in the batch are reported as `tracekit tracks` reports them, are
//! rows of `diagnostics`, and do not stop the others.

#[path = "support/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use serde_json::Value;

/// Runs tracekit: (exit code, stdout, stderr).
fn tracekit(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .expect("tracekit runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

/// The values of a string column, over all batches.
fn strings(batches: &[RecordBatch], name: &str) -> Vec<Option<String>> {
    batches
        .iter()
        .flat_map(|b| {
            let c = b.column_by_name(name).unwrap().as_string::<i32>();
            c.iter().map(|v| v.map(str::to_owned)).collect::<Vec<_>>()
        })
        .collect()
}

/// The recorded fixtures, with a file that is no trace and one that does
/// not exist: (the export's directory, the fixtures, the two bad paths).
/// `name` is the directory under `target/test-artifacts/`.
fn export_with_bad_files(name: &str) -> (PathBuf, Vec<String>, [String; 2]) {
    let dir = tools::artifacts(name);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"traceEvents\": 5}").unwrap();
    let missing = dir.join("missing.json");
    let fixtures = tools::root().join("fixtures/traces");
    let out = dir.join("parquet");
    let args = [
        "export".to_owned(),
        fixtures.display().to_string(),
        bad.display().to_string(),
        missing.display().to_string(),
        "--parquet".to_owned(),
        out.display().to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = tracekit(&args);
    assert_eq!(code, Some(1), "a batch with failures exits 1; stderr:\n{stderr}");
    assert_eq!(stdout, "");
    // Each bad file gets the line `tracekit tracks` gives it.
    let bad_paths = [bad.display().to_string(), missing.display().to_string()];
    for path in &bad_paths {
        let (code, _, alone) = tracekit(&["tracks", path]);
        assert_eq!(code, Some(1));
        assert!(stderr.contains(&alone), "{alone} not in\n{stderr}");
    }
    let mut found: Vec<String> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    found.sort();
    assert!(
        stderr.contains(&format!(
            "exported {} traces (2 failed) to {}",
            found.len() + 2,
            out.display()
        )),
        "{stderr}"
    );
    (out, found, bad_paths)
}

/// Track nodes per thread `(pid, tid)`, in order.
type NodesPerThread = Vec<((i64, i64), usize)>;

/// Track nodes per thread of `tracekit tracks --format json`.
fn json_nodes(trace: &str) -> NodesPerThread {
    let (code, stdout, stderr) = tracekit(&["tracks", trace, "--format", "json", "-q"]);
    assert_eq!(code, Some(0), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let mut out = Vec::new();
    for p in json["processes"].as_array().unwrap() {
        for t in p["threads"].as_array().unwrap() {
            let key = (p["pid"].as_i64().unwrap(), t["tid"].as_i64().unwrap());
            out.push((key, t["nodes"].as_array().unwrap().len()));
        }
    }
    out
}

#[test]
fn export_reads_back_as_the_tracks_of_each_trace() {
    let (out, fixtures, bad) = export_with_bad_files("export");
    let tracks = read_parquet(&out.join("tracks.parquet"));
    // Rows per trace and thread, in the order written.
    let mut rows: Vec<(String, NodesPerThread)> = Vec::new();
    for batch in &tracks {
        let trace = batch.column_by_name("trace").unwrap().as_string::<i32>();
        let pid = batch
            .column_by_name("pid")
            .unwrap()
            .as_primitive::<arrow_array::types::Int64Type>();
        let tid = batch
            .column_by_name("tid")
            .unwrap()
            .as_primitive::<arrow_array::types::Int64Type>();
        for i in 0..batch.num_rows() {
            let key = (pid.value(i), tid.value(i));
            if rows.last().is_none_or(|(t, _)| t != trace.value(i)) {
                rows.push((trace.value(i).to_owned(), Vec::new()));
            }
            let threads = &mut rows.last_mut().unwrap().1;
            match threads.last_mut() {
                Some((k, n)) if *k == key => *n += 1,
                _ => threads.push((key, 1)),
            }
        }
    }
    let traces: Vec<&String> = rows.iter().map(|(t, _)| t).collect();
    assert_eq!(traces, fixtures.iter().collect::<Vec<_>>(), "the traces, in order");
    for (trace, threads) in &rows {
        assert_eq!(threads, &json_nodes(trace), "{trace}");
    }
    // The failures are diagnostics; every table reads back.
    let diagnostics = read_parquet(&out.join("diagnostics.parquet"));
    let kinds = strings(&diagnostics, "kind");
    let traces = strings(&diagnostics, "trace");
    let errors: Vec<&str> = kinds
        .iter()
        .zip(&traces)
        .filter(|(k, _)| k.as_deref() == Some("error"))
        .map(|(_, t)| t.as_deref().unwrap())
        .collect();
    assert_eq!(errors, bad.iter().map(String::as_str).collect::<Vec<_>>());
    for table in ["calls", "samples", "threads"] {
        let batches = read_parquet(&out.join(format!("{table}.parquet")));
        assert!(batches.iter().map(RecordBatch::num_rows).sum::<usize>() > 0, "{table}");
    }
}

#[test]
fn duckdb_reads_the_export() {
    let (out, fixtures, _) = export_with_bad_files("export-duckdb");
    let python = tools::python_requirements("python", "bindings/python/requirements-test.txt");
    let script = r#"
import json, sys, duckdb
out = sys.argv[1]
counts = duckdb.sql(f"select trace, count(*) from '{out}/tracks.parquet' group by trace order by trace").fetchall()
tables = {t: duckdb.sql(f"select count(*) from '{out}/{t}.parquet'").fetchall()[0][0]
          for t in ["tracks", "calls", "samples", "threads", "diagnostics"]}
errors = duckdb.sql(f"select count(*) from '{out}/diagnostics.parquet' where kind = 'error'").fetchall()[0][0]
print(json.dumps({"counts": dict(counts), "tables": tables, "errors": errors}))
"#;
    let output = Command::new(&python)
        .args(["-c", script])
        .arg(&out)
        .output()
        .expect("python runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let expected: BTreeMap<String, usize> = fixtures
        .iter()
        .map(|f| (f.clone(), json_nodes(f).iter().map(|(_, n)| n).sum()))
        .collect();
    let counts: BTreeMap<String, usize> = answer["counts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), usize::try_from(v.as_u64().unwrap()).unwrap()))
        .collect();
    assert_eq!(counts, expected);
    assert_eq!(answer["errors"], 2);
    for table in ["tracks", "calls", "samples", "threads", "diagnostics"] {
        assert!(answer["tables"][table].as_u64().unwrap() > 0, "{table}: {answer}");
    }
}

/// `tracekit export TRACE --parquet OUT --tables TABLES -q`, which must
/// succeed without a word.
fn export_tables(trace: &Path, out: &Path, tables: &str) {
    let (code, _, stderr) = tracekit(&[
        "export",
        &trace.display().to_string(),
        "--parquet",
        &out.display().to_string(),
        "--tables",
        tables,
        "-q",
    ]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
}

#[test]
fn tables_flag_chooses_the_files() {
    let dir = tools::artifacts("export-tables");
    let out = dir.join("parquet");
    let trace = tools::root().join("fixtures/traces/node-work.cpuprofile.gz");
    export_tables(&trace, &out, "threads,tracks");
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["threads.parquet", "tracks.parquet"]);
    let threads = read_parquet(&out.join("threads.parquet"));
    assert_eq!(strings(&threads, "trace"), [Some(trace.display().to_string())]);
    let (code, _, stderr) = tracekit(&["export", "x.json", "--parquet", "o", "--tables", "nodes"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("tracekit: invalid value 'nodes'"), "{stderr}");
}

/// The page tables are written when `--tables` names them: the traces
/// load with the page handlers (13 requests on the page load).
#[test]
fn page_tables_are_written_when_asked_for() {
    let dir = tools::artifacts("export-page-tables");
    let out = dir.join("parquet");
    let trace = tools::root().join("fixtures/traces/page-load.json.gz");
    export_tables(
        &trace,
        &out,
        "requests,navigations,layout_shifts,interactions,user_timings",
    );
    let rows = |table: &str| -> usize {
        read_parquet(&out.join(format!("{table}.parquet")))
            .iter()
            .map(|b| b.num_rows())
            .sum()
    };
    assert_eq!(rows("requests"), 13);
    assert_eq!(rows("navigations"), 1);
    for table in ["layout_shifts", "interactions", "user_timings"] {
        assert!(rows(table) > 0, "{table}");
    }
    let requests = read_parquet(&out.join("requests.parquet"));
    assert!(strings(&requests, "url")[0]
        .as_deref()
        .unwrap()
        .starts_with("http://a.test:"));
}

/// `--threads N` is how many traces load at once; the files are the same
/// byte for byte whatever N.
#[test]
fn the_files_are_the_same_whatever_the_threads() {
    let dir = tools::artifacts("export-threads");
    let fixtures = tools::root().join("fixtures/traces").display().to_string();
    let files = |threads: &str| {
        let out = dir.join(format!("threads-{threads}"));
        let (code, _, stderr) = tracekit(&[
            "export",
            &fixtures,
            "--parquet",
            &out.display().to_string(),
            "--threads",
            threads,
            "-q",
        ]);
        assert_eq!((code, stderr.as_str()), (Some(0), ""));
        ["tracks", "calls", "samples", "threads", "diagnostics"]
            .map(|t| std::fs::read(out.join(format!("{t}.parquet"))).unwrap())
    };
    let one = files("1");
    assert!(one.iter().all(|f| f.len() > 100));
    assert!(one == files("3"), "--threads 1 and 3 wrote different files");
}

/// A directory with no trace file in it is an error, not an empty export.
#[test]
fn a_directory_without_traces_is_an_error() {
    let dir = tools::artifacts("export-no-traces");
    let empty = dir.join("empty");
    std::fs::create_dir_all(empty.join("sub")).unwrap();
    std::fs::write(empty.join("notes.txt"), "not a trace").unwrap();
    let out = dir.join("parquet");
    let (code, _, stderr) = tracekit(&[
        "export",
        &empty.display().to_string(),
        "--parquet",
        &out.display().to_string(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tracekit: {}: no trace files in this directory",
            empty.display()
        )),
        "{stderr}"
    );
    let diagnostics = read_parquet(&out.join("diagnostics.parquet"));
    assert_eq!(
        strings(&diagnostics, "reason"),
        [Some("load error: no traces".to_owned())]
    );
}
