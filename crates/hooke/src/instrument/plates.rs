//! Bell plates: tuned steel plates, each held on its rim and struck by a mallet, whose
//! inharmonic modes sound like a bell's.
//!
//! Each key is a simply supported rectangular plate designed for the scheme and step it runs at
//! ([`design_plate`]): its simulated first mode is the key's pitch, and its modes decay by the
//! law `sigma(f) = sigma_0 + sigma_1 f` through `decay` at the first mode and `high_decay` at
//! `high_frequency` (a loss factor the same at every frequency, as in a metal, and a constant
//! part). The modes of a simply supported plate lie at `(p / a)^2 + (q / b)^2` times a constant
//! (Fletcher & Rossing 1998, ch. 3): for the default 15 : 11 plate at 1, 2.05, 2.95, 3.80, 4.00,
//! ... times the first (1, 2.04, 2.90, 3.71, 3.93 on its 14 x 10 lattice), not a harmonic series. Every plate has the same thickness, so its
//! size goes as `1 / sqrt(f)`. The first mode's decay time is given at C4 and goes as `1 / f`
//! across the keys (the same loss factor at every pitch); the time at `high_frequency` is the
//! same for every key. The output is each plate's velocity at a point, panned from the lowest
//! key (left) to the highest (right).

use super::{check_fields, check_stable, pan_gains, tuned_pitches, Instrument, InstrumentError, KeyHammer};
use super::{Grid, Part, PartKind, PlatePart, MIDDLE_C_HZ, POSITIVE};
use crate::analysis::plate_design::{design_plate, PlateTarget};
use crate::engine::PickupSpec;
use crate::model::{de, Model, ModelError, Node, PlateSpec};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// The most masses along a plate's side.
pub const MAX_PLATE_SIDE: usize = 64;
/// The most masses of all the plates together (four plates of 64 x 64).
pub const MAX_PLATES_MASSES: usize = 16_384;

/// Bell plates to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlatesSpec {
    /// The keys, as note names (`"C4"`): one plate each, and the name a score gives the part.
    pub keys: Vec<String>,
    /// Each key's first mode, Hz (one per key), instead of its equal-tempered pitch: a plate
    /// tuned as a recording's (`hooke fit --as plate`). `None`: the keys' pitches.
    pub tuning: Option<Vec<f64>>,
    /// Masses along each plate's width (2 to [`MAX_PLATE_SIDE`]).
    pub columns: usize,
    /// Masses along each plate's height (2 to [`MAX_PLATE_SIDE`]); the plate's sides are in the
    /// ratio `(columns + 1) : (rows + 1)`.
    pub rows: usize,
    /// Mass per unit area `rho h`, kg/m^2.
    pub surface_density: f64,
    /// Bending rigidity `D = E h^3 / (12 (1 - nu^2))`, N m.
    pub rigidity: f64,
    /// The first mode's time constant (decay to 1/e) at C4, s (as `1 / f` elsewhere).
    pub decay: f64,
    /// The time constant at `high_frequency`, s (every key).
    pub high_decay: f64,
    /// Where `high_decay` applies, Hz.
    pub high_frequency: f64,
    /// Mallet head mass, kg.
    pub mallet_mass: f64,
    /// Mallet head stiffness, N/m^mallet_exponent.
    pub mallet_stiffness: f64,
    /// Hertz exponent of the mallet head (>= 1; 1.5 for a sphere).
    pub mallet_exponent: f64,
    /// Where the mallet strikes, as fractions `[x, y]` of the width and height.
    #[serde(deserialize_with = "de::array")]
    pub strike: [f64; 2],
    /// Where each plate is heard (its velocity), as fractions `[x, y]` of the width and height.
    #[serde(deserialize_with = "de::array")]
    pub pickup: [f64; 2],
    /// Two channels, the keys panned from left (lowest) to right, or one.
    pub stereo: bool,
}

impl Default for PlatesSpec {
    /// Four plates, G3 C4 E4 G4, of 14 x 10 masses; 4 mm steel (31.4 kg/m^2, D = 1172 N m: E =
    /// 200 GPa, nu = 0.3); decays of 6 s at C4's first mode and 0.5 s at 4 kHz; a 40 g mallet of
    /// 5e7 N/m^1.5 (a hard rubber head) struck off centre, heard at another point; stereo.
    fn default() -> Self {
        Self {
            keys: ["G3", "C4", "E4", "G4"].map(String::from).to_vec(),
            tuning: None,
            columns: 14,
            rows: 10,
            surface_density: 31.4,
            rigidity: 1172.0,
            decay: 6.0,
            high_decay: 0.5,
            high_frequency: 4000.0,
            mallet_mass: 0.04,
            mallet_stiffness: 5e7,
            mallet_exponent: 1.5,
            strike: [0.31, 0.37],
            pickup: [0.77, 0.71],
            stereo: true,
        }
    }
}

/// Builds the bell plates for `scheme` at step `dt` (s).
pub fn plates(spec: &PlatesSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    for (field, count) in [("columns", spec.columns), ("rows", spec.rows)] {
        if !(2..=MAX_PLATE_SIDE).contains(&count) {
            let expected = format!("2 to {MAX_PLATE_SIDE} masses along a plate's side");
            return Err(ModelError::new("plates", field, expected, count).into());
        }
    }
    let mallet = KeyHammer {
        mass: spec.mallet_mass,
        stiffness: spec.mallet_stiffness,
        exponent: spec.mallet_exponent,
        position: spec.strike[0],
    };
    check_fields("plates", &mallet.head_checks(["mallet_mass", "mallet_stiffness", "mallet_exponent"]))?;
    let fraction = |p: f64| p > 0.0 && p < 1.0;
    check_fields(
        "plates",
        &[
            ("surface_density", spec.surface_density, "a density > 0 kg/m^2", POSITIVE),
            ("rigidity", spec.rigidity, "a rigidity > 0 N m", POSITIVE),
            ("strike", spec.strike[0].min(spec.strike[1]), "fractions strictly between 0 and 1", fraction),
            ("strike", spec.strike[0].max(spec.strike[1]), "fractions strictly between 0 and 1", fraction),
            ("pickup", spec.pickup[0].min(spec.pickup[1]), "fractions strictly between 0 and 1", fraction),
            ("pickup", spec.pickup[0].max(spec.pickup[1]), "fractions strictly between 0 and 1", fraction),
            ("decay", spec.decay, "a time constant > 0 s", POSITIVE),
            ("high_frequency", spec.high_frequency, "a frequency > 0 Hz", POSITIVE),
        ],
    )?;
    let pitches = tuned_pitches("plates", &spec.keys, spec.tuning.as_deref())?;
    let masses = spec.keys.len() * spec.columns * spec.rows;
    if masses > MAX_PLATES_MASSES {
        let expected =
            format!("at most {MAX_PLATES_MASSES} masses in all the plates (keys x columns x rows)");
        return Err(ModelError::new("plates", "keys", expected, format!("{masses} masses")).into());
    }
    check_loss_law(spec, &pitches)?;
    let mut model = Model::new(1)?;
    let mut parts = Vec::with_capacity(spec.keys.len());
    for (key, &pitch) in spec.keys.iter().zip(&pitches) {
        let target = PlateTarget {
            frequency_hz: pitch,
            decay: spec.decay * MIDDLE_C_HZ / pitch,
            high_frequency: spec.high_frequency,
            high_decay: spec.high_decay,
            columns: spec.columns,
            rows: spec.rows,
            surface_density: spec.surface_density,
            rigidity: spec.rigidity,
        };
        let design = design_plate(&target, scheme, dt)
            .map_err(|source| InstrumentError::Analysis { part: format!("plate \"{key}\""), source })?;
        let nodes = model.add_plate(&PlateSpec { id: key.clone(), ..design })?;
        let masses = nodes.iter().map(|&node| model.node_index(node)).collect();
        let grid = Grid { columns: spec.columns, rows: spec.rows, masses };
        let plate = PlatePart { grid, frequency_hz: pitch, mallet, strike: spec.strike };
        parts.push(Part { name: key.clone(), kind: PartKind::Plate(plate) });
    }
    check_stable(&System::new(&model), scheme, dt, "plates")?;
    let count = parts.len();
    let mut pickups = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let PartKind::Plate(plate) = &part.kind else { continue };
        let heard = Node::Mass(plate.grid.mass_at(spec.pickup[0], spec.pickup[1]));
        for (channel, gain) in pan_gains(k, count, spec.stereo).into_iter().enumerate() {
            pickups.push(PickupSpec::velocity(heard).channel(channel + 1).weight(gain));
        }
    }
    Ok(Instrument { kind: "plates", model, parts, pickups, scheme, dt })
}

/// Checks that every key's loss law can be met with drag and dampers >= 0: `high_frequency`
/// above every key's first mode, and `high_decay` between the shortest first decay time (a
/// rate cannot fall with frequency) and `decay f_C4 / high_frequency`. With each key's first
/// decay `tau_1 = decay f_C4 / f_1`, the law's constant part `1 / tau_1 - f_1 (1 / tau_h - 1 /
/// tau_1) / (f_h - f_1)` is `>= 0` exactly when `tau_h >= tau_1 f_1 / f_h = decay f_C4 / f_h`,
/// the same for every key: the plates' losses can fall no faster than a constant loss factor.
fn check_loss_law(spec: &PlatesSpec, pitches: &[f64]) -> Result<(), ModelError> {
    let highest = pitches.iter().copied().fold(0.0, f64::max);
    if spec.high_frequency <= highest {
        let expected = format!("a frequency above every key's first mode, > {highest:.3} Hz");
        return Err(ModelError::new("plates", "high_frequency", expected, spec.high_frequency));
    }
    let shortest_first = spec.decay * MIDDLE_C_HZ / highest;
    let constant_loss_factor = spec.decay * MIDDLE_C_HZ / spec.high_frequency;
    if !(spec.high_decay >= constant_loss_factor && spec.high_decay <= shortest_first) {
        let expected = format!(
            "a time constant from {constant_loss_factor:.6} s (a loss factor the same at every frequency, from \
             `decay` at C4) to {shortest_first:.6} s (the highest key's first decay time)"
        );
        return Err(ModelError::new("plates", "high_decay", expected, spec.high_decay));
    }
    Ok(())
}
