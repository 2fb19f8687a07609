//! Compares two conformance dumps (tracekit's and the DevTools oracle's)
//! thread by thread, for the conformance harness and the fixture tests;
//! and knows where the fixtures and their goldens are. The aggregated
//! views' dumps are compared by [`views`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub mod agent;
pub mod agent_activity;
pub mod data;
pub mod insights;
pub mod lantern;
pub mod lantern_metrics;
pub mod lantern_savings;
pub mod views;

/// How two dumps compare.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Threads of the oracle's dump whose name and entries ours has
    /// exactly.
    pub threads_identical: usize,
    /// Threads in the oracle's dump.
    pub threads_total: usize,
    /// Entries equal to the oracle's at the same position of the same
    /// thread.
    pub entries_matched: usize,
    /// Entries in the oracle's dump.
    pub entries_total: usize,
    /// The first difference found, in reading order.
    pub first_difference: Option<String>,
    /// Whether the two texts are byte-identical.
    pub identical: bool,
}

impl Report {
    /// Whether no difference was found (the texts may still differ in
    /// formatting: see [`Report::identical`]).
    pub fn is_match(&self) -> bool {
        self.first_difference.is_none()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "threads {}/{}, entries {}/{}",
            self.threads_identical, self.threads_total, self.entries_matched, self.entries_total
        )?;
        if let Some(d) = &self.first_difference {
            write!(f, ", first difference: {d}")?;
        }
        Ok(())
    }
}

fn key(v: &Value, field: &str) -> String {
    v.get(field).map(|x| x.to_string()).unwrap_or_else(|| "?".into())
}

fn list<'v>(v: &'v Value, field: &str) -> &'v [Value] {
    v.get(field).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// Compares `ours` with `oracle` (both conformance dump texts).
pub fn compare(ours: &str, oracle: &str) -> Result<Report, String> {
    let a: Value = serde_json::from_str(ours).map_err(|e| format!("our dump is not JSON: {e}"))?;
    let b: Value = serde_json::from_str(oracle).map_err(|e| format!("the oracle's dump is not JSON: {e}"))?;
    let mut report = Report {
        identical: ours.trim_end() == oracle.trim_end(),
        ..Report::default()
    };
    let note = |report: &mut Report, d: String| {
        if report.first_difference.is_none() {
            report.first_difference = Some(d);
        }
    };
    if a.get("bounds") != b.get("bounds") {
        note(
            &mut report,
            format!("bounds: ours {} oracle {}", key(&a, "bounds"), key(&b, "bounds")),
        );
    }
    let ours_p = list(&a, "processes");
    let oracle_p = list(&b, "processes");
    let pids = |ps: &[Value]| ps.iter().map(|p| key(p, "pid")).collect::<Vec<_>>();
    for p in oracle_p {
        report.threads_total += list(p, "threads").len();
        report.entries_total += list(p, "threads")
            .iter()
            .map(|t| list(t, "entries").len())
            .sum::<usize>();
    }
    for (i, pb) in oracle_p.iter().enumerate() {
        let pid = key(pb, "pid");
        let Some(pa) = ours_p.iter().find(|p| key(p, "pid") == pid) else {
            note(&mut report, format!("process {pid} missing"));
            continue;
        };
        if ours_p.get(i).map(|p| key(p, "pid")) != Some(pid.clone()) {
            note(
                &mut report,
                format!("process order: ours {:?} oracle {:?}", pids(ours_p), pids(oracle_p)),
            );
        }
        for field in ["url", "isOnMainFrame"] {
            if pa.get(field) != pb.get(field) {
                note(
                    &mut report,
                    format!(
                        "process {pid} {field}: ours {} oracle {}",
                        key(pa, field),
                        key(pb, field)
                    ),
                );
            }
        }
        let ours_t = list(pa, "threads");
        for (j, tb) in list(pb, "threads").iter().enumerate() {
            let tid = key(tb, "tid");
            let Some(ta) = ours_t.iter().find(|t| key(t, "tid") == tid) else {
                note(&mut report, format!("process {pid} thread {tid} missing"));
                continue;
            };
            if ours_t.get(j).map(|t| key(t, "tid")) != Some(tid.clone()) {
                note(&mut report, format!("process {pid}: thread order differs at {tid}"));
            }
            if ta.get("name") != tb.get("name") {
                note(
                    &mut report,
                    format!("thread {tid} name: ours {} oracle {}", key(ta, "name"), key(tb, "name")),
                );
            }
            let (ea, eb) = (list(ta, "entries"), list(tb, "entries"));
            let matched = ea.iter().zip(eb).filter(|(x, y)| x == y).count();
            report.entries_matched += matched;
            if ea == eb && ta.get("name") == tb.get("name") {
                report.threads_identical += 1;
            } else if let Some(k) = (0..ea.len().max(eb.len())).find(|&k| ea.get(k) != eb.get(k)) {
                note(
                    &mut report,
                    format!(
                        "process {pid} thread {tid} entry {k}: ours {} oracle {}",
                        ea.get(k).map_or("(none)".into(), Value::to_string),
                        eb.get(k).map_or("(none)".into(), Value::to_string)
                    ),
                );
            }
        }
        for ta in ours_t {
            let tid = key(ta, "tid");
            if !list(pb, "threads").iter().any(|t| key(t, "tid") == tid) {
                note(&mut report, format!("process {pid} thread {tid}: ours only"));
            }
        }
    }
    for pa in ours_p {
        let pid = key(pa, "pid");
        if !oracle_p.iter().any(|p| key(p, "pid") == pid) {
            note(&mut report, format!("process {pid}: ours only"));
        }
    }
    Ok(report)
}

/// Fixture directories, and the directory under an engine's goldens
/// ([`expected_dir`]) where the oracle's goldens of each go, relative to
/// the workspace root.
pub const FIXTURE_SETS: &[(&str, &str)] = &[
    ("fixtures/traces", ""),
    ("fixtures/handwritten", "handwritten"),
    ("fixtures/repaired", "repaired"),
];

/// Where the goldens of the DevTools engine `devtools` are, relative to
/// the workspace root: `fixtures/expected/NAME` (`2026-10`, ...). Each
/// engine's directory has the same layout: the tracks' goldens of
/// [`FIXTURE_SETS`], `calltree/` and `summary/` (the views'), and
/// [`ENGINE_FILE`].
pub fn expected_dir(devtools: tracekit::DevTools) -> PathBuf {
    Path::new("fixtures/expected").join(devtools.name())
}

/// The file of an engine's golden directory that records which engine
/// wrote them: its first line is the engine's description
/// ([`tracekit::DevTools::description`]), as the oracle reports it from
/// the packages it loaded.
pub const ENGINE_FILE: &str = "ENGINE";

/// Checks that the goldens under `root` for `devtools` were written by
/// that engine (their [`ENGINE_FILE`]).
pub fn check_engine_file(root: &Path, devtools: tracekit::DevTools) -> Result<(), String> {
    let path = root.join(expected_dir(devtools)).join(ENGINE_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let made_by = text.lines().next().unwrap_or_default();
    if made_by != devtools.description() {
        return Err(format!(
            "{}: the goldens of DevTools {} were written by `{made_by}`, not `{}`",
            path.display(),
            devtools.name(),
            devtools.description()
        ));
    }
    Ok(())
}

/// A generic trace of `depth` calls nested in each other on pid 1, tid 1,
/// each a function of its own: the Bottom-Up's worst case (a node per call
/// and caller, `depth² / 2`; `docs/views.md`), made on the fly for the
/// tests of its budget.
pub fn deep_distinct_nesting(depth: usize) -> Vec<u8> {
    let events: Vec<String> = (0..depth)
        .map(|i| {
            let dur = 2 * (depth - i);
            format!(r#"{{"name":"e{i}","cat":"c","ph":"X","ts":{i},"dur":{dur},"pid":1,"tid":1}}"#)
        })
        .collect();
    format!(r#"{{"traceEvents":[{}]}}"#, events.join(",\n")).into_bytes()
}

/// The trace files of a fixture directory, sorted.
pub fn fixture_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if !dir.exists() {
        return Ok(files);
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_file() && !name.ends_with(".md") && !name.starts_with('.') {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The golden's file name for a trace, as `xtask/js/oracle.mjs` names it:
/// one `.gz`, then one `.json` or `.cpuprofile`, come off; `.json` goes on.
pub fn golden_name(trace: &Path) -> String {
    let name = trace.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let name = name
        .strip_suffix(".json")
        .or_else(|| name.strip_suffix(".cpuprofile"))
        .unwrap_or(name);
    format!("{name}.json")
}

/// tracekit's conformance dump of a file, with the documented divergences
/// from DevTools that the engine met on the way.
pub struct Ours {
    /// The dump ([`tracekit::output::conformance`]).
    pub dump: String,
    /// Each divergence met, by name, with its first example.
    pub divergences: BTreeMap<String, String>,
}

/// Loads `file` with default options (but `parallelism` and the DevTools
/// engine followed) and dumps it; an unreadable file or a failed load is
/// the error's text.
pub fn run_ours(file: &Path, parallelism: tracekit::Parallelism, devtools: tracekit::DevTools) -> Result<Ours, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let options = tracekit::AnalyzeOptions::default()
        .with_parallelism(parallelism)
        .with_devtools(devtools);
    let analysis = tracekit::analyze_bytes(&bytes, &options).map_err(|e| e.to_string())?;
    Ok(Ours {
        dump: tracekit::output::conformance(&analysis),
        divergences: analysis
            .diagnostics()
            .divergences()
            .map(|(d, example)| (d.as_str().to_owned(), example.to_owned()))
            .collect(),
    })
}

/// The divergence names documented in `docs/divergences.md` (its `## name`
/// headings).
pub fn documented_divergences(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("docs/divergences.md")).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|l| l.split_whitespace().next().unwrap_or("").trim_matches('`').to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"{"processes":[{"pid":1,"url":null,"isOnMainFrame":false,"threads":[{"tid":2,"name":"a","entries":[[0,"X",1,2,2],[1,"Y",1,1,1]]}]}],"bounds":{"min":1,"max":3}}"#;

    #[test]
    fn identical_dumps_match() {
        let r = compare(DUMP, DUMP).unwrap();
        assert!(r.is_match() && r.identical);
        assert_eq!(
            (r.threads_identical, r.threads_total, r.entries_matched, r.entries_total),
            (1, 1, 2, 2)
        );
    }

    #[test]
    fn reports_the_first_difference() {
        let other = DUMP.replace("[1,\"Y\",1,1,1]", "[1,\"Y\",1,1,0.5]");
        let r = compare(&other, DUMP).unwrap();
        assert!(!r.is_match());
        assert_eq!(r.entries_matched, 1);
        assert_eq!(
            r.first_difference.unwrap(),
            r#"process 1 thread 2 entry 1: ours [1,"Y",1,1,0.5] oracle [1,"Y",1,1,1]"#
        );
    }
}
