//! A resonating body seen from the point where strings drive it (a guitar's or piano's bridge):
//! a bank of damped modes, each given by its frequency, decay time and effective mass, realised
//! as a chain of masses and springs whose first mass is the bridge ([`Model::add_body`]).
//!
//! The driving-point admittance (velocity over force) of a bank of modes is, lossless,
//! `Y(s) = sum_k (1 / m_k) s / (s^2 + w_k^2)` (Fletcher & Rossing 1998, ch. 4: a structure's
//! point mobility as a sum over its normal modes). A chain `bridge = 1, 2, ..., K, ground` of
//! masses joined by springs has exactly this admittance at mass 1 when its mass-scaled stiffness
//! `M^-1/2 K M^-1/2` is the tridiagonal (Jacobi) matrix whose eigenvalues are the `w_k^2` and
//! whose eigenvectors' first components squared are `M_1 / m_k` (so `M_1 = 1 / sum_k 1/m_k`).
//! [`super::body_chain`] builds that matrix by the Lanczos method and takes the masses and
//! springs from it, then sets a drag on each mass and a damper on each link so that the damped
//! chain has each mode's frequency and decay time.

use super::body_chain::{nearest_rates, realise, BodyChain};
use crate::model::validate::{check_mass, check_positive};
use crate::model::{Anchor, Mass, Spring};
use crate::model::{Model, ModelError, Node};
use std::f64::consts::PI;

/// The most modes a body may have (its realisation takes dense eigenvalue problems of twice
/// this size, repeated until the modes match).
pub const MAX_BODY_MODES: usize = 32;

/// One mode of a body as seen from its driving point.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyMode {
    /// Frequency of the damped mode, Hz (> 0).
    pub frequency: f64,
    /// 1/e decay time of the mode's amplitude, s (> 0; the mode's Q is `pi f tau`, > 1/2).
    pub decay_time: f64,
    /// Effective mass at the driving point, kg (> 0): the mode's admittance peak is `tau / (2
    /// m)` (m/s)/N.
    pub mass: f64,
}

impl BodyMode {
    /// A mode at `frequency` Hz with 1/e decay time `decay_time` s and effective mass `mass` kg.
    pub fn new(frequency: f64, decay_time: f64, mass: f64) -> Self {
        Self { frequency, decay_time, mass }
    }
}

/// A body: `ID.1` (the bridge, where strings attach with `to = "ID.1"`) to `ID.K`, K the
/// number of modes, then the anchor `ID.ground`. 1D models only.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Id prefix of the generated masses and anchor.
    pub id: String,
    /// The modes, at distinct frequencies (1 to [`MAX_BODY_MODES`]).
    pub modes: Vec<BodyMode>,
}

impl BodySpec {
    /// A body `id` with `modes`.
    pub fn new(id: impl Into<String>, modes: Vec<BodyMode>) -> Self {
        Self { id: id.into(), modes }
    }
}

impl Model {
    /// Adds a body (see [`BodySpec`]) to a 1D model; returns its masses, the bridge first.
    pub fn add_body(&mut self, spec: BodySpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("body \"{}\"", spec.id);
        self.check_one_dimensional(&subject, "a body moves along the strings' one axis")?;
        check_modes(&subject, &spec.modes)?;
        self.check_room(
            &subject,
            "modes",
            Some(spec.modes.len() + 1),
            format!("{} modes", spec.modes.len()),
        )?;
        let BodyChain { masses, springs, drags, dampers } = realise(&spec.modes)
            .map_err(|reason| ModelError::new(&subject, "modes", reason.expected, reason.found))?;
        let mut nodes = Vec::with_capacity(masses.len());
        for (i, (&mass, &drag)) in masses.iter().zip(&drags).enumerate() {
            nodes.push(self.add_mass(Mass::new(format!("{}.{}", spec.id, i + 1), mass).drag(drag))?);
        }
        let ground = self.add_anchor(Anchor::new(format!("{}.ground", spec.id)))?;
        let ends = nodes.iter().copied().chain([ground]).collect::<Vec<_>>();
        for (pair, (&stiffness, &damping)) in ends.windows(2).zip(springs.iter().zip(&dampers)) {
            self.add_spring(Spring::new(pair[0], pair[1], stiffness).damping(damping))?;
        }
        Ok(nodes)
    }
}

/// The decay times nearest `modes`' (s, in their order, the relative errors least in least
/// squares) that a body's drags and link dampers can give together, to first order (the
/// module documentation of `body_chain`, step 2): `modes`' own where a body can have them.
/// Where it cannot ([`Model::add_body`] refuses them), these are what it comes closest to.
pub fn nearest_decay_times(modes: &[BodyMode]) -> Result<Vec<f64>, ModelError> {
    check_modes("body", modes)?;
    let rates = nearest_rates(modes)
        .map_err(|reason| ModelError::new("body", "modes", reason.expected, reason.found))?;
    Ok(rates.iter().map(|r| 1.0 / r).collect())
}

/// Checks the modes' count and values, and that their frequencies are distinct.
fn check_modes(subject: &str, modes: &[BodyMode]) -> Result<(), ModelError> {
    if modes.is_empty() || modes.len() > MAX_BODY_MODES {
        return Err(ModelError::new(subject, "modes", format!("1 to {MAX_BODY_MODES} modes"), modes.len()));
    }
    for (k, mode) in modes.iter().enumerate() {
        let mode_subject = format!("{subject}, mode {}", k + 1);
        let at_modes = |error: ModelError| {
            ModelError::new(
                &error.subject,
                "modes",
                format!("`{}` {}", error.field, error.expected),
                error.found,
            )
        };
        check_positive(&mode_subject, "frequency", mode.frequency).map_err(at_modes)?;
        check_positive(&mode_subject, "decay_time", mode.decay_time).map_err(at_modes)?;
        check_mass(&mode_subject, "mass", mode.mass).map_err(at_modes)?;
        let q = PI * mode.frequency * mode.decay_time;
        if q <= 0.5 {
            return Err(ModelError::new(
                mode_subject,
                "modes",
                format!(
                    "`decay_time` of a mode that oscillates: Q = pi f tau > 1/2, tau > {:.3e} s",
                    0.5 / (PI * mode.frequency)
                ),
                format!("Q = {q:.3}"),
            ));
        }
        let same =
            modes[..k].iter().position(|m| (m.frequency - mode.frequency).abs() <= 1e-6 * mode.frequency);
        if let Some(other) = same {
            return Err(ModelError::new(
                mode_subject,
                "modes",
                format!(
                    "a `frequency` distinct from mode {}'s (one mode per frequency at one point)",
                    other + 1
                ),
                mode.frequency,
            ));
        }
    }
    Ok(())
}
