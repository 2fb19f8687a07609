//! Numbers printed the way JavaScript prints them, so that our output is
//! byte-identical to what the DevTools engine writes with `JSON.stringify`.

use std::fmt::Write;

/// Appends `x` formatted as JavaScript's `Number.prototype.toString` does
/// (which is also what `JSON.stringify` writes, except that non-finite
/// numbers become `null` there: use [`write_json_number`] for JSON).
pub fn write_js_number(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if x == 0.0 {
        // Both 0 and -0 print as "0".
        out.push('0');
        return;
    }
    if x.fract() == 0.0 && x.abs() < 1e21 {
        if x.abs() < 9.007_199_254_740_992e15 {
            // An integer below 2^53 in magnitude: exact in i64.
            #[allow(clippy::cast_possible_truncation)]
            let integer = x as i64;
            out.push_str(itoa::Buffer::new().format(integer));
        } else {
            // JavaScript writes the shortest digits that round-trip, then
            // zeros: 7553219843432160451 prints as 7553219843432160000.
            let mut buf = ryu::Buffer::new();
            let shortest = buf.format_finite(x);
            let shortest = shortest.strip_suffix(".0").unwrap_or(shortest);
            match shortest.split_once('e') {
                None => out.push_str(shortest),
                Some((mantissa, exponent)) => {
                    let exponent: usize = exponent.parse().unwrap_or(0);
                    let (sign, mantissa) = match mantissa.strip_prefix('-') {
                        Some(m) => ("-", m),
                        None => ("", mantissa),
                    };
                    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
                    out.push_str(sign);
                    out.push_str(&digits);
                    for _ in digits.len()..=exponent {
                        out.push('0');
                    }
                }
            }
        }
        return;
    }
    let abs = x.abs();
    if (1e-5..1e16).contains(&abs) {
        // ryu writes this range positionally, with the shortest digits that
        // round-trip: what JavaScript writes.
        out.push_str(ryu::Buffer::new().format_finite(x));
        return;
    }
    if (1e-6..1e21).contains(&abs) {
        // Rust's shortest round-trip formatting in positional notation is the
        // same digit string JavaScript uses in this range.
        let _ = write!(out, "{x}");
        return;
    }
    // Exponential notation: JavaScript writes `1.5e-7`, `1e+21`.
    let formatted = format!("{x:e}");
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
    out.push_str(mantissa);
    out.push('e');
    if !exponent.starts_with('-') {
        out.push('+');
    }
    out.push_str(exponent);
}

/// Like [`write_js_number`] but as `JSON.stringify` writes it: non-finite
/// numbers become `null`.
pub fn write_json_number(out: &mut String, x: f64) {
    if x.is_finite() {
        write_js_number(out, x);
    } else {
        out.push_str("null");
    }
}

/// `round3(x)` as `JSON.stringify` writes it ([`write_json_number`]), the
/// way most times of the outputs are written; faster than the general
/// formatter for the usual times (below 10^12 µs, 11.6 days).
///
/// Why the digits are the same: `round3(x)` is the double nearest to
/// `k / 1000` for the integer `k = Math.round(x * 1000)`. Below 2^40 two
/// doubles are less than 0.001 apart, so `k / 1000` is the one decimal of
/// at most 3 decimals that reads back as that double, hence the shortest
/// one, which is what JavaScript prints.
pub fn write_json_number_round3(out: &mut String, x: f64) {
    let scaled = x * 1000.0;
    if (0.0..1e15).contains(&scaled) {
        // The usual time: `Math.round` of a positive number below 2^53 is
        // its truncation, plus one when what was cut is a half or more
        // (`scaled - whole` is exact); no call to `floor`.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = scaled as u64;
        #[allow(clippy::cast_precision_loss)] // below 2^53: exact
        let half_up = scaled - whole as f64 >= 0.5;
        write_thousandths(out, whole + u64::from(half_up));
        return;
    }
    let k = js_round(scaled);
    if !k.is_finite() || k.abs() > 1e15 {
        // Too large, or not finite: the general formatter.
        write_json_number(out, k / 1000.0);
        return;
    }
    // Whole and below 2^53: exact as an integer.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let thousandths = k.abs() as u64;
    if k < 0.0 {
        out.push('-');
    }
    write_thousandths(out, thousandths);
}

/// `thousandths / 1000` in decimal, with no trailing zero after the
/// point: the integer part, then up to 3 decimals written at once.
fn write_thousandths(out: &mut String, thousandths: u64) {
    out.push_str(itoa::Buffer::new().format(thousandths / 1000));
    #[allow(clippy::cast_possible_truncation)] // below 1000
    let fraction = (thousandths % 1000) as u16;
    if fraction != 0 {
        let digit = |d: u16| char::from(b'0' + (d % 10) as u8);
        out.push('.');
        out.push(digit(fraction / 100));
        if !fraction.is_multiple_of(100) {
            out.push(digit(fraction / 10));
            if !fraction.is_multiple_of(10) {
                out.push(digit(fraction));
            }
        }
    }
}

/// `x` as JavaScript's `String(x)` gives it: [`write_js_number`] into a
/// new string. This is also the property key JavaScript makes of a number.
pub fn js_number_string(x: f64) -> String {
    let mut s = String::new();
    write_js_number(&mut s, x);
    s
}

/// JavaScript's `Math.min` of two numbers: `NaN` when either is (Rust's
/// `f64::min` would give the other).
pub fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// JavaScript's `Math.max` of two numbers: `NaN` when either is.
pub fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// JavaScript's `Math.round`: halves round towards positive infinity.
pub fn js_round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let floor = x.floor();
    // `x - floor` is exact for every finite double, so this is the
    // mathematically correct rounding (unlike `(x + 0.5).floor()`).
    if x - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// Rounds microseconds to 3 decimals the way the conformance dump does:
/// `Math.round(x * 1000) / 1000`.
pub fn round3(x: f64) -> f64 {
    js_round(x * 1000.0) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_javascript() {
        for (x, s) in [
            (0.0, "0"),
            (-0.0, "0"),
            (5.0, "5"),
            (-12.0, "-12"),
            (1.5, "1.5"),
            (123456789012.345, "123456789012.345"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(js_number_string(x), s, "{x}");
        }
    }

    #[test]
    // The ties are written exactly (187918760082650.625), not as their
    // shortest round-trip form.
    #[allow(clippy::excessive_precision)]
    fn picks_the_even_digit_on_ties_as_v8_does() {
        // Written by V8's `String(x)`.
        for (x, s) in [
            (187918760082650.625, "187918760082650.62"),
            (123456789012345.6, "123456789012345.6"),
            (1234567890123456.5, "1234567890123456.5"),
            (0.000015, "0.000015"),
            (0.00012345, "0.00012345"),
            (1e16 + 2.0, "10000000000000002"),
            (7553219843432160451.0, "7553219843432160000"),
            (-1.5e20, "-150000000000000000000"),
            (9007199254740993.0, "9007199254740992"),
        ] {
            assert_eq!(js_number_string(x), s);
        }
    }

    #[test]
    fn rounded_times_are_written_as_the_general_formatter_writes_them() {
        let general = |x: f64| {
            let mut s = String::new();
            write_json_number(&mut s, round3(x));
            s
        };
        let fast = |x: f64| {
            let mut s = String::new();
            write_json_number_round3(&mut s, x);
            s
        };
        let mut values = vec![
            0.0,
            -0.0,
            0.0004,
            -0.0004,
            0.0005,
            -0.0005,
            0.001,
            0.01,
            0.1,
            1.0,
            1.5,
            12.3456789,
            100.1,
            -100.1,
            999.9995,
            1e12,
            1e12 + 0.001,
            1e12 - 0.001,
            1e12 - 0.0005,
            1e12 - 0.0004,
            2.0005,
            2.0004999,
            1.0995e12,
            2e12,
            9.5e15,
            1e16,
            1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        // Times of every magnitude a trace has, with every last digit.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            #[allow(clippy::cast_precision_loss)]
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            let magnitude = 10f64.powi(i32::try_from(state % 17).unwrap_or(0) - 4);
            let x = unit * magnitude;
            values.push(x);
            values.push(-x);
            values.push(round3(x));
        }
        for x in values {
            assert_eq!(fast(x), general(x), "{x:?}");
        }
    }

    #[test]
    fn rounds_like_math_round() {
        assert_eq!(js_round(2.5), 3.0);
        assert_eq!(js_round(-2.5), -2.0);
        assert_eq!(js_round(0.49999999999999994), 0.0);
        assert_eq!(round3(1.0005), 1.001);
        assert_eq!(round3(12.3456789), 12.346);
    }
}
