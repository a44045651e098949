//! A mode damping (`[[string]] mode_damping`, `model::ModeDamping`) on the paths that run it,
//! against independent computations: a uniform string whose damping is diagonal in its sine
//! modes moves each mode as a lone oscillator `x'' + gamma_j x' + w_j^2 x = 0`, so the string
//! started in one mode, simulated by any scheme, must project on that mode exactly as a single
//! mass on a spring `w_j^2` with drag `gamma_j`, simulated by the same scheme, moves (a model
//! with no mode damping at all). The sine modes and `w_j^2 = (k / m) 4 sin^2(j pi / (2 (N +
//! 1)))` are computed here.

use hooke::engine::{Engine, EngineConfig, PathKind, PickupSpec};
use hooke::model::{Anchor, Mass, Model, Spring, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::run_rates;
use std::f64::consts::PI;

const MASSES: usize = 12;
const MASS: f64 = 1e-3;
const STIFFNESS: f64 = 4e4;
const RATE: f64 = 48_000.0;
const STEPS: u64 = 3000;

/// A rate per mode that no two-parameter law gives: growing with the mode number, with a bump.
fn rates() -> Vec<f64> {
    (1..=MASSES).map(|j| 3.0 + 40.0 * j as f64 + if j == 5 { 400.0 } else { 0.0 }).collect()
}

/// Mode `j` (1-based) of the string, orthonormal: `sqrt(2 / (N + 1)) sin(i j pi / (N + 1))`.
fn mode(j: usize) -> Vec<f64> {
    let scale = (2.0 / (MASSES + 1) as f64).sqrt();
    (1..=MASSES).map(|i| scale * (PI * (i * j) as f64 / (MASSES + 1) as f64).sin()).collect()
}

/// The projection on mode `j` of `values` (the masses' positions or velocities).
fn project(values: &[f64], j: usize) -> f64 {
    mode(j).iter().zip(values).map(|(s, x)| s * x).sum()
}

/// The masses' positions and velocities after a step.
type Motion = (Vec<f64>, Vec<f64>);

/// [`STEPS`] steps of `model` with `scheme` (on the general path, or where the engine chooses);
/// each step's motion of the masses, and the path.
fn simulate(model: &Model, scheme: SchemeKind, general: bool) -> (Vec<Motion>, PathKind) {
    let mut config = EngineConfig::default().scheme(scheme).rate(RATE);
    if general {
        config = config.general_only();
    }
    let pickup = PickupSpec::position(model.masses()[0].id.as_str());
    let mut engine = Engine::new(model, &[pickup], config).unwrap();
    let count = model.masses().len();
    let mut states = Vec::new();
    let mut output = vec![Vec::new()];
    for _ in 0..STEPS {
        engine.advance(1, &mut output).unwrap();
        let state = engine.state();
        states.push((state.x[..count].to_vec(), state.v[..count].to_vec()));
    }
    (states, engine.path())
}

/// The string started in mode `j` with amplitude `a` (m) and velocity `b` (m/s).
fn string_in_mode(j: usize, a: f64, b: f64) -> Model {
    let mut model = Model::new(1).unwrap();
    let spec = StringSpec::new("s", MASSES).mass(MASS).stiffness(STIFFNESS).mode_damping(rates());
    model.add_string(spec).unwrap();
    for (i, s) in mode(j).into_iter().enumerate() {
        model.set_initial_position(i, &[a * s]).unwrap();
        model.set_initial_velocity(i, &[b * s]).unwrap();
    }
    model
}

/// One mass on a spring to an anchor with drag: `x'' + gamma x' + w^2 x = 0`.
fn oscillator(omega_squared: f64, gamma: f64, a: f64, b: f64) -> Model {
    let mut model = Model::new(1).unwrap();
    let mass = model.add_mass(Mass::new("x", 1.0).position([a]).velocity([b]).drag(gamma)).unwrap();
    let anchor = model.add_anchor(Anchor::new("ground")).unwrap();
    model.add_spring(Spring::new(mass, anchor, omega_squared)).unwrap();
    model
}

#[test]
fn each_mode_of_a_mode_damped_string_moves_as_its_own_oscillator_on_every_scheme() {
    let lambda = |j: usize| 4.0 * (0.5 * PI * j as f64 / (MASSES + 1) as f64).sin().powi(2);
    // Forward Euler gains energy on every undamped oscillator: the other modes, started at the
    // rounding of the projection, would grow out of it.
    for scheme in SchemeKind::ALL.into_iter().filter(|&s| s != SchemeKind::ForwardEuler) {
        for j in [1, 5, MASSES] {
            let (a, b) = (1e-3, 0.3);
            let (string, _) = simulate(&string_in_mode(j, a, b), scheme, true);
            let omega_squared = STIFFNESS / MASS * lambda(j);
            let (alone, _) = simulate(&oscillator(omega_squared, rates()[j - 1], a, b), scheme, true);
            let peak = alone.iter().fold(0.0f64, |p, (x, _)| p.max(x[0].abs()));
            let worst = string
                .iter()
                .zip(&alone)
                .map(|((x, _), (y, _))| (project(x, j) - y[0]).abs())
                .fold(0.0f64, f64::max);
            // And nothing leaks into the other modes.
            let leak = string
                .iter()
                .flat_map(|(x, _)| (1..=MASSES).filter(|&k| k != j).map(move |k| project(x, k).abs()))
                .fold(0.0f64, f64::max);
            assert!(
                worst < 1e-9 * peak && leak < 1e-9 * peak,
                "{scheme}, mode {j}: the string's mode differs from the oscillator by {worst:e} (peak {peak:e}), \
                 the other modes reach {leak:e}"
            );
        }
    }
}

#[test]
fn the_coupled_modal_path_runs_a_mode_damped_string_as_the_general_path() {
    // A string plucked near one end (every mode) on a bridge mass (a hub the strings share).
    let mut model = Model::new(1).unwrap();
    let bridge = model.add_mass(Mass::new("bridge", 0.05)).unwrap();
    let ground = model.add_anchor(Anchor::new("ground")).unwrap();
    model.add_spring(Spring::new(bridge, ground, 2e5).damping(3.0)).unwrap();
    for name in ["a", "b"] {
        let spec =
            StringSpec::new(name, MASSES).mass(MASS).stiffness(STIFFNESS).mode_damping(rates()).to("bridge");
        model.add_string(spec).unwrap();
    }
    model.set_initial_position(2, &[1e-3]).unwrap();
    let (general, general_path) = simulate(&model, SchemeKind::SymplecticEuler, true);
    let (coupled, path) = simulate(&model, SchemeKind::SymplecticEuler, false);
    assert_eq!((general_path, path), (PathKind::General, PathKind::Parts));
    let peak = general.iter().flat_map(|(x, _)| x).fold(0.0f64, |p, x| p.max(x.abs()));
    let worst = general
        .iter()
        .zip(&coupled)
        .flat_map(|((x, _), (y, _))| x.iter().zip(y))
        .fold(0.0f64, |d, (x, y)| d.max((x - y).abs()));
    assert!(worst < 1e-10 * peak, "the paths differ by {worst:e} of a peak of {peak:e}");
}

#[test]
fn a_run_between_stops_takes_the_whole_strings_rate_at_its_own_wavenumbers() {
    let whole = rates();
    // The whole string keeps its rates exactly.
    assert_eq!(run_rates(&whole, MASSES), whole);
    // A run of n masses: mode j sits at the wavenumber j pi / (n + 1), which is the whole
    // string's mode u = j (N + 1) / (n + 1); the rates of rates() are linear in u but for the
    // bump at 5, so between modes not next to 5 the run's rate is 3 + 40 u.
    let n = 5;
    for (j, rate) in run_rates(&whole, n).into_iter().enumerate() {
        let u = (j + 1) as f64 * (MASSES + 1) as f64 / (n + 1) as f64;
        if (u - 5.0).abs() >= 1.0 {
            let expected = 3.0 + 40.0 * u.clamp(1.0, MASSES as f64);
            assert!(
                (rate - expected).abs() < 1e-12 * expected,
                "mode {} of {n}: {rate}, expected {expected}",
                j + 1
            );
        }
    }
    // One mass: the middle of the band.
    let middle = run_rates(&whole, 1)[0];
    assert!((middle - (3.0 + 40.0 * 6.5)).abs() < 1e-12, "{middle}");
}

#[test]
fn a_mode_damping_that_does_not_fit_its_string_is_refused_naming_the_field() {
    let refused = |rates: Vec<f64>| {
        let mut model = Model::new(1).unwrap();
        let spec = StringSpec::new("s", 4).mass(MASS).stiffness(STIFFNESS).mode_damping(rates);
        model.add_string(spec).unwrap_err().to_string()
    };
    let count = refused(vec![1.0; 3]);
    assert!(count.contains("mode_damping") && count.contains("4 rates") && count.contains('3'), "{count}");
    let negative = refused(vec![1.0, -2.0, 1.0, 1.0]);
    assert!(negative.contains("mode_damping") && negative.contains("-2"), "{negative}");
    let infinite = refused(vec![1.0, f64::INFINITY, 1.0, 1.0]);
    assert!(infinite.contains("mode_damping"), "{infinite}");
    // Nothing of the refused string is left in the model.
    let mut model = Model::new(1).unwrap();
    let spec = StringSpec::new("s", 4).mass(MASS).stiffness(STIFFNESS).mode_damping(vec![1.0; 5]);
    assert!(model.add_string(spec).is_err());
    assert!(model.masses().is_empty() && model.anchors().is_empty());
    // Too many masses for a dense matrix.
    let too_many = hooke::limits::MAX_MODE_DAMPING_MASSES + 1;
    let spec =
        StringSpec::new("s", too_many).mass(MASS).stiffness(STIFFNESS).mode_damping(vec![1.0; too_many]);
    let error = Model::new(1).unwrap().add_string(spec).unwrap_err().to_string();
    assert!(error.contains("1 to 512 masses"), "{error}");
}

#[test]
fn a_model_file_gives_a_string_its_mode_damping_and_a_wrong_count_is_located() {
    let text = |rates: &str| {
        format!(
            "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 3\nmass = 1e-3\nstiffness = 4e4\n\
             mode_damping = {rates}\n"
        )
    };
    let file = hooke::format::model::parse(&text("[1.0, 2.0, 3.0]"), "string.toml").unwrap();
    assert_eq!(file.model.mode_dampings()[0].rates, [1.0, 2.0, 3.0]);
    let error = hooke::format::model::parse(&text("[1.0, 2.0]"), "string.toml").unwrap_err().to_string();
    assert!(
        error.contains("string.toml") && error.contains("mode_damping") && error.contains("3 rates"),
        "{error}"
    );
}

#[test]
fn a_stop_leaves_the_run_after_it_damped_in_its_own_modes() {
    // Mass 4 of 12 stopped: masses 5-12 are a string of 8 with fixed ends (the stop, the
    // anchor); started in its mode 3, it moves as the oscillator of that mode with the rate
    // `run_rates` gives, on the general and on the coupled modal path.
    let (stop, run, j) = (3, MASSES - 4, 3);
    let scale = (2.0 / (run + 1) as f64).sqrt();
    let shape: Vec<f64> = (1..=run).map(|i| scale * (PI * (i * j) as f64 / (run + 1) as f64).sin()).collect();
    let (a, b) = (1e-3, 0.2);
    let mut model = Model::new(1).unwrap();
    let spec = StringSpec::new("s", MASSES).mass(MASS).stiffness(STIFFNESS).mode_damping(rates());
    model.add_string(spec).unwrap();
    for (i, s) in shape.iter().enumerate() {
        model.set_initial_position(stop + 1 + i, &[a * s]).unwrap();
        model.set_initial_velocity(stop + 1 + i, &[b * s]).unwrap();
    }
    let lambda = 4.0 * (0.5 * PI * j as f64 / (run + 1) as f64).sin().powi(2);
    let gamma = run_rates(&rates(), run)[j - 1];
    let (alone, _) =
        simulate(&oscillator(STIFFNESS / MASS * lambda, gamma, a, b), SchemeKind::SymplecticEuler, true);
    let peak = alone.iter().fold(0.0f64, |p, (x, _)| p.max(x[0].abs()));
    for general in [true, false] {
        let mut config = EngineConfig::default().scheme(SchemeKind::SymplecticEuler).rate(RATE);
        if general {
            config = config.general_only();
        }
        let mut engine = Engine::new(&model, &[PickupSpec::position("s.1")], config).unwrap();
        engine.apply(hooke::engine::Event::Stop { mass: stop, stopped: true }).unwrap();
        let mut output = vec![Vec::new()];
        let mut worst = 0.0f64;
        for (y, _) in &alone {
            engine.advance(1, &mut output).unwrap();
            let x = engine.state().x;
            let q: f64 = shape.iter().zip(&x[stop + 1..=stop + run]).map(|(s, x)| s * x).sum();
            worst = worst.max((q - y[0]).abs());
        }
        assert_eq!(engine.path(), if general { PathKind::General } else { PathKind::Parts });
        assert!(worst < 1e-9 * peak, "general path {general}: differs by {worst:e} of {peak:e}");
    }
}

#[test]
fn an_event_scales_every_rate_of_a_strings_mode_damping() {
    // The score's and the plugin's `damping` factor on a string damped mode by mode.
    let (j, a, b, scale) = (5, 1e-3, 0.3, 2.5);
    let lambda = 4.0 * (0.5 * PI * j as f64 / (MASSES + 1) as f64).sin().powi(2);
    let gamma = scale * rates()[j - 1];
    let (alone, _) =
        simulate(&oscillator(STIFFNESS / MASS * lambda, gamma, a, b), SchemeKind::Midpoint, true);
    let peak = alone.iter().fold(0.0f64, |p, (x, _)| p.max(x[0].abs()));
    let config = EngineConfig::default().scheme(SchemeKind::Midpoint).rate(RATE);
    let mut engine = Engine::new(&string_in_mode(j, a, b), &[PickupSpec::position("s.1")], config).unwrap();
    engine.apply(hooke::engine::Event::ModeDamping { mass: 7, scale }).unwrap();
    let refused = engine.apply(hooke::engine::Event::ModeDamping { mass: 7, scale: -1.0 }).unwrap_err();
    assert!(refused.to_string().contains("scale"), "{refused}");
    let mut output = vec![Vec::new()];
    let mut worst = 0.0f64;
    for (y, _) in &alone {
        engine.advance(1, &mut output).unwrap();
        worst = worst.max((project(&engine.state().x[..MASSES], j) - y[0]).abs());
    }
    assert!(worst < 1e-9 * peak, "differs by {worst:e} of {peak:e}");
}
