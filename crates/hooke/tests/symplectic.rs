//! Which schemes are symplectic: `SchemeInfo` against a list written by hand from the literature,
//! and both against the one-step maps themselves, measured. A map `u -> Phi(u)` of `u = (x, p)`
//! is symplectic when its Jacobian `J` keeps the form `J^T Omega J = Omega`; the test measures
//! `J` by central differences and reports the largest entry of `J^T Omega J - Omega`.

use hooke::format::model::parse;
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};

/// The schemes symplectic on every conservative network, and those symplectic on linear
/// networks only, as the literature states them:
/// - Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006: symplectic Euler
///   (theorem VI.3.3), Störmer-Verlet / velocity Verlet (theorem VI.3.4), the implicit midpoint
///   rule (a Gauss method, theorem VI.4.2), compositions of symplectic maps (VEFRL, VV[cs]
///   undamped); the trapezoidal rule is not symplectic, only conjugate to the midpoint rule
///   (section VI.8); the exact flow is symplectic (theorem VI.2.4), and a kick by a potential
///   force is the exact flow of that potential, so the exact scheme with impulses is too.
/// - Chatziioannou 2019, text after eq. (27): on a linear system the energy-conserving scheme
///   equals the midpoint and trapezoidal rules; in general energy and symplecticity cannot
///   both be kept (Ge & Marsden 1988, the paper's [19]). Caldirola-Kanai and EC[cs] take the
///   energy-conserving step when undamped.
const SYMPLECTIC: [SchemeKind; 6] = [
    SchemeKind::SymplecticEuler,
    SchemeKind::Vefrl,
    SchemeKind::VelocityVerlet,
    SchemeKind::Midpoint,
    SchemeKind::VelocityVerletCs,
    SchemeKind::Exact,
];
const LINEAR_ONLY: [SchemeKind; 4] = [
    SchemeKind::EnergyConserving,
    SchemeKind::Trapezoidal,
    SchemeKind::CaldirolaKanai,
    SchemeKind::EnergyConservingCs,
];

#[test]
fn scheme_info_says_what_the_literature_says() {
    for scheme in SchemeKind::ALL {
        let info = scheme.info();
        assert_eq!(info.symplectic, SYMPLECTIC.contains(&scheme), "{scheme}: symplectic");
        assert_eq!(
            info.linear_symplectic,
            SYMPLECTIC.contains(&scheme) || LINEAR_ONLY.contains(&scheme),
            "{scheme}: symplectic on linear networks"
        );
    }
}

/// Two masses hanging in a chain of geometric springs (rest lengths, so the forces are nonlinear
/// in the positions), no damping, swinging.
fn nonlinear_chain() -> System {
    let source = "[model]\ndimension = 2\ngravity = [0.0, -9.81]\n\
                  [[anchor]]\nid = \"top\"\nposition = [0.0, 0.0]\n\
                  [[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.6, -0.9]\nvelocity = [1.0, 0.5]\n\
                  [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [1.5, -1.4]\nvelocity = [-0.5, 1.5]\n\
                  [[spring]]\na = \"top\"\nb = \"a\"\nstiffness = 400.0\nrest_length = 0.8\n\
                  [[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 300.0\nrest_length = 0.7\n";
    System::new(&parse(source, "chain.toml").unwrap().model)
}

/// Three masses on linear 1D springs between two anchors, no damping.
fn linear_chain() -> System {
    let source = "[model]\ndimension = 1\n[[anchor]]\nid = \"l\"\n[[anchor]]\nid = \"r\"\n\
                  [[mass]]\nid = \"a\"\nmass = 1.0\nposition = 0.2\n\
                  [[mass]]\nid = \"b\"\nmass = 1.0\nvelocity = 1.0\n\
                  [[mass]]\nid = \"c\"\nmass = 1.0\nposition = -0.1\n\
                  [[spring]]\na = \"l\"\nb = \"a\"\nstiffness = 400.0\n[[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 300.0\n\
                  [[spring]]\na = \"b\"\nb = \"c\"\nstiffness = 500.0\n[[spring]]\na = \"c\"\nb = \"r\"\nstiffness = 200.0\n";
    System::new(&parse(source, "line.toml").unwrap().model)
}

/// One step of `scheme` from `u = (x, v)` of the moving coordinates (every mass is 1 kg, so
/// `p = v`), with a scheme built afresh so that nothing carries over from another start.
fn step(system: &System, scheme: SchemeKind, dt: f64, u: &[f64]) -> Vec<f64> {
    let n = system.mass_coordinates();
    let mut state: State = system.initial_state();
    state.x[..n].copy_from_slice(&u[..n]);
    state.v[..n].copy_from_slice(&u[n..]);
    scheme.build(system, dt).unwrap().step(system, &mut state).unwrap();
    state.x[..n].iter().chain(&state.v[..n]).copied().collect()
}

/// The largest entry of `J^T Omega J - Omega` of one step from the initial state.
fn symplectic_defect(system: &System, scheme: SchemeKind, dt: f64) -> f64 {
    let n = system.mass_coordinates();
    let start = system.initial_state();
    let u0: Vec<f64> = start.x[..n].iter().chain(&start.v[..n]).copied().collect();
    let size = 2 * n;
    // Column k of J: (Phi(u0 + e_k) - Phi(u0 - e_k)) / 2e.
    let columns: Vec<Vec<f64>> = (0..size)
        .map(|k| {
            let e = 1e-5 * u0[k].abs().max(1.0);
            let (mut plus, mut minus) = (u0.clone(), u0.clone());
            plus[k] += e;
            minus[k] -= e;
            let (a, b) = (step(system, scheme, dt, &plus), step(system, scheme, dt, &minus));
            a.iter().zip(&b).map(|(a, b)| (a - b) / (2.0 * e)).collect()
        })
        .collect();
    // (J^T Omega J)_{ij} = sum_k J_{k i} (Omega J)_{k j}, with Omega = [[0, I], [-I, 0]].
    let omega_times = |column: &[f64]| -> Vec<f64> {
        (0..size).map(|k| if k < n { column[k + n] } else { -column[k - n] }).collect()
    };
    let mut defect = 0.0f64;
    for i in 0..size {
        for j in 0..size {
            let product: f64 = columns[i].iter().zip(omega_times(&columns[j])).map(|(a, b)| a * b).sum();
            let form = if j == i + n {
                1.0
            } else if i == j + n {
                -1.0
            } else {
                0.0
            };
            defect = defect.max((product - form).abs());
        }
    }
    defect
}

/// Above this defect a map is not symplectic; below it, the differences' rounding and the
/// Newton tolerance of the implicit schemes.
const TOLERANCE: f64 = 1e-6;

#[test]
fn the_one_step_maps_of_a_nonlinear_network_are_symplectic_exactly_where_the_table_says() {
    let system = nonlinear_chain();
    for scheme in SchemeKind::ALL {
        let defect = symplectic_defect(&system, scheme, 0.02);
        let symplectic = defect < TOLERANCE;
        assert_eq!(symplectic, scheme.info().symplectic, "{scheme}: defect {defect:.3e}");
    }
}

#[test]
fn the_one_step_maps_of_a_linear_network_are_symplectic_exactly_where_the_table_says() {
    let system = linear_chain();
    for scheme in SchemeKind::ALL {
        let defect = symplectic_defect(&system, scheme, 0.02);
        let symplectic = defect < TOLERANCE;
        assert_eq!(symplectic, scheme.info().linear_symplectic, "{scheme}: defect {defect:.3e}");
    }
}
