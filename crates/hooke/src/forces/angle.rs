//! Angular springs (see [`crate::model::Angle`]). With the arms `u = x_a - x_b`, `w = x_c - x_b`
//! (padded to 3 components in 2D), `n = u x w`, `s = |n|`, `c = u . w`, `m = n / s`:
//!
//! ```text
//! theta = atan2(s, c),   V = k/2 (theta - theta_0)^2,
//! g_u = (u x m) / |u|^2,   g_w = -(w x m) / |w|^2          (d theta / du, d theta / dw)
//! F_a = -k (theta - theta_0) g_u,   F_c = -k (theta - theta_0) g_w,   F_b = -(F_a + F_c).
//! ```
//!
//! The stiffness is `K = k (G G^T + (theta - theta_0) H)`, with `G = (g_u, -g_u - g_w, g_w)` the
//! gradient of theta over the nodes `(a, b, c)` and `H` its Hessian, made of the blocks over the
//! arms (`x_a` moves `u`, `x_c` moves `w`, `x_b` moves both by minus its displacement)
//!
//! ```text
//! H_uu = (c/s) m m^T / |u|^2 - (u g_u^T + g_u u^T) / |u|^2,   H_uw = H_wu = -m m^T / s,
//! H_ww = (c/s) m m^T / |w|^2 - (w g_w^T + g_w w^T) / |w|^2
//! ```
//!
//! (the `m m^T` terms, out of the plane, vanish in 2D). Where `s = 0` (theta = 0 or pi) the
//! gradient is taken as 0, so there is no force, and the stiffness between nodes `i` and `j` is
//! `k q_i q_j (I - e e^T)`, `e = u / |u|`, `q = (1/|u|, -1/|u| - r/|w|, r/|w|)`, `r = 1` at pi
//! and -1 at 0: the Hessian of `k/2 phi^2`, phi the angle away from the line, which is `V`'s for
//! `theta_0 = pi` (elsewhere `V` has a kink there). An arm of zero length has no direction: its
//! force is NaN, which the run loop reports as an instability.
//!
//! The energy-conserving scheme's discrete gradient is Gonzalez's midpoint discrete gradient
//! (Gonzalez 1996) over the arms `q = (u, w)`: with `dq = q1 - q0` and `V(q1) - V(q0)`,
//!
//! ```text
//! grad V(q0, q1) = grad V(q_mid) + (V(q1) - V(q0) - grad V(q_mid) . dq) / |dq|^2 dq,
//! ```
//!
//! so that `grad V(q0, q1) . dq = V(q1) - V(q0)` exactly; taken over the arms, its forces sum to 0
//! (momentum is kept). The correction is dropped only when `|dq|^2` underflows (the element did
//! not move). `V(q1) - V(q0) = k (theta_1 - theta_0) ((theta_0 + theta_1)/2 - theta_0)` with the
//! change of angle computed from `dq` (not as a difference of two angles), so the correction, of
//! order `|dq|^2`, is not drowned by the rounding of the angles when `dq` is small.

use crate::linalg::Assemble;
use crate::system::AngleArrays;

type Vector = [f64; 3];

fn dot(a: Vector, b: Vector) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vector, b: Vector) -> Vector {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn scaled(a: Vector, p: f64) -> Vector {
    a.map(|x| p * x)
}

/// `p a + q b`.
fn combine(a: Vector, p: f64, b: Vector, q: f64) -> Vector {
    std::array::from_fn(|i| p * a[i] + q * b[i])
}

/// The nodes `[a, b, c]` of element `e`.
fn nodes(angles: &AngleArrays, e: usize) -> [usize; 3] {
    [angles.a[e], angles.b[e], angles.c[e]].map(|n| n as usize)
}

/// The arms `u = x_a - x_b`, `w = x_c - x_b` of element `e`, the components past `dim` 0.
fn arms(angles: &AngleArrays, dim: usize, x: &[f64], e: usize) -> (Vector, Vector) {
    let [a, b, c] = nodes(angles, e);
    let arm =
        |end: usize| std::array::from_fn(|i| if i < dim { x[end * dim + i] - x[b * dim + i] } else { 0.0 });
    (arm(a), arm(c))
}

/// theta, rad.
fn angle(u: Vector, w: Vector) -> f64 {
    let n = cross(u, w);
    dot(n, n).sqrt().atan2(dot(u, w))
}

/// theta and its gradients `g_u`, `g_w` (0 where `u x w = 0`, NaN for an arm of zero length).
fn bend(u: Vector, w: Vector) -> (f64, Vector, Vector) {
    let n = cross(u, w);
    let s = dot(n, n).sqrt();
    let theta = s.atan2(dot(u, w));
    if s == 0.0 {
        let zero = if dot(u, u) > 0.0 && dot(w, w) > 0.0 { 0.0 } else { f64::NAN };
        return (theta, [zero; 3], [zero; 3]);
    }
    let m = scaled(n, 1.0 / s);
    (theta, scaled(cross(u, m), 1.0 / dot(u, u)), scaled(cross(w, m), -1.0 / dot(w, w)))
}

/// Adds the forces of an energy whose gradient over the arms is `(g_u, g_w)` to `f`.
fn push(f: &mut [f64], dim: usize, [a, b, c]: [usize; 3], gu: Vector, gw: Vector) {
    for i in 0..dim {
        f[a * dim + i] -= gu[i];
        f[c * dim + i] -= gw[i];
        f[b * dim + i] += gu[i] + gw[i];
    }
}

/// Adds every element's force to `f`.
pub(super) fn add_forces(angles: &AngleArrays, dim: usize, x: &[f64], f: &mut [f64]) {
    for e in 0..angles.len() {
        let (u, w) = arms(angles, dim, x, e);
        let (theta, gu, gw) = bend(u, w);
        let torque = angles.stiffness[e] * (theta - angles.rest_angle[e]);
        push(f, dim, nodes(angles, e), scaled(gu, torque), scaled(gw, torque));
    }
}

/// Energy stored in the elements, J.
pub(super) fn energy(angles: &AngleArrays, dim: usize, x: &[f64]) -> f64 {
    (0..angles.len())
        .map(|e| {
            let (u, w) = arms(angles, dim, x, e);
            let bent = angle(u, w) - angles.rest_angle[e];
            0.5 * angles.stiffness[e] * bent * bent
        })
        .sum()
}

/// The Hessian of `(theta - theta_0)^2 / 2` between nodes `i` and `j` of `(a, b, c)`, entry
/// `[i][j][r][c]` (module documentation).
fn node_hessian(u: Vector, w: Vector, rest_angle: f64) -> [[[Vector; 3]; 3]; 3] {
    let (lu2, lw2) = (dot(u, u), dot(w, w));
    let n = cross(u, w);
    let s = dot(n, n).sqrt();
    let mut blocks = [[[[0.0; 3]; 3]; 3]; 3];
    if s == 0.0 {
        let (lu, lw) = (lu2.sqrt(), lw2.sqrt());
        let side = if dot(u, w) < 0.0 { 1.0 } else { -1.0 };
        let q = [1.0 / lu, -1.0 / lu - side / lw, side / lw];
        for (i, j, r, c) in indices() {
            let identity = if r == c { 1.0 } else { 0.0 };
            blocks[i][j][r][c] = q[i] * q[j] * (identity - u[r] * u[c] / lu2);
        }
        return blocks;
    }
    let (theta, gu, gw) = bend(u, w);
    let m = scaled(n, 1.0 / s);
    let cot = dot(u, w) / s;
    let gradient = [gu, combine(gu, -1.0, gw, -1.0), gw];
    // How node i moves the arms: x_a moves u, x_b moves both backwards, x_c moves w.
    let moves = [[1.0, 0.0], [-1.0, -1.0], [0.0, 1.0]];
    let bent = theta - rest_angle;
    for (i, j, r, c) in indices() {
        let mm = m[r] * m[c];
        let uu = (cot * mm - u[r] * gu[c] - gu[r] * u[c]) / lu2;
        let ww = (cot * mm - w[r] * gw[c] - gw[r] * w[c]) / lw2;
        let uw = -mm / s;
        let (p, q) = (moves[i], moves[j]);
        let second = p[0] * q[0] * uu + (p[0] * q[1] + p[1] * q[0]) * uw + p[1] * q[1] * ww;
        blocks[i][j][r][c] = gradient[i][r] * gradient[j][c] + bent * second;
    }
    blocks
}

/// Every `(i, j, r, c)`: node pairs of an element and axis pairs.
fn indices() -> impl Iterator<Item = (usize, usize, usize, usize)> {
    (0..81).map(|k| (k / 27, k / 9 % 3, k / 3 % 3, k % 3))
}

/// Adds `scale * K(x)` to `matrix`: `k` times [`node_hessian`] between the nodes of each element,
/// every entry (zero ones included) so that the pattern does not change with `x`.
pub(super) fn add_stiffness(
    angles: &AngleArrays,
    dim: usize,
    x: &[f64],
    scale: f64,
    matrix: &mut (impl Assemble + ?Sized),
) {
    for e in 0..angles.len() {
        let (u, w) = arms(angles, dim, x, e);
        let blocks = node_hessian(u, w, angles.rest_angle[e]);
        let k = scale * angles.stiffness[e];
        let nodes = nodes(angles, e);
        for (i, j, r, c) in indices().filter(|&(_, _, r, c)| r < dim && c < dim) {
            matrix.add(nodes[i] * dim + r, nodes[j] * dim + c, k * blocks[i][j][r][c]);
        }
    }
}

/// `theta_1 - theta_0` between the arms `(u0, w0)` and `(u1, w1)`, from the changes of
/// `n = u x w` and `c = u . w` written in the arms' changes (exact bilinear identities), so that
/// a small change keeps its relative accuracy.
fn angle_change(u0: Vector, w0: Vector, u1: Vector, w1: Vector) -> f64 {
    let (du, dw) = (combine(u1, 1.0, u0, -1.0), combine(w1, 1.0, w0, -1.0));
    let (um, wm) = (combine(u0, 0.5, u1, 0.5), combine(w0, 0.5, w1, 0.5));
    let (n0, n1) = (cross(u0, w0), cross(u1, w1));
    let (s0, s1) = (dot(n0, n0).sqrt(), dot(n1, n1).sqrt());
    let (c0, c1) = (dot(u0, w0), dot(u1, w1));
    let dn = combine(cross(du, wm), 1.0, cross(um, dw), 1.0);
    let dc = dot(du, wm) + dot(um, dw);
    let ds = if s0 + s1 > 0.0 { dot(dn, combine(n0, 1.0, n1, 1.0)) / (s0 + s1) } else { 0.0 };
    // tan(theta_1 - theta_0) = (s1 c0 - c1 s0) / (c1 c0 + s1 s0), and s1 c0 - c1 s0 = ds c0 - dc s0.
    (ds * c0 - dc * s0).atan2(c1 * c0 + s1 * s0)
}

/// Adds the discrete-gradient force over a step from `x0` to `x1` (module documentation): its
/// work is `V(x0) - V(x1)` to round-off.
pub(super) fn add_discrete_forces(angles: &AngleArrays, dim: usize, x0: &[f64], x1: &[f64], f: &mut [f64]) {
    for e in 0..angles.len() {
        let ((u0, w0), (u1, w1)) = (arms(angles, dim, x0, e), arms(angles, dim, x1, e));
        let (k, rest) = (angles.stiffness[e], angles.rest_angle[e]);
        let (theta, gu, gw) = bend(combine(u0, 0.5, u1, 0.5), combine(w0, 0.5, w1, 0.5));
        let torque = k * (theta - rest);
        let (gu, gw) = (scaled(gu, torque), scaled(gw, torque));
        let (du, dw) = (combine(u1, 1.0, u0, -1.0), combine(w1, 1.0, w0, -1.0));
        let mean = 0.5 * (angle(u0, w0) + angle(u1, w1)) - rest;
        let change = k * angle_change(u0, w0, u1, w1) * mean;
        let squared = dot(du, du) + dot(dw, dw);
        let correction =
            if squared > f64::MIN_POSITIVE { (change - dot(gu, du) - dot(gw, dw)) / squared } else { 0.0 };
        push(f, dim, nodes(angles, e), combine(gu, 1.0, du, correction), combine(gw, 1.0, dw, correction));
    }
}
