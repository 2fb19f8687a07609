//! Image delivery: the images of the set that were painted and could have
//! been sent in fewer bytes — a GIF better as a video, more bytes per
//! pixel than a modern format needs, or a file larger than the largest
//! size it was displayed at — with the bytes each change would save.

use tracekit_engine::handlers::page::JsValue;
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::support::jsnum::{js_number_string, js_round};
use tracekit_engine::support::names;
use tracekit_engine::{ImagePainting, Strings};

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "ImageDelivery",
    title: "Improve image delivery",
    description: "Reducing the download time of images can improve the perceived load time of the page and LCP. [Learn more about optimizing image size](https://developer.chrome.com/docs/performance/insights/image-delivery).",
    docs: "https://developer.chrome.com/docs/performance/insights/image-delivery",
    category: Category::Lcp,
    strings: &[
        ("description", "Reducing the download time of images can improve the perceived load time of the page and LCP. [Learn more about optimizing image size](https://developer.chrome.com/docs/performance/insights/image-delivery)."),
        ("estimatedSavings", "{PH1} (Est {PH2})"),
        ("noOptimizableImages", "No optimizable images"),
        ("optimizeFile", "Optimize file size"),
        ("others", "{PH1} others"),
        ("title", "Improve image delivery"),
        ("useCompression", "Increasing the image compression factor could improve this image\u{2019}s download size"),
        ("useModernFormat", "Using a modern image format (WebP, AVIF) or increasing the image compression could improve this image\u{2019}s download size"),
        ("useResponsiveSize", "This image file is larger than it needs to be ({PH1}) for its displayed dimensions ({PH2}). Use responsive images to reduce the image download size."),
        ("useVideoFormat", "Using video formats instead of GIFs can improve the download size of animated content"),
    ],
};

/// The bytes per pixel an AVIF of good quality needs (2 bytes a pixel
/// for a 4:2:2 bitmap, compressed 12:1).
const AVIF_BYTES_PER_PIXEL: f64 = 2.0 / 12.0;
/// GIFs over this size are worth turning into a video.
const GIF_BYTES_WORTH_A_VIDEO: f64 = 100.0 * 1024.0;
/// An optimization saving no more than this is not reported.
const SAVINGS_WORTH_REPORTING: f64 = 4096.0;
/// A resized image whose page gave breakpoints (`srcset`, `<picture>`)
/// is reported only when resizing saves more than this.
const SAVINGS_DESPITE_BREAKPOINTS: f64 = 12288.0;

/// What the insight found: the images worth optimizing, the most bytes
/// saved first (then the larger file).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImageDelivery {
    /// The images.
    pub images: Vec<OptimizableImage>,
}

/// An image that could be sent in fewer bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct OptimizableImage {
    /// Its request, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// Its paint displayed the largest, by index in
    /// [`ImagePainting::paint_images`].
    pub largest_paint: u32,
    /// What to change, each with what it saves.
    pub optimizations: Vec<Optimization>,
    /// The bytes all of them together would save.
    pub byte_savings: f64,
}

/// One change to an image and the bytes it saves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Optimization {
    /// Which change.
    pub kind: OptimizationKind,
    /// The bytes it saves.
    pub byte_savings: f64,
}

/// A change to an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptimizationKind {
    /// Compress the WebP or AVIF harder.
    AdjustCompression,
    /// Use WebP or AVIF, or compress harder.
    ModernFormatOrCompression,
    /// Send the animated GIF as a video.
    VideoFormat,
    /// Send the image at the size it is displayed: the file's and the
    /// displayed width and height, rounded.
    ResponsiveSize {
        /// The file's (width, height).
        file: (f64, f64),
        /// The largest displayed (width, height).
        displayed: (f64, f64),
    },
}

impl OptimizationKind {
    /// DevTools' name of the change.
    pub fn as_str(self) -> &'static str {
        match self {
            OptimizationKind::AdjustCompression => "ADJUST_COMPRESSION",
            OptimizationKind::ModernFormatOrCompression => "MODERN_FORMAT_OR_COMPRESSION",
            OptimizationKind::VideoFormat => "VIDEO_FORMAT",
            OptimizationKind::ResponsiveSize { .. } => "RESPONSIVE_SIZE",
        }
    }
}

impl Optimization {
    /// DevTools' label of the change with its savings.
    pub fn label(&self) -> String {
        let message = match self.kind {
            OptimizationKind::AdjustCompression => UI.string("useCompression").to_owned(),
            OptimizationKind::ModernFormatOrCompression => UI.string("useModernFormat").to_owned(),
            OptimizationKind::VideoFormat => UI.string("useVideoFormat").to_owned(),
            OptimizationKind::ResponsiveSize { file, displayed } => {
                let size = |(w, h): (f64, f64)| format!("{}x{}", js_number_string(w), js_number_string(h));
                UI.string("useResponsiveSize")
                    .replace("{PH1}", &size(file))
                    .replace("{PH2}", &size(displayed))
            }
        };
        format!("{message} (Est {})", bytes_to_string(self.byte_savings))
    }
}

/// DevTools' `bytesToString` in its English locale: `512\u{a0}B`,
/// `19.1\u{a0}kB`, `329\u{a0}kB`, `1.5\u{a0}MB`.
pub(crate) fn bytes_to_string(bytes: f64) -> String {
    let (x, digits, unit) = if bytes < 1000.0 {
        (bytes, 0, "B")
    } else if bytes / 1000.0 < 100.0 {
        (bytes / 1000.0, 1, "kB")
    } else if bytes / 1000.0 < 1000.0 {
        (bytes / 1000.0, 0, "kB")
    } else if bytes / 1e6 < 100.0 {
        (bytes / 1e6, 1, "MB")
    } else {
        (bytes / 1e6, 0, "MB")
    };
    if x.is_nan() {
        return format!("NaN\u{a0}{unit}");
    }
    format!("{}\u{a0}{unit}", crate::millis_text::decimal(x, digits, digits))
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let network = cx.data.network_requests();
    let painting = cx.data.image_painting();
    let strings = cx.analysis.strings();
    let mut images = Vec::new();
    for (at, request) in network.requests.iter().enumerate() {
        if !cx.overlaps(request.ts, request.dur) {
            continue;
        }
        let is = |v: &JsValue, text: &str| v.as_sym().is_some_and(|s| strings.resolve(s) == text);
        if !is(&request.resource_type, "Image") || is(&request.mime_type, "image/svg+xml") {
            continue;
        }
        // Paints name the URL the page asked for, before any redirect.
        let url = request.redirects.first().map_or(request.url, |r| r.url);
        let Some(paints) = painting.by_url.get(&url) else {
            continue;
        };
        let in_set = paints.iter().copied().filter(|&p| {
            let paint = &painting.paint_images[p as usize];
            cx.overlaps(paint.ts, paint.dur.unwrap_or_default())
        });
        // The paint displayed the largest; a later one wins a tie.
        let Some(largest) = in_set.reduce(|prev, curr| {
            if displayed_pixels(painting, prev) > displayed_pixels(painting, curr) {
                prev
            } else {
                curr
            }
        }) else {
            continue;
        };
        let decoded = request.decoded_body_length.to_number(strings);
        let encoded = request.encoded_data_length.to_number(strings);
        let bytes = if decoded.is_nan() || encoded.is_nan() {
            f64::NAN
        } else {
            decoded.min(encoded)
        };
        let mime = request.mime_type.as_sym().map_or("", |s| strings.resolve(s));
        if let Some(image) = optimize(painting, largest, bytes, decoded, mime) {
            images.push(OptimizableImage { request: at, ..image });
        }
    }
    images.sort_by(|a, b| {
        let order = |d: f64| d.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal);
        if a.byte_savings != b.byte_savings {
            return order(b.byte_savings - a.byte_savings);
        }
        let size = |i: &OptimizableImage| network.requests[i.request].decoded_body_length.to_number(strings);
        order(size(b) - size(a))
    });
    let wasted = images.iter().fold(0.0, |sum, i| sum + i.byte_savings);
    let state = if images.is_empty() { State::Pass } else { State::Fail };
    let related = images
        .iter()
        .map(|i| {
            let labels = i.optimizations.iter().map(Optimization::label).collect();
            (EventRef::Request(i.request), labels)
        })
        .collect();
    let savings = crate::estimates::wasted_bytes_savings(cx, images.iter().map(|i| (i.request, i.byte_savings)))?;
    let mut insight = Insight::new(state, Finding::ImageDelivery(ImageDelivery { images }));
    insight.related_events = Some(RelatedEvents::Labelled(related));
    insight.wasted_bytes = Some(wasted);
    insight.metric_savings = savings;
    Ok(insight)
}

/// The pixels a paint was displayed at.
fn displayed_pixels(painting: &ImagePainting, paint: u32) -> f64 {
    painting.display_size(paint).map_or(f64::NAN, |s| s.width * s.height)
}

/// The optimizations of an image of `bytes` (its decoded size `decoded`)
/// displayed at its largest by `paint`; `None` when none saves enough.
/// The request is left at 0 for the caller to fill.
fn optimize(painting: &ImagePainting, paint: u32, bytes: f64, decoded: f64, mime: &str) -> Option<OptimizableImage> {
    let image = &painting.paint_images[paint as usize];
    let file_pixels = image.src_width * image.src_height;
    let displayed = painting.display_size(paint)?;
    let mut optimizations = Vec::new();
    if mime == "image/gif" {
        if bytes > GIF_BYTES_WORTH_A_VIDEO {
            let share = js_round(29.1 * decoded.log10() - 100.7) / 100.0;
            optimizations.push(Optimization {
                kind: OptimizationKind::VideoFormat,
                byte_savings: js_round(bytes * share),
            });
        }
    } else if bytes / file_pixels > AVIF_BYTES_PER_PIXEL {
        let kind = if mime == "image/webp" || mime == "image/avif" {
            OptimizationKind::AdjustCompression
        } else {
            OptimizationKind::ModernFormatOrCompression
        };
        optimizations.push(Optimization {
            kind,
            byte_savings: bytes - js_round(AVIF_BYTES_PER_PIXEL * file_pixels),
        });
    }
    // `Math.max(0, ...)`: a savings that is not a number stays one.
    let from_format = optimizations.iter().fold(0.0_f64, |max, o| {
        if max.is_nan() || o.byte_savings.is_nan() {
            f64::NAN
        } else {
            max.max(o.byte_savings)
        }
    });
    let mut total = from_format;
    let wasted_pixel_ratio = 1.0 - (displayed.width * displayed.height) / file_pixels;
    // CSS images are left alone: sprite sheets cannot be told apart.
    if wasted_pixel_ratio > 0.0 && !image.is_css {
        let byte_savings = js_round(wasted_pixel_ratio * bytes);
        let had_breakpoints = image.is_picture || image.srcset_attribute.is_some_and(|s| s != names::EMPTY);
        if !had_breakpoints || byte_savings > SAVINGS_DESPITE_BREAKPOINTS {
            total += js_round(wasted_pixel_ratio * (bytes - from_format));
            optimizations.push(Optimization {
                kind: OptimizationKind::ResponsiveSize {
                    file: (js_round(image.src_width), js_round(image.src_height)),
                    displayed: (js_round(displayed.width), js_round(displayed.height)),
                },
                byte_savings,
            });
        }
    }
    optimizations.retain(|o| o.byte_savings > SAVINGS_WORTH_REPORTING);
    (!optimizations.is_empty()).then_some(OptimizableImage {
        request: 0,
        largest_paint: paint,
        optimizations,
        byte_savings: total,
    })
}

impl ImageDelivery {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let painting = cx.data.image_painting();
        let images = self
            .images
            .iter()
            .map(|i| {
                let optimizations = i.optimizations.iter().map(optimization_value).collect();
                Object::new()
                    .with("request", cx.event(EventRef::Request(i.request)))
                    .with("optimizations", Value::Array(optimizations))
                    .with("byteSavings", Value::Num(i.byte_savings))
                    .with(
                        "largestImagePaint",
                        Value::Event(painting.paint_images[i.largest_paint as usize].event),
                    )
                    .into()
            })
            .collect();
        model.push("optimizableImages", Value::Array(images));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.images.is_empty() {
            return vec![UI.string("noOptimizableImages").to_owned()];
        }
        let strings: &Strings = cx.analysis.strings();
        let requests = &cx.data.network_requests().requests;
        let mut lines = Vec::new();
        for image in &self.images {
            lines.push(format!(
                "{}: {} could be saved",
                strings.resolve(requests[image.request].url),
                bytes_to_string(image.byte_savings)
            ));
            lines.extend(image.optimizations.iter().map(|o| format!("  {}", o.label())));
        }
        lines
    }
}

fn optimization_value(o: &Optimization) -> Value {
    let mut value = Object::new()
        .with("type", Value::str(o.kind.as_str()))
        .with("byteSavings", Value::Num(o.byte_savings));
    if let OptimizationKind::ResponsiveSize { file, displayed } = o.kind {
        let size =
            |(w, h): (f64, f64)| Value::from(Object::new().with("width", Value::Num(w)).with("height", Value::Num(h)));
        value.push("fileDimensions", size(file));
        value.push("displayDimensions", size(displayed));
    }
    value.into()
}

#[cfg(test)]
#[path = "image_delivery_tests.rs"]
mod tests;
