//! The classical fourth-order Runge-Kutta method on a whole network (Morgan & Qiao 2008,
//! section 3).

use super::{Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// Classical four-stage Runge-Kutta (Morgan & Qiao 2008, section 3) on the first-order system
/// `(x, v)' = (v, F(x, v, t) / m)`, where `F` is the total force (springs, gravity, dampers,
/// drag) on every mass. Every stage evaluates the forces of the whole network at the stage state:
/// four force evaluations per step (the paper's fifth loop, the forces at the new state, is the
/// next step's first stage):
///
/// ```text
/// k1 = (v_n,            F(x_n,            v_n,            t_n)       / m)
/// k2 = (v_n + h/2 k1v,  F(x_n + h/2 k1x,  v_n + h/2 k1v,  t_n + h/2) / m)
/// k3 = (v_n + h/2 k2v,  F(x_n + h/2 k2x,  v_n + h/2 k2v,  t_n + h/2) / m)
/// k4 = (v_n + h k3v,    F(x_n + h k3x,    v_n + h k3v,    t_n + h)   / m)
/// (x, v)_{n+1} = (x, v)_n + h/6 (k1 + 2 k2 + 2 k3 + k4)
/// ```
///
/// (`k1x`, `k1v`: the position and velocity rows of `k1`.)
///
/// Fourth order (local error `O(h^5)`, global `O(h^4)`), with or without damping (observed
/// 4.00 on damped and undamped oscillators and on a damped chain, tests/multistage.rs). Not
/// symplectic: on an undamped oscillator `x'' = -w^2 x` the one-step amplification is the
/// degree-4 Taylor polynomial of `e^{jwh}`, whose squared modulus is
/// `|z|^2 = 1 - (wh)^6/72 + (wh)^8/576`, so the energy decays by that factor every step
/// (the inward spiral of Morgan & Qiao 2008, fig. 7; the numerical damping of figs. 11-12). Stable
/// while `|z| <= 1`: undamped, `w h <= 2 sqrt(2)` (`(wh)^2 <= 8`). Anchors never move.
#[derive(Debug, Clone)]
pub struct Rk4 {
    dt: f64,
    /// Stage positions, all nodes (anchors copied from the state).
    stage_x: Vec<f64>,
    /// Stage velocities, all nodes.
    stage_v: Vec<f64>,
    /// `k1 + 2 k2 + 2 k3` for the position rows (moving coordinates).
    sum_x: Vec<f64>,
    /// `k1 + 2 k2 + 2 k3` for the velocity rows (moving coordinates).
    sum_v: Vec<f64>,
    /// Total force at the current stage, all nodes.
    force: Vec<f64>,
}

impl Rk4 {
    /// RK4 for `system` with step `dt` (s).
    pub fn new(system: &System, dt: f64) -> Self {
        let nodes = system.initial_state().x.len();
        let moving = system.mass_coordinates();
        Self {
            dt,
            stage_x: vec![0.0; nodes],
            stage_v: vec![0.0; nodes],
            sum_x: vec![0.0; moving],
            sum_v: vec![0.0; moving],
            force: vec![0.0; nodes],
        }
    }
}

impl Scheme for Rk4 {
    fn kind(&self) -> SchemeKind {
        SchemeKind::Rk4
    }

    /// It keeps nothing of the system but buffers the size of its state.
    fn retake(&mut self, _system: &System) -> bool {
        true
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let (h, t) = (self.dt, state.t);
        let n = system.mass_coordinates();
        let inverse_mass = system.inverse_mass();
        // Anchors: the stage vectors carry their (fixed) positions and zero velocities.
        self.stage_x[n..].copy_from_slice(&state.x[n..]);
        self.stage_v[n..].copy_from_slice(&state.v[n..]);

        // Stage 1 at (x_n, v_n, t); next stage state x_n + h/2 k1. Every loop below runs over
        // the moving coordinates only (`accelerations` has `n` entries).
        crate::forces::total(system, &state.x, &state.v, t, &mut self.force);
        let start = state.x.iter().zip(&state.v).zip(accelerations(&self.force, inverse_mass));
        let sums = self.sum_x.iter_mut().zip(&mut self.sum_v);
        let stage = self.stage_x.iter_mut().zip(&mut self.stage_v);
        for ((((x, v), a), (sum_x, sum_v)), (stage_x, stage_v)) in start.zip(sums).zip(stage) {
            (*sum_x, *sum_v) = (*v, a);
            *stage_x = x + 0.5 * h * v;
            *stage_v = v + 0.5 * h * a;
        }
        // Stages 2 and 3 at t + h/2; stage 4 starts from x_n + h k3.
        for advance in [0.5 * h, h] {
            crate::forces::total(system, &self.stage_x, &self.stage_v, t + 0.5 * h, &mut self.force);
            let start = state.x.iter().zip(&state.v).zip(accelerations(&self.force, inverse_mass));
            let sums = self.sum_x.iter_mut().zip(&mut self.sum_v);
            let stage = self.stage_x.iter_mut().zip(&mut self.stage_v);
            for ((((x, v), a), (sum_x, sum_v)), (stage_x, stage_v)) in start.zip(sums).zip(stage) {
                let k_x = *stage_v;
                *sum_x += 2.0 * k_x;
                *sum_v += 2.0 * a;
                *stage_x = x + advance * k_x;
                *stage_v = v + advance * a;
            }
        }
        // Stage 4 at t + h, then the weighted average.
        crate::forces::total(system, &self.stage_x, &self.stage_v, t + h, &mut self.force);
        let moving = state.x.iter_mut().zip(&mut state.v).zip(accelerations(&self.force, inverse_mass));
        let sums = self.sum_x.iter().zip(&self.sum_v);
        for ((((x, v), a), (sum_x, sum_v)), k_x) in moving.zip(sums).zip(&self.stage_v) {
            *x += h / 6.0 * (sum_x + k_x);
            *v += h / 6.0 * (sum_v + a);
        }
        Ok(())
    }
}

/// `F / m` for every moving coordinate (`inverse_mass` has one entry per moving coordinate).
fn accelerations<'a>(force: &'a [f64], inverse_mass: &'a [f64]) -> impl Iterator<Item = f64> + 'a {
    force.iter().zip(inverse_mass).map(|(f, inv_m)| f * inv_m)
}
