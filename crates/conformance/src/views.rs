//! Compares two "calltree conformance" dumps (tracekit's and the DevTools
//! oracle's, `xtask/js/calltree.mjs`), and reads the index of the views'
//! goldens (`calltree/index.txt` of each engine's goldens).
//!
//! Rows are compared by their path of ids, so the order of siblings does
//! not matter; times are equal within 0.002 ms (both sides round to 3
//! decimals, from sums made in different orders). A depth limit applies
//! to our rows only: the oracle's dump was made with that limit already.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde_json::Value;

/// The tolerance on times, in ms.
pub const TIME_TOLERANCE_MS: f64 = 0.002;

/// One golden of the index: a trace, its golden, and the options the
/// oracle was run with.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewsCase {
    /// The trace, relative to `fixtures/`.
    pub trace: String,
    /// The golden, relative to `fixtures/expected/calltree/`.
    pub golden: String,
    /// `--window START..END`, in ms from the trace start.
    pub window: Option<(f64, f64)>,
    /// The Call Tree's depth limit (`--max-depth` or `--top-down-max-depth`).
    pub top_down_depth: Option<u32>,
    /// The Bottom-Up's depth limit (`--max-depth` or `--bottom-up-max-depth`).
    pub bottom_up_depth: Option<u32>,
    /// `--group-by KIND`, as written.
    pub group_by: Option<String>,
    /// The options as written, to pass to the oracle again.
    pub options: Vec<String>,
}

impl ViewsCase {
    /// A case from its index words: trace, golden, then options in pairs.
    pub fn parse(line: &str) -> Result<ViewsCase, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [trace, golden, options @ ..] = words.as_slice() else {
            return Err(format!("index line without a golden: {line}"));
        };
        let mut case = ViewsCase {
            trace: (*trace).to_owned(),
            golden: (*golden).to_owned(),
            window: None,
            top_down_depth: None,
            bottom_up_depth: None,
            group_by: None,
            options: options.iter().map(|&o| o.to_owned()).collect(),
        };
        let mut max_depth = None;
        let depth = |v: &str| v.parse::<u32>().map_err(|e| format!("{line}: depth {v}: {e}"));
        for pair in options.chunks(2) {
            let [option, value] = pair else {
                return Err(format!("{line}: option {} without a value", pair[0]));
            };
            match *option {
                "--window" => {
                    let bad = || format!("{line}: window {value}");
                    let (a, b) = value.split_once("..").ok_or_else(bad)?;
                    case.window = Some((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?));
                }
                "--max-depth" => max_depth = Some(depth(value)?),
                "--top-down-max-depth" => case.top_down_depth = Some(depth(value)?),
                "--bottom-up-max-depth" => case.bottom_up_depth = Some(depth(value)?),
                "--group-by" => case.group_by = Some((*value).to_owned()),
                other => return Err(format!("{line}: unknown option {other}")),
            }
        }
        case.top_down_depth = case.top_down_depth.or(max_depth);
        case.bottom_up_depth = case.bottom_up_depth.or(max_depth);
        Ok(case)
    }

    /// The query of the case's window (the depths are compared apart).
    ///
    /// # Panics
    ///
    /// On a window whose ends are not numbers in order (the index is
    /// checked in the tests).
    pub fn query(&self) -> tracekit::query::Query {
        use tracekit::query::{Query, Window};
        match self.window {
            Some((a, b)) => Query::new()
                .with_window(Window::new(tracekit::Millis(a), tracekit::Millis(b)).expect("a window of the index")),
            None => Query::new(),
        }
    }
}

/// The cases of the views' goldens of `devtools` under `root`
/// (`calltree/index.txt` of its [`crate::expected_dir`]).
pub fn views_cases(root: &Path, devtools: tracekit::DevTools) -> Result<Vec<ViewsCase>, String> {
    let path = root.join(crate::expected_dir(devtools)).join("calltree/index.txt");
    let index = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    index
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(ViewsCase::parse)
        .collect()
}

/// The views' goldens of `devtools` listed in its
/// `calltree/known-differences.txt` under `root`, with the reason (the
/// divergence's name first).
pub fn known_view_differences(root: &Path, devtools: tracekit::DevTools) -> BTreeMap<String, String> {
    let path = root
        .join(crate::expected_dir(devtools))
        .join("calltree/known-differences.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .map(|(g, reason)| (g.to_owned(), reason.to_owned()))
        .collect()
}

/// How two views dumps compare.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewsReport {
    /// Views (a thread's Call Tree or Bottom-Up) with every row equal.
    pub views_identical: usize,
    /// Views in the oracle's dump.
    pub views_total: usize,
    /// The oracle's rows that ours has, at the same path, with equal times.
    pub rows_matched: usize,
    /// Rows in the oracle's dump.
    pub rows_total: usize,
    /// The first difference found, in reading order.
    pub first_difference: Option<String>,
}

impl ViewsReport {
    /// Whether no difference was found.
    pub fn is_match(&self) -> bool {
        self.first_difference.is_none()
    }

    /// Adds `other`'s counts to these (the first difference stays the
    /// first one).
    pub fn add(&mut self, other: &ViewsReport) {
        self.views_identical += other.views_identical;
        self.views_total += other.views_total;
        self.rows_matched += other.rows_matched;
        self.rows_total += other.rows_total;
        if self.first_difference.is_none() {
            self.first_difference.clone_from(&other.first_difference);
        }
    }
}

impl fmt::Display for ViewsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "views {}/{}, rows {}/{}",
            self.views_identical, self.views_total, self.rows_matched, self.rows_total
        )?;
        if let Some(d) = &self.first_difference {
            write!(f, ", first difference: {d}")?;
        }
        Ok(())
    }
}

/// (self, total) of a row; `null` (NaN in the engine) is `None`.
type Times = (Option<f64>, Option<f64>);

/// The rows of one view by path of ids, those of depth < `max_depth`.
fn by_path(rows: &Value, max_depth: Option<u32>) -> Result<BTreeMap<Vec<String>, Times>, String> {
    let mut out = BTreeMap::new();
    let mut path: Vec<String> = Vec::new();
    for row in rows.as_array().ok_or("a view is not a list of rows")? {
        let (Some(depth), Some(id)) = (row[0].as_u64(), row[1].as_str()) else {
            return Err(format!("bad row {row}"));
        };
        let depth = usize::try_from(depth).map_err(|_| format!("bad depth in {row}"))?;
        if depth > path.len() {
            return Err(format!("row {row} skips a level"));
        }
        path.truncate(depth);
        path.push(id.to_owned());
        if max_depth.is_some_and(|m| depth >= m as usize) {
            continue;
        }
        out.insert(path.clone(), (row[2].as_f64(), row[3].as_f64()));
    }
    Ok(out)
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= TIME_TOLERANCE_MS + 1e-9,
        (None, None) => true,
        _ => false,
    }
}

/// Compares our views dump with the oracle's (both texts); our rows are
/// cut to the depth limits the oracle's dump was made with.
pub fn compare_views(
    ours: &str,
    oracle: &str,
    top_down_depth: Option<u32>,
    bottom_up_depth: Option<u32>,
) -> Result<ViewsReport, String> {
    let ours: Value = serde_json::from_str(ours).map_err(|e| format!("our views dump: {e}"))?;
    let oracle: Value = serde_json::from_str(oracle).map_err(|e| format!("the oracle's views dump: {e}"))?;
    let mut report = ViewsReport::default();
    let mut note = |s: String| {
        if report.first_difference.is_none() {
            report.first_difference = Some(s);
        }
    };
    if ours["window"] != oracle["window"] {
        note(format!("window {} vs oracle {}", ours["window"], oracle["window"]));
    }
    let threads = |v: &Value| v["threads"].as_array().cloned().unwrap_or_default();
    let (a, b) = (threads(&ours), threads(&oracle));
    if a.len() != b.len() {
        note(format!("{} threads vs oracle {}", a.len(), b.len()));
    }
    let mut counts = ViewsReport::default();
    for (t, o) in a.iter().zip(&b) {
        if t["pid"] != o["pid"] || t["tid"] != o["tid"] || t["name"] != o["name"] {
            note(format!(
                "thread {} {} {} vs oracle {} {} {}",
                t["pid"], t["tid"], t["name"], o["pid"], o["tid"], o["name"]
            ));
        }
        for (key, depth) in [("topDown", top_down_depth), ("bottomUp", bottom_up_depth)] {
            counts.views_total += 1;
            let ours = by_path(&t[key], depth)?;
            let theirs = by_path(&o[key], None)?;
            let mut same = ours.len() == theirs.len();
            counts.rows_total += theirs.len();
            for (path, (s, tot)) in &theirs {
                match ours.get(path) {
                    Some((s2, t2)) if close(*s, *s2) && close(*tot, *t2) => counts.rows_matched += 1,
                    Some((s2, t2)) => {
                        same = false;
                        note(format!(
                            "tid {} {key} {path:?}: self/total {s2:?}/{t2:?}, oracle {s:?}/{tot:?}",
                            t["tid"]
                        ));
                    }
                    None => {
                        same = false;
                        note(format!(
                            "tid {} {key} {path:?}: missing (oracle {s:?}/{tot:?})",
                            t["tid"]
                        ));
                    }
                }
            }
            if let Some(path) = ours.keys().find(|p| !theirs.contains_key(*p)) {
                note(format!("tid {} {key} {path:?}: not in the oracle's", t["tid"]));
            }
            counts.views_identical += usize::from(same);
        }
    }
    counts.first_difference = report.first_difference;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"{"threads":[{"pid":1,"tid":2,"name":"main","topDown":[[0,"A",1,3],[1,"B",2,2],[0,"C",1,1]],"bottomUp":[[0,"B",2,2],[1,"A",2,2]]}],"window":{"start":0,"end":5}}"#;

    #[test]
    fn equal_dumps_match_in_any_sibling_order() {
        let reordered = r#"{"threads":[{"pid":1,"tid":2,"name":"main","topDown":[[0,"C",1,1],[0,"A",1,3],[1,"B",2,2]],"bottomUp":[[0,"B",2,2],[1,"A",2,2]]}],"window":{"start":0,"end":5}}"#;
        let report = compare_views(reordered, DUMP, None, None).unwrap();
        assert!(report.is_match(), "{report}");
        assert_eq!((report.views_identical, report.views_total), (2, 2));
        assert_eq!((report.rows_matched, report.rows_total), (5, 5));
    }

    #[test]
    fn a_time_beyond_the_tolerance_is_a_difference() {
        let ours = DUMP.replace(r#"[1,"B",2,2]"#, r#"[1,"B",2.003,2]"#);
        let report = compare_views(&ours, DUMP, None, None).unwrap();
        assert_eq!(report.rows_matched, 4);
        assert!(report.first_difference.unwrap().contains(r#"["A", "B"]"#));
        let within = DUMP.replace(r#"[1,"B",2,2]"#, r#"[1,"B",2.002,2]"#);
        assert!(compare_views(&within, DUMP, None, None).unwrap().is_match());
    }

    #[test]
    fn extra_and_missing_rows_are_differences() {
        let extra = DUMP.replace(r#"[0,"C",1,1]"#, r#"[0,"C",1,1],[0,"D",1,1]"#);
        let report = compare_views(&extra, DUMP, None, None).unwrap();
        assert_eq!(report.views_identical, 1);
        assert!(report.first_difference.unwrap().contains("not in the oracle's"));
        let report = compare_views(DUMP, &extra, None, None).unwrap();
        assert!(report.first_difference.unwrap().contains("missing"));
    }

    #[test]
    fn a_depth_limit_cuts_our_rows_only() {
        let cut = DUMP.replace(r#",[1,"B",2,2],"#, ",").replace(r#",[1,"A",2,2]"#, "");
        assert!(compare_views(DUMP, &cut, Some(1), Some(1)).unwrap().is_match());
        assert!(!compare_views(DUMP, &cut, None, None).unwrap().is_match());
    }

    #[test]
    fn index_lines_parse_with_their_options() {
        let case =
            ViewsCase::parse("a/b.json b.json --window 1..2.5 --max-depth 3 --bottom-up-max-depth 2 --group-by url")
                .unwrap();
        assert_eq!(case.group_by.as_deref(), Some("url"));
        assert_eq!(case.window, Some((1.0, 2.5)));
        assert_eq!((case.top_down_depth, case.bottom_up_depth), (Some(3), Some(2)));
        assert_eq!(case.options.len(), 8);
        assert!(ViewsCase::parse("a.json b.json --colour red").is_err());
        assert!(ViewsCase::parse("a.json b.json --window").is_err());
        assert!(ViewsCase::parse("a.json").is_err());
    }
}
