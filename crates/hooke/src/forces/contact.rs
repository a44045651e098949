//! Hertz contact (Chatziioannou 2019, eq. (44)): rigid barriers and collisions between two masses.
//! Forces, stored energy, tangent stiffness, the discrete gradient and its Jacobian
//! (Chatziioannou 2019, eq. (80)).
//!
//! Every contact is a potential `phi(delta) = k [delta^(alpha + 1)] / (alpha + 1)` of a
//! penetration `delta`, with `[y^p] = y^p` for `y > 0` and 0 otherwise (`alpha >= 1`), so
//! `phi'(delta) = k [delta^alpha]` (the contact force) and `phi''(delta) = k alpha
//! [delta^(alpha - 1)]`.
//!
//! - **Barrier** (one entry per barrier and mass): `delta = c - n . x`, affine in `x`. The force
//!   on the mass is `-phi'(delta) d delta / dx = k [delta^alpha] n`.
//! - **Collision, 1D**: `delta = distance - (x_b - x_a)`, affine. The force on `b` is
//!   `+k [delta^alpha]`, on `a` its opposite.
//! - **Collision, 2D/3D**: a central potential in `l = |x_b - x_a|`, `delta = distance - l`. The
//!   force on `a` is `f(l) u` with `u = (x_b - x_a) / l` and `f(l) = d phi / d l =
//!   -k [delta^alpha]` (pushing `a` away from `b`).
//!
//! **Discrete gradient** (the energy-conserving scheme, Chatziioannou 2019, eqs. (26b) and (46)):
//! over a step from `x0` to `x1`, with `delta0`, `delta1` the penetrations at the two ends, the
//! affine contacts use the difference quotient
//! `q = (phi(delta1) - phi(delta0)) / (delta1 - delta0)` in place of `phi'`, so the work is
//! exactly `-(phi(delta1) - phi(delta0))`; the 2D/3D collision uses Gonzalez's form for central
//! potentials (as the springs do), with `g = (phi(l1) - phi(l0)) / (l1 - l0) = -q` and the force on
//! `a` `g (d0 + d1) / (l0 + l1)`.
//!
//! When `|delta1 - delta0| <= TINY_STEP (|delta0| + |delta1|) + FLOOR`, `q` is replaced by
//! `phi'((delta0 + delta1) / 2)` (see [`TINY_STEP`] and [`FLOOR`] for why these values). The
//! test never picks the midpoint form when the step enters or leaves contact: then `delta0` and
//! `delta1` have opposite signs and `|delta1 - delta0| = |delta0| + |delta1|`.

use super::springs::add_pair_block;
use super::{apply_pair, separation, separation_of};
use crate::linalg::Assemble;
use crate::system::{BarrierArrays, CollisionArrays, System};

/// Relative step below which the difference quotient gives way to the midpoint derivative.
///
/// For `phi = k delta^p / p` (`p = alpha + 1`) and `r = |delta1 - delta0| / (|delta0| +
/// |delta1|)`: the quotient loses about `u / r` of its relative accuracy to cancellation
/// (`u = 2^-53`, the rounding unit), while the midpoint derivative makes the work over the step
/// wrong by `phi''' (delta1 - delta0)^3 / 24`, about `0.6 r^3 phi` for `alpha = 1.5`. Both are
/// of the order of `u phi` (machine precision of the energy) at `r = u^(1/3) = 5e-6`; at
/// `r = 1e-5` the quotient is still good to `2e-11` relative and the midpoint form's energy
/// error is `6e-16 phi`. The Jacobian (eq. 80) loses `u / r^2 = 2e-6` relative at the
/// threshold, harmless for Newton's method.
pub const TINY_STEP: f64 = 1e-5;

/// Absolute floor of the tiny-step test, m: the smallest normal f64. Without it, two zero
/// penetrations (a mass resting exactly on the plane) would make `0 / 0`; and a step below it
/// is a subnormal number whose relative precision is gone, so its quotient would be noise. It is
/// far below any physical penetration, so it never changes a result that the relative test
/// alone would give for a normal-range step.
pub const FLOOR: f64 = f64::MIN_POSITIVE;

/// `[delta^p]`: `delta^p` for `delta > 0`, else 0.
#[inline(always)]
fn positive_power(delta: f64, p: f64) -> f64 {
    if delta > 0.0 {
        delta.powf(p)
    } else {
        0.0
    }
}

/// `phi(delta) = k [delta^(alpha + 1)] / (alpha + 1)`, J.
#[inline(always)]
fn phi(k: f64, alpha: f64, delta: f64) -> f64 {
    k * positive_power(delta, alpha + 1.0) / (alpha + 1.0)
}

/// `phi'(delta) = k [delta^alpha]`, N.
#[inline(always)]
fn phi_prime(k: f64, alpha: f64, delta: f64) -> f64 {
    k * positive_power(delta, alpha)
}

/// `phi''(delta) = k alpha [delta^(alpha - 1)]`, N/m (0 out of contact, also for `alpha = 1`).
#[inline(always)]
fn phi_second(k: f64, alpha: f64, delta: f64) -> f64 {
    if delta > 0.0 {
        k * alpha * delta.powf(alpha - 1.0)
    } else {
        0.0
    }
}

/// Whether a step from `d0` to `d1` is too small for the difference quotient.
#[inline(always)]
fn tiny(d0: f64, d1: f64) -> bool {
    (d1 - d0).abs() <= TINY_STEP * (d0.abs() + d1.abs()) + FLOOR
}

/// The discrete derivative `q(delta0, delta1) = (phi(delta1) - phi(delta0)) / (delta1 -
/// delta0)`, or `phi'((delta0 + delta1) / 2)` for a tiny step, N.
#[inline(always)]
pub fn discrete_derivative(k: f64, alpha: f64, d0: f64, d1: f64) -> f64 {
    if tiny(d0, d1) {
        phi_prime(k, alpha, 0.5 * (d0 + d1))
    } else {
        (phi(k, alpha, d1) - phi(k, alpha, d0)) / (d1 - d0)
    }
}

/// `dq / d delta1` (Chatziioannou 2019, eq. (80) with `s = delta1 - delta0`):
/// `(s phi'(delta1) - phi(delta1) + phi(delta0)) / s^2`, or `phi''((delta0 + delta1) / 2) / 2`
/// for a tiny step (the derivative of the midpoint form), N/m.
#[inline(always)]
pub fn discrete_derivative_slope(k: f64, alpha: f64, d0: f64, d1: f64) -> f64 {
    if tiny(d0, d1) {
        0.5 * phi_second(k, alpha, 0.5 * (d0 + d1))
    } else {
        let s = d1 - d0;
        (s * phi_prime(k, alpha, d1) - phi(k, alpha, d1) + phi(k, alpha, d0)) / (s * s)
    }
}

/// The normal of barrier contact `i`.
#[inline(always)]
fn normal<const D: usize>(barriers: &BarrierArrays, i: usize) -> [f64; D] {
    std::array::from_fn(|c| barriers.normal[i * D + c])
}

/// Penetration `c - n . x` of barrier contact `i`, m.
#[inline(always)]
fn barrier_penetration<const D: usize>(barriers: &BarrierArrays, n: &[f64; D], x: &[f64], i: usize) -> f64 {
    let m = barriers.mass[i] as usize;
    barriers.offset[i] - (0..D).map(|c| n[c] * x[m * D + c]).sum::<f64>()
}

fn norm<const D: usize>(d: &[f64; D]) -> f64 {
    d.iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// Adds every contact's force to `f`, N. A 2D/3D collision whose two masses coincide has no
/// direction and yields NaN, which the run loop reports as an instability.
pub(super) fn add_forces(system: &System, x: &[f64], f: &mut [f64]) {
    match system.dimension() {
        1 => {
            add_barrier_forces::<1>(system.barriers(), x, f);
            add_collision_forces_1d(system.collisions(), x, f);
        }
        2 => {
            add_barrier_forces::<2>(system.barriers(), x, f);
            add_collision_forces_geometric::<2>(system.collisions(), x, f);
        }
        _ => {
            add_barrier_forces::<3>(system.barriers(), x, f);
            add_collision_forces_geometric::<3>(system.collisions(), x, f);
        }
    }
}

fn add_barrier_forces<const D: usize>(barriers: &BarrierArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..barriers.len() {
        let n = normal::<D>(barriers, i);
        let delta = barrier_penetration(barriers, &n, x, i);
        let push = phi_prime(barriers.stiffness[i], barriers.exponent[i], delta);
        let m = barriers.mass[i] as usize;
        for c in 0..D {
            f[m * D + c] += push * n[c];
        }
    }
}

fn add_collision_forces_1d(collisions: &CollisionArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let delta = collisions.distance[i] - (x[b] - x[a]);
        let push = phi_prime(collisions.stiffness[i], collisions.exponent[i], delta);
        f[a] -= push;
        f[b] += push;
    }
}

fn add_collision_forces_geometric<const D: usize>(collisions: &CollisionArrays, x: &[f64], f: &mut [f64]) {
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let d = separation::<D>(x, a, b);
        let length = norm(&d);
        let push =
            phi_prime(collisions.stiffness[i], collisions.exponent[i], collisions.distance[i] - length);
        if push != 0.0 {
            apply_pair(f, a, b, -push / length, &d);
        }
    }
}

/// Energy stored in the contacts, `sum k [delta^(alpha + 1)] / (alpha + 1)`, J.
pub(super) fn energy(system: &System, x: &[f64]) -> f64 {
    let dim = system.dimension();
    let barriers = system.barriers();
    let barrier_energy: f64 = (0..barriers.len())
        .map(|i| {
            let m = barriers.mass[i] as usize;
            let normal = &barriers.normal[i * dim..(i + 1) * dim];
            let delta = barriers.offset[i] - (0..dim).map(|c| normal[c] * x[m * dim + c]).sum::<f64>();
            phi(barriers.stiffness[i], barriers.exponent[i], delta)
        })
        .sum();
    let collisions = system.collisions();
    let collision_energy: f64 = (0..collisions.len())
        .map(|i| phi(collisions.stiffness[i], collisions.exponent[i], collision_penetration(system, x, i)))
        .sum();
    barrier_energy + collision_energy
}

/// Penetration of collision `i`: `distance - (x_b - x_a)` in 1D, `distance - |x_b - x_a|`
/// in 2D/3D, m.
fn collision_penetration(system: &System, x: &[f64], i: usize) -> f64 {
    let (collisions, dim) = (system.collisions(), system.dimension());
    let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
    let along = if dim == 1 {
        x[b] - x[a]
    } else {
        (0..dim).map(|c| (x[b * dim + c] - x[a * dim + c]).powi(2)).sum::<f64>().sqrt()
    };
    collisions.distance[i] - along
}

/// Adds `scale * K(x)` for the contacts to `matrix`, `K = -dF/dx`. Barrier: `k alpha
/// [delta^(alpha - 1)] n n^T` on the mass's diagonal block. Collision: the block `B` with `+B` on
/// the diagonal blocks of both masses and `-B` between them; 1D `B = k alpha [delta^(alpha -
/// 1)]`; 2D/3D `B = (f / l) (I - u u^T) + f'(l) u u^T` with `f = -k [delta^alpha]` and `f'(l) =
/// k alpha [delta^(alpha - 1)]`. Every entry is added, zero out of contact, so the pattern never
/// changes.
pub(super) fn add_stiffness(system: &System, x: &[f64], scale: f64, matrix: &mut (impl Assemble + ?Sized)) {
    let dim = system.dimension();
    let barriers = system.barriers();
    for i in 0..barriers.len() {
        let m = barriers.mass[i] as usize;
        let normal = &barriers.normal[i * dim..(i + 1) * dim];
        let delta = barriers.offset[i] - (0..dim).map(|c| normal[c] * x[m * dim + c]).sum::<f64>();
        let stiffness = scale * phi_second(barriers.stiffness[i], barriers.exponent[i], delta);
        add_block(matrix, m, dim, |r, c| stiffness * normal[r] * normal[c]);
    }
    let collisions = system.collisions();
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let (k, alpha) = (scale * collisions.stiffness[i], collisions.exponent[i]);
        if dim == 1 {
            let delta = collisions.distance[i] - (x[b] - x[a]);
            add_pair_block(matrix, a, b, 1, |_, _| phi_second(k, alpha, delta));
            continue;
        }
        let d = separation_of(x, a, b, dim);
        let length = d.iter().map(|c| c * c).sum::<f64>().sqrt();
        let delta = collisions.distance[i] - length;
        let (f, f_prime) = (-phi_prime(k, alpha, delta), phi_second(k, alpha, delta));
        let tension = if f == 0.0 { 0.0 } else { f / length };
        add_pair_block(matrix, a, b, dim, |r, c| {
            let uu = d[r] * d[c] / (length * length);
            let identity = if r == c { 1.0 } else { 0.0 };
            tension * (identity - uu) + f_prime * uu
        });
    }
}

/// Adds `block(r, c)` to the diagonal block of node `m`.
fn add_block(
    matrix: &mut (impl Assemble + ?Sized),
    m: usize,
    dim: usize,
    block: impl Fn(usize, usize) -> f64,
) {
    for r in 0..dim {
        for c in 0..dim {
            matrix.add(m * dim + r, m * dim + c, block(r, c));
        }
    }
}

/// Adds the contacts' discrete-gradient force to `f` (see the module's doc): over a step from
/// `x0` to `x1`, `sum f . (x1 - x0) = -(V_c(x1) - V_c(x0))` with `V_c` the contact energy.
pub(super) fn add_discrete_forces(system: &System, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    match system.dimension() {
        1 => {
            add_barrier_discrete_forces::<1>(system.barriers(), x0, x1, f);
            add_collision_discrete_forces_1d(system.collisions(), x0, x1, f);
        }
        2 => {
            add_barrier_discrete_forces::<2>(system.barriers(), x0, x1, f);
            add_collision_discrete_forces_geometric::<2>(system.collisions(), x0, x1, f);
        }
        _ => {
            add_barrier_discrete_forces::<3>(system.barriers(), x0, x1, f);
            add_collision_discrete_forces_geometric::<3>(system.collisions(), x0, x1, f);
        }
    }
}

fn add_barrier_discrete_forces<const D: usize>(
    barriers: &BarrierArrays,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
) {
    for i in 0..barriers.len() {
        let n = normal::<D>(barriers, i);
        let (d0, d1) = (barrier_penetration(barriers, &n, x0, i), barrier_penetration(barriers, &n, x1, i));
        let push = discrete_derivative(barriers.stiffness[i], barriers.exponent[i], d0, d1);
        let m = barriers.mass[i] as usize;
        for c in 0..D {
            f[m * D + c] += push * n[c];
        }
    }
}

fn add_collision_discrete_forces_1d(collisions: &CollisionArrays, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let d0 = collisions.distance[i] - (x0[b] - x0[a]);
        let d1 = collisions.distance[i] - (x1[b] - x1[a]);
        let push = discrete_derivative(collisions.stiffness[i], collisions.exponent[i], d0, d1);
        f[a] -= push;
        f[b] += push;
    }
}

fn add_collision_discrete_forces_geometric<const D: usize>(
    collisions: &CollisionArrays,
    x0: &[f64],
    x1: &[f64],
    f: &mut [f64],
) {
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let (s0, s1) = (separation::<D>(x0, a, b), separation::<D>(x1, a, b));
        let (l0, l1) = (norm(&s0), norm(&s1));
        let distance = collisions.distance[i];
        let g = -discrete_derivative(
            collisions.stiffness[i],
            collisions.exponent[i],
            distance - l0,
            distance - l1,
        );
        if g != 0.0 {
            let sum: [f64; D] = std::array::from_fn(|c| s0[c] + s1[c]);
            apply_pair(f, a, b, g / (l0 + l1), &sum);
        }
    }
}

/// Adds `scale * K_dg`, the Jacobian of minus the contacts' discrete-gradient force with respect
/// to the end of the step, `K_dg = -d F_dg(x0, x1) / d x1`, to `matrix` (what Newton's method
/// needs in the energy-conserving scheme; Chatziioannou 2019, eqs. (79)-(80)).
///
/// Barrier: `(dq / d delta1) n n^T` on the mass's diagonal block, with `dq / d delta1` of eq.
/// 80 ([`discrete_derivative_slope`]). 1D collision: the pair block `B = dq / d delta1`. 2D/3D
/// collision (Gonzalez): with `s = d0 + d1`, `L = l0 + l1`, `u1 = d1 / l1`, `g = -q` and
/// `g' = dg / dl1 = dq / d delta1`, `B = (g / L) I + s u1^T (g' - g / L) / L` (not symmetric),
/// `+B` on the diagonal blocks and `-B` between the masses. Every entry is added, zero out of
/// contact, so the pattern never changes. At `x1 = x0` this is the tangent stiffness halved
/// for the affine contacts (the midpoint form's derivative).
pub fn add_discrete_stiffness(
    system: &System,
    x0: &[f64],
    x1: &[f64],
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    let dim = system.dimension();
    let barriers = system.barriers();
    for i in 0..barriers.len() {
        let m = barriers.mass[i] as usize;
        let normal = &barriers.normal[i * dim..(i + 1) * dim];
        let penetration =
            |x: &[f64]| barriers.offset[i] - (0..dim).map(|c| normal[c] * x[m * dim + c]).sum::<f64>();
        let slope = scale
            * discrete_derivative_slope(
                barriers.stiffness[i],
                barriers.exponent[i],
                penetration(x0),
                penetration(x1),
            );
        add_block(matrix, m, dim, |r, c| slope * normal[r] * normal[c]);
    }
    let collisions = system.collisions();
    for i in 0..collisions.len() {
        let (a, b) = (collisions.a[i] as usize, collisions.b[i] as usize);
        let (k, alpha, distance) =
            (scale * collisions.stiffness[i], collisions.exponent[i], collisions.distance[i]);
        if dim == 1 {
            let (d0, d1) = (distance - (x0[b] - x0[a]), distance - (x1[b] - x1[a]));
            add_pair_block(matrix, a, b, 1, |_, _| discrete_derivative_slope(k, alpha, d0, d1));
            continue;
        }
        let (s0, s1) = (separation_of(x0, a, b, dim), separation_of(x1, a, b, dim));
        let l0 = s0.iter().map(|c| c * c).sum::<f64>().sqrt();
        let l1 = s1.iter().map(|c| c * c).sum::<f64>().sqrt();
        let (d0, d1) = (distance - l0, distance - l1);
        let g = -discrete_derivative(k, alpha, d0, d1);
        let g_prime = discrete_derivative_slope(k, alpha, d0, d1);
        let total = l0 + l1;
        let (isotropic, outer) = if g == 0.0 && g_prime == 0.0 {
            (0.0, 0.0)
        } else {
            (g / total, (g_prime - g / total) / (total * l1))
        };
        add_pair_block(matrix, a, b, dim, |r, c| {
            let identity = if r == c { 1.0 } else { 0.0 };
            isotropic * identity + outer * (s0[r] + s1[r]) * s1[c]
        });
    }
}
