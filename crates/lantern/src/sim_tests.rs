//! The simulator, the graph's walks and the metrics on small graphs and
//! requests built here, with answers worked out by hand.

use crate::metrics::{first_contentful_paint, has_render_blocking_priority, sum_of_blocking_time};
use crate::simulation::js_round;
use crate::{
    CpuNode, Graph, Initiator, LanternRequest, MetricInput, NetworkAnalysis, NetworkNode, Node, NodeKind,
    ProcessedNavigation, Simulator, TcpConnection,
};

/// A finished request of `url` made at `start` ms and done at `end` ms.
pub(crate) fn request(
    url: &str,
    priority: &str,
    kind: &str,
    transfer_size: f64,
    start: f64,
    end: f64,
) -> LanternRequest {
    let parsed = url::Url::parse(url).unwrap();
    LanternRequest {
        request: 0,
        request_id: url.to_owned(),
        connection_id: 1.0,
        connection_reused: false,
        url: url.to_owned(),
        protocol: "http/1.1".to_owned(),
        scheme: parsed.scheme().to_owned(),
        host: parsed.host_str().unwrap_or_default().to_owned(),
        origin: parsed.origin().ascii_serialization(),
        renderer_start_time: start,
        network_request_time: start,
        response_headers_end_time: end,
        network_end_time: end,
        transfer_size,
        resource_size: transfer_size,
        from_disk_cache: false,
        from_memory_cache: false,
        is_link_preload: false,
        finished: true,
        failed: false,
        status_code: 200.0,
        initiator: Initiator {
            kind: "parser".to_owned(),
            ..Initiator::default()
        },
        timing: None,
        resource_type: Some(kind.to_owned()),
        mime_type: String::new(),
        priority: priority.to_owned(),
        render_blocking: None,
        frame_id: None,
        from_worker: false,
        redirect_source: None,
        redirect_destination: None,
        initiator_request: None,
    }
}

/// A node of request `index` (its times the request's).
pub(crate) fn network(requests: &[LanternRequest], index: usize) -> Node {
    let r = &requests[index];
    Node {
        id: r.request_id.clone(),
        kind: NodeKind::Network(NetworkNode { request: index }),
        start: r.renderer_start_time * 1000.0,
        end: r.network_end_time * 1000.0,
        is_main_document: index == 0,
        dependencies: Vec::new(),
        dependents: Vec::new(),
    }
}

/// A task from `start` to `end` µs.
pub(crate) fn task(start: f64, end: f64, cpu: CpuNode) -> Node {
    Node {
        id: format!("1.{start}"),
        kind: NodeKind::Cpu(cpu),
        start,
        end,
        is_main_document: false,
        dependencies: Vec::new(),
        dependents: Vec::new(),
    }
}

/// A graph of `nodes` with these links (dependency, dependent), rooted at
/// the first node.
pub(crate) fn graph(nodes: Vec<Node>, links: &[(usize, usize)]) -> Graph {
    let mut graph = Graph { nodes, root: 0 };
    for &(from, to) in links {
        graph.nodes[from].dependents.push(to);
        graph.nodes[to].dependencies.push(from);
    }
    graph
}

/// A network of 100 ms round trips, 1 Gbit/s, 30 ms server response.
pub(crate) fn analysis(origin: &str) -> NetworkAnalysis {
    NetworkAnalysis {
        throughput: 1e9,
        rtt: 100.0,
        additional_rtt_by_origin: vec![(origin.to_owned(), 0.0)],
        server_response_time_by_origin: vec![(origin.to_owned(), 30.0)],
    }
}

#[test]
fn a_cold_connection_handshakes_then_doubles_its_window() {
    // TLS over a cold connection: DNS (0) + 3 one-way trips + a round trip
    // = 250 ms, then the server (30) and the first byte's way back (50).
    let connection = TcpConnection::new(100.0, 1e9, 30.0, true, false);
    let ten_segments = connection.simulate_download_until(14600.0, 0.0, f64::INFINITY, 0.0);
    assert_eq!(ten_segments.time_elapsed, 330.0);
    assert_eq!(ten_segments.bytes_downloaded, 14600.0);
    // One byte more: one more round trip, the window doubled.
    let more = connection.simulate_download_until(14601.0, 0.0, f64::INFINITY, 0.0);
    assert_eq!((more.time_elapsed, more.congestion_window), (430.0, 20.0));
    // A warm multiplexed connection has no first byte to wait for.
    let mut warm = TcpConnection::new(100.0, 1e9, 30.0, true, true);
    warm.warmed = true;
    assert_eq!(
        warm.simulate_download_until(14600.0, 0.0, f64::INFINITY, 0.0)
            .time_elapsed,
        100.0
    );
}

#[test]
fn a_task_waits_for_the_document_that_starts_it() {
    // An http document of 1000 bytes: DNS (2 round trips, 200 ms) + 3
    // one-way trips (150) + server (30) + the way back (50) = 430 ms; then
    // a 20 ms task.
    let requests = vec![request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0)];
    let nodes = vec![network(&requests, 0), task(3000.0, 23000.0, CpuNode::default())];
    let graph = graph(nodes, &[(0, 1)]);
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    assert_eq!(simulator.maximum_concurrent_requests, 10.0);
    let simulation = simulator.simulate(&graph, &requests).unwrap();
    assert_eq!(simulation.time_in_ms, 450.0);
    let timings: Vec<_> = simulation
        .node_timings
        .iter()
        .map(|t| (t.node, t.start, t.end))
        .collect();
    assert_eq!(timings, vec![(0, 0.0, 430.0), (1, 430.0, 450.0)]);
}

#[test]
fn a_graph_with_a_cycle_is_not_simulated() {
    let requests = vec![request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0)];
    let nodes = vec![
        network(&requests, 0),
        task(3000.0, 4000.0, CpuNode::default()),
        task(5000.0, 6000.0, CpuNode::default()),
    ];
    let graph = graph(nodes, &[(0, 1), (1, 2), (2, 1)]);
    assert!(graph.has_cycle(0));
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    let error = simulator.simulate(&graph, &requests).unwrap_err();
    assert_eq!(error.to_string(), "Cannot simulate graph with cycle");
}

#[test]
fn a_copy_keeps_what_the_kept_nodes_wait_for_linked_in_walk_order() {
    // 0 → 1, 0 → 2, 1 → 3, 2 → 3: keeping 3 keeps all, copied from 3 up;
    // the copy's links are added in the order of a walk from the root.
    let cpu = |t: f64| task(t, t + 1.0, CpuNode::default());
    let g = graph(
        vec![cpu(0.0), cpu(10.0), cpu(20.0), cpu(30.0)],
        &[(0, 1), (0, 2), (1, 3), (2, 3)],
    );
    let copy = g.clone_keeping(0, |n| n.start == 30.0).unwrap();
    assert_eq!(copy.original, vec![3, 1, 2, 0]);
    assert_eq!(copy.graph.root, 3);
    assert_eq!(copy.graph.nodes[3].dependents, vec![1, 2]);
    assert_eq!(copy.graph.nodes[0].dependencies, vec![1, 2]);
    assert_eq!(copy.original_nodes(), vec![0, 1, 2, 3]);
    // Keeping 1 alone leaves 2 and 3 out.
    let copy = g.clone_keeping(0, |n| n.start == 10.0).unwrap();
    assert_eq!(copy.original_nodes(), vec![0, 1]);
    // Keeping nothing leaves no root.
    let error = g.clone_keeping(0, |_| false).unwrap_err();
    assert_eq!(error.to_string(), "Cloned graph missing node");
}

#[test]
fn the_fcp_waits_for_the_blocking_script_and_its_evaluation_not_the_image() {
    let requests = vec![
        request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0),
        request("http://a.test/app.js", "High", "Script", 1000.0, 3.0, 4.0),
        request("http://a.test/i.png", "Low", "Image", 1000.0, 3.0, 4.0),
    ];
    let evaluates = CpuNode {
        evaluate_script_urls: vec!["http://a.test/app.js".to_owned()],
        ..CpuNode::default()
    };
    let paints = CpuNode {
        did_paint: true,
        ..CpuNode::default()
    };
    let nodes = vec![
        network(&requests, 0),
        network(&requests, 1),
        network(&requests, 2),
        task(5000.0, 15000.0, evaluates),
        task(16000.0, 17000.0, paints),
        task(90000.0, 91000.0, CpuNode::default()),
    ];
    let graph = graph(nodes, &[(0, 1), (0, 2), (1, 3), (3, 4), (0, 5)]);
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    let navigation = ProcessedNavigation {
        first_contentful_paint: 20000.0,
        largest_contentful_paint: None,
        largest_contentful_paint_is_text: false,
    };
    let input = MetricInput {
        graph: &graph,
        requests: &requests,
        simulator: &simulator,
        navigation: &navigation,
    };
    let fcp = first_contentful_paint(input).unwrap();
    assert_eq!(fcp.optimistic_graph.original_nodes(), vec![0, 1, 3, 4]);
    assert_eq!(fcp.pessimistic_graph.original_nodes(), vec![0, 1, 3, 4]);
    // The document (430 ms, as above), the script (taken to reuse the
    // document's connection, now warm: 3 one-way trips and the server,
    // 130), the evaluation (10) and the paint (1).
    assert_eq!(fcp.optimistic.time_in_ms, 571.0);
    assert_eq!(fcp.timing, 571.0);
    // LCP needs a largest contentful paint.
    let error = crate::largest_contentful_paint(input, &fcp).unwrap_err();
    assert_eq!(error.to_string(), "NO_LCP");
}

#[test]
fn blocking_time_is_what_long_tasks_spend_past_50_ms_in_the_window() {
    let events = [(0.0, 100.0, 100.0), (150.0, 170.0, 20.0), (200.0, 320.0, 120.0)];
    assert_eq!(sum_of_blocking_time(&events, 0.0, 1000.0), 50.0 + 70.0);
    // Clipped to the window: 50 ms of the first (none past 50), 100 of the third.
    assert_eq!(sum_of_blocking_time(&events, 50.0, 300.0), 50.0);
    assert_eq!(sum_of_blocking_time(&events, 300.0, 300.0), 0.0);
}

#[test]
fn render_blocking_is_as_the_trace_says_else_by_priority() {
    let mut script = request("http://a.test/app.js", "High", "Script", 1.0, 1.0, 2.0);
    assert!(has_render_blocking_priority(&script));
    script.render_blocking = Some("non_blocking".to_owned());
    assert!(!has_render_blocking_priority(&script));
    script.render_blocking = Some("in_body_parser_blocking".to_owned());
    assert!(has_render_blocking_priority(&script));
    let image = request("http://a.test/i.png", "High", "Image", 1.0, 1.0, 2.0);
    assert!(!has_render_blocking_priority(&image));
}

#[test]
fn wasted_bytes_cost_their_download_time_to_the_nearest_10_ms() {
    let mut network = analysis("http://a.test");
    network.throughput = 1.6e6;
    let simulator = Simulator::new(&network).unwrap();
    assert_eq!(simulator.wasted_ms_from_wasted_bytes(100_000.0), 500.0);
    assert_eq!(simulator.wasted_ms_from_wasted_bytes(1_000.0), 10.0);
    assert_eq!(js_round(-2.5), -2.0);
    assert_eq!(js_round(2.5), 3.0);
}

#[test]
fn fewer_bytes_save_the_round_trips_they_took() {
    // 20000 bytes: the first window (14600) then one round trip more, 530
    // ms in all; 10000 fit in the first window: 430 ms. 100 ms saved.
    let requests = vec![request("http://a.test/", "VeryHigh", "Document", 20000.0, 1.0, 2.0)];
    let graph = graph(vec![network(&requests, 0)], &[]);
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    let whole = crate::Subgraph::whole(&graph);
    assert_eq!(simulator.simulate(&graph, &requests).unwrap().time_in_ms, 530.0);
    let saved = crate::savings_for_wasted_bytes(&[(0, 10000.0)], &simulator, &requests, &whole).unwrap();
    assert_eq!(saved, 100.0);
    // Bytes wasted by another request save nothing.
    let saved = crate::savings_for_wasted_bytes(&[(7, 10000.0)], &simulator, &requests, &whole).unwrap();
    assert_eq!(saved, 0.0);
}

/// A navigation of frame `F` at 1 ms (renderer 2, thread 3), then `events`
/// (comma-separated JSON objects, each followed by a comma), loaded with
/// every handler.
fn load(events: &str) -> tracekit::Analysis {
    let text = format!(
        r#"[
  {{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{{"data":{{"frames":[
    {{"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}}]}}}}}},
  {{"name":"navigationStart","cat":"blink.user_timing","ph":"R","pid":2,"tid":3,"ts":1000,"args":{{"frame":"F","data":{{"documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true,"navigationId":"N1"}}}}}},
  {events}
  {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":900000,"dur":1,"args":{{}}}}
]"#
    );
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    tracekit::analyze_bytes(text.as_bytes(), &options).unwrap()
}

#[test]
fn the_processed_navigation_has_the_paints_and_whether_the_largest_is_text() {
    let fcp = r#"{"name":"firstContentfulPaint","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":5000,"args":{"frame":"F","data":{"navigationId":"N1"}}},"#;
    let lcp = |ts: u32, kind: &str| {
        format!(
            r#"{{"name":"largestContentfulPaint::Candidate","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":{ts},"args":{{"frame":"F","data":{{"candidateIndex":1,"navigationId":"N1","type":"{kind}"}}}}}},"#
        )
    };
    let analysis = load(&format!("{fcp}{}", lcp(5000, "text")));
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    let processed = crate::processed_navigation(data, &navigation).unwrap();
    assert_eq!(
        processed,
        ProcessedNavigation {
            first_contentful_paint: 5000.0,
            largest_contentful_paint: Some(5000.0),
            largest_contentful_paint_is_text: true,
        }
    );
    let analysis = load(&format!("{fcp}{}", lcp(7000, "image")));
    let data = analysis.handlers().unwrap();
    let processed = crate::processed_navigation(data, &navigation).unwrap();
    assert_eq!(processed.largest_contentful_paint, Some(7000.0));
    assert!(!processed.largest_contentful_paint_is_text);
    // No first contentful paint: DevTools' error.
    let analysis = load(&lcp(7000, "image"));
    let error = crate::processed_navigation(analysis.handlers().unwrap(), &navigation).unwrap_err();
    assert_eq!(error.to_string(), "missing metric: FCP");
}

#[test]
fn a_request_keeps_render_blocking_only_when_the_trace_says_it() {
    let send = |id: &str, blocking: &str| {
        format!(
            r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2000,"args":{{"data":{{"requestId":"{id}","url":"https://a.test/{id}.js","priority":"High","frame":"F","resourceType":"Script"{blocking}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":3000,"args":{{"data":{{"requestId":"{id}","encodedDataLength":10,"finishTime":0.003}}}}}},"#
        )
    };
    let events = [
        send("a", ""),
        send("b", r#","renderBlocking":"non_blocking""#),
        send("c", r#","renderBlocking":"blocking""#),
    ];
    let analysis = load(&events.concat());
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    let list = crate::requests(data, analysis.strings(), &navigation).unwrap();
    let blocking: Vec<_> = list
        .iter()
        .map(|r| (r.url.as_str(), r.render_blocking.as_deref()))
        .collect();
    assert_eq!(
        blocking,
        vec![
            ("https://a.test/a.js", None),
            ("https://a.test/b.js", Some("non_blocking")),
            ("https://a.test/c.js", Some("blocking")),
        ]
    );
}

#[test]
fn a_context_runs_every_step_in_devtools_order() {
    let document = r#"{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":1100,"args":{"data":{"requestId":"N1","url":"https://a.test/","priority":"VeryHigh","frame":"F","resourceType":"Document"}}},
  {"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":2000,"args":{"data":{"requestId":"N1","mimeType":"text/html","statusCode":200,"protocol":"h2","connectionId":1,"connectionReused":false,"encodedDataLength":5000,
    "timing":{"requestTime":0.0011,"dnsStart":-1,"dnsEnd":-1,"connectStart":0.1,"connectEnd":0.3,"sslStart":-1,"sslEnd":-1,"proxyStart":-1,"proxyEnd":-1,"sendStart":0.4,"sendEnd":0.5,"receiveHeadersStart":0.8,"receiveHeadersEnd":0.9}}}},
  {"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":3000,"args":{"data":{"requestId":"N1","encodedDataLength":5000,"decodedBodyLength":9000,"finishTime":0.003}}},"#;
    let fcp = r#"{"name":"firstContentfulPaint","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":5000,"args":{"frame":"F","data":{"navigationId":"N1"}}},
  {"name":"largestContentfulPaint::Candidate","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":5000,"args":{"frame":"F","data":{"candidateIndex":1,"navigationId":"N1","type":"text"}}},"#;
    let one_node = |requests: &[LanternRequest]| {
        let mut node = network(requests, 0);
        node.is_main_document = true;
        Ok(graph(vec![node], &[]))
    };
    let analysis = load(&format!("{document}{fcp}"));
    let (data, strings) = (analysis.handlers().unwrap(), analysis.strings());
    let navigation = data.meta().navigations.main_frame[0];
    let context = crate::context::context_with_graph(data, strings, &navigation, one_node)
        .unwrap()
        .unwrap();
    let m = &context.metrics;
    assert!(m.first_contentful_paint.timing > 0.0);
    // A text LCP at the FCP's time is simulated as the FCP.
    assert_eq!(m.largest_contentful_paint.timing, m.first_contentful_paint.timing);
    assert_eq!(m.interactive.timing, m.largest_contentful_paint.timing);
    assert_eq!(m.total_blocking_time.timing, 0.0);
    // The graph's error comes before the paints'.
    let analysis = load(document);
    let data = analysis.handlers().unwrap();
    let navigation = data.meta().navigations.main_frame[0];
    let failing = |_: &[LanternRequest]| Err(crate::LanternError::new("graph"));
    let error = crate::context::context_with_graph(data, analysis.strings(), &navigation, failing).unwrap_err();
    assert_eq!(error.to_string(), "graph");
    // No paint at all: no scores for the frame.
    let error = crate::context::context_with_graph(data, analysis.strings(), &navigation, one_node).unwrap_err();
    assert_eq!(error.to_string(), "missing metric scores for frame");
}

#[test]
fn lcp_leaves_low_images_out_tti_waits_for_long_tasks_and_tbt_counts_them() {
    let requests = vec![
        request("http://a.test/", "VeryHigh", "Document", 1000.0, 1.0, 2.0),
        request("http://a.test/i.png", "Low", "Image", 1000.0, 3.0, 4.0),
    ];
    let paints = CpuNode {
        did_paint: true,
        ..CpuNode::default()
    };
    let nodes = vec![
        network(&requests, 0),
        network(&requests, 1),
        task(5000.0, 65000.0, CpuNode::default()),
        task(4000.0, 5000.0, paints),
    ];
    let graph = graph(nodes, &[(0, 1), (0, 2), (0, 3)]);
    let simulator = Simulator::new(&analysis("http://a.test")).unwrap();
    let navigation = ProcessedNavigation {
        first_contentful_paint: 70000.0,
        largest_contentful_paint: Some(80000.0),
        largest_contentful_paint_is_text: false,
    };
    let input = MetricInput {
        graph: &graph,
        requests: &requests,
        simulator: &simulator,
        navigation: &navigation,
    };
    let m = crate::metrics(input).unwrap();
    // FCP: the document (430 ms) and the first paint (1).
    assert_eq!(m.first_contentful_paint.optimistic_graph.original_nodes(), vec![0, 3]);
    assert_eq!(m.first_contentful_paint.timing, 431.0);
    // LCP: the low priority image is simulated pessimistically (it ends
    // at 560: 130 ms on the warm connection) but never taken for the LCP.
    assert_eq!(
        m.largest_contentful_paint.pessimistic_graph.original_nodes(),
        vec![0, 1, 3]
    );
    assert_eq!(m.largest_contentful_paint.pessimistic.time_in_ms, 431.0);
    assert_eq!(m.largest_contentful_paint.timing, 431.0);
    // TTI: optimistically the document and the long task (490), else all,
    // the long task after the paint (491).
    assert_eq!(m.interactive.optimistic_graph.original_nodes(), vec![0, 2]);
    assert_eq!(m.interactive.optimistic.time_in_ms, 490.0);
    assert_eq!(m.interactive.pessimistic.time_in_ms, 491.0);
    assert!((m.interactive.timing - (0.45 * 490.0 + 0.55 * 491.0)).abs() < 1e-9);
    // TBT: the long task (431 to 491) past 50 ms, in 431..490 (9) and in
    // 431..491 (10).
    assert_eq!(m.total_blocking_time.optimistic.time_in_ms, 9.0);
    assert_eq!(m.total_blocking_time.pessimistic.time_in_ms, 10.0);
    assert_eq!(m.total_blocking_time.timing, 9.5);
}
