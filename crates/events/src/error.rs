//! The error of a load that cannot give an answer: what kind, what is
//! wrong, and where.

use std::fmt;

/// What kind of failure a [`LoadError`] is, for callers that act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the input failed.
    Io,
    /// The input is gzip, and the gzip stream cannot be read.
    Gzip,
    /// The text is not valid UTF-8 (nor UTF-16).
    Encoding,
    /// The input is empty, or only whitespace.
    Empty,
    /// The input is JSON (or starts like it) but is not a trace or profile.
    NotATrace,
    /// The input is a trace or profile, but no event or sample can be read
    /// from it (truncated or damaged before the first one).
    Unreadable,
    /// A profile on its own would have more track nodes than
    /// [`crate::AnalyzeOptions::max_nodes`] allows.
    TooManyNodes,
    /// The trace has more distinct strings (names, categories, ids, URLs...)
    /// than there are symbols ([`crate::Sym`] is 32 bits): more than 2^32.
    TooManyStrings,
}

/// A load failure: its kind, what is wrong and where. Its text is the
/// one line the CLI prints after the file's name.
///
/// ```
/// # use tracekit_events::{ErrorKind, LoadError};
/// let error = LoadError::at(ErrorKind::NotATrace, 16, "invalid JSON");
/// assert_eq!((error.kind(), error.offset()), (ErrorKind::NotATrace, Some(16)));
/// assert_eq!(error.to_string(), "byte 16: invalid JSON");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    kind: ErrorKind,
    offset: Option<usize>,
    message: String,
}

impl LoadError {
    /// A failure at a byte offset of the (decompressed) input.
    pub fn at(kind: ErrorKind, offset: usize, message: impl Into<String>) -> Self {
        LoadError {
            kind,
            offset: Some(offset),
            message: message.into(),
        }
    }

    /// A failure of the input as a whole.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        LoadError {
            kind,
            offset: None,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset in the (decompressed) input, when known.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// What is wrong, without the offset.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "byte {offset}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LoadError {}
