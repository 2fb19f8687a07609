//! Tests of the PageLoadMetrics handler.
