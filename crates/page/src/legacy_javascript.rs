//! Legacy JavaScript in a script's source: the core-js polyfills of
//! features every modern browser has, and Babel's transforms of classes,
//! generators and spreads, found by the patterns Lighthouse's
//! `legacy-javascript` (as bundled with DevTools) matches, with the bytes
//! they are estimated to cost. The Scripts handler runs it on each long
//! script's whole text while loading (the text itself is not kept).

#[path = "legacy_javascript_data.rs"]
mod data;

use std::sync::OnceLock;

/// One pattern found: its polyfill's or transform's name, and where it
/// first matched (line from 0, column in UTF-16 units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyMatch {
    /// The polyfill (`Array.prototype.at`) or transform
    /// (`@babel/plugin-transform-classes`); `None` where the detector
    /// could not name what it matched (DevTools' `undefined`).
    pub name: Option<Box<str>>,
    /// The line, from 0.
    pub line: u32,
    /// The column, in UTF-16 units.
    pub column: u32,
}

/// What the detector found in a script.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegacyJavaScript {
    /// Each polyfill or transform found, by name.
    pub matches: Vec<LegacyMatch>,
    /// The bytes they are estimated to add.
    pub estimated_byte_savings: f64,
}

/// How one alternative of the detector's expression names what it matched.
#[derive(Clone, Copy)]
enum Namer {
    /// `Array.prototype.at = ...`: the text before the `=`.
    Direct,
    /// `Array.prototype["at"] = ...`.
    Bracket,
    /// `defineProperty(Array.prototype, "at"`.
    DefineProperty,
    /// es-shims' `(Array.prototype, {at: ...}, {at`.
    EsShims,
    /// core-js' `{target:"Array", ...},{at:`.
    CoreJsTarget,
    /// A core-js module's name (`es.array.at"`).
    CoreJsModule,
    /// A transform: its own name.
    Transform(&'static str),
}

/// The Babel transforms looked for: name and expression.
const TRANSFORMS: [(&str, &str); 3] = [
    ("@babel/plugin-transform-classes", "Cannot call a class as a function"),
    (
        "@babel/plugin-transform-regenerator",
        "Generator is already running|regeneratorRuntime",
    ),
    (
        "@babel/plugin-transform-spread",
        "Invalid attempt to spread non-iterable instance",
    ),
];

/// JavaScript's `\s`, for the expressions.
const JS_SPACE: &str =
    r"[\t\n\x0B\x0C\r \u{a0}\u{1680}\u{2000}-\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}]";

/// JavaScript's `.`: anything but a line terminator.
const JS_DOT: &str = r"[^\n\r\u{2028}\u{2029}]";

/// The detector: its expression (one group per alternative) and how each
/// names its matches.
struct Detector {
    regex: regex::Regex,
    namers: Vec<Namer>,
    /// `target.property` → polyfill name, for core-js' `{target:...}`.
    by_target_property: ahash::AHashMap<String, &'static str>,
    /// core-js module → polyfill name.
    by_module: ahash::AHashMap<&'static str, &'static str>,
}

/// Appends `key`'s entry of an insertion-ordered list of lists.
fn group<'a>(groups: &mut Vec<(String, Vec<&'a str>)>, key: String, item: &'a str) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, items)) => items.push(item),
        None => groups.push((key, vec![item])),
    }
}

fn detector() -> &'static Detector {
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    DETECTOR.get_or_init(build_detector)
}

fn build_detector() -> Detector {
    let dots = |s: &str| s.replace('.', r"\.");
    let (mut by_object, mut by_target, mut by_prefix) = (Vec::new(), Vec::new(), Vec::new());
    let mut by_target_property = ahash::AHashMap::new();
    let mut by_module = ahash::AHashMap::new();
    for &(name, module) in data::CORE_JS {
        let (object, property) = name.rsplit_once('.').unwrap_or(("", name));
        group(&mut by_object, object.to_owned(), property);
        let target = object.replacen(".prototype", "", 1);
        by_target_property.insert(format!("{target}.{property}"), name);
        group(&mut by_target, target, property);
        by_module.insert(module, name);
        let mut parts = module.splitn(3, '.');
        let prefix = [parts.next().unwrap_or(""), parts.next().unwrap_or("")].join(".");
        group(&mut by_prefix, prefix, parts.next().unwrap_or(""));
    }
    let branches = |f: &dyn Fn(&str, &str) -> String, groups: &[(String, Vec<&str>)]| {
        groups
            .iter()
            .map(|(key, items)| f(key, &items.join("|")))
            .collect::<Vec<_>>()
            .join("|")
    };
    let s = JS_SPACE;
    let direct = branches(&|o, p| format!(r"{}\.(?:{p}){s}?=[^=]", dots(o)), &by_object);
    let bracket = branches(
        &|o, p| format!(r#"{}\[['"](?:{p})['"]\]{s}?=[^=]"#, dots(o)),
        &by_object,
    );
    let define = branches(&|o, p| format!(r#"{},{s}?['"](?:{p})['"]"#, dots(o)), &by_object);
    let shims = branches(
        &|o, p| format!(r"{},{s}*\{{(?:{p}):{JS_DOT}*\}},{s}*\{{(?:{p})", dots(o)),
        &by_object,
    );
    let target = branches(
        &|t, p| format!(r#"['"]{}['"][^;]*?\}},\{{(?:{p}):"#, dots(t)),
        &by_target,
    );
    let modules = branches(
        &|prefix, rests| format!(r"{}\.(?:{})", dots(prefix), dots(rests)),
        &by_prefix,
    );
    let mut alternatives = vec![
        (direct, Namer::Direct),
        (bracket, Namer::Bracket),
        (format!(r"defineProperty\((?:{define})"), Namer::DefineProperty),
        (format!(r"\((?:{shims})"), Namer::EsShims),
        (format!(r"\{{target:(?:{target})"), Namer::CoreJsTarget),
        (format!(r#"(?:{modules})(?:\.js)?""#), Namer::CoreJsModule),
    ];
    for (name, expression) in TRANSFORMS {
        alternatives.push((expression.to_owned(), Namer::Transform(name)));
    }
    let expression = alternatives
        .iter()
        .map(|(e, _)| format!("({e})"))
        .collect::<Vec<_>>()
        .join("|");
    let regex = regex::RegexBuilder::new(&expression)
        .size_limit(64 << 20)
        .build()
        .expect("the detector's expression compiles");
    Detector {
        regex,
        namers: alternatives.into_iter().map(|(_, n)| n).collect(),
        by_target_property,
        by_module,
    }
}

impl Detector {
    /// The name of what an alternative matched.
    fn name(&self, namer: Namer, m: &str) -> Option<String> {
        let at = |c: char, from: usize| m[from..].find(c).map(|i| i + from);
        Some(match namer {
            Namer::Direct => m[..m.find('=')?].trim_end().to_owned(),
            Namer::Bracket => {
                let bracket = m.find('[')?;
                let close = at(']', bracket)?;
                format!("{}.{}", &m[..bracket], &m[bracket + 2..close - 1])
            }
            Namer::DefineProperty => {
                let open = m.find('(')?;
                let comma = at(',', open)?;
                let prop = m[comma + 1..].trim_start();
                format!("{}.{}", &m[open + 1..comma], &prop[1..prop.len() - 1])
            }
            Namer::EsShims => {
                let comma = m.find(',')?;
                let brace = at('{', comma)?;
                let colon = at(':', brace)?;
                format!("{}.{}", &m[1..comma], &m[brace + 1..colon])
            }
            Namer::CoreJsTarget => {
                let quote = m[8..].chars().next()?;
                let end = at(quote, 9)?;
                let brace = m.rfind('{')?;
                let key = format!("{}.{}", &m[9..end], &m[brace + 1..m.len() - 1]);
                (*self.by_target_property.get(key.as_str())?).to_owned()
            }
            Namer::CoreJsModule => {
                let module = m.strip_suffix(".js\"").or_else(|| m.strip_suffix('"'))?;
                (*self.by_module.get(module)?).to_owned()
            }
            Namer::Transform(name) => name.to_owned(),
        })
    }
}

/// JavaScript's `length` of a string.
fn utf16_len(s: &str) -> u32 {
    u32::try_from(s.encode_utf16().count()).unwrap_or(u32::MAX)
}

/// The legacy JavaScript of a script's source.
pub fn detect(content: &str) -> LegacyJavaScript {
    if content.is_empty() {
        return LegacyJavaScript::default();
    }
    let detector = detector();
    let mut seen: Vec<Option<String>> = Vec::new();
    let mut matches = Vec::new();
    let (mut line, mut line_start) = (0u32, 0usize);
    for captures in detector.regex.captures_iter(content) {
        let Some(alternative) = (1..captures.len()).find(|&i| captures.get(i).is_some()) else {
            continue;
        };
        let whole = captures.get(0).map_or("", |m| m.as_str());
        let start = captures.get(0).map_or(0, |m| m.start());
        let name = detector.name(detector.namers[alternative - 1], whole);
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let from = line_start;
        for (i, _) in content[from..start].match_indices('\n') {
            line += 1;
            line_start = from + i + 1;
        }
        matches.push(LegacyMatch {
            name: name.map(Into::into),
            line,
            column: utf16_len(&content[line_start..start]),
        });
    }
    matches.sort_by(|a, b| a.name.cmp(&b.name));
    let estimated_byte_savings = estimate_bytes(content, &matches);
    LegacyJavaScript {
        matches,
        estimated_byte_savings,
    }
}

/// The bytes the polyfills (each module they pull in once, at most the
/// whole library) and the transforms (by how often their helpers are
/// used) cost.
fn estimate_bytes(content: &str, matches: &[LegacyMatch]) -> f64 {
    let mut modules: Vec<u16> = Vec::new();
    for m in matches {
        let Some(name) = m.name.as_deref().filter(|n| !n.starts_with('@')) else {
            continue;
        };
        if let Some((_, deps)) = data::DEPENDENCIES.iter().find(|(n, _)| *n == name) {
            for d in *deps {
                if !modules.contains(d) {
                    modules.push(*d);
                }
            }
        }
    }
    let polyfills: u64 = modules
        .iter()
        .map(|&m| u64::from(data::MODULE_SIZES.get(usize::from(m)).copied().unwrap_or(0)))
        .sum();
    let mut bytes = polyfills.min(u64::from(data::MAX_SIZE)) as f64;
    let count = |pattern: &str| regex::Regex::new(pattern).map_or(0, |r| r.find_iter(content).count()) as f64;
    for m in matches {
        bytes += match m.name.as_deref() {
            Some("@babel/plugin-transform-classes") => {
                1000.0 + (content.matches("_classCallCheck").count() as f64 - 1.0) * 17.0
            }
            Some("@babel/plugin-transform-regenerator") => count(r"regeneratorRuntime\(?\)?\.a?wrap") * 80.0,
            Some("@babel/plugin-transform-spread") => {
                1169.0 + count(&format!(r"\.apply\(void 0,{JS_SPACE}?_toConsumableArray")) * 20.0
            }
            _ => 0.0,
        };
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::detect;

    fn names(content: &str) -> Vec<(String, u32, u32)> {
        detect(content)
            .matches
            .into_iter()
            .map(|m| (m.name.unwrap_or_default().into(), m.line, m.column))
            .collect()
    }

    #[test]
    fn polyfills_are_found_by_each_form_and_named() {
        let code = "var a=1;\nArray.prototype.at = function(){};\n  Object[\"hasOwn\"] =f;Object.defineProperty(String.prototype, 'trimEnd', {})";
        assert_eq!(
            names(code),
            vec![
                ("Array.prototype.at".to_owned(), 1, 0),
                ("Object.hasOwn".to_owned(), 2, 2),
                ("String.prototype.trimEnd".to_owned(), 2, 29),
            ]
        );
        assert_eq!(detect(code).estimated_byte_savings, 33339.0);
        let core_js = r#"$({target:"Array",proto:!0},{flatMap:function(){}}); require("es.object.values.js")"#;
        assert_eq!(
            names(core_js),
            vec![
                ("Array.prototype.flatMap".to_owned(), 0, 2),
                ("Object.values".to_owned(), 0, 62)
            ]
        );
        assert_eq!(detect(core_js).estimated_byte_savings, 34447.0);
    }

    #[test]
    fn a_pattern_counts_once_and_modern_code_has_none() {
        let code = "Math.trunc = f; Math.trunc = g; x == y; a.at(1); class A {}";
        let found = detect(code);
        assert_eq!(found.matches.len(), 1);
        // Math.trunc pulls in core-js' base module (26070 bytes) and its own.
        assert_eq!(found.estimated_byte_savings, 26312.0);
        assert!(detect("const a = [1, 2].at(-1); Math.trunc(a) === 1;")
            .matches
            .is_empty());
    }

    #[test]
    fn transforms_cost_by_their_helpers() {
        let classes =
            "throw new TypeError(\"Cannot call a class as a function\"); _classCallCheck(); _classCallCheck();";
        let found = detect(classes);
        assert_eq!(
            found.matches[0].name.as_deref(),
            Some("@babel/plugin-transform-classes")
        );
        assert_eq!(found.matches[0].column, 21);
        // 1000 bytes, and 17 for each use of the helper beyond its definition.
        assert_eq!(found.estimated_byte_savings, 1000.0 + 17.0);
        let regenerator = "regeneratorRuntime.wrap(f); regeneratorRuntime().awrap(g);";
        assert_eq!(detect(regenerator).estimated_byte_savings, 160.0);
    }
}
