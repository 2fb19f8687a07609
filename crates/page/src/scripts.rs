//! The Scripts handler (DevTools' `ScriptsHandler`): the scripts V8
//! describes in its source rundown (`ScriptCatchup` of
//! `disabled-by-default-devtools.v8-source-rundown`, with their source
//! text in `…-sources`, long ones in pieces as `LargeScriptCatchup`) and
//! the target rundown (`ScriptCompiled`: the script's frame), keyed by
//! isolate and script id; the frame of a script no rundown placed, from
//! the `FunctionCall`s of its isolate; and, once the page's frames and
//! requests are known, whether each script is inline (its URL is a
//! frame's document) and the request that loaded it.
//!
//! Source text is kept in proportion to what is read of it: up to 1,000
//! UTF-16 units whole (the dump writes it), a longer one by its length and
//! SHA-1 only, hashed as its pieces arrive ([`ScriptSource`]).

use tracekit_events::dump::{Dump, Object, Value};
use tracekit_events::jsnum::js_number_string;
use tracekit_events::json::{as_f64, as_str, js_truthy, member, object_members};
use tracekit_events::{names, Context, Event, EventIndex, Handler, Id, Micros, Phase, Skip, Sym, Wants};
use tracekit_meta::MetaData;

use crate::legacy_javascript::LegacyJavaScript;
use crate::network::NetworkRequests;
use crate::Map;

mod maps;
mod url;
pub use maps::{ScriptMap, Sizes};
pub use url::complete_url;

/// The longest source text kept whole, in UTF-16 units (the dump's limit
/// for strings written as they are).
const KEPT_WHOLE: usize = 1000;

/// The size (of a source, in UTF-16 units, and of what its legacy
/// JavaScript costs, in bytes) below which the Legacy JavaScript insight
/// does not look.
const LEGACY_THRESHOLD: u64 = 5000;

/// The Scripts handler (see the module documentation).
#[derive(Debug, Default)]
pub struct ScriptsHandler {
    scripts: Vec<Script>,
    /// The source text of each script, as it arrives.
    sources: Vec<Option<Building>>,
    /// Each script's position, by the `String()` texts of its isolate and
    /// script id (DevTools' key `${isolate}.${scriptId}`).
    by_key: Map<(Sym, Sym), u32>,
    /// The frame the last `FunctionCall` of each isolate ran in, by the
    /// isolate as that event gave it.
    frame_by_isolate: Map<Id, Sym>,
    /// The scripts that may have no frame yet, by their isolate: those a
    /// `FunctionCall` of the isolate in a new frame places (checked when
    /// taken), so that frames changing often do not walk every script.
    unplaced: Map<Id, Vec<u32>>,
    /// Whether the trace has source text events at all.
    saw_sources: bool,
}

/// One script of the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The isolate, as the first event of the script gave it.
    pub isolate: Id,
    /// The script id, as text (a number's `String()`).
    pub script_id: Sym,
    /// The frame the script runs in: `Some("")` when none is known yet,
    /// `None` when a `ScriptCompiled` gave none.
    pub frame: Option<Sym>,
    /// The time of the last event that described the script (or, if none
    /// did, of its first event).
    pub ts: Micros,
    /// Whether the script's URL is the URL of a frame's document (an
    /// inline `<script>`).
    pub inline: bool,
    /// Whether a `ScriptCatchup` of the source rundown described the
    /// script (and so gave, or not, its URL).
    pub described: bool,
    /// The script's URL (empty for an evaluated one).
    pub url: Option<Sym>,
    /// Its `//# sourceURL`, when it has one.
    pub source_url: Option<Sym>,
    /// Its `//# sourceMappingURL` as V8 gives it, not resolved.
    pub source_map_url: Option<Sym>,
    /// Whether the source map URL was a `data:` URL that Chrome left out
    /// of the trace.
    pub source_map_url_elided: bool,
    /// The source map URL resolved as DevTools resolves it before fetching
    /// the map (against the script's URL, or its `sourceURL` completed
    /// against its frame's URL); `None` when DevTools would not resolve
    /// it (no frame, URL or source map URL; a frame without a URL) or
    /// could not.
    pub resolved_source_map_url: Option<Sym>,
    /// The execution context (`executionContextId`).
    pub execution_context_id: Option<f64>,
    /// The script's length in characters, as V8 gives it with its source.
    pub length: Option<f64>,
    /// The source text, when the trace has it (see [`ScriptSource`]).
    pub content: Option<ScriptSource>,
    /// The request that loaded the script: the first request of its URL,
    /// by position in [`NetworkRequests::requests`].
    pub request: Option<u32>,
    /// The legacy JavaScript found in a source of 5,000 UTF-16 units or
    /// more, when estimated to cost 5,000 bytes or more (what the Legacy
    /// JavaScript insight reports; the detector needs the whole text,
    /// which is not kept).
    pub legacy_javascript: Option<Box<LegacyJavaScript>>,
    /// The script's source map, when the trace carries it (an enhanced
    /// trace's `metadata.sourceMaps`) or its source map URL is a `data:`
    /// URL (see [`ScriptMap`]).
    pub source_map: Option<Box<ScriptMap>>,
}

/// A script's source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptSource {
    /// A source event without text (DevTools' `content` is `undefined`).
    Missing,
    /// A text of up to 1,000 UTF-16 units, kept whole.
    Text(Box<str>),
    /// A longer text, not kept: its length and the SHA-1 of its UTF-8
    /// bytes (hex), as the data conformance dump writes such a string.
    Long {
        /// Its length in UTF-16 units (JavaScript's `length`).
        length: u64,
        /// The SHA-1 of its UTF-8 bytes, in hex.
        sha1: Box<str>,
    },
}

/// A source text as it arrives.
enum Building {
    Missing,
    Short(String),
    /// A text too long to keep: its length, hash and (until the
    /// detector has read it) its text.
    Long {
        length: u64,
        sha1: sha1_smol::Sha1,
        text: String,
    },
}

impl std::fmt::Debug for Building {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Building::Missing => f.write_str("Missing"),
            Building::Short(text) => f.debug_tuple("Short").field(text).finish(),
            Building::Long { length, .. } => f.debug_struct("Long").field("length", length).finish_non_exhaustive(),
        }
    }
}

impl Building {
    fn append(self, piece: &str) -> Building {
        match self {
            Building::Missing => Building::Short(String::new()).append(piece),
            Building::Short(mut text) => {
                text.push_str(piece);
                let length = utf16_len(&text);
                if length <= KEPT_WHOLE as u64 {
                    return Building::Short(text);
                }
                Building::Long {
                    length,
                    sha1: sha1_smol::Sha1::from(text.as_bytes()),
                    text,
                }
            }
            Building::Long {
                length,
                mut sha1,
                mut text,
            } => {
                sha1.update(piece.as_bytes());
                text.push_str(piece);
                Building::Long {
                    length: length + utf16_len(piece),
                    sha1,
                    text,
                }
            }
        }
    }

    /// The source, and its legacy JavaScript when it is long enough to
    /// be looked at and costs enough; `read` is given the text first.
    fn finish(self, read: impl FnOnce(&str)) -> (ScriptSource, Option<Box<LegacyJavaScript>>) {
        match self {
            Building::Missing => (ScriptSource::Missing, None),
            Building::Short(text) => {
                read(&text);
                (ScriptSource::Text(text.into()), None)
            }
            Building::Long { length, sha1, text } => {
                read(&text);
                let legacy = (length >= LEGACY_THRESHOLD)
                    .then(|| crate::legacy_javascript::detect(&text))
                    .filter(|found| found.estimated_byte_savings >= LEGACY_THRESHOLD as f64)
                    .map(Box::new);
                let source = ScriptSource::Long {
                    length,
                    sha1: sha1.digest().to_string().into(),
                };
                (source, legacy)
            }
        }
    }
}

/// JavaScript's `length` of a string.
fn utf16_len(s: &str) -> u64 {
    if s.is_ascii() {
        return s.len() as u64;
    }
    s.chars().map(|c| c.len_utf16() as u64).sum()
}

/// The scripts of a trace.
#[derive(Debug, Clone, Default)]
pub struct Scripts {
    /// The scripts, in the order first met.
    pub scripts: Vec<Script>,
    /// Whether the scripts' source map URLs were resolved and their maps
    /// looked up, as today's DevTools does with the resolver its panel
    /// gives the engine (not the June 2026 engine): the dump then writes
    /// the resolved source map URLs.
    pub with_source_maps: bool,
}

/// What a member of `args.data` holds, as the handler reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Member<'a> {
    Absent,
    Null,
    Raw(&'a str),
}

impl<'a> Member<'a> {
    fn of(data: &'a str, key: &str) -> Member<'a> {
        match member(data, key).map(str::trim) {
            None => Member::Absent,
            Some("null") => Member::Null,
            Some(raw) => Member::Raw(raw),
        }
    }

    /// `String(value)`, `None` for an object or array.
    fn js_string(self) -> Option<String> {
        match self {
            Member::Absent => Some("undefined".to_owned()),
            Member::Null => Some("null".to_owned()),
            Member::Raw(raw) => {
                if let Some(s) = as_str(raw) {
                    Some(s.into_owned())
                } else if let Some(x) = as_f64(raw) {
                    Some(js_number_string(x))
                } else {
                    matches!(raw, "true" | "false").then(|| raw.to_owned())
                }
            }
        }
    }

    /// A string as `Some(Some(text))`, absent or `null` as `Some(None)`,
    /// any other value as `None`.
    fn string(self) -> Option<Option<std::borrow::Cow<'a, str>>> {
        match self {
            Member::Absent | Member::Null => Some(None),
            Member::Raw(raw) => as_str(raw).map(Some),
        }
    }

    fn truthy(self) -> bool {
        matches!(self, Member::Raw(raw) if js_truthy(raw))
    }
}

/// An isolate as DevTools holds it: a number or a string.
fn isolate_id(m: Member<'_>, cx: &mut Context) -> Option<Id> {
    match m {
        Member::Absent | Member::Null => Some(Id::MISSING),
        Member::Raw(raw) => match as_f64(raw) {
            Some(x) => Some(Id::num(x)),
            None => as_str(raw).map(|s| Id::str(cx.interner.intern(&s))),
        },
    }
}

impl Handler for ScriptsHandler {
    type Deps<'d> = (&'d MetaData, &'d NetworkRequests);
    type Data = Scripts;

    /// DevTools tells the target rundown by its category alone; Chrome
    /// writes only `ScriptCompiled` in it.
    const WANTS: Wants = Wants::Named(&[
        names::SCRIPT_CATCHUP,
        names::LARGE_SCRIPT_CATCHUP,
        names::SCRIPT_COMPILED,
        names::FUNCTION_CALL,
    ]);

    fn enabled(options: &tracekit_events::AnalyzeOptions) -> bool {
        options.all_handlers
    }

    fn handle_event(&mut self, index: EventIndex, event: &Event<'_>, cx: &mut Context) {
        let data = event.args.and_then(|a| member(a, "data"));
        let unreadable = |cx: &mut Context, what: &str| {
            cx.diagnostics.skip(Skip::ScriptsUnreadableEvent, || {
                format!("{what} (event #{index}): args.data is {}", data.unwrap_or("absent"))
            });
        };
        if event.cat == names::CAT_TARGET_RUNDOWN {
            // Chrome writes some `ScriptCompiled` with empty args: they
            // say nothing of any script (not a skip).
            if let Some(data) = data.filter(|d| js_truthy(d)) {
                self.on_compiled(index, event, data, cx);
            }
            return;
        }
        let is_catchup = event.name == names::SCRIPT_CATCHUP;
        if is_catchup && event.cat == names::CAT_V8_SOURCE_RUNDOWN {
            match data.filter(|d| d.trim_start().starts_with('{')) {
                Some(data) => self.on_described(index, event, data, cx),
                None => unreadable(cx, "ScriptCatchup"),
            }
        } else if event.cat == names::CAT_V8_SOURCE_RUNDOWN_SOURCES
            && (is_catchup || event.name == names::LARGE_SCRIPT_CATCHUP)
        {
            self.saw_sources = true;
            match data.filter(|d| d.trim_start().starts_with('{')) {
                Some(data) => self.on_source(index, event, data, !is_catchup, cx),
                None => unreadable(cx, "script source"),
            }
        } else if event.name == names::FUNCTION_CALL && event.ph == Phase::COMPLETE {
            if let Some(data) = data {
                self.on_function_call(data, cx);
            }
        }
    }

    fn finalize(mut self, (meta, network): (&MetaData, &NetworkRequests), cx: &mut Context) -> Scripts {
        let documents: ahash::AHashSet<Sym> = meta
            .frame_by_process_id
            .values()
            .flat_map(|frames| frames.values().filter_map(|f| f.url))
            .collect();
        // The June 2026 engine (npm @paulirish/trace_engine, as Lighthouse
        // runs it) and chrome-devtools-mcp give the engine no source map
        // resolver: it neither resolves source map URLs nor has maps.
        let with_source_maps =
            cx.options.trace_source_maps && cx.options.devtools >= tracekit_events::DevTools::V2026_10;
        let saved = with_source_maps
            .then(|| maps::saved_maps(cx.top_level.metadata.as_deref()))
            .flatten();
        for (script, source) in self.scripts.iter_mut().zip(self.sources) {
            script.resolved_source_map_url = resolve_source_map(script, meta, cx);
            // Sized only in the main frame: DevTools sizes the scripts of the
            // insight sets' frames, which are the page's.
            let wanted = wanted_map(script, meta, &cx.interner).filter(|_| with_source_maps);
            let sized = script.frame.is_some() && script.frame == meta.main_frame_id;
            let mut text_map = None;
            let (content, legacy) = source
                .map(|s| {
                    s.finish(|text| {
                        text_map = wanted.as_ref().map(|w| {
                            maps::script_map(w, saved.as_ref(), Some(text).filter(|_| sized), &mut |u| {
                                cx.interner.intern(u)
                            })
                        });
                    })
                })
                .unzip();
            script.source_map = match text_map {
                Some(found) => found,
                None => wanted
                    .as_ref()
                    .and_then(|w| maps::script_map(w, saved.as_ref(), None, &mut |u| cx.interner.intern(u))),
            }
            .map(Box::new);
            script.content = content;
            script.legacy_javascript = legacy.flatten();
            let url = script.url.filter(|u| *u != names::EMPTY);
            script.inline = url.is_some_and(|u| documents.contains(&u));
            script.request = url
                .and_then(|u| network.ids_by_url.get(&u)?.first().copied())
                .and_then(|id| network.by_id.get(&id).copied());
            if !script.described || (self.saw_sources && script.content.is_none()) {
                cx.diagnostics.skip(Skip::ScriptsIncomplete, || {
                    let what = if script.described {
                        "no source text"
                    } else {
                        "no ScriptCatchup"
                    };
                    format!("script {} has {what}", cx.interner.resolve(script.script_id))
                });
            }
        }
        Scripts {
            scripts: self.scripts,
            with_source_maps,
        }
    }
}

/// The frame's URL, from any renderer process that has the frame.
fn frame_url(meta: &MetaData, frame: Sym) -> Option<Sym> {
    meta.frame_by_process_id
        .values()
        .find_map(|frames| frames.get(&Some(frame)))?
        .url
}

/// What DevTools looks a script's map up by: only for a script with a
/// frame of known URL, a URL, and a source map URL it could resolve (or
/// one Chrome left out).
fn wanted_map(script: &Script, meta: &MetaData, strings: &tracekit_events::Interner) -> Option<maps::Wanted> {
    let frame = script.frame.filter(|f| *f != names::EMPTY)?;
    let url = strings.resolve(script.url.filter(|u| *u != names::EMPTY)?);
    let frame_url = strings.resolve(frame_url(meta, frame).filter(|u| *u != names::EMPTY)?);
    let source_map_url = if script.source_map_url_elided {
        None
    } else {
        Some(strings.resolve(script.resolved_source_map_url?).to_owned())
    };
    let compiled_url = match script.source_url {
        Some(source_url) => {
            let source_url = strings.resolve(source_url);
            complete_url(frame_url, source_url).unwrap_or_else(|| source_url.to_owned())
        }
        None => url.to_owned(),
    };
    Some(maps::Wanted {
        url: url.to_owned(),
        compiled_url,
        source_map_url,
    })
}

/// The source map URL as DevTools resolves it before fetching the map.
fn resolve_source_map(script: &Script, meta: &MetaData, cx: &mut Context) -> Option<Sym> {
    let frame = script.frame.filter(|f| *f != names::EMPTY)?;
    let url = script.url.filter(|u| *u != names::EMPTY)?;
    let map_url = script.source_map_url.filter(|u| *u != names::EMPTY)?;
    let frame_url = frame_url(meta, frame).filter(|u| *u != names::EMPTY)?;
    let strings = &cx.interner;
    let mut base = strings.resolve(url).to_owned();
    if let Some(source_url) = script.source_url {
        let source_url = strings.resolve(source_url);
        base = complete_url(strings.resolve(frame_url), source_url).unwrap_or_else(|| source_url.to_owned());
    }
    let map = strings.resolve(map_url);
    match complete_url(&base, map) {
        Some(resolved) => Some(cx.interner.intern(&resolved)),
        None => {
            let map = map.to_owned();
            cx.diagnostics.skip(Skip::ScriptsIncomplete, || {
                format!("source map URL {map:?} cannot be resolved against {base:?}")
            });
            None
        }
    }
}

impl ScriptsHandler {
    /// The script of this isolate and script id, made if new.
    fn script(&mut self, index: EventIndex, event: &Event<'_>, data: &str, cx: &mut Context) -> Option<usize> {
        let isolate_member = Member::of(data, "isolate");
        let id_member = Member::of(data, "scriptId");
        let (Some(isolate_text), Some(id_text), Some(isolate)) = (
            isolate_member.js_string(),
            id_member.js_string(),
            isolate_id(isolate_member, cx),
        ) else {
            cx.diagnostics.skip(Skip::ScriptsUnreadableEvent, || {
                format!(
                    "{} (event #{index}): isolate or scriptId is an object",
                    cx.interner.resolve(event.name)
                )
            });
            return None;
        };
        let script_id = cx.interner.intern(&id_text);
        let key = (cx.interner.intern(&isolate_text), script_id);
        let next = u32::try_from(self.scripts.len()).ok()?;
        let at = *self.by_key.entry(key).or_insert(next);
        if at == next {
            self.unplaced.entry(isolate).or_default().push(next);
            self.scripts.push(Script {
                isolate,
                script_id,
                frame: Some(names::EMPTY),
                ts: event.ts,
                inline: false,
                described: false,
                url: None,
                source_url: None,
                source_map_url: None,
                source_map_url_elided: false,
                resolved_source_map_url: None,
                execution_context_id: None,
                length: None,
                content: None,
                request: None,
                legacy_javascript: None,
                source_map: None,
            });
            self.sources.push(None);
        }
        Some(at as usize)
    }

    /// A `ScriptCompiled` of the target rundown: the script's frame.
    fn on_compiled(&mut self, index: EventIndex, event: &Event<'_>, data: &str, cx: &mut Context) {
        let Some(at) = self.script(index, event, data, cx) else {
            return;
        };
        let frame = self.string(index, data, "frame", cx);
        let script = &mut self.scripts[at];
        script.frame = frame;
        script.ts = event.ts;
        if is_falsy_frame(frame) {
            let isolate = script.isolate;
            self.unplaced
                .entry(isolate)
                .or_default()
                .push(u32::try_from(at).unwrap_or(u32::MAX));
        }
    }

    /// A `ScriptCatchup` of the source rundown: the script's URLs.
    fn on_described(&mut self, index: EventIndex, event: &Event<'_>, data: &str, cx: &mut Context) {
        let Some(at) = self.script(index, event, data, cx) else {
            return;
        };
        if is_falsy_frame(self.scripts[at].frame) {
            let isolate = Member::of(data, "isolate").js_string().unwrap_or_default();
            let isolate = Id::str(cx.interner.intern(&isolate));
            self.scripts[at].frame = Some(self.frame_by_isolate.get(&isolate).copied().unwrap_or(names::EMPTY));
        }
        let url = self.string(index, data, "url", cx);
        let mut truthy = |key: &str| {
            let m = Member::of(data, key);
            if m.truthy() {
                self.string(index, data, key, cx)
            } else {
                None
            }
        };
        let source_url = truthy("sourceUrl");
        let elided = Member::of(data, "sourceMapUrlElided").truthy();
        let source_map_url = if elided { None } else { truthy("sourceMapUrl") };
        let context = member(data, "executionContextId").and_then(as_f64);
        let script = &mut self.scripts[at];
        script.described = true;
        script.url = url;
        script.ts = event.ts;
        script.execution_context_id = context.or(script.execution_context_id);
        if source_url.is_some() {
            script.source_url = source_url;
        }
        if elided {
            script.source_map_url_elided = true;
        } else if source_map_url.is_some() {
            script.source_map_url = source_map_url;
        }
    }

    /// A source text event: the whole text, or (`append`) a piece.
    fn on_source(&mut self, index: EventIndex, event: &Event<'_>, data: &str, append: bool, cx: &mut Context) {
        let Some(at) = self.script(index, event, data, cx) else {
            return;
        };
        if let Some(length) = member(data, "length").and_then(as_f64) {
            self.scripts[at].length = Some(length);
        }
        let text = Member::of(data, "sourceText");
        let piece: Option<std::borrow::Cow<'_, str>> = match text {
            Member::Absent if append => Some("undefined".into()),
            Member::Absent => None,
            Member::Null if append => Some("null".into()),
            Member::Null => None,
            Member::Raw(raw) => match as_str(raw) {
                Some(s) => Some(s),
                None => {
                    cx.diagnostics.skip(Skip::ScriptsUnreadableEvent, || {
                        format!("script source (event #{index}) whose sourceText is not a string")
                    });
                    return;
                }
            },
        };
        let slot = &mut self.sources[at];
        *slot = Some(match (append, piece) {
            (_, None) => Building::Missing,
            (false, Some(text)) => Building::Short(String::new()).append(&text),
            (true, Some(text)) => slot.take().unwrap_or(Building::Missing).append(&text),
        });
    }

    /// A `FunctionCall` with an isolate and a frame: the frame of the
    /// isolate's scripts that no rundown placed.
    fn on_function_call(&mut self, data: &str, cx: &mut Context) {
        let (mut isolate, mut frame) = (None, None);
        for (key, raw) in object_members(data) {
            match &*key {
                "isolate" => isolate = Some(raw),
                "frame" => frame = Some(raw),
                _ => {}
            }
        }
        let (Some(isolate), Some(frame)) = (isolate.filter(|r| js_truthy(r)), frame.filter(|r| js_truthy(r))) else {
            return;
        };
        let Some(frame) = as_str(frame).map(|f| cx.interner.intern(&f)) else {
            return;
        };
        let Some(isolate) = isolate_id(Member::Raw(isolate), cx) else {
            return;
        };
        if self.frame_by_isolate.get(&isolate) == Some(&frame) {
            return;
        }
        self.frame_by_isolate.insert(isolate, frame);
        for at in self.unplaced.get_mut(&isolate).map(std::mem::take).unwrap_or_default() {
            if let Some(script) = self.scripts.get_mut(at as usize).filter(|s| is_falsy_frame(s.frame)) {
                script.frame = Some(frame);
            }
        }
    }

    /// A string member as a symbol (`None` when absent or `null`); any
    /// other value is counted and read as absent.
    fn string(&self, index: EventIndex, data: &str, key: &str, cx: &mut Context) -> Option<Sym> {
        match Member::of(data, key).string() {
            Some(s) => s.map(|s| cx.interner.intern(&s)),
            None => {
                cx.diagnostics.skip(Skip::ScriptsUnreadableEvent, || {
                    format!("script rundown event #{index} whose {key} is not a string")
                });
                None
            }
        }
    }
}

/// Whether a frame is falsy to JavaScript (`undefined` or `""`).
fn is_falsy_frame(frame: Option<Sym>) -> bool {
    frame.is_none_or(|f| f == names::EMPTY)
}

impl Scripts {
    /// This data in the data conformance dump; `network`: the requests the
    /// scripts refer to. A long source text is written as the dump writes
    /// any long string (`$str:LENGTH:SHA1`), by either rules: its text is
    /// not kept.
    pub fn dump(&self, network: &NetworkRequests, dump: &mut Dump<'_>) -> Value {
        let scripts = (self.scripts.iter())
            .map(|s| script_value(s, network, dump, self.with_source_maps))
            .collect();
        Object::new().with("scripts", Value::Array(scripts)).into()
    }

    /// The script at this position, as the data conformance dump writes it
    /// (in [`Scripts::dump`], and in the insights that list scripts).
    pub fn dump_script(&self, at: usize, network: &NetworkRequests, dump: &mut Dump<'_>) -> Value {
        script_value(&self.scripts[at], network, dump, self.with_source_maps)
    }
}

fn script_value(s: &Script, network: &NetworkRequests, dump: &mut Dump<'_>, resolved: bool) -> Value {
    let sym = |x: Option<Sym>| Value::opt(x, Value::Sym);
    let request = s
        .request
        .map(|i| Value::Synthetic(network.dump_request(i as usize, dump)));
    let content = s.content.as_ref().map(|c| match c {
        ScriptSource::Missing => Value::Null,
        ScriptSource::Text(text) => Value::str(text.to_string()),
        ScriptSource::Long { length, sha1 } => Value::str(format!("$str:{length}:{sha1}")),
    });
    let source_map_url = if resolved {
        s.resolved_source_map_url.or(s.source_map_url)
    } else {
        s.source_map_url
    };
    let map = s.source_map.as_deref();
    let sizes = map.and_then(|m| m.sizes.as_ref()).map(|sizes| sizes_value(sizes, dump));
    Object::new()
        .with("isolate", Value::id(s.isolate))
        .with("scriptId", Value::Sym(s.script_id))
        .with("frame", sym(s.frame))
        .with("ts", Value::Num(s.ts.0))
        .with("inline", Value::Bool(s.inline))
        .with("request", request.unwrap_or(Value::Null))
        .with_some("url", s.described.then(|| sym(s.url)))
        .with_some("sourceUrl", s.source_url.map(Value::Sym))
        .with_some("sourceMapUrl", source_map_url.map(Value::Sym))
        .with_some(
            "sourceMapUrlElided",
            s.source_map_url_elided.then_some(Value::Bool(true)),
        )
        .with_some("content", content)
        // DevTools' SourceMap keeps its state in private fields: the dump
        // of one is an empty object.
        .with_some("sourceMap", map.map(|_| Object::new().into()))
        .with_some("sizes", sizes)
        .into()
}

/// A script's generated sizes as DevTools' Scripts handler keeps them.
fn sizes_value(sizes: &Result<Sizes, String>, dump: &Dump<'_>) -> Value {
    match sizes {
        Ok(sizes) => {
            let mut files = Object::new();
            for (url, bytes) in &sizes.files {
                files.push(dump.strings().resolve(*url).to_owned(), Value::Num(*bytes));
            }
            Object::new()
                .with("files", files.into())
                .with("unmappedBytes", Value::Num(sizes.unmapped_bytes))
                .with("totalBytes", Value::Num(sizes.total_bytes))
                .into()
        }
        Err(message) => Object::new().with("errorMessage", Value::str(message.clone())).into(),
    }
}

#[cfg(test)]
mod tests;
