//! The texts the MCP server's tools answer with, from a loaded trace and
//! the tool's arguments (no I/O), and the budget every answer keeps to.

use tracekit::query::{Query, Window};
use tracekit::views::{GroupBy, TextRows, View, ViewOptions};
use tracekit::{Analysis, Millis};

use super::traces::Loaded;

/// About this many characters make a token, for the budget: a rough
/// measure that errs on the side of cutting (English text and numbers run
/// at 3.5 to 4.5 in the tokenizers agents use).
const CHARS_PER_TOKEN: usize = 4;

/// `text` within `max_tokens`: whole when it fits, else its first lines
/// and a last line that says so and names the arguments that narrow it.
pub fn within_budget(text: String, max_tokens: usize, narrow_with: &str) -> String {
    let limit = max_tokens.saturating_mul(CHARS_PER_TOKEN);
    if text.len() <= limit {
        return text;
    }
    let total_tokens = text.len().div_ceil(CHARS_PER_TOKEN);
    let note = format!(
        "[cut here: the whole answer is about {total_tokens} tokens, over the budget of {max_tokens}; narrow it \
         with {narrow_with}]\n"
    );
    let room = limit.saturating_sub(note.len());
    let mut end = 0;
    for (at, _) in text.match_indices('\n') {
        if at + 1 > room {
            break;
        }
        end = at + 1;
    }
    let mut out = text[..end].to_owned();
    out.push_str(&note);
    out
}

/// What `call_tree` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct CallTreeArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
    /// Only the threads with this name (any case; else a unique part of
    /// it), this tid, or PID:TID. Default: every thread.
    pub thread: Option<String>,
    /// The window, in ms from the start of the trace: START..END, START..
    /// or ..END (or with a unit: 1.2s..2s). Times are clipped to it.
    pub window: Option<String>,
    /// The Bottom-Up (each function with its callers under it) instead of
    /// the Call Tree (top-down).
    pub bottom_up: Option<bool>,
    /// Group the top level by `category`, `domain`, `subdomain`, `url` or
    /// `frame`, as the Performance panel's "Group by" does.
    pub group_by: Option<String>,
    /// Only the first N levels of each tree (1: the roots alone).
    pub max_depth: Option<u32>,
    /// Only rows whose total is at least this percent of the window.
    pub min_percent: Option<f64>,
}

/// The window argument, parsed; the error names it.
fn window_arg(text: Option<&str>) -> Result<Option<Window>, String> {
    text.map(Window::parse).transpose().map_err(|e| format!("window: {e}"))
}

/// The Call Tree or Bottom-Up of the threads asked, as `tracekit
/// calltree` prints it.
pub fn call_tree(analysis: &Analysis, args: &CallTreeArgs) -> Result<String, String> {
    let window = window_arg(args.window.as_deref())?;
    let group_by = match args.group_by.as_deref() {
        None | Some("none") => GroupBy::None,
        Some("category") => GroupBy::Category,
        Some("domain") => GroupBy::Domain,
        Some("subdomain") => GroupBy::Subdomain,
        Some("url") => GroupBy::Url,
        Some("frame") => GroupBy::Frame,
        Some(other) => {
            return Err(format!(
                "group_by {other:?} is none of category, domain, subdomain, url, frame"
            ))
        }
    };
    let query = Query::from_parts(args.thread.clone(), window, args.max_depth, None).map_err(|e| e.to_string())?;
    query.validate(analysis).map_err(|e| e.to_string())?;
    let span = tracekit::views::Window::with_time(analysis, &query, "aggregate")?;
    let min_total = match args.min_percent {
        Some(p) if !(0.0..=100.0).contains(&p) => return Err(format!("min_percent {p} is not between 0 and 100")),
        Some(p) => Some(Millis((span.end.0 - span.start.0) * p / 100.0)),
        None => None,
    };
    let options = ViewOptions::new()
        .query(query)
        .text(TextRows::new().min_total(min_total))
        .group_by(group_by)
        .max_nodes(tracekit::DEFAULT_MAX_NODES);
    let view = if args.bottom_up == Some(true) {
        View::BottomUp
    } else {
        View::TopDown
    };
    tracekit::views::write_text(analysis, view, &options).map_err(|e| e.to_string())
}

/// What `trace_summary` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct SummaryArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
}

/// What `analyze_insight` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct InsightArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
    /// The insight set's id, as the summary lists it (`NAVIGATION_0`,
    /// `NO_NAVIGATION`).
    pub insight_set_id: String,
    /// The insight's name, as the summary lists it (`INPBreakdown`, ...).
    pub insight_name: String,
}

/// What `event` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct EventArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
    /// The event's key, as the summary and the call trees give them
    /// (`r-123`, `s-45`, `p-1-2-3-4`).
    pub key: String,
}

/// chrome-devtools-mcp's performance summary of a trace, byte for byte
/// (its desktop scope, CPU 1x, the trace's own network conditions).
pub fn trace_summary(loaded: &Loaded) -> Result<String, String> {
    loaded.summary().map(str::to_owned)
}

/// chrome-devtools-mcp's analysis of one insight of a set.
pub fn analyze_insight(loaded: &Loaded, args: &InsightArgs) -> Result<String, String> {
    let sets = loaded.sets()?;
    tracekit::agent::insight_text(&loaded.analysis, sets, &args.insight_set_id, &args.insight_name)
        .map_err(|e| e.to_string())
}

/// DevTools' AI call tree of the event `key`.
pub fn event(loaded: &Loaded, args: &EventArgs) -> Result<String, String> {
    let key: tracekit::agent::EventKey = args.key.parse().map_err(|e: tracekit::agent::BadKey| e.to_string())?;
    tracekit::agent::call_tree(&loaded.analysis, key).map_err(|e| e.to_string())
}

/// What `network_requests` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct NetworkArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
    /// Only the requests whose URL contains this text (any case).
    pub filter: Option<String>,
    /// Only the requests that start in this window, in ms from the start
    /// of the trace: START..END, START.. or ..END.
    pub window: Option<String>,
}

/// The network requests asked, as `tracekit network` prints them.
pub fn network_requests(analysis: &Analysis, args: &NetworkArgs) -> Result<String, String> {
    let window = window_arg(args.window.as_deref())?;
    let rows = tracekit::page::requests(analysis).map_err(|e| e.to_string())?;
    let needle = args.filter.as_deref().map(str::to_lowercase);
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| needle.as_deref().is_none_or(|n| r.url.to_lowercase().contains(n)))
        .filter(|r| window.is_none_or(|w| r.start.0 >= w.start().0 && r.start.0 <= w.end().0))
        .collect();
    if rows.is_empty() {
        return Ok("No network request matches (the trace's requests are those of `tracekit network`).\n".to_owned());
    }
    Ok(tracekit::page::requests_text(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_cuts_at_a_line_and_says_how_to_narrow() {
        let text: String = (0..100).map(|i| format!("line {i:03} of the answer\n")).collect();
        assert_eq!(within_budget(text.clone(), 10_000, "x"), text);
        let cut = within_budget(text.clone(), 100, "`window`");
        assert!(cut.len() <= 400, "{}", cut.len());
        assert!(cut.starts_with("line 000 of the answer\n"));
        let last = cut.lines().last().unwrap();
        assert!(
            last.starts_with("[cut here: the whole answer is about 575 tokens, over the budget of 100"),
            "{last}"
        );
        assert!(last.ends_with("narrow it with `window`]"));
        assert!(cut.lines().rev().nth(1).unwrap().starts_with("line "));
    }

    fn analysis() -> Analysis {
        let trace = r#"[{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"CrRendererMain"}},
            {"name":"RunTask","ph":"X","ts":0,"dur":10000,"pid":1,"tid":2},
            {"name":"EvaluateScript","ph":"X","ts":500,"dur":9000,"pid":1,"tid":2},
            {"name":"Layout","ph":"X","ts":1000,"dur":8000,"pid":1,"tid":2},
            {"name":"RunTask","ph":"X","ts":20000,"dur":100,"pid":1,"tid":2}]"#;
        tracekit::analyze_bytes(
            trace.as_bytes(),
            &tracekit::AnalyzeOptions::default().with_all_handlers(true),
        )
        .unwrap()
    }

    #[test]
    fn call_trees_take_the_commands_options() {
        let a = analysis();
        let all = call_tree(&a, &CallTreeArgs::default()).unwrap();
        assert!(all.contains("Layout") && all.contains("EvaluateScript"), "{all}");
        let top = call_tree(
            &a,
            &CallTreeArgs {
                max_depth: Some(1),
                ..CallTreeArgs::default()
            },
        )
        .unwrap();
        assert!(!top.contains("Layout"), "{top}");
        let big = call_tree(
            &a,
            &CallTreeArgs {
                min_percent: Some(42.0),
                bottom_up: Some(true),
                ..CallTreeArgs::default()
            },
        )
        .unwrap();
        // Of 19.6 ms, EvaluateScript has 9 ms in all (45.9%), Layout 8 ms (40.8%).
        assert!(
            big.starts_with("Bottom-Up") && big.contains("EvaluateScript") && !big.contains("Layout"),
            "{big}"
        );
        let bad = |args: CallTreeArgs| call_tree(&a, &args).unwrap_err();
        assert!(bad(CallTreeArgs {
            window: Some("x..y".into()),
            ..Default::default()
        })
        .contains("window"));
        assert!(bad(CallTreeArgs {
            group_by: Some("colour".into()),
            ..Default::default()
        })
        .contains("group_by"));
        assert!(bad(CallTreeArgs {
            thread: Some("Nope".into()),
            ..Default::default()
        })
        .contains("Nope"));
        assert!(bad(CallTreeArgs {
            min_percent: Some(120.0),
            ..Default::default()
        })
        .contains("min_percent"));
    }
}
