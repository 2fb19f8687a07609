//! Sample trace ids: the link some trace events carry to the CPU sample
//! taken when they happened.

use crate::jsnum::js_number_string;
use crate::json::{js_truthy, object_members};
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
    // `??` moves on only from null or undefined.
    match direct {
        Some(v) if v != "null" => value(v, interner),
        _ => value(nested(data?)?, interner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
