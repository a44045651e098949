//! Sparse matrices assembled entry by entry, factored by sparse LU (faer).
//!
//! Implicit schemes assemble a Jacobian such as `M + h/2 D + h^2/4 K` every Newton iteration.
//! Its positions (which entries exist) are the same at every assembly because each element
//! always contributes its entries, even when they are zero (a contact out of touch), so the
//! symbolic analysis (fill-reducing ordering, elimination structure) is done once.

use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Lu, SymbolicLu};
use faer::sparse::linalg::LuError;
use faer::sparse::{Argsort, Pair, SparseColMat, SymbolicSparseColMat};
use faer::MatMut;

use super::Assemble;
pub use super::FactorError;

/// The fixed positions of a matrix and their symbolic LU analysis.
struct Pattern {
    rows: Vec<usize>,
    cols: Vec<usize>,
    symbolic: SymbolicSparseColMat<usize>,
    argsort: Argsort<usize>,
    lu: SymbolicLu<usize>,
}

/// An n x n sparse matrix, assembled by [`Assemble::add`] (duplicates add up), then factored.
pub struct SparseMatrix {
    n: usize,
    rows: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f64>,
    pattern: Option<Pattern>,
    factors: Option<Lu<usize, f64>>,
}

impl std::fmt::Debug for SparseMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseMatrix").field("n", &self.n).field("entries", &self.values.len()).finish()
    }
}

impl Assemble for SparseMatrix {
    #[inline]
    fn add(&mut self, row: usize, col: usize, value: f64) {
        if row < self.n && col < self.n {
            self.rows.push(row);
            self.cols.push(col);
            self.values.push(value);
        }
    }
}

impl SparseMatrix {
    /// An empty n x n matrix.
    pub fn new(n: usize) -> Self {
        Self { n, rows: Vec::new(), cols: Vec::new(), values: Vec::new(), pattern: None, factors: None }
    }

    /// The size n.
    pub fn size(&self) -> usize {
        self.n
    }

    /// Starts a new assembly: forgets the values (the pattern analysis is kept).
    pub fn clear(&mut self) {
        self.rows.clear();
        self.cols.clear();
        self.values.clear();
    }

    /// The entries of the current assembly as (row, column, value); duplicates not summed.
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.rows.iter().zip(&self.cols).zip(&self.values).map(|((&r, &c), &v)| (r, c, v))
    }

    /// `y = A x` for the current assembly (`x`, `y` of length n).
    pub fn multiply(&self, x: &[f64], y: &mut [f64]) {
        y[..self.n].fill(0.0);
        for ((&i, &j), &v) in self.rows.iter().zip(&self.cols).zip(&self.values) {
            y[i] += v * x[j];
        }
    }

    /// Factors the current assembly. The symbolic analysis is redone only when the positions
    /// of the entries differ from the previous factorisation's.
    pub fn factor(&mut self) -> Result<(), FactorError> {
        let same_pattern = self.pattern.as_ref().is_some_and(|p| p.rows == self.rows && p.cols == self.cols);
        if !same_pattern {
            self.pattern = Some(self.analyse()?);
        }
        let pattern = self.pattern.as_ref().expect("pattern analysed above");
        let matrix = SparseColMat::new_from_argsort(pattern.symbolic.clone(), &pattern.argsort, &self.values)
            .map_err(|e| FactorError::Internal(format!("{e:?}")))?;
        let lu = Lu::try_new_with_symbolic(pattern.lu.clone(), matrix.as_ref()).map_err(|e| match e {
            LuError::SymbolicSingular { .. } => FactorError::Singular { n: self.n },
            other => FactorError::Internal(format!("{other:?}")),
        })?;
        self.factors = Some(lu);
        Ok(())
    }

    /// Solves `A x = b` in place with the last factorisation (`b` of length n).
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let lu = self.factors.as_ref().expect("factor() before solve_in_place()");
        lu.solve_in_place(MatMut::from_column_major_slice_mut(&mut b[..self.n], self.n, 1));
    }

    fn analyse(&self) -> Result<Pattern, FactorError> {
        let pairs: Vec<Pair<usize, usize>> =
            self.rows.iter().zip(&self.cols).map(|(&row, &col)| Pair::new(row, col)).collect();
        let (symbolic, argsort) = SymbolicSparseColMat::try_new_from_indices(self.n, self.n, &pairs)
            .map_err(|e| FactorError::Internal(format!("{e:?}")))?;
        let lu =
            SymbolicLu::try_new(symbolic.as_ref()).map_err(|e| FactorError::Internal(format!("{e:?}")))?;
        Ok(Pattern { rows: self.rows.clone(), cols: self.cols.clone(), symbolic, argsort, lu })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 1D Laplacian tridiag(-1, 2, -1) plus `shift` on the diagonal.
    fn assemble(matrix: &mut SparseMatrix, shift: f64) {
        let n = matrix.size();
        matrix.clear();
        for i in 0..n {
            matrix.add(i, i, 2.0 + shift);
            if i + 1 < n {
                matrix.add(i, i + 1, -1.0);
                matrix.add(i + 1, i, -1.0);
            }
        }
        matrix.add(n, 0, 5.0); // outside: an anchor's coordinate, dropped
    }

    #[test]
    fn solves_a_tridiagonal_system_and_refactors_with_new_values() {
        let n = 50;
        let mut matrix = SparseMatrix::new(n);
        for shift in [0.0, 0.5] {
            assemble(&mut matrix, shift);
            matrix.factor().unwrap();
            // Choose x, compute b = A x independently (the stencil), solve, compare.
            let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let mut b: Vec<f64> = (0..n)
                .map(|i| {
                    let left = if i > 0 { x[i - 1] } else { 0.0 };
                    let right = if i + 1 < n { x[i + 1] } else { 0.0 };
                    (2.0 + shift) * x[i] - left - right
                })
                .collect();
            let mut check = vec![0.0; n];
            matrix.multiply(&x, &mut check);
            assert!(check.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-14));
            matrix.solve_in_place(&mut b);
            let error = b.iter().zip(&x).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(error < 1e-11, "error {error:e}");
        }
    }

    #[test]
    fn duplicates_add_up() {
        let mut matrix = SparseMatrix::new(1);
        matrix.add(0, 0, 1.5);
        matrix.add(0, 0, 2.5);
        matrix.factor().unwrap();
        let mut b = [8.0];
        matrix.solve_in_place(&mut b);
        assert_eq!(b, [2.0]);
    }
}
