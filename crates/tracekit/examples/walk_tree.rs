//! Walks one thread's call tree: every node, depth first, with its
//! duration and self time, the JS calls with where their function lives.
//!
//! ```sh
//! cargo run --release -p tracekit --example walk_tree -- TRACE [THREAD] [MAX_DEPTH]
//! ```
//!
//! TRACE defaults to the bundled `fixtures/traces/main-thread.json.gz`,
//! THREAD (a name, part of one, or a tid) to `CrRendererMain`, MAX_DEPTH
//! to 3 levels. `cargo test` runs the test at the end on that fixture.

use std::error::Error;
use std::fmt::Write;

use tracekit::{AnalyzeOptions, Node, Thread};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| FIXTURE.to_owned());
    let thread = args.next().unwrap_or_else(|| "CrRendererMain".to_owned());
    let max_depth = args.next().map_or(Ok(3), |d| d.parse())?;
    let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let analysis = tracekit::analyze_bytes(&bytes, &AnalyzeOptions::default())?;
    // A thread query as `tracekit tracks --thread` takes it; several
    // threads may share a name (workers), hence a list.
    for thread in analysis.find_threads(&thread)? {
        print!("{}", walk(thread, max_depth));
    }
    Ok(())
}

/// The bundled fixture (a page's main thread, recorded by Chrome).
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/traces/main-thread.json.gz");

/// The thread's nodes down to `max_depth` levels, one per line, indented
/// by depth; calls of less than 0.1 ms are left out.
fn walk(thread: Thread<'_>, max_depth: u32) -> String {
    let mut out = String::new();
    let process = thread.process();
    let _ = writeln!(
        out,
        "{thread} in process {} ({}), {} nodes",
        process.pid().as_u64().unwrap_or_default(),
        process.url().unwrap_or("no URL"),
        thread.node_count(),
    );
    // `nodes()` is depth first: a node comes before its children, so the
    // depth alone gives the indentation, and no recursion is needed (a
    // tree can be hundreds of thousands of levels deep).
    for node in thread.nodes() {
        if node.depth() >= max_depth || node.duration().to_millis().0 < 0.1 {
            continue;
        }
        let _ = writeln!(out, "{}{}", "  ".repeat(node.depth() as usize + 1), line(node));
    }
    out
}

/// `NAME  12.345 ms (self 1.234 ms)  [url:line:column]`.
fn line(node: Node<'_>) -> String {
    let mut line = format!("{}  {:.3} ms", node.name(), node.duration().to_millis().0);
    if let Some(self_time) = node.self_time() {
        let _ = write!(line, " (self {:.3} ms)", self_time.to_millis().0);
    }
    if let Some(function) = node.function() {
        // A JS call: `node.name()` is the function's, `(anonymous)` for
        // one without a name.
        let _ = write!(line, "  {}", function.location());
    }
    line
}

#[test]
fn walks_the_main_thread_of_the_fixture() {
    let analysis = tracekit::analyze_bytes(&std::fs::read(FIXTURE).unwrap(), &AnalyzeOptions::default()).unwrap();
    let [thread] = analysis.find_threads("CrRendererMain").unwrap()[..] else {
        panic!("one main thread");
    };
    let out = walk(thread, 3);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("CrRendererMain (tid "), "{}", lines[0]);
    assert!(lines.len() > 20, "{out}");
    // Every line is a node at most 3 levels deep, the roots indented once.
    assert!(lines[1..]
        .iter()
        .all(|l| l.starts_with("  ") && !l.starts_with("        ")));
    assert!(lines.iter().any(|l| l.starts_with("  RunTask  ")), "{out}");
    // The tree's totals: a root lasts at least as long as its children.
    let root = thread
        .roots()
        .max_by(|a, b| a.duration().0.total_cmp(&b.duration().0))
        .unwrap();
    let children: f64 = root.children().map(|c| c.duration().0).sum();
    assert!(children <= root.duration().0 + 1e-6);
    assert_eq!(
        root.children().count(),
        root.descendants().filter(|d| d.depth() == 1).count()
    );
}
