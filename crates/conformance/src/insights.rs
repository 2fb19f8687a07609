//! The insight sets of two data conformance dumps compared: tracekit's
//! (`tracekit insights --format conformance`) with the DevTools engine's
//! (`devtools-data.mjs`), set by set (matched by their navigation) and
//! insight by insight, by the rules of the handlers' comparison
//! ([`crate::data`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::data::Walk;

/// One insight of one set compared (or the set itself: its id, URL,
/// frame, bounds and navigation, under the name `(set)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsightRow {
    /// The set's navigation (`#N`), or `none`.
    pub set: String,
    /// DevTools' key of the insight, or `(set)`.
    pub insight: String,
    /// The values of the expected model that ours matched.
    pub matched: usize,
    /// The values compared.
    pub total: usize,
    /// The first difference, if any.
    pub first_difference: Option<String>,
    /// Whether tracekit does not compute this insight (a missing model).
    pub missing: bool,
}

/// Every set and insight of two dumps compared.
#[derive(Debug, Clone, Default)]
pub struct InsightsReport {
    /// The rows, set by set.
    pub rows: Vec<InsightRow>,
}

/// The members a set has besides its model.
const SET_MEMBERS: &[&str] = &["id", "url", "frameId", "bounds", "navigation", "modelErrors"];

/// Compares the insight sets of our dump with the expected one's.
pub fn compare_insights(expected: &str, ours: &str) -> Result<InsightsReport, String> {
    let expected: Value = serde_json::from_str(expected).map_err(|e| format!("the expected dump: {e}"))?;
    let ours: Value = serde_json::from_str(ours).map_err(|e| format!("our dump: {e}"))?;
    let synthetic = |doc: &Value| {
        doc.get("synthetic")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (expected_synthetic, our_synthetic) = (synthetic(&expected), synthetic(&ours));
    let sets = |doc: &Value| -> Vec<(String, Value)> {
        let list = doc
            .get("insights")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        list.into_iter().map(|s| (set_key(&s), s)).collect()
    };
    let (expected_sets, our_sets) = (sets(&expected), sets(&ours));
    let mut report = InsightsReport::default();
    let empty = Map::new();
    let mut walk = Walk {
        expected_synthetic: &expected_synthetic,
        our_synthetic: &our_synthetic,
        seen: BTreeSet::new(),
        matched: 0,
        total: 0,
        first: None,
    };
    for (key, expected_set) in &expected_sets {
        let our_set = our_sets.iter().find(|(k, _)| k == key).map(|(_, s)| s);
        let mut row = |insight: &str, e: &Value, a: Option<&Value>| {
            let (matched, total, first_difference) = walk.part(e, a, insight, "missing");
            report.rows.push(InsightRow {
                set: key.clone(),
                insight: insight.to_owned(),
                matched,
                total,
                first_difference,
                missing: a.is_none(),
            });
        };
        let head = |set: &Value| -> Value {
            SET_MEMBERS
                .iter()
                .map(|m| ((*m).to_owned(), set.get(*m).cloned().unwrap_or(Value::Null)))
                .collect::<Map<String, Value>>()
                .into()
        };
        let our_head = our_set.map(head);
        row("(set)", &head(expected_set), our_head.as_ref());
        let expected_model = expected_set.get("model").and_then(Value::as_object).unwrap_or(&empty);
        let our_model = our_set
            .and_then(|s| s.get("model"))
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for (name, model) in expected_model {
            row(name, model, our_model.get(name));
        }
    }
    for (key, _) in our_sets
        .iter()
        .filter(|(k, _)| !expected_sets.iter().any(|(e, _)| e == k))
    {
        report.rows.push(InsightRow {
            set: key.clone(),
            insight: "(set)".to_owned(),
            matched: 0,
            total: 1,
            first_difference: Some("a set DevTools does not make".to_owned()),
            missing: false,
        });
    }
    Ok(report)
}

/// What a set is matched by: its navigation.
fn set_key(set: &Value) -> String {
    set.get("navigation")
        .and_then(Value::as_str)
        .unwrap_or("none")
        .to_owned()
}

/// Where the insight goldens of an engine are.
pub fn insights_dir(devtools: tracekit::DevTools) -> PathBuf {
    crate::expected_dir(devtools).join("insights")
}

/// tracekit's insight sets of a file, as `tracekit insights --format
/// conformance` writes them.
pub fn run_ours_insights(file: &Path, devtools: tracekit::DevTools) -> Result<String, String> {
    let analysis = crate::data::load_with_all_handlers(file, devtools)?;
    let sets = tracekit::insights::compute(&analysis).map_err(|e| e.to_string())?;
    tracekit::insights::sets_document(&analysis, &sets, true).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPECTED: &str = r##"{"handlers":{},"insights":[{"id":"NAVIGATION_0","navigation":"#3","url":"u",
        "model":{"A":{"state":"fail","relatedEvents":["$R:1:1:5"]},"B":{"state":"pass"}}}],
        "synthetic":{"R:1:1:5":{"url":"x"}}}"##;

    #[test]
    fn identical_sets_match() {
        let report = compare_insights(EXPECTED, EXPECTED).unwrap();
        assert_eq!(report.rows.len(), 3);
        assert!(report.rows.iter().all(|r| r.first_difference.is_none()));
    }

    #[test]
    fn an_insight_left_out_is_missing_and_a_changed_one_differs() {
        let ours = r##"{"handlers":{},"insights":[{"id":"NAVIGATION_0","navigation":"#3","url":"u",
            "model":{"A":{"state":"pass","relatedEvents":["$R:1:1:5"]}}}],"synthetic":{"R:1:1:5":{"url":"x"}}}"##;
        let report = compare_insights(EXPECTED, ours).unwrap();
        let a = report.rows.iter().find(|r| r.insight == "A").unwrap();
        assert!(a.first_difference.as_deref().unwrap().contains("state"));
        let b = report.rows.iter().find(|r| r.insight == "B").unwrap();
        assert!(b.missing);
    }

    #[test]
    fn a_set_devtools_does_not_make_is_reported() {
        let ours = EXPECTED.replace(r##""navigation":"#3""##, r##""navigation":null"##);
        let report = compare_insights(EXPECTED, &ours).unwrap();
        assert!(report
            .rows
            .iter()
            .any(|r| r.set == "none" && r.first_difference.is_some()));
        assert!(report.rows.iter().any(|r| r.set == "#3" && r.missing));
    }
}
