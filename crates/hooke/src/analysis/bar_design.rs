//! A free bar (a marimba's or a xylophone's) designed so that the *simulated* bar, hung on two
//! cords, has the requested first bending mode, ratio of its second mode to its first, and
//! decay time at each of the two, and where asked the ratio of its third mode to its first, for
//! a chosen scheme and step.
//!
//! The bar is [`crate::model::BarSpec`]'s: `N` cells of an undercut profile, each cell a mass
//! `tau_i m` with bending elements `tau_i^3 kappa`. Its four knobs each move mainly one target:
//! - the length `L` (with `m = rho A L / N` and `kappa = E I N^3 / L^3`, every bending mode goes
//!   as `1 / L^2`) sets the first mode's frequency;
//! - the undercut's depth sets the ratio `f_2 / f_1` (4 for a marimba, 3 for a xylophone;
//!   Fletcher & Rossing 1998, ch. 19), and where the third mode is tuned too, a relief left at
//!   the cut's centre sets `f_3 / f_1` (about 10 on a concert marimba, Bork 1995;
//!   [`crate::model::generate`]'s undercut);
//! - the drag `c` (1/s, force `-c m v`) adds the same `c / 2` to every mode's decay rate;
//! - the stiffness-proportional damping `eta` (s: each bending element of stiffness `kappa`
//!   damped by `eta kappa`, each cord by `eta` times its stiffness; a Kelvin-Voigt solid, the
//!   bar of Chaigne & Doutaut 1997) adds `eta w^2 / 2` to a mode's rate, growing as the square of
//!   its frequency.
//!
//! With both, the hung bar's damping is `c M + eta K` (Rayleigh's): its undamped modes are its
//! modes, uncoupled, each decaying at `(c + eta w^2) / 2`, so the bar runs mode by mode on the
//! coupled modal path. The two-parameter loss reaches any pair of decay times with `tau_2 <=
//! tau_1` down to about `tau_1 (f_1 / f_2)^2` (`eta` alone); a steeper fall is refused with the
//! range it allows. The cords hold the bar near the first mode's nodes (0.224 of the length from
//! each end) and let it bounce at [`CORD_HZ`], far below the bending modes, so that a mallet's
//! blow does not send the bar away; the bounce dies by the bar's drag.
//!
//! Each trial is measured on the modes of the whole hung bar, each mapped through the scheme as
//! a damped oscillator (exact: the damping is classical), so the scheme's frequency warping and
//! numerical damping and the cords are corrected: the length by `sqrt(F_1 / f_1)`, the
//! undercut's ratios by their errors, and `(c, eta)` by a Newton step on the two decay rates
//! with the derivatives of `(c + eta w^2) / 2`, until every target is met to [`TOLERANCE`].

use super::design::oscillator_report;
use super::error::AnalysisError;
use super::report::{AnalysisOptions, ModeReport, ModelModes};
use crate::model::{Anchor, BarSpec, Damper, Model, ModelError, Node, Spring};
use crate::scheme::SchemeKind;
use crate::system::System;
use std::f64::consts::PI;

/// The frequency at which the bar bounces on its cords, Hz.
pub const CORD_HZ: f64 = 5.0;
/// Where the cords hold the bar: the first mode's nodes of a uniform free bar, as a fraction of
/// the length from each end (Fletcher & Rossing 1998, ch. 2).
pub const CORD_POSITION: f64 = 0.224;
/// The relative error to which each target is met.
pub const TOLERANCE: f64 = 1e-9;
/// Iterations the design allows.
const ITERATIONS: usize = 100;

/// What a designed bar should be, as simulated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarTarget {
    /// The first bending mode's digital frequency, Hz.
    pub frequency_hz: f64,
    /// The second bending mode's frequency over the first's (from the uniform bar's 2.7565 to
    /// what the deepest undercut reaches).
    pub ratio: f64,
    /// The first mode's time constant (decay to `1/e`), s.
    pub decay: f64,
    /// The second mode's time constant, s (at most `decay`).
    pub high_decay: f64,
    /// The third bending mode's frequency over the first's, where it is tuned too (about 10 on
    /// a concert marimba, Bork 1995); `None`: left where the two-mode cut puts it. Its decay
    /// follows from the drag and the stiffness-proportional damping.
    pub third_ratio: Option<f64>,
    /// Masses (cells) along the bar.
    pub masses: usize,
    /// Mass per unit length of the uncut bar, `rho A`, kg/m.
    pub linear_density: f64,
    /// Bending rigidity of the uncut bar, `E I`, N m^2.
    pub rigidity: f64,
}

/// A bar and its cords, as built.
#[derive(Debug, Clone)]
pub struct HungBar {
    /// The bar's length, m.
    pub length: f64,
    /// The bar as a generator spec (lumped elements, the undercut, the drag and the
    /// stiffness-proportional damping), with id `"bar"`.
    pub bar: BarSpec,
    /// The masses the cords hold (0-based along the bar).
    pub cord_masses: [usize; 2],
    /// Each cord's stiffness, N/m.
    pub cord_stiffness: f64,
}

impl HungBar {
    /// Adds the bar with id prefix `id`, hung by its cords from `frame` (an anchor of a 1D
    /// `model`); returns its masses from `ID.1` to `ID.N`.
    pub fn add_to(&self, model: &mut Model, id: &str, frame: Node) -> Result<Vec<Node>, ModelError> {
        let nodes = model.add_bar(BarSpec { id: id.to_string(), ..self.bar.clone() })?;
        self.add_cords(model, frame, &nodes)?;
        Ok(nodes)
    }

    /// Hangs the bar's masses `nodes`, already in `model`, from `frame` by the cords, each
    /// damped by the bar's `stiffness_damping` times its stiffness.
    fn add_cords(&self, model: &mut Model, frame: Node, nodes: &[Node]) -> Result<(), ModelError> {
        let damping = self.bar.stiffness_damping * self.cord_stiffness;
        for &held in &self.cord_masses {
            model.add_spring(Spring::new(frame, nodes[held], self.cord_stiffness))?;
            if damping > 0.0 {
                model.add_damper(Damper::new(frame, nodes[held], damping))?;
            }
        }
        Ok(())
    }
}

/// A bar designed by [`design_bar`].
#[derive(Debug, Clone)]
pub struct BarDesign {
    /// The bar and its cords.
    pub hung: HungBar,
    /// The simulated first, second and third bending modes with their discrete poles.
    pub modes: [ModeReport; 3],
}

/// One trial of the four knobs.
#[derive(Debug, Clone, Copy)]
struct Knobs {
    length: f64,
    ratio: f64,
    /// The third mode's ratio asked of the cut, if tuned.
    third: Option<f64>,
    drag: f64,
    /// The stiffness-proportional damping `eta`, s.
    eta: f64,
}

/// Designs the bar of `target` for `scheme` at step `h` (see the module's description).
/// Errors: a target out of reach (the ratio beyond the undercut's range, a second decay time
/// the two losses cannot give) as a [`ModelError`] naming `ratio` or `high_decay`; a design
/// that does not converge.
pub fn design_bar(target: &BarTarget, scheme: SchemeKind, h: f64) -> Result<BarDesign, AnalysisError> {
    check_target(target)?;
    let wanted_rates = [1.0 / target.decay, 1.0 / target.high_decay];
    // Euler-Bernoulli's first mode of the uniform bar, (4.7300 / L)^2 sqrt(E I / rho A), as a start.
    let stiffness_speed = (target.rigidity / target.linear_density).sqrt();
    let length = 4.730_04 * (stiffness_speed / (2.0 * PI * target.frequency_hz)).sqrt();
    let mut knobs = Knobs {
        length,
        ratio: target.ratio,
        third: target.third_ratio,
        drag: 2.0 * wanted_rates[0],
        eta: 0.0,
    };
    let (mut held, mut residual) = (None, f64::NAN);
    for _ in 0..ITERATIONS {
        let design = measure(target, knobs, scheme, h)?;
        let frequencies = design.modes.each_ref().map(|m| m.discrete.frequency_hz());
        let rates = decay_rates(&design);
        let errors = [
            frequencies[0] / target.frequency_hz - 1.0,
            frequencies[1] / frequencies[0] / target.ratio - 1.0,
            target.third_ratio.map_or(0.0, |third| frequencies[2] / frequencies[0] / third - 1.0),
            rates[0] / wanted_rates[0] - 1.0,
            rates[1] / wanted_rates[1] - 1.0,
        ];
        residual = errors.iter().fold(0.0, |worst, e| e.abs().max(worst));
        if residual < TOLERANCE {
            return Ok(design);
        }
        // The decay rates' derivatives in the drag and in `eta`: each mode's rate is `(c + eta
        // w^2) / 2` (classical damping); the scheme moves them by terms in `(w h)^2`, which the
        // iteration absorbs.
        let d_drag = [0.5, 0.5];
        let d_damping = [0, 1].map(|j| 0.5 * (2.0 * PI * frequencies[j]).powi(2));
        let determinant = d_drag[0] * d_damping[1] - d_drag[1] * d_damping[0];
        let miss = [wanted_rates[0] - rates[0], wanted_rates[1] - rates[1]];
        if !(determinant.is_finite() && determinant != 0.0) {
            break;
        }
        // A loss the bar cannot have is held at 0; if the design then ends unmet, the second
        // decay time was out of reach.
        let drag = knobs.drag + (miss[0] * d_damping[1] - miss[1] * d_damping[0]) / determinant;
        let eta = knobs.eta + (d_drag[0] * miss[1] - d_drag[1] * miss[0]) / determinant;
        held = (drag < 0.0 || eta < 0.0).then(|| target.decay * d_damping[0] / d_damping[1]);
        knobs = Knobs {
            length: knobs.length * (frequencies[0] / target.frequency_hz).sqrt(),
            ratio: knobs.ratio * target.ratio * frequencies[0] / frequencies[1],
            third: knobs
                .third
                .zip(target.third_ratio)
                .map(|(asked, third)| asked * third * frequencies[0] / frequencies[2]),
            drag: drag.max(0.0),
            eta: eta.max(0.0),
        };
    }
    match held {
        // The fall from tau_1 to tau_2 the losses allow: drag alone gives both modes the same
        // rate, `eta` alone rates in the ratio of their derivatives.
        Some(shortest) => Err(ModelError::new(
            "bar",
            "high_decay",
            format!(
                "a time constant the bar's drag and stiffness-proportional damping give its second \
                 mode: from about {shortest:.4} s (that damping alone) to {:.4} s (drag alone)",
                target.decay
            ),
            target.high_decay,
        )
        .into()),
        None => {
            Err(AnalysisError::NoConvergence { what: "the bar's design", iterations: ITERATIONS, residual })
        }
    }
}

/// The shortest second time constant a bar of `target` can have for its first one, over that
/// first one (s/s): the ratio of the two modes' decay rates that `eta` alone gives, measured on
/// the bar with `target`'s ratio near its pitch (the length Euler-Bernoulli gives), for `scheme`
/// at step `h`. [`design_bar`] refuses a `high_decay` under about `decay` times this.
pub fn shortest_decay_ratio(target: &BarTarget, scheme: SchemeKind, h: f64) -> Result<f64, AnalysisError> {
    check_target(target)?;
    let stiffness_speed = (target.rigidity / target.linear_density).sqrt();
    let length = 4.730_04 * (stiffness_speed / (2.0 * PI * target.frequency_hz)).sqrt();
    let rates = |eta: f64| -> Result<[f64; 2], AnalysisError> {
        let knobs = Knobs { length, ratio: target.ratio, third: target.third_ratio, drag: 0.0, eta };
        Ok(decay_rates(&measure(target, knobs, scheme, h)?))
    };
    let step = 1e-3 / (target.decay * (2.0 * PI * target.frequency_hz).powi(2));
    let (without, with) = (rates(0.0)?, rates(step)?);
    Ok((with[0] - without[0]) / (with[1] - without[1]))
}

/// The decay rates of a design's first two modes, 1/s.
fn decay_rates(design: &BarDesign) -> [f64; 2] {
    [-design.modes[0].discrete.decay_rate(), -design.modes[1].discrete.decay_rate()]
}

/// The ranges [`design_bar`] needs before it starts.
fn check_target(target: &BarTarget) -> Result<(), ModelError> {
    let positive = |field: &'static str, value: f64, expected: &str| {
        if value.is_finite() && value > 0.0 {
            Ok(())
        } else {
            Err(ModelError::new("bar", field, expected, value))
        }
    };
    positive("frequency", target.frequency_hz, "a frequency > 0 Hz")?;
    positive("decay", target.decay, "a time constant > 0 s")?;
    positive("high_decay", target.high_decay, "a time constant > 0 s")?;
    positive("linear_density", target.linear_density, "a density > 0 kg/m")?;
    positive("rigidity", target.rigidity, "a rigidity > 0 N m^2")?;
    if let Some(third) = target.third_ratio {
        if !(third.is_finite() && third > target.ratio) {
            return Err(ModelError::new(
                "bar",
                "third_ratio",
                format!("a ratio above the second mode's, {}", target.ratio),
                third,
            ));
        }
    }
    if target.high_decay > target.decay {
        return Err(ModelError::new(
            "bar",
            "high_decay",
            format!(
                "a time constant at most the first mode's, {} s (losses grow with frequency)",
                target.decay
            ),
            target.high_decay,
        ));
    }
    Ok(())
}

/// The hung bar of `knobs`, and its simulated first three bending modes (the third to fifth
/// vibrating modes: the bounce and the rocking on the cords come first).
fn measure(target: &BarTarget, knobs: Knobs, scheme: SchemeKind, h: f64) -> Result<BarDesign, AnalysisError> {
    let n = target.masses as f64;
    let bar = BarSpec::new("bar", target.masses)
        .mass(target.linear_density * knobs.length / n)
        .bending(target.rigidity * (n / knobs.length).powi(3))
        .undercut_ratio(knobs.ratio);
    let bar = match knobs.third {
        Some(third) => bar.undercut_third(third),
        None => bar,
    }
    .drag(knobs.drag)
    .stiffness_damping(knobs.eta);
    let mut model = Model::new(1)?;
    let frame = model.add_anchor(Anchor::new("frame"))?;
    let nodes = model.add_bar(bar.clone())?;
    // The cords' stiffness follows the bar's mass.
    let total: f64 = model.masses().iter().map(|m| m.mass).sum();
    let near_end = (CORD_POSITION * n - 0.5).round().max(0.0) as usize;
    let hung = HungBar {
        length: knobs.length,
        bar,
        cord_masses: [near_end, target.masses - 1 - near_end],
        cord_stiffness: (2.0 * PI * CORD_HZ).powi(2) * total / 2.0,
    };
    hung.add_cords(&mut model, frame, &nodes)?;
    let system = System::new(&model);
    let modal = ModelModes::new(&system, &AnalysisOptions::default())?;
    let mut bending = modal.modes().modes.iter().enumerate().filter(|(_, m)| m.pole.im > 0.0).skip(2);
    let mut next =
        || bending.next().map(|(position, mode)| oscillator_report(position, mode, scheme, h)).transpose();
    match (next()?, next()?, next()?) {
        (Some(first), Some(second), Some(third)) => Ok(BarDesign { hung, modes: [first, second, third] }),
        _ => Err(AnalysisError::Target("the bar has fewer than three bending modes".to_string())),
    }
}
