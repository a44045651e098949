//! The exact flow of the damping forces alone, `M v' = -D(x) v` with `x` fixed.
//!
//! The conformal-symplectic splittings (Chatziioannou 2019, section 2.6) and Caldirola-Kanai (as a
//! splitting, see [`super::CaldirolaKanai`]) advance the velocities by this flow,
//! `v <- exp(-tau M^-1 D(x)) v`. On a single oscillator it is `p <- e^{-gamma tau} p`; on a
//! network with dampers between masses it is a matrix exponential, applied here without forming
//! it: a Taylor series in the damping force kernel, over enough sub-steps that
//! `tau ||M^-1 D|| / substeps <= 1/2`, summed until the terms fall below round-off. The result is
//! exact to round-off for any network size at the cost of a few damping-force evaluations.

use crate::forces;
use crate::system::System;

/// Sub-step bound on `tau ||M^-1 D||` for the Taylor series.
const SUBSTEP_NORM: f64 = 0.5;
/// Taylor terms stop once below this fraction of the sum.
const TERM_TOLERANCE: f64 = 1e-17;
/// A hard cap on Taylor terms per sub-step (never reached with the sub-step bound above).
const MAX_TERMS: usize = 40;

/// Scratch space and the norm bound for applying the damping flow.
#[derive(Debug, Clone)]
pub struct DampingFlow {
    /// Upper bound on `||M^-1 D(x)||_inf` for any `x`, 1/s.
    norm_bound: f64,
    term: Vec<f64>,
    force: Vec<f64>,
}

impl DampingFlow {
    /// Prepares the flow for `system`. The bound uses Gershgorin row sums: each damper adds at
    /// most `2 Z dim` to the rows of its ends, drag `gamma m` to its own.
    pub fn new(system: &System) -> Self {
        let dim = system.dimension();
        let n = system.mass_coordinates();
        let mut row_sums = vec![0.0; system.initial_state().x.len()];
        let dampers = system.dampers();
        for i in 0..dampers.len() {
            for node in [dampers.a[i], dampers.b[i]] {
                for c in 0..dim {
                    row_sums[node as usize * dim + c] += 2.0 * dampers.coefficient[i] * dim as f64;
                }
            }
        }
        for (sum, c) in row_sums.iter_mut().zip(system.drag()) {
            *sum += c;
        }
        let norm_bound =
            row_sums[..n].iter().zip(system.inverse_mass()).map(|(s, inv)| s * inv).fold(0.0, f64::max);
        let len = system.initial_state().x.len();
        Self { norm_bound, term: vec![0.0; len], force: vec![0.0; len] }
    }

    /// Whether there is any damping to apply.
    pub fn is_active(&self) -> bool {
        self.norm_bound > 0.0
    }

    /// Applies `v <- exp(-tau M^-1 D(x)) v` to the moving coordinates of `v` (anchors' entries
    /// must be 0) and returns the kinetic energy it removed, J.
    pub fn apply(&mut self, system: &System, x: &[f64], v: &mut [f64], tau: f64) -> f64 {
        if !self.is_active() {
            return 0.0;
        }
        let n = system.mass_coordinates();
        let before = kinetic(system, v);
        let substeps = (tau * self.norm_bound / SUBSTEP_NORM).ceil().max(1.0) as usize;
        let h = tau / substeps as f64;
        for _ in 0..substeps {
            self.term.copy_from_slice(v);
            for k in 1..=MAX_TERMS {
                // term <- (h / k) M^-1 (-D term)
                self.force.fill(0.0);
                forces::add_damping(system, x, &self.term, &mut self.force);
                let scale = h / k as f64;
                for ((t, f), inv) in self.term[..n].iter_mut().zip(&self.force).zip(system.inverse_mass()) {
                    *t = scale * f * inv;
                }
                let mut largest_term = 0.0f64;
                let mut largest_sum = 0.0f64;
                for (vi, t) in v[..n].iter_mut().zip(&self.term[..n]) {
                    *vi += t;
                    largest_term = largest_term.max(t.abs());
                    largest_sum = largest_sum.max(vi.abs());
                }
                if largest_term <= TERM_TOLERANCE * largest_sum {
                    break;
                }
            }
        }
        before - kinetic(system, v)
    }
}

/// Kinetic energy `sum m v^2 / 2` of the moving coordinates, J.
pub fn kinetic(system: &System, v: &[f64]) -> f64 {
    v.iter().zip(system.inverse_mass()).map(|(v, inv)| 0.5 * v * v / inv).sum()
}
