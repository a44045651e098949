//! A string's partials by design: their pitch, their stretching by stiffness (inharmonicity)
//! and a decay that depends on frequency the way a string's does, all as *simulated* by a chosen
//! scheme at a chosen step.
//!
//! On a uniform string of `N` masses `m` with springs `k` and dampers `Z` on its `N + 1` links,
//! drag `c` (N s/m) on every mass and bending elements `kappa` centred at every mass,
//! `M = m I`, `K = k L + kappa L^2` and `D = c I + Z L`, with `L` the tridiagonal `(2, -1)`
//! matrix. All are diagonal in `L`'s sine modes (eigenvalues
//! `lambda_j = 4 sin^2(j pi / (2 (N + 1)))`), so mode `j` is the damped oscillator
//!
//! ```text
//! gamma_j = (c + Z lambda_j) / m,   w_j^2 = (k lambda_j + kappa lambda_j^2) / m.
//! ```
//!
//! Its frequency follows a stiff string's `f_n = n f_0 sqrt(1 + B n^2)` (Fletcher & Rossing,
//! The Physics of Musical Instruments) when `kappa = B k (N + 1)^2 / pi^2`, to the
//! lattice's dispersion, and its decay rate `gamma_j / 2 = c / 2m + (Z / 2m) lambda_j` grows
//! with `lambda_j`, the squared wavenumber of the lattice, as the two-parameter loss law of a
//! string does, `sigma(f) = sigma_0 + sigma_1 xi(f)` (Bilbao 2009, Numerical Sound Synthesis,
//! section 7.1.3: a constant loss and one growing with the squared wavenumber, which is `f^2`
//! without stiffness; [`LossLaw`]). Dampers alone (`c = 0`, what
//! [`super::design::design_string`] sets) make every partial decay at a rate `(f / f_0)^2` times
//! the fundamental's, which leaves a plucked string dull at once.
//!
//! The design, for `scheme` at step `h` ([`design_string_partials`]):
//! 1. the law through `(f_0, tau_0)` and `(f_h, tau_h)` on the string's stiffness: `sigma_1 =
//!    (1/tau_h - 1/tau_0) / (xi(f_h) - xi(f_0))`, `sigma_0 = 1/tau_0 - sigma_1 xi(f_0)`;
//! 2. the stiffness: the analog oscillators that the scheme maps to the digital poles of the
//!    target partials ([`invert_pole`], which corrects the scheme's frequency warping and
//!    numerical damping), and `k`, `kappa` through their `w_n^2` (the fundamental's alone
//!    without stiffness);
//! 3. for the fundamental and for the mode `j` whose simulated frequency lies nearest `f_h`: the
//!    `gamma` for which the scheme's pole of `(gamma, w^2)` decays at the law's rate at that
//!    pole's own frequency (bisection: the decay grows with `gamma`);
//! 4. `Z = m (gamma_j - gamma_1) / (lambda_j - lambda_1)` and `c = m gamma_1 - Z lambda_1`.
//!
//! Modes 1 and `j` then decay exactly as the law says once simulated. Without bending the
//! others follow it to the scheme's warping of their frequencies, since the lattice's
//! dispersion lowers `f_j^2` and `lambda_j` alike (measured within 1.2% on 80 masses, every
//! partial). With bending, which cancels that dispersion in the frequencies, `lambda_j = 4
//! sin^2(theta / 2)` falls below the continuous string's `theta^2` (`theta = j pi / (N + 1)`;
//! by `theta^2 / 12` of itself at small `theta`), and the partials' frequency-dependent loss
//! falls behind the law towards the top: on 160 masses with `B = 1e-4`, within 3.5% below
//! 5 kHz, and the top partials (16 to 18 kHz) decay 14% to 23% slower than the law. A stiff
//! string needs enough masses for its partials of interest to lie at small `theta`
//! (`crates/hooke/tests/string_partials.rs` measures and bounds both).

use super::design::{digital_target, invert_pole, matching_damping, StringDesign};
use super::discrete::{oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::poles::dominant;
use crate::linalg::dense::DenseMatrix;
use crate::linalg::Assemble;
use crate::model::{Model, StringSpec};
use crate::scheme::SchemeKind;
use std::f64::consts::PI;

/// How close, relatively, the damping rates of the two matched modes may be for the law to count
/// as flat (no dampers): far above the bisections' rounding, far below any loss a law asks for.
const FLAT_LAW: f64 = 1e-9;

/// The loss law of a string: decay rate `sigma(f) = sigma_0 + sigma_1 xi(f)` (1/s) through time
/// constants (decay to `1/e`) given at two frequencies, or `sigma(f) = sigma_0 + sigma_f f +
/// sigma_1 xi(f)` through three.
///
/// `xi(f)` is the square of the frequency that the partial at `f` would have on the same string
/// without stiffness: on a string with `f_n = n f_0 sqrt(1 + B n^2)`, `xi(f_n) = (n f_0)^2`, so
/// `xi(f) = 2 f^2 / (1 + sqrt(1 + 4 c f^2))` with the stretch `c = B / f_0^2`, and `xi(f) = f^2`
/// without stiffness. It is Bilbao 2009's `xi(omega)`, the squared wavenumber at which the stiff
/// string vibrates at `omega`, in units of frequency: a loss term `2 sigma_1 u_txx` damps each
/// wave by its wavenumber, whatever stiffness does to its frequency.
///
/// The term linear in `f` is a loss of constant quality factor, `sigma = pi f / Q`: the internal
/// friction of the string's material and much of the losses to the bridge behave so over the
/// audible range (Valette 1995, in Mechanics of Musical Instruments, ch. 4; Woodhouse 2004, Acta
/// Acustica 90, with its loss factors `eta`: `sigma = eta omega / 2`). With it the fundamental
/// can ring for many seconds, partials near 500 Hz for about half as long and those at 2-3 kHz
/// for a quarter, as recorded guitar strings do, which no choice of `sigma_0` and `sigma_1`
/// gives: a law through the fundamental and 2 kHz then rings the partials between too long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossLaw {
    /// The lowest point: frequency (Hz) and time constant (s).
    low: (f64, f64),
    /// The middle point of a three-point law, frequency (Hz) and time constant (s).
    middle: Option<(f64, f64)>,
    /// The highest point: frequency (Hz) and time constant (s).
    high: (f64, f64),
    /// The stretch `c = B / f_0^2` of the string the law is for, 1/Hz^2.
    stretch: f64,
    /// `sigma_0`, 1/s.
    constant: f64,
    /// `sigma_f`, 1/s per Hz (0 in a two-point law).
    linear: f64,
    /// `sigma_1`, s (1/s per Hz^2 of `xi`).
    quadratic: f64,
}

impl LossLaw {
    /// The law of a string without stiffness with time constant `tau_low` (s) at `f_low` (Hz)
    /// and `tau_high` at `f_high`: `f_high > f_low > 0`, `0 < tau_high <= tau_low`, and a
    /// constant part `sigma_0 >= 0` (the high partial may not decay so fast that the law would
    /// need a negative loss at 0 Hz).
    pub fn through(f_low: f64, tau_low: f64, f_high: f64, tau_high: f64) -> Result<Self, AnalysisError> {
        Self::fitted((f_low, tau_low), None, (f_high, tau_high), 0.0)
    }

    /// The three-term law of a string without stiffness through three points `(f, tau)` (Hz, s)
    /// of rising frequency and falling (or equal) time constant, each term `>= 0`.
    pub fn through_three(
        low: (f64, f64),
        middle: (f64, f64),
        high: (f64, f64),
    ) -> Result<Self, AnalysisError> {
        Self::fitted(low, Some(middle), high, 0.0)
    }

    /// The same points on a string of fundamental `fundamental_hz` and inharmonicity `B`.
    pub fn on_stiff_string(&self, fundamental_hz: f64, inharmonicity: f64) -> Result<Self, AnalysisError> {
        Self::fitted(self.low, self.middle, self.high, inharmonicity / (fundamental_hz * fundamental_hz))
    }

    fn fitted(
        low: (f64, f64),
        middle: Option<(f64, f64)>,
        high: (f64, f64),
        stretch: f64,
    ) -> Result<Self, AnalysisError> {
        if !(stretch >= 0.0 && stretch.is_finite()) {
            return Err(AnalysisError::Target(format!(
                "a string with a fundamental > 0 Hz and an inharmonicity B >= 0; found B / f_0^2 = {stretch}"
            )));
        }
        let mut law = Self { low, middle, high, stretch, constant: 0.0, linear: 0.0, quadratic: 0.0 };
        match middle {
            None => (law.constant, law.quadratic) = fit_two_points(low, high, |f| law.xi(f))?,
            Some(middle) => {
                check_pair(low, middle)?;
                check_pair(middle, high)?;
                (law.constant, law.linear, law.quadratic) =
                    fit_three_points([low, middle, high], |f| law.xi(f))?;
            }
        }
        Ok(law)
    }

    /// `xi(f)`, Hz^2: the squared frequency of the same partial without stiffness.
    pub fn xi(&self, frequency_hz: f64) -> f64 {
        unstiffened_square(frequency_hz, self.stretch)
    }

    /// The decay rate at `frequency_hz`, 1/s.
    pub fn rate(&self, frequency_hz: f64) -> f64 {
        self.constant + self.linear * frequency_hz + self.quadratic * self.xi(frequency_hz)
    }

    /// The frequency of the highest point, Hz.
    pub fn high_hz(&self) -> f64 {
        self.high.0
    }

    /// Whether the law has three points (a term linear in `f`), which the string's dampers and
    /// drag cannot give: its string is damped mode by mode.
    pub fn has_three_points(&self) -> bool {
        self.middle.is_some()
    }
}

/// `(sigma_0, sigma_f, sigma_1)` of `sigma(f) = sigma_0 + sigma_f f + sigma_1 g(f)` (1/s) through
/// three points `(f, tau)` (Hz, s; each pair already checked by [`check_pair`]), solved by LU
/// with the columns `1, f, g(f)` scaled to the highest point's (they span ten orders of
/// magnitude); each term must come out `>= 0`.
fn fit_three_points(
    points: [(f64, f64); 3],
    g: impl Fn(f64) -> f64,
) -> Result<(f64, f64, f64), AnalysisError> {
    let [f_high, xi_high] = [points[2].0, g(points[2].0)];
    let columns = |f: f64| [1.0, f / f_high, g(f) / xi_high];
    let mut matrix = DenseMatrix::new(3);
    for (r, &(f, _)) in points.iter().enumerate() {
        for (c, value) in columns(f).into_iter().enumerate() {
            matrix.add(r, c, value);
        }
    }
    let mut terms: Vec<f64> = points.iter().map(|&(_, tau)| 1.0 / tau).collect();
    matrix.factor().map_err(|_| {
        AnalysisError::Target(format!("three points of a loss law at distinct frequencies; found {points:?}"))
    })?;
    matrix.solve_in_place(&mut terms);
    let (constant, linear, quadratic) = (terms[0], terms[1] / f_high, terms[2] / xi_high);
    // Rounding may leave a term that should be 0 (points on a law without it) just below it.
    let scale = 1.0 / points[2].1;
    let round = |term: f64, size: f64| if term < 0.0 && -term * size <= 1e-9 * scale { 0.0 } else { term };
    let (constant, linear, quadratic) =
        (round(constant, 1.0), round(linear, f_high), round(quadratic, xi_high));
    if !(constant >= 0.0 && linear >= 0.0 && quadratic >= 0.0) {
        let [(f0, t0), (f1, t1), (f2, t2)] = points;
        return Err(AnalysisError::Target(format!(
            "a loss law whose three terms are >= 0 through {t0} s at {f0} Hz, {t1} s at {f1} Hz and {t2} s at {f2} Hz; \
             found sigma_0 = {constant:.6e} 1/s, sigma_f = {linear:.6e} 1/s per Hz, sigma_1 = {quadratic:.6e} s: \
             give the middle point a time constant nearer the line between the other two"
        )));
    }
    Ok((constant, linear, quadratic))
}

/// `xi(f) = 2 f^2 / (1 + sqrt(1 + 4 c f^2))`, Hz^2: the squared frequency that the partial at
/// `frequency_hz` of a string with stretch `c = B / f_0^2` (1/Hz^2) would have without stiffness
/// ([`LossLaw`]).
pub fn unstiffened_square(frequency_hz: f64, stretch: f64) -> f64 {
    let f2 = frequency_hz * frequency_hz;
    2.0 * f2 / (1.0 + (1.0 + 4.0 * stretch * f2).sqrt())
}

/// `(sigma_0, sigma_1)` of a loss law `sigma(f) = sigma_0 + sigma_1 g(f)` (1/s, `g` growing)
/// through the time constants (decay to `1/e`) `low = (f_low, tau_low)` and `high = (f_high,
/// tau_high)` (Hz, s): `f_high > f_low > 0`, `0 < tau_high <= tau_low`, and `sigma_0 >= 0` (the
/// high point may not decay so fast that the law would need a negative loss at 0 Hz).
pub(super) fn fit_two_points(
    low: (f64, f64),
    high: (f64, f64),
    g: impl Fn(f64) -> f64,
) -> Result<(f64, f64), AnalysisError> {
    check_pair(low, high)?;
    let ((f_low, tau_low), (f_high, tau_high)) = (low, high);
    let slope = (1.0 / tau_high - 1.0 / tau_low) / (g(f_high) - g(f_low));
    let constant = 1.0 / tau_low - slope * g(f_low);
    if constant < 0.0 {
        return Err(AnalysisError::Target(format!(
            "a loss law with a frequency-independent part >= 0: {tau_high} s at {f_high} Hz decays so much faster \
             than {tau_low} s at {f_low} Hz that sigma(0) = {constant:.6e} 1/s; give the high partial a longer \
             time constant or a higher frequency"
        )));
    }
    Ok((constant, slope))
}

/// Checks two points `(f, tau)` (Hz, s) of a loss law: `f_high > f_low > 0`, `0 < tau_high <=
/// tau_low`.
fn check_pair(low: (f64, f64), high: (f64, f64)) -> Result<(), AnalysisError> {
    let ((f_low, tau_low), (f_high, tau_high)) = (low, high);
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !(positive(f_low) && positive(f_high) && f_high > f_low) {
        return Err(AnalysisError::Target(format!(
            "each point of the law at a frequency above the one before, all > 0 Hz; found {f_high} Hz after {f_low} Hz"
        )));
    }
    if !(positive(tau_low) && positive(tau_high) && tau_high <= tau_low) {
        return Err(AnalysisError::Target(format!(
            "time constants > 0 s, each no longer than the one at a lower frequency; found {tau_high} s at \
             {f_high} Hz after {tau_low} s at {f_low} Hz"
        )));
    }
    Ok(())
}

/// What a designed string's simulated partials should be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartialsTarget {
    /// The fundamental f_0, Hz.
    pub fundamental_hz: f64,
    /// The inharmonicity coefficient B of `f_n = n f_0 sqrt(1 + B n^2)` (>= 0; 0: a string with
    /// no bending elements, harmonic but for the scheme's warping of its upper partials).
    pub inharmonicity: f64,
    /// The loss law, met exactly at the fundamental and at the partial nearest its higher
    /// point, on this string's stiffness ([`LossLaw::on_stiff_string`]); `None`: lossless.
    pub loss: Option<LossLaw>,
}

/// Partials the stiffness of a stiff string is fitted to.
pub const FITTED_PARTIALS: usize = 10;

/// The coefficients of a uniform string of `masses` masses of `mass` kg whose simulated partials
/// are `target`'s with `scheme` at step `h` (s). The result's `drag` is the drag rate `c / m`
/// (1/s) and `bending` each bending element's kappa (N/m).
///
/// Stiffness: with bending elements `kappa` centred at each mass (pinned ends), mode `j` is
/// `w_j^2 = (k lambda_j + kappa lambda_j^2) / m`, since the bending stiffness matrix is
/// `kappa L^2`. For `B > 0` each of the first [`FITTED_PARTIALS`] partials `f_n = n f_0 sqrt(1 +
/// B n^2)` is inverted through the scheme ([`invert_pole`], with the law's decay at `f_n`), and
/// `(k, kappa)` is the least-squares fit, in relative terms, of those `w_n^2`: this corrects the
/// scheme's warping and the lattice's own dispersion (`4 sin^2(theta/2)` falls below `theta^2`
/// by `theta^4 / 12`, which a bending term cancels). For `B = 0`, `k` inverts the fundamental
/// alone.
pub fn design_string_partials(
    masses: usize,
    mass: f64,
    target: &PartialsTarget,
    scheme: SchemeKind,
    h: f64,
) -> Result<StringDesign, AnalysisError> {
    design_string_measured(masses, mass, target, &[], scheme, h)
}

/// [`design_string_partials`] with the time constants (s) of partials `1 ..= K` given one by one
/// (`partial_decays`, as a recording measured them; `K` at most `masses`): the string is then
/// damped mode by mode, mode `j <= K` decaying with `partial_decays[j - 1]` and the others by
/// the law, which must be given.
pub fn design_string_measured(
    masses: usize,
    mass: f64,
    target: &PartialsTarget,
    partial_decays: &[f64],
    scheme: SchemeKind,
    h: f64,
) -> Result<StringDesign, AnalysisError> {
    if partial_decays.len() > masses || partial_decays.iter().any(|&tau| !(tau > 0.0 && tau.is_finite())) {
        return Err(AnalysisError::Target(format!(
            "at most {masses} partials' time constants, each > 0 s; found {partial_decays:?}"
        )));
    }
    if !partial_decays.is_empty() && target.loss.is_none() {
        return Err(AnalysisError::Target(
            "a loss law for the partials not given one by one; found none".into(),
        ));
    }
    if masses < 2 {
        return Err(AnalysisError::Target(format!("a string of at least 2 masses; found {masses}")));
    }
    if !(mass > 0.0 && mass.is_finite()) {
        return Err(AnalysisError::Target(format!("a mass > 0 kg; found {mass}")));
    }
    let b = target.inharmonicity;
    if !(b >= 0.0 && b.is_finite()) {
        return Err(AnalysisError::Target(format!("an inharmonicity B >= 0; found {b}")));
    }
    let lambda = |j: usize| (0.5 * j as f64 * PI / (masses + 1) as f64).sin().powi(2) * 4.0;
    let loss = target.loss.map(|law| law.on_stiff_string(target.fundamental_hz, b)).transpose()?;
    let law_rate = |f: f64| loss.map(|law| law.rate(f));
    let analog = |n: usize| -> Result<Oscillator, AnalysisError> {
        let f = n as f64 * target.fundamental_hz * (1.0 + b * (n * n) as f64).sqrt();
        invert_pole(scheme, digital_target(f, law_rate(f).map(|rate| 1.0 / rate), h)?, h)
    };
    // Per unit mass: w_j^2 = spring lambda_j + bend lambda_j^2.
    let (spring, bend) = if b == 0.0 {
        (analog(1)?.omega0_squared / lambda(1), 0.0)
    } else {
        let partials = (1..=FITTED_PARTIALS.min(masses))
            .map(|n| analog(n).map(|o| (lambda(n), o.omega0_squared)))
            .collect::<Result<Vec<_>, _>>()?;
        fit_stiffness(&partials)?
    };
    let simulated = |j: usize, gamma: f64| -> Result<(f64, f64), AnalysisError> {
        let l = lambda(j);
        let oscillator = Oscillator { gamma, omega0_squared: spring * l + bend * l * l };
        let z = dominant(oscillator_poles(scheme, &[oscillator], h)?[0]);
        Ok((z.arg() / (2.0 * PI * h), -z.norm().ln() / h))
    };
    let mut mode_damping = Vec::new();
    let (damping_rate, drag) = match loss {
        None => (0.0, 0.0),
        Some(law) if law.has_three_points() || !partial_decays.is_empty() => {
            for j in 1..=masses {
                let given = partial_decays.get(j - 1).map(|tau| 1.0 / tau);
                let rate = |f: f64| given.unwrap_or_else(|| law.rate(f));
                let gamma =
                    matching_damping(&format!("partial {j}"), rate, scheme, h, |gamma| simulated(j, gamma));
                let beyond = given.is_none() && simulated(j, 0.0)?.0 > law.high_hz();
                mode_damping.push(match gamma {
                    // Above the law's highest point a mode the scheme damps more than the law on
                    // its own (backward Euler, say) is left undamped by the string, and one the
                    // law asks to decay faster than any damping can (past critical damping a
                    // mode decays slower, not faster) keeps the damping of the mode below it.
                    Err(AnalysisError::Target(_)) if beyond => 0.0,
                    Err(AnalysisError::NoConvergence { .. }) if beyond && j > 1 => mode_damping[j - 2],
                    other => other?,
                });
            }
            (0.0, 0.0)
        }
        Some(law) => {
            let high_hz = law.high_hz();
            // The partial whose simulated frequency (without loss, near enough) is nearest high_hz.
            let mut nearest = (2, f64::INFINITY);
            for j in 2..=masses {
                let (f, _) = simulated(j, 0.0)?;
                if (f - high_hz).abs() < nearest.1 {
                    nearest = (j, (f - high_hz).abs());
                }
            }
            let j = nearest.0;
            let rate = |f: f64| law.rate(f);
            let gamma_1 = matching_damping("partial 1", rate, scheme, h, |gamma| simulated(1, gamma))?;
            let gamma_j =
                matching_damping(&format!("partial {j}"), rate, scheme, h, |gamma| simulated(j, gamma))?;
            // A flat law (the same rate at both points) needs no dampers; the two bisections'
            // rounding may leave their difference a few units of the last place below zero.
            let flat = (gamma_j - gamma_1).abs() <= FLAT_LAW * gamma_1.max(gamma_j);
            let damping_rate = if flat { 0.0 } else { (gamma_j - gamma_1) / (lambda(j) - lambda(1)) };
            let drag = gamma_1 - damping_rate * lambda(1);
            if damping_rate < 0.0 || drag < 0.0 {
                return Err(AnalysisError::Target(format!(
                    "a loss law {scheme} at h = {h} s can give with dampers and drag >= 0: the fundamental needs a \
                     damping rate of {gamma_1:.6e} 1/s and partial {j} {gamma_j:.6e} 1/s, which makes the {} negative",
                    if damping_rate < 0.0 { "dampers" } else { "drag" }
                )));
            }
            (damping_rate, drag)
        }
    };
    let (stiffness, damping, bending) = (spring * mass, damping_rate * mass, bend * mass);
    let string = StringSpec::new("s", masses)
        .mass(mass)
        .stiffness(stiffness)
        .damping(damping)
        .drag(drag)
        .bending(bending)
        .mode_damping(mode_damping.clone());
    let mut model = Model::new(1)?;
    model.add_string(string)?;
    Ok(StringDesign {
        omega0: spring.sqrt(),
        gamma: damping_rate,
        mass,
        stiffness,
        damping,
        drag,
        bending,
        mode_damping,
        model,
    })
}

/// The least-squares `(a, b)` of `w^2 = a lambda + b lambda^2` through `(lambda, w^2)` pairs,
/// each residual relative to its `w^2`; both must come out > 0.
fn fit_stiffness(partials: &[(f64, f64)]) -> Result<(f64, f64), AnalysisError> {
    let (mut uu, mut uv, mut vv, mut u1, mut v1) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(l, w2) in partials {
        let (u, v) = (l / w2, l * l / w2);
        (uu, uv, vv, u1, v1) = (uu + u * u, uv + u * v, vv + v * v, u1 + u, v1 + v);
    }
    let determinant = uu * vv - uv * uv;
    let (a, b) = ((u1 * vv - v1 * uv) / determinant, (uu * v1 - uv * u1) / determinant);
    if !(a > 0.0 && a.is_finite() && b.is_finite()) {
        return Err(AnalysisError::Target(format!(
            "partials a string's springs and bending can place; the fit gives {a:.6e} and {b:.6e} (per unit mass)"
        )));
    }
    if b <= 0.0 {
        return Err(AnalysisError::StepTooLong(format!(
            "a string whose bending is > 0; the scheme's warping of the upper partials at this step needs \
             {b:.6e} (per unit mass): use a smaller step (or more masses)"
        )));
    }
    Ok((a, b))
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
    fn on_a_stiff_string_the_law_grows_with_the_partials_index_squared() {
        // f_n = n f_0 sqrt(1 + B n^2): xi(f_n) = (n f_0)^2, so sigma(f_n) - sigma_0 grows as n^2.
        let (f0, b) = (110.0, 1e-3);
        let partial = |n: f64| n * f0 * (1.0 + b * n * n).sqrt();
        let law = LossLaw::through(110.0, 3.0, 3000.0, 0.3).unwrap().on_stiff_string(f0, b).unwrap();
        for n in [1.0, 7.0, 30.0] {
            assert!((law.xi(partial(n)) / (n * f0).powi(2) - 1.0).abs() < 1e-12, "partial {n}");
        }
        assert!((law.rate(110.0) - 1.0 / 3.0).abs() < 1e-15);
        assert!((law.rate(3000.0) - 1.0 / 0.3).abs() < 1e-14);
        let growth = (law.rate(partial(20.0)) - law.constant) / (law.rate(partial(10.0)) - law.constant);
        assert!((growth - 4.0).abs() < 1e-12, "{growth}");
    }

    /// A law with the same time constant at both points (dampers of zero, the drag alone) is
    /// designed for symplectic Euler, whose decay does not depend on a mode's frequency (`|z|^2 =
    /// 1 - gamma h`): every partial then decays at the one rate, 1/2 s here.
    #[test]
    fn a_flat_law_is_designed_with_drag_alone() {
        use super::{design_string_partials, PartialsTarget};
        use crate::analysis::report::{analyse, AnalysisOptions};
        use crate::scheme::SchemeKind;
        use crate::system::System;
        let h = 1.0 / 88_200.0;
        let law = LossLaw::through(110.0, 2.0, 2000.0, 2.0).unwrap();
        let target = PartialsTarget { fundamental_hz: 110.0, inharmonicity: 1e-4, loss: Some(law) };
        let design = design_string_partials(60, 1e-4, &target, SchemeKind::SymplecticEuler, h).unwrap();
        assert_eq!(design.damping, 0.0);
        let report =
            analyse(&System::new(&design.model), SchemeKind::SymplecticEuler, h, &AnalysisOptions::default())
                .unwrap();
        for mode in report.modes.iter().take(10) {
            let rate = mode.discrete.decay_rate();
            assert!((-rate * 2.0 - 1.0).abs() < 1e-6, "a mode decays at {rate} 1/s");
        }
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
