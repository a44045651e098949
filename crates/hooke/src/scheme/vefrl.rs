//! VEFRL, the velocity-extended Forest-Ruth-like method of Omelyan, Mryglod & Folk 2002, as
//! Morgan & Qiao 2008 give it (eq. (14) and Algorithm 1; docs/errata.md on the constant lambda).

use super::{Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// `xi` of Morgan & Qiao 2008, eq. (14).
const XI: f64 = 0.164_498_651_557_576;
/// `lambda` of Morgan & Qiao 2008, eq. (14), with its exponent `E-01` (easily lost; see
/// docs/errata.md).
const LAMBDA: f64 = -0.020_943_339_103_989_89;
/// `chi` of Morgan & Qiao 2008, eq. (14).
const CHI: f64 = 1.235_692_651_138_917;

/// The velocity-extended Forest-Ruth-like method (Morgan & Qiao 2008, eq. (14)), a composition of
/// five kicks and four drifts:
///
/// ```text
/// v_1    = v(t) + xi h F(r(t), v(t), t) / m                 evaluation 1, F(n)
/// r_1    = r(t) + (1 - 2 lambda) h/2 v_1                    t_1 = t + (1 - 2 lambda) h/2
/// v_2    = v_1 + chi h F(r_1, v_1, t_1) / m                 evaluation 2
/// r_2    = r_1 + lambda h v_2                               t_2 = t_1 + lambda h
/// v_3    = v_2 + (1 - 2 (chi + xi)) h F(r_2, v_2, t_2) / m  evaluation 3
/// r_3    = r_2 + lambda h v_3                               t_3 = t_2 + lambda h
/// v_4    = v_3 + chi h F(r_3, v_3, t_3) / m                 evaluation 4
/// r(t+h) = r_3 + (1 - 2 lambda) h/2 v_4                     t + h
/// v_est  = v(t) + h F(n) / m
/// v(t+h) = v_4 + xi h F(r(t+h), v_est, t + h) / m           evaluation 5
/// ```
///
/// with `xi = +0.1644986515575760E+00`, `lambda = -0.2094333910398989E-01` (the exponent is
/// `E-01`, see docs/errata.md; with `E+00` the method drops to second order),
/// `chi = +0.1235692651138917E+01`.
///
/// Without velocity-dependent forces (no dampers, no drag) this is eq. 14 exactly: fourth order
/// and symplectic, so an undamped network's energy stays bounded (Morgan & Qiao 2008, fig. 8).
///
/// Forces depend on velocity through dampers and drag; Algorithm 1 of the paper then evaluates
/// each intermediate force with the current stage velocity, and the last kick, which would need
/// the unknown `v(t+h)`, with the first-order estimate `v_est` (the paper's "simple solution").
/// Each kick is then a forward-Euler step of the velocity-dependent part, and the kick weights
/// do not reproduce `e^{-gamma h}` beyond first order (for `v' = -gamma v` one step multiplies
/// `v` by `1 - gamma h - 2.648 (gamma h)^2 + ...` instead of `1 - gamma h + (gamma h)^2 / 2`).
/// With damping the method is therefore only **first order**. Measured on an oscillator with
/// `w0 = 10 rad/s`, `gamma = 2 1/s` (a damper `Z = gamma m`), `x(0) = 1`, `v(0) = 0`,
/// phase-space error at `t = 1 s` (tests/multistage.rs): errors 0.210, 0.111, 0.0565, 0.0286 for
/// `h = 0.02, 0.01, 0.005, 0.0025 s`, observed orders 0.92, 0.97, 0.98 (0.996 at
/// `h = 0.000625 s`). The error scales like `gamma w0 h`; there it is 3.5 to 4.5 times symplectic
/// Euler's at the same step. Use VEFRL on undamped or very lightly damped networks.
///
/// Five force evaluations per step: Algorithm 1's final force at `(r(t+h), v(t+h))` is the next
/// step's evaluation 1, computed there rather than cached, so a state changed between steps is
/// always honoured. Anchors never move.
#[derive(Debug, Clone)]
pub struct Vefrl {
    dt: f64,
    /// Total force at the current stage, all nodes.
    force: Vec<f64>,
    /// `v_est = v(t) + h F(n) / m`, all nodes (anchors: their velocity, 0).
    velocity_estimate: Vec<f64>,
}

impl Vefrl {
    /// VEFRL for `system` with step `dt` (s).
    pub fn new(system: &System, dt: f64) -> Self {
        let nodes = system.initial_state().x.len();
        Self { dt, force: vec![0.0; nodes], velocity_estimate: vec![0.0; nodes] }
    }
}

impl Scheme for Vefrl {
    fn kind(&self) -> SchemeKind {
        SchemeKind::Vefrl
    }

    /// It keeps nothing of the system but buffers the size of its state.
    fn retake(&mut self, _system: &System) -> bool {
        true
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let (h, t) = (self.dt, state.t);
        let n = system.mass_coordinates();
        let inverse_mass = system.inverse_mass();
        let outer_drift = (1.0 - 2.0 * LAMBDA) * h / 2.0;
        let middle_kick = (1.0 - 2.0 * (CHI + XI)) * h;
        self.velocity_estimate[n..].copy_from_slice(&state.v[n..]);

        // Evaluation 1, F(n) at (r(t), v(t), t): the first kick, v_est, and the first drift. Every
        // loop below runs over the moving coordinates only (`accelerations` has `n` entries).
        crate::forces::total(system, &state.x, &state.v, t, &mut self.force);
        let moving = state.x.iter_mut().zip(&mut state.v).zip(&mut self.velocity_estimate);
        for (((x, v), v_est), a) in moving.zip(accelerations(&self.force, inverse_mass)) {
            *v_est = *v + h * a;
            *v += XI * h * a;
            *x += outer_drift * *v;
        }
        // Evaluations 2-4 at (r_s, v_s, t_s), each followed by its kick and drift.
        let mut stage_time = t + outer_drift;
        for (kick, drift) in [(CHI * h, LAMBDA * h), (middle_kick, LAMBDA * h), (CHI * h, outer_drift)] {
            crate::forces::total(system, &state.x, &state.v, stage_time, &mut self.force);
            let moving = state.x.iter_mut().zip(&mut state.v);
            for ((x, v), a) in moving.zip(accelerations(&self.force, inverse_mass)) {
                *v += kick * a;
                *x += drift * *v;
            }
            stage_time += LAMBDA * h;
        }
        // Evaluation 5 at (r(t+h), v_est, t + h): the last kick.
        crate::forces::total(system, &state.x, &self.velocity_estimate, t + h, &mut self.force);
        for (v, a) in state.v.iter_mut().zip(accelerations(&self.force, inverse_mass)) {
            *v += XI * h * a;
        }
        Ok(())
    }
}

/// `F / m` for every moving coordinate (`inverse_mass` has one entry per moving coordinate).
fn accelerations<'a>(force: &'a [f64], inverse_mass: &'a [f64]) -> impl Iterator<Item = f64> + 'a {
    force.iter().zip(inverse_mass).map(|(f, inv_m)| f * inv_m)
}
