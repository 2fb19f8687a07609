//! Loading on several cores (blocks scanned ahead of the handlers, stretches
//! scanned in pieces, profiles and threads built in parallel) gives what
//! loading on one core gives: the same tracks, the same diagnostics, the
//! same error.

use std::io::Write;
use std::path::{Path, PathBuf};

use tracekit::{AnalyzeOptions, Parallelism};

fn recorded_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// The dump and diagnostics of a load, or its error.
fn load(bytes: &[u8], parallelism: Parallelism) -> Result<(String, String), String> {
    let options = AnalyzeOptions::default().with_parallelism(parallelism);
    let analysis = tracekit::analyze_bytes(bytes, &options).map_err(|e| e.to_string())?;
    Ok((
        tracekit::output::conformance(&analysis),
        tracekit::output::diagnostics(&analysis),
    ))
}

/// The load on one core, and on a pool of three threads.
fn both(bytes: &[u8]) -> [Result<(String, String), String>; 2] {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    [
        load(bytes, Parallelism::Sequential),
        pool.install(|| load(bytes, Parallelism::Rayon)),
    ]
}

#[test]
fn recorded_traces_load_the_same_on_all_cores() {
    let files = recorded_fixtures();
    assert!(files.len() >= 6);
    for file in files {
        let [sequential, parallel] = both(&std::fs::read(&file).unwrap());
        assert!(sequential.is_ok(), "{}", file.display());
        assert!(sequential == parallel, "{}", file.display());
    }
}

fn gzip(text: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// Damaged gzip, pushed in pieces: the same warnings, or the same error,
/// on several cores as on one.
#[test]
fn damaged_gzip_fails_the_same_on_all_cores() {
    let file = recorded_fixtures()
        .into_iter()
        .find(|f| f.ends_with("kitchen-sink.json.gz"))
        .unwrap();
    // Stored rather than compressed: 12 MB of gzip, pushed in several
    // pieces.
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&std::fs::read(file).unwrap()[..]),
        &mut text,
    )
    .unwrap();
    let good = gzip(&text, flate2::Compression::none());
    assert!(good.len() > 4 << 20, "several pieces of input");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // Cut anywhere: a truncated stream (and a truncated trace).
    for cut in [100, good.len() / 3, good.len() / 2, good.len() - 4] {
        cases.push((format!("cut at {cut}"), good[..cut].to_vec()));
    }
    // A corrupt deflate stream, early and late.
    for at in [good.len() / 4, good.len() * 3 / 4] {
        let mut bad = good.clone();
        for b in &mut bad[at..at + 64] {
            *b = !*b;
        }
        cases.push((format!("corrupt at {at}"), bad));
    }
    // Bytes after the stream.
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"not gzip");
    cases.push(("trailing bytes".into(), trailing));
    let mut errors = 0;
    for (name, bytes) in cases {
        let [sequential, parallel] = both(&bytes);
        assert!(sequential == parallel, "{name}: {sequential:?}\n{parallel:?}");
        errors += usize::from(sequential.is_err());
    }
    assert!(errors >= 3, "the corrupt cases fail");
}
