//! The few args of trace events that DevTools' aggregated views (Call Tree,
//! Bottom-Up) read, kept while loading since the events themselves are not:
//!
//! - [`ViewArgs`]: what node ids and transfer sizes need (`TimeStamp` and
//!   the received-data events);
//! - [`GroupArgs`]: what grouping needs, the event's URL (as DevTools'
//!   `getNonResolvedURL` finds it with the handlers' data) and its frame
//!   (`frameIDForEvent`). While loading, an event's URL may point into
//!   what the NetworkRequests and ImagePainting handlers gather (their
//!   request URLs, their ties of `Decode Image` events to PaintImage
//!   events: `tracekit_page::args::UrlSource`); it is looked up there once
//!   they are finalized.

use serde_json::value::RawValue;
use tracekit_events::{names, DevTools, Event, EventIndex, Handler, Interner, Phase, Sym};
use tracekit_page::args::{frame_of, resolve_url, url_source, RawArgs, RawData, UrlSource};
use tracekit_page::{ImagePainting, ImagePaintingHandler, NetworkRequests, NetworkRequestsHandler};

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
pub(crate) fn may_hold_group_args(args: &str) -> bool {
    may_hold_key_ending(args, &[b"rl", b"frame", b"requestId"])
}

/// Whether an event's raw args may hold a URL of its own (a key ending in
/// `rl`, or a `\u` escape): what its third-party entity needs. Two
/// vectorized searches (a value ending in `rl` only costs a decoding).
pub(crate) fn may_hold_url(args: &str) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    // Built once: `memmem::find` builds its searcher at every call, and
    // this runs for most events of a trace.
    static KEY_ENDING: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"rl\""));
    static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
    let b = args.as_bytes();
    KEY_ENDING.find(b).is_some() || ESCAPE.find(b).is_some()
}

/// Whether some quote of `args` closes a string ending with one of
/// `endings`, or `args` has a `\u` escape.
fn may_hold_key_ending(args: &str, endings: &[&[u8]]) -> bool {
    let b = args.as_bytes();
    memchr::memchr2_iter(b'"', b'\\', b).any(|i| {
        if b[i] == b'\\' {
            return b.get(i + 1) == Some(&b'u');
        }
        let before = &b[..i];
        endings.iter().any(|ending| before.ends_with(ending))
    })
}

/// What grouping needs of the event of index `index`, as it gives them
/// (`None`: neither a URL nor a frame, or not a complete, instant or begin
/// event).
pub(crate) fn pending_group_args(
    index: EventIndex,
    event: &Event<'_>,
    devtools: DevTools,
    interner: &mut Interner,
) -> Option<PendingGroupArgs> {
    let name = event.name;
    if !matches!(event.ph, Phase::BEGIN | Phase::COMPLETE | Phase::INSTANT) {
        return None;
    }
    // The events the page handlers read have their args read in full;
    // other events can only hold a URL or a frame in their args, and most
    // args hold neither.
    let named = ImagePaintingHandler::WANTS.includes(name) || NetworkRequestsHandler::WANTS.includes(name);
    let raw = event.args.filter(|a| named || may_hold_group_args(a));
    if raw.is_none() && !named {
        return None;
    }
    let args = raw.and_then(RawArgs::of);
    let data = RawData::of(args.as_ref().and_then(|a| a.data));
    let ph = if event.ph == Phase::BEGIN {
        Phase::COMPLETE
    } else {
        event.ph
    };
    let out = PendingGroupArgs {
        url: url_source(name, ph, index, args.as_ref(), data.as_ref(), devtools, interner),
        frame: frame_of(args.as_ref(), data.as_ref(), interner),
    };
    (out != PendingGroupArgs::default()).then_some(out)
}

/// The [`GroupArgs`] of events as they gave them (sorted by event index),
/// their URLs looked up in what the NetworkRequests and ImagePainting
/// handlers found; events left with neither a URL nor a frame are left
/// out.
pub(crate) fn resolve_all(
    pending: Vec<(u32, PendingGroupArgs)>,
    network: &NetworkRequests,
    images: &ImagePainting,
) -> Vec<(u32, GroupArgs)> {
    pending
        .into_iter()
        .map(|(event, args)| {
            let resolved = GroupArgs {
                url: resolve_url(args.url, network, images),
                frame: args.frame,
            };
            (event, resolved)
        })
        .filter(|(_, args)| *args != GroupArgs::default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefilters_pass_the_args_that_may_hold_what_they_look_for() {
        let url = r#"{"data":{"url":"https://a.test/"}}"#;
        let escaped = r#"{"data":{"\u0075rl":"https://a.test/"}}"#;
        let frame = r#"{"data":{"frame":"F1"}}"#;
        let neither = r#"{"data":{"type":"click"}}"#;
        assert!(may_hold_url(url) && may_hold_url(escaped));
        assert!(!may_hold_url(frame) && !may_hold_url(neither));
        assert!(may_hold_group_args(url) && may_hold_group_args(frame) && may_hold_group_args(escaped));
        assert!(!may_hold_group_args(neither));
    }
}
