//! Hertz contacts (barriers, collisions; Chatziioannou 2019, eq. (44)) and external forces
//! (Chatziioannou 2019, section 3.1): force and energy values against hand computations, tangent
//! stiffness against finite differences, the discrete-gradient identity, the Jacobian of eq. 80,
//! driven responses against closed forms and a bouncing ball's energy.

use hooke::analysis::energy::energy;
use hooke::engine::{Engine, EngineConfig, Observer, Pickups};
use hooke::forces::{self, contact};
use hooke::format::model::{load, parse, parse_relative_to};
use hooke::linalg::sparse::SparseMatrix;
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};
use std::path::PathBuf;

fn system(source: &str) -> System {
    let file = parse(source, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    System::new(&file.model)
}

fn conservative(system: &System, x: &[f64]) -> Vec<f64> {
    let mut f = vec![0.0; x.len()];
    forces::conservative(system, x, &mut f);
    f
}

fn assert_close(actual: f64, expected: f64, relative: f64, what: &str) {
    let error = (actual - expected).abs();
    assert!(
        error <= relative * expected.abs(),
        "{what}: {actual:e} vs {expected:e} (relative error {:e})",
        error / expected.abs()
    );
}

/// A 1D mass `m` (0.05 kg, at `y`) below a barrier at `y_c = 2.4e-4` m (normal -1).
fn reed_against_lay(y: f64, stiffness: f64, exponent: f64) -> System {
    system(&format!(
        "[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 0.05\nposition = {y:e}\n\
         [[barrier]]\nmasses = \"m\"\nposition = 2.4e-4\nnormal = -1\nstiffness = {stiffness:e}\nexponent = {exponent}\n"
    ))
}

#[test]
fn barrier_force_and_energy_in_1d() {
    // Penetration delta = y - y_c = 1e-5 m. alpha = 1.5: F = -k delta sqrt(delta),
    // V = k delta^2 sqrt(delta) / 2.5.
    let delta: f64 = 1e-5;
    let y = 2.4e-4 + delta;
    let delta = y - 2.4e-4; // the penetration as f64 sees it
    let s = reed_against_lay(y, 1e12, 1.5);
    let x = s.initial_state().x;
    assert_close(conservative(&s, &x)[0], -1e12 * delta * delta.sqrt(), 1e-13, "force, alpha 1.5");
    let e = energy(&s, &s.initial_state());
    assert_close(e.contact, 1e12 * delta * delta * delta.sqrt() / 2.5, 1e-13, "energy, alpha 1.5");
    assert_eq!(e.potential(), e.contact);
    assert_eq!(forces::potential(&s, &x), e.contact);
    // alpha = 1: a linear penalty spring, F = -k delta, V = k delta^2 / 2.
    let s = reed_against_lay(y, 2e9, 1.0);
    assert_close(conservative(&s, &x)[0], -2e9 * delta, 1e-13, "force, alpha 1");
    assert_close(forces::contact_energy(&s, &x), 1e9 * delta * delta, 1e-13, "energy, alpha 1");
    // On the free side, nothing.
    let s = reed_against_lay(2.0e-4, 1e12, 1.5);
    let x = s.initial_state().x;
    assert_eq!(conservative(&s, &x)[0], 0.0);
    assert_eq!(forces::contact_energy(&s, &x), 0.0);
}

#[test]
fn barrier_force_and_energy_in_2d() {
    // The plane x + y = 0 (normal (1, 1) / sqrt 2), a mass at (-1e-3, 5e-4): n . x = -5e-4 /
    // sqrt 2, so delta = 5e-4 / sqrt 2 and the force is k delta^1.5 (1, 1) / sqrt 2.
    let s = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = [-1e-3, 5e-4]\n\
         [[barrier]]\nid = \"wall\"\nmasses = [\"m\"]\nposition = [0.0, 0.0]\nnormal = [3.0, 3.0]\n\
         stiffness = 1e8\nexponent = 1.5\n",
    );
    let x = s.initial_state().x;
    let root_half = 0.5_f64.sqrt();
    let delta = 5e-4 * root_half;
    let push = 1e8 * delta * delta.sqrt();
    let f = conservative(&s, &x);
    assert_close(f[0], push * root_half, 1e-12, "fx");
    assert_close(f[1], push * root_half, 1e-12, "fy");
    assert_close(forces::contact_energy(&s, &x), 1e8 * delta.powi(2) * delta.sqrt() / 2.5, 1e-12, "energy");
    assert_eq!(s.barriers().normal.len(), 2);
    assert_close(s.barriers().normal[0], root_half, 1e-15, "normalised normal");
}

#[test]
fn collision_force_and_energy_in_2d_and_1d() {
    // 2D: a at (0, 0), b at (0.3, 0.4): l = 0.5, distance 0.52, delta = 0.02; b is pushed along
    // (0.6, 0.8) with k delta^1.5, a the opposite way.
    let s = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"b\"\nmass = 2.0\nposition = [0.3, 0.4]\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.52\nstiffness = 1e6\nexponent = 1.5\n",
    );
    let x = s.initial_state().x;
    let delta: f64 = 0.52 - 0.5;
    let push = 1e6 * delta * delta.sqrt();
    let f = conservative(&s, &x);
    for (i, expected) in [-0.6 * push, -0.8 * push, 0.6 * push, 0.8 * push].into_iter().enumerate() {
        assert_close(f[i], expected, 1e-12, &format!("f[{i}]"));
    }
    assert_close(forces::contact_energy(&s, &x), 1e6 * delta.powi(2) * delta.sqrt() / 2.5, 1e-12, "energy");
    // 1D, alpha = 1: b must stay 0.01 above a; at 0.009 above, delta = 0.001.
    let s = system(
        "[model]\ndimension = 1\n[[mass]]\nid = \"a\"\nmass = 1.0\n[[mass]]\nid = \"b\"\nmass = 1.0\nposition = 0.009\n\
         [[collision]]\nid = \"c\"\na = \"a\"\nb = \"b\"\ndistance = 0.01\nstiffness = 5e5\nexponent = 1\n",
    );
    let x = s.initial_state().x;
    let delta = 0.01 - 0.009;
    let f = conservative(&s, &x);
    assert_close(f[1], 5e5 * delta, 1e-12, "1D force on b");
    assert_close(f[0], -5e5 * delta, 1e-12, "1D force on a");
    assert_close(forces::contact_energy(&s, &x), 2.5e5 * delta * delta, 1e-12, "1D energy");
    // Apart: nothing.
    let apart = [0.0, 0.02];
    assert_eq!(conservative(&s, &apart), vec![0.0, 0.0]);
}

#[test]
fn a_prefix_pattern_selects_the_masses_of_a_string_and_skips_its_anchors() {
    let s = system(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 4\nmass = 0.01\nstiffness = 100.0\n\
         [[mass]]\nid = \"other\"\nmass = 1.0\n\
         [[barrier]]\nid = \"fretboard\"\nmasses = \"s.*\"\nposition = -1e-3\nnormal = 1\nstiffness = 1e9\nexponent = 1.5\n",
    );
    assert_eq!(s.barriers().mass, vec![0, 1, 2, 3]);
    assert!(s.has_contacts());
    assert!(!forces::is_linear(&s));
    // Without contacts the 1D system is linear; a zero-stiffness barrier is compiled away.
    let s = system(
        "[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
         [[barrier]]\nmasses = \"m\"\nposition = 1.0\nnormal = -1\nstiffness = 0\nexponent = 1\n",
    );
    assert!(s.barriers().is_empty() && forces::is_linear(&s));
}

/// Column `j` of `K` read by multiplying with the unit vector `e_j`.
fn stiffness_columns(system: &System, x: &[f64]) -> Vec<Vec<f64>> {
    let n = system.mass_coordinates();
    let mut k = SparseMatrix::new(n);
    forces::add_stiffness(system, x, 1.0, &mut k);
    (0..n)
        .map(|j| {
            let mut e = vec![0.0; n];
            e[j] = 1.0;
            let mut column = vec![0.0; n];
            k.multiply(&e, &mut column);
            column
        })
        .collect()
}

/// Asserts `K = -dF/dx` against central differences of `forces::conservative` with step `h`.
fn assert_stiffness_matches_differences(system: &System, x: &[f64], h: f64, what: &str) {
    let n = system.mass_coordinates();
    let columns = stiffness_columns(system, x);
    let largest = columns.iter().flatten().fold(0.0_f64, |m, v| m.max(v.abs()));
    assert!(largest > 0.0, "{what}: K is zero");
    for j in 0..n {
        let (mut plus, mut minus) = (x.to_vec(), x.to_vec());
        plus[j] += h;
        minus[j] -= h;
        let (fp, fm) = (conservative(system, &plus), conservative(system, &minus));
        for i in 0..n {
            let difference = -(fp[i] - fm[i]) / (2.0 * h);
            let error = (columns[j][i] - difference).abs();
            assert!(
                error <= 1e-6 * largest,
                "{what}: K[{i}][{j}] = {:e}, -dF/dx by differences {difference:e}",
                columns[j][i]
            );
        }
    }
}

#[test]
fn tangent_stiffness_equals_central_differences_of_the_force() {
    // Steps h = 1e-7 m against penetrations of 1e-3..1e-2 m: truncation (h / delta)^2 <= 1e-8,
    // rounding u F / (h K) <= 1e-10, both well under the 1e-6 tolerance.
    for exponent in [1.5, 1.0, 2.3] {
        let s = reed_against_lay(2.4e-4 + 3e-3, 1e9, exponent);
        assert_stiffness_matches_differences(
            &s,
            &s.initial_state().x,
            1e-7,
            &format!("1D barrier, alpha {exponent}"),
        );
    }
    let barrier_2d = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = [0.01, -0.02]\n\
         [[barrier]]\nmasses = \"m\"\nposition = [0.0, 0.0]\nnormal = [0.3, 1.0]\nstiffness = 1e7\nexponent = 1.5\n",
    );
    assert_stiffness_matches_differences(&barrier_2d, &barrier_2d.initial_state().x, 1e-7, "2D barrier");
    // 2D collision in contact, with a spring between the same balls and one to an anchor: the
    // springs (geometric, stretched and compressed) are checked along with the contact.
    let collision_2d = system(
        "[model]\ndimension = 2\n[[anchor]]\nid = \"o\"\nposition = [-1.0, 0.2]\n\
         [[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.3, 0.4]\n\
         [[spring]]\na = \"o\"\nb = \"a\"\nstiffness = 300.0\nrest_length = 0.7\n\
         [[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 200.0\nrest_length = 0.9\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.53\nstiffness = 1e5\nexponent = 1.5\n",
    );
    assert_stiffness_matches_differences(
        &collision_2d,
        &collision_2d.initial_state().x,
        1e-7,
        "2D collision and springs",
    );
    let collision_3d = system(
        "[model]\ndimension = 3\n[[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0, 0.1]\n\
         [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.2, -0.1, 0.3]\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.35\nstiffness = 1e5\nexponent = 1.5\n",
    );
    assert_stiffness_matches_differences(
        &collision_3d,
        &collision_3d.initial_state().x,
        1e-7,
        "3D collision",
    );
    let collision_1d = system(
        "[model]\ndimension = 1\n[[mass]]\nid = \"a\"\nmass = 1.0\n[[mass]]\nid = \"b\"\nmass = 1.0\nposition = 0.006\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.01\nstiffness = 1e8\nexponent = 1.5\n",
    );
    assert_stiffness_matches_differences(
        &collision_1d,
        &collision_1d.initial_state().x,
        1e-7,
        "1D collision",
    );
}

#[test]
fn the_stiffness_pattern_is_the_same_in_and_out_of_contact() {
    let s = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.3, 0.4]\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.52\nstiffness = 1e5\nexponent = 1.5\n\
         [[barrier]]\nmasses = [\"a\", \"b\"]\nposition = [0.0, 0.1]\nnormal = [0.0, 1.0]\nstiffness = 1e5\nexponent = 1\n",
    );
    let assemble = |x: &[f64]| {
        let mut k = SparseMatrix::new(4);
        forces::add_stiffness(&s, x, 1.0, &mut k);
        format!("{k:?}")
    };
    let touching = assemble(&[0.0, 0.0, 0.3, 0.4]);
    let apart = assemble(&[0.0, 1.0, 3.0, 4.0]);
    assert_eq!(touching, apart);
    assert!(touching.contains("entries: 24"), "{touching}"); // 2 x 4 (barriers) + 16 (collision)
}

/// A small deterministic generator of numbers in [-1, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Work of the discrete-gradient force over the step and the drop of the potential.
fn work_and_drop(system: &System, x0: &[f64], x1: &[f64]) -> (f64, f64) {
    let mut f = vec![0.0; x0.len()];
    forces::discrete_conservative(system, x0, x1, &mut f);
    let work: f64 = f.iter().zip(x1.iter().zip(x0)).map(|(f, (p, q))| f * (p - q)).sum();
    (work, forces::potential(system, x0) - forces::potential(system, x1))
}

/// Asserts `sum F_dg . (x1 - x0) = V(x0) - V(x1)` to 1e-12 of `|V(x0)| + |V(x1)|`: the two
/// potentials are themselves rounded to about 1e-16 of their size, so their difference cannot
/// be known better than that; 1e-12 leaves room for the sums over elements.
fn assert_discrete_gradient(system: &System, x0: &[f64], x1: &[f64], what: &str) -> bool {
    let (work, drop) = work_and_drop(system, x0, x1);
    let scale = forces::potential(system, x0).abs() + forces::potential(system, x1).abs();
    assert!(
        (work - drop).abs() <= 1e-12 * scale,
        "{what}: work {work:e}, potential drop {drop:e}, scale {scale:e}"
    );
    forces::contact_energy(system, x0) > 0.0 || forces::contact_energy(system, x1) > 0.0
}

#[test]
fn the_discrete_gradient_does_the_work_the_potential_loses() {
    let mut random = Lcg(2019);
    // 1D barrier with a spring to an anchor below it and gravity: steps that enter, leave, stay
    // in and stay out of contact.
    for exponent in [1.5, 1.0] {
        let s = system(&format!(
            "[model]\ndimension = 1\ngravity = 9.81\n[[anchor]]\nid = \"rest\"\n[[mass]]\nid = \"m\"\nmass = 0.05\n\
             [[spring]]\na = \"rest\"\nb = \"m\"\nstiffness = 1.2e7\n\
             [[barrier]]\nmasses = \"m\"\nposition = 2.4e-4\nnormal = -1\nstiffness = 1e12\nexponent = {exponent}\n"
        ));
        let mut in_contact = 0;
        for _ in 0..200 {
            let x0 = [2.4e-4 + 2e-5 * random.next(), 0.0];
            let x1 = [x0[0] + 2e-5 * random.next(), 0.0];
            in_contact +=
                usize::from(assert_discrete_gradient(&s, &x0, &x1, &format!("1D barrier alpha {exponent}")));
        }
        assert!(in_contact > 50, "only {in_contact} steps touched the barrier");
    }
    // 2D collision plus springs and a barrier, every coordinate moving.
    let s = system(
        "[model]\ndimension = 2\ngravity = [0.0, -9.81]\n[[anchor]]\nid = \"o\"\nposition = [-1.0, 0.2]\n\
         [[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.3, 0.4]\n\
         [[spring]]\na = \"o\"\nb = \"a\"\nstiffness = 300.0\nrest_length = 0.7\n\
         [[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 200.0\nrest_length = 0.9\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.5\nstiffness = 1e5\nexponent = 1.5\n\
         [[barrier]]\nmasses = \"*\"\nposition = [0.0, -0.01]\nnormal = [0.1, 1.0]\nstiffness = 1e6\nexponent = 1.5\n",
    );
    let base = s.initial_state().x;
    let mut in_contact = 0;
    for _ in 0..200 {
        let x0: Vec<f64> =
            base.iter().enumerate().map(|(i, p)| if i < 4 { p + 0.03 * random.next() } else { *p }).collect();
        let x1: Vec<f64> =
            x0.iter().enumerate().map(|(i, p)| if i < 4 { p + 0.03 * random.next() } else { *p }).collect();
        in_contact +=
            usize::from(assert_discrete_gradient(&s, &x0, &x1, "2D collision, barrier and springs"));
    }
    assert!(in_contact > 50, "only {in_contact} steps touched");
    // 2D springs alone (the lead's Gonzalez form), far from any contact.
    let springs = system(
        "[model]\ndimension = 2\n[[anchor]]\nid = \"o\"\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"a\"\nmass = 1.0\nposition = [1.0, 0.0]\n[[mass]]\nid = \"b\"\nmass = 1.0\nposition = [1.0, 1.0]\n\
         [[spring]]\na = \"o\"\nb = \"a\"\nstiffness = 50.0\nrest_length = 0.8\n\
         [[spring]]\na = \"a\"\nb = \"b\"\nstiffness = 70.0\nrest_length = 1.3\n",
    );
    let base = springs.initial_state().x;
    for _ in 0..100 {
        let x0: Vec<f64> =
            base.iter().enumerate().map(|(i, p)| if i < 4 { p + 0.2 * random.next() } else { *p }).collect();
        let x1: Vec<f64> =
            x0.iter().enumerate().map(|(i, p)| if i < 4 { p + 0.2 * random.next() } else { *p }).collect();
        assert_discrete_gradient(&springs, &x0, &x1, "2D springs");
    }
}

#[test]
fn tiny_steps_use_the_midpoint_derivative_without_a_jump() {
    let (k, alpha, delta) = (1e12, 1.5, 1e-5);
    // Just above and just below the threshold the two forms agree to the quotient's rounding
    // (about u / TINY_STEP = 2e-11) plus the midpoint form's error (r^2 / 8 ~ 1e-11).
    let r = contact::TINY_STEP;
    let step = |factor: f64| 2.0 * delta * r * factor / (1.0 - r * factor);
    let midpoint_derivative = |factor: f64| k * (delta + 0.5 * step(factor)).powf(alpha);
    let above = contact::discrete_derivative(k, alpha, delta, delta + step(1.01));
    assert_close(above, midpoint_derivative(1.01), 1e-9, "quotient just above the threshold");
    let below = contact::discrete_derivative(k, alpha, delta, delta + step(0.99));
    assert_close(below, midpoint_derivative(0.99), 1e-15, "midpoint form just below");
    // The energy identity still holds for a tiny step, to the potential's rounding.
    let s = reed_against_lay(2.4e-4 + delta, k, alpha);
    let x0 = s.initial_state().x;
    let x1 = [x0[0] * (1.0 + 1e-9)];
    let (work, drop) = work_and_drop(&s, &x0, &x1);
    let scale = forces::potential(&s, &x0);
    assert!((work - drop).abs() <= 1e-14 * scale, "tiny step: work {work:e}, drop {drop:e}");
    // Both penetrations zero (resting exactly on the plane): no 0 / 0.
    assert_eq!(contact::discrete_derivative(k, alpha, 0.0, 0.0), 0.0);
    assert_eq!(contact::discrete_derivative_slope(k, alpha, 0.0, 0.0), 0.0);
}

/// Asserts `K_dg = -dF_dg(x0, x1)/dx1` (Chatziioannou 2019, eq. (80)) against central differences
/// in `x1`.
fn assert_discrete_stiffness(system: &System, x0: &[f64], x1: &[f64], h: f64, what: &str) {
    let n = system.mass_coordinates();
    let mut k = SparseMatrix::new(n);
    contact::add_discrete_stiffness(system, x0, x1, 1.0, &mut k);
    let mut largest = 0.0_f64;
    let mut columns = Vec::new();
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let mut column = vec![0.0; n];
        k.multiply(&e, &mut column);
        largest = column.iter().fold(largest, |m, v| m.max(v.abs()));
        columns.push(column);
    }
    assert!(largest > 0.0, "{what}: K_dg is zero");
    // Only the contacts: the system under test has no springs or gravity.
    for j in 0..n {
        let (mut plus, mut minus) = (x1.to_vec(), x1.to_vec());
        plus[j] += h;
        minus[j] -= h;
        let (mut fp, mut fm) = (vec![0.0; x0.len()], vec![0.0; x0.len()]);
        forces::discrete_conservative(system, x0, &plus, &mut fp);
        forces::discrete_conservative(system, x0, &minus, &mut fm);
        for i in 0..n {
            let difference = -(fp[i] - fm[i]) / (2.0 * h);
            assert!(
                (columns[j][i] - difference).abs() <= 1e-6 * largest,
                "{what}: K_dg[{i}][{j}] = {:e}, by differences {difference:e}",
                columns[j][i]
            );
        }
    }
}

#[test]
fn the_discrete_gradient_jacobian_of_eq_80_matches_differences() {
    let barrier = reed_against_lay(0.0, 1e12, 1.5);
    let y_c = 2.4e-4;
    // Into contact, deeper in, out of contact (delta0 > 0 > delta1).
    for (y0, y1) in [(y_c - 1e-5, y_c + 2e-5), (y_c + 1e-5, y_c + 3e-5), (y_c + 2e-5, y_c - 1e-5)] {
        assert_discrete_stiffness(&barrier, &[y0], &[y1], 1e-10, &format!("barrier {y0:e} -> {y1:e}"));
    }
    let collision_2d = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
         [[mass]]\nid = \"b\"\nmass = 1.0\nposition = [0.3, 0.4]\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.52\nstiffness = 1e5\nexponent = 1.5\n",
    );
    let x0 = [0.0, 0.0, 0.3, 0.4];
    for x1 in [[0.01, -0.005, 0.29, 0.41], [-0.02, 0.0, 0.35, 0.43]] {
        assert_discrete_stiffness(&collision_2d, &x0, &x1, 1e-8, &format!("2D collision to {x1:?}"));
    }
    let collision_1d = system(
        "[model]\ndimension = 1\n[[mass]]\nid = \"a\"\nmass = 1.0\n[[mass]]\nid = \"b\"\nmass = 1.0\nposition = 0.006\n\
         [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.01\nstiffness = 1e8\nexponent = 1.5\n",
    );
    assert_discrete_stiffness(
        &collision_1d,
        &[0.0, 0.006],
        &[0.001, 0.012],
        1e-9,
        "1D collision leaving contact",
    );
    // At x1 = x0 the Jacobian is half the tangent stiffness.
    let x = [0.0, 0.0, 0.3, 0.4];
    let half = stiffness_columns(&collision_2d, &x);
    let mut k = SparseMatrix::new(4);
    contact::add_discrete_stiffness(&collision_2d, &x, &x, 2.0, &mut k);
    for (j, column) in half.iter().enumerate() {
        let mut e = [0.0; 4];
        e[j] = 1.0;
        let mut doubled = [0.0; 4];
        k.multiply(&e, &mut doubled);
        for i in 0..4 {
            assert!((doubled[i] - column[i]).abs() <= 1e-9 * column[i].abs().max(1.0), "[{i}][{j}]");
        }
    }
}

#[test]
fn sinusoidal_and_constant_forces_are_the_closed_forms() {
    let s = system(
        "[model]\ndimension = 2\n[[mass]]\nid = \"m\"\nmass = 2.0\nposition = [0.0, 0.0]\n\
         [[force]]\nmass = \"m\"\naxis = \"y\"\n\
         sinusoids = [{ amplitude = 3.0, frequency = 146.0, phase = 0.5 }, { amplitude = -0.25, frequency = 438.0 }]\n\
         [[force]]\nmass = \"m\"\nconstant = 1.5\n",
    );
    let state = s.initial_state();
    let mut f = vec![0.0; 2];
    for t in [0.0, 1e-4, 0.0123, 1.0 / 146.0, 2.5] {
        forces::total(&s, &state.x, &state.v, t, &mut f);
        let pi = std::f64::consts::PI;
        let expected = 3.0 * (2.0 * pi * 146.0 * t + 0.5).sin() - 0.25 * (2.0 * pi * 438.0 * t).sin();
        assert!((f[1] - expected).abs() <= 1e-13, "t = {t}: {} vs {expected}", f[1]);
        assert_eq!(f[0], 1.5);
    }
}

/// A fresh temporary folder for this test.
fn temporary_folder(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("hooke-contact-and-drive-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

#[test]
fn a_wav_force_interpolates_its_samples_linearly() {
    let folder = temporary_folder("wav");
    // Stereo, 16 bit, 1000 Hz; channel 2 carries the signal.
    let right: [i16; 5] = [0, 16384, -8192, 32767, -32768];
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 1000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(folder.join("drive.wav"), spec).unwrap();
    for &r in &right {
        writer.write_sample(1000_i16).unwrap();
        writer.write_sample(r).unwrap();
    }
    writer.finalize().unwrap();
    let model = "[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
                 [[force]]\nmass = \"m\"\nwav = \"drive.wav\"\nchannel = 2\ngain = 10.0\n";
    let path = folder.join("model.toml");
    std::fs::write(&path, model).unwrap();
    // `load` reads the WAV beside the model file, wherever the current directory is.
    let file = load(&path).unwrap_or_else(|e| panic!("{e}"));
    let s = System::new(&file.model);
    let force_at = |t: f64| {
        let mut f = vec![0.0];
        forces::total(&s, &[0.0], &[0.0], t, &mut f);
        f[0]
    };
    let newtons: Vec<f64> = right.iter().map(|&r| 10.0 * f64::from(r) / 32768.0).collect();
    for (n, expected) in newtons.iter().enumerate() {
        assert!((force_at(n as f64 / 1000.0) - expected).abs() <= 1e-12, "sample {n}");
    }
    for n in 0..4 {
        let midpoint = 0.5 * (newtons[n] + newtons[n + 1]);
        assert!((force_at((n as f64 + 0.5) / 1000.0) - midpoint).abs() <= 1e-12, "between {n} and {}", n + 1);
    }
    let quarter = newtons[1] + 0.25 * (newtons[2] - newtons[1]);
    assert!((force_at(1.25e-3) - quarter).abs() <= 1e-12);
    // Zero before the start, a ramp to zero after the last sample, zero from len / rate on.
    assert_eq!(force_at(-1e-4), 0.0);
    assert!((force_at(4.5e-3) - 0.5 * newtons[4]).abs() <= 1e-12);
    assert_eq!(force_at(5e-3), 0.0);
    assert_eq!(force_at(1.0), 0.0);
    // The same text through `parse_relative_to`; through `parse` the path is relative to the
    // current directory, where there is no drive.wav.
    parse_relative_to(model, "model.toml", &folder).unwrap_or_else(|e| panic!("{e}"));
    let e = parse(model, "model.toml").unwrap_err();
    assert_eq!((e.line, e.column), (8, 7), "{e}");
    // A model file that cannot be read.
    let e = load(&folder.join("missing.toml")).unwrap_err();
    assert!(e.to_string().contains("cannot read the model file"), "{e}");
    std::fs::remove_dir_all(&folder).ok();
}

/// Records position, velocity and energy.
#[derive(Default)]
struct Log {
    t: Vec<f64>,
    x: Vec<f64>,
    v: Vec<f64>,
    energy: Vec<f64>,
    contact: Vec<f64>,
}

impl Observer for Log {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        let e = energy(system, state);
        self.t.push(state.t);
        self.x.push(state.x[0]);
        self.v.push(state.v[0]);
        self.energy.push(e.total());
        self.contact.push(e.contact);
        Ok(())
    }
}

fn run(source: &str, scheme: SchemeKind, dt: f64, steps: u64) -> Log {
    let mut simulation = Engine::from_system(
        system(source),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(dt),
    )
    .unwrap();
    let mut log = Log::default();
    simulation.run(steps, &mut [], &mut [&mut log]).unwrap_or_else(|e| panic!("{e}"));
    log
}

#[test]
fn a_driven_undamped_oscillator_follows_its_forced_response() {
    // m x'' = -k x + A sin(w t), w0 = 100 rad/s, w = 60 rad/s. Starting at x = 0 with the
    // particular solution's velocity, the motion is the particular solution alone:
    // x(t) = X sin(w t), X = A / (m (w0^2 - w^2)).
    let (m, w0, w, amplitude) = (0.5_f64, 100.0_f64, 60.0_f64, 2.0_f64);
    let big_x = amplitude / (m * (w0 * w0 - w * w));
    let source = format!(
        "[model]\ndimension = 1\n[[anchor]]\nid = \"g\"\n[[mass]]\nid = \"m\"\nmass = {m}\nvelocity = {v0:e}\n\
         [[spring]]\na = \"g\"\nb = \"m\"\nstiffness = {k:e}\n\
         [[force]]\nmass = \"m\"\nsinusoids = [{{ amplitude = {amplitude}, frequency = {f:e} }}]\n",
        v0 = big_x * w,
        k = m * w0 * w0,
        f = w / (2.0 * std::f64::consts::PI),
    );
    // Symplectic Euler's positions obey leapfrog's recurrence
    // (x_{n+1} - 2 x_n + x_{n-1}) / h^2 = -w0^2 x_n + (A / m) sin(w n h), whose forced response
    // X_h sin(w n h) has X_h = (A / m) / (w0^2 - (4 / h^2) sin^2(w h / 2)), off from X by
    // w^4 h^2 / (12 (w0^2 - w^2)) = 2e-8 relative at h = 1e-5 s. Its start x_1 = h v(0) misses
    // X_h sin(w h) by (w h)^2 / 6 = 6e-8 relative, which starts a free oscillation of that
    // size; neither grows. 1e-6 X is 10x their sum.
    let (dt, steps) = (1e-5, 200_000);
    let log = run(&source, SchemeKind::SymplecticEuler, dt, steps);
    let worst = log.t.iter().zip(&log.x).map(|(t, x)| (x - big_x * (w * t).sin()).abs()).fold(0.0, f64::max);
    assert!(worst <= 1e-6 * big_x, "largest deviation {worst:e} m for an amplitude of {big_x:e} m");
}

#[test]
fn a_ball_dropped_on_a_barrier_bounces_and_keeps_its_energy() {
    // 0.1 kg dropped from 0.1 m onto a floor at 0 (normal +1), k = 1e6 N/m^1.5, alpha = 1.5.
    // Impact at sqrt(2 g h) = 1.4 m/s; largest penetration delta where the energy balance
    // m g (h + delta) = k delta^2.5 / 2.5 holds (2.3 mm), where the contact stiffness
    // k alpha sqrt(delta) is 7e4 N/m (w = 850 rad/s, w dt = 0.008).
    let source = "[model]\ndimension = 1\ngravity = -9.81\n[[mass]]\nid = \"ball\"\nmass = 0.1\nposition = 0.1\n\
                  [[barrier]]\nid = \"floor\"\nmasses = \"ball\"\nposition = 0.0\nnormal = 1\nstiffness = 1e6\nexponent = 1.5\n";
    let (dt, steps) = (1e-5, 30_000); // 0.3 s: the fall takes 0.143 s, the way back up as long
    let log = run(source, SchemeKind::SymplecticEuler, dt, steps);
    let touched = log.contact.iter().position(|&c| c > 0.0).expect("the ball reaches the floor");
    let left =
        touched + log.contact[touched..].iter().position(|&c| c == 0.0).expect("the ball leaves the floor");
    assert!(log.v[touched] < -1.3, "falling at {} m/s", log.v[touched]);
    assert!(log.v[left] > 1.3, "rising at {} m/s", log.v[left]);
    let deepest = log.x.iter().fold(f64::INFINITY, |m, &x| m.min(x));
    let mut expected_depth = 0.0;
    for _ in 0..20 {
        expected_depth = (2.5 * 0.1 * 9.81 * (0.1 + expected_depth) / 1e6_f64).powf(0.4);
    }
    // At the turning point v = 0, so the energy error below (which goes with v . F) vanishes
    // there but for O(h^2) terms; sampling misses the turning point by at most dt / 2, which
    // changes the depth by (w dt)^2 / 8 = 1e-5 relative: 1e-4 bounds both.
    assert_close(-deepest, expected_depth, 1e-4, "largest penetration");
    // Symplectic Euler conserves a modified energy that differs from H by (h / 2) v . F +
    // O(h^2) (F the conservative force), so H oscillates by about (h / 2) |v . F|. In contact
    // |v . F| < 1.4 m/s * k delta^1.5 (110 N) = 160 W, so (h / 2) |v . F| < 8e-4 J: 1e-3 J
    // (1 % of m g h = 0.098 J) bounds it with room for the O(h^2) terms. After the bounce
    // only gravity acts, and H is back within (h / 2) m g |v| = 7e-6 J of the start; 2e-5 J
    // leaves room for the O(h^2) change across the contact.
    let e0 = log.energy[0];
    let worst = log.energy.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    assert!(worst <= 1e-3, "energy deviation {worst:e} J of {e0} J");
    let after = log.energy[left + 100..].iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    assert!(after <= 2e-5, "energy after the bounce off by {after:e} J");
    // It rises back to (nearly) its starting height: the velocity changes sign again at the top.
    let top = left + log.v[left..].iter().position(|&v| v <= 0.0).expect("the ball reaches a top");
    assert_close(log.x[top], 0.1, 1e-3, "height of the rebound");
}

#[test]
fn colliding_balls_in_2d_keep_their_momentum() {
    // Internal forces are equal and opposite, so the total momentum is exact up to rounding.
    let source = "[model]\ndimension = 2\n[[mass]]\nid = \"a\"\nmass = 1.0\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\n\
                  [[mass]]\nid = \"b\"\nmass = 3.0\nposition = [0.5, 0.05]\n\
                  [[collision]]\na = \"a\"\nb = \"b\"\ndistance = 0.2\nstiffness = 1e7\nexponent = 1.5\n";
    let mut simulation = Engine::from_system(
        system(source),
        Pickups::default(),
        EngineConfig::default().scheme(SchemeKind::SymplecticEuler).dt(1e-5),
    )
    .unwrap();
    simulation.run(60_000, &mut [], &mut []).unwrap();
    let v = &simulation.state().v;
    assert!((v[0] + 3.0 * v[2] - 1.0).abs() < 1e-12 && (v[1] + 3.0 * v[3]).abs() < 1e-12, "{v:?}");
    // They did collide: b moves, a was deflected.
    assert!(v[2] > 0.1 && v[1] < -0.01, "{v:?}");
    let e = energy(simulation.system(), &simulation.state());
    assert!((e.total() - 0.5).abs() < 1e-3 && e.contact == 0.0, "{e:?}");
}
