//! The conformance suite: one generic test per property, run for every scheme it applies to
//! (Chatziioannou 2019, section 2; issue "Every integrator of the papers").

use crate::common;

use common::oscillator;
use hooke::analysis::energy::energy;
use hooke::analysis::invariants::{contraction_factor, BalanceMonitor};
use hooke::engine::{EnergyMonitor, Engine, EngineConfig, Pickups};
use hooke::format::model::parse;
use hooke::model::Model;
use hooke::scheme::{SchemeKind, EXACT_ORDER};
use hooke::system::System;

/// A damped 3-mass chain between two anchors: unequal masses and springs, dampers between
/// masses and on the supports, drag on the middle mass.
fn damped_chain() -> Model {
    parse(
        r#"
        [model]
        dimension = 1
        [[anchor]]
        id = "left"
        [[anchor]]
        id = "right"
        [[mass]]
        id = "a"
        mass = 1.0
        position = 0.3
        [[mass]]
        id = "b"
        mass = 1.5
        velocity = -0.4
        drag = 0.5
        [[mass]]
        id = "c"
        mass = 0.8
        position = -0.2
        [[spring]]
        a = "left"
        b = "a"
        stiffness = 100.0
        damping = 0.2
        [[spring]]
        a = "a"
        b = "b"
        stiffness = 150.0
        damping = 0.3
        [[spring]]
        a = "b"
        b = "c"
        stiffness = 120.0
        damping = 0.3
        [[spring]]
        a = "c"
        b = "right"
        stiffness = 90.0
        "#,
        "chain.toml",
    )
    .unwrap()
    .model
}

/// Positions of the masses after `steps` steps of `dt`.
fn final_positions(model: &Model, scheme: SchemeKind, dt: f64, steps: u64) -> Vec<f64> {
    let system = System::new(model);
    let n = system.mass_coordinates();
    let mut simulation =
        Engine::from_system(system, Pickups::default(), EngineConfig::default().scheme(scheme).dt(dt))
            .unwrap();
    simulation.run(steps, &mut [], &mut []).unwrap();
    simulation.state().x[..n].to_vec()
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

#[test]
fn observed_order_equals_the_stated_order_on_a_damped_chain() {
    let model = damped_chain();
    let duration = 1.0;
    let reference = final_positions(&model, SchemeKind::Exact, duration / 1000.0, 1000);
    // The exact flow does not depend on the step: a coarser exact run agrees to round-off.
    let coarse = final_positions(&model, SchemeKind::Exact, duration / 10.0, 10);
    assert!(max_difference(&reference, &coarse) < 1e-12, "exact is exact");
    for scheme in SchemeKind::ALL.into_iter().filter(|s| *s != SchemeKind::Exact) {
        let order = scheme.info().damped_order;
        // Steps small enough for the asymptotic regime, large enough to stay above round-off.
        let base_steps: u64 = match order {
            1 => 4000,
            2 => 400,
            _ => 200,
        };
        let errors: Vec<f64> = (0..3)
            .map(|k| {
                let steps = base_steps << k;
                max_difference(&final_positions(&model, scheme, duration / steps as f64, steps), &reference)
            })
            .collect();
        let observed = (errors[1] / errors[2]).log2();
        assert!(
            (observed - order as f64).abs() <= 0.1,
            "{scheme}: errors {errors:?} give order {observed:.3}, stated {order}"
        );
    }
    assert_eq!(SchemeKind::Exact.info().order, EXACT_ORDER);
}

#[test]
fn undamped_energy_is_bounded_for_symplectic_schemes_decays_for_rk4_and_grows_for_forward_euler() {
    // An oscillator at w h = 0.5 for 10^5 periods (about 1.26e6 steps).
    let (omega, h) = (1.0, 0.5);
    let steps = (1e5 * 2.0 * std::f64::consts::PI / (omega * h)) as u64;
    let model = oscillator(omega, 0.0, 1.0, 0.0);
    for scheme in SchemeKind::ALL {
        let mut monitor = EnergyMonitor::new();
        let mut simulation = Engine::from_system(
            System::new(&model),
            Pickups::default(),
            EngineConfig::default().scheme(scheme).dt(h),
        )
        .unwrap();
        let run_steps = if scheme == SchemeKind::ForwardEuler { 100 } else { steps };
        simulation.run(run_steps, &mut [], &mut [&mut monitor]).unwrap();
        let summary = monitor.summary().unwrap();
        let drift = summary.relative_drift();
        match scheme {
            // |z|^2 = 1 + (w h)^2 per step.
            SchemeKind::ForwardEuler => {
                let expected = 1.25f64.powi(100) - 1.0;
                assert!((drift - expected).abs() < 1e-9 * expected, "{scheme}: drift {drift}");
            }
            // Numerically damped: RK4 by (w h)^6/72 per step, backward Euler by 1 + (w h)^2.
            SchemeKind::Rk4 | SchemeKind::BackwardEuler => {
                assert!(drift < -0.99, "{scheme}: energy should decay, drift {drift}")
            }
            _ => {
                assert!(scheme.info().linear_symplectic);
                // Bounded: symplectic Euler's excursion is w h / 2 at most (see tests/energy.rs);
                // the others' is far smaller.
                assert!(
                    summary.relative_max_deviation() <= omega * h / (2.0 - omega * h),
                    "{scheme}: max deviation {}",
                    summary.relative_max_deviation()
                );
            }
        }
    }
}

#[test]
fn energy_conserving_balances_energy_to_round_off_with_damping() {
    let model = damped_chain();
    let mut balance = BalanceMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::EnergyConserving).dt(1e-3),
    )
    .unwrap();
    let start = energy(simulation.system(), &simulation.state()).total();
    simulation.run(100_000, &mut [], &mut [&mut balance]).unwrap();
    let (first, last) = (balance.first().unwrap(), balance.last().unwrap());
    assert!(((last - first) / first).abs() < 1e-10, "K drifted by {:e}", (last - first) / first);
    // The scheme's own account agrees: H_now + dissipated - work = H_0.
    let exchanged = simulation.exchanged().unwrap();
    let now = energy(simulation.system(), &simulation.state()).total();
    let k = now + exchanged.dissipated - exchanged.external_work;
    assert!(((k - start) / start).abs() < 1e-10, "scheme balance off by {:e}", (k - start) / start);
    assert!(now < 1e-6 * start, "the chain has lost its energy to damping");
}

#[test]
fn caldirola_kanai_and_the_cs_splittings_balance_their_own_form_of_energy() {
    let model = damped_chain();
    for scheme in [SchemeKind::CaldirolaKanai, SchemeKind::EnergyConservingCs] {
        let mut simulation = Engine::from_system(
            System::new(&model),
            Pickups::default(),
            EngineConfig::default().scheme(scheme).dt(1e-3),
        )
        .unwrap();
        let start = energy(simulation.system(), &simulation.state()).total();
        simulation.run(20_000, &mut [], &mut []).unwrap();
        let exchanged = simulation.exchanged().unwrap();
        let k = energy(simulation.system(), &simulation.state()).total() + exchanged.dissipated;
        assert!(((k - start) / start).abs() < 1e-12, "{scheme}: balance off by {:e}", (k - start) / start);
    }
}

#[test]
fn symplectic_form_contracts_at_each_schemes_rate() {
    // One oscillator (m = 1): w0 = 2 pi 440 rad/s, gamma = 300 1/s, h = 1/44100 s.
    let (omega0, gamma, h) = (2.0 * std::f64::consts::PI * 440.0, 300.0, 1.0 / 44_100.0);
    let system = System::new(&oscillator(omega0, gamma, 0.0, 0.0));
    let state = system.initial_state();
    let exact = (-gamma * h).exp();
    let w2h2 = omega0 * omega0 * h * h;
    let expected = [
        (SchemeKind::CaldirolaKanai, exact),
        (SchemeKind::Exact, exact),
        (SchemeKind::EnergyConservingCs, exact),
        (SchemeKind::VelocityVerletCs, exact),
        (SchemeKind::VelocityVerlet, (2.0 - gamma * h) / (2.0 + gamma * h)),
        // Eq. 28 as corrected in docs/errata.md.
        (SchemeKind::EnergyConserving, (w2h2 / 2.0 + 2.0 - gamma * h) / (w2h2 / 2.0 + 2.0 + gamma * h)),
        // Morgan & Qiao 2009, eq. (35): det = 1 - gamma h; forward Euler's: 1 - gamma h + (w0 h)^2.
        (SchemeKind::SymplecticEuler, 1.0 - gamma * h),
        (SchemeKind::ForwardEuler, 1.0 - gamma * h + w2h2),
    ];
    for (scheme, d) in expected {
        let measured = contraction_factor(&system, scheme, h, &state, 1.0).unwrap();
        assert!((measured - d).abs() < 1e-12, "{scheme}: D = {measured}, expected {d}");
    }
}

#[test]
fn reed_preservation_metric_matches_table_1() {
    // Chatziioannou 2019, section 2.7 (w0 = 5000 pi rad/s, gamma = 2.5 * 2800 1/s; see
    // docs/errata.md), 44.1 kHz, y(0) = -0.1 mm, p(0) = 0.05 kg m/s, 661 samples; the eq. 19
    // metric with eq. 18's K.
    let source = "[model]\ndimension = 1\n[[anchor]]\nid = \"g\"\n[[mass]]\nid = \"reed\"\nmass = 0.05\n\
                  position = -1e-4\nvelocity = 1.0\n[[spring]]\na = \"g\"\nb = \"reed\"\n";
    let (m, omega0, gamma) = (0.05, 5000.0 * std::f64::consts::PI, 2.5 * 2800.0);
    let source = format!("{source}stiffness = {:?}\ndamping = {:?}\n", m * omega0 * omega0, m * gamma);
    let model = parse(&source, "reed.toml").unwrap().model;
    let table = [
        (SchemeKind::VelocityVerlet, -6.01e-5),
        (SchemeKind::CaldirolaKanai, -2.45e-5),
        (SchemeKind::EnergyConservingCs, 7.40e-5),
        (SchemeKind::VelocityVerletCs, 5.10e-5),
    ];
    for (scheme, paper) in table {
        let mut balance = BalanceMonitor::new();
        let mut simulation = Engine::from_system(
            System::new(&model),
            Pickups::default(),
            EngineConfig::default().scheme(scheme).dt(1.0 / 44_100.0),
        )
        .unwrap();
        simulation.run(661, &mut [], &mut [&mut balance]).unwrap();
        let metric = balance.preservation_metric().unwrap();
        assert!(((metric - paper) / paper).abs() < 0.05, "{scheme}: metric {metric:e}, Table 1 {paper:e}");
    }
    let mut balance = BalanceMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::EnergyConserving).dt(1.0 / 44_100.0),
    )
    .unwrap();
    simulation.run(661, &mut [], &mut [&mut balance]).unwrap();
    let metric = balance.preservation_metric().unwrap();
    assert!(metric.abs() < 1e-16, "EC metric {metric:e} is not at round-off");
}

#[test]
fn energy_conserving_keeps_a_nonlinear_2d_network_s_energy_to_round_off() {
    // The blog's double pendulum (geometric springs, gravity): the discrete gradient makes the
    // energy exact per step however large the step; Newton solves each step on the sparse
    // tangent stiffness.
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/double-pendulum.toml"))
            .unwrap();
    let model = parse(&source, "double-pendulum.toml").unwrap().model;
    for (scheme, tolerance) in [(SchemeKind::EnergyConserving, 1e-12), (SchemeKind::CaldirolaKanai, 1e-12)] {
        let mut monitor = EnergyMonitor::new();
        let mut simulation = Engine::from_system(
            System::new(&model),
            Pickups::default(),
            EngineConfig::default().scheme(scheme).dt(1e-3),
        )
        .unwrap();
        simulation.run(20_000, &mut [], &mut [&mut monitor]).unwrap();
        let deviation = monitor.summary().unwrap().relative_max_deviation();
        assert!(deviation < tolerance, "{scheme}: energy deviation {deviation:e}");
    }
    // The midpoint rule is symplectic but not energy-conserving with these nonlinear springs.
    let mut monitor = EnergyMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::Midpoint).dt(1e-3),
    )
    .unwrap();
    simulation.run(20_000, &mut [], &mut [&mut monitor]).unwrap();
    let deviation = monitor.summary().unwrap().relative_max_deviation();
    assert!(deviation > 1e-9 && deviation < 1e-2, "midpoint: energy deviation {deviation:e}");
}

/// The first return of the string's whole shape to its initial shape: the time (s) of the first
/// local minimum of `||y(t) - y(0)||` below a tenth of `||y(0)||`, refined by a parabola.
fn shape_period(source: &str, dt: f64, steps: u64) -> f64 {
    let model = parse(source, "string.toml").unwrap().model;
    let mut log = common::StateLog::default();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::CaldirolaKanai).dt(dt),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut log]).unwrap();
    let n = simulation.system().mass_coordinates();
    let start = &log.0[0].x[..n];
    let size = start.iter().map(|y| y * y).sum::<f64>().sqrt();
    let distance: Vec<f64> = log
        .0
        .iter()
        .map(|s| s.x[..n].iter().zip(start).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt())
        .collect();
    let k = (1..distance.len() - 1)
        .find(|&k| {
            distance[k] < 0.1 * size && distance[k] <= distance[k - 1] && distance[k] <= distance[k + 1]
        })
        .expect("the shape returns");
    let (a, b, c) = (distance[k - 1], distance[k], distance[k + 1]);
    (k as f64 + 0.5 * (a - c) / (a - 2.0 * b + c)) * dt
}

#[test]
fn string_against_a_barrier_conserves_energy_and_has_one_and_a_half_times_the_period() {
    // Chatziioannou 2019, section 4 (fig. 5), shipped as examples/string-barrier.toml.
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/string-barrier.toml"))
            .unwrap();
    let dt = 1.0 / 44_100.0;
    let model = parse(&source, "string-barrier.toml").unwrap().model;
    let mut monitor = EnergyMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::CaldirolaKanai).dt(dt),
    )
    .unwrap();
    simulation.run(8820, &mut [], &mut [&mut monitor]).unwrap();
    let deviation = monitor.summary().unwrap().relative_max_deviation();
    assert!(deviation < 1e-12, "lossless energy error {deviation:e} over 0.2 s");

    let barrier_start = source.find("[[barrier]]").unwrap();
    let barrier_end = source[barrier_start..].find("[run]").unwrap() + barrier_start;
    let free = format!("{}{}", &source[..barrier_start], &source[barrier_end..]);
    // The free lumped string's period, 2 pi / w_1 with w_1 = 2 sqrt(k/m) sin(pi / 200).
    let (k, m): (f64, f64) = (100.0 / 0.007, 1e-3 * 0.007);
    let free_period = std::f64::consts::PI / (k / m).sqrt() / (std::f64::consts::PI / 200.0).sin();
    let measured_free = shape_period(&free, dt, 600);
    assert!((measured_free / free_period - 1.0).abs() < 0.01, "free period {measured_free} vs {free_period}");
    let impeded = shape_period(&source, dt, 900);
    let ratio = impeded / measured_free;
    eprintln!("free period {measured_free:.6e} s (lumped theory {free_period:.6e} s), impeded {impeded:.6e} s, ratio {ratio:.4}");
    assert!((ratio - 1.5).abs() <= 0.03, "impeded / free period = {ratio}");
}

#[test]
fn energy_conserving_balances_energy_with_a_hertz_contact_and_a_driving_force() {
    // The clarinet reed of Chatziioannou 2019, section 3.1 (fig. 3; w0 = 5000 pi rad/s, see
    // docs/errata.md), blown twice as hard as the paper so that it beats against the lay (Hertz
    // contact, alpha = 1.5), and started displaced so that K^0 is not 0. 10^5 steps at 44.1 kHz.
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/clarinet-reed.toml"))
            .unwrap()
            .replace("amplitude = 2000.0", "amplitude = 4000.0");
    let mut model = parse(&source, "reed.toml").unwrap().model;
    model.set_initial_position(0, &[1e-4]).unwrap();
    assert_eq!(model.barriers().len(), 1, "the reed has its lay");
    let mut balance = BalanceMonitor::new();
    let mut simulation = Engine::from_system(
        System::new(&model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::EnergyConserving).dt(1.0 / 44_100.0),
    )
    .unwrap();
    let start = energy(simulation.system(), &simulation.state()).total();
    struct PeakEnergy(f64);
    impl hooke::engine::Observer for PeakEnergy {
        fn observe(&mut self, system: &System, state: &hooke::system::State) -> std::io::Result<()> {
            self.0 = self.0.max(energy(system, state).total());
            Ok(())
        }
    }
    let mut largest = PeakEnergy(0.0);
    let mut contact_energy = 0.0f64;
    struct Contact<'a>(&'a mut f64);
    impl hooke::engine::Observer for Contact<'_> {
        fn observe(&mut self, system: &System, state: &hooke::system::State) -> std::io::Result<()> {
            *self.0 = self.0.max(energy(system, state).contact);
            Ok(())
        }
    }
    simulation
        .run(100_000, &mut [], &mut [&mut balance, &mut largest, &mut Contact(&mut contact_energy)])
        .unwrap();
    assert!(contact_energy > 0.0, "the reed reached the lay");
    let scale = largest.0;
    let exchanged = simulation.exchanged().unwrap();
    assert!(exchanged.external_work.abs() > 10.0 * start, "the drive did work");
    let k = energy(simulation.system(), &simulation.state()).total() + exchanged.dissipated
        - exchanged.external_work;
    assert!(
        (k - start).abs() < 1e-10 * scale,
        "scheme balance off by {:e} of the peak energy",
        (k - start) / scale
    );
    let (first, last) = (balance.first().unwrap(), balance.last().unwrap());
    assert!(
        (last - first).abs() < 1e-10 * scale,
        "K of eq. 54 off by {:e} of the peak energy",
        (last - first) / scale
    );
}
