//! Fast paths: models compiled to kernels that fit their structure.
//!
//! A uniform string (a 1D chain of equal masses joined by equal spring-dampers between two
//! anchors) needs no index lists: its symplectic Euler step is a three-point stencil
//! ([`chain`]). The kernel runs blocks of many steps at a time over cache-sized tiles (temporal
//! blocking), records pickups inside the loop, and runs tiles on several threads with results
//! identical to one thread. Small strings, which are latency-bound, run many voices at once with
//! the voices in the vector lanes ([`voices`]). Everything else runs through the general path
//! ([`crate::forces`] over edge lists).

pub mod chain;
pub mod grid;
mod real;
pub mod voices;

pub use real::Real;
