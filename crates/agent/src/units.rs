//! Numbers as DevTools' AI texts write them: durations and sizes through
//! `Intl.NumberFormat('en-US')` with a narrow unit after a non-breaking
//! space (`45 ms`, `392.8 kB`), JavaScript's `Math.round` and
//! `Number.prototype.toFixed`, and plain numbers as `String(x)` does.

pub use tracekit_engine::support::jsnum::js_number_string;

const NBSP: char = '\u{a0}';

/// JavaScript's `Math.round`: halves go up.
pub fn js_round(x: f64) -> f64 {
    tracekit_engine::support::jsnum::js_round(x)
}

/// A duration in microseconds: under 100 in µs, else as [`millis`].
pub fn micros(x: f64) -> String {
    if !x.is_finite() || x == f64::MAX {
        return "-".to_owned();
    }
    if x < 100.0 {
        return format!("{}{NBSP}μs", decimal(x, 0, 0));
    }
    millis(x / 1000.0)
}

/// A duration in milliseconds: a decimal under 1 ms, whole above.
pub fn millis(x: f64) -> String {
    if !x.is_finite() || x == f64::MAX {
        return "-".to_owned();
    }
    let digits = if x < 1.0 { 1 } else { 0 };
    format!("{}{NBSP}ms", decimal(x, 0, digits))
}

/// A size in bytes: `B` under a thousand, then `kB` and `MB` with a
/// decimal.
pub fn bytes(x: f64) -> String {
    if x < 1000.0 {
        return format!("{}{NBSP}B", decimal(x, 0, 0));
    }
    let kilobytes = x / 1000.0;
    if kilobytes < 1000.0 {
        return format!("{}{NBSP}kB", decimal(kilobytes, 0, 1));
    }
    format!("{}{NBSP}MB", decimal(kilobytes / 1000.0, 0, 1))
}

/// `x.toFixed(digits)`: the exact value rounded, an exact half up (away
/// from zero), as JavaScript does and Rust's `{:.N}` (half to even) does not.
pub fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return js_number_string(x);
    }
    // Every finite f64 has a finite decimal expansion: this many fraction
    // digits write it exactly.
    let exact = format!("{:.1100}", x.abs());
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    // toFixed keeps the sign of a negative number that rounds to zero.
    let sign = if x < 0.0 { "-" } else { "" };
    format!("{sign}{}", round_digits(false, int, frac, digits, digits))
}

/// `x` as `Intl.NumberFormat('en-US')` writes it: its shortest decimal
/// form rounded half away from zero to `max` fraction digits, trailing
/// zeros dropped down to `min`, thousands grouped.
pub fn decimal(x: f64, min: usize, max: usize) -> String {
    let text = format!("{}", x.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let out = round_digits(x.is_sign_negative() && x != 0.0, int, frac, min, max);
    let (sign, body) = out.strip_prefix('-').map_or(("", out.as_str()), |b| ("-", b));
    let (int, frac) = body.split_once('.').map_or((body, None), |(i, f)| (i, Some(f)));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// The decimal `int.frac` rounded half up to `max` fraction digits, then
/// trailing zeros dropped down to `min`; `-` in front when negative and
/// not zero once rounded.
fn round_digits(negative: bool, int: &str, frac: &str, min: usize, max: usize) -> String {
    let mut digits: Vec<u8> = int
        .bytes()
        .chain(frac.bytes().chain(std::iter::repeat(b'0')).take(max))
        .collect();
    let round_up = frac.as_bytes().get(max).is_some_and(|&d| d >= b'5');
    if round_up {
        let mut at = digits.len();
        loop {
            if at == 0 {
                digits.insert(0, b'1');
                break;
            }
            at -= 1;
            if digits[at] == b'9' {
                digits[at] = b'0';
            } else {
                digits[at] += 1;
                break;
            }
        }
    }
    let int_len = digits.len() - max;
    let mut frac_len = max;
    while frac_len > min && digits[int_len + frac_len - 1] == b'0' {
        frac_len -= 1;
    }
    let mut out = String::new();
    let zero = digits[..int_len + frac_len].iter().all(|&d| d == b'0');
    if negative && !zero {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[..int_len]).unwrap_or("0"));
    if frac_len > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[int_len..int_len + frac_len]).unwrap_or(""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_sizes_are_written_as_intl_does() {
        assert_eq!(micros(44_598.0), "45\u{a0}ms");
        assert_eq!(micros(99.5), "100\u{a0}μs");
        assert_eq!(micros(500.0), "0.5\u{a0}ms");
        assert_eq!(millis(1234.5), "1,235\u{a0}ms");
        assert_eq!(bytes(392_800.4), "392.8\u{a0}kB");
        assert_eq!(bytes(999.0), "999\u{a0}B");
        assert_eq!(bytes(2_450_000.0), "2.5\u{a0}MB");
    }

    #[test]
    fn to_fixed_rounds_exact_halves_up() {
        assert_eq!(to_fixed(0.125, 2), "0.13");
        assert_eq!(to_fixed(0.115, 2), "0.12");
        assert_eq!(to_fixed(1.005, 2), "1.00");
        assert_eq!(to_fixed(0.0, 2), "0.00");
        assert_eq!(to_fixed(0.10634, 4), "0.1063");
        assert_eq!(to_fixed(9.999, 2), "10.00");
    }
}
