//! The gzip decoder on whole streams and on streams in pieces of every
//! size: single and concatenated members, every optional header part, cuts,
//! trailing bytes, checksum mismatches and corrupt data, and agreement with
//! flate2's own decoder.

use super::header::{CM_DEFLATE, FCOMMENT, FEXTRA, FHCRC, FNAME, ID1, ID2};
use super::*;
use std::io::{Read, Write};

/// Deterministic noise and piece sizes (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| (self.next() >> 24) as u8).collect()
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A member built by hand, with the optional header parts.
fn member(data: &[u8], extra: Option<&[u8]>, name: Option<&[u8]>, comment: Option<&[u8]>, hcrc: bool) -> Vec<u8> {
    let mut flags = 0;
    flags |= if extra.is_some() { FEXTRA } else { 0 };
    flags |= if name.is_some() { FNAME } else { 0 };
    flags |= if comment.is_some() { FCOMMENT } else { 0 };
    flags |= if hcrc { FHCRC } else { 0 };
    let mut out = vec![ID1, ID2, CM_DEFLATE, flags, 1, 2, 3, 4, 0, 255];
    if let Some(extra) = extra {
        out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(extra);
    }
    for text in [name, comment].into_iter().flatten() {
        out.extend_from_slice(text);
        out.push(0);
    }
    if hcrc {
        let crc = crc32fast::hash(&out) as u16;
        out.extend_from_slice(&crc.to_le_bytes());
    }
    out.extend(deflate(data));
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// Something like a trace: `events` events, compressible but not trivially.
fn trace(events: usize) -> Vec<u8> {
    let mut s = String::from("[\n");
    for i in 0..events {
        s.push_str(&format!(
            "{{\"name\":\"Task{}\",\"cat\":\"devtools.timeline\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{\"n\":{}}}}},\n",
            i % 13,
            i % 3,
            i % 7,
            i * 17,
            i % 101,
            i.wrapping_mul(7919) % 100_003
        ));
    }
    s.push_str("{}]\n");
    s.into_bytes()
}

struct Run {
    text: Vec<u8>,
    /// The first push error, if any, and after how many input bytes.
    push_error: Option<(GzipError, usize)>,
    end: Result<GzipEnd, GzipError>,
    consumed: u64,
}

/// Decodes `input` in pieces of the given sizes (cycled).
fn run(input: &[u8], mut sizes: impl FnMut() -> usize) -> Run {
    let mut decoder = GzipDecoder::new();
    let mut text = Vec::new();
    let mut push_error = None;
    let mut at = 0;
    while at < input.len() {
        let n = sizes().clamp(1, input.len() - at);
        let result = decoder.push(&input[at..at + n], |piece| {
            assert!(!piece.is_empty() && piece.len() <= OUT_BUF);
            text.extend_from_slice(piece);
            Ok::<(), ()>(())
        });
        at += n;
        if let Err(e) = result {
            match e {
                PushError::Gzip(e) => push_error = Some((e, at)),
                PushError::Sink(()) => unreachable!(),
            }
            break;
        }
    }
    assert_eq!(decoder.inflated(), text.len() as u64);
    let consumed = decoder.consumed();
    Run {
        text,
        push_error,
        end: decoder.finish(),
        consumed,
    }
}

fn whole(input: &[u8]) -> Run {
    run(input, || usize::MAX)
}

fn bytewise(input: &[u8]) -> Run {
    run(input, || 1)
}

fn random(input: &[u8], seed: u64) -> Run {
    let mut rng = Rng(seed);
    run(input, move || match rng.next() % 4 {
        0 => 1 + (rng.next() % 4) as usize,
        1 => 1 + (rng.next() % 100) as usize,
        2 => 1 + (rng.next() % 5000) as usize,
        _ => 1 + (rng.next() % 300_000) as usize,
    })
}

/// Whole, 1-byte, and random pieces all give the same outcome.
fn all_ways(input: &[u8]) -> (Vec<u8>, Result<GzipEnd, GzipError>) {
    let one = whole(input);
    assert!(one.push_error.is_none());
    for other in [bytewise(input), random(input, 1), random(input, 0xdead_beef)] {
        assert!(other.push_error.is_none());
        assert!(other.text == one.text, "texts differ");
        assert_eq!(other.end, one.end);
        assert_eq!(other.consumed, input.len() as u64);
    }
    (one.text, one.end)
}

#[test]
fn whole_bytewise_and_random_pieces_agree() {
    let data = trace(6000);
    assert!(data.len() > 3 * OUT_BUF);
    let (text, end) = all_ways(&gzip(&data));
    assert!(text == data);
    assert_eq!(end, Ok(GzipEnd::Complete));
    // Very compressible: a small input fills the output buffer many times.
    let data = vec![b'a'; 5 << 20];
    let compressed = gzip(&data);
    assert!(compressed.len() < 20_000);
    let (text, end) = all_ways(&compressed);
    assert!(text == data);
    assert_eq!(end, Ok(GzipEnd::Complete));
    // Incompressible: stored blocks.
    let data = Rng(5).bytes(300_000);
    let (text, end) = all_ways(&gzip(&data));
    assert!(text == data);
    assert_eq!(end, Ok(GzipEnd::Complete));
}

#[test]
fn counts_bytes_in_and_out() {
    let data = trace(100);
    let compressed = gzip(&data);
    let mut decoder = GzipDecoder::new();
    decoder.push(&compressed, |_| Ok::<(), ()>(())).unwrap();
    assert_eq!(decoder.inflated(), data.len() as u64);
    assert_eq!(decoder.consumed(), compressed.len() as u64);
    assert_eq!(decoder.members(), 1);
}

#[test]
fn concatenated_members_are_one_stream() {
    let data = trace(3000);
    let (a, b) = data.split_at(1000);
    let (b, c) = b.split_at(50_000);
    let mut input = gzip(a);
    input.extend(gzip(b));
    input.extend(gzip(b""));
    input.extend(member(c, None, Some(b"c.json"), None, true));
    let (text, end) = all_ways(&input);
    assert!(text == data);
    assert_eq!(end, Ok(GzipEnd::Complete));
}

#[test]
fn header_with_every_optional_part() {
    let data = trace(200);
    let extra: Vec<u8> = (0..600u32).map(|i| i as u8).collect();
    for (extra, name, comment, hcrc) in [
        (
            Some(&extra[..]),
            Some(&b"trace.json"[..]),
            Some(&b"a comment"[..]),
            true,
        ),
        (Some(&b""[..]), None, None, false),
        (None, Some(&b""[..]), Some(&b""[..]), false),
        (None, None, Some(&b"only a comment"[..]), true),
        (None, None, None, true),
    ] {
        let (text, end) = all_ways(&member(&data, extra, name, comment, hcrc));
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
    }
    // flate2's own header writer.
    let mut e = flate2::GzBuilder::new()
        .filename("x.json")
        .comment("c")
        .extra(vec![1, 2, 3, 4])
        .mtime(7)
        .write(Vec::new(), flate2::Compression::fast());
    e.write_all(&data).unwrap();
    let (text, end) = all_ways(&e.finish().unwrap());
    assert!(text == data);
    assert_eq!(end, Ok(GzipEnd::Complete));
}

#[test]
fn a_wrong_header_crc_is_an_error() {
    let mut input = member(b"[]", None, Some(b"n"), None, true);
    input[12] ^= 1;
    for r in [whole(&input), bytewise(&input)] {
        let (e, _) = r.push_error.unwrap();
        assert_eq!(e.kind(), GzipErrorKind::HeaderChecksumMismatch);
        assert_eq!(
            e.to_string(),
            "corrupt gzip stream (after 0 decompressed bytes): gzip header checksum mismatch"
        );
        assert_eq!(r.end.unwrap_err().kind(), GzipErrorKind::HeaderChecksumMismatch);
    }
}

#[test]
fn bytes_after_a_complete_member_are_ignored() {
    let data = trace(50);
    let good = gzip(&data);
    let at = good.len() as u64;
    let tails: [&[u8]; 7] = [
        &[0; 512],
        b"trailing garbage",
        &[ID1],
        &[ID1, 0],
        &[ID1, ID2, 9, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3],
        &[ID1, ID2, 8, 0x20],
        &[0],
    ];
    for tail in tails {
        let mut input = good.clone();
        input.extend_from_slice(tail);
        let (text, end) = all_ways(&input);
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::TrailingBytesIgnored { at }), "{tail:?}");
        assert_eq!(
            end.unwrap().warning().unwrap(),
            "bytes after the end of the gzip stream were ignored"
        );
    }
    // After several members, at the end of the last one.
    let mut input = good.clone();
    input.extend(gzip(b"more"));
    let at = input.len() as u64;
    input.extend_from_slice(b"\n\n");
    let (text, end) = all_ways(&input);
    assert_eq!(text.len(), data.len() + 4);
    assert_eq!(end, Ok(GzipEnd::TrailingBytesIgnored { at }));
}

#[test]
fn cut_in_the_deflate_data_keeps_what_came_out() {
    let data = trace(2000);
    let input = gzip(&data);
    let cut = &input[..input.len() / 2];
    let (text, end) = all_ways(cut);
    let kept = text.len() as u64;
    assert!(kept > 0 && kept < data.len() as u64, "{kept}");
    assert!(data.starts_with(&text));
    assert_eq!(end, Ok(GzipEnd::CutShort { kept }));
    assert_eq!(
        end.unwrap().warning().unwrap(),
        format!("the gzip stream is cut short: kept the {kept} bytes it held")
    );
    // Cut inside a second member's header.
    let mut input = gzip(b"[1]");
    input.extend_from_slice(&gzip(b"x")[..5]);
    assert_eq!(all_ways(&input).1, Ok(GzipEnd::CutShort { kept: 3 }));
}

#[test]
fn cut_before_any_text_is_an_error() {
    let input = gzip(&trace(10));
    for len in [0, 1, 2, 6, 10, 15] {
        let r = whole(&input[..len]);
        assert!(r.push_error.is_none());
        assert!(r.text.is_empty());
        let e = r.end.unwrap_err();
        assert_eq!(e.kind(), GzipErrorKind::CutBeforeAnyData, "{len}");
        assert_eq!(
            e.to_string(),
            "corrupt gzip stream (after 0 decompressed bytes): cut short before any text"
        );
        assert!(!e.to_string().contains("checksum"));
    }
    // The empty text, cut in its trailer: nothing to keep either.
    let empty = gzip(b"");
    let r = whole(&empty[..empty.len() - 1]);
    assert_eq!(r.end.unwrap_err().kind(), GzipErrorKind::CutBeforeAnyData);
}

#[test]
fn cut_in_the_trailer_keeps_every_byte() {
    let data = trace(300);
    let input = gzip(&data);
    for missing in 1..=8 {
        let (text, end) = all_ways(&input[..input.len() - missing]);
        assert!(text == data);
        assert_eq!(
            end,
            Ok(GzipEnd::CutShort {
                kept: data.len() as u64
            })
        );
    }
}

#[test]
fn a_trailer_that_disagrees_is_a_checksum_mismatch() {
    let data = trace(300);
    let good = gzip(&data);
    let n = good.len();
    for flip in [n - 8, n - 5, n - 4, n - 2, n - 1] {
        let mut bad = good.clone();
        bad[flip] ^= 0xff;
        let (text, end) = all_ways(&bad);
        assert!(text == data);
        let end = end.unwrap();
        assert_eq!(
            end,
            GzipEnd::ChecksumMismatch {
                kept: data.len() as u64
            }
        );
        let warning = end.warning().unwrap();
        assert!(warning.contains("checksum") && !warning.contains("cut short"));
        // Then more members, or trailing bytes: still reported.
        let mut more = bad.clone();
        more.extend(gzip(b"x"));
        more.extend_from_slice(&[0; 10]);
        assert_eq!(
            all_ways(&more).1,
            Ok(GzipEnd::ChecksumMismatch {
                kept: data.len() as u64 + 1
            })
        );
    }
}

#[test]
fn garbage_after_the_magic_is_corrupt_deflate_at_once() {
    let input = b"\x1f\x8b\x08\x00garbagegarbagegarbage";
    for r in [whole(input), bytewise(input), random(input, 3)] {
        let (e, after) = r.push_error.expect("an error while pushing");
        assert_eq!(e.kind(), GzipErrorKind::CorruptDeflate);
        assert_eq!(
            e.to_string(),
            "corrupt gzip stream (after 0 decompressed bytes): corrupt deflate stream"
        );
        assert_eq!(r.end.unwrap_err(), e);
        assert!(after <= input.len());
    }
    // Pushed a byte at a time, the error comes before the end of the input.
    let (_, after) = bytewise(input).push_error.unwrap();
    assert!(after < input.len(), "{after}");
}

#[test]
fn noise_as_deflate_data_is_an_error() {
    let data = trace(20);
    let good = gzip(&data);
    for seed in [99, 1, 2, 3, 4, 5, 6, 7] {
        let mut input = good[..10].to_vec();
        input.extend(Rng(seed).bytes(2000));
        for r in [whole(&input), bytewise(&input)] {
            let e = r.end.unwrap_err();
            assert!(
                matches!(e.kind(), GzipErrorKind::CorruptDeflate),
                "seed {seed}: {e} (pushed: {:?})",
                r.push_error
            );
            assert!(e.to_string().starts_with("corrupt gzip stream (after "));
        }
    }
    // Noise in the middle of a dynamic block may well decode (to
    // garbage) to its end: deflate has no check there, only the trailer.
    let data = trace(3000);
    let mut input = gzip(&data);
    input.truncate(input.len() / 2);
    input.extend(Rng(9).bytes(5000));
    let r = whole(&input);
    assert!(r.push_error.is_some() || matches!(r.end, Ok(GzipEnd::CutShort { .. })));
}

#[test]
fn a_bad_first_header_is_an_error_at_once() {
    let inputs: [&[u8]; 5] = [
        b"hello, world",
        &[ID1, 0x8c],
        &[ID1, ID2, 7],
        &[ID1, ID2, 8, 0x80],
        &[ID1, ID2, 8, 0x20, 0, 0, 0, 0, 0, 0],
    ];
    for input in inputs {
        for r in [whole(input), bytewise(input)] {
            let (e, after) = r.push_error.expect("an error while pushing");
            assert_eq!(e.kind(), GzipErrorKind::BadHeader);
            assert!(after <= input.len());
            assert_eq!(
                e.to_string(),
                "corrupt gzip stream (after 0 decompressed bytes): invalid gzip header"
            );
        }
        // One byte at a time, the error comes with the first bad byte.
        let (_, after) = bytewise(input).push_error.unwrap();
        let first_bad = [ID1, ID2, CM_DEFLATE]
            .iter()
            .zip(input)
            .take_while(|(a, b)| a == b)
            .count();
        assert_eq!(after, first_bad + 1, "{input:?}");
    }
}

#[test]
fn empty_text() {
    let (text, end) = all_ways(&gzip(b""));
    assert!(text.is_empty());
    assert_eq!(end, Ok(GzipEnd::Complete));
    assert_eq!(GzipEnd::Complete.warning(), None);
}

#[test]
fn a_sink_error_stops_decoding() {
    let data = trace(3000);
    let input = gzip(&data);
    let mut decoder = GzipDecoder::new();
    let mut calls = 0;
    let result = decoder.push(&input, |_| {
        calls += 1;
        if calls == 2 {
            Err("full")
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(PushError::Sink("full"))));
    assert_eq!(decoder.inflated(), 2 * OUT_BUF as u64);
    let again = decoder.push(b"x", |_| Ok::<(), &str>(()));
    match again {
        Err(PushError::Gzip(e)) => assert_eq!(e.kind(), GzipErrorKind::Stopped),
        _ => panic!("expected an error"),
    }
    assert_eq!(decoder.finish().unwrap_err().kind(), GzipErrorKind::Stopped);
}

#[test]
fn agrees_with_flate2_on_many_random_streams() {
    let mut rng = Rng(42);
    for round in 0..40 {
        let len = (rng.next() % 200_000) as usize;
        let mut data = trace(len / 120 + 1);
        data.truncate(len);
        let members = 1 + (rng.next() % 3) as usize;
        let mut input = Vec::new();
        for part in data.chunks(len / members + 1) {
            input.extend(gzip(part));
        }
        let mut expected = Vec::new();
        flate2::read::MultiGzDecoder::new(&input[..])
            .read_to_end(&mut expected)
            .unwrap();
        let r = random(&input, round);
        assert!(r.text == expected && expected == data, "round {round}");
        assert_eq!(r.end, Ok(GzipEnd::Complete));
    }
}
