//! The thresholds of `--fail-on` ([`Threshold`]): `TARGET>+N` or
//! `TARGET<-N`, N in ms (`ms`, or `s`), percent (`%`), bytes (`B`, `kB`,
//! `MB`) or a plain number (a score for CLS, a count for Requests),
//! parsed and checked against a report.

use std::fmt;

use crate::compare::{Report, Row};
use crate::keys::{Kind, Quantity, ValueUnit};

/// What a threshold watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Every row (`any`).
    Any,
    /// A page metric (`LCP`, `FCP`, `CLS`, `INP`, `TBT`), of any
    /// navigation, or the page's `Requests` or `Bytes`.
    Page(String),
    /// A third party (`third-party:NAME`): its main thread time, or in
    /// bytes its transfer size.
    ThirdParty(String),
    /// A function's self time (`self:NAME`), by its name alone or its
    /// whole key (`NAME URL:LINE:COLUMN`).
    SelfTime(String),
    /// A function's total time (`total:NAME`).
    Total(String),
    /// An event's self time (`event:NAME`).
    Event(String),
    /// A Summary category (`category:Scripting`), on any thread.
    Category(String),
}

/// The unit of a threshold's amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds (`ms`; `s` is read as 1000 ms).
    Ms,
    /// Percent of BASE's value.
    Percent,
    /// A plain number (a score: CLS; a count: Requests).
    Plain,
    /// Bytes (`B`; `kB` is read as 1000 B, `MB` as 1000000 B).
    Bytes,
}

/// One `--fail-on` threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// What it watches.
    pub target: Target,
    /// `true` for `>` (an increase past `amount`), `false` for `<`.
    pub above: bool,
    /// The signed amount (`+100`, `-5`).
    pub amount: f64,
    /// Its unit.
    pub unit: Unit,
    /// The text it was parsed from.
    pub text: String,
}

/// Why a threshold does not parse: the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThresholdError(pub String);

impl fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ThresholdError {}

const PAGE_METRICS: [&str; 7] = ["FCP", "LCP", "CLS", "INP", "TBT", crate::REQUESTS, crate::BYTES];

impl std::str::FromStr for Threshold {
    type Err = ThresholdError;

    /// Parses `TARGET>+N[ms|s|%]` or `TARGET<-N[ms|s|%]`: TARGET is
    /// `any`, a page metric, `self:NAME`, `total:NAME`, `event:NAME` or
    /// `category:NAME`.
    fn from_str(text: &str) -> Result<Threshold, ThresholdError> {
        let err = |why: &str| {
            ThresholdError(format!(
                "the threshold {text:?} {why}; write TARGET>+N or TARGET<-N, N in ms or % \
                 (e.g. 'LCP>+100ms', 'self:render>+10%', 'category:Scripting>+50ms', 'any>+5%')"
            ))
        };
        let (at, above) = match (text.rfind('>'), text.rfind('<')) {
            (Some(i), None) => (i, true),
            (None, Some(i)) => (i, false),
            _ => return Err(err("has no single comparison > or <")),
        };
        let target = parse_target(text[..at].trim()).map_err(|why| err(&why))?;
        let amount_text = text[at + 1..].trim();
        let suffixes = [
            ("ms", Unit::Ms, 1.0),
            ("%", Unit::Percent, 1.0),
            ("s", Unit::Ms, 1000.0),
            ("kB", Unit::Bytes, 1e3),
            ("MB", Unit::Bytes, 1e6),
            ("B", Unit::Bytes, 1.0),
        ];
        let (number, unit, scale) = suffixes
            .iter()
            .find_map(|&(suffix, unit, scale)| Some((amount_text.strip_suffix(suffix)?, unit, scale)))
            .unwrap_or((amount_text, Unit::Plain, 1.0));
        let amount: f64 = number
            .trim()
            .parse()
            .ok()
            .filter(|n: &f64| n.is_finite())
            .ok_or_else(|| err("has no number after the comparison"))?;
        let plain = matches!(&target, Target::Page(m) if m == "CLS" || m == crate::REQUESTS);
        if unit == Unit::Plain && !plain {
            return Err(err("gives no unit (ms, s, %, B, kB or MB) to its amount"));
        }
        let has_bytes = matches!(&target, Target::Any | Target::ThirdParty(_))
            || matches!(&target, Target::Page(m) if m == crate::BYTES);
        if unit == Unit::Bytes && !has_bytes {
            return Err(err(
                "gives bytes to a target without bytes (Bytes, third-party:NAME and any have them)",
            ));
        }
        if plain && unit == Unit::Ms {
            return Err(err("gives a time to a score or a count (write a plain number or %)"));
        }
        if unit != Unit::Percent && unit != Unit::Bytes && matches!(&target, Target::Page(m) if m == crate::BYTES) {
            return Err(err("gives Bytes an amount in other than B, kB, MB or %"));
        }
        Ok(Threshold {
            target,
            above,
            amount: amount * scale,
            unit,
            text: text.to_owned(),
        })
    }
}

fn parse_target(target: &str) -> Result<Target, String> {
    if target.eq_ignore_ascii_case("any") {
        return Ok(Target::Any);
    }
    if let Some(m) = PAGE_METRICS.iter().find(|m| m.eq_ignore_ascii_case(target)) {
        return Ok(Target::Page((*m).to_owned()));
    }
    let Some((kind, name)) = target.split_once(':') else {
        return Err(format!(
            "names no target: {target:?} is none of any, FCP, LCP, CLS, INP, TBT, Requests, Bytes, self:NAME, \
             total:NAME, event:NAME, category:NAME, third-party:NAME"
        ));
    };
    let name = name.trim().to_owned();
    if name.is_empty() {
        return Err(format!("names no {kind}"));
    }
    match kind.trim().to_ascii_lowercase().as_str() {
        "self" => Ok(Target::SelfTime(name)),
        "total" => Ok(Target::Total(name)),
        "event" => Ok(Target::Event(name)),
        "category" => Ok(Target::Category(name)),
        "third-party" => Ok(Target::ThirdParty(name)),
        other => Err(format!(
            "has an unknown kind of target {other:?} (self, total, event, category, third-party)"
        )),
    }
}

impl Threshold {
    /// Whether the threshold watches `row`.
    pub fn matches(&self, row: &Row) -> bool {
        let key = &row.key;
        let function = |name: &str| key.kind == Kind::Function && (key.short_name() == name || key.name == name);
        match &self.target {
            Target::Any => true,
            Target::Page(m) => key.kind == Kind::Page && key.short_name() == m,
            Target::SelfTime(n) => key.quantity == Quantity::SelfTime && function(n),
            Target::Total(n) => key.quantity == Quantity::Total && function(n),
            Target::Event(n) => key.kind == Kind::Event && key.quantity == Quantity::SelfTime && key.name == *n,
            Target::Category(n) => key.kind == Kind::Category && key.name.eq_ignore_ascii_case(n),
            Target::ThirdParty(n) => {
                let quantity = if self.unit == Unit::Bytes {
                    Quantity::TransferSize
                } else {
                    Quantity::SelfTime
                };
                key.kind == Kind::ThirdParty && key.quantity == quantity && key.name.eq_ignore_ascii_case(n)
            }
        }
    }

    /// Whether `row`'s change crosses the threshold. A percentage of a
    /// key absent from BASE is crossed by any change in its direction;
    /// an amount in ms watches times only (`any>+5ms` skips scores and
    /// bytes), in bytes bytes only, a plain number scores and counts.
    pub fn crossed_by(&self, row: &Row) -> bool {
        let fits = match self.unit {
            Unit::Ms => row.unit == ValueUnit::Ms,
            Unit::Bytes => row.unit == ValueUnit::Bytes,
            Unit::Plain => matches!(row.unit, ValueUnit::Score | ValueUnit::Count),
            Unit::Percent => true,
        };
        if !fits {
            return false;
        }
        let change = match self.unit {
            Unit::Ms | Unit::Plain | Unit::Bytes => row.delta,
            Unit::Percent => match row.relative {
                Some(r) => r * 100.0,
                None if row.delta > 0.0 => f64::INFINITY,
                None if row.delta < 0.0 => f64::NEG_INFINITY,
                None => 0.0,
            },
        };
        if self.above {
            change > self.amount
        } else {
            change < self.amount
        }
    }
}

/// The thresholds crossed, each with the first row that crosses it: only
/// the rows reported as changes count (with several runs, the
/// significant ones).
pub fn crossed<'r>(thresholds: &[Threshold], report: &'r Report) -> Vec<(&'r Row, Threshold)> {
    let mut out = Vec::new();
    for t in thresholds {
        if let Some(row) = report.changes().find(|r| t.matches(r) && t.crossed_by(r)) {
            out.push((row, t.clone()));
        }
    }
    out
}
