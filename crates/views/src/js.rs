//! JavaScript's number semantics, which the walks reproduce to give
//! DevTools' numbers: `Math.min` / `Math.max` and truthiness.

pub(crate) use tracekit_engine::support::jsnum::{js_max, js_min};

/// JavaScript truthiness of a number.
pub(crate) fn truthy(x: f64) -> bool {
    x != 0.0 && !x.is_nan()
}
