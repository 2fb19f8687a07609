//! The one shape every handler has, and the context they share.
//!
//! A handler sees every event of a trace once, in input order
//! ([`Handler::handle_event`]), keeps what it needs (never a reference to
//! the event: the text the event came from is freed block by block), and
//! is then finalized ([`Handler::finalize`]) into its data, after the
//! handlers it depends on. As in the DevTools engine, a new trace gets new
//! handlers (`Default` plays the part of DevTools' `reset`).
//!
//! Unlike DevTools, whose `deps()` is checked at run time, a handler's
//! dependencies are part of its type: [`Handler::Deps`] is what its
//! `finalize` takes (references to the data of the handlers before it), so
//! the finalize order is a fact the compiler checks.

use crate::diag::Diagnostics;
use crate::event::Event;
use crate::prepared::{Prepared, PreparedChunk};
use crate::sym::{Interner, Sym};

/// How per-thread and per-chunk work runs. Only [`Parallelism::Rayon`]
/// starts threads (on rayon's global pool); the result is the same either
/// way, byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parallelism {
    /// Everything on the caller's thread.
    #[default]
    Sequential,
    /// Work spread over rayon's global pool.
    Rayon,
}

impl Parallelism {
    /// Both results of `a` and `b`: run side by side (`rayon::join`) with
    /// [`Parallelism::Rayon`], else one after the other, `a` first.
    pub fn join<A, RA, B, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        RA: Send,
        B: FnOnce() -> RB + Send,
        RB: Send,
    {
        match self {
            Parallelism::Sequential => (a(), b()),
            Parallelism::Rayon => rayon::join(a, b),
        }
    }
}

/// Which DevTools trace engine an analysis gives the same answers as,
/// where two of them differ (see `docs/devtools-versions.md`). The
/// default is the newest; the older ones stay for users who compare with
/// a pinned engine (Lighthouse, `@paulirish/trace_engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DevTools {
    /// June 2026: `@paulirish/trace_engine` 0.0.65, the engine Lighthouse
    /// 13.5 pins.
    V2026_06,
    /// October 2026: devtools-frontend f7e7785, the engine bundled in
    /// `chrome-devtools-mcp` 1.11.0 and the Performance panel of its time.
    #[default]
    V2026_10,
}

impl DevTools {
    /// The newest engine followed, the default.
    pub const LATEST: DevTools = DevTools::V2026_10;
    /// Every engine followed, oldest first.
    pub const ALL: [DevTools; 2] = [DevTools::V2026_06, DevTools::V2026_10];

    /// The engine's short name, as the command line takes it (`2026-10`).
    pub const fn name(self) -> &'static str {
        match self {
            DevTools::V2026_06 => "2026-06",
            DevTools::V2026_10 => "2026-10",
        }
    }

    /// What the engine is, exactly.
    pub const fn description(self) -> &'static str {
        match self {
            DevTools::V2026_06 => "@paulirish/trace_engine 0.0.65",
            DevTools::V2026_10 => "devtools-frontend f7e7785 (chrome-devtools-mcp 1.11.0)",
        }
    }

    /// The engine of this short name.
    pub fn from_name(name: &str) -> Option<DevTools> {
        DevTools::ALL.into_iter().find(|d| d.name() == name)
    }
}

impl std::fmt::Display for DevTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DevTools {}: {}", self.name(), self.description())
    }
}

/// The default [`AnalyzeOptions::max_nodes`]: a thread of this many track
/// nodes takes about 1.5 GB to build.
pub const DEFAULT_MAX_NODES: usize = 20_000_000;

/// What an analysis is asked to do: the defaults, changed with the
/// `with_` methods.
///
/// ```
/// # use tracekit_events::{AnalyzeOptions, Parallelism};
/// let options = AnalyzeOptions::default()
///     .with_all_processes(true)               // also the browser, GPU, ... processes
///     .with_parallelism(Parallelism::Rayon)   // per-thread work on all cores
///     .with_group_args(true);                 // for grouping the views by URL or frame
/// assert!(options.all_processes && options.group_args);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AnalyzeOptions {
    /// Also build the processes DevTools drops (browser, GPU, ...).
    pub all_processes: bool,
    /// Whether per-thread and per-chunk work may use other cores.
    pub parallelism: Parallelism,
    /// The most track nodes one thread may have, rather than unbounded
    /// memory: a trace's thread that would have more is not built (it is
    /// marked and counted, and output that selects it is an error); a
    /// profile on its own that would have more fails the analysis with
    /// [`crate::ErrorKind::TooManyNodes`]. The tracks of a trace's threads
    /// index their nodes by `u32`: above `u32::MAX`, this counts as
    /// `u32::MAX` for them.
    pub max_nodes: usize,
    /// Also keep what the aggregated views' grouping by URL, domain or
    /// frame reads of the events (their URLs and frames, the trace's
    /// request URLs and image ties). It costs some loading time (the args
    /// of events with URLs or frames, often large stack traces, are read),
    /// so it is off unless asked for.
    pub group_args: bool,
    /// Which DevTools engine's answers to give where engines differ.
    pub devtools: DevTools,
    /// Run every handler, also those whose data only the page's outputs
    /// read (network requests, metrics, layout shifts, interactions, user
    /// timings, screenshots, frames, ...), as DevTools'
    /// `createWithAllHandlers` does. Off by default: the tracks and the
    /// views need none of them, and they cost time.
    pub all_handlers: bool,
    /// Also keep the raw `args.data` of the few events whose lines say
    /// what they are (`EvaluateScript` and `ParseHTML` their URL,
    /// `EventDispatch` its type, `ResourceSendRequest` its URL and
    /// priority, `TimerFire` its timer, `FunctionCall` its function), for
    /// the outputs to read when they print them. Off by default: the
    /// conformance dump and the views do not show them.
    pub details: bool,
    /// Give the scripts the source maps an enhanced trace carries
    /// (`metadata.sourceMaps`) and those of `data:` source map URLs, as
    /// DevTools' Performance panel does when it loads a trace file (the
    /// default; the Duplicated JavaScript insight reads them). Off, no
    /// script has a map, as in chrome-devtools-mcp, which hands its engine
    /// none.
    pub trace_source_maps: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            all_processes: false,
            parallelism: Parallelism::Sequential,
            max_nodes: DEFAULT_MAX_NODES,
            group_args: false,
            devtools: DevTools::LATEST,
            all_handlers: false,
            details: false,
            trace_source_maps: true,
        }
    }
}

impl AnalyzeOptions {
    /// These options with [`AnalyzeOptions::all_processes`] set.
    pub fn with_all_processes(mut self, all: bool) -> Self {
        self.all_processes = all;
        self
    }

    /// These options with [`AnalyzeOptions::parallelism`] set.
    pub fn with_parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }

    /// These options with [`AnalyzeOptions::max_nodes`] set.
    pub fn with_max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self
    }

    /// These options with [`AnalyzeOptions::group_args`] set.
    pub fn with_group_args(mut self, keep: bool) -> Self {
        self.group_args = keep;
        self
    }

    /// These options with [`AnalyzeOptions::devtools`] set.
    pub fn with_devtools(mut self, devtools: DevTools) -> Self {
        self.devtools = devtools;
        self
    }

    /// Runs every handler ([`AnalyzeOptions::all_handlers`]).
    pub fn with_all_handlers(mut self, all: bool) -> Self {
        self.all_handlers = all;
        self
    }

    /// These options with [`AnalyzeOptions::trace_source_maps`] set.
    pub fn with_trace_source_maps(mut self, give: bool) -> Self {
        self.trace_source_maps = give;
        self
    }

    /// These options with [`AnalyzeOptions::details`] set.
    pub fn with_details(mut self, keep: bool) -> Self {
        self.details = keep;
        self
    }
}

/// What every handler shares during an analysis: the interned strings,
/// the account of what was skipped, and the options.
#[derive(Debug, Default)]
pub struct Context {
    /// Names, categories and string ids of the trace.
    pub interner: Interner,
    /// Everything skipped or repaired so far.
    pub diagnostics: Diagnostics,
    /// What the analysis was asked to do.
    pub options: AnalyzeOptions,
    /// The keys of the trace object besides its events (its `metadata`,
    /// top-level `samples` and `stackFrames`): known only once every event
    /// was read, so empty while events are handed over and set before the
    /// handlers are finalized.
    pub top_level: crate::TopLevel,
    /// Where the current event's args hold the members several handlers
    /// read ([`Context::args_member`]).
    pub(crate) args_members: ArgsMembers,
    /// The same for the events of the chunk being handed over, found on
    /// the core that scanned it ([`Context::prepare_args_members`]).
    pub(crate) prepared_args_members: Prepared<ArgsMembers>,
}

/// A member of an event's `args` that several handlers read: found once
/// per event for all of them ([`Context::args_member`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsKey {
    /// `args.data`.
    Data,
    /// `args.beginData`.
    BeginData,
    /// `args.stackTrace`.
    StackTrace,
}

impl ArgsKey {
    const ALL: [ArgsKey; 3] = [ArgsKey::Data, ArgsKey::BeginData, ArgsKey::StackTrace];

    fn key(self) -> &'static str {
        match self {
            ArgsKey::Data => "data",
            ArgsKey::BeginData => "beginData",
            ArgsKey::StackTrace => "stackTrace",
        }
    }
}

/// The [`ArgsKey`] members of one event's args, as ranges of its text.
#[derive(Debug, Default)]
pub(crate) struct ArgsMembers {
    /// The event they are of.
    event: Option<EventIndex>,
    found: [Option<std::ops::Range<usize>>; ArgsKey::ALL.len()],
    /// The `frame` member of each, once looked for (ranges of the args'
    /// text too).
    frames: [Option<Option<std::ops::Range<usize>>>; ArgsKey::ALL.len()],
}

impl Context {
    /// A fresh context for one analysis.
    pub fn new(options: AnalyzeOptions) -> Self {
        Context {
            interner: Interner::new(),
            diagnostics: Diagnostics::default(),
            options,
            top_level: crate::TopLevel::default(),
            args_members: ArgsMembers::default(),
            prepared_args_members: Prepared::default(),
        }
    }

    /// The raw member `key` of the args of event `index` (`event`), as
    /// [`crate::json::member`] finds it (the last one; `None` when absent,
    /// or when the args are not an object). A Layout or a FunctionCall is
    /// read by five handlers: their args are walked once for all of them,
    /// not once per handler.
    pub fn args_member<'a>(&mut self, index: EventIndex, event: &Event<'a>, key: ArgsKey) -> Option<&'a str> {
        let args = event.args?;
        if self.args_members.event != Some(index) {
            let found = match self.prepared_args_members.take(index) {
                Some(Some(prepared)) => prepared,
                _ => ArgsMembers::of(args),
            };
            self.args_members = ArgsMembers {
                event: Some(index),
                ..found
            };
        }
        let range = self.args_members.found[key as usize].clone()?;
        Some(&args[range])
    }

    /// The raw `frame` member of [`Context::args_member`]'s member `key`
    /// (as [`crate::json::member`] finds it). The Initiators and
    /// Invalidations handlers both read the frame of the same layouts and
    /// style events: it is looked for once.
    pub fn args_member_frame<'a>(&mut self, index: EventIndex, event: &Event<'a>, key: ArgsKey) -> Option<&'a str> {
        let holder = self.args_member(index, event, key)?;
        let args = event.args?;
        let frame = self.args_members.frames[key as usize].get_or_insert_with(|| frame_range(args, holder));
        frame.clone().map(|range| &args[range])
    }

    /// The [`ArgsKey`] members of the args of `events` whose names `reads`
    /// tells, and the `frame` of their `data` and `beginData`: the walks of
    /// [`Context::args_member`] and [`Context::args_member_frame`], done
    /// beforehand (on the core that scanned the chunk, from
    /// [`EventSink::prepare`](crate::EventSink::prepare)).
    pub fn prepare_args_members(events: &[Event<'_>], reads: impl Fn(Sym) -> bool) -> PreparedChunk {
        Prepared::of_chunk(events, |event| {
            let args = event.args.filter(|_| reads(event.name))?;
            let mut found = ArgsMembers::of(args);
            for key in [ArgsKey::Data, ArgsKey::BeginData] {
                if let Some(range) = found.found[key as usize].clone() {
                    found.frames[key as usize] = Some(frame_range(args, &args[range]));
                }
            }
            Some(found)
        })
    }

    /// Takes what [`Context::prepare_args_members`] found in the chunk
    /// whose first event has index `first`, before its events.
    pub fn take_prepared_args_members(&mut self, first: EventIndex, prepared: PreparedChunk) {
        self.prepared_args_members.set(first, prepared);
    }
}

impl ArgsMembers {
    /// The members of raw `args`, for no event yet.
    fn of(args: &str) -> ArgsMembers {
        let keys = ArgsKey::ALL.map(ArgsKey::key);
        ArgsMembers {
            event: None,
            found: crate::json::member_ranges(args, keys)
                .map_or([const { None }; ArgsKey::ALL.len()], |(found, _)| found),
            frames: [const { None }; ArgsKey::ALL.len()],
        }
    }
}

/// The range in `args` of the `frame` member of `holder`, a member of
/// `args` (as [`crate::json::member`] finds it).
fn frame_range(args: &str, holder: &str) -> Option<std::ops::Range<usize>> {
    let offset = holder.as_ptr() as usize - args.as_ptr() as usize;
    crate::json::member(holder, "frame").map(|frame| {
        let start = offset + (frame.as_ptr() as usize - holder.as_ptr() as usize);
        start..start + frame.len()
    })
}

/// The position of an event in the input, counting only the events that
/// could be read.
pub type EventIndex = u32;

/// Which events a handler is handed (see [`Handler::WANTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wants {
    /// Every event.
    Every,
    /// Only the events of these names.
    Named(&'static [Sym]),
}

impl Wants {
    /// Whether an event of this name is handed over.
    #[inline]
    pub fn includes(self, name: Sym) -> bool {
        match self {
            Wants::Every => true,
            Wants::Named(names) => names.contains(&name),
        }
    }
}

/// Which of up to 64 handlers want an event, by its name: every handler's
/// [`Wants`] folded into one table, so that handing an event over costs
/// one lookup, not a search of each handler's list of names (about a
/// hundred compares per event with every handler).
#[derive(Debug, Clone, Default)]
pub struct WantedBy {
    /// The handlers that want every event.
    every: u64,
    /// Per name in a `Named` list, by its symbol, the handlers that name
    /// it (besides `every`). The lists name known names, interned at the
    /// first symbols, so the table is short.
    by_name: Vec<u64>,
}

impl WantedBy {
    /// Adds handler `slot` (0 to 63), which wants `wants`.
    pub fn add(&mut self, slot: u32, wants: Wants) {
        assert!(slot < u64::BITS, "a handler slot is below 64");
        let bit = 1u64 << slot;
        match wants {
            Wants::Every => self.every |= bit,
            Wants::Named(names) => {
                for name in names {
                    let at = name.0 as usize;
                    if at >= self.by_name.len() {
                        self.by_name.resize(at + 1, 0);
                    }
                    self.by_name[at] |= bit;
                }
            }
        }
    }

    /// The handlers that want an event of this name: bit `slot` of each.
    #[inline]
    pub fn of(&self, name: Sym) -> u64 {
        self.every | self.by_name.get(name.0 as usize).copied().unwrap_or(0)
    }
}

/// A handler of trace events (see the module documentation).
pub trait Handler: Default + Send {
    /// What `finalize` needs from the handlers finalized before this one:
    /// `()` or references to their data.
    type Deps<'d>;
    /// What the handler found, for the handlers after it and for output.
    type Data;

    /// The events [`Handler::handle_event`] is handed: every event, unless
    /// the handler reads only a few names and says which, so that the
    /// others cost it nothing.
    const WANTS: Wants = Wants::Every;

    /// Whether the handler runs for an analysis asked for with `options`:
    /// one that does not is handed no event, and finalizes with none. Data
    /// that only some outputs read is gathered only when asked for, so
    /// that adding a handler does not slow the loading of the tracks alone.
    fn enabled(options: &AnalyzeOptions) -> bool {
        let _ = options;
        true
    }

    /// The work on a chunk of events about to be handed over that needs
    /// none of the handler's state, such as walking the args of the events
    /// it reads in full: with [`Parallelism::Rayon`], done on the core
    /// that scanned the chunk while this thread takes the chunks before
    /// it. What it gives comes back to [`Handler::take_prepared`] just
    /// before the chunk's events (usually a [`Prepared`](crate::prepared::Prepared)'s
    /// [`of_chunk`](crate::prepared::Prepared::of_chunk)); a handler must
    /// give the same data whether or not it ran. The events' names are
    /// still the chunk's own symbols, but the [known names](crate::names)
    /// have their fixed ones. Most handlers have no such work: the default
    /// gives nothing.
    fn prepare(events: &[Event<'_>], options: &AnalyzeOptions) -> Option<PreparedChunk> {
        let _ = (events, options);
        None
    }

    /// Takes what [`Handler::prepare`] gave for the chunk whose first
    /// event has index `first`, before that chunk's events.
    fn take_prepared(&mut self, first: EventIndex, prepared: PreparedChunk) {
        let _ = (first, prepared);
    }

    /// Takes one event, in input order.
    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context);

    /// Turns what the handler gathered into its data.
    fn finalize(self, deps: Self::Deps<'_>, cx: &mut Context) -> Self::Data;
}

/// Feeds every event of a whole trace text to one handler, through the
/// real tokenizer: what the handler crates' tests use. Returns how many
/// events the handler saw.
pub fn feed<H: Handler>(text: &str, handler: &mut H, cx: &mut Context) -> Result<usize, crate::LoadError> {
    struct One<'h, H> {
        handler: &'h mut H,
        seen: EventIndex,
    }
    impl<H: Handler> crate::EventSink for One<'_, H> {
        type Prepared = Option<PreparedChunk>;

        fn prepare(events: &[Event<'_>], options: &AnalyzeOptions) -> Option<PreparedChunk> {
            H::enabled(options).then(|| H::prepare(events, options)).flatten()
        }

        fn take(&mut self, events: &[Event<'_>], prepared: Option<Option<PreparedChunk>>, cx: &mut Context) {
            let enabled = H::enabled(&cx.options);
            if let Some(prepared) = prepared.flatten() {
                self.handler.take_prepared(self.seen, prepared);
            }
            for event in events {
                if enabled && H::WANTS.includes(event.name) {
                    self.handler.handle_event(self.seen, event, cx);
                }
                self.seen += 1;
            }
        }
    }
    let mut sink = One { handler, seen: 0 };
    crate::Tokenizer::run_whole(text.as_bytes(), cx, &mut sink)?;
    Ok(sink.seen as usize)
}

/// `work` done on each item, in parallel with [`Parallelism::Rayon`]
/// (one item a task, the biggest by `size` first, so that no core is left
/// with a big one alone at the end), else in order; the results in the
/// items' order either way.
pub fn map_biggest_first<T: Send, R: Send>(
    items: Vec<T>,
    parallelism: Parallelism,
    size: impl Fn(&T) -> usize,
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    use rayon::prelude::*;
    match parallelism {
        Parallelism::Sequential => items.into_iter().map(work).collect(),
        Parallelism::Rayon => {
            let mut by_size: Vec<(usize, T)> = items.into_iter().enumerate().collect();
            by_size.sort_by_key(|(_, item)| std::cmp::Reverse(size(item)));
            let mut done: Vec<(usize, R)> = by_size
                .into_par_iter()
                .with_max_len(1)
                .map(|(order, item)| (order, work(item)))
                .collect();
            done.sort_unstable_by_key(|(order, _)| *order);
            done.into_iter().map(|(_, result)| result).collect()
        }
    }
}

/// Runs `on_pool` on rayon's pool while `here` runs on this thread, and
/// returns both results. Unlike `rayon::join`, `here` need not be `Send`
/// (a caller's reader, a writer), and it is not stolen by another
/// thread. Only for [`Parallelism::Rayon`].
pub fn join_here<A, RA, B, RB>(on_pool: A, here: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    RA: Send,
    B: FnOnce() -> RB,
{
    let mut pooled = None;
    // The work done on the pool belongs to the caller's stage all the same.
    let caller = tracing::Span::current();
    let here = rayon::in_place_scope(|scope| {
        scope.spawn(|_| {
            let _entered = caller.enter();
            pooled = Some(on_pool());
        });
        here()
    });
    // The scope returns only once the work it spawned is done.
    (pooled.expect("in_place_scope waits for its spawned work"), here)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names;
    use std::sync::Mutex;

    /// A name is wanted by the handlers that want every event and by those
    /// that list it; a name no list has (a known one or one of the trace's
    /// own) only by the first.
    #[test]
    fn wanted_by_folds_every_handlers_names() {
        let mut wanted_by = WantedBy::default();
        wanted_by.add(0, Wants::Named(&[names::LAYOUT, names::PAINT]));
        wanted_by.add(3, Wants::Every);
        wanted_by.add(63, Wants::Named(&[names::PAINT]));
        assert_eq!(wanted_by.of(names::LAYOUT), 1 | 1 << 3);
        assert_eq!(wanted_by.of(names::PAINT), 1 | 1 << 3 | 1 << 63);
        assert_eq!(wanted_by.of(names::RUN_TASK), 1 << 3);
        assert_eq!(wanted_by.of(Sym(u32::MAX)), 1 << 3);
        for name in [names::LAYOUT, names::PAINT, names::RUN_TASK] {
            let listed = [Wants::Named(&[names::LAYOUT, names::PAINT]), Wants::Every];
            let expected = listed.iter().map(|w| w.includes(name)).collect::<Vec<_>>();
            assert_eq!(
                [wanted_by.of(name) & 1 != 0, wanted_by.of(name) & 1 << 3 != 0],
                expected[..]
            );
        }
        assert_eq!(WantedBy::default().of(names::LAYOUT), 0);
    }

    /// Both results, in their places, either way; sequentially, `a` runs
    /// first.
    #[test]
    fn join_gives_both_results() {
        let order = Mutex::new(Vec::new());
        let run = |name: &'static str, value: u32| {
            order.lock().unwrap().push(name);
            value
        };
        assert_eq!(Parallelism::Sequential.join(|| run("a", 1), || run("b", 2)), (1, 2));
        assert_eq!(*order.lock().unwrap(), ["a", "b"]);
        assert_eq!(Parallelism::Rayon.join(|| run("a", 3), || run("b", 4)), (3, 4));
    }

    /// The results come in the items' order; on the pool the work starts
    /// with the biggest (one thread: in that order exactly).
    #[test]
    fn work_goes_biggest_first_and_results_come_in_order() {
        let items = vec![3usize, 10, 1, 7, 7, 2];
        let started = Mutex::new(Vec::new());
        let work = |x: usize| {
            started.lock().unwrap().push(x);
            x * 100
        };
        let expected: Vec<usize> = items.iter().map(|x| x * 100).collect();
        assert_eq!(
            map_biggest_first(items.clone(), Parallelism::Sequential, |x| *x, work),
            expected
        );
        assert_eq!(*started.lock().unwrap(), items);
        started.lock().unwrap().clear();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let on_pool = pool.install(|| map_biggest_first(items.clone(), Parallelism::Rayon, |x| *x, work));
        assert_eq!(on_pool, expected);
        assert_eq!(*started.lock().unwrap(), [10, 7, 7, 3, 2, 1]);
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        assert_eq!(
            three.install(|| map_biggest_first(items, Parallelism::Rayon, |x| *x, work)),
            expected
        );
    }
}

#[cfg(test)]
pub(crate) mod args_member_tests {
    use super::{ArgsKey, Context};
    use crate::json::member;
    use crate::{Event, Id, Micros, Phase};

    /// A complete event with these args and nothing else.
    pub(crate) fn event(args: Option<&str>) -> Event<'_> {
        Event {
            name: crate::names::EMPTY,
            cat: crate::names::EMPTY,
            ph: Phase::COMPLETE,
            ts: Micros::ZERO,
            dur: None,
            pid: Id::MISSING,
            tid: Id::MISSING,
            id: None,
            args,
            sample_trace_id: None,
            text: "",
        }
    }

    #[test]
    fn finds_the_members_as_member_does_once_per_event() {
        let mut cx = Context::default();
        let cases = [
            r#"{"data": {"frame": "F"}, "beginData": 1, "stackTrace": [2], "data": {"url": "u"}}"#,
            r#" { "x": {"data": 3} } "#,
            r#"[{"data": 1}]"#,
            r#"{"beginData": null, "data""#,
            "{}",
        ];
        for (index, args) in (0u32..).zip(cases) {
            let ev = event(Some(args));
            for key in ArgsKey::ALL {
                let found = cx.args_member(index, &ev, key);
                assert_eq!(found, member(args, key.key()), "{args} {key:?}");
            }
        }
        assert_eq!(cx.args_member(9, &event(None), ArgsKey::Data), None);
        // A new event index, a new walk.
        let (first, second) = (event(Some(r#"{"data": 1}"#)), event(Some(r#"{"data": 2}"#)));
        assert_eq!(cx.args_member(10, &first, ArgsKey::Data), Some("1"));
        assert_eq!(cx.args_member(11, &second, ArgsKey::Data), Some("2"));
    }

    #[test]
    fn finds_the_frame_of_a_member_as_member_does_once_per_event() {
        let mut cx = Context::default();
        let cases = [
            r#"{"data": {"frame": "F", "frame": "G"}, "beginData": {"x": 1, "frame": "B"}}"#,
            r#"{"data": {"url": "u"}, "beginData": "frame"}"#,
            r#"{"data": [{"frame": "F"}], "beginData": null}"#,
            r#"{"stackTrace": {"frame": 1}}"#,
        ];
        for (index, args) in (0u32..).zip(cases) {
            let ev = event(Some(args));
            for key in ArgsKey::ALL {
                let expected = member(args, key.key()).and_then(|holder| member(holder, "frame"));
                // Twice: the second from the first's memo.
                assert_eq!(cx.args_member_frame(index, &ev, key), expected, "{args} {key:?}");
                assert_eq!(cx.args_member_frame(index, &ev, key), expected, "{args} {key:?}");
            }
        }
        assert_eq!(
            cx.args_member_frame(9, &event(Some(cases[0])), ArgsKey::Data),
            Some(r#""G""#)
        );
        assert_eq!(cx.args_member_frame(10, &event(Some(cases[1])), ArgsKey::Data), None);
        assert_eq!(cx.args_member_frame(11, &event(None), ArgsKey::Data), None);
    }

    /// The members and frames prepared beforehand are those found as each
    /// event is taken; an event whose name was not read, or past the
    /// chunk, is walked then.
    #[test]
    fn prepared_members_are_those_found_as_the_events_are_taken() {
        let cases = [
            r#"{"data": {"frame": "F", "frame": "G"}, "beginData": {"x": 1, "frame": "B"}}"#,
            r#"{"data": {"url": "u"}, "beginData": "frame", "stackTrace": [1]}"#,
            r#"{"data": [{"frame": "F"}], "beginData": null}"#,
            r#"[{"data": 1}]"#,
            r#"{"beginData": null, "data""#,
        ];
        let mut events: Vec<Event<'_>> = cases.iter().map(|args| event(Some(args))).collect();
        events.push(event(None));
        // The first is not read beforehand.
        events[0].name = crate::names::RUN_TASK;
        let prepared = Context::prepare_args_members(&events, |name| name != crate::names::RUN_TASK);
        let mut cx = Context::default();
        cx.take_prepared_args_members(20, prepared);
        let mut fresh = Context::default();
        for (index, ev) in (20u32..).zip(events.iter().chain([&event(Some(cases[0]))])) {
            for key in ArgsKey::ALL {
                assert_eq!(
                    cx.args_member(index, ev, key),
                    fresh.args_member(index, ev, key),
                    "{index} {key:?}"
                );
                assert_eq!(
                    cx.args_member_frame(index, ev, key),
                    fresh.args_member_frame(index, ev, key),
                    "{index} {key:?}"
                );
            }
        }
        assert!(cx.prepared_args_members.is_empty(), "every prepared event taken");
    }
}
