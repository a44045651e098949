//! A drum: a 1D membrane (transverse displacements) with a fixed rim, its lowest simulated
//! mode tuned to a pitch and decay for the scheme and step it runs at ([`tune`]).

use super::{check_stable, Grid, Instrument, InstrumentError, MembranePart, Part, PartKind};
use crate::analysis::design::{tune, TuneTarget};
use crate::analysis::report::AnalysisOptions;
use crate::engine::PickupSpec;
use crate::model::{de, MembraneSpec, Model, ModelError, Node};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// A drum to build.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DrumSpec {
    /// Masses along x.
    pub columns: usize,
    /// Masses along y.
    pub rows: usize,
    /// Width and height, m.
    #[serde(deserialize_with = "de::array")]
    pub size: [f64; 2],
    /// Membrane tension per unit length, N/m.
    pub tension: f64,
    /// Surface density, kg/m^2.
    pub density: f64,
    /// The simulated lowest mode's pitch, Hz.
    pub pitch: f64,
    /// The simulated lowest mode's time constant, s.
    pub decay: f64,
    /// Pickup points as fractions `(x, y)` of the width and height; one channel each.
    #[serde(deserialize_with = "de::arrays")]
    pub pickups: Vec<[f64; 2]>,
}

impl Default for DrumSpec {
    /// A 16 x 16 tom-like membrane, 0.3 m square, tuned to 110 Hz with a 0.6 s decay, listened to
    /// at two points (stereo).
    fn default() -> Self {
        Self {
            columns: 16,
            rows: 16,
            size: [0.3, 0.3],
            tension: 2000.0,
            density: 0.25,
            pitch: 110.0,
            decay: 0.6,
            pickups: vec![[0.3, 0.4], [0.7, 0.6]],
        }
    }
}

/// Builds the drum for `scheme` at step `dt` (s), tuned and checked stable.
pub fn drum(spec: &DrumSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    if spec.pickups.is_empty() {
        return Err(ModelError::new("drum", "pickups", "at least one pickup point", "none").into());
    }
    if let Some(bad) = spec.pickups.iter().flatten().find(|p| !(**p > 0.0 && **p < 1.0)) {
        return Err(ModelError::new("drum", "pickups", "fractions strictly between 0 and 1", bad).into());
    }
    let mut membrane = Model::new(1)?;
    membrane.add_membrane(
        MembraneSpec::new("drum", spec.columns, spec.rows)
            .width(spec.size[0])
            .height(spec.size[1])
            .tension(spec.tension)
            .surface_density(spec.density)
            .decay_time(spec.decay),
    )?;
    let part = |source| InstrumentError::Analysis { part: "drum".to_string(), source };
    let target = TuneTarget { frequency_hz: spec.pitch, time_constant: Some(spec.decay) };
    let model = tune(&membrane, scheme, dt, target, &AnalysisOptions::default()).map_err(part)?.model;
    check_stable(&System::new(&model), scheme, dt, "drum")?;
    let node = |id: &str| Instrument::node_index(&model, id).expect("the membrane generator's ids");
    let links = model
        .links()
        .iter()
        .map(|l| {
            let (a, b) = (model.node_id(l.a), model.node_id(l.b));
            ([node(a), node(b)], l.stiffness, l.damping)
        })
        .collect();
    let grid =
        Grid { columns: spec.columns, rows: spec.rows, masses: (0..spec.columns * spec.rows).collect() };
    let membrane = MembranePart { grid, links };
    let pickups = spec
        .pickups
        .iter()
        .enumerate()
        .map(|(channel, [x, y])| {
            PickupSpec::position(Node::Mass(membrane.grid.mass_at(*x, *y))).channel(channel + 1)
        })
        .collect();
    let parts = vec![Part { name: "drum".to_string(), kind: PartKind::Membrane(membrane) }];
    Ok(Instrument { kind: "drum", model, parts, pickups, scheme, dt })
}
