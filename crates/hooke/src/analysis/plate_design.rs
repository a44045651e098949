//! A simply supported plate designed so that the *simulated* plate has the requested first
//! mode and the requested decay times at that mode and at a high frequency, for a chosen scheme
//! and step.
//!
//! The plate is [`crate::model::PlateSpec`]'s: masses `m = rho h s^2` on a square lattice of
//! spacing `s`, the five-point Laplacian `L` (rim held) in each bending element of `kappa = D /
//! s^2`, a drag `c` (1/s) on every mass and a damper `Z` on every lattice edge. So `M = m I`, `K
//! = kappa L^2` and `D = c m I + Z L`, all diagonal in `L`'s sine modes, of eigenvalues
//!
//! ```text
//! mu_pq = 4 sin^2(p pi / (2 (C + 1))) + 4 sin^2(q pi / (2 (R + 1))),
//! ```
//!
//! and mode `(p, q)` is the damped oscillator `w^2 = (kappa / m) mu_pq^2 = D mu_pq^2 / (rho h
//! s^4)`, `gamma = c + (Z / m) mu_pq`. The damper's rate grows in proportion to `mu`, so to the
//! mode's frequency: the plate's loss is the two-point law `sigma(f) = sigma_0 + sigma_1 f`, a
//! loss factor the same at every frequency (`sigma = pi eta f` for a metal) and a constant part
//! (the supports, the air at low frequency).
//!
//! The design, for `scheme` at step `h` ([`design_plate`]):
//! 1. the analog oscillator that the scheme maps to the digital pole of the first mode
//!    ([`super::design::invert_pole`], which corrects the scheme's frequency warping and
//!    numerical damping) gives `w_11^2`, hence the spacing `s = (D mu_11^2 / (rho h w_11^2))^(1/4)`;
//! 2. for the first mode and the mode whose simulated frequency lies nearest the high
//!    frequency: the `gamma` whose simulated pole decays at the law's rate at that pole's own
//!    frequency ([`super::design::matching_damping`]);
//! 3. `Z = m (gamma_h - gamma_11) / (mu_h - mu_11)` and `c = gamma_11 - (Z / m) mu_11`.

use super::design::{digital_target, invert_pole, matching_damping};
use super::discrete::{oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::poles::dominant;
use super::string_partials::fit_two_points;
use crate::model::PlateSpec;
use crate::scheme::SchemeKind;
use std::f64::consts::PI;

/// What a designed plate should be, as simulated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlateTarget {
    /// The first mode's digital frequency, Hz.
    pub frequency_hz: f64,
    /// The first mode's time constant (decay to `1/e`), s.
    pub decay: f64,
    /// The frequency of the second point of the loss law, Hz (above the first mode).
    pub high_frequency: f64,
    /// The time constant at `high_frequency`, s (at most `decay`).
    pub high_decay: f64,
    /// Masses along x.
    pub columns: usize,
    /// Masses along y.
    pub rows: usize,
    /// Mass per unit area `rho h`, kg/m^2.
    pub surface_density: f64,
    /// Bending rigidity `D`, N m.
    pub rigidity: f64,
}

/// The plate (id `"plate"`) whose simulated first mode and losses are `target`'s with `scheme`
/// at step `h` (s).
pub fn design_plate(target: &PlateTarget, scheme: SchemeKind, h: f64) -> Result<PlateSpec, AnalysisError> {
    let PlateTarget { frequency_hz, decay, high_frequency, high_decay, columns, rows, .. } = *target;
    if columns < 2 || rows < 2 {
        return Err(AnalysisError::Target(format!(
            "a plate of at least 2 x 2 masses; found {columns} x {rows}"
        )));
    }
    if !(target.surface_density > 0.0 && target.rigidity > 0.0 && target.rigidity.is_finite()) {
        return Err(AnalysisError::Target(format!(
            "a surface density > 0 kg/m^2 and a rigidity > 0 N m; found {} and {}",
            target.surface_density, target.rigidity
        )));
    }
    // The law sigma(f) = sigma_0 + sigma_1 f.
    let (constant, slope) = fit_two_points((frequency_hz, decay), (high_frequency, high_decay), |f| f)?;
    let mu = |p: usize, q: usize| {
        let side = |k: usize, count: usize| 4.0 * (0.5 * k as f64 * PI / (count + 1) as f64).sin().powi(2);
        side(p, columns) + side(q, rows)
    };
    let first = invert_pole(scheme, digital_target(frequency_hz, Some(decay), h)?, h)?;
    // Per unit mass: w^2 = bend mu^2.
    let bend = first.omega0_squared / mu(1, 1).powi(2);
    let simulated = |(p, q): (usize, usize), gamma: f64| -> Result<(f64, f64), AnalysisError> {
        let oscillator = Oscillator { gamma, omega0_squared: bend * mu(p, q).powi(2) };
        let z = dominant(oscillator_poles(scheme, &[oscillator], h)?[0]);
        Ok((z.arg() / (2.0 * PI * h), -z.norm().ln() / h))
    };
    let mut high_mode = (1, 1);
    let mut distance = f64::INFINITY;
    for p in 1..=columns {
        for q in 1..=rows {
            let (f, _) = simulated((p, q), 0.0)?;
            if (p, q) != (1, 1) && (f - high_frequency).abs() < distance {
                (high_mode, distance) = ((p, q), (f - high_frequency).abs());
            }
        }
    }
    let rate = |f: f64| constant + slope * f;
    let gamma_1 = matching_damping("the first mode", rate, scheme, h, |g| simulated((1, 1), g))?;
    let what = format!("mode {high_mode:?}");
    let gamma_h = matching_damping(&what, rate, scheme, h, |g| simulated(high_mode, g))?;
    let damping_rate = (gamma_h - gamma_1) / (mu(high_mode.0, high_mode.1) - mu(1, 1));
    let drag = gamma_1 - damping_rate * mu(1, 1);
    if damping_rate < 0.0 || drag < 0.0 {
        return Err(AnalysisError::Target(format!(
            "a loss law {scheme} at h = {h} s can give with dampers and drag >= 0: the first mode needs a damping \
             rate of {gamma_1:.6e} 1/s and mode {high_mode:?} {gamma_h:.6e} 1/s, which makes the {} negative",
            if damping_rate < 0.0 { "dampers" } else { "drag" }
        )));
    }
    // bend = kappa / m = D / (rho h s^4).
    let spacing = (target.rigidity / (target.surface_density * bend)).powf(0.25);
    let mut plate = PlateSpec {
        id: "plate".to_string(),
        columns,
        rows,
        spacing,
        surface_density: target.surface_density,
        rigidity: target.rigidity,
        drag,
        damping: 0.0,
    };
    plate.damping = damping_rate * plate.mass();
    Ok(plate)
}
