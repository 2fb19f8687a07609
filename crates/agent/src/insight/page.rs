//! The analyses of the insights about the page's resources and markup:
//! caching, character set, fonts, third parties, images, legacy and
//! duplicated JavaScript, HTTP versions, render-blocking requests, the
//! DOM's size, CSS selectors and the viewport.

use tracekit_engine::support::jsnum::js_number_string;
use tracekit_insights::cache::Cache;
use tracekit_insights::character_set::CharacterSet;
use tracekit_insights::dom_size::DomSize;
use tracekit_insights::duplicated_javascript::DuplicatedJavaScript;
use tracekit_insights::font_display::FontDisplay;
use tracekit_insights::image_delivery::{ImageDelivery, OptimizationKind};
use tracekit_insights::legacy_javascript::LegacyJavaScript;
use tracekit_insights::modern_http::ModernHttp;
use tracekit_insights::render_blocking::RenderBlocking;
use tracekit_insights::slow_css_selector::SlowCssSelector;
use tracekit_insights::third_parties::ThirdParties;
use tracekit_insights::viewport::Viewport;
use tracekit_insights::State;

use super::{micros, Cx};
use crate::units::{bytes, millis};

/// The Cache insight's analysis.
pub(super) fn cache(cx: &Cx<'_>, f: &Cache) -> String {
    if f.requests.is_empty() {
        return format!("{}.", cx.ui("noRequestsToCache"));
    }
    let requests = cx.requests();
    let mut out = "The following resources were associated with ineffficient cache policies:\n".to_owned();
    for entry in &f.requests {
        let Some(r) = requests.get(entry.request) else {
            continue;
        };
        out += &format!(
            "\n- {}\n  - Cache Time to Live (TTL): {} seconds\n  - Wasted bytes: {}",
            requests.url_and_key(r),
            js_number_string(entry.ttl),
            bytes(entry.wasted_bytes)
        );
    }
    out + "\n\n" + cx.ui("description")
}

/// The CharacterSet insight's analysis.
pub(super) fn character_set(cx: &Cx<'_>, f: &CharacterSet) -> String {
    let Some(d) = &f.document else {
        return String::new();
    };
    let disposition = d.meta_charset_disposition.map(|s| cx.strings.resolve(s));
    let mut out = format!(
        "HTTP Content-Type header charset: {}.\nHTML meta charset disposition: {}.\n",
        if d.has_http_charset { "present" } else { "missing" },
        disposition.unwrap_or("unknown")
    );
    if !d.has_http_charset && disposition != Some("found-in-first-1024-bytes") {
        out += "\nThe page does not declare character encoding via HTTP header or a meta charset tag in the first 1024 bytes.\n";
    }
    out
}

/// The last segment of a URL's path, `None` when it does not parse.
fn last_path_component(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let path = parsed.path();
    Some(path[path.rfind('/').map_or(0, |i| i + 1)..].to_owned())
}

/// The FontDisplay insight's analysis.
pub(super) fn font_display(cx: &Cx<'_>, f: &FontDisplay) -> String {
    if f.fonts.is_empty() {
        return "No font display issues were detected.".to_owned();
    }
    let requests = cx.requests();
    let mut out = "The following font display issues were found:\n".to_owned();
    for font in &f.fonts {
        let Some(r) = requests.get(font.request) else {
            continue;
        };
        let name = match font.name.map(|n| cx.strings.resolve(n)).filter(|n| !n.is_empty()) {
            Some(n) => n.to_owned(),
            None => last_path_component(requests.url(r)).unwrap_or_else(|| "(not available)".to_owned()),
        };
        out += &format!(
            "\n - Font name: {name}, URL: {}, Property 'font-display' set to: '{}', Wasted time: {}.",
            requests.url_and_key(r),
            cx.strings.resolve(font.display),
            millis(font.wasted_time)
        );
    }
    out + "\n\n" + cx.ui("description")
}

/// The ThirdParties insight's analysis.
pub(super) fn third_parties(cx: &Cx<'_>, f: &ThirdParties) -> String {
    let first = f.first_party.as_ref().and_then(|p| p.entity);
    let third: Vec<_> = f.summaries.iter().filter(|s| Some(s.entity) != first).collect();
    if third.is_empty() {
        return "No 3rd party scripts were found on this page.".to_owned();
    }
    let mut by_size = third.clone();
    by_size.sort_by(|a, b| b.transfer_size.total_cmp(&a.transfer_size));
    let mut by_time = third;
    by_time.sort_by(|a, b| b.main_thread_time.total_cmp(&a.main_thread_time));
    let mut out = "The following list contains the largest transfer sizes by a 3rd party script:\n\n".to_owned();
    for s in by_size.iter().filter(|s| s.transfer_size > 0.0) {
        out += &format!("- {}: {}\n", s.entity.name(cx.strings), bytes(s.transfer_size));
    }
    out += "\nThe following list contains the largest amount spent by a 3rd party script on the main thread:\n\n";
    for s in by_time.iter().filter(|s| s.main_thread_time > 0.0) {
        out += &format!("- {}: {}\n", s.entity.name(cx.strings), millis(s.main_thread_time));
    }
    out + "\n" + cx.ui("description")
}

/// The ImageDelivery insight's analysis.
pub(super) fn image_delivery(cx: &Cx<'_>, f: &ImageDelivery) -> String {
    if f.images.is_empty() {
        return "There are no unoptimized images on this page.".to_owned();
    }
    let requests = cx.requests();
    let images: Vec<String> = (f.images.iter())
        .filter_map(|image| {
            let r = requests.get(image.request)?;
            let optimizations: Vec<String> = (image.optimizations.iter())
                .map(|o| format!("{} (Est {})", optimization_message(cx, &o.kind), bytes(o.byte_savings)))
                .collect();
            Some(format!(
                "### {}\n- Potential savings: {}\n- Optimizations:\n{}",
                requests.url_and_key(r),
                bytes(image.byte_savings),
                optimizations.join("\n")
            ))
        })
        .collect();
    format!(
        "Total potential savings: {}\n\nThe following images could be optimized:\n\n{}",
        bytes(cx.insight.wasted_bytes.unwrap_or(0.0)),
        images.join("\n\n")
    )
}

fn optimization_message(cx: &Cx<'_>, kind: &OptimizationKind) -> String {
    let dims = |(w, h): (f64, f64)| format!("{}x{}", js_number_string(w), js_number_string(h));
    match kind {
        OptimizationKind::AdjustCompression => cx.ui("useCompression").to_owned(),
        OptimizationKind::ModernFormatOrCompression => cx.ui("useModernFormat").to_owned(),
        OptimizationKind::VideoFormat => cx.ui("useVideoFormat").to_owned(),
        OptimizationKind::ResponsiveSize { file, displayed } => cx
            .ui("useResponsiveSize")
            .replace("{PH1}", &dims(*file))
            .replace("{PH2}", &dims(*displayed)),
    }
}

/// The LegacyJavaScript insight's analysis.
pub(super) fn legacy_javascript(cx: &Cx<'_>, f: &LegacyJavaScript) -> String {
    if f.scripts.is_empty() {
        return "There is no significant amount of legacy JavaScript on the page.".to_owned();
    }
    let requests = cx.requests();
    let scripts = &cx.data.scripts().scripts;
    let files: Vec<String> = (f.scripts.iter())
        .filter_map(|s| {
            let script = scripts.get(s.script)?;
            let name = match script.request.and_then(|r| requests.get(r as usize)) {
                Some(r) => requests.url_and_key(r),
                None => cx
                    .strings
                    .resolve(script.url.or(script.source_url).unwrap_or(script.script_id))
                    .to_owned(),
            };
            let matches: Vec<String> = (s.found.matches.iter())
                .map(|m| {
                    format!(
                        "Line: {}, Column: {}, Name: {}",
                        m.line,
                        m.column,
                        m.name.as_deref().unwrap_or("undefined")
                    )
                })
                .collect();
            Some(format!(
                "\n- Script: {name} - Wasted bytes: {} bytes\nMatches:\n{}",
                js_number_string(s.found.estimated_byte_savings),
                matches.join("\n")
            ))
        })
        .collect();
    format!(
        "Total legacy JavaScript: {} files.\n\nLegacy JavaScript by file:\n{}",
        f.scripts.len(),
        files.join("\n")
    )
}

/// The DuplicatedJavaScript insight's analysis: no trace carries the
/// source maps that tell modules apart, so none is ever duplicated.
pub(super) fn duplicated_javascript(_cx: &Cx<'_>, _f: &DuplicatedJavaScript) -> String {
    "There is no duplicated JavaScript in the page modules".to_owned()
}

/// The ModernHTTP insight's analysis.
pub(super) fn modern_http(cx: &Cx<'_>, f: &ModernHttp) -> String {
    let verbose = (f.http1_requests.len() == 1).then_some(true);
    let list = cx.requests().format(&f.http1_requests, verbose, None);
    if list.is_empty() {
        return "There are no requests that were served over a legacy HTTP protocol.".to_owned();
    }
    format!("Here is a list of the network requests that were served over a legacy HTTP protocol:\n{list}")
}

/// The RenderBlocking insight's analysis.
pub(super) fn render_blocking(cx: &Cx<'_>, f: &RenderBlocking) -> String {
    let list = cx.requests().format(&f.requests, None, None);
    if list.is_empty() {
        return "There are no network requests that are render-blocking.".to_owned();
    }
    format!(
        "Here is a list of the network requests that were render-blocking on this page and their duration:\n\n{list}"
    )
}

/// The DOMSize insight's analysis.
pub(super) fn dom_size(cx: &Cx<'_>, f: &DomSize) -> String {
    if cx.insight.state == State::Pass {
        return "No DOM size issues were detected.".to_owned();
    }
    let mut out = format!("{}\n", cx.ui("description"));
    let stats = f
        .max_dom_stats
        .and_then(|e| (cx.data.dom_stats().by_frame.values().flatten()).find(|s| s.event == e));
    if let Some(stats) = stats {
        let name = |n: Option<tracekit_engine::Sym>| n.map_or("undefined", |n| cx.strings.resolve(n));
        out += &format!(
            "\n{}:\n\n{}: {}.\n",
            cx.ui("statistic"),
            cx.ui("totalElements"),
            js_number_string(stats.total_elements)
        );
        if let Some(d) = stats.max_depth {
            out += &format!(
                "{}: {} nodes, starting with element '{}' (node id: {}).\n",
                cx.ui("maxDOMDepth"),
                js_number_string(d.count),
                name(d.node_name),
                js_number_string(d.node_id)
            );
        }
        if let Some(c) = stats.max_children {
            out += &format!(
                "{}: {}, for parent '{}' (node id: {}).\n",
                cx.ui("maxChildren"),
                js_number_string(c.count),
                name(c.node_name),
                js_number_string(c.node_id)
            );
        }
    }
    if !f.large_layout_updates.is_empty() || !f.large_style_recalcs.is_empty() {
        out += "\nLarge layout updates/style calculations:\n";
    }
    let number = |x: Option<f64>| x.map_or("undefined".to_owned(), js_number_string);
    for update in &f.large_layout_updates {
        out += &format!(
            "\n  - Layout update: Duration: {}, with {} of {} nodes needing layout.",
            micros(update.dur.map_or(f64::NAN, |d| d.0)),
            number(update.size),
            number(update.total)
        );
    }
    for recalc in &f.large_style_recalcs {
        out += &format!(
            "\n  - Style recalculation: Duration: {}, with {} elements affected.",
            micros(recalc.dur.map_or(f64::NAN, |d| d.0)),
            number(recalc.size)
        );
    }
    out
}

/// The SlowCSSSelector insight's analysis.
pub(super) fn slow_css_selector(cx: &Cx<'_>, f: &SlowCssSelector) -> String {
    let (elapsed, attempts) = (&f.top_selector_elapsed, &f.top_selector_match_attempts);
    if elapsed.is_none() && attempts.is_none() {
        return cx.ui("enableSelectorData").to_owned();
    }
    let selector = |s: &tracekit_engine::handlers::causes::selector_stats::SelectorTiming| {
        s.selector.map_or("undefined", |s| cx.strings.resolve(s)).to_owned()
    };
    let number = |x: Option<f64>| x.map_or("undefined".to_owned(), js_number_string);
    let mut out =
        "One or more slow CSS selectors were identified as negatively affecting page performance:\n\n".to_owned();
    if let Some(s) = elapsed {
        out += &format!(
            "{} (as ranked by elapsed time in ms):\n{}: {}\n\n",
            cx.ui("topSelectorElapsedTime"),
            micros(s.elapsed.unwrap_or(f64::NAN)),
            selector(s)
        );
    }
    if let Some(s) = attempts {
        out += &format!(
            "{}:\n{} attempts for selector: '{}'\n\n",
            cx.ui("topSelectorMatchAttempt"),
            number(s.match_attempts),
            selector(s)
        );
    }
    out += &format!(
        "{}:\n{}: {}\n{}: {}\n{}: {}\n\n{}",
        cx.ui("total"),
        cx.ui("elapsed"),
        micros(f.total_elapsed_ms),
        cx.ui("matchAttempts"),
        js_number_string(f.total_match_attempts),
        cx.ui("matchCount"),
        js_number_string(f.total_match_count),
        cx.ui("description")
    );
    out
}

/// The Viewport insight's analysis.
pub(super) fn viewport(cx: &Cx<'_>, f: &Viewport) -> String {
    let mut out = format!(
        "The webpage is {} optimized for mobile viewing.\n",
        if f.mobile_optimized == Some(true) {
            "already"
        } else {
            "not"
        }
    );
    let events = &cx.data.user_interactions().parse_meta_viewport_events;
    match f.viewport_event.and_then(|i| events.get(i)) {
        Some(e) => {
            let content = e.content.map_or("undefined", |c| cx.strings.resolve(c));
            out += &format!("\nThe viewport meta tag was found: `{content}`.");
        }
        None => {
            out += "\nThe viewport meta tag is missing.\n\n";
            out += cx.ui("description");
        }
    }
    out
}
