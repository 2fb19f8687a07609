//! Files other tools and people read, made from an [`crate::Analysis`]:
//! each format is a module of its own, which builds its output in memory
//! (no I/O) and honours an [`crate::output::Filter`].

pub mod chart;
