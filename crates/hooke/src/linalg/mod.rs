//! Linear algebra: matrices assembled entry by entry (sparse, or dense for small systems) and
//! their LU solves, the dense matrix exponential, and eigenvalues in bounded time.

pub mod dense;
pub mod eigen;
pub mod expm;
pub mod sparse;

/// A matrix that the force kernels assemble entry by entry: the implicit schemes' Jacobians,
/// the stiffness and damping matrices of the analysis. Entries at the same position add up.
pub trait Assemble {
    /// Adds `value` at (`row`, `col`); entries outside the matrix (the coordinates of anchors,
    /// which do not move) are dropped.
    fn add(&mut self, row: usize, col: usize, value: f64);
}

/// Why a factorisation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FactorError {
    /// The matrix is singular to working precision.
    #[error("the {n} x {n} system matrix is singular")]
    Singular {
        /// Its size.
        n: usize,
    },
    /// faer could not build or factor the matrix (memory, index overflow).
    #[error("sparse factorisation failed: {0}")]
    Internal(String),
}
