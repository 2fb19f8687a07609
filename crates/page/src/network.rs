//! The NetworkRequests handler, as far as tracekit reads it so far: the
//! URL of each network request, by request id, from its
//! `ResourceSendRequest` events (DevTools' `NetworkRequestsHandler` keeps
//! a request whose first URL has an allowed scheme and whose last is not
//! a `data:` URL, with its last URL). The aggregated views' grouping by
//! URL looks events up there by their `args.data.requestId`.

use tracekit_events::{names, Context, Event, EventIndex, Handler, Interner, Sym, Wants};

use crate::args::{string, ArgKey, RawArgs, RawData};
use crate::Map;

/// The schemes a request's first URL may have for DevTools to keep it.
const ALLOWED_SCHEMES: [&str; 5] = ["blob:", "file:", "filesystem:", "http:", "https:"];

/// The NetworkRequests handler (see the module documentation).
#[derive(Debug, Default)]
pub struct NetworkRequestsHandler {
    /// The URLs of each request's `ResourceSendRequest`s: the first and
    /// the last (`None`: not a string).
    send_requests: Map<ArgKey, (Option<Sym>, Option<Sym>)>,
}

/// The network requests of a trace.
#[derive(Debug, Clone, Default)]
pub struct NetworkRequests {
    /// The URL of each request kept, by request id.
    urls: Map<ArgKey, Sym>,
}

impl NetworkRequests {
    /// The URL of the request with this id, if DevTools keeps the request.
    pub fn url(&self, request_id: ArgKey) -> Option<Sym> {
        self.urls.get(&request_id).copied()
    }

    /// How many requests are kept.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no request is kept.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }
}

impl Handler for NetworkRequestsHandler {
    type Deps<'d> = ();
    type Data = NetworkRequests;

    const WANTS: Wants = Wants::Named(&[names::RESOURCE_SEND_REQUEST]);

    /// Only grouping by URL reads the requests so far: they are gathered
    /// when the analysis keeps the group args.
    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.group_args
    }

    fn handle_event(&mut self, _index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_send_request(event, &mut cx.interner);
    }

    fn finalize(self, (): (), cx: &mut Context) -> NetworkRequests {
        let strings = &cx.interner;
        let mut urls = Map::default();
        for (key, (first, last)) in self.send_requests {
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            let (first_text, last_text) = (strings.resolve(first), strings.resolve(last));
            if !last_text.starts_with("data:") && ALLOWED_SCHEMES.iter().any(|p| first_text.starts_with(p)) {
                urls.insert(key, last);
            }
        }
        NetworkRequests { urls }
    }
}

impl NetworkRequestsHandler {
    /// Keeps a `ResourceSendRequest`'s URL under its request id.
    fn on_send_request(&mut self, event: &Event<'_>, interner: &mut Interner) {
        let args = event.args.and_then(RawArgs::of);
        let data = RawData::of(args.as_ref().and_then(|a| a.data));
        if let Some(key) = data.as_ref().and_then(|d| ArgKey::of(d.request_id, interner)) {
            let url = data.as_ref().and_then(|d| string(d.url)).map(|u| interner.intern(&u));
            self.send_requests.entry(key).or_insert((url, url)).1 = url;
        }
    }
}
