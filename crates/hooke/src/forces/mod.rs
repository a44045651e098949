//! Forces over a compiled [`System`]: what each element pushes with, the energy it stores, and
//! the matrices implicit schemes need.
//!
//! The network's equation of motion is `M x'' = F_c(x) + F_e(t) - D(x) x'`: conservative forces
//! `F_c = -grad V` (gravity, springs, bending, angular springs, contacts), external forces `F_e`,
//! and linear damping with the damping matrix `D` (dampers, drag, the bending elements'
//! damping). Every kernel reads state vectors laid out as in [`crate::system`] (masses then
//! anchors) and accumulates into a force vector of the same layout; forces landing on anchors are the supports' reactions and schemes
//! ignore them. Matrices are over the moving coordinates only (`System::mass_coordinates`).

mod angle;
mod bending;
pub mod contact;
mod dampers;
mod external;
mod springs;

use crate::linalg::Assemble;
use crate::system::System;

/// Total force on every node, N: `F_c(x) + F_e(t) - D(x) v`; `f` is overwritten.
pub fn total(system: &System, x: &[f64], v: &[f64], t: f64, f: &mut [f64]) {
    conservative(system, x, f);
    add_external(system, t, f);
    add_damping(system, x, v, f);
}

/// Conservative forces `F_c(x) = -grad V(x)` (gravity, springs, bending, angular springs,
/// contacts), N; `f` is overwritten.
pub fn conservative(system: &System, x: &[f64], f: &mut [f64]) {
    f.fill(0.0);
    let gravity = system.gravity_force();
    f[..gravity.len()].copy_from_slice(gravity);
    springs::add_forces(system.springs(), system.dimension(), x, f);
    bending::add_forces(system.bendings(), system.dimension(), x, f);
    angle::add_forces(system.angles(), system.dimension(), x, f);
    contact::add_forces(system, x, f);
}

/// Adds the external (driving) forces at time `t` (s), N: constant, sinusoidal and sampled
/// (WAV) forces, see [`crate::model::Signal`].
pub fn add_external(system: &System, t: f64, f: &mut [f64]) {
    external::add_forces(system.external_forces(), t, f);
}

/// Adds the damping forces `-D(x) v` (dampers, drag, mode dampings and the bending elements'
/// damping), N.
pub fn add_damping(system: &System, x: &[f64], v: &[f64], f: &mut [f64]) {
    dampers::add_forces(system, x, v, f);
    bending::add_damping_forces(system.bendings(), system.dimension(), v, f);
}

/// Energy stored in the springs, the bending elements and the angular springs, J.
pub fn elastic_energy(system: &System, x: &[f64]) -> f64 {
    springs::energy(system.springs(), system.dimension(), x)
        + bending::energy(system.bendings(), system.dimension(), x)
        + angle::energy(system.angles(), system.dimension(), x)
}

/// Gravitational potential energy `-sum m g . x`, J.
pub fn gravitational_energy(system: &System, x: &[f64]) -> f64 {
    -system.gravity_force().iter().zip(x).map(|(f, x)| f * x).sum::<f64>()
}

/// Energy stored in the contacts (barriers and collisions),
/// `sum k [delta^(alpha + 1)] / (alpha + 1)`, J.
pub fn contact_energy(system: &System, x: &[f64]) -> f64 {
    contact::energy(system, x)
}

/// The potential `V(x)` whose gradient gives [`conservative`], J.
pub fn potential(system: &System, x: &[f64]) -> f64 {
    elastic_energy(system, x) + gravitational_energy(system, x) + contact_energy(system, x)
}

/// Adds `scale * K(x)` to `matrix`, with `K = -dF_c/dx` the tangent stiffness. Every element
/// adds all its entries, even zero ones, so the matrix's pattern does not change with `x`.
pub fn add_stiffness(system: &System, x: &[f64], scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    springs::add_stiffness(system.springs(), system.dimension(), x, scale, matrix);
    bending::add_stiffness(system.bendings(), system.dimension(), scale, matrix);
    angle::add_stiffness(system.angles(), system.dimension(), x, scale, matrix);
    contact::add_stiffness(system, x, scale, matrix);
}

/// Adds `scale * D(x)` to `matrix`, with `D` the damping matrix (`-D v` is the damping force).
pub fn add_damping_matrix(system: &System, x: &[f64], scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    dampers::add_matrix(system, x, scale, matrix);
    bending::add_damping_matrix(system.bendings(), system.dimension(), scale, matrix);
}

/// Adds `scale` times the mode dampings' share of `D` alone to `matrix`.
pub fn add_mode_damping_matrix(system: &System, scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    dampers::add_mode_damping_matrix(system, scale, matrix);
}

/// Adds `scale * M` (the diagonal mass matrix) to `matrix`.
pub fn add_mass_matrix(system: &System, scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    for (i, inverse) in system.inverse_mass().iter().enumerate() {
        matrix.add(i, i, scale / inverse);
    }
}

/// The discrete-gradient force `-grad V(x0, x1)`, N, overwriting `f`: conservative forces whose
/// work over a step from `x0` to `x1` equals the potential's decrease exactly,
/// `sum f . (x1 - x0) = V(x0) - V(x1)` (Chatziioannou 2019, eq. (26b); the energy-conserving
/// scheme).
pub fn discrete_conservative(system: &System, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    f.fill(0.0);
    let gravity = system.gravity_force();
    f[..gravity.len()].copy_from_slice(gravity);
    springs::add_discrete_forces(system.springs(), system.dimension(), x0, x1, f);
    bending::add_discrete_forces(system.bendings(), system.dimension(), x0, x1, f);
    angle::add_discrete_forces(system.angles(), system.dimension(), x0, x1, f);
    contact::add_discrete_forces(system, x0, x1, f);
}

/// Adds `scale * K_dg`, the Jacobian `-d F_dg(x0, x1) / d x1` of the discrete-gradient force
/// ([`discrete_conservative`]) with respect to the end of the step, to `matrix`: for springs and
/// angular springs the tangent stiffness at the midpoint, halved (exact in 1D and for bending,
/// Newton's approximation for geometric springs and angular springs); for contacts the exact
/// derivative of Chatziioannou 2019, eq. (80), which sees a contact the step enters even when the
/// midpoint is still outside it. `midpoint` is `(x0 + x1) / 2`, which the caller keeps (Newton
/// evaluates it at every iteration).
pub fn add_discrete_stiffness(
    system: &System,
    x0: &[f64],
    midpoint: &[f64],
    x1: &[f64],
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    springs::add_stiffness(system.springs(), system.dimension(), midpoint, 0.5 * scale, matrix);
    bending::add_stiffness(system.bendings(), system.dimension(), 0.5 * scale, matrix);
    angle::add_stiffness(system.angles(), system.dimension(), midpoint, 0.5 * scale, matrix);
    contact::add_discrete_stiffness(system, x0, x1, scale, matrix);
}

/// Whether the conservative forces are affine in `x` (1D springs, bending and gravity only, no
/// contacts), so that implicit schemes can factor their matrix once.
pub fn is_linear(system: &System) -> bool {
    system.dimension() == 1 && !system.has_contacts()
}

/// The vector from node `a` to node `b`.
#[inline(always)]
fn separation<const D: usize>(x: &[f64], a: usize, b: usize) -> [f64; D] {
    std::array::from_fn(|c| x[b * D + c] - x[a * D + c])
}

/// `x_b - x_a` in the first `dim` entries (the others 0), without allocating.
#[inline(always)]
fn separation_of(x: &[f64], a: usize, b: usize, dim: usize) -> [f64; 3] {
    std::array::from_fn(|c| if c < dim { x[b * dim + c] - x[a * dim + c] } else { 0.0 })
}

/// Adds `scale * d` to node `a` and subtracts it from node `b`.
#[inline(always)]
fn apply_pair<const D: usize>(f: &mut [f64], a: usize, b: usize, scale: f64, d: &[f64; D]) {
    for c in 0..D {
        f[a * D + c] += scale * d[c];
        f[b * D + c] -= scale * d[c];
    }
}
