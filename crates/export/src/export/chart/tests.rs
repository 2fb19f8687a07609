//! The chart's data encoding: the header and the columns hold the tracks
//! exactly, the colours are DevTools', and the page is one file.

use super::pack::DEFLATE_PIECE;
use super::*;
use serde_json::Value;
use tracekit_engine::query::{Query, Window};
use tracekit_engine::AnalyzeOptions;
use tracekit_engine::Millis;

/// A DevTools recording (so not generic) of one renderer thread with a
/// task, an event the panel does not draw, a function call with JS calls
/// in it (from a CPU profile), and other threads, in an order that is
/// not the panel's.
const TRACE: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":3,"ts":0,"cat":"__metadata","args":{"name":"Compositor"}},
{"name":"thread_name","ph":"M","pid":1,"tid":4,"ts":0,"cat":"__metadata","args":{"name":"ThreadPoolForegroundWorker"}},
{"name":"thread_name","ph":"M","pid":1,"tid":5,"ts":0,"cat":"__metadata","args":{"name":"ThreadPoolForegroundWorker"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"Paint","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":3,"ts":1,"dur":1,"args":{}},
{"name":"Paint","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":4,"ts":1,"dur":1,"args":{}},
{"name":"Paint","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":5,"ts":1,"dur":1,"args":{}},
{"name":"Paint","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":5,"ts":3,"dur":1,"args":{}},
{"name":"thread_name","ph":"M","pid":1,"tid":2,"ts":0,"cat":"__metadata","args":{"name":"DedicatedWorker thread"}},
{"name":"process_name","ph":"M","pid":1,"tid":0,"ts":0,"cat":"__metadata","args":{"name":"Renderer"}},
{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":9,"tid":9,"ts":0,"args":{"data":{"frameTreeNodeId":1,"persistentIds":true,"frames":[{"frame":"F1","url":"https://main.test/","name":"","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"args":{}},
{"name":"ThreadControllerImpl::RunTask","cat":"toplevel","ph":"X","pid":1,"tid":1,"ts":2,"dur":96,"args":{}},
{"name":"FunctionCall","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":5,"dur":90,"args":{}},
{"name":"Paint","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":2,"ts":300,"dur":700.5,"args":{}},
{"name":"Profile","ph":"P","cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{"startTime":0}}},
{"name":"ProfileChunk","ph":"P","cat":"disabled-by-default-v8.cpu_profiler","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}},{"id":2,"parent":1,"callFrame":{"functionName":"(program)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}},{"id":3,"parent":1,"callFrame":{"functionName":"main","scriptId":1,"url":"https://main.test/app.js","lineNumber":10,"columnNumber":4}},{"id":4,"parent":3,"callFrame":{"functionName":"","scriptId":1,"url":"https://main.test/app.js","lineNumber":40,"columnNumber":0}},{"id":5,"parent":3,"callFrame":{"functionName":"JSON.parse","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}}],"samples":[4,4,2,5,2,2,5]},"timeDeltas":[10,10,10,10,10,10,10]}}}
]"#;

fn analysis(trace: &str) -> Analysis {
    tracekit_engine::analyze_bytes(trace.as_bytes(), &AnalyzeOptions::default()).unwrap()
}

/// The bytes of a column of a lane, and the width of its values.
fn column_bytes<'d>(data: &'d ChartData, lane: &Value, key: &str) -> (&'d [u8], usize) {
    let entry = &lane["columns"][key];
    let offset = usize::try_from(entry["offset"].as_u64().unwrap()).unwrap();
    let count = usize::try_from(lane["nodes"].as_u64().unwrap()).unwrap();
    assert_eq!(offset % 8, 0, "{key} is aligned");
    let width = match entry["type"].as_str().unwrap() {
        "f64" => 8,
        "u32" => 4,
        "u16" => 2,
        "u8" => 1,
        other => panic!("type {other}"),
    };
    (&data.columns[offset..offset + count * width], width)
}

/// A column of doubles, decoded as the renderer reads it.
fn floats(data: &ChartData, lane: &Value, key: &str) -> Vec<f64> {
    let (bytes, width) = column_bytes(data, lane, key);
    assert_eq!(width, 8, "{key} holds doubles");
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// A column of unsigned integers (of 1, 2 or 4 bytes), as indices.
fn integers(data: &ChartData, lane: &Value, key: &str) -> Vec<usize> {
    let (bytes, width) = column_bytes(data, lane, key);
    bytes
        .chunks_exact(width)
        .map(|b| {
            let mut le = [0u8; 4];
            le[..width].copy_from_slice(b);
            usize::try_from(u32::from_le_bytes(le)).unwrap()
        })
        .collect()
}

fn header(data: &ChartData) -> Value {
    serde_json::from_str(&data.header).unwrap()
}

/// A node as the renderer would describe and draw it.
#[derive(Debug, Clone, PartialEq)]
struct Drawn {
    depth: usize,
    name: String,
    /// `url:line:column` as DevTools shows it (from 1).
    location: String,
    start: f64,
    dur: f64,
    self_time: f64,
    color: String,
    /// Drawn when not showing all events.
    drawn: bool,
}

#[allow(clippy::too_many_arguments)]
fn drawn(
    depth: usize,
    name: &str,
    location: &str,
    start: f64,
    dur: f64,
    self_time: f64,
    color: &str,
    shown: bool,
) -> Drawn {
    Drawn {
        depth,
        name: name.to_owned(),
        location: location.to_owned(),
        start,
        dur,
        self_time,
        color: color.to_owned(),
        drawn: shown,
    }
}

/// The nodes of a lane, read back from the data.
fn nodes(data: &ChartData, lane: usize) -> Vec<Drawn> {
    let h = header(data);
    let lane = &h["lanes"][lane];
    let labels = &h["labels"];
    let index = |key: &str, l: usize| usize::try_from(labels[key][l].as_u64().unwrap()).unwrap();
    let number = |key: &str, l: usize| labels[key][l].as_f64().unwrap();
    let string = |key: &str, l: usize| h["strings"][index(key, l)].as_str().unwrap().to_owned();
    let (start, dur, self_time) = (
        floats(data, lane, "start"),
        floats(data, lane, "dur"),
        floats(data, lane, "self"),
    );
    let (depth, label) = (integers(data, lane, "depth"), integers(data, lane, "label"));
    (0..start.len())
        .map(|i| {
            let l = label[i];
            let mut location = string("url", l);
            if number("line", l) >= 0.0 {
                location += &format!(":{}", number("line", l) + 1.0);
                if number("column", l) >= 0.0 {
                    location += &format!(":{}", number("column", l) + 1.0);
                }
            }
            Drawn {
                depth: depth[i],
                name: string("name", l),
                location,
                start: start[i],
                dur: dur[i],
                self_time: self_time[i],
                color: h["colors"][index("color", l)].as_str().unwrap().to_owned(),
                drawn: number("drawn", l) == 1.0,
            }
        })
        .collect()
}

#[test]
fn columns_hold_the_tracks_exactly() {
    let a = analysis(TRACE);
    let data = data(&a, &Query::new(), "t.json");
    let h = header(&data);
    assert_eq!(h["format"], "tracekit-chart");
    assert_eq!(h["version"], 3);
    // Without page tracks: no page section, no images.
    assert_eq!(h["page"], Value::Null);
    assert!(data.images.is_empty());
    assert_eq!(h["title"], "t.json");
    assert_eq!(h["generic"], false);
    assert_eq!(h["bytes"].as_u64().unwrap(), data.columns.len() as u64);
    let lanes = h["lanes"].as_array().unwrap();
    // The panel's order: main thread, worker, thread pool (the busier
    // first), the rest; the Compositor is folded, as the panel hides it.
    let order: Vec<(&str, &str, bool)> = lanes
        .iter()
        .map(|l| {
            (
                l["thread"].as_str().unwrap(),
                l["tid"].as_str().unwrap(),
                l["folded"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            ("CrRendererMain", "1", false),
            ("DedicatedWorker thread", "2", false),
            ("ThreadPoolForegroundWorker", "5", false),
            ("ThreadPoolForegroundWorker", "4", false),
            ("Compositor", "3", true)
        ]
    );
    assert_eq!(lanes[0]["thread"], "CrRendererMain");
    assert_eq!(lanes[0]["process"], "Renderer");
    assert_eq!(lanes[0]["pid"], "1");
    assert_eq!(lanes[0]["url"], "https://main.test/");
    assert_eq!(lanes[0]["mainFrame"], true);

    let scripting = Category::Scripting.color().to_owned();
    let system = Category::Other.color().to_owned();
    let app = script_color("https://main.test/app.js");
    let expected = vec![
        drawn(0, "RunTask", "", 0.0, 100.0, 4.0, &system, true),
        // Not styled: the panel does not draw it (its children move up).
        drawn(1, "ThreadControllerImpl::RunTask", "", 2.0, 96.0, 6.0, &system, false),
        drawn(2, "FunctionCall", "", 5.0, 90.0, 25.0, &scripting, true),
        drawn(3, "main", "https://main.test/app.js:11:5", 10.0, 40.0, 0.0, &app, true),
        drawn(
            4,
            "(anonymous)",
            "https://main.test/app.js:41:1",
            10.0,
            30.0,
            30.0,
            &app,
            true,
        ),
        // A frame of no script (scriptId 0): the scripting colour.
        drawn(4, "JSON.parse", "", 40.0, 10.0, 10.0, &scripting, true),
        drawn(3, "main", "https://main.test/app.js:11:5", 70.0, 25.0, 0.0, &app, true),
        drawn(4, "JSON.parse", "", 70.0, 25.0, 25.0, &scripting, true),
    ];
    assert_eq!(nodes(&data, 0), expected);

    // Exactly the analysis's numbers, in µs from the trace's start.
    let threads = &a.process_tracks().values().next().unwrap().threads;
    let track = threads
        .values()
        .find(|t| t.name.as_deref() == Some("CrRendererMain"))
        .unwrap();
    let starts: Vec<f64> = track.nodes.iter().map(|n| (n.ts() - a.bounds().min).0).collect();
    assert_eq!(floats(&data, &lanes[0], "start"), starts);
    assert_eq!(h["origin"].as_f64().unwrap(), a.bounds().min.0);
    assert_eq!(h["view"], serde_json::json!([0, a.bounds().range().0]));

    // A fraction of a µs survives; the worker's paint is painting green.
    let worker = nodes(&data, 1);
    assert_eq!(worker.len(), 1);
    assert_eq!((worker[0].name.as_str(), worker[0].dur), ("Paint", 700.5));
    assert_eq!(worker[0].color, "#37be5f");
}

#[test]
fn thread_and_window_choose_lanes_nodes_and_view() {
    let a = analysis(TRACE);
    let filter = Query::new()
        .with_thread("crrenderermain")
        .unwrap()
        .with_window(Window::new(Millis(0.065), Millis(f64::INFINITY)).unwrap());
    let data = data(&a, &filter, "t");
    let h = header(&data);
    assert_eq!(h["lanes"].as_array().unwrap().len(), 1);
    let names: Vec<String> = nodes(&data, 0).into_iter().map(|n| n.name).collect();
    // The nodes overlapping 65 µs.. (in ms from the start), with their ancestors.
    assert_eq!(
        names,
        [
            "RunTask",
            "ThreadControllerImpl::RunTask",
            "FunctionCall",
            "main",
            "JSON.parse"
        ]
    );
    // The view is the window, its open end at the trace's end.
    assert_eq!(h["view"], serde_json::json!([65, a.bounds().range().0]));
}

#[test]
fn narrowest_integer_columns() {
    for (max, kind, width) in [(255, "u8", 1), (256, "u16", 2), (65_535, "u16", 2), (65_536, "u32", 4)] {
        let (mut bytes, mut header) = (vec![1u8], String::new());
        int_column(&mut bytes, &mut header, "depth", &[0, max, 7]);
        assert_eq!(header, format!("\"depth\":{{\"type\":\"{kind}\",\"offset\":8}}"));
        assert_eq!(bytes.len(), 8 + 3 * width);
        let last = &bytes[8 + 2 * width..];
        assert_eq!(last[0], 7);
        assert!(last[1..].iter().all(|&b| b == 0));
    }
}

#[test]
fn a_generic_trace_draws_every_event_coloured_by_name() {
    let trace = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"main"}},
{"name":"work","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
{"name":"more work","ph":"X","pid":1,"tid":1,"ts":2,"dur":5}]"#;
    let a = analysis(trace);
    let data = data(&a, &Query::new(), "g");
    assert_eq!(header(&data)["generic"], true);
    let got = nodes(&data, 0);
    assert!(got.iter().all(|n| n.drawn), "{got:?}");
    assert_eq!(
        got[0].color,
        format!("hsl({}, 40%, 70%)", devtools_hash_code("work") % 300 + 30)
    );
}

/// Values printed by DevTools' own `hashCode` and colour generator (run
/// in Node): `Platform.StringUtilities.hashCode(s)` and
/// `new Common.Color.Generator({min: 30, max: 330}, {min: 50, max: 80,
/// count: 3}, 85).colorForID(s)`.
#[test]
fn colours_are_devtools() {
    for (s, hash, color) in [
        ("", 0, "#f2ecdc"),
        ("a", 1_195_795_714, "hsl(244deg 80% 85%)"),
        ("RunTask", 1_744_256_165, "hsl(95deg 80% 85%)"),
        ("https://example.com/app.js", 1_201_579_772, "hsl(302deg 80% 85%)"),
        ("http://a.test:32883/common.js", 634_053_485, "hsl(215deg 65% 85%)"),
        // Code units past the BMP count twice, as in JavaScript.
        ("é😀ü", 424_233_477, "hsl(207deg 65% 85%)"),
        ("file:///x/y/z.js?q=1", 754_203_104, "hsl(134deg 50% 85%)"),
    ] {
        assert_eq!(devtools_hash_code(s), hash, "{s}");
        assert_eq!(script_color(s), color, "{s}");
    }
}

/// The base64 of `bytes`, decoded back (RFC 4648's alphabet, padding).
fn unbase64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|&c| c != b'=') {
        let value = ALPHABET.iter().position(|&a| a == c).expect("a base64 character");
        bits = bits << 6 | u32::try_from(value).unwrap();
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push(u8::try_from(bits >> count & 0xff).unwrap());
        }
    }
    out
}

/// Columns deflated in pieces inflate to themselves, whatever their size
/// (none, less than a piece, several pieces and a bit), and the pieces
/// are the same on any number of cores.
#[test]
fn columns_deflated_in_pieces_inflate_back() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    // Bytes like the columns': counters and times that change slowly.
    let column = |n: usize| -> Vec<u8> {
        (0..n as u64)
            .flat_map(|i| (i * 37 + (i * i) % 1001).to_le_bytes())
            .collect()
    };
    for size in [0, 10_000, 3 * DEFLATE_PIECE / 8 + 5] {
        let bytes = column(size);
        let sequential = deflate(&bytes, Parallelism::Sequential);
        let parallel = pool.install(|| deflate(&bytes, Parallelism::Rayon));
        assert!(sequential == parallel, "{} bytes", bytes.len());
        let mut inflated = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&sequential[..]), &mut inflated).unwrap();
        assert!(inflated == bytes, "{} bytes", bytes.len());
        assert!(
            sequential.len() < bytes.len() / 2 + 16,
            "{} bytes: compressed",
            bytes.len()
        );
    }
}

#[test]
fn base64_is_rfc_4648() {
    // RFC 4648's test vectors.
    for (plain, encoded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        let mut out = String::new();
        base64(plain.as_bytes(), &mut out);
        assert_eq!(out, encoded);
    }
    let all: Vec<u8> = (0..=255).chain((0..=255).rev()).collect();
    let mut out = String::new();
    base64(&all, &mut out);
    assert_eq!(unbase64(&out), all);
}

#[test]
fn the_page_holds_everything_and_escapes_what_it_must() {
    // A name that would end a <script> element, and a title with markup.
    let trace = TRACE.replace("\"functionName\":\"main\"", "\"functionName\":\"</script><!--main\"");
    let a = analysis(&trace);
    let page = html(&a, &Query::new(), Parallelism::Sequential, "<b>t</b>.json");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<title>&lt;b&gt;t&lt;/b&gt;.json · tracekit chart</title>"));
    for placeholder in ["{{TITLE}}", "{{RENDERER}}", "{{HEADER}}", "{{COLUMNS}}", "{{IMAGES}}"] {
        assert!(!page.contains(placeholder), "{placeholder} left");
    }
    // Each script element ends where it should: the name is escaped.
    assert_eq!(page.matches("</script>").count(), 5);
    assert!(page.contains("\\u003c/script>\\u003c!--main"));
    let between = |from: &str, to: &str| {
        let start = page.find(from).unwrap() + from.len();
        &page[start..start + page[start..].find(to).unwrap()]
    };
    let header: Value = serde_json::from_str(between("type=\"application/json\">", "</script>")).unwrap();
    let data = data(&a, &Query::new(), "<b>t</b>.json");
    assert_eq!(header, serde_json::from_str::<Value>(&data.header).unwrap());
    let columns = between("data-encoding=\"deflate-raw base64\">", "</script>");
    let mut inflated = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::DeflateDecoder::new(&unbase64(columns)[..]),
        &mut inflated,
    )
    .unwrap();
    assert_eq!(inflated, data.columns);
    // Nothing is fetched: no URL but the data's own (and the inline icon).
    for needle in [
        "src=",
        "@import",
        "url(",
        "fetch(",
        "XMLHttpRequest",
        "<link rel=\"stylesheet\"",
    ] {
        assert!(!page.contains(needle), "{needle}");
    }
    assert!(!RENDERER_JS.to_lowercase().contains("</script"));
    assert!(!RENDERER_JS.contains("<!--"));
}

/// Page tracks of [`TRACE`]'s clock (its events start at 0 µs), one or
/// two of each, in no particular order.
fn page_tracks() -> PageTracks {
    let us = Micros;
    PageTracks {
        network: vec![
            NetworkRequest {
                url: "https://main.test/app.js".to_owned(),
                kind: ResourceKind::of(Some("Script"), "text/javascript"),
                priority: "High".to_owned(),
                initial_priority: Some("Low".to_owned()),
                status: Some(200),
                mime_type: "text/javascript".to_owned(),
                transfer_size: Some(1234),
                decoded_size: None,
                render_blocking: true,
                from_cache: false,
                start: us(20.0),
                send_start: us(25.0),
                download_start: us(40.0),
                finish: us(60.0),
                end: us(61.5),
            },
            NetworkRequest {
                url: "https://main.test/</script>".to_owned(),
                kind: ResourceKind::of(None, "text/html"),
                priority: "VeryHigh".to_owned(),
                initial_priority: None,
                status: None,
                mime_type: String::new(),
                transfer_size: None,
                decoded_size: Some(99),
                render_blocking: false,
                from_cache: true,
                start: us(10.0),
                send_start: us(10.0),
                download_start: us(11.0),
                finish: us(12.0),
                end: us(12.0),
            },
        ],
        frames: vec![
            Frame {
                start: us(16.0),
                end: us(32.0),
                state: FrameState::Dropped,
            },
            Frame {
                start: us(0.0),
                end: us(16.0),
                state: FrameState::Good,
            },
        ],
        screenshots: vec![
            Screenshot {
                time: us(50.0),
                jpeg: vec![0xff, 0xd8, 2, 0xff, 0xd9],
            },
            Screenshot {
                time: us(5.0),
                jpeg: vec![0xff, 0xd8, 1, 0xff, 0xd9],
            },
            // The same image again: kept once.
            Screenshot {
                time: us(70.0),
                jpeg: vec![0xff, 0xd8, 1, 0xff, 0xd9],
            },
        ],
        timings: vec![
            Timing {
                kind: TimingKind::Mark,
                name: "ready".to_owned(),
                start: us(30.0),
                dur: us(0.0),
            },
            Timing {
                kind: TimingKind::Measure,
                name: "boot".to_owned(),
                start: us(30.0),
                dur: us(40.0),
            },
            Timing {
                kind: TimingKind::TimeStamp,
                name: "tick".to_owned(),
                start: us(1.0),
                dur: us(0.0),
            },
        ],
        markers: vec![
            PageLoadMarker {
                kind: MarkerKind::Load,
                time: us(90.0),
            },
            PageLoadMarker {
                kind: MarkerKind::FirstContentfulPaint,
                time: us(33.0),
            },
        ],
        interactions: vec![Interaction {
            kind: InteractionKind::Pointer,
            event_type: "click".to_owned(),
            interaction_id: 7,
            start: us(40.0),
            processing_start: us(45.0),
            processing_end: us(60.0),
            end: us(80.0),
        }],
        layout_shifts: vec![LayoutShiftCluster {
            start: us(35.0),
            end: us(95.0),
            score: 0.25,
            shifts: vec![
                LayoutShift {
                    time: us(50.0),
                    score: 0.2,
                },
                LayoutShift {
                    time: us(35.0),
                    score: 0.05,
                },
            ],
        }],
        ..PageTracks::default()
    }
}

#[test]
fn page_tracks_are_written_in_time_order_from_the_origin() {
    let a = analysis(TRACE);
    let tracks = page_tracks();
    let data = data_with_page(&a, &Query::new(), "t", Some(&tracks));
    let h = header(&data);
    let page = &h["page"];
    // The origin is the trace's first event, at 0 µs here: times as given.
    assert_eq!(h["origin"], 0.0);
    let network = page["network"].as_array().unwrap();
    assert_eq!(network.len(), 2);
    assert_eq!(
        network[0],
        serde_json::json!({
            "url": "https://main.test/</script>", "kind": "Doc", "color": "#4c8df6",
            "priority": "VeryHigh", "initialPriority": "VeryHigh", "status": null, "mimeType": "",
            "transferSize": null, "decodedSize": 99, "renderBlocking": false, "fromCache": true,
            "start": 10, "sendStart": 10, "downloadStart": 11, "finish": 12, "end": 12
        })
    );
    assert_eq!(
        network[1],
        serde_json::json!({
            "url": "https://main.test/app.js", "kind": "JS", "color": "#facc15",
            "priority": "High", "initialPriority": "Low", "status": 200, "mimeType": "text/javascript",
            "transferSize": 1234, "decodedSize": null, "renderBlocking": true, "fromCache": false,
            "start": 20, "sendStart": 25, "downloadStart": 40, "finish": 60, "end": 61.5
        })
    );
    assert_eq!(
        page["frames"],
        serde_json::json!([
            {"state": "good", "start": 0, "end": 16},
            {"state": "dropped", "start": 16, "end": 32}
        ])
    );
    // Screenshots in time order; two images, the repeated one once.
    assert_eq!(
        page["screenshots"],
        serde_json::json!([
            {"image": 0, "time": 5}, {"image": 1, "time": 50}, {"image": 0, "time": 70}
        ])
    );
    assert_eq!(
        data.images,
        vec![vec![0xff, 0xd8, 1, 0xff, 0xd9], vec![0xff, 0xd8, 2, 0xff, 0xd9]]
    );
    // Timings: by time, a measure before a mark at its start.
    let timings: Vec<(&str, &str, f64, f64)> = page["timings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["kind"].as_str().unwrap(),
                t["name"].as_str().unwrap(),
                t["start"].as_f64().unwrap(),
                t["dur"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        timings,
        [
            ("timestamp", "tick", 1.0, 0.0),
            ("measure", "boot", 30.0, 40.0),
            ("mark", "ready", 30.0, 0.0)
        ]
    );
    assert_eq!(page["timings"][1]["color"], timing_color("boot"));
    assert_eq!(
        page["markers"],
        serde_json::json!([
            {"label": "FCP", "title": "First Contentful Paint", "color": "#1a6937", "time": 33},
            {"label": "L", "title": "Load event", "color": "#b31412", "time": 90}
        ])
    );
    assert_eq!(
        page["interactions"],
        serde_json::json!([{
            "title": "Pointer", "type": "click", "id": 7, "color": timing_color("Pointer7"),
            "start": 40, "processingStart": 45, "processingEnd": 60, "end": 80
        }])
    );
    assert_eq!(
        page["layoutShifts"],
        serde_json::json!([{
            "score": 0.25, "start": 35, "end": 95,
            "shifts": [{"score": 0.05, "time": 35}, {"score": 0.2, "time": 50}]
        }])
    );
    // The lanes are the same as without page tracks.
    let without = header(&super::data(&a, &Query::new(), "t"));
    assert_eq!(h["lanes"], without["lanes"]);
    assert_eq!(without["page"], Value::Null);
    // Empty tracks are no tracks.
    let empty = data_with_page(&a, &Query::new(), "t", Some(&PageTracks::default()));
    assert_eq!(header(&empty)["page"], Value::Null);
}

#[test]
fn page_times_count_from_the_chart_origin() {
    // A trace whose first event is at 1 s: page times are written from it.
    let trace = TRACE.replace("\"ts\":0,\"dur\":100", "\"ts\":1000000,\"dur\":100");
    let trace = trace.replace(
        "\"ts\":0,\"args\":{\"data\":{\"startTime\"",
        "\"ts\":1000000,\"args\":{\"data\":{\"startTime\"",
    );
    let a = analysis(&trace);
    let origin = header(&data(&a, &Query::new(), "t"))["origin"].as_f64().unwrap();
    let tracks = PageTracks {
        markers: vec![PageLoadMarker {
            kind: MarkerKind::DomContentLoaded,
            time: Micros(origin + 250.5),
        }],
        ..PageTracks::default()
    };
    let h = header(&data_with_page(&a, &Query::new(), "t", Some(&tracks)));
    assert_eq!(h["page"]["markers"][0]["time"], 250.5);
    assert_eq!(h["page"]["markers"][0]["label"], "DCL");
    assert_eq!(h["page"]["network"], serde_json::json!([]));
}

#[test]
fn resource_kinds_and_colours_are_the_panels() {
    for (resource_type, mime, kind) in [
        (Some("Document"), "", ResourceKind::Document),
        (Some("Stylesheet"), "", ResourceKind::Stylesheet),
        (Some("Script"), "", ResourceKind::Script),
        (Some("WebSocket"), "", ResourceKind::Script),
        (Some("Image"), "", ResourceKind::Image),
        (Some("Font"), "", ResourceKind::Font),
        (Some("Media"), "", ResourceKind::Media),
        (Some("Fetch"), "text/html", ResourceKind::Other),
        (None, "text/css", ResourceKind::Stylesheet),
        (None, "application/javascript", ResourceKind::Script),
        (None, "image/png", ResourceKind::Image),
        (None, "video/mp4", ResourceKind::Media),
        (None, "font/woff2", ResourceKind::Font),
        (None, "application/x-font-woff", ResourceKind::Font),
        (None, "application/wasm", ResourceKind::Wasm),
        (None, "text/html", ResourceKind::Document),
        (None, "application/json", ResourceKind::Other),
        (None, "", ResourceKind::Other),
    ] {
        assert_eq!(ResourceKind::of(resource_type, mime), kind, "{resource_type:?} {mime}");
    }
    assert_eq!(ResourceKind::Image.color(), "#6dd58c");
    // The timings' colour generator: hues 30 to 55, saturation 70 to 100 %
    // in 6 steps, lightness 50 %, alpha 70 % (the values DevTools'
    // generator gives, run in Node).
    assert_eq!(timing_color("a"), "hsl(44deg 100% 50% / 70%)");
    assert_eq!(timing_color("RunTask"), "hsl(45deg 82% 50% / 70%)");
    assert_eq!(timing_color("boot"), "hsl(31deg 76% 50% / 70%)");
    assert_eq!(timing_color("Pointer7"), "hsl(49deg 76% 50% / 70%)");
    assert_eq!(timing_color(""), "hsl(30deg 70% 50% / 70%)");
}

#[test]
fn the_page_holds_each_image_once_in_base64() {
    let a = analysis(TRACE);
    let tracks = page_tracks();
    let page = html_with_page(&a, &Query::new(), Parallelism::Sequential, "t", Some(&tracks));
    let from = "data-encoding=\"base64 lines\">";
    let start = page.find(from).unwrap() + from.len();
    let text = &page[start..start + page[start..].find("</script>").unwrap()];
    let images: Vec<Vec<u8>> = text.lines().map(unbase64).collect();
    assert_eq!(
        images,
        vec![vec![0xff, 0xd8, 1, 0xff, 0xd9], vec![0xff, 0xd8, 2, 0xff, 0xd9]]
    );
    // The URL with `</script>` in it is escaped in the header.
    assert_eq!(page.matches("</script>").count(), 5);
    // Without page tracks, the element is there, empty.
    let plain = html(&a, &Query::new(), Parallelism::Sequential, "t");
    assert!(plain.contains(&format!("{from}</script>")));
}

/// A page loaded with every handler: a timer installed in one task and
/// fired in a long one, the GPU's tasks, memory counters, and a measure
/// on an extension track group.
const CAUSES: &str = r#"[
{"name":"process_name","ph":"M","pid":2,"tid":0,"ts":0,"args":{"name":"Renderer"}},
{"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"process_name","ph":"M","pid":3,"tid":0,"ts":0,"args":{"name":"GPU Process"}},
{"name":"thread_name","ph":"M","pid":3,"tid":5,"ts":0,"args":{"name":"CrGpuMain"}},
{"name":"TracingStartedInBrowser","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","ts":0,"pid":1,"tid":1,"args":{"data":{"frameTreeNodeId":1,"persistentIds":true,"frames":[{"frame":"F1","url":"https://page.test/","name":"","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":2,"tid":3,"ts":1000,"dur":2000,"args":{}},
{"name":"TimerInstall","cat":"devtools.timeline","ph":"I","s":"t","pid":2,"tid":3,"ts":1500,"args":{"data":{"frame":"F1","timerId":7}}},
{"name":"UpdateCounters","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":2,"tid":3,"ts":2000,"args":{"data":{"documents":1,"jsEventListeners":2,"jsHeapSizeUsed":3000,"nodes":40}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":2,"tid":3,"ts":10000,"dur":60000,"args":{}},
{"name":"TimerFire","cat":"devtools.timeline","ph":"X","pid":2,"tid":3,"ts":10500,"dur":59000,"args":{"data":{"frame":"F1","timerId":7}}},
{"name":"UpdateCounters","cat":"disabled-by-default-devtools.timeline","ph":"I","s":"t","pid":2,"tid":3,"ts":71000,"args":{"data":{"documents":1,"nodes":45}}},
{"name":"GPUTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":3,"tid":5,"ts":5000,"dur":700,"args":{}},
{"name":"render","cat":"blink.user_timing","ph":"b","id":"0x1","pid":2,"tid":3,"ts":2000,"args":{"detail":"{\"devtools\":{\"dataType\":\"track-entry\",\"track\":\"Components\",\"trackGroup\":\"Framework\",\"color\":\"tertiary\",\"tooltipText\":\"rendered\"}}"}},
{"name":"render","cat":"blink.user_timing","ph":"e","id":"0x1","pid":2,"tid":3,"ts":9000,"args":{}},
{"name":"ready","cat":"blink.user_timing","ph":"R","pid":2,"tid":3,"ts":9500,"args":{"data":{"detail":"{\"devtools\":{\"dataType\":\"marker\",\"color\":\"error\"}}"}}}
]"#;

#[test]
fn initiators_warnings_gpu_memory_and_extensions_go_into_the_page() {
    let options = AnalyzeOptions::default().with_all_handlers(true);
    let a = tracekit_engine::analyze_bytes(CAUSES.as_bytes(), &options).unwrap();
    let page = super::page_tracks(&a);
    let chart = data_with_page(&a, &Query::new(), "t", page.as_ref());
    let h = header(&chart);
    assert_eq!(h["version"], 3);
    let lane = &h["lanes"][0];
    assert_eq!(lane["thread"], "CrRendererMain");
    let labels = integers(&chart, lane, "label");
    let name_of = |node: usize| {
        let label = labels[node];
        let name = usize::try_from(h["labels"]["name"][label].as_u64().unwrap()).unwrap();
        h["strings"][name].as_str().unwrap().to_owned()
    };
    let starts = floats(&chart, lane, "start");
    // A column of a table of the header (`links`, `warnings`).
    let column = |table: &str, key: &str| -> Vec<usize> {
        let t = &h[table];
        let fake_lane = serde_json::json!({"nodes": t["count"], "columns": t["columns"]});
        integers(&chart, &fake_lane, key)
    };
    // The timer's install initiated its fire: one link, lane 0 to lane 0.
    assert_eq!(h["links"]["count"], 1);
    assert_eq!(column("links", "fromLane"), [0]);
    assert_eq!(column("links", "toLane"), [0]);
    let (from, to) = (column("links", "fromNode")[0], column("links", "toNode")[0]);
    assert_eq!((name_of(from).as_str(), starts[from]), ("TimerInstall", 1500.0));
    assert_eq!((name_of(to).as_str(), starts[to]), ("TimerFire", 10500.0));
    // The long task, flagged (bit 1), and nothing else.
    assert_eq!(h["warnings"]["count"], 1);
    let node = column("warnings", "node")[0];
    assert_eq!((name_of(node).as_str(), starts[node]), ("RunTask", 10000.0));
    assert_eq!(column("warnings", "kinds"), [1]);

    let page = &h["page"];
    assert_eq!(page["gpu"], serde_json::json!([{"start": 5000, "dur": 700}]));
    assert_eq!(page["memory"]["time"], serde_json::json!([2000, 71000]));
    assert_eq!(page["memory"]["jsHeap"], serde_json::json!([3000, null]));
    assert_eq!(page["memory"]["nodes"], serde_json::json!([40, 45]));
    let ext = &page["extensions"][0];
    assert_eq!(
        (ext["name"].as_str(), ext["group"].as_bool()),
        (Some("Framework"), Some(true))
    );
    let entry = &ext["tracks"][0]["entries"][0];
    assert_eq!(ext["tracks"][0]["name"], "Components");
    assert_eq!(entry["name"], "render");
    assert_eq!(
        (entry["start"].as_f64(), entry["dur"].as_f64()),
        (Some(2000.0), Some(7000.0))
    );
    assert_eq!(entry["color"], "#37be5f");
    assert_eq!(entry["tooltip"], "rendered");
    assert_eq!(entry["depth"], 0);
    // The marker is among the markers, in its colour; the measure is on its
    // track, not on the Timings track.
    let marker = &page["markers"][0];
    assert_eq!(
        (marker["label"].as_str(), marker["color"].as_str()),
        (Some("ready"), Some("#e46962"))
    );
    assert_eq!(page["timings"], serde_json::json!([]));

    // Without every handler: no links, no warnings.
    let a = analysis(CAUSES);
    let h = header(&data(&a, &Query::new(), "t"));
    assert_eq!(
        (h["links"]["count"].as_u64(), h["warnings"]["count"].as_u64()),
        (Some(0), Some(0))
    );
    // A window that leaves the install out: no link.
    let window = Query::new().with_window(Window::new(Millis(5.0), Millis(80.0)).unwrap());
    let a = tracekit_engine::analyze_bytes(CAUSES.as_bytes(), &options).unwrap();
    let h = header(&data(&a, &window, "t"));
    assert_eq!(
        (h["links"]["count"].as_u64(), h["warnings"]["count"].as_u64()),
        (Some(0), Some(1))
    );
}

#[test]
fn extension_colours_are_the_panels() {
    assert_eq!(extension_color(None), "#7cacf8");
    assert_eq!(extension_color(Some("nope")), "#7cacf8");
    assert_eq!(extension_color(Some("primary-dark")), "#4c8df6");
    assert_eq!(extension_color(Some("tertiary")), Category::Painting.color());
    assert_eq!(extension_color(Some("warning")), Category::Scripting.color());
    assert_eq!(extension_color(Some("error")), Category::Async.color());
}
