//! A structural JSON scanner: finds where values start and end without
//! decoding them. With it the tokenizer splits the top-level event array
//! into one byte range per event (so that events can be parsed
//! independently, in parallel, and a damaged event does not take the
//! others with it), and tells a truncated file from a corrupt one. It
//! never recurses, so no input depth can overflow the stack.

use memchr::memchr2;
use wide::u8x16;

/// Why a value could not be scanned. Offsets are into the bytes scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// The input ended inside a value: more input may complete it.
    UnexpectedEnd {
        /// The end of the input.
        offset: usize,
    },
    /// A byte that cannot stand where it stands: no more input can help.
    Unexpected {
        /// Where the byte is.
        offset: usize,
        /// The byte.
        found: u8,
    },
}

impl ScanError {
    /// Where scanning stopped.
    pub fn offset(&self) -> usize {
        match *self {
            ScanError::UnexpectedEnd { offset } | ScanError::Unexpected { offset, .. } => offset,
        }
    }

    /// What went wrong, for an error message ("unexpected end of input",
    /// "unexpected character '}'").
    pub fn describe(&self) -> String {
        match *self {
            ScanError::UnexpectedEnd { .. } => "unexpected end of input".to_owned(),
            ScanError::Unexpected { found, .. } => format!("unexpected {}", describe_byte(found)),
        }
    }
}

/// A byte for an error message: the character if it is printable ASCII,
/// else its hex value.
pub(crate) fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("character '{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// The offset of the first byte at or after `i` that is not JSON
/// whitespace (space, tab, line feed, carriage return), or `b.len()`.
#[inline]
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// `i` is at an opening quote; returns the offset just past the closing one.
pub(crate) fn skip_string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    scan_string(b, i).map(|(end, _)| end)
}

/// Like [`skip_string`], also telling whether the string has escapes.
pub(crate) fn scan_string(b: &[u8], i: usize) -> Result<(usize, bool), ScanError> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        match quote_or_backslash(b, j) {
            None => return Err(ScanError::UnexpectedEnd { offset: b.len() }),
            Some(at) => {
                if b[at] == b'"' {
                    return Ok((at + 1, escaped));
                }
                // A backslash escapes the next byte, whatever it is.
                escaped = true;
                j = at + 2;
                if j > b.len() {
                    return Err(ScanError::UnexpectedEnd { offset: b.len() });
                }
            }
        }
    }
}

/// The offset of the first `"` or `\` at or after `from`. Most strings
/// of an event (its name, its category) are short: their first 64 bytes
/// are compared 16 at a time, with no call and no set-up, which costs a
/// fraction of a general search's fixed price; a longer string's rest is
/// left to `memchr2`, faster over a long stretch.
#[inline]
fn quote_or_backslash(b: &[u8], from: usize) -> Option<usize> {
    let quote = u8x16::splat(b'"');
    let backslash = u8x16::splat(b'\\');
    let mut j = from;
    for _ in 0..4 {
        let Some(bytes) = b.get(j..j + 16).and_then(|s| <[u8; 16]>::try_from(s).ok()) else {
            break;
        };
        let lane = u8x16::new(bytes);
        let found = (lane.cmp_eq(quote) | lane.cmp_eq(backslash)).move_mask();
        if found != 0 {
            return Some(j + found.trailing_zeros() as usize);
        }
        j += 16;
    }
    let rest = b.get(j..).unwrap_or_default();
    memchr2(b'"', b'\\', rest).map(|k| j + k)
}

/// Whether `c` can be part of a number, `true`, `false` or `null` (that
/// is, it is neither structural, nor whitespace, nor a quote). A table: as
/// a `match`, it compiled to a jump through a table of code addresses for
/// every byte, the most taken line of `skip_value`.
#[inline]
pub(crate) fn is_scalar_byte(c: u8) -> bool {
    static ENDS_A_SCALAR: [bool; 256] = {
        let mut table = [false; 256];
        let ends = b",]}: \t\n\r\"[{";
        let mut k = 0;
        while k < ends.len() {
            table[ends[k] as usize] = true;
            k += 1;
        }
        table
    };
    !ENDS_A_SCALAR[usize::from(c)]
}

/// Bytes that matter when skipping a container: quotes and brackets.
#[cfg(test)]
static STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

/// Skips one JSON value starting at or after `start` (leading whitespace is
/// skipped) and returns the offset just past it. Nesting is tracked in a
/// bit stack (on the heap past 64 levels), never by recursion. Only
/// strings and brackets are checked: serde validates what is decoded.
pub fn skip_value(b: &[u8], start: usize) -> Result<usize, ScanError> {
    let mut i = skip_ws(b, start);
    if i >= b.len() {
        return Err(ScanError::UnexpectedEnd { offset: b.len() });
    }
    match b[i] {
        b'"' => return skip_string(b, i),
        b'{' | b'[' => {}
        c if is_scalar_byte(c) => {
            while i < b.len() && is_scalar_byte(b[i]) {
                i += 1;
            }
            return Ok(i);
        }
        c => return Err(ScanError::Unexpected { offset: i, found: c }),
    }
    skip_container(b, i)
}

/// The open containers of a [`skip_container`]: one bit per container (1 =
/// object), the first 64 in `bits`, deeper ones in `deeper`.
#[derive(Default)]
struct Nesting {
    depth: usize,
    bits: u64,
    deeper: Vec<bool>,
}

impl Nesting {
    fn open(&mut self, is_object: bool) {
        if self.depth < 64 {
            self.bits = (self.bits & !(1 << self.depth)) | (u64::from(is_object) << self.depth);
        } else {
            self.deeper.push(is_object);
        }
        self.depth += 1;
    }

    /// Closes the innermost container with `c` (`}` or `]`) at `i`; `Ok(true)`
    /// once none is open.
    fn close(&mut self, c: u8, i: usize) -> Result<bool, ScanError> {
        if self.depth == 0 {
            return Err(ScanError::Unexpected { offset: i, found: c });
        }
        self.depth -= 1;
        let was_object = if self.depth < 64 {
            self.bits >> self.depth & 1 == 1
        } else {
            self.deeper.pop() == Some(true)
        };
        if was_object != (c == b'}') {
            return Err(ScanError::Unexpected { offset: i, found: c });
        }
        Ok(self.depth == 0)
    }
}

/// How many bytes [`skip_container`] looks at at once.
const BLOCK_BYTES: usize = 64;

/// A block as four vectors of 16 bytes.
#[inline(always)]
fn lanes(block: &[u8; BLOCK_BYTES]) -> [u8x16; 4] {
    let lane = |k: usize| {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&block[16 * k..16 * k + 16]);
        u8x16::new(bytes)
    };
    [lane(0), lane(1), lane(2), lane(3)]
}

/// The bits of the bytes of a block equal to `c` (bit k for byte k).
#[inline(always)]
fn byte_mask(lanes: &[u8x16; 4], c: u8) -> u64 {
    let needle = u8x16::splat(c);
    lanes.iter().enumerate().fold(0, |mask, (k, lane)| {
        // `move_mask` sets the low 16 bits only: one per byte.
        #[allow(clippy::cast_sign_loss)]
        let bits = lane.cmp_eq(needle).move_mask() as u64 & 0xffff;
        mask | bits << (16 * k)
    })
}

/// The lanes with bit 5 set in every byte: `[` (0x5b) and `{` (0x7b) both
/// become `{`, `]` and `}` both `}`, and no other byte becomes either, so
/// that one comparison finds both kinds of bracket.
#[inline(always)]
fn fold_brackets(lanes: &[u8x16; 4]) -> [u8x16; 4] {
    let bit = u8x16::splat(0x20);
    [lanes[0] | bit, lanes[1] | bit, lanes[2] | bit, lanes[3] | bit]
}

/// Each bit set from a set bit of `x` up to (not including) the next
/// one: the bytes inside strings, given the quotes.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Skips the object or array whose bracket is at `i`; returns the offset
/// just past its closing one. Blocks of 64 bytes without a backslash (most
/// of them) are read a block at a time: their quotes, brackets and braces
/// as bit masks, the strings found from the quotes, and only the brackets
/// outside strings looked at one by one. Any other block goes byte by
/// byte. Both ways find the same end and the same error.
pub(crate) fn skip_container(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let mut nesting = Nesting::default();
    nesting.open(b[i] == b'{');
    let mut i = i + 1;
    let mut in_string = false;
    while i < b.len() {
        if let Some(block) = b
            .get(i..i + BLOCK_BYTES)
            .and_then(|s| <&[u8; BLOCK_BYTES]>::try_from(s).ok())
        {
            let lanes = lanes(block);
            if byte_mask(&lanes, b'\\') == 0 {
                let quotes = byte_mask(&lanes, b'"');
                let strings = prefix_xor(quotes) ^ if in_string { u64::MAX } else { 0 };
                let folded = fold_brackets(&lanes);
                let opens = byte_mask(&folded, b'{');
                let closes = byte_mask(&folded, b'}');
                let mut brackets = (opens | closes) & !strings;
                while brackets != 0 {
                    let k = brackets.trailing_zeros() as usize;
                    brackets &= brackets - 1;
                    let c = block[k];
                    if opens >> k & 1 == 1 {
                        nesting.open(c == b'{');
                    } else if nesting.close(c, i + k)? {
                        return Ok(i + k + 1);
                    }
                }
                in_string ^= quotes.count_ones() % 2 == 1;
                i += BLOCK_BYTES;
                continue;
            }
        }
        // Byte by byte to the end of this block (or a byte past it, after
        // an escape).
        let stop = (i + BLOCK_BYTES).min(b.len());
        while i < stop {
            let c = b[i];
            if in_string {
                match c {
                    // A backslash escapes the next byte, whatever it is.
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else {
                match c {
                    b'"' => in_string = true,
                    b'{' | b'[' => nesting.open(c == b'{'),
                    b'}' | b']' if nesting.close(c, i)? => return Ok(i + 1),
                    _ => {}
                }
            }
            i += 1;
        }
    }
    Err(ScanError::UnexpectedEnd { offset: b.len() })
}

/// [`skip_container`] as it was, a byte (or a string) at a time: the
/// reference the tests hold it to.
#[cfg(test)]
fn skip_container_bytewise(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
    let mut nesting = Nesting::default();
    loop {
        while i < b.len() && !STRUCTURAL[b[i] as usize] {
            i += 1;
        }
        if i >= b.len() {
            return Err(ScanError::UnexpectedEnd { offset: b.len() });
        }
        match b[i] {
            b'"' => {
                i = skip_string(b, i)?;
                continue;
            }
            c @ (b'{' | b'[') => nesting.open(c == b'{'),
            c if nesting.close(c, i)? => return Ok(i + 1),
            _ => {}
        }
        i += 1;
    }
}

/// How the scan of an array ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArrayEnd {
    /// The closing `]` was found; the offset is just past it.
    Closed { after: usize },
    /// The input ended before the array did (the trace event format allows
    /// the closing `]` to be missing). `offset` is where the first
    /// incomplete element starts, or the end of the input.
    Truncated { offset: usize },
    /// Bytes that cannot continue the array: loading stops there.
    Damaged { offset: usize, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_backslashes_are_found_where_they_are() {
        // Every length up to past the vectors' reach, the byte sought at
        // every place (or nowhere), searched from the first few offsets.
        for len in 0..150 {
            for at in 0..=len {
                for sought in [b'"', b'\\'] {
                    let mut text = vec![b'a'; len];
                    if at < len {
                        text[at] = sought;
                    }
                    for from in 0..4.min(len + 1) {
                        let expected = text[from..]
                            .iter()
                            .position(|&c| c == b'"' || c == b'\\')
                            .map(|k| from + k);
                        assert_eq!(quote_or_backslash(&text, from), expected, "{len} {at} {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn skips_nested_values_and_strings() {
        let src = r#" {"a":[1,{"b":"x]}\"{"}]} , 2"#;
        assert_eq!(skip_value(src.as_bytes(), 0), Ok(src.find(" ,").unwrap()));
        assert_eq!(skip_value(b"2 ,", 0), Ok(1));
    }

    #[test]
    fn tells_the_end_of_input_from_damage() {
        assert_eq!(skip_value(br#"{"a":"#, 0), Err(ScanError::UnexpectedEnd { offset: 5 }));
        assert_eq!(
            skip_value(br#"{"a":1]"#, 0),
            Err(ScanError::Unexpected { offset: 6, found: b']' })
        );
        assert_eq!(skip_value(b"\"abc\\", 0), Err(ScanError::UnexpectedEnd { offset: 5 }));
    }

    /// The block-at-a-time skipper finds what the byte-by-byte one finds,
    /// end or error, on soups of the bytes that matter (strings, escapes,
    /// brackets of both kinds, mismatches, deep nesting, cuts anywhere).
    #[test]
    fn containers_are_skipped_a_block_at_a_time_as_byte_by_byte() {
        const ALPHABET: &[u8] = b"{}[]\"\"\"\\a ,:{[";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for round in 0..4000 {
            let below = |n: usize, x: u64| usize::try_from(x % n as u64).unwrap();
            let len = 1 + below(if round % 10 == 0 { 2000 } else { 300 }, next());
            // Mostly plain text, as in args; the bytes that matter now and then.
            let dense = next() % 4;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if next() % 8 < dense {
                        ALPHABET[below(ALPHABET.len(), next())]
                    } else {
                        b'x'
                    }
                })
                .collect();
            for (i, &c) in text.iter().enumerate() {
                if c == b'{' || c == b'[' {
                    assert_eq!(
                        skip_container(&text, i),
                        skip_container_bytewise(&text, i),
                        "{:?} from {i}",
                        String::from_utf8_lossy(&text)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
        // Deep and long: past 64 levels, over several blocks.
        for depth in [1, 63, 64, 65, 200] {
            let body = format!("{}\"a\\\"]}}\"{}", "[{\"k\":".repeat(depth), "}]".repeat(depth));
            let text = format!("[{body}{}", " ".repeat(100));
            for cut in 0..=text.len() {
                let b = &text.as_bytes()[..cut];
                if cut > 0 {
                    assert_eq!(
                        skip_container(b, 0),
                        skip_container_bytewise(b, 0),
                        "{depth} cut at {cut}"
                    );
                }
            }
        }
    }

    #[test]
    fn folding_finds_brackets_and_nothing_else() {
        for c in 0..=u8::MAX {
            let folded = fold_brackets(&[u8x16::splat(c); 4])[0].to_array()[0];
            assert_eq!(folded == b'{', c == b'{' || c == b'[', "{c:#x}");
            assert_eq!(folded == b'}', c == b'}' || c == b']', "{c:#x}");
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let depth = 200_000;
        let src = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(skip_value(src.as_bytes(), 0), Ok(src.len()));
        assert_eq!(
            skip_value(&src.as_bytes()[..depth], 0),
            Err(ScanError::UnexpectedEnd { offset: depth })
        );
    }
}
