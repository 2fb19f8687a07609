//! The Legacy JavaScript insight on small pages written here: a script
//! with polyfills modern browsers do not need, loaded by a request.

use crate::test_trace::{navigation_set, sets, trace};
use crate::{EventRef, Finding, Insight, RelatedEvents, State};

/// A script of id `id` at `url` in frame F1 at `ts` µs, its source
/// `source` (escaped for JSON), and the request that loaded it
/// (`transfer` bytes over the network for `decoded`).
fn script(id: u32, url: &str, ts: u32, source: &str, transfer: u32, decoded: u32) -> String {
    format!(
        r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"R{id}","url":"{url}","priority":"High","frame":"F1","resourceType":"Script"}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"R{id}","encodedDataLength":{transfer},"decodedBodyLength":{decoded},"finishTime":0.1}}}}}},
  {{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.v8-source-rundown","args":{{"data":{{"isolate":"7","scriptId":{id},"url":"{url}","executionContextId":1}}}}}},
  {{"name":"ScriptCompiled","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.target-rundown","args":{{"data":{{"isolate":"7","scriptId":{id},"frame":"F1"}}}}}},
  {{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.v8-source-rundown-sources","args":{{"data":{{"isolate":"7","scriptId":{id},"sourceText":"{source}"}}}}}}"#,
        ts + 100,
        ts + 200,
        ts + 201,
        ts + 202,
    )
}

fn insight(events: &[String]) -> Insight {
    let sets = sets(&trace(&events.join(",\n")));
    let found = navigation_set(&sets)
        .computed()
        .find(|i| matches!(i.finding, Finding::LegacyJavaScript(_)))
        .unwrap()
        .clone();
    found
}

/// A source of `len` characters or more: `code`, then padding.
fn padded(code: &str, len: usize) -> String {
    format!("{code}{}", ";".repeat(len.saturating_sub(code.len())))
}

#[test]
fn a_long_script_with_polyfills_fails_with_its_bytes_scaled_to_the_network() {
    let legacy = padded("Array.prototype.at = function(){};\\nMath.trunc = f;", 6000);
    let insight = insight(&[script(1, "https://a.test/app.js", 5000, &legacy, 3000, 6000)]);
    assert_eq!(insight.state, State::Fail);
    let Finding::LegacyJavaScript(f) = &insight.finding else {
        unreachable!()
    };
    assert_eq!(f.scripts.len(), 1);
    let found = &f.scripts[0].found;
    let names: Vec<_> = found
        .matches
        .iter()
        .map(|m| (m.name.as_deref().unwrap(), m.line))
        .collect();
    assert_eq!(names, vec![("Array.prototype.at", 0), ("Math.trunc", 1)]);
    // Not compressed (no Content-Encoding): the script's own bytes.
    assert_eq!(f.scripts[0].wasted_bytes, found.estimated_byte_savings);
    assert_eq!(insight.wasted_bytes, Some(f.scripts[0].wasted_bytes));
    assert_eq!(
        insight.related_events,
        Some(RelatedEvents::List(vec![EventRef::Request(0)]))
    );
}

#[test]
fn short_or_modern_scripts_pass() {
    // Under 5,000 characters: not looked at.
    let short = script(
        1,
        "https://a.test/short.js",
        5000,
        "Array.prototype.at = function(){};",
        40,
        40,
    );
    // Long, but without legacy code.
    let modern = script(
        2,
        "https://a.test/modern.js",
        6000,
        &padded("const a = [1].at(-1);", 6000),
        10,
        10,
    );
    let insight = insight(&[short, modern]);
    assert_eq!(insight.state, State::Pass);
    let Finding::LegacyJavaScript(f) = &insight.finding else {
        unreachable!()
    };
    assert!(f.scripts.is_empty());
    assert_eq!(insight.wasted_bytes, Some(0.0));
}
