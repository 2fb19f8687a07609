//! The selected range of the views ([`Window`]): a query's window placed
//! in the trace's bounds, in absolute ms.

use tracekit_engine::query::{self, Query};
use tracekit_engine::{Analysis, Bounds, Millis};

/// The selected range of the views, in ms (absolute, as the trace's
/// timestamps in ms): a [`Query`]'s window (relative to the trace
/// start) placed in the trace's bounds ([`Window::new`]). Infinite ends:
/// the trace has no bounds (an empty CPU profile); the views are then
/// empty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The start.
    pub start: Millis,
    /// The end.
    pub end: Millis,
}

impl Window {
    /// The window of the panel's tree views: the trace bounds by default,
    /// or `relative` (ms from the trace start) as
    /// `bounds.min / 1000 + A`, `bounds.min / 1000 + B`; an open end of
    /// `relative` is that of the trace bounds.
    pub fn new(bounds: Bounds, relative: Option<query::Window>) -> Window {
        let min = bounds.min.to_millis();
        let max = bounds.max.to_millis();
        match relative {
            Some(relative) => {
                let (a, b) = (relative.start(), relative.end());
                Window {
                    start: if a.is_finite() { min + a } else { min },
                    end: if b.is_finite() { min + b } else { max },
                }
            }
            None => Window { start: min, end: max },
        }
    }

    /// The window of `query` in the bounds of `analysis`.
    pub fn of(analysis: &Analysis, query: &Query) -> Window {
        Window::new(analysis.bounds(), query.window())
    }

    /// The window of `query`, which the aggregated views (Call Tree,
    /// Bottom-Up, Summary) need to hold time: `what` is what the caller
    /// does with it (`"aggregate"`, `"summarize"`).
    ///
    /// # Errors
    ///
    /// The message of an empty window, or of a trace without timed events.
    pub fn with_time(analysis: &Analysis, query: &Query, what: &str) -> Result<Window, String> {
        let window = Window::of(analysis, query);
        if !window.is_finite() {
            return Err(format!("the trace has no timed events, so no window to {what}"));
        }
        if window.end <= window.start {
            let lasts = analysis.bounds().range().to_millis().0;
            return Err(match query.window() {
                Some(asked) => format!("the window {asked} ms is empty; the trace lasts 0..{lasts:.3} ms"),
                None => format!("the trace lasts {lasts:.3} ms: no time to {what}"),
            });
        }
        Ok(window)
    }

    /// Whether the bounds were finite (a trace with a start).
    pub fn is_finite(&self) -> bool {
        self.start.is_finite() && self.end.is_finite()
    }

    /// How long it lasts (`end - start`).
    pub fn length(&self) -> Millis {
        self.end - self.start
    }
}
