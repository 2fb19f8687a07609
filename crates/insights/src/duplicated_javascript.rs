//! Duplicated JavaScript: the modules bundled more than once across the
//! set's scripts, found through the scripts' source maps. A trace carries
//! no source map (DevTools fetches them when it loads a trace in its
//! panel, not when it computes a trace's insights on its own, as here and
//! in the oracle), so no module can be told apart and the insight lists
//! the set's scripts with no duplication.

use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Sym;

use crate::model::{Category, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "DuplicatedJavaScript",
    title: "Duplicated JavaScript",
    description: "Remove large, [duplicate JavaScript modules](https://developer.chrome.com/docs/performance/insights/duplicated-javascript) from bundles to reduce unnecessary bytes consumed by network activity",
    docs: "https://developer.chrome.com/docs/performance/insights/duplicated-javascript",
    category: Category::Lcp,
    strings: &[
        ("columnDuplicatedBytes", "Duplicated bytes"),
        ("columnSource", "Source"),
        ("description", "Remove large, [duplicate JavaScript modules](https://developer.chrome.com/docs/performance/insights/duplicated-javascript) from bundles to reduce unnecessary bytes consumed by network activity"),
        ("noDuplicatedJavaScript", "No duplicated JavaScript found"),
        ("title", "Duplicated JavaScript"),
    ],
};

/// What the insight found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DuplicatedJavaScript {
    /// The scripts of the set (loaded in its window, in its frame, not a
    /// Chrome extension's), by index in
    /// [`Scripts::scripts`](tracekit_engine::handlers::page::Scripts).
    pub scripts: Vec<usize>,
    /// The page's URL: the navigation's document URL, else the main
    /// frame's.
    pub main_document_url: Option<Sym>,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let strings = cx.analysis.strings();
    let scripts = cx
        .data
        .scripts()
        .scripts
        .iter()
        .enumerate()
        .filter(|(_, s)| s.frame == cx.frame_id && cx.contains(s.ts))
        .filter(|(_, s)| {
            !s.url
                .is_some_and(|u| strings.resolve(u).starts_with("chrome-extension://"))
        })
        .map(|(at, _)| at)
        .collect();
    // The navigation's document URL, else (a set without one) the main
    // frame's. DevTools also reads a `url` of the navigation's data, which
    // Chrome's `navigationStart` does not have.
    let main_document_url = match cx.navigation {
        Some(n) => n.url.or(cx.data.meta().main_frame_url),
        None => cx.data.meta().main_frame_url,
    };
    // Without source maps no script has modules to compare, so nothing is
    // duplicated and no bytes are wasted. With them, each source of each
    // map would be sized, grouped by normalized source (and by
    // node_modules package), and the copies after the largest counted.
    let finding = DuplicatedJavaScript {
        scripts,
        main_document_url,
    };
    let mut insight = Insight::new(State::Pass, Finding::DuplicatedJavaScript(finding));
    insight.related_events = Some(RelatedEvents::List(Vec::new()));
    insight.wasted_bytes = Some(0.0);
    // No duplicated bytes: 0 and 0 with a Lantern context.
    insight.metric_savings = crate::estimates::wasted_bytes_savings(cx, [])?;
    Ok(insight)
}

impl DuplicatedJavaScript {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let network = cx.data.network_requests();
        let scripts_data = cx.data.scripts();
        let scripts = self
            .scripts
            .iter()
            .map(|&at| scripts_data.dump_script(at, network, cx.dump))
            .collect();
        model.push("duplication", Value::Map(Vec::new()));
        model.push("duplicationGroupedByNodeModules", Value::Map(Vec::new()));
        model.push("scriptsWithDuplication", Value::Array(Vec::new()));
        model.push("scripts", Value::Array(scripts));
        model.push("mainDocumentUrl", Value::opt(self.main_document_url, Value::Sym));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, _cx: &crate::TextCx<'_>) -> Vec<String> {
        vec![format!(
            "{} ({} scripts; the trace has no source maps to find duplicated modules with)",
            UI.string("noDuplicatedJavaScript"),
            self.scripts.len()
        )]
    }
}

#[cfg(test)]
mod tests {
    use crate::test_trace::{navigation_set, sets, trace};
    use crate::{Finding, State};

    /// A script's rundown (its URL) and its compile event (its frame).
    fn script(id: u32, ts: u32, frame: &str, url: &str) -> String {
        format!(
            r#"{{"name":"ScriptCatchup","ph":"I","pid":2,"tid":3,"ts":{ts},"cat":"disabled-by-default-devtools.v8-source-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"url":"{url}","executionContextId":1}}}}}},
  {{"name":"ScriptCompiled","ph":"I","pid":2,"tid":3,"ts":{},"cat":"disabled-by-default-devtools.target-rundown",
    "args":{{"data":{{"isolate":"7","scriptId":{id},"frame":"{frame}"}}}}}}"#,
            ts + 1
        )
    }

    #[test]
    fn the_scripts_of_the_frame_in_the_window_are_listed_without_duplication() {
        let events = [
            script(1, 5000, "F1", "https://a.test/a.js"),
            script(2, 6000, "F2", "https://b.test/b.js"),
            script(3, 7000, "F1", "chrome-extension://x/c.js"),
        ]
        .join(",");
        let sets = sets(&trace(&events));
        let insight = navigation_set(&sets)
            .computed()
            .find(|i| matches!(i.finding, Finding::DuplicatedJavaScript(_)))
            .unwrap()
            .clone();
        assert_eq!(insight.state, State::Pass);
        let Finding::DuplicatedJavaScript(f) = insight.finding else {
            unreachable!()
        };
        assert_eq!(f.scripts.len(), 1);
    }
}
