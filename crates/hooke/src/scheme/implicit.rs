//! The implicit one-step schemes of Chatziioannou 2019 (eqs. 26, 47, 48) and backward Euler, in one
//! network form solved by Newton's method ([`super::newton`]: a dense simplified Newton on small
//! networks, a sparse full Newton on large ones).
//!
//! The unknown is the position increment `s = x_{n+1} - x_n`. With `F-bar` the scheme's
//! conservative force over the step and `F-bar_e` its external force, each rule solves
//!
//! ```text
//! R(s) = M (s - h v_n) + c_D h D s - h^2 (F-bar(s) + F-bar_e) = 0
//! ```
//!
//! and sets `v_{n+1}`. For the midpoint family (energy-conserving, midpoint, trapezoidal)
//! `(x_{n+1} - x_n)/h = (v_n + v_{n+1})/2`, so `v_{n+1} = 2 s/h - v_n` and the damping acts on
//! the mean velocity `s/h`: `R = M (s - h v_n) + (h/2) D s - (h^2/2) (F-bar + F-bar_e)`, which
//! is Chatziioannou 2019, eqs. (46)-(48) (with `q = h p / 2m`) written for a mass matrix. For
//! backward Euler `v_{n+1} = s/h` and `R = M (s - h v_n) + h D s - h^2 (F_c(x_n + s)
//! + F_e(t + h))`. The Jacobian is `M + c_D h D + c_K h^2 K` with `K` the tangent stiffness:
//! `(c_D, c_K) = (1/2, 1/4)` for the midpoint family and `(1, 1)` for backward Euler.
//!
//! On a linear network (1D springs, no contacts) `R` is affine with a constant Jacobian: it is
//! factored once and every step is one back-substitution.

use super::newton::{max_norm, LinearSolver, Newton, SolverStats};
use super::{EnergyExchange, SchemeError};
use crate::forces;
use crate::linalg::Assemble;
use crate::system::{State, System};

/// Which conservative force over the step, and which velocity update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
    /// `F-bar = -grad V(x_n, x_{n+1})`, the discrete gradient (Chatziioannou 2019, eqs. (26),
    /// (46)).
    DiscreteGradient,
    /// `F-bar = F_c((x_n + x_{n+1})/2)` (Chatziioannou 2019, eq. (47)).
    Midpoint,
    /// `F-bar = (F_c(x_n) + F_c(x_{n+1}))/2` (Chatziioannou 2019, eq. (48)).
    Trapezoidal,
    /// `F-bar = F_c(x_{n+1})`, velocity `s/h` (Morgan & Qiao 2009, eq. (6)).
    BackwardEuler,
}

impl Rule {
    /// `(c_D, c_K)`: weights of `h D` and `h^2 K` in the Jacobian, and of `h D s` and `h^2 F`
    /// (times 2 for the midpoint family) in the residual.
    fn weights(self) -> (f64, f64) {
        match self {
            Rule::BackwardEuler => (1.0, 1.0),
            _ => (0.5, 0.25),
        }
    }

    /// Where the conservative force is evaluated: the fraction of `s` past `x_n`.
    fn stiffness_point(self) -> f64 {
        match self {
            Rule::DiscreteGradient | Rule::Midpoint => 0.5,
            Rule::Trapezoidal | Rule::BackwardEuler => 1.0,
        }
    }

    /// The weight of `v_n` in the mean velocity `s / h` of the step (`1 - w` that of `v_{n+1}`).
    fn start_weight(self) -> f64 {
        match self {
            Rule::BackwardEuler => 0.0,
            _ => 0.5,
        }
    }
}

/// Buffers and solver of one implicit scheme on one system.
#[derive(Debug)]
pub(super) struct ImplicitStep {
    rule: Rule,
    dt: f64,
    /// Whether the rule takes the dampers and drag (not in a splitting, which flows them).
    wants_damping: bool,
    /// Whether it does: it wants them and the system has any.
    damped: bool,
    newton: Newton,
    /// Each moving coordinate's mass, kg.
    mass: Vec<f64>,
    /// Where the last step ended (`x_n`, `v_n`) and the velocity it started from (`v_{n-1}`):
    /// a step that continues from there starts Newton from an extrapolated increment.
    last_x: Vec<f64>,
    last_v: Vec<f64>,
    previous_v: Vec<f64>,
    has_history: bool,
    increment: Vec<f64>,
    increment_full: Vec<f64>,
    end: Vec<f64>,
    point: Vec<f64>,
    jacobian_point: Vec<f64>,
    jacobian_end: Vec<f64>,
    force: Vec<f64>,
    damping: Vec<f64>,
    start_force: Vec<f64>,
    external: Vec<f64>,
}

/// Whether anything in `system` damps: a damper, a drag or a mode damping.
fn has_damping(system: &System) -> bool {
    !system.dampers().is_empty() || !system.drag().is_empty() || system.has_mode_damping()
}

impl ImplicitStep {
    /// The scheme `rule` for `system` with step `dt`; `damped: false` leaves the dampers and drag
    /// out (for the splittings, which apply them as an exact flow). `solver` picks the Newton
    /// iteration's linear algebra.
    pub fn new(system: &System, dt: f64, rule: Rule, damped: bool, solver: LinearSolver) -> Self {
        let n = system.mass_coordinates();
        let len = system.initial_state().x.len();
        Self {
            rule,
            dt,
            wants_damping: damped,
            damped: damped && has_damping(system),
            newton: Newton::new(n, forces::is_linear(system), solver),
            mass: system.inverse_mass().iter().map(|inverse| 1.0 / inverse).collect(),
            last_x: vec![0.0; n],
            last_v: vec![0.0; n],
            previous_v: vec![0.0; n],
            has_history: false,
            increment: vec![0.0; n],
            increment_full: vec![0.0; len],
            end: vec![0.0; len],
            point: vec![0.0; len],
            jacobian_point: vec![0.0; len],
            jacobian_end: vec![0.0; len],
            force: vec![0.0; len],
            damping: vec![0.0; len],
            start_force: vec![0.0; len],
            external: vec![0.0; len],
        }
    }

    /// Takes `system`'s values as they are now, where its sizes are the ones the step was made
    /// for: the masses, whether anything damps, and the factorisation forgotten. Allocates
    /// nothing.
    pub fn retake(&mut self, system: &System) -> bool {
        if system.mass_coordinates() != self.mass.len()
            || system.node_ids().len() * system.dimension() != self.end.len()
        {
            return false;
        }
        for (mass, inverse) in self.mass.iter_mut().zip(system.inverse_mass()) {
            *mass = 1.0 / inverse;
        }
        self.damped = self.wants_damping && has_damping(system);
        self.newton.forget(forces::is_linear(system));
        true
    }

    /// What the Newton solves have cost so far.
    pub fn stats(&self) -> SolverStats {
        self.newton.stats()
    }

    /// Advances the masses of `state` by one step; returns the energy exchanged in the form
    /// the discrete-gradient rule balances exactly (Chatziioannou 2019, eq. (54)).
    pub fn step(&mut self, system: &System, state: &mut State) -> Result<EnergyExchange, SchemeError> {
        let (h, t, n) = (self.dt, state.t, system.mass_coordinates());
        let rule = self.rule;
        let (c_d, c_k) = rule.weights();
        let force_scale = if rule == Rule::BackwardEuler { h * h } else { 0.5 * h * h };
        let damping_scale = if self.damped { c_d * h } else { 0.0 };

        // The external force over the step, and F_c(x_n) for the trapezoidal rule.
        self.external.fill(0.0);
        match rule {
            _ if system.external_forces().is_empty() => {}
            Rule::DiscreteGradient | Rule::Trapezoidal => {
                forces::add_external(system, t, &mut self.external);
                forces::add_external(system, t + h, &mut self.external);
                self.external.iter_mut().for_each(|f| *f *= 0.5);
            }
            Rule::Midpoint => forces::add_external(system, t + 0.5 * h, &mut self.external),
            Rule::BackwardEuler => forces::add_external(system, t + h, &mut self.external),
        }
        if rule == Rule::Trapezoidal {
            forces::conservative(system, &state.x, &mut self.start_force);
        }
        // The anchors' positions; Newton writes the masses'.
        for buffer in [&mut self.end, &mut self.point, &mut self.jacobian_point, &mut self.jacobian_end] {
            buffer[n..].copy_from_slice(&state.x[n..]);
        }

        // Initial guess: the drift h v_n, or, continuing the last step, the increment of the
        // velocity extrapolated linearly, v_{n+1} = 2 v_n - v_{n-1} (an error of order h^3
        // instead of h^2: one simplified Newton iteration fewer).
        let continues =
            self.has_history && state.x[..n] == self.last_x[..] && state.v[..n] == self.last_v[..];
        let w = rule.start_weight();
        for i in 0..n {
            let v = state.v[i];
            let next = if continues { 2.0 * v - self.previous_v[i] } else { v };
            self.increment[i] = h * (w * v + (1.0 - w) * next);
        }
        self.has_history = false;
        let Self {
            newton,
            mass,
            increment,
            increment_full,
            end,
            point,
            jacobian_point,
            jacobian_end,
            force,
            damping,
            start_force,
            external,
            ..
        } = self;
        let (x, v) = (&state.x, &state.v);
        let residual = |s: &[f64], out: &mut [f64]| {
            for i in 0..n {
                end[i] = x[i] + s[i];
                point[i] = x[i] + rule.stiffness_point() * s[i];
                increment_full[i] = s[i];
            }
            match rule {
                Rule::DiscreteGradient => forces::discrete_conservative(system, x, end, force),
                Rule::Midpoint => forces::conservative(system, point, force),
                Rule::Trapezoidal => {
                    forces::conservative(system, end, force);
                    force.iter_mut().zip(start_force.iter()).for_each(|(f, f0)| *f = 0.5 * (*f + f0));
                }
                Rule::BackwardEuler => forces::conservative(system, end, force),
            }
            for i in 0..n {
                out[i] = mass[i] * (s[i] - h * v[i]) - force_scale * (force[i] + external[i]);
            }
            if damping_scale > 0.0 {
                damping.fill(0.0);
                forces::add_damping(system, point, increment_full, damping);
                for i in 0..n {
                    out[i] -= damping_scale * damping[i];
                }
            }
        };
        let jacobian = |s: &[f64], matrix: &mut dyn Assemble| {
            for i in 0..n {
                jacobian_point[i] = x[i] + rule.stiffness_point() * s[i];
            }
            forces::add_mass_matrix(system, 1.0, matrix);
            if damping_scale > 0.0 {
                forces::add_damping_matrix(system, jacobian_point, damping_scale, matrix);
            }
            if rule == Rule::DiscreteGradient {
                for i in 0..n {
                    jacobian_end[i] = x[i] + s[i];
                }
                forces::add_discrete_stiffness(system, x, jacobian_point, jacobian_end, force_scale, matrix);
            } else {
                forces::add_stiffness(system, jacobian_point, c_k * h * h, matrix);
            }
        };
        // Below a few units of round-off in the positions the increment cannot improve x_{n+1}.
        let floor = 4.0 * f64::EPSILON * max_norm(&x[..n]);
        newton.solve(increment, floor, residual, jacobian)?;

        // The step's energy exchange, from the converged increment: damping dissipates
        // s^T D s / h (the mean velocity is s/h), external forces do work s . F-bar_e.
        let s = &self.increment;
        let mut dissipated = 0.0;
        if damping_scale > 0.0 {
            self.increment_full[..n].copy_from_slice(s);
            for i in 0..n {
                self.point[i] = state.x[i] + 0.5 * s[i];
            }
            self.damping.fill(0.0);
            forces::add_damping(system, &self.point, &self.increment_full, &mut self.damping);
            dissipated = -s.iter().zip(&self.damping).map(|(s, f)| s * f).sum::<f64>() / h;
        }
        let external_work = s.iter().zip(&self.external).map(|(s, f)| s * f).sum();
        self.previous_v.copy_from_slice(&state.v[..n]);
        for i in 0..n {
            state.x[i] += s[i];
            state.v[i] = match rule {
                Rule::BackwardEuler => s[i] / h,
                _ => 2.0 * s[i] / h - state.v[i],
            };
        }
        self.last_x.copy_from_slice(&state.x[..n]);
        self.last_v.copy_from_slice(&state.v[..n]);
        self.has_history = true;
        Ok(EnergyExchange { dissipated, external_work })
    }
}

/// Defines a scheme that is one [`ImplicitStep`] with dampers and drag included.
macro_rules! implicit_scheme {
    ($(#[$doc:meta])* $name:ident, $rule:expr, exact_balance: $exact:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name {
            step: super::implicit::ImplicitStep,
            last: Option<super::EnergyExchange>,
        }

        impl $name {
            /// The scheme for `system` with step `dt` (s).
            pub fn new(system: &crate::system::System, dt: f64) -> Self {
                Self::with_solver(system, dt, super::LinearSolver::Automatic)
            }

            /// The scheme for `system` with step `dt` (s), its Newton iteration on the linear
            /// algebra `solver` picks (the automatic choice is the fastest; the others are for
            /// comparing the two paths).
            pub fn with_solver(
                system: &crate::system::System,
                dt: f64,
                solver: super::LinearSolver,
            ) -> Self {
                Self { step: super::implicit::ImplicitStep::new(system, dt, $rule, true, solver), last: None }
            }
        }

        impl super::Scheme for $name {
            fn kind(&self) -> super::SchemeKind {
                super::SchemeKind::$name
            }

            fn step(
                &mut self,
                system: &crate::system::System,
                state: &mut crate::system::State,
            ) -> Result<(), super::SchemeError> {
                let exchange = self.step.step(system, state)?;
                self.last = $exact.then_some(exchange);
                Ok(())
            }

            fn last_exchange(&self) -> Option<super::EnergyExchange> {
                self.last
            }

            fn solver_stats(&self) -> Option<super::SolverStats> {
                Some(self.step.stats())
            }

            fn retake(&mut self, system: &crate::system::System) -> bool {
                self.step.retake(system)
            }
        }
    };
}
pub(super) use implicit_scheme;
