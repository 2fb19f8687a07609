//! The ImagePainting handler (DevTools' `ImagePaintingHandler`): the
//! complete `PaintImage` events of a trace with what each says of its
//! image, the paints of each image URL, which `PaintImage` each
//! `LazyPixelRef` was last drawn with, which `PaintImage` each
//! `Decode Image` event is tied to (the last `PaintImage` of its thread, or
//! else the one last drawn with the `LazyPixelRef` its thread last
//! decoded), and, when the trace's metadata gives the host's device pixel
//! ratio, each paint's size corrected for the emulated one (Chrome paints
//! with the host's ratio; DevTools' image delivery insight compares sizes
//! at the emulated one). The aggregated views' grouping by URL gives the
//! decode and draw events the URL of their `PaintImage`.

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::json::{as_str, js_number, js_truthy, member, object_members};
use tracekit_events::{
    names, Context, DevTools, Event, EventIndex, Handler, Id, Interner, Micros, Phase, Skip, Strings, Sym, Wants,
};
use tracekit_meta::MetaData;

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

/// One complete `PaintImage` event: an image painted, as its `args.data`
/// describes it. Numbers are JavaScript's `Number()` of the member (`NaN`
/// when absent); strings are `None` when absent or not strings.
#[derive(Debug, Clone, PartialEq)]
pub struct PaintImage {
    /// The event.
    pub event: EventIndex,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When the paint started.
    pub ts: Micros,
    /// How long it took.
    pub dur: Option<Micros>,
    /// The image's URL (`url`), possibly empty.
    pub url: Option<Sym>,
    /// The painted element's DOM node id (`nodeId`).
    pub node_id: Option<Id>,
    /// The painted element's name (`nodeName`, since Chrome 137).
    pub node_name: Option<Sym>,
    /// The frame painted in (`frame`).
    pub frame: Option<Sym>,
    /// Where the image was painted (`x`, `y`), in device pixels.
    pub x: f64,
    /// See [`PaintImage::x`].
    pub y: f64,
    /// The painted size (`width`, `height`), in the host's device pixels.
    pub width: f64,
    /// See [`PaintImage::width`].
    pub height: f64,
    /// The image's own size (`srcWidth`, `srcHeight`).
    pub src_width: f64,
    /// See [`PaintImage::src_width`].
    pub src_height: f64,
    /// Whether the image is a CSS background (`isCSS` truthy).
    pub is_css: bool,
    /// Whether the image is in a `<picture>` (`isPicture` truthy).
    pub is_picture: bool,
    /// The element's `loading` attribute (`loadingAttribute`).
    pub loading_attribute: Option<Sym>,
    /// The element's `srcset` attribute (`srcsetAttribute`).
    pub srcset_attribute: Option<Sym>,
}

/// A paint's size corrected for the emulated device pixel ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DisplaySize {
    /// The width, in the emulated device's pixels.
    pub width: f64,
    /// The height, in the emulated device's pixels.
    pub height: f64,
}

/// The painted images of a trace and what ties to them.
#[derive(Debug, Clone, Default)]
pub struct ImagePainting {
    /// The complete `PaintImage` events, in input order; the other fields
    /// refer to them by their position here.
    pub paint_images: Vec<PaintImage>,
    /// The URL source of each paint (for grouping by URL).
    sources: Vec<UrlSource>,
    /// The paints of each image URL (a non-empty `url`), in input order.
    pub by_url: Map<Sym, Vec<u32>>,
    /// The PaintImage each `LazyPixelRef` was last drawn with.
    pub by_lazy_pixel_ref: Map<ArgKey, u32>,
    /// The PaintImage each `Decode Image` event (by event index, of any
    /// phase) is tied to.
    pub decode_ties: Map<EventIndex, u32>,
    /// The `Decode Image` begin events among those: DevTools' grouping
    /// never finds their ties (its entry of a begin/end pair is a copy of
    /// the begin event, not the event it tied).
    begin_decodes: ahash::AHashSet<EventIndex>,
    /// Each paint's size at the emulated device pixel ratio, when the
    /// trace's metadata gives the host's ratio (`hostDPR`) and the trace
    /// the emulated one (DevTools' `didCorrectForHostDpr`); `None` else.
    pub corrected_sizes: Option<Vec<DisplaySize>>,
    /// The engine followed (the dump's shape differs by engine).
    devtools: DevTools,
}

impl ImagePainting {
    /// Where the URL of the `paint`-th PaintImage event is.
    pub fn paint_image_source(&self, paint: u32) -> Option<UrlSource> {
        self.sources.get(paint as usize).copied()
    }

    /// The PaintImage (its number among them) the `Decode Image` event of
    /// this index is tied to.
    pub fn paint_image_of_decode(&self, decode_image: EventIndex) -> Option<u32> {
        if self.begin_decodes.contains(&decode_image) {
            return None;
        }
        self.decode_ties.get(&decode_image).copied()
    }

    /// The PaintImage last drawn with this `LazyPixelRef`.
    pub fn paint_image_drawn_with(&self, lazy_pixel_ref: ArgKey) -> Option<u32> {
        self.by_lazy_pixel_ref.get(&lazy_pixel_ref).copied()
    }

    /// How many complete PaintImage events the trace has.
    pub fn paint_image_count(&self) -> usize {
        self.sources.len()
    }

    /// The size the `paint`-th image was displayed at, as DevTools' image
    /// delivery insight reads it: corrected for the emulated device pixel
    /// ratio when it could be, else as painted.
    pub fn display_size(&self, paint: u32) -> Option<DisplaySize> {
        let image = self.paint_images.get(paint as usize)?;
        let corrected = self.corrected_sizes.as_ref().and_then(|s| s.get(paint as usize));
        Some(corrected.copied().unwrap_or(DisplaySize {
            width: image.width,
            height: image.height,
        }))
    }

    /// This data in the data conformance dump. DevTools 2026-10 keeps the
    /// decode ties and the corrected sizes in `WeakMap`s, which its dump
    /// writes `{}` (and `--format json` in full: [`Value::Weak`]);
    /// 2026-06 in `Map`s.
    pub fn dump(&self, dump: &mut Dump<'_>) -> Value {
        let strings = dump.strings();
        let event = |paint: u32| Value::Event(self.paint_images[paint as usize].event);
        let by_ref = self
            .by_lazy_pixel_ref
            .iter()
            .map(|(key, &paint)| (arg_key_value(*key, strings), event(paint)))
            .collect();
        let by_url = self
            .by_url
            .iter()
            .map(|(url, paints)| {
                (
                    Value::Sym(*url),
                    Value::Array(paints.iter().map(|&p| event(p)).collect()),
                )
            })
            .collect();
        let ties = self
            .decode_ties
            .iter()
            .map(|(&decode, &paint)| (Value::Event(decode), event(paint)));
        let sizes = self.corrected_sizes.iter().flatten().enumerate().map(|(paint, size)| {
            let size = Object::new()
                .with("width", Value::Num(size.width))
                .with("height", Value::Num(size.height));
            (Value::Event(self.paint_images[paint].event), size.into())
        });
        let (ties, sizes) = (Value::Map(ties.collect()), Value::Map(sizes.collect()));
        let (ties, sizes) = if self.devtools >= DevTools::V2026_10 {
            (Value::Weak(Box::new(ties)), Value::Weak(Box::new(sizes)))
        } else {
            (ties, sizes)
        };
        Object::new()
            .with("paintImageByDrawLazyPixelRef", Value::Map(by_ref))
            .with("paintImageForEvent", ties)
            .with("paintImageEventForUrl", Value::Map(by_url))
            .with("paintEventToCorrectedDisplaySize", sizes)
            .with("didCorrectForHostDpr", Value::Bool(self.corrected_sizes.is_some()))
            .into()
    }
}

/// A `LazyPixelRef` as the dump writes a map key: a number or a string.
fn arg_key_value(key: ArgKey, strings: &Strings) -> Value {
    if key.is_number {
        // The text is a number's `String()`, which parses back to it.
        Value::Num(strings.resolve(key.text).parse().unwrap_or(f64::NAN))
    } else {
        Value::Sym(key.text)
    }
}

impl Handler for ImagePaintingHandler {
    type Deps<'d> = &'d MetaData;
    type Data = ImagePainting;

    const WANTS: Wants = Wants::Named(&[
        names::PAINT_IMAGE,
        names::DECODE_IMAGE,
        names::DRAW_LAZY_PIXEL_REF,
        names::DECODE_LAZY_PIXEL_REF,
    ]);

    /// Grouping by URL reads the ties, and the page's data all of it.
    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.group_args || options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        self.on_event(index, event, cx);
    }

    fn finalize(mut self, meta: &MetaData, cx: &mut Context) -> ImagePainting {
        self.data.devtools = cx.options.devtools;
        let host_dpr = cx
            .top_level
            .metadata
            .as_deref()
            .and_then(|m| member(m, "hostDPR"))
            .filter(|raw| js_truthy(raw))
            .map(|raw| js_number(Some(raw)));
        let emulated = meta.device_pixel_ratio.filter(|x| *x != 0.0 && !x.is_nan());
        if let (Some(host), Some(emulated)) = (host_dpr, emulated) {
            let sizes = self.data.paint_images.iter().map(|p| DisplaySize {
                width: p.width / host * emulated,
                height: p.height / host * emulated,
            });
            self.data.corrected_sizes = Some(sizes.collect());
        }
        self.data
    }
}

impl ImagePaintingHandler {
    fn on_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let args = event.args.and_then(RawArgs::of);
        let thread = (event.pid, event.tid);
        match event.name {
            names::PAINT_IMAGE if event.ph == Phase::COMPLETE => self.on_paint(index, event, args.as_ref(), cx),
            names::DECODE_LAZY_PIXEL_REF => {
                if let Some(v) = args.as_ref().and_then(|a| a.lazy_pixel_ref) {
                    let key = ArgKey::of(Some(v), &mut cx.interner);
                    self.last_decode_lazy_pixel_ref.insert(thread, key);
                }
            }
            names::DRAW_LAZY_PIXEL_REF => {
                let Some(raw) = args.as_ref().and_then(|a| a.lazy_pixel_ref) else {
                    return;
                };
                let Some(&paint) = self.last_paint_image.get(&thread) else {
                    return;
                };
                match ArgKey::of(Some(raw), &mut cx.interner) {
                    Some(key) => {
                        self.data.by_lazy_pixel_ref.insert(key, paint);
                    }
                    None => cx.diagnostics.skip(Skip::ImagesUnreadableKey, || {
                        format!("Draw LazyPixelRef (event #{index}) whose LazyPixelRef is {raw}")
                    }),
                }
            }
            names::DECODE_IMAGE => {
                let tie = self.last_paint_image.get(&thread).copied().or_else(|| {
                    let key = (*self.last_decode_lazy_pixel_ref.get(&thread)?)?;
                    self.data.by_lazy_pixel_ref.get(&key).copied()
                });
                if let Some(paint) = tie {
                    self.data.decode_ties.insert(index, paint);
                    if event.ph == Phase::BEGIN {
                        self.data.begin_decodes.insert(index);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_paint(&mut self, index: EventIndex, event: &Event<'_>, args: Option<&RawArgs<'_>>, cx: &mut Context) {
        let raw_data = args.and_then(|a| a.data);
        let data = RawData::of(raw_data);
        let devtools: DevTools = cx.options.devtools;
        let source = url_source(
            event.name,
            event.ph,
            index,
            args,
            data.as_ref(),
            devtools,
            &mut cx.interner,
        );
        // One per event at most, and events are counted in a u32.
        #[allow(clippy::cast_possible_truncation)]
        let paint = self.data.sources.len() as u32;
        self.data.sources.push(source);
        self.last_paint_image.insert((event.pid, event.tid), paint);
        let image = paint_image(index, event, raw_data, &mut cx.interner);
        if raw_data.is_none_or(|d| !d.trim_start().starts_with('{')) {
            cx.diagnostics.skip(Skip::ImagesPaintWithoutData, || {
                format!("PaintImage (event #{index}) without args.data")
            });
        }
        let url = raw_data.and_then(|d| member(d, "url"));
        match url {
            Some(raw) if js_truthy(raw) => match image.url {
                Some(url) => self.data.by_url.entry(url).or_default().push(paint),
                None => cx.diagnostics.skip(Skip::ImagesUnreadableKey, || {
                    format!("PaintImage (event #{index}) whose url is {raw}")
                }),
            },
            _ => {}
        }
        self.data.paint_images.push(image);
    }
}

/// What a `PaintImage` event's `args.data` says of its image.
fn paint_image(index: EventIndex, event: &Event<'_>, data: Option<&str>, interner: &mut Interner) -> PaintImage {
    let mut image = PaintImage {
        event: index,
        pid: event.pid,
        tid: event.tid,
        ts: event.ts,
        dur: event.dur,
        url: None,
        node_id: None,
        node_name: None,
        frame: None,
        x: f64::NAN,
        y: f64::NAN,
        width: f64::NAN,
        height: f64::NAN,
        src_width: f64::NAN,
        src_height: f64::NAN,
        is_css: false,
        is_picture: false,
        loading_attribute: None,
        srcset_attribute: None,
    };
    let Some(data) = data else {
        return image;
    };
    let mut string = |raw: &str| as_str(raw).map(|s| interner.intern(&s));
    for (key, raw) in object_members(data) {
        match &*key {
            "url" => image.url = string(raw),
            "nodeName" => image.node_name = string(raw),
            "frame" => image.frame = string(raw),
            "loadingAttribute" => image.loading_attribute = string(raw),
            "srcsetAttribute" => image.srcset_attribute = string(raw),
            "nodeId" => {
                image.node_id = match tracekit_events::json::as_f64(raw) {
                    Some(x) => Some(Id::num(x)),
                    None => string(raw).map(Id::str),
                }
            }
            "x" => image.x = js_number(Some(raw)),
            "y" => image.y = js_number(Some(raw)),
            "width" => image.width = js_number(Some(raw)),
            "height" => image.height = js_number(Some(raw)),
            "srcWidth" => image.src_width = js_number(Some(raw)),
            "srcHeight" => image.src_height = js_number(Some(raw)),
            "isCSS" => image.is_css = js_truthy(raw),
            "isPicture" => image.is_picture = js_truthy(raw),
            _ => {}
        }
    }
    image
}

#[cfg(test)]
mod tests;
