//! The modal kernel (`kernel::modal`): every scheme on uniform strings (side by side, stiff or
//! not) and on a uniform membrane (f64), mode by mode. Checked against the general path (the
//! scheme itself on the edge lists, within 1e-12 of the peak, with plucks, pushes, a bow,
//! anchors off zero and pickups shared between channels) and against the schemes' own
//! invariants measured on the kernel's states: the energy-conserving scheme keeps a lossless
//! string's energy, velocity Verlet, the energy-conserving scheme and the midpoint rule run
//! backwards to their start, and Caldirola-Kanai contracts the area of a mode's phase plane by
//! `e^{-gamma t}` (Chatziioannou 2019, eq. (20)), as the physics does. A tension or damping set
//! and a damper on a whole string are taken in place (retuned: symplectic Euler's step in closed
//! form, which equals the step the analysis measures on the scheme) and run as the general path
//! runs them.

use hooke::analysis::discrete::{mode_steps, symplectic_euler_mode_step, Oscillator};
use hooke::analysis::energy::energy;
use hooke::engine::excitation::{Bow, Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PathKind, PickupSpec};
use hooke::model::{Anchor, Bending, Mass, MembraneSpec, Model, Spring, StringSpec};
use hooke::scheme::SchemeKind;

/// A 40-mass chain with dampers and drag, its anchors at 1 mm and -0.5 mm, under gravity, one
/// mass displaced: every constant force the kernel carries.
fn string_model() -> Model {
    let mut model = Model::new(1).unwrap();
    model.set_gravity(&[-9.81]).unwrap();
    let left = model.add_anchor(Anchor::new("left").position([1e-3])).unwrap();
    let masses: Vec<_> =
        (0..40).map(|i| model.add_mass(Mass::new(format!("m{i}"), 1e-3).drag(3.0)).unwrap()).collect();
    let right = model.add_anchor(Anchor::new("right").position([-5e-4])).unwrap();
    let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
    for pair in nodes.windows(2) {
        model.add_spring(Spring::new(pair[0], pair[1], 2e5).damping(2e-3)).unwrap();
    }
    model.set_initial_position(11, &[1e-3]).unwrap();
    model
}

/// Three strings side by side, each its own body of modes: `a`, 40 masses with its anchors at
/// 1 mm and -0.5 mm, dampers and bending (whose curvature at the ends reaches the anchors, a
/// constant force); `b`, 7 heavier masses with drag and no damper; `c`, 25 light stiff masses.
/// Under gravity, two masses moving.
fn strings_model() -> Model {
    strings_pulled(true)
}

/// [`strings_model`], `pulled` by gravity and its anchors off zero, or not (every constant
/// force zero).
fn strings_pulled(pulled: bool) -> Model {
    let mut model = Model::new(1).unwrap();
    if pulled {
        model.set_gravity(&[-9.81]).unwrap();
    }
    let strings = [
        ("a", 40, 1e-3, Some(2e-3), 3.0, 5e3, [1e-3, -5e-4]),
        ("b", 7, 4e-3, None, 1.0, 0.0, [0.0, 2e-4]),
        ("c", 25, 5e-4, Some(1e-3), 0.0, 2e3, [0.0; 2]),
    ];
    for (name, n, mass, damping, drag, kappa, ends) in strings {
        let ends = if pulled { ends } else { [0.0; 2] };
        let left = model.add_anchor(Anchor::new(format!("{name}_nut")).position([ends[0]])).unwrap();
        let masses = (0..n)
            .map(|i| model.add_mass(Mass::new(format!("{name}{i}"), mass).drag(drag)).unwrap())
            .collect::<Vec<_>>();
        let right = model.add_anchor(Anchor::new(format!("{name}_bridge")).position([ends[1]])).unwrap();
        let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
        for pair in nodes.windows(2) {
            let spring = Spring::new(pair[0], pair[1], 2e5 * mass / 1e-3);
            model.add_spring(damping.map_or(spring.clone(), |z| spring.damping(z))).unwrap();
        }
        if kappa > 0.0 {
            for triple in nodes.windows(3) {
                model.add_bending(Bending::new(triple[0], triple[1], triple[2], kappa)).unwrap();
            }
        }
    }
    model.set_initial_position(11, &[1e-3]).unwrap();
    model.set_initial_velocity(44, &[0.1]).unwrap();
    model
}

/// A struck 9 x 7 membrane with dampers along both sides.
fn membrane_model() -> Model {
    let mut model = Model::new(1).unwrap();
    let spec = MembraneSpec {
        mass: Some(2e-3),
        stiffness: Some(3e4),
        damping: Some(1e-3),
        drag: 2.0,
        ..MembraneSpec::new("m", 9, 7)
    };
    model.add_membrane(spec).unwrap();
    model.set_initial_position(20, &[1e-3]).unwrap();
    model.set_initial_velocity(31, &[-0.2]).unwrap();
    model
}

/// Where a run listens and acts: its pickups (two channels), and the masses of its pulse, its
/// motion change and its bow.
struct Probe {
    pickups: Vec<PickupSpec>,
    pulse: usize,
    motion: usize,
    bow: usize,
}

/// The probe of a model of `masses` masses: the chain's and the membrane's, or (72 masses) the
/// strings', whose pickups read two strings, one of them on both channels with other weights
/// (as a panned string is heard).
fn probe(masses: usize) -> Probe {
    match masses {
        40 => Probe {
            pickups: vec![PickupSpec::position("m12"), PickupSpec::velocity("m25").channel(2)],
            pulse: 5,
            motion: 30,
            bow: 17,
        },
        72 => Probe {
            pickups: vec![
                PickupSpec::position("a12").weight(0.8),
                PickupSpec::velocity("a39"),
                PickupSpec::position("a12").channel(2).weight(0.3),
                PickupSpec::position("c20").channel(2),
            ],
            pulse: 60,
            motion: 44,
            bow: 17,
        },
        _ => Probe {
            pickups: vec![PickupSpec::position("m.4.2"), PickupSpec::velocity("m.7.3").channel(2)],
            pulse: 5,
            motion: 30,
            bow: 17,
        },
    }
}

/// Runs `model` with `scheme` for `steps` steps at 48 kHz on the kernels or the general path,
/// with a pulse, a motion change and a bow scheduled inside the run (see [`probe`]); the two
/// channels' samples and the path that ran the first block.
fn run(model: &Model, scheme: SchemeKind, kernels: bool, steps: u64) -> (Vec<Vec<f64>>, PathKind) {
    let probe = probe(model.masses().len());
    let mut config = EngineConfig::default().scheme(scheme).rate(48_000.0);
    if !kernels {
        config = config.general_only();
    }
    let mut engine = Engine::new(model, &probe.pickups, config).unwrap();
    let path = engine.path();
    let pulse = Pulse { coordinate: probe.pulse, peak: 0.3, duration: 3e-4 };
    engine.schedule(700, Event::Excite(Excitation::Pulse(pulse))).unwrap();
    engine
        .schedule(1500, Event::Motion { coordinate: probe.motion, position: -2e-4, velocity: 0.1 })
        .unwrap();
    // A bow reads its mass's free force at every step (the kernel's own, from the modes).
    let bow = Bow { coordinate: probe.bow, velocity: 0.05, force: 0.2, sharpness: 100.0, duration: 0.02 };
    engine.schedule(2500, Event::Excite(Excitation::Bow(bow))).unwrap();
    let mut output = vec![Vec::new(); 2];
    engine.advance(steps, &mut output).unwrap();
    (output, path)
}

/// The largest difference between two recordings, relative to the peak of the second.
fn relative_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut worst = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        let peak = y.iter().fold(0.0f64, |p, v| p.max(v.abs()));
        worst = worst.max(x.iter().zip(y).fold(0.0f64, |d, (p, q)| d.max((p - q).abs())) / peak);
    }
    worst
}

#[test]
fn every_scheme_on_the_modal_kernel_equals_the_general_path() {
    for (name, model) in
        [("string", string_model()), ("strings", strings_model()), ("membrane", membrane_model())]
    {
        for scheme in SchemeKind::ALL {
            let (kernel, path) = run(&model, scheme, true, 4000);
            let (general, general_path) = run(&model, scheme, false, 4000);
            assert_eq!(path, PathKind::Modal, "{name}, {scheme}");
            assert_eq!(general_path, PathKind::General);
            assert_eq!(kernel[0].len(), 4000);
            let difference = relative_difference(&kernel, &general);
            // The general path's exact step multiplies the state by the exponential of the whole
            // system's matrix (2 n coordinates), rounded at up to 2 n epsilon a step, which adds
            // up over the run; the kernel's exponentials are each mode's, 2 x 2.
            let coordinates = 2.0 * model.masses().len() as f64;
            let bound = if scheme == SchemeKind::Exact { 4000.0 * coordinates * f64::EPSILON } else { 1e-12 };
            assert!(difference < bound, "{name}, {scheme}: {difference:e} of the peak");
        }
    }
}

/// A lossless 30-mass string plucked at 0.2 of its length.
fn lossless_string() -> Model {
    let mut model = Model::new(1).unwrap();
    let spec = StringSpec::new("s", 30).mass(1e-3).stiffness(1e5).pluck(0.2, 1e-3);
    model.add_string(spec).unwrap();
    model
}

#[test]
fn the_energy_conserving_scheme_keeps_a_lossless_strings_energy_on_the_kernel() {
    let model = lossless_string();
    let config = EngineConfig::default().scheme(SchemeKind::EnergyConserving).rate(44_100.0);
    let mut engine = Engine::new(&model, &[PickupSpec::position("s.8")], config).unwrap();
    assert_eq!(engine.path(), PathKind::Modal);
    let start = energy(engine.system(), &engine.state()).total();
    let mut output = vec![Vec::new()];
    for _ in 0..10 {
        engine.advance(3001, &mut output).unwrap();
        let now = energy(engine.system(), &engine.state()).total();
        // Measured: -1.06e-12 after 30 010 steps (the modes' coefficients carry the rounding
        // of one measured step); a scheme that did not conserve energy drifts by far more.
        assert!(((now - start) / start).abs() < 1e-11, "drift {:e}", (now - start) / start);
    }
}

#[test]
fn symmetric_schemes_run_backwards_to_their_start_on_the_kernel() {
    let model = lossless_string();
    for scheme in [SchemeKind::VelocityVerlet, SchemeKind::EnergyConserving, SchemeKind::Midpoint] {
        let config = EngineConfig::default().scheme(scheme).rate(44_100.0);
        let mut engine = Engine::new(&model, &[PickupSpec::position("s.8")], config).unwrap();
        let start = engine.state();
        let mut output = vec![Vec::new()];
        engine.advance(5000, &mut output).unwrap();
        assert_eq!(engine.path(), PathKind::Modal);
        // Reverse every velocity in place: the kernel takes motion without a rebuild.
        let now = engine.state();
        for mass in 0..30 {
            let event = Event::Motion { coordinate: mass, position: now.x[mass], velocity: -now.v[mass] };
            engine.apply(event).unwrap();
        }
        assert_eq!(engine.path(), PathKind::Modal);
        engine.advance(5000, &mut output).unwrap();
        let back = engine.state();
        for mass in 0..30 {
            assert!((back.x[mass] - start.x[mass]).abs() < 1e-14, "{scheme}: mass {mass} position");
            assert!((back.v[mass] + start.v[mass]).abs() < 1e-9, "{scheme}: mass {mass} velocity");
        }
    }
}

#[test]
fn caldirola_kanai_contracts_each_modes_phase_plane_as_the_physics_does() {
    // Drag only (gamma = c / m = 40 1/s): the damped flow contracts areas by e^{-gamma t}.
    let (n, m, gamma, steps, h) = (20usize, 1e-3, 40.0, 2000u64, 1.0 / 44_100.0);
    let shape = |mode: usize| -> Vec<f64> {
        let scale = (2.0 / (n as f64 + 1.0)).sqrt();
        (0..n)
            .map(|i| scale * (std::f64::consts::PI * ((mode + 1) * (i + 1)) as f64 / (n as f64 + 1.0)).sin())
            .collect()
    };
    for mode in [0, 7, 19] {
        let phi = shape(mode);
        let mut columns = Vec::new();
        for (x, v) in [(1e-3, 0.0), (0.0, 1.0)] {
            let mut model = Model::new(1).unwrap();
            let spec = StringSpec { drag: gamma, ..StringSpec::new("s", n).mass(m).stiffness(1e5) };
            model.add_string(spec).unwrap();
            for (i, &value) in phi.iter().enumerate() {
                model.set_initial_position(i, &[x * value]).unwrap();
                model.set_initial_velocity(i, &[v * value]).unwrap();
            }
            let config = EngineConfig::default().scheme(SchemeKind::CaldirolaKanai).dt(h);
            let mut engine = Engine::new(&model, &[PickupSpec::position("s.1")], config).unwrap();
            assert_eq!(engine.path(), PathKind::Modal);
            engine.advance(steps, &mut [Vec::new()]).unwrap();
            let state = engine.state();
            let project = |values: &[f64]| values[..n].iter().zip(&phi).map(|(a, b)| a * b).sum::<f64>();
            columns.push((project(&state.x) / (x + v), project(&state.v) / (x + v)));
        }
        let area = columns[0].0 * columns[1].1 - columns[1].0 * columns[0].1;
        let expected = (-gamma * steps as f64 * h).exp();
        assert!((area / expected - 1.0).abs() < 1e-9, "mode {mode}: area {area} for {expected}");
    }
}

#[test]
fn a_change_that_leaves_the_strings_as_they_were_keeps_the_modal_kernel() {
    let model = strings_model();
    let config = EngineConfig::default().rate(48_000.0);
    let mut engine = Engine::new(&model, &probe(72).pickups, config).unwrap();
    assert_eq!(engine.path(), PathKind::Modal);
    // A performance sets every link and drag again: string a's first link (nut to a0, masses
    // numbered first: a0 is 0, the nut 72) and a drag (`gamma m`, N s/m) as they are.
    let nut = 72;
    engine.apply(Event::Link { a: nut, b: 0, stiffness: 2e5, damping: 2e-3 }).unwrap();
    engine.apply(Event::Drag { mass: 3, drag: 3.0 * 1e-3 }).unwrap();
    engine.apply(Event::Stop { mass: 3, stopped: false }).unwrap();
    // The changes are taken at the next block boundary.
    let mut output = vec![Vec::new(); engine.channels()];
    engine.advance(1, &mut output).unwrap();
    assert_eq!(engine.path(), PathKind::Modal);
    // A link or a drag that differs makes string a non-uniform: the coupled modal path takes
    // over (string a deviates from the uniform string at one mass; the string bank takes no
    // gravity), at the next block.
    engine.apply(Event::Drag { mass: 3, drag: 4.0 * 1e-3 }).unwrap();
    engine.advance(1, &mut output).unwrap();
    assert_eq!(engine.path(), PathKind::Parts);
}

#[test]
fn many_small_strings_heard_together_equal_the_general_path() {
    // Twelve 3-mass strings of different tunings mixed into one channel (the kernel reads one
    // signal over every mode then) and two of them alone on a second.
    let mut model = Model::new(1).unwrap();
    let mut pickups = Vec::new();
    for voice in 0..12 {
        let id = format!("v{voice}");
        let spec =
            StringSpec::new(&id, 3).mass(1e-3).stiffness(1e5 * (1.0 + 0.1 * voice as f64)).damping(1e-3);
        model.add_string(spec.pluck(0.4, 1e-3 * (1.0 + voice as f64))).unwrap();
        pickups.push(PickupSpec::position(format!("{id}.2").as_str()).weight(1.0 + 0.5 * voice as f64));
    }
    pickups.push(PickupSpec::velocity("v3.1").channel(2));
    pickups.push(PickupSpec::position("v9.3").channel(2));
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::CaldirolaKanai] {
        let render = |config: EngineConfig| {
            let mut engine = Engine::new(&model, &pickups, config.scheme(scheme).rate(48_000.0)).unwrap();
            let path = engine.path();
            let mut output = vec![Vec::new(); 2];
            engine.advance(3000, &mut output).unwrap();
            (output, path)
        };
        let ((kernel, path), (general, _)) =
            (render(EngineConfig::default()), render(EngineConfig::default().general_only()));
        assert_eq!(path, PathKind::Modal, "{scheme}");
        let difference = relative_difference(&kernel, &general);
        assert!(difference < 1e-12, "{scheme}: {difference:e} of the peak");
    }
}

#[test]
fn symplectic_eulers_mode_step_in_closed_form_is_the_one_measured_on_the_scheme() {
    let h = 1.0 / 48_000.0;
    let oscillators: Vec<Oscillator> = [(0.0, 0.0), (1e6, 0.0), (4e8, 3.0), (3.9e9, 120.0), (9e8, 2000.0)]
        .map(|(omega0_squared, gamma)| Oscillator { omega0_squared, gamma })
        .to_vec();
    let masses = vec![2e-3; oscillators.len()];
    let measured = mode_steps(SchemeKind::SymplecticEuler, &oscillators, &masses, h).unwrap();
    for ((oscillator, &m), measured) in oscillators.iter().zip(&masses).zip(&measured) {
        let closed = symplectic_euler_mode_step(*oscillator, m, h);
        let pairs = [
            (closed.matrix[0][0], measured.matrix[0][0]),
            (closed.matrix[0][1], measured.matrix[0][1]),
            (closed.matrix[1][0], measured.matrix[1][0]),
            (closed.matrix[1][1], measured.matrix[1][1]),
            (closed.constant_force[0], measured.constant_force[0]),
            (closed.constant_force[1], measured.constant_force[1]),
            (closed.held_force[0], measured.held_force[0]),
            (closed.held_force[1], measured.held_force[1]),
            (closed.stiffness, measured.stiffness),
            (closed.damping, measured.damping),
        ];
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1e-300),
                "{oscillator:?}, entry {i}: {a} against {b}"
            );
        }
    }
}

/// Runs `model` with symplectic Euler at 48 kHz for 3000 steps in blocks of `block`, on the
/// kernels or the general path: at step 800 every link's stiffness times 1.3 and damping times
/// 2 (a tension and a damping set), at step 1700 a drag of 5 m N s/m on every mass of the
/// first `dragged` masses (a damper); with the pulse of [`probe`] at step 300. The two channels
/// and the paths that ran after each change.
fn retuned(model: &Model, kernels: bool, block: u64, dragged: usize) -> (Vec<Vec<f64>>, [PathKind; 2]) {
    let probe = probe(model.masses().len());
    let mut config = EngineConfig::default().scheme(SchemeKind::SymplecticEuler).rate(48_000.0);
    if !kernels {
        config = config.general_only();
    }
    let mut engine = Engine::new(model, &probe.pickups, config).unwrap();
    let pulse = Pulse { coordinate: probe.pulse, peak: 0.3, duration: 3e-4 };
    engine.schedule(300, Event::Excite(Excitation::Pulse(pulse))).unwrap();
    let mut output = vec![Vec::new(); 2];
    let mut paths = [None; 2];
    let mut step = 0;
    while step < 3000 {
        if step == 800 {
            let (springs, dampers) = (engine.system().springs().clone(), engine.system().dampers().clone());
            for s in 0..springs.coefficient.len() {
                let (a, b) = (springs.a[s] as usize, springs.b[s] as usize);
                let damper = (0..dampers.coefficient.len())
                    .find(|&d| (dampers.a[d] as usize, dampers.b[d] as usize) == (a, b))
                    .map_or(0.0, |d| dampers.coefficient[d]);
                let (stiffness, damping) = (1.3 * springs.coefficient[s], 2.0 * damper);
                engine.apply(Event::Link { a, b, stiffness, damping }).unwrap();
            }
        }
        if step == 1700 {
            for mass in 0..dragged {
                engine.apply(Event::Drag { mass, drag: 5e-3 }).unwrap();
            }
        }
        let next = [800, 1700, 3000].into_iter().find(|&at| at > step).unwrap_or(3000);
        let run = block.min(next - step);
        engine.advance(run, &mut output).unwrap();
        step += run;
        for (path, at) in paths.iter_mut().zip([800, 1700]) {
            if step > at && path.is_none() {
                *path = Some(engine.path());
            }
        }
    }
    (output, paths.map(|path| path.expect("a path after each change")))
}

#[test]
fn a_tension_and_a_damping_set_and_a_damper_stay_on_the_modal_kernel_as_the_general_path_runs_them() {
    // The membrane retuned whole; the strings (no constant force: it would move with the
    // stiffness), each retuned, then string a (masses 0 to 39) damped.
    for (model, dragged, what) in [(membrane_model(), 63, "membrane"), (strings_pulled(false), 40, "strings")]
    {
        let (general, _) = retuned(&model, false, 4096, dragged);
        for block in [1, 64, 4096] {
            let (kernel, paths) = retuned(&model, true, block, dragged);
            assert_eq!(paths, [PathKind::Modal; 2], "{what}, blocks of {block}");
            let difference = relative_difference(&kernel, &general);
            eprintln!("{what}, blocks of {block}: {difference:.2e} of the peak");
            assert!(difference < 1e-9, "{what}, blocks of {block}: {difference:e} of the peak");
        }
    }
}
