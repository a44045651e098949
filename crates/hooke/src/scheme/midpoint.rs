//! The implicit midpoint rule, Chatziioannou 2019, eq. (47).

use super::implicit::{implicit_scheme, Rule};

implicit_scheme!(
    /// Implicit midpoint rule (MR; Chatziioannou 2019, eq. (47), network form):
    ///
    /// ```text
    /// (x_{n+1} - x_n) / h   = (v_n + v_{n+1}) / 2
    /// M (v_{n+1} - v_n) / h = F_c((x_n + x_{n+1}) / 2) - D (v_n + v_{n+1}) / 2 + F_e(t_n + h/2)
    /// ```
    ///
    /// Second order, symplectic without damping (a Gauss-Legendre Runge-Kutta method), stable
    /// for every step on a linear network, where it equals the energy-conserving scheme; with
    /// nonlinear forces it no longer conserves energy exactly. One Newton solve per step.
    Midpoint,
    Rule::Midpoint,
    exact_balance: false
);
