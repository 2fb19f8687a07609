//! The maps a user gave, and which of them is a script's: by the script's
//! source map URL, then by the map's `file`, then by file name.

use crate::map::{MapError, SourceMap};

/// The source maps given for one analysis, each under the name it came
/// by (a path or a URL), whether it parsed or not.
#[derive(Debug, Clone, Default)]
pub struct SourceMaps {
    maps: Vec<Given>,
}

/// One map as given.
#[derive(Debug, Clone)]
struct Given {
    /// The path or URL it was given under.
    name: String,
    /// The last segment of `name` (the file name).
    file_name: String,
    /// The last segment of the map's `file`, when it parsed and has one.
    file: Option<String>,
    map: Result<SourceMap, MapError>,
    /// The generated script's text, when given with the map.
    script: Option<String>,
    /// For a map an enhanced trace carries, the script's URL and source
    /// map URL (none for an inline `data:` map) it was saved for.
    embedded: Option<(String, Option<String>)>,
}

/// Which of the maps a script's is, and by which rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// An enhanced trace saved it for the script's source map URL, or for
    /// the script's URL.
    Embedded,
    /// Its resolved source map URL ends with the map's file name.
    SourceMapUrl,
    /// The map's `file` is the script's file name.
    File,
    /// The map's file name is the script's file name with `.map`.
    FileName,
}

/// The last path segment of a URL or a path, without query or fragment.
pub(crate) fn last_segment(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path = &url[..end];
    let path = path.trim_end_matches('/');
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

impl SourceMaps {
    /// No maps.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a map from its bytes, under the path or URL it came by. One
    /// that does not parse is kept, to be reported.
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        self.push(name, bytes, None);
    }

    /// Adds a map an enhanced trace saved for a script: `script_url`, and
    /// `source_map_url` as the script declared it (none for an inline
    /// `data:` map).
    pub fn add_embedded(&mut self, script_url: &str, source_map_url: Option<&str>, bytes: &[u8]) {
        let name = source_map_url.unwrap_or(script_url);
        self.push(
            name,
            bytes,
            Some((script_url.to_owned(), source_map_url.map(str::to_owned))),
        );
    }

    fn push(&mut self, name: &str, bytes: &[u8], embedded: Option<(String, Option<String>)>) {
        let map = SourceMap::parse(bytes);
        let file = map
            .as_ref()
            .ok()
            .and_then(SourceMap::file)
            .map(|f| last_segment(f).to_owned())
            .filter(|f| !f.is_empty());
        self.maps.push(Given {
            name: name.to_owned(),
            file_name: last_segment(name).to_owned(),
            file,
            map,
            embedded,
            script: None,
        });
    }

    /// Adds `other`'s maps after these (which win a tie, as given first).
    pub fn append(&mut self, other: SourceMaps) {
        self.maps.extend(other.maps);
    }

    /// Gives the last map added the text of its generated script (read
    /// beside it, say), so that its names are checked as DevTools checks
    /// them (docs/sourcemaps.md) for the frames whose trace has no text.
    pub fn set_script(&mut self, text: String) {
        if let Some(last) = self.maps.last_mut() {
            last.script = Some(text);
        }
    }

    /// The generated script's text given with map `index`, if any.
    pub fn script(&self, index: usize) -> Option<&str> {
        self.maps[index].script.as_deref()
    }

    /// How many maps were given.
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// The name map `index` was given under.
    pub fn name(&self, index: usize) -> &str {
        &self.maps[index].name
    }

    /// Map `index`, or why it did not parse.
    pub fn get(&self, index: usize) -> Result<&SourceMap, &MapError> {
        self.maps[index].map.as_ref()
    }

    /// The map of a script, by its URL and its source map URL resolved
    /// against it (when it has one): first a map whose name is that URL's
    /// file name, then one whose `file` is the script's file name, then
    /// one named as the script with `.map`. A map that parsed wins over
    /// one that did not (which is only returned, to be reported, when no
    /// good map matches); then the first given.
    pub fn find(&self, script_url: &str, source_map_url: Option<&str>) -> Option<(usize, MatchedBy)> {
        self.find_declared(script_url, source_map_url, None)
    }

    /// [`Self::find`], first among the maps of an enhanced trace: the one
    /// saved for the source map URL the script declared (`declared`, not
    /// resolved, as DevTools keys them), else one saved for the script's
    /// URL.
    pub fn find_declared(
        &self,
        script_url: &str,
        source_map_url: Option<&str>,
        declared: Option<&str>,
    ) -> Option<(usize, MatchedBy)> {
        let embedded = |test: &dyn Fn(&str, Option<&str>) -> bool| {
            self.maps.iter().position(|m| {
                m.embedded
                    .as_ref()
                    .is_some_and(|(url, map_url)| test(url, map_url.as_deref()))
            })
        };
        let by_map_url = declared
            .filter(|d| !d.starts_with("data:"))
            .and_then(|d| embedded(&|_, map_url| map_url == Some(d)));
        if let Some(i) = by_map_url.or_else(|| embedded(&|url, _| !url.is_empty() && url == script_url)) {
            return Some((i, MatchedBy::Embedded));
        }
        self.find_among(script_url, source_map_url, true)
            .or_else(|| self.find_among(script_url, source_map_url, false))
    }

    /// The map an enhanced trace saved for a script, by DevTools' key for
    /// it when the panel loads the trace: the source map URL, resolved as
    /// the Scripts handler resolves it (`source_map_url`); for a script
    /// whose `data:` source map URL Chrome left out (none given), the
    /// script's URL.
    pub fn saved_for(&self, script_url: &str, source_map_url: Option<&str>) -> Option<usize> {
        self.maps.iter().position(|m| {
            m.embedded.as_ref().is_some_and(|(url, map_url)| match source_map_url {
                Some(wanted) => map_url.as_deref() == Some(wanted),
                None => url == script_url,
            })
        })
    }

    /// [`Self::find`] among the maps that parsed (`parsed`) or the others.
    fn find_among(&self, script_url: &str, source_map_url: Option<&str>, parsed: bool) -> Option<(usize, MatchedBy)> {
        let position =
            |test: &dyn Fn(&Given) -> bool| self.maps.iter().position(|m| m.map.is_ok() == parsed && test(m));
        if let Some(map_url) = source_map_url.filter(|u| !u.starts_with("data:")) {
            let wanted = last_segment(map_url);
            if let Some(i) = position(&|m| !wanted.is_empty() && m.file_name == wanted) {
                return Some((i, MatchedBy::SourceMapUrl));
            }
        }
        let script = last_segment(script_url);
        if script.is_empty() {
            return None;
        }
        if let Some(i) = position(&|m| m.file.as_deref() == Some(script)) {
            return Some((i, MatchedBy::File));
        }
        let with_map = format!("{script}.map");
        position(&|m| m.file_name == with_map).map(|i| (i, MatchedBy::FileName))
    }
}

#[cfg(test)]
mod tests;
