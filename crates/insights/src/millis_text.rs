//! A duration in words as DevTools' `millisToString` writes it in its
//! English locale (`999 ms`, `1.12 s`, `2.5 min`, ...; a non-breaking
//! space before the unit), for the labels of the insights' checklists.

/// DevTools' `millisToString(ms)` (not the higher resolution).
pub(crate) fn millis_to_string(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".to_owned();
    }
    if ms < 1000.0 {
        return with_unit(ms, 0, 0, "ms");
    }
    let seconds = ms / 1000.0;
    if seconds < 60.0 {
        return with_unit(seconds, 2, 2, "s");
    }
    let minutes = seconds / 60.0;
    if minutes < 60.0 {
        return with_unit(minutes, 0, 1, "min");
    }
    let hours = minutes / 60.0;
    if hours < 24.0 {
        return with_unit(hours, 0, 1, "hr");
    }
    let days = hours / 24.0;
    let number = decimal(days, 0, 1);
    let unit = if number == "1" { "day" } else { "days" };
    format!("{number}\u{a0}{unit}")
}

fn with_unit(x: f64, min_digits: usize, max_digits: usize, unit: &str) -> String {
    format!("{}\u{a0}{unit}", decimal(x, min_digits, max_digits))
}

/// `x` as `Intl.NumberFormat('en-US')` writes it: rounded half away from
/// zero on its shortest decimal form to `max_digits` fraction digits,
/// trailing zeros dropped down to `min_digits`, thousands grouped.
pub(crate) fn decimal(x: f64, min_digits: usize, max_digits: usize) -> String {
    let negative = x.is_sign_negative();
    let text = format!("{}", x.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let int_len = int.len();
    let keep = int_len + max_digits;
    let round_up = digits.get(keep).is_some_and(|&d| d >= 5);
    digits.resize(keep, 0);
    if round_up {
        let mut at = keep;
        loop {
            if at == 0 {
                digits.insert(0, 1);
                break;
            }
            at -= 1;
            if digits[at] == 9 {
                digits[at] = 0;
            } else {
                digits[at] += 1;
                break;
            }
        }
    }
    let int_len = digits.len() - max_digits;
    let mut frac: Vec<u8> = digits[int_len..].to_vec();
    while frac.len() > min_digits && frac.last() == Some(&0) {
        frac.pop();
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    for (i, d) in digits[..int_len].iter().enumerate() {
        if i > 0 && (int_len - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(char::from(b'0' + d));
    }
    if !frac.is_empty() {
        out.push('.');
        out.extend(frac.iter().map(|d| char::from(b'0' + d)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::millis_to_string;

    #[test]
    fn durations_are_written_in_the_unit_devtools_picks() {
        assert_eq!(millis_to_string(0.0), "0\u{a0}ms");
        assert_eq!(millis_to_string(999.5), "1,000\u{a0}ms");
        assert_eq!(millis_to_string(1121.0), "1.12\u{a0}s");
        assert_eq!(millis_to_string(1125.0), "1.13\u{a0}s");
        assert_eq!(millis_to_string(2000.0), "2.00\u{a0}s");
        assert_eq!(millis_to_string(150_000.0), "2.5\u{a0}min");
        assert_eq!(millis_to_string(3_600_000.0), "1\u{a0}hr");
        assert_eq!(millis_to_string(86_400_000.0), "1\u{a0}day");
        assert_eq!(millis_to_string(-5.0), "-5\u{a0}ms");
        assert_eq!(millis_to_string(f64::NAN), "-");
    }
}
