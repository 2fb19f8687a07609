//! Reads the stage table that `tracekit --timings` prints on stderr:
//!
//! ```text
//! stage               runs    wall ms     own ms      MB/s
//! load                    1     2180.4      172.2      1440
//!   parse                53     1254.0     1254.0       198
//! output                  1      426.0      426.0
//! total                         2650.0
//! ```
//!
//! A row indented by two spaces is a stage inside the row above it at the
//! top level. Parsed generically: whatever the stages are called, each
//! becomes a row.

use std::time::Duration;

/// One stage of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// The stage, after its top-level stage if nested (`["load", "parse"]`).
    pub path: Vec<String>,
    pub runs: usize,
    /// Wall time it covered (its periods merged).
    pub wall: Duration,
    /// Its time outside the stages nested in it, summed over threads.
    pub own: Duration,
}

/// The stages of one run's stderr, in the table's order, and the total
/// wall time it printed.
pub fn parse(stderr: &str) -> (Vec<Stage>, Option<Duration>) {
    let ms = |s: &str| {
        s.parse::<f64>()
            .ok()
            .map(|x| Duration::from_secs_f64(x.max(0.0) / 1000.0))
    };
    let mut stages = Vec::new();
    let mut total = None;
    let mut top: Option<String> = None;
    let mut in_table = false;
    for line in stderr.lines() {
        if line.starts_with("stage ") && line.contains("own ms") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.first() == Some(&"total") {
            total = fields.get(1).and_then(|f| ms(f));
            in_table = false;
            continue;
        }
        let (Some(name), Some(runs), Some(wall), Some(own)) = (
            fields.first(),
            fields.get(1).and_then(|f| f.parse().ok()),
            fields.get(2).and_then(|f| ms(f)),
            fields.get(3).and_then(|f| ms(f)),
        ) else {
            continue;
        };
        let path = if line.starts_with("  ") {
            vec![top.clone().unwrap_or_default(), (*name).to_owned()]
        } else {
            top = Some((*name).to_owned());
            vec![(*name).to_owned()]
        };
        stages.push(Stage { path, runs, wall, own });
    }
    (stages, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_table() {
        let stderr = "tracekit: warning: something\n\
            stage               runs    wall ms     own ms      MB/s\n\
            load                    1     2180.4      172.2      1440\n  \
            inflate              20     2881.9     2629.5        94\n  \
            parse                53     1254.0     1254.0       198\n\
            output                  1      426.0      426.0          \n\
            total                         2650.0\n\
            input 248.0 MB: 93 MB/s end to end\n";
        let (stages, total) = parse(stderr);
        let paths: Vec<String> = stages.iter().map(|s| s.path.join(":")).collect();
        assert_eq!(paths, ["load", "load:inflate", "load:parse", "output"]);
        assert_eq!(stages[2].runs, 53);
        assert_eq!(stages[1].own, Duration::from_secs_f64(2.6295));
        assert_eq!(stages[0].wall, Duration::from_secs_f64(2.1804));
        assert_eq!(total, Some(Duration::from_secs_f64(2.65)));
        assert_eq!(parse("no table\n"), (Vec::new(), None));
    }
}
