//! `cargo xtask variants --count N --out DIR`: N traces made from the
//! recorded fixtures (`fixtures/traces/`), each different, for measuring
//! `tracekit export` on a batch (issue 11): nothing of them is committed.
//!
//! Variant `i` is made from fixture `i mod F` (F fixtures, in name order):
//! - a Chrome trace is written by the benchmark's replicator
//!   (`bench/replicate.rs`) from copy `k = 1 + i / F` on: every pid and tid
//!   moved by `k` id offsets and every time by `k` trace spans, and a
//!   size of `SCALES[(i / F) mod 6]` times the recording (whole copies
//!   back to back, then a copy cut in time), so its processes, times and
//!   sizes are its own;
//! - a `.cpuprofile` (which has no pids) gets its `startTime` and
//!   `endTime` moved by `k` seconds and its samples' time deltas scaled
//!   by the same factor.
//!
//! Written as plain JSON (`variant-NNNN-NAME.json`), in parallel on all
//! cores.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use serde_json::Value;

use crate::bench::replicate::Source;

/// The sizes of the variants, in recordings.
const SCALES: [f64; 6] = [1.0, 0.5, 1.5, 2.0, 0.75, 1.25];

#[derive(clap::Args)]
pub struct VariantsArgs {
    /// How many traces to write.
    #[arg(long, default_value_t = 1000)]
    count: usize,
    /// Where to write them (made if needed).
    #[arg(long)]
    out: PathBuf,
}

/// A recorded fixture, read once.
enum Recording {
    Trace(String),
    Profile(Value),
}

fn read(path: &Path) -> anyhow::Result<Recording> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)
        .with_context(|| format!("inflating {}", path.display()))?;
    if path.to_string_lossy().contains(".cpuprofile") {
        Ok(Recording::Profile(serde_json::from_str(&text)?))
    } else {
        Ok(Recording::Trace(text))
    }
}

/// A `.cpuprofile` moved `k` seconds later, its time deltas scaled.
fn profile_variant(profile: &Value, k: u64, scale: f64) -> Value {
    let mut out = profile.clone();
    if let Value::Object(map) = &mut out {
        let start = map.get("startTime").and_then(Value::as_f64).unwrap_or(0.0) + k as f64 * 1e6;
        let deltas: Vec<f64> = map
            .get("timeDeltas")
            .and_then(Value::as_array)
            .map(|d| d.iter().map(|x| x.as_f64().unwrap_or(0.0) * scale).collect())
            .unwrap_or_default();
        let end = start + deltas.iter().sum::<f64>();
        map.insert("startTime".into(), Value::from(start));
        map.insert("endTime".into(), Value::from(end));
        map.insert("timeDeltas".into(), Value::from(deltas));
    }
    out
}

pub fn run(args: &VariantsArgs) -> anyhow::Result<()> {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(crate::root().join("fixtures/traces"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    fixtures.sort();
    let recordings: Vec<(String, Recording)> = fixtures
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            let stem = name.split('.').next().unwrap_or("trace").to_owned();
            read(p).map(|r| (stem, r))
        })
        .collect::<anyhow::Result<_>>()?;
    let sources: Vec<Option<Source<'_>>> = recordings
        .iter()
        .map(|(_, r)| match r {
            Recording::Trace(text) => Source::parse(text).map(Some),
            Recording::Profile(_) => Ok(None),
        })
        .collect::<anyhow::Result<_>>()?;
    std::fs::create_dir_all(&args.out)?;
    let next = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<()> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= args.count {
                            return Ok(());
                        }
                        let f = i % recordings.len();
                        let round = i / recordings.len();
                        let k = 1 + round as u64;
                        let scale = SCALES[round % SCALES.len()];
                        let (stem, recording) = &recordings[f];
                        let out = args.out.join(format!("variant-{i:04}-{stem}.json"));
                        match (recording, &sources[f]) {
                            (Recording::Trace(_), Some(source)) => {
                                // Whole bytes: the scale of a recording's size.
                                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                                let target = (source.event_bytes as f64 * scale) as u64;
                                source.write_from(k, target.max(1), &out)?;
                            }
                            (Recording::Profile(profile), _) => {
                                let text = serde_json::to_vec(&profile_variant(profile, k, scale))?;
                                std::fs::write(&out, text)?;
                            }
                            (Recording::Trace(_), None) => unreachable!("every trace has its source"),
                        }
                        let size = std::fs::metadata(&out).map_or(0, |m| m.len());
                        bytes.fetch_add(usize::try_from(size).unwrap_or(usize::MAX), Ordering::Relaxed);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().unwrap_or_else(|_| anyhow::bail!("a worker panicked")))
    })?;
    eprintln!(
        "xtask: {} traces, {} MB of JSON, in {} in {:.1} s",
        args.count,
        bytes.load(Ordering::Relaxed) >> 20,
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
