//! What each kind of insight found, in a line or a few of words: the
//! findings' part of `tracekit insights`' text.

use crate::model::{EventRef, Finding};
use crate::text::{ms, TextCx};

/// The lines of a finding.
pub(crate) fn lines(finding: &Finding, cx: &TextCx<'_>) -> Vec<String> {
    match finding {
        Finding::Cache(f) => f.summary(cx),
        Finding::ImageDelivery(f) => f.summary(cx),
        Finding::InpBreakdown(f) => f.summary(cx),
        Finding::ModernHttp(f) => f.summary(cx),
        Finding::DuplicatedJavaScript(f) => f.summary(cx),
        Finding::RenderBlocking(f) => f.summary(cx),
        Finding::NetworkDependencyTree(f) => f.summary(cx),
        Finding::LegacyJavaScript(f) => f.summary(cx),
        Finding::ClsCulprits(f) => f.summary(cx),
        Finding::LcpBreakdown(f) => f.summary(cx),
        Finding::LcpDiscovery(f) => f.summary(cx),
        Finding::Viewport(_) | Finding::DomSize(_) | Finding::SlowCssSelector(_) | Finding::ForcedReflow(_) => {
            rendering_lines(finding, cx)
        }
        _ => network_lines(finding, cx),
    }
}

/// The lines of a finding about the page's requests.
fn network_lines(finding: &Finding, cx: &TextCx<'_>) -> Vec<String> {
    let strings = cx.analysis.strings();
    let url_of = |request: usize| {
        let r = &cx.data.network_requests().requests[request];
        strings.resolve(r.url).to_owned()
    };
    let kb = |bytes: f64| format!("{:.1} kB", bytes / 1000.0);
    match finding {
        Finding::CharacterSet(f) => match &f.document {
            None => vec!["no document request in this set".to_owned()],
            Some(d) => {
                let meta = match d.meta_charset_disposition {
                    Some(s) => strings.resolve(s).to_owned(),
                    None => "none".to_owned(),
                };
                vec![format!(
                    "document {}: charset in its Content-Type header: {}; <meta charset>: {meta}",
                    url_of(d.request),
                    if d.has_http_charset { "yes" } else { "no" }
                )]
            }
        },
        Finding::DocumentLatency(f) => match &f.document {
            None => vec!["no document request in this set".to_owned()],
            Some(d) => {
                let mut line = format!(
                    "document {}: the server responded in {}",
                    url_of(d.request),
                    ms(d.server_response_time)
                );
                if d.redirects > 0 {
                    line += &format!(", after {} redirects ({})", d.redirects, ms(d.redirect_duration));
                }
                if d.uncompressed_response_bytes > 0.0 {
                    line += &format!("; compression would save {}", kb(d.uncompressed_response_bytes));
                }
                vec![line]
            }
        },
        Finding::FontDisplay(f) if f.fonts.is_empty() => vec!["no web font hides text".to_owned()],
        Finding::FontDisplay(f) => f
            .fonts
            .iter()
            .map(|font| {
                let name = font
                    .name
                    .map_or_else(|| url_of(font.request), |n| strings.resolve(n).to_owned());
                format!(
                    "{name}: font-display {}, text hidden for up to {}",
                    strings.resolve(font.display),
                    ms(font.wasted_time)
                )
            })
            .collect(),
        Finding::ThirdParties(f) => {
            const SHOWN: usize = 5;
            let first_party = f.first_party.as_ref().map(|p| p.name.as_str());
            let mut out: Vec<String> = f
                .summaries
                .iter()
                .filter(|s| Some(s.entity.name(strings)) != first_party)
                .take(SHOWN)
                .map(|s| {
                    format!(
                        "{}: {} of main thread, {} transferred",
                        s.entity.name(strings),
                        ms(s.main_thread_time),
                        kb(s.transfer_size)
                    )
                })
                .collect();
            if out.is_empty() {
                out.push("no third party".to_owned());
            }
            if let Some(name) = first_party {
                out.push(format!("first party: {name}"));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The lines of a finding about rendering: the viewport, the DOM's size,
/// the selectors' costs, the forced reflows.
fn rendering_lines(finding: &Finding, cx: &TextCx<'_>) -> Vec<String> {
    let strings = cx.analysis.strings();
    match finding {
        Finding::Viewport(f) => match f.mobile_optimized {
            None => vec!["no compositor frame in this set to tell".to_owned()],
            Some(true) => vec!["the viewport is optimized for mobile".to_owned()],
            Some(false) => {
                let taps = f.long_pointer_interactions.len();
                vec![format!(
                    "the viewport is not optimized for mobile: taps may wait up to 300 ms ({taps} slow tap{} here)",
                    if taps == 1 { "" } else { "s" }
                )]
            }
        },
        Finding::DomSize(f) => {
            let mut out: Vec<String> = f
                .large_updates
                .iter()
                .take(5)
                .map(|u| {
                    let what = match u.kind {
                        tracekit_engine::DomUpdateKind::Layout => "layout",
                        tracekit_engine::DomUpdateKind::RecalcStyle => "style recalculation",
                    };
                    let dur = u.dur.map_or(String::new(), |d| format!(", {}", ms(d.0 / 1000.0)));
                    let size = u.size.map_or(String::new(), |n| format!(" of {n} nodes"));
                    format!("{what}{size} at {}{dur}", cx.at(u.ts))
                })
                .collect();
            if out.is_empty() {
                out.push("no large layout or style recalculation".to_owned());
            }
            out
        }
        Finding::SlowCssSelector(f) => {
            let mut out = vec![format!(
                "style recalculations spent {} matching selectors ({} attempts, {} matches)",
                ms(f.total_elapsed_ms),
                f.total_match_attempts,
                f.total_match_count
            )];
            if let Some(top) = &f.top_selector_elapsed {
                let selector = top.selector.map_or("?", |s| strings.resolve(s));
                out.push(format!(
                    "slowest selector: {selector} ({})",
                    ms(top.elapsed.unwrap_or(0.0) / 1000.0)
                ));
            }
            out
        }
        Finding::ForcedReflow(f) => {
            let mut out = Vec::new();
            if let Some(top) = &f.top_level_function_call {
                out.push(format!(
                    "the top-level call that forced the most layout: {} ({} of forced reflows)",
                    frame_text(&top.frame, strings),
                    ms(top.total_reflow_time / 1000.0)
                ));
            }
            let mut stacks: Vec<_> = f.aggregated_bottom_up.iter().collect();
            stacks.sort_by(|a, b| b.total_time.total_cmp(&a.total_time));
            for stack in stacks.into_iter().take(5) {
                let frame = stack
                    .frame
                    .as_ref()
                    .map_or("(unattributed)".to_owned(), |f| frame_text(f, strings));
                out.push(format!("{frame}: {} of forced reflows", ms(stack.total_time / 1000.0)));
            }
            if out.is_empty() {
                out.push("no forced reflow".to_owned());
            }
            out
        }
        _ => Vec::new(),
    }
}

/// An entity's event, in a few words.
pub(crate) fn entity_event(event: tracekit_engine::handlers::page::EntityEvent, cx: &TextCx<'_>) -> String {
    use tracekit_engine::handlers::page::EntityEvent;
    match event {
        EntityEvent::Request(i) => cx.event(EventRef::Request(i as usize)),
        EntityEvent::Event(index) => cx.event(EventRef::Input(index)),
        EntityEvent::ProfileCall { .. } => "a JS call".to_owned(),
        EntityEvent::BeginEnd { begin, .. } => cx.event(EventRef::Input(begin)),
    }
}

/// A call frame in a few words: its function and where it is.
fn frame_text(frame: &crate::forced_reflow::CallFrameAt, strings: &tracekit_engine::Strings) -> String {
    use crate::forced_reflow::CallFrameAt;
    let member = |text: tracekit_engine::Sym, key: &str| {
        tracekit_engine::support::json::member(strings.resolve(text), key)
            .and_then(tracekit_engine::support::json::as_str)
            .map(|s| s.into_owned())
            .unwrap_or_default()
    };
    let (name, url, line) = match frame {
        CallFrameAt::Payload(p) => (member(p.text, "functionName"), member(p.text, "url"), p.line_number),
        CallFrameAt::FunctionCall(c) => (
            member(c.data, "functionName"),
            member(c.data, "url"),
            Some(c.line_number),
        ),
        CallFrameAt::Profile { call_frame } => (
            strings.resolve(call_frame.function_name).to_owned(),
            strings.resolve(call_frame.url).to_owned(),
            call_frame.line_number,
        ),
    };
    let name = if name.is_empty() {
        "(anonymous)".to_owned()
    } else {
        name
    };
    match line {
        Some(line) if !url.is_empty() => format!("{name} {url}:{}", line + 1.0),
        _ => name,
    }
}
