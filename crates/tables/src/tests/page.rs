//! The page tables on the recorded page load (`page-load.json.gz`: 13
//! requests, a navigation with its metrics, clusters of layout shifts,
//! interactions, marks and measures), against the page summaries and the
//! handlers' data they are made from.

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use serde_json::Value;
use tracekit::{Analysis, AnalyzeOptions};

use super::{column, fixtures, float, int, string};
use crate::Table;

fn page_load() -> Analysis {
    let path = fixtures().join("traces/page-load.json.gz");
    let options = crate::load_options(&AnalyzeOptions::default(), &[Table::Requests]);
    crate::load_file(&path, "page-load", &options).unwrap()
}

fn boolean(batch: &RecordBatch, name: &str, row: usize) -> bool {
    column(batch, name).as_boolean().value(row)
}

/// A time in µs of the trace's clock, in ms from the start of the trace.
fn ms_from_start(analysis: &Analysis, us: Option<f64>) -> f64 {
    (us.unwrap() - analysis.bounds().min.0) / 1000.0
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * a.abs().max(1.0)
}

#[test]
fn requests_are_the_network_rows() {
    let analysis = page_load();
    let batch = Table::Requests.build(&analysis, "t").unwrap();
    assert_eq!(batch.schema(), Table::Requests.schema());
    let rows = tracekit::page::requests(&analysis).unwrap();
    assert_eq!(rows.len(), 13);
    assert_eq!(batch.num_rows(), 13);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(string(&batch, "trace", i), "t");
        assert_eq!(string(&batch, "url", i), r.url.as_str());
        assert_eq!(string(&batch, "request_id", i), r.request_id.as_str());
        assert!(close(ms_from_start(&analysis, float(&batch, "ts_us", i)), r.start.0));
        assert!(close(ms_from_start(&analysis, float(&batch, "end_ts_us", i)), r.end.0));
        assert!(close(float(&batch, "wait_us", i).unwrap(), r.wait.0 * 1000.0));
        assert_eq!(int(&batch, "status", i).map(|s| s as f64), r.status);
        assert_eq!(int(&batch, "transfer_size", i).map(|s| s as f64), r.transfer_size);
        assert_eq!(string(&batch, "priority", i), json(r.priority.as_deref()));
        assert_eq!(boolean(&batch, "failed", i), r.failed);
        let redirects = (!r.redirects.is_empty()).then(|| r.redirects.join("\n"));
        assert_eq!(string(&batch, "redirects", i), json(redirects.as_deref()));
    }
    // The document first, then what it asked for, in start order.
    assert_eq!(string(&batch, "mime_type", 0), "text/html");
    assert_eq!(int(&batch, "status", 0), Some(200));
}

fn json(s: Option<&str>) -> Value {
    s.map_or(Value::Null, Value::from)
}

#[test]
fn navigations_have_their_metrics() {
    let analysis = page_load();
    let batch = Table::Navigations.build(&analysis, "t").unwrap();
    let rows = tracekit::page::navigations(&analysis).unwrap();
    assert!(!rows.is_empty());
    assert_eq!(batch.num_rows(), rows.len());
    let json: Value = serde_json::from_str(&tracekit::page::navigations_json(&rows)).unwrap();
    assert_eq!(json.as_array().unwrap().len(), rows.len());
    // The navigation of the page (the one with an LCP).
    let i = rows.iter().position(|r| r.lcp.is_some()).unwrap();
    let (row, doc) = (&rows[i], &json[i]);
    assert_eq!(string(&batch, "navigation_id", i), doc["navigationId"]);
    assert_eq!(string(&batch, "url", i), doc["url"]);
    assert!(close(ms_from_start(&analysis, float(&batch, "ts_us", i)), row.start.0));
    for (column_name, key) in [
        ("fcp_us", "fcp"),
        ("lcp_us", "lcp"),
        ("load_us", "load"),
        ("dcl_us", "dcl"),
    ] {
        let ms = doc[key]["value"].as_f64().unwrap();
        assert!(close(float(&batch, column_name, i).unwrap(), ms * 1000.0), "{key}");
    }
    assert_eq!(string(&batch, "fcp_rating", i), doc["fcp"]["rating"]);
    assert_eq!(string(&batch, "lcp_rating", i), doc["lcp"]["rating"]);
    let lcp = float(&batch, "lcp_us", i).unwrap();
    assert!(float(&batch, "fcp_us", i).unwrap() <= lcp);
    // The page's CLS: its worst cluster, which the layout_shifts table has.
    let cls = float(&batch, "cls", i).unwrap();
    assert!(cls > 0.0);
    assert_eq!(doc["cls"]["value"].as_f64(), Some(cls));
    assert_eq!(string(&batch, "cls_rating", i), doc["cls"]["rating"]);
    let shifts = Table::LayoutShifts.build(&analysis, "t").unwrap();
    let worst: Vec<usize> = (0..shifts.num_rows())
        .filter(|r| float(&shifts, "cluster_score", *r) == Some(cls))
        .collect();
    assert_eq!(int(&batch, "cls_shifts", i), Some(worst.len() as i64));
    assert_eq!(doc["cls"]["shifts"].as_u64(), Some(worst.len() as u64));
    assert_eq!(
        float(&batch, "cls_cluster_ts_us", i),
        float(&shifts, "cluster_ts_us", worst[0])
    );
    // INP: the longest interaction not nested, which the interactions
    // table has.
    let interactions = Table::Interactions.build(&analysis, "t").unwrap();
    let longest = (0..interactions.num_rows())
        .filter(|r| !boolean(&interactions, "nested", *r))
        .map(|r| float(&interactions, "dur_us", r).unwrap())
        .fold(0.0, f64::max);
    assert_eq!(float(&batch, "inp_us", i), Some(longest));
    assert!(close(doc["inp"]["value"].as_f64().unwrap() * 1000.0, longest));
    assert_eq!(string(&batch, "inp_type", i), doc["inp"]["type"]);
    let phases: f64 = ["inp_input_delay_us", "inp_processing_us", "inp_presentation_delay_us"]
        .iter()
        .map(|c| float(&batch, c, i).unwrap())
        .sum();
    assert!((phases - longest).abs() < 1.0, "{phases} vs {longest}");
}

#[test]
fn layout_shifts_are_the_clusters_shifts() {
    let analysis = page_load();
    let batch = Table::LayoutShifts.build(&analysis, "t").unwrap();
    let clusters = &analysis.handlers().unwrap().layout_shifts().clusters;
    assert!(!clusters.is_empty());
    let shifts: usize = clusters.iter().map(|c| c.shifts.len()).sum();
    assert_eq!(batch.num_rows(), shifts);
    // Each cluster's score is the sum of its shifts', its number from 1.
    for (n, cluster) in clusters.iter().enumerate() {
        let rows: Vec<usize> = (0..batch.num_rows())
            .filter(|r| int(&batch, "cluster", *r) == Some(n as i64 + 1))
            .collect();
        assert_eq!(rows.len(), cluster.shifts.len());
        let sum: f64 = rows.iter().map(|r| float(&batch, "score", *r).unwrap()).sum();
        assert!(
            close(sum, cluster.cumulative_score),
            "{sum} vs {}",
            cluster.cumulative_score
        );
        for r in rows {
            assert_eq!(float(&batch, "cluster_score", r), Some(cluster.cumulative_score));
            assert_eq!(float(&batch, "cluster_ts_us", r), Some(cluster.ts.0));
            assert!(float(&batch, "ts_us", r).unwrap() >= cluster.ts.0);
        }
    }
    // The shifts came after the page's navigation.
    assert!(string(&batch, "navigation_id", 0).is_string());
    assert!(float(&batch, "since_navigation_us", 0).unwrap() > 0.0);
}

#[test]
fn interactions_have_their_phases() {
    let analysis = page_load();
    let batch = Table::Interactions.build(&analysis, "t").unwrap();
    let data = analysis.handlers().unwrap().user_interactions();
    assert!(!data.interactions.is_empty());
    assert_eq!(batch.num_rows(), data.interactions.len());
    let nested = (0..batch.num_rows()).filter(|r| boolean(&batch, "nested", *r)).count();
    assert_eq!(nested, data.interactions.len() - data.without_nesting.len());
    for r in 0..batch.num_rows() {
        let dur = float(&batch, "dur_us", r).unwrap();
        let phases: f64 = ["input_delay_us", "processing_us", "presentation_delay_us"]
            .iter()
            .map(|c| float(&batch, c, r).unwrap())
            .sum();
        assert!((phases - dur).abs() < 1.0, "row {r}: {phases} vs {dur}");
        assert!(int(&batch, "interaction_id", r).unwrap() > 0);
        assert!(string(&batch, "navigation_id", r).is_string());
    }
    let types: Vec<Value> = (0..batch.num_rows()).map(|r| string(&batch, "type", r)).collect();
    assert!(types.iter().any(|t| t == "pointerdown" || t == "click"), "{types:?}");
}

#[test]
fn user_timings_are_the_marks_and_measures() {
    let analysis = page_load();
    let batch = Table::UserTimings.build(&analysis, "t").unwrap();
    let data = analysis.handlers().unwrap().user_timings();
    let kinds: Vec<Value> = (0..batch.num_rows()).map(|r| string(&batch, "kind", r)).collect();
    let count = |kind: &str| kinds.iter().filter(|k| *k == kind).count();
    assert_eq!(count("mark"), data.performance_marks.len());
    assert_eq!(count("measure"), data.performance_measures.len());
    assert_eq!(count("console"), data.console_timings.len());
    assert_eq!(count("timestamp"), data.timestamp_events.len());
    assert!(count("mark") > 0 && count("measure") > 0, "{kinds:?}");
    // The page's first mark, at its event's time; navigation timing
    // marks left out.
    let names: Vec<Value> = (0..batch.num_rows()).map(|r| string(&batch, "name", r)).collect();
    let head = names.iter().position(|n| n == "tk:head:start").unwrap();
    assert_eq!(string(&batch, "kind", head), "mark");
    assert_eq!(float(&batch, "ts_us", head), Some(22_592_883_565.0));
    assert_eq!(float(&batch, "dur_us", head), None);
    assert!(!names.iter().any(|n| n == "navigationStart" || n == "fetchStart"));
    for r in (0..batch.num_rows()).filter(|r| kinds[*r] == "measure") {
        assert!(float(&batch, "dur_us", r).unwrap() >= 0.0);
    }
}

/// The time stamps' labels and ranges.
#[test]
fn time_stamps_have_their_labels() {
    let path = fixtures().join("handwritten/views/instants.json");
    let options = crate::load_options(&AnalyzeOptions::default(), &Table::PAGE);
    let analysis = crate::load_file(&path, "instants", &options).unwrap();
    let batch = Table::UserTimings.build(&analysis, "t").unwrap();
    let stamps: Vec<(Value, Option<f64>)> = (0..batch.num_rows())
        .filter(|r| string(&batch, "kind", *r) == "timestamp")
        .map(|r| (string(&batch, "name", r), float(&batch, "dur_us", r)))
        .collect();
    assert!(stamps.contains(&(Value::from("mark1"), None)), "{stamps:?}");
    assert!(stamps.contains(&(Value::from("mark2"), Some(100.0))), "{stamps:?}");
}

/// A page table needs the page handlers: without them, an error; a
/// profile has no page: no rows. The other tables load as before.
#[test]
fn page_tables_need_the_handlers() {
    let path = fixtures().join("traces/page-load.json.gz");
    let analysis = crate::load_file(&path, "p", &AnalyzeOptions::default()).unwrap();
    for table in Table::PAGE {
        let error = table.build(&analysis, "p").unwrap_err();
        assert_eq!(error.reason, "page data not gathered", "{table}");
    }
    assert!(!crate::load_options(&AnalyzeOptions::default(), &Table::DEFAULT).all_handlers);
    assert!(crate::load_options(&AnalyzeOptions::default(), &[Table::Tracks, Table::UserTimings]).all_handlers);
    let profile = fixtures().join("traces/node-work.cpuprofile.gz");
    let options = crate::load_options(&AnalyzeOptions::default(), &Table::PAGE);
    let analysis = crate::load_file(&profile, "n", &options).unwrap();
    for table in Table::PAGE {
        let batch = table.build(&analysis, "n").unwrap();
        assert_eq!((batch.num_rows(), batch.schema()), (0, table.schema()), "{table}");
    }
}

/// Every page table of every fixture builds, to its schema.
#[test]
fn page_tables_of_every_fixture() {
    let options = crate::load_options(&AnalyzeOptions::default(), &Table::PAGE);
    for path in super::fixture_files() {
        let analysis = crate::load_file(&path, "f", &options).unwrap();
        for table in Table::PAGE {
            let batch = table.build(&analysis, "f").unwrap();
            assert_eq!(batch.schema(), table.schema(), "{}: {table}", path.display());
        }
    }
}

#[test]
fn insights_are_a_row_per_insight_of_each_set() {
    let analysis = page_load();
    let batch = Table::Insights.build(&analysis, "t").unwrap();
    assert_eq!(batch.schema(), Table::Insights.schema());
    let sets = tracekit::insights::compute(&analysis).unwrap();
    let expected: usize = sets.sets.iter().map(|s| s.insights.len()).sum();
    assert_eq!(batch.num_rows(), expected);
    let set = sets.sets.iter().find(|s| s.navigation.is_some()).unwrap();
    // The navigation's slow click fails its INP breakdown.
    let row = (0..batch.num_rows())
        .find(|&i| string(&batch, "set", i) == set.id.to_string() && string(&batch, "insight", i) == "INPBreakdown")
        .unwrap();
    assert_eq!(string(&batch, "state", row), "fail");
    assert_eq!(string(&batch, "category", row), "INP");
    assert_eq!(
        int(&batch, "navigation", row),
        Some(i64::from(set.navigation.unwrap().event))
    );
    assert_eq!(int(&batch, "related_events", row), Some(1));
    assert!(close(float(&batch, "set_start_us", row).unwrap(), set.bounds.min.0));
}
