//! A profile's `traceIds`: the node each sample trace id names.

use ahash::AHashMap;

/// A profile's `traceIds` (`trace_ids` in a trace's chunks): the node id
/// each sample trace id names. The object's keys are strings; an event
/// names its sample by a number or a string, which DevTools looks up as
/// `String(id)`. A key that is a number as JavaScript prints it (nearly
/// every key: `"7"`, `"12345"`) is kept as that number, so that neither
/// reading a profile nor looking a sample up makes a string.
///
/// ```
/// # use tracekit_cpuprofile::{TraceIdKey, TraceIds};
/// let mut ids = TraceIds::default();
/// ids.insert(TraceIdKey::of("7"), 2);
/// ids.insert(TraceIdKey::of("07"), 3);
/// assert_eq!(ids.get_number(7.0), Some(2));
/// assert_eq!(ids.get("7"), Some(2));
/// assert_eq!(ids.get("07"), Some(3));
/// assert_eq!(ids.len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceIds {
    /// The keys that are numbers, by the bits of the number.
    by_number: AHashMap<u64, i64>,
    /// The other keys, as written.
    by_text: AHashMap<String, i64>,
}

/// A `traceIds` key: a number when it is one as JavaScript prints it,
/// else its text.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceIdKey {
    /// A key that is `String(x)` for this number.
    Number(f64),
    /// Any other key.
    Text(String),
}

impl TraceIdKey {
    /// The key written `key`.
    pub fn of(key: &str) -> TraceIdKey {
        match number_of_js_string(key) {
            Some(x) => TraceIdKey::Number(x),
            None => TraceIdKey::Text(key.to_owned()),
        }
    }
}

/// The map key of a number: `-0` is `0`, as `String(-0)` is `"0"`.
fn bits(x: f64) -> u64 {
    (x + 0.0).to_bits()
}

impl TraceIds {
    /// Names `node` for `key`; a key given again takes the later node (as
    /// DevTools' object spread does).
    pub fn insert(&mut self, key: TraceIdKey, node: i64) {
        match key {
            TraceIdKey::Number(x) => self.by_number.insert(bits(x), node),
            TraceIdKey::Text(text) => self.by_text.insert(text, node),
        };
    }

    /// The node of the sample trace id `x`, a number (looked up as
    /// `String(x)`).
    pub fn get_number(&self, x: f64) -> Option<i64> {
        self.by_number.get(&bits(x)).copied()
    }

    /// The node of the key written `key`.
    pub fn get(&self, key: &str) -> Option<i64> {
        match number_of_js_string(key) {
            Some(x) => self.get_number(x),
            None => self.by_text.get(key).copied(),
        }
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.by_number.len() + self.by_text.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `more` keys (taken as numbers, as nearly all are).
    pub fn reserve(&mut self, more: usize) {
        self.by_number.reserve(more);
    }
}

impl Extend<(TraceIdKey, i64)> for TraceIds {
    fn extend<I: IntoIterator<Item = (TraceIdKey, i64)>>(&mut self, pairs: I) {
        for (key, node) in pairs {
            self.insert(key, node);
        }
    }
}

impl FromIterator<(TraceIdKey, i64)> for TraceIds {
    fn from_iter<I: IntoIterator<Item = (TraceIdKey, i64)>>(pairs: I) -> Self {
        let mut ids = TraceIds::default();
        ids.extend(pairs);
        ids
    }
}

/// The number whose JavaScript string (`String(x)`) is `key`, if there is
/// one.
pub fn number_of_js_string(key: &str) -> Option<f64> {
    let digits = key.as_bytes();
    // The usual key: a whole number up to 2^53 (Chrome's trace ids have up
    // to 16 digits), with no leading zero, is exact as a double and
    // printed back as it is written.
    if matches!(digits, [b'1'..=b'9', ..] | [b'0']) && digits.len() <= 16 && digits.iter().all(u8::is_ascii_digit) {
        let n = digits.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        if n <= 1 << 53 {
            #[allow(clippy::cast_precision_loss)] // at most 2^53: exact
            return Some(n as f64);
        }
    }
    let x = key.parse::<f64>().ok()?;
    (tracekit_events::jsnum::js_number_string(x) == key).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_numbers_as_javascript_prints_them() {
        // What a key means: the number whose `String(x)` is the key.
        let by_round_trip = |key: &str| {
            let x = key.parse::<f64>().ok()?;
            (tracekit_events::jsnum::js_number_string(x) == key).then_some(x)
        };
        for key in [
            "0",
            "7",
            "10",
            "123456789012345",
            "1234567890123456",
            "9007199254740993",
            "012",
            "00",
            "-1",
            "-0",
            "1.5",
            "1e3",
            "1000",
            " 1",
            "1 ",
            "",
            "+1",
            "abc",
            "1_0",
            "999999999999999",
            "Infinity",
            "NaN",
            "6996056629968889",
            "9007199254740992",
            "9007199254740993",
            "9007199254740994",
            "9999999999999999",
            "0000000000000001",
        ] {
            assert_eq!(
                number_of_js_string(key).map(f64::to_bits),
                by_round_trip(key).map(f64::to_bits),
                "{key:?}"
            );
        }
    }

    #[test]
    fn numbers_and_texts_are_looked_up_as_strings() {
        let ids: TraceIds = [("7", 1), ("-1", 2), ("1.5", 3), ("x", 4), ("7", 5), ("0", 6)]
            .into_iter()
            .map(|(key, node)| (TraceIdKey::of(key), node))
            .collect();
        assert_eq!(ids.len(), 5);
        // The later "7" wins.
        assert_eq!((ids.get("7"), ids.get_number(7.0)), (Some(5), Some(5)));
        assert_eq!((ids.get("-1"), ids.get_number(-1.0)), (Some(2), Some(2)));
        assert_eq!((ids.get("1.5"), ids.get_number(1.5)), (Some(3), Some(3)));
        assert_eq!((ids.get("x"), ids.get("07")), (Some(4), None));
        // -0 is looked up as "0".
        assert_eq!(ids.get_number(-0.0), Some(6));
        assert_eq!(ids.get("-0"), None);
    }
}
