//! The analog modes of a linearised network: its poles `s = sigma + j mu` and mode shapes.
//!
//! The poles are the eigenvalues of the state matrix `A = [[0, I], [-M^-1 K, -M^-1 D]]`
//! (Morgan & Qiao 2009, eq. (77)). Three paths compute them:
//!
//! - **Modal** (dense): when `D` is diagonalised by the same modes as `K` (no damping, damping
//!   proportional to `M` and `K` as in the string of Morgan & Qiao 2009, section 4.3, any `D` that
//!   commutes with `M^-1 K`), the symmetric eigenproblem of `M^-1/2 K M^-1/2` (the generalised
//!   problem `K u = w^2 M u` of Morgan & Qiao 2008, section 5) gives each mode as an oscillator
//!   `(gamma_i, w_i^2)` = `(u^T D u, u^T K u)` with `M`-normalised `u`, and its poles are the
//!   oscillator's (Morgan & Qiao 2009, eqs. (18)-(19)). Exact, and more accurate than the `2n x 2n`
//!   eigenproblem (a symmetric solver's error is relative to `|K|`, not to `|A|`). Up to
//!   [`DENSE_MODAL_LIMIT`] coordinates.
//! - **State matrix** (dense): otherwise, the eigenvalues and eigenvectors of `A` itself (a real
//!   nonsymmetric eigensolver that stops in bounded time, `linalg::eigen`), in the balanced form
//!   `[[0, w I], [-K'/w, -D']]` (`K' = M^-1/2 K M^-1/2`, `D'` likewise, `w` the largest
//!   `sqrt(K'_ii)`), which is similar to `A` and keeps its entries of one size. Up to
//!   [`STATE_MATRIX_LIMIT`] coordinates.
//! - **Sparse** (lowest and highest modes of larger models): see [`super::lanczos`].

use super::discrete::Oscillator;
use super::error::AnalysisError;
use super::lanczos;
use super::linearise::Linearisation;
use crate::linalg::eigen::{eigen, symmetric_eigen};
use faer::{c64, Mat};
use std::f64::consts::PI;

/// The largest number of moving coordinates the dense modal path takes (a symmetric
/// eigenproblem of that size with vectors and two projections: the whole analysis of a
/// 1000-mass string takes about 0.4 s; see docs/analysis.md).
pub const DENSE_MODAL_LIMIT: usize = 1000;

/// The largest number of moving coordinates whose state matrix (`2n x 2n`, nonsymmetric) is
/// solved densely, and whose one-step matrix is measured, when the damping is not modal (the
/// largest stable step then takes about 15 such eigenvalue problems: about 1 s at this size).
pub const STATE_MATRIX_LIMIT: usize = 200;

/// How far from diagonal the modal projections `U^T K' U`, `U^T D' U` may be (relative to the
/// matrices' Frobenius norms) for the damping to count as modal.
pub const MODAL_TOLERANCE: f64 = 1e-9;

/// One mode of a network with modal damping: its oscillator and its (real) shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ModalOscillator {
    /// `(gamma_i, w_i^2)` of the mode.
    pub oscillator: Oscillator,
    /// The displacement of each moving coordinate, scaled so that the largest is +1.
    pub shape: Vec<f64>,
}

/// Whether the modes of `K` also diagonalise `D`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damping {
    /// They do: the network is a set of independent oscillators.
    Modal,
    /// They do not: the poles come from the state matrix, and the discrete poles from the
    /// whole one-step matrix.
    NonModal,
}

/// One analog mode: a pole with `mu >= 0` and its shape, one per eigenvector of the state matrix.
/// A vibrating mode stands for its conjugate pair; a real pole is a mode of its own, so an
/// overdamped oscillator gives two. A free motion (a direction with no stiffness, such as a
/// pendulum's swing about a slack spring) is one mode at `s = 0`: undamped, its double pole at 0
/// has a single eigenvector (the state drifts, `x = x_0 + v_0 t`); damped, it has a second,
/// decaying mode at `s = -gamma`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mode {
    /// The analog pole `s = sigma + j mu`, rad/s.
    pub pole: c64,
    /// The oscillator the pole belongs to: exact with modal damping, the equivalent oscillator
    /// of the pole ([`Oscillator::from_pole`]) otherwise.
    pub oscillator: Oscillator,
    /// Which of the oscillator's two poles ([`Oscillator::poles`]) this mode is: 0 or 1 (1 only
    /// for the second real pole of a non-vibrating oscillator).
    pub root: usize,
    /// The displacement of each moving coordinate in this mode (complex for non-modal damping),
    /// scaled so that the largest component is 1.
    pub shape: Vec<c64>,
}

impl Mode {
    /// The analog frequency `mu / 2 pi`, Hz.
    pub fn frequency_hz(&self) -> f64 {
        self.pole.im / (2.0 * PI)
    }

    /// The analog decay rate `sigma`, 1/s (negative for a decaying mode).
    pub fn decay_rate(&self) -> f64 {
        self.pole.re
    }

    /// Whether this is a free motion: no stiffness holds it, its pole is `s = 0`.
    pub fn is_free(&self) -> bool {
        self.pole == c64::new(0.0, 0.0)
    }

    /// Whether the analog mode itself does not grow (`sigma <= 0`, to rounding).
    pub fn is_stable(&self) -> bool {
        self.pole.re <= 1e-9 * self.pole.norm().max(f64::MIN_POSITIVE)
    }
}

/// The modes of a linearised network and how they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct Modes {
    /// The modes, by increasing frequency `mu` (then by `|s|`).
    pub modes: Vec<Mode>,
    /// Whether the damping is modal.
    pub damping: Damping,
    /// Whether these are all the modes (dense paths) or the lowest and highest ones (sparse).
    pub complete: bool,
    /// What the reader should know about how far to trust them (sparse path: convergence,
    /// estimated damping).
    pub notes: Vec<String>,
}

/// How many modes the sparse path finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SparseCounts {
    /// The lowest modes (shift-invert Lanczos).
    pub lowest: usize,
    /// The highest modes of `K`, and of `D` when there is damping (Lanczos).
    pub highest: usize,
}

impl Default for SparseCounts {
    fn default() -> Self {
        Self { lowest: 20, highest: 4 }
    }
}

/// The modes of `linearisation`: dense (modal or state matrix) where the size allows, sparse
/// otherwise (`counts` says how many).
pub fn modes(linearisation: &Linearisation, counts: SparseCounts) -> Result<Modes, AnalysisError> {
    let n = linearisation.coordinates();
    if n <= DENSE_MODAL_LIMIT {
        if let Some(oscillators) = modal_oscillators(linearisation)? {
            return Ok(Modes {
                modes: modes_of_oscillators(oscillators),
                damping: Damping::Modal,
                complete: true,
                notes: Vec::new(),
            });
        }
        if n <= STATE_MATRIX_LIMIT {
            return Ok(Modes {
                modes: state_matrix_modes(linearisation)?,
                damping: Damping::NonModal,
                complete: true,
                notes: Vec::new(),
            });
        }
    }
    lanczos::extreme_modes(linearisation, counts)
}

/// The modes as oscillators `(gamma_i, w_i^2)` with their real shapes, when the damping is
/// modal; `None` when it is not. The eigenvectors are those of `K' + t D'` with
/// `t = 0.618 |K'| / |D'|`: when `K'` and `D'` commute they are common eigenvectors (even where
/// `K'` has repeated eigenvalues), and the damping is modal exactly when both projections
/// `U^T K' U` and `U^T D' U` come out diagonal (within [`MODAL_TOLERANCE`]).
pub fn modal_oscillators(
    linearisation: &Linearisation,
) -> Result<Option<Vec<ModalOscillator>>, AnalysisError> {
    let n = linearisation.coordinates();
    let stiffness = linearisation.normalised_stiffness();
    let damping = linearisation.normalised_damping();
    let (stiffness_norm, damping_norm) = (stiffness.norm_l2(), damping.norm_l2());
    let combined = match (stiffness_norm > 0.0, damping_norm > 0.0) {
        (_, false) => stiffness.clone(),
        (false, true) => damping.clone(),
        (true, true) => {
            &stiffness + &damping * faer::Scale(0.618_033_988_749_895 * stiffness_norm / damping_norm)
        }
    };
    let (_, vectors) = symmetric_eigen(combined.as_ref()).map_err(|_| AnalysisError::Eigen { size: n })?;
    let projected_stiffness = vectors.transpose() * &stiffness * &vectors;
    let projected_damping = vectors.transpose() * &damping * &vectors;
    let off_diagonal = |matrix: &Mat<f64>| {
        let mut largest = 0.0_f64;
        for c in 0..n {
            for r in 0..n {
                if r != c {
                    largest = largest.max(matrix[(r, c)].abs());
                }
            }
        }
        largest
    };
    if off_diagonal(&projected_stiffness) > MODAL_TOLERANCE * stiffness_norm
        || off_diagonal(&projected_damping) > MODAL_TOLERANCE * damping_norm
    {
        return Ok(None);
    }
    let largest_rate = (0..n).map(|i| projected_stiffness[(i, i)].abs()).fold(0.0, f64::max);
    let scale: Vec<f64> = linearisation.inverse_mass().iter().map(|w| w.sqrt()).collect();
    let oscillators = (0..n)
        .map(|i| {
            let oscillator = Oscillator {
                gamma: projected_damping[(i, i)].max(0.0),
                omega0_squared: clean_rate(projected_stiffness[(i, i)], largest_rate),
            };
            let shape = (0..n).map(|r| scale[r] * vectors[(r, i)]).collect();
            ModalOscillator { oscillator, shape: normalise_real(shape) }
        })
        .collect();
    Ok(Some(oscillators))
}

/// A `w^2` within rounding of zero (relative to the largest) is zero: a free motion, not an
/// unstable one.
pub(crate) fn clean_rate(omega0_squared: f64, largest: f64) -> f64 {
    if omega0_squared.abs() <= 1e-12 * largest {
        0.0
    } else {
        omega0_squared
    }
}

/// The modes of a set of oscillators, sorted by frequency: one per vibrating oscillator (its pole
/// with `mu > 0`), two per non-vibrating one (its two real poles), except one for an undamped
/// oscillator without stiffness (a free motion: its double pole at 0 is one mode, see [`Mode`]).
pub fn modes_of_oscillators(oscillators: Vec<ModalOscillator>) -> Vec<Mode> {
    let mut modes = Vec::with_capacity(oscillators.len());
    for ModalOscillator { oscillator, shape } in oscillators {
        let shape: Vec<c64> = shape.into_iter().map(|x| c64::new(x, 0.0)).collect();
        let [first, second] = oscillator.poles();
        modes.push(Mode { pole: first, oscillator, root: 0, shape: shape.clone() });
        let free = oscillator.gamma == 0.0 && oscillator.omega0_squared == 0.0;
        if first.im == 0.0 && !free {
            modes.push(Mode { pole: second, oscillator, root: 1, shape });
        }
    }
    sort_modes(&mut modes);
    modes
}

/// The modes from the eigenvalues and eigenvectors of the state matrix (eq. 77), balanced as
/// the module documentation says. Poles with `mu < 0` are the conjugates of others and are left
/// out. Poles at 0 are the free motions: one mode per direction without stiffness (the null space
/// of `K'`, whatever the eigensolver makes of a defective double pole), with that direction as
/// its shape.
pub fn state_matrix_modes(linearisation: &Linearisation) -> Result<Vec<Mode>, AnalysisError> {
    let n = linearisation.coordinates();
    let stiffness = linearisation.normalised_stiffness();
    let damping = linearisation.normalised_damping();
    let omega = (0..n).map(|i| stiffness[(i, i)].abs()).fold(0.0, f64::max).sqrt();
    let omega = if omega > 0.0 { omega } else { 1.0 };
    let mut balanced = Mat::<f64>::zeros(2 * n, 2 * n);
    for i in 0..n {
        balanced[(i, n + i)] = omega;
        for j in 0..n {
            balanced[(n + i, j)] = -stiffness[(i, j)] / omega;
            balanced[(n + i, n + j)] = -damping[(i, j)];
        }
    }
    let (values, vectors) = eigen(balanced.as_ref()).map_err(|_| AnalysisError::Eigen { size: 2 * n })?;
    let scale: Vec<f64> = linearisation.inverse_mass().iter().map(|w| w.sqrt()).collect();
    let mut modes = Vec::with_capacity(n);
    for k in 0..2 * n {
        let s = values[k];
        if s.im < -real_pole_tolerance(s) {
            continue;
        }
        if s.norm() <= FREE_MOTION_TOLERANCE * omega {
            // A free motion (an undamped one is a defective double pole at 0, which the
            // eigensolver splits by the square root of the rounding): counted below, once per
            // direction.
            continue;
        }
        let pole = if s.im.abs() <= real_pole_tolerance(s) { c64::new(s.re, 0.0) } else { s };
        // Displacements: the first n components are w M^1/2 x.
        let shape: Vec<c64> = (0..n).map(|r| vectors[(r, k)] * (scale[r] / omega)).collect();
        modes.push(Mode {
            pole,
            oscillator: Oscillator::from_pole(pole),
            root: 0,
            shape: normalise_complex(shape),
        });
    }
    modes.extend(free_motions(linearisation, &stiffness, omega)?);
    sort_modes(&mut modes);
    Ok(modes)
}

/// One mode at `s = 0` per direction that `stiffness` (`K'`, whose largest rate is `omega`) does
/// not resist: the eigenvectors of `K'` whose eigenvalue is below the square of
/// [`FREE_MOTION_TOLERANCE`]` omega`, the same bound as for the poles.
fn free_motions(
    linearisation: &Linearisation,
    stiffness: &Mat<f64>,
    omega: f64,
) -> Result<Vec<Mode>, AnalysisError> {
    let n = linearisation.coordinates();
    let (values, vectors) =
        symmetric_eigen(stiffness.as_ref()).map_err(|_| AnalysisError::Eigen { size: n })?;
    let scale: Vec<f64> = linearisation.inverse_mass().iter().map(|w| w.sqrt()).collect();
    let bound = (FREE_MOTION_TOLERANCE * omega).powi(2);
    Ok((0..n)
        .filter(|&k| values[k].abs() <= bound)
        .map(|k| {
            let shape = normalise_real((0..n).map(|r| scale[r] * vectors[(r, k)]).collect());
            let pole = c64::new(0.0, 0.0);
            Mode {
                pole,
                oscillator: Oscillator::from_pole(pole),
                root: 0,
                shape: shape.into_iter().map(|x| c64::new(x, 0.0)).collect(),
            }
        })
        .collect())
}

/// Poles of the state matrix smaller than this, relative to its largest rate `w`, are free
/// motions at exactly 0 (a double eigenvalue 0 is perturbed by about `sqrt(rounding) w`).
const FREE_MOTION_TOLERANCE: f64 = 1e-7;

/// An eigenvalue of a real matrix whose imaginary part is below this is real.
fn real_pole_tolerance(s: c64) -> f64 {
    1e-12 * s.norm()
}

fn sort_modes(modes: &mut [Mode]) {
    modes.sort_by(|a, b| a.pole.im.total_cmp(&b.pole.im).then(a.pole.norm().total_cmp(&b.pole.norm())));
}

/// Scales a real shape so that its largest component is +1.
pub(crate) fn normalise_real(mut shape: Vec<f64>) -> Vec<f64> {
    let largest = shape.iter().copied().fold(0.0_f64, |m, x| if x.abs() > m.abs() { x } else { m });
    if largest != 0.0 {
        shape.iter_mut().for_each(|x| *x /= largest);
    }
    shape
}

/// Scales a complex shape so that its largest component is +1.
fn normalise_complex(mut shape: Vec<c64>) -> Vec<c64> {
    let largest =
        shape.iter().copied().fold(c64::new(0.0, 0.0), |m, x| if x.norm() > m.norm() { x } else { m });
    if largest.norm() != 0.0 {
        shape.iter_mut().for_each(|x| *x /= largest);
    }
    shape
}
