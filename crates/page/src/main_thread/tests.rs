//! The MainThreadEvents handler on small hand-written traces: the thread
//! chosen, the input order kept across processes, the details read.

use tracekit_events::{feed, AnalyzeOptions, Context, Handler};
use tracekit_meta::MetaHandler;

use super::*;

fn run(events: &str) -> (MainThreadEvents, Context) {
    let text = format!("[{events}]");
    let mut cx = Context::new(AnalyzeOptions::default().with_all_handlers(true));
    let (mut meta, mut main) = (MetaHandler::default(), MainThreadEventsHandler::default());
    feed(&text, &mut meta, &mut cx).unwrap();
    feed(&text, &mut main, &mut cx).unwrap();
    let meta = meta.finalize((), &mut cx);
    let main = main.finalize(&meta, &mut cx);
    (main, cx)
}

const NAMES: &str = r#"
  {"name":"thread_name","ph":"M","pid":2,"tid":5,"ts":0,"args":{"name":"Compositor"}},
  {"name":"thread_name","ph":"M","pid":2,"tid":3,"ts":0,"args":{"name":"CrRendererMain"}},
  {"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrBrowserMain"}},
  {"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":900,"args":{"data":{"frames":[
    {"frame":"F","url":"https://a.test/","processId":2,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
  {"name":"navigationStart","ph":"R","pid":2,"tid":3,"ts":1000,"args":{"frame":"F","data":{
    "documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"navigationId":"N1"}}}"#;

/// The renderer's main thread alone is kept, every event of it (metadata
/// and instants too), in input order, with the details of those Lantern
/// reads.
#[test]
fn the_renderer_main_thread_is_kept_with_its_details() {
    let (main, cx) = run(&format!(
        r#"{NAMES},
  {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":1100,"dur":50,"args":{{}}}},
  {{"name":"RunTask","ph":"X","pid":2,"tid":5,"ts":1100,"dur":50,"args":{{}}}},
  {{"name":"Layout","ph":"X","pid":2,"tid":3,"ts":1110,"dur":5,"args":{{}}}},
  {{"name":"EvaluateScript","ph":"X","pid":2,"tid":3,"ts":1120,"dur":5,"args":{{"data":{{"url":"https://a.test/a.js",
    "frame":"F","stackTrace":[{{"url":""}},{{"url":"https://a.test/b.js"}},7]}}}}}},
  {{"name":"TimerInstall","ph":"I","pid":2,"tid":3,"ts":1130,"args":{{"data":{{"timerId":-0}}}}}},
  {{"name":"XHRReadyStateChange","ph":"I","pid":2,"tid":3,"ts":1131,"args":{{"data":{{"readyState":4,"url":""}}}}}},
  {{"name":"FunctionCall","ph":"X","pid":2,"tid":3,"ts":1140,"dur":1,"args":{{"data":null}}}},
  {{"name":"RunTask","ph":"B","pid":2,"tid":3,"ts":1200,"args":{{}}}}"#
    ));
    let ts: Vec<f64> = main.events.iter().map(|e| e.ts.0).collect();
    assert_eq!(
        ts,
        [0.0, 1000.0, 1100.0, 1110.0, 1120.0, 1130.0, 1131.0, 1140.0, 1200.0]
    );
    let details: Vec<Option<&EventDetail>> = main.events.iter().map(|e| main.detail(e)).collect();
    assert_eq!(
        details[2],
        Some(&EventDetail::Task {
            dur: Micros(50.0),
            tid: Id::num(3.0)
        })
    );
    assert_eq!(details[3], Some(&EventDetail::Layout));
    let Some(EventDetail::Link(eval)) = details[4] else {
        panic!("{:?}", details[4]);
    };
    assert_eq!(eval.kind, LinkKind::EvaluateScript);
    assert_eq!(cx.interner.resolve(eval.url.unwrap()), "https://a.test/a.js");
    assert_eq!(cx.interner.resolve(eval.frame.unwrap()), "F");
    let stack: Vec<&str> = eval.stack_urls.iter().map(|&u| cx.interner.resolve(u)).collect();
    assert_eq!(stack, ["https://a.test/b.js"]);
    let Some(EventDetail::Link(timer)) = details[5] else {
        panic!("{:?}", details[5]);
    };
    assert_eq!(timer.key, JsKey::Number(0));
    let Some(EventDetail::Link(xhr)) = details[6] else {
        panic!("{:?}", details[6]);
    };
    assert!(xhr.done && xhr.url.is_none());
    // `args.data` null: nothing for Lantern to read.
    assert_eq!(details[7], None);
    // No duration: a task by name alone.
    assert_eq!(
        details[8],
        Some(&EventDetail::Task {
            dur: Micros(0.0),
            tid: Id::num(3.0)
        })
    );
}

/// Without a `CrRendererMain` thread, the browser's main thread of the
/// process stands for it (Chrome run as a single process); the other
/// processes' threads are dropped.
#[test]
fn a_single_process_chrome_has_its_browser_main_thread() {
    let names = NAMES.replace(
        r#""tid":3,"ts":0,"args":{"name":"CrRendererMain"}"#,
        r#""tid":3,"ts":0,"args":{"name":"Other"}"#,
    );
    let names = names.replace(
        r#""pid":1,"tid":1,"ts":0,"args":{"name":"CrBrowserMain"}"#,
        r#""pid":2,"tid":9,"ts":0,"args":{"name":"CrBrowserMain"}"#,
    );
    let (main, _) = run(&format!(
        r#"{names},
  {{"name":"RunTask","ph":"X","pid":2,"tid":9,"ts":1100,"dur":50,"args":{{}}}},
  {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":1100,"dur":50,"args":{{}}}}"#
    ));
    let ts: Vec<f64> = main.events.iter().map(|e| e.ts.0).collect();
    assert_eq!(ts, [0.0, 1100.0]);
}

/// The main frame navigated in two renderers: both main threads are kept,
/// their events in input order, not by time.
#[test]
fn two_renderers_main_threads_keep_input_order() {
    let (main, _) = run(&format!(
        r#"{NAMES},
  {{"name":"thread_name","ph":"M","pid":4,"tid":7,"ts":0,"args":{{"name":"CrRendererMain"}}}},
  {{"name":"navigationStart","ph":"R","pid":4,"tid":7,"ts":1400,"args":{{"frame":"F","data":{{
    "documentLoaderURL":"https://b.test/","isLoadingMainFrame":true,"navigationId":"N2"}}}}}},
  {{"name":"RunTask","ph":"X","pid":4,"tid":7,"ts":2000,"dur":50,"args":{{}}}},
  {{"name":"RunTask","ph":"X","pid":2,"tid":3,"ts":1500,"dur":50,"args":{{}}}}"#
    ));
    let ts: Vec<f64> = main.events.iter().map(|e| e.ts.0).collect();
    assert_eq!(ts, [0.0, 1000.0, 0.0, 1400.0, 2000.0, 1500.0]);
}
