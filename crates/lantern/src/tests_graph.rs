//! The page dependency graph on small traces written here, with the
//! graph worked out by hand from Lantern's rules.

use tracekit::AnalyzeOptions;

use crate::{create_graph, requests, Graph, LanternError, NodeKind};

/// A navigation of frame `F` (`https://a.test/`) at 1 ms in a renderer
/// whose main thread is tid 3, then `events` (comma-separated JSON
/// objects, each followed by a comma).
fn page(events: &str) -> String {
    format!(
        r#"[
  {{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{{"name":"CrRendererMain"}}}},
  {{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{{"data":{{"frames":[
    {{"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
  {{"name":"navigationStart","cat":"blink.user_timing","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F","data":{{"documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true,"navigationId":"N1"}}}}}},
  {events}
  {{"name":"Other","ph":"I","pid":2,"tid":3,"ts":900000,"args":{{}}}}
]"#
    )
}

/// A request of id `id` for `url` of type `kind`, sent at `ts` µs, its
/// headers in 40 ms later and done 10 ms after that.
fn request(id: &str, url: &str, kind: &str, ts: u64, extra: &str) -> String {
    let start = ts as f64 / 1e6;
    format!(
        r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"{id}","url":"{url}","priority":"High","frame":"F","resourceType":"{kind}"{extra}}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","mimeType":"text/html","statusCode":200,"protocol":"http/1.1","connectionId":1,"connectionReused":false,"encodedDataLength":2000,
    "timing":{{"requestTime":{start},"dnsStart":-1,"dnsEnd":-1,"connectStart":-1,"connectEnd":-1,"sslStart":-1,"sslEnd":-1,"proxyStart":-1,"proxyEnd":-1,"sendStart":1,"sendEnd":2,"receiveHeadersStart":39,"receiveHeadersEnd":40}}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","encodedDataLength":2000,"decodedBodyLength":5000,"finishTime":{}}}}}}},"#,
        ts + 40_000,
        ts + 50_000,
        start + 0.05
    )
}

/// A task of the main thread at `ts` µs lasting `dur`, then its child
/// events.
fn task(ts: u64, dur: u64, children: &str) -> String {
    format!(r#"{{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":{dur},"args":{{}}}},{children}"#)
}

/// An event of the main thread at `ts` with `data` as its `args.data`.
fn event(name: &str, ts: u64, data: &str) -> String {
    format!(r#"{{"name":"{name}","ph":"X","pid":2,"tid":3,"ts":{ts},"dur":10,"args":{{"data":{data}}}}},"#)
}

fn graph(text: &str) -> Result<Graph, LanternError> {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    let list = requests(data, analysis.strings(), &navigation).unwrap();
    create_graph(data, analysis.strings(), &navigation, &list)
}

/// Each node as `id <- dependencies`, in the graph's order.
fn shape(graph: &Graph) -> Vec<String> {
    let id = |i: usize| graph.nodes[i].id.as_str();
    graph
        .nodes
        .iter()
        .map(|n| {
            format!(
                "{} <- {}",
                n.id,
                n.dependencies.iter().map(|&d| id(d)).collect::<Vec<_>>().join(",")
            )
        })
        .collect()
}

const DOCUMENT_URL: &str = "https://a.test/";
const SCRIPT: &str = "https://a.test/app.js";

/// The parser's script depends on the document; the first task to parse
/// stays although short; the task that evaluates the script depends on
/// the script's request; the short tasks (the timer's, the last) are
/// pruned; the document is the main one.
#[test]
fn requests_and_tasks_are_tied_and_short_tasks_pruned() {
    let parser = format!(r#","initiator":{{"type":"parser","url":"{DOCUMENT_URL}"}}"#);
    let text = page(&format!(
        "{}{}{}{}{}{}",
        request("D", DOCUMENT_URL, "Document", 2000, ""),
        task(55_000, 5000, &event("ParseHTML", 55_100, "{}")),
        request("S", SCRIPT, "Script", 60_000, &parser),
        task(
            120_000,
            20_000,
            &format!(
                "{}{}",
                event("EvaluateScript", 120_100, &format!(r#"{{"url":"{SCRIPT}"}}"#)),
                event("TimerInstall", 120_200, r#"{"timerId":7}"#)
            )
        ),
        task(150_000, 1000, &event("TimerFire", 150_100, r#"{"timerId":7}"#)),
        task(160_000, 500, ""),
    ));
    let graph = graph(&text).unwrap();
    assert_eq!(
        shape(&graph),
        ["D <- ", "S <- D", "3.55000 <- D", "3.120000 <- S"],
        "{graph:#?}"
    );
    let root = &graph.nodes[graph.root];
    assert!(root.is_main_document && root.dependents == [1, 2]);
    assert!(root.start == 2000.0 && (root.end - 52_000.0).abs() < 1e-6, "{root:?}");
    let NodeKind::Cpu(parse) = &graph.nodes[2].kind else {
        panic!("{:?}", graph.nodes[2]);
    };
    assert!(parse.did_parse_html && !parse.did_paint && parse.child_events == 1 && parse.tid == 3);
    let NodeKind::Cpu(eval) = &graph.nodes[3].kind else {
        panic!("{:?}", graph.nodes[3]);
    };
    assert_eq!(
        (eval.evaluate_script_urls.as_slice(), eval.child_events),
        (&[SCRIPT.to_owned()][..], 2)
    );
    assert_eq!((graph.nodes[3].start, graph.nodes[3].end), (120_000.0, 140_000.0));
}

/// A script a task sends depends on it (and the task on its frame's
/// document, which the task names).
#[test]
fn a_task_that_sends_a_request_comes_before_it() {
    let text = page(&format!(
        "{}{}{}{}",
        request("D", DOCUMENT_URL, "Document", 2000, ""),
        task(58_000, 20_000, ""),
        request("S", SCRIPT, "Script", 60_000, ""),
        task(120_000, 20_000, ""),
    ));
    let graph = graph(&text).unwrap();
    assert_eq!(
        shape(&graph),
        ["D <- ", "S <- D,3.58000", "3.58000 <- D", "3.120000 <- D"],
        "{graph:#?}"
    );
}

/// A task that starts inside another (in input order) ends it 1 µs
/// before; the events after it are its own.
#[test]
fn a_task_inside_a_task_ends_it() {
    let text = page(&format!(
        "{}{}{}",
        request("D", DOCUMENT_URL, "Document", 2000, ""),
        task(58_000, 20_000, &event("Layout", 59_000, "{}")),
        task(
            70_000,
            20_000,
            &format!("{}{}", event("Paint", 71_000, "{}"), event("Layout", 79_000, "{}"))
        ),
    ));
    let graph = graph(&text).unwrap();
    assert_eq!(shape(&graph), ["D <- ", "3.58000 <- D", "3.70000 <- D"], "{graph:#?}");
    assert_eq!((graph.nodes[1].end, graph.nodes[2].end), (69_999.0, 90_000.0));
    let NodeKind::Cpu(second) = &graph.nodes[2].kind else {
        panic!("{:?}", graph.nodes[2]);
    };
    assert!(second.did_paint && second.did_perform_layout && second.child_events == 2);
}

/// A module's evaluation names its script by the id its compilation gave
/// it; an XHR's task depends on its request once the XHR is done only.
#[test]
fn modules_by_script_id_and_finished_xhrs_tie_tasks() {
    const MODULE: &str = "https://a.test/m.js";
    const DATA: &str = "https://a.test/data";
    let text = page(&format!(
        "{}{}{}{}{}{}{}",
        request("D", DOCUMENT_URL, "Document", 2000, ""),
        request("M", MODULE, "Script", 60_000, ""),
        request("X", DATA, "XHR", 60_000, ""),
        task(
            120_000,
            20_000,
            &event(
                "v8.compileModule",
                120_100,
                &format!(r#"{{"scriptId":9,"url":"{MODULE}"}}"#)
            )
        ),
        task(150_000, 20_000, &event("ModuleEvaluated", 150_100, r#"{"scriptId":9}"#)),
        task(
            175_000,
            20_000,
            &event(
                "XHRReadyStateChange",
                175_100,
                &format!(r#"{{"readyState":2,"url":"{DATA}"}}"#)
            )
        ),
        task(
            200_000,
            20_000,
            &event(
                "XHRReadyStateChange",
                200_100,
                &format!(r#"{{"readyState":4,"url":"{DATA}"}}"#)
            )
        ),
    ));
    let graph = graph(&text).unwrap();
    assert_eq!(
        shape(&graph),
        [
            "D <- ",
            "M <- D",
            "X <- D",
            "3.175000 <- D",
            "3.120000 <- M",
            "3.150000 <- M",
            "3.200000 <- X"
        ],
        "{graph:#?}"
    );
    let NodeKind::Cpu(evaluated) = &graph.nodes[5].kind else {
        panic!("{:?}", graph.nodes[5]);
    };
    assert_eq!(evaluated.evaluate_script_urls, [MODULE]);
}

/// A main thread without a task: DevTools' error.
#[test]
fn no_task_is_an_error() {
    let text = page(&request("D", DOCUMENT_URL, "Document", 2000, ""));
    assert_eq!(
        graph(&text).unwrap_err().to_string(),
        "Could not find any top level events"
    );
}

/// A short task pruned between two that stay leaves its place in the
/// document's dependents; the others keep their order.
#[test]
fn a_pruned_task_leaves_the_order_of_the_others() {
    let parser = format!(r#","initiator":{{"type":"parser","url":"{DOCUMENT_URL}"}}"#);
    let text = page(&format!(
        "{}{}{}{}{}{}",
        request("D", DOCUMENT_URL, "Document", 2000, ""),
        task(53_000, 500, ""),
        task(55_000, 5000, &event("ParseHTML", 55_100, "{}")),
        task(70_000, 800, ""),
        request("S", SCRIPT, "Script", 80_000, &parser),
        task(90_000, 30_000, ""),
    ));
    let graph = graph(&text).unwrap();
    let root = &graph.nodes[graph.root];
    let dependents: Vec<&str> = root.dependents.iter().map(|&d| graph.nodes[d].id.as_str()).collect();
    assert_eq!(dependents, ["S", "3.55000", "3.90000"], "{graph:#?}");
    assert_eq!(shape(&graph), ["D <- ", "S <- D", "3.55000 <- D", "3.90000 <- D"]);
}
