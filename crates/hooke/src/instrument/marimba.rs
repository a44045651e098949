//! A marimba-like instrument: free wooden bars, undercut so that each bar's second mode sounds
//! two octaves above its first, hung on cords and struck by a mallet.
//!
//! Each key is a bar designed for the scheme and step it runs at ([`design_bar`]): its
//! simulated first mode is the key's pitch, its second mode `ratio` times that (4 for a
//! marimba, 3 for a xylophone; Fletcher & Rossing 1998, ch. 19), and the two decay with the
//! time constants asked for. Every bar has the same section (`linear_density`, `rigidity`), so
//! its length goes about as `1 / sqrt(f)`, as on a real keyboard of one thickness. The wood's
//! loss factor is nearly the same at every pitch, so a bar's decay times are given at C4 and go
//! as `1 / f` across the keys. The mallet is a Hertz contact (a rubber core: exponent 1.5, the
//! sphere's). The output is each bar's velocity at its end, where every mode moves, less the
//! bar's rigid motion on its cords ([`bar_pickups`]), panned from the lowest key (left) to the
//! highest (right). Resonator tubes are not modelled: a marimba's
//! fundamental sounds stronger and shorter through them than here.

use super::{
    check_fields, check_stable, pan_gains, tuned_pitches, BarPart, Instrument, InstrumentError, KeyHammer,
    Part, PartKind, MIDDLE_C_HZ, POSITIVE,
};
use crate::analysis::bar_design::{design_bar, BarTarget};
use crate::analysis::error::AnalysisError;
use crate::engine::PickupSpec;
use crate::model::{Anchor, Model, ModelError, Node, MAX_UNDERCUT_MASSES};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// A marimba to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MarimbaSpec {
    /// The keys, as note names (`"C4"`): one bar each, and the name a score gives the part.
    pub keys: Vec<String>,
    /// Each key's first mode, Hz (one per key), instead of its equal-tempered pitch: a bar tuned
    /// as a recording's (`hooke fit --as bar`). `None`: the keys' pitches.
    pub tuning: Option<Vec<f64>>,
    /// Masses per bar (6 to [`MAX_UNDERCUT_MASSES`]).
    pub masses: usize,
    /// Each bar's second mode over its first, as simulated (4: a marimba, 3: a xylophone).
    pub ratio: f64,
    /// Each bar's third mode over its first, as simulated, where the cut tunes it too (about 10
    /// on a concert marimba: Bork 1995); `None`: where the two-mode cut puts it.
    pub third_ratio: Option<f64>,
    /// Mass per unit length of the uncut bar, kg/m.
    pub linear_density: f64,
    /// Bending rigidity `E I` of the uncut bar, N m^2.
    pub rigidity: f64,
    /// The first mode's time constant (decay to 1/e) at C4, s (as `1 / f` elsewhere).
    pub decay: f64,
    /// The second mode's time constant at C4, s (as `1 / f` elsewhere).
    pub high_decay: f64,
    /// Mallet head mass, kg.
    pub mallet_mass: f64,
    /// Mallet head stiffness, N/m^mallet_exponent.
    pub mallet_stiffness: f64,
    /// Hertz exponent of the mallet head (>= 1; 1.5 for a sphere).
    pub mallet_exponent: f64,
    /// Where the mallet strikes, as a fraction of the bar's length from its first end.
    pub strike_position: f64,
    /// Two channels, the keys panned from left (lowest) to right, or one.
    pub stereo: bool,
}

impl Default for MarimbaSpec {
    /// An octave of white keys from C4 to C5, 12 masses a bar; bars of a rosewood-like wood
    /// (900 kg/m^3, E = 18 GPa) 50 mm wide and 20 mm thick; decays 0.3 s (fundamental) and 0.18 s
    /// (second mode) at C4; a 25 g mallet of 1e7 N/m^1.5 striking at 0.4 of the length; stereo.
    fn default() -> Self {
        Self {
            keys: ["C4", "D4", "E4", "F4", "G4", "A4", "B4", "C5"].map(String::from).to_vec(),
            tuning: None,
            masses: 12,
            ratio: 4.0,
            third_ratio: None,
            linear_density: 0.9,
            rigidity: 600.0,
            decay: 0.3,
            high_decay: 0.18,
            mallet_mass: 0.025,
            mallet_stiffness: 1e7,
            mallet_exponent: 1.5,
            strike_position: 0.4,
            stereo: true,
        }
    }
}

/// Builds the marimba for `scheme` at step `dt` (s).
pub fn marimba(spec: &MarimbaSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    if !(6..=MAX_UNDERCUT_MASSES).contains(&spec.masses) {
        let expected = format!("6 to {MAX_UNDERCUT_MASSES} masses a bar");
        return Err(ModelError::new("marimba", "masses", expected, spec.masses).into());
    }
    let mallet = KeyHammer {
        mass: spec.mallet_mass,
        stiffness: spec.mallet_stiffness,
        exponent: spec.mallet_exponent,
        position: spec.strike_position,
    };
    check_fields("marimba", &mallet.head_checks(["mallet_mass", "mallet_stiffness", "mallet_exponent"]))?;
    check_fields(
        "marimba",
        &[
            ("linear_density", spec.linear_density, "a density > 0 kg/m", POSITIVE),
            ("rigidity", spec.rigidity, "a rigidity > 0 N m^2", POSITIVE),
            ("strike_position", spec.strike_position, "a fraction strictly between 0 and 1", |p| {
                p > 0.0 && p < 1.0
            }),
            ("ratio", spec.ratio, "a ratio > 1", |r| r.is_finite() && r > 1.0),
        ],
    )?;
    let pitches = tuned_pitches("marimba", &spec.keys, spec.tuning.as_deref())?;
    let mut model = Model::new(1)?;
    let frame = model.add_anchor(Anchor::new("frame"))?;
    let mut parts = Vec::with_capacity(spec.keys.len());
    for (key, &pitch) in spec.keys.iter().zip(&pitches) {
        let scale = MIDDLE_C_HZ / pitch;
        let target = BarTarget {
            frequency_hz: pitch,
            ratio: spec.ratio,
            decay: spec.decay * scale,
            high_decay: spec.high_decay * scale,
            third_ratio: spec.third_ratio,
            masses: spec.masses,
            linear_density: spec.linear_density,
            rigidity: spec.rigidity,
        };
        let design = design_bar(&target, scheme, dt).map_err(|error| key_error(key, error))?;
        let nodes = design.hung.add_to(&mut model, key, frame)?;
        let masses = nodes.iter().map(|&node| model.node_index(node)).collect();
        parts.push(Part {
            name: key.clone(),
            kind: PartKind::Bar(BarPart { masses, frequency_hz: pitch, mallet }),
        });
    }
    check_stable(&System::new(&model), scheme, dt, "marimba")?;
    let pickups = bar_pickups(&model, &parts, spec.stereo);
    Ok(Instrument { kind: "marimba", model, parts, pickups, scheme, dt })
}

/// A bar's design error as the marimba's: a field of `[marimba]` for a target out of range or
/// out of reach (the design checks the decay times, scaled to the key).
fn key_error(key: &str, error: AnalysisError) -> InstrumentError {
    match error {
        AnalysisError::Model(error) => {
            let field = match error.field {
                "undercut_ratio" => "ratio",
                "undercut_third" => "third_ratio",
                "frequency" => "keys",
                field => field,
            };
            let subject = match field {
                "decay" | "high_decay" => format!("marimba, key \"{key}\" (its decay times, as 1/f from C4)"),
                _ => format!("marimba, key \"{key}\""),
            };
            InstrumentError::Model(ModelError { subject, field, ..error })
        }
        source => InstrumentError::Analysis { part: format!("marimba key \"{key}\""), source },
    }
}

/// Each bar's velocity at its first end relative to the bar's rigid motion, m/s, panned
/// ([`pan_gains`]). With masses `m_i` at `x_i`, total `M`, centre `x_c` and moment `I = sum m_i
/// (x_i - x_c)^2`, the rigid motion that best fits the velocities is `u + w (x - x_c)`, with `u =
/// sum m_i v_i / M` and `w = sum m_i (x_i - x_c) v_i / I`, and the pickup is `v_1 - u - w (x_1 -
/// x_c)`. A free bar's bending modes are orthogonal to its rigid motions in the mass inner
/// product, so for each of them this is exactly the end's velocity; the bar's bounce and rocking
/// on its soft cords, nearly rigid, are not heard (they would be at 5 Hz).
fn bar_pickups(model: &Model, parts: &[Part], stereo: bool) -> Vec<PickupSpec> {
    let count = parts.len();
    let mut pickups = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let PartKind::Bar(bar) = &part.kind else { continue };
        let mass: Vec<f64> = bar.masses.iter().map(|&i| model.masses()[i].mass).collect();
        let total: f64 = mass.iter().sum();
        let centre = mass.iter().enumerate().map(|(i, m)| m * i as f64).sum::<f64>() / total;
        let moment: f64 = mass.iter().enumerate().map(|(i, m)| m * (i as f64 - centre).powi(2)).sum();
        let end_arm = -centre;
        let weights = mass.iter().enumerate().map(|(i, m)| {
            let rigid = m / total + end_arm * m * (i as f64 - centre) / moment;
            if i == 0 {
                1.0 - rigid
            } else {
                -rigid
            }
        });
        let gains = pan_gains(k, count, stereo);
        for (&index, weight) in bar.masses.iter().zip(weights) {
            for (channel, gain) in gains.iter().enumerate() {
                pickups
                    .push(PickupSpec::velocity(Node::Mass(index)).channel(channel + 1).weight(gain * weight));
            }
        }
    }
    pickups
}
