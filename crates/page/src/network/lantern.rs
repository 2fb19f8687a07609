//! What DevTools' insights change in the requests: when they simulate a
//! navigation's page load (Lantern), each request of the navigation that
//! has a stack trace gets that stack, one-based lines made zero-based, as
//! its initiator's `stack`, on the very object the handler data holds.
//! The data conformance dump is taken after the insights, so it shows it.

use tracekit_events::dump::{Object, Value};
use tracekit_events::json::{as_f64, as_str, object_members};
use tracekit_events::{jsnum, Micros, Strings};

use super::{allowed, NetworkRequests};
use crate::value::JsValue;

impl NetworkRequests {
    /// Gives the initiator of each request that started in `[start, end)`
    /// its stack, as DevTools' page load simulation of the navigation
    /// there does (a main-frame navigation, until the next of its frame).
    /// Like it, stops at the first request with a response but no
    /// connection id (a trace too old to simulate), and passes over those
    /// whose URL does not parse.
    pub fn add_simulation_initiator_stacks(&mut self, start: Micros, end: Micros, strings: &Strings) {
        for request in &mut self.requests {
            if !(request.ts >= start && request.ts < end) {
                continue;
            }
            if request.has_response && request.connection_id == JsValue::Undefined {
                return;
            }
            if !parses(strings.resolve(request.url)) {
                continue;
            }
            if request.stack_trace.is_truthy() && matches!(request.initiator, JsValue::Raw(_)) {
                request.initiator_has_stack = true;
            }
        }
    }
}

/// The initiator of a request with the stack the simulation gave it:
/// its members, `stack` replaced by `{callFrames}` of the shown frames.
pub(super) fn initiator_with_stack(initiator: &str, stack: &Value) -> Value {
    let mut object = Object::new();
    for (key, value) in object_members(initiator) {
        if key != "stack" {
            object.push(key.into_owned(), Value::Json(value.into()));
        }
    }
    let frames = match stack {
        Value::Array(frames) => frames.iter().map(call_frame).collect(),
        _ => Vec::new(),
    };
    object
        .with("stack", Object::new().with("callFrames", Value::Array(frames)).into())
        .into()
}

/// A frame of the stack as the simulation copies it.
fn call_frame(frame: &Value) -> Value {
    let Value::Object(members) = frame else {
        return Value::Null;
    };
    let get = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let number = |v: Option<&Value>| match v {
        Some(Value::Json(raw)) => as_f64(raw).unwrap_or(f64::NAN),
        _ => f64::NAN,
    };
    let script_id = match get("scriptId") {
        Some(Value::Json(raw)) => match (as_str(raw), as_f64(raw)) {
            (Some(s), _) => Value::str(s.into_owned()),
            (None, Some(x)) => Value::str(jsnum::js_number_string(x)),
            _ => Value::str(raw.to_string()),
        },
        _ => Value::str("undefined"),
    };
    Object::new()
        .with("scriptId", script_id)
        .with("url", get("url").cloned().unwrap_or(Value::Null))
        .with("lineNumber", Value::Num(number(get("lineNumber")) - 1.0))
        .with("columnNumber", Value::Num(number(get("columnNumber")) - 1.0))
        .with("functionName", get("functionName").cloned().unwrap_or(Value::Null))
        .into()
}

/// Whether a URL has what `new URL()` needs for the schemes DevTools
/// keeps: `http:` and `https:` a host, the others anything.
fn parses(url: &str) -> bool {
    if !allowed(url) {
        return false;
    }
    for scheme in ["http:", "https:"] {
        if let Some(rest) = url.strip_prefix(scheme) {
            let rest = rest.trim_start_matches(['/', '\\']);
            let host_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
            let host = &rest[..host_end];
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            return !host.is_empty() && !host.starts_with(':');
        }
    }
    true
}
