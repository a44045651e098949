//! Church bells: each key a bell whose partials are a church bell's, struck by its clapper.
//!
//! A tuned church bell sounds, above and below its strike note `f`, the hum (`0.5 f`), the
//! prime (`f`), the tierce (a minor third, `1.2 f`), the quint (`1.5 f`) and the nominal (`2 f`,
//! the partial the strike note is heard from), then the deciem, undeciem, duodeciem and double
//! octave (about `2.5, 2.67, 3` and `4 f`) (Fletcher & Rossing 1998, ch. 21). Each key is a bank
//! of those modes as seen from the point the clapper strikes: a chain of masses and springs
//! whose driving-point admittance is the sum of the modes' ([`crate::model::BodySpec`]), each
//! mode given by its frequency, its decay time and its effective mass there (a lighter mass
//! sounds louder). The modes are designed for the scheme and step the bell runs at: each
//! frequency and decay is the digital pole's, the analog mode found by inverting the scheme's
//! pole mapping ([`invert_pole`]), so the simulated bell sounds each partial where it is asked
//! (the scheme's frequency warping corrected). The decay times and the effective masses are
//! given at C4; a smaller bell (a higher key) of the same profile rings shorter, as `1 / f`, and
//! weighs less, as `1 / f^3` (its size goes as `1 / f`), and so does its clapper. The output is
//! each bell's velocity at the struck point, panned from the lowest key (left) to the highest
//! (right).

use super::{check_fields, check_stable, pan_gains, tuned_pitches, BarPart, Instrument, InstrumentError};
use super::{KeyHammer, Part, PartKind, MIDDLE_C_HZ, POSITIVE};
use crate::analysis::design::{digital_target, invert_pole};
use crate::engine::PickupSpec;
use crate::model::{BodyMode, BodySpec, Model, ModelError, Node, MAX_BODY_MODES};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// One partial of a bell at C4.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BellPartial {
    /// Its frequency over the strike note's, as simulated.
    pub ratio: f64,
    /// Its time constant (decay of the amplitude to 1/e) at C4, s (as `1 / f` elsewhere).
    pub decay: f64,
    /// Its effective mass at the struck point at C4, kg (as `1 / f^3` elsewhere).
    pub mass: f64,
}

/// Bells to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BellSpec {
    /// The keys, as note names (`"C4"`): one bell each, whose strike note (its prime, half its
    /// nominal) is the key's pitch, and the name a score gives the part.
    pub keys: Vec<String>,
    /// Each key's strike note, Hz (one per key), instead of its equal-tempered pitch: a bell
    /// tuned as a recording's (`hooke fit --as bell`). `None`: the keys' pitches.
    pub tuning: Option<Vec<f64>>,
    /// The partials, at distinct ratios (1 to [`MAX_BODY_MODES`]).
    pub partials: Vec<BellPartial>,
    /// The clapper's mass at C4, kg (as `1 / f^3` elsewhere).
    pub clapper_mass: f64,
    /// The clapper's contact stiffness, N/m^clapper_exponent.
    pub clapper_stiffness: f64,
    /// Its Hertz exponent (>= 1; 1.5 for a sphere).
    pub clapper_exponent: f64,
    /// Two channels, the keys panned from left (lowest) to right, or one.
    pub stereo: bool,
}

/// A church bell's partials at C4 (Fletcher & Rossing 1998, ch. 21: hum, prime, tierce, quint,
/// nominal, deciem, undeciem, duodeciem, double octave), the nominal and the tierce loudest, the
/// hum longest.
pub const CHURCH_BELL: [BellPartial; 9] = [
    BellPartial { ratio: 0.5, decay: 4.0, mass: 3.0 },
    BellPartial { ratio: 1.0, decay: 2.5, mass: 2.0 },
    BellPartial { ratio: 1.2, decay: 2.0, mass: 1.2 },
    BellPartial { ratio: 1.5, decay: 1.2, mass: 3.0 },
    BellPartial { ratio: 2.0, decay: 1.5, mass: 0.8 },
    BellPartial { ratio: 2.5, decay: 0.8, mass: 2.0 },
    BellPartial { ratio: 2.67, decay: 0.7, mass: 2.5 },
    BellPartial { ratio: 3.0, decay: 0.6, mass: 3.0 },
    BellPartial { ratio: 4.0, decay: 0.4, mass: 4.0 },
];

impl Default for BellSpec {
    /// Four bells, C4 E4 G4 C5, with [`CHURCH_BELL`]'s partials, struck by a 0.3 kg clapper
    /// (at C4) of 2e9 N/m^1.5; stereo.
    fn default() -> Self {
        Self {
            keys: ["C4", "E4", "G4", "C5"].map(String::from).to_vec(),
            tuning: None,
            partials: CHURCH_BELL.to_vec(),
            clapper_mass: 0.3,
            clapper_stiffness: 2e9,
            clapper_exponent: 1.5,
            stereo: true,
        }
    }
}

/// Builds the bells for `scheme` at step `dt` (s).
pub fn bell(spec: &BellSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    let clapper = KeyHammer {
        mass: spec.clapper_mass,
        stiffness: spec.clapper_stiffness,
        exponent: spec.clapper_exponent,
        // The middle of the first of the chain's cells, its first mass: where the modes are seen.
        position: 0.5 / spec.partials.len().max(1) as f64,
    };
    check_fields("bell", &clapper.head_checks(["clapper_mass", "clapper_stiffness", "clapper_exponent"]))?;
    check_partials(&spec.partials)?;
    let pitches = tuned_pitches("bell", &spec.keys, spec.tuning.as_deref())?;
    let mut model = Model::new(1)?;
    let mut parts = Vec::with_capacity(spec.keys.len());
    for (key, &pitch) in spec.keys.iter().zip(&pitches) {
        let size = MIDDLE_C_HZ / pitch;
        let modes = designed_modes(&spec.partials, pitch, scheme, dt)
            .map_err(|source| InstrumentError::Analysis { part: format!("bell \"{key}\""), source })?;
        let nodes = model.add_body(BodySpec::new(key.clone(), modes))?;
        let masses = nodes.iter().map(|&node| model.node_index(node)).collect();
        let clapper = KeyHammer { mass: clapper.mass * size.powi(3), ..clapper };
        parts.push(Part {
            name: key.clone(),
            kind: PartKind::Bar(BarPart { masses, frequency_hz: pitch, mallet: clapper }),
        });
    }
    check_stable(&System::new(&model), scheme, dt, "bell")?;
    let count = parts.len();
    let mut pickups = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let PartKind::Bar(bell) = &part.kind else { continue };
        for (channel, gain) in pan_gains(k, count, spec.stereo).into_iter().enumerate() {
            pickups.push(PickupSpec::velocity(Node::Mass(bell.masses[0])).channel(channel + 1).weight(gain));
        }
    }
    Ok(Instrument { kind: "bell", model, parts, pickups, scheme, dt })
}

/// The analog modes that `scheme` at step `dt` sounds as `partials` of a bell of strike note
/// `pitch` (Hz) ([`designed_mode`]).
pub(crate) fn designed_modes(
    partials: &[BellPartial],
    pitch: f64,
    scheme: SchemeKind,
    dt: f64,
) -> Result<Vec<BodyMode>, crate::analysis::error::AnalysisError> {
    let size = MIDDLE_C_HZ / pitch;
    partials.iter().map(|partial| designed_mode(partial, pitch, size, scheme, dt)).collect()
}

/// The analog mode that `scheme` at step `dt` sounds as `partial` of a bell of strike note
/// `pitch` (Hz) and size `size` (`f_C4 / pitch`): the digital pole at `ratio pitch` Hz with the
/// time constant `decay size` s, mapped back through the scheme, and the mass `mass size^3`.
fn designed_mode(
    partial: &BellPartial,
    pitch: f64,
    size: f64,
    scheme: SchemeKind,
    dt: f64,
) -> Result<BodyMode, crate::analysis::error::AnalysisError> {
    let digital = digital_target(partial.ratio * pitch, Some(partial.decay * size), dt)?;
    let analog = invert_pole(scheme, digital, dt)?;
    let decay_rate = 0.5 * analog.gamma;
    let frequency = (analog.omega0_squared - decay_rate * decay_rate).sqrt() / std::f64::consts::TAU;
    Ok(BodyMode::new(frequency, 1.0 / decay_rate, partial.mass * size.powi(3)))
}

/// The partials' ranges: 1 to [`MAX_BODY_MODES`], each ratio, decay and mass > 0, the ratios
/// distinct.
fn check_partials(partials: &[BellPartial]) -> Result<(), ModelError> {
    if partials.is_empty() || partials.len() > MAX_BODY_MODES {
        let expected = format!("1 to {MAX_BODY_MODES} partials");
        return Err(ModelError::new("bell", "partials", expected, partials.len()));
    }
    for partial in partials {
        check_fields(
            "bell",
            &[
                ("partials", partial.ratio, "ratios > 0", POSITIVE),
                ("partials", partial.decay, "decay times > 0 s", POSITIVE),
                ("partials", partial.mass, "masses > 0 kg", POSITIVE),
            ],
        )?;
    }
    let mut ratios: Vec<f64> = partials.iter().map(|p| p.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    if let Some(pair) = ratios.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(ModelError::new("bell", "partials", "distinct ratios", format!("{} twice", pair[0])));
    }
    Ok(())
}
