//! The maps an enhanced trace carries: DevTools' "Save trace" with source
//! maps writes them in `metadata.sourceMaps`, each with the script's URL
//! and the source map URL it declared (none for an inline `data:` map).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::set::SourceMaps;

/// `metadata`, as far as its maps.
#[derive(Deserialize)]
struct Metadata<'a> {
    #[serde(rename = "sourceMaps", borrow, default)]
    source_maps: Vec<Saved<'a>>,
}

/// One entry of `metadata.sourceMaps`.
#[derive(Deserialize)]
struct Saved<'a> {
    #[serde(default)]
    url: String,
    #[serde(rename = "sourceMapUrl", default)]
    source_map_url: Option<String>,
    #[serde(rename = "sourceMap", borrow)]
    source_map: Option<&'a RawValue>,
}

impl SourceMaps {
    /// Adds the maps of a trace's `metadata` object (its raw JSON text),
    /// and gives how many there were. A `metadata` that is not JSON, or
    /// whose `sourceMaps` is not a list of maps, is kept as one map that
    /// does not parse, under the name `metadata.sourceMaps`, to be
    /// reported.
    pub fn add_trace_metadata(&mut self, metadata: &str) -> usize {
        // Most traces carry no maps: no need to parse their metadata.
        if !metadata.contains("\"sourceMaps\"") {
            return 0;
        }
        match serde_json::from_str::<Metadata<'_>>(metadata) {
            Ok(parsed) => {
                for saved in &parsed.source_maps {
                    let bytes = saved.source_map.map_or("null", RawValue::get);
                    self.add_embedded(&saved.url, saved.source_map_url.as_deref(), bytes.as_bytes());
                }
                parsed.source_maps.len()
            }
            Err(error) => {
                // Bytes that cannot parse as a map, so that the entry reports.
                self.add("metadata.sourceMaps", error.to_string().as_bytes());
                1
            }
        }
    }
}

#[cfg(test)]
mod tests;
