//! The PageFrames handler on small hand-written traces.

use tracekit_events::{feed, AnalyzeOptions, Context, Handler};

use crate::PageFramesHandler;

#[test]
fn commit_load_gives_a_listed_frame_its_url_and_name() {
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let mut handler = PageFramesHandler::default();
    let text = r#"[
        {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":5,"args":{"data":{"frames":[
            {"frame":"F1","url":"https://a.test/","name":"","processId":2},
            {"frame":"F2","url":"https://b.test/","processId":3,"parent":"F1"}]}}},
        {"name":"CommitLoad","ph":"X","pid":2,"tid":3,"ts":6,"dur":1,"args":{"data":{"frame":"F1","url":"https://c.test/","name":"main"}}},
        {"name":"CommitLoad","ph":"X","pid":3,"tid":3,"ts":7,"dur":1,"args":{"data":{"frame":"F2","url":""}}},
        {"name":"CommitLoad","ph":"X","pid":3,"tid":3,"ts":8,"dur":1,"args":{"data":{"frame":"F3","url":"https://d.test/"}}}
    ]"#;
    feed(text, &mut handler, &mut cx).unwrap();
    let data = handler.finalize((), &mut cx);
    let objects: Vec<&str> = data.frames.values().map(|f| f.object.as_deref().unwrap()).collect();
    assert_eq!(
        objects,
        [
            r#"{"frame":"F1","processId":2,"url":"https://c.test/","name":"main"}"#,
            // An empty URL keeps the frame's; a missing name is undefined.
            r#"{"frame":"F2","processId":3,"parent":"F1","url":"https://b.test/","name":null}"#,
        ]
    );
    let f1 = &data.frames[&cx.interner.lookup("F1")];
    assert_eq!(cx.interner.resolve(f1.url.unwrap()), "https://c.test/");
    assert_eq!(cx.interner.resolve(f1.name.unwrap()), "main");
}

#[test]
fn runs_only_for_all_handlers() {
    assert!(!PageFramesHandler::enabled(&AnalyzeOptions::default()));
}
