//! The per-stage times that `tracekit --timings` prints on stderr: one line
//! per closed tracing span, `<spans>: close time.busy=<dur> time.idle=<dur>`,
//! where `<spans>` is the span's path (`parse:scan`), possibly with fields
//! in braces, after a timestamp. Parsed generically: whatever the spans are
//! called, each path becomes a row.

use std::time::Duration;

/// A closed span: its path (`["parse", "scan"]`) and its busy time.
#[derive(Debug, Clone, PartialEq)]
pub struct Closed {
    pub path: Vec<String>,
    pub busy: Duration,
}

/// Parses a duration as tracing-subscriber prints it: `739ms`, `2.06µs`, `1.2s`.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-' || c == '+'))?;
    let (number, unit) = s.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit {
        "ns" => value * 1e-9,
        "µs" | "us" | "μs" => value * 1e-6,
        "ms" => value * 1e-3,
        "s" => value,
        "m" | "min" => value * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds.max(0.0)))
}

/// Removes `{...}` groups (span fields), braces nested or not.
fn strip_fields(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every span close line of `stderr`.
pub fn parse(stderr: &str) -> Vec<Closed> {
    const MARK: &str = ": close time.busy=";
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(at) = line.find(MARK) else { continue };
        let head = strip_fields(&line[..at]);
        let Some(spans) = head.split_whitespace().last() else {
            continue;
        };
        let rest = &line[at + MARK.len()..];
        let busy = rest.split_whitespace().next().and_then(parse_duration);
        let Some(busy) = busy else { continue };
        let path: Vec<String> = spans.split(':').filter(|s| !s.is_empty()).map(str::to_owned).collect();
        if path.is_empty() {
            continue;
        }
        out.push(Closed { path, busy });
    }
    out
}

/// The spans of one run, summed per path (a span that closes several times,
/// e.g. once per thread, counts its total busy time), in display order:
/// top-level spans in the order they closed, each followed by its children.
pub fn totals(closed: &[Closed]) -> Vec<(Vec<String>, Duration, usize)> {
    let mut rows: Vec<(Vec<String>, Duration, usize)> = Vec::new();
    for c in closed {
        match rows.iter_mut().find(|(p, _, _)| *p == c.path) {
            Some(row) => {
                row.1 += c.busy;
                row.2 += 1;
            }
            None => rows.push((c.path.clone(), c.busy, 1)),
        }
    }
    let mut ordered = Vec::with_capacity(rows.len());
    fn emit(
        prefix: &[String],
        rows: &[(Vec<String>, Duration, usize)],
        done: &mut Vec<bool>,
        ordered: &mut Vec<(Vec<String>, Duration, usize)>,
    ) {
        for (i, row) in rows.iter().enumerate() {
            if !done[i] && row.0.len() == prefix.len() + 1 && row.0.starts_with(prefix) {
                done[i] = true;
                ordered.push(row.clone());
                emit(&row.0, rows, done, ordered);
            }
        }
    }
    let mut done = vec![false; rows.len()];
    emit(&[], &rows, &mut done, &mut ordered);
    // Spans whose parent never closed, as they came.
    for (i, row) in rows.iter().enumerate() {
        if !done[i] {
            ordered.push(row.clone());
        }
    }
    ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_close_lines() {
        let stderr = "2026-11-21T05:37:06.592036Z read: close time.busy=24.5µs time.idle=1.97µs\n\
            2026-11-21T05:37:07.1Z parse:scan: close time.busy=100ms time.idle=1µs\n\
            tracekit: warning: something\n\
            2026-11-21T05:37:07.3Z parse{threads=2 mode=\"a b\"}:events{n=3}: close time.busy=1.5s time.idle=1µs\n\
            2026-11-21T05:37:07.3Z parse{threads=2}:events: close time.busy=0.5s time.idle=1µs\n\
            2026-11-21T05:37:07.324092Z parse: close time.busy=708ms time.idle=1.85µs\n\
            2026-11-21T05:37:07.4Z output: close time.busy=12ns time.idle=1µs\n";
        let closed = parse(stderr);
        assert_eq!(closed.len(), 6);
        assert_eq!(closed[0].path, ["read"]);
        assert_eq!(closed[0].busy, Duration::from_nanos(24_500));
        assert_eq!(closed[2].path, ["parse", "events"]);
        let rows = totals(&closed);
        let names: Vec<String> = rows.iter().map(|r| r.0.join(":")).collect();
        assert_eq!(names, ["read", "parse", "parse:scan", "parse:events", "output"]);
        assert_eq!(rows[3].1, Duration::from_secs(2));
        assert_eq!(rows[3].2, 2);
        assert_eq!(parse_duration("2.06µs"), Some(Duration::from_nanos(2060)));
        assert_eq!(parse_duration("1.2s"), Some(Duration::from_millis(1200)));
        assert_eq!(parse_duration("weird"), None);
    }
}
