//! Why an analysis could not be completed.

use crate::linalg::sparse::FactorError;
use crate::model::{quoted, tidy, ModelError};
use crate::scheme::SchemeError;

/// An analysis that could not be carried out, with the figures that show why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    /// The model has no moving mass, so it has no mode.
    #[error("the model has no mass, so it has no mode to analyse")]
    NoMasses,
    /// A given linearisation state does not fit the system.
    #[error("the state to linearise about has {found} position entries; the system has {expected}")]
    StateSize {
        /// Entries the system needs (every node's coordinates).
        expected: usize,
        /// Entries given.
        found: usize,
    },
    /// The stiffness or damping matrix is not finite in the linearisation state.
    #[error(
        "the {matrix} matrix is not finite at mass {} in the state linearised about (a geometric \
         spring or damper of zero length has no direction)",
        quoted(mass)
    )]
    NonFinite {
        /// `stiffness` or `damping`.
        matrix: &'static str,
        /// The mass whose row holds the first non-finite entry.
        mass: String,
    },
    /// The search for the static equilibrium did not converge.
    #[error(
        "no rest state found: after {iterations} iterations the largest force is still {force:e} N \
         (the potential may have no minimum near the initial positions, e.g. a mass falling freely)"
    )]
    NoRestState {
        /// Iterations done.
        iterations: usize,
        /// The largest remaining force component, N.
        force: f64,
    },
    /// A dense eigenvalue computation failed to converge.
    #[error("the {size} x {size} eigenvalue problem did not converge")]
    Eigen {
        /// The matrix size.
        size: usize,
    },
    /// A sparse factorisation failed.
    #[error("{0}")]
    Factor(#[from] FactorError),
    /// The scheme cannot be built for the system at the step analysed ([`SchemeKind::build`]
    /// says why, with the figures).
    ///
    /// [`SchemeKind::build`]: crate::scheme::SchemeKind::build
    #[error("the scheme cannot be analysed at this step: {0}")]
    Refused(SchemeError),
    /// The scheme could not take a step while its one-step matrix was measured.
    #[error("the scheme failed while its one-step matrix was measured: {0}")]
    Scheme(#[from] SchemeError),
    /// A model built by the analysis (an oscillator bank, a designed or tuned model) broke a
    /// model rule.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// A design or tuning target that is not a positive finite number, or that the scheme cannot
    /// reach.
    #[error("{}", tidy(.0))]
    Target(String),
    /// A design the scheme reaches only at a shorter step (its warping outweighs what the design
    /// can correct at this one).
    #[error("{}", tidy(.0))]
    StepTooLong(String),
    /// An iterative design or tuning did not converge.
    #[error("{what} did not converge in {iterations} iterations (residual {residual:e})")]
    NoConvergence {
        /// What was iterated.
        what: &'static str,
        /// Iterations done.
        iterations: usize,
        /// The last residual.
        residual: f64,
    },
}
