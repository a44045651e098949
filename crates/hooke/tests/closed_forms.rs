//! The Euler schemes on a single damped oscillator against their closed-form z-domain solutions
//! (Morgan & Qiao 2009, section 3, eqs. 35-37, 44, 45, 71, with the corrections of
//! docs/errata.md).

use crate::common;

use common::{closed_form, oscillator, positions, quadratic_roots};
use hooke::scheme::SchemeKind;
use std::f64::consts::PI;

/// Largest `|simulated - closed form|` over the run, relative to `scale`.
fn max_error(simulated: &[f64], roots: [(f64, f64); 2], x1: f64, scale: impl Fn(usize) -> f64) -> f64 {
    simulated
        .iter()
        .enumerate()
        .map(|(n, x)| (x - closed_form(roots, simulated[0], x1, n)).abs() / scale(n))
        .fold(0.0, f64::max)
}

/// Symplectic Euler's characteristic polynomial (Morgan & Qiao 2009, eq. (35)):
/// `z^2 + ((w0 h)^2 + gamma h - 2) z + (1 - gamma h)`.
fn symplectic_euler_roots(omega0: f64, gamma: f64, h: f64) -> [(f64, f64); 2] {
    quadratic_roots((omega0 * h).powi(2) + gamma * h - 2.0, 1.0 - gamma * h)
}

/// Forward Euler's: `z^2 - (2 - gamma h) z + (1 - gamma h + (w0 h)^2)`.
fn forward_euler_roots(omega0: f64, gamma: f64, h: f64) -> [(f64, f64); 2] {
    quadratic_roots(-(2.0 - gamma * h), 1.0 - gamma * h + (omega0 * h).powi(2))
}

#[test]
fn closed_form_reproduces_the_papers_digital_frequency_and_damping() {
    // Morgan & Qiao 2009, eq. (69) and the values printed in eq. 71.
    let (omega0, gamma, h) = (125.0 * 2.0 * PI, 50.0, 1e-3);
    let [(re, im), _] = symplectic_euler_roots(omega0, gamma, h);
    let r = re.hypot(im);
    assert!((r - (1.0 - gamma * h).sqrt()).abs() < 1e-15, "eq. 44: |z| = sqrt(1 - gamma h)");
    assert!((r - 0.974_679_434_480_90).abs() < 1e-13, "r = {r}");
    let omega_d = im.atan2(re) / h;
    assert!((omega_d - 817.713_237_498_152_8).abs() < 1e-9, "omega_d = {omega_d}");
}

#[test]
fn symplectic_euler_matches_its_closed_form_on_the_papers_oscillator() {
    // Morgan & Qiao 2009, eq. (69): w0 = 125 * 2 pi, gamma = 50, h = 1/1000, x(0) = 1, v(0) = 0.
    let (omega0, gamma, h, x0, v0) = (125.0 * 2.0 * PI, 50.0, 1e-3, 1.0, 0.0);
    let x = positions(&oscillator(omega0, gamma, x0, v0), SchemeKind::SymplecticEuler, h, 10_000);
    // Eq. 27 at n = 0.
    let x1 = x0 + h * (v0 + h * (-omega0 * omega0 * x0 - gamma * v0));
    let error = max_error(&x, symplectic_euler_roots(omega0, gamma, h), x1, |_| x0.abs());
    assert!(error < 1e-10, "max error {error:e} of the initial amplitude");
}

#[test]
fn symplectic_euler_matches_its_closed_form_at_the_nyquist_frequency() {
    // Morgan & Qiao 2009, eq. (72): the poles are real and the dominant one negative (fig. 19).
    let (omega0, gamma, h, x0, v0) = (1708.0, 500.0, 1e-3, 1.0, 2324.0);
    let roots = symplectic_euler_roots(omega0, gamma, h);
    assert!(roots[0].1 == 0.0 && roots[1].0 < -roots[0].0.abs(), "real poles, dominant one negative");
    let x = positions(&oscillator(omega0, gamma, x0, v0), SchemeKind::SymplecticEuler, h, 10_000);
    let x1 = x0 + h * (v0 + h * (-omega0 * omega0 * x0 - gamma * v0));
    let amplitude = x0.abs().max(x1.abs());
    let error = max_error(&x, roots, x1, |_| amplitude);
    assert!(error < 1e-10, "max error {error:e} of the initial amplitude");
}

#[test]
fn forward_euler_matches_its_closed_form_on_a_damped_oscillator() {
    // Forward Euler is stable only while w0^2 h <= gamma: 20 Hz with gamma = 50 1/s at 1 kHz.
    let (omega0, gamma, h, x0, v0) = (20.0 * 2.0 * PI, 50.0, 1e-3, 1.0, 3.0);
    let x = positions(&oscillator(omega0, gamma, x0, v0), SchemeKind::ForwardEuler, h, 10_000);
    let x1 = x0 + h * v0;
    let amplitude = x0.abs().max(x1.abs());
    let error = max_error(&x, forward_euler_roots(omega0, gamma, h), x1, |_| amplitude);
    assert!(error < 1e-10, "max error {error:e} of the initial amplitude");
}

#[test]
fn forward_euler_matches_its_closed_form_while_it_grows() {
    // Undamped: |z| = sqrt(1 + (w0 h)^2) > 1, so compare relative to the growing envelope.
    let (omega0, h, x0, v0) = (100.0 * 2.0 * PI, 1e-4, 1.0, 0.0);
    let x = positions(&oscillator(omega0, 0.0, x0, v0), SchemeKind::ForwardEuler, h, 10_000);
    let roots = forward_euler_roots(omega0, 0.0, h);
    let r = roots[0].0.hypot(roots[0].1);
    assert!(r > 1.0);
    let error = max_error(&x, roots, x0 + h * v0, |n| x0.abs() * r.powi(n as i32));
    assert!(error < 1e-10, "max error {error:e} of the envelope");
    assert!(x.iter().fold(0.0f64, |m, v| m.max(v.abs())) > 1e8, "it grows by e^19.7 in 10^4 steps");
}
