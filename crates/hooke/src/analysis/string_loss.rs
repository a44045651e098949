//! Decay that depends on frequency the way a string's does: a frequency-independent loss (drag on
//! every mass) and a frequency-dependent one (dampers on the links), set so that the *simulated*
//! string decays with given time constants at its fundamental and at a high partial.
//!
//! On a uniform string of `N` masses `m` with springs `k` and dampers `Z` on its `N + 1` links
//! and drag `c` (N s/m) on every mass, `M = m I`, `K = k L` and `D = c I + Z L`, with `L` the
//! tridiagonal `(2, -1)` matrix. All three are diagonal in `L`'s sine modes (eigenvalues
//! `lambda_j = 4 sin^2(j pi / (2 (N + 1)))`), so mode `j` is the damped oscillator
//!
//! ```text
//! gamma_j = (c + Z lambda_j) / m,   w_j^2 = k lambda_j / m,
//! ```
//!
//! whose decay rate `gamma_j / 2 = c / 2m + (Z / 2k) w_j^2` is the two-parameter loss law of a
//! string, `sigma(f) = sigma_0 + sigma_1 f^2` (Bilbao 2009, Numerical Sound Synthesis, section
//! 7.1.3: a constant loss and one growing with the square of the frequency). Dampers alone
//! (`c = 0`, what [`super::design::design_string`] sets) make every partial decay at a rate
//! `(f / f_0)^2` times the fundamental's, which leaves a plucked string dull at once.
//!
//! The design, for `scheme` at step `h`:
//! 1. the law through `(f_0, tau_0)` and `(f_h, tau_h)`: `sigma_1 = (1/tau_h - 1/tau_0) /
//!    (f_h^2 - f_0^2)`, `sigma_0 = 1/tau_0 - sigma_1 f_0^2`;
//! 2. the fundamental: the analog oscillator `(gamma_1, w_1^2)` that the scheme maps to the
//!    digital pole of `(f_0, tau_0)` ([`invert_pole`], which corrects the scheme's frequency
//!    warping and numerical damping), so `k = m w_1^2 / lambda_1`;
//! 3. the mode `j` whose simulated frequency lies nearest `f_h`: the `gamma_j` for which the
//!    scheme's pole of `(gamma_j, k lambda_j / m)` decays at the law's rate at that pole's own
//!    frequency (bisection: the decay grows with `gamma_j`);
//! 4. `Z = m (gamma_j - gamma_1) / (lambda_j - lambda_1)` and `c = m gamma_1 - Z lambda_1`.
//!
//! Modes 1 and `j` then decay exactly as the law says once simulated; the others follow it to
//! the scheme's warping of their frequencies (`crates/hooke/tests/string_loss.rs` measures
//! them).

use super::design::{digital_target, invert_pole, StringDesign};
use super::discrete::{oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::poles::dominant;
use crate::model::{Model, StringSpec};
use crate::scheme::SchemeKind;
use std::f64::consts::PI;

/// Bisection steps on a partial's damping: the bracket shrinks to 2^-80 of its width.
const BISECTIONS: usize = 80;

/// The two-point loss law: decay rate `sigma(f) = sigma_0 + sigma_1 f^2` (1/s) through time
/// constants (decay to `1/e`) given at two frequencies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossLaw {
    /// The frequency-independent rate `sigma_0`, 1/s.
    pub constant: f64,
    /// `sigma_1`, s (1/s per Hz^2).
    pub quadratic: f64,
}

impl LossLaw {
    /// The law with time constant `tau_low` (s) at `f_low` (Hz) and `tau_high` at `f_high`:
    /// `f_high > f_low > 0`, `0 < tau_high <= tau_low`, and a constant part `sigma_0 >= 0` (the
    /// high partial may not decay so fast that the law would need a negative loss at 0 Hz).
    pub fn through(f_low: f64, tau_low: f64, f_high: f64, tau_high: f64) -> Result<Self, AnalysisError> {
        let positive = |x: f64| x > 0.0 && x.is_finite();
        if !(positive(f_low) && positive(f_high) && f_high > f_low) {
            return Err(AnalysisError::Target(format!(
                "a high frequency above the fundamental, both > 0 Hz; found {f_high} Hz and {f_low} Hz"
            )));
        }
        if !(positive(tau_low) && positive(tau_high) && tau_high <= tau_low) {
            return Err(AnalysisError::Target(format!(
                "time constants > 0 s, the high partial's no longer than the fundamental's; found {tau_high} s at \
                 {f_high} Hz and {tau_low} s at {f_low} Hz"
            )));
        }
        let quadratic = (1.0 / tau_high - 1.0 / tau_low) / (f_high * f_high - f_low * f_low);
        let constant = 1.0 / tau_low - quadratic * f_low * f_low;
        if constant < 0.0 {
            return Err(AnalysisError::Target(format!(
                "a loss law with a frequency-independent part >= 0: {tau_high} s at {f_high} Hz decays so much faster \
                 than {tau_low} s at {f_low} Hz that sigma(0) = {constant:.6e} 1/s; give the high partial a longer \
                 time constant or a higher frequency"
            )));
        }
        Ok(Self { constant, quadratic })
    }

    /// The decay rate at `frequency_hz`, 1/s.
    pub fn rate(&self, frequency_hz: f64) -> f64 {
        self.constant + self.quadratic * frequency_hz * frequency_hz
    }
}

/// The coefficients of a uniform string of `masses` masses of `mass` kg whose simulated
/// fundamental sounds at `frequency_hz` and whose partials decay by `law` (at the fundamental
/// and at the partial nearest `high_hz`, exactly; the others to the scheme's warping), with
/// `scheme` at step `h` (s). The result's `drag` is the drag rate `c / m` (1/s).
pub fn design_lossy_string(
    masses: usize,
    mass: f64,
    frequency_hz: f64,
    law: &LossLaw,
    high_hz: f64,
    scheme: SchemeKind,
    h: f64,
) -> Result<StringDesign, AnalysisError> {
    if masses < 2 {
        return Err(AnalysisError::Target(format!(
            "a string of at least 2 masses for two decay times; found {masses}"
        )));
    }
    if !(mass > 0.0 && mass.is_finite()) {
        return Err(AnalysisError::Target(format!("a mass > 0 kg; found {mass}")));
    }
    let lambda = |j: usize| (0.5 * j as f64 * PI / (masses + 1) as f64).sin().powi(2) * 4.0;
    let fundamental =
        invert_pole(scheme, digital_target(frequency_hz, Some(1.0 / law.rate(frequency_hz)), h)?, h)?;
    let per_unit = fundamental.omega0_squared / lambda(1);
    // The partial whose simulated frequency (with the law's damping, near enough) is nearest high_hz.
    let simulated = |j: usize, gamma: f64| -> Result<(f64, f64), AnalysisError> {
        let oscillator = Oscillator { gamma, omega0_squared: per_unit * lambda(j) };
        let z = dominant(oscillator_poles(scheme, &[oscillator], h)?[0]);
        Ok((z.arg() / (2.0 * PI * h), -z.norm().ln() / h))
    };
    let mut nearest = (2, f64::INFINITY);
    for j in 2..=masses {
        let (f, _) = simulated(j, 0.0)?;
        if (f - high_hz).abs() < nearest.1 {
            nearest = (j, (f - high_hz).abs());
        }
    }
    let j = nearest.0;
    // The excess of the simulated decay over the law's at the simulated frequency.
    let excess = |gamma: f64| simulated(j, gamma).map(|(f, decay)| decay - law.rate(f));
    if excess(0.0)? > 0.0 {
        return Err(AnalysisError::Target(format!(
            "partial {j} ({:.3} Hz) decaying at {:.6e} 1/s or slower: {scheme} at h = {h} s damps it more than that \
             with no loss at all",
            simulated(j, 0.0)?.0,
            law.rate(simulated(j, 0.0)?.0)
        )));
    }
    let mut high = 2.0 * law.rate(high_hz).max(fundamental.gamma);
    while excess(high)? <= 0.0 {
        high *= 2.0;
        if !high.is_finite() || high > 1e3 / h {
            return Err(AnalysisError::NoConvergence {
                what: "bracketing a partial's damping",
                iterations: 0,
                residual: excess(high)?,
            });
        }
    }
    let mut low = 0.0;
    for _ in 0..BISECTIONS {
        let middle = 0.5 * (low + high);
        if excess(middle)? > 0.0 {
            high = middle;
        } else {
            low = middle;
        }
    }
    let gamma_j = 0.5 * (low + high);
    let damping_rate = (gamma_j - fundamental.gamma) / (lambda(j) - lambda(1));
    let drag = fundamental.gamma - damping_rate * lambda(1);
    if damping_rate < 0.0 || drag < 0.0 {
        return Err(AnalysisError::Target(format!(
            "a loss law {scheme} at h = {h} s can give with dampers and drag >= 0: the fundamental needs a damping \
             rate of {:.6e} 1/s and partial {j} {gamma_j:.6e} 1/s, which makes the {} negative",
            fundamental.gamma,
            if damping_rate < 0.0 { "dampers" } else { "drag" }
        )));
    }
    let (stiffness, damping) = (per_unit * mass, damping_rate * mass);
    let mut model = Model::new(1)?;
    model.add_string(
        StringSpec::new("s", masses).mass(mass).stiffness(stiffness).damping(damping).drag(drag),
    )?;
    Ok(StringDesign { omega0: per_unit.sqrt(), gamma: damping_rate, mass, stiffness, damping, drag, model })
}

#[cfg(test)]
mod tests {
    use super::LossLaw;

    #[test]
    fn the_law_passes_through_its_two_points() {
        let law = LossLaw::through(110.0, 3.0, 3000.0, 0.3).unwrap();
        assert!((law.rate(110.0) - 1.0 / 3.0).abs() < 1e-15);
        assert!((law.rate(3000.0) - 1.0 / 0.3).abs() < 1e-14);
        assert!(law.constant > 0.0 && law.quadratic > 0.0);
    }

    #[test]
    fn a_law_that_needs_a_negative_loss_is_refused() {
        // 1 s at 100 Hz and 1e-4 s at 200 Hz: sigma(0) would be far below 0.
        let error = LossLaw::through(100.0, 1.0, 200.0, 1e-4).unwrap_err().to_string();
        assert!(error.contains("frequency-independent part >= 0"), "{error}");
        assert!(LossLaw::through(100.0, 1.0, 50.0, 0.5).is_err());
        assert!(LossLaw::through(100.0, 1.0, 200.0, 2.0).is_err());
    }
}
