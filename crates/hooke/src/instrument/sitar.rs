//! A sitar-like string: a string designed like a guitar's (pitch and decay simulated exactly)
//! that beats against a flat barrier under its last few masses near the bridge, the jawari
//! bridge's buzz (Chatziioannou 2019, section 4: a string against a barrier with Hertz contact).
//!
//! With a body, the string ends on the body's bridge, and sympathetic strings (a sitar's taraf,
//! never plucked in the usual playing) end on it too: the played string drives the bridge, and
//! the bridge drives those whose partials it meets, which ring on after it. Each string is tuned
//! on the body; the instrument is then heard by the bridge's acceleration. The barrier stays on
//! the frame: the bridge moves far less than the string over it.

use super::body::{add_body, body_pickups, tune_on_body};
use super::frets::FretMethod;
use super::guitar::string_pickups;
use super::{
    check_stable, key_pitches, Damper, Instrument, InstrumentError, Part, PartKind, Plucker, StringPart,
};
use crate::analysis::design::{design_string, TuneTarget};
use crate::model::{BarrierSpec, BodyMode, Model, ModelError, Node, StringSpec};
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
    /// Pickup positions as fractions of the length from the nut (without a body).
    pub pickups: Vec<f64>,
    /// The body the strings end on: its modes at the bridge ([`crate::model::BodySpec`]); the
    /// output is then the bridge's acceleration, m/s^2. `None`: a fixed bridge.
    pub body: Option<Vec<BodyMode>>,
    /// Sympathetic strings, as note names (`"C#4"`), each a part of that name, unfretted, with
    /// the played string's masses and decay; only on a body.
    pub sympathetic: Vec<String>,
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
            body: None,
            sympathetic: Vec::new(),
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
    if spec.body.is_none() && !spec.sympathetic.is_empty() {
        let expected = "a body to couple them to (strings on a fixed bridge never reach each other)";
        return Err(ModelError::new("sitar", "sympathetic", expected, "no body").into());
    }
    let sympathetic = match spec.sympathetic.is_empty() {
        true => Vec::new(),
        false => key_pitches("sitar", &spec.sympathetic)?,
    };
    let mut model = Model::new(1)?;
    let body = add_body(&mut model, spec.body.as_ref())?;
    let mut parts = Vec::with_capacity(1 + sympathetic.len());
    let played = std::iter::once(("sitar", spec.pitch, spec.frets));
    let taraf = spec.sympathetic.iter().zip(&sympathetic).map(|(name, &pitch)| (name.as_str(), pitch, 0));
    for (name, pitch, frets) in played.chain(taraf) {
        let target = TuneTarget { frequency_hz: pitch, time_constant: Some(spec.decay) };
        let design = design_string(spec.masses, spec.mass, target, scheme, dt)
            .map_err(|source| InstrumentError::Analysis { part: format!("string {name}"), source })?;
        let string = StringSpec::new(name, spec.masses).mass(spec.mass).damping(design.damping);
        let (stiffness, string) = match &body {
            Some(alone) => {
                let tension = tune_on_body(&[(string.clone(), &design)], alone)?;
                (design.stiffness * tension, string.to(alone.bridge))
            }
            None => (design.stiffness, string),
        };
        let masses = model.add_string(string.stiffness(stiffness))?;
        let index = |node: Node| model.node_index(node);
        let nut = Instrument::node_index(&model, &format!("{name}.0")).expect("the string generator's ids");
        let end = match &body {
            Some(alone) => index(alone.bridge),
            None => {
                Instrument::node_index(&model, &format!("{name}.{}", spec.masses + 1)).expect("its bridge")
            }
        };
        let part = StringPart {
            bending: 0.0,
            mode_damping: Vec::new(),
            masses: masses.iter().map(|&m| index(m)).collect(),
            ends: [nut, end],
            mass: spec.mass,
            stiffness,
            damping: design.damping,
            drag: design.drag,
            frequency_hz: pitch,
            time_constant: Some(spec.decay),
            frets,
            fret_method: FretMethod::Between,
            plucker: Plucker::PLECTRUM,
            body: body.clone(),
            unisons: Vec::new(),
            hammer: None,
            damper: Damper::Hand,
        };
        parts.push(Part { name: name.to_string(), kind: PartKind::String(part) });
    }
    let PartKind::String(played) = &parts[0].kind else { unreachable!("the played string is first") };
    let (stiffness, masses) = (played.stiffness, played.masses.clone());
    check_stable(&System::new(&model), scheme, dt, "sitar")?;
    if scheme == SchemeKind::SymplecticEuler && spec.barrier_exponent == 1.0 {
        let pressed = ((4.0 * stiffness + spec.barrier_stiffness) / spec.mass).sqrt();
        if pressed * dt > 2.0 {
            return Err(ModelError::new(
                "sitar",
                "barrier_stiffness",
                format!(
                    "a barrier symplectic Euler can follow at {:.0} Hz: (4 k + k_b) / m <= (2 / h)^2, k_b <= {:.4e} N/m",
                    1.0 / dt,
                    (2.0 / dt).powi(2) * spec.mass - 4.0 * stiffness
                ),
                spec.barrier_stiffness,
            )
            .into());
        }
    }
    let over: Vec<Node> =
        masses[spec.masses - spec.barrier_masses..].iter().map(|&m| Node::Mass(m)).collect();
    model.add_barrier(
        BarrierSpec::new(over, [spec.barrier_position], [1.0], spec.barrier_stiffness, spec.barrier_exponent)
            .id("jawari"),
    )?;
    let pickups = match &body {
        Some(alone) => body_pickups(&model, alone.bridge, false),
        None => string_pickups(&parts, &spec.pickups, false),
    };
    Ok(Instrument { kind: "sitar", model, parts, pickups, scheme, dt })
}
