//! How a gzip stream ends ([`GzipEnd`], with the warning a user sees) and
//! why one cannot be decoded ([`GzipError`], [`PushError`]).

use std::fmt;

/// How a gzip stream ended, from
/// [`GzipDecoder::finish`](super::GzipDecoder::finish). In every case all
/// the bytes that could be inflated have been handed to the sink.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GzipEnd {
    /// One or more complete members, each with a matching trailer, and
    /// nothing after them.
    Complete,
    /// Complete members, then bytes that do not start another member (from
    /// compressed offset `at` to the end): they were ignored, as `gzip -d`
    /// ignores them.
    TrailingBytesIgnored {
        /// Compressed offset of the first ignored byte.
        at: u64,
    },
    /// The input ended inside a member (in its header, its deflate data or
    /// its trailer); the `kept` bytes inflated before the end were handed
    /// out. Never with `kept == 0`: that is the error
    /// [`GzipErrorKind::CutBeforeAnyData`].
    CutShort {
        /// Decompressed bytes handed to the sink.
        kept: u64,
    },
    /// A member's trailer is complete but its CRC-32 or length does not
    /// match the data inflated: the data may be corrupt. The stream was
    /// decoded to its end all the same (this takes precedence over being
    /// cut short or followed by ignored bytes).
    ChecksumMismatch {
        /// Decompressed bytes handed to the sink.
        kept: u64,
    },
}

impl GzipEnd {
    /// The warning a user should see for this ending, if any, e.g. `the gzip
    /// stream is cut short: kept the 1234 bytes it held`.
    pub fn warning(&self) -> Option<String> {
        match self {
            GzipEnd::Complete => None,
            GzipEnd::TrailingBytesIgnored { .. } => Some("bytes after the end of the gzip stream were ignored".into()),
            GzipEnd::CutShort { kept } => Some(format!("the gzip stream is cut short: kept the {kept} bytes it held")),
            GzipEnd::ChecksumMismatch { kept } => Some(format!(
                "the gzip stream's checksum does not match its data: kept the {kept} bytes it held"
            )),
        }
    }
}

/// What is wrong with a gzip stream that cannot be decoded.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GzipErrorKind {
    /// The first member does not start with a gzip header: wrong magic,
    /// a compression method other than deflate, or reserved flags set.
    BadHeader,
    /// The first member's header has a header CRC (FHCRC) that does not
    /// match it.
    HeaderChecksumMismatch,
    /// The deflate data is not valid deflate.
    CorruptDeflate,
    /// The input ended before any byte was inflated.
    CutBeforeAnyData,
    /// An earlier call returned an error (of the stream or of the sink);
    /// the decoder does not go on after one.
    Stopped,
}

impl fmt::Display for GzipErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GzipErrorKind::BadHeader => "invalid gzip header",
            GzipErrorKind::HeaderChecksumMismatch => "gzip header checksum mismatch",
            GzipErrorKind::CorruptDeflate => "corrupt deflate stream",
            GzipErrorKind::CutBeforeAnyData => "cut short before any text",
            GzipErrorKind::Stopped => "decoding stopped after an earlier error",
        })
    }
}

/// A gzip stream that cannot be decoded. Its `Display` is the whole message
/// a user sees: `corrupt gzip stream (after N decompressed bytes): <kind>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GzipError {
    pub(super) kind: GzipErrorKind,
    pub(super) inflated: u64,
    pub(super) offset: u64,
}

impl GzipError {
    /// What is wrong.
    #[cfg(test)]
    pub fn kind(&self) -> GzipErrorKind {
        self.kind
    }
}

impl fmt::Display for GzipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "corrupt gzip stream (after {} decompressed bytes): {}",
            self.inflated, self.kind
        )
    }
}

impl std::error::Error for GzipError {}

/// An error from [`GzipDecoder::push`](super::GzipDecoder::push): of the
/// stream, or of the sink.
#[derive(Debug)]
pub enum PushError<E> {
    /// The stream cannot be decoded.
    Gzip(GzipError),
    /// The sink returned this error; decoding stopped there.
    Sink(E),
}

impl<E: fmt::Display> fmt::Display for PushError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PushError::Gzip(e) => e.fmt(f),
            PushError::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for PushError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PushError::Gzip(e) => Some(e),
            PushError::Sink(e) => Some(e),
        }
    }
}
