//! The ImagePainting handler on small hand-written traces: paints by URL,
//! `LazyPixelRef` ties, decode ties, the host DPR correction and the dump.

use tracekit_events::dump::Dump;
use tracekit_events::{feed, AnalyzeOptions, Context, DevTools, Handler};
use tracekit_meta::MetaHandler;

use super::*;

const VIEWPORT: &str = r#"{"name":"PaintTimingVisualizer::Viewport","ph":"I","pid":1,"tid":1,"ts":1,
    "args":{"data":{"viewport_rect":[0,0,400,0,0,300,0,0],"dpr":3}}}"#;

fn run(events: &str, metadata: Option<&str>) -> (ImagePainting, Context) {
    run_with(events, metadata, DevTools::LATEST)
}

fn run_with(events: &str, metadata: Option<&str>, devtools: DevTools) -> (ImagePainting, Context) {
    let text = format!("[{VIEWPORT},{events}]");
    let options = AnalyzeOptions::default()
        .with_all_handlers(true)
        .with_devtools(devtools);
    let mut cx = Context::new(options);
    let (mut meta, mut images) = (MetaHandler::default(), ImagePaintingHandler::default());
    feed(&text, &mut meta, &mut cx).unwrap();
    feed(&text, &mut images, &mut cx).unwrap();
    cx.top_level.metadata = metadata.map(str::to_owned);
    let meta = meta.finalize((), &mut cx);
    (images.finalize(&meta, &mut cx), cx)
}

const PAINTS: &str = r#"
  {"name":"PaintImage","ph":"X","pid":1,"tid":2,"ts":10,"dur":1,"args":{"data":{"url":"https://a.test/x.png",
    "width":200,"height":100,"srcWidth":800,"srcHeight":400,"x":5,"y":6,"isCSS":false,"nodeId":42,
    "nodeName":"IMG","frame":"F","loadingAttribute":"lazy","srcsetAttribute":"x.png 2x"}}},
  {"name":"Draw LazyPixelRef","ph":"X","pid":1,"tid":2,"ts":11,"dur":1,"args":{"LazyPixelRef":7}},
  {"name":"PaintImage","ph":"X","pid":1,"tid":3,"ts":12,"dur":1,"args":{"data":{"url":"","width":1,"height":1}}},
  {"name":"PaintImage","ph":"X","pid":1,"tid":2,"ts":13,"dur":1,"args":{"data":{"url":"https://a.test/x.png",
    "isCSS":true,"isPicture":1}}},
  {"name":"Decode LazyPixelRef","ph":"X","pid":1,"tid":4,"ts":14,"dur":1,"args":{"LazyPixelRef":7}},
  {"name":"Decode Image","ph":"X","pid":1,"tid":4,"ts":15,"dur":1,"args":{}},
  {"name":"Decode Image","ph":"X","pid":1,"tid":2,"ts":16,"dur":1,"args":{}},
  {"name":"PaintImage","ph":"B","pid":1,"tid":2,"ts":17,"args":{"data":{"url":"https://a.test/y.png"}}},
  {"name":"Draw LazyPixelRef","ph":"X","pid":1,"tid":9,"ts":18,"dur":1,"args":{"LazyPixelRef":8}}
"#;

#[test]
fn paints_are_kept_by_url_and_tied_to_their_draws_and_decodes() {
    let (data, cx) = run(PAINTS, None);
    // The begin event is not a complete PaintImage.
    assert_eq!(data.paint_images.len(), 3);
    let first = &data.paint_images[0];
    assert_eq!((first.event, first.width, first.src_height), (1, 200.0, 400.0));
    assert_eq!(first.node_id, Some(Id::num(42.0)));
    assert!(!first.is_css && data.paint_images[2].is_css && data.paint_images[2].is_picture);
    assert!(data.paint_images[2].width.is_nan());
    // The empty URL is not a key.
    assert_eq!(data.by_url.len(), 1);
    assert_eq!(data.by_url.values().next().unwrap(), &[0, 2]);
    // The draw on a thread without a paint ties nothing.
    assert_eq!(data.by_lazy_pixel_ref.len(), 1);
    // Thread 4 has no paint: its decode goes through its LazyPixelRef;
    // thread 2's takes its last paint.
    assert_eq!(data.paint_image_of_decode(6), Some(0));
    assert_eq!(data.paint_image_of_decode(7), Some(2));
    assert!(data.corrected_sizes.is_none());
    assert_eq!(
        data.display_size(0),
        Some(DisplaySize {
            width: 200.0,
            height: 100.0
        })
    );
    assert!(cx.diagnostics.skipped.is_empty());
}

#[test]
fn sizes_are_corrected_when_the_metadata_gives_the_host_dpr() {
    let (data, _) = run(PAINTS, Some(r#"{"hostDPR":2}"#));
    // 200 host pixels are 100 CSS pixels, 300 at the emulated ratio of 3.
    assert_eq!(
        data.display_size(0),
        Some(DisplaySize {
            width: 300.0,
            height: 150.0
        })
    );
    let (data, _) = run(PAINTS, Some(r#"{"hostDPR":0}"#));
    assert!(data.corrected_sizes.is_none());
}

fn dumped(data: &ImagePainting, cx: Context) -> String {
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&mut dump);
    dump.handler("ImagePainting", value);
    let mut out = String::new();
    dump.write(&mut out);
    out
}

#[test]
fn the_dump_has_devtools_shape() {
    let (data, cx) = run(PAINTS, Some(r#"{"hostDPR":2}"#));
    let out = dumped(&data, cx);
    assert_eq!(
        out,
        r##"{"handlers":{"ImagePainting":{"didCorrectForHostDpr":true,"paintEventToCorrectedDisplaySize":{},"paintImageByDrawLazyPixelRef":{"$map":[[7,"#1"]]},"paintImageEventForUrl":{"$map":[["https://a.test/x.png",["#1","#4"]]]},"paintImageForEvent":{}}},"insights":[],"synthetic":{}}"##
    );
}

#[test]
fn odd_paints_and_keys_are_counted_not_fatal() {
    let events = r#"
      {"name":"PaintImage","ph":"X","pid":1,"tid":2,"ts":10,"dur":1,"args":{}},
      {"name":"PaintImage","ph":"X","pid":1,"tid":2,"ts":11,"dur":1,"args":{"data":{"url":5}}},
      {"name":"Draw LazyPixelRef","ph":"X","pid":1,"tid":2,"ts":12,"dur":1,"args":{"LazyPixelRef":{"a":1}}}
    "#;
    let (data, cx) = run(events, None);
    assert_eq!(data.paint_images.len(), 2);
    assert!(data.by_url.is_empty() && data.by_lazy_pixel_ref.is_empty());
    assert_eq!(cx.diagnostics.skipped[&Skip::ImagesPaintWithoutData].count, 1);
    assert_eq!(cx.diagnostics.skipped[&Skip::ImagesUnreadableKey].count, 2);
}

/// DevTools 2026-06 kept the decode ties and corrected sizes in `Map`s;
/// a begin `Decode Image` is tied there, though grouping never finds it.
#[test]
fn the_older_engine_shows_the_ties_and_sizes() {
    let events = format!(
        r#"{PAINTS},
        {{"name":"Decode Image","ph":"B","pid":1,"tid":2,"ts":19,"args":{{}}}},
        {{"name":"Decode Image","ph":"E","pid":1,"tid":2,"ts":20,"args":{{}}}}"#
    );
    let (data, cx) = run_with(&events, Some(r#"{"hostDPR":2}"#), DevTools::V2026_06);
    assert_eq!(
        (data.decode_ties.get(&10), data.paint_image_of_decode(10)),
        (Some(&2), None)
    );
    assert_eq!(data.paint_image_of_decode(11), Some(2));
    let out = dumped(&data, cx);
    assert!(
        out.contains(r##""paintImageForEvent":{"$map":[["#10","#4"],["#11","#4"],["#6","#1"],["#7","#4"]]}"##),
        "{out}"
    );
    assert!(out.contains(r##"["#1",{"height":150,"width":300}]"##), "{out}");
}
