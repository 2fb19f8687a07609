//! The few args of trace events that DevTools' aggregated views (Call Tree,
//! Bottom-Up) read, kept while loading since the events themselves are not:
//!
//! - [`ViewArgs`]: what node ids and transfer sizes need (`TimeStamp` and
//!   the received-data events);
//! - [`GroupArgs`]: what grouping needs, the event's URL (as DevTools'
//!   `getNonResolvedURL` finds it with the handlers' data) and its frame
//!   (`frameIDForEvent`). While loading, an event's URL may point into
//!   trace-wide tables (`EventUrls`: the NetworkRequests handler's request
//!   URLs and the ImagePainting handler's ties of `Decode Image` events to
//!   PaintImage events); it is looked up there once every event was seen.
//!
//! Only strings count as URLs and frames, and only strings and numbers as
//! request ids and `LazyPixelRef`s (DevTools would use other values as they
//! are, or throw).

use serde_json::value::RawValue;
use tracekit_events::{names, Event, Id, Interner, Phase, Sym};

use crate::Map;

/// The few `args.data` fields of an entry that DevTools' aggregated views
/// (Call Tree, Bottom-Up) read for node ids and transfer sizes, kept only
/// for `TimeStamp` events (node id `TimeStamp:NAME`) and the received-data
/// events `ResourceReceivedData`, `ResourceFinish`,
/// `ResourceReceiveResponse` (node id `req:ID`, transfer sizes). A string
/// field is `None` when absent (JavaScript `undefined`); other values are
/// kept as JavaScript's `String()` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ViewArgs {
    /// `args.data` is present and not `null`.
    pub has_data: bool,
    /// `args.data.name`.
    pub name: Option<Sym>,
    /// `args.data.requestId`.
    pub request_id: Option<Sym>,
    /// `args.data.encodedDataLength` if it is a number (`None`: absent or
    /// not a number, which DevTools' arithmetic turns into NaN).
    pub encoded_data_length: Option<f64>,
    /// `args.data.fromCache` is JavaScript-truthy.
    pub from_cache: bool,
}

impl ViewArgs {
    /// Decodes the fields from an event's raw `args`; `None` for events
    /// whose names do not need them.
    pub(crate) fn of(event: &Event<'_>, interner: &mut Interner) -> Option<ViewArgs> {
        #[derive(serde::Deserialize)]
        struct Args<'a> {
            #[serde(borrow)]
            data: Option<&'a RawValue>,
        }
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Data<'a> {
            #[serde(borrow)]
            name: Option<&'a RawValue>,
            #[serde(borrow)]
            request_id: Option<&'a RawValue>,
            #[serde(borrow)]
            encoded_data_length: Option<&'a RawValue>,
            #[serde(borrow)]
            from_cache: Option<&'a RawValue>,
        }
        if !matches!(
            event.name,
            names::TIME_STAMP
                | names::RESOURCE_RECEIVED_DATA
                | names::RESOURCE_FINISH
                | names::RESOURCE_RECEIVE_RESPONSE
        ) {
            return None;
        }
        let mut out = ViewArgs::default();
        let data = event
            .args
            .and_then(|a| serde_json::from_str::<Args<'_>>(a).ok())
            .and_then(|a| a.data)
            .filter(|d| d.get() != "null");
        let Some(data) = data else {
            return Some(out);
        };
        out.has_data = true;
        let Ok(data) = serde_json::from_str::<Data<'_>>(data.get()) else {
            return Some(out);
        };
        let mut text = |v: Option<&RawValue>| -> Option<Sym> {
            let v = v?;
            let s = match serde_json::from_str::<std::borrow::Cow<'_, str>>(v.get()) {
                Ok(s) => s.into_owned(),
                Err(_) => match serde_json::from_str::<f64>(v.get()) {
                    Ok(x) => tracekit_events::jsnum::js_number_string(x),
                    Err(_) => v.get().to_owned(),
                },
            };
            Some(interner.intern(&s))
        };
        out.name = text(data.name);
        out.request_id = text(data.request_id);
        out.encoded_data_length = data
            .encoded_data_length
            .and_then(|v| serde_json::from_str::<f64>(v.get()).ok());
        out.from_cache = data.from_cache.is_some_and(|v| {
            !matches!(v.get(), "false" | "null" | "0" | "\"\"")
                && serde_json::from_str::<f64>(v.get()).map_or(true, |x| x != 0.0 && !x.is_nan())
        });
        Some(out)
    }
}

/// A JSON value's text, not decoded (the events' args are valid JSON: the
/// scanner found their ends, and DevTools would not load a trace whose
/// text is not).
type Raw<'a> = &'a str;

/// The raw values of the members `keys` of the JSON object `text` (the
/// last of each, as `JSON.parse` keeps it), or `None` when `text` is not
/// an object. Values are skipped with the tokenizer's scanner, not decoded,
/// so that the large ones grouping never reads (stack traces, most of
/// `args.data`) cost one quick pass.
fn members<'a, const N: usize>(text: &'a str, keys: [&str; N]) -> Option<[Option<Raw<'a>>; N]> {
    use tracekit_events::scan::{skip_value, skip_ws};
    let b = text.as_bytes();
    let mut found = [None; N];
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(found);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_value(b, i).ok()?;
        let raw_key = &text[i..key_end];
        let key: std::borrow::Cow<'_, str> = if raw_key.contains('\\') {
            serde_json::from_str(raw_key).ok()?
        } else {
            raw_key[1..raw_key.len() - 1].into()
        };
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(b, i + 1);
        let value_end = skip_value(b, value_start).ok()?;
        if let Some(at) = keys.iter().position(|k| *k == key) {
            found[at] = Some(&text[value_start..value_end]);
        }
        i = skip_ws(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return Some(found),
            _ => return None,
        }
    }
}

/// The members of `args` grouping reads.
struct RawArgs<'a> {
    data: Option<Raw<'a>>,
    begin_data: Option<Raw<'a>>,
    lazy_pixel_ref: Option<Raw<'a>>,
}

impl<'a> RawArgs<'a> {
    fn of(args: &'a str) -> Option<RawArgs<'a>> {
        let [data, begin_data, lazy_pixel_ref] = members(args, ["data", "beginData", "LazyPixelRef"])?;
        Some(RawArgs {
            data,
            begin_data,
            lazy_pixel_ref,
        })
    }
}

/// The members of `args.data` grouping reads.
struct RawData<'a> {
    url: Option<Raw<'a>>,
    stylesheet_url: Option<Raw<'a>>,
    stack_trace: Option<Raw<'a>>,
    request_id: Option<Raw<'a>>,
    frame: Option<Raw<'a>>,
}

impl<'a> RawData<'a> {
    fn of(data: Option<Raw<'a>>) -> Option<RawData<'a>> {
        let [url, stylesheet_url, stack_trace, request_id, frame] =
            members(data?, ["url", "stylesheetUrl", "stackTrace", "requestId", "frame"])?;
        Some(RawData {
            url,
            stylesheet_url,
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
fn string(v: Option<Raw<'_>>) -> Option<std::borrow::Cow<'_, str>> {
    let v = v?;
    if !v.starts_with('"') {
        return None;
    }
    serde_json::from_str(v).ok()
}

/// A string value as a symbol, `None` for anything else and for `""`.
fn non_empty(v: Option<Raw<'_>>, interner: &mut Interner) -> Option<Sym> {
    string(v).filter(|s| !s.is_empty()).map(|s| interner.intern(&s))
}

/// A JavaScript string or number used as a key of one of DevTools' maps.
/// Two keys are equal when JavaScript's `Map` would find one with the
/// other: same type, same text (a number by its `String()` text, which
/// tells numbers apart as `Map` does, `-0` being `0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ArgKey {
    /// The string, or the number's `String()` text.
    pub text: Sym,
    /// Whether the value is a number.
    pub is_number: bool,
}

impl ArgKey {
    /// The key of a JSON value, `None` unless it is a string or a number.
    fn of(v: Option<Raw<'_>>, interner: &mut Interner) -> Option<ArgKey> {
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
    fn is_truthy(self) -> bool {
        !(self.text == names::EMPTY || self.is_number && (self.text == names::ZERO))
    }
}

/// Where DevTools' `getNonResolvedURL` finds an event's URL. An empty or
/// absent URL is [`UrlSource::None`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum UrlSource {
    /// The event has no URL.
    #[default]
    None,
    /// This URL, read from the event's own args.
    Url(Sym),
    /// The URL of the network request with this id (its last
    /// `ResourceSendRequest`'s, if the NetworkRequests handler made a
    /// request of it), from `args.data.requestId`.
    Request(ArgKey),
    /// That of the PaintImage event a `Decode Image` event is tied to
    /// (an index into [`EventUrls`]' paint images).
    PaintImage(u32),
    /// That of the PaintImage event last drawn with this `LazyPixelRef`
    /// (a `Draw LazyPixelRef` event).
    LazyPixelRef(ArgKey),
}

/// What grouping needs of an event: its URL and its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupArgs {
    /// Its URL (`getNonResolvedURL`'s), `None` when it has none.
    pub url: Option<Sym>,
    /// Its frame (`args.beginData.frame` if that is a string, else a
    /// non-empty `args.data.frame`); `None` when empty or absent.
    pub frame: Option<Sym>,
}

/// [`GroupArgs`] as an event gives them, while loading: where its URL is
/// (perhaps in a table that later events fill) and its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PendingGroupArgs {
    /// Where its URL is.
    pub url: UrlSource,
    /// Its frame.
    pub frame: Option<Sym>,
}

/// Whether an event's raw args may hold a field grouping reads: a key
/// ending in `rl` (`url`, `stylesheetUrl`), `frame` or `requestId`, or a
/// `\u` escape (a key written with one). A cheap test, one pass over the
/// quotes and backslashes, that spares decoding the args of most events.
fn may_hold_group_args(args: &str) -> bool {
    let b = args.as_bytes();
    memchr::memchr2_iter(b'"', b'\\', b).any(|i| {
        if b[i] == b'\\' {
            return b.get(i + 1) == Some(&b'u');
        }
        let before = &b[..i];
        before.ends_with(b"rl") || before.ends_with(b"frame") || before.ends_with(b"requestId")
    })
}

/// The URL source of an event's own args, following `getNonResolvedURL`'s
/// order (its first rules that apply; `decode_image` is the PaintImage a
/// `Decode Image` event is tied to). `ph` is the phase the Renderer
/// handler's entry has (`X` for a begin/end pair).
fn url_source(
    name: Sym,
    ph: Phase,
    args: Option<&RawArgs<'_>>,
    data: Option<&RawData<'_>>,
    decode_image: Option<u32>,
    interner: &mut Interner,
) -> UrlSource {
    let url = |s: Option<Sym>| s.map_or(UrlSource::None, UrlSource::Url);
    if name == names::PARSE_AUTHOR_STYLE_SHEET && ph == Phase::COMPLETE && args.is_some() {
        return url(data.and_then(|d| non_empty(d.stylesheet_url, interner)));
    }
    if let Some(stack) = data.and_then(|d| d.stack_trace) {
        // A non-empty array: its first frame's url; a non-empty string has
        // no `url` field at index 0.
        match first_element(stack) {
            Ok(Some(first)) => return url(non_empty(member(Some(first), "url"), interner)),
            Ok(None) => {}
            Err(()) => {
                if string(Some(stack)).is_some_and(|s| !s.is_empty()) {
                    return UrlSource::None;
                }
            }
        }
    }
    if name == names::PARSE_HTML {
        return url(non_empty(member(args.and_then(|a| a.begin_data), "url"), interner));
    }
    if name == names::DECODE_IMAGE {
        return decode_image.map_or(UrlSource::None, UrlSource::PaintImage);
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
        Some(key) if key.is_truthy() => UrlSource::Request(key),
        _ => UrlSource::None,
    }
}

/// The frame of `frameIDForEvent`: `args.beginData.frame` if it is a
/// string (even empty), else `args.data.frame` if truthy.
fn frame_of(args: Option<&RawArgs<'_>>, data: Option<&RawData<'_>>, interner: &mut Interner) -> Option<Sym> {
    if let Some(frame) = string(member(args.and_then(|a| a.begin_data), "frame")) {
        return (!frame.is_empty()).then(|| interner.intern(&frame));
    }
    data.and_then(|d| non_empty(d.frame, interner))
}

/// The ImagePainting and NetworkRequests handlers' part that grouping
/// needs, fed every event in input order as those handlers are.
#[derive(Debug, Default)]
pub(crate) struct UrlTracker {
    urls: EventUrls,
    /// The last PaintImage of each thread, an index into the paint images.
    last_paint_image: Map<(Id, Id), u32>,
    /// The `LazyPixelRef` of each thread's last `Decode LazyPixelRef`
    /// that has one (`None`: one that is not a string or a number).
    last_decode_lazy_pixel_ref: Map<(Id, Id), Option<ArgKey>>,
    /// The URLs of each request's `ResourceSendRequest`s: the first and
    /// the last (`None`: not a string).
    send_requests: Map<ArgKey, (Option<Sym>, Option<Sym>)>,
}

impl UrlTracker {
    /// Takes one event; for a complete, instant or begin event, returns
    /// what grouping needs of it (`None`: no URL and no frame).
    pub(crate) fn on_event(&mut self, event: &Event<'_>, interner: &mut Interner) -> Option<PendingGroupArgs> {
        let name = event.name;
        let sync = matches!(event.ph, Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT);
        let named = matches!(
            name,
            names::PAINT_IMAGE
                | names::DECODE_IMAGE
                | names::DRAW_LAZY_PIXEL_REF
                | names::DECODE_LAZY_PIXEL_REF
                | names::RESOURCE_SEND_REQUEST
        );
        // Other events can only hold a URL or a frame in their args, and
        // most args hold neither.
        let raw = event.args.filter(|a| named || (sync && may_hold_group_args(a)));
        if raw.is_none() && !named {
            return None;
        }
        let args = raw.and_then(RawArgs::of);
        let data = RawData::of(args.as_ref().and_then(|a| a.data));
        let thread = (event.pid, event.tid);
        let mut decode_image = None;
        match name {
            names::PAINT_IMAGE if event.ph == Phase::COMPLETE => {
                let source = url_source(name, event.ph, args.as_ref(), data.as_ref(), None, interner);
                // One per event at most, and events are counted in a u32.
                #[allow(clippy::cast_possible_truncation)]
                let index = self.urls.paint_images.len() as u32;
                self.urls.paint_images.push(source);
                self.last_paint_image.insert(thread, index);
            }
            names::DECODE_LAZY_PIXEL_REF => {
                if let Some(v) = args.as_ref().and_then(|a| a.lazy_pixel_ref) {
                    let key = ArgKey::of(Some(v), interner);
                    self.last_decode_lazy_pixel_ref.insert(thread, key);
                }
            }
            names::DRAW_LAZY_PIXEL_REF => {
                let key = args.as_ref().and_then(|a| a.lazy_pixel_ref);
                let last = self.last_paint_image.get(&thread).copied();
                if let (Some(key), Some(paint)) = (ArgKey::of(key, interner), last) {
                    self.urls.by_lazy_pixel_ref.insert(key, paint);
                }
            }
            // DevTools ties the event object it saw; a begin/end pair's
            // entry is a copy of the begin event, which it never finds.
            names::DECODE_IMAGE if event.ph != Phase::BEGIN => {
                decode_image = self.last_paint_image.get(&thread).copied().or_else(|| {
                    let key = (*self.last_decode_lazy_pixel_ref.get(&thread)?)?;
                    self.urls.by_lazy_pixel_ref.get(&key).copied()
                });
            }
            names::RESOURCE_SEND_REQUEST => {
                if let Some(key) = data.as_ref().and_then(|d| ArgKey::of(d.request_id, interner)) {
                    let url = data.as_ref().and_then(|d| string(d.url)).map(|u| interner.intern(&u));
                    self.send_requests.entry(key).or_insert((url, url)).1 = url;
                }
            }
            _ => {}
        }
        if !sync {
            return None;
        }
        let ph = if event.ph == Phase::BEGIN {
            Phase::COMPLETE
        } else {
            event.ph
        };
        let out = PendingGroupArgs {
            url: url_source(name, ph, args.as_ref(), data.as_ref(), decode_image, interner),
            frame: frame_of(args.as_ref(), data.as_ref(), interner),
        };
        (out != PendingGroupArgs::default()).then_some(out)
    }

    /// The tables, once every event was seen: the requests the
    /// NetworkRequests handler keeps (a first URL of an allowed scheme,
    /// a last one not `data:`), with their last URL.
    pub(crate) fn finish(mut self, interner: &Interner) -> EventUrls {
        const ALLOWED: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];
        for (key, (first, last)) in self.send_requests {
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            let (first_text, last_text) = (interner.resolve(first), interner.resolve(last));
            if !last_text.starts_with("data:") && ALLOWED.iter().any(|p| first_text.starts_with(p)) {
                self.urls.requests.insert(key, last);
            }
        }
        self.urls
    }
}

/// The trace-wide tables an event's [`UrlSource`] may point into.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventUrls {
    /// The URL source of each PaintImage event's own args, in input order.
    paint_images: Vec<UrlSource>,
    /// The PaintImage each `LazyPixelRef` was last drawn with.
    by_lazy_pixel_ref: Map<ArgKey, u32>,
    /// The URL of each network request, by request id.
    requests: Map<ArgKey, Sym>,
}

impl EventUrls {
    /// The URL a source gives, `None` when there is none.
    pub(crate) fn resolve(&self, source: UrlSource) -> Option<Sym> {
        match source {
            UrlSource::PaintImage(index) => self.resolve_own(*self.paint_images.get(index as usize)?),
            UrlSource::LazyPixelRef(key) => {
                let index = *self.by_lazy_pixel_ref.get(&key)?;
                self.resolve_own(*self.paint_images.get(index as usize)?)
            }
            own => self.resolve_own(own),
        }
    }

    /// The [`GroupArgs`] of events as they gave them (sorted by event
    /// index), their URLs looked up; events left with neither a URL nor a
    /// frame are left out.
    pub(crate) fn resolve_all(&self, pending: Vec<(u32, PendingGroupArgs)>) -> Vec<(u32, GroupArgs)> {
        pending
            .into_iter()
            .map(|(event, args)| {
                let resolved = GroupArgs {
                    url: self.resolve(args.url),
                    frame: args.frame,
                };
                (event, resolved)
            })
            .filter(|(_, args)| *args != GroupArgs::default())
            .collect()
    }

    /// The URL of a source read from one event's own args.
    fn resolve_own(&self, source: UrlSource) -> Option<Sym> {
        match source {
            UrlSource::Url(url) => Some(url),
            UrlSource::Request(key) => self.requests.get(&key).copied(),
            UrlSource::None | UrlSource::PaintImage(_) | UrlSource::LazyPixelRef(_) => None,
        }
    }
}
