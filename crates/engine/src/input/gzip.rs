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

use std::fmt;

use flate2::{Decompress, FlushDecompress, Status};

/// Size of the buffer the deflate data is inflated into (reused throughout).
const OUT_BUF: usize = 128 << 10;

const ID1: u8 = 0x1f;
const ID2: u8 = 0x8b;
const CM_DEFLATE: u8 = 8;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xe0;

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

/// How a gzip stream ended, from [`GzipDecoder::finish`]. In every case all
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
    kind: GzipErrorKind,
    inflated: u64,
    offset: u64,
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

/// An error from [`GzipDecoder::push`]: of the stream, or of the sink.
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
                    let n = (8 - *have).min(input.len());
                    bytes[*have..*have + n].copy_from_slice(&input[..n]);
                    *have += n;
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

    /// Inflates from `input` until it is used up or the deflate data ends:
    /// the number of bytes taken.
    fn inflate<E, F>(&mut self, input: &[u8], sink: &mut F) -> Result<usize, PushError<E>>
    where
        F: FnMut(&[u8]) -> Result<(), E>,
    {
        let mut used = 0;
        loop {
            let (in_before, out_before) = (self.inflater.total_in(), self.inflater.total_out());
            let status = self
                .inflater
                .decompress(&input[used..], &mut self.out, FlushDecompress::None);
            // At most the lengths of the two slices just handed over.
            #[allow(clippy::cast_possible_truncation)]
            let (took, made) = (
                (self.inflater.total_in() - in_before) as usize,
                (self.inflater.total_out() - out_before) as usize,
            );
            used += took;
            if made > 0 {
                let piece = &self.out[..made];
                self.crc.update(piece);
                // ISIZE is the size modulo 2^32; `made` is at most `OUT_BUF`.
                #[allow(clippy::cast_possible_truncation)]
                let made_u32 = made as u32;
                self.size = self.size.wrapping_add(made_u32);
                self.inflated += made as u64;
                if let Err(e) = sink(piece) {
                    self.state = State::Failed(None);
                    return Err(PushError::Sink(e));
                }
            }
            match status {
                Err(_) => {
                    return Err(PushError::Gzip(
                        self.fail(GzipErrorKind::CorruptDeflate, self.consumed + used as u64),
                    ))
                }
                Ok(Status::StreamEnd) => {
                    self.state = State::Trailer { bytes: [0; 8], have: 0 };
                    return Ok(used);
                }
                Ok(Status::Ok | Status::BufError) => {
                    // A full buffer: more may be waiting inside the inflater.
                    if made == self.out.len() {
                        continue;
                    }
                    if used == input.len() {
                        return Ok(used);
                    }
                    if took == 0 && made == 0 {
                        // Input left, room for output, and no progress:
                        // the inflater cannot make sense of the data.
                        return Err(PushError::Gzip(
                            self.fail(GzipErrorKind::CorruptDeflate, self.consumed + used as u64),
                        ));
                    }
                }
            }
        }
    }

    /// A member's trailer is complete; the next member (if any) starts at
    /// compressed offset `next`.
    fn end_member(&mut self, trailer: [u8; 8], next: u64) {
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        let hasher = std::mem::take(&mut self.crc);
        if crc != hasher.finalize() || size != self.size {
            self.checksum_mismatch = true;
        }
        self.size = 0;
        self.members += 1;
        self.inflater.reset(false);
        self.state = State::Header(Header::new(next));
    }
}

/// The parts of a member header, in order.
#[derive(Clone, Copy)]
enum Step {
    /// ID1 ID2 CM FLG MTIME(4) XFL OS.
    Fixed,
    ExtraLen,
    Extra {
        left: usize,
    },
    Name,
    Comment,
    HeaderCrc,
}

impl Step {
    fn rank(self) -> u8 {
        match self {
            Step::Fixed => 0,
            Step::ExtraLen | Step::Extra { .. } => 1,
            Step::Name => 2,
            Step::Comment => 3,
            Step::HeaderCrc => 4,
        }
    }
}

/// A member header being read.
struct Header {
    /// Compressed offset of the member's first byte.
    start: u64,
    step: Step,
    flags: u8,
    buf: [u8; 10],
    have: usize,
    /// CRC-32 of the header bytes so far, for FHCRC.
    crc: crc32fast::Hasher,
    /// How many of the fixed part's bytes have been seen (10 once past it).
    seen: usize,
}

impl Header {
    fn new(start: u64) -> Self {
        Header {
            start,
            step: Step::Fixed,
            flags: 0,
            buf: [0; 10],
            have: 0,
            crc: crc32fast::Hasher::new(),
            seen: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.seen == 0
    }

    fn is_first_byte_only(&self) -> bool {
        self.seen == 1
    }

    /// Copies into `buf` up to `want` bytes in all: how many were taken.
    fn fill(&mut self, want: usize, input: &[u8]) -> usize {
        let n = (want - self.have).min(input.len());
        self.buf[self.have..self.have + n].copy_from_slice(&input[..n]);
        self.have += n;
        n
    }

    /// The first optional part after `done` that the flags announce.
    fn next_step(&self, done: Step) -> Option<Step> {
        let after = done.rank();
        [
            (FEXTRA, Step::ExtraLen),
            (FNAME, Step::Name),
            (FCOMMENT, Step::Comment),
            (FHCRC, Step::HeaderCrc),
        ]
        .into_iter()
        .find(|&(flag, step)| step.rank() > after && self.flags & flag != 0)
        .map(|(_, step)| step)
    }

    /// Reads header bytes from `input`: how many it took, and whether the
    /// header is complete (the deflate data starts right after).
    fn feed(&mut self, input: &[u8]) -> Result<(usize, bool), GzipErrorKind> {
        let mut used = 0;
        loop {
            let rest = &input[used..];
            let done = match self.step {
                Step::Fixed => {
                    let n = self.fill(10, rest);
                    used += n;
                    self.seen = self.have;
                    let b = &self.buf[..self.have];
                    let bad = |i: usize, ok: &dyn Fn(u8) -> bool| b.get(i).is_some_and(|&x| !ok(x));
                    if bad(0, &|x| x == ID1)
                        || bad(1, &|x| x == ID2)
                        || bad(2, &|x| x == CM_DEFLATE)
                        || bad(3, &|x| x & FRESERVED == 0)
                    {
                        return Err(GzipErrorKind::BadHeader);
                    }
                    if self.have < 10 {
                        return Ok((used, false));
                    }
                    self.flags = self.buf[3];
                    self.crc.update(&self.buf);
                    self.have = 0;
                    Step::Fixed
                }
                Step::ExtraLen => {
                    used += self.fill(2, rest);
                    if self.have < 2 {
                        return Ok((used, false));
                    }
                    self.crc.update(&self.buf[..2]);
                    let left = u16::from_le_bytes([self.buf[0], self.buf[1]]) as usize;
                    self.have = 0;
                    self.step = Step::Extra { left };
                    continue;
                }
                Step::Extra { left } => {
                    let n = left.min(rest.len());
                    self.crc.update(&rest[..n]);
                    used += n;
                    if n < left {
                        self.step = Step::Extra { left: left - n };
                        return Ok((used, false));
                    }
                    Step::Extra { left: 0 }
                }
                step @ (Step::Name | Step::Comment) => match rest.iter().position(|&b| b == 0) {
                    Some(end) => {
                        self.crc.update(&rest[..=end]);
                        used += end + 1;
                        step
                    }
                    None => {
                        self.crc.update(rest);
                        return Ok((input.len(), false));
                    }
                },
                Step::HeaderCrc => {
                    used += self.fill(2, rest);
                    if self.have < 2 {
                        return Ok((used, false));
                    }
                    // FHCRC is the two low bytes of the header's CRC-32.
                    let crc = self.crc.clone().finalize().to_le_bytes();
                    if self.buf[..2] != crc[..2] {
                        return Err(GzipErrorKind::HeaderChecksumMismatch);
                    }
                    Step::HeaderCrc
                }
            };
            match self.next_step(done) {
                Some(step) => self.step = step,
                None => return Ok((used, true)),
            }
        }
    }
}

#[cfg(test)]
// Test data: random words cut down to bytes, and small lengths.
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// Deterministic noise and piece sizes (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| (self.next() >> 24) as u8).collect()
        }
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A member built by hand, with the optional header parts.
    fn member(data: &[u8], extra: Option<&[u8]>, name: Option<&[u8]>, comment: Option<&[u8]>, hcrc: bool) -> Vec<u8> {
        let mut flags = 0;
        flags |= if extra.is_some() { FEXTRA } else { 0 };
        flags |= if name.is_some() { FNAME } else { 0 };
        flags |= if comment.is_some() { FCOMMENT } else { 0 };
        flags |= if hcrc { FHCRC } else { 0 };
        let mut out = vec![ID1, ID2, CM_DEFLATE, flags, 1, 2, 3, 4, 0, 255];
        if let Some(extra) = extra {
            out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            out.extend_from_slice(extra);
        }
        for text in [name, comment].into_iter().flatten() {
            out.extend_from_slice(text);
            out.push(0);
        }
        if hcrc {
            let crc = crc32fast::hash(&out) as u16;
            out.extend_from_slice(&crc.to_le_bytes());
        }
        out.extend(deflate(data));
        out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// Something like a trace: `events` events, compressible but not trivially.
    fn trace(events: usize) -> Vec<u8> {
        let mut s = String::from("[\n");
        for i in 0..events {
            s.push_str(&format!(
                "{{\"name\":\"Task{}\",\"cat\":\"devtools.timeline\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{\"n\":{}}}}},\n",
                i % 13,
                i % 3,
                i % 7,
                i * 17,
                i % 101,
                i.wrapping_mul(7919) % 100_003
            ));
        }
        s.push_str("{}]\n");
        s.into_bytes()
    }

    struct Run {
        text: Vec<u8>,
        /// The first push error, if any, and after how many input bytes.
        push_error: Option<(GzipError, usize)>,
        end: Result<GzipEnd, GzipError>,
        consumed: u64,
    }

    /// Decodes `input` in pieces of the given sizes (cycled).
    fn run(input: &[u8], mut sizes: impl FnMut() -> usize) -> Run {
        let mut decoder = GzipDecoder::new();
        let mut text = Vec::new();
        let mut push_error = None;
        let mut at = 0;
        while at < input.len() {
            let n = sizes().clamp(1, input.len() - at);
            let result = decoder.push(&input[at..at + n], |piece| {
                assert!(!piece.is_empty() && piece.len() <= OUT_BUF);
                text.extend_from_slice(piece);
                Ok::<(), ()>(())
            });
            at += n;
            if let Err(e) = result {
                match e {
                    PushError::Gzip(e) => push_error = Some((e, at)),
                    PushError::Sink(()) => unreachable!(),
                }
                break;
            }
        }
        assert_eq!(decoder.inflated(), text.len() as u64);
        let consumed = decoder.consumed();
        Run {
            text,
            push_error,
            end: decoder.finish(),
            consumed,
        }
    }

    fn whole(input: &[u8]) -> Run {
        run(input, || usize::MAX)
    }

    fn bytewise(input: &[u8]) -> Run {
        run(input, || 1)
    }

    fn random(input: &[u8], seed: u64) -> Run {
        let mut rng = Rng(seed);
        run(input, move || match rng.next() % 4 {
            0 => 1 + (rng.next() % 4) as usize,
            1 => 1 + (rng.next() % 100) as usize,
            2 => 1 + (rng.next() % 5000) as usize,
            _ => 1 + (rng.next() % 300_000) as usize,
        })
    }

    /// Whole, 1-byte, and random pieces all give the same outcome.
    fn all_ways(input: &[u8]) -> (Vec<u8>, Result<GzipEnd, GzipError>) {
        let one = whole(input);
        assert!(one.push_error.is_none());
        for other in [bytewise(input), random(input, 1), random(input, 0xdead_beef)] {
            assert!(other.push_error.is_none());
            assert!(other.text == one.text, "texts differ");
            assert_eq!(other.end, one.end);
            assert_eq!(other.consumed, input.len() as u64);
        }
        (one.text, one.end)
    }

    #[test]
    fn whole_bytewise_and_random_pieces_agree() {
        let data = trace(6000);
        assert!(data.len() > 3 * OUT_BUF);
        let (text, end) = all_ways(&gzip(&data));
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
        // Very compressible: a small input fills the output buffer many times.
        let data = vec![b'a'; 5 << 20];
        let compressed = gzip(&data);
        assert!(compressed.len() < 20_000);
        let (text, end) = all_ways(&compressed);
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
        // Incompressible: stored blocks.
        let data = Rng(5).bytes(300_000);
        let (text, end) = all_ways(&gzip(&data));
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
    }

    #[test]
    fn counts_bytes_in_and_out() {
        let data = trace(100);
        let compressed = gzip(&data);
        let mut decoder = GzipDecoder::new();
        decoder.push(&compressed, |_| Ok::<(), ()>(())).unwrap();
        assert_eq!(decoder.inflated(), data.len() as u64);
        assert_eq!(decoder.consumed(), compressed.len() as u64);
        assert_eq!(decoder.members(), 1);
    }

    #[test]
    fn concatenated_members_are_one_stream() {
        let data = trace(3000);
        let (a, b) = data.split_at(1000);
        let (b, c) = b.split_at(50_000);
        let mut input = gzip(a);
        input.extend(gzip(b));
        input.extend(gzip(b""));
        input.extend(member(c, None, Some(b"c.json"), None, true));
        let (text, end) = all_ways(&input);
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
    }

    #[test]
    fn header_with_every_optional_part() {
        let data = trace(200);
        let extra: Vec<u8> = (0..600u32).map(|i| i as u8).collect();
        for (extra, name, comment, hcrc) in [
            (
                Some(&extra[..]),
                Some(&b"trace.json"[..]),
                Some(&b"a comment"[..]),
                true,
            ),
            (Some(&b""[..]), None, None, false),
            (None, Some(&b""[..]), Some(&b""[..]), false),
            (None, None, Some(&b"only a comment"[..]), true),
            (None, None, None, true),
        ] {
            let (text, end) = all_ways(&member(&data, extra, name, comment, hcrc));
            assert!(text == data);
            assert_eq!(end, Ok(GzipEnd::Complete));
        }
        // flate2's own header writer.
        let mut e = flate2::GzBuilder::new()
            .filename("x.json")
            .comment("c")
            .extra(vec![1, 2, 3, 4])
            .mtime(7)
            .write(Vec::new(), flate2::Compression::fast());
        e.write_all(&data).unwrap();
        let (text, end) = all_ways(&e.finish().unwrap());
        assert!(text == data);
        assert_eq!(end, Ok(GzipEnd::Complete));
    }

    #[test]
    fn a_wrong_header_crc_is_an_error() {
        let mut input = member(b"[]", None, Some(b"n"), None, true);
        input[12] ^= 1;
        for r in [whole(&input), bytewise(&input)] {
            let (e, _) = r.push_error.unwrap();
            assert_eq!(e.kind(), GzipErrorKind::HeaderChecksumMismatch);
            assert_eq!(
                e.to_string(),
                "corrupt gzip stream (after 0 decompressed bytes): gzip header checksum mismatch"
            );
            assert_eq!(r.end.unwrap_err().kind(), GzipErrorKind::HeaderChecksumMismatch);
        }
    }

    #[test]
    fn bytes_after_a_complete_member_are_ignored() {
        let data = trace(50);
        let good = gzip(&data);
        let at = good.len() as u64;
        let tails: [&[u8]; 7] = [
            &[0; 512],
            b"trailing garbage",
            &[ID1],
            &[ID1, 0],
            &[ID1, ID2, 9, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3],
            &[ID1, ID2, 8, 0x20],
            &[0],
        ];
        for tail in tails {
            let mut input = good.clone();
            input.extend_from_slice(tail);
            let (text, end) = all_ways(&input);
            assert!(text == data);
            assert_eq!(end, Ok(GzipEnd::TrailingBytesIgnored { at }), "{tail:?}");
            assert_eq!(
                end.unwrap().warning().unwrap(),
                "bytes after the end of the gzip stream were ignored"
            );
        }
        // After several members, at the end of the last one.
        let mut input = good.clone();
        input.extend(gzip(b"more"));
        let at = input.len() as u64;
        input.extend_from_slice(b"\n\n");
        let (text, end) = all_ways(&input);
        assert_eq!(text.len(), data.len() + 4);
        assert_eq!(end, Ok(GzipEnd::TrailingBytesIgnored { at }));
    }

    #[test]
    fn cut_in_the_deflate_data_keeps_what_came_out() {
        let data = trace(2000);
        let input = gzip(&data);
        let cut = &input[..input.len() / 2];
        let (text, end) = all_ways(cut);
        let kept = text.len() as u64;
        assert!(kept > 0 && kept < data.len() as u64, "{kept}");
        assert!(data.starts_with(&text));
        assert_eq!(end, Ok(GzipEnd::CutShort { kept }));
        assert_eq!(
            end.unwrap().warning().unwrap(),
            format!("the gzip stream is cut short: kept the {kept} bytes it held")
        );
        // Cut inside a second member's header.
        let mut input = gzip(b"[1]");
        input.extend_from_slice(&gzip(b"x")[..5]);
        assert_eq!(all_ways(&input).1, Ok(GzipEnd::CutShort { kept: 3 }));
    }

    #[test]
    fn cut_before_any_text_is_an_error() {
        let input = gzip(&trace(10));
        for len in [0, 1, 2, 6, 10, 15] {
            let r = whole(&input[..len]);
            assert!(r.push_error.is_none());
            assert!(r.text.is_empty());
            let e = r.end.unwrap_err();
            assert_eq!(e.kind(), GzipErrorKind::CutBeforeAnyData, "{len}");
            assert_eq!(
                e.to_string(),
                "corrupt gzip stream (after 0 decompressed bytes): cut short before any text"
            );
            assert!(!e.to_string().contains("checksum"));
        }
        // The empty text, cut in its trailer: nothing to keep either.
        let empty = gzip(b"");
        let r = whole(&empty[..empty.len() - 1]);
        assert_eq!(r.end.unwrap_err().kind(), GzipErrorKind::CutBeforeAnyData);
    }

    #[test]
    fn cut_in_the_trailer_keeps_every_byte() {
        let data = trace(300);
        let input = gzip(&data);
        for missing in 1..=8 {
            let (text, end) = all_ways(&input[..input.len() - missing]);
            assert!(text == data);
            assert_eq!(
                end,
                Ok(GzipEnd::CutShort {
                    kept: data.len() as u64
                })
            );
        }
    }

    #[test]
    fn a_trailer_that_disagrees_is_a_checksum_mismatch() {
        let data = trace(300);
        let good = gzip(&data);
        let n = good.len();
        for flip in [n - 8, n - 5, n - 4, n - 2, n - 1] {
            let mut bad = good.clone();
            bad[flip] ^= 0xff;
            let (text, end) = all_ways(&bad);
            assert!(text == data);
            let end = end.unwrap();
            assert_eq!(
                end,
                GzipEnd::ChecksumMismatch {
                    kept: data.len() as u64
                }
            );
            let warning = end.warning().unwrap();
            assert!(warning.contains("checksum") && !warning.contains("cut short"));
            // Then more members, or trailing bytes: still reported.
            let mut more = bad.clone();
            more.extend(gzip(b"x"));
            more.extend_from_slice(&[0; 10]);
            assert_eq!(
                all_ways(&more).1,
                Ok(GzipEnd::ChecksumMismatch {
                    kept: data.len() as u64 + 1
                })
            );
        }
    }

    #[test]
    fn garbage_after_the_magic_is_corrupt_deflate_at_once() {
        let input = b"\x1f\x8b\x08\x00garbagegarbagegarbage";
        for r in [whole(input), bytewise(input), random(input, 3)] {
            let (e, after) = r.push_error.expect("an error while pushing");
            assert_eq!(e.kind(), GzipErrorKind::CorruptDeflate);
            assert_eq!(
                e.to_string(),
                "corrupt gzip stream (after 0 decompressed bytes): corrupt deflate stream"
            );
            assert_eq!(r.end.unwrap_err(), e);
            assert!(after <= input.len());
        }
        // Pushed a byte at a time, the error comes before the end of the input.
        let (_, after) = bytewise(input).push_error.unwrap();
        assert!(after < input.len(), "{after}");
    }

    #[test]
    fn noise_as_deflate_data_is_an_error() {
        let data = trace(20);
        let good = gzip(&data);
        for seed in [99, 1, 2, 3, 4, 5, 6, 7] {
            let mut input = good[..10].to_vec();
            input.extend(Rng(seed).bytes(2000));
            for r in [whole(&input), bytewise(&input)] {
                let e = r.end.unwrap_err();
                assert!(
                    matches!(e.kind(), GzipErrorKind::CorruptDeflate),
                    "seed {seed}: {e} (pushed: {:?})",
                    r.push_error
                );
                assert!(e.to_string().starts_with("corrupt gzip stream (after "));
            }
        }
        // Noise in the middle of a dynamic block may well decode (to
        // garbage) to its end: deflate has no check there, only the trailer.
        let data = trace(3000);
        let mut input = gzip(&data);
        input.truncate(input.len() / 2);
        input.extend(Rng(9).bytes(5000));
        let r = whole(&input);
        assert!(r.push_error.is_some() || matches!(r.end, Ok(GzipEnd::CutShort { .. })));
    }

    #[test]
    fn a_bad_first_header_is_an_error_at_once() {
        let inputs: [&[u8]; 5] = [
            b"hello, world",
            &[ID1, 0x8c],
            &[ID1, ID2, 7],
            &[ID1, ID2, 8, 0x80],
            &[ID1, ID2, 8, 0x20, 0, 0, 0, 0, 0, 0],
        ];
        for input in inputs {
            for r in [whole(input), bytewise(input)] {
                let (e, after) = r.push_error.expect("an error while pushing");
                assert_eq!(e.kind(), GzipErrorKind::BadHeader);
                assert!(after <= input.len());
                assert_eq!(
                    e.to_string(),
                    "corrupt gzip stream (after 0 decompressed bytes): invalid gzip header"
                );
            }
            // One byte at a time, the error comes with the first bad byte.
            let (_, after) = bytewise(input).push_error.unwrap();
            let first_bad = [ID1, ID2, CM_DEFLATE]
                .iter()
                .zip(input)
                .take_while(|(a, b)| a == b)
                .count();
            assert_eq!(after, first_bad + 1, "{input:?}");
        }
    }

    #[test]
    fn empty_text() {
        let (text, end) = all_ways(&gzip(b""));
        assert!(text.is_empty());
        assert_eq!(end, Ok(GzipEnd::Complete));
        assert_eq!(GzipEnd::Complete.warning(), None);
    }

    #[test]
    fn a_sink_error_stops_decoding() {
        let data = trace(3000);
        let input = gzip(&data);
        let mut decoder = GzipDecoder::new();
        let mut calls = 0;
        let result = decoder.push(&input, |_| {
            calls += 1;
            if calls == 2 {
                Err("full")
            } else {
                Ok(())
            }
        });
        assert!(matches!(result, Err(PushError::Sink("full"))));
        assert_eq!(decoder.inflated(), 2 * OUT_BUF as u64);
        let again = decoder.push(b"x", |_| Ok::<(), &str>(()));
        match again {
            Err(PushError::Gzip(e)) => assert_eq!(e.kind(), GzipErrorKind::Stopped),
            _ => panic!("expected an error"),
        }
        assert_eq!(decoder.finish().unwrap_err().kind(), GzipErrorKind::Stopped);
    }

    #[test]
    fn agrees_with_flate2_on_many_random_streams() {
        let mut rng = Rng(42);
        for round in 0..40 {
            let len = (rng.next() % 200_000) as usize;
            let mut data = trace(len / 120 + 1);
            data.truncate(len);
            let members = 1 + (rng.next() % 3) as usize;
            let mut input = Vec::new();
            for part in data.chunks(len / members + 1) {
                input.extend(gzip(part));
            }
            let mut expected = Vec::new();
            flate2::read::MultiGzDecoder::new(&input[..])
                .read_to_end(&mut expected)
                .unwrap();
            let r = random(&input, round);
            assert!(r.text == expected && expected == data, "round {round}");
            assert_eq!(r.end, Ok(GzipEnd::Complete));
        }
    }
}
