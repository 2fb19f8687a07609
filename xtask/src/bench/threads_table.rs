//! The threads table: tracekit with `--threads 1` and `--threads 2`, and
//! two `--threads 1` runs at once (what the machine's two cores give two
//! independent runs: the most `--threads 2` could be given).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;

use super::format::{last_error, mb, ms, rate, secs};
use super::measure::{self, same_bytes, summarize, Run, Summary};
use super::runner::{Bench, Tool};
use super::trace::Trace;

/// The thread counts of the table's rows.
const COUNTS: [usize; 2] = [1, 2];

/// The runs of the threads table.
struct ThreadsRuns {
    /// For each of [`COUNTS`], its runs and whether their outputs were the
    /// reference's.
    measured: Vec<(Vec<Run>, Result<(), u64>)>,
    /// Two `--threads 1` runs at once, per round.
    pairs: Vec<(Run, Run)>,
    /// Whether both outputs of every pair were the reference's.
    pairs_same: Result<(), u64>,
}

impl Bench {
    /// `loading`: the loading alone with `--threads 1` and with the
    /// default threads, from the stage table.
    pub(super) fn threads_table(
        &self,
        trace: &Trace,
        runs: usize,
        default: &Summary,
        reference: &Path,
        loading: Option<(Duration, Duration)>,
    ) -> anyhow::Result<String> {
        let ThreadsRuns {
            measured,
            pairs,
            pairs_same,
        } = self.threads_runs(trace, runs, reference)?;
        let verdict = |r: &Result<(), u64>| match r {
            Ok(()) => "byte-identical".to_owned(),
            Err(at) => format!("**DIFFERENT** at byte {at}"),
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut md = String::new();
        writeln!(md, "## tracekit's threads\n")?;
        writeln!(
            md,
            "Same JSON input, `tracks --format conformance --threads N`, median of {runs} runs; \
             output compared with the default run's. The last row is two `--threads 1` runs started \
             together, in the same rounds: how much the machine's two cores give two independent runs \
             of the same work, the most `--threads 2` could be given.\n"
        )?;
        writeln!(md, "| threads | wall time | CPU time | peak RSS | output |")?;
        writeln!(md, "|---|---:|---:|---:|---|")?;
        for (n, (runs, same)) in COUNTS.iter().zip(&measured) {
            let s = summarize(runs);
            writeln!(
                md,
                "| `--threads {n}` | {} s | {} s | {} | {} |",
                secs(s.wall),
                secs(s.cpu),
                mb(s.max_rss),
                verdict(same)
            )?;
        }
        writeln!(
            md,
            "| default ({cores} cores) | {} s | {} s | {} | (reference) |",
            secs(default.wall),
            secs(default.cpu),
            mb(default.max_rss)
        )?;
        // A pair is done when its slower run is.
        let pair_wall = measure::median(pairs.iter().map(|(a, b)| a.wall.max(b.wall)));
        let pair_runs: Vec<Run> = pairs.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
        let pair = summarize(&pair_runs);
        writeln!(
            md,
            "| two `--threads 1` at once | {} s (each: {} s) | {} s each | {} each | {} |\n",
            secs(pair_wall),
            secs(pair.wall),
            secs(pair.cpu),
            mb(pair.max_rss),
            verdict(&pairs_same)
        )?;
        let one_thread = summarize(&measured[0].0).wall;
        let speedup = one_thread.as_secs_f64() / summarize(&measured[1].0).wall.as_secs_f64();
        // Two runs' work in the pair's time, against one run's alone.
        let machine = 2.0 * one_thread.as_secs_f64() / pair_wall.as_secs_f64();
        writeln!(
            md,
            "- `--threads 2` against `--threads 1`: **{speedup:.2}x**.\n\
             - The machine, two runs at once against one alone (2 x {} s / {} s): **{machine:.2}x**; \
             `--threads 2` gets {:.0}% of it.\n",
            secs(one_thread),
            secs(pair_wall),
            100.0 * speedup / machine
        )?;
        if let Some((one, default)) = loading {
            // What two cores would give the loading if it were spread over
            // them perfectly, at the machine's own factor.
            let best = one.div_f64(machine);
            writeln!(
                md,
                "- Loading alone (stage table): {} with `--threads 1`, {} with the default threads ({:.2}x). \
                 Spread perfectly over two cores at the machine's {machine:.2}x, it would take {} \
                 ({} MB/s).\n",
                ms(one),
                ms(default),
                one.as_secs_f64() / default.as_secs_f64(),
                ms(best),
                rate(trace.json_size as f64 / 1e6, best)
            )?;
        }
        Ok(md)
    }

    /// Round by round, `runs` times: tracekit with each of [`COUNTS`]
    /// threads, then two `--threads 1` runs at once; each output compared
    /// with `reference`.
    fn threads_runs(&self, trace: &Trace, runs: usize, reference: &Path) -> anyhow::Result<ThreadsRuns> {
        let mut measured: Vec<(Vec<Run>, Result<(), u64>)> = COUNTS.iter().map(|_| (Vec::new(), Ok(()))).collect();
        // Two `--threads 1` runs at once, per round: their walls, and
        // whether both outputs were the reference's.
        let mut pairs: Vec<(Run, Run)> = Vec::new();
        let mut pairs_same: Result<(), u64> = Ok(());
        for _ in 0..runs {
            for (i, n) in COUNTS.iter().enumerate() {
                let flag = n.to_string();
                let (run, out, stderr) = self.run_with(
                    Tool::Tracekit,
                    &trace.json,
                    &[],
                    &["--threads", &flag],
                    &format!("threads-{n}"),
                )?;
                if !run.ok() {
                    bail!("tracekit --threads {n} failed: {}", last_error(&stderr));
                }
                measured[i].0.push(run);
                if measured[i].1.is_ok() {
                    measured[i].1 = same_bytes(reference, &out)?;
                }
            }
            let (a, b) = self.run_pair(trace)?;
            pairs_same = pairs_same
                .and(same_bytes(reference, &a.1)?)
                .and(same_bytes(reference, &b.1)?);
            pairs.push((a.0, b.0));
        }
        Ok(ThreadsRuns {
            measured,
            pairs,
            pairs_same,
        })
    }
}
