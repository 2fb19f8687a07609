//! What tells an event apart from the others of its name, as the
//! Performance panel's summary shows it ([`event_detail`]): the URL of an
//! `EvaluateScript` or `ParseHTML`, the type of an `EventDispatch`, the URL
//! and priority of a `ResourceSendRequest`, the timer of a `TimerFire`, the
//! function of a `FunctionCall`. Read from the raw args the analysis kept
//! ([`AnalyzeOptions::details`](tracekit_engine::AnalyzeOptions::details)),
//! only when a line is printed.

use std::borrow::Cow;

use tracekit_engine::support::json::{as_f64, as_str, member};
use tracekit_engine::support::short_url;
use tracekit_engine::{NodeKind, ThreadTrack};

/// How URLs are written: whole, or short ([`short_url`], beside the URL of
/// the process they ran in).
#[derive(Debug, Clone, Copy)]
pub enum Urls<'a> {
    /// Every URL in full.
    Full,
    /// Short, the host left out when it is that of this process URL.
    Short(Option<&'a str>),
}

impl Urls<'_> {
    /// `url` written this way.
    pub fn write<'u>(&self, url: &'u str) -> Cow<'u, str> {
        match self {
            Urls::Full => Cow::Borrowed(url),
            Urls::Short(home) => short_url(url, *home),
        }
    }
}

/// The detail of a node of `track` (`None` for a JS call, an event of
/// another name, or one whose args were not kept): `click`, `app.js`,
/// `app.js, priority VeryHigh`, `timer 3`, `onLoad app.js:20:43`.
pub fn node_detail(track: &ThreadTrack, kind: &NodeKind, name: &str, urls: Urls<'_>) -> Option<String> {
    let NodeKind::Event { event, .. } = kind else {
        return None;
    };
    let data = tracekit_engine::support::event_details(track, *event)?;
    event_detail(name, data, urls)
}

/// The detail of the event `name` from its raw `args.data` (its
/// `args.beginData` for `ParseHTML`); `None` when it has nothing to say.
pub fn event_detail(name: &str, data: &str, urls: Urls<'_>) -> Option<String> {
    let text = |key: &str| member(data, key).and_then(as_str).filter(|s| !s.is_empty());
    let detail = match name {
        "EvaluateScript" | "ParseHTML" => urls.write(&text("url")?).into_owned(),
        "EventDispatch" => text("type")?.into_owned(),
        "ResourceSendRequest" => {
            let url = urls.write(&text("url")?).into_owned();
            match text("priority") {
                Some(priority) => format!("{url}, priority {priority}"),
                None => url,
            }
        }
        "TimerFire" => {
            let id = member(data, "timerId")?;
            match as_str(id) {
                Some(id) => format!("timer {id}"),
                None => format!("timer {}", as_f64(id)?),
            }
        }
        "FunctionCall" => {
            let function = text("functionName");
            let mut out = function.as_deref().unwrap_or("(anonymous)").to_owned();
            if let Some(url) = text("url") {
                out.push(' ');
                out.push_str(&urls.write(&url));
                // The event's line and column count from 1 already.
                for key in ["lineNumber", "columnNumber"] {
                    match member(data, key).and_then(as_f64) {
                        Some(x) if x >= 0.0 => {
                            out.push(':');
                            tracekit_engine::support::jsnum::write_js_number(&mut out, x);
                        }
                        _ => break,
                    }
                }
            }
            out
        }
        _ => return None,
    };
    Some(detail)
}

#[cfg(test)]
mod tests {
    use super::{event_detail, Urls};

    const HOME: Urls<'static> = Urls::Short(Some("http://a.test/index.html"));

    #[test]
    fn each_event_says_what_it_is() {
        let detail = |name, data| event_detail(name, data, HOME);
        assert_eq!(detail("EventDispatch", r#"{"type":"click"}"#).as_deref(), Some("click"));
        assert_eq!(
            detail(
                "EvaluateScript",
                r#"{"url":"http://a.test/js/app.js?v=1","lineNumber":1}"#
            )
            .as_deref(),
            Some("app.js")
        );
        assert_eq!(detail("ParseHTML", r#"{"url":"","startLine":0}"#), None);
        assert_eq!(
            detail(
                "ResourceSendRequest",
                r#"{"url":"http://cdn.test/a.css","priority":"VeryHigh"}"#
            )
            .as_deref(),
            Some("cdn.test/a.css, priority VeryHigh")
        );
        assert_eq!(detail("TimerFire", r#"{"timerId":7}"#).as_deref(), Some("timer 7"));
        assert_eq!(
            detail(
                "FunctionCall",
                r#"{"functionName":"onLoad","url":"http://a.test/app.js","lineNumber":20,"columnNumber":43}"#
            )
            .as_deref(),
            Some("onLoad app.js:20:43")
        );
        assert_eq!(
            event_detail("EvaluateScript", r#"{"url":"http://a.test/js/app.js?v=1"}"#, Urls::Full).as_deref(),
            Some("http://a.test/js/app.js?v=1")
        );
        assert_eq!(detail("Layout", r#"{"url":"x"}"#), None);
    }

    /// A click whose handler runs a function, a timer and a request, the
    /// profiler started among them.
    const TRACE: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},
{"name":"EventDispatch","ph":"X","pid":1,"tid":1,"ts":0,"dur":50,"args":{"data":{"type":"click"}}},
{"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":1,"dur":40,"args":{"data":{"functionName":"onClick","url":"https://a.test/js/app.js?v=2","lineNumber":3,"columnNumber":9}}},
{"name":"TimerFire","ph":"X","pid":1,"tid":1,"ts":60,"dur":5,"args":{"data":{"timerId":12}}},
{"name":"ResourceSendRequest","ph":"I","s":"t","pid":1,"tid":1,"ts":70,"args":{"data":{"url":"https://cdn.test/lib/x.js","priority":"Low"}}},
{"name":"CpuProfiler::StartProfiling","ph":"X","pid":1,"tid":1,"ts":80,"dur":9,"args":{}}
]"#;

    fn analysis(details: bool) -> tracekit_engine::Analysis {
        let options = tracekit_engine::AnalyzeOptions::default().with_details(details);
        tracekit_engine::analyze_bytes(TRACE.as_bytes(), &options).unwrap()
    }

    #[test]
    fn the_text_json_and_chart_say_what_each_event_is() {
        use tracekit_engine::query::Query;
        let a = analysis(true);
        let text = crate::output::text(&a, &Query::new());
        for line in [
            "    EventDispatch click  @-0.001 +0.050 self 0.010",
            "      FunctionCall onClick https://a.test/js/app.js?v=2:3:9  @0.000 +0.040 self 0.040",
            "    TimerFire timer 12  @0.059 +0.005 self 0.005",
            "    ResourceSendRequest https://cdn.test/lib/x.js, priority Low  @0.069 +0.000 self 0.000",
            "    CpuProfiler::StartProfiling  @0.079 +0.009 self 0.009 [recording overhead]",
        ] {
            assert!(text.lines().any(|l| l == line), "{line}\n{text}");
        }
        let mut short = Vec::new();
        let options = crate::output::TextOptions::default();
        crate::output::write_text_with(&a, &Query::new(), &options, &mut short).unwrap();
        let short = String::from_utf8(short).unwrap();
        assert!(short.contains("FunctionCall onClick a.test/…/app.js:3:9  @"), "{short}");
        assert!(
            short.contains("ResourceSendRequest cdn.test/…/x.js, priority Low  @"),
            "{short}"
        );
        let json = crate::output::json(&a, &Query::new());
        assert!(
            json.contains(r#""name":"EventDispatch","cat":"","ph":"X","detail":"click""#),
            "{json}"
        );
        let chart = crate::export::chart::data(&a, &Query::new(), "t");
        assert!(
            chart
                .header
                .contains(r#""details":{"0":"click","1":"onClick https://a.test/js/app.js?v=2:3:9","2":"timer 12""#),
            "{}",
            chart.header
        );
        // Without the option, nothing is kept and the lines are the names.
        let bare = crate::output::text(&analysis(false), &Query::new());
        assert!(bare.contains("    EventDispatch  @-0.001"), "{bare}");
        assert!(!crate::output::json(&analysis(false), &Query::new()).contains("detail"));
    }
}
