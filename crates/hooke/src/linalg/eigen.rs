//! Eigenvalues and eigenvectors of dense real matrices, accurate and in bounded time.
//!
//! Two defects of faer 0.24's default solvers are avoided here, both found on the stiffness and
//! one-step matrices of simply supported plates (a 14 x 10 plate, 140 coordinates):
//!
//! - **Symmetric**: above 128 rows faer switches to divide and conquer on the tridiagonal form,
//!   whose vectors came out orthonormal but were not eigenvectors (`U^T K U` off its diagonal by
//!   `1.4e-4 |K|`; the 13 x 9 plate, 117 rows, by `4e-16`). Here the tridiagonal form is always
//!   diagonalised by the implicit QR iteration (Golub & Van Loan, Matrix Computations, 4th ed.,
//!   algorithm 8.3.3), accurate to rounding at about 1.7 times the cost at 1000 rows.
//! - **Nonsymmetric**: above 75 rows faer runs the blocked multishift QR with aggressive early
//!   deflation, whose deflation window is reordered by a bubble sort of swaps whose window does
//!   not shrink when a swap is refused (LAPACK's `dlaqr3` shrinks it), so on clusters of equal
//!   eigenvalues it can loop without end. Here the Schur form is always computed by the
//!   unblocked double-shift QR (LAPACK's `dlahqr`; Golub & Van Loan, algorithm 7.5.2), which
//!   stops after `30 max(10, n)` iterations and reports [`NoConvergence`].
//!
//! Both are `O(n^3)`, as fast as the defaults at the sizes the analysis takes.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors, EvdParams, SelfAdjointEvdParams};
use faer::{c64, Auto, Mat, MatRef, Par, Spec};

/// The QR iteration did not converge within its iteration limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the eigenvalues of a {size} x {size} matrix did not converge within the QR iteration's limit")]
pub struct NoConvergence {
    /// The matrix's size.
    pub size: usize,
}

/// The nonsymmetric eigensolver's settings: faer's defaults with the blocked QR switched off
/// (module documentation).
fn bounded_params() -> Spec<EvdParams, f64> {
    let mut params = <EvdParams as Auto<f64>>::auto();
    params.schur.blocking_threshold = usize::MAX;
    Spec::new(params)
}

/// The real Schur form's eigenvalues and, when `vectors` is given, the real eigenvector matrix
/// in LAPACK's packed form.
fn real_evd(
    matrix: MatRef<'_, f64>,
    vectors: Option<&mut Mat<f64>>,
) -> Result<(Diag<f64>, Diag<f64>), NoConvergence> {
    let n = matrix.nrows();
    assert_eq!(n, matrix.ncols(), "an eigenproblem needs a square matrix");
    let (mut re, mut im) = (Diag::<f64>::zeros(n), Diag::<f64>::zeros(n));
    let wanted = if vectors.is_some() { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
    let scratch = evd::evd_scratch::<f64>(n, ComputeEigenvectors::No, wanted, Par::Seq, bounded_params());
    let mut buffer = MemBuffer::new(scratch);
    evd::evd_real(
        matrix,
        re.as_mut(),
        im.as_mut(),
        None,
        vectors.map(|v| v.as_mut()),
        Par::Seq,
        MemStack::new(&mut buffer),
        bounded_params(),
    )
    .map_err(|_| NoConvergence { size: n })?;
    Ok((re, im))
}

/// The eigenvalues of a square real matrix, in bounded time.
pub fn eigenvalues(matrix: MatRef<'_, f64>) -> Result<Vec<c64>, NoConvergence> {
    let (re, im) = real_evd(matrix, None)?;
    Ok(re.column_vector().iter().zip(im.column_vector().iter()).map(|(&r, &i)| c64::new(r, i)).collect())
}

/// The eigenvalues of a square real matrix and its right eigenvectors (column `k` belongs to
/// eigenvalue `k`), in bounded time.
pub fn eigen(matrix: MatRef<'_, f64>) -> Result<(Vec<c64>, Mat<c64>), NoConvergence> {
    let n = matrix.nrows();
    let mut packed = Mat::<f64>::zeros(n, n);
    let (re, im) = real_evd(matrix, Some(&mut packed))?;
    let (re, im) = (re.column_vector(), im.column_vector());
    let values: Vec<c64> = (0..n).map(|k| c64::new(re[k], im[k])).collect();
    // LAPACK's packing: a complex pair (k, k + 1) with im[k] > 0 stores the real part of the
    // eigenvector in column k and its imaginary part in column k + 1; the second is the conjugate.
    let mut vectors = Mat::<c64>::zeros(n, n);
    let mut k = 0;
    while k < n {
        if im[k] != 0.0 && k + 1 < n {
            for r in 0..n {
                let v = c64::new(packed[(r, k)], packed[(r, k + 1)]);
                vectors[(r, k)] = v;
                vectors[(r, k + 1)] = v.conj();
            }
            k += 2;
        } else {
            for r in 0..n {
                vectors[(r, k)] = c64::new(packed[(r, k)], 0.0);
            }
            k += 1;
        }
    }
    Ok((values, vectors))
}

/// The eigenvalues (ascending) and orthonormal eigenvectors (column `k` for eigenvalue `k`) of a
/// symmetric matrix, of which the lower triangle is read.
pub fn symmetric_eigen(matrix: MatRef<'_, f64>) -> Result<(Vec<f64>, Mat<f64>), NoConvergence> {
    let n = matrix.nrows();
    let mut vectors = Mat::<f64>::zeros(n, n);
    let values = symmetric_evd(matrix, Some(&mut vectors))?;
    Ok((values, vectors))
}

/// The eigenvalues (ascending) of a symmetric matrix, of which the lower triangle is read.
pub fn symmetric_eigenvalues(matrix: MatRef<'_, f64>) -> Result<Vec<f64>, NoConvergence> {
    symmetric_evd(matrix, None)
}

/// The symmetric eigensolver by the tridiagonal QR iteration (module documentation).
fn symmetric_evd(matrix: MatRef<'_, f64>, vectors: Option<&mut Mat<f64>>) -> Result<Vec<f64>, NoConvergence> {
    let n = matrix.nrows();
    assert_eq!(n, matrix.ncols(), "an eigenproblem needs a square matrix");
    let mut params = <SelfAdjointEvdParams as Auto<f64>>::auto();
    params.recursion_threshold = usize::MAX;
    let wanted = if vectors.is_some() { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
    let mut buffer =
        MemBuffer::new(evd::self_adjoint_evd_scratch::<f64>(n, wanted, Par::Seq, Spec::new(params)));
    let mut values = Diag::<f64>::zeros(n);
    evd::self_adjoint_evd(
        matrix,
        values.as_mut(),
        vectors.map(|v| v.as_mut()),
        Par::Seq,
        MemStack::new(&mut buffer),
        Spec::new(params),
    )
    .map_err(|_| NoConvergence { size: n })?;
    Ok(values.column_vector().iter().copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rotation by `theta` scaled by `r` has the eigenvalues `r e^(+-j theta)`.
    #[test]
    fn rotation_eigenvalues_and_vectors() {
        let (r, theta) = (0.9_f64, 0.3_f64);
        let matrix = Mat::from_fn(2, 2, |i, j| match (i, j) {
            (0, 0) | (1, 1) => r * theta.cos(),
            (0, 1) => -r * theta.sin(),
            _ => r * theta.sin(),
        });
        let (values, vectors) = eigen(matrix.as_ref()).unwrap();
        for (k, z) in values.iter().enumerate() {
            assert!((z.norm() - r).abs() < 1e-14 && (z.im.abs() - r * theta.sin()).abs() < 1e-14, "{z}");
            // A v = z v for each column.
            for row in 0..2 {
                let av: c64 = (0..2).map(|c| vectors[(c, k)] * matrix[(row, c)]).sum();
                assert!((av - vectors[(row, k)] * z).norm() < 1e-13);
            }
        }
    }
}
