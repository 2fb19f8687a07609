//! The chart's data packed for the page: the columns deflated (in pieces,
//! on all cores) and written in base64, as the page inflates them with
//! the browser's own `DecompressionStream`.

use tracekit_engine::support::map_biggest_first;
use tracekit_engine::Parallelism;

/// How many bytes of the columns are deflated apart: pieces of a megabyte
/// compress nearly as well as the whole, and are compressed on all cores.
pub(super) const DEFLATE_PIECE: usize = 1 << 20;

/// `bytes` compressed as a raw deflate stream (RFC 1951), which the
/// browser's `DecompressionStream('deflate-raw')` inflates: each piece of
/// [`DEFLATE_PIECE`] bytes compressed on its own (on all cores with
/// [`Parallelism::Rayon`]; the bytes are the same), all but the last
/// ending on a byte boundary with an empty stored block (a sync flush,
/// as `pigz` joins its pieces), the last with the stream's final block.
pub(super) fn deflate(bytes: &[u8], parallelism: Parallelism) -> Vec<u8> {
    let pieces: Vec<(usize, &[u8])> = bytes.chunks(DEFLATE_PIECE).enumerate().collect();
    let last = pieces.len().saturating_sub(1);
    let deflated: Vec<Vec<u8>> = map_biggest_first(
        pieces,
        parallelism,
        |(_, piece)| piece.len(),
        |(i, piece)| deflate_piece(piece, i == last),
    );
    if deflated.is_empty() {
        // No bytes: a stream with its final block only.
        return deflate_piece(&[], true);
    }
    deflated.concat()
}

/// One piece of [`deflate`]'s stream.
fn deflate_piece(piece: &[u8], last: bool) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut compress = Compress::new(Compression::fast(), false);
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out = Vec::with_capacity(piece.len() / 4 + 64);
    loop {
        let read = usize::try_from(compress.total_in()).expect("a piece's size fits usize");
        let status = compress
            .compress_vec(&piece[read..], &mut out, flush)
            .expect("deflating in memory cannot fail");
        let all_read = usize::try_from(compress.total_in()).expect("a piece's size fits usize") == piece.len();
        // The flush is done once everything is read and the output has
        // room left; the last piece, once the stream has ended.
        let done = match status {
            Status::StreamEnd => true,
            Status::Ok | Status::BufError => !last && all_read && out.len() < out.capacity(),
        };
        if done {
            return out;
        }
        out.reserve(out.capacity().max(1024));
    }
}

/// Standard base64 (RFC 4648, with padding), appended to `out`.
pub(super) fn base64(bytes: &[u8], out: &mut String) {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
}
