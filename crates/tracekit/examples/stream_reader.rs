//! Streams a trace from any `std::io::Read` (a file, a socket, a
//! decompressor, standard input) into a `tracekit::Loader`, a chunk at a
//! time: only what the tracks need is kept, never the input, so a trace
//! of any size loads in bounded memory. Gzip is recognized by its first
//! bytes; there is nothing to unpack first.
//!
//! ```sh
//! cargo run --release -p tracekit --example stream_reader -- TRACE   # or - for standard input
//! ```
//!
//! TRACE defaults to the bundled `fixtures/traces/kitchen-sink.json.gz`.
//! `cargo test` runs the test at the end on that fixture.

use std::error::Error;
use std::io::Read;

use tracekit::{Analysis, AnalyzeOptions, LoadError, Loader};

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| FIXTURE.to_owned());
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?)
    };
    let analysis = stream(reader, 1 << 20, |bytes| eprint!("\rread {:.1} MB", bytes as f64 / 1e6))
        .map_err(|e| format!("{path}: {e}"))?;
    eprintln!();
    println!(
        "{:?}: {} events, {} threads, {} track nodes; skipped {}",
        analysis.kind(),
        analysis.event_count(),
        analysis.threads().count(),
        analysis.threads().map(|t| t.node_count()).sum::<usize>(),
        analysis.diagnostics().total_skipped(),
    );
    for warning in analysis.diagnostics().warnings() {
        eprintln!("warning: {warning}");
    }
    Ok(())
}

/// The bundled fixture (a page doing a bit of everything, gzipped).
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/traces/kitchen-sink.json.gz"
);

/// Loads what `reader` gives, `chunk` bytes at a time, calling `progress`
/// with the bytes read so far. (`Loader::read_from` does the same in one
/// call, reading plain text straight into the tokenizer's buffer.)
fn stream(mut reader: impl Read, chunk: usize, mut progress: impl FnMut(u64)) -> Result<Analysis, LoadError> {
    let mut loader = Loader::new(AnalyzeOptions::default());
    let mut buffer = vec![0; chunk];
    let mut total = 0;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LoadError::new(tracekit::ErrorKind::Io, format!("reading: {e}"))),
        };
        // A chunk may end anywhere: inside an event, a string, a UTF-8
        // character, a gzip block.
        loader.push(&buffer[..n])?;
        total += n as u64;
        progress(total);
    }
    loader.finish()
}

#[test]
fn streaming_in_chunks_gives_what_loading_at_once_gives() {
    let bytes = std::fs::read(FIXTURE).unwrap();
    let whole = tracekit::analyze_bytes(&bytes, &AnalyzeOptions::default()).unwrap();
    let mut reported = 0;
    // Odd chunks, so that they cut the gzip stream and the events anywhere.
    let streamed = stream(std::fs::File::open(FIXTURE).unwrap(), 7919, |n| reported = n).unwrap();
    assert_eq!(reported, bytes.len() as u64);
    assert!(streamed.event_count() > 10_000);
    assert_eq!(streamed.event_count(), whole.event_count());
    assert_eq!(
        tracekit::output::conformance(&streamed),
        tracekit::output::conformance(&whole)
    );
    // A reader that fails is an error, not a panic.
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the disk is gone"))
        }
    }
    let error = stream(Broken, 1024, |_| {}).unwrap_err();
    assert_eq!(error.kind(), tracekit::ErrorKind::Io);
}
