//! The multi-pass engine: one pass over the events feeds every handler
//! (as the loader decodes them, block by block), then each handler
//! finalizes after those it depends on (the order of the registry,
//! `registry.rs`), and their data becomes an [`Analysis`]; a profile on its
//! own is drawn without handlers.

use indexmap::IndexMap;
use tracekit_cpuprofile::{CpuProfileModel, RawProfile};
use tracekit_events::{Context, ErrorKind, Id, LoadError, Micros, Skip, Strings, TopLevel};
use tracekit_meta::Bounds;
use tracekit_renderer::ProcessTracks;

use crate::loader::InputKind;
use crate::model::Diagnostics;
use crate::registry::HandlerData;
pub(crate) use crate::registry::TraceHandlers;

type Map<K, V> = IndexMap<K, V, ahash::RandomState>;

/// The tracks of an analysis by process, in DevTools' order.
pub type ProcessMap = Map<Id, ProcessTracks>;

/// The result of loading one trace or profile: the sync tracks of every
/// process, and what was learnt and skipped on the way. Its accessors and
/// the handles they return ([`Process`](crate::Process),
/// [`Thread`](crate::Thread), [`Node`](crate::Node)) are in `model.rs`.
///
/// ```
/// let trace = br#"[
/// {"name":"process_name","ph":"M","pid":19383,"tid":1,"args":{"name":"Renderer"}},
/// {"name":"thread_name","ph":"M","pid":19383,"tid":19383,"args":{"name":"CrRendererMain"}},
/// {"name":"RunTask","cat":"toplevel","ph":"X","ts":1000,"dur":250,"pid":19383,"tid":19383},
/// {"name":"Layout","cat":"devtools.timeline","ph":"X","ts":1100,"dur":100,"pid":19383,"tid":19383}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// assert_eq!(analysis.kind(), tracekit::InputKind::ChromeTrace);
/// assert_eq!(analysis.bounds().range().to_millis().0, 0.25);
/// let process = analysis.process(19383).unwrap();
/// assert_eq!(process.name(), Some("Renderer"));
/// let thread = process.thread(19383).unwrap();
/// let names: Vec<&str> = thread.nodes().map(|n| n.name()).collect();
/// assert_eq!(names, ["RunTask", "Layout"]);
/// assert!(analysis.diagnostics().is_empty());
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Debug)]
pub struct Analysis {
    /// What the input was.
    pub(crate) kind: InputKind,
    /// The span of the trace, in microseconds.
    pub(crate) bounds: Bounds,
    /// The tracks, by process, in DevTools' order.
    pub(crate) processes: Map<Id, ProcessTracks>,
    /// Whether the tracks keep the events' group args (URLs and frames,
    /// [`AnalyzeOptions::group_args`](tracekit_events::AnalyzeOptions::group_args));
    /// always true of a profile on its own, which has no events.
    pub(crate) group_args: bool,
    /// Whether every handler ran
    /// ([`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub(crate) all_handlers: bool,
    /// The data of the trace's handlers; `None` for inputs that are a
    /// profile on their own.
    pub(crate) handlers: Option<HandlerData>,
    /// The raw `metadata` object of a trace in object form.
    pub(crate) metadata: Option<String>,
    /// The strings the tracks refer to.
    pub(crate) strings: Strings,
    /// What was skipped or repaired.
    pub(crate) diagnostics: Diagnostics,
    /// How many events were read.
    pub(crate) event_count: usize,
    /// Size of the (decompressed) input in bytes.
    pub(crate) input_bytes: usize,
    /// The number of CPU samples of each thread's profile, by process and
    /// thread (every profile read, whether its thread has tracks or not).
    pub(crate) profile_samples: Map<Id, Map<Id, usize>>,
}

impl TraceHandlers {
    /// Finalizes the handlers in dependency order and builds the tracks.
    /// `top_level` holds the trace object's keys besides its events.
    pub(crate) fn finish(
        self,
        mut cx: Context,
        top_level: TopLevel,
        input_bytes: usize,
    ) -> Result<Analysis, LoadError> {
        cx.top_level = top_level;
        let event_count = self.events as usize;
        let (handlers, tracks) = self.finalize_all(&mut cx)?;
        // The handlers read the metadata (the ImagePainting handler its
        // `hostDPR`); the analysis keeps it.
        let metadata = cx.top_level.metadata.take();
        Ok(Analysis {
            kind: InputKind::ChromeTrace,
            bounds: handlers.meta().bounds,
            processes: tracks.processes,
            group_args: cx.options.group_args,
            all_handlers: cx.options.all_handlers,
            handlers: Some(handlers),
            metadata,
            strings: cx.interner.into_strings(),
            diagnostics: Diagnostics(cx.diagnostics),
            event_count,
            input_bytes,
            profile_samples: tracks.profile_samples,
        })
    }
}

/// A profile on its own is drawn as DevTools draws a CPU profile file: one
/// thread (pid 1, tid 1) whose tree is the profile's frames, `(program)`,
/// `(idle)` and `(garbage collector)` included; the bounds are those of
/// the profile.
pub(crate) fn analyze_profile(
    kind: InputKind,
    raw: RawProfile,
    cx: Context,
    input_bytes: usize,
) -> Result<Analysis, LoadError> {
    let Context {
        interner,
        mut diagnostics,
        options,
        ..
    } = cx;
    let (start, end) = profile_span(&raw);
    // DevTools makes a complete event of the profile's span: a zero start
    // does not count for the bounds.
    let bounds = if start != Micros::ZERO {
        Bounds {
            min: start,
            max: start + (end - start),
        }
    } else {
        Bounds::EMPTY
    };
    let mut processes: Map<Id, ProcessTracks> = Map::default();
    let pid = Id::num(1.0);
    let mut profile_samples: Map<Id, Map<Id, usize>> = Map::default();
    let mut process = ProcessTracks {
        url: None,
        is_on_main_frame: false,
        kept_by_devtools: true,
        threads: Map::default(),
    };
    if !raw.nodes.is_empty() {
        match CpuProfileModel::with_parallelism(raw, &mut diagnostics, options.parallelism) {
            Ok(model) => {
                profile_samples.entry(pid).or_default().insert(pid, model.samples.len());
                let track = tracekit_renderer::profile_track(&model, options.max_nodes).map_err(|count| {
                    LoadError::new(
                        ErrorKind::TooManyNodes,
                        format!(
                            "the profile has more than {} track nodes (at least {count})",
                            options.max_nodes
                        ),
                    )
                })?;
                if !track.nodes.is_empty() {
                    process.threads.insert(pid, track);
                }
            }
            Err(e) => diagnostics.skip(Skip::SamplesUnusableProfile, || e.to_string()),
        }
    }
    processes.insert(pid, process);
    Ok(Analysis {
        kind,
        bounds,
        processes,
        group_args: true,
        all_handlers: options.all_handlers,
        handlers: None,
        metadata: None,
        strings: interner.into_strings(),
        diagnostics: Diagnostics(diagnostics),
        event_count: 0,
        input_bytes,
        profile_samples,
    })
}

/// Start and end of a profile, as its fake trace event spans them.
fn profile_span(raw: &RawProfile) -> (Micros, Micros) {
    match (raw.legacy, raw.timestamps.as_deref()) {
        (Some(_), Some([first, .., last])) => (Micros(*first), Micros(*last)),
        (Some(_), Some([only])) => (Micros(*only), Micros(*only)),
        (Some(span), _) => (span.start.to_micros(), span.end.to_micros()),
        (None, _) => (raw.start_time, raw.end_time),
    }
}
