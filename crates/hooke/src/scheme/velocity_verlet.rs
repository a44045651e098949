//! Velocity Verlet with linear damping, Chatziioannou 2019, eq. (29).

use super::{Scheme, SchemeError, SchemeKind};
use crate::forces;
use crate::linalg::sparse::SparseMatrix;
use crate::system::{State, System};

/// Velocity Verlet (VV; Chatziioannou 2019, eq. (29), network form):
///
/// ```text
/// (M + h/2 D(x_n)) v_{n+1/2} = M v_n + h/2 (F_c(x_n) + F_e(t_n))
/// x_{n+1} = x_n + h v_{n+1/2}
/// M v_{n+1} = (M - h/2 D(x_{n+1})) v_{n+1/2} + h/2 (F_c(x_{n+1}) + F_e(t_{n+1}))
/// ```
///
/// Second order; symplectic without damping; contracts the symplectic form of an oscillator by
/// `(2 - gamma h) / (2 + gamma h)` per step (eq. 30, the (1,1) Pade approximant of
/// `e^{-gamma h}`). Stable while `w0 h <= 2` (undamped). Two force evaluations per step. With
/// drag only, `M + h/2 D` is diagonal and the step is explicit; dampers between masses make it a
/// sparse solve (factored once on a linear network).
#[derive(Debug)]
pub struct VelocityVerlet {
    dt: f64,
    damped: bool,
    force: Vec<f64>,
    damping: Vec<f64>,
    coupled: Option<CoupledDamping>,
}

/// The matrix `M + h/2 D(x)` when dampers couple masses.
#[derive(Debug)]
struct CoupledDamping {
    matrix: SparseMatrix,
    constant: bool,
    factored: bool,
    rhs: Vec<f64>,
}

impl VelocityVerlet {
    /// Velocity Verlet for `system` with step `dt` (s).
    pub fn new(system: &System, dt: f64) -> Self {
        Self::with_damping(system, dt, true)
    }

    /// Velocity Verlet that leaves dampers and drag out when `damped` is false (the inner step
    /// of the conformal-symplectic splitting).
    pub(super) fn with_damping(system: &System, dt: f64, damped: bool) -> Self {
        let len = system.initial_state().x.len();
        let couples = !system.dampers().is_empty() || system.has_mode_damping();
        let coupled = (damped && couples).then(|| CoupledDamping {
            matrix: SparseMatrix::new(system.mass_coordinates()),
            constant: system.dimension() == 1,
            factored: false,
            rhs: vec![0.0; system.mass_coordinates()],
        });
        Self { dt, damped, force: vec![0.0; len], damping: vec![0.0; len], coupled }
    }
}

impl Scheme for VelocityVerlet {
    fn kind(&self) -> SchemeKind {
        SchemeKind::VelocityVerlet
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let (h, n) = (self.dt, system.mass_coordinates());
        let inverse_mass = system.inverse_mass();
        forces::conservative(system, &state.x, &mut self.force);
        forces::add_external(system, state.t, &mut self.force);
        // Half kick, with the damping at the half step taken implicitly.
        match &mut self.coupled {
            None => {
                let drag = if self.damped { system.drag() } else { &[] };
                for i in 0..n {
                    let c = drag.get(i).copied().unwrap_or(0.0);
                    let m = 1.0 / inverse_mass[i];
                    state.v[i] = (m * state.v[i] + 0.5 * h * self.force[i]) / (m + 0.5 * h * c);
                }
            }
            Some(coupled) => {
                if !(coupled.constant && coupled.factored) {
                    coupled.matrix.clear();
                    forces::add_mass_matrix(system, 1.0, &mut coupled.matrix);
                    forces::add_damping_matrix(system, &state.x, 0.5 * h, &mut coupled.matrix);
                    coupled.matrix.factor().map_err(|e| SchemeError { message: e.to_string() })?;
                    coupled.factored = true;
                }
                for i in 0..n {
                    coupled.rhs[i] = state.v[i] / inverse_mass[i] + 0.5 * h * self.force[i];
                }
                coupled.matrix.solve_in_place(&mut coupled.rhs);
                state.v[..n].copy_from_slice(&coupled.rhs);
            }
        }
        // Drift, then the second half kick with the damping on the half-step velocity.
        for i in 0..n {
            state.x[i] += h * state.v[i];
        }
        forces::conservative(system, &state.x, &mut self.force);
        forces::add_external(system, state.t + h, &mut self.force);
        if self.damped {
            self.damping.fill(0.0);
            forces::add_damping(system, &state.x, &state.v, &mut self.damping);
        }
        for i in 0..n {
            state.v[i] += 0.5 * h * inverse_mass[i] * (self.force[i] + self.damping[i]);
        }
        Ok(())
    }
}
