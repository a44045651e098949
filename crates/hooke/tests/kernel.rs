//! Parity of the chain kernel with the general path: same samples and states to rounding;
//! threads, block splits and tiles change nothing; f32 agrees to its precision.

use hooke::engine::{Engine, EngineConfig, PathKind, PickupSpec, Pickups, Precision, Quantity, RunError};
use hooke::format::model::parse;
use hooke::kernel::chain::UniformChain;
use hooke::scheme::SchemeKind;
use hooke::system::System;

/// A damped, plucked string of `n` masses with drag and gravity, and pickups on `taps`.
fn string(n: usize, taps: &[usize]) -> (System, Pickups) {
    let source = format!(
        "[model]\ndimension = 1\ngravity = -9.81\n[[string]]\nid = \"s\"\nmasses = {n}\nmass = 1e-3\nstiffness = 2.3e5\n\
         damping = 4.8e-3\ndrag = 0.5\npluck = {{ position = 0.3, amplitude = 1e-3 }}\n"
    );
    let file = parse(&source, "string.toml").unwrap();
    let specs: Vec<PickupSpec> = taps
        .iter()
        .enumerate()
        .map(|(i, &mass)| PickupSpec {
            channel: 1 + i % 2,
            mass: format!("s.{}", mass + 1).into(),
            quantity: if i % 3 == 0 { Quantity::Velocity } else { Quantity::Position },
            axis: 0,
            weight: 1.0 + i as f64,
        })
        .collect();
    let pickups = Pickups::new(&specs, &file.model).unwrap();
    (System::new(&file.model), pickups)
}

/// Symplectic Euler at 48 kHz on the chain stencil (not the modal kernel), as `config` says
/// otherwise.
fn config(config: EngineConfig) -> EngineConfig {
    config.scheme(SchemeKind::SymplecticEuler).rate(48_000.0).without_modal()
}

/// The pickups at step 0 and after each of `steps` steps, rendered by the engine in calls of
/// `steps[i]` steps on the kernel.
fn render(
    system: &System,
    pickups: &Pickups,
    steps: &[u64],
    options: EngineConfig,
) -> (Vec<Vec<f64>>, Engine) {
    let mut engine = Engine::from_system(system.clone(), pickups.clone(), config(options)).unwrap();
    assert_eq!(engine.path(), PathKind::Chain);
    let mut channels = vec![Vec::new(); pickups.channel_count()];
    engine.sample(&mut channels);
    for &chunk in steps {
        engine.advance(chunk, &mut channels).unwrap();
    }
    (channels, engine)
}

fn general(system: &System, pickups: &Pickups, steps: u64) -> (Vec<Vec<f64>>, Engine) {
    let mut recorder = hooke::engine::PickupRecorder::new(pickups.clone(), steps as usize + 1);
    let mut simulation = Engine::from_system(
        system.clone(),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(1.0 / 48_000.0),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut recorder]).unwrap();
    (recorder.into_channels(), simulation)
}

fn max_relative(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let peak = b.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    a.iter().flatten().zip(b.iter().flatten()).map(|(p, q)| (p - q).abs() / peak).fold(0.0, f64::max)
}

#[test]
fn a_generated_string_is_recognised_and_other_models_are_not() {
    let (system, _) = string(20, &[3]);
    let chain = UniformChain::detect(&system).unwrap();
    assert_eq!((chain.masses, chain.mass, chain.stiffness, chain.damping), (20, 1e-3, 2.3e5, 4.8e-3));
    assert!((chain.drag - 0.5e-3).abs() < 1e-18 && (chain.force + 9.81e-3).abs() < 1e-15);
    let barrier = parse(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 5\nmass = 1.0\nstiffness = 1.0\n\
         [[barrier]]\nmasses = \"s.*\"\nposition = -1.0\nnormal = 1\nstiffness = 1.0\nexponent = 1\n",
        "b.toml",
    )
    .unwrap();
    assert!(UniformChain::detect(&System::new(&barrier.model)).is_none());
    let pendulum = parse(
        "[model]\ndimension = 2\n[[anchor]]\nid = \"a\"\nposition = [0.0, 0.0]\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
         position = [1.0, 0.0]\n[[spring]]\na = \"a\"\nb = \"m\"\nstiffness = 1.0\n",
        "p.toml",
    )
    .unwrap();
    assert!(UniformChain::detect(&System::new(&pendulum.model)).is_none());
}

#[test]
fn the_kernel_matches_the_general_path_on_one_tile_and_on_many() {
    // 6 masses: the register path; 50: one tile; 3000: three tiles with halos, taps on edges.
    for (n, taps) in
        [(6usize, vec![0usize, 5]), (50, vec![0, 7, 49]), (3000, vec![0, 1023, 1024, 2047, 2048, 2999])]
    {
        let (system, pickups) = string(n, &taps);
        let steps = 2000;
        let (fast, renderer) = render(&system, &pickups, &[steps], EngineConfig::default());
        let (slow, simulation) = general(&system, &pickups, steps);
        assert_eq!(fast[0].len(), slow[0].len());
        let error = max_relative(&fast, &slow);
        assert!(error < 1e-12, "{n} masses: samples differ by {error:e} of the peak");
        let (a, b) = (renderer.state(), &simulation.state());
        let peak = b.x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let state_error = a.x.iter().zip(&b.x).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max) / peak;
        assert!(state_error < 1e-12, "{n} masses: states differ by {state_error:e}");
        assert_eq!((a.step, a.t), (b.step, b.t));
    }
}

#[test]
fn threads_and_block_splits_give_identical_results() {
    let (system, pickups) = string(5000, &[10, 2500, 4999]);
    let serial = render(&system, &pickups, &[1000], EngineConfig::default());
    let parallel = render(&system, &pickups, &[1000], EngineConfig::default().threads(2));
    let split = render(&system, &pickups, &[1, 299, 700], EngineConfig::default());
    assert_eq!(serial.0, parallel.0, "two threads change the samples");
    assert_eq!(serial.0, split.0, "splitting the render changes the samples");
    assert_eq!(serial.1.state(), parallel.1.state());
    assert_eq!(serial.1.state(), split.1.state());
}

#[test]
fn f32_agrees_with_f64_to_single_precision() {
    let (system, pickups) = string(200, &[60]);
    let (f64_samples, _) = render(&system, &pickups, &[4000], EngineConfig::default());
    let (f32_samples, _) =
        render(&system, &pickups, &[4000], EngineConfig::default().precision(Precision::F32));
    let error = max_relative(&f32_samples, &f64_samples);
    // f32 rounds each step at about 6e-8; over 4000 steps the phases drift apart by about
    // steps * 6e-8 * (a few operations per step), some 1e-4 of the amplitude.
    assert!(error < 1e-3 && error > 0.0, "f32 differs by {error:e}");
}

#[test]
fn an_instability_in_the_kernel_names_the_step_and_mass_as_the_general_path_does() {
    // w h > 2 for the highest mode: sqrt(4 k / m) h = 2 sqrt(2.3e8) / 48000 = 0.63: make k 20x.
    let source =
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 40\nmass = 1e-3\nstiffness = 2.3e7\n\
                  pluck = { position = 0.3, amplitude = 1e-3 }\n";
    let file = parse(source, "unstable.toml").unwrap();
    let system = System::new(&file.model);
    let pickups = Pickups::sum_of_all_masses(&file.model);
    let mut renderer =
        Engine::from_system(system.clone(), pickups.clone(), config(EngineConfig::default())).unwrap();
    assert_eq!(renderer.path(), PathKind::Chain);
    let mut channels = vec![Vec::new()];
    renderer.sample(&mut channels);
    let fast = renderer.advance(100_000, &mut channels).unwrap_err();
    let mut simulation = Engine::from_system(
        system,
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(1.0 / 48_000.0),
    )
    .unwrap();
    let slow = simulation.run(100_000, &mut [], &mut []).unwrap_err();
    match (fast, slow) {
        (RunError::NonFinite { step: a, mass: ma, .. }, RunError::NonFinite { step: b, mass: mb, .. }) => {
            assert!(a.abs_diff(b) <= 2, "kernel path stops at {a}, general at {b}");
            assert!(!ma.is_empty() && !mb.is_empty());
            assert_eq!(channels[0].len() as u64, a, "samples up to the last good step");
        }
        other => panic!("expected non-finite errors, got {other:?}"),
    }
}

#[test]
fn each_voice_of_a_bank_is_the_chain_kernel_alone() {
    use hooke::kernel::chain::{ChainKernel, Tap};
    use hooke::kernel::voices::VoiceBank;
    let chain = UniformChain {
        masses: 5,
        mass: 1e-3,
        stiffness: 2.3e5,
        damping: 4.8e-3,
        drag: 1e-4,
        force: 0.0,
        left: 0.0,
        right: 0.0,
    };
    let initial = |voice: usize| {
        let mut x = vec![0.0; 5];
        x[voice % 5] = 1e-3 * (1.0 + voice as f64);
        (x, vec![0.0; 5])
    };
    let (voices, steps) = (11, 3000);
    let mut bank = VoiceBank::<f64>::new(chain, 1.0 / 48_000.0, voices, initial);
    let mut bank_record = vec![0.0; voices * steps];
    bank.advance(steps, 2, &mut bank_record);
    for voice in 0..voices {
        let (x, v) = initial(voice);
        let mut kernel = ChainKernel::<f64>::new(chain, 1.0 / 48_000.0, &x, &v);
        let mut record = vec![0.0; steps];
        kernel
            .advance(steps, &[Tap { mass: 2, quantity: Quantity::Position, weight: 1.0 }], &mut record, None)
            .unwrap();
        let bank_voice: Vec<f64> = (0..steps).map(|step| bank_record[step * voices + voice]).collect();
        assert_eq!(bank_voice, record, "voice {voice}");
    }
}

#[test]
fn the_grid_kernel_matches_the_general_path_on_a_membrane() {
    use hooke::kernel::chain::Tap;
    use hooke::kernel::grid::{GridKernel, UniformGrid};
    let (w, h) = (9usize, 6usize);
    let mut source = format!(
        "[model]\ndimension = 1\n[[membrane]]\nid = \"d\"\ncolumns = {w}\nrows = {h}\nmass = 1e-3\nstiffness = 1e5\n\
         damping = 1e-3\ndrag = 0.3\n"
    );
    source.push_str(
        "[[initial]]\nmass = \"d.3.2\"\nposition = 1e-3\n[[initial]]\nmass = \"d.7.5\"\nvelocity = -0.2\n",
    );
    let file = parse(&source, "drum.toml").unwrap();
    let system = System::new(&file.model);
    let state = system.initial_state();
    let grid = UniformGrid {
        columns: w,
        rows: h,
        mass: 1e-3,
        stiffness_x: 1e5,
        stiffness_y: 1e5,
        damping_x: 1e-3,
        damping_y: 1e-3,
        drag: 0.3e-3,
        force: 0.0,
    };
    let (dt, steps) = (1.0 / 48_000.0, 3000);
    let mut kernel = GridKernel::<f64>::new(grid, dt, &state.x[..w * h], &state.v[..w * h]);
    let mut record = vec![0.0; steps];
    let tap = Tap { mass: w + 2, quantity: Quantity::Position, weight: 1.0 };
    kernel.advance(steps, &[tap], &mut record).unwrap();
    let mut simulation = Engine::from_system(
        system,
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(dt),
    )
    .unwrap();
    simulation.run(steps as u64, &mut [], &mut []).unwrap();
    let peak = simulation.state().x[..w * h].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for j in 0..h {
        for i in 0..w {
            let (fast, slow) = (kernel.position(i, j), simulation.state().x[j * w + i]);
            assert!((fast - slow).abs() < 1e-12 * peak, "mass ({i}, {j}): {fast:e} vs {slow:e}");
        }
    }
    assert_eq!(record[steps - 1], kernel.position(2, 1));
    // Drag compiles to gamma m, computed as 0.3 * 1e-3.
    let expected = UniformGrid { drag: 0.3 * 1e-3, ..grid };
    assert_eq!(
        UniformGrid::detect(&System::new(&file.model)),
        Some(expected),
        "the generated drum is recognised"
    );
    // And the engine runs it: its samples agree with the general path to rounding.
    let pickups = Pickups::sum_of_all_masses(&file.model);
    let config = EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(dt);
    let mut renderer = Engine::from_system(System::new(&file.model), pickups.clone(), config).unwrap();
    // In f64 the engine runs a membrane on the modal kernel (tests/modal.rs), in f32 on the stencil.
    assert_eq!(renderer.path(), PathKind::Modal);
    let mut fast = vec![Vec::new()];
    renderer.sample(&mut fast);
    renderer.advance(steps as u64, &mut fast).unwrap();
    let (slow, _) = general(&System::new(&file.model), &pickups, steps as u64);
    assert!(max_relative(&fast, &slow) < 1e-12);
}
