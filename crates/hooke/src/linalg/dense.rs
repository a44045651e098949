//! Small dense matrices assembled entry by entry and factored by LU with partial pivoting.
//!
//! For a network of a few masses (the double pendulum has 4 unknowns) a dense n x n Jacobian
//! costs less to assemble, factor and solve than the sparse machinery's pattern and scratch
//! memory: the LU takes `n^3 / 3` multiply-adds and a solve `n^2`, with no allocation once the
//! matrix exists.
//!
//! The factorisation is Gaussian elimination with partial pivoting, `P A = L U` in its
//! outer-product form (Golub & Van Loan 2013, section 3.4, Algorithm 3.4.1): at column `k` the
//! row with the largest `|a_ik|`, `i >= k`, is swapped into place, the multipliers
//! `l_ik = a_ik / a_kk` are stored below the diagonal and `a_ij -= l_ik a_kj` updates the rest.
//! `L` (unit lower triangular) and `U` overwrite `A`.
//!
//! The factors then give `A^-1` (column `j` solves `A x = e_j` by `P`, `L y = P e_j` forwards and
//! `U x = y` backwards), once per factorisation, and a solve is the product `A^-1 b`: `n^2`
//! multiply-adds in one regular loop, where the triangular sweeps run short loops of varying
//! length (on 4 unknowns, about a third of their instructions). The explicit inverse is not
//! backward stable for an ill-conditioned `A`, which its users here do not need: the simplified
//! Newton iteration that reuses it converges to the root of its residual whatever the
//! approximation of the Jacobian's inverse, only more or less quickly.

use super::{Assemble, FactorError};

/// An n x n dense matrix (row-major), assembled by [`Assemble::add`], then factored in place.
#[derive(Debug, Clone)]
pub struct DenseMatrix {
    n: usize,
    /// The entries (row-major); after [`DenseMatrix::factor`], `L` below the diagonal and `U`
    /// on and above it.
    values: Vec<f64>,
    /// `pivots[k]`: the row swapped with row `k` at step `k` of the elimination.
    pivots: Vec<usize>,
    /// `A^-1` (row-major), from the last factorisation.
    inverse: Vec<f64>,
    /// A copy of the right-hand side during a solve.
    scratch: Vec<f64>,
}

impl Assemble for DenseMatrix {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        if row < self.n && col < self.n {
            self.values[row * self.n + col] += value;
        }
    }
}

impl DenseMatrix {
    /// The n x n zero matrix.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            values: vec![0.0; n * n],
            pivots: (0..n).collect(),
            inverse: vec![0.0; n * n],
            scratch: vec![0.0; n],
        }
    }

    /// The size n.
    pub fn size(&self) -> usize {
        self.n
    }

    /// Starts a new assembly: every entry back to 0.
    pub fn clear(&mut self) {
        self.values.fill(0.0);
    }

    /// The entry at (`row`, `col`): of the assembled matrix before [`DenseMatrix::factor`], of
    /// the packed factors `L \ U` after it.
    pub fn get(&self, row: usize, col: usize) -> f64 {
        self.values[row * self.n + col]
    }

    /// `P A = L U` in place, then `A^-1` from the factors (module documentation). Fails when a
    /// pivot is 0 or not finite: the matrix is singular to working precision, or has a
    /// non-finite entry.
    pub fn factor(&mut self) -> Result<(), FactorError> {
        self.factor_lu()?;
        let n = self.n;
        for j in 0..n {
            self.scratch.fill(0.0);
            self.scratch[j] = 1.0;
            let mut column = std::mem::take(&mut self.scratch);
            self.substitute(&mut column);
            for (i, value) in column.iter().enumerate() {
                self.inverse[i * n + j] = *value;
            }
            self.scratch = column;
        }
        Ok(())
    }

    /// `P A = L U` in place.
    fn factor_lu(&mut self) -> Result<(), FactorError> {
        let n = self.n;
        let a = &mut self.values;
        for k in 0..n {
            let pivot_row =
                (k..n).fold(k, |best, i| if a[i * n + k].abs() > a[best * n + k].abs() { i } else { best });
            let pivot = a[pivot_row * n + k];
            if pivot == 0.0 || !pivot.is_finite() {
                return Err(FactorError::Singular { n });
            }
            self.pivots[k] = pivot_row;
            if pivot_row != k {
                for j in 0..n {
                    a.swap(k * n + j, pivot_row * n + j);
                }
            }
            for i in k + 1..n {
                let multiplier = a[i * n + k] / pivot;
                a[i * n + k] = multiplier;
                if multiplier != 0.0 {
                    for j in k + 1..n {
                        a[i * n + j] -= multiplier * a[k * n + j];
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place (`b` of length at least n; its first n entries are solved
    /// for): `x = A^-1 b` with the inverse of the last [`DenseMatrix::factor`].
    pub fn solve_in_place(&mut self, b: &mut [f64]) {
        let n = self.n;
        self.scratch.copy_from_slice(&b[..n]);
        for (x, row) in b[..n].iter_mut().zip(self.inverse.chunks_exact(n)) {
            *x = row.iter().zip(&self.scratch).map(|(a, b)| a * b).sum();
        }
    }

    /// Solves `A x = b` in place with the factors: `b <- P b`, then `L y = b` forwards and
    /// `U x = y` backwards.
    fn substitute(&self, b: &mut [f64]) {
        let n = self.n;
        let (a, b) = (&self.values[..n * n], &mut b[..n]);
        for (k, &pivot) in self.pivots.iter().enumerate() {
            b.swap(k, pivot);
        }
        for i in 1..n {
            let mut y = b[i];
            for j in 0..i {
                y -= a[i * n + j] * b[j];
            }
            b[i] = y;
        }
        for i in (0..n).rev() {
            let mut x = b[i];
            for j in i + 1..n {
                x -= a[i * n + j] * b[j];
            }
            b[i] = x / a[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `A = [[0, 2, 1], [1, 1, 1], [2, 1, 0]]`, which needs pivoting (a zero in the corner).
    /// By hand: column 0 takes row 2 (pivot 2): rows (2, 1, 0) with multipliers 1/2 and 0, and
    /// the remaining rows become `[1/2, 1]` and `[2, 1]`; column 1 takes the old row 0 (pivot 2),
    /// multiplier `(1/2) / 2 = 1/4`, and the last pivot is `1 - 1/4 = 3/4`. So
    /// `U = [[2, 1, 0], [0, 2, 1], [0, 0, 3/4]]`, `L = [[1, 0, 0], [0, 1, 0], [1/2, 1/4, 1]]`
    /// (rows in the order 2, 0, 1), every figure exact in binary.
    fn example() -> DenseMatrix {
        let mut matrix = DenseMatrix::new(3);
        for (i, row) in [[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [2.0, 1.0, 0.0]].iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                matrix.add(i, j, value);
            }
        }
        matrix.add(3, 0, 7.0); // outside: an anchor's coordinate, dropped
        matrix
    }

    #[test]
    fn factors_a_small_system_as_by_hand() {
        let mut matrix = example();
        matrix.factor().unwrap();
        let packed = [[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.5, 0.25, 0.75]];
        for (i, row) in packed.iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                assert_eq!(matrix.get(i, j), value, "({i}, {j})");
            }
        }
        // x = (1, 2, 3): b = A x = (0 + 4 + 3, 1 + 2 + 3, 2 + 2 + 0). The factors give it
        // exactly; the inverse (entries in thirds: det A = 3) to a unit of round-off.
        let mut b = [7.0, 6.0, 4.0];
        matrix.substitute(&mut b);
        assert_eq!(b, [1.0, 2.0, 3.0]);
        let mut b = [7.0, 6.0, 4.0];
        matrix.solve_in_place(&mut b);
        for (x, exact) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((x - exact).abs() <= 2.0 * f64::EPSILON * exact, "{b:?}");
        }
        // A^-1 by hand (the adjugate over det A = 3): [[-1, 1, 1], [2, -2, 1], [-1, 4, -2]] / 3.
        let inverse = [[-1.0, 1.0, 1.0], [2.0, -2.0, 1.0], [-1.0, 4.0, -2.0]];
        for (i, row) in inverse.iter().enumerate() {
            for (j, &value) in row.iter().enumerate() {
                let found = matrix.inverse[i * 3 + j];
                assert!((found - value / 3.0).abs() <= 2.0 * f64::EPSILON, "({i}, {j}): {found}");
            }
        }
    }

    #[test]
    fn entries_add_up_and_clear_starts_again() {
        let mut matrix = DenseMatrix::new(1);
        matrix.add(0, 0, 1.5);
        matrix.add(0, 0, 2.5);
        matrix.factor().unwrap();
        let mut b = [8.0];
        matrix.solve_in_place(&mut b);
        assert_eq!(b, [2.0]);
        matrix.clear();
        matrix.add(0, 0, 0.5);
        matrix.factor().unwrap();
        let mut b = [8.0];
        matrix.solve_in_place(&mut b);
        assert_eq!(b, [16.0]);
    }

    #[test]
    fn refuses_a_singular_matrix() {
        // The second row is twice the first: after one elimination step the last pivot is 0.
        let mut matrix = DenseMatrix::new(2);
        for (i, j, value) in [(0, 0, 1.0), (0, 1, 2.0), (1, 0, 2.0), (1, 1, 4.0)] {
            matrix.add(i, j, value);
        }
        assert_eq!(matrix.factor(), Err(FactorError::Singular { n: 2 }));
        let mut matrix = DenseMatrix::new(1);
        matrix.add(0, 0, f64::NAN);
        assert_eq!(matrix.factor(), Err(FactorError::Singular { n: 1 }));
    }
}
