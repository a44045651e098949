//! Force kernels over a compiled [`System`]: gravity, springs, dampers and drag.
//!
//! Every kernel reads state vectors laid out as in [`crate::system`] (masses then anchors) and
//! accumulates into a force vector of the same layout. Forces landing on anchors are the
//! reactions of the supports; schemes ignore them.

use crate::system::{LinkArrays, System};

/// Total force on every node, N: `f = m g + springs(x) + dampers(x, v) + drag(v)`.
/// `f` is overwritten; `t` (s) is the time the state belongs to.
pub fn total(system: &System, x: &[f64], v: &[f64], t: f64, f: &mut [f64]) {
    conservative(system, x, t, f);
    add_dissipative(system, x, v, f);
}

/// Forces that derive from a potential (gravity, springs), N; `f` is overwritten.
pub fn conservative(system: &System, x: &[f64], _t: f64, f: &mut [f64]) {
    f.fill(0.0);
    let gravity = system.gravity_force();
    f[..gravity.len()].copy_from_slice(gravity);
    match system.dimension() {
        1 => add_springs_1d(system.springs(), x, f),
        2 => add_springs_geometric::<2>(system.springs(), x, f),
        _ => add_springs_geometric::<3>(system.springs(), x, f),
    }
}

/// Adds the velocity-dependent forces (dampers and drag), N.
pub fn add_dissipative(system: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
    match system.dimension() {
        1 => add_dampers_1d(system.dampers(), v, f),
        2 => add_dampers_geometric::<2>(system.dampers(), x, v, f),
        _ => add_dampers_geometric::<3>(system.dampers(), x, v, f),
    }
    for ((fi, vi), c) in f.iter_mut().zip(v).zip(system.drag()) {
        *fi -= c * vi;
    }
}

/// 1D springs (seed 000 eqs. 12-13): `F_a = k (x_b - x_a - l0)`, `F_b = -F_a`.
fn add_springs_1d(springs: &LinkArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let force = springs.coefficient[i] * (x[b] - x[a] - springs.rest_length[i]);
        f[a] += force;
        f[b] -= force;
    }
}

/// 1D dampers (seed 000 eq. 14): `F_a = Z (v_b - v_a)`, `F_b = -F_a`.
fn add_dampers_1d(dampers: &LinkArrays, v: &[f64], f: &mut [f64]) {
    for i in 0..dampers.len() {
        let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
        let force = dampers.coefficient[i] * (v[b] - v[a]);
        f[a] += force;
        f[b] -= force;
    }
}

/// The vector from node `a` to node `b`.
#[inline(always)]
fn separation<const D: usize>(x: &[f64], a: usize, b: usize) -> [f64; D] {
    std::array::from_fn(|c| x[b * D + c] - x[a * D + c])
}

/// Adds `scale * d` to node `a` and subtracts it from node `b`.
#[inline(always)]
fn apply_pair<const D: usize>(f: &mut [f64], a: usize, b: usize, scale: f64, d: &[f64; D]) {
    for c in 0..D {
        f[a * D + c] += scale * d[c];
        f[b * D + c] -= scale * d[c];
    }
}

/// Geometric springs (seed 004): with `d = x_b - x_a`, `l = |d|`, the force on `a` is
/// `k (l - l0) d / l`. A spring of zero current length has no direction and yields NaN, which
/// the run loop reports as an instability.
fn add_springs_geometric<const D: usize>(springs: &LinkArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let d = separation::<D>(x, a, b);
        let length = d.iter().map(|c| c * c).sum::<f64>().sqrt();
        let scale = springs.coefficient[i] * (length - springs.rest_length[i]) / length;
        apply_pair(f, a, b, scale, &d);
    }
}

/// Geometric dashpots: the force on `a` is `Z ((v_b - v_a) . d) d / |d|^2`, the damper force on
/// the relative velocity along the link.
fn add_dampers_geometric<const D: usize>(dampers: &LinkArrays, x: &[f64], v: &[f64], f: &mut [f64]) {
    for i in 0..dampers.len() {
        let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
        let d = separation::<D>(x, a, b);
        let dv = separation::<D>(v, a, b);
        let along: f64 = d.iter().zip(&dv).map(|(p, q)| p * q).sum();
        let length_sq: f64 = d.iter().map(|c| c * c).sum();
        let scale = dampers.coefficient[i] * along / length_sq;
        apply_pair(f, a, b, scale, &d);
    }
}
