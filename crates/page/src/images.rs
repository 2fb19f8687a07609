//! The ImagePainting handler, as far as tracekit reads it so far: which
//! `PaintImage` event each `Decode Image` event is tied to (the last
//! `PaintImage` of its thread, or else the one last drawn with the
//! `LazyPixelRef` its thread last decoded), and which `PaintImage` each
//! `LazyPixelRef` was last drawn with, as DevTools' `ImagePaintingHandler`
//! ties them. The aggregated views' grouping by URL gives those events the
//! URL of their `PaintImage`.

use tracekit_events::{names, Context, DevTools, Event, EventIndex, Handler, Id, Interner, Phase, Wants};

use crate::args::{url_source, ArgKey, RawArgs, RawData, UrlSource};
use crate::Map;

/// The ImagePainting handler (see the module documentation).
#[derive(Debug, Default)]
pub struct ImagePaintingHandler {
    data: ImagePainting,
    /// The last PaintImage of each thread, an index into the paint images.
    last_paint_image: Map<(Id, Id), u32>,
    /// The `LazyPixelRef` of each thread's last `Decode LazyPixelRef`
    /// that has one (`None`: one that is not a string or a number).
    last_decode_lazy_pixel_ref: Map<(Id, Id), Option<ArgKey>>,
}

/// The painted images of a trace and what ties to them.
#[derive(Debug, Clone, Default)]
pub struct ImagePainting {
    /// The URL source of each complete PaintImage event's own args, in
    /// input order.
    paint_images: Vec<UrlSource>,
    /// The PaintImage each `LazyPixelRef` was last drawn with.
    by_lazy_pixel_ref: Map<ArgKey, u32>,
    /// The PaintImage each `Decode Image` event (by event index) is tied to.
    decode_ties: Map<EventIndex, u32>,
}

impl ImagePainting {
    /// Where the URL of the `paint`-th PaintImage event is.
    pub fn paint_image_source(&self, paint: u32) -> Option<UrlSource> {
        self.paint_images.get(paint as usize).copied()
    }

    /// The PaintImage (its number among them) the `Decode Image` event of
    /// this index is tied to.
    pub fn paint_image_of_decode(&self, decode_image: EventIndex) -> Option<u32> {
        self.decode_ties.get(&decode_image).copied()
    }

    /// The PaintImage last drawn with this `LazyPixelRef`.
    pub fn paint_image_drawn_with(&self, lazy_pixel_ref: ArgKey) -> Option<u32> {
        self.by_lazy_pixel_ref.get(&lazy_pixel_ref).copied()
    }

    /// How many complete PaintImage events the trace has.
    pub fn paint_image_count(&self) -> usize {
        self.paint_images.len()
    }
}

impl Handler for ImagePaintingHandler {
    type Deps<'d> = ();
    type Data = ImagePainting;

    const WANTS: Wants = Wants::Named(&[
        names::PAINT_IMAGE,
        names::DECODE_IMAGE,
        names::DRAW_LAZY_PIXEL_REF,
        names::DECODE_LAZY_PIXEL_REF,
    ]);

    /// Only grouping by URL reads the ties so far: they are made when the
    /// analysis keeps the group args.
    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.group_args
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_event(index, event, cx.options.devtools, &mut cx.interner);
    }

    fn finalize(self, (): (), _cx: &mut Context) -> ImagePainting {
        self.data
    }
}

impl ImagePaintingHandler {
    fn on_event(&mut self, index: EventIndex, event: &Event<'_>, devtools: DevTools, interner: &mut Interner) {
        let args = event.args.and_then(RawArgs::of);
        let thread = (event.pid, event.tid);
        match event.name {
            names::PAINT_IMAGE if event.ph == Phase::COMPLETE => {
                let data = RawData::of(args.as_ref().and_then(|a| a.data));
                let source = url_source(
                    event.name,
                    event.ph,
                    index,
                    args.as_ref(),
                    data.as_ref(),
                    devtools,
                    interner,
                );
                // One per event at most, and events are counted in a u32.
                #[allow(clippy::cast_possible_truncation)]
                let paint = self.data.paint_images.len() as u32;
                self.data.paint_images.push(source);
                self.last_paint_image.insert(thread, paint);
            }
            names::DECODE_LAZY_PIXEL_REF => {
                if let Some(v) = args.as_ref().and_then(|a| a.lazy_pixel_ref) {
                    let key = ArgKey::of(Some(v), interner);
                    self.last_decode_lazy_pixel_ref.insert(thread, key);
                }
            }
            names::DRAW_LAZY_PIXEL_REF => {
                let key = args.as_ref().and_then(|a| a.lazy_pixel_ref);
                let last = self.last_paint_image.get(&thread).copied();
                if let (Some(key), Some(paint)) = (ArgKey::of(key, interner), last) {
                    self.data.by_lazy_pixel_ref.insert(key, paint);
                }
            }
            // DevTools ties the event object it saw; a begin/end pair's
            // entry is a copy of the begin event, which it never finds.
            names::DECODE_IMAGE if event.ph != Phase::BEGIN => {
                let tie = self.last_paint_image.get(&thread).copied().or_else(|| {
                    let key = (*self.last_decode_lazy_pixel_ref.get(&thread)?)?;
                    self.data.by_lazy_pixel_ref.get(&key).copied()
                });
                if let Some(paint) = tie {
                    self.data.decode_ties.insert(index, paint);
                }
            }
            _ => {}
        }
    }
}
