//! What the loader and the handlers skipped or repaired, so that nothing is
//! dropped silently.

use std::collections::BTreeMap;

/// One kind of skipped data: how often it happened and the first example.
#[derive(Debug, Clone, PartialEq)]
pub struct SkipRecord {
    pub count: u64,
    pub first_example: String,
}

/// The engine's account of everything it skipped, by reason, and of the
/// repairs it made (a truncated file, for instance).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics {
    /// Skipped data, keyed by a short stable reason such as `"event: missing name"`.
    pub skipped: BTreeMap<String, SkipRecord>,
    /// Repairs and other things a user should know about, one line each.
    pub warnings: Vec<String>,
    /// Places where tracekit deliberately answers differently from the
    /// DevTools engine (see `docs/divergences.md`), by name, with the first
    /// example.
    pub divergences: BTreeMap<String, String>,
}

impl Diagnostics {
    pub fn skip(&mut self, reason: &str, example: impl FnOnce() -> String) {
        match self.skipped.get_mut(reason) {
            Some(record) => record.count += 1,
            None => {
                self.skipped.insert(
                    reason.to_owned(),
                    SkipRecord {
                        count: 1,
                        first_example: example(),
                    },
                );
            }
        }
    }

    /// Records that a documented divergence from DevTools applies.
    pub fn diverge(&mut self, name: &str, example: impl FnOnce() -> String) {
        if !self.divergences.contains_key(name) {
            self.divergences.insert(name.to_owned(), example());
        }
    }

    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }

    pub fn merge(&mut self, other: Diagnostics) {
        for (reason, record) in other.skipped {
            match self.skipped.get_mut(&reason) {
                Some(mine) => mine.count += record.count,
                None => {
                    self.skipped.insert(reason, record);
                }
            }
        }
        self.warnings.extend(other.warnings);
        for (name, example) in other.divergences {
            self.divergences.entry(name).or_insert(example);
        }
    }

    pub fn total_skipped(&self) -> u64 {
        self.skipped.values().map(|r| r.count).sum()
    }
}
