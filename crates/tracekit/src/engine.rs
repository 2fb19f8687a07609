//! The multi-pass engine: one pass over the events feeds every handler,
//! then each handler finalizes after those it depends on
//! (Meta, then Samples, then Renderer).

use indexmap::IndexMap;
use tracekit_events::{Diagnostics, Id, Interner};
use tracekit_meta::{Bounds, MetaData, MetaHandler};
use tracekit_renderer::{NodeKind, Parallelism, ProcessTracks, RendererHandler, ThreadTrack, TrackNode};
use tracekit_samples::{profile_only_tree, SamplesHandler};

use crate::input::{InputKind, Trace};

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

#[derive(Debug, Clone, Copy, Default)]
pub struct AnalyzeOptions {
    /// Also build the processes DevTools drops (browser, GPU, ...).
    pub all_processes: bool,
    pub parallelism: Parallelism,
}

/// The result: the sync tracks of every process, and what was learnt and
/// skipped on the way.
#[derive(Debug)]
pub struct Analysis {
    pub kind: InputKind,
    pub bounds: Bounds,
    pub processes: Map<Id, ProcessTracks>,
    /// `None` for inputs that are a profile on their own.
    pub meta: Option<MetaData>,
    pub interner: Interner,
    pub diagnostics: Diagnostics,
    pub event_count: usize,
}

/// Runs the handlers over a parsed trace and builds its tracks.
pub fn analyze(trace: Trace<'_>, options: &AnalyzeOptions) -> Analysis {
    match trace.kind {
        InputKind::ChromeTrace => analyze_trace(trace, options),
        InputKind::CpuProfile | InputKind::SelfProfiling => analyze_profile(trace),
    }
}

fn analyze_trace(trace: Trace<'_>, options: &AnalyzeOptions) -> Analysis {
    let Trace {
        kind,
        events,
        mut interner,
        mut diagnostics,
        ..
    } = trace;
    let mut meta = MetaHandler::new();
    let mut samples = SamplesHandler::new();
    let mut renderer = RendererHandler::new();
    {
        let _span = tracing::info_span!("handlers").entered();
        for (index, event) in events.iter().enumerate() {
            meta.handle_event(event, &mut interner, &mut diagnostics);
            samples.handle_event(event, &mut interner, &mut diagnostics);
            renderer.handle_event(index as u32, event, &mut diagnostics);
        }
    }
    let meta = meta.finalize();
    if meta.devtools_refuses {
        diagnostics.diverge("old-chrome-without-frames", || {
            "TracingStartedInBrowser without args.data".to_owned()
        });
        diagnostics.warn(
            "DevTools refuses this trace (TracingStartedInBrowser without frame data, as Chrome 65 and 66 wrote): loaded as a generic trace, every process kept",
        );
    }
    let samples = {
        let _span = tracing::info_span!("profiles").entered();
        samples.finalize(false, &mut diagnostics)
    };
    let tracks = {
        let _span = tracing::info_span!("trees").entered();
        renderer.finalize(
            &events,
            &meta,
            &samples,
            &interner,
            options.all_processes,
            options.parallelism,
            &mut diagnostics,
        )
    };
    Analysis {
        kind,
        bounds: meta.bounds,
        processes: tracks.processes,
        meta: Some(meta),
        interner,
        diagnostics,
        event_count: events.len(),
    }
}

/// A profile on its own is drawn as DevTools draws a CPU profile file: one
/// thread (pid 1, tid 1) whose tree is the profile's frames, `(program)`,
/// `(idle)` and `(garbage collector)` included; the bounds are those of
/// the profile.
fn analyze_profile(trace: Trace<'_>) -> Analysis {
    let Trace {
        kind,
        profile,
        interner,
        mut diagnostics,
        ..
    } = trace;
    let raw = profile.unwrap_or_default();
    let (start, end) = profile_span(&raw);
    // DevTools makes a complete event of the profile's span: a zero start
    // does not count for the bounds.
    let bounds = if start != 0.0 {
        Bounds {
            min: start,
            max: start + (end - start),
        }
    } else {
        Bounds {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    };
    let mut processes: Map<Id, ProcessTracks> = Map::default();
    let pid = Id::num(1.0);
    let mut process = ProcessTracks {
        url: None,
        is_on_main_frame: false,
        kept_by_devtools: true,
        threads: Map::default(),
    };
    if !raw.nodes.is_empty() {
        match tracekit_cpuprofile::CpuProfileModel::new(raw, &mut diagnostics) {
            Ok(model) => {
                let nodes: Vec<TrackNode> = profile_only_tree(&model)
                    .into_iter()
                    .map(|n| {
                        let node = model.node(n.node);
                        TrackNode {
                            kind: NodeKind::Call {
                                frame: node.call_frame,
                                node_id: node.id,
                            },
                            depth: n.depth.max(0) as u32,
                            ts: n.ts,
                            dur: Some(n.dur),
                            self_time: n.self_time,
                        }
                    })
                    .collect();
                if !nodes.is_empty() {
                    process.threads.insert(pid, ThreadTrack { name: None, nodes });
                }
            }
            Err(e) => diagnostics.skip("samples: unusable profile", || e.to_string()),
        }
    }
    processes.insert(pid, process);
    Analysis {
        kind,
        bounds,
        processes,
        meta: None,
        interner,
        diagnostics,
        event_count: 0,
    }
}

/// Start and end of a profile in microseconds, as its fake trace event
/// spans them.
fn profile_span(raw: &tracekit_cpuprofile::RawProfile) -> (f64, f64) {
    if raw.legacy {
        match raw.timestamps.as_deref() {
            Some([first, .., last]) => (*first, *last),
            Some([only]) => (*only, *only),
            _ => (raw.start_time * 1e6, raw.end_time * 1e6),
        }
    } else {
        (raw.start_time, raw.end_time)
    }
}
