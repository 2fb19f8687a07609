//! Installing and running the Node side (Chromium, npm packages, scripts).

use std::path::Path;
use std::process::{Command, Output};

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
