//! What each kind of insight found, in a line or a few of words: the
//! findings' part of `tracekit insights`' text.

use crate::model::{EventRef, Finding};
use crate::text::{ms, TextCx};

/// The lines of a finding.
pub(crate) fn lines(finding: &Finding, cx: &TextCx<'_>) -> Vec<String> {
    let strings = cx.analysis.strings();
    let url_of = |request: usize| {
        let r = &cx.data.network_requests().requests[request];
        strings.resolve(r.url).to_owned()
    };
    let kb = |bytes: f64| format!("{:.1} kB", bytes / 1000.0);
    match finding {
        Finding::InpBreakdown(f) => f.summary(cx),
        Finding::ClsCulprits(f) => f.summary(cx),
        Finding::LcpBreakdown(f) => f.summary(cx),
        Finding::LcpDiscovery(f) => f.summary(cx),
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
