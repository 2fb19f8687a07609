//! Loading on several cores (blocks scanned ahead of the handlers, stretches
//! scanned in pieces, gzip inflated ahead of the text, profiles and threads
//! built in parallel) gives what loading on one core gives: the same tracks,
//! the same diagnostics, the same error.

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

/// A gzip stream of stored (uncompressed) deflate blocks of 60,000 bytes,
/// whose block `bad` has a length that does not match its check: corrupt
/// deflate there, whatever the inflater.
fn stored_gzip_with_a_bad_block(text: &[u8], bad: usize) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let blocks: Vec<&[u8]> = text.chunks(60_000).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = u16::try_from(block.len()).unwrap();
        let check = if i == bad { len } else { !len };
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&check.to_le_bytes());
        out.extend_from_slice(block);
    }
    let mut crc = flate2::Crc::new();
    crc.update(text);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).unwrap().to_le_bytes());
    out
}

/// Damaged gzip, inflated ahead of the text on several cores: the same
/// warnings, or the same error, as on one core.
#[test]
fn damaged_gzip_fails_the_same_on_all_cores() {
    let file = recorded_fixtures()
        .into_iter()
        .find(|f| f.ends_with("kitchen-sink.json.gz"))
        .unwrap();
    // Stored rather than compressed: 12 MB of gzip, pushed in several
    // pieces, each inflated while the one before is decoded.
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
    // Two faults: invalid UTF-8 early in the text, then a corrupt stream
    // later. The text's fault comes first and is the one reported, on one
    // core as on several, whatever pieces the text reached the tokenizer in.
    let mut text = br#"{"traceEvents":["#.to_vec();
    for i in 0..100_000u64 {
        if i == 2_000 {
            text.extend_from_slice(b"{\"name\":\"\xff\"},");
        }
        let event = format!(
            r#"{{"name":"E{}","ph":"X","ts":{},"dur":{},"pid":1,"tid":1}},"#,
            i * 7919 % 1000,
            i * 13,
            i % 17
        );
        text.extend_from_slice(event.as_bytes());
    }
    cases.push((
        "invalid UTF-8, then a corrupt stream".into(),
        stored_gzip_with_a_bad_block(&text, 50),
    ));
    let mut errors = 0;
    for (name, bytes) in cases {
        let [sequential, parallel] = both(&bytes);
        assert!(sequential == parallel, "{name}: {sequential:?}\n{parallel:?}");
        errors += usize::from(sequential.is_err());
        if name.starts_with("invalid UTF-8") {
            let error = sequential.unwrap_err();
            assert!(error.contains("invalid UTF-8"), "{name}: {error}");
        }
    }
    assert!(errors >= 4, "the corrupt cases fail");
}
