//! The member header: the fixed part (magic, method, flags, time, extra
//! flags, OS) checked as it comes, then the optional extra field, file name,
//! comment and header CRC that the flags announce, read in pieces of any size.

use super::GzipErrorKind;

pub(super) const ID1: u8 = 0x1f;
pub(super) const ID2: u8 = 0x8b;
pub(super) const CM_DEFLATE: u8 = 8;
pub(super) const FHCRC: u8 = 0x02;
pub(super) const FEXTRA: u8 = 0x04;
pub(super) const FNAME: u8 = 0x08;
pub(super) const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xe0;

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
pub(super) struct Header {
    /// Compressed offset of the member's first byte.
    pub(super) start: u64,
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
    pub(super) fn new(start: u64) -> Self {
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

    pub(super) fn is_empty(&self) -> bool {
        self.seen == 0
    }

    pub(super) fn is_first_byte_only(&self) -> bool {
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
    pub(super) fn feed(&mut self, input: &[u8]) -> Result<(usize, bool), GzipErrorKind> {
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
