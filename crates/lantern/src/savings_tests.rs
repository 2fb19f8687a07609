//! The ModernHTTP and RenderBlocking savings on a small page built here
//! (a document, a blocking script, its evaluation and the first paint),
//! with answers worked out by hand.

use crate::sim_tests::{analysis, graph, network, request, task};
use crate::{
    metrics, modern_http_savings, render_blocking_savings, CpuNode, LanternContext, LanternRequest, MetricInput,
    ProcessedNavigation, Simulator,
};

/// The Lantern context of a page whose `requests` are a document (0),
/// then each other request in turn (each waiting for the one before),
/// the last one's evaluation and then a paint, over HTTP/1.1.
fn page(requests: Vec<LanternRequest>) -> LanternContext {
    let last = requests.len() - 1;
    let evaluates = CpuNode {
        evaluate_script_urls: vec![requests[last].url.clone()],
        ..CpuNode::default()
    };
    let paints = CpuNode {
        did_paint: true,
        ..CpuNode::default()
    };
    let mut nodes: Vec<_> = (0..requests.len()).map(|i| network(&requests, i)).collect();
    nodes.push(task(5000.0, 15000.0, evaluates));
    nodes.push(task(16000.0, 17000.0, paints));
    let links: Vec<(usize, usize)> = (0..nodes.len() - 1).map(|i| (i, i + 1)).collect();
    let graph = graph(nodes, &links);
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    let navigation = ProcessedNavigation {
        first_contentful_paint: 20000.0,
        largest_contentful_paint: Some(20000.0),
        largest_contentful_paint_is_text: false,
    };
    let metrics = metrics(MetricInput {
        graph: &graph,
        requests: &requests,
        simulator: &simulator,
        navigation: &navigation,
    })
    .unwrap();
    LanternContext {
        requests,
        graph,
        simulator,
        metrics,
    }
}

/// A document and a blocking script of 1000 bytes each.
fn document_and_script() -> LanternContext {
    page(vec![
        request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0),
        request("http://a.test/app.js", "High", "Script", 1000.0, 3.0, 4.0),
    ])
}

#[test]
fn http2_saves_the_warm_connection_its_first_byte() {
    // Over HTTP/1.1 the FCP is the document (430 ms), the script on the
    // document's warm connection (one-way trips and the server: 130), its
    // evaluation (10) and the paint (1): 571. Over HTTP/2 the document is
    // as slow (a cold connection), but the script has no first byte to
    // wait for, and its 1000 bytes came with the document's first window
    // (what a multiplexed connection downloads too much counts for the
    // next request): 441, 130 ms saved.
    let cx = document_and_script();
    assert_eq!(cx.metrics.first_contentful_paint.optimistic.time_in_ms, 571.0);
    let both = ["http://a.test/", "http://a.test/app.js"];
    assert_eq!(modern_http_savings(&cx, &both).unwrap(), (130.0, 130.0));
    // The script alone over HTTP/2 changes nothing: it is taken to reuse
    // the document's connection, which the document's protocol makes.
    assert_eq!(modern_http_savings(&cx, &["http://a.test/app.js"]).unwrap(), (0.0, 0.0));
    assert_eq!(modern_http_savings(&cx, &[]).unwrap(), (0.0, 0.0));
}

#[test]
fn deferring_the_script_saves_it_and_what_waits_for_it() {
    // Without the script (130 ms), its evaluation (10) and the paint (1),
    // the FCP's graph is the document alone: 430 of 571, 141 ms saved.
    let cx = document_and_script();
    let saved = render_blocking_savings(&cx, &["http://a.test/app.js"], false).unwrap();
    assert_eq!((saved.fcp, saved.lcp), (141.0, 141.0));
    assert_eq!(saved.wasted_ms, vec![("http://a.test/app.js".to_owned(), 130.0)]);
    // An image LCP is taken not to wait for it.
    let saved = render_blocking_savings(&cx, &["http://a.test/app.js"], true).unwrap();
    assert_eq!((saved.fcp, saved.lcp), (141.0, 0.0));
    // A request the graph does not have saves nothing.
    let saved = render_blocking_savings(&cx, &["http://a.test/other.css"], false).unwrap();
    assert_eq!((saved.fcp, saved.lcp, saved.wasted_ms.len()), (0.0, 0.0, 0));
    // Deferring the document leaves no graph to simulate.
    let error = render_blocking_savings(&cx, &["http://a.test/"], false).unwrap_err();
    assert_eq!(error.to_string(), "Cloned graph missing node");
}

#[test]
fn a_redirected_request_is_known_by_its_first_id_and_counts_its_hops() {
    // The script redirected once: its hop (`s`) and itself (`s:redirect`)
    // are both deferred, and its download time is the two's.
    let document = request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0);
    let mut hop = request("http://a.test/old.js", "High", "Script", 400.0, 3.0, 4.0);
    hop.request_id = "s".to_owned();
    hop.redirect_destination = Some(2);
    let mut script = request("http://a.test/app.js", "High", "Script", 1000.0, 4.0, 5.0);
    script.request_id = "s:redirect".to_owned();
    script.redirect_source = Some(1);
    let cx = page(vec![document, hop, script]);
    let fcp = &cx.metrics.first_contentful_paint.optimistic;
    let duration = |id: &str| {
        let t = fcp
            .node_timings
            .iter()
            .find(|t| cx.graph.nodes[t.node].id == id)
            .unwrap();
        t.end - t.start
    };
    let saved = render_blocking_savings(&cx, &["s"], false).unwrap();
    let both = (duration("s") + duration("s:redirect")).round();
    assert!(both >= 50.0 && duration("s") > 0.0 && duration("s:redirect") > 0.0);
    assert_eq!(saved.wasted_ms, vec![("s".to_owned(), both)]);
    // The document alone is left (430 ms).
    assert_eq!(saved.fcp, (fcp.time_in_ms - 430.0).round());
    // The hop's own id names no request of the trace.
    let saved = render_blocking_savings(&cx, &["s:redirect"], false).unwrap();
    assert!(saved.wasted_ms.is_empty());
}
