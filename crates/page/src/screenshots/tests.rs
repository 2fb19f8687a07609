//! The Screenshots handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions};

use super::*;

#[test]
fn keeps_legacy_and_newer_screenshots_and_dumps_long_data_uris_hashed() {
    let long = "A".repeat(2000);
    let text = format!(
        r#"[{{"name":"Screenshot","cat":"s","ph":"O","id":"0x1","pid":1,"tid":2,"ts":10,"args":{{"snapshot":"{long}"}}}},
        {{"name":"Screenshot","cat":"s","ph":"O","id":"0x1","pid":1,"tid":2,"ts":20,"args":{{"snapshot":"QUJD"}}}},
        {{"name":"Screenshot","cat":"s","ph":"I","pid":1,"tid":2,"ts":30,"args":{{"snapshot":"QUJD","source_id":5}}}},
        {{"name":"Screenshot","cat":"s","ph":"I","pid":1,"tid":2,"ts":40,"args":{{}}}}]"#
    );
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = ScreenshotsHandler::default();
    feed(&text, &mut handler, &mut cx).unwrap();
    let data = handler.finalize((), &mut cx);
    assert_eq!(data.legacy.len(), 2);
    assert_eq!(data.screenshots.iter().map(|s| s.event).collect::<Vec<_>>(), [2]);
    assert_eq!(data.data_uri(&data.legacy[1]), "data:image/jpg;base64,QUJD");
    // Kept as bytes: 1,500 of the long one, then "ABC" twice.
    assert_eq!(data.jpeg(&data.legacy[1]), Some(&b"ABC"[..]));
    assert_eq!(data.jpeg_bytes.len(), 1500 + 3 + 3);
    assert_eq!(data.image_text(&data.legacy[0]), long);
    let strings = cx.interner.into_strings();
    let mut dump = Dump::new(&strings);
    let value = data.dump(&mut dump);
    // Dumped again: the same synthetic event.
    assert_eq!(data.dump_legacy(0, &mut dump), data.dump_legacy(0, &mut dump));
    dump.handler("Screenshots", value);
    let mut out = String::new();
    dump.write(&mut out);
    let uri = format!("{DATA_URI_PREFIX}{long}");
    let digest = sha1_smol::Sha1::from(uri.as_bytes()).digest();
    assert!(out.contains(&format!(r#""dataUri":"$str:2022:{digest}""#)), "{out}");
    assert!(out.contains(r#""dataUri":"data:image/jpg;base64,QUJD""#));
    assert!(out.contains(r##""screenshots":["#2"]"##));
}

#[test]
fn an_image_that_is_not_base64_is_kept_as_text_and_counted() {
    let text = r#"[{"name":"Screenshot","cat":"s","ph":"O","id":"0x1","pid":1,"tid":2,"ts":10,"args":{"snapshot":"QUJ"}},
        {"name":"Screenshot","cat":"s","ph":"O","id":"0x1","pid":1,"tid":2,"ts":20,"args":{"snapshot":7}},
        {"name":"Screenshot","cat":"s","ph":"O","id":"0x1","pid":1,"tid":2,"ts":30,"args":{"snapshot":"QUJD"}}]"#;
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = ScreenshotsHandler::default();
    feed(text, &mut handler, &mut cx).unwrap();
    let data = handler.finalize((), &mut cx);
    assert_eq!(data.legacy[0].image, ShotImage::NotBase64("QUJ".into()));
    assert_eq!(data.legacy[1].image, ShotImage::NotBase64("7".into()));
    assert_eq!(data.jpeg(&data.legacy[0]), None);
    // The failed decoding left nothing in the buffer.
    assert_eq!(data.jpeg(&data.legacy[2]), Some(&b"ABC"[..]));
    assert_eq!(data.jpeg_bytes.len(), 3);
    assert_eq!(data.data_uri(&data.legacy[0]), "data:image/jpg;base64,QUJ");
    let warnings = format!("{:?}", cx.diagnostics);
    assert!(
        warnings.contains("2 screenshots whose image is not base64"),
        "{warnings}"
    );
}
