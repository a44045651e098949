//! Bending elements against the physics of stiff strings, bars and plates: the stiff string's
//! partials `f_n = n f_0 sqrt(1 + B n^2)` measured by FFT after design on three schemes,
//! Euler-Bernoulli's free-free bar, Kirchhoff's simply supported plate, and the energy-conserving
//! scheme's balance with bending. Every expected number is a closed form computed here.

use crate::measure::spectral_peak;
use hooke::analysis::energy::energy;
use hooke::analysis::invariants::BalanceMonitor;
use hooke::analysis::linearise::{About, Linearisation};
use hooke::analysis::modes::{modes, state_matrix_modes, SparseCounts};
use hooke::analysis::string_partials::{design_string_partials, LossLaw, PartialsTarget};
use hooke::engine::{Engine, EngineConfig, PathKind, PickupSpec, Pickups};
use hooke::forces;
use hooke::format::model::parse;
use hooke::linalg::dense::DenseMatrix;
use hooke::model::{Anchor, BarSpec, Bending, Mass, Model, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::System;

const RATE: f64 = 44_100.0;
const FUNDAMENTAL: f64 = 110.0;

/// The spectral peaks within 2% of each `expected` frequency (Hz) of a string `s`, plucked by
/// displacing its first mass and heard at its third, over one second.
fn measured_partials(model: &Model, scheme: SchemeKind, expected: &[f64]) -> Vec<f64> {
    let mut model = model.clone();
    model.set_initial_position(0, &[1e-3]).unwrap();
    let config = EngineConfig::default().scheme(scheme).rate(RATE);
    let mut engine = Engine::new(&model, &[PickupSpec::position("s.3")], config).unwrap();
    let mut output = vec![Vec::new()];
    engine.advance(RATE as u64, &mut output).unwrap();
    expected.iter().map(|&f| spectral_peak(&output[0], RATE, 0.98 * f, 1.02 * f).0).collect()
}

#[test]
fn a_designed_stiff_string_has_the_partials_of_the_stiff_string_law_on_three_schemes() {
    let law = LossLaw::through(FUNDAMENTAL, 3.0, 3000.0, 0.5).unwrap();
    for inharmonicity in [1e-4, 1e-3] {
        let target = PartialsTarget { fundamental_hz: FUNDAMENTAL, inharmonicity, loss: Some(law) };
        let expected: Vec<f64> = (1..=10)
            .map(|n| n as f64 * FUNDAMENTAL * (1.0 + inharmonicity * (n * n) as f64).sqrt())
            .collect();
        for scheme in [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::EnergyConserving]
        {
            let design = design_string_partials(60, 1e-4, &target, scheme, 1.0 / RATE).unwrap();
            assert!(design.bending > 0.0, "{scheme}: the string is stiff");
            let measured = measured_partials(&design.model, scheme, &expected);
            let errors: Vec<f64> = measured.iter().zip(&expected).map(|(m, e)| m / e - 1.0).collect();
            let worst = errors.iter().fold(0.0f64, |w, e| w.max(e.abs()));
            eprintln!("B = {inharmonicity:e}, {scheme}: worst partial error {:.4}%", 100.0 * worst);
            for (n, error) in errors.iter().enumerate() {
                assert!(
                    error.abs() < 3e-3,
                    "B = {inharmonicity:e}, {scheme}: partial {} at {:.3} Hz, the law says {:.3} Hz ({:+.3}%)",
                    n + 1,
                    measured[n],
                    expected[n],
                    100.0 * error
                );
            }
        }
    }
}

#[test]
fn the_inharmonicity_given_to_the_generator_stretches_the_partials() {
    // Without design: a fine string (N = 199, f_0 near 30 Hz) with B = 5e-4 and no loss, on
    // symplectic Euler, where the lattice and the scheme warp the first partials by much less than
    // B stretches them.
    let inharmonicity = 5e-4;
    let mut model = Model::new(1).unwrap();
    let string = StringSpec::new("s", 199).mass(1e-5).stiffness(1440.0).inharmonicity(inharmonicity);
    model.add_string(string).unwrap();
    // The lattice's fundamental without bending: w_1^2 = (k / m) 4 sin^2(pi / 400).
    let f0 =
        (1440.0f64 / 1e-5).sqrt() * 2.0 * (std::f64::consts::PI / 400.0).sin() / (2.0 * std::f64::consts::PI);
    let expected: Vec<f64> =
        (1..=8).map(|n| n as f64 * f0 * (1.0 + inharmonicity * (n * n) as f64).sqrt()).collect();
    let harmonic_gap = expected[7] / (8.0 * f0) - 1.0;
    let measured = measured_partials(&model, SchemeKind::SymplecticEuler, &expected);
    for (n, (m, e)) in measured.iter().zip(&expected).enumerate() {
        let error = m / e - 1.0;
        assert!(error.abs() < 0.1 * harmonic_gap, "partial {}: {m:.3} Hz, the law says {e:.3} Hz", n + 1);
    }
}

#[test]
fn stiff_strings_on_the_string_bank_and_the_modal_kernel_match_the_general_path() {
    // Three strings of one length in one group's lanes: two stiff ones (different kappa) and a
    // plain one; and a stiff string of another length in a group of its own.
    let mut model = Model::new(1).unwrap();
    let strings = [("a", 40, 2.0), ("b", 40, 0.5), ("c", 40, 0.0), ("d", 25, 1.0)];
    for (id, masses, kappa) in strings {
        let mut string = StringSpec::new(id, masses).mass(1e-4).stiffness(150.0).damping(2e-4).drag(0.3);
        if kappa > 0.0 {
            string = string.bending(kappa);
        }
        model.add_string(string.pluck(0.27, 1e-3)).unwrap();
    }
    let pickups = [
        PickupSpec::position("a.3"),
        PickupSpec::velocity("b.40").channel(2),
        PickupSpec::position("c.20").channel(2),
        PickupSpec::position("d.1").weight(0.5),
    ];
    let run = |model: &Model, config: EngineConfig, path: PathKind| {
        let mut engine = Engine::new(model, &pickups, config.rate(RATE)).unwrap();
        assert_eq!(engine.path(), path);
        let mut output = vec![Vec::new(); 2];
        engine.advance(20_000, &mut output).unwrap();
        (output, engine.state())
    };
    let (general, general_state) = run(&model, EngineConfig::default().general_only(), PathKind::General);
    let peak = general.iter().flatten().fold(0.0f64, |p, x| p.max(x.abs()));
    let differences = |fast: &[Vec<f64>], general: &[Vec<f64>]| {
        fast.iter().flatten().zip(general.iter().flatten()).fold(0.0f64, |d, (a, b)| d.max((a - b).abs()))
    };
    // The string bank, and the modal kernel (each string's modes, its bending `kappa L^2`).
    for (config, path) in [
        (EngineConfig::default().without_modal(), PathKind::Strings),
        (EngineConfig::default(), PathKind::Modal),
    ] {
        let (fast, fast_state) = run(&model, config, path);
        let largest = differences(&fast, &general);
        assert!(
            peak > 0.0 && largest <= 1e-12 * peak,
            "{path:?} differs by {:e} of the peak",
            largest / peak
        );
        let moved = fast_state.x.iter().zip(&general_state.x).fold(0.0f64, |d, (a, b)| d.max((a - b).abs()));
        assert!(moved <= 1e-12 * 1e-3, "{path:?}: final positions differ by {moved:e} m");
    }
    // A bending element of weights of its own, which neither the bank nor the modal kernel
    // takes: string `a` then deviates from a uniform string at its first three masses, and the
    // coupled modal path runs it in the uniform string's modes with the deviation as forces.
    model
        .add_bending(Bending::weighted(
            vec!["a.1".into(), "a.2".into(), "a.3".into()],
            vec![1.0, -3.0, 2.0],
            1.0,
        ))
        .unwrap();
    let (general, _) = run(&model, EngineConfig::default().general_only(), PathKind::General);
    let (coupled, _) = run(&model, EngineConfig::default(), PathKind::Parts);
    let peak = general.iter().flatten().fold(0.0f64, |p, x| p.max(x.abs()));
    let largest = differences(&coupled, &general);
    assert!(
        peak > 0.0 && largest <= 1e-10 * peak,
        "the coupled path differs by {:e} of the peak",
        largest / peak
    );
}

/// The frequencies (Hz) of the vibrating modes of `model`, lowest first.
fn mode_frequencies(model: &Model) -> Vec<f64> {
    let linearisation = Linearisation::new(&System::new(model), &About::Initial).unwrap();
    let found = modes(&linearisation, SparseCounts { lowest: 12, highest: 1 }).unwrap();
    found.modes.iter().map(|m| m.frequency_hz()).filter(|&f| f > 1e-6).collect()
}

#[test]
fn a_free_bar_has_the_modes_of_euler_bernoulli() {
    // A marimba-like bar from the model format: 0.4 m of rosewood, 5 cm x 2 cm
    // (rho A = 850 * 1e-3 kg/m, E I = 1.6e10 * 0.05 * 0.02^3 / 12 N m^2), 100 masses.
    let (length, density, rigidity) = (0.4, 0.85, 1.6e10 * 0.05 * 0.02f64.powi(3) / 12.0);
    let text = format!(
        "[model]\ndimension = 1\n[[bar]]\nid = \"bar\"\nmasses = 100\nlength = {length}\n\
         linear_density = {density}\nrigidity = {rigidity}\n"
    );
    let model = parse(&text, "bar.toml").unwrap().model;
    assert_eq!((model.masses().len(), model.anchors().len()), (100, 0), "free ends");
    // (beta_n L) of the free-free beam, the roots of cos(bL) cosh(bL) = 1.
    let beta: [f64; 4] = [4.730_040_7, 7.853_204_6, 10.995_607_8, 14.137_165_5];
    let frequencies = mode_frequencies(&model);
    let euler_bernoulli =
        |n: usize| (beta[n] / length).powi(2) * (rigidity / density).sqrt() / (2.0 * std::f64::consts::PI);
    eprintln!("free bar: {:.3} Hz, Euler-Bernoulli {:.3} Hz", frequencies[0], euler_bernoulli(0));
    // docs/model-format.md quotes these bounds: the first within 1e-4, the ratios within 0.11%.
    assert!((frequencies[0] / euler_bernoulli(0) - 1.0).abs() < 1e-4, "{} Hz", frequencies[0]);
    for n in 1..4 {
        let expected = (beta[n] / beta[0]).powi(2);
        let ratio = frequencies[n] / frequencies[0];
        eprintln!("free bar mode {}: {ratio:.5}, Euler-Bernoulli {expected:.5}", n + 1);
        assert!(
            (ratio / expected - 1.0).abs() < 1.1e-3,
            "mode {}: ratio {ratio:.4}, Euler-Bernoulli {expected:.4}",
            n + 1
        );
    }
    let short = parse(
        "[model]\ndimension = 1\n[[bar]]\nid = \"b\"\nmasses = 2\nmass = 1.0\nbending = 1.0\n",
        "short.toml",
    );
    let error = short.unwrap_err().to_string();
    assert!(error.contains("short.toml:5:") && error.contains("at least 3"), "{error}");
}

/// The spectral peaks of the first two modes of a bar `model` of `masses` (even) masses struck
/// at its end: the first heard by the middle against the ends (symmetric modes), the second
/// by `a (x_1 - x_N) + b (x_k - x_{N+1-k})` with `a (N - 1) + b (N + 1 - 2k) = 0`
/// (antisymmetric modes), combinations the free motions do not reach. 0.5 s of symplectic
/// Euler at 400 kHz (the bar's stiffest mode needs a short step).
fn struck_bar_modes(model: &mut Model, masses: usize) -> (f64, f64) {
    let rate = 400_000.0;
    model.set_initial_velocity(0, &[0.1]).unwrap();
    let at = |i: usize, weight: f64, channel: usize| {
        PickupSpec::position(format!("bar.{i}")).weight(weight).channel(channel)
    };
    let (n, k) = (masses, masses / 4);
    let (a, b) = ((n + 1 - 2 * k) as f64, -((n - 1) as f64));
    let pickups = [
        at(n / 2, 1.0, 1),
        at(n / 2 + 1, 1.0, 1),
        at(1, -1.0, 1),
        at(n, -1.0, 1),
        at(1, a, 2),
        at(n, -a, 2),
        at(k, b, 2),
        at(n + 1 - k, -b, 2),
    ];
    let mut engine = Engine::new(model, &pickups, EngineConfig::default().rate(rate)).unwrap();
    let mut output = vec![Vec::new(), Vec::new()];
    engine.advance((0.5 * rate) as u64, &mut output).unwrap();
    let (first, _) = spectral_peak(&output[0], rate, 20.0, 2000.0);
    let (second, _) = spectral_peak(&output[1], rate, 2.5 * first, 4.5 * first);
    (first, second)
}

/// A free bar damped by its drag `c` and its bending elements' damping (`stiffness_damping`
/// `eta`, each element damped by `eta kappa`): the damping `c M + eta K` is classical (Rayleigh's),
/// so each mode of the undamped bar, at `w`, decays at `(c + eta w^2) / 2` and rings at
/// `sqrt(w^2 - ((c + eta w^2) / 2)^2)`: the poles of the damped bar's state matrix.
#[test]
fn a_bar_damped_in_proportion_to_its_stiffness_decays_each_mode_at_drag_plus_eta_w_squared() {
    let poles = |drag: f64, eta: f64| {
        let text = format!(
            "[model]\ndimension = 1\n[[bar]]\nid = \"bar\"\nmasses = 30\nlength = 0.4\n\
             linear_density = 0.85\nrigidity = 533.3\ndrag = {drag}\nstiffness_damping = {eta}\n"
        );
        let system = System::new(&parse(&text, "bar.toml").unwrap().model);
        let linearisation = Linearisation::new(&system, &About::Initial).unwrap();
        let modes = state_matrix_modes(&linearisation).unwrap();
        modes.into_iter().filter(|m| m.pole.im > 0.0).map(|m| m.pole).collect::<Vec<_>>()
    };
    let (drag, eta) = (1.5, 2e-8);
    let (undamped, damped) = (poles(0.0, 0.0), poles(drag, eta));
    assert_eq!((undamped.len(), damped.len()), (28, 28), "28 bending modes besides the rigid motions");
    for (n, (free, pole)) in undamped.iter().zip(&damped).enumerate().take(12) {
        let w = free.im;
        let rate = (drag + eta * w * w) / 2.0;
        let ringing = (w * w - rate * rate).sqrt();
        assert!(
            (-pole.re / rate - 1.0).abs() < 1e-4,
            "mode {}: decays at {} 1/s, not {rate}",
            n + 1,
            -pole.re
        );
        assert!(
            (pole.im / ringing - 1.0).abs() < 1e-9,
            "mode {}: rings at {} rad/s, not {ringing}",
            n + 1,
            pole.im
        );
    }
    // The twelfth mode's loss is hundreds of times the first's: the rate grows as w^2.
    assert!(-damped[11].re > 100.0 * -damped[0].re);
}

#[test]
fn an_undercut_bar_has_the_ratio_it_was_designed_for() {
    // The rosewood bar of the free-bar test, 30 masses, undercut for a marimba (1 : 4) and a
    // xylophone (1 : 3), measured by FFT of a simulation (tolerance 0.5%); uncut,
    // Euler-Bernoulli's 2.7565 (the lattice's error at 30 masses is 0.2%).
    let rigidity = 1.6e10 * 0.05 * 0.02f64.powi(3) / 12.0;
    for ratio in [None, Some(4.0), Some(3.0)] {
        let mut model = Model::new(1).unwrap();
        let mut bar = BarSpec::new("bar", 30).length(0.4).linear_density(0.85).rigidity(rigidity);
        if let Some(ratio) = ratio {
            bar = bar.undercut_ratio(ratio);
        }
        model.add_bar(bar).unwrap();
        let (first, second) = struck_bar_modes(&mut model, 30);
        let measured = second / first;
        let expected = ratio.unwrap_or((7.853_204_6f64 / 4.730_040_7).powi(2));
        eprintln!("bar undercut for {ratio:?}: f1 {first:.2} Hz, f2 {second:.2} Hz, ratio {measured:.4}");
        assert!((measured / expected - 1.0).abs() < 5e-3, "{ratio:?}: {measured}");
    }
    let mut model = Model::new(1).unwrap();
    let bar = BarSpec::new("bar", 30).mass(0.01).bending(1e4).undercut_ratio(20.0);
    let error = model.add_bar(bar).unwrap_err().to_string();
    assert!(error.contains("undercut_ratio") && error.contains("2.7"), "{error}");
}

#[test]
fn the_marimba_example_sounds_a3_with_its_second_mode_two_octaves_up() {
    // examples/marimba-bar.toml as `hooke run` plays it: its pickup over its [run], by FFT.
    let text = std::fs::read_to_string("../../examples/marimba-bar.toml").unwrap();
    let file = parse(&text, "marimba-bar.toml").unwrap();
    let run = file.run.or_defaults();
    let (dt, rate) = (run.step.seconds(), 1.0 / run.step.seconds());
    let steps = run.length.steps(dt);
    let mut engine = Engine::from_system(
        System::new(&file.model),
        file.pickups.clone(),
        EngineConfig::default().scheme(run.scheme).dt(dt),
    )
    .unwrap();
    let mut output = vec![Vec::new()];
    engine.advance(steps, &mut output).unwrap();
    for (target, name) in [(220.0, "A3"), (880.0, "A5")] {
        let (found, _) = spectral_peak(&output[0], rate, 0.9 * target, 1.1 * target);
        let cents = 1200.0 * (found / target).log2();
        eprintln!("marimba bar: {name} at {found:.3} Hz ({cents:+.2} cents)");
        assert!(cents.abs() < 1.0, "{name}: {found} Hz");
    }
}

#[test]
fn a_simply_supported_plate_has_the_modes_of_kirchhoff() {
    // Columns x rows inner masses on a square lattice, the rim anchored, and the five-point
    // Laplacian centred at each mass: w = 0 and Laplacian w = 0 on the rim (simply supported).
    let (columns, rows) = (35, 23);
    let (a, b) = ((columns + 1) as f64, (rows + 1) as f64);
    let mut model = Model::new(1).unwrap();
    let mut node = vec![vec![None; rows + 2]; columns + 2];
    for (i, column) in node.iter_mut().enumerate() {
        for (j, place) in column.iter_mut().enumerate() {
            let id = format!("p{i}.{j}");
            let rim = i == 0 || j == 0 || i == columns + 1 || j == rows + 1;
            *place = Some(if rim {
                model.add_anchor(Anchor::new(id)).unwrap()
            } else {
                model.add_mass(Mass::new(id, 1e-3)).unwrap()
            });
        }
    }
    let at = |i: usize, j: usize| node[i][j].unwrap();
    for i in 1..=columns {
        for j in 1..=rows {
            let nodes = [at(i, j), at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1)];
            let element = Bending::weighted(
                nodes.iter().map(|&n| n.into()).collect(),
                vec![-4.0, 1.0, 1.0, 1.0, 1.0],
                1e3,
            );
            model.add_bending(element).unwrap();
        }
    }
    // f_mn proportional to (m/a)^2 + (n/b)^2; the six lowest of a 36 x 24 plate.
    let mut kirchhoff: Vec<f64> =
        (1..6).flat_map(|m| (1..6).map(move |n| (m as f64 / a).powi(2) + (n as f64 / b).powi(2))).collect();
    kirchhoff.sort_by(f64::total_cmp);
    let frequencies = mode_frequencies(&model);
    for k in 1..6 {
        let (ratio, expected) = (frequencies[k] / frequencies[0], kirchhoff[k] / kirchhoff[0]);
        eprintln!("plate mode {}: {ratio:.5}, Kirchhoff {expected:.5}", k + 1);
        assert!(
            (ratio / expected - 1.0).abs() < 1e-2,
            "mode {}: ratio {ratio:.4}, Kirchhoff {expected:.4}",
            k + 1
        );
    }
}

/// A damped 2D chain of five masses with a bending element at each inner mass and one on three
/// masses with weights of its own.
fn bent_chain_2d() -> Model {
    parse(
        r#"
        [model]
        dimension = 2
        [[anchor]]
        id = "a"
        position = [0.0, 0.0]
        [[chain]]
        id = "c"
        from = "a"
        masses = 5
        mass = 0.01
        stiffness = 400.0
        damping = 0.02
        link_length = 0.1
        direction = [1.0, 0.0]
        [[bending]]
        nodes = ["a", "c.1", "c.2"]
        stiffness = 50.0
        [[bending]]
        nodes = ["c.1", "c.2", "c.3"]
        stiffness = 50.0
        [[bending]]
        nodes = ["c.3", "c.4", "c.5"]
        weights = [0.5, -1.5, 1.0]
        stiffness = 80.0
        [[initial]]
        mass = "c.5"
        displacement = [0.01, 0.03]
        "#,
        "bent.toml",
    )
    .unwrap()
    .model
}

#[test]
fn bending_forces_are_the_gradient_of_their_energy_and_the_stiffness_its_hessian() {
    let system = System::new(&bent_chain_2d());
    let mut x = system.initial_state().x;
    for (i, value) in x.iter_mut().enumerate() {
        *value += 1e-3 * ((i * 7 % 5) as f64 - 2.0);
    }
    let n = system.mass_coordinates();
    let mut force = vec![0.0; x.len()];
    forces::conservative(&system, &x, &mut force);
    let width = 1e-6;
    for c in 0..n {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[c] += width;
        down[c] -= width;
        let gradient = (forces::potential(&system, &up) - forces::potential(&system, &down)) / (2.0 * width);
        assert!((force[c] + gradient).abs() < 1e-6 * (1.0 + force[c].abs()), "coordinate {c}");
    }
    // K = -dF/dx, by central differences of the forces.
    let mut stiffness = DenseMatrix::new(n);
    forces::add_stiffness(&system, &x, 1.0, &mut stiffness);
    for c in 0..n {
        let (mut up, mut down) = (x.clone(), x.clone());
        up[c] += width;
        down[c] -= width;
        let (mut f_up, mut f_down) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        forces::conservative(&system, &up, &mut f_up);
        forces::conservative(&system, &down, &mut f_down);
        for r in 0..n {
            let column = -(f_up[r] - f_down[r]) / (2.0 * width);
            assert!((stiffness.get(r, c) - column).abs() < 1e-6 * (1.0 + column.abs()), "K[{r}][{c}]");
        }
    }
}

/// Runs `model` for 1e5 steps of the energy-conserving scheme at [`RATE`]: the relative drift
/// of its discrete balance K, and its total energy before and after, J.
pub(crate) fn energy_conserving_run(model: &Model) -> (f64, f64, f64) {
    let mut balance = BalanceMonitor::new();
    let config = EngineConfig::default().scheme(SchemeKind::EnergyConserving).rate(RATE);
    let mut engine = Engine::from_system(System::new(model), Pickups::default(), config).unwrap();
    let start = energy(engine.system(), &engine.state()).total();
    engine.run(100_000, &mut [], &mut [&mut balance]).unwrap();
    let (first, last) = (balance.first().unwrap(), balance.last().unwrap());
    (((last - first) / first).abs(), start, energy(engine.system(), &engine.state()).total())
}

#[test]
fn the_energy_conserving_scheme_balances_energy_with_bending_to_round_off() {
    let mut model = Model::new(1).unwrap();
    let string = StringSpec::new("s", 30).mass(1e-3).stiffness(2e3).damping(1e-3).drag(0.5).bending(40.0);
    model.add_string(string.pluck(0.3, 1e-3)).unwrap();
    let (drift, start, now) = energy_conserving_run(&model);
    assert!(drift < 1e-12, "K drifted by {drift:e}");
    assert!(now < 0.5 * start, "the string lost energy to damping: {now:e} of {start:e} J");
}

#[test]
fn bad_bending_elements_are_refused_with_the_place_and_the_rule() {
    let file = |element: &str| {
        format!(
            "[model]\ndimension = 1\n[[anchor]]\nid = \"a\"\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
             [[mass]]\nid = \"n\"\nmass = 1.0\n[[bending]]\n{element}\n"
        )
    };
    for (element, line, expected) in [
        ("nodes = [\"a\", \"m\"]\nstiffness = 1.0", 12, "3 to 9 nodes"),
        ("nodes = [\"a\", \"m\", \"m\"]\nstiffness = 1.0", 12, "distinct nodes"),
        ("nodes = [\"a\", \"m\", \"x\"]\nstiffness = 1.0", 12, "unknown id \"x\""),
        ("nodes = [\"a\", \"m\", \"n\"]\nweights = [1.0, -1.0, 1.0]\nstiffness = 1.0", 13, "sum to 0"),
        ("nodes = [\"a\", \"m\", \"n\"]\nweights = [1.0, -1.0]\nstiffness = 1.0", 13, "3 weights"),
        ("nodes = [\"a\", \"m\", \"n\"]\nstiffness = -1.0", 13, "stiffness"),
    ] {
        let error = parse(&file(element), "bad.toml").unwrap_err().to_string();
        assert!(error.contains(&format!("bad.toml:{line}:")), "{element}: {error}");
        assert!(error.contains(expected), "{element}: {error}");
    }
    let string = "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 3\nmass = 1.0\nstiffness = 1.0\n\
                  bending = 1.0\ninharmonicity = 1e-4\n";
    let error = parse(string, "stiff.toml").unwrap_err().to_string();
    assert!(error.contains("stiff.toml:9:") && error.contains("one of bending, inharmonicity"), "{error}");
}
