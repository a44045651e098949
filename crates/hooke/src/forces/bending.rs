//! Bending elements (see [`crate::model::Bending`]): with `s = sum_i w_i x_i` on each axis, the
//! energy `kappa |s|^2 / 2`, the force `-kappa w_i s` on node `i`, and the stiffness
//! `K_ij = kappa w_i w_j` on each axis; the damping `c` on `s' = sum_i w_i v_i` the same way,
//! the force `-c w_i s'` and the damping matrix `D_ij = c w_i w_j`. The energy is quadratic, so
//! its discrete gradient (Chatziioannou 2019, eq. (26b)) is the force at the midpoint of the
//! step, exactly.

use crate::linalg::Assemble;
use crate::system::BendingArrays;

/// `s = sum_i w_i x_i` of element `e` on axis `axis`.
#[inline(always)]
fn curvature(bendings: &BendingArrays, dim: usize, x: &[f64], e: usize, axis: usize) -> f64 {
    bendings.entries(e).map(|i| bendings.weight[i] * x[bendings.node[i] as usize * dim + axis]).sum()
}

/// Adds every element's force to `f`.
pub(super) fn add_forces(bendings: &BendingArrays, dim: usize, x: &[f64], f: &mut [f64]) {
    add_forces_of(bendings, &bendings.stiffness, dim, f, |e, axis| curvature(bendings, dim, x, e, axis));
}

/// Adds every element's damping force `-c w_i s'` to `f`, `v` the velocities.
pub(super) fn add_damping_forces(bendings: &BendingArrays, dim: usize, v: &[f64], f: &mut [f64]) {
    add_forces_of(bendings, &bendings.damping, dim, f, |e, axis| curvature(bendings, dim, v, e, axis));
}

/// The discrete-gradient force over a step from `x0` to `x1`: the force at `(x0 + x1) / 2`,
/// whose work is `V(x0) - V(x1)` exactly because `V` is quadratic.
pub(super) fn add_discrete_forces(
    bendings: &BendingArrays,
    dim: usize,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
) {
    add_forces_of(bendings, &bendings.stiffness, dim, f, |e, axis| {
        0.5 * (curvature(bendings, dim, x0, e, axis) + curvature(bendings, dim, x1, e, axis))
    });
}

/// Adds `-a_e w_i s` to each node `i` of each element `e`, `a_e` its `coefficient` (stiffness or
/// damping), `s` given by `curvature_of(e, axis)`.
#[inline(always)]
fn add_forces_of(
    bendings: &BendingArrays,
    coefficient: &[f64],
    dim: usize,
    f: &mut [f64],
    curvature_of: impl Fn(usize, usize) -> f64,
) {
    for e in 0..bendings.len() {
        if coefficient[e] == 0.0 {
            continue;
        }
        for axis in 0..dim {
            let push = -coefficient[e] * curvature_of(e, axis);
            for i in bendings.entries(e) {
                f[bendings.node[i] as usize * dim + axis] += push * bendings.weight[i];
            }
        }
    }
}

/// Energy stored in the elements, J.
pub(super) fn energy(bendings: &BendingArrays, dim: usize, x: &[f64]) -> f64 {
    (0..bendings.len())
        .map(|e| {
            let squared: f64 = (0..dim).map(|axis| curvature(bendings, dim, x, e, axis).powi(2)).sum();
            0.5 * bendings.stiffness[e] * squared
        })
        .sum()
}

/// Adds `scale * K` to `matrix`: `scale kappa w_i w_j` between the nodes of each element, on
/// each axis (the same at every `x`).
pub(super) fn add_stiffness(
    bendings: &BendingArrays,
    dim: usize,
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    add_matrix(bendings, &bendings.stiffness, dim, scale, matrix);
}

/// Adds `scale * D` to `matrix`: `scale c w_i w_j` between the nodes of each damped element, on
/// each axis.
pub(super) fn add_damping_matrix(
    bendings: &BendingArrays,
    dim: usize,
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    if bendings.damping.iter().any(|&c| c != 0.0) {
        add_matrix(bendings, &bendings.damping, dim, scale, matrix);
    }
}

/// Adds `scale a_e w_i w_j` between the nodes of each element `e`, on each axis, `a_e` its
/// `coefficient`.
fn add_matrix(
    bendings: &BendingArrays,
    coefficient: &[f64],
    dim: usize,
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    for e in 0..bendings.len() {
        let scaled = scale * coefficient[e];
        for i in bendings.entries(e) {
            for j in bendings.entries(e) {
                let value = scaled * bendings.weight[i] * bendings.weight[j];
                let (row, col) = (bendings.node[i] as usize * dim, bendings.node[j] as usize * dim);
                for axis in 0..dim {
                    matrix.add(row + axis, col + axis, value);
                }
            }
        }
    }
}
