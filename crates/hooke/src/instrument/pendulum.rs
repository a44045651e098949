//! An elastic pendulum in 2D under gravity, made audible: a bob on a spring whose stretching
//! and swinging frequencies are in the audio range (a pendulum a few micrometres long). With
//! the stretch at twice the swing (the 2:1 autoparametric resonance) energy passes back and
//! forth between the two motions. The output is the bob's velocity, x on the left channel and
//! y on the right.

use super::{check_stable, BodyPart, Instrument, InstrumentError, Part, PartKind};
use crate::engine::PickupSpec;
use crate::model::{Anchor, Mass, Model, ModelError, Spring};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// An elastic pendulum to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PendulumSpec {
    /// The bob, kg.
    pub mass: f64,
    /// Frequency of the spring's stretching `sqrt(k/m) / (2 pi)`, Hz.
    pub stretch_hz: f64,
    /// Frequency of small swings `sqrt(g/L) / (2 pi)`, Hz (below `stretch_hz`).
    pub swing_hz: f64,
    /// Gravity, m/s^2 (down is -y).
    pub gravity: f64,
    /// Time constant of the drag on the bob, s (amplitude decays as `exp(-t / decay)`).
    pub decay: f64,
}

impl Default for PendulumSpec {
    /// Stretch at 220 Hz, swing at 110 Hz (2:1), 10 g, Earth's gravity, 4 s decay.
    fn default() -> Self {
        Self { mass: 0.01, stretch_hz: 220.0, swing_hz: 110.0, gravity: 9.81, decay: 4.0 }
    }
}

/// Builds the pendulum for `scheme` at step `dt` (s): the bob hangs at rest at the length
/// `L = g / w_swing^2` below the pivot, from a spring of stiffness `m w_stretch^2` and rest
/// length `L - m g / k`.
pub fn pendulum(spec: &PendulumSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    use std::f64::consts::TAU;
    if !(spec.swing_hz > 0.0 && spec.swing_hz < spec.stretch_hz) {
        return Err(ModelError::new(
            "pendulum",
            "swing_hz",
            format!("a swing frequency > 0 and below stretch_hz = {} Hz", spec.stretch_hz),
            spec.swing_hz,
        )
        .into());
    }
    if !(spec.gravity > 0.0 && spec.decay > 0.0) {
        return Err(ModelError::new(
            "pendulum",
            "gravity",
            "gravity and decay > 0",
            spec.gravity.min(spec.decay),
        )
        .into());
    }
    let stiffness = spec.mass * (TAU * spec.stretch_hz).powi(2);
    let length = spec.gravity / (TAU * spec.swing_hz).powi(2);
    let mut model = Model::new(2)?;
    model.set_gravity(&[0.0, -spec.gravity])?;
    let pivot = model.add_anchor(Anchor::new("pivot").position([0.0, 0.0]))?;
    let bob = model.add_mass(Mass::new("bob", spec.mass).position([0.0, -length]).drag(2.0 / spec.decay))?;
    model.add_spring(
        Spring::new(pivot, bob, stiffness).rest_length(length - spec.mass * spec.gravity / stiffness),
    )?;
    check_stable(&System::new(&model), scheme, dt, "pendulum")?;
    let pickups = (0..2).map(|axis| PickupSpec::velocity(bob).axis(axis).channel(axis + 1)).collect();
    let parts = vec![Part { name: "bob".to_string(), kind: PartKind::Body(BodyPart { mass: 0 }) }];
    Ok(Instrument { kind: "pendulum", model, parts, pickups, scheme, dt })
}
