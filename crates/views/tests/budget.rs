//! The Bottom-Up's node budget: calls nested deep under many different
//! callers make one Bottom-Up node per call and caller (quadratic in the
//! nesting), so the views stop at a budget with an error rather than take
//! the memory.

use tracekit_views::{ViewError, ViewOptions};

/// The query of a window (ms from the trace start) and a number of levels.
fn q(window: Option<(f64, f64)>, levels: Option<u32>) -> tracekit::query::Query {
    let query = tracekit::query::Query::from_parts(None, None, levels, None).unwrap();
    match window {
        Some((a, b)) => {
            query.with_window(tracekit::query::Window::new(tracekit::Millis(a), tracekit::Millis(b)).unwrap())
        }
        None => query,
    }
}

/// A trace of `depth` calls nested in each other, each of its own name.
fn deep_distinct_nesting(depth: usize) -> tracekit::Analysis {
    let trace = tracekit_conformance::deep_distinct_nesting(depth);
    tracekit::analyze_bytes(&trace, &Default::default()).unwrap()
}

#[test]
fn a_bottom_up_past_its_budget_is_an_error_naming_the_thread() {
    // 300 levels: 300 first-level nodes and 299 + 298 + ... callers below
    // them, 45 150 nodes in all.
    let analysis = deep_distinct_nesting(300);
    let full = tracekit_views::calltree_json(&analysis, &ViewOptions::new()).unwrap();
    assert!(full.contains("\"e299\""));

    let error = tracekit_views::calltree_json(&analysis, &ViewOptions::new().max_nodes(10_000)).unwrap_err();
    let ViewError::TooManyNodes { thread, max_nodes } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(*max_nodes, 10_000);
    assert!(thread.contains("pid 1"), "{thread}");
    assert!(error.to_string().contains("more than 10000 nodes"), "{error}");

    // The exact count fits; one fewer does not.
    let nodes = 300 + 299 * 300 / 2 + 1;
    assert!(tracekit_views::calltree_json(&analysis, &ViewOptions::new().max_nodes(nodes)).is_ok());
    assert!(tracekit_views::calltree_json(&analysis, &ViewOptions::new().max_nodes(nodes - 1)).is_err());

    // Fewer levels build fewer nodes, within the budget.
    let shallow = ViewOptions::new().max_nodes(10_000).query(q(None, Some(3)));
    assert!(tracekit_views::calltree_conformance(&analysis, &shallow).is_ok());
}
