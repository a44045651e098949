//! Newton's method for the implicit schemes, with a sparse Jacobian.

use super::SchemeError;
use crate::linalg::sparse::SparseMatrix;

/// Newton stops when the update is below this fraction of the unknown (max norms).
pub const TOLERANCE: f64 = 1e-13;
/// Newton gives up after this many iterations.
pub const MAX_ITERATIONS: usize = 50;

/// Solves `R(s) = 0` by Newton's method, `s <- s - J(s)^-1 R(s)`, with a sparse LU of `J`.
///
/// For a linear problem (`R` affine, `J` constant) the Jacobian is assembled and factored once,
/// at the first solve, and each later solve is one substitution: the scheme costs one
/// back-substitution per step.
#[derive(Debug)]
pub struct Newton {
    jacobian: SparseMatrix,
    residual: Vec<f64>,
    linear: bool,
    factored: bool,
}

impl Newton {
    /// A solver for `n` unknowns; `linear` when `R` is affine in `s`.
    pub fn new(n: usize, linear: bool) -> Self {
        Self { jacobian: SparseMatrix::new(n), residual: vec![0.0; n], linear, factored: false }
    }

    /// Improves `s` (the initial guess) until `R(s) = 0`: until the update is below
    /// `TOLERANCE |s| + floor` (max norms; `floor` is the size below which an update no longer
    /// matters to the caller, such as the round-off of the positions `s` is added to).
    /// `residual(s, out)` writes `R(s)`; `jacobian(s, matrix)` adds the entries of `dR/ds` to a
    /// cleared matrix. Returns the number of iterations, or an error with the residual and update
    /// norms when it does not converge.
    pub fn solve(
        &mut self,
        s: &mut [f64],
        floor: f64,
        mut residual: impl FnMut(&[f64], &mut [f64]),
        mut jacobian: impl FnMut(&[f64], &mut SparseMatrix),
    ) -> Result<usize, SchemeError> {
        let mut last_update = f64::NAN;
        for iteration in 1..=MAX_ITERATIONS {
            residual(s, &mut self.residual);
            if !(self.linear && self.factored) {
                self.jacobian.clear();
                jacobian(s, &mut self.jacobian);
                self.jacobian
                    .factor()
                    .map_err(|e| SchemeError { message: format!("Newton iteration {iteration}: {e}") })?;
                self.factored = true;
            }
            let residual_norm = max_norm(&self.residual);
            self.jacobian.solve_in_place(&mut self.residual);
            for (unknown, update) in s.iter_mut().zip(&self.residual) {
                *unknown -= update;
            }
            last_update = max_norm(&self.residual);
            if !last_update.is_finite() || !residual_norm.is_finite() {
                break;
            }
            if self.linear || last_update <= TOLERANCE * max_norm(s) + floor {
                return Ok(iteration);
            }
        }
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
}

/// Largest absolute entry (NaN if any entry is NaN).
pub fn max_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| if x.is_nan() || m.is_nan() { f64::NAN } else { m.max(x.abs()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converges_quadratically_on_a_smooth_problem() {
        // R(s) = s^3 - 8 (one unknown), root 2.
        let mut newton = Newton::new(1, false);
        let mut s = [1.0];
        let iterations = newton
            .solve(&mut s, 0.0, |s, r| r[0] = s[0].powi(3) - 8.0, |s, j| j.add(0, 0, 3.0 * s[0] * s[0]))
            .unwrap();
        assert!((s[0] - 2.0).abs() < 1e-15 && iterations < 10, "{s:?} after {iterations}");
    }

    #[test]
    fn reports_the_residual_when_there_is_no_root() {
        // R(s) = s^2 + 1 has no real root: Newton wanders and must give up with figures.
        let mut newton = Newton::new(1, false);
        let mut s = [0.5];
        let error = newton
            .solve(&mut s, 0.0, |s, r| r[0] = s[0] * s[0] + 1.0, |s, j| j.add(0, 0, 2.0 * s[0]))
            .unwrap_err();
        assert!(error.message.contains("did not converge"), "{}", error.message);
        assert!(error.message.contains("residual"), "{}", error.message);
    }
}
