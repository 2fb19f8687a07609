//! The deflate data between a member's header and its trailer, inflated by
//! [`flate2::Decompress`] into a reused buffer and handed to the sink piece
//! by piece, with the CRC-32 and length the trailer will be checked against.

use flate2::{FlushDecompress, Status};

use super::{GzipDecoder, GzipErrorKind, PushError, State};

/// Size of the buffer the deflate data is inflated into (reused throughout).
pub(super) const OUT_BUF: usize = 128 << 10;

impl GzipDecoder {
    /// Inflates from `input` until it is used up or the deflate data ends:
    /// the number of bytes taken.
    pub(super) fn inflate<E, F>(&mut self, input: &[u8], sink: &mut F) -> Result<usize, PushError<E>>
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
}
