//! Energy behaviour of the Euler schemes: symplectic Euler keeps energy bounded (it conserves a
//! modified energy exactly), forward Euler's grows by `1 + (w h)^2` per step (the scheme of
//! Domoszlai's blog post; see docs/errata.md).

use crate::common;

use common::{oscillator, StateLog};
use hooke::analysis::energy::energy;
use hooke::engine::{EnergyMonitor, Engine, EngineConfig, Pickups};
use hooke::model::{Model, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};
use std::f64::consts::PI;

/// Runs a simulation, handing every state to `check` (states are not stored).
fn for_each_state(
    model: &Model,
    scheme: SchemeKind,
    dt: f64,
    steps: u64,
    check: impl FnMut(&System, &State),
) {
    struct Check<F>(F);
    impl<F: FnMut(&System, &State)> hooke::engine::Observer for Check<F> {
        fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
            (self.0)(system, state);
            Ok(())
        }
    }
    let mut simulation = Engine::from_system(
        System::new(model),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(dt),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut Check(check)]).unwrap();
}

/// The 20-mass string of Morgan & Qiao 2008: 1 kg masses, w0 = sqrt(k/m) = 18497.2439 rad/s, no
/// damping, the 6th mass displaced by 1.
fn morgan_qiao_2008_string() -> Model {
    let mut model = Model::new(1).unwrap();
    let omega0: f64 = 18497.2439;
    model.add_string(StringSpec::new("s", 20).mass(1.0).stiffness(omega0 * omega0).damping(0.0)).unwrap();
    model.set_initial_position(5, &[1.0]).unwrap();
    model
}

#[test]
fn symplectic_euler_keeps_an_oscillators_energy_within_its_modified_energy_bounds() {
    let (omega, h) = (2.0 * PI * 440.0, 1.0 / 44_100.0);
    let model = oscillator(omega, 0.0, 1.0, 0.0);
    // Kick-then-drift symplectic Euler conserves Q = (v^2 + w^2 x^2 - h w^2 x v) / 2 exactly, and
    // |h w^2 x v| / 2 <= (h w / 2) H, so H stays in [Q / (1 + h w / 2), Q / (1 - h w / 2)].
    let modified = |x: f64, v: f64| 0.5 * (v * v + omega * omega * x * x - h * omega * omega * x * v);
    let q0 = modified(1.0, 0.0);
    let a = h * omega / 2.0;
    let (mut worst_q, mut steps) = (0.0f64, 0);
    for_each_state(&model, SchemeKind::SymplecticEuler, h, 1_000_000, |system, state| {
        let (x, v) = (state.x[0], state.v[0]);
        let h_energy = 0.5 * (v * v + omega * omega * x * x);
        assert!((energy(system, state).total() - h_energy).abs() <= 1e-12 * h_energy);
        assert!(h_energy >= q0 / (1.0 + a) * (1.0 - 1e-9) && h_energy <= q0 / (1.0 - a) * (1.0 + 1e-9));
        worst_q = worst_q.max((modified(x, v) - q0).abs() / q0);
        steps += 1;
    });
    assert_eq!(steps, 1_000_001);
    assert!(worst_q < 1e-9, "modified energy drifted by {worst_q:e}");
}

#[test]
fn symplectic_euler_conserves_the_modified_energy_of_a_string_over_a_million_steps() {
    let model = morgan_qiao_2008_string();
    let h = 1.0 / 44_100.0;
    // For v' = v - h M^-1 K x, x' = x + h v', Q = v'Mv + x'Kx - h v'Kx is conserved exactly;
    // for a chain of springs x'Kx = sum k (x_b - x_a)^2 and v'Kx = sum k (v_b - v_a)(x_b - x_a).
    let modified = |system: &System, state: &State| {
        let springs = system.springs();
        let kinetic: f64 = system.masses().iter().zip(&state.v).map(|(m, v)| m * v * v).sum();
        let (mut xkx, mut vkx) = (0.0, 0.0);
        for i in 0..springs.len() {
            let (a, b, k) = (springs.a[i] as usize, springs.b[i] as usize, springs.coefficient[i]);
            let (dx, dv) = (state.x[b] - state.x[a], state.v[b] - state.v[a]);
            xkx += k * dx * dx;
            vkx += k * dv * dx;
        }
        kinetic + xkx - h * vkx
    };
    // Highest mode of the lumped string (Morgan & Qiao 2008, eq. (16)):
    // 2 w0 sin(N pi / (2 (N + 1))).
    let omega_max = 2.0 * 18497.2439 * (20.0 * PI / 42.0).sin();
    let a = h * omega_max / 2.0;
    let bound = (1.0 + a) / (1.0 - a) - 1.0;
    let (mut q0, mut h0) = (None, None);
    let (mut worst_q, mut worst_h) = (0.0f64, 0.0f64);
    for_each_state(&model, SchemeKind::SymplecticEuler, h, 1_000_000, |system, state| {
        let q = modified(system, state);
        let e = energy(system, state).total();
        let q0 = *q0.get_or_insert(q);
        let h0 = *h0.get_or_insert(e);
        worst_q = worst_q.max((q - q0).abs() / q0);
        worst_h = worst_h.max((e - h0).abs() / h0);
    });
    assert!(worst_q < 1e-9, "modified energy drifted by {worst_q:e}");
    assert!(worst_h <= bound, "energy deviation {worst_h} beyond the bound {bound}");
}

#[test]
fn forward_euler_energy_grows_by_one_plus_w_h_squared_per_step() {
    let (omega, h, steps) = (1.0, 1e-3, 1_000_000u64);
    let model = oscillator(omega, 0.0, 1.0, 0.0);
    let mut monitor = EnergyMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::ForwardEuler).dt(h),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut monitor]).unwrap();
    let summary = monitor.summary().unwrap();
    // |(x + h v, v - h w^2 x)|^2_w = (1 + w^2 h^2) |(x, v)|^2_w.
    let expected = 0.5 * (1.0 + (omega * h).powi(2)).powf(steps as f64);
    let ratio = summary.last.total() / expected;
    assert!((ratio - 1.0).abs() < 1e-9, "final energy off the closed form by {:e}", ratio - 1.0);
    assert!(summary.relative_drift() > 1.7, "energy grew by e - 1");
}

#[test]
fn forward_euler_energy_grows_at_every_step_on_a_string() {
    // Every mode's energy grows by 1 + (w_n h)^2 per step, so the total never decreases.
    let mut log = StateLog::default();
    let system = System::new(&morgan_qiao_2008_string());
    let mut simulation = Engine::from_system(
        system.clone(),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::ForwardEuler).dt(1.0 / 44_100.0),
    )
    .unwrap();
    simulation.run(200, &mut [], &mut [&mut log]).unwrap();
    let energies: Vec<f64> = log.0.iter().map(|s| energy(&system, s).total()).collect();
    assert!(energies.windows(2).all(|w| w[1] >= w[0] * (1.0 - 1e-12)));
    assert!(energies[200] > 10.0 * energies[0]);
}
