//! The trapezoidal rule, Chatziioannou 2019, eq. (48).

use super::implicit::{implicit_scheme, Rule};

implicit_scheme!(
    /// Trapezoidal rule (TR; Chatziioannou 2019, eq. (48), network form; a Newmark method):
    ///
    /// ```text
    /// (x_{n+1} - x_n) / h   = (v_n + v_{n+1}) / 2
    /// M (v_{n+1} - v_n) / h = (F_c(x_n) + F_c(x_{n+1})) / 2 - D (v_n + v_{n+1}) / 2
    ///                         + (F_e(t_n) + F_e(t_{n+1})) / 2
    /// ```
    ///
    /// Second order, stable for every step on a linear network, where it equals the
    /// energy-conserving scheme; not symplectic and not energy-conserving with nonlinear forces.
    /// One Newton solve per step.
    Trapezoidal,
    Rule::Trapezoidal,
    exact_balance: false
);
