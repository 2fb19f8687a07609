//! Font display: the web fonts of the set whose `font-display` (`block`,
//! `fallback` or `auto`) hides text while they load, and the time each
//! kept text invisible (its request's time, by steps of 5 ms, at most the
//! 3 s browsers wait).

use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Sym;

use crate::model::{Category, EventRef, Finding, Insight, MetricSavings, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "FontDisplay",
    title: "Font display",
    description: "Consider setting [`font-display`](https://developer.chrome.com/docs/performance/insights/font-display) to `swap` or `optional` to ensure text is consistently visible. `swap` can be further optimized to mitigate layout shifts with [font metric overrides](https://developer.chrome.com/blog/font-fallbacks).",
    docs: "https://developer.chrome.com/docs/performance/insights/font-display",
    category: Category::Inp,
    strings: &[
        ("description", "Consider setting [`font-display`](https://developer.chrome.com/docs/performance/insights/font-display) to `swap` or `optional` to ensure text is consistently visible. `swap` can be further optimized to mitigate layout shifts with [font metric overrides](https://developer.chrome.com/blog/font-fallbacks)."),
        ("fontColumn", "Font"),
        ("noFonts", "No fonts with suboptimal font-display found"),
        ("title", "Font display"),
        ("wastedTimeColumn", "Wasted time"),
    ],
};

/// Browsers show fallback text after at most this long (ms).
const MAX_WAIT_MS: f64 = 3000.0;

/// What the insight found: the fonts that hid text, longest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FontDisplay {
    /// The fonts.
    pub fonts: Vec<RemoteFontWait>,
}

/// A font that kept text invisible while it loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteFontWait {
    /// Its name, from `RemoteFontLoaded` (`None`: none came, or it had
    /// none).
    pub name: Option<Sym>,
    /// Its request, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// Its `font-display`.
    pub display: Sym,
    /// How long text waited for it, ms.
    pub wasted_time: f64,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let network = cx.data.network_requests();
    let strings = cx.analysis.strings();
    let mut fonts = Vec::new();
    for font in &cx.data.layout_shifts().remote_fonts {
        if !cx.overlaps(font.ts, font.dur.unwrap_or_default()) {
            continue;
        }
        let Some(&at) = network.by_id.get(&font.request_id) else {
            continue;
        };
        let Some(display) = font
            .display
            .filter(|d| matches!(strings.resolve(*d), "block" | "fallback" | "auto"))
        else {
            continue;
        };
        let timings = &network.requests[at as usize].timings;
        let ms = (timings.finish_time.0 - timings.send_start_time.0) / 1000.0;
        let wasted_time = (ms / 5.0).floor() * 5.0;
        if wasted_time == 0.0 {
            continue;
        }
        fonts.push(RemoteFontWait {
            name: font.name.flatten(),
            request: at as usize,
            display,
            // `NaN` stays `NaN`, as with `Math.min`.
            wasted_time: if wasted_time > MAX_WAIT_MS {
                MAX_WAIT_MS
            } else {
                wasted_time
            },
        });
    }
    fonts.sort_by(|a, b| b.wasted_time.total_cmp(&a.wasted_time));
    // The longest wait; `-Infinity` without a font, as `Math.max()`.
    let savings = fonts.iter().fold(f64::NEG_INFINITY, |max, f| {
        if f.wasted_time.is_nan() || max.is_nan() {
            f64::NAN
        } else {
            max.max(f.wasted_time)
        }
    });
    let state = if fonts.iter().any(|f| f.wasted_time > 0.0) {
        State::Fail
    } else {
        State::Pass
    };
    let related = fonts.iter().map(|f| EventRef::Request(f.request)).collect();
    let mut insight = Insight::new(state, Finding::FontDisplay(FontDisplay { fonts }));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.metric_savings = Some(MetricSavings {
        fcp: Some(savings),
        ..MetricSavings::default()
    });
    Ok(insight)
}

impl FontDisplay {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let fonts = self
            .fonts
            .iter()
            .map(|f| {
                Object::new()
                    .with("name", Value::opt(f.name, Value::Sym))
                    .with("request", cx.event(EventRef::Request(f.request)))
                    .with("display", Value::Sym(f.display))
                    .with("wastedTime", Value::Num(f.wasted_time))
                    .into()
            })
            .collect();
        model.push("fonts", Value::Array(fonts));
    }
}
