//! A clarinet-like reed (Chatziioannou 2019, section 3.1, eq. (55) and Figure 3): a lumped reed
//! with stiffness and damping, beating on the mouthpiece lay (a Hertz barrier), driven by the
//! pressure a score's `drive` events apply.

use super::{check_stable, BodyPart, Instrument, InstrumentError, Part, PartKind};
use crate::engine::PickupSpec;
use crate::model::{Anchor, BarrierSpec, Mass, Model, Spring};
use crate::scheme::SchemeKind;
use crate::system::System;
use serde::Deserialize;

/// A reed to build. Chatziioannou 2019 gives the quantities per unit reed area; they are read
/// here as a 1 m^2 reed, so the mass is in kg and the pressure a force in N.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReedSpec {
    /// Mass `M`, kg.
    pub mass: f64,
    /// Natural angular frequency `w0`, rad/s.
    pub omega0: f64,
    /// Damping `gamma`, 1/s (force `-M gamma y'`).
    pub gamma: f64,
    /// Lay position `y_c`, m.
    pub lay: f64,
    /// Contact stiffness `k_c`, N/m^alpha.
    pub contact_stiffness: f64,
    /// Hertz exponent `alpha`.
    pub exponent: f64,
}

impl Default for ReedSpec {
    /// Figure 3's values: M = 0.05, w0 = 5000 pi rad/s, gamma = 2800 1/s, y_c = 0.24 mm,
    /// k_c = 1e12, alpha = 1.5.
    fn default() -> Self {
        Self {
            mass: 0.05,
            omega0: 5000.0 * std::f64::consts::PI,
            gamma: 2800.0,
            lay: 2.4e-4,
            contact_stiffness: 1e12,
            exponent: 1.5,
        }
    }
}

/// Builds the reed for `scheme` at step `dt` (s), checked stable (the contact excepted: the
/// paper runs it with the energy-conserving scheme, which handles the stiff contact).
pub fn reed(spec: &ReedSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    let mut model = Model::new(1)?;
    let rest = model.add_anchor(Anchor::new("rest"))?;
    let reed = model.add_mass(Mass::new("reed", spec.mass).drag(spec.gamma))?;
    model.add_spring(Spring::new(rest, reed, spec.mass * spec.omega0 * spec.omega0))?;
    model.add_barrier(
        BarrierSpec::new([reed], [spec.lay], [-1.0], spec.contact_stiffness, spec.exponent).id("lay"),
    )?;
    check_stable(&System::new(&model), scheme, dt, "reed")?;
    let pickups = vec![PickupSpec::position(reed)];
    let parts = vec![Part { name: "reed".to_string(), kind: PartKind::Body(BodyPart { mass: 0 }) }];
    Ok(Instrument { kind: "reed", model, parts, pickups, scheme, dt })
}
