//! Linear algebra: sparse assembly and solves, and the dense matrix exponential.

pub mod expm;
pub mod sparse;
