//! Finalizing the Renderer handler: who each process is (its URL, whether
//! it renders the main frame, whether DevTools keeps it), each thread's
//! name, then each thread's track built ([`crate::thread_tree`]) and
//! gathered into the [`RendererData`].

use tracekit_events::{names, Context, DevTools, Handler, Id, Interner, LoadError, Sym};
use tracekit_meta::{AuctionWorklets, MetaData};

use crate::entities::ThreadEntities;
use crate::thread_tree::{build_threads, BuiltThread, ThreadJob};
use crate::{view_args, Map, ProcessTracks, RendererData, RendererHandler, ThreadTrack};

impl RendererHandler {
    /// Builds the tracks: who each process is, then each thread's tree, in
    /// parallel where allowed; with `all_processes`, also the processes
    /// DevTools drops (marked `kept_by_devtools: false`).
    pub(crate) fn into_data(
        mut self,
        (meta, mut samples, worklets, network, images): <Self as Handler>::Deps<'_>,
        cx: &mut Context,
    ) -> Result<RendererData, LoadError> {
        let profile_samples = samples
            .profiles
            .iter()
            .map(|(pid, threads)| {
                let counts = threads.iter().map(|(tid, p)| (*tid, p.model.samples.len())).collect();
                (*pid, counts)
            })
            .collect();
        // Threads with a profile made of top-level samples are drawn even
        // without trace events of their own.
        for (pid, threads) in &samples.profiles {
            for (tid, profile) in threads {
                if profile.from_trace_samples {
                    self.thread(*pid, *tid);
                }
            }
        }
        let identities = self.identify_processes(meta, worklets, &cx.interner);
        let names_by_thread = self.thread_names(meta, &cx.interner);
        if cx.options.devtools >= DevTools::V2026_10 {
            // Every profiled thread of a process with a track has one too,
            // after the named threads (a WebAssembly thread may have only
            // samples).
            for (pid, threads) in &samples.profiles {
                if let Some(process) = self.processes.get_mut(pid) {
                    for tid in threads.keys() {
                        process.threads.entry(*tid).or_default();
                    }
                }
            }
        }
        let keep_dropped = cx.options.all_processes;
        let mut jobs = Vec::new();
        for (pid, process) in self.processes.iter_mut() {
            if !identities[pid].kept && !keep_dropped {
                continue;
            }
            for (tid, thread) in process.threads.iter_mut() {
                jobs.push(ThreadJob {
                    pid: *pid,
                    tid: *tid,
                    entries: std::mem::take(&mut thread.entries),
                    profile: samples.profiles.get_mut(pid).and_then(|p| p.swap_remove(tid)),
                });
            }
        }
        // The profiles of threads without tracks.
        drop(samples);
        let built = build_threads(jobs, meta, cx);

        let mut built = built.into_iter();
        let mut entity_by_url = ahash::AHashMap::new();
        let mut data = RendererData {
            processes: Map::default(),
            profile_samples,
        };
        for (pid, process) in self.processes {
            let identity = identities[&pid];
            if !identity.kept && !keep_dropped {
                continue;
            }
            let mut tracks = ProcessTracks {
                url: identity.url,
                is_on_main_frame: identity.is_on_main_frame,
                kept_by_devtools: identity.kept,
                threads: Map::default(),
            };
            for (tid, thread) in process.threads {
                let Some(BuiltThread {
                    nodes,
                    js_frames,
                    samples,
                    call_samples,
                    off_tree,
                    diagnostics,
                    over_budget,
                }) = built.next()
                else {
                    break;
                };
                cx.diagnostics.merge(diagnostics);
                if nodes.is_empty() && over_budget.is_none() {
                    continue;
                }
                let entities = if cx.options.all_handlers {
                    let urls = thread.entity_urls;
                    let mut entities =
                        ThreadEntities::resolve(call_samples, &js_frames, urls, &mut entity_by_url, &mut cx.interner);
                    entities.off_tree = off_tree;
                    entities
                } else {
                    ThreadEntities::default()
                };
                tracks.threads.insert(
                    tid,
                    ThreadTrack {
                        name: names_by_thread.get(&(pid, tid)).cloned(),
                        nodes,
                        js_frames,
                        samples,
                        view_args: thread.view_args,
                        group_args: view_args::resolve_all(thread.group_args, network, images),
                        over_budget,
                        entities,
                        details: thread.details,
                        dom_updates: thread.dom_updates,
                    },
                );
            }
            data.processes.insert(pid, tracks);
        }
        Ok(data)
    }

    /// Each process's URL (its first frame's valid URL, where an
    /// about:blank one gives way to the next; a worklet's host, for
    /// DevTools 2026-06, the only one that finds worklets), whether it
    /// renders the main frame, and whether DevTools keeps it (not when it
    /// has no URL, in a trace DevTools recorded). Every process that
    /// rendered a frame is added.
    fn identify_processes(
        &mut self,
        meta: &MetaData,
        worklets: &AuctionWorklets,
        interner: &Interner,
    ) -> Map<Id, ProcessIdentity> {
        let mut identities: Map<Id, ProcessIdentity> = Map::default();
        for pid in self.processes.keys() {
            identities.insert(*pid, ProcessIdentity::default());
        }
        for by_process in meta.renderer_processes_by_frame.values() {
            for (pid, windows) in by_process {
                for window in windows {
                    self.processes.entry(*pid).or_default();
                    let url = &mut identities.entry(*pid).or_default().url;
                    if url.is_none() || url.map(|u| interner.resolve(u)) == Some("about:blank") {
                        *url = window.frame.url.filter(|u| is_valid_url(interner.resolve(*u)));
                    }
                }
            }
        }
        let main_frame = meta.main_frame_id.unwrap_or(names::EMPTY);
        for (frame, by_process) in &meta.renderer_processes_by_frame {
            for pid in by_process.keys() {
                self.processes.entry(*pid).or_default();
                let identity = identities.entry(*pid).or_default();
                if *frame == Some(main_frame) {
                    identity.is_on_main_frame = true;
                }
            }
        }
        for (pid, identity) in identities.iter_mut() {
            identity.kept = meta.trace_is_generic || identity.url.is_some() || worklets.hosts.contains_key(pid);
        }
        for (pid, host) in &worklets.hosts {
            if let Some(identity) = identities.get_mut(pid) {
                if identity.url.is_none() {
                    identity.url = *host;
                }
            }
        }
        identities
    }

    /// The name of each thread with `thread_name` metadata (its id when the
    /// metadata gave no name); such threads are added to their process.
    fn thread_names(&mut self, meta: &MetaData, interner: &Interner) -> Map<(Id, Id), String> {
        let mut names_by_thread: Map<(Id, Id), String> = Map::default();
        for (pid, process) in self.processes.iter_mut() {
            let Some(threads) = meta.threads_in_process.get(pid) else {
                continue;
            };
            for (tid, name) in threads {
                process.threads.entry(*tid).or_default();
                let name = match name {
                    Some(sym) => interner.resolve(*sym).to_owned(),
                    None => tid.to_js_string(interner),
                };
                names_by_thread.insert((*pid, *tid), name);
            }
        }
        names_by_thread
    }
}

/// Who a process is, as DevTools sees it.
#[derive(Debug, Clone, Copy, Default)]
struct ProcessIdentity {
    url: Option<Sym>,
    is_on_main_frame: bool,
    /// DevTools keeps the process.
    kept: bool,
}

/// Whether the WHATWG URL parser (JavaScript's `new URL`) accepts `s`.
fn is_valid_url(s: &str) -> bool {
    url::Url::parse(s).is_ok()
}
