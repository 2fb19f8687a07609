//! The text of the tables: durations, sizes and rates as the report
//! writes them, and a failed run's message.

use std::time::Duration;

/// The line of a failed run's stderr that says what went wrong.
pub(super) fn last_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("oracle:") || l.starts_with("tracekit:"))
        .or_else(|| lines.iter().rev().find(|l| l.contains("Error")))
        .or(lines.last())
        .map(|l| l.chars().take(200).collect())
        .unwrap_or_else(|| "(no message)".into())
}

/// `s` as the text of a Markdown table cell.
pub(super) fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A size in MB as a file name says it (`500MB`, `2GB`).
pub(super) fn size_label(mb: u64) -> String {
    match mb % 1000 {
        0 => format!("{}GB", mb / 1000),
        _ => format!("{mb}MB"),
    }
}

/// Seconds, to 3 significant digits or more.
pub(super) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 100.0 {
        format!("{s:.0}")
    } else if s >= 10.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.2}")
    }
}

/// Seconds that may be negative (a difference).
pub(super) fn secs_signed(s: f64) -> String {
    format!("{s:.2}")
}

/// Milliseconds, with their unit.
pub(super) fn ms(d: Duration) -> String {
    format!("{} ms", ms_f(d))
}

/// Milliseconds, to 2 significant digits or more.
pub(super) fn ms_f(d: Duration) -> String {
    let m = d.as_secs_f64() * 1e3;
    if m >= 10.0 {
        format!("{m:.0}")
    } else {
        format!("{m:.1}")
    }
}

/// MB/s, of `size_mb` in `d` (`≫` when `d` is next to nothing).
pub(super) fn rate(size_mb: f64, d: Duration) -> String {
    let s = d.as_secs_f64();
    if s <= 0.0 {
        return "–".into();
    }
    let r = size_mb / s;
    if r >= 100_000.0 {
        "≫".into()
    } else {
        format!("{r:.0}")
    }
}

/// Bytes in MB (GB from 10 GB on), 10⁶ bytes to the MB.
pub(super) fn mb(bytes: u64) -> String {
    let m = bytes as f64 / 1e6;
    if m >= 10_000.0 {
        format!("{:.1} GB", m / 1e3)
    } else if m >= 10.0 {
        format!("{m:.0} MB")
    } else {
        format!("{m:.1} MB")
    }
}
