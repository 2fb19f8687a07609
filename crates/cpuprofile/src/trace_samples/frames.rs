//! The stack frames, indexed by key: their parent links resolved, each
//! frame's chain checked once (unknown parents, cycles, frames that are
//! not objects), and a frame's call frame read from its fields.

use std::borrow::Cow;

use ahash::AHashMap;
use tracekit_events::{names, Diagnostics, Interner};

use super::decode::{FrameJson, FramesJson, Scalar};
use crate::callframe::{CallFrame, IdLocation};

/// Where a frame's `parent` leads.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Parent {
    /// No parent: a root or a top frame.
    None,
    Frame(u32),
    /// A parent id that names no frame (or is not an id at all).
    Unknown,
}

#[derive(Clone, Copy, PartialEq)]
enum Check {
    Unchecked,
    /// On the chain being checked right now.
    Checking,
    Valid,
    Invalid,
}

/// The stack frames, indexed, with their parent links resolved and each
/// chain checked at most once.
pub(super) struct Frames<'a> {
    pub(super) keys: Vec<Cow<'a, str>>,
    frames: Vec<Option<FrameJson<'a>>>,
    pub(super) parents: Vec<Parent>,
    pub(super) by_key: AHashMap<Cow<'a, str>, u32>,
    check: Vec<Check>,
    chain: Vec<u32>,
}

impl<'a> Frames<'a> {
    /// `input` has fewer than 2^32 frames (checked by
    /// [`profiles_from_trace_samples`](super::profiles_from_trace_samples)),
    /// so that a `u32` indexes them.
    pub(super) fn new(input: FramesJson<'a>) -> Self {
        let mut keys = Vec::with_capacity(input.0.len());
        let mut frames = Vec::with_capacity(input.0.len());
        let mut by_key = AHashMap::with_capacity(input.0.len());
        for (i, (key, frame)) in input.0.into_iter().enumerate() {
            // A repeated key: the last one wins, as in `JSON.parse`.
            #[allow(clippy::cast_possible_truncation)] // fewer than 2^32 frames
            by_key.insert(key.clone(), i as u32);
            keys.push(key);
            frames.push(frame.0);
        }
        let parents = frames
            .iter()
            .map(|frame| match frame.as_ref().and_then(|f| f.parent.as_ref()) {
                None | Some(Scalar::Null) => Parent::None,
                Some(p) => p
                    .key()
                    .and_then(|k| by_key.get(k.as_ref()).copied())
                    .map_or(Parent::Unknown, Parent::Frame),
            })
            .collect();
        let check = vec![Check::Unchecked; frames.len()];
        Frames {
            keys,
            frames,
            parents,
            by_key,
            check,
            chain: Vec::new(),
        }
    }

    /// Whether the chain from `leaf` up to a frame without a parent is
    /// whole. A broken chain is counted once, under its cause.
    pub(super) fn is_whole(&mut self, leaf: u32, diag: &mut Diagnostics) -> bool {
        self.chain.clear();
        let mut cursor = leaf;
        let whole = loop {
            match self.check[cursor as usize] {
                Check::Valid => break true,
                Check::Invalid => break false,
                Check::Checking => {
                    diag.skip(tracekit_events::Skip::TraceSamplesFrameCycle, || {
                        format!("stack frame {}", self.keys[cursor as usize])
                    });
                    break false;
                }
                Check::Unchecked => {
                    self.check[cursor as usize] = Check::Checking;
                    self.chain.push(cursor);
                    if self.frames[cursor as usize].is_none() {
                        diag.skip(tracekit_events::Skip::TraceSamplesFrameNotAnObject, || {
                            format!("stack frame {}", self.keys[cursor as usize])
                        });
                        break false;
                    }
                    match self.parents[cursor as usize] {
                        Parent::None => break true,
                        Parent::Frame(p) => cursor = p,
                        Parent::Unknown => {
                            diag.skip(tracekit_events::Skip::TraceSamplesUnknownParent, || {
                                format!("stack frame {}", self.keys[cursor as usize])
                            });
                            break false;
                        }
                    }
                }
            }
        };
        let state = if whole { Check::Valid } else { Check::Invalid };
        for &f in &self.chain {
            self.check[f as usize] = state;
        }
        whole
    }

    /// Whether frame `f` (whole, without a parent) is a thread's root.
    pub(super) fn is_root(&self, f: u32) -> bool {
        self.parents[f as usize] == Parent::None
            && self.frames[f as usize]
                .as_ref()
                .and_then(|frame| frame.category.as_ref())
                .is_some_and(|c| matches!(c, Scalar::Str(s) if s == "root"))
    }

    pub(super) fn call_frame(&self, f: u32, interner: &mut Interner) -> CallFrame {
        let Some(frame) = self.frames[f as usize].as_ref() else {
            return CallFrame::meta(names::EMPTY);
        };
        let name = frame.name.as_ref().and_then(Scalar::text).unwrap_or(Cow::Borrowed(""));
        let suffix = location_suffix(&name);
        let url = match frame.url.as_ref() {
            Some(Scalar::Str(url)) => interner.intern(url),
            _ => suffix.map_or(names::EMPTY, |(url, _, _)| interner.intern(url)),
        };
        let (line, column) = if let Some(line) = number(&frame.func_line) {
            (Some(line), number(&frame.func_column))
        } else if let Some(line) = number(&frame.line) {
            (Some(line), number(&frame.column))
        } else {
            suffix.map_or((None, None), |(_, line, column)| (Some(line), Some(column)))
        };
        CallFrame {
            function_name: interner.intern(&name),
            url,
            script_id: names::ZERO,
            id_location: IdLocation::ScriptId,
            line_number: Some(line.map_or(-1.0, |l| l - 1.0)),
            column_number: Some(column.map_or(-1.0, |c| c - 1.0)),
            code_type: None,
        }
    }
}

/// The `(url:line:column)` that ends a frame name when Hermes has debug
/// info (`fn(http://host/index.bundle:17:3)`): the url runs from the first
/// `(` to the last two `:`, and both numbers are digits.
fn location_suffix(name: &str) -> Option<(&str, f64, f64)> {
    let inner = name.strip_suffix(')')?;
    let inside = &inner[inner.find('(')? + 1..];
    let (rest, column) = inside.rsplit_once(':')?;
    let (url, line) = rest.rsplit_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(line) || !digits(column) {
        return None;
    }
    Some((url, line.parse().ok()?, column.parse().ok()?))
}

fn number(s: &Option<Scalar<'_>>) -> Option<f64> {
    s.as_ref().and_then(Scalar::number)
}
