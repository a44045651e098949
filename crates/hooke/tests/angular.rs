//! Angular springs (`[[angle]]`) in 2D and 3D: forces and stiffness against finite differences
//! of the energy, the discrete gradient's exact work, a bent rest shape that stays at rest, the
//! torsional oscillator's frequency `sqrt(k / (m r^2))` on three schemes and in the analysis, the
//! energy-conserving scheme's balance on a swinging bent rod, and positioned file errors. Every
//! expected number is a closed form or a finite difference computed here.

use crate::measure::zero_crossing_frequency;
use hooke::analysis::design::scaled_model;
use hooke::analysis::energy::energy;
use hooke::analysis::invariants::BalanceMonitor;
use hooke::analysis::linearise::{About, Linearisation};
use hooke::analysis::modes::{modes, SparseCounts};
use hooke::engine::{Engine, EngineConfig, PathKind, PickupSpec};
use hooke::forces;
use hooke::format::model::parse;
use hooke::linalg::dense::DenseMatrix;
use hooke::model::{Anchor, Angle, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::f64::consts::PI;

/// A xorshift generator of numbers in [-1, 1).
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The angle at `b` between the arms to `a` and `c` (nodes of a state vector), by arccos.
fn angle_at(x: &[f64], dim: usize, [a, b, c]: [usize; 3]) -> f64 {
    let arm = |end: usize| (0..dim).map(|i| x[end * dim + i] - x[b * dim + i]).collect::<Vec<_>>();
    let (u, w) = (arm(a), arm(c));
    let dot = |p: &[f64], q: &[f64]| p.iter().zip(q).map(|(p, q)| p * q).sum::<f64>();
    (dot(&u, &w) / (dot(&u, &u) * dot(&w, &w)).sqrt()).clamp(-1.0, 1.0).acos()
}

/// Three masses `n0`, `n1`, `n2` and an anchor `n3`, with angular springs at `n1` (rest 2.0 rad),
/// at `n2` (reaching the anchor, rest 1.2 rad) and at `n0` (rest pi).
fn three_angles(dim: usize) -> (Model, [[usize; 3]; 3]) {
    let mut model = Model::new(dim).unwrap();
    let place = |i: usize| {
        (0..dim).map(|c| if c == 0 { i as f64 } else { 0.3 * ((i + c) % 3) as f64 }).collect::<Vec<_>>()
    };
    for i in 0..3 {
        model.add_mass(Mass::new(format!("n{i}"), 0.1).position(place(i))).unwrap();
    }
    model.add_anchor(Anchor::new("n3").position(place(3))).unwrap();
    let elements = [([0, 1, 2], 1.3, 2.0), ([1, 2, 3], 0.7, 1.2), ([2, 0, 1], 2.1, PI)];
    for ([a, b, c], k, rest) in elements {
        let name = |i: usize| format!("n{i}");
        model.add_angle(Angle::new(name(a), name(b), name(c), k).rest_angle(rest)).unwrap();
    }
    (model, elements.map(|e| e.0))
}

/// `-dV/dx` and `-dF/dx` by central differences against the forces and the stiffness matrix at
/// `x`, relative to the largest entry.
fn check_against_differences(system: &System, x: &[f64], label: &str) {
    let n = system.mass_coordinates();
    let width = 1e-6;
    let mut force = vec![0.0; x.len()];
    forces::conservative(system, x, &mut force);
    let mut stiffness = DenseMatrix::new(n);
    forces::add_stiffness(system, x, 1.0, &mut stiffness);
    let largest_force = force[..n].iter().fold(1e-3f64, |m, f| m.max(f.abs()));
    let largest_stiffness = (0..n * n).fold(1e-3f64, |m, i| m.max(stiffness.get(i / n, i % n).abs()));
    for c in 0..n {
        let (mut up, mut down) = (x.to_vec(), x.to_vec());
        up[c] += width;
        down[c] -= width;
        let slope = (forces::potential(system, &up) - forces::potential(system, &down)) / (2.0 * width);
        let error = (force[c] + slope).abs() / largest_force;
        assert!(error < 1e-6, "{label}: force {c} is {}, -dV/dx is {}", force[c], -slope);
        let (mut f_up, mut f_down) = (vec![0.0; x.len()], vec![0.0; x.len()]);
        forces::conservative(system, &up, &mut f_up);
        forces::conservative(system, &down, &mut f_down);
        for r in 0..n {
            let column = -(f_up[r] - f_down[r]) / (2.0 * width);
            let error = (stiffness.get(r, c) - column).abs() / largest_stiffness;
            assert!(error < 1e-6, "{label}: K[{r}][{c}] is {}, -dF/dx is {column}", stiffness.get(r, c));
        }
    }
}

#[test]
fn forces_and_stiffness_are_the_derivatives_of_the_energy_at_bent_and_straight_shapes() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for dim in [2, 3] {
        let (model, elements) = three_angles(dim);
        let system = System::new(&model);
        let mut checked = 0;
        while checked < 10 {
            let x: Vec<f64> = (0..4 * dim).map(|_| random.next()).collect();
            let bent = elements.iter().all(|&e| (0.3..PI - 0.3).contains(&angle_at(&x, dim, e)));
            if bent {
                check_against_differences(&system, &x, &format!("{dim}D, configuration {checked}"));
                checked += 1;
            }
        }
        // A straight element at rest (theta_0 = pi, where V is smooth but theta is not), off
        // the axes; u x w is exactly 0 in these coordinates.
        let mut straight = Model::new(dim).unwrap();
        let (direction, arms) = ([1.0, 0.5, 0.25], [-1.0, 0.0, 2.0]);
        for (i, along) in arms.iter().enumerate() {
            let position: Vec<f64> = direction[..dim].iter().map(|d| along * d).collect();
            straight.add_mass(Mass::new(format!("s{i}"), 1.0).position(position)).unwrap();
        }
        straight.add_angle(Angle::new("s0", "s1", "s2", 1.7)).unwrap();
        assert_eq!(straight.angles()[0].rest_angle, PI, "the rest angle of a straight line");
        let system = System::new(&straight);
        check_against_differences(&system, &system.initial_state().x, &format!("{dim}D straight"));
        // Straight, with a bent rest angle: the kink, where the force is taken as 0.
        let (mut kinked, mut force) = (straight.clone(), vec![0.0; 3 * dim]);
        kinked.add_angle(Angle::new("s0", "s1", "s2", 1.0).rest_angle(2.0)).unwrap();
        let system = System::new(&kinked);
        forces::conservative(&system, &system.initial_state().x, &mut force);
        assert!(force.iter().all(|&f| f == 0.0), "{dim}D kink: {force:?}");
    }
}

#[test]
fn the_discrete_gradient_does_the_work_of_the_energy_change_and_tends_to_the_midpoint_force() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for dim in [2, 3] {
        let (model, elements) = three_angles(dim);
        let system = System::new(&model);
        let n = system.mass_coordinates();
        let mut checked = 0;
        while checked < 10 {
            let x0: Vec<f64> = (0..4 * dim).map(|_| random.next()).collect();
            if !elements.iter().all(|&e| (0.3..PI - 0.3).contains(&angle_at(&x0, dim, e))) {
                continue;
            }
            checked += 1;
            let direction: Vec<f64> = (0..n).map(|_| random.next()).collect();
            for size in [0.1, 1e-4, 1e-8] {
                let mut x1 = x0.clone();
                x1[..n].iter_mut().zip(&direction).for_each(|(x, d)| *x += size * d);
                let mut discrete = vec![0.0; x0.len()];
                forces::discrete_conservative(&system, &x0, &x1, &mut discrete);
                let work: f64 = (0..n).map(|i| discrete[i] * (x1[i] - x0[i])).sum();
                let (v0, v1) = (forces::potential(&system, &x0), forces::potential(&system, &x1));
                let error = (work - (v0 - v1)).abs() / (v0 + v1);
                assert!(error < 1e-13, "{dim}D, step {size:e}: work {work:e}, energy change {:e}", v0 - v1);
                let midpoint: Vec<f64> = x0.iter().zip(&x1).map(|(a, b)| 0.5 * (a + b)).collect();
                let mut force = vec![0.0; x0.len()];
                forces::conservative(&system, &midpoint, &mut force);
                let largest = force[..n].iter().fold(0.0f64, |m, f| m.max(f.abs()));
                let gap = (0..n).fold(0.0f64, |m, i| m.max((discrete[i] - force[i]).abs())) / largest;
                // Gonzalez's correction is of order |dq|^2; at 1e-8 only round-off is left.
                let bound = if size > 1e-6 { 10.0 * size * size } else { 1e-12 };
                assert!(
                    gap < bound,
                    "{dim}D, step {size:e}: the discrete force is {gap:e} off the midpoint's"
                );
            }
        }
    }
}

/// Three masses, the vertex `b` with arms of 1 m to `a` and `c` at 120 degrees, in the plane
/// spanned by `e1` and `e2` (orthonormal), springs on the arms, and an angular spring at rest.
fn bent_triple(e1: &[f64], e2: &[f64]) -> Model {
    let mut model = Model::new(e1.len()).unwrap();
    let (cos, sin) = ((2.0 * PI / 3.0).cos(), (2.0 * PI / 3.0).sin());
    let c: Vec<f64> = e1.iter().zip(e2).map(|(p, q)| cos * p + sin * q).collect();
    model.add_mass(Mass::new("a", 0.1).position(e1.to_vec())).unwrap();
    model.add_mass(Mass::new("b", 0.1).position(vec![0.0; e1.len()])).unwrap();
    model.add_mass(Mass::new("c", 0.1).position(c)).unwrap();
    model.add_spring(Spring::new("a", "b", 100.0)).unwrap();
    model.add_spring(Spring::new("b", "c", 100.0)).unwrap();
    model.add_angle(Angle::new("a", "b", "c", 1.0).rest_angle(2.0 * PI / 3.0)).unwrap();
    model
}

#[test]
fn a_bent_rest_shape_stays_at_rest() {
    let s = 0.5f64.sqrt();
    let planes: [(&[f64], &[f64]); 2] = [(&[1.0, 0.0], &[0.0, 1.0]), (&[s, s, 0.0], &[-0.5, 0.5, s])];
    for (e1, e2) in planes {
        let model = bent_triple(e1, e2);
        for scheme in [SchemeKind::SymplecticEuler, SchemeKind::EnergyConserving] {
            let config = EngineConfig::default().scheme(scheme).dt(1e-3);
            let mut engine = Engine::new(&model, &[PickupSpec::position("a")], config).unwrap();
            let start = engine.state().x;
            engine.run(1000, &mut [Vec::new()], &mut []).unwrap();
            let moved = engine.state().x.iter().zip(&start).fold(0.0f64, |m, (x, x0)| m.max((x - x0).abs()));
            eprintln!("{}D, {scheme}: largest displacement after 1000 steps {moved:e} m", e1.len());
            assert!(moved < 1e-13, "{}D, {scheme}: moved {moved:e} m", e1.len());
        }
    }
}

/// Torsional oscillator: vertex anchor `b` at the origin, anchor `a` on the x axis, mass `c` (m
/// kg) at distance r on a radial spring K, at `theta_0 + offset` from the x axis.
fn torsion(k: f64, m: f64, r: f64, stiff: f64, offset: f64) -> Model {
    let rest = 0.5 * PI;
    let mut model = Model::new(2).unwrap();
    model.add_anchor(Anchor::new("a").position([1.0, 0.0])).unwrap();
    model.add_anchor(Anchor::new("b").position([0.0, 0.0])).unwrap();
    let theta = rest + offset;
    model.add_mass(Mass::new("c", m).position([r * theta.cos(), r * theta.sin()])).unwrap();
    model.add_spring(Spring::new("b", "c", stiff)).unwrap();
    model.add_angle(Angle::new("a", "b", "c", k).rest_angle(rest)).unwrap();
    model
}

#[test]
fn a_torsional_oscillator_swings_at_sqrt_k_over_m_r_squared() {
    // In polar coordinates about the anchored vertex, T = m (r'^2 + r^2 theta'^2) / 2 and
    // V = k (theta - theta_0)^2 / 2 + K (r - r0)^2 / 2: to first order about rest the angle and
    // the radius decouple exactly, omega^2 = k / (m r0^2) and K / m.
    let (k, m, r, stiff): (f64, f64, f64, f64) = (0.5, 0.02, 0.25, 200.0);
    let omega = (k / (m * r * r)).sqrt();
    let linearisation =
        Linearisation::new(&System::new(&torsion(k, m, r, stiff, 0.0)), &About::Initial).unwrap();
    let found = modes(&linearisation, SparseCounts { lowest: 2, highest: 0 }).unwrap();
    for expected in [omega, (stiff / m).sqrt()] {
        let nearest = found.modes.iter().map(|mode| mode.pole.im.abs()).fold(f64::INFINITY, |best, w| {
            if (w - expected).abs() < (best - expected).abs() {
                w
            } else {
                best
            }
        });
        eprintln!("analysis: mode at {nearest} rad/s, closed form {expected} rad/s");
        assert!((nearest / expected - 1.0).abs() < 1e-9, "analysis: {nearest} rad/s, expected {expected}");
    }
    let rate = 2000.0;
    let model = torsion(k, m, r, stiff, 0.01);
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::EnergyConserving] {
        let config = EngineConfig::default().scheme(scheme).rate(rate);
        let mut engine = Engine::new(&model, &[PickupSpec::position("c").axis(0)], config).unwrap();
        assert_eq!(engine.path(), PathKind::General, "{scheme}: a model with angular springs");
        let mut output = vec![Vec::new()];
        engine.advance(20_000, &mut output).unwrap();
        let measured = 2.0 * PI * zero_crossing_frequency(&output[0], rate);
        let error = measured / omega - 1.0;
        eprintln!("{scheme}: {measured:.6} rad/s, closed form {omega:.6} rad/s ({:+.5}%)", 100.0 * error);
        assert!(error.abs() < 1e-3, "{scheme}: {measured} rad/s against {omega} rad/s");
    }
}

/// A rod of four masses curled (in the x-y plane) from an anchored pivot, springs along it,
/// angular springs at its three inner nodes at rest in the curl, under gravity along the last
/// axis: released, it swings about the pivot (in 3D out of its plane).
fn curled_rod(dim: usize) -> Model {
    let mut model = Model::new(dim).unwrap();
    let mut gravity = vec![0.0; dim];
    gravity[dim - 1] = -9.81;
    model.set_gravity(&gravity).unwrap();
    // In 3D a metre above the ground, so that the balance K is not 0 at the start.
    let mut point = vec![0.0; dim];
    point[dim - 1] = if dim == 3 { 1.0 } else { 0.0 };
    model.add_anchor(Anchor::new("p").position(point.clone())).unwrap();
    let mut heading = 0.0f64;
    for i in 1..=4 {
        point[0] += 0.1 * heading.cos();
        point[1] += 0.1 * heading.sin();
        model.add_mass(Mass::new(format!("m{i}"), 0.05).position(point.clone())).unwrap();
        heading += 0.6;
    }
    let names = ["p", "m1", "m2", "m3", "m4"];
    for pair in names.windows(2) {
        model.add_spring(Spring::new(pair[0], pair[1], 400.0).damping(0.01)).unwrap();
    }
    for triple in names.windows(3) {
        model.add_angle(Angle::new(triple[0], triple[1], triple[2], 2.0)).unwrap();
    }
    model
}

#[test]
fn the_energy_conserving_scheme_balances_energy_with_angular_springs_to_round_off() {
    for dim in [2, 3] {
        let model = curled_rod(dim);
        let config = EngineConfig::default().scheme(SchemeKind::EnergyConserving).dt(1e-3);
        let mut engine = Engine::new(&model, &[PickupSpec::position("m4").axis(dim - 1)], config).unwrap();
        let mut balance = BalanceMonitor::new();
        let start = energy(engine.system(), &engine.state()).total();
        let mut output = vec![Vec::new()];
        engine.run(20_000, &mut output, &mut [&mut balance]).unwrap();
        let (first, last) = (balance.first().unwrap(), balance.last().unwrap());
        let drift = ((last - first) / first).abs();
        let now = energy(engine.system(), &engine.state()).total();
        let (low, high) =
            output[0].iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &y| (l.min(y), h.max(y)));
        let span = high - low;
        eprintln!("{dim}D: K drifted by {drift:e}; the tip's height spans {span:.3} m; energy {start:e} -> {now:e} J");
        assert!(drift < 1e-12, "{dim}D: K drifted by {drift:e}");
        assert!(span > 0.2, "{dim}D: a large motion: the tip's height spans {span} m");
        assert!(now < start, "{dim}D: the dampers took energy: {now:e} of {start:e} J");
    }
}

#[test]
fn scaled_models_keep_their_angular_springs() {
    let model = curled_rod(2);
    let scaled = scaled_model(&model, 3.0, 1.0).unwrap();
    assert_eq!(scaled.angles().len(), 3);
    for (original, copy) in model.angles().iter().zip(scaled.angles()) {
        assert_eq!((copy.nodes, copy.rest_angle), (original.nodes, original.rest_angle));
        assert_eq!(copy.stiffness, 3.0 * original.stiffness);
    }
}

#[test]
fn bad_angular_springs_are_refused_with_the_place_and_the_field() {
    // Anchor a at (1, 0), masses m and o at the origin, n at (0, 1); the first 1 or 2 coordinates
    // of (x, y, 0).
    let file = |dimension: usize, element: &str| {
        let at = |x: f64, y: f64| match dimension {
            1 => format!("{x:?}"),
            2 => format!("[{x:?}, {y:?}]"),
            _ => format!("[{x:?}, {y:?}, 0.0]"),
        };
        format!(
            "[model]\ndimension = {dimension}\n[[anchor]]\nid = \"a\"\nposition = {}\n[[mass]]\nid = \"m\"\n\
             mass = 1.0\nposition = {}\n[[mass]]\nid = \"n\"\nmass = 1.0\nposition = {}\n[[mass]]\n\
             id = \"o\"\nmass = 1.0\nposition = {}\n[[angle]]\n{element}\n",
            at(1.0, 0.0),
            at(0.0, 0.0),
            at(0.0, 1.0),
            at(0.0, 0.0),
        )
    };
    let three = "nodes = [\"a\", \"m\", \"n\"]\nstiffness = 1.0";
    for (dimension, element, field, expected) in [
        (2, format!("{three}\nrest_angle = 4.0"), "rest_angle", "an angle in (0, pi] rad"),
        (2, format!("{three}\nrest_angle = 0.0"), "rest_angle", "an angle in (0, pi] rad"),
        (3, format!("{three}\nrest_angle = nan"), "rest_angle", "a finite number"),
        (1, three.to_string(), "nodes", "a 2D or 3D model"),
        (2, "nodes = [\"a\", \"m\", \"a\"]\nstiffness = 1.0".to_string(), "nodes", "distinct nodes"),
        (2, "nodes = [\"a\", \"m\"]\nstiffness = 1.0".to_string(), "nodes", "3 nodes"),
        (2, "nodes = [\"a\", \"m\", \"x\"]\nstiffness = 1.0".to_string(), "nodes", "unknown id \"x\""),
        (2, "nodes = [\"a\", \"o\", \"m\"]\nstiffness = 1.0".to_string(), "nodes", "arms of non-zero length"),
        (2, "nodes = [\"a\", \"m\", \"n\"]\nstiffness = -1.0".to_string(), "stiffness", "a value >= 0"),
    ] {
        let source = file(dimension, &element);
        // The error points at the field's value: its line, and the column after `field = `.
        let line = source.lines().position(|l| l.starts_with(field)).unwrap() + 1;
        let column = field.len() + 4;
        let error = parse(&source, "bad.toml").unwrap_err().to_string();
        eprintln!("{error}");
        assert!(error.starts_with(&format!("bad.toml:{line}:{column}: ")), "{element}: {error}");
        assert!(error.contains(&format!("`{field}`")) && error.contains(expected), "{element}: {error}");
    }
}
