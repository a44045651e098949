//! The sparse path for large models: the lowest and highest modes by the Lanczos method.
//!
//! With `K' = M^-1/2 K M^-1/2` and `D' = M^-1/2 D M^-1/2` (symmetric, applied through the sparse
//! `K` and `D` without forming them):
//!
//! - the **lowest** modes are the largest eigenvalues `1 / (w^2 - shift)` of the shift-inverted
//!   operator `(K' - shift I)^-1 = M^1/2 (K - shift M)^-1 M^1/2`, applied with the sparse LU of
//!   `K - shift M` ([`crate::linalg::sparse`]); the shift is `-1e-8` of the mean `K'_ii`, so that
//!   free motions (`w = 0`) do not make the matrix singular;
//! - the **highest** modes (which decide the stability of explicit schemes) likewise from
//!   above: the largest eigenvalues `1 / (shift - w^2)` of `(shift I - K')^-1`, with the shift
//!   just above Gershgorin's bound on `K'`, where they are well separated even when the top of
//!   the spectrum is a tight cluster (a long uniform string); and, when there is damping, the
//!   same for `D'` (the most damped motions).
//!
//! Each run is Lanczos with full reorthogonalisation (`m` vectors of length `n` are kept: `m =
//! 2 count + 40`), started from a fixed pseudo-random vector so that results repeat. Each Ritz
//! vector `u` gives an oscillator by its Rayleigh quotients `w^2 = u^T K' u`, `gamma = u^T D'
//! u`. The damping is reported modal when `K'` and `D'` commute (checked on two vectors, to
//! `1e-9`), so that the `u` are eigenvectors of both; otherwise the `gamma` are the modal
//! estimates `u^T D' u` and the modes' discrete poles are those of these oscillators.

use super::discrete::Oscillator;
use super::error::AnalysisError;
use super::linearise::Linearisation;
use super::modes::{
    clean_rate, modes_of_oscillators, normalise_real, Damping, ModalOscillator, Modes, SparseCounts,
};
use crate::linalg::eigen::symmetric_eigen;
use crate::linalg::sparse::SparseMatrix;
use crate::linalg::Assemble;
use faer::{Mat, Side};

/// A symmetric operator `y = A x` on vectors of length n.
type Operator<'a> = dyn FnMut(&[f64], &mut [f64]) + 'a;

/// `y = M^-1/2 A M^-1/2 x` for a sparse `A`.
type Product<'a> = dyn FnMut(&SparseMatrix, &[f64], &mut [f64]) + 'a;

/// The largest Ritz pairs of a symmetric operator, ascending: values, unit vectors and residual
/// norms.
struct RitzPairs {
    values: Vec<f64>,
    vectors: Vec<Vec<f64>>,
    residuals: Vec<f64>,
}

/// The bytes the sparse path allocates for a model of `coordinates` moving coordinates, besides
/// the sparse matrices and the factor of the shifted stiffness (whose fill depends on the
/// model's connections: a few entries a coordinate on strings, membranes and plates): the
/// Lanczos basis of the longest run and its Ritz vectors, the modes found, their shapes as real
/// vectors, as complex [`super::modes::Mode`] shapes, and their copy in a scheme's report.
pub fn memory_estimate(coordinates: usize, counts: SparseCounts) -> u128 {
    let longest = counts.lowest.max(counts.highest);
    let basis = (2 * longest + 40 + 1) as u128 + longest as u128;
    let modes = (counts.lowest + 2 * counts.highest) as u128;
    let (real, complex) = (8_u128, 16_u128);
    coordinates as u128 * (real * (basis + 2 * modes) + complex * 2 * modes)
}

/// The lowest and highest modes of a large network (see the module documentation).
pub fn extreme_modes(linearisation: &Linearisation, counts: SparseCounts) -> Result<Modes, AnalysisError> {
    let n = linearisation.coordinates();
    let root_inverse_mass: Vec<f64> = linearisation.inverse_mass().iter().map(|w| w.sqrt()).collect();
    let stiffness = linearisation.stiffness();
    let damping = linearisation.damping();
    let mut scratch = vec![0.0; n];
    let mut normalised = |matrix: &SparseMatrix, x: &[f64], y: &mut [f64]| {
        for i in 0..n {
            scratch[i] = root_inverse_mass[i] * x[i];
        }
        matrix.multiply(&scratch, y);
        for i in 0..n {
            y[i] *= root_inverse_mass[i];
        }
    };
    let mut found: Vec<Vec<f64>> = Vec::new();
    let mut notes = Vec::new();

    // Highest modes of K', shift-inverted from above its spectrum.
    let top = gershgorin_bound(linearisation, stiffness) * (1.0 + 1e-6) + f64::MIN_POSITIVE;
    let highest = shift_invert(linearisation, stiffness, top, Side::Upper, counts.highest)?;
    collect(&mut found, &mut notes, highest, "highest stiffness", |v| top - 1.0 / v);

    // Lowest modes, shift-inverted from just below zero.
    let mean_rate = stiffness
        .entries()
        .filter(|&(r, c, _)| r == c)
        .map(|(r, _, k)| k * linearisation.inverse_mass()[r])
        .sum::<f64>()
        / n as f64;
    let bottom = -1e-8 * if mean_rate > 0.0 { mean_rate } else { 1.0 };
    let lowest = shift_invert(linearisation, stiffness, bottom, Side::Lower, counts.lowest)?;
    collect(&mut found, &mut notes, lowest, "lowest", |v| bottom + 1.0 / v);

    // The most damped motions.
    if !linearisation.is_undamped() {
        let top = gershgorin_bound(linearisation, damping) * (1.0 + 1e-6);
        let most_damped = shift_invert(linearisation, damping, top, Side::Upper, counts.highest)?;
        collect(&mut found, &mut notes, most_damped, "highest damping", |v| top - 1.0 / v);
    }

    // Modal damping: K' and D' commute. Checked on the start vector and its image.
    let modal = commute(n, &mut normalised, stiffness, damping);
    // Oscillators from the Rayleigh quotients.
    let mut stiffness_image = vec![0.0; n];
    let mut damping_image = vec![0.0; n];
    let mut oscillators = Vec::with_capacity(found.len());
    for u in &found {
        normalised(stiffness, u, &mut stiffness_image);
        normalised(damping, u, &mut damping_image);
        let shape: Vec<f64> = u.iter().zip(&root_inverse_mass).map(|(x, s)| x * s).collect();
        oscillators.push(ModalOscillator {
            oscillator: Oscillator {
                gamma: dot(u, &damping_image).max(0.0),
                omega0_squared: dot(u, &stiffness_image),
            },
            shape: normalise_real(shape),
        });
    }
    let largest_rate = oscillators.iter().map(|m| m.oscillator.omega0_squared.abs()).fold(0.0, f64::max);
    for mode in &mut oscillators {
        mode.oscillator.omega0_squared = clean_rate(mode.oscillator.omega0_squared, largest_rate);
    }
    if !modal {
        notes.push(
            "the damping is not modal: each mode's damping is its estimate u^T D u from the undamped mode \
             shape"
                .to_string(),
        );
    }
    Ok(Modes {
        modes: modes_of_oscillators(oscillators),
        damping: if modal { Damping::Modal } else { Damping::NonModal },
        complete: false,
        notes,
    })
}

/// Whether `K' D' x = D' K' x` (within `1e-9 |K' D' x|`, or exactly when both vanish) for a
/// fixed pseudo-random `x` and for `K' x`: commuting symmetric matrices share their eigenvectors,
/// so the damping is modal.
fn commute(n: usize, normalised: &mut Product<'_>, stiffness: &SparseMatrix, damping: &SparseMatrix) -> bool {
    let mut x = start_vector(n);
    let (mut a, mut b, mut kd, mut dk) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for _ in 0..2 {
        normalised(damping, &x, &mut a);
        normalised(stiffness, &a, &mut kd);
        normalised(stiffness, &x, &mut b);
        normalised(damping, &b, &mut dk);
        let difference = kd.iter().zip(&dk).map(|(p, q)| (p - q).powi(2)).sum::<f64>().sqrt();
        if difference > 1e-9 * norm(&kd).max(norm(&dk)) {
            return false;
        }
        let length = norm(&b);
        if length == 0.0 {
            break;
        }
        x = scaled(&b, 1.0 / length);
    }
    true
}

/// Gershgorin's bound on the eigenvalues of `M^-1/2 A M^-1/2`: its largest absolute row sum.
fn gershgorin_bound(linearisation: &Linearisation, matrix: &SparseMatrix) -> f64 {
    let inverse_mass = linearisation.inverse_mass();
    let mut rows = vec![0.0; linearisation.coordinates()];
    for (r, c, value) in matrix.entries() {
        rows[r] += value.abs() * (inverse_mass[r] * inverse_mass[c]).sqrt();
    }
    rows.into_iter().fold(0.0, f64::max)
}

/// The Ritz pairs of `M^-1/2 A M^-1/2` nearest `shift`, by Lanczos on the positive definite
/// operator `M^1/2 (A - shift M)^-1 M^1/2` when the shift lies below the spectrum
/// (`Side::Lower`; eigenvalues `1 / (lambda - shift)`) or `M^1/2 (shift M - A)^-1 M^1/2` when it
/// lies above (`Side::Upper`; eigenvalues `1 / (shift - lambda)`). The values returned are those
/// of the operator.
fn shift_invert(
    linearisation: &Linearisation,
    matrix: &SparseMatrix,
    shift: f64,
    side: Side,
    count: usize,
) -> Result<RitzPairs, AnalysisError> {
    let n = linearisation.coordinates();
    let inverse_mass = linearisation.inverse_mass();
    let sign = if side == Side::Lower { 1.0 } else { -1.0 };
    let mut shifted = SparseMatrix::new(n);
    for (r, c, value) in matrix.entries() {
        shifted.add(r, c, sign * value);
    }
    for (i, w) in inverse_mass.iter().enumerate() {
        shifted.add(i, i, -sign * shift / w);
    }
    shifted.factor()?;
    let root_mass: Vec<f64> = inverse_mass.iter().map(|w| 1.0 / w.sqrt()).collect();
    lanczos(n, count, &mut |x, y| {
        for i in 0..n {
            y[i] = x[i] * root_mass[i];
        }
        shifted.solve_in_place(y);
        for i in 0..n {
            y[i] *= root_mass[i];
        }
    })
}

/// Adds the Ritz vectors of `pairs` to `found` (skipping any already there), and a
/// note when one has not converged; `value` maps a Ritz value to `w^2` (for the note only).
fn collect(
    found: &mut Vec<Vec<f64>>,
    notes: &mut Vec<String>,
    pairs: RitzPairs,
    what: &str,
    value: impl Fn(f64) -> f64,
) {
    let size = pairs.values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut worst = 0.0_f64;
    for k in (0..pairs.values.len()).rev() {
        let vector = &pairs.vectors[k];
        worst = worst.max(pairs.residuals[k] / size.max(f64::MIN_POSITIVE));
        if found.iter().all(|u| dot(u, vector).abs() < 0.99) {
            found.push(vector.clone());
        }
    }
    if worst > 1e-6 {
        let largest = pairs.values.last().map(|&v| value(v)).unwrap_or(0.0);
        notes.push(format!(
            "the {what} modes converged only to a relative residual of {worst:.1e} (w^2 near {largest:.4e} 1/s^2)"
        ));
    }
}

/// Lanczos with full reorthogonalisation for the `count` largest eigenvalues of a symmetric
/// operator, with `2 count + 40` vectors (at most n); only their Ritz vectors are formed.
fn lanczos(n: usize, count: usize, apply: &mut Operator<'_>) -> Result<RitzPairs, AnalysisError> {
    let dimension = (2 * count + 40).min(n);
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(dimension + 1);
    let mut alphas = Vec::with_capacity(dimension);
    let mut betas: Vec<f64> = Vec::with_capacity(dimension);
    let start = start_vector(n);
    basis.push(scaled(&start, 1.0 / norm(&start)));
    let mut w = vec![0.0; n];
    let mut last_beta = 0.0;
    for j in 0..dimension {
        apply(&basis[j], &mut w);
        let alpha = dot(&basis[j], &w);
        alphas.push(alpha);
        // Full reorthogonalisation, twice ("twice is enough").
        for _ in 0..2 {
            for q in &basis {
                let projection = dot(q, &w);
                w.iter_mut().zip(q).for_each(|(wi, qi)| *wi -= projection * qi);
            }
        }
        let beta = norm(&w);
        last_beta = beta;
        let scale =
            alphas.iter().fold(0.0_f64, |m, a| m.max(a.abs())).max(betas.iter().fold(0.0, |m, b| m.max(*b)));
        if j + 1 == dimension || beta <= 1e-13 * scale {
            break;
        }
        betas.push(beta);
        basis.push(scaled(&w, 1.0 / beta));
    }
    let m = alphas.len();
    let mut tridiagonal = Mat::<f64>::zeros(m, m);
    for i in 0..m {
        tridiagonal[(i, i)] = alphas[i];
        if i + 1 < m {
            tridiagonal[(i, i + 1)] = betas[i];
            tridiagonal[(i + 1, i)] = betas[i];
        }
    }
    let (values, small_vectors) =
        symmetric_eigen(tridiagonal.as_ref()).map_err(|_| AnalysisError::Eigen { size: m })?;
    let wanted = m.saturating_sub(count)..m;
    let vectors = wanted
        .clone()
        .map(|k| {
            let mut u = vec![0.0; n];
            for (j, q) in basis.iter().take(m).enumerate() {
                let weight = small_vectors[(j, k)];
                u.iter_mut().zip(q).for_each(|(ui, qi)| *ui += weight * qi);
            }
            let length = norm(&u);
            scaled(&u, 1.0 / length)
        })
        .collect();
    let residuals = wanted.clone().map(|k| (last_beta * small_vectors[(m - 1, k)]).abs()).collect();
    Ok(RitzPairs { values: values[wanted].to_vec(), vectors, residuals })
}

/// A fixed pseudo-random vector (a Weyl sequence), so that runs repeat.
fn start_vector(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i as f64 + 1.0) * 0.618_033_988_749_895).fract() - 0.5).collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

fn scaled(a: &[f64], factor: f64) -> Vec<f64> {
    a.iter().map(|x| x * factor).collect()
}
