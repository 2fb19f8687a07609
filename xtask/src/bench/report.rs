//! The report: `bench-report.md`, whose sections each run replaces, and
//! the machine, versions and date it gives with each table.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Replaces this run's sections of the report, keeping the others.
pub(super) fn write_report(path: &Path, sections: &[(&str, String)]) -> anyhow::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let mut kept: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in old.lines() {
        if let Some(name) = line.strip_prefix("<!-- bench:").and_then(|l| l.strip_suffix(" -->")) {
            if let Some(done) = current.take() {
                kept.push(done);
            }
            current = Some((name.to_owned(), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    kept.extend(current);
    for (name, text) in sections {
        match kept.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = text.clone(),
            None => kept.push(((*name).to_owned(), text.clone())),
        }
    }
    let order = |n: &str| if n == "main" { 0 } else { 1 };
    kept.sort_by_key(|(n, _)| order(n));
    let mut out = String::from("# tracekit benchmarks (`cargo xtask bench`)\n\n");
    for (name, text) in kept {
        writeln!(out, "<!-- bench:{name} -->")?;
        out.push_str(text.trim_end());
        out.push_str("\n\n");
    }
    std::fs::write(path, out)?;
    Ok(())
}

/// Machine, versions and date, for the report.
pub(super) fn environment(tracekit: &Path) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map(|kb| format!(", {:.0} GB RAM", kb as f64 * 1024.0 / 1e9))
        .unwrap_or_default();
    let output = |cmd: &mut Command| {
        cmd.output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_else(|| "?".into())
    };
    let commit = output(Command::new("git").args(["rev-parse", "--short", "HEAD"]));
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    let node = output(Command::new(crate::node::NODE).arg("--version"));
    let engine = crate::node::describe_engine(crate::node::Engine::Current).unwrap_or_else(|e| e.to_string());
    let date = output(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"]));
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| {
            l.split_whitespace()
                .next()
                .map(|l| format!(" (load average {l} before the runs)"))
        })
        .unwrap_or_default();
    let _ = tracekit;
    format!(
        "Machine: {cpu}, {cores} cores{memory}; tracekit {commit}{} (release-lto build), Node {node}, \
         DevTools {engine}; {date}{load}.",
        if dirty { " + uncommitted changes" } else { "" }
    )
}
