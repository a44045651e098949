//! Mechanical energy of a state: kinetic, elastic and gravitational.
//!
//! This is the blog's plausibility check (seed 004) done right (ERRATA): a spring stores
//! `k (l - l0)^2 / 2`, and gravity's potential is `-m g . x` (so with g pointing down, energy grows
//! with height).

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
}

impl Energy {
    /// Elastic plus gravitational, J.
    pub fn potential(&self) -> f64 {
        self.elastic + self.gravitational
    }

    /// Kinetic plus potential, J.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential()
    }
}

/// The energy of `state` in `system`.
pub fn energy(system: &System, state: &State) -> Energy {
    let dim = system.dimension();
    let kinetic = system
        .masses()
        .iter()
        .zip(state.v.chunks_exact(dim))
        .map(|(m, v)| 0.5 * m * v.iter().map(|c| c * c).sum::<f64>())
        .sum();
    let springs = system.springs();
    let elastic = (0..springs.len())
        .map(|i| {
            let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
            let d = (0..dim).map(|c| state.x[b * dim + c] - state.x[a * dim + c]);
            let stretch = if dim == 1 {
                d.sum::<f64>() - springs.rest_length[i]
            } else {
                d.map(|c| c * c).sum::<f64>().sqrt() - springs.rest_length[i]
            };
            0.5 * springs.coefficient[i] * stretch * stretch
        })
        .sum();
    let gravitational = -system.gravity_force().iter().zip(&state.x).map(|(f, x)| f * x).sum::<f64>();
    Energy { kinetic, elastic, gravitational }
}
