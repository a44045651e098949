//! The largest stable step of a scheme on a model, and the lowest stable sample rate.
//!
//! - Symplectic Euler, per mode, in closed form: from Morgan & Qiao 2009, eq. (54), `w0 <= sqrt(4 -
//!   2 gamma h) / h`, that is `h <= (-gamma + sqrt(gamma^2 + 4 w0^2)) / w0^2`, the modal form of `h
//!   <= (-Z + sqrt(Z^2 + 4 k m)) / k` (eq. 92 as corrected in docs/errata.md; eq. 92 as printed is
//!   dimensionally wrong). A mode without stiffness is stable while `gamma h <= 2`.
//! - Every other scheme: the spectral radius of its one-step matrices, scanned over steps that
//!   double from `1e-5` to `1e4` over the fastest rate of the model (`max(w0, gamma)` over its
//!   modes), then bisected between the last stable and the first unstable step to `1e-12`
//!   relative. A scheme stable over the whole scan is reported as unconditionally stable (it was
//!   checked, not assumed, up to that step); one unstable at the first step of the scan has no
//!   stable step (forward Euler on an undamped mode, whose poles have `|z| = sqrt(1 + (w0 h)^2)`).
//!   The answer is the first loss of stability: a scheme that became stable again at longer
//!   steps would not be credited with them.
//! - Non-modal damping: the same search on the whole one-step matrix's spectral radius,
//!   bracketed from the equivalent oscillators' answer (by 1 %, 10 %, then factors of 16) and
//!   bisected to `1e-6` relative (each try is a `2n x 2n` eigenvalue problem).
//!
//! Modes that are unstable in the analog model itself (`sigma > 0`, a compressed spring
//! buckling) grow at every step and are left out: the step limit concerns the scheme.

use super::discrete::{one_step_matrix, oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::linearise::Linearisation;
use super::poles::{MATRIX_TOLERANCE, OSCILLATOR_TOLERANCE};
use crate::linalg::eigen::eigenvalues;
use crate::scheme::SchemeKind;
use crate::system::System;

/// The shortest step the scan tries, times the fastest rate of the model.
pub const SCAN_FLOOR: f64 = 1e-5;
/// The longest step the scan tries, times the fastest rate of the model: a scheme stable up to
/// there is reported unconditionally stable.
pub const SCAN_CEILING: f64 = 1e4;

/// The largest stable step of a scheme on a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StableStep {
    /// Every step up to this one (s) is stable and slightly longer ones are not.
    UpTo(f64),
    /// Stable at every step tried, up to `checked_up_to` seconds (infinite for a model without
    /// springs or dampers).
    Unconditional {
        /// The longest step checked, s.
        checked_up_to: f64,
    },
    /// No step is stable.
    Never,
}

impl StableStep {
    /// The largest stable step in seconds: `None` when unconditionally stable, 0 when no step is.
    pub fn seconds(&self) -> Option<f64> {
        match *self {
            StableStep::UpTo(h) => Some(h),
            StableStep::Unconditional { .. } => None,
            StableStep::Never => Some(0.0),
        }
    }

    /// The lowest stable sample rate `1 / h_max`, Hz: 0 when unconditionally stable, infinite
    /// when no step is stable.
    pub fn lowest_rate(&self) -> f64 {
        match *self {
            StableStep::UpTo(h) => 1.0 / h,
            StableStep::Unconditional { .. } => 0.0,
            StableStep::Never => f64::INFINITY,
        }
    }

    /// Whether a step of `dt` seconds is within the limit.
    pub fn allows(&self, dt: f64) -> bool {
        match *self {
            StableStep::UpTo(h) => dt <= h,
            StableStep::Unconditional { .. } => true,
            StableStep::Never => false,
        }
    }
}

/// The largest step for which symplectic Euler keeps one oscillator stable (Morgan & Qiao 2009,
/// eq. (54), in place of eq. 92, which docs/errata.md corrects): `(-gamma + sqrt(gamma^2 + 4 w0^2))
/// / w0^2`, written as `4 / (gamma + sqrt(gamma^2 + 4 w0^2))` (the same number, without
/// cancellation), `2 / gamma` without stiffness, infinite without stiffness or damping, and 0 for
/// negative stiffness.
pub fn symplectic_euler_largest_step(oscillator: Oscillator) -> f64 {
    let Oscillator { gamma, omega0_squared } = oscillator;
    if omega0_squared < 0.0 {
        return 0.0;
    }
    let denominator = gamma + (gamma * gamma + 4.0 * omega0_squared).sqrt();
    if denominator == 0.0 {
        f64::INFINITY
    } else {
        4.0 / denominator
    }
}

/// The largest stable step of `scheme` over a set of oscillators (the modes of a network with
/// modal damping); oscillators with negative stiffness are left out (module documentation).
pub fn oscillators_largest_step(
    scheme: SchemeKind,
    oscillators: &[Oscillator],
) -> Result<StableStep, AnalysisError> {
    let stable_modes: Vec<Oscillator> =
        oscillators.iter().copied().filter(|o| o.omega0_squared >= 0.0).collect();
    if scheme == SchemeKind::SymplecticEuler {
        let h = stable_modes.iter().map(|&o| symplectic_euler_largest_step(o)).fold(f64::INFINITY, f64::min);
        return Ok(if h.is_finite() {
            StableStep::UpTo(h)
        } else {
            StableStep::Unconditional { checked_up_to: f64::INFINITY }
        });
    }
    let is_stable = |h: f64| -> Result<bool, AnalysisError> {
        Ok(oscillator_poles(scheme, &stable_modes, h)?
            .iter()
            .all(|poles| poles.iter().all(|z| z.norm() <= 1.0 + OSCILLATOR_TOLERANCE)))
    };
    search(fastest_rate(&stable_modes), 2.0, 1e-12, is_stable)
}

/// The largest stable step of `scheme` on a network with non-modal damping: the spectral radius
/// of the whole one-step matrix ([`one_step_matrix`]), bracketed from `estimate` (the
/// equivalent oscillators' answer). A step counts as stable when no more eigenvalues lie
/// outside the unit circle than the analog model has unstable poles (`unstable_poles`).
pub fn network_largest_step(
    system: &System,
    scheme: SchemeKind,
    linearisation: &Linearisation,
    estimate: StableStep,
    unstable_poles: usize,
    fastest: f64,
) -> Result<StableStep, AnalysisError> {
    let is_stable = |h: f64| -> Result<bool, AnalysisError> {
        let matrix = match one_step_matrix(system, scheme, h, linearisation) {
            Ok(matrix) => matrix,
            // A step the scheme cannot take (Newton diverging) is not a stable one.
            Err(AnalysisError::Scheme(_)) => return Ok(false),
            Err(other) => return Err(other),
        };
        let size = matrix.nrows();
        let values = eigenvalues(matrix.as_ref()).map_err(|_| AnalysisError::Eigen { size })?;
        Ok(values.iter().filter(|z| z.norm() > 1.0 + MATRIX_TOLERANCE).count() <= unstable_poles)
    };
    if fastest == 0.0 {
        return Ok(StableStep::Unconditional { checked_up_to: f64::INFINITY });
    }
    let start = match estimate {
        StableStep::UpTo(h) => h,
        _ => 1.0 / fastest,
    };
    let (floor, ceiling) = (SCAN_FLOOR / fastest, SCAN_CEILING / fastest);
    // Bracket from the estimate by growing factors (1 %, 10 %, then 16x), then bisect.
    let factors = [1.01, 1.1, 16.0];
    let mut low = start.clamp(floor, ceiling);
    let high = if is_stable(low)? {
        let mut tries = 0;
        loop {
            if low >= ceiling {
                return Ok(StableStep::Unconditional { checked_up_to: ceiling });
            }
            let high = (low * factors[tries.min(2)]).min(ceiling);
            if !is_stable(high)? {
                break high;
            }
            low = high;
            tries += 1;
        }
    } else {
        let mut tries = 0;
        loop {
            if low <= floor {
                return Ok(StableStep::Never);
            }
            let high = low;
            low = (low / factors[tries.min(2)]).max(floor);
            if is_stable(low)? {
                break high;
            }
            tries += 1;
        }
    };
    bisect(low, high, 1e-6, is_stable)
}

/// The fastest rate of a set of oscillators, `max(w0, gamma)`, 1/s.
pub fn fastest_rate(oscillators: &[Oscillator]) -> f64 {
    oscillators.iter().map(|o| o.omega0_squared.max(0.0).sqrt().max(o.gamma)).fold(0.0, f64::max)
}

/// The scan and bisection of the module documentation, with steps growing by `factor` and the
/// bisection stopping at `relative` precision.
fn search(
    fastest: f64,
    factor: f64,
    relative: f64,
    mut is_stable: impl FnMut(f64) -> Result<bool, AnalysisError>,
) -> Result<StableStep, AnalysisError> {
    if fastest == 0.0 {
        return Ok(StableStep::Unconditional { checked_up_to: f64::INFINITY });
    }
    let (floor, ceiling) = (SCAN_FLOOR / fastest, SCAN_CEILING / fastest);
    if !is_stable(floor)? {
        return Ok(StableStep::Never);
    }
    let mut low = floor;
    while low < ceiling {
        let high = low * factor;
        if !is_stable(high)? {
            return bisect(low, high, relative, is_stable);
        }
        low = high;
    }
    Ok(StableStep::Unconditional { checked_up_to: low })
}

/// Bisects between a stable `low` and an unstable `high` step.
fn bisect(
    mut low: f64,
    mut high: f64,
    relative: f64,
    mut is_stable: impl FnMut(f64) -> Result<bool, AnalysisError>,
) -> Result<StableStep, AnalysisError> {
    while high - low > relative * low {
        let middle = 0.5 * (low + high);
        if is_stable(middle)? {
            low = middle;
        } else {
            high = middle;
        }
    }
    Ok(StableStep::UpTo(low))
}
