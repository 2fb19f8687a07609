//! Call frames: where a profile node's function lives.

use tracekit_events::jsnum::write_js_number;
use tracekit_events::{Strings, Sym};

/// A function location. Strings are interned; a number the profile left
/// out is `None` and prints as JavaScript prints `undefined`. A string the
/// `callFrame` left out is the text `undefined` (what DevTools would
/// print); a legacy node's missing fields are DevTools' defaults instead
/// (see [`crate::raw`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CallFrame {
    /// `functionName` (empty for anonymous functions).
    pub function_name: Sym,
    /// `url` of the script (empty when it has none).
    pub url: Sym,
    /// `scriptId`, as text whatever the input wrote (a number or a string).
    pub script_id: Sym,
    /// Which field names the frame's location in the aggregated views'
    /// node ids (see [`IdLocation`]).
    pub id_location: IdLocation,
    /// `lineNumber`, 0-based (a legacy node's 1-based one less 1), as
    /// written otherwise: -1 for "none", and any number a writer put there.
    pub line_number: Option<f64>,
    /// `columnNumber`, 0-based, converted and kept as `line_number` is.
    pub column_number: Option<f64>,
    /// `codeType` (`JS`, `other`) as the profile wrote it; `None` when it
    /// wrote none (DevTools' call frames then have none either).
    pub code_type: Option<Sym>,
}

/// The field DevTools' aggregated views name a frame's location by: the
/// first JavaScript-truthy of `scriptId` and `url`, else nothing. Trace
/// profiles store `String(scriptId)`, truthy unless empty; a `.cpuprofile`
/// (or a `CpuProfile` event) keeps the raw JSON values, so a number 0,
/// `""`, `null`, `false` or a missing `scriptId` is falsy, and so is a
/// missing or empty `url`. Decided when the frame is read, because the
/// interned texts no longer tell a missing field from the text `undefined`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdLocation {
    /// `scriptId` is truthy.
    ScriptId,
    /// `scriptId` is falsy and `url` truthy.
    Url,
    /// Both are falsy: the location is empty.
    Nothing,
}

impl IdLocation {
    /// The location field of a frame whose `scriptId` and `url` are as
    /// given (JavaScript truthiness).
    pub fn of(script_id_truthy: bool, url_truthy: bool) -> IdLocation {
        if script_id_truthy {
            IdLocation::ScriptId
        } else if url_truthy {
            IdLocation::Url
        } else {
            IdLocation::Nothing
        }
    }
}

impl CallFrame {
    /// The frame of a meta node (`(root)`, `(program)`, ...), as V8 writes
    /// one: no url, script `0`, no line or column.
    pub fn meta(name: Sym) -> CallFrame {
        CallFrame {
            function_name: name,
            url: tracekit_events::names::EMPTY,
            script_id: tracekit_events::names::ZERO,
            id_location: IdLocation::ScriptId,
            line_number: Some(-1.0),
            column_number: Some(-1.0),
            code_type: None,
        }
    }

    /// Whether it is V8's native code, as DevTools' stacks of events leave
    /// it out: no url, script `0`, line and column -1 (a [`Self::meta`]
    /// frame is one).
    pub fn is_v8_native(&self) -> bool {
        self.line_number == Some(-1.0)
            && self.column_number == Some(-1.0)
            && self.url == tracekit_events::names::EMPTY
            && self.script_id == tracekit_events::names::ZERO
    }

    /// `js:<functionName>@<url>:<lineNumber>:<columnNumber>`, the label of a
    /// JS call in the conformance dump.
    pub fn write_label(&self, out: &mut String, interner: &Strings) {
        out.push_str("js:");
        out.push_str(interner.resolve(self.function_name));
        out.push('@');
        out.push_str(interner.resolve(self.url));
        out.push(':');
        write_optional_number(out, self.line_number);
        out.push(':');
        write_optional_number(out, self.column_number);
    }

    /// [`CallFrame::write_label`] into a new string.
    pub fn label(&self, interner: &Strings) -> String {
        let mut s = String::new();
        self.write_label(&mut s, interner);
        s
    }
}

fn write_optional_number(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) => write_js_number(out, x),
        None => out.push_str("undefined"),
    }
}
