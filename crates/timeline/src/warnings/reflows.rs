//! What the Warnings handler keeps of each forced reflow for the Forced
//! reflow insight: its time, thread and frame, the top of the stack its
//! args carry, and the `FunctionCall` it ran in, read while the event's
//! text is at hand.

use tracekit_events::json::{array_items, as_f64, as_str, members};
use tracekit_events::prepared::ArgsSpan;
use tracekit_events::{names, ArgsKey, Context, Event, EventIndex, Id, Interner, Micros, Sym};

/// A style recalculation or layout forced by JavaScript, as the Forced
/// reflow insight reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForcedReflow {
    /// The event.
    pub event: EventIndex,
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// When it started.
    pub ts: Micros,
    /// Its duration (zero when it says none).
    pub dur: Micros,
    /// Its frame: `args.beginData.frame`, else `args.data.frame`, if a
    /// string (DevTools' `frameIDForEvent`).
    pub frame: Option<Sym>,
    /// The first frame of the stack trace its args carry, made 0-based
    /// (`None`: no stack, or an empty one).
    pub stack_top: Option<PayloadFrame>,
    /// The innermost `FunctionCall` open on its thread when it happened,
    /// if that call's `args.data` describes a call frame.
    pub function_call: Option<FunctionCallFrame>,
}

/// A frame of a stack trace in an event's args, made 0-based as DevTools
/// makes those of layouts and style recalculations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PayloadFrame {
    /// The frame's object as written (its members other than the three
    /// below are written as they are).
    pub text: Sym,
    /// `String(scriptId)` (`None`: absent).
    pub script_id: Option<Sym>,
    /// `lineNumber` less 1 (0 stays 0); `None` when not a number.
    pub line_number: Option<f64>,
    /// `columnNumber` likewise.
    pub column_number: Option<f64>,
}

/// A `FunctionCall` whose `args.data` is a call frame (a string
/// `functionName` and `url`, a string or number `scriptId`, number
/// `lineNumber` and `columnNumber`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FunctionCallFrame {
    /// The `FunctionCall` event.
    pub event: EventIndex,
    /// Its `args.data`, as written.
    pub data: Sym,
    /// `String(scriptId)`.
    pub script_id: Sym,
    /// `lineNumber`.
    pub line_number: f64,
    /// `columnNumber`.
    pub column_number: f64,
}

/// An open `FunctionCall` while reading: its end and thread, and its
/// `args.data` if a call frame (interned once a reflow needs it).
#[derive(Debug)]
pub(super) struct OpenCall {
    pub end: f64,
    pub pid: Id,
    pub tid: Id,
    pub event: EventIndex,
    pub data: Option<CallData>,
}

/// A `FunctionCall`'s call frame, its text not yet interned.
#[derive(Debug)]
pub(super) enum CallData {
    Raw {
        text: String,
        script_id: String,
        line: f64,
        column: f64,
    },
    Interned(FunctionCallFrame),
}

impl OpenCall {
    /// A `FunctionCall` just read.
    pub(super) fn of(index: EventIndex, event: &Event<'_>, end: f64, cx: &mut Context) -> OpenCall {
        let data = cx.args_member(index, event, ArgsKey::Data).and_then(call_data);
        OpenCall {
            end,
            pid: event.pid,
            tid: event.tid,
            event: index,
            data,
        }
    }

    /// Its call frame, interned.
    pub(super) fn frame(&mut self, interner: &mut Interner) -> Option<FunctionCallFrame> {
        let frame = match self.data.take()? {
            CallData::Interned(frame) => frame,
            CallData::Raw {
                text,
                script_id,
                line,
                column,
            } => FunctionCallFrame {
                event: self.event,
                data: interner.intern(&text),
                script_id: interner.intern(&script_id),
                line_number: line,
                column_number: column,
            },
        };
        self.data = Some(CallData::Interned(frame));
        Some(frame)
    }
}

/// `args.data` of a `FunctionCall`, if it is a call frame.
fn call_data(data: &str) -> Option<CallData> {
    let [function_name, url, raw_script, line, column] =
        members(data, ["functionName", "url", "scriptId", "lineNumber", "columnNumber"])?;
    function_name.and_then(as_str)?;
    url.and_then(as_str)?;
    let raw_script = raw_script?;
    let script_id = match as_f64(raw_script) {
        Some(x) => tracekit_events::jsnum::js_number_string(x),
        None => as_str(raw_script)?.into_owned(),
    };
    Some(CallData::Raw {
        text: data.trim().to_owned(),
        script_id,
        line: line.and_then(as_f64)?,
        column: column.and_then(as_f64)?,
    })
}

/// The members of a reflow's args that make its [`ForcedReflow`], each an
/// `S`: the raw JSON text, or its place in the args ([`ArgsSpan`]) while
/// the walk done on another core waits for the interning.
#[derive(Debug)]
pub(super) struct RawReflow<S> {
    /// `args.beginData.frame`, else `args.data.frame`: the first that is a
    /// string.
    frame: Option<S>,
    /// The first frame of the stack: `args.data.stackTrace`,
    /// `args.stackTrace`, then `args.beginData.stackTrace`, the first that
    /// is an array.
    stack_top: Option<S>,
}

impl<S> Default for RawReflow<S> {
    fn default() -> Self {
        RawReflow {
            frame: None,
            stack_top: None,
        }
    }
}

impl RawReflow<ArgsSpan> {
    /// The members of the args of a `Layout` or an `UpdateLayoutTree`,
    /// kept as their places in the args; `None` for another event.
    pub(super) fn read(event: &Event<'_>) -> Option<RawReflow<ArgsSpan>> {
        if event.name != names::LAYOUT && event.name != names::UPDATE_LAYOUT_TREE {
            return None;
        }
        let args = event.args.unwrap_or_default();
        let [data, begin_data, args_stack] = members(args, ["data", "beginData", "stackTrace"]).unwrap_or([None; 3]);
        Some(RawReflow::of(data, begin_data, args_stack).map(|part| ArgsSpan::of(args, part)))
    }
}

impl<S> RawReflow<S> {
    pub(super) fn map<T>(self, mut f: impl FnMut(S) -> T) -> RawReflow<T> {
        RawReflow {
            frame: self.frame.map(&mut f),
            stack_top: self.stack_top.map(f),
        }
    }
}

impl<'a> RawReflow<&'a str> {
    /// The members of the args of a `Layout` or an `UpdateLayoutTree`
    /// that has `data`, `begin_data` and `stack_trace`.
    fn of(data: Option<&'a str>, begin_data: Option<&'a str>, args_stack: Option<&'a str>) -> RawReflow<&'a str> {
        let [begin_frame, begin_stack] = begin_data
            .and_then(|b| members(b, ["frame", "stackTrace"]))
            .unwrap_or([None; 2]);
        let [data_frame, data_stack] = data
            .and_then(|d| members(d, ["frame", "stackTrace"]))
            .unwrap_or([None; 2]);
        let frame = begin_frame
            .filter(|f| as_str(f).is_some())
            .or_else(|| data_frame.filter(|f| as_str(f).is_some()));
        let is_array = |s: &&str| s.trim_start().starts_with('[');
        let stack = data_stack
            .filter(is_array)
            .or_else(|| args_stack.filter(is_array))
            .or_else(|| begin_stack.filter(is_array));
        RawReflow {
            frame,
            stack_top: stack.and_then(|s| array_items(s).next()),
        }
    }
}

/// What is kept of a forced reflow `event` (a `Layout` or an
/// `UpdateLayoutTree`) whose args have `raw`, in `function_call`.
pub(super) fn forced_reflow(
    index: EventIndex,
    event: &Event<'_>,
    function_call: Option<FunctionCallFrame>,
    raw: RawReflow<&str>,
    interner: &mut Interner,
) -> ForcedReflow {
    let frame = raw.frame.and_then(as_str).map(|f| interner.intern(&f));
    let stack_top = raw.stack_top.and_then(|f| payload_frame(f, interner));
    ForcedReflow {
        event: index,
        pid: event.pid,
        tid: event.tid,
        ts: event.ts,
        dur: event.dur.unwrap_or(Micros::ZERO),
        frame,
        stack_top,
        function_call,
    }
}

/// A stack frame of the args, made 0-based.
fn payload_frame(raw: &str, interner: &mut Interner) -> Option<PayloadFrame> {
    let [line, column, script_id] = members(raw, ["lineNumber", "columnNumber", "scriptId"])?;
    let zero_based = |raw: Option<&str>| {
        let x = raw.and_then(as_f64)?;
        Some(if x == 0.0 { x } else { x - 1.0 })
    };
    let script_id = script_id.and_then(|s| match as_f64(s) {
        Some(x) => Some(tracekit_events::jsnum::js_number_string(x)),
        None => as_str(s).map(std::borrow::Cow::into_owned),
    });
    Some(PayloadFrame {
        text: interner.intern(raw.trim()),
        script_id: script_id.map(|s| interner.intern(&s)),
        line_number: zero_based(line),
        column_number: zero_based(column),
    })
}
