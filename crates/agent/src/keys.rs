//! DevTools' event keys, the names its AI texts give events so that a
//! model can ask about one again: `r-N` for an event of the input, `s-N`
//! for an event the engine made of one (an interaction, a layout shift
//! cluster, a request), `p-PID-TID-SAMPLE-NODE` for a JavaScript call of a
//! CPU profile.
//!
//! `N` is the position of the input event in the file's event array: a
//! made event is keyed by the input event it stands on (its "raw source"),
//! so `s-N` and `r-N` name two different things built on one event.

use std::fmt;
use std::str::FromStr;

use tracekit_engine::support::EventIndex;

/// One event key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKey {
    /// An event of the input, by its position (`r-N`).
    Raw(EventIndex),
    /// An event the engine made, by the position of the input event it
    /// stands on (`s-N`).
    Synthetic(EventIndex),
    /// A JavaScript call drawn from a CPU profile
    /// (`p-PID-TID-SAMPLE-NODE`); `sample` is -1 when the call's stack
    /// came from a trace event rather than a sample.
    ProfileCall {
        /// Its process id.
        pid: i64,
        /// Its thread id.
        tid: i64,
        /// The index of the sample that opened it, or -1.
        sample: i64,
        /// Its profile node's id.
        node: i64,
    },
}

impl fmt::Display for EventKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EventKey::Raw(n) => write!(f, "r-{n}"),
            EventKey::Synthetic(n) => write!(f, "s-{n}"),
            EventKey::ProfileCall { pid, tid, sample, node } => write!(f, "p-{pid}-{tid}-{sample}-{node}"),
        }
    }
}

/// Why a text is not an event key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadKey(pub String);

impl fmt::Display for BadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not an event key: {:?} (one of r-N, s-N, p-PID-TID-SAMPLE-NODE)",
            self.0
        )
    }
}

impl std::error::Error for BadKey {}

impl FromStr for EventKey {
    type Err = BadKey;

    fn from_str(text: &str) -> Result<EventKey, BadKey> {
        let bad = || BadKey(text.to_owned());
        let (kind, rest) = text.split_once('-').ok_or_else(bad)?;
        let index = || rest.parse::<EventIndex>().map_err(|_| bad());
        match kind {
            "r" => Ok(EventKey::Raw(index()?)),
            "s" => Ok(EventKey::Synthetic(index()?)),
            "p" => {
                // The sample may be -1: split from the ends.
                let mut parts = rest.splitn(3, '-');
                let pid = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
                let tid = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
                let tail = parts.next().ok_or_else(bad)?;
                let (sample, node) = tail.rsplit_once('-').ok_or_else(bad)?;
                let sample = sample.parse().map_err(|_| bad())?;
                let node = node.parse().map_err(|_| bad())?;
                Ok(EventKey::ProfileCall { pid, tid, sample, node })
            }
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_written_and_read_back() {
        for text in ["r-0", "s-16472", "p-49575-15428179-2834-374", "p-1-2--1-7"] {
            let key: EventKey = text.parse().unwrap();
            assert_eq!(key.to_string(), text);
        }
        assert_eq!("s-8944".parse(), Ok(EventKey::Synthetic(8944)));
    }

    #[test]
    fn other_texts_are_not_keys() {
        for text in ["", "r", "r-", "x-1", "r--1", "s-1.5", "p-1-2-3", "p-a-2-3-4"] {
            assert!(text.parse::<EventKey>().is_err(), "{text}");
        }
    }
}
