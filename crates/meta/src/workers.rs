//! The Workers handler (DevTools' `WorkersHandler`): which thread runs
//! which worker, and each worker's script URL, from the
//! `TracingSessionIdForWorker` events Chrome writes when a worker starts.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_f64, as_str, member, member_path};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Skip, Sym, Wants};

use crate::Map;

/// The Workers handler (see the module documentation).
#[derive(Debug, Default)]
pub struct WorkersHandler {
    data: Workers,
}

/// The workers of a trace.
#[derive(Debug, Clone, Default)]
pub struct Workers {
    /// The `TracingSessionIdForWorker` events, in input order.
    pub session_events: Vec<EventIndex>,
    /// The worker each thread runs, by thread id (`None`: the event's
    /// `workerThreadId` or `workerId` was missing).
    pub worker_by_thread: Map<Option<Id>, Option<Sym>>,
    /// Each worker's script URL, by worker id.
    pub url_by_worker: Map<Option<Sym>, Option<Sym>>,
}

impl Handler for WorkersHandler {
    type Deps<'d> = ();
    type Data = Workers;

    const WANTS: Wants = Wants::Named(&[names::TRACING_SESSION_ID_FOR_WORKER]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.data.session_events.push(index);
        let data = event.args.and_then(|a| member(a, "data"));
        let Some(data) = data.filter(|d| tracekit_events::json::js_truthy(d)) else {
            return;
        };
        let thread = member(data, "workerThreadId").and_then(|raw| match as_f64(raw) {
            Some(x) => Some(Id::num(x)),
            None => as_str(raw).map(|s| Id::str(cx.interner.intern(&s))),
        });
        let mut string = |key: &str| {
            let raw = member_path(data, &[key])?;
            let text = as_str(raw);
            if text.is_none() && raw != "null" {
                cx.diagnostics.skip(Skip::WorkersUnreadableSession, || {
                    format!("TracingSessionIdForWorker (event #{index}) whose {key} is {raw}")
                });
            }
            text.map(|s| cx.interner.intern(&s))
        };
        let (worker, url) = (string("workerId"), string("url"));
        self.data.worker_by_thread.insert(thread, worker);
        self.data.url_by_worker.insert(worker, url);
    }

    fn finalize(self, (): (), _cx: &mut Context) -> Workers {
        self.data
    }
}

impl Workers {
    /// This data in the data conformance dump.
    pub fn dump(&self, _dump: &mut Dump<'_>) -> Value {
        let sym = |s: &Option<Sym>| Value::opt(*s, Value::Sym);
        Object::new()
            .with(
                "workerSessionIdEvents",
                Value::events(self.session_events.iter().copied()),
            )
            .with(
                "workerIdByThread",
                Value::Map(
                    self.worker_by_thread
                        .iter()
                        .map(|(t, w)| (Value::opt(*t, Value::id), sym(w)))
                        .collect(),
                ),
            )
            .with(
                "workerURLById",
                Value::Map(self.url_by_worker.iter().map(|(w, u)| (sym(w), sym(u))).collect()),
            )
            .into()
    }
}
