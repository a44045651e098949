//! Newton's method for the implicit schemes: a simplified Newton iteration on a dense Jacobian
//! for small systems, full Newton on a sparse Jacobian for large ones.
//!
//! Full Newton (`s <- s - J(s)^-1 R(s)`, Deuflhard 2004) assembles and factors `J` at every
//! iteration. On a network of a few masses that is most of the cost of a step, while `J`
//! (`M + c_D h D + c_K h^2 K`, see [`super::implicit`]) changes little from one step to the next.
//! The dense path therefore runs the simplified Newton iteration `s <- s - J_0^-1 R(s)` with a
//! factorisation `J_0` kept across iterations and steps (Hairer & Wanner 1996, section IV.8):
//!
//! - it converges linearly, with the contraction `theta_k = |update_k| / |update_{k-1}|`, so
//!   the update understates the error left; the iteration stops when the estimate of that
//!   error, `theta / (1 - theta) |update_k|` (Hairer & Wanner 1996, section IV.8), is below the
//!   tolerance, which needs two updates with one factorisation (or one, when `J_0` is the
//!   Jacobian at the very point it is applied to: that update is a Newton step, and full
//!   Newton's test applies);
//! - when `theta >= 1/2` (too slow, or diverging) the update is dropped and `J` is assembled and
//!   factored again at the current point, so the next update is a Newton step; after
//!   [`ITERATIONS_PER_FACTORISATION`] iterations with one factorisation, too;
//! - a solve that ended with `theta > 1e-5` leaves the factorisation stale, and the next one
//!   starts by refactoring at its initial guess. (Hairer & Wanner keep the Jacobian while
//!   `theta < 1e-3`, for Jacobians that cost much to evaluate; on the few unknowns of this path
//!   a fresh factorisation costs about one iteration, and keeping `theta` this small lets two
//!   iterations reach round-off.)
//!
//! So the result agrees with full Newton's to the tolerance. Both paths solve an affine problem
//! (a linear network) with one factorisation in all and one substitution per step.

use super::SchemeError;
use crate::linalg::dense::DenseMatrix;
use crate::linalg::sparse::SparseMatrix;
use crate::linalg::Assemble;

/// Newton stops when the update (full Newton) or the estimated error (simplified Newton) is
/// below this fraction of the unknown (max norms).
pub const TOLERANCE: f64 = 1e-13;
/// Newton gives up after this many iterations.
pub const MAX_ITERATIONS: usize = 50;
/// The largest number of unknowns [`LinearSolver::Automatic`] solves on the dense path.
pub const DENSE_LIMIT: usize = 64;
/// The simplified iteration stops when its error estimate is below this fraction of the
/// unknown: a few units of round-off, since the schemes' velocities (`2 s / h - v_n`) read every
/// digit of `s`.
const ROUND_OFF: f64 = 4.0 * f64::EPSILON;
/// A factorisation serves the next step only if the last contraction was at most this (module
/// documentation).
const THETA_REUSE: f64 = 1e-5;
/// A contraction this slow (or a divergence) refactors at the current point.
const THETA_REFACTOR: f64 = 0.5;
/// Iterations with one factorisation before it is refreshed at the current point.
const ITERATIONS_PER_FACTORISATION: usize = 8;

/// Which linear algebra the Newton iteration of an implicit scheme runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinearSolver {
    /// Dense up to [`DENSE_LIMIT`] unknowns (moving coordinates), sparse above.
    #[default]
    Automatic,
    /// A dense Jacobian, LU with partial pivoting, simplified Newton (module documentation).
    Dense,
    /// A sparse Jacobian (faer's sparse LU), full Newton.
    Sparse,
}

/// What an implicit scheme's solves have cost so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolverStats {
    /// Nonlinear solves (one per step).
    pub solves: u64,
    /// Newton iterations (residual evaluations and substitutions), over all solves.
    pub iterations: u64,
    /// Jacobian assemblies and factorisations, over all solves.
    pub factorisations: u64,
}

/// The Jacobian's storage (the sparse matrix, with its symbolic analysis, boxed).
#[derive(Debug)]
enum Jacobian {
    Dense(DenseMatrix),
    Sparse(Box<SparseMatrix>),
}

/// Solves `R(s) = 0` by Newton's method; see the module documentation.
#[derive(Debug)]
pub struct Newton {
    jacobian: Jacobian,
    residual: Vec<f64>,
    linear: bool,
    /// Whether the factorisation in `jacobian` may be used.
    factored: bool,
    stats: SolverStats,
}

impl Newton {
    /// A solver for `n` unknowns; `linear` when `R` is affine in `s`.
    pub fn new(n: usize, linear: bool, solver: LinearSolver) -> Self {
        let dense = match solver {
            LinearSolver::Automatic => n <= DENSE_LIMIT,
            LinearSolver::Dense => true,
            LinearSolver::Sparse => false,
        };
        let jacobian = if dense {
            Jacobian::Dense(DenseMatrix::new(n))
        } else {
            Jacobian::Sparse(Box::new(SparseMatrix::new(n)))
        };
        Self { jacobian, residual: vec![0.0; n], linear, factored: false, stats: SolverStats::default() }
    }

    /// Forgets the factorisation (the matrices it came from changed), `linear` as `R` is now.
    pub fn forget(&mut self, linear: bool) {
        (self.linear, self.factored) = (linear, false);
    }

    /// What the solves have cost so far.
    pub fn stats(&self) -> SolverStats {
        self.stats
    }

    /// Improves `s` (the initial guess) until `R(s) = 0` to `TOLERANCE |s| + floor` (max norms;
    /// `floor` is the size below which an update no longer matters to the caller, such as the
    /// round-off of the positions `s` is added to). `residual(s, out)` writes `R(s)`;
    /// `jacobian(s, matrix)` adds the entries of `dR/ds` to a cleared matrix. Returns the number
    /// of iterations, or an error with the residual and update norms when it does not converge.
    pub fn solve(
        &mut self,
        s: &mut [f64],
        floor: f64,
        mut residual: impl FnMut(&[f64], &mut [f64]),
        mut jacobian: impl FnMut(&[f64], &mut dyn Assemble),
    ) -> Result<usize, SchemeError> {
        self.stats.solves += 1;
        let simplified = matches!(self.jacobian, Jacobian::Dense(_));
        // Whether the factorisation is the Jacobian at the point the next update starts from.
        let mut fresh = false;
        // The last update made with the current factorisation, and how many it made.
        let mut previous: Option<f64> = None;
        let mut with_this = 0;
        let mut last_update = f64::NAN;
        for iteration in 1..=MAX_ITERATIONS {
            let refactor = !self.factored
                || (!self.linear && !simplified)
                || (simplified && with_this >= ITERATIONS_PER_FACTORISATION);
            if refactor {
                self.factor_at(s, &mut jacobian, iteration)?;
                (fresh, previous, with_this) = (true, None, 0);
            }
            residual(s, &mut self.residual);
            self.substitute();
            self.stats.iterations += 1;
            with_this += 1;
            // Not finite when the residual is not (substitution spreads a NaN or an infinity).
            let update = max_norm(&self.residual);
            last_update = update;
            if !update.is_finite() {
                break;
            }
            let theta = previous.map(|p| update / p);
            if theta.is_some_and(|theta| theta >= THETA_REFACTOR) {
                // Too slow or diverging: the update is dropped, and the next iteration takes a
                // Newton step from here with the Jacobian at this point.
                self.factored = false;
                continue;
            }
            for (unknown, update) in s.iter_mut().zip(&self.residual) {
                *unknown -= update;
            }
            if self.linear {
                return Ok(iteration);
            }
            let size = max_norm(s);
            let converged = update == 0.0
                || match theta {
                    // A Newton step from the point the Jacobian was taken at: full Newton's test.
                    None => fresh && update <= TOLERANCE * size + floor,
                    Some(theta) => theta < 1.0 && theta / (1.0 - theta) * update <= ROUND_OFF * size,
                };
            if converged {
                if theta.is_some_and(|theta| theta > THETA_REUSE) {
                    self.factored = false;
                }
                return Ok(iteration);
            }
            (fresh, previous) = (false, Some(update));
        }
        self.factored = false;
        residual(s, &mut self.residual);
        Err(SchemeError {
            message: format!(
                "Newton did not converge in {MAX_ITERATIONS} iterations: residual {:e}, last update {last_update:e} \
                 (tolerance {TOLERANCE:e} relative to the unknown {:e}, plus {floor:e})",
                max_norm(&self.residual),
                max_norm(s)
            ),
        })
    }

    /// Assembles and factors the Jacobian at `s`.
    fn factor_at(
        &mut self,
        s: &[f64],
        jacobian: &mut impl FnMut(&[f64], &mut dyn Assemble),
        iteration: usize,
    ) -> Result<(), SchemeError> {
        let result = match &mut self.jacobian {
            Jacobian::Dense(matrix) => {
                matrix.clear();
                jacobian(s, matrix);
                matrix.factor()
            }
            Jacobian::Sparse(matrix) => {
                matrix.clear();
                jacobian(s, matrix.as_mut());
                matrix.factor()
            }
        };
        self.stats.factorisations += 1;
        self.factored = result.is_ok();
        result.map_err(|e| SchemeError { message: format!("Newton iteration {iteration}: {e}") })
    }

    /// `residual <- J^-1 residual` with the current factorisation.
    fn substitute(&mut self) {
        match &mut self.jacobian {
            Jacobian::Dense(matrix) => matrix.solve_in_place(&mut self.residual),
            Jacobian::Sparse(matrix) => matrix.solve_in_place(&mut self.residual),
        }
    }
}

/// Largest absolute entry (NaN if any entry is NaN).
pub fn max_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x.abs()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both paths on one problem.
    const PATHS: [LinearSolver; 2] = [LinearSolver::Dense, LinearSolver::Sparse];

    #[test]
    fn converges_on_a_smooth_problem() {
        // R(s) = s^3 - 8 (one unknown), root 2.
        for solver in PATHS {
            let mut newton = Newton::new(1, false, solver);
            let mut s = [1.0];
            let iterations = newton
                .solve(&mut s, 0.0, |s, r| r[0] = s[0].powi(3) - 8.0, |s, j| j.add(0, 0, 3.0 * s[0] * s[0]))
                .unwrap();
            assert!((s[0] - 2.0).abs() < 1e-15 && iterations < 20, "{solver:?}: {s:?} after {iterations}");
        }
    }

    #[test]
    fn the_simplified_iteration_keeps_its_factorisation_across_solves() {
        // R(s) = s + s^3 / 100 - c for c = 1, 1 + 1e-6, 1 + 2e-6, ...: nearby roots, as in the
        // steps of a smooth motion, each solve starting from the last root. The Jacobian
        // 1 + 3 s^2 / 100 (s near 0.99) changes by about 6e-8 per solve, so the contraction of a
        // factorisation k solves old is about 6e-8 k.
        let mut newton = Newton::new(1, false, LinearSolver::Dense);
        let mut s = [1.0];
        for k in 0..100 {
            let c = 1.0 + 1e-6 * k as f64;
            newton
                .solve(
                    &mut s,
                    0.0,
                    |s, r| r[0] = s[0] + s[0].powi(3) / 100.0 - c,
                    |s, j| j.add(0, 0, 1.0 + 3.0 * s[0] * s[0] / 100.0),
                )
                .unwrap();
            // The root by Cardano's formula: s^3 + p s + q = 0 with p = 100, q = -100 c.
            let (p, q) = (100.0f64, -100.0 * c);
            let root = (p * p * p / 27.0 + q * q / 4.0).sqrt();
            let exact = (-q / 2.0 + root).cbrt() + (-q / 2.0 - root).cbrt();
            assert!((s[0] - exact).abs() <= 2.0 * TOLERANCE * exact, "solve {k}: {} against {exact}", s[0]);
        }
        let stats = newton.stats();
        assert_eq!(stats.solves, 100);
        // A factorisation lasts until the contraction passes 1e-5: about 170 solves.
        assert!(stats.factorisations <= 2, "{stats:?}");
        assert!(stats.iterations <= 300, "{stats:?}");
    }

    #[test]
    fn reports_the_residual_when_there_is_no_root() {
        // R(s) = s^2 + 1 has no real root: Newton wanders and must give up with figures.
        for solver in PATHS {
            let mut newton = Newton::new(1, false, solver);
            let mut s = [0.5];
            let error = newton
                .solve(&mut s, 0.0, |s, r| r[0] = s[0] * s[0] + 1.0, |s, j| j.add(0, 0, 2.0 * s[0]))
                .unwrap_err();
            assert!(error.message.contains("did not converge"), "{solver:?}: {}", error.message);
            assert!(error.message.contains("residual"), "{solver:?}: {}", error.message);
        }
    }
}
