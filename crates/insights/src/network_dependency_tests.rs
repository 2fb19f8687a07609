//! The Network dependency tree insight on small page loads written here:
//! a document, what it loads, its paints (so that Lantern can simulate it).

use crate::network_dependency_tree::{preconnects_of_link_header, NetworkDependencyTree, PreconnectSource};
use crate::test_trace::{navigation_set, sets, trace};
use crate::{EventRef, Finding, Insight, RelatedEvents, State};

/// A request of id `id` for `url` sent at `ts` µs from the document (or
/// `initiator`'s JSON), its response 110 ms later (a new TLS connection:
/// 95 ms, 50 of them the handshake) and its end 10 ms after that;
/// `headers` is the response's header list.
fn request(id: &str, url: &str, ts: u64, kind: &str, priority: &str, initiator: &str, headers: &str) -> String {
    let start = ts as f64 / 1e6;
    let mime = match kind {
        "Document" => "text/html",
        "Image" => "image/png",
        _ => "text/javascript",
    };
    format!(
        r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"{id}","url":"{url}","priority":"{priority}","frame":"F1","resourceType":"{kind}"{initiator}}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","mimeType":"{mime}","statusCode":200,"protocol":"h2","connectionId":{},"connectionReused":false,"encodedDataLength":20000,"headers":[{headers}],
    "timing":{{"requestTime":{start},"dnsStart":0,"dnsEnd":5,"connectStart":5,"connectEnd":100,"sslStart":50,"sslEnd":100,"proxyStart":-1,"proxyEnd":-1,"sendStart":101,"sendEnd":102,"receiveHeadersStart":109,"receiveHeadersEnd":110}}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}","encodedDataLength":20000,"decodedBodyLength":50000,"finishTime":{}}}}}}}"#,
        ts + 110_000,
        ts / 1000,
        ts + 120_000,
        start + 0.12
    )
}

/// The initiator of a request the document's HTML asked for.
const BY_DOCUMENT: &str = r#","initiator":{"type":"parser","url":"https://a.test/"}"#;

/// The document `N1`, with these response headers.
fn document(headers: &str) -> String {
    request("N1", "https://a.test/", 2100, "Document", "VeryHigh", "", headers)
}

/// The first paints, late enough for every request to come before them.
const PAINTS: &str = r#"{"name":"firstContentfulPaint","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":900000,"args":{"frame":"F1","data":{"navigationId":"N1"}}},
  {"name":"largestContentfulPaint::Candidate","cat":"loading,rail,devtools.timeline","ph":"R","pid":2,"tid":3,"ts":900000,"args":{"frame":"F1","data":{"candidateIndex":1,"navigationId":"N1","type":"text"}}}"#;

fn insight(events: &[String]) -> (Insight, NetworkDependencyTree) {
    let mut all = events.to_vec();
    all.push(PAINTS.to_owned());
    let sets = sets(&trace(&all.join(",\n")));
    let insight = navigation_set(&sets)
        .computed()
        .find(|i| matches!(i.finding, Finding::NetworkDependencyTree(_)))
        .unwrap()
        .clone();
    let Finding::NetworkDependencyTree(f) = &insight.finding else {
        unreachable!()
    };
    let f = f.clone();
    (insight, f)
}

#[test]
fn a_script_the_document_waits_for_makes_a_chain_of_two_and_fails() {
    let (insight, f) = insight(&[
        document(""),
        request("R2", "https://a.test/app.js", 80_000, "Script", "High", BY_DOCUMENT, ""),
    ]);
    assert_eq!(insight.state, State::Fail);
    assert!(f.fail);
    assert_eq!(f.root_nodes.len(), 1);
    let root = &f.root_nodes[0];
    assert_eq!(root.request, EventRef::Request(0));
    assert!(root.is_longest);
    assert_eq!(root.children.len(), 1);
    let script = &root.children[0];
    assert_eq!(script.request, EventRef::Request(1));
    // From the document's start to the script's end.
    assert_eq!(script.time_from_initial_request.0, 80_000.0 + 120_000.0 - 2100.0);
    assert_eq!(f.max_time, script.time_from_initial_request);
    assert_eq!(
        script.related_requests,
        vec![EventRef::Request(0), EventRef::Request(1)]
    );
    // Only the third request of a chain and after are warned of.
    let Some(RelatedEvents::Labelled(related)) = &insight.related_events else {
        panic!("{:?}", insight.related_events)
    };
    assert_eq!(related.len(), 2);
    assert!(related.iter().all(|(_, labels)| labels.is_empty()));
}

#[test]
fn an_image_is_not_critical_and_the_document_alone_passes() {
    let (insight, f) = insight(&[
        document(""),
        request(
            "R2",
            "https://a.test/hero.png",
            80_000,
            "Image",
            "High",
            BY_DOCUMENT,
            "",
        ),
        // Low priority and not blocking rendering: not critical either.
        request(
            "R3",
            "https://a.test/late.js",
            90_000,
            "Script",
            "Low",
            &format!(r#"{BY_DOCUMENT},"renderBlocking":"non_blocking""#),
            "",
        ),
    ]);
    assert_eq!(insight.state, State::Pass);
    assert_eq!(f.root_nodes.len(), 1);
    assert!(f.root_nodes[0].children.is_empty());
    assert_eq!(f.max_time.0, 120_000.0);
}

#[test]
fn the_document_link_header_and_link_elements_preconnect() {
    let header =
        r#"{"name":"Link","value":"</style.css>; rel=preload; as=style, <https://cdn.test>; rel=\"preconnect\""}"#;
    let link = r#"{"name":"LinkPreconnect","ph":"I","pid":2,"tid":3,"ts":3000,"cat":"devtools.timeline","args":{"data":{"node_id":7,"frame":"F1","url":"https://fonts.test/"}}}"#;
    let (_, f) = insight(&[
        document(header),
        link.to_owned(),
        request(
            "R2",
            "https://cdn.test/lib.js",
            80_000,
            "Script",
            "High",
            BY_DOCUMENT,
            "",
        ),
    ]);
    assert_eq!(f.preconnected_origins.len(), 2);
    let dom = &f.preconnected_origins[0];
    assert_eq!(dom.url, "https://fonts.test/");
    assert!(dom.unused, "no request went to fonts.test");
    let PreconnectSource::Dom { node_id, .. } = &dom.source else {
        panic!("{:?}", dom.source)
    };
    assert_eq!(node_id.as_f64(), Some(7.0));
    let from_header = &f.preconnected_origins[1];
    assert_eq!(from_header.url, "https://cdn.test");
    assert!(!from_header.unused);
    let PreconnectSource::ResponseHeader { header_text, request } = &from_header.source else {
        panic!("{:?}", from_header.source)
    };
    assert_eq!(
        (header_text.as_str(), *request),
        ("<https://cdn.test>; rel=\"preconnect\"", 0)
    );
}

#[test]
fn a_link_header_preconnects_only_with_rel_preconnect_after_a_url() {
    let found = preconnects_of_link_header(
        r#"<https://a.test>; rel=preconnect, <https://b.test>; rel=preload, <https://d.test>; crossorigin; REL="preconnect""#,
    );
    let urls: Vec<&str> = found.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(urls, vec!["https://a.test", "https://d.test"]);
    assert_eq!(found[1].1, r#"<https://d.test>; crossorigin; REL="preconnect""#);
    // A part without its `<URL>` runs on to the next `>`, swallowing the
    // part after it.
    let found = preconnects_of_link_header("https://c.test; rel=preconnect, <https://d.test>; rel=preconnect");
    assert!(found.is_empty());
    assert!(preconnects_of_link_header("").is_empty());
    assert!(preconnects_of_link_header("<>; rel=preconnect").is_empty());
}

#[test]
fn without_a_navigation_the_insight_passes_with_nothing() {
    let sets = sets(&trace(""));
    let before = sets.sets.iter().find(|s| s.navigation.is_none());
    if let Some(set) = before {
        let insight = set
            .computed()
            .find(|i| matches!(i.finding, Finding::NetworkDependencyTree(_)))
            .unwrap();
        assert_eq!(insight.state, State::Pass);
        assert!(insight.related_events.is_none());
    }
}

#[test]
fn a_late_first_request_to_another_origin_is_a_preconnect_candidate() {
    // The script of a.test asks cdn.test for a script 200 ms after the
    // document's end, paying for a new connection (DNS at 0 ms).
    let stack = r#","initiator":{"type":"script"},"stackTrace":[{"url":"https://a.test/app.js","lineNumber":1,"columnNumber":1,"scriptId":"1","functionName":"f"}]"#;
    let (_, f) = insight(&[
        document(""),
        request("R2", "https://a.test/app.js", 80_000, "Script", "High", BY_DOCUMENT, ""),
        request("R3", "https://cdn.test/lib.js", 350_000, "Script", "High", stack, ""),
    ]);
    assert_eq!(f.preconnect_candidates.len(), 1, "{:?}", f.preconnect_candidates);
    let candidate = &f.preconnect_candidates[0];
    assert_eq!(candidate.origin, "https://cdn.test");
    assert!(candidate.wasted_ms >= 50.0, "{}", candidate.wasted_ms);
    // The same request from the document's own HTML is no candidate.
    let (_, f) = insight(&[
        document(""),
        request(
            "R3",
            "https://cdn.test/lib.js",
            350_000,
            "Script",
            "High",
            BY_DOCUMENT,
            "",
        ),
    ]);
    assert!(f.preconnect_candidates.is_empty(), "{:?}", f.preconnect_candidates);
}

#[test]
fn a_redirected_document_is_in_the_chain_once_per_hop_and_its_copies_are_dumped() {
    // The document asked for at http://a.test/old first, redirected to
    // https://a.test/.
    let redirect = r#"{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":2050,"args":{"data":{"requestId":"N1","url":"http://a.test/old","priority":"VeryHigh","frame":"F1","resourceType":"Document"}}}"#;
    let text = trace(&[redirect.to_owned(), document(""), PAINTS.to_owned()].join(",\n"));
    let options = tracekit::AnalyzeOptions::default().with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let sets = crate::compute(&analysis).unwrap();
    let insight = navigation_set(&sets)
        .computed()
        .find(|i| matches!(i.finding, Finding::NetworkDependencyTree(_)))
        .unwrap();
    let Finding::NetworkDependencyTree(f) = &insight.finding else {
        unreachable!()
    };
    assert_eq!(f.root_nodes.len(), 1);
    assert_eq!(f.root_nodes[0].request, EventRef::RedirectHop(0, 0));
    assert_eq!(f.root_nodes[0].children[0].request, EventRef::Request(0));
    assert_eq!(insight.state, State::Fail);
    // The copy is a request of its own, its source event a copy of the
    // last send.
    let out = crate::sets_document(&analysis, &sets, true).unwrap();
    assert!(out.contains(r#""$SyntheticNetworkRequest:2:3:2050""#), "{out}");
    assert!(
        out.contains(r#""rawSourceEvent":"$ResourceSendRequest:2:3:2100""#),
        "{out}"
    );
}
