//! Each scheme's network form reduces to its paper's single-oscillator form: on one mass on a
//! spring-damper to ground, Hooke's step matches an independent scalar implementation of the
//! paper's equations, step by step.

use crate::common;

use common::StateLog;
use hooke::engine::{Engine, EngineConfig, Pickups};
use hooke::scheme::SchemeKind;
use hooke::system::System;

/// The reed of Chatziioannou 2019, section 2.7 (read as in docs/errata.md): M = 0.05,
/// w0 = 5000 pi rad/s, gamma = 2.5 * 2800 1/s, h = 1/44100 s, y(0) = -0.1 mm, p(0) = 0.05 kg m/s.
const MASS: f64 = 0.05;
const OMEGA0: f64 = 5000.0 * std::f64::consts::PI;
const GAMMA: f64 = 2.5 * 2800.0;
const H: f64 = 1.0 / 44_100.0;
const Y0: f64 = -1e-4;
const P0: f64 = 0.05;
const STEPS: usize = 661;

/// Hooke's (x, p) after every step, for the reed oscillator.
fn hooke_run(scheme: SchemeKind) -> Vec<(f64, f64)> {
    let source = format!(
        "[model]\ndimension = 1\n[[anchor]]\nid = \"g\"\n[[mass]]\nid = \"m\"\nmass = {MASS:?}\nposition = {Y0:?}\n\
         velocity = {:?}\n[[spring]]\na = \"g\"\nb = \"m\"\nstiffness = {:?}\ndamping = {:?}\n",
        P0 / MASS,
        MASS * OMEGA0 * OMEGA0,
        MASS * GAMMA
    );
    let file = hooke::format::model::parse(&source, "reed.toml").unwrap();
    let mut log = StateLog::default();
    let mut simulation = Engine::from_system(
        System::new(&file.model),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(H),
    )
    .unwrap();
    simulation.run(STEPS as u64, &mut [], &mut [&mut log]).unwrap();
    log.0.iter().map(|s| (s.x[0], MASS * s.v[0])).collect()
}

/// Runs a scalar one-step map `(y, p) -> (y', p')` from the reed's initial state.
fn scalar_run(step: impl Fn(f64, f64) -> (f64, f64)) -> Vec<(f64, f64)> {
    let mut out = vec![(Y0, P0)];
    for _ in 0..STEPS {
        let (y, p) = *out.last().unwrap();
        out.push(step(y, p));
    }
    out
}

fn assert_same(scheme: SchemeKind, reference: &[(f64, f64)]) {
    let hooke = hooke_run(scheme);
    let (y_scale, p_scale) = (Y0.abs(), P0.abs());
    for (n, ((y, p), (yr, pr))) in hooke.iter().zip(reference).enumerate() {
        assert!(
            (y - yr).abs() <= 1e-12 * y_scale && (p - pr).abs() <= 1e-12 * p_scale,
            "{scheme} step {n}: hooke ({y:e}, {p:e}), paper ({yr:e}, {pr:e})"
        );
    }
}

const K: f64 = MASS * OMEGA0 * OMEGA0;

#[test]
fn energy_conserving_is_eq_27() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    let denominator = 1.0 + k * h * h / (4.0 * m) + g * h / 2.0;
    assert_same(
        SchemeKind::EnergyConserving,
        &scalar_run(|y, p| {
            let p1 = (1.0 - k * h * h / (4.0 * m) - g * h / 2.0) / denominator * p - k * h / denominator * y;
            (y + h / (2.0 * m) * (p1 + p), p1)
        }),
    );
}

#[test]
fn midpoint_and_trapezoidal_equal_energy_conserving_on_a_linear_oscillator() {
    let reference = hooke_run(SchemeKind::EnergyConserving);
    assert_same(SchemeKind::Midpoint, &reference);
    assert_same(SchemeKind::Trapezoidal, &reference);
}

#[test]
fn velocity_verlet_is_eq_29() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    assert_same(
        SchemeKind::VelocityVerlet,
        &scalar_run(|y, p| {
            let half = (p + h / 2.0 * (-k * y)) / (1.0 + g * h / 2.0);
            let y1 = y + h / m * half;
            (y1, (1.0 - h / 2.0 * g) * half + h / 2.0 * (-k * y1))
        }),
    );
}

#[test]
fn caldirola_kanai_is_eqs_35c_to_36() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    // q = p h / 2m (eq. 35c with varpi = e^{gamma t} p); x from eq. 35d; eq. 36.
    assert_same(
        SchemeKind::CaldirolaKanai,
        &scalar_run(|y, p| {
            let q = p * h / (2.0 * m);
            let x =
                (2.0 * q * (-g * h / 2.0).exp() - h * h * k * y / (2.0 * m)) / (1.0 + h * h * k / (4.0 * m));
            let q1 = x * (-g * h / 2.0).exp() - q * (-g * h).exp();
            (y + x, q1 * 2.0 * m / h)
        }),
    );
}

#[test]
fn energy_conserving_cs_is_eq_42() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    let a = 1.0 + h * h * k / (4.0 * m);
    assert_same(
        SchemeKind::EnergyConservingCs,
        &scalar_run(|y, p| {
            let decayed = (-g * h).exp() * p;
            let p1 = (1.0 - h * h * k / (4.0 * m)) / a * decayed - h * k / a * y;
            (y + h / (2.0 * m) * (p1 + decayed), p1)
        }),
    );
}

#[test]
fn velocity_verlet_cs_is_eq_43() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    assert_same(
        SchemeKind::VelocityVerletCs,
        &scalar_run(|y, p| {
            let half = (-g * h).exp() * p + h / 2.0 * (-k * y);
            let y1 = y + h / m * half;
            (y1, half + h / 2.0 * (-k * y1))
        }),
    );
}

#[test]
fn exact_is_the_impulse_invariant_recursion_of_eq_39() {
    // y_{n+1} = 2 e^{-gamma h/2} cos(w_gamma h) y_n - e^{-gamma h} y_{n-1}, started from the
    // analytic y(h) (eqs. 14-15); p from the analytic solution too.
    let w = (OMEGA0 * OMEGA0 - GAMMA * GAMMA / 4.0).sqrt();
    let v0 = P0 / MASS;
    // y(t) = e^{-gamma t/2} (A cos w t + B sin w t), A = y0, B = (v0 + gamma y0 / 2) / w.
    let (a, b) = (Y0, (v0 + GAMMA * Y0 / 2.0) / w);
    let analytic = |t: f64| {
        let e = (-GAMMA * t / 2.0).exp();
        let (c, s) = ((w * t).cos(), (w * t).sin());
        let y = e * (a * c + b * s);
        let v = e * (-a * w * s + b * w * c) - GAMMA / 2.0 * y;
        (y, MASS * v)
    };
    let hooke = hooke_run(SchemeKind::Exact);
    let mut y = vec![Y0, analytic(H).0];
    for n in 1..STEPS {
        y.push(2.0 * (-GAMMA * H / 2.0).exp() * (w * H).cos() * y[n] - (-GAMMA * H).exp() * y[n - 1]);
    }
    for (n, (yh, ph)) in hooke.iter().enumerate() {
        let (ya, pa) = analytic(n as f64 * H);
        assert!((yh - y[n]).abs() <= 1e-12 * Y0.abs(), "step {n}: {yh:e} vs eq. 39 {:e}", y[n]);
        assert!((yh - ya).abs() <= 1e-12 * Y0.abs() && (ph - pa).abs() <= 1e-12 * P0, "step {n}: analytic");
    }
}

#[test]
fn backward_euler_is_the_implicit_euler_recursion() {
    let (m, k, g, h) = (MASS, K, GAMMA, H);
    // v' = v + h (-w0^2 y' - gamma v'), y' = y + h v': solve the 2 x 2 system by hand.
    assert_same(
        SchemeKind::BackwardEuler,
        &scalar_run(|y, p| {
            let v = p / m;
            let w2 = k / m;
            let v1 = (v - h * w2 * y) / (1.0 + h * g + h * h * w2);
            (y + h * v1, m * v1)
        }),
    );
}
