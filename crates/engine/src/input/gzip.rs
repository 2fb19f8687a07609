//! A streaming gzip (RFC 1952) decoder with its own framing.
//!
//! The member header (magic, method, flags and the optional extra field,
//! file name, comment and header CRC) and the 8-byte trailer (CRC-32 and
//! length of the data) are parsed here; only the raw deflate data in between
//! is handed to [`flate2::Decompress`]. Input may come in pieces of any size,
//! down to one byte. Like `gzip -d`, several members one after the other are
//! one stream, and bytes after a complete member that do not start another
//! one (zeros padding a download, text) are ignored and reported.
//!
//! The decoder's state machine is here; its parts are modules of their own:
//! the member header ([`header`]), the deflate data ([`inflate`]), the
//! trailer and its check ([`trailer`]), and how a stream ends or fails
//! ([`error`]).
//!
//! ```text
//! use crate::input::gzip::{GzipDecoder, GzipEnd};
//! let mut text = Vec::new();
//! let mut decoder = GzipDecoder::new();
//! for piece in compressed.chunks(3) {
//!     decoder
//!         .push(piece, |inflated| {
//!             text.extend_from_slice(inflated);
//!             Ok::<(), std::convert::Infallible>(())
//!         })
//!         .unwrap();
//! }
//! assert_eq!(decoder.finish().unwrap(), GzipEnd::Complete);
//! assert_eq!(text, b"[1, 2, 3]");
//! ```

mod error;
mod header;
mod inflate;
mod trailer;

#[cfg(test)]
// Test data: random words cut down to bytes, and small lengths.
#[allow(clippy::cast_possible_truncation)]
mod tests;

use flate2::Decompress;

pub use error::{GzipEnd, GzipError, GzipErrorKind, PushError};
use header::Header;
use inflate::OUT_BUF;

/// A streaming gzip decoder: compressed bytes in through [`push`](Self::push),
/// inflated bytes out to the caller's sink, and how the stream ended from
/// [`finish`](Self::finish).
///
/// After `push` has returned an error the stream is abandoned: further calls
/// to `push` and `finish` return an error again.
pub struct GzipDecoder {
    state: State,
    inflater: Decompress,
    out: Vec<u8>,
    /// CRC-32 of the current member's data.
    crc: crc32fast::Hasher,
    /// Length of the current member's data, mod 2^32.
    size: u32,
    inflated: u64,
    consumed: u64,
    members: u64,
    checksum_mismatch: bool,
}

enum State {
    Header(Header),
    Deflate,
    Trailer {
        bytes: [u8; 8],
        have: usize,
    },
    /// After a complete member, from `at` on: not gzip, ignored.
    Trailing {
        at: u64,
    },
    /// An error was returned: `None` if the sink failed.
    Failed(Option<GzipError>),
}

impl Default for GzipDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl GzipDecoder {
    /// A decoder at the start of a gzip stream.
    pub fn new() -> Self {
        GzipDecoder {
            state: State::Header(Header::new(0)),
            inflater: Decompress::new(false),
            out: vec![0; OUT_BUF],
            crc: crc32fast::Hasher::new(),
            size: 0,
            inflated: 0,
            consumed: 0,
            members: 0,
            checksum_mismatch: false,
        }
    }

    /// Decompressed bytes handed to the sink so far.
    #[cfg(test)]
    pub fn inflated(&self) -> u64 {
        self.inflated
    }

    /// Compressed bytes taken so far (all those pushed, unless an error
    /// stopped the decoder).
    #[cfg(test)]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Members read to the end of their trailer so far.
    #[cfg(test)]
    pub fn members(&self) -> u64 {
        self.members
    }

    /// Feeds the next compressed bytes; each piece of inflated bytes is
    /// handed to `sink` as it comes out (in pieces of at most 128 KiB). An
    /// invalid header or corrupt deflate data is an error as soon as it is
    /// seen; a sink's error stops decoding and is returned as
    /// [`PushError::Sink`].
    pub fn push<E, F>(&mut self, compressed: &[u8], mut sink: F) -> Result<(), PushError<E>>
    where
        F: FnMut(&[u8]) -> Result<(), E>,
    {
        let mut input = compressed;
        while !input.is_empty() {
            let used = match &mut self.state {
                State::Failed(e) => {
                    let e = e
                        .clone()
                        .unwrap_or_else(|| self.error(GzipErrorKind::Stopped, self.consumed));
                    return Err(PushError::Gzip(e));
                }
                State::Trailing { .. } => input.len(),
                State::Header(header) => match header.feed(input) {
                    Ok((used, done)) => {
                        if done {
                            self.state = State::Deflate;
                        }
                        used
                    }
                    // After a complete member, anything that is not a
                    // member is ignored, as gzip -d does.
                    Err(_) if self.members > 0 => {
                        self.state = State::Trailing { at: header.start };
                        input.len()
                    }
                    Err(kind) => return Err(PushError::Gzip(self.fail(kind, self.consumed))),
                },
                State::Deflate => self.inflate(input, &mut sink)?,
                State::Trailer { bytes, have } => {
                    let n = trailer::fill(bytes, have, input);
                    if *have == 8 {
                        let trailer = *bytes;
                        self.end_member(trailer, self.consumed + n as u64);
                    }
                    n
                }
            };
            self.consumed += used as u64;
            input = &input[used..];
        }
        Ok(())
    }

    /// Ends the input: how the stream ended, or why it cannot be used.
    pub fn finish(self) -> Result<GzipEnd, GzipError> {
        let cut = match &self.state {
            State::Failed(e) => {
                return Err(e
                    .clone()
                    .unwrap_or_else(|| self.error(GzipErrorKind::Stopped, self.consumed)))
            }
            State::Trailing { at } => {
                return Ok(if self.checksum_mismatch {
                    GzipEnd::ChecksumMismatch { kept: self.inflated }
                } else {
                    GzipEnd::TrailingBytesIgnored { at: *at }
                });
            }
            State::Header(header) if self.members > 0 && header.is_empty() => false,
            // A lone 0x1f after a member: not the start of another.
            State::Header(header) if self.members > 0 && header.is_first_byte_only() => {
                return Ok(if self.checksum_mismatch {
                    GzipEnd::ChecksumMismatch { kept: self.inflated }
                } else {
                    GzipEnd::TrailingBytesIgnored { at: header.start }
                });
            }
            _ => true,
        };
        if cut && self.inflated == 0 {
            return Err(self.error(GzipErrorKind::CutBeforeAnyData, self.consumed));
        }
        Ok(if self.checksum_mismatch {
            GzipEnd::ChecksumMismatch { kept: self.inflated }
        } else if cut {
            GzipEnd::CutShort { kept: self.inflated }
        } else {
            GzipEnd::Complete
        })
    }

    fn error(&self, kind: GzipErrorKind, offset: u64) -> GzipError {
        GzipError {
            kind,
            inflated: self.inflated,
            offset,
        }
    }

    fn fail(&mut self, kind: GzipErrorKind, offset: u64) -> GzipError {
        let e = self.error(kind, offset);
        self.state = State::Failed(Some(e.clone()));
        e
    }
}
