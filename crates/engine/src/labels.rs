//! What the text outputs print beside a name for people to read: URLs
//! shortened ([`short_url`]: the file a URL names, with its host when it
//! is not the page's), the events that are the recording's own work
//! ([`is_recording_overhead`]), and DevTools' id of a JS call
//! ([`js_call_id`]), which the views and the insights key calls by.

use std::borrow::Cow;

/// `url` as the text outputs print it by default: the last segment of its
/// path without query or fragment (`https://a.test/js/app.js?v=3` is
/// `app.js`), preceded by its host when its origin is not `home`'s (the
/// URL of the process it ran in: `cdn.test/…/lib.js`, `cdn.test/lib.js`),
/// its host alone when its path has no segment. A URL without `://`
/// (empty, `native`, `extensions::...`) is kept; a `data:` URL is cut to
/// `data:…`; a `blob:` URL is shortened after its prefix.
pub fn short_url<'a>(url: &'a str, home: Option<&str>) -> Cow<'a, str> {
    if url.starts_with("data:") {
        return Cow::Borrowed("data:…");
    }
    if let Some(rest) = url.strip_prefix("blob:") {
        return Cow::Owned(format!("blob:{}", short_url(rest, home)));
    }
    let Some((origin, path)) = split_origin(url) else {
        return Cow::Borrowed(url);
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let host = origin.split_once("://").map_or(origin, |(_, host)| host);
    // A file URL has no host: its file is enough.
    let same_origin = host.is_empty() || home.and_then(split_origin).is_some_and(|(h, _)| h == origin);
    match (segments.as_slice(), same_origin) {
        ([], _) => Cow::Borrowed(host),
        ([.., file], true) => Cow::Borrowed(file),
        ([file], false) => Cow::Owned(format!("{host}/{file}")),
        ([.., file], false) => Cow::Owned(format!("{host}/…/{file}")),
    }
}

/// Whether an event is the recording's own work, not the page's:
/// starting the CPU profiler (`CpuProfiler::StartProfiling`, often among
/// the longest tasks of a trace's first milliseconds) and tracing's own
/// events (`TracingStartedInBrowser`, `TracingStartedInPage`,
/// `TracingSessionIdForWorker`).
pub fn is_recording_overhead(name: &str) -> bool {
    name.starts_with("CpuProfiler::")
        || matches!(
            name,
            "TracingStartedInBrowser" | "TracingStartedInPage" | "TracingSessionIdForWorker"
        )
}

/// `scheme://host` and the rest of `url`; `None` without `://`.
fn split_origin(url: &str) -> Option<(&str, &str)> {
    let start = url.find("://")? + 3;
    let end = url[start..].find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    Some((&url[..end], &url[end..]))
}

/// `f:NAME@LOCATION:LINE:COLUMN`, DevTools' id of a JS call in its
/// aggregated trees (the V8 runtime's functions under their group's name):
/// what the views and the insights that walk a Bottom-Up key calls by.
pub fn js_call_id(frame: &tracekit_cpuprofile::CallFrame, strings: &tracekit_events::Strings) -> String {
    use tracekit_cpuprofile::IdLocation;
    let mut out = String::from("f:");
    let name = strings.resolve(frame.function_name);
    if frame.url == tracekit_events::names::NATIVE_V8_RUNTIME {
        out.push_str(if name.starts_with("Parse") {
            "Parse"
        } else if name.starts_with("Compile") || name.starts_with("Recompile") {
            "Compile"
        } else {
            "null"
        });
    } else {
        out.push_str(name);
    }
    out.push('@');
    match frame.id_location {
        IdLocation::ScriptId => out.push_str(strings.resolve(frame.script_id)),
        IdLocation::Url => out.push_str(strings.resolve(frame.url)),
        IdLocation::Nothing => {}
    }
    for number in [frame.line_number, frame.column_number] {
        out.push(':');
        match number {
            Some(x) => tracekit_events::jsnum::write_js_number(&mut out, x),
            None => out.push_str("undefined"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_recording_overhead, short_url};

    #[test]
    fn a_url_is_its_file_and_its_host_when_foreign() {
        let home = Some("https://a.test/index.html?x=1");
        assert_eq!(short_url("https://a.test/js/app.js?v=3#x", home), "app.js");
        assert_eq!(short_url("https://cdn.test/lib/v1/lib.js", home), "cdn.test/…/lib.js");
        assert_eq!(short_url("https://cdn.test/lib.js", home), "cdn.test/lib.js");
        assert_eq!(short_url("https://cdn.test/lib.js", None), "cdn.test/lib.js");
        assert_eq!(short_url("https://a.test/", home), "a.test");
        assert_eq!(short_url("https://a.test?q", home), "a.test");
        assert_eq!(short_url("", home), "");
        assert_eq!(short_url("native", home), "native");
        assert_eq!(short_url("data:text/javascript,alert(1)", home), "data:…");
        assert_eq!(short_url("blob:https://a.test/uuid", home), "blob:uuid");
        assert_eq!(short_url("file:///home/me/app.js", None), "app.js");
    }

    #[test]
    fn starting_the_profiler_is_recording_overhead() {
        assert!(is_recording_overhead("CpuProfiler::StartProfiling"));
        assert!(is_recording_overhead("TracingStartedInBrowser"));
        assert!(!is_recording_overhead("EvaluateScript"));
    }
}
