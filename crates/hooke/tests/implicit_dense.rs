//! The implicit schemes' two Newton paths (scheme/newton.rs): the dense simplified Newton that
//! small networks take and the sparse full Newton of large ones agree to the Newton tolerance,
//! step by step, on the blog's double pendulum (2D, geometric springs) and Chatziioannou 2019's
//! clarinet reed (1D, Hertz contact, drag and a drive); the dense path keeps the
//! energy-conserving scheme's exact energy balance and reuses its factorisations.

use hooke::analysis::energy::energy;
use hooke::format::model::{parse, ModelFile};
use hooke::scheme::{
    BackwardEuler, EnergyConserving, LinearSolver, Midpoint, Scheme, SchemeKind, SolverStats, Trapezoidal,
};
use hooke::system::{State, System};

/// The implicit schemes that take a Newton solve with dampers included.
const IMPLICIT: [SchemeKind; 4] =
    [SchemeKind::EnergyConserving, SchemeKind::Midpoint, SchemeKind::Trapezoidal, SchemeKind::BackwardEuler];

/// The Newton tolerance (scheme/newton.rs), relative to the unknown.
const TOLERANCE: f64 = 1e-13;

fn example(name: &str, edit: impl Fn(String) -> String) -> ModelFile {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    parse(&edit(source), &path).unwrap_or_else(|e| panic!("{e}"))
}

/// The double pendulum at its own step (0.25 ms).
fn pendulum() -> (System, f64) {
    let file = example("double-pendulum.toml", |s| s);
    (System::new(&file.model), file.run.step.unwrap().seconds())
}

/// The clarinet reed at 44.1 kHz; `blown` doubles the drive's fundamental (2000 N to 4000 N),
/// which makes the reed beat on the lay (the example's comment).
fn reed(blown: bool) -> (System, f64) {
    let file = example("clarinet-reed.toml", |s| {
        if blown {
            s.replace("{ amplitude = 2000.0,", "{ amplitude = 4000.0,")
        } else {
            s
        }
    });
    (System::new(&file.model), 1.0 / 44_100.0)
}

fn build(kind: SchemeKind, system: &System, dt: f64, solver: LinearSolver) -> Box<dyn Scheme> {
    match kind {
        SchemeKind::EnergyConserving => Box::new(EnergyConserving::with_solver(system, dt, solver)),
        SchemeKind::Midpoint => Box::new(Midpoint::with_solver(system, dt, solver)),
        SchemeKind::Trapezoidal => Box::new(Trapezoidal::with_solver(system, dt, solver)),
        SchemeKind::BackwardEuler => Box::new(BackwardEuler::with_solver(system, dt, solver)),
        other => panic!("{other} has no Newton solve of its own"),
    }
}

/// Every state of `steps` steps of `kind` on the path `solver`, and the solver's statistics.
fn run(
    kind: SchemeKind,
    system: &System,
    dt: f64,
    solver: LinearSolver,
    steps: usize,
) -> (Vec<State>, SolverStats) {
    let mut scheme = build(kind, system, dt, solver);
    let mut state = system.initial_state();
    let mut states = vec![state.clone()];
    for step in 1..=steps {
        scheme.step(system, &mut state).unwrap_or_else(|e| panic!("{kind} {solver:?} step {step}: {e}"));
        state.step += 1;
        state.t = step as f64 * dt;
        states.push(state.clone());
    }
    (states, scheme.solver_stats().unwrap())
}

/// Largest absolute entry of the moving coordinates over a run.
fn largest(states: &[State], n: usize, quantity: impl Fn(&State) -> &[f64]) -> f64 {
    states.iter().flat_map(|s| quantity(s)[..n].iter()).fold(0.0, |m, x| m.max(x.abs()))
}

/// Largest absolute entry of a slice.
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// From every state of a sparse (full Newton) run, one step of the dense path lands within
/// twice the Newton tolerance of the sparse step: each solve is within the tolerance of the
/// scheme's exact root, `tol = TOLERANCE |s| + 4 eps |x|` for the increment `s`
/// (scheme/implicit.rs: below a few units of round-off of the positions an increment cannot
/// improve them), so positions differ by at most `2 tol` and velocities (`2 s / h - v_n`,
/// backward Euler `s / h`) by at most `2 (2 / h) tol`.
fn check_each_step(name: &str, (system, dt): &(System, f64), kinds: &[SchemeKind], steps: usize) {
    let n = system.mass_coordinates();
    for &kind in kinds {
        let (sparse, _) = run(kind, system, *dt, LinearSolver::Sparse, steps);
        let mut dense = build(kind, system, *dt, LinearSolver::Dense);
        for (step, pair) in sparse.windows(2).enumerate() {
            let mut state = pair[0].clone();
            dense.step(system, &mut state).unwrap();
            let increment: Vec<f64> = (0..n).map(|i| pair[1].x[i] - pair[0].x[i]).collect();
            let tolerance = TOLERANCE * max_abs(&increment) + 4.0 * f64::EPSILON * max_abs(&pair[0].x[..n]);
            for i in 0..n {
                let (dx, dv) = ((state.x[i] - pair[1].x[i]).abs(), (state.v[i] - pair[1].v[i]).abs());
                assert!(
                    dx <= 2.0 * tolerance,
                    "{name} {kind} step {step} coordinate {i}: x off by {dx:e}, tolerance {tolerance:e}"
                );
                assert!(
                    dv <= 2.0 * (2.0 / dt) * tolerance,
                    "{name} {kind} step {step} coordinate {i}: v off by {dv:e}, tolerance {tolerance:e}"
                );
            }
        }
    }
}

/// The dense and sparse runs stay within `10 TOLERANCE` of the state's scale (the largest
/// position and velocity of the run) over the whole run: trajectories that one unit of
/// round-off does not move further (see [`check_each_step`] for those it does).
fn check_trajectories(name: &str, (system, dt): &(System, f64), kinds: &[SchemeKind], steps: usize) {
    let n = system.mass_coordinates();
    for &kind in kinds {
        let (dense, _) = run(kind, system, *dt, LinearSolver::Dense, steps);
        let (sparse, _) = run(kind, system, *dt, LinearSolver::Sparse, steps);
        let (x_scale, v_scale) = (largest(&sparse, n, |s| &s.x), largest(&sparse, n, |s| &s.v));
        for (step, (d, s)) in dense.iter().zip(&sparse).enumerate() {
            for i in 0..n {
                let (dx, dv) = ((d.x[i] - s.x[i]).abs() / x_scale, (d.v[i] - s.v[i]).abs() / v_scale);
                assert!(
                    dx <= 10.0 * TOLERANCE,
                    "{name} {kind} step {step} coordinate {i}: x off by {dx:e} of its scale"
                );
                assert!(
                    dv <= 10.0 * TOLERANCE,
                    "{name} {kind} step {step} coordinate {i}: v off by {dv:e} of its scale"
                );
            }
        }
    }
}

#[test]
fn dense_and_sparse_paths_agree_on_the_double_pendulum() {
    let pendulum = pendulum();
    check_each_step("pendulum", &pendulum, &IMPLICIT, 4000);
    check_trajectories("pendulum", &pendulum, &IMPLICIT, 4000);
}

#[test]
fn dense_and_sparse_paths_agree_on_the_clarinet_reed() {
    let (reed, blown) = (reed(false), reed(true));
    check_each_step("reed", &reed, &IMPLICIT, 4000);
    check_trajectories("reed", &reed, &IMPLICIT, 4000);
    // Beating on the lay, the midpoint and trapezoidal rules are unstable (neither bounds the
    // energy of a stiffening contact): a one-ulp change of the start moves their trajectories by
    // their own size within 4000 steps, so only their steps are compared.
    check_each_step("blown reed", &blown, &IMPLICIT, 4000);
    check_trajectories(
        "blown reed",
        &blown,
        &[SchemeKind::EnergyConserving, SchemeKind::BackwardEuler],
        4000,
    );
}

/// `H_n + (energy dissipated) - (work of the drive) - H_0` over `steps` steps of the
/// energy-conserving scheme on the dense path, largest over the run, with the largest kinetic
/// energy and the total work of the drive, J.
fn balance(system: &System, dt: f64, steps: usize) -> (f64, f64, f64, SolverStats) {
    let mut scheme = EnergyConserving::with_solver(system, dt, LinearSolver::Dense);
    let mut state = system.initial_state();
    let start = energy(system, &state).total();
    let (mut dissipated, mut work, mut worst, mut kinetic) = (0.0, 0.0, 0.0f64, 0.0f64);
    for step in 1..=steps {
        scheme.step(system, &mut state).unwrap();
        state.t = step as f64 * dt;
        let exchange = scheme.last_exchange().unwrap();
        dissipated += exchange.dissipated;
        work += exchange.external_work;
        let now = energy(system, &state);
        kinetic = kinetic.max(now.kinetic);
        worst = worst.max((now.total() + dissipated - work - start).abs());
    }
    (worst, kinetic, work, scheme.solver_stats().unwrap())
}

#[test]
fn energy_conserving_balances_energy_to_round_off_on_the_dense_path() {
    // Chatziioannou 2019, eq. (54): H_{n+1} = H_n - dissipated + work, exactly for the scheme's
    // root. A simplified Newton stopped at the positions' round-off would leave an error of
    // that size in s, hence 2/h times it in the velocities: about 4e-10 of the pendulum's
    // kinetic energy after 4000 steps, which this bound would catch.
    let (system, dt) = pendulum();
    let (worst, kinetic, _, _) = balance(&system, dt, 4000);
    assert!(
        worst <= 1e-12 * kinetic,
        "pendulum: balance off by {worst:e} J, kinetic energy up to {kinetic:e} J"
    );
    // The reed beating on the lay, with drag and the drive.
    let (system, dt) = reed(true);
    let (worst, _, work, _) = balance(&system, dt, 4000);
    assert!(worst <= 1e-12 * work, "blown reed: balance off by {worst:e} J, the drive did {work:e} J");
}

#[test]
fn the_dense_path_reuses_its_factorisations() {
    // The pendulum's Jacobian M + h^2/4 K turns with the springs, slowly at 4000 steps per
    // second: one factorisation serves many steps, each of a few simplified iterations.
    let (system, dt) = pendulum();
    let (_, _, _, stats) = balance(&system, dt, 4000);
    assert_eq!(stats.solves, 4000);
    assert!(stats.factorisations <= 40, "{stats:?}");
    assert!(stats.iterations <= 4 * 4000, "{stats:?}");
    // The sparse path is full Newton: a factorisation at every iteration.
    let (_, stats) = run(SchemeKind::EnergyConserving, &system, dt, LinearSolver::Sparse, 100);
    assert_eq!(stats.factorisations, stats.iterations, "{stats:?}");
}

/// A 12-mass chain of 1 g masses between two anchors, mass 5 displaced, with no damper and no
/// drag, or (`changed`) mass 2's drag 0.4 N s/m and mass 7 of 2.5 g.
fn chain(changed: bool) -> hooke::model::Model {
    use hooke::model::{Anchor, Mass, Model, Spring};
    let mut model = Model::new(1).unwrap();
    let left = model.add_anchor(Anchor::new("left")).unwrap();
    let mass = |i: usize| match (changed, i) {
        // `Mass::drag` is `gamma` (1/s): 400 / s on 1 g.
        (true, 2) => Mass::new("m2", 1e-3).drag(400.0),
        (true, 7) => Mass::new("m7", 2.5e-3),
        _ => Mass::new(format!("m{i}"), 1e-3),
    };
    let masses: Vec<_> = (0..12).map(|i| model.add_mass(mass(i)).unwrap()).collect();
    let right = model.add_anchor(Anchor::new("right")).unwrap();
    let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
    for pair in nodes.windows(2) {
        model.add_spring(Spring::new(pair[0], pair[1], 4e5)).unwrap();
    }
    model.set_initial_position(5, &[1e-3]).unwrap();
    model
}

#[test]
fn an_implicit_scheme_takes_new_masses_and_a_first_drag_in_place_as_a_scheme_built_for_them() {
    use hooke::engine::{Engine, EngineConfig, Event, PickupSpec};
    // On the general path the energy-conserving scheme takes the changes in place (its masses,
    // whether it damps, its factorisation forgotten: the chain is linear, so a kept one would
    // be solved once with the old matrix); the reference is a scheme built for the changed
    // chain, started from the state the changes met.
    let (dt, steps) = (1.0 / 48_000.0, 400);
    let config = EngineConfig::default().scheme(SchemeKind::EnergyConserving).general_only().dt(dt);
    let pickups = [PickupSpec::position("m3")];
    let mut changed = Engine::new(&chain(false), &pickups, config).unwrap();
    let mut output = vec![Vec::new()];
    changed.advance(steps, &mut output).unwrap();
    let met = changed.state();
    changed.apply(Event::Drag { mass: 2, drag: 0.4 }).unwrap();
    changed.apply(Event::Mass { mass: 7, kilograms: 2.5e-3 }).unwrap();
    let before = output[0].len();
    changed.advance(steps, &mut output).unwrap();
    let mut model = chain(true);
    for mass in 0..12 {
        model.set_initial_position(mass, &[met.x[mass]]).unwrap();
        model.set_initial_velocity(mass, &[met.v[mass]]).unwrap();
    }
    let mut built = Engine::new(&model, &pickups, config).unwrap();
    let mut reference = vec![Vec::new()];
    built.advance(steps, &mut reference).unwrap();
    let peak = reference[0].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let worst =
        (output[0][before..].iter().zip(&reference[0])).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    eprintln!("the changes taken in place against a scheme built for them: {:.2e} of the peak", worst / peak);
    assert!(worst <= 1e-9 * peak, "{:e} of the peak", worst / peak);
}
