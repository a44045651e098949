//! The exact flow of the damping forces alone, `M v' = -D(x) v` with `x` fixed.
//!
//! The conformal-symplectic splittings (Chatziioannou 2019, section 2.6) and Caldirola-Kanai (as a
//! splitting, see [`super::CaldirolaKanai`]) advance the velocities by this flow,
//! `v <- exp(-tau M^-1 D(x)) v`. On a single oscillator it is `p <- e^{-gamma tau} p`; on a
//! network with dampers between masses it is a matrix exponential. `D` is block diagonal between
//! two sets of coordinates, and each is advanced exactly in its own way:
//!
//! - a coordinate whose damping touches no other coordinate (drag; in 1D also dampers to
//!   anchors) has a constant diagonal entry `D_ii`, and its flow is `v_i <- e^{-r_i tau} v_i`
//!   with the rate `r_i = D_ii / m_i` (1/s): exact for any rate, a huge one stopping it;
//! - the others (dampers between masses; in 2D/3D any damper, which couples the coordinates of
//!   its ends) are advanced without forming the exponential: a Taylor series in the damping
//!   force kernel, over enough sub-steps that `tau ||M^-1 D|| / substeps <= 1/2`, summed until
//!   the terms fall below round-off. The result is exact to round-off for any network size at
//!   the cost of a few damping-force evaluations per sub-step.
//!
//! The sub-steps grow with the step times the damping rate `||M^-1 D||` of the coupled
//! coordinates (a light mass on a strong damper). A flow that would need more than
//! [`MAX_SUBSTEPS`] for the step it is built for is refused at construction, with the mass, its
//! rate and the step.

use super::SchemeError;
use crate::forces;
use crate::system::System;

/// Sub-step bound on `tau ||M^-1 D||` for the Taylor series.
const SUBSTEP_NORM: f64 = 0.5;
/// Taylor terms stop once below this fraction of the sum.
const TERM_TOLERANCE: f64 = 1e-17;
/// A hard cap on Taylor terms per sub-step (never reached with the sub-step bound above).
const MAX_TERMS: usize = 40;
/// The most Taylor sub-steps a flow over one step may take (a step then costs about 15
/// damping-force evaluations per sub-step).
pub const MAX_SUBSTEPS: usize = 1 << 20;

/// Scratch space, the decoupled rates and the norm bound for applying the damping flow.
#[derive(Debug, Clone)]
pub struct DampingFlow {
    /// The step the flow was built for, s: the longest `tau` it applies.
    step: f64,
    /// `(coordinate, r_i)` for each damped coordinate whose damping touches no other one, with
    /// its rate `r_i = D_ii / m_i`, 1/s.
    decoupled: Vec<(usize, f64)>,
    /// Upper bound on `||M^-1 D(x)||_inf` over the other coordinates, for any `x`, 1/s.
    norm_bound: f64,
    term: Vec<f64>,
    force: Vec<f64>,
}

impl DampingFlow {
    /// Prepares the flow for `system` and steps up to `dt` (s). The bound on the coupled
    /// coordinates uses Gershgorin row sums: each damper adds at most `2 Z dim` to the rows of
    /// its ends, drag `gamma m` to its own, a mode damping `sum_j |D_ij|` to row `i`. Refused
    /// (with the mass, its rate in 1/s and the step) when the coupled coordinates would need
    /// more than [`MAX_SUBSTEPS`] sub-steps.
    pub fn new(system: &System, dt: f64) -> Result<Self, SchemeError> {
        let dim = system.dimension();
        let n = system.mass_coordinates();
        let len = system.initial_state().x.len();
        let moving = |node: u32| (node as usize) * dim < n;
        // Coordinates coupled to others by a damper: both ends of a damper between masses; in
        // 2D/3D also a mass on a damper to an anchor (the damper acts along its line).
        let mut coupled = vec![false; len];
        let (mut row_sums, mut diagonal) = (vec![0.0; len], vec![0.0; len]);
        let dampers = system.dampers();
        for i in 0..dampers.len() {
            let (a, b, z) = (dampers.a[i], dampers.b[i], dampers.coefficient[i]);
            let couples = dim > 1 || (moving(a) && moving(b));
            for node in [a, b] {
                for c in 0..dim {
                    let row = node as usize * dim + c;
                    row_sums[row] += 2.0 * z * dim as f64;
                    diagonal[row] += z;
                    coupled[row] |= couples;
                }
            }
        }
        for ((sum, d), c) in row_sums.iter_mut().zip(&mut diagonal).zip(system.drag()) {
            *sum += c;
            *d += c;
        }
        // A mode damping couples all its masses' coordinates on each axis: its row sums of |D_ij|.
        for block in system.dense_dampings() {
            let count = block.masses.len();
            for (row, &node) in block.matrix.chunks_exact(count).zip(&block.masses) {
                let sum: f64 = row.iter().map(|d| d.abs()).sum();
                for c in 0..dim {
                    let coordinate = node as usize * dim + c;
                    row_sums[coordinate] += sum;
                    coupled[coordinate] = true;
                }
            }
        }
        let inverse_mass = system.inverse_mass();
        let decoupled = (0..n)
            .filter(|&i| !coupled[i] && diagonal[i] > 0.0)
            .map(|i| (i, diagonal[i] * inverse_mass[i]))
            .collect();
        let (mut norm_bound, mut fastest) = (0.0f64, 0);
        for i in (0..n).filter(|&i| coupled[i]) {
            let rate = row_sums[i] * inverse_mass[i];
            if rate > norm_bound || rate.is_nan() {
                (norm_bound, fastest) = (rate, i);
            }
        }
        let substeps = dt * norm_bound / SUBSTEP_NORM;
        if substeps.is_nan() || substeps > MAX_SUBSTEPS as f64 {
            return Err(SchemeError {
                message: format!(
                    "the exact damping flow cannot take a step of {dt:e} s: mass \"{}\" is damped at up to \
                     {norm_bound:e} 1/s through dampers that couple it to other coordinates, which would take \
                     {substeps:e} sub-steps (at most {MAX_SUBSTEPS}); take a shorter step, or a scheme that \
                     damps inside its implicit step (energy-conserving, midpoint, trapezoidal, backward-euler)",
                    system.mass_of_coordinate(fastest)
                ),
            });
        }
        Ok(Self { step: dt, decoupled, norm_bound, term: vec![0.0; len], force: vec![0.0; len] })
    }

    /// Whether there is any damping to apply.
    pub fn is_active(&self) -> bool {
        self.norm_bound > 0.0 || !self.decoupled.is_empty()
    }

    /// Applies `v <- exp(-tau M^-1 D(x)) v` to the moving coordinates of `v` (anchors' entries
    /// must be 0), for `tau` up to the step the flow was built for, and returns the kinetic
    /// energy it removed, J.
    pub fn apply(&mut self, system: &System, x: &[f64], v: &mut [f64], tau: f64) -> f64 {
        debug_assert!(tau <= self.step, "a flow over {tau} s, built for steps up to {} s", self.step);
        if !self.is_active() {
            return 0.0;
        }
        let before = kinetic(system, v);
        for &(i, rate) in &self.decoupled {
            v[i] *= (-rate * tau).exp();
        }
        if self.norm_bound > 0.0 {
            self.apply_coupled(system, x, v, tau);
        }
        before - kinetic(system, v)
    }

    /// The Taylor series over sub-steps, on the coupled coordinates (module documentation).
    /// The decoupled ones start the series at 0 and stay there: their rows and columns of `D`
    /// hold only the diagonal.
    fn apply_coupled(&mut self, system: &System, x: &[f64], v: &mut [f64], tau: f64) {
        let n = system.mass_coordinates();
        let substeps = (tau * self.norm_bound / SUBSTEP_NORM).ceil().max(1.0) as usize;
        let h = tau / substeps as f64;
        for _ in 0..substeps {
            self.term.copy_from_slice(v);
            for &(i, _) in &self.decoupled {
                self.term[i] = 0.0;
            }
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
    }
}

/// Kinetic energy `sum m v^2 / 2` of the moving coordinates, J.
pub fn kinetic(system: &System, v: &[f64]) -> f64 {
    v.iter().zip(system.inverse_mass()).map(|(v, inv)| 0.5 * v * v / inv).sum()
}
