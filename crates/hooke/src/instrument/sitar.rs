//! A sitar-like string: a string designed like a guitar's (pitch and decay simulated exactly)
//! that beats against a flat barrier under its last few masses near the bridge, the jawari
//! bridge's buzz (Chatziioannou 2019, section 4: a string against a barrier with Hertz contact).

use super::frets::FretMethod;
use super::guitar::string_pickups;
use super::{check_stable, Instrument, InstrumentError, Part, PartKind, StringPart};
use crate::analysis::design::{design_string, TuneTarget};
use crate::model::{BarrierSpec, Model, ModelError, StringSpec};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// A sitar-like string to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SitarSpec {
    /// Masses along the string.
    pub masses: usize,
    /// The simulated fundamental, Hz.
    pub pitch: f64,
    /// The simulated fundamental's time constant, s.
    pub decay: f64,
    /// Each mass, kg.
    pub mass: f64,
    /// Masses over the barrier, counted from the bridge.
    pub barrier_masses: usize,
    /// The barrier's position below the rest line, m (negative: below).
    pub barrier_position: f64,
    /// Contact stiffness per mass, N/m^alpha.
    pub barrier_stiffness: f64,
    /// Hertz exponent alpha.
    pub barrier_exponent: f64,
    /// Frets (0: none).
    pub frets: usize,
    /// Pickup positions as fractions of the length from the nut.
    pub pickups: Vec<f64>,
}

impl Default for SitarSpec {
    /// 60 masses at C#3 (138.59 Hz) with a 3 s decay, 1 g each; the last 3 masses lie over a
    /// barrier 0.1 mm below the rest line with the stiffness of fig. 5 of Chatziioannou 2019 per
    /// mass (7e4 N/m, alpha = 1); 20 frets; one pickup at 0.85 of the length (on the sounding side
    /// of every fret).
    fn default() -> Self {
        Self {
            masses: 60,
            pitch: 138.591_315_488_436_7,
            decay: 3.0,
            mass: 1e-3,
            barrier_masses: 3,
            barrier_position: -1e-4,
            barrier_stiffness: 7e4,
            barrier_exponent: 1.0,
            frets: 20,
            pickups: vec![0.85],
        }
    }
}

/// Builds the string for `scheme` at step `dt` (s). With symplectic Euler the barrier's
/// linear stiffness (alpha = 1) is checked as the analysis checks the string: a mass pressed on
/// the barrier must keep `omega h <= 2` with `omega^2 = (4 k + k_b) / m`.
pub fn sitar(spec: &SitarSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    if spec.barrier_masses == 0 || spec.barrier_masses > spec.masses {
        return Err(ModelError::new(
            "sitar",
            "barrier_masses",
            format!("1 to {} masses over the barrier", spec.masses),
            spec.barrier_masses,
        )
        .into());
    }
    let target = TuneTarget { frequency_hz: spec.pitch, time_constant: Some(spec.decay) };
    let design = design_string(spec.masses, spec.mass, target, scheme, dt)
        .map_err(|source| InstrumentError::Analysis { part: "sitar".to_string(), source })?;
    let mut model = Model::new(1)?;
    let masses = model.add_string(
        StringSpec::new("sitar", spec.masses)
            .mass(spec.mass)
            .stiffness(design.stiffness)
            .damping(design.damping),
    )?;
    check_stable(&System::new(&model), scheme, dt, "sitar")?;
    if scheme == SchemeKind::SymplecticEuler && spec.barrier_exponent == 1.0 {
        let pressed = ((4.0 * design.stiffness + spec.barrier_stiffness) / spec.mass).sqrt();
        if pressed * dt > 2.0 {
            return Err(ModelError::new(
                "sitar",
                "barrier_stiffness",
                format!(
                    "a barrier symplectic Euler can follow at {:.0} Hz: (4 k + k_b) / m <= (2 / h)^2, k_b <= {:.4e} N/m",
                    1.0 / dt,
                    (2.0 / dt).powi(2) * spec.mass - 4.0 * design.stiffness
                ),
                spec.barrier_stiffness,
            )
            .into());
        }
    }
    let over = masses[spec.masses - spec.barrier_masses..].to_vec();
    model.add_barrier(
        BarrierSpec::new(over, [spec.barrier_position], [1.0], spec.barrier_stiffness, spec.barrier_exponent)
            .id("jawari"),
    )?;
    let n = spec.masses;
    let node = |id: String| Instrument::node_index(&model, &id).expect("the string generator's ids");
    let string = StringPart {
        bending: 0.0,
        masses: (0..n).collect(),
        ends: [node("sitar.0".to_string()), node(format!("sitar.{}", n + 1))],
        mass: spec.mass,
        stiffness: design.stiffness,
        damping: design.damping,
        drag: design.drag,
        frequency_hz: spec.pitch,
        time_constant: Some(spec.decay),
        frets: spec.frets,
        fret_method: FretMethod::Between,
        unisons: Vec::new(),
        hammer: None,
    };
    let parts = vec![Part { name: "sitar".to_string(), kind: PartKind::String(string) }];
    let pickups = string_pickups(&parts, &spec.pickups, false);
    Ok(Instrument { kind: "sitar", model, parts, pickups, scheme, dt })
}
