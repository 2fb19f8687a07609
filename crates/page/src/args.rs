//! Reading the few members of an event's raw `args` that DevTools'
//! handlers look up (URLs, request ids, frames, `LazyPixelRef`s) without
//! decoding the rest, and where DevTools' `getNonResolvedURL` finds an
//! event's URL ([`url_source`]): in its own args, or in what the
//! NetworkRequests and ImagePainting handlers gathered ([`UrlSource`],
//! resolved by [`resolve_url`] once they are finalized).
//!
//! Only strings count as URLs and frames, and only strings and numbers as
//! request ids and `LazyPixelRef`s (DevTools would use other values as they
//! are, or throw).

use tracekit_events::json::members;
use tracekit_events::{names, DevTools, EventIndex, Interner, Phase, Sym};

use crate::images::ImagePainting;
use crate::network::NetworkRequests;

/// A JSON value's text, not decoded (the events' args are valid JSON: the
/// scanner found their ends, and DevTools would not load a trace whose
/// text is not).
pub type Raw<'a> = &'a str;

/// The members of `args` grouping reads.
pub struct RawArgs<'a> {
    /// `args.data`.
    pub data: Option<Raw<'a>>,
    /// `args.beginData`.
    pub begin_data: Option<Raw<'a>>,
    /// `args.LazyPixelRef`.
    pub lazy_pixel_ref: Option<Raw<'a>>,
}

impl<'a> RawArgs<'a> {
    /// The members of raw `args`, `None` when they are not an object.
    pub fn of(args: &'a str) -> Option<RawArgs<'a>> {
        let [data, begin_data, lazy_pixel_ref] = members(args, ["data", "beginData", "LazyPixelRef"])?;
        Some(RawArgs {
            data,
            begin_data,
            lazy_pixel_ref,
        })
    }
}

/// The members of `args.data` grouping reads.
pub struct RawData<'a> {
    /// `url`.
    pub url: Option<Raw<'a>>,
    /// `stylesheetUrl` (which DevTools 2026-06 read).
    pub stylesheet_url: Option<Raw<'a>>,
    /// `styleSheetUrl` (what Chrome writes, and DevTools 2026-10 reads).
    pub style_sheet_url: Option<Raw<'a>>,
    /// `stackTrace`.
    pub stack_trace: Option<Raw<'a>>,
    /// `requestId`.
    pub request_id: Option<Raw<'a>>,
    /// `frame`.
    pub frame: Option<Raw<'a>>,
}

impl<'a> RawData<'a> {
    /// The members of a raw `args.data`, `None` when absent or not an object.
    pub fn of(data: Option<Raw<'a>>) -> Option<RawData<'a>> {
        let [url, stylesheet_url, style_sheet_url, stack_trace, request_id, frame] = members(
            data?,
            [
                "url",
                "stylesheetUrl",
                "styleSheetUrl",
                "stackTrace",
                "requestId",
                "frame",
            ],
        )?;
        Some(RawData {
            url,
            stylesheet_url,
            style_sheet_url,
            stack_trace,
            request_id,
            frame,
        })
    }
}

/// The member `key` of a JSON object value (`None` when absent or when the
/// value is not an object).
fn member<'a>(object: Option<Raw<'a>>, key: &str) -> Option<Raw<'a>> {
    members(object?, [key])?[0]
}

/// The first element of a JSON array value: `Ok(None)` for an empty
/// array, `Err(())` for a value that is not an array. The rest of the
/// array is not read.
fn first_element(text: Raw<'_>) -> Result<Option<Raw<'_>>, ()> {
    use tracekit_events::scan::{skip_value, skip_ws};
    let b = text.as_bytes();
    if b.first() != Some(&b'[') {
        return Err(());
    }
    let start = skip_ws(b, 1);
    if b.get(start) == Some(&b']') {
        return Ok(None);
    }
    let end = skip_value(b, start).map_err(|_| ())?;
    Ok(Some(&text[start..end]))
}

/// A JSON string value, or `None` for anything else.
pub fn string(v: Option<Raw<'_>>) -> Option<std::borrow::Cow<'_, str>> {
    let v = v?;
    if !v.starts_with('"') {
        return None;
    }
    serde_json::from_str(v).ok()
}

/// A string value as a symbol, `None` for anything else and for `""`.
pub fn non_empty(v: Option<Raw<'_>>, interner: &mut Interner) -> Option<Sym> {
    string(v).filter(|s| !s.is_empty()).map(|s| interner.intern(&s))
}

/// A JavaScript string or number used as a key of one of DevTools' maps.
/// Two keys are equal when JavaScript's `Map` would find one with the
/// other: same type, same text (a number by its `String()` text, which
/// tells numbers apart as `Map` does, `-0` being `0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgKey {
    /// The string, or the number's `String()` text.
    pub text: Sym,
    /// Whether the value is a number.
    pub is_number: bool,
}

impl ArgKey {
    /// The key of a JSON value, `None` unless it is a string or a number.
    pub fn of(v: Option<Raw<'_>>, interner: &mut Interner) -> Option<ArgKey> {
        let v = v?;
        if let Some(s) = string(Some(v)) {
            return Some(ArgKey {
                text: interner.intern(&s),
                is_number: false,
            });
        }
        let x = serde_json::from_str::<f64>(v).ok()?;
        Some(ArgKey {
            text: interner.intern(&tracekit_events::jsnum::js_number_string(x + 0.0)),
            is_number: true,
        })
    }

    /// JavaScript truthiness: not `""`, `0` or `NaN`.
    pub fn is_truthy(self) -> bool {
        !(self.text == names::EMPTY || self.is_number && (self.text == names::ZERO))
    }
}

/// Where DevTools' `getNonResolvedURL` finds an event's URL. An empty or
/// absent URL is [`UrlSource::None`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UrlSource {
    /// The event has no URL.
    #[default]
    None,
    /// This URL, read from the event's own args.
    Url(Sym),
    /// The URL of the network request with this id (its last
    /// `ResourceSendRequest`'s, if the NetworkRequests handler made a
    /// request of it), from `args.data.requestId`.
    Request(ArgKey),
    /// That of the PaintImage event the `Decode Image` event of this
    /// index is tied to ([`ImagePainting::paint_image_of_decode`]).
    DecodeImage(EventIndex),
    /// That of the PaintImage event last drawn with this `LazyPixelRef`
    /// (a `Draw LazyPixelRef` event).
    LazyPixelRef(ArgKey),
}

/// The URL source of the event of index `index`, from its own args,
/// following the order of `getNonResolvedURL` in DevTools `devtools` (its
/// first rules that apply). `ph` is the phase the Renderer handler's
/// entry has (`X` for a begin/end pair).
///
/// DevTools 2026-10 reads a style sheet's URL from `styleSheetUrl` (2026-06
/// read `stylesheetUrl`, which Chrome does not write), and checks types
/// where 2026-06 took any value: a stack trace counts only when its first
/// frame's `url` is a string, and a request id only when it is a string.
pub fn url_source(
    name: Sym,
    ph: Phase,
    index: EventIndex,
    args: Option<&RawArgs<'_>>,
    data: Option<&RawData<'_>>,
    devtools: DevTools,
    interner: &mut Interner,
) -> UrlSource {
    let checks_types = devtools >= DevTools::V2026_10;
    if let Some(value) = first_rules(name, ph, args, data, devtools) {
        return non_empty(value, interner).map_or(UrlSource::None, UrlSource::Url);
    }
    if name == names::DECODE_IMAGE {
        return UrlSource::DecodeImage(index);
    }
    if name == names::DRAW_LAZY_PIXEL_REF {
        if let Some(key) = ArgKey::of(args.and_then(|a| a.lazy_pixel_ref), interner).filter(|k| k.is_truthy()) {
            return UrlSource::LazyPixelRef(key);
        }
    }
    if let Some(u) = data.and_then(|d| non_empty(d.url, interner)) {
        return UrlSource::Url(u);
    }
    match data.and_then(|d| ArgKey::of(d.request_id, interner)) {
        Some(key) if key.is_truthy() && !(checks_types && key.is_number) => UrlSource::Request(key),
        _ => UrlSource::None,
    }
}

/// The URL `getNonResolvedURL` finds in an event's own args when it is
/// given no handler data (as the third-party entity helpers call it): the
/// rules of [`url_source`] that read the args alone, `Decode Image`,
/// `Draw LazyPixelRef` and request ids falling through to the next rule.
pub fn own_url(
    name: Sym,
    ph: Phase,
    args: Option<&RawArgs<'_>>,
    data: Option<&RawData<'_>>,
    devtools: DevTools,
    interner: &mut Interner,
) -> Option<Sym> {
    non_empty(own_url_value(name, ph, args, data, devtools), interner)
}

/// The raw value that [`own_url`] takes for the event's URL (the URL when
/// it is a non-empty string): found without the interner, so that it can
/// be looked for on any core.
pub fn own_url_value<'a>(
    name: Sym,
    ph: Phase,
    args: Option<&RawArgs<'a>>,
    data: Option<&RawData<'a>>,
    devtools: DevTools,
) -> Option<Raw<'a>> {
    match first_rules(name, ph, args, data, devtools) {
        Some(value) => value,
        None => data.and_then(|d| d.url),
    }
}

/// The first rules of `getNonResolvedURL`, which read the event's own
/// args: `Some(value)` when one applies (the URL is `value` if that is a
/// non-empty string, and there is none otherwise), `None` when the next
/// rules are to be tried.
fn first_rules<'a>(
    name: Sym,
    ph: Phase,
    args: Option<&RawArgs<'a>>,
    data: Option<&RawData<'a>>,
    devtools: DevTools,
) -> Option<Option<Raw<'a>>> {
    let checks_types = devtools >= DevTools::V2026_10;
    if name == names::PARSE_AUTHOR_STYLE_SHEET && ph == Phase::COMPLETE && args.is_some() {
        let style_sheet = data.and_then(|d| {
            if checks_types {
                d.style_sheet_url
            } else {
                d.stylesheet_url
            }
        });
        return Some(style_sheet);
    }
    if let Some(stack) = data.and_then(|d| d.stack_trace) {
        match first_element(stack) {
            Ok(Some(first)) => {
                let first_url = member(Some(first), "url");
                if !checks_types || string(first_url).is_some() {
                    return Some(first_url);
                }
            }
            Ok(None) => {}
            // 2026-06 took a non-empty string for a stack, with no `url`
            // at index 0.
            Err(()) => {
                if !checks_types && string(Some(stack)).is_some_and(|s| !s.is_empty()) {
                    return Some(None);
                }
            }
        }
    }
    if name == names::PARSE_HTML {
        return Some(member(args.and_then(|a| a.begin_data), "url"));
    }
    None
}

/// The frame of `frameIDForEvent`: `args.beginData.frame` if it is a
/// string (even empty), else `args.data.frame` if truthy.
pub fn frame_of(args: Option<&RawArgs<'_>>, data: Option<&RawData<'_>>, interner: &mut Interner) -> Option<Sym> {
    if let Some(frame) = string(member(args.and_then(|a| a.begin_data), "frame")) {
        return (!frame.is_empty()).then(|| interner.intern(&frame));
    }
    data.and_then(|d| non_empty(d.frame, interner))
}

/// The URL a source gives once the NetworkRequests and ImagePainting
/// handlers are finalized, `None` when there is none.
pub fn resolve_url(source: UrlSource, network: &NetworkRequests, images: &ImagePainting) -> Option<Sym> {
    let painted = |paint: Option<u32>| resolve_own(images.paint_image_source(paint?)?, network);
    match source {
        UrlSource::DecodeImage(index) => painted(images.paint_image_of_decode(index)),
        UrlSource::LazyPixelRef(key) => painted(images.paint_image_drawn_with(key)),
        own => resolve_own(own, network),
    }
}

/// The URL of a source read from one event's own args.
fn resolve_own(source: UrlSource, network: &NetworkRequests) -> Option<Sym> {
    match source {
        UrlSource::Url(url) => Some(url),
        UrlSource::Request(key) => network.url(key),
        UrlSource::None | UrlSource::DecodeImage(_) | UrlSource::LazyPixelRef(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `own_url` and `url_source` of an event named `name` with raw `args`.
    fn both(name: Sym, args: &str, interner: &mut Interner) -> (Option<String>, UrlSource) {
        let raw = RawArgs::of(args).unwrap();
        let data = RawData::of(raw.data);
        let own = own_url(
            name,
            Phase::COMPLETE,
            Some(&raw),
            data.as_ref(),
            DevTools::V2026_10,
            interner,
        );
        let own = own.map(|s| interner.resolve(s).to_owned());
        let source = url_source(
            name,
            Phase::COMPLETE,
            4,
            Some(&raw),
            data.as_ref(),
            DevTools::V2026_10,
            interner,
        );
        (own, source)
    }

    /// Without handler data, a `Decode Image` event's own URL counts and a
    /// request id gives none; with it, the painted image and the request
    /// are looked up.
    #[test]
    fn own_urls_read_the_args_alone() {
        let mut interner = Interner::new();
        let (own, source) = both(
            names::DECODE_IMAGE,
            r#"{"data":{"url":"https://a.test/i.png"}}"#,
            &mut interner,
        );
        assert_eq!(own.as_deref(), Some("https://a.test/i.png"));
        assert_eq!(source, UrlSource::DecodeImage(4));
        let (own, source) = both(names::PARSE_HTML, r#"{"data":{"requestId":"R"}}"#, &mut interner);
        assert_eq!(own, None);
        assert_eq!(
            source,
            UrlSource::None,
            "a ParseHTML event has its begin data's URL or none"
        );
        let layout = interner.intern("Layout");
        let (own, source) = both(layout, r#"{"data":{"requestId":"R"}}"#, &mut interner);
        assert_eq!(own, None);
        assert!(matches!(source, UrlSource::Request(_)));
        let (own, _) = both(
            layout,
            r#"{"data":{"stackTrace":[{"url":"https://s.test/a.js"}],"url":"x"}}"#,
            &mut interner,
        );
        assert_eq!(own.as_deref(), Some("https://s.test/a.js"));
    }
}
