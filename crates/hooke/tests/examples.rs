//! The example models in the workspace's `examples/` folder: every one parses and runs, the
//! examples of Domoszlai's blog post match an independent forward-Euler loop, and the paper
//! examples carry the constants their papers give (with the corrections of docs/errata.md).

use hooke::analysis::energy::energy;
use hooke::engine::{EnergyMonitor, Engine, EngineConfig, Observer, PickupRecorder, Pickups, StepSize};
use hooke::format::model::{parse, ModelFile};
use hooke::model::Node;
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The workspace's `examples/` folder.
fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Reads and parses one example file by file name.
fn load_example(name: &str) -> ModelFile {
    let path = examples_dir().join(name);
    let source =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse(&source, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// Fails the run as soon as the total energy of an observed state is not finite.
struct FiniteEnergy;

impl Observer for FiniteEnergy {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        let e = energy(system, state).total();
        assert!(e.is_finite(), "energy {e} J at step {} is not finite", state.step);
        Ok(())
    }
}

#[test]
fn every_example_file_parses_and_runs() {
    const MAX_STEPS: u64 = 20_000;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("the workspace's examples/ folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 12, "expected at least 12 example files, found {}: {paths:?}", paths.len());
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = load_example(&name);
        let run = file.run.or_defaults();
        let dt = run.step.seconds();
        let steps = run.length.steps(dt).min(MAX_STEPS);
        assert!(steps > 0, "{name}: no steps to run");
        let mut simulation = Engine::from_system(
            System::new(&file.model),
            Pickups::default(),
            EngineConfig::default().scheme(run.scheme).dt(dt),
        )
        .unwrap();
        let mut pickups = PickupRecorder::new(file.pickups.clone(), steps as usize + 1);
        let mut monitor = EnergyMonitor::new();
        let mut finite = FiniteEnergy;
        simulation
            .run(steps, &mut [], &mut [&mut pickups, &mut monitor, &mut finite])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(simulation.state().step, steps, "{name}");
        assert!(!pickups.channels().is_empty(), "{name}: no output channel");
        assert_eq!(pickups.channels().len(), file.pickups.channel_count(), "{name}");
        for (c, channel) in pickups.channels().iter().enumerate() {
            assert_eq!(channel.len() as u64, steps + 1, "{name}: channel {}", c + 1);
            if let Some(i) = channel.iter().position(|s| !s.is_finite()) {
                panic!("{name}: channel {} sample {i} is {}", c + 1, channel[i]);
            }
        }
        let summary = monitor.summary().unwrap_or_else(|| panic!("{name}: the energy monitor saw nothing"));
        assert_eq!(summary.last_step, steps, "{name}");
        for (what, value) in [
            ("initial energy", summary.initial.total()),
            ("last energy", summary.last.total()),
            ("max energy deviation", summary.max_deviation),
        ] {
            assert!(value.is_finite(), "{name}: {what} is {value}");
        }
    }
}

/// The blog's examples as `tests/data/blog-examples.json` describes them (a copy of
/// `shared/examples/blog-examples.json`).
#[derive(Deserialize)]
struct BlogExamples {
    examples: Vec<BlogExample>,
}

#[derive(Deserialize)]
struct BlogExample {
    id: String,
    fixtures: Vec<Fixture>,
    masses: Vec<BlogMass>,
    springs: Vec<BlogSpring>,
    g: f64,
    steps: u64,
    dt: f64,
}

#[derive(Deserialize)]
struct Fixture {
    id: String,
    x: f64,
    y: f64,
}

#[derive(Deserialize)]
struct BlogMass {
    id: String,
    m: f64,
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
}

#[derive(Deserialize)]
struct BlogSpring {
    id: String,
    a: String,
    b: String,
    k: f64,
    l0: f64,
}

fn blog_examples() -> Vec<BlogExample> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/blog-examples.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let examples: BlogExamples = serde_json::from_str(&text).expect("valid blog-examples.json");
    assert_eq!(examples.examples.len(), 8);
    examples.examples
}

/// One end of a spring in the reference implementation.
#[derive(Clone, Copy)]
enum End {
    Mass(usize),
    Fixture(usize),
}

/// The state of the reference implementation: positions and velocities of the masses.
#[derive(Clone)]
struct Reference {
    x: Vec<[f64; 2]>,
    v: Vec<[f64; 2]>,
}

/// The update of Domoszlai's blog post written out plainly, with its gravity bug fixed (`m g`
/// once per mass; see docs/errata.md): every force from the old positions, then
/// `x += dt v_old`, then `v += dt F / m`.
fn reference_run(example: &BlogExample, steps: usize) -> Vec<Reference> {
    let mut ends: HashMap<&str, End> = HashMap::new();
    for (i, f) in example.fixtures.iter().enumerate() {
        ends.insert(&f.id, End::Fixture(i));
    }
    for (i, m) in example.masses.iter().enumerate() {
        ends.insert(&m.id, End::Mass(i));
    }
    let springs: Vec<(End, End, f64, f64)> =
        example.springs.iter().map(|s| (ends[s.a.as_str()], ends[s.b.as_str()], s.k, s.l0)).collect();
    let fixtures: Vec<[f64; 2]> = example.fixtures.iter().map(|f| [f.x, f.y]).collect();
    let mass: Vec<f64> = example.masses.iter().map(|m| m.m).collect();
    let mut state = Reference {
        x: example.masses.iter().map(|m| [m.x, m.y]).collect(),
        v: example.masses.iter().map(|m| [m.vx, m.vy]).collect(),
    };
    let mut history = vec![state.clone()];
    for _ in 0..steps {
        let position = |end: End| match end {
            End::Mass(i) => state.x[i],
            End::Fixture(j) => fixtures[j],
        };
        let mut force: Vec<[f64; 2]> = mass.iter().map(|m| [0.0, m * example.g]).collect();
        for &(a, b, k, l0) in &springs {
            let (pa, pb) = (position(a), position(b));
            let d = [pb[0] - pa[0], pb[1] - pa[1]];
            let length = (d[0] * d[0] + d[1] * d[1]).sqrt();
            for c in 0..2 {
                let f = k * (length - l0) * d[c] / length;
                if let End::Mass(i) = a {
                    force[i][c] += f;
                }
                if let End::Mass(i) = b {
                    force[i][c] -= f;
                }
            }
        }
        let old_v = state.v.clone();
        for i in 0..mass.len() {
            for c in 0..2 {
                state.x[i][c] += example.dt * old_v[i][c];
                state.v[i][c] += example.dt * force[i][c] / mass[i];
            }
        }
        history.push(state.clone());
    }
    history
}

/// Keeps a copy of every observed state.
#[derive(Default)]
struct Recorder(Vec<State>);

impl Observer for Recorder {
    fn observe(&mut self, _system: &System, state: &State) -> std::io::Result<()> {
        self.0.push(state.clone());
        Ok(())
    }
}

/// Checks that a model file holds exactly the blog example's elements.
fn assert_same_elements(name: &str, file: &ModelFile, example: &BlogExample) {
    let model = &file.model;
    assert_eq!(model.dimension(), 2, "{name}");
    assert_eq!(model.gravity(), &[0.0, example.g][..], "{name}: gravity");
    assert_eq!(model.anchors().len(), example.fixtures.len(), "{name}: anchors");
    for (anchor, fixture) in model.anchors().iter().zip(&example.fixtures) {
        assert_eq!(anchor.id, fixture.id, "{name}");
        assert_eq!(anchor.position, vec![fixture.x, fixture.y], "{name}: anchor {}", anchor.id);
    }
    assert_eq!(model.masses().len(), example.masses.len(), "{name}: masses");
    for (mass, expected) in model.masses().iter().zip(&example.masses) {
        assert_eq!(mass.id, expected.id, "{name}");
        assert_eq!(mass.mass, expected.m, "{name}: mass {}", mass.id);
        assert_eq!(mass.position, vec![expected.x, expected.y], "{name}: mass {}", mass.id);
        assert_eq!(mass.velocity, vec![expected.vx, expected.vy], "{name}: mass {}", mass.id);
        assert_eq!(mass.drag, 0.0, "{name}: mass {}", mass.id);
    }
    assert_eq!(model.links().len(), example.springs.len(), "{name}: springs");
    for (link, spring) in model.links().iter().zip(&example.springs) {
        assert_eq!(link.id.as_deref(), Some(spring.id.as_str()), "{name}");
        assert_eq!(model.node_id(link.a), spring.a, "{name}: spring {}", spring.id);
        assert_eq!(model.node_id(link.b), spring.b, "{name}: spring {}", spring.id);
        assert_eq!(link.stiffness, spring.k, "{name}: spring {}", spring.id);
        assert_eq!(link.rest_length, spring.l0, "{name}: spring {}", spring.id);
        assert_eq!(link.damping, 0.0, "{name}: spring {}", spring.id);
    }
    // The blog's scheme, except where forward Euler blows the example up within its run and the
    // file runs symplectic Euler instead (the recurrence test below uses forward Euler on all).
    let expected =
        if name == "triple-pendulum.toml" { SchemeKind::SymplecticEuler } else { SchemeKind::ForwardEuler };
    assert_eq!(file.run.scheme, Some(expected), "{name}: the file's scheme");
    assert_eq!(file.run.step, Some(StepSize::Dt(example.dt)), "{name}: dt");
    assert_eq!(file.run.length.map(|l| l.steps(example.dt)), Some(example.steps), "{name}: steps");
}

/// Forward Euler on the blog's examples matches an independent straightforward implementation of
/// the same recurrence to 1e-12 relative over the first 1000 steps.
#[test]
fn forward_euler_on_blog_examples_matches_straightforward_recurrence() {
    const STEPS: usize = 1000;
    const TOLERANCE: f64 = 1e-12;
    for example in blog_examples() {
        let name = format!("{}.toml", example.id.replace('_', "-"));
        let file = load_example(&name);
        assert_same_elements(&name, &file, &example);

        let run = file.run.or_defaults();
        let mut simulation = Engine::from_system(
            System::new(&file.model),
            Pickups::default(),
            EngineConfig::default().scheme(SchemeKind::ForwardEuler).dt(run.step.seconds()),
        )
        .unwrap();
        let mut recorder = Recorder::default();
        simulation.run(STEPS as u64, &mut [], &mut [&mut recorder]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let hooke = recorder.0;
        let reference = reference_run(&example, STEPS);
        assert_eq!(hooke.len(), STEPS + 1, "{name}");

        let n = example.masses.len();
        let mut worst = 0.0f64;
        for (step, (h, r)) in hooke.iter().zip(&reference).enumerate() {
            assert_eq!(h.step, step as u64, "{name}");
            assert_eq!(h.x.len(), 2 * (n + example.fixtures.len()), "{name}: masses then anchors");
            for i in 0..n {
                for c in 0..2 {
                    for (what, got, want) in
                        [("x", h.x[i * 2 + c], r.x[i][c]), ("v", h.v[i * 2 + c], r.v[i][c])]
                    {
                        let error = (got - want).abs() / want.abs().max(1.0);
                        worst = worst.max(error);
                        assert!(
                            error <= TOLERANCE,
                            "{name}: step {step}, mass {} {what}[{c}]: hooke {got:e}, reference {want:e} \
                             (relative error {error:e})",
                            example.masses[i].id
                        );
                    }
                }
            }
            for (j, fixture) in example.fixtures.iter().enumerate() {
                let k = (n + j) * 2;
                assert_eq!(
                    &h.x[k..k + 2],
                    &[fixture.x, fixture.y][..],
                    "{name}: anchor {} moved",
                    fixture.id
                );
            }
        }
        eprintln!("{name}: largest relative difference over {STEPS} steps: {worst:e}");
    }
}

/// Morgan & Qiao 2009, eq. (90) and Table 1, corrected as in docs/errata.md: 5 masses of 1 kg,
/// `k = omega0_out^2`, `Z = gamma_out` (the exact root 7.4628577364145) on every spring, at
/// 6000 Hz.
#[test]
fn table1_string_has_the_corrected_eq90_values() {
    const OMEGA0_OUT: f64 = 5293.239300336853;
    const GAMMA_OUT: f64 = 7.4628577364145;
    let file = load_example("string-5-table1.toml");
    let model = &file.model;
    assert_eq!(model.dimension(), 1);
    assert_eq!(model.gravity(), &[0.0][..]);

    let masses = model.masses();
    assert_eq!(masses.len(), 5);
    let displaced: Vec<&str> = masses.iter().filter(|m| m.position != [0.0]).map(|m| m.id.as_str()).collect();
    assert_eq!(displaced.len(), 1, "one displaced mass, found {displaced:?}");
    for (i, mass) in masses.iter().enumerate() {
        assert_eq!(mass.id, format!("s.{}", i + 1));
        assert_eq!(mass.mass, 1.0, "{}", mass.id);
        assert_eq!(mass.velocity, [0.0], "{}", mass.id);
        assert_eq!(mass.drag, 0.0, "{}: dampers on the springs, not to the ground (docs/errata.md)", mass.id);
    }

    let anchors = model.anchors();
    assert_eq!(anchors.len(), 2);
    assert!(anchors.iter().all(|a| a.position == [0.0]));

    let links = model.links();
    assert_eq!(links.len(), 6, "a spring-damper between each pair of neighbours");
    let k = OMEGA0_OUT * OMEGA0_OUT * 1.0;
    assert_eq!(k, 28018382.290630583);
    for (i, link) in links.iter().enumerate() {
        let node = |n: usize| model.node(&format!("s.{n}")).unwrap();
        assert_eq!((link.a, link.b), (node(i), node(i + 1)), "link {i}");
        assert_eq!(link.stiffness, k, "link {i}: k = omega0_out^2 m");
        assert_eq!(link.damping, GAMMA_OUT * 1.0, "link {i}: Z = gamma_out m");
        assert_eq!(link.rest_length, 0.0, "link {i}");
    }
    assert!(matches!(links[0].a, Node::Anchor(_)) && matches!(links[5].b, Node::Anchor(_)));

    assert_eq!(file.run.scheme, Some(SchemeKind::SymplecticEuler));
    assert_eq!(file.run.step.map(StepSize::hertz), Some(6000.0));
}

/// The other paper examples: Morgan & Qiao 2009, eq. (69), and the 20-mass string of
/// Morgan & Qiao 2008 (eq. 17).
#[test]
fn damped_oscillator_and_20_mass_string_use_the_papers_constants() {
    let file = load_example("damped-oscillator.toml");
    let model = &file.model;
    let omega0 = 125.0 * 2.0 * std::f64::consts::PI;
    assert_eq!(model.masses().len(), 1);
    assert_eq!(model.masses()[0].mass, 1.0);
    assert_eq!(model.masses()[0].position, [1.0]);
    assert_eq!(model.masses()[0].velocity, [0.0]);
    assert_eq!(model.links().len(), 1);
    assert_eq!(model.links()[0].stiffness, omega0 * omega0);
    assert_eq!(model.links()[0].damping, 50.0);
    assert_eq!(file.run.scheme, Some(SchemeKind::SymplecticEuler));
    assert_eq!(file.run.step.map(StepSize::seconds), Some(1.0 / 1000.0));

    let file = load_example("string-20-morgan-qiao-2008.toml");
    let model = &file.model;
    let omega0 = 2.0 * std::f64::consts::PI * 440.0 / (2.0 * (std::f64::consts::PI / 42.0).sin());
    assert!((omega0 - 18497.2439).abs() < 5e-5, "eq. (17) gives {omega0}");
    assert_eq!(model.masses().len(), 20);
    for (i, mass) in model.masses().iter().enumerate() {
        assert_eq!(mass.mass, 1.0);
        assert_eq!(mass.position, [if i == 5 { 1.0 } else { 0.0 }], "{}: the 6th mass is displaced", mass.id);
    }
    assert_eq!(model.links().len(), 21);
    for link in model.links() {
        assert!((link.stiffness - omega0 * omega0).abs() <= 1e-15 * omega0 * omega0);
        assert_eq!(link.damping, 0.0);
    }
    assert_eq!(file.run.step.map(StepSize::hertz), Some(44100.0));
    assert_eq!(file.run.scheme, Some(SchemeKind::SymplecticEuler));
}
