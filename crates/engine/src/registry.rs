//! The handlers of a trace, registered in one place: `handlers!` below
//! lists each handler once, in finalize order, with the data of the
//! handlers its `finalize` takes. From that list come the sink that hands
//! every event to every enabled handler that wants it ([`TraceHandlers`]),
//! the finalizing of all of them in that order, and the store of their
//! data that an [`Analysis`](crate::Analysis) keeps ([`HandlerData`],
//! read through [`Registered`] or its typed accessors).
//!
//! The finalize order stays a fact the compiler checks: each line's
//! dependencies are the names of lines above it (a name used before its
//! line does not compile), and a handler's `Deps` type says what it takes.

use tracekit_causes::{AsyncJsCalls, AsyncJsCallsHandler, Initiators, InitiatorsHandler};
use tracekit_causes::{Flows, FlowsHandler, Invalidations, InvalidationsHandler};
use tracekit_causes::{SelectorStats, SelectorStatsHandler};
use tracekit_events::prepared::PreparedChunk;
use tracekit_events::{
    names, AnalyzeOptions, Context, Event, EventIndex, EventSink, Handler, LoadError, Sym, WantedBy,
};
use tracekit_frames::{Frames, FramesHandler, LayerTree, LayerTreeHandler};
use tracekit_meta::{
    AuctionWorklets, AuctionWorkletsHandler, MetaData, MetaHandler, PageFrames, PageFramesHandler, Workers,
    WorkersHandler,
};
use tracekit_page::{ExtensionTraceData, ExtensionTraceDataHandler, UserTimings, UserTimingsHandler};
use tracekit_page::{ImagePainting, ImagePaintingHandler, NetworkRequests, NetworkRequestsHandler};
use tracekit_page::{LargestImagePaint, LargestImagePaintHandler, LargestTextPaint, LargestTextPaintHandler};
use tracekit_page::{MainThreadEvents, MainThreadEventsHandler, Scripts, ScriptsHandler};
use tracekit_page::{PageLoadMetrics, PageLoadMetricsHandler, Screenshots, ScreenshotsHandler};
use tracekit_renderer::{RendererData, RendererHandler};
use tracekit_samples::SamplesHandler;
use tracekit_system::{DomStats, DomStatsHandler, Gpu, GpuHandler, Memory, MemoryHandler};
use tracekit_timeline::{
    AnimationFrames, AnimationFramesHandler, Animations, AnimationsHandler, LayoutShifts, LayoutShiftsHandler,
    UserInteractions, UserInteractionsHandler, Warnings, WarningsHandler,
};

/// A handler whose data an analysis can hand out by the handler's type
/// ([`Analysis::data`](crate::Analysis::data)).
pub trait Registered: Handler {
    /// The handler's data in the store, `None` when the analysis has none:
    /// a profile on its own (no handler ran), or a handler whose data
    /// another took (the Samples handler's, taken by the Renderer handler),
    /// or the Renderer handler, whose data is the analysis' tracks.
    fn data_in(store: &HandlerData) -> Option<&Self::Data>;
}

/// Declares the handlers of a trace. Each line is `KIND name: Handler =
/// (deps...)`, in finalize order, where a dependency is `&name` (the data
/// of a line above, lent) or `name` (taken: its data is not kept), and
/// KIND says what becomes of the handler's data:
///
/// - `keep`: kept in [`HandlerData`] under `name`;
/// - `taken`: handed by value to a later handler, and not kept;
/// - `tracks`: the tracks of the analysis: its handler gives
///   `Result<RendererData, LoadError>`, whose error ends the finalizing;
///   the lines below it take the tracks as `&name` (a `&RendererData`).
macro_rules! handlers {
    ($($kind:ident $name:ident : $handler:ty = ($($dep:expr),* $(,)?);)*) => {
        /// The handlers of a trace, fed the events in input order.
        #[derive(Default)]
        pub(crate) struct TraceHandlers {
            $($name: $handler,)*
            /// The index of the next event.
            pub(crate) events: EventIndex,
            /// Which enabled handlers want which events, made from the
            /// options at the first events.
            wanted_by: Option<WantedBy>,
        }

        /// Each handler's bit in a [`WantedBy`], by its line.
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #[derive(Clone, Copy)]
        enum Slot {
            $($name,)*
        }

        impl Slot {
            const fn bit(self) -> u64 {
                1 << self as u32
            }
        }

        // Every handler has a bit of a `u64`.
        const _: () = assert!([$(Slot::$name,)*].len() <= 64);

        /// What each enabled handler's `prepare` found in a chunk, and the
        /// members of the args several handlers read.
        pub(crate) struct PreparedChunks {
            $($name: Option<PreparedChunk>,)*
            args_members: Option<PreparedChunk>,
        }

        impl EventSink for TraceHandlers {
            type Prepared = PreparedChunks;

            fn prepare(events: &[Event<'_>], options: &AnalyzeOptions) -> PreparedChunks {
                PreparedChunks {
                    $(
                        $name: <$handler as Handler>::enabled(options)
                            .then(|| <$handler as Handler>::prepare(events, options))
                            .flatten(),
                    )*
                    args_members: options
                        .all_handlers
                        .then(|| Context::prepare_args_members(events, reads_args_members)),
                }
            }

            /// Hands each event to every enabled handler that wants it.
            /// None of them keeps a reference to an event: the text they
            /// came from can be freed.
            fn take(&mut self, events: &[Event<'_>], prepared: Option<PreparedChunks>, cx: &mut Context) {
                let first = self.events;
                let wanted_by = self.wanted_by.get_or_insert_with(|| {
                    let mut wanted_by = WantedBy::default();
                    $(
                        if <$handler as Handler>::enabled(&cx.options) {
                            wanted_by.add(Slot::$name as u32, <$handler as Handler>::WANTS);
                        }
                    )*
                    wanted_by
                });
                if let Some(prepared) = prepared {
                    if let Some(found) = prepared.args_members {
                        cx.take_prepared_args_members(first, found);
                    }
                    $(
                        if let Some(found) = prepared.$name {
                            self.$name.take_prepared(first, found);
                        }
                    )*
                }
                for event in events {
                    let index = self.events;
                    let wanting = wanted_by.of(event.name);
                    $(
                        if wanting & Slot::$name.bit() != 0 {
                            self.$name.handle_event(index, event, cx);
                        }
                    )*
                    self.events = self.events.saturating_add(1);
                }
            }
        }

        handlers!(@store [] $($kind $name: $handler;)*);

        $(handlers!(@registered $kind $name: $handler);)*

        impl TraceHandlers {
            /// Finalizes every handler, in the order of the list; returns
            /// the handlers' data and the tracks.
            pub(crate) fn finalize_all(
                self,
                cx: &mut Context,
            ) -> Result<(HandlerData, RendererData), LoadError> {
                $(
                    let $name = handlers!(@finalized $kind self.$name.finalize(($($dep),*), cx));
                )*
                handlers!(@finish [] [] $($kind $name;)*)
            }
        }
    };
    (@finalized tracks $data:expr) => {
        $data?
    };
    (@finalized $other:ident $data:expr) => {
        $data
    };
    (@store [$($kept:ident: $kept_handler:ty,)*] keep $name:ident: $handler:ty; $($rest:tt)*) => {
        handlers!(@store [$($kept: $kept_handler,)* $name: $handler,] $($rest)*);
    };
    (@store [$($kept:ident: $kept_handler:ty,)*] $other:ident $name:ident: $handler:ty; $($rest:tt)*) => {
        handlers!(@store [$($kept: $kept_handler,)*] $($rest)*);
    };
    (@store [$($kept:ident: $kept_handler:ty,)*]) => {
        /// The data of the handlers that keep theirs, one field each.
        #[derive(Debug)]
        #[non_exhaustive]
        pub struct HandlerData {
            $(
                #[doc = concat!("What `", stringify!($kept_handler), "` found.")]
                pub(crate) $kept: <$kept_handler as Handler>::Data,
            )*
        }
    };
    (@registered keep $name:ident: $handler:ty) => {
        impl Registered for $handler {
            fn data_in(store: &HandlerData) -> Option<&Self::Data> {
                Some(&store.$name)
            }
        }
    };
    (@registered $other:ident $name:ident: $handler:ty) => {
        impl Registered for $handler {
            fn data_in(_: &HandlerData) -> Option<&Self::Data> {
                None
            }
        }
    };
    (@finish [$($kept:ident)*] [$($tracks:ident)?] keep $name:ident; $($rest:tt)*) => {
        handlers!(@finish [$($kept)* $name] [$($tracks)?] $($rest)*)
    };
    (@finish [$($kept:ident)*] [$($tracks:ident)?] taken $name:ident; $($rest:tt)*) => {
        handlers!(@finish [$($kept)*] [$($tracks)?] $($rest)*)
    };
    (@finish [$($kept:ident)*] [] tracks $name:ident; $($rest:tt)*) => {
        handlers!(@finish [$($kept)*] [$name] $($rest)*)
    };
    (@finish [$($kept:ident)*] [$tracks:ident]) => {
        Ok((HandlerData { $($kept,)* }, $tracks))
    };
}

/// Whether the handlers read the members of the args of events of this
/// name through [`Context::args_member`] (with all handlers): the
/// Initiators and Invalidations handlers (whose names include the layouts
/// the Renderer handler reads), the Warnings handler's `FunctionCall`s and
/// the Memory handler's counters. A name left out is only slower: its
/// members are looked for as the events are taken.
fn reads_args_members(name: Sym) -> bool {
    <InitiatorsHandler as Handler>::WANTS.includes(name)
        || <InvalidationsHandler as Handler>::WANTS.includes(name)
        || [names::FUNCTION_CALL, names::UPDATE_COUNTERS].contains(&name)
}

// The handlers of a trace. To add one, see "Adding a handler" in
// docs/architecture.md: one line here, in finalize order.
handlers! {
    keep meta: MetaHandler = ();
    keep worklets: AuctionWorkletsHandler = ();
    keep workers: WorkersHandler = ();
    keep memory: MemoryHandler = ();
    keep dom_stats: DomStatsHandler = ();
    keep gpu: GpuHandler = (&meta);
    keep flows: FlowsHandler = ();
    keep invalidations: InvalidationsHandler = ();
    keep selector_stats: SelectorStatsHandler = ();
    keep page_frames: PageFramesHandler = ();
    keep network: NetworkRequestsHandler = (&meta);
    keep images: ImagePaintingHandler = (&meta);
    keep scripts: ScriptsHandler = (&meta, &network);
    keep main_thread_events: MainThreadEventsHandler = (&meta);
    keep screenshots: ScreenshotsHandler = ();
    keep layout_shifts: LayoutShiftsHandler = (&meta, &screenshots);
    keep user_interactions: UserInteractionsHandler = (&meta);
    keep warnings: WarningsHandler = (&user_interactions, &workers);
    keep animations: AnimationsHandler = ();
    keep animation_frames: AnimationFramesHandler = ();
    keep page_load_metrics: PageLoadMetricsHandler = (&meta);
    keep largest_text_paint: LargestTextPaintHandler = ();
    keep largest_image_paint: LargestImagePaintHandler = (&page_load_metrics, &network);
    keep user_timings: UserTimingsHandler = ();
    keep extension_trace_data: ExtensionTraceDataHandler = (&user_timings);
    taken samples: SamplesHandler = (&meta);
    keep layer_tree: LayerTreeHandler = (&meta);
    tracks renderer: RendererHandler = (&meta, samples, &worklets, &network, &images);
    keep frames: FramesHandler = (&meta, &renderer, &layer_tree);
    keep async_js_calls: AsyncJsCallsHandler = (&flows, &renderer);
    keep initiators: InitiatorsHandler = (&flows, &async_js_calls);
}

impl HandlerData {
    /// What the Meta handler found.
    pub fn meta(&self) -> &MetaData {
        &self.meta
    }

    /// The auction worklet processes.
    pub fn auction_worklets(&self) -> &AuctionWorklets {
        &self.worklets
    }

    /// The workers (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn workers(&self) -> &Workers {
        &self.workers
    }

    /// The memory counters (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The DOM statistics (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn dom_stats(&self) -> &DomStats {
        &self.dom_stats
    }

    /// The GPU main thread's tasks (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The flows between events (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn flows(&self) -> &Flows {
        &self.flows
    }

    /// Which JS call scheduled which async task (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn async_js_calls(&self) -> &AsyncJsCalls {
        &self.async_js_calls
    }

    /// The initiator of each event (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn initiators(&self) -> &Initiators {
        &self.initiators
    }

    /// The invalidations behind style recalculations and layouts
    /// (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn invalidations(&self) -> &Invalidations {
        &self.invalidations
    }

    /// The selectors' matching costs per style recalculation, and the
    /// nodes they invalidated (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn selector_stats(&self) -> &SelectorStats {
        &self.selector_stats
    }

    /// The frames of the page (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn page_frames(&self) -> &PageFrames {
        &self.page_frames
    }

    /// The network requests (their URLs when the analysis keeps the group
    /// args; the whole with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn network_requests(&self) -> &NetworkRequests {
        &self.network
    }

    /// The painted images (gathered when the analysis keeps the group
    /// args).
    pub fn image_painting(&self) -> &ImagePainting {
        &self.images
    }

    /// The scripts V8's source rundown describes (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn scripts(&self) -> &Scripts {
        &self.scripts
    }

    /// The layout shifts and their clusters (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn layout_shifts(&self) -> &LayoutShifts {
        &self.layout_shifts
    }

    /// The user interactions (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn user_interactions(&self) -> &UserInteractions {
        &self.user_interactions
    }

    /// The problems the timeline flags, by event and by kind (gathered
    /// with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    /// The animations (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn animations(&self) -> &Animations {
        &self.animations
    }

    /// The animation frames (none unless DevTools'
    /// `enableAnimationsFrameHandler` is set, as by default it is not).
    pub fn animation_frames(&self) -> &AnimationFrames {
        &self.animation_frames
    }

    /// The layer tree's paints and their snapshots (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn layer_tree(&self) -> &LayerTree {
        &self.layer_tree
    }

    /// The frames (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn frames(&self) -> &Frames {
        &self.frames
    }

    /// The page load metrics (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn page_load_metrics(&self) -> &PageLoadMetrics {
        &self.page_load_metrics
    }

    /// The last largest text paint candidate of each DOM node (gathered
    /// with [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn largest_text_paint(&self) -> &LargestTextPaint {
        &self.largest_text_paint
    }

    /// The request of each navigation's LCP image (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn largest_image_paint(&self) -> &LargestImagePaint {
        &self.largest_image_paint
    }

    /// The performance marks and measures, console timings and time
    /// stamps (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn user_timings(&self) -> &UserTimings {
        &self.user_timings
    }

    /// The entries pages and extensions add to the timeline's tracks
    /// (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn extension_trace_data(&self) -> &ExtensionTraceData {
        &self.extension_trace_data
    }

    /// The screenshots (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn screenshots(&self) -> &Screenshots {
        &self.screenshots
    }

    /// The events of the main frame's renderer main thread, as Lantern's
    /// page dependency graph reads them (gathered with
    /// [`AnalyzeOptions::all_handlers`](tracekit_events::AnalyzeOptions::all_handlers)).
    pub fn main_thread_events(&self) -> &MainThreadEvents {
        &self.main_thread_events
    }
}
