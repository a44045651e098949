//! The energy-conserving (discrete-gradient) scheme, Chatziioannou 2019, eqs. (26)-(27).

use super::implicit::{implicit_scheme, Rule};

implicit_scheme!(
    /// Energy-conserving scheme (EC; Chatziioannou 2019, eqs. (26)-(27), network form):
    ///
    /// ```text
    /// (x_{n+1} - x_n) / h   = (v_n + v_{n+1}) / 2
    /// M (v_{n+1} - v_n) / h = -grad V(x_n, x_{n+1}) - D (v_n + v_{n+1}) / 2 + (F_e(t_n) + F_e(t_{n+1})) / 2
    /// ```
    ///
    /// with the discrete gradient `grad V(x_n, x_{n+1})`: midpoint forces for 1D springs (then it
    /// is the midpoint and trapezoidal rule, Chatziioannou 2019, section 2.4), Gonzalez's form for
    /// geometric springs, his midpoint discrete gradient for angular springs and the difference
    /// quotient of eq. 46 for contacts. It replicates the
    /// energy balance exactly (Proposition 2.2 and eq. 54):
    /// `H_{n+1} = H_n - h mu^T D mu + h mu . F-bar_e` with `mu = (v_n + v_{n+1})/2`, to round-off,
    /// for any potential. Second order; stable for every step (the energy bounds the state).
    /// Contracts the symplectic form of an oscillator by
    /// `(w0^2 h/2 + 2 - gamma h) / (w0^2 h/2 + 2 + gamma h)` per step (eq. 28 as corrected in
    /// docs/errata.md: `w0^2 h^2 / 2`). One Newton solve per step (a single back-substitution on a
    /// linear network, whose matrix `M + h/2 D + h^2/4 K` is factored once).
    EnergyConserving,
    Rule::DiscreteGradient,
    exact_balance: true
);
