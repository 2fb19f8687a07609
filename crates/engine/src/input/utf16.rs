//! UTF-16 input, decoded to UTF-8 as it streams.
//!
//! Windows PowerShell's `>` writes UTF-16LE with a byte order mark; some
//! tools write UTF-16BE, or no BOM at all. [`sniff`] tells such input from
//! the first bytes, and a [`Utf16Decoder`] turns the rest into UTF-8 piece
//! by piece, whatever the sizes of the pieces.
//!
//! The input should just load: an unpaired surrogate (which well-formed
//! UTF-16 never has, but which a JavaScript or .NET string may) becomes
//! U+FFFD and is counted, and input ending inside a character (an odd byte,
//! or a high surrogate with no low one after it) drops that character, as
//! the loader does for UTF-8 input cut inside a character. [`Utf16End`]
//! tells about both.
//!
//! ```text
//! use crate::input::utf16::{sniff, Utf16Decoder, Utf16Kind};
//! let input: Vec<u8> = "\u{feff}[{\"name\":\"\u{1f600}\"}]".encode_utf16().flat_map(u16::to_le_bytes).collect();
//! let kind = sniff(&input).unwrap();
//! assert_eq!(kind, Utf16Kind::LittleEndian { bom: true });
//! let mut decoder = Utf16Decoder::new(kind);
//! let mut text = Vec::new();
//! for piece in input.chunks(3) {
//!     decoder.push(piece, |utf8| {
//!         text.extend_from_slice(utf8);
//!         Ok::<(), std::convert::Infallible>(())
//!     }).unwrap();
//! }
//! let end = decoder.finish();
//! assert!(end.warnings().is_empty());
//! assert_eq!(text, "[{\"name\":\"\u{1f600}\"}]".as_bytes());
//! ```

/// How many of the first bytes [`sniff`] looks at: a caller that holds the
/// input back until it has this many (or the whole input, if shorter) gets
/// the best answer.
pub const SNIFF_LEN: usize = 64;

/// Size of the UTF-8 buffer handed to the sink (reused throughout).
const OUT_BUF: usize = 64 << 10;

/// Room kept free in the buffer for one code unit's output at most (a
/// U+FFFD for a pending high surrogate, then a 3-byte character).
const SLACK: usize = 16;

/// Which UTF-16 the input is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Utf16Kind {
    /// UTF-16LE (what Windows writes); `bom` if it starts with `FF FE`.
    LittleEndian {
        /// Whether the input starts with a byte order mark.
        bom: bool,
    },
    /// UTF-16BE; `bom` if it starts with `FE FF`.
    BigEndian {
        /// Whether the input starts with a byte order mark.
        bom: bool,
    },
}

impl Utf16Kind {
    /// Whether the code units are big-endian.
    pub fn is_big_endian(self) -> bool {
        matches!(self, Utf16Kind::BigEndian { .. })
    }

    /// Length of the byte order mark at the start of the input: 2 or 0.
    pub fn bom_len(self) -> usize {
        match self {
            Utf16Kind::LittleEndian { bom } | Utf16Kind::BigEndian { bom } => 2 * bom as usize,
        }
    }
}

/// Tells UTF-16 input from its first bytes: the whole input, or at least
/// its first [`SNIFF_LEN`] bytes (fewer may do, and a BOM needs only two).
///
/// A UTF-16 BOM (`FF FE` or `FE FF`) says so, except `FF FE 00 00`, which is
/// UTF-32LE's. Without a BOM, the input is taken for UTF-16 only if it
/// starts like a JSON text in it: ASCII code units (the other byte NUL), any
/// whitespace, then `[` or `{`, then another ASCII code unit — `[\0{\0` for
/// LE, `\0[\0{` for BE. UTF-8 JSON never has a NUL byte, so it is never
/// mistaken for UTF-16; nor is UTF-32, whose second unit would be NUL.
pub fn sniff(first_bytes: &[u8]) -> Option<Utf16Kind> {
    match first_bytes {
        [0xff, 0xfe, 0, 0, ..] => None,
        [0xff, 0xfe, ..] => Some(Utf16Kind::LittleEndian { bom: true }),
        [0xfe, 0xff, ..] => Some(Utf16Kind::BigEndian { bom: true }),
        _ => {
            let head = &first_bytes[..first_bytes.len().min(SNIFF_LEN)];
            if starts_like_json(head, false) {
                Some(Utf16Kind::LittleEndian { bom: false })
            } else if starts_like_json(head, true) {
                Some(Utf16Kind::BigEndian { bom: false })
            } else {
                None
            }
        }
    }
}

/// Whether `head` starts with ASCII code units: whitespace, `[` or `{`,
/// then any other ASCII character but NUL.
fn starts_like_json(head: &[u8], big_endian: bool) -> bool {
    let ascii = |unit: &[u8]| {
        let (low, high) = if big_endian {
            (unit[1], unit[0])
        } else {
            (unit[0], unit[1])
        };
        (high == 0 && low != 0 && low < 0x80).then_some(low)
    };
    let mut units = head.chunks_exact(2);
    loop {
        match units.next().and_then(ascii) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => continue,
            Some(b'[' | b'{') => return units.next().and_then(ascii).is_some(),
            _ => return false,
        }
    }
}

/// How a UTF-16 input ended, from [`Utf16Decoder::finish`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Utf16End {
    /// UTF-8 bytes handed to the sink.
    pub written: u64,
    /// Unpaired surrogates, each replaced with U+FFFD.
    pub replaced: u64,
    /// Input byte offset of the first unpaired surrogate.
    pub first_replaced_at: Option<u64>,
    /// Input byte offset of a character the input ends inside of (an odd
    /// last byte, or a high surrogate with nothing after it): dropped.
    pub cut_at: Option<u64>,
}

impl Utf16End {
    /// The warnings a user should see, if any (at most two): e.g. `the
    /// input ends inside a UTF-16 character at byte 1001`.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if let (n @ 1.., Some(at)) = (self.replaced, self.first_replaced_at) {
            warnings.push(format!(
                "{n} unpaired UTF-16 surrogate{} replaced with U+FFFD (the first at byte {at})",
                if n == 1 { "" } else { "s" }
            ));
        }
        if let Some(at) = self.cut_at {
            warnings.push(format!("the input ends inside a UTF-16 character at byte {at}"));
        }
        warnings
    }
}

/// A streaming UTF-16 to UTF-8 transcoder. It is fed the input from its
/// first byte on, BOM included (which it skips if its [`Utf16Kind`] says
/// there is one).
pub struct Utf16Decoder {
    big_endian: bool,
    /// BOM bytes still to skip.
    bom_left: usize,
    /// The first byte of a code unit whose second is in the next piece.
    odd: Option<u8>,
    /// A high surrogate waiting for its low one, and its input offset.
    high: Option<(u16, u64)>,
    out: Vec<u8>,
    consumed: u64,
    end: Utf16End,
}

impl Utf16Decoder {
    /// A decoder at the start of an input of this kind.
    pub fn new(kind: Utf16Kind) -> Self {
        Utf16Decoder {
            big_endian: kind.is_big_endian(),
            bom_left: kind.bom_len(),
            odd: None,
            high: None,
            out: vec![0; OUT_BUF],
            consumed: 0,
            end: Utf16End::default(),
        }
    }

    /// Input bytes taken so far.
    #[cfg(test)]
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// UTF-8 bytes handed to the sink so far.
    #[cfg(test)]
    pub fn written(&self) -> u64 {
        self.end.written
    }

    /// Feeds the next bytes of the input; their UTF-8 is handed to `sink`
    /// (in pieces of at most 64 KiB; a character whose code units are not
    /// all here yet waits for the next push). Only the sink can fail; after
    /// it has, the decoder should not be used again.
    pub fn push<E, F>(&mut self, bytes: &[u8], mut sink: F) -> Result<(), E>
    where
        F: FnMut(&[u8]) -> Result<(), E>,
    {
        let mut at = self.consumed;
        self.consumed += bytes.len() as u64;
        let skip = self.bom_left.min(bytes.len());
        self.bom_left -= skip;
        let mut bytes = &bytes[skip..];
        at += skip as u64;
        let mut pos = 0;
        if let Some(first) = self.odd {
            let Some(&second) = bytes.first() else {
                return Ok(());
            };
            self.odd = None;
            pos = self.unit([first, second], at - 1, pos);
            bytes = &bytes[1..];
            at += 1;
        }
        let even = bytes.len() & !1;
        let mut i = 0;
        while i < even {
            if pos + SLACK > OUT_BUF {
                self.flush(pos, &mut sink)?;
                pos = 0;
            }
            if self.high.is_none() {
                let (took, wrote) = ascii_run(&bytes[i..even], &mut self.out[pos..OUT_BUF - SLACK], self.big_endian);
                i += took;
                pos += wrote;
                if i == even {
                    break;
                }
            }
            pos = self.unit([bytes[i], bytes[i + 1]], at + i as u64, pos);
            i += 2;
        }
        if even < bytes.len() {
            self.odd = Some(bytes[even]);
        }
        self.flush(pos, &mut sink)
    }

    /// Ends the input: what was replaced or dropped.
    pub fn finish(self) -> Utf16End {
        let mut end = self.end;
        end.cut_at = match (self.high, self.odd) {
            (Some((_, at)), _) => Some(at),
            (None, Some(_)) => Some(self.consumed - 1),
            (None, None) => None,
        };
        end
    }

    fn flush<E, F>(&mut self, pos: usize, sink: &mut F) -> Result<(), E>
    where
        F: FnMut(&[u8]) -> Result<(), E>,
    {
        if pos == 0 {
            return Ok(());
        }
        self.end.written += pos as u64;
        sink(&self.out[..pos])
    }

    /// Decodes one code unit (its two bytes as in the input, at input
    /// offset `at`) into `out` at `pos`: the new `pos`.
    fn unit(&mut self, bytes: [u8; 2], at: u64, mut pos: usize) -> usize {
        let unit = if self.big_endian {
            u16::from_be_bytes(bytes)
        } else {
            u16::from_le_bytes(bytes)
        };
        if let Some((high, high_at)) = self.high.take() {
            if (0xdc00..=0xdfff).contains(&unit) {
                let c = 0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00);
                return self.put(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER), pos);
            }
            pos = self.replace(high_at, pos);
        }
        match unit {
            0xd800..=0xdbff => {
                self.high = Some((unit, at));
                pos
            }
            0xdc00..=0xdfff => self.replace(at, pos),
            _ => self.put(
                char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                pos,
            ),
        }
    }

    fn put(&mut self, c: char, pos: usize) -> usize {
        pos + c.encode_utf8(&mut self.out[pos..]).len()
    }

    /// An unpaired surrogate at input offset `at`: U+FFFD.
    fn replace(&mut self, at: u64, pos: usize) -> usize {
        self.end.replaced += 1;
        self.end.first_replaced_at.get_or_insert(at);
        self.put(char::REPLACEMENT_CHARACTER, pos)
    }
}

/// Copies the ASCII code units at the start of `input` (an even number of
/// bytes) to `out`, four at a time, while they last and `out` has room:
/// the bytes taken and written. The units left (fewer than four, or not
/// ASCII) are for the caller.
fn ascii_run(input: &[u8], out: &mut [u8], big_endian: bool) -> (usize, usize) {
    // The bits that must be zero in four ASCII units read as a little-endian u64.
    let (mask, shift) = if big_endian {
        (0x80ff_80ff_80ff_80ff_u64, 8)
    } else {
        (0xff80_ff80_ff80_ff80_u64, 0)
    };
    let mut runs = 0;
    for (units, dst) in input.chunks_exact(8).zip(out.chunks_exact_mut(4)) {
        let w = u64::from_le_bytes([
            units[0], units[1], units[2], units[3], units[4], units[5], units[6], units[7],
        ]);
        if w & mask != 0 {
            break;
        }
        let w = w >> shift;
        let packed = (w & 0xff) | ((w >> 8) & 0xff00) | ((w >> 16) & 0xff_0000) | ((w >> 24) & 0xff00_0000);
        // The masks leave only the low 32 bits.
        #[allow(clippy::cast_possible_truncation)]
        let packed = packed as u32;
        dst.copy_from_slice(&packed.to_le_bytes());
        runs += 1;
    }
    (runs * 8, runs * 4)
}

#[cfg(test)]
// Test data: random words cut down to bytes and code units, small counts.
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    fn le(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn be(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_be_bytes).collect()
    }

    fn units_le(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    /// Decodes `input` pushed in pieces that end at `cuts`.
    fn decode_cut(kind: Utf16Kind, input: &[u8], cuts: &[usize]) -> (Vec<u8>, Utf16End) {
        let mut decoder = Utf16Decoder::new(kind);
        let mut text = Vec::new();
        let mut from = 0;
        for &to in cuts.iter().chain([input.len()].iter()) {
            decoder
                .push(&input[from..to], |piece| {
                    assert!(!piece.is_empty() && piece.len() <= OUT_BUF);
                    text.extend_from_slice(piece);
                    Ok::<(), ()>(())
                })
                .unwrap();
            from = to;
        }
        assert_eq!(decoder.consumed(), input.len() as u64);
        assert_eq!(decoder.written(), text.len() as u64);
        let end = decoder.finish();
        assert_eq!(end.written, text.len() as u64);
        (text, end)
    }

    fn decode(kind: Utf16Kind, input: &[u8]) -> (Vec<u8>, Utf16End) {
        decode_cut(kind, input, &[])
    }

    /// Whole, 1-byte and random pieces agree: the common outcome.
    fn all_ways(kind: Utf16Kind, input: &[u8]) -> (Vec<u8>, Utf16End) {
        let one = decode(kind, input);
        let bytewise: Vec<usize> = (1..input.len()).collect();
        assert_eq!(decode_cut(kind, input, &bytewise), one);
        for seed in [1, 2, 3] {
            let mut rng = Rng(seed);
            let mut cuts = Vec::new();
            let mut at = 0;
            while at < input.len() {
                cuts.push(at);
                at += 1 + (rng.next() % [3, 40, 70_000][(rng.next() % 3) as usize]) as usize;
            }
            assert_eq!(decode_cut(kind, input, &cuts), one);
        }
        one
    }

    const LE_BOM: Utf16Kind = Utf16Kind::LittleEndian { bom: true };
    const BE_BOM: Utf16Kind = Utf16Kind::BigEndian { bom: true };
    const LE: Utf16Kind = Utf16Kind::LittleEndian { bom: false };
    const BE: Utf16Kind = Utf16Kind::BigEndian { bom: false };

    const TRACE: &str =
        "[{\"name\":\"RunTask\",\"ph\":\"X\",\"ts\":1,\"dur\":5,\"args\":{\"url\":\"https://例え.jp/ü/😀\"}}]\r\n";

    #[test]
    fn little_endian_with_bom() {
        let input = le(&format!("\u{feff}{TRACE}"));
        assert_eq!(&input[..2], [0xff, 0xfe]);
        assert_eq!(sniff(&input), Some(LE_BOM));
        assert_eq!(sniff(&input[..2]), Some(LE_BOM));
        let (text, end) = all_ways(LE_BOM, &input);
        assert_eq!(text, TRACE.as_bytes());
        assert_eq!(end.warnings(), Vec::<String>::new());
        assert_eq!(end.written, TRACE.len() as u64);
    }

    #[test]
    fn big_endian_with_bom() {
        let input = be(&format!("\u{feff}{TRACE}"));
        assert_eq!(sniff(&input), Some(BE_BOM));
        let (text, end) = all_ways(BE_BOM, &input);
        assert_eq!(text, TRACE.as_bytes());
        assert_eq!(
            end,
            Utf16End {
                written: TRACE.len() as u64,
                ..Utf16End::default()
            }
        );
    }

    #[test]
    fn without_a_bom() {
        for lead in ["", " ", "\r\n", "\t \n  "] {
            let json = format!("{lead}{TRACE}");
            assert_eq!(sniff(&le(&json)), Some(LE), "{lead:?}");
            assert_eq!(sniff(&be(&json)), Some(BE), "{lead:?}");
            assert_eq!(all_ways(LE, &le(&json)).0, json.as_bytes());
            assert_eq!(all_ways(BE, &be(&json)).0, json.as_bytes());
        }
        assert_eq!(sniff(b"[\0{\0"), Some(LE));
        assert_eq!(sniff(b"\0[\0{"), Some(BE));
        assert_eq!(sniff(&le("{\"traceEvents\":[]}")), Some(LE));
        assert_eq!(sniff(&le("[]")), Some(LE));
        // A BOM-less kind does not drop a U+FEFF at the start.
        assert_eq!(decode(LE, &le("\u{feff}[")).0, "\u{feff}[".as_bytes());
    }

    #[test]
    fn utf8_and_other_input_is_not_utf16() {
        let not: [&[u8]; 16] = [
            b"",
            b"[",
            b"[{\"name\":\"a\"}]",
            "\u{feff}[{\"a\":1}]".as_bytes(),
            b"  \n[1,2]",
            b"\x00\x00\x00\x00",
            b"\x00\x01\x02\x03\xff\xfe\x00\x00",
            b"\xff\xfe\x00\x00[\x00\x00\x00",
            b"[\x00\x00\x00{\x00\x00\x00",
            b"\x00\x00\x00[\x00\x00\x00{",
            b"[\x00",
            b"\x00[",
            b"a\x00b\x00",
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            b"\x1f\x8b\x08\x00",
            b"\xfe",
        ];
        for input in not {
            assert_eq!(sniff(input), None, "{input:?}");
        }
        // Nor UTF-16 of whitespace alone, or of text that is not JSON.
        assert_eq!(sniff(&le(&" ".repeat(40))), None);
        assert_eq!(sniff(&le("hello")), None);
        let mut rng = Rng(99);
        for _ in 0..10_000 {
            let noise: Vec<u8> = (0..16).map(|_| (rng.next() >> 24) as u8).collect();
            if !matches!(noise[..2], [0xff, 0xfe] | [0xfe, 0xff]) {
                assert_eq!(sniff(&noise), None, "{noise:?}");
            }
        }
    }

    #[test]
    fn surrogate_pairs_split_at_every_position() {
        let s = "😀a😀€😀\u{10ffff}\u{10000}b";
        for (kind, input) in [(LE, le(s)), (BE, be(s))] {
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    let (text, end) = decode_cut(kind, &input, &[i, j]);
                    assert_eq!(text, s.as_bytes(), "{i} {j}");
                    assert_eq!(end.warnings(), Vec::<String>::new());
                }
            }
        }
    }

    #[test]
    fn an_odd_last_byte_is_dropped_and_reported() {
        let mut input = le(&format!("\u{feff}{TRACE}"));
        input.push(b'x');
        let (text, end) = all_ways(LE_BOM, &input);
        assert_eq!(text, TRACE.as_bytes());
        assert_eq!(end.cut_at, Some(input.len() as u64 - 1));
        assert_eq!(
            end.warnings(),
            vec![format!(
                "the input ends inside a UTF-16 character at byte {}",
                input.len() - 1
            )]
        );
        // A lone byte after the BOM; a lone first byte of a BOM.
        assert_eq!(decode(LE_BOM, b"\xff\xfe[").1.cut_at, Some(2));
        assert_eq!(decode(LE_BOM, b"\xff").1, Utf16End::default());
    }

    #[test]
    fn a_high_surrogate_at_the_end_is_dropped_and_reported() {
        for tail in [&[0xd83d][..], &[0xd83d, 0xd83d]] {
            let mut units: Vec<u16> = "[1]".encode_utf16().collect();
            units.extend_from_slice(tail);
            let mut input = units_le(&units);
            let (text, end) = all_ways(LE, &input);
            let replaced = tail.len() as u64 - 1;
            assert_eq!(text, format!("[1]{}", "\u{fffd}".repeat(replaced as usize)).as_bytes());
            assert_eq!(end.cut_at, Some(input.len() as u64 - 2));
            assert_eq!(end.replaced, replaced);
            // With an odd byte after it: the cut is still at the surrogate.
            input.push(0x3d);
            assert_eq!(all_ways(LE, &input).1.cut_at, Some(input.len() as u64 - 3));
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let units: Vec<u16> = vec![
            b'[' as u16,
            0xd800, // high, then ASCII
            b'a' as u16,
            0xdc00, // low alone
            0xd83d, // high, then high + low: the first is lone
            0xd83d,
            0xde00,
            0xdfff, // low alone
            0xdbff, // high, then a BMP character
            0x20ac,
            b']' as u16,
        ];
        let expected = String::from_utf16_lossy(&units);
        assert_eq!(expected.matches('\u{fffd}').count(), 5);
        let (text, end) = all_ways(LE, &units_le(&units));
        assert_eq!(text, expected.as_bytes());
        assert_eq!(end.replaced, 5);
        assert_eq!(end.first_replaced_at, Some(2));
        assert_eq!(end.cut_at, None);
        assert_eq!(
            end.warnings(),
            vec!["5 unpaired UTF-16 surrogates replaced with U+FFFD (the first at byte 2)".to_string()]
        );
        // Offsets count the BOM.
        let mut input = b"\xfe\xff".to_vec();
        input.extend([0xdc, 0x00, 0x00, b'x']);
        let (text, end) = all_ways(BE_BOM, &input);
        assert_eq!(text, "\u{fffd}x".as_bytes());
        assert_eq!(end.first_replaced_at, Some(2));
        assert_eq!(
            end.warnings(),
            vec!["1 unpaired UTF-16 surrogate replaced with U+FFFD (the first at byte 2)"]
        );
    }

    #[test]
    fn agrees_with_std_on_random_units() {
        let mut rng = Rng(7);
        for round in 0..300 {
            let len = (rng.next() % 3000) as usize;
            let mut units: Vec<u16> = (0..len)
                .map(|_| match rng.next() % 10 {
                    0..=4 => (rng.next() % 128) as u16,
                    5 => 0xd800 + (rng.next() % 0x400) as u16,
                    6 => 0xdc00 + (rng.next() % 0x400) as u16,
                    7 => (rng.next() % 0x800) as u16,
                    _ => rng.next() as u16,
                })
                .collect();
            if units.last().is_some_and(|u| (0xd800..0xdc00).contains(u)) {
                units.push(b'x' as u16);
            }
            let expected = String::from_utf16_lossy(&units);
            let lone = char::decode_utf16(units.iter().copied()).filter(Result::is_err).count() as u64;
            for (kind, input) in [
                (LE, units_le(&units)),
                (BE, units.iter().flat_map(|u| u.to_be_bytes()).collect()),
            ] {
                let (text, end) = all_ways(kind, &input);
                assert!(text == expected.as_bytes(), "round {round}");
                assert_eq!(end.replaced, lone);
                assert_eq!(end.cut_at, None);
            }
        }
    }

    #[test]
    fn long_input_crosses_the_buffer() {
        // ASCII runs, non-ASCII and pairs around every buffer boundary.
        let mut s = String::new();
        let mut i = 0;
        while s.len() < 5 * OUT_BUF {
            s.push_str(["abcdefg", "é", "€x", "😀", "{\"k\":12}", " "][i % 6]);
            i += 1;
        }
        let (text, end) = all_ways(LE, &le(&s));
        assert!(text == s.as_bytes());
        assert_eq!(end.warnings(), Vec::<String>::new());
        let (text, _) = all_ways(BE, &be(&s));
        assert!(text == s.as_bytes());
    }

    #[test]
    fn a_sink_error_is_returned() {
        let mut decoder = Utf16Decoder::new(LE);
        assert_eq!(decoder.push(&le("[1]"), |_| Err("no")), Err("no"));
    }
}
