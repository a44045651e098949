//! Springs: forces, stored energy, tangent stiffness and discrete gradient.
//!
//! 1D (Morgan & Qiao 2009, eqs. (12)-(13)): `F_a = k (x_b - x_a - l0)`, `F_b = -F_a`, energy
//! `k (x_b - x_a - l0)^2 / 2`. 2D/3D, geometric (as in Domoszlai's blog post): with
//! `d = x_b - x_a`, `l = |d|`, `F_a = k (l - l0) d / l`, energy `k (l - l0)^2 / 2`.

use super::{apply_pair, separation, separation_of};
use crate::linalg::Assemble;
use crate::system::LinkArrays;

/// Adds every spring's force to `f`. A geometric spring of zero current length has no direction
/// and yields NaN, which the run loop reports as an instability.
pub(super) fn add_forces(springs: &LinkArrays, dim: usize, x: &[f64], f: &mut [f64]) {
    match dim {
        1 => add_forces_1d(springs, x, f),
        2 => add_forces_geometric::<2>(springs, x, f),
        _ => add_forces_geometric::<3>(springs, x, f),
    }
}

fn add_forces_1d(springs: &LinkArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let force = springs.coefficient[i] * (x[b] - x[a] - springs.rest_length[i]);
        f[a] += force;
        f[b] -= force;
    }
}

fn add_forces_geometric<const D: usize>(springs: &LinkArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let d = separation::<D>(x, a, b);
        let length = norm(&d);
        let scale = springs.coefficient[i] * (length - springs.rest_length[i]) / length;
        apply_pair(f, a, b, scale, &d);
    }
}

/// Energy stored in the springs, J.
pub(super) fn energy(springs: &LinkArrays, dim: usize, x: &[f64]) -> f64 {
    (0..springs.len())
        .map(|i| {
            let stretch = extension(springs, dim, x, i);
            0.5 * springs.coefficient[i] * stretch * stretch
        })
        .sum()
}

/// `l - l0` of spring `i` (1D: `x_b - x_a - l0`).
fn extension(springs: &LinkArrays, dim: usize, x: &[f64], i: usize) -> f64 {
    let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
    if dim == 1 {
        x[b] - x[a] - springs.rest_length[i]
    } else {
        let length_sq: f64 = (0..dim).map(|c| (x[b * dim + c] - x[a * dim + c]).powi(2)).sum();
        length_sq.sqrt() - springs.rest_length[i]
    }
}

/// Adds `scale * K(x)` to `matrix`, where `K = -dF/dx` is the tangent stiffness. 1D: `k` on the
/// diagonal of both ends and `-k` between them. 2D/3D: the block
/// `B = k ((1 - l0/l) I + (l0/l) u u^T)` (`u = d / l`; the first term is the tension, or
/// prestress, term) with `+B` on the diagonal blocks and `-B` off the diagonal.
pub(super) fn add_stiffness(
    springs: &LinkArrays,
    dim: usize,
    x: &[f64],
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let k = scale * springs.coefficient[i];
        if dim == 1 {
            add_pair_block(matrix, a, b, 1, |_, _| k);
            continue;
        }
        let d = separation_of(x, a, b, dim);
        let length = norm(&d);
        let ratio = springs.rest_length[i] / length;
        add_pair_block(matrix, a, b, dim, |r, c| {
            let tension = if r == c { 1.0 - ratio } else { 0.0 };
            k * (tension + ratio * d[r] * d[c] / (length * length))
        });
    }
}

/// Adds `+B` to the diagonal blocks (a, a), (b, b) and `-B` to (a, b), (b, a), where `block(r,
/// c)` gives B's entries.
pub(super) fn add_pair_block(
    matrix: &mut (impl Assemble + ?Sized),
    a: usize,
    b: usize,
    dim: usize,
    block: impl Fn(usize, usize) -> f64,
) {
    for r in 0..dim {
        for c in 0..dim {
            let value = block(r, c);
            matrix.add(a * dim + r, a * dim + c, value);
            matrix.add(b * dim + r, b * dim + c, value);
            matrix.add(a * dim + r, b * dim + c, -value);
            matrix.add(b * dim + r, a * dim + c, -value);
        }
    }
}

/// Adds the springs' discrete-gradient force `-grad V(x0, x1)` (Chatziioannou 2019, eq. (26b),
/// network form): a force whose work over the step equals the energy change exactly,
/// `sum F . (x1 - x0) = -(V(x1) - V(x0))`. 1D: the force at the midpoint (exact for a quadratic
/// energy). 2D/3D (Gonzalez's discrete gradient for a central potential): on `a`,
/// `g (d0 + d1) / (l0' + l1')` with `g = (phi(l1') - phi(l0')) / (l1' - l0') = k ((l0' + l1')/2 - l0)`,
/// where `l0'`, `l1'` are the lengths at the two ends of the step.
pub(super) fn add_discrete_forces(springs: &LinkArrays, dim: usize, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    match dim {
        1 => add_discrete_forces_1d(springs, x0, x1, f),
        2 => add_discrete_forces_geometric::<2>(springs, x0, x1, f),
        _ => add_discrete_forces_geometric::<3>(springs, x0, x1, f),
    }
}

/// The 1D springs' forces at the midpoint `(x0 + x1) / 2`.
fn add_discrete_forces_1d(springs: &LinkArrays, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let midpoint_extension = 0.5 * ((x0[b] + x1[b]) - (x0[a] + x1[a]));
        let force = springs.coefficient[i] * (midpoint_extension - springs.rest_length[i]);
        f[a] += force;
        f[b] -= force;
    }
}

fn add_discrete_forces_geometric<const D: usize>(
    springs: &LinkArrays,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
) {
    for i in 0..springs.len() {
        let (a, b) = (springs.a[i] as usize, springs.b[i] as usize);
        let (d0, d1) = (separation::<D>(x0, a, b), separation::<D>(x1, a, b));
        let (l0, l1) = (norm(&d0), norm(&d1));
        let g = springs.coefficient[i] * (0.5 * (l0 + l1) - springs.rest_length[i]);
        let sum: [f64; D] = std::array::from_fn(|c| d0[c] + d1[c]);
        apply_pair(f, a, b, g / (l0 + l1), &sum);
    }
}

fn norm(d: &[f64]) -> f64 {
    d.iter().map(|c| c * c).sum::<f64>().sqrt()
}
