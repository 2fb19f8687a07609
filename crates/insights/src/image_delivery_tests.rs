//! The image delivery insight on small traces: an image request and its
//! paints.

use super::{bytes_to_string, OptimizationKind};
use crate::test_trace::{navigation_set, sets, trace};
use crate::{Finding, Insight, RelatedEvents, State};

/// An image request `R1` of `bytes` bytes and MIME type `mime`, painted
/// once at `width`x`height` from a `src_width`x`src_height` file.
fn image(mime: &str, bytes: u32, painted: (u32, u32), file: (u32, u32), css: bool) -> String {
    format!(
        r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":5000,"args":{{"data":{{"requestId":"R1",
    "url":"https://a.test/i","priority":"Low","requestMethod":"GET","frame":"F1","resourceType":"Image"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":5100,"args":{{"data":{{"requestId":"R1",
    "fromCache":false,"mimeType":"{mime}","statusCode":200,"protocol":"h2","headers":[]}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":5200,"args":{{"data":{{"requestId":"R1",
    "encodedDataLength":{},"decodedBodyLength":{bytes},"finishTime":0.5}}}}}},
  {{"name":"PaintImage","ph":"X","pid":2,"tid":3,"ts":6000,"dur":10,"args":{{"data":{{"url":"https://a.test/i",
    "width":{},"height":{},"srcWidth":{},"srcHeight":{},"x":0,"y":0,"isCSS":{css},"nodeId":1,"frame":"F1"}}}}}}"#,
        bytes + 300,
        painted.0,
        painted.1,
        file.0,
        file.1
    )
}

fn delivery(text: &str) -> Insight {
    let sets = sets(text);
    let insight = navigation_set(&sets)
        .computed()
        .find(|i| matches!(i.finding, Finding::ImageDelivery(_)))
        .unwrap()
        .clone();
    insight
}

#[test]
fn a_heavy_oversized_jpeg_fails_with_both_optimizations() {
    // 200 kB for 500x400 pixels shown at 250x200.
    let insight = delivery(&trace(&image("image/jpeg", 200_000, (250, 200), (500, 400), false)));
    assert_eq!(insight.state, State::Fail);
    let Finding::ImageDelivery(f) = &insight.finding else {
        unreachable!()
    };
    let image = &f.images[0];
    let kinds: Vec<&str> = image.optimizations.iter().map(|o| o.kind.as_str()).collect();
    assert_eq!(kinds, ["MODERN_FORMAT_OR_COMPRESSION", "RESPONSIVE_SIZE"]);
    // AVIF would need 200000 px / 6 = 33333 bytes.
    assert_eq!(image.optimizations[0].byte_savings, 200_000.0 - 33_333.0);
    assert_eq!(image.optimizations[1].byte_savings, 150_000.0);
    assert_eq!(image.byte_savings, 166_667.0 + (0.75_f64 * 33_333.0).round());
    assert_eq!(insight.wasted_bytes, Some(image.byte_savings));
    let Some(RelatedEvents::Labelled(labels)) = &insight.related_events else {
        panic!("labelled related events")
    };
    assert_eq!(
        labels[0].1[1],
        "This image file is larger than it needs to be (500x400) for its displayed dimensions (250x200). \
         Use responsive images to reduce the image download size. (Est 150\u{a0}kB)"
    );
    assert!(matches!(
        image.optimizations[1].kind,
        OptimizationKind::ResponsiveSize {
            file: (500.0, 400.0),
            ..
        }
    ));
}

#[test]
fn a_light_image_shown_at_its_size_passes_and_css_images_are_not_resized() {
    let insight = delivery(&trace(&image("image/png", 10_000, (500, 400), (500, 400), false)));
    assert_eq!(insight.state, State::Pass);
    assert_eq!(insight.wasted_bytes, Some(0.0));
    let insight = delivery(&trace(&image("image/webp", 30_000, (10, 10), (500, 400), true)));
    assert_eq!(insight.state, State::Pass);
}

#[test]
fn bytes_are_written_as_devtools_does() {
    assert_eq!(bytes_to_string(512.0), "512\u{a0}B");
    assert_eq!(bytes_to_string(19_113.0), "19.1\u{a0}kB");
    assert_eq!(bytes_to_string(329_318.0), "329\u{a0}kB");
    assert_eq!(bytes_to_string(1_663_270.0), "1.7\u{a0}MB");
}
