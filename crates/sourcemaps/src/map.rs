//! One source map: parsed from its bytes, checked, and asked where a
//! generated position comes from.

use sourcemap::{DecodedMap, SourceMap as Decoded};

/// A parsed source map (a regular one, or an indexed one flattened into
/// one).
#[derive(Debug, Clone)]
pub struct SourceMap {
    map: Decoded,
    /// The last generated line that has a mapping: a frame past it is not
    /// from the script this map was made for.
    last_line: u32,
}

/// Where a generated position comes from: the original function's name
/// when the map gives one, and the original URL and position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original {
    /// The original name of the function starting there, `None` when the
    /// map names none (the frame keeps its own name then, as in DevTools).
    pub name: Option<String>,
    /// The original source, as the map writes it (with its `sourceRoot`),
    /// resolved against the map's URL when that is known.
    pub url: String,
    /// 0-based line in the original source.
    pub line: u32,
    /// 0-based column in the original source.
    pub column: u32,
}

/// What was wrong with a map, or with a position asked of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapError {
    /// Not JSON, or JSON that is not a source map (a bad VLQ, a member
    /// of the wrong type...): the parser's message.
    Parse(String),
    /// A `version` other than 3.
    Version(String),
    /// A position past the map's last mapped line: the map is for another
    /// file, or another build of it.
    PastEnd {
        /// The 0-based line asked.
        line: u32,
        /// The map's last mapped line, 0-based.
        last_line: u32,
    },
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Parse(message) => write!(f, "not a source map: {message}"),
            MapError::Version(version) => write!(f, "source map version {version}, not 3"),
            MapError::PastEnd { line, last_line } => write!(
                f,
                "a frame at line {} is past the map's last mapped line {}: a map for another file?",
                line + 1,
                last_line + 1
            ),
        }
    }
}

impl std::error::Error for MapError {}

/// Only the `version` of a map, read before the whole of it.
fn version_of(bytes: &[u8]) -> Result<Option<serde_json::Value>, MapError> {
    #[derive(serde::Deserialize)]
    struct Probe {
        version: Option<serde_json::Value>,
    }
    // Maps served with an XSSI guard start with `)]}'`: the parser skips
    // that line, and so does this probe.
    let body = match bytes.strip_prefix(b")]}'") {
        Some(rest) => rest.splitn(2, |&b| b == b'\n').nth(1).unwrap_or(b""),
        None => bytes,
    };
    serde_json::from_slice::<Probe>(body)
        .map(|probe| probe.version)
        .map_err(|e| MapError::Parse(e.to_string()))
}

impl SourceMap {
    /// Parses a map. Indexed maps (`sections`) are flattened; maps of
    /// another version than 3, bad JSON and bad mappings are errors.
    pub fn parse(bytes: &[u8]) -> Result<SourceMap, MapError> {
        match version_of(bytes)? {
            None => {}
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(3) => {}
            Some(other) => return Err(MapError::Version(other.to_string())),
        }
        let decoded = sourcemap::decode_slice(bytes).map_err(|e| MapError::Parse(e.to_string()))?;
        let map = match decoded {
            DecodedMap::Regular(map) => map,
            DecodedMap::Index(index) => index.flatten().map_err(|e| MapError::Parse(e.to_string()))?,
            DecodedMap::Hermes(hermes) => Decoded::clone(&hermes),
        };
        let last_line = map.tokens().map(|t| t.get_dst_line()).max().unwrap_or(0);
        Ok(SourceMap { map, last_line })
    }

    /// The map's mappings, in generated order.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = sourcemap::Token<'_>> {
        self.map.tokens()
    }

    /// The map's `file`, if it has one.
    pub fn file(&self) -> Option<&str> {
        self.map.get_file()
    }

    /// The original sources' URLs as the map writes them (with its
    /// `sourceRoot`), and their content when the map has it.
    pub fn sources(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        (0..self.map.get_source_count())
            .map(|i| (self.map.get_source(i).unwrap_or(""), self.map.get_source_contents(i)))
    }

    /// Where the function starting at the 0-based `line` and `column` of
    /// the generated script comes from, as DevTools resolves a profile's
    /// frame: the last mapping at or before that position (on that line or
    /// an earlier one); none when there is none or it has no source. The
    /// name is the mapping's, and only when the script's text (`script`,
    /// when known) has the `(` of a parameter list at the position, as V8
    /// puts a function's start there: a name mapped before an arrow
    /// function's bare parameter is the parameter's, not the function's.
    /// Without the text, the mapping's name is taken.
    ///
    /// `base` is the URL the map's sources are relative to (the map's own
    /// URL, else the script's).
    pub fn resolve(
        &self,
        line: u32,
        column: u32,
        script: Option<&str>,
        base: Option<&str>,
    ) -> Result<Option<Original>, MapError> {
        if line > self.last_line {
            return Err(MapError::PastEnd {
                line,
                last_line: self.last_line,
            });
        }
        let Some(token) = self.map.lookup_token(line, column) else {
            return Ok(None);
        };
        let Some(source) = token.get_source() else {
            return Ok(None);
        };
        let opens_parameters = script.is_none_or(|text| char_at(text, line, column) == Some('('));
        let name = token
            .get_name()
            .filter(|name| !name.is_empty() && opens_parameters)
            .map(str::to_owned);
        Ok(Some(Original {
            name,
            url: resolve_url(source, base),
            line: token.get_src_line(),
            column: token.get_src_col(),
        }))
    }
}

/// The character at a 0-based line and column (in UTF-16 units, as V8
/// counts them) of a text.
fn char_at(text: &str, line: u32, column: u32) -> Option<char> {
    let line_text = text.split('\n').nth(line as usize)?;
    let mut units = 0u32;
    for c in line_text.chars() {
        if units == column {
            return Some(c);
        }
        if units > column {
            return None;
        }
        units += if u32::from(c) > 0xFFFF { 2 } else { 1 };
    }
    None
}

/// A map's source URL resolved against `base`, as a browser resolves it;
/// as written when it cannot be.
pub(crate) fn resolve_url(source: &str, base: Option<&str>) -> String {
    if let Ok(absolute) = url::Url::parse(source) {
        return absolute.to_string();
    }
    base.and_then(|base| url::Url::parse(base).ok())
        .and_then(|base| base.join(source).ok())
        .map_or_else(|| source.to_owned(), |u| u.to_string())
}

#[cfg(test)]
mod tests;
