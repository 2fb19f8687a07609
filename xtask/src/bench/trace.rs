//! The bench trace: recorded by `xtask/js/record.mjs` when missing (or
//! when asked to record it again), and decompressed next to its gzip.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::{BIG_DIR, RECORD_SCALE, TRACE_NAME};
use crate::node;

/// The big trace, gzipped as recorded and decompressed.
pub(super) struct Trace {
    pub(super) json: PathBuf,
    pub(super) gz: PathBuf,
    pub(super) json_size: u64,
    pub(super) gz_size: u64,
}

/// The bench trace, recorded first if it is missing or `record` asks for
/// it, and decompressed if its JSON is older than its gzip.
pub(super) fn ensure_trace(record: bool) -> anyhow::Result<Trace> {
    let dir = Path::new(BIG_DIR);
    let gz = dir.join(format!("{TRACE_NAME}.json.gz"));
    let json = dir.join(format!("{TRACE_NAME}.json"));
    if record || !gz.exists() {
        eprintln!(
            "xtask: recording {} (scenario {TRACE_NAME}, scale {RECORD_SCALE}: about 200 MB of JSON, a few minutes)",
            gz.display()
        );
        node::ensure_chromium()?;
        node::ensure_packages()?;
        node::run_node(&[
            "xtask/js/record.mjs".into(),
            "--out".into(),
            BIG_DIR.into(),
            "--scenario".into(),
            TRACE_NAME.into(),
            "--scale".into(),
            RECORD_SCALE.into(),
        ])?;
        if !gz.exists() {
            bail!("the recorder did not write {}", gz.display());
        }
    }
    let stale = match (json.metadata(), gz.metadata()) {
        (Ok(j), Ok(g)) => j.modified()? < g.modified()?,
        _ => true,
    };
    if stale {
        eprintln!("xtask: decompressing {} to {}", gz.display(), json.display());
        let tmp = json.with_extension("json.partial");
        let mut decoder = flate2::read::MultiGzDecoder::new(BufReader::new(std::fs::File::open(&gz)?));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        std::io::copy(&mut decoder, &mut out).with_context(|| format!("decompressing {}", gz.display()))?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &json)?;
    }
    Ok(Trace {
        json_size: json.metadata()?.len(),
        gz_size: gz.metadata()?.len(),
        json,
        gz,
    })
}
