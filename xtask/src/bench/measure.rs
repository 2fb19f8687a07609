//! Running one child process and measuring it: wall time, and its own peak
//! resident set size (`wait4`'s `ru_maxrss`, which counts the child alone,
//! not the xtask). On Linux a sampler also reads `/proc/PID/status` every
//! few milliseconds, to tell how much of that peak was anonymous memory
//! (the heap) and how much file-backed pages (a memory-mapped input).

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// What one run of a child cost.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub wall: Duration,
    /// Peak resident set size in bytes (`ru_maxrss`).
    pub max_rss: u64,
    /// Sampled peaks of anonymous and file-backed resident memory, in bytes
    /// (0 where `/proc` is not available). The two peaks need not be at the
    /// same moment.
    pub peak_anon: u64,
    pub peak_file: u64,
    /// The last `VmHWM` seen by the sampler (a cross-check of `max_rss`,
    /// blind to the last few milliseconds).
    pub sampled_hwm: u64,
    pub user: Duration,
    pub sys: Duration,
    /// `None` when the child exited normally with status 0.
    pub failure: Option<String>,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }

    /// This run followed by `next`, as one: times add up, memory peaks
    /// are the larger of the two.
    pub fn then(&self, next: &Run) -> Run {
        Run {
            wall: self.wall + next.wall,
            max_rss: self.max_rss.max(next.max_rss),
            peak_anon: self.peak_anon.max(next.peak_anon),
            peak_file: self.peak_file.max(next.peak_file),
            sampled_hwm: self.sampled_hwm.max(next.sampled_hwm),
            user: self.user + next.user,
            sys: self.sys + next.sys,
            failure: self.failure.clone().or_else(|| next.failure.clone()),
        }
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
}

/// Reads `RssAnon`, `RssFile` (+ `RssShmem`) and `VmHWM` (bytes) of a
/// process, if it still runs.
fn rss_split(status_path: &Path) -> Option<(u64, u64, u64)> {
    let text = std::fs::read_to_string(status_path).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some((
        field("RssAnon:")?,
        field("RssFile:")? + field("RssShmem:").unwrap_or(0),
        field("VmHWM:").unwrap_or(0),
    ))
}

/// Runs `cmd` with its stdout and stderr sent to files, and waits for it.
pub fn run(cmd: &mut Command, stdout: &Path, stderr: &Path) -> anyhow::Result<Run> {
    settle(&[stdout])?;
    run_settled(cmd, stdout, stderr)
}

/// Runs two commands at once, each as [`run`] does, started together and
/// each measured on its own: what two cores give two independent runs.
pub fn run_pair(a: (&mut Command, &Path, &Path), b: (&mut Command, &Path, &Path)) -> anyhow::Result<(Run, Run)> {
    settle(&[a.1, b.1])?;
    std::thread::scope(|scope| {
        let first = scope.spawn(|| run_settled(a.0, a.1, a.2));
        let second = run_settled(b.0, b.1, b.2);
        let first = first
            .join()
            .map_err(|_| anyhow::anyhow!("the measuring thread panicked"))?;
        Ok((first?, second?))
    })
}

/// Prepares the machine for runs writing to `outputs`. The output of the
/// run before (up to 0.8 GB for the 2 GB trace) is written back to disk
/// now, not during the next run, where the kernel's writeback would take
/// CPU from it on a 2-core machine; and each run writes a new file, as a
/// user's run does, rather than over the last one (ext4 then writes the
/// whole file back as it is closed, and the 2 GB trace took 4.1-4.4 s
/// against 3.4-3.8 s).
fn settle(outputs: &[&Path]) -> anyhow::Result<()> {
    let synced = Command::new("sync").status().context("running sync")?;
    anyhow::ensure!(synced.success(), "sync failed ({synced})");
    for stdout in outputs {
        match std::fs::remove_file(stdout) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", stdout.display())),
        }
    }
    Ok(())
}

/// [`run`] once [`settle`] has run.
// The project's only unsafe code (see xtask/Cargo.toml): a pre-exec hook,
// and `wait4` for the child's own resource usage. Each block says why it
// is sound.
#[allow(unsafe_code)]
fn run_settled(cmd: &mut Command, stdout: &Path, stderr: &Path) -> anyhow::Result<Run> {
    let out = File::create(stdout).with_context(|| format!("creating {}", stdout.display()))?;
    let err = File::create(stderr).with_context(|| format!("creating {}", stderr.display()))?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    // Linux gives a child, at exec, the peak RSS of the memory it leaves
    // (`ru_maxrss` is kept across exec). Spawned the default way
    // (posix_spawn, which shares our memory until exec), a child would
    // inherit the xtask's own lifetime peak (e.g. while it replicates a
    // trace); forked, only our RSS at the time of the fork, a few MB. A
    // pre-exec hook, even an empty one, makes std fork.
    // SAFETY: the hook does nothing, so it is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| Ok(()));
    }
    let shown = format!("{cmd:?}");
    let start = Instant::now();
    let child = cmd.spawn().with_context(|| format!("starting {shown}"))?;
    let pid = child.id() as libc::pid_t;

    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = Arc::clone(&done);
        let status_path = std::path::PathBuf::from(format!("/proc/{pid}/status"));
        std::thread::spawn(move || {
            let (mut anon, mut file, mut hwm) = (0u64, 0u64, 0u64);
            while !done.load(Ordering::Relaxed) {
                if let Some((a, f, h)) = rss_split(&status_path) {
                    anon = anon.max(a);
                    file = file.max(f);
                    hwm = hwm.max(h);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            (anon, file, hwm)
        })
    };

    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own unreaped child; status and usage are valid
        // for writes. The child is reaped here, so `child` is never waited on.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            done.store(true, Ordering::Relaxed);
            bail!("waiting for {shown}: {e}");
        }
    }
    let wall = start.elapsed();
    done.store(true, Ordering::Relaxed);
    let (peak_anon, peak_file, sampled_hwm) = sampler.join().unwrap_or((0, 0, 0));
    drop(child);

    let failure = if libc::WIFEXITED(status) {
        match libc::WEXITSTATUS(status) {
            0 => None,
            code => Some(format!("exit status {code}")),
        }
    } else if libc::WIFSIGNALED(status) {
        Some(format!("killed by signal {}", libc::WTERMSIG(status)))
    } else {
        Some(format!("wait status {status}"))
    };
    // ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    let max_rss = if cfg!(target_os = "macos") {
        usage.ru_maxrss as u64
    } else {
        usage.ru_maxrss as u64 * 1024
    };
    Ok(Run {
        wall,
        max_rss,
        peak_anon,
        peak_file,
        sampled_hwm,
        user: timeval(usage.ru_utime),
        sys: timeval(usage.ru_stime),
        failure,
    })
}

/// The median of some values (the lower middle one for an even count).
pub fn median<T: Copy + Ord>(values: impl IntoIterator<Item = T>) -> T {
    let mut v: Vec<T> = values.into_iter().collect();
    assert!(!v.is_empty(), "median of nothing");
    v.sort();
    v[(v.len() - 1) / 2]
}

/// Median wall time, peak RSS and split of a set of runs (all successful).
#[derive(Debug, Clone)]
pub struct Summary {
    pub wall: Duration,
    pub wall_min: Duration,
    pub wall_max: Duration,
    pub max_rss: u64,
    pub peak_anon: u64,
    pub peak_file: u64,
    pub cpu: Duration,
}

pub fn summarize(runs: &[Run]) -> Summary {
    Summary {
        wall: median(runs.iter().map(|r| r.wall)),
        wall_min: runs.iter().map(|r| r.wall).min().unwrap_or_default(),
        wall_max: runs.iter().map(|r| r.wall).max().unwrap_or_default(),
        max_rss: median(runs.iter().map(|r| r.max_rss)),
        peak_anon: median(runs.iter().map(|r| r.peak_anon)),
        peak_file: median(runs.iter().map(|r| r.peak_file)),
        cpu: median(runs.iter().map(|r| r.user + r.sys)),
    }
}

/// Whether two files hold the same bytes; if not, the first differing offset.
pub fn same_bytes(a: &Path, b: &Path) -> anyhow::Result<Result<(), u64>> {
    use std::io::Read;
    let mut fa = std::io::BufReader::with_capacity(1 << 20, File::open(a).with_context(|| a.display().to_string())?);
    let mut fb = std::io::BufReader::with_capacity(1 << 20, File::open(b).with_context(|| b.display().to_string())?);
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    let mut offset = 0u64;
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        let n = na.min(nb);
        if ba[..n] != bb[..n] {
            let i = (0..n).find(|&i| ba[i] != bb[i]).unwrap_or(0);
            return Ok(Err(offset + i as u64));
        }
        if na != nb {
            return Ok(Err(offset + n as u64));
        }
        if na == 0 {
            return Ok(Ok(()));
        }
        offset += n as u64;
    }

    fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match r.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}
