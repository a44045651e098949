//! The exact flow of a linear network (Chatziioannou 2019, section 2.5, the impulse-invariant idea
//! taken to its end), with nonlinear and external forces as impulses (eq. 50).

use super::{Scheme, SchemeError, SchemeKind};
use crate::forces;
use crate::linalg::expm::expm_augmented;
use crate::linalg::sparse::SparseMatrix;
use crate::linalg::Assemble;
use crate::system::{State, System};
use faer::Mat;

/// The largest number of moving coordinates the dense propagator is built for: it holds
/// `(2n)^2` numbers and costs `(2n)^2` multiply-adds per step.
pub const MAX_COORDINATES: usize = 400;

/// Exact integration of the linear part of the network. With `u = (x, v)` the linearised
/// equation about the initial positions `x_0` is `u' = A u + b`,
///
/// ```text
/// A = [[0, I], [-M^-1 K_0, -M^-1 D_0]],   b = [0, M^-1 (F_c(x_0) + K_0 x_0)]
/// ```
///
/// (`K_0`, `D_0` the stiffness and damping matrices at `x_0`; gravity is in `b`). Each step is
/// the exact flow `u_{n+1} = e^{A h} u_n + int_0^h e^{A s} b ds`, computed once as the
/// exponential of an augmented matrix (Van Loan) by Pade scaling and squaring. On a single
/// oscillator this is the impulse-invariant recursion of eq. 39, whose poles `e^{s h}` have
/// modulus `e^{-gamma h/2} < 1` for every step (the condition `1/h > w0` stated after eq. 39 is
/// spurious; see docs/errata.md). Whatever the linear part leaves out, the remainder
/// `F(x, v, t) - (F_c(x_0) - K_0 (x - x_0) - D_0 v)` (contacts, geometric nonlinearity, external
/// forces), is applied as an impulse `h M^-1 F` at the start of the step, as eq. 50 does for the
/// contact force. Exact (no truncation error) on a linear network without external forces;
/// first order in the impulses otherwise. Contracts the symplectic form by exactly
/// `det e^{A h} = e^{-tr(M^-1 D) h}` (`e^{-gamma h}` per oscillator). Dense: limited to
/// [`MAX_COORDINATES`] moving coordinates.
#[derive(Debug)]
pub struct Exact {
    dt: f64,
    propagator: Result<Propagator, SchemeError>,
}

/// The one-step map `u <- E u + c` and the linearisation it was built from.
#[derive(Debug)]
struct Propagator {
    flow: Mat<f64>,
    offset: Vec<f64>,
    linear: bool,
    linearisation: SparseMatrix,
    origin_force: Vec<f64>,
    force: Vec<f64>,
    linear_force: Vec<f64>,
    state: Vec<f64>,
    next: Vec<f64>,
}

impl Exact {
    /// The exact flow for `system` with step `dt` (s). A system beyond [`MAX_COORDINATES`]
    /// fails at its first step.
    pub fn new(system: &System, dt: f64) -> Self {
        let n = system.mass_coordinates();
        let propagator = if n > MAX_COORDINATES {
            Err(SchemeError {
                message: format!(
                    "the exact scheme builds a dense {0} x {0} propagator; this model has {n} moving \
                     coordinates, more than the {MAX_COORDINATES} it is limited to",
                    2 * n
                ),
            })
        } else {
            Ok(Propagator::new(system, dt))
        };
        Self { dt, propagator }
    }
}

impl Propagator {
    fn new(system: &System, dt: f64) -> Self {
        let n = system.mass_coordinates();
        let origin = system.initial_state().x;
        let inverse_mass = system.inverse_mass();
        // K_0 and D_0 in one sparse matrix each, then the dense state matrix A.
        let mut stiffness = SparseMatrix::new(n);
        forces::add_stiffness(system, &origin, 1.0, &mut stiffness);
        let mut damping = SparseMatrix::new(n);
        forces::add_damping_matrix(system, &origin, 1.0, &mut damping);
        let mut a = Mat::<f64>::zeros(2 * n, 2 * n);
        for i in 0..n {
            a[(i, n + i)] = 1.0;
        }
        for (r, c, k) in stiffness.entries() {
            a[(n + r, c)] -= inverse_mass[r] * k;
        }
        for (r, c, d) in damping.entries() {
            a[(n + r, n + c)] -= inverse_mass[r] * d;
        }
        // b = [0, M^-1 (F_c(x_0) + K_0 x_0)].
        let mut origin_force = vec![0.0; origin.len()];
        forces::conservative(system, &origin, &mut origin_force);
        let mut k_x0 = vec![0.0; n];
        stiffness.multiply(&origin, &mut k_x0);
        let mut b = vec![0.0; 2 * n];
        for i in 0..n {
            b[n + i] = inverse_mass[i] * (origin_force[i] + k_x0[i]);
        }
        let (flow, offset) = expm_augmented(a.as_ref(), &b, dt);
        // The linearisation's force, F_c(x_0) - K_0 (x - x_0) - D_0 v, is evaluated as
        // F_c(x_0) + K_0 x_0 - [K_0 D_0] (x, v): keep [K_0 | D_0] as one n x 2n operator.
        let mut linearisation = SparseMatrix::new(2 * n);
        for (r, c, k) in stiffness.entries() {
            linearisation.add(r, c, k);
        }
        for (r, c, d) in damping.entries() {
            linearisation.add(r, n + c, d);
        }
        for i in 0..n {
            origin_force[i] += k_x0[i];
        }
        Self {
            flow,
            offset,
            linear: forces::is_linear(system),
            linearisation,
            origin_force,
            force: vec![0.0; system.initial_state().x.len()],
            linear_force: vec![0.0; 2 * n],
            state: vec![0.0; 2 * n],
            next: vec![0.0; 2 * n],
        }
    }

    fn step(&mut self, system: &System, state: &mut State, dt: f64) {
        let n = system.mass_coordinates();
        self.state[..n].copy_from_slice(&state.x[..n]);
        self.state[n..].copy_from_slice(&state.v[..n]);
        // The impulse of what the linear flow leaves out (eq. 50).
        self.force.fill(0.0);
        if !self.linear {
            forces::total(system, &state.x, &state.v, state.t, &mut self.force);
            self.linearisation.multiply(&self.state, &mut self.linear_force);
            for i in 0..n {
                self.force[i] -= self.origin_force[i] - self.linear_force[i];
            }
        } else {
            forces::add_external(system, state.t, &mut self.force);
        }
        for i in 0..n {
            self.state[n + i] += dt * system.inverse_mass()[i] * self.force[i];
        }
        // u <- E u + c.
        for (r, next) in self.next.iter_mut().enumerate() {
            let row = self.flow.row(r);
            *next = self.offset[r] + (0..2 * n).map(|c| row[c] * self.state[c]).sum::<f64>();
        }
        state.x[..n].copy_from_slice(&self.next[..n]);
        state.v[..n].copy_from_slice(&self.next[n..]);
    }
}

impl Scheme for Exact {
    fn kind(&self) -> SchemeKind {
        SchemeKind::Exact
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        match &mut self.propagator {
            Ok(propagator) => {
                propagator.step(system, state, self.dt);
                Ok(())
            }
            Err(error) => Err(error.clone()),
        }
    }
}
