//! Designing a model so that the *simulated* instrument has a given pitch and decay: inverse
//! warping, the string design of Morgan & Qiao 2009, section 4.3 (Algorithms 1-4), and tuning any
//! model.
//!
//! The idea of Algorithm 1: the lowest mode must have, after the scheme's frequency warping and
//! numerical damping, the digital pole `z* = e^{(-1/tau + j 2 pi F) h}`. Invert the scheme's pole
//! mapping to find the analog oscillator `(gamma*, w*^2)` that the scheme maps to `z*` (for
//! symplectic Euler: eq. 84 for `gamma*` and the inverse warping of Algorithm 2 for its
//! frequency), then choose the model's coefficients so that its lowest mode is that
//! oscillator. For the string (Algorithms 3-4) `K` and `Z` are `k` and `gamma m` times the
//! tridiagonal `(2, -1)` matrix (the dampers sit on the springs; see docs/errata.md), so its lowest
//! mode is `(gamma lambda_1, w0^2 lambda_1)` with `lambda_1` the lowest eigenvalue of that matrix;
//! the root-finding of Algorithm 1's steps 2 and 4 (`g(gamma_out) = sigma_1`, `f(w0_out) = mu_1`)
//! then has the solution `gamma_out = gamma* / lambda_1`, `w0_out^2 = w*^2 / lambda_1`. [`tune`]
//! does the same for any model, scaling all its stiffnesses by one factor and all its damping by
//! another, and iterates (Newton) where the lowest mode does not scale exactly with them (non-modal
//! damping, prestress in 2D/3D).

use super::discrete::{oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::modes::{Damping, Mode};
use super::poles::{dominant, DiscretePole, OSCILLATOR_TOLERANCE};
use super::report::{AnalysisOptions, ModeReport, ModelModes};
use crate::model::{
    Angle, BarrierSpec, Bending, CollisionSpec, ForceSpec, Mass, Model, Node, Spring, StringSpec,
};
use crate::scheme::SchemeKind;
use crate::system::System;
use faer::c64;
use std::f64::consts::PI;

/// The inverse frequency warping of symplectic Euler, Morgan & Qiao 2009, Algorithm 2, with the
/// corrections of docs/errata.md: the analog frequency `mu` (rad/s) of an oscillator with damping
/// `gamma` (1/s) that symplectic Euler at step `h` plays at the digital frequency `omega_d` (rad/s,
/// `0 < omega_d h < pi`).
///
/// Eq. 87 gives `(w0 h)^2` as a root `R` of a quadratic whose coefficients carry
/// `tan^2(omega_d h)`; divided by `a = tan^2 + 1` it reads
/// `R^2 + (2 gamma h - 4) R + (gamma h)^2 cos^2(omega_d h) + (2 - gamma h)^2 sin^2(omega_d h) = 0`,
/// with roots `R = 2 - gamma h -+ 2 |cos(omega_d h)| sqrt(1 - gamma h)`; eq. 89 takes the smaller
/// (`R_2`) for `omega_d h <= pi/2` and the larger (`R_1`) above, which is
/// `R = 2 - gamma h - 2 cos(omega_d h) sqrt(1 - gamma h)` throughout (no singularity at pi/2).
/// Then `mu = sqrt(R - (gamma h / 2)^2) / h` (eq. 88 as corrected in docs/errata.md). Undamped
/// this is `w_a = (2/h) sin(omega_d h / 2)` (Morgan & Qiao 2008, eq. (18), corrected). Needs `gamma
/// h < 1`: beyond, symplectic Euler has no complex poles and plays no frequency but 0 and Nyquist.
pub fn inverse_warping(omega_d: f64, gamma: f64, h: f64) -> Result<f64, AnalysisError> {
    let (digital, gamma_h) = (omega_d * h, gamma * h);
    if !(digital > 0.0 && digital < PI) {
        return Err(AnalysisError::Target(format!(
            "a digital frequency between 0 and the Nyquist frequency {:.6} Hz; found {:.6} Hz",
            0.5 / h,
            omega_d / (2.0 * PI)
        )));
    }
    if !(0.0..1.0).contains(&gamma_h) {
        return Err(AnalysisError::Target(format!(
            "symplectic Euler plays a frequency only while gamma h < 1; here gamma h = {gamma_h}"
        )));
    }
    let r = 2.0 - gamma_h - 2.0 * digital.cos() * (1.0 - gamma_h).sqrt();
    let mu_h_squared = r - 0.25 * gamma_h * gamma_h;
    if mu_h_squared <= 0.0 {
        return Err(AnalysisError::Target(format!(
            "no vibrating analog oscillator with gamma = {gamma} 1/s plays {:.6} Hz at h = {h} s",
            omega_d / (2.0 * PI)
        )));
    }
    Ok(mu_h_squared.sqrt() / h)
}

/// The damping `gamma` that gives symplectic Euler the digital decay rate `sigma_d` (1/s,
/// negative) at step `h` while its poles are complex: from `|z| = sqrt(1 - gamma h)` (eq. 44)
/// and `sigma_d = ln|z| / h` (eq. 63), `gamma = (1 - e^{2 sigma_d h}) / h` (eq. 84).
pub fn symplectic_euler_gamma(sigma_d: f64, h: f64) -> f64 {
    -(2.0 * sigma_d * h).exp_m1() / h
}

/// The digital pole, in the s-plane form `sigma_d + j omega_d` (so that `z* = e^{(sigma_d + j
/// omega_d) h}`), of a mode that should sound at `frequency_hz` and decay by `1/e` in
/// `time_constant` seconds (`None`: not at all): `sigma_d = -1/tau` (eq. 81),
/// `omega_d = 2 pi F`. The frequency must lie below the Nyquist frequency of the step `h`.
pub fn digital_target(frequency_hz: f64, time_constant: Option<f64>, h: f64) -> Result<c64, AnalysisError> {
    if !(frequency_hz > 0.0 && frequency_hz.is_finite()) {
        return Err(AnalysisError::Target(format!("a frequency > 0 Hz; found {frequency_hz}")));
    }
    if 2.0 * frequency_hz * h >= 1.0 {
        return Err(AnalysisError::Target(format!(
            "a frequency below the Nyquist frequency {:.6} Hz of the step; found {frequency_hz} Hz",
            0.5 / h
        )));
    }
    let sigma_d = match time_constant {
        Some(tau) if tau > 0.0 && tau.is_finite() => -1.0 / tau,
        Some(tau) => return Err(AnalysisError::Target(format!("a time constant > 0 s; found {tau}"))),
        None => 0.0,
    };
    Ok(c64::new(sigma_d, 2.0 * PI * frequency_hz))
}

/// The analog oscillator that `scheme` at step `h` maps to the discrete pole
/// `z = e^{digital h}`, `digital = sigma_d + j omega_d` (rad/s, `omega_d > 0`,
/// `sigma_d <= 0`): the inverse of the scheme's pole mapping.
///
/// Symplectic Euler in closed form: `gamma` by eq. 84 ([`symplectic_euler_gamma`]) and the
/// frequency by [`inverse_warping`]. Every other scheme numerically: Newton's method on the
/// analog pole `s` (starting from the exact flow's `s = digital`), with residual
/// `ln z(s) - digital h` where `z(s)` is the dominant discrete pole of the oscillator `s` stands
/// for ([`Oscillator::from_pole`]) and a finite-difference Jacobian, until the residual is below
/// `1e-13`. A target the scheme cannot reach (an undamped tone with a scheme that always adds
/// damping) is an error.
pub fn invert_pole(scheme: SchemeKind, digital: c64, h: f64) -> Result<Oscillator, AnalysisError> {
    if !(digital.im > 0.0 && digital.im * h < PI && digital.re <= 0.0) {
        return Err(AnalysisError::Target(format!(
            "a decaying or lasting vibrating pole (0 < omega_d h < pi, sigma_d <= 0); found sigma_d = {} 1/s, \
             omega_d = {} rad/s at h = {h} s",
            digital.re, digital.im
        )));
    }
    if scheme == SchemeKind::SymplecticEuler {
        let gamma = symplectic_euler_gamma(digital.re, h);
        let mu = inverse_warping(digital.im, gamma, h)?;
        return Ok(Oscillator { gamma, omega0_squared: mu * mu + 0.25 * gamma * gamma });
    }
    let target = digital * h;
    let residual = |s: c64| -> Result<c64, AnalysisError> {
        let oscillator = Oscillator::from_pole(s);
        if oscillator.gamma < 0.0 {
            return Err(unreachable_target(scheme, digital, h));
        }
        Ok(dominant(oscillator_poles(scheme, &[oscillator], h)?[0]).ln() - target)
    };
    let mut s = digital;
    let mut r = residual(s)?;
    for _ in 0..50 {
        if r.norm() <= 1e-13 {
            return Ok(Oscillator::from_pole(s));
        }
        // Finite-difference Jacobian of the residual (2 x 2 real) in (sigma, mu).
        let delta = 1e-7 * s.norm();
        let d_sigma = (residual(s + c64::new(delta, 0.0))? - r) / delta;
        let d_mu = (residual(s + c64::new(0.0, delta))? - r) / delta;
        let determinant = d_sigma.re * d_mu.im - d_mu.re * d_sigma.im;
        if determinant == 0.0 || !determinant.is_finite() {
            break;
        }
        let step_sigma = (r.re * d_mu.im - d_mu.re * r.im) / determinant;
        let step_mu = (d_sigma.re * r.im - r.re * d_sigma.im) / determinant;
        // Damped: halve the step until the residual falls (and gamma stays >= 0).
        let mut length = 1.0;
        loop {
            let trial = s - c64::new(step_sigma, step_mu) * length;
            if let Ok(trial_residual) = residual(trial) {
                if trial_residual.norm() < r.norm() {
                    s = trial;
                    r = trial_residual;
                    break;
                }
            }
            length *= 0.5;
            if length < 1e-10 {
                return Err(unreachable_target(scheme, digital, h));
            }
        }
    }
    if r.norm() <= 1e-13 {
        Ok(Oscillator::from_pole(s))
    } else {
        Err(AnalysisError::NoConvergence {
            what: "inverting the pole mapping",
            iterations: 50,
            residual: r.norm(),
        })
    }
}

fn unreachable_target(scheme: SchemeKind, digital: c64, h: f64) -> AnalysisError {
    AnalysisError::Target(format!(
        "{scheme} at h = {h} s cannot produce a mode at {:.6} Hz decaying at {:.6e} 1/s: no analog oscillator \
         with damping >= 0 maps there (the scheme adds more damping than that)",
        digital.im / (2.0 * PI),
        digital.re
    ))
}

/// What a tuned or designed lowest mode should be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuneTarget {
    /// The digital frequency, Hz.
    pub frequency_hz: f64,
    /// The digital time constant (decay to `1/e`), s; `None` leaves the damping as it is.
    pub time_constant: Option<f64>,
}

/// A model tuned by [`tune`].
#[derive(Debug, Clone)]
pub struct Tuning {
    /// The factor applied to every spring's stiffness.
    pub stiffness_scale: f64,
    /// The factor applied to every damper's coefficient and every mass's drag.
    pub damping_scale: f64,
    /// The tuned model.
    pub model: Model,
    /// The tuned lowest mode and its discrete pole.
    pub lowest: ModeReport,
}

/// Iterations [`tune`] allows its Newton refinement.
const TUNE_ITERATIONS: usize = 30;

/// Scales all stiffnesses of `model` by one factor and all its damping (dampers and drag) by
/// another so that its lowest vibrating mode (the analog pole with the smallest positive
/// imaginary part, as docs/errata.md reads Algorithms 3-4), after discretisation by `scheme` at
/// step `h`, has the target digital frequency and time constant.
///
/// First the target oscillator `(gamma*, w*^2)` is found by [`invert_pole`]; the first guess
/// scales the lowest mode `(gamma_1, w_1^2)` onto it (`w*^2 / w_1^2`, `gamma* / gamma_1`), which
/// is exact when that mode scales with the coefficients (1D networks with modal damping, as the
/// string); then Newton's method on the logarithms of the factors, with a finite-difference
/// Jacobian, refines them until the discrete pole is within `1e-12` (in `ln z`) of the target.
/// Contacts and external forces are copied unchanged.
pub fn tune(
    model: &Model,
    scheme: SchemeKind,
    h: f64,
    target: TuneTarget,
    options: &AnalysisOptions,
) -> Result<Tuning, AnalysisError> {
    let digital = digital_target(target.frequency_hz, target.time_constant, h)?;
    let first = lowest_mode(model, scheme, h, options)?.mode.oscillator;
    if first.omega0_squared <= 0.0 {
        return Err(not_tunable());
    }
    let tune_damping = target.time_constant.is_some();
    let mut scales = if tune_damping {
        if first.gamma <= 0.0 {
            return Err(AnalysisError::Target(
                "a decay time needs damping to scale, and the lowest mode has none (add dampers or drag)"
                    .to_string(),
            ));
        }
        let wanted = invert_pole(scheme, digital, h)?;
        [wanted.omega0_squared / first.omega0_squared, wanted.gamma / first.gamma]
    } else {
        // The damping stays: aim the analog frequency at the target, and let Newton correct it.
        [(digital.im * digital.im + 0.25 * first.gamma * first.gamma) / first.omega0_squared, 1.0]
    };
    let residual = |scales: [f64; 2]| -> Result<(c64, ModeReport), AnalysisError> {
        let scaled = scaled_model(model, scales[0], scales[1])?;
        let lowest = lowest_mode(&scaled, scheme, h, options)?;
        let mut r = lowest.discrete.z.ln() - digital * h;
        if !tune_damping {
            r.re = 0.0;
        }
        Ok((r, lowest))
    };
    let (mut r, mut lowest) = residual(scales)?;
    let mut iterations = 0;
    while r.norm() > 1e-12 {
        if iterations == TUNE_ITERATIONS {
            return Err(AnalysisError::NoConvergence { what: "tuning", iterations, residual: r.norm() });
        }
        iterations += 1;
        let delta: f64 = 1e-6;
        let d_stiffness = (residual([scales[0] * delta.exp(), scales[1]])?.0 - r) / delta;
        let step = if tune_damping {
            let d_damping = (residual([scales[0], scales[1] * delta.exp()])?.0 - r) / delta;
            let determinant = d_stiffness.re * d_damping.im - d_damping.re * d_stiffness.im;
            if determinant == 0.0 || !determinant.is_finite() {
                return Err(not_tunable());
            }
            [
                (r.re * d_damping.im - d_damping.re * r.im) / determinant,
                (d_stiffness.re * r.im - r.re * d_stiffness.im) / determinant,
            ]
        } else {
            if d_stiffness.im == 0.0 {
                return Err(not_tunable());
            }
            [r.im / d_stiffness.im, 0.0]
        };
        // Damped: halve the step until the residual falls.
        let mut length = 1.0;
        loop {
            let trial = [scales[0] * (-length * step[0]).exp(), scales[1] * (-length * step[1]).exp()];
            if let Ok((trial_r, trial_lowest)) = residual(trial) {
                if trial_r.norm() < r.norm() {
                    (scales, r, lowest) = (trial, trial_r, trial_lowest);
                    break;
                }
            }
            length *= 0.5;
            if length < 1e-6 {
                return Err(AnalysisError::NoConvergence { what: "tuning", iterations, residual: r.norm() });
            }
        }
    }
    Ok(Tuning {
        stiffness_scale: scales[0],
        damping_scale: scales[1],
        model: scaled_model(model, scales[0], scales[1])?,
        lowest,
    })
}

fn not_tunable() -> AnalysisError {
    AnalysisError::Target(
        "the lowest mode's frequency or decay does not change with the stiffness or the damping (a \
         pendulum's swing is set by gravity, not by its springs)"
            .to_string(),
    )
}

/// The lowest vibrating mode of `model` with its dominant discrete pole under `scheme` at `h`.
fn lowest_mode(
    model: &Model,
    scheme: SchemeKind,
    h: f64,
    options: &AnalysisOptions,
) -> Result<ModeReport, AnalysisError> {
    let system = System::new(model);
    let modal = ModelModes::new(&system, options)?;
    let Some(position) = modal.modes().modes.iter().position(|m| m.pole.im > 0.0) else {
        return Err(AnalysisError::Target("the model has no vibrating mode to tune".to_string()));
    };
    if modal.modes().damping == Damping::NonModal {
        return Ok(modal.discretise(&system, scheme, h)?.modes.swap_remove(position));
    }
    oscillator_report(position, &modal.modes().modes[position], scheme, h)
}

/// Bisection steps on a mode's damping: the bracket shrinks to 2^-80 of its width.
const BISECTIONS: usize = 80;

/// The damping rate `gamma` (1/s) with which a mode (`what`, for errors), simulated
/// (`simulated(gamma)` gives its frequency, Hz, and decay rate, 1/s, as `scheme` at step `h`
/// runs it), decays at `rate(f)` (1/s) at its own frequency `f` (bisection: the decay grows
/// with `gamma`).
pub(super) fn matching_damping(
    what: &str,
    rate: impl Fn(f64) -> f64,
    scheme: SchemeKind,
    h: f64,
    simulated: impl Fn(f64) -> Result<(f64, f64), AnalysisError>,
) -> Result<f64, AnalysisError> {
    let excess = |gamma: f64| simulated(gamma).map(|(f, decay)| decay - rate(f));
    if excess(0.0)? > 0.0 {
        let (f, _) = simulated(0.0)?;
        return Err(AnalysisError::Target(format!(
            "{what} ({f:.3} Hz) decaying at {:.6e} 1/s or slower: {scheme} at h = {h} s damps it more than that \
             with no loss at all",
            rate(f)
        )));
    }
    let mut high = 2.0 * rate(simulated(0.0)?.0);
    while excess(high)? <= 0.0 {
        high *= 2.0;
        if !high.is_finite() || high > 1e3 / h {
            return Err(AnalysisError::NoConvergence {
                what: "bracketing a mode's damping",
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
    Ok(0.5 * (low + high))
}

/// Mode `position` (0-based) with the dominant pole that `scheme` at step `h` gives its damped
/// oscillator: the mode's own discrete pole when the damping is modal, and to first order in the
/// coupling of the modes by the damping otherwise.
pub(super) fn oscillator_report(
    position: usize,
    mode: &Mode,
    scheme: SchemeKind,
    h: f64,
) -> Result<ModeReport, AnalysisError> {
    let z = dominant(oscillator_poles(scheme, &[mode.oscillator], h)?[0]);
    Ok(ModeReport {
        index: position + 1,
        mode: mode.clone(),
        discrete: DiscretePole { z, dt: h, tolerance: OSCILLATOR_TOLERANCE },
    })
}

/// A copy of `model` with every spring's, bending element's and angular spring's stiffness times
/// `stiffness_scale` and every damper's coefficient and every mass's drag times
/// `damping_scale`; rest lengths, contacts, external forces and initial conditions are kept.
pub fn scaled_model(model: &Model, stiffness_scale: f64, damping_scale: f64) -> Result<Model, AnalysisError> {
    let mut scaled = Model::new(model.dimension())?;
    scaled.set_gravity(model.gravity())?;
    for mass in model.masses() {
        scaled.add_mass(Mass { drag: mass.drag * damping_scale, ..mass.clone() })?;
    }
    for anchor in model.anchors() {
        scaled.add_anchor(anchor.clone())?;
    }
    // Masses and anchors keep their indices, so the handles of `model` name the same nodes.
    for link in model.links() {
        let spring = Spring {
            id: link.id.clone(),
            a: link.a.into(),
            b: link.b.into(),
            stiffness: link.stiffness * stiffness_scale,
            rest_length: Some(link.rest_length),
            damping: link.damping * damping_scale,
        };
        scaled.add_spring(spring)?;
    }
    for element in model.bendings() {
        let nodes = element.nodes.iter().map(|&n| n.into()).collect();
        let bending = Bending::weighted(nodes, element.weights.clone(), element.stiffness * stiffness_scale);
        let damping = element.damping * damping_scale;
        scaled.add_bending(Bending { id: element.id.clone(), damping, ..bending })?;
    }
    for element in model.angles() {
        let [a, b, c] = element.nodes;
        let angle = Angle::new(a, b, c, element.stiffness * stiffness_scale).rest_angle(element.rest_angle);
        scaled.add_angle(Angle { id: element.id.clone(), ..angle })?;
    }
    for barrier in model.barriers() {
        scaled.add_barrier(BarrierSpec {
            id: barrier.id.clone(),
            masses: barrier.masses.iter().map(|&i| Node::Mass(i)).collect::<Vec<_>>().into(),
            position: barrier.position.clone(),
            normal: barrier.normal.clone(),
            stiffness: barrier.stiffness,
            exponent: barrier.exponent,
        })?;
    }
    for collision in model.collisions() {
        scaled.add_collision(CollisionSpec {
            id: collision.id.clone(),
            a: Node::Mass(collision.a).into(),
            b: Node::Mass(collision.b).into(),
            distance: collision.distance,
            stiffness: collision.stiffness,
            exponent: collision.exponent,
        })?;
    }
    for force in model.external_forces() {
        scaled.add_force(ForceSpec::new(Node::Mass(force.mass), force.signal.clone()).axis(force.axis))?;
    }
    Ok(scaled)
}

/// A string designed by [`design_string`]: the coefficients of Morgan & Qiao 2009, section 4.3,
/// and the model.
#[derive(Debug, Clone)]
pub struct StringDesign {
    /// `w0_out = sqrt(k/m)`, rad/s.
    pub omega0: f64,
    /// `gamma_out = Z/m`, 1/s.
    pub gamma: f64,
    /// The mass of each mass, kg.
    pub mass: f64,
    /// `k = w0_out^2 m`, N/m.
    pub stiffness: f64,
    /// `Z = gamma_out m`, N s/m.
    pub damping: f64,
    /// Each mass's drag rate `c / m`, 1/s: 0 from [`design_string`], the frequency-independent
    /// loss from [`super::string_partials::design_string_partials`].
    pub drag: f64,
    /// Each bending element's kappa, N/m: 0 (none) from [`design_string`], the stiffness of a
    /// stiff string from [`super::string_partials::design_string_partials`].
    pub bending: f64,
    /// The rate `gamma_j` (1/s) of each sine mode's damping (`model::ModeDamping`), where the
    /// loss law has three points and the string's whole loss is designed mode by mode
    /// ([`super::string_partials::design_string_partials`]; dampers and drag then 0); empty
    /// otherwise.
    pub mode_damping: Vec<f64>,
    /// The string: masses `s.1` .. `s.N` between anchors `s.0` and `s.{N+1}`, at rest.
    pub model: Model,
}

/// Morgan & Qiao 2009, Algorithm 1, generalised to any scheme: the spring and damper
/// coefficients of a uniform string of `masses` masses of `mass` kg (dampers on the springs, see
/// docs/errata.md) whose lowest mode, simulated with `scheme` at step `h`, sounds at
/// `target.frequency_hz` and decays with time constant `target.time_constant`. It tunes the string
/// with `k/m = 1` and `Z/m = 1e-3` by [`tune`] (with symplectic Euler: eq. 84, Algorithm 2 and the
/// closed forms of Algorithms 3-4, as the module documentation explains), so `w0_out^2` and `1e-3
/// gamma_out` are the two factors. For N = 5, F = 440 Hz, tau = 1 s, h = 1/6000 s this gives w0_out
/// = 5293.239300336853 rad/s and gamma_out = 7.4628577364145 1/s (eq. 90, with the exact root given
/// in docs/errata.md).
pub fn design_string(
    masses: usize,
    mass: f64,
    target: TuneTarget,
    scheme: SchemeKind,
    h: f64,
) -> Result<StringDesign, AnalysisError> {
    if !(mass > 0.0 && mass.is_finite()) {
        return Err(AnalysisError::Target(format!("a mass > 0 kg; found {mass}")));
    }
    let string = |mass: f64, stiffness: f64, damping: f64| -> Result<Model, AnalysisError> {
        let mut model = Model::new(1)?;
        model.add_string(StringSpec::new("s", masses).mass(mass).stiffness(stiffness).damping(damping))?;
        Ok(model)
    };
    // Lightly damped, so that the prototype's modes are ordered by frequency as the result's.
    let prototype = string(1.0, 1.0, if target.time_constant.is_some() { 1e-3 } else { 0.0 })?;
    let tuning = tune(&prototype, scheme, h, target, &AnalysisOptions::default())?;
    let omega0 = tuning.stiffness_scale.sqrt();
    let gamma = if target.time_constant.is_some() { 1e-3 * tuning.damping_scale } else { 0.0 };
    let (stiffness, damping) = (omega0 * omega0 * mass, gamma * mass);
    Ok(StringDesign {
        omega0,
        gamma,
        mass,
        stiffness,
        damping,
        drag: 0.0,
        bending: 0.0,
        mode_damping: Vec::new(),
        model: string(mass, stiffness, damping)?,
    })
}
