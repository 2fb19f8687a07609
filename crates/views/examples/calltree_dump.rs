//! Prints the calltree conformance dump of a trace:
//! `calltree_dump TRACE [START END] [MAX_DEPTH]`.

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).expect("read");
    let analysis = tracekit::analyze_bytes(&bytes, &tracekit::AnalyzeOptions::default()).expect("load");
    let window = match (args.get(2), args.get(3)) {
        (Some(a), Some(b)) => Some((a.parse().unwrap(), b.parse().unwrap())),
        _ => None,
    };
    let depth = args.get(4).map(|d| d.parse().unwrap());
    println!(
        "{}",
        tracekit_views::calltree_conformance(&analysis, &tracekit_views::ViewOptions::new().query(q(window, depth)))
            .unwrap()
    );
}
