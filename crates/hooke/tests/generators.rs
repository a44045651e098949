//! Generators and force laws against closed forms: a string or membrane started in its lowest
//! mode follows the single-oscillator recurrence of that mode; geometric forces, drag and
//! gravity match hand-computed values.

use crate::common;

use common::{closed_form, quadratic_roots};
use hooke::engine::{Engine, EngineConfig, Pickups};
use hooke::forces;
use hooke::format::model::parse;
use hooke::model::{Anchor, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::f64::consts::PI;

/// Eigenvalue of the lowest mode of the N x N tridiagonal (2, -1) matrix, computed here.
fn lowest_eigenvalue(n: usize) -> f64 {
    4.0 * (PI / (2.0 * (n + 1) as f64)).sin().powi(2)
}

/// Runs symplectic Euler from the file's initial state and checks that coordinate `watch`
/// follows symplectic Euler's closed form for one mode of angular frequency `omega` (rad/s) and
/// damping rate `gamma` (1/s): roots of `z^2 + ((w h)^2 + gamma h - 2) z + (1 - gamma h)`.
fn assert_single_mode(source: &str, watch: &str, omega: f64, gamma: f64, h: f64, steps: u64) {
    let file = parse(source, "mode.toml").unwrap();
    let system = System::new(&file.model);
    let coordinate = system.node_ids().iter().position(|id| id == watch).unwrap();
    let x0 = system.initial_state().x[coordinate];
    let x1 = x0 + h * h * (-omega * omega * x0);
    let roots = quadratic_roots((omega * h).powi(2) + gamma * h - 2.0, 1.0 - gamma * h);
    let mut simulation = Engine::from_system(
        system,
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(h),
    )
    .unwrap();
    let mut worst = 0.0f64;
    for n in 1..=steps {
        simulation.run(1, &mut [], &mut []).unwrap();
        let expected = closed_form(roots, x0, x1, n as usize);
        worst = worst.max((simulation.state().x[coordinate] - expected).abs() / x0.abs());
    }
    assert!(worst < 1e-9, "{watch}: largest error {worst:e} of the initial amplitude");
}

#[test]
fn a_physical_string_in_its_lowest_mode_rings_at_the_lumped_strings_frequency_and_decay() {
    let (n, length, tension, density, tau) = (50usize, 0.65, 98.2, 1.2e-3, 0.5);
    // m = rho dx, k = T / dx: w1^2 = (k/m) lambda_1 (Morgan & Qiao 2008, eq. (16)), and decay_time
    // sets the lowest mode's analog rate gamma_1 / 2 = 1 / tau.
    let dx = length / (n + 1) as f64;
    let omega = ((tension / dx) / (density * dx) * lowest_eigenvalue(n)).sqrt();
    let mut source = format!(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = {n}\nlength = {length}\ntension = {tension}\n\
         linear_density = {density}\ndecay_time = {tau}\n"
    );
    for i in 1..=n {
        let shape = 1e-3 * (i as f64 * PI / (n + 1) as f64).sin();
        source.push_str(&format!("[[initial]]\nmass = \"s.{i}\"\nposition = {shape:?}\n"));
    }
    assert_single_mode(&source, "s.25", omega, 2.0 / tau, 1.0 / 44_100.0, 20_000);
}

#[test]
fn a_lossless_lumped_string_in_its_lowest_mode_keeps_its_amplitude() {
    let (n, mass, stiffness) = (7usize, 0.01, 4.0e4);
    let omega = (stiffness / mass * lowest_eigenvalue(n)).sqrt();
    let mut source =
        format!("[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = {n}\nmass = {mass}\nstiffness = {stiffness}\n");
    for i in 1..=n {
        let shape = (i as f64 * PI / (n + 1) as f64).sin();
        source.push_str(&format!("[[initial]]\nmass = \"s.{i}\"\nposition = {shape:?}\n"));
    }
    assert_single_mode(&source, "s.4", omega, 0.0, 1e-4, 20_000);
}

#[test]
fn a_physical_membrane_in_its_lowest_mode_rings_at_its_frequency_and_decay() {
    let (w, h, width, height, tension, density, tau) = (12usize, 8usize, 0.3, 0.2, 500.0, 0.25, 0.3);
    // m = sigma dx dy, k_x = T dy / dx, k_y = T dx / dy;
    // w_11^2 = (k_x lambda_1(W) + k_y lambda_1(H)) / m.
    let (dx, dy) = (width / (w + 1) as f64, height / (h + 1) as f64);
    let m = density * dx * dy;
    let omega =
        ((tension * dy / dx * lowest_eigenvalue(w) + tension * dx / dy * lowest_eigenvalue(h)) / m).sqrt();
    let mut source = format!(
        "[model]\ndimension = 1\n[[membrane]]\nid = \"d\"\ncolumns = {w}\nrows = {h}\nwidth = {width}\n\
         height = {height}\ntension = {tension}\nsurface_density = {density}\ndecay_time = {tau}\n"
    );
    for i in 1..=w {
        for j in 1..=h {
            let shape =
                1e-3 * (i as f64 * PI / (w + 1) as f64).sin() * (j as f64 * PI / (h + 1) as f64).sin();
            source.push_str(&format!("[[initial]]\nmass = \"d.{i}.{j}\"\nposition = {shape:?}\n"));
        }
    }
    assert_single_mode(&source, "d.6.4", omega, 2.0 / tau, 1.0 / 48_000.0, 10_000);
}

#[test]
fn membrane_and_chain_ids_positions_and_rest_lengths() {
    let file = parse(
        "[model]\ndimension = 2\n[[anchor]]\nid = \"top\"\nposition = [1.0, 2.0]\n\
         [[chain]]\nid = \"c\"\nfrom = \"top\"\nmasses = 3\nlink_length = 0.5\ndirection = [3.0, -4.0]\nmass = 0.1\nstiffness = 100.0\n\
         [[membrane]]\nid = \"net\"\ncolumns = 2\nrows = 1\nmass = 0.2\nstiffness = 50.0\nspacing = 0.25\norigin = [10.0, 0.0]\n",
        "ids.toml",
    )
    .unwrap();
    let model = file.model;
    let ids: Vec<&str> = model.masses().iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["c.1", "c.2", "c.3", "net.1.1", "net.2.1"]);
    // Chain: from (1, 2) along (0.6, -0.8) by 0.5 m per link.
    for (i, mass) in model.masses()[..3].iter().enumerate() {
        let s = 0.5 * (i + 1) as f64;
        assert!(
            (mass.position[0] - (1.0 + 0.6 * s)).abs() < 1e-15
                && (mass.position[1] - (2.0 - 0.8 * s)).abs() < 1e-15
        );
    }
    // Membrane: rim anchors (corners omitted), 2 x 1 masses, 3 links along x, 4 along y.
    let rim: Vec<&str> = model.anchors()[1..].iter().map(|a| a.id.as_str()).collect();
    assert_eq!(rim, ["net.1.0", "net.2.0", "net.0.1", "net.3.1", "net.1.2", "net.2.2"]);
    assert_eq!(model.masses()[4].position, [10.5, 0.25]);
    let links = model.links();
    assert_eq!(links.len(), 3 + 3 + 4);
    assert!(links[..3].iter().all(|l| l.rest_length == 0.5 && l.stiffness == 100.0));
    assert!(links[3..].iter().all(|l| l.rest_length == 0.25 && l.stiffness == 50.0));
}

#[test]
fn geometric_spring_dashpot_drag_and_gravity_forces_in_2d_and_3d() {
    for dim in [2, 3] {
        let pad = |v: [f64; 2]| {
            let mut v = v.to_vec();
            v.resize(dim, 0.0);
            v
        };
        let mut model = Model::new(dim).unwrap();
        model.set_gravity(&pad([0.0, -9.81])).unwrap();
        model.add_anchor(Anchor::new("a").position(pad([0.0, 0.0]))).unwrap();
        model
            .add_mass(Mass {
                id: "m".into(),
                mass: 2.0,
                position: pad([3.0, 4.0]),
                velocity: pad([1.0, 0.0]),
                drag: 0.1,
            })
            .unwrap();
        model.add_spring(Spring::new("a", "m", 2.0).rest_length(1.0).damping(0.5)).unwrap();
        let system = System::new(&model);
        let state = system.initial_state();
        let mut f = vec![0.0; state.x.len()];
        forces::total(&system, &state.x, &state.v, 0.0, &mut f);
        // Spring: -k (l - l0) d / l = -2 * 4 * (0.6, 0.8). Dashpot: -Z (v . d / l^2) d =
        // -0.5 * (3 / 25) * (3, 4). Gravity: m g = (0, -19.62). Drag: -gamma m v = (-0.2, 0).
        let expected = pad([-4.8 - 0.18 - 0.2, -6.4 - 0.24 - 19.62]);
        for c in 0..dim {
            assert!((f[c] - expected[c]).abs() < 1e-12, "{dim}D axis {c}: {} vs {}", f[c], expected[c]);
        }
    }
}

#[test]
fn drag_and_gravity_follow_their_closed_forms() {
    // One free mass, drag gamma and gravity g, symplectic Euler:
    // v_{n+1} = (1 - gamma h) v_n + g h, x_{n+1} = x_n + h v_{n+1}.
    let (gamma, g, h, steps) = (3.0, -9.81, 1e-3, 5000);
    let file = parse(
        &format!("[model]\ndimension = 1\ngravity = {g}\n[[mass]]\nid = \"m\"\nmass = 0.3\nposition = 2.0\nvelocity = 1.5\ndrag = {gamma}\n"),
        "fall.toml",
    )
    .unwrap();
    let mut simulation = Engine::from_system(
        System::new(&file.model),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(h),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut []).unwrap();
    // v_n = v_inf + (v_0 - v_inf) r^n with r = 1 - gamma h, v_inf = g / gamma;
    // x_n = x_0 + h sum_{k=1..n} v_k = x_0 + h (n v_inf + (v_0 - v_inf) r (1 - r^n) / (1 - r)).
    let (r, v_inf) = (1.0 - gamma * h, g / gamma);
    let n = steps as i32;
    let v = v_inf + (1.5 - v_inf) * r.powi(n);
    let x = 2.0 + h * (n as f64 * v_inf + (1.5 - v_inf) * r * (1.0 - r.powi(n)) / (1.0 - r));
    let state = simulation.state();
    assert!(
        (state.v[0] - v).abs() < 1e-12 && (state.x[0] - x).abs() < 1e-12,
        "{:?} vs ({x}, {v})",
        (state.x[0], state.v[0])
    );
}

#[test]
fn a_1d_chain_starts_at_rest_in_either_direction() {
    for direction in ["1.0", "-2.0"] {
        let file = parse(
            &format!(
                "[model]\ndimension = 1\n[[anchor]]\nid = \"a\"\nposition = 0.5\n[[anchor]]\nid = \"b\"\nposition = -3.0\n\
                 [[chain]]\nid = \"c\"\nfrom = \"a\"\nto = \"b\"\nmasses = 2\nlink_length = 0.25\ndirection = {direction}\nmass = 1.0\nstiffness = 10.0\n"
            ),
            "chain.toml",
        )
        .unwrap();
        let system = System::new(&file.model);
        let mut f = vec![0.0; system.initial_state().x.len()];
        forces::total(&system, &system.initial_state().x, &system.initial_state().v, 0.0, &mut f);
        assert_eq!(&f[..2], &[0.0, 0.0], "direction {direction}: no force at the start");
    }
}

#[test]
fn a_plate_in_a_file_has_the_modes_of_the_simply_supported_lattice() {
    // Mode (p, q) of the lattice: w = sqrt(D / (rho h)) mu_pq / s^2, mu_pq = 4 sin^2(p pi / 2(C+1))
    // + 4 sin^2(q pi / 2(R+1)); the three lowest of a 7 x 5 plate.
    let source = "[model]\ndimension = 1\n\n[[plate]]\nid = \"p\"\ncolumns = 7\nrows = 5\nspacing = 0.02\n\
                  surface_density = 31.4\nrigidity = 1172.0\n";
    let file = parse(source, "plate.toml").unwrap();
    let (columns, rows, spacing, density, rigidity): (usize, usize, f64, f64, f64) =
        (7, 5, 0.02, 31.4, 1172.0);
    assert_eq!(file.model.masses().len(), columns * rows);
    assert_eq!(file.model.masses()[1].id, "p.2.1", "masses row by row");
    let side = |k: usize, count: usize| 4.0 * (k as f64 * PI / (2 * (count + 1)) as f64).sin().powi(2);
    let mut mu: Vec<f64> =
        (1..=columns).flat_map(|p| (1..=rows).map(move |q| side(p, columns) + side(q, rows))).collect();
    mu.sort_by(f64::total_cmp);
    let system = System::new(&file.model);
    let linear =
        hooke::analysis::linearise::Linearisation::new(&system, &hooke::analysis::linearise::About::Initial)
            .unwrap();
    let mut found: Vec<f64> = linear
        .normalised_stiffness()
        .self_adjoint_eigenvalues(faer::Side::Lower)
        .unwrap()
        .into_iter()
        .map(f64::sqrt)
        .collect();
    found.sort_by(f64::total_cmp);
    for k in 0..3 {
        let expected = (rigidity / density).sqrt() * mu[k] / (spacing * spacing);
        assert!((found[k] / expected - 1.0).abs() < 1e-9, "mode {k}: {} rad/s, lattice {expected}", found[k]);
    }
    let error = parse(&source.replace("rows = 5", "rows = 1"), "plate.toml").unwrap_err().to_string();
    assert!(error.starts_with("plate.toml:7:8:") && error.contains("at least 2"), "{error}");
}
