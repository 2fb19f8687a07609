//! Installing and running the Node side (Chromium, npm packages, scripts).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

fn status(cmd: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().with_context(|| format!("running {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// Installs Debian's Chromium if it is missing.
pub fn ensure_chromium() -> anyhow::Result<()> {
    if Path::new("/usr/bin/chromium").exists() {
        return Ok(());
    }
    eprintln!("xtask: /usr/bin/chromium is missing: installing Debian's chromium package");
    status(Command::new("apt-get").arg("update").arg("-qq"))?;
    status(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "chromium"])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
    .context("installing chromium (run as root, or install the chromium package yourself)")
}

/// Installs the npm packages pinned by xtask/js/package-lock.json.
pub fn ensure_packages() -> anyhow::Result<()> {
    let marker = Path::new("xtask/js/node_modules/.package-lock.json");
    let lock = Path::new("xtask/js/package-lock.json");
    let fresh = match (marker.metadata(), lock.metadata()) {
        (Ok(m), Ok(l)) => m.modified()? >= l.modified()?,
        _ => false,
    };
    if fresh {
        return Ok(());
    }
    eprintln!("xtask: installing the npm packages of xtask/js (npm ci)");
    status(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--prefix", "xtask/js"]))
}

pub fn run_node(args: &[String]) -> anyhow::Result<()> {
    status(Command::new("node").arg("--max-old-space-size=8192").args(args))
}

/// Runs the oracle on one file: its dump, or its error message.
pub fn oracle_dump(file: &Path) -> anyhow::Result<Result<String, String>> {
    let out: Output = Command::new("node")
        .args(["--max-old-space-size=8192", "xtask/js/oracle.mjs"])
        .arg(file)
        .output()
        .context("running node")?;
    if out.status.success() {
        Ok(Ok(String::from_utf8_lossy(&out.stdout).into_owned()))
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err
            .lines()
            .rev()
            .find(|l| l.starts_with("oracle:"))
            .unwrap_or(err.trim());
        Ok(Err(line.to_owned()))
    }
}

/// How a run of `calltree.mjs` ended.
pub enum ViewsRun {
    /// Its dump.
    Dump(String),
    /// Its error line (the engine refused the trace).
    Failed(String),
    /// It was still running after the time limit, and was killed.
    TimedOut,
}

/// Runs the views oracle (`calltree.mjs OPTIONS FILE`) on one file, for at
/// most `limit`: expanding a whole tree costs DevTools nodes x events.
pub fn views_dump(file: &Path, options: &[String], limit: Duration) -> anyhow::Result<ViewsRun> {
    script_dump("calltree", file, options, limit)
}

/// Runs `xtask/js/SCRIPT.mjs OPTIONS FILE` for at most `limit`; its error
/// line is the last one that starts with `SCRIPT:`.
pub fn script_dump(script: &str, file: &Path, options: &[String], limit: Duration) -> anyhow::Result<ViewsRun> {
    let mut child = Command::new("node")
        .arg("--max-old-space-size=8192")
        .arg(format!("xtask/js/{script}.mjs"))
        .args(options)
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running node")?;
    // Read both pipes while the child runs, or a big dump would block it.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).map(|_| s)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > limit {
            child.kill()?;
            child.wait()?;
            return Ok(ViewsRun::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out.join().expect("reader thread")?;
    let err = err.join().expect("reader thread")?;
    if status.success() {
        Ok(ViewsRun::Dump(out))
    } else {
        let line = err
            .lines()
            .rev()
            .find(|l| l.starts_with("calltree:"))
            .unwrap_or(err.trim());
        Ok(ViewsRun::Failed(line.to_owned()))
    }
}
