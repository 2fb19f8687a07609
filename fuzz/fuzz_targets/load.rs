//! Loading arbitrary bytes: gzip detection and inflation, UTF-8 checks,
//! document detection, event splitting and decoding, CPU profile and
//! Self-Profiling parsing, and the handlers that run while loading. Any
//! input must give either an analysis or a `LoadError`, never a panic, a
//! stack overflow or a hang.
//!
//! It also checks the streaming loader against the in-memory one: the
//! same bytes fed to `Loader::push` in pieces (sizes drawn from the input),
//! or read by `Loader::read_from`, must give the same outcome as
//! `analyze_bytes`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracekit::{Analysis, AnalyzeOptions, LoadError, Loader};

/// Piece sizes for the streaming loader, drawn from the input itself so
/// that a crash reproduces from its file alone.
fn piece_sizes(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let seed = data
        .iter()
        .fold(0x9e37_79b9_u32, |h, &b| h.rotate_left(5) ^ u32::from(b));
    let mut state = seed | 1;
    std::iter::from_fn(move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        Some(1 + (state % 64) as usize)
    })
}

/// An error without the count of decompressed bytes in a gzip error,
/// which depends on how the input was cut into pieces (known, harmless).
fn comparable(e: &tracekit::LoadError) -> String {
    let text = e.to_string();
    match (text.find("(after "), text.find(" decompressed bytes)")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &text[..a], &text[b + " decompressed bytes)".len()..]),
        _ => text,
    }
}

fuzz_target!(|data: &[u8]| {
    let options = AnalyzeOptions::default();
    let whole = tracekit::analyze_bytes(data, &options);

    let mut loader = Loader::new(options);
    let mut rest = data;
    let mut pushed = Ok(());
    for size in piece_sizes(data) {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        rest = tail;
        pushed = loader.push(piece);
        if pushed.is_err() {
            break;
        }
    }
    let streamed = pushed.and_then(|()| loader.finish());

    let mut loader = Loader::new(options);
    let read = loader.read_from(&mut &data[..], |_| {}).and_then(|()| loader.finish());

    compare(&whole, &streamed, "Loader::push");
    compare(&whole, &read, "Loader::read_from");
});

fn compare(whole: &Result<Analysis, LoadError>, other: &Result<Analysis, LoadError>, how: &str) {
    match (whole, other) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.kind, b.kind, "input kind: analyze_bytes vs {how}");
            assert_eq!(a.event_count, b.event_count, "event count: analyze_bytes vs {how}");
            assert_eq!(a.diagnostics, b.diagnostics, "diagnostics: analyze_bytes vs {how}");
        }
        (Err(a), Err(b)) => assert_eq!(comparable(a), comparable(b), "error: analyze_bytes vs {how}"),
        (a, b) => panic!(
            "analyze_bytes and {how} disagree: {:?} vs {:?}",
            a.as_ref().map(|x| x.event_count),
            b.as_ref().map(|x| x.event_count)
        ),
    }
}
