//! The 8-byte member trailer: collected in pieces of any size, then its
//! CRC-32 and length checked against the data inflated, and the decoder
//! set for the next member.

use super::{GzipDecoder, Header, State};

/// Copies the trailer's next bytes from `input` into `bytes`, of which
/// `have` are already there: how many were taken.
pub(super) fn fill(bytes: &mut [u8; 8], have: &mut usize, input: &[u8]) -> usize {
    let n = (8 - *have).min(input.len());
    bytes[*have..*have + n].copy_from_slice(&input[..n]);
    *have += n;
    n
}

impl GzipDecoder {
    /// A member's trailer is complete; the next member (if any) starts at
    /// compressed offset `next`.
    pub(super) fn end_member(&mut self, trailer: [u8; 8], next: u64) {
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
