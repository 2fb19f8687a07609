//! Source maps for tracekit: the original names, URLs and positions of the
//! JavaScript frames of minified code, resolved as DevTools' trace
//! `SourceMapsResolver` and `NamesResolver` resolve a CPU profile's frames
//! (`docs/sourcemaps.md`). No I/O: the maps come as bytes.
//!
//! ```
//! use tracekit_sourcemaps::{Frame, Resolver, SourceMaps};
//! let mut maps = SourceMaps::new();
//! // `function a(){}` made from `function render(){}` in app.js.
//! maps.add(
//!     "bundle.js.map",
//!     br#"{"version":3,"file":"bundle.js","sources":["app.js"],"names":["render"],"mappings":"AAAA,SAASA"}"#,
//! );
//! let mut resolver = Resolver::new(&maps);
//! let frame = Frame {
//!     url: "https://x.test/bundle.js",
//!     line: 0,
//!     column: 10,
//!     source_map_url: None,
//!     declared_source_map_url: None,
//!     script: None,
//! };
//! let original = resolver.resolve(&frame).unwrap();
//! assert_eq!(original.name.as_deref(), Some("render"));
//! assert_eq!(original.url, "https://x.test/app.js");
//! assert_eq!(resolver.finish().frames_renamed, 1);
//! ```

mod embedded;
mod map;
mod resolver;
mod set;
mod sizes;

pub use map::{MapError, Original, SourceMap};
pub use resolver::{Frame, Resolver, SourceMapReport};
pub use set::{MatchedBy, SourceMaps};
pub use sizes::GeneratedSizes;
