//! Mechanical energy of a state: kinetic, elastic, gravitational and contact.
//!
//! This is the plausibility check of Domoszlai's blog post done right (its errors are listed in
//! docs/errata.md): a spring stores `k (l - l0)^2 / 2`, and gravity's potential is `-m g . x` (so
//! with g pointing down, energy grows with height). A Hertz contact stores
//! `k [delta^(alpha + 1)] / (alpha + 1)` (Chatziioannou 2019, eq. (44)).
//! External forces and dampers are not in it: they change it, and the energy-conserving
//! scheme's balance (Chatziioannou 2019, eq. (54)) accounts for their work.

use crate::forces;
use crate::system::{State, System};

/// The parts of the mechanical energy of a state, J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Energy {
    /// `sum m |v|^2 / 2`, J.
    pub kinetic: f64,
    /// `sum k (l - l0)^2 / 2` over springs, J (1D: `l - l0` is `x_b - x_a - l0`).
    pub elastic: f64,
    /// `-sum m g . x` over masses, J.
    pub gravitational: f64,
    /// `sum k [delta^(alpha + 1)] / (alpha + 1)` over barrier contacts and collisions
    /// (`delta` the penetration, 0 out of contact), J.
    pub contact: f64,
}

impl Energy {
    /// Elastic plus gravitational plus contact, J (what `forces::potential` gives).
    pub fn potential(&self) -> f64 {
        self.elastic + self.gravitational + self.contact
    }

    /// Kinetic plus potential, J.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential()
    }
}

/// The energy of `state` in `system`.
pub fn energy(system: &System, state: &State) -> Energy {
    let kinetic = system
        .masses()
        .iter()
        .zip(state.v.chunks_exact(system.dimension()))
        .map(|(m, v)| 0.5 * m * v.iter().map(|c| c * c).sum::<f64>())
        .sum();
    Energy {
        kinetic,
        elastic: forces::elastic_energy(system, &state.x),
        gravitational: forces::gravitational_energy(system, &state.x),
        contact: forces::contact_energy(system, &state.x),
    }
}
