//! JavaScript's number semantics, which the walks reproduce to give
//! DevTools' numbers: `Math.min` / `Math.max` and truthiness.

/// JavaScript's `Math.min` / `Math.max` (NaN wins).
pub(crate) fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

pub(crate) fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// JavaScript truthiness of a number.
pub(crate) fn truthy(x: f64) -> bool {
    x != 0.0 && !x.is_nan()
}
