//! A report written out: text for a terminal, Markdown for a pull
//! request or a CI job's summary (GitHub's tables), JSON for programs.

use std::fmt::Write as _;

use crate::compare::{Presence, Report, Row};
use crate::keys::{Kind, ValueUnit};

/// At most this many noise rows per section in text and Markdown (all
/// are in the JSON).
const NOISE_ROWS: usize = 10;

/// A value: `12.35 ms`, a score with 4 decimals, a count (a median may
/// be a half), `12.3 kB`.
fn value(row: &Row, v: f64) -> String {
    match row.key.unit() {
        ValueUnit::Ms => format!("{v:.2} ms"),
        ValueUnit::Score => format!("{v:.4}"),
        ValueUnit::Count if v.fract() == 0.0 => format!("{v:.0}"),
        ValueUnit::Count => format!("{v:.1}"),
        ValueUnit::Bytes => format!("{:.1} kB", v / 1000.0),
    }
}

/// A signed change: `+1.20 ms`.
fn change(row: &Row, v: f64) -> String {
    match row.key.unit() {
        ValueUnit::Ms => format!("{v:+.2} ms"),
        ValueUnit::Score => format!("{v:+.4}"),
        ValueUnit::Count if v.fract() == 0.0 => format!("{v:+.0}"),
        ValueUnit::Count => format!("{v:+.1}"),
        ValueUnit::Bytes => format!("{:+.1} kB", v / 1000.0),
    }
}

fn relative(row: &Row) -> String {
    match (row.relative, row.presence) {
        (_, Presence::Added) => "added".to_owned(),
        (_, Presence::Removed) => "removed".to_owned(),
        (Some(r), _) => format!("{:+.1}%", r * 100.0),
        (None, _) => String::new(),
    }
}

/// `self`/`total` of a function or event, nothing for a value.
fn what(row: &Row) -> &'static str {
    row.key.quantity.name()
}

/// The statistics of a row: `[low, high] p=… δ=…`.
fn stats_text(row: &Row) -> String {
    match row.stats {
        Some(s) => format!(
            "[{}, {}] p={:.2e} q={:.2e} δ={:+.2}",
            change(row, s.low),
            change(row, s.high),
            s.p,
            s.p_adjusted,
            s.cliffs_delta
        ),
        None => String::new(),
    }
}

/// The headline: runs, what was tested, how many changes.
fn headline(report: &Report) -> String {
    let changes = report.changes().count();
    let mut out = format!(
        "BASE: {} run{}, NEW: {} run{}; threads compared: {}.",
        report.base_runs,
        if report.base_runs == 1 { "" } else { "s" },
        report.new_runs,
        if report.new_runs == 1 { "" } else { "s" },
        report.threads.join(", ")
    );
    if report.is_statistical() {
        let _ = write!(
            out,
            " {changes} significant change{} among {} keys tested (Mann-Whitney U, Benjamini-Hochberg FDR {}; \
             keys under {} ms not tested).",
            if changes == 1 { "" } else { "s" },
            report.tested,
            report.alpha,
            report.min_ms
        );
    } else {
        let _ = write!(
            out,
            " {changes} change{} (one run per side: no statistics; keys under {} ms left out).",
            if changes == 1 { "" } else { "s" },
            report.min_ms
        );
    }
    out
}

/// The rows of one section: its changes, then its first noise rows.
fn section(report: &Report, kind: Kind) -> (Vec<&Row>, Vec<&Row>, usize) {
    let rows = report.rows.iter().filter(|r| r.key.kind == kind);
    let changes: Vec<&Row> = rows.clone().filter(|r| r.changed).collect();
    let noise: Vec<&Row> = rows.filter(|r| !r.changed && r.delta != 0.0).collect();
    let left = noise.len().saturating_sub(NOISE_ROWS);
    (changes, noise.into_iter().take(NOISE_ROWS).collect(), left)
}

const KINDS: [Kind; 5] = [
    Kind::Page,
    Kind::Category,
    Kind::ThirdParty,
    Kind::Function,
    Kind::Event,
];

/// The report as text: a headline, then per kind (page metrics,
/// categories, third parties, functions, events) its changes and its largest noise.
pub fn text(report: &Report) -> String {
    let mut out = headline(report) + "\n";
    for kind in KINDS {
        let (changes, noise, left) = section(report, kind);
        if changes.is_empty() && noise.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", kind.title());
        let rest = if report.is_statistical() {
            "noise"
        } else {
            "too small to count"
        };
        for (title, rows) in [("changes", &changes), (rest, &noise)] {
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(out, "  {title}:");
            for row in rows.iter() {
                let _ = writeln!(
                    out,
                    "    {:>12} {:>8} {:<5} {} [{}]  {} -> {}  {}",
                    change(row, row.delta),
                    relative(row),
                    what(row),
                    row.key.name,
                    row.key.thread,
                    value(row, row.base),
                    value(row, row.new),
                    stats_text(row)
                );
            }
        }
        if left > 0 {
            let _ = writeln!(out, "  ... and {left} more rows (--format json lists all)");
        }
    }
    out
}

/// The confidence of the intervals in percent: `95` for alpha 0.05.
fn confidence(alpha: f64) -> String {
    let c = (1.0 - alpha) * 100.0;
    if (c - c.round()).abs() < 1e-9 {
        format!("{c:.0}")
    } else {
        format!("{c}")
    }
}

/// Escapes a cell of a GitHub table: `|` and line breaks.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The report as Markdown (GitHub's flavour): a headline, then a table
/// per kind with its changes and its largest noise.
pub fn markdown(report: &Report) -> String {
    let mut out = format!("### tracekit diff\n\n{}\n", headline(report));
    let statistical = report.is_statistical();
    for kind in KINDS {
        let (changes, noise, left) = section(report, kind);
        if changes.is_empty() && noise.is_empty() {
            continue;
        }
        let _ = write!(out, "\n#### {}\n\n", kind.title());
        out.push_str("| | key | thread | base | new | change | % |");
        if statistical {
            let _ = write!(
                out,
                " {}% CI | p (adjusted) | Cliff's δ |\n| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n",
                confidence(report.alpha)
            );
        } else {
            out.push_str("\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n");
        }
        for row in changes.iter().chain(&noise) {
            let mark = match (row.changed, statistical) {
                (true, _) => "**changed**",
                (false, true) => "noise",
                (false, false) => "small",
            };
            let key = match what(row) {
                "" => cell(&row.key.name),
                w => format!("{} ({w})", cell(&row.key.name)),
            };
            let _ = write!(
                out,
                "| {mark} | `{}` | {} | {} | {} | {} | {} |",
                key.replace('`', "'"),
                cell(&row.key.thread),
                value(row, row.base),
                value(row, row.new),
                change(row, row.delta),
                relative(row)
            );
            if statistical {
                match row.stats {
                    Some(s) => {
                        let _ = write!(
                            out,
                            " {} .. {} | {:.2e} | {:+.2} |",
                            change(row, s.low),
                            change(row, s.high),
                            s.p_adjusted,
                            s.cliffs_delta
                        );
                    }
                    None => out.push_str(" | | |"),
                }
            }
            out.push('\n');
        }
        if left > 0 {
            let _ = writeln!(out, "\n{left} more rows.");
        }
    }
    out
}

/// The report as JSON: `{"base_runs", "new_runs", "alpha", "min_ms",
/// "tested", "threads", "rows": [{"key": {"kind", "thread", "name",
/// "quantity"}, "unit", "presence", "base", "new", "delta", "relative",
/// "stats", "changed"}]}`, every row.
pub fn json(report: &Report) -> String {
    // Plain data with string keys: serializing cannot fail.
    serde_json::to_string_pretty(report).unwrap_or_default()
}
