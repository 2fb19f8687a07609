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

/// Node 22 from the npm package `node` of xtask/js (today's DevTools engine
/// needs it; the machine's own `node` may be older).
pub const NODE: &str = "xtask/js/node_modules/.bin/node";

/// The DevTools trace engine an oracle script runs (`--engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Today's DevTools: the engine bundled in chrome-devtools-mcp 1.11.0
    /// (devtools-frontend f7e7785, October 2026).
    #[default]
    Current,
    /// June 2026's: `@paulirish/trace_engine` 0.0.65.
    #[value(name = "0.0.65")]
    June2026,
}

impl Engine {
    /// The script's `--engine` argument.
    pub fn arg(self) -> &'static str {
        match self {
            Engine::Current => "current",
            Engine::June2026 => "0.0.65",
        }
    }

    /// The tracekit behaviour that matches it.
    pub fn devtools(self) -> tracekit::DevTools {
        match self {
            Engine::Current => tracekit::DevTools::V2026_10,
            Engine::June2026 => tracekit::DevTools::V2026_06,
        }
    }

    /// `node [--max-old-space-size] xtask/js/SCRIPT.mjs --engine E`.
    pub fn script(self, script: &str, heap_mb: u32) -> Command {
        let mut cmd = Command::new(NODE);
        cmd.arg(format!("--max-old-space-size={heap_mb}"))
            .arg(format!("xtask/js/{script}.mjs"))
            .args(["--engine", self.arg()]);
        cmd
    }
}

/// Runs `node ARGS` (with Node 22), failing on a failure.
pub fn run_node(args: &[String]) -> anyhow::Result<()> {
    status(Command::new(NODE).arg("--max-old-space-size=8192").args(args))
}

/// Runs `xtask/js/SCRIPT.mjs ARGS` with the engine, failing on a failure.
pub fn run_script(engine: Engine, script: &str, args: &[String]) -> anyhow::Result<()> {
    status(engine.script(script, 8192).args(args))
}

/// What the engine is, as the oracle reports it from the packages
/// installed (`oracle.mjs --describe-engine`).
pub fn describe_engine(engine: Engine) -> anyhow::Result<String> {
    let out = engine
        .script("oracle", 1024)
        .arg("--describe-engine")
        .output()
        .context("running node")?;
    if !out.status.success() {
        bail!(
            "the oracle could not load {}: {}",
            engine.arg(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Runs the oracle on one file: its dump, or its error message.
pub fn oracle_dump(engine: Engine, file: &Path) -> anyhow::Result<Result<String, String>> {
    let out: Output = engine
        .script("oracle", 8192)
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
pub fn views_dump(engine: Engine, file: &Path, options: &[String], limit: Duration) -> anyhow::Result<ViewsRun> {
    script_dump(engine, "calltree", file, options, limit)
}

/// Runs `xtask/js/SCRIPT.mjs OPTIONS FILE` for at most `limit`; its error
/// line is the last one that starts with `SCRIPT:`.
pub fn script_dump(
    engine: Engine,
    script: &str,
    file: &Path,
    options: &[String],
    limit: Duration,
) -> anyhow::Result<ViewsRun> {
    let mut child = engine
        .script(script, 8192)
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
