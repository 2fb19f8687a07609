//! What the loader and the handlers skipped or repaired, so that nothing is
//! dropped silently: every skip has a named reason ([`Skip`], like the rows
//! of Perfetto's stats table), a count and its first example.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

macro_rules! reasons {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$doc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        $vis enum $name {
            $($(#[$doc])* $variant,)*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The stable text printed for this value (`--stats`, JSON).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        // Ordered by their text, so that reports list them alphabetically.
        impl Ord for $name {
            fn cmp(&self, other: &Self) -> Ordering {
                self.as_str().cmp(other.as_str())
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
    };
}

reasons! {
    /// Why something of the input was skipped. The text of each reason is
    /// stable: tests and users match on it.
    pub enum Skip {
        /// An event object without a `name`.
        EventMissingName => "event: missing name",
        /// An event without a `ts` (other than metadata events).
        EventMissingTs => "event: missing ts",
        /// An element of the event array that is not a readable event object.
        EventNotAnObject => "event: not a valid event object",
        /// A `TracingStartedInBrowser` whose args could not be read.
        MetaUnreadableTracingStarted => "meta: unreadable args of TracingStartedInBrowser",
        /// A `FrameCommittedInBrowser` whose args could not be read.
        MetaUnreadableFrameCommitted => "meta: unreadable args of FrameCommittedInBrowser",
        /// A `CommitLoad` whose args could not be read.
        MetaUnreadableCommitLoad => "meta: unreadable args of CommitLoad",
        /// A `SoftNavigationStart` without `args.context`.
        MetaUnreadableSoftNavigation => "meta: SoftNavigationStart without args.context",
        /// A `DidCommitSameDocumentNavigation` without `args.render_frame_host`.
        MetaUnreadableSameDocumentNavigation => "meta: DidCommitSameDocumentNavigation without args.render_frame_host",
        /// A `PaintTimingVisualizer::Viewport` without a readable
        /// `args.data.viewport_rect`.
        MetaUnreadableViewport => "meta: PaintTimingVisualizer::Viewport without a readable viewport_rect",
        /// An auction worklet event whose args could not be read.
        MetaUnreadableWorklet => "meta: unreadable auction worklet event",
        /// A `TracingSessionIdForWorker` whose worker id or URL is not a
        /// string.
        WorkersUnreadableSession => "workers: TracingSessionIdForWorker with a worker id or URL that is not a string",
        /// A `DOMStats` event without `args.data` (DevTools would fail on
        /// the whole trace).
        DomStatsWithoutData => "DOM stats: DOMStats event without args.data",
        /// An `UpdateLayoutTree` without args (DevTools' Invalidations
        /// handler would fail on the whole trace).
        InvalidationsRecalcWithoutArgs => "invalidations: UpdateLayoutTree without args",
        /// An `EventTiming` begin whose `type` or `interactionId` is of
        /// another type (no interaction is made of it).
        TimelineUnreadableInteraction => "timeline: EventTiming begin whose type or interactionId is not a string or number",
        /// A `SetLayerTreeId`, `Paint` or `BeginMainThreadFrame` without
        /// `args.data` (which DevTools' frame model reads, and throws on):
        /// read as if its members were absent.
        FramesArgsWithoutData => "frames: SetLayerTreeId, Paint or BeginMainThreadFrame without args.data",
        /// A network or web socket event without `args.data`, or whose
        /// request id or identifier is not a string or a number (DevTools
        /// throws, or keys it by the object).
        NetworkUnreadableEvent => "network: event without args.data or a usable request id",
        /// A network request whose URL is not a string (DevTools throws).
        NetworkRequestWithoutUrl => "network: request whose URL is not a string",
        /// A navigation of a frame the trace gives no renderer process
        /// (or of no frame): DevTools leaves it out.
        MetaNavigationOfUnknownFrame => "meta: navigation of an unknown frame, or of no frame",
        /// A measure's or console timing's end without a begin before it,
        /// or a begin never ended (DevTools leaves them out).
        UserTimingUnpaired => "user timings: measure or console timing end without a begin before it, or begin never ended",
        /// A `performance.mark` or `measure` whose `detail` is a string
        /// that is not JSON, or whose `devtools` member is no valid
        /// extension payload: no extension entry is made of it.
        ExtensionMalformedDetail => "extensions: user timing detail that is not JSON, or whose devtools payload is not valid",
        /// A `console.timeStamp` whose `start` or `end` names no earlier
        /// time stamp: placed at its own time, or left out (as DevTools
        /// does) when only its `end` is found.
        ExtensionUnresolvedTimeStamp => "extensions: console.timeStamp whose start or end names no earlier time stamp",
        /// A `StyleInvalidatorInvalidationTracking` or
        /// `StyleRecalcInvalidationTracking` without `args.data` (DevTools
        /// throws on it).
        SelectorStatsWithoutData => "selector stats: invalidation tracking event without args.data (DevTools throws)",
        /// A `FireIdleCallback` without `args.data` (DevTools throws on it).
        WarningsIdleCallbackWithoutData => "warnings: FireIdleCallback without args.data (DevTools throws)",
        /// Events of a request id without any `ResourceSendRequest`.
        NetworkRequestWithoutSend => "network: request events without a ResourceSendRequest",
        /// A page load event DevTools cannot place (an FCP, FP or LCP
        /// without a navigation id, a DOMContentLoaded or load without a
        /// frame, an LCP candidate without a candidate index, an
        /// `InteractiveTime` without its args): DevTools throws on it.
        MetricsUnplaceableEvent => "page load metrics: event without the navigation, frame or index DevTools needs (DevTools throws)",
        /// A `SoftNavigationStart` without `args.context`: DevTools throws
        /// on it.
        MetricsSoftNavigationWithoutContext => "page load metrics: SoftNavigationStart without args.context (DevTools throws)",
        /// A legacy `Screenshot` without args: DevTools throws on it.
        ScreenshotWithoutArgs => "screenshots: legacy Screenshot without args (DevTools throws)",
        /// A script rundown event (`ScriptCatchup`, `LargeScriptCatchup`,
        /// `ScriptCompiled`) without `args.data`, or whose script id,
        /// isolate, URL, frame or source text is of a type DevTools does
        /// not expect (the script is not made, or the member is left out).
        ScriptsUnreadableEvent => "scripts: rundown event without args.data, or with a member of an unexpected type",
        /// A script described by no `ScriptCatchup` event, or with no
        /// source text, or whose source map URL DevTools cannot resolve
        /// (counted; the script is kept as DevTools keeps it).
        ScriptsIncomplete => "scripts: script without its description or source, or with an unresolvable source map URL",
        /// A `PaintImage` without `args.data` (DevTools throws on it).
        ImagesPaintWithoutData => "images: PaintImage without args.data (DevTools throws)",
        /// A `PaintImage` whose URL, or a `LazyPixelRef`, is neither a
        /// string nor a number (DevTools would key its map by that value).
        ImagesUnreadableKey => "images: PaintImage URL or LazyPixelRef that is not a string or a number",
        /// A `ProfileChunk` whose args could not be read.
        SamplesUnreadableChunk => "samples: unreadable ProfileChunk",
        /// A `CpuProfile` event without its profile.
        SamplesCpuProfileWithoutData => "samples: CpuProfile event without args.data.cpuProfile",
        /// A `CpuProfile` event whose profile could not be read.
        SamplesUnreadableCpuProfile => "samples: unreadable CpuProfile",
        /// Chunks whose sample and time delta lists differ in length.
        SamplesUnevenChunks => "samples: profile with more samples than time deltas or fewer",
        /// Profile chunks that no `Profile` event introduced.
        SamplesChunksWithoutHead => "samples: profile chunks without a Profile head",
        /// A profile the model could not be built from.
        SamplesUnusableProfile => "samples: unusable profile",
        /// A top-level `stackFrames` entry whose parents form a cycle.
        TraceSamplesFrameCycle => "trace samples: stack frame parents form a cycle",
        /// A top-level `stackFrames` entry that is not an object.
        TraceSamplesFrameNotAnObject => "trace samples: stack frame is not an object",
        /// A top-level `stackFrames` entry whose parent is no frame.
        TraceSamplesUnknownParent => "trace samples: stack frame names an unknown parent",
        /// A top-level `samples` entry that is not an object.
        TraceSamplesNotAnObject => "trace samples: sample is not an object",
        /// A top-level `samples` entry without a `tid`.
        TraceSamplesWithoutTid => "trace samples: sample without a tid",
        /// A top-level `samples` entry without a usable `ts`.
        TraceSamplesWithoutTs => "trace samples: sample without a valid ts",
        /// A top-level `samples` entry whose `sf` names no frame.
        TraceSamplesUnknownFrame => "trace samples: sample names an unknown stack frame",
        /// A top-level `samples` entry whose frames do not reach a root.
        TraceSamplesBrokenChain => "trace samples: sample whose stack frames do not chain up to a root",
        /// Top-level `samples` or `stackFrames` that cannot be read at all.
        TraceSamplesUnreadable => "trace samples: unreadable samples or stackFrames",
        /// Profile nodes whose parent is not a node.
        ProfileUnknownParent => "profile: node whose parent is unknown",
        /// Child ids that name no node.
        ProfileUnknownChild => "profile: child id names no node",
        /// A node reached twice from the root.
        ProfileNodeReachedTwice => "profile: node reached twice (cycle or shared child)",
        /// Nodes that the root does not reach.
        ProfileUnreachableNodes => "profile: nodes not reachable from the root",
        /// Samples that name no node.
        ProfileUnknownSampleNode => "profile: sample names an unknown node",
        /// Samples and timestamps that do not pair up.
        ProfileUnpairedSamples => "profile: samples without a timestamp, or timestamps without a sample",
        /// Self-Profiling stacks whose parents form a cycle.
        SelfProfileStackCycle => "self-profile: stack parents form a cycle",
        /// Self-Profiling stacks that name an unknown parent or frame.
        SelfProfileUnknownParentOrFrame => "self-profile: stack names an unknown parent or frame",
        /// Self-Profiling samples that name an unknown stack.
        SelfProfileUnknownStack => "self-profile: sample names an unknown stack",
        /// An `E` event with no `B` open.
        RendererEndWithoutBegin => "renderer: end event without a begin",
        /// An `E` event whose name or category differs from the open `B`.
        RendererMismatchedEnd => "renderer: end event that does not match the open begin (both left as DevTools leaves them)",
        /// A thread whose tracks would exceed the node budget: not built.
        ThreadOverNodeBudget => "renderer: thread over the node budget (not built)",
        /// An entry that starts before its parent (unsorted input).
        TreeStartsBeforeParent => "tree: entry starts before its parent (unsorted input)",
        /// An entry that starts inside its parent and ends after it.
        TreeEndsAfterParent => "tree: entry ends after its parent (left out, as DevTools does)",
        /// An entry nested deeper than a track node can say (more than
        /// 16,777,215 levels): left out.
        TreeTooDeep => "tree: entry nested more than 16777215 levels deep (left out)",
        /// An event the Initiators handler reads without the args member
        /// it keys on (`args.data`, `args.beginData`): DevTools throws.
        InitiatorsUnreadableEvent => "initiators: event without the args.data or args.beginData DevTools reads (DevTools throws)",
        /// A timer fire, idle callback, web socket or post task event
        /// whose initiator (the install, request, creation or schedule of
        /// its id) is not before it in the trace: it has no initiator.
        InitiatorsMissingInitiator => "initiators: event whose initiator (timer install, idle callback request, web socket creation, post task schedule) is not before it",
        /// A flow whose first event is an async task's run with no
        /// schedule before it, or whose second is not a run: no async call.
        AsyncCallsUnpairedFlow => "async JS calls: flow without an async task's schedule and run",
    }
}

reasons! {
    /// A place where tracekit deliberately answers differently from the
    /// DevTools engine; `docs/divergences.md` explains each, by its text.
    pub enum Divergence {
        /// `ts` or `dur` written as strings are read as numbers.
        NumericStrings => "numeric-strings",
        /// An event without a name is skipped instead of failing the load.
        EventWithoutName => "event-without-name",
        /// An event without `cat` gets aggregated views (DevTools' throw);
        /// the tracks are the same.
        EventWithoutCategory => "event-without-category",
        /// A `TracingStartedInBrowser` without frames loads as generic.
        TracingStartedWithoutFrames => "tracing-started-without-frames",
        /// Cyclic profile nodes are visited once.
        ProfileNodeCycle => "profile-node-cycle",
        /// Top-level `samples` and `stackFrames` are read as CPU profiles.
        TraceEventSamples => "trace-event-samples",
        /// A `thread_name` or `process_name` event without `args`, or a
        /// `thread_name` whose name is not a string, names nothing.
        UnreadableNameMetadata => "unreadable-name-metadata",
    }
}

/// One kind of skipped data: how often it happened and the first example.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkipRecord {
    /// How many times.
    pub count: u64,
    /// Where it happened first, in words.
    pub first_example: String,
}

/// The engine's account of everything it skipped, by reason, and of the
/// repairs it made (a truncated file, for instance).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics {
    /// Skipped data by reason.
    pub skipped: BTreeMap<Skip, SkipRecord>,
    /// Repairs and other things a user should know about, one line each,
    /// each said once.
    pub warnings: Vec<String>,
    /// Places where tracekit deliberately answers differently from the
    /// DevTools engine, with the first example.
    pub divergences: BTreeMap<Divergence, String>,
}

impl Diagnostics {
    /// Counts one skip; `example` is called only for the first of its kind.
    pub fn skip(&mut self, reason: Skip, example: impl FnOnce() -> String) {
        self.skipped
            .entry(reason)
            .and_modify(|record| record.count += 1)
            .or_insert_with(|| SkipRecord {
                count: 1,
                first_example: example(),
            });
    }

    /// Records that a documented divergence from DevTools applies.
    pub fn diverge(&mut self, divergence: Divergence, example: impl FnOnce() -> String) {
        self.divergences.entry(divergence).or_insert_with(example);
    }

    /// Adds a warning, unless the same one was given already.
    pub fn warn(&mut self, message: impl Into<String>) {
        let message = message.into();
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    /// Adds another account to this one.
    pub fn merge(&mut self, other: Diagnostics) {
        for (reason, record) in other.skipped {
            self.skipped
                .entry(reason)
                .and_modify(|mine| mine.count += record.count)
                .or_insert(record);
        }
        for warning in other.warnings {
            self.warn(warning);
        }
        for (divergence, example) in other.divergences {
            self.divergences.entry(divergence).or_insert(example);
        }
    }

    /// How many things were skipped, all reasons together.
    pub fn total_skipped(&self) -> u64 {
        self.skipped.values().map(|r| r.count).sum()
    }

    /// True when nothing was skipped, repaired or done differently.
    pub fn is_empty(&self) -> bool {
        self.skipped.is_empty() && self.warnings.is_empty() && self.divergences.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_skips_and_keeps_the_first_example() {
        let mut diag = Diagnostics::default();
        diag.skip(Skip::EventMissingTs, || "first".into());
        diag.skip(Skip::EventMissingTs, || unreachable!("only the first example is made"));
        diag.skip(Skip::EventMissingName, || "other".into());
        assert_eq!(diag.total_skipped(), 3);
        assert_eq!(diag.skipped[&Skip::EventMissingTs].first_example, "first");
        // Reports list reasons alphabetically.
        let order: Vec<&str> = diag.skipped.keys().map(|s| s.as_str()).collect();
        assert_eq!(order, ["event: missing name", "event: missing ts"]);
    }

    #[test]
    fn merging_adds_counts_and_says_each_warning_once() {
        let mut a = Diagnostics::default();
        a.skip(Skip::ProfileUnknownChild, || "a".into());
        a.warn("cut");
        let mut b = Diagnostics::default();
        b.skip(Skip::ProfileUnknownChild, || "b".into());
        b.warn("cut");
        b.diverge(Divergence::NumericStrings, || "x".into());
        a.merge(b);
        assert_eq!(a.skipped[&Skip::ProfileUnknownChild].count, 2);
        assert_eq!(a.skipped[&Skip::ProfileUnknownChild].first_example, "a");
        assert_eq!(a.warnings, ["cut"]);
        assert_eq!(a.divergences[&Divergence::NumericStrings], "x");
    }

    #[test]
    fn reason_texts_are_distinct() {
        let mut texts: Vec<&str> = Skip::ALL.iter().map(|s| s.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), Skip::ALL.len());
    }
}
