//! Units of time. Traces count in microseconds, CPU profile models and
//! people in milliseconds, legacy profiles in seconds; a bare `f64` says
//! none of that. Every conversion is one of the methods here, with the
//! arithmetic DevTools does at the same place (multiplying or dividing by
//! 1000 as it does, so that results stay bit-identical to its own).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

macro_rules! unit {
    ($(#[$doc:meta])* $name:ident, $suffix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, PartialOrd)]
        pub struct $name(pub f64);

        impl $name {
            /// Zero.
            pub const ZERO: $name = $name(0.0);

            /// The larger of two times (JavaScript's `Math.max` for finite values).
            pub fn max(self, other: $name) -> $name {
                $name(self.0.max(other.0))
            }

            /// The smaller of two times.
            pub fn min(self, other: $name) -> $name {
                $name(self.0.min(other.0))
            }

            /// Whether the value is neither infinite nor NaN.
            pub fn is_finite(self) -> bool {
                self.0.is_finite()
            }
        }

        impl Add for $name {
            type Output = $name;
            fn add(self, other: $name) -> $name {
                $name(self.0 + other.0)
            }
        }

        impl AddAssign for $name {
            fn add_assign(&mut self, other: $name) {
                self.0 += other.0;
            }
        }

        impl Sub for $name {
            type Output = $name;
            fn sub(self, other: $name) -> $name {
                $name(self.0 - other.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", self.0, $suffix)
            }
        }
    };
}

unit!(
    /// Microseconds: the unit of trace event timestamps and of the tracks.
    ///
    /// ```
    /// # use tracekit_events::Micros;
    /// let duration = Micros(1500.0);
    /// assert_eq!(duration.to_millis().0, 1.5);
    /// assert_eq!((Micros(10.0) + duration).0, 1510.0);
    /// assert_eq!(duration.to_string(), "1500 µs");
    /// ```
    Micros,
    "µs"
);
unit!(
    /// Milliseconds: the unit of CPU profile models and of what people read.
    Millis,
    "ms"
);
unit!(
    /// Seconds: the unit of the start and end of legacy (`head`) profiles.
    Seconds,
    "s"
);

impl Micros {
    /// In milliseconds (`x / 1000`).
    pub fn to_millis(self) -> Millis {
        Millis(self.0 / 1000.0)
    }

    /// In nanoseconds (`x * 1000`), as pprof and Perfetto count time.
    pub fn to_nanos(self) -> f64 {
        self.0 * 1000.0
    }
}

impl Millis {
    /// In microseconds (`x * 1000`).
    pub fn to_micros(self) -> Micros {
        Micros(self.0 * 1000.0)
    }
}

impl Seconds {
    /// In milliseconds (`x * 1000`), as DevTools' profile model counts a
    /// legacy profile's start and end.
    pub fn to_millis(self) -> Millis {
        Millis(self.0 * 1000.0)
    }

    /// In microseconds (`x * 1e6`), as DevTools' fake event spans a legacy
    /// profile.
    pub fn to_micros(self) -> Micros {
        Micros(self.0 * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_do_devtools_arithmetic() {
        assert_eq!(Micros(1500.0).to_millis(), Millis(1.5));
        assert_eq!(Millis(1.5).to_micros(), Micros(1500.0));
        assert_eq!(Micros(1.5).to_nanos(), 1500.0);
        assert_eq!(Seconds(2.5).to_millis(), Millis(2500.0));
        assert_eq!(Seconds(2.5).to_micros(), Micros(2_500_000.0));
        // Not the same as going through milliseconds: each path keeps its
        // own rounding, as DevTools' does.
        let s = Seconds(0.1 + 0.2);
        assert_eq!(s.to_micros().0, (0.1 + 0.2) * 1e6);
        assert_eq!(Micros(3.0) - Micros(1.0) + Micros(0.5), Micros(2.5));
        assert_eq!(Millis(2.0).to_string(), "2 ms");
    }
}
