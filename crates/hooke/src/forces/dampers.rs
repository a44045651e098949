//! Dampers (on the relative velocity of two nodes) and drag (to ground): forces `-D(x) v` and
//! the damping matrix `D(x)`.
//!
//! 1D (Morgan & Qiao 2009, eq. (14)): `F_a = Z (v_b - v_a)`. 2D/3D, a dashpot along the link:
//! `F_a = Z ((v_b - v_a) . d) d / |d|^2`. Drag: `F = -gamma m v` (Chatziioannou 2019, eq. (8)).
//! A mode damping: `F_i = -sum_j D_ij v_j` over a string's masses, on each axis
//! ([`crate::model::ModeDamping`]).

use super::springs::add_pair_block;
use super::{apply_pair, separation, separation_of};
use crate::linalg::Assemble;
use crate::system::{DenseDamping, LinkArrays, System};

/// Adds `-D(x) v` (dampers and drag) to `f`.
pub(super) fn add_forces(system: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
    let dampers = system.dampers();
    match system.dimension() {
        1 => add_forces_1d(dampers, v, f),
        2 => add_forces_geometric::<2>(dampers, x, v, f),
        _ => add_forces_geometric::<3>(dampers, x, v, f),
    }
    for ((fi, vi), c) in f.iter_mut().zip(v).zip(system.drag()) {
        *fi -= c * vi;
    }
    for block in system.dense_dampings() {
        add_dense_forces(block, system.dimension(), v, f);
    }
}

fn add_dense_forces(block: &DenseDamping, dim: usize, v: &[f64], f: &mut [f64]) {
    let n = block.masses.len();
    for (row, &a) in block.matrix.chunks_exact(n).zip(&block.masses) {
        for c in 0..dim {
            let force: f64 = row.iter().zip(&block.masses).map(|(d, &b)| d * v[b as usize * dim + c]).sum();
            f[a as usize * dim + c] -= force;
        }
    }
}

fn add_forces_1d(dampers: &LinkArrays, v: &[f64], f: &mut [f64]) {
    for i in 0..dampers.len() {
        let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
        let force = dampers.coefficient[i] * (v[b] - v[a]);
        f[a] += force;
        f[b] -= force;
    }
}

fn add_forces_geometric<const D: usize>(dampers: &LinkArrays, x: &[f64], v: &[f64], f: &mut [f64]) {
    for i in 0..dampers.len() {
        let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
        let d = separation::<D>(x, a, b);
        let dv = separation::<D>(v, a, b);
        let along: f64 = d.iter().zip(&dv).map(|(p, q)| p * q).sum();
        let length_sq: f64 = d.iter().map(|c| c * c).sum();
        apply_pair(f, a, b, dampers.coefficient[i] * along / length_sq, &d);
    }
}

/// Adds `scale * D(x)` to `matrix`: `Z` blocks (1D) or `Z u u^T` blocks (2D/3D) on each damper's
/// ends, `gamma m` on the diagonal for drag, and each mode damping's dense block on each axis.
pub(super) fn add_matrix(system: &System, x: &[f64], scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    let (dampers, dim) = (system.dampers(), system.dimension());
    for i in 0..dampers.len() {
        let (a, b) = (dampers.a[i] as usize, dampers.b[i] as usize);
        let z = scale * dampers.coefficient[i];
        let d = separation_of(x, a, b, dim);
        let length_sq: f64 = d.iter().map(|c| c * c).sum();
        add_pair_block(matrix, a, b, dim, |r, c| if dim == 1 { z } else { z * d[r] * d[c] / length_sq });
    }
    for (i, c) in system.drag().iter().enumerate() {
        matrix.add(i, i, scale * c);
    }
    add_mode_damping_matrix(system, scale, matrix);
}

/// Adds `scale` times each mode damping's dense block, on each axis, to `matrix`.
pub(super) fn add_mode_damping_matrix(system: &System, scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    let dim = system.dimension();
    for block in system.dense_dampings() {
        let n = block.masses.len();
        for (e, d) in block.matrix.iter().enumerate() {
            let (a, b) = (block.masses[e / n] as usize, block.masses[e % n] as usize);
            for c in 0..dim {
                matrix.add(a * dim + c, b * dim + c, scale * d);
            }
        }
    }
}
