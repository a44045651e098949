//! Backward (implicit) Euler, Morgan & Qiao 2009, eq. (6) and fig. 4.

use super::implicit::{implicit_scheme, Rule};

implicit_scheme!(
    /// Backward Euler (Morgan & Qiao 2009, eq. (6): the derivative at the new point):
    ///
    /// ```text
    /// x_{n+1} = x_n + h v_{n+1}
    /// M v_{n+1} = M v_n + h (F_c(x_{n+1}) + F_e(t_{n+1}) - D v_{n+1})
    /// ```
    ///
    /// First order, stable for every step, and numerically damped: an undamped oscillator's
    /// poles are `1 / (1 -+ j w0 h)`, of modulus `1 / sqrt(1 + (w0 h)^2) < 1`, so its energy
    /// falls by `1 + (w0 h)^2` per step (Morgan & Qiao 2009, fig. 4). One Newton solve per step
    /// (one back-substitution on a linear network, whose matrix `M + h D + h^2 K` is factored
    /// once).
    BackwardEuler,
    Rule::BackwardEuler,
    exact_balance: false
);
