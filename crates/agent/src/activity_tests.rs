//! The activity text on a small hand-written trace.

use super::*;

/// A main frame on process 1 navigated at 1 ms; four tasks on its main
/// thread: one of 10 ms with a 6 ms `f` calling itself (a FunctionCall
/// inside a FunctionCall), a 2 ms layout and a hidden event, then tasks
/// of 4, 2 (inside a `ThreadController active`) and 1 ms. The texts expected are those of `xtask/js/activity.mjs`
/// (DevTools' formatter) on it.
const TRACE: &str = r#"[
{"name":"TracingStartedInBrowser","ph":"I","pid":9,"tid":9,"ts":0,"args":{"data":{"frames":[
 {"frame":"F","url":"https://a.test/","processId":1,"isOutermostMainFrame":true,"isInPrimaryMainFrame":true}]}}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"navigationStart","ph":"R","pid":1,"tid":1,"ts":1000,"args":{"frame":"F","data":{"navigationId":"N0","documentLoaderURL":"https://a.test/","isLoadingMainFrame":true,"isOutermostMainFrame":true}}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":20000,"dur":4000,"args":{}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":30000,"dur":10000,"args":{}},
{"name":"FunctionCall","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":30500,"dur":6000,"args":{"data":{"functionName":"f","scriptId":"7","url":"https://a.test/a.js","lineNumber":5,"columnNumber":3}}},
{"name":"FunctionCall","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":31000,"dur":3000,"args":{"data":{"functionName":"f","scriptId":"7","url":"https://a.test/a.js","lineNumber":5,"columnNumber":3}}},
{"name":"Layout","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":37000,"dur":2000,"args":{"beginData":{}}},
{"name":"NotShown","cat":"devtools.timeline","ph":"X","pid":1,"tid":1,"ts":39000,"dur":500,"args":{}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":50000,"dur":2000,"args":{}},
{"name":"RunTask","cat":"disabled-by-default-devtools.timeline","ph":"X","pid":1,"tid":1,"ts":60000,"dur":1000,"args":{}},
{"name":"ThreadController active","cat":"base","ph":"X","pid":1,"tid":1,"ts":49000,"dur":4000,"args":{}}
]"#;

fn activity(window: Option<Window>) -> String {
    let options = tracekit::AnalyzeOptions::default()
        .with_all_handlers(true)
        .with_details(true)
        .with_group_args(true);
    let analysis = tracekit::analyze_bytes(TRACE.as_bytes(), &options).unwrap();
    let sets = tracekit_insights::compute(&analysis).unwrap();
    main_thread_activity(&analysis, &sets, window).unwrap()
}

/// The lines of a section (from its title to the next).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let start = text
        .find(&format!("# {title}\n"))
        .unwrap_or_else(|| panic!("{title}: {text}"));
    let rest = &text[start + title.len() + 3..];
    let end = rest.find("\n# ").unwrap_or(rest.len());
    rest[..end]
        .lines()
        .filter(|l| l.starts_with("- ") || l.starts_with("  - "))
        .collect()
}

#[test]
fn the_three_longest_tasks_longest_first_with_their_keys() {
    let text = activity(None);
    let ms = |x: &str| x.replace(" ms", "\u{a0}ms");
    assert_eq!(
        section(&text, "Longest tasks"),
        [
            ms("- total time: 10 ms, event: (eventKey: r-4, ts: 30000)"),
            ms("- total time: 4 ms, event: (eventKey: r-3, ts: 20000)"),
            // Named by the root of its call tree: the entry around it.
            ms("- total time: 2 ms, event: (eventKey: r-11, ts: 49000)"),
        ],
        "{text}"
    );
}

#[test]
fn the_bottom_up_counts_a_recursive_function_once_in_its_total() {
    let text = activity(None);
    let lines = section(&text, "Main thread bottom-up summary");
    let ms = |x: &str| x.replace(" ms", "\u{a0}ms");
    // `f` inside `f`: 6 ms in all, not 9; the hidden event's time is its
    // task's own (as DevTools' own formatter writes this trace).
    assert!(
        lines.contains(
            &ms("- self: 6 ms, total: 6 ms, source: Function call (url: https://a.test/a.js, line: 4, column: 2)")
                .as_str()
        ),
        "{text}"
    );
    assert!(
        lines.contains(&ms("- self: 2 ms, total: 2 ms, source: Layout").as_str()),
        "{text}"
    );
    assert!(
        lines.contains(&ms("- self: 9 ms, total: 17 ms, source: Task").as_str()),
        "{text}"
    );
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        section(&text, "3rd party summary"),
        [ms("- name: a.test, main thread time: 6 ms, network transfer size: 0 B").replace("0 B", "0\u{a0}B")],
        "{text}"
    );
    // Each task's top functions: the 10 ms task's three activities.
    let tasks = section(&text, "Top functions of the longest tasks");
    assert_eq!(tasks[0], "- event: (eventKey: r-4, ts: 30000)", "{text}");
    assert_eq!(
        tasks[1],
        ms("  - self: 6 ms, total: 6 ms, source: Function call (url: https://a.test/a.js, line: 4, column: 2)")
    );
}

#[test]
fn a_window_clips_the_tasks_and_the_times() {
    // From 35 ms to 51 ms: the 10 ms task's last 5 ms (1.5 ms of `f`),
    // the 2 ms task's first 1 ms; the tasks keep their whole duration.
    let text = activity(Some(Window {
        min: 35000.0,
        max: 51000.0,
    }));
    assert!(!text.contains("## insight set id"), "{text}");
    let tasks = section(&text, "Longest tasks");
    assert_eq!(tasks.len(), 2, "{text}");
    assert!(tasks[0].contains("r-4"), "{text}");
    assert!(tasks[1].contains("r-11"), "{text}");
    let lines = section(&text, "Main thread bottom-up summary");
    let ms = |x: &str| x.replace(" ms", "\u{a0}ms");
    assert!(
        lines.contains(
            &ms("- self: 2 ms, total: 2 ms, source: Function call (url: https://a.test/a.js, line: 4, column: 2)")
                .as_str()
        ),
        "{text}"
    );
    assert!(
        lines.contains(&ms("- self: 3 ms, total: 6 ms, source: Task").as_str()),
        "{text}"
    );
}

#[test]
fn windows_parse_from_start_comma_end() {
    assert_eq!("10,20.5".parse::<Window>(), Ok(Window { min: 10.0, max: 20.5 }));
    assert!("20,10".parse::<Window>().is_err());
    assert!("10".parse::<Window>().is_err());
    assert!("a,b".parse::<Window>().is_err());
}
