//! Auction worklet processes (FLEDGE). DevTools 2026-06 kept them even
//! though no frame gives them a URL, their URL being the worklet's host;
//! DevTools 2026-10 has no such handler, and drops them as any process
//! without a URL.

use indexmap::IndexMap;
use serde::Deserialize;
use tracekit_events::{names, AnalyzeOptions, Context, DevTools, Event, EventIndex, Handler, Id, Skip, Sym};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

#[derive(Deserialize)]
struct WorkletArgs {
    data: Option<WorkletData>,
}

#[derive(Deserialize)]
struct WorkletData {
    pid: Option<f64>,
    host: Option<String>,
}

/// The auction worklets handler: which processes are auction worklets,
/// and their hosts.
#[derive(Debug, Default)]
pub struct AuctionWorkletsHandler {
    running: Map<Id, Option<Sym>>,
    done: Map<Id, Option<Sym>>,
    utility_threads: Map<Id, ()>,
    v8_helper_threads: Map<Id, ()>,
}

/// The worklet processes found, by pid, with their host.
#[derive(Debug, Clone, Default)]
pub struct AuctionWorklets {
    /// The host of each worklet process (`None` when its events gave none).
    pub hosts: Map<Id, Option<Sym>>,
}

impl Handler for AuctionWorkletsHandler {
    type Deps<'d> = ();
    type Data = AuctionWorklets;

    /// Only DevTools 2026-06 had it: today's finds no worklet (and counts
    /// no unreadable worklet event).
    fn enabled(options: &AnalyzeOptions) -> bool {
        options.devtools == DevTools::V2026_06
    }

    fn handle_event(&mut self, _index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let interner = &mut cx.interner;
        let target = match event.name {
            names::AUCTION_WORKLET_RUNNING_IN_PROCESS => &mut self.running,
            names::AUCTION_WORKLET_DONE_WITH_PROCESS => &mut self.done,
            names::THREAD_NAME => {
                match crate::args::name_arg(event, interner).map(|s| interner.resolve(s)) {
                    Some("auction_worklet.CrUtilityMain") => {
                        self.utility_threads.insert(event.pid, ());
                    }
                    Some("AuctionV8HelperThread") => {
                        self.v8_helper_threads.insert(event.pid, ());
                    }
                    _ => {}
                }
                return;
            }
            _ => return,
        };
        let parsed = event.args.map(serde_json::from_str::<WorkletArgs>);
        match parsed {
            Some(Ok(WorkletArgs { data: Some(data) })) => {
                let pid = data.pid.map_or(Id::MISSING, Id::num);
                target.insert(pid, data.host.map(|h| interner.intern(&h)));
            }
            _ => cx
                .diagnostics
                .skip(Skip::MetaUnreadableWorklet, || format!("at ts {}", event.ts.0)),
        }
    }

    /// A worklet process has both its utility and its V8 helper thread, and
    /// said it ran (or finished) in that process.
    fn finalize(self, (): (), _cx: &mut Context) -> AuctionWorklets {
        let mut hosts = Map::default();
        for pid in self.utility_threads.keys() {
            if !self.v8_helper_threads.contains_key(pid) {
                continue;
            }
            if let Some(host) = self.running.get(pid).or_else(|| self.done.get(pid)) {
                hosts.insert(*pid, *host);
            }
        }
        AuctionWorklets { hosts }
    }
}
