//! The data conformance dumps compared: tracekit's
//! (`Analysis::data_conformance`) with the DevTools engine's
//! (`devtools-data.mjs`), handler by handler, as the oracle's
//! `compare-data.py` compares them: a `"$KEY"` value is compared where it
//! is referred to, with the synthetic event's fields on both sides; numbers
//! are equal within 0.002 (absolute) or 1e-9 (relative).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// One handler of two dumps compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerReport {
    /// The handler's DevTools name.
    pub name: String,
    /// The values of the expected dump that ours matched.
    pub matched: usize,
    /// The values of the expected dump (and those ours has in excess).
    pub total: usize,
    /// The first difference: where, and what.
    pub first_difference: Option<String>,
}

impl HandlerReport {
    /// Whether the handler's data is identical.
    pub fn identical(&self) -> bool {
        self.first_difference.is_none()
    }
}

/// Two dumps compared, for the handlers of the expected dump that were
/// asked for.
#[derive(Debug, Clone, Default)]
pub struct DataReport {
    /// Each handler compared, by name.
    pub handlers: Vec<HandlerReport>,
}

impl DataReport {
    /// How many handlers are identical.
    pub fn identical(&self) -> usize {
        self.handlers.iter().filter(|h| h.identical()).count()
    }

    /// The values matched and the values compared, over every handler.
    pub fn values(&self) -> (usize, usize) {
        self.handlers
            .iter()
            .fold((0, 0), |(m, t), h| (m + h.matched, t + h.total))
    }
}

/// Compares our dump with the expected one (the DevTools engine's), for
/// the handlers named in `only` (every handler of the expected dump when
/// empty). A handler missing from ours counts every value as unmatched.
pub fn compare_data(expected: &str, ours: &str, only: &[&str]) -> Result<DataReport, String> {
    let expected: Value = serde_json::from_str(expected).map_err(|e| format!("the expected dump: {e}"))?;
    let ours: Value = serde_json::from_str(ours).map_err(|e| format!("our dump: {e}"))?;
    let empty = Map::new();
    let synthetic = |doc: &Value| doc.get("synthetic").and_then(Value::as_object).cloned();
    let (expected_synthetic, our_synthetic) = (
        synthetic(&expected).unwrap_or_default(),
        synthetic(&ours).unwrap_or_default(),
    );
    let handlers = |doc: &Value| doc.get("handlers").and_then(Value::as_object).cloned();
    let (expected_handlers, our_handlers) = (
        handlers(&expected).unwrap_or_default(),
        handlers(&ours).unwrap_or_else(|| empty.clone()),
    );
    let mut report = DataReport::default();
    for (name, value) in &expected_handlers {
        if !only.is_empty() && !only.contains(&name.as_str()) {
            continue;
        }
        let mut walk = Walk {
            expected_synthetic: &expected_synthetic,
            our_synthetic: &our_synthetic,
            seen: BTreeSet::new(),
            matched: 0,
            total: 0,
            first: None,
        };
        let (matched, total, first_difference) =
            walk.part(value, our_handlers.get(name), name, "the handler is missing");
        report.handlers.push(HandlerReport {
            name: name.clone(),
            matched,
            total,
            first_difference,
        });
    }
    Ok(report)
}

pub(crate) struct Walk<'a> {
    pub(crate) expected_synthetic: &'a Map<String, Value>,
    pub(crate) our_synthetic: &'a Map<String, Value>,
    pub(crate) seen: BTreeSet<String>,
    pub(crate) matched: usize,
    pub(crate) total: usize,
    pub(crate) first: Option<String>,
}

impl Walk<'_> {
    /// Compares one part (a handler's data, an insight's model) afresh:
    /// every value of `expected` unmatched, with `missing` as the first
    /// difference, when ours has none. Returns the values matched, the
    /// values compared and the first difference.
    pub(crate) fn part(
        &mut self,
        expected: &Value,
        ours: Option<&Value>,
        path: &str,
        missing: &str,
    ) -> (usize, usize, Option<String>) {
        self.matched = 0;
        self.total = 0;
        self.first = None;
        match ours {
            Some(ours) => self.value(expected, ours, path),
            None => {
                self.total = leaves(expected).max(1);
                self.first = Some(missing.to_owned());
            }
        }
        (self.matched, self.total, self.first.take())
    }

    fn differ(&mut self, path: &str, what: String) {
        if self.first.is_none() {
            self.first = Some(format!("{path}: {what}"));
        }
    }

    /// Compares two values; iterative over the nesting of the values (a
    /// worklist), recursive only into a synthetic event's fields, once per
    /// event.
    pub(crate) fn value(&mut self, expected: &Value, ours: &Value, path: &str) {
        // An item is two values to compare, or (with no expected value) a
        // member ours has in excess, reported after its siblings.
        let mut work: Vec<(Option<&Value>, &Value, String)> = vec![(Some(expected), ours, path.to_owned())];
        while let Some((e, a, path)) = work.pop() {
            let Some(e) = e else {
                self.total += 1;
                self.differ(&path, format!("not expected: {}", short(a)));
                continue;
            };
            if let Some(key) = self.synthetic_ref(e) {
                self.total += 1;
                if a.as_str() != e.as_str() {
                    self.differ(&path, format!("expected {}, got {}", short(e), short(a)));
                    continue;
                }
                self.matched += 1;
                if self.seen.insert(key.to_owned()) {
                    match self.our_synthetic.get(key) {
                        None => self.differ(&path, format!("{} missing from synthetic", short(e))),
                        Some(ours) => {
                            let expected = &self.expected_synthetic[key];
                            self.value(expected, ours, &format!("synthetic[{key}]"));
                        }
                    }
                }
                continue;
            }
            match (e, a) {
                (Value::Object(eo), Value::Object(ao)) => {
                    for (k, v) in ao.iter().rev().filter(|(k, _)| !eo.contains_key(*k)) {
                        work.push((None, v, format!("{path}.{k}")));
                    }
                    for (k, v) in eo.iter().rev() {
                        match ao.get(k) {
                            Some(av) => work.push((Some(v), av, format!("{path}.{k}"))),
                            None => {
                                self.total += leaves(v).max(1);
                                self.differ(&format!("{path}.{k}"), "missing".to_owned());
                            }
                        }
                    }
                }
                (Value::Array(el), Value::Array(al)) => {
                    if el.len() != al.len() {
                        self.total += el.len().abs_diff(al.len());
                        self.differ(&path, format!("expected {} items, got {}", el.len(), al.len()));
                    }
                    for (i, (x, y)) in el.iter().zip(al).enumerate().rev() {
                        work.push((Some(x), y, format!("{path}[{i}]")));
                    }
                }
                (Value::Object(_) | Value::Array(_), _) => {
                    self.total += leaves(e).max(1);
                    self.differ(&path, format!("expected {}, got {}", short(e), short(a)));
                }
                (Value::Number(x), Value::Number(y)) => {
                    self.total += 1;
                    let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                    if (x - y).abs() <= 0.002 || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()) {
                        self.matched += 1;
                    } else {
                        self.differ(&path, format!("expected {x}, got {y}"));
                    }
                }
                _ => {
                    self.total += 1;
                    if e == a {
                        self.matched += 1;
                    } else {
                        self.differ(&path, format!("expected {}, got {}", short(e), short(a)));
                    }
                }
            }
        }
    }

    /// The synthetic key a `"$KEY"` value refers to, if it refers to one.
    fn synthetic_ref<'v>(&self, value: &'v Value) -> Option<&'v str> {
        let key = value.as_str()?.strip_prefix('$')?;
        (!key.starts_with("str:") && !key.starts_with("cycle") && self.expected_synthetic.contains_key(key))
            .then_some(key)
    }
}

/// The leaves of a value (what a missing value counts as).
pub(crate) fn leaves(value: &Value) -> usize {
    let mut count = 0;
    let mut work = vec![value];
    while let Some(v) = work.pop() {
        match v {
            Value::Object(o) => work.extend(o.values()),
            Value::Array(a) => work.extend(a),
            _ => count += 1,
        }
    }
    count
}

/// A value's JSON text, cut to 120 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// Where the data goldens of an engine are, relative to the workspace
/// root: `fixtures/expected/NAME/data`, a golden per fixture of the sets
/// that are Chrome traces (a profile on its own has no handler data).
pub fn data_dir(devtools: tracekit::DevTools) -> PathBuf {
    crate::expected_dir(devtools).join("data")
}

/// The fixtures whose data is compared, with the path of each one's
/// golden (which exists only where the oracle could read the fixture): the
/// Chrome traces of the fixture sets (a profile on its own has no handler
/// data).
pub fn data_fixtures(devtools: tracekit::DevTools) -> std::io::Result<Vec<(PathBuf, PathBuf)>> {
    let mut out = Vec::new();
    for (dir, under) in crate::FIXTURE_SETS {
        for file in crate::fixture_files(Path::new(dir))? {
            let name = file.to_string_lossy();
            if name.ends_with(".cpuprofile") || name.ends_with(".cpuprofile.gz") {
                continue;
            }
            let golden = data_dir(devtools).join(under).join(crate::golden_name(&file));
            out.push((file, golden));
        }
    }
    Ok(out)
}

/// The handlers known to differ from the golden of a fixture, from the
/// data directory's `known-differences.txt`: lines `FIXTURE HANDLER: WHY`
/// (FIXTURE as in [`data_fixtures`], relative to the workspace root).
pub fn known_differences(root: &Path, devtools: tracekit::DevTools) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root.join(data_dir(devtools)).join("known-differences.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (head, _why) = l.split_once(':')?;
            let (fixture, handler) = head.trim().split_once(' ')?;
            Some((fixture.to_owned(), handler.trim().to_owned()))
        })
        .collect()
}

/// A file loaded with every handler, as `devtools` answers: what the
/// handler data, the insights and Lantern are compared on.
pub fn load_with_all_handlers(file: &Path, devtools: tracekit::DevTools) -> Result<tracekit::Analysis, String> {
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let options = tracekit::AnalyzeOptions::default()
        .with_devtools(devtools)
        .with_all_handlers(true);
    tracekit::analyze_bytes(&bytes, &options).map_err(|e| e.to_string())
}

/// tracekit's data conformance dump of a file, with every handler.
pub fn run_ours_data(file: &Path, devtools: tracekit::DevTools) -> Result<String, String> {
    let analysis = load_with_all_handlers(file, devtools)?;
    analysis.data_conformance(&[]).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPECTED: &str = r##"{"handlers":{"A":{"x":["$S:1:1:5"],"n":1.0},"B":{"y":"#3"}},
        "synthetic":{"S:1:1:5":{"f":[1,2]}}}"##;

    #[test]
    fn identical_dumps_match_every_value() {
        let report = compare_data(EXPECTED, EXPECTED, &[]).unwrap();
        assert_eq!(report.identical(), 2);
        assert_eq!(report.values(), (5, 5));
    }

    #[test]
    fn a_synthetic_event_is_compared_where_it_is_referred_to() {
        let ours = r##"{"handlers":{"A":{"x":["$S:1:1:5"],"n":1.0015},"B":{"y":"#3"}},
            "synthetic":{"S:1:1:5":{"f":[1,3]}}}"##;
        let report = compare_data(EXPECTED, ours, &["A"]).unwrap();
        assert_eq!(report.handlers.len(), 1);
        let a = &report.handlers[0];
        assert_eq!((a.matched, a.total), (3, 4));
        assert_eq!(
            a.first_difference.as_deref(),
            Some("synthetic[S:1:1:5].f[1]: expected 2, got 3")
        );
    }

    #[test]
    fn missing_and_extra_values_count() {
        let ours = r##"{"handlers":{"A":{"x":[],"n":1,"extra":0}},"synthetic":{}}"##;
        let report = compare_data(EXPECTED, ours, &[]).unwrap();
        assert_eq!(report.identical(), 0);
        let b = &report.handlers[1];
        assert_eq!(b.first_difference.as_deref(), Some("the handler is missing"));
        assert_eq!(
            report.handlers[0].first_difference.as_deref(),
            Some("A.x: expected 1 items, got 0")
        );
    }
}
