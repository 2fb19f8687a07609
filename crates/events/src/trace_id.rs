//! Sample trace ids: the link some trace events carry to the CPU sample
//! taken when they happened.

use crate::jsnum::js_number_string;
use crate::json::{js_truthy, member_at, MemberAt};
use crate::scan::{skip_value, skip_ws};
use crate::sym::{Interner, Strings, Sym};

/// A `sampleTraceId` value, as the event wrote it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SampleTraceId {
    /// A number (or a value that parses as one).
    Num(f64),
    /// A string, interned.
    Str(Sym),
}

impl SampleTraceId {
    /// The text JavaScript uses as the property key of this value, which
    /// is what a profile's `trace_ids` map is keyed by.
    pub fn key(self, interner: &Strings) -> String {
        match self {
            SampleTraceId::Num(x) => js_number_string(x),
            SampleTraceId::Str(s) => interner.resolve(s).to_owned(),
        }
    }
}

fn value(raw: &str, interner: &mut Interner) -> Option<SampleTraceId> {
    if !js_truthy(raw) {
        return None;
    }
    if let Ok(x) = serde_json::from_str::<f64>(raw) {
        return Some(SampleTraceId::Num(x));
    }
    serde_json::from_str::<String>(raw)
        .ok()
        .map(|s| SampleTraceId::Str(interner.intern(&s)))
}

/// `sampleTraceId` as DevTools reads it from an event's args: from
/// `beginData` when the args have one, else `args.sampleTraceId`, else
/// `args.data.sampleTraceId`; `None` when absent or falsy.
pub fn sample_trace_id(args: &str, interner: &mut Interner) -> Option<SampleTraceId> {
    // Wherever it is, the id is spelled out: most args are passed over.
    // (One finder for every call: building one per call was 3% of a load.)
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"sampleTraceId"));
    FINDER.find(args.as_bytes())?;
    let b = args.as_bytes();
    let open = skip_ws(b, 0);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    // One walk: `data` and `beginData` are read where they stand rather
    // than skipped and then read again. A repeated key keeps its last
    // value, as `JSON.parse` does; the walk stops where the args stop
    // being readable, keeping what came before.
    let (mut begin_data, mut direct, mut data) = (None, None, None);
    let mut at = open + 1;
    while let MemberAt::Key { key, value } = member_at(args, at) {
        at = match key.as_ref() {
            "beginData" | "data" => {
                let (id, Some(end)) = nested_id(args, value) else {
                    break;
                };
                *(if key == "data" { &mut data } else { &mut begin_data }) = Some(id);
                end
            }
            other => {
                let Ok(end) = skip_value(b, value) else {
                    break;
                };
                if other == "sampleTraceId" {
                    direct = Some(&args[value..end]);
                }
                end
            }
        };
    }
    if let Some(begin) = begin_data {
        return value(begin?, interner);
    }
    // `??` moves on only from null or undefined.
    match direct {
        Some(v) if v != "null" => value(v, interner),
        _ => value(data??, interner),
    }
}

/// The raw `sampleTraceId` member of the value at `start` when it is an
/// object (its last one), and the offset just past the value (`None`
/// when the value cannot be scanned).
fn nested_id(text: &str, start: usize) -> (Option<&str>, Option<usize>) {
    let b = text.as_bytes();
    let mut found = None;
    if b.get(start) == Some(&b'{') {
        let mut at = start + 1;
        loop {
            match member_at(text, at) {
                MemberAt::Key { key, value } => {
                    let Ok(end) = skip_value(b, value) else {
                        return (found, None);
                    };
                    if key == "sampleTraceId" {
                        found = Some(&text[value..end]);
                    }
                    at = end;
                }
                MemberAt::Closed { after } => return (found, Some(after)),
                // Malformed inside: what was read stands, and the scanner
                // (which checks only strings and brackets) finds the end.
                MemberAt::NeedMore | MemberAt::Bad { .. } => break,
            }
        }
    }
    (found, skip_value(b, start).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain reading, walking each object with `object_members`
    /// (`data` scanned twice): what the one-walk reader must agree with.
    fn two_walks(args: &str, interner: &mut Interner) -> Option<SampleTraceId> {
        use crate::json::object_members;
        fn nested(object: &str) -> Option<&str> {
            object_members(object)
                .filter(|(k, _)| k == "sampleTraceId")
                .last()
                .map(|(_, v)| v)
        }
        let (mut begin_data, mut direct, mut data) = (None, None, None);
        for (key, v) in object_members(args) {
            match key.as_ref() {
                "beginData" => begin_data = Some(v),
                "sampleTraceId" => direct = Some(v),
                "data" => data = Some(v),
                _ => {}
            }
        }
        if let Some(begin) = begin_data {
            return value(nested(begin)?, interner);
        }
        match direct {
            Some(v) if v != "null" => value(v, interner),
            _ => value(nested(data?)?, interner),
        }
    }

    #[test]
    fn one_walk_reads_what_two_walks_read() {
        let shapes = [
            r#"{"data":{"sampleTraceId":12}}"#,
            r#"{"data":{"a":[1,{"sampleTraceId":3}],"sampleTraceId":"x\"y"},"b":2}"#,
            r#"{"sampleTraceId":null,"data":{"sampleTraceId":12}}"#,
            r#"{"sampleTraceId":5,"data":{"sampleTraceId":12}}"#,
            r#"{"data":{"sampleTraceId":12},"data":{"x":1}}"#,
            r#"{"data":{"sampleTraceId":1},"data":{"sampleTraceId":2,"sampleTraceId":3}}"#,
            r#"{"beginData":{"sampleTraceId":7},"beginData":5,"data":{"sampleTraceId":12}}"#,
            r#"{"beginData":{},"data":{"sampleTraceId":12}}"#,
            r#"{"data":5,"sampleTraceId":9}"#,
            r#"{"data":{"sampleTraceId":1 "b":2},"sampleTraceId":9}"#,
            r#"{"data":{"sampleTraceId":4,"b" 2},"c":1}"#,
            r#"{"data":{"sampleTraceId":4,]},"c":1}"#,
            r#" { "data" : { "sampleTraceId" : 8 } } "#,
            r#"{"x":"sampleTraceId"}"#,
            r#"["sampleTraceId"]"#,
        ];
        for shape in shapes {
            // Whole, and cut at every byte (as a damaged event's args).
            for end in (0..=shape.len()).filter(|&end| shape.is_char_boundary(end)) {
                let args = &shape[..end];
                let mut interner = Interner::new();
                let ours = sample_trace_id(args, &mut interner).map(|id| id.key(&interner));
                let mut interner = Interner::new();
                let plain = two_walks(args, &mut interner).map(|id| id.key(&interner));
                assert_eq!(ours, plain, "{args}");
            }
        }
    }

    #[test]
    fn read_where_devtools_reads_them() {
        let mut interner = Interner::new();
        let mut key = |args: &str| sample_trace_id(args, &mut interner).map(|id| id.key(&Interner::new()));
        assert_eq!(key(r#"{"data":{"sampleTraceId":12}}"#), Some("12".into()));
        assert_eq!(
            key(r#"{"sampleTraceId":5,"data":{"sampleTraceId":12}}"#),
            Some("5".into())
        );
        assert_eq!(key(r#"{"beginData":{},"data":{"sampleTraceId":12}}"#), None);
        assert_eq!(key(r#"{"beginData":{"sampleTraceId":7}}"#), Some("7".into()));
        assert_eq!(key(r#"{"data":{"sampleTraceId":0}}"#), None);
        assert_eq!(key(r#"{"data":{}}"#), None);
        assert_eq!(
            key(r#"{"data":{"sampleTraceId":7553219843432160451}}"#),
            Some("7553219843432160000".into())
        );
    }
}
