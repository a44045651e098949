//! Dense matrix exponential by scaling and squaring with Padé approximants.
//!
//! For a linear mass-spring-damper network with state `y = [x, v]`, `y' = A y + c` with
//! `A = [[0, I], [-M⁻¹K, -M⁻¹D]]`, the exact one-step flow is
//! `y(t + h) = e^{A h} y(t) + ∫₀ʰ e^{A τ} dτ c`. [`expm`] computes `e^{A}`;
//! [`expm_augmented`] computes both terms of the flow at once.
//!
//! The method is Algorithm 2.3 of N. J. Higham, "The scaling and squaring method for the matrix
//! exponential revisited", SIAM J. Matrix Anal. Appl. 26(4):1179–1193, 2005: choose the lowest
//! Padé degree `m ∈ {3, 5, 7, 9, 13}` whose threshold `θ_m` bounds `‖A‖₁`, otherwise scale `A`
//! by `2^-s` into the `m = 13` range, evaluate `r_m = q_m⁻¹ p_m` and square it `s` times.
//! The thresholds are chosen so that, in exact arithmetic, the Padé approximant is the exact
//! exponential of a matrix `A + ΔA` with `‖ΔA‖₁ ≤ u ‖A‖₁`, `u = 2⁻⁵³` the unit roundoff.
//! Before that, `A` is balanced by an exact diagonal similarity (powers of two) when this
//! lowers its 1-norm. This matters for the state matrices above: `[[0, I], [-M⁻¹K, -M⁻¹D]]·h`
//! mixes entries of size `h` and `ω² h`, and balancing brings its norm from `ω² h` down to
//! about `ω h`, which removes most squarings and the rounding errors they amplify.
//!
//! Accuracy in floating point (measured in the tests): near the unit roundoff relative to
//! `‖e^A‖` for the oscillator matrices the integrators need (`≤ 5e-16`, also entry by entry);
//! in general up to about `e^{θ_13} u ≈ 2e-14` from evaluating `q_13` near `θ_13` (an
//! alternating sum; measured `2e-14` for the scalar 5.3), amplified by the conditioning of
//! `e^A` (about `‖A‖` for normal `A`: `6e-15` for a rotation by 500 rad) and, for strongly
//! non-normal `A`, by the squarings.

use faer::linalg::solvers::Solve;
use faer::{Mat, MatRef, Scale};

/// Numerator coefficients `b_0..=b_3` of the [3/3] Padé approximant to `e^x`,
/// `p_3(x) = Σ b_j x^j`, `q_3(x) = p_3(-x)`, from Higham 2005 (SIAM J. Matrix Anal. Appl.
/// 26(4), Section 2), scaled so that `b_m = 1`: `b_j ∝ (2m - j)! m! / ((2m)! j! (m - j)!)`.
const B3: [f64; 4] = [120.0, 60.0, 12.0, 1.0];

/// Numerator coefficients of the [5/5] Padé approximant to `e^x` (Higham 2005, as [`B3`]).
const B5: [f64; 6] = [30_240.0, 15_120.0, 3_360.0, 420.0, 30.0, 1.0];

/// Numerator coefficients of the [7/7] Padé approximant to `e^x` (Higham 2005, as [`B3`]).
const B7: [f64; 8] = [17_297_280.0, 8_648_640.0, 1_995_840.0, 277_200.0, 25_200.0, 1_512.0, 56.0, 1.0];

/// Numerator coefficients of the [9/9] Padé approximant to `e^x` (Higham 2005, as [`B3`]).
const B9: [f64; 10] = [
    17_643_225_600.0,
    8_821_612_800.0,
    2_075_673_600.0,
    302_702_400.0,
    30_270_240.0,
    2_162_160.0,
    110_880.0,
    3_960.0,
    90.0,
    1.0,
];

/// Numerator coefficients of the [13/13] Padé approximant to `e^x` (Higham 2005, as [`B3`]).
/// All are exactly representable in `f64`.
const B13: [f64; 14] = [
    64_764_752_532_480_000.0,
    32_382_376_266_240_000.0,
    7_771_770_303_897_600.0,
    1_187_353_796_428_800.0,
    129_060_195_264_000.0,
    10_559_470_521_600.0,
    670_442_572_800.0,
    33_522_128_640.0,
    1_323_241_920.0,
    40_840_800.0,
    960_960.0,
    16_380.0,
    182.0,
    1.0,
];

/// `θ_3`: largest `‖A‖₁` for which the [3/3] approximant has backward error at most
/// `u = 2⁻⁵³` (Higham 2005, Section 2).
const THETA_3: f64 = 1.495_585_217_958_292e-2;
/// `θ_5` (Higham 2005, printed `2.539398330063230e-1`), as [`THETA_3`].
const THETA_5: f64 = 2.539_398_330_063_23e-1;
/// `θ_7` (Higham 2005), as [`THETA_3`].
const THETA_7: f64 = 9.504_178_996_162_932e-1;
/// `θ_9` (Higham 2005), as [`THETA_3`].
const THETA_9: f64 = 2.097_847_961_257_068e0;
/// `θ_13` (Higham 2005): `A` is scaled by `2^-s` until `‖2^-s A‖₁ ≤ θ_13`.
const THETA_13: f64 = 5.371_920_351_148_152e0;

/// The low-degree approximants, in increasing degree, with their thresholds.
const LOW_DEGREE: [(f64, &[f64]); 4] = [(THETA_3, &B3), (THETA_5, &B5), (THETA_7, &B7), (THETA_9, &B9)];

/// The matrix exponential `e^A` of a square matrix.
///
/// Scaling and squaring with Padé approximants, Higham (2005) Algorithm 2.3, after balancing;
/// see the [module documentation](self) for the method and its accuracy. Cost: at most 6
/// matrix products, one LU solve and `s = max(0, ⌈log₂(‖B‖₁/θ_13)⌉)` squarings, `B` the
/// balanced matrix.
///
/// A matrix with an infinite or NaN entry has no meaningful exponential; the result is then
/// all NaN.
///
/// # Panics
///
/// If `a` is not square.
pub fn expm(a: MatRef<'_, f64>) -> Mat<f64> {
    assert_eq!(a.nrows(), a.ncols(), "expm needs a square matrix");
    let n = a.nrows();
    let norm = norm1(a);
    if !norm.is_finite() {
        return Mat::from_fn(n, n, |_, _| f64::NAN);
    }
    let (b, d, b_norm) = balance_if_better(a, norm);
    let x = scaling_and_squaring(b.as_ref(), b_norm);
    // e^A = D e^B D⁻¹; the d_i are powers of two, so this is exact.
    Mat::from_fn(n, n, |i, j| x[(i, j)] * d[i] / d[j])
}

/// The exact one-step flow of `y' = A y + b` over a step `h`: returns `(e^{A h}, g)` with
/// `g = ∫₀ʰ e^{A τ} b dτ`, so that `y(t + h) = e^{A h} y(t) + g` for a constant `b` (a force
/// such as gravity, already divided by the mass).
///
/// Van Loan's construction (C. F. Van Loan, "Computing integrals involving the matrix
/// exponential", IEEE Trans. Automat. Control 23(3), 1978): the exponential of the
/// `(n+1) × (n+1)` matrix `[[A h, b h], [0, 0]]` is `[[e^{A h}, g], [0, 1]]`. It is computed
/// as in [`expm`], with the same accuracy, with two exact rescalings by powers of two: `A h` is
/// balanced (`D⁻¹ A h D`, and `b h` becomes `D⁻¹ b h`), and the `b` column is scaled by `2^-k`
/// so that it does not raise the 1-norm of the augmented matrix: a large force costs no extra
/// squarings. Both are undone on the result (`g` is linear in `b`). Rounding errors in `g` are
/// relative to `g`'s own size, since the last column of every intermediate is linear in `b`.
///
/// Non-finite input gives an all-NaN result, as for [`expm`].
///
/// # Panics
///
/// If `a` is not square or `b.len()` differs from its size.
pub fn expm_augmented(a: MatRef<'_, f64>, b: &[f64], h: f64) -> (Mat<f64>, Vec<f64>) {
    assert_eq!(a.nrows(), a.ncols(), "expm_augmented needs a square matrix");
    let n = a.nrows();
    assert_eq!(b.len(), n, "expm_augmented: b has the wrong length");
    let ah = a * Scale(h);
    let ah_norm = norm1(ah.as_ref());
    let bh_norm: f64 = b.iter().map(|bi| (bi * h).abs()).sum();
    if !(ah_norm + bh_norm).is_finite() {
        return (Mat::from_fn(n, n, |_, _| f64::NAN), vec![f64::NAN; n]);
    }
    let (m, d, m_norm) = balance_if_better(ah.as_ref(), ah_norm);
    let c: Vec<f64> = b.iter().zip(&d).map(|(bi, di)| bi * h / di).collect();
    let c_norm: f64 = c.iter().map(|ci| ci.abs()).sum();
    // ‖c 2^-k‖₁ ≤ max(‖M‖₁, θ_3): the augmented matrix gets the Padé degree and the number of
    // squarings of `M` alone. k ≤ 1023 keeps 2^k finite (c_norm = 0 gives k = 0).
    let k = (c_norm.log2() - m_norm.max(THETA_3).log2()).ceil().clamp(0.0, 1023.0) as i32;
    let c_scale = 2f64.powi(-k);
    let augmented = Mat::from_fn(n + 1, n + 1, |i, j| match (i < n, j < n) {
        (true, true) => m[(i, j)],
        (true, false) => c[i] * c_scale,
        (false, _) => 0.0,
    });
    let e = scaling_and_squaring(augmented.as_ref(), norm1(augmented.as_ref()));
    let phi = Mat::from_fn(n, n, |i, j| e[(i, j)] * d[i] / d[j]);
    let c_unscale = 2f64.powi(k);
    let g = (0..n).map(|i| e[(i, n)] * d[i] * c_unscale).collect();
    (phi, g)
}

/// Higham (2005) Algorithm 2.3 for a matrix `a` with finite 1-norm `norm`.
fn scaling_and_squaring(a: MatRef<'_, f64>, norm: f64) -> Mat<f64> {
    for (theta, b) in LOW_DEGREE {
        if norm <= theta {
            let (u, v) = pade_low(a, b);
            return pade_solve(&u, &v);
        }
    }
    // `norm` is finite, so `s ≤ 1024 - log₂ θ_13 < 1022` and `2^-s` is a normal number.
    let s = (norm / THETA_13).log2().ceil().max(0.0) as i32;
    let scaled = a * Scale(2f64.powi(-s));
    let (u, v) = pade_13(scaled.as_ref());
    let mut x = pade_solve(&u, &v);
    for _ in 0..s {
        x = &x * &x;
    }
    x
}

/// `(B, d, ‖B‖₁)` with `B = D⁻¹ A D` the [`balance`]d matrix if that lowers the 1-norm, else
/// `B = A` and `d = 1`. `norm` is `‖A‖₁`, finite.
fn balance_if_better(a: MatRef<'_, f64>, norm: f64) -> (Mat<f64>, Vec<f64>, f64) {
    let (b, d) = balance(a);
    let b_norm = norm1(b.as_ref());
    if b_norm < norm {
        (b, d, b_norm)
    } else {
        (a.to_owned(), vec![1.0; a.nrows()], norm)
    }
}

/// Diagonal balancing: `B = D⁻¹ A D` with `D = diag(d)`, each `d_i` a power of two chosen so
/// that the off-diagonal parts of row `i` and column `i` of `B` have comparable 1-norms
/// (Parlett and Reinsch, "Balancing a matrix for calculation of eigenvalues and
/// eigenvectors", Numer. Math. 13, 1969; the scaling step of LAPACK's `dgebal`, without
/// permutations). Powers of two make the similarity exact.
///
/// Why: the state matrix of a mass-spring network, `[[0, I], [-M⁻¹K, -M⁻¹D]]·h`, mixes entries
/// of size `h` and `ω² h`; its 1-norm, and so the number of squarings, is set by `ω² h` while
/// its eigenvalues are only of size `ω h`. Balancing with `d ≈ [1, ω]` brings the norm down to
/// about `ω h`, which removes most squarings and the rounding errors they amplify. Measured:
/// a 125 Hz oscillator at `h = 1 ms` goes from 7 squarings and a `1e-12` error relative to the
/// norm to none and `1e-16`; a 3.2 kHz spring at 44.1 kHz from 11 squarings and a `1e-8` error
/// in the (small) displacement-from-velocity entry to none and `2e-16`.
///
/// `a` must have finite entries.
fn balance(a: MatRef<'_, f64>) -> (Mat<f64>, Vec<f64>) {
    /// A rescaling is kept only if it lowers `c + r` by at least this factor (as in `dgebal`).
    const GAIN: f64 = 0.95;
    /// Sweeps are capped; Parlett–Reinsch converges in a few for any finite matrix.
    const MAX_SWEEPS: usize = 100;
    /// The largest factor one rescaling takes (`f^2` stays finite).
    const MAX_FACTOR: f64 = 1.0e150;
    let n = a.nrows();
    let mut b = a.to_owned();
    let mut d = vec![1.0; n];
    for _ in 0..MAX_SWEEPS {
        let mut converged = true;
        for i in 0..n {
            let c: f64 = (0..n).filter(|&j| j != i).map(|j| b[(j, i)].abs()).sum();
            let r: f64 = (0..n).filter(|&j| j != i).map(|j| b[(i, j)].abs()).sum();
            // A row or column whose sum overflows (finite entries near f64::MAX) is left as it is:
            // the search below would never end on an infinite sum.
            if c == 0.0 || r == 0.0 || !(c + r).is_finite() {
                continue;
            }
            // Find the power of two f with r/2 ≤ c f² < 2 r (within [1/MAX_FACTOR, MAX_FACTOR]).
            let mut f = 1.0;
            let mut cf2 = c;
            while cf2 < r / 2.0 && f < MAX_FACTOR {
                f *= 2.0;
                cf2 *= 4.0;
            }
            while cf2 >= r * 2.0 && f > 1.0 / MAX_FACTOR {
                f /= 2.0;
                cf2 /= 4.0;
            }
            // d_i stays a normal number, so D is invertible and exact.
            if c * f + r / f < GAIN * (c + r) && (d[i] * f).is_normal() {
                converged = false;
                d[i] *= f;
                for j in 0..n {
                    b[(j, i)] *= f;
                    b[(i, j)] /= f;
                }
            }
        }
        if converged {
            break;
        }
    }
    (b, d)
}

/// The matrix 1-norm `max_j Σ_i |a_ij|` (faer's `norm_l1` on a matrix is the entrywise sum).
/// NaN if any entry is NaN.
fn norm1(a: MatRef<'_, f64>) -> f64 {
    (0..a.ncols()).map(|j| a.col(j).norm_l1()).fold(0.0, |max, c| if c > max || c.is_nan() { c } else { max })
}

/// `c0 I + Σ c_i M_i` for `n × n` matrices `M_i`.
fn combine(n: usize, c0: f64, terms: &[(f64, &Mat<f64>)]) -> Mat<f64> {
    let mut sum = Mat::<f64>::identity(n, n) * Scale(c0);
    for &(c, m) in terms {
        sum += m * Scale(c);
    }
    sum
}

/// Odd and even parts `U = A Σ_k b_{2k+1} A^{2k}`, `V = Σ_k b_{2k} A^{2k}` of `p_m(A)` for
/// `m ∈ {3, 5, 7, 9}` (Higham 2005, Algorithm 2.3); `b` holds `b_0..=b_m`.
fn pade_low(a: MatRef<'_, f64>, b: &[f64]) -> (Mat<f64>, Mat<f64>) {
    let n = a.nrows();
    let a2 = a * a;
    let mut power = a2.clone();
    let mut odd = Mat::<f64>::identity(n, n) * Scale(b[1]);
    let mut v = Mat::<f64>::identity(n, n) * Scale(b[0]);
    for (k, pair) in b[2..].chunks_exact(2).enumerate() {
        if k > 0 {
            power = &power * &a2;
        }
        v += &power * Scale(pair[0]);
        odd += &power * Scale(pair[1]);
    }
    (a * odd, v)
}

/// Odd and even parts `U`, `V` of `p_13(A)` evaluated with 6 products (Higham 2005,
/// Algorithm 2.3):
/// `U = A [A⁶ (b₁₃A⁶ + b₁₁A⁴ + b₉A²) + b₇A⁶ + b₅A⁴ + b₃A² + b₁I]`,
/// `V = A⁶ (b₁₂A⁶ + b₁₀A⁴ + b₈A²) + b₆A⁶ + b₄A⁴ + b₂A² + b₀I`.
fn pade_13(a: MatRef<'_, f64>) -> (Mat<f64>, Mat<f64>) {
    let n = a.nrows();
    let b = &B13;
    let a2 = a * a;
    let a4 = &a2 * &a2;
    let a6 = &a4 * &a2;
    let u_high = combine(n, 0.0, &[(b[13], &a6), (b[11], &a4), (b[9], &a2)]);
    let u_low = combine(n, b[1], &[(b[7], &a6), (b[5], &a4), (b[3], &a2)]);
    let u = a * (&a6 * &u_high + u_low);
    let v_high = combine(n, 0.0, &[(b[12], &a6), (b[10], &a4), (b[8], &a2)]);
    let v_low = combine(n, b[0], &[(b[6], &a6), (b[4], &a4), (b[2], &a2)]);
    let v = &a6 * &v_high + v_low;
    (u, v)
}

/// `r_m = q_m⁻¹ p_m = (V - U)⁻¹ (V + U)`, by LU with partial pivoting.
///
/// `V - U = q_m(A)` is nonsingular for `‖A‖₁ ≤ θ_m`, and Higham (2005) bounds its 1-norm
/// condition number there by a small constant, so the solve is well conditioned. (faer's LU
/// never fails or reports singularity; the thresholds are what make it safe.)
fn pade_solve(u: &Mat<f64>, v: &Mat<f64>) -> Mat<f64> {
    let lu = (v - u).partial_piv_lu();
    lu.solve(v + u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// `‖X - E‖₁ / ‖E‖₁`.
    fn rel_err(x: MatRef<'_, f64>, exact: MatRef<'_, f64>) -> f64 {
        norm1((x - exact).as_ref()) / norm1(exact)
    }

    /// `max_ij |x_ij - e_ij| / |e_ij|` over the nonzero entries of `exact`.
    fn max_entry_err(x: MatRef<'_, f64>, exact: MatRef<'_, f64>) -> f64 {
        let mut max = 0.0f64;
        for j in 0..exact.ncols() {
            for i in 0..exact.nrows() {
                if exact[(i, j)] != 0.0 {
                    max = max.max(((x[(i, j)] - exact[(i, j)]) / exact[(i, j)]).abs());
                }
            }
        }
        max
    }

    fn mat2(m: [[f64; 2]; 2]) -> Mat<f64> {
        Mat::from_fn(2, 2, |i, j| m[i][j])
    }

    /// `[[0, 1], [-w0², -γ]]`: the state matrix of `x'' + γ x' + w0² x = 0`.
    fn oscillator(w0: f64, gamma: f64) -> Mat<f64> {
        mat2([[0.0, 1.0], [-w0 * w0, -gamma]])
    }

    /// Closed form of `e^{A h}` for `A = oscillator(w0, γ)`, underdamped (`w0 > γ/2`):
    /// `e^{-γh/2} [cos(wd h) I + sin(wd h)/wd (A + γ/2 I)]`, `wd = √(w0² - γ²/4)`.
    fn oscillator_exact(w0: f64, gamma: f64, h: f64) -> Mat<f64> {
        let wd = (w0 * w0 - gamma * gamma / 4.0).sqrt();
        let (sin, cos) = (wd * h).sin_cos();
        let decay = (-gamma * h / 2.0).exp();
        let sw = sin / wd;
        mat2([
            [decay * (cos + sw * gamma / 2.0), decay * sw],
            [-decay * sw * w0 * w0, decay * (cos - sw * gamma / 2.0)],
        ])
    }

    /// The oscillator of Morgan & Qiao 2009, section 3.9 (125 Hz, γ = 50 /s, h = 1 ms:
    /// ‖A h‖₁ ≈ 617) and a stiff spring at 44.1 kHz (‖A h‖₁ ≈ 9070); unbalanced, they would
    /// need 7 and 11 squarings.
    const OSCILLATORS: [(f64, f64, f64); 2] = [(125.0 * 2.0 * PI, 50.0, 1e-3), (2e4, 10.0, 1.0 / 44_100.0)];

    #[test]
    fn coefficients_match_the_pade_formula() {
        // b_j ∝ (2m - j)! m! / ((2m)! j! (m - j)!), so b_j (m - j) = b_{j+1} (j + 1) (2m - j).
        for b in [&B3[..], &B5, &B7, &B9, &B13] {
            let m = b.len() - 1;
            assert_eq!(b[m], 1.0);
            for j in 0..m {
                // Integers below 2^56: compare exactly in u128.
                let (bj, bj1) = (b[j] as u128, b[j + 1] as u128);
                assert_eq!(bj as f64, b[j], "m = {m}, j = {j}: not an integer");
                assert_eq!(bj * (m - j) as u128, bj1 * ((j + 1) * (2 * m - j)) as u128);
            }
        }
    }

    #[test]
    fn rotation_generator() {
        // ‖A‖₁ = w t: 1e-3, 0.1, 0.5, 1, 2, 5 take m = 3, 5, 7, 9, 9, 13 without squaring;
        // 30 and 500 take s = 3 and s = 7 squarings (balancing leaves this matrix unchanged).
        for wt in [1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 30.0, 500.0] {
            let a = mat2([[0.0, wt], [-wt, 0.0]]);
            let (sin, cos) = wt.sin_cos();
            let exact = mat2([[cos, sin], [-sin, cos]]);
            let err = rel_err(expm(a.as_ref()).as_ref(), exact.as_ref());
            // The relative condition number of e^A at a normal A is ‖A‖₂ (Van Loan 1977), so
            // at w t = 500 the attainable error is ‖A‖ u ≈ 5.5e-14 times a modest constant:
            // 1e-13 still holds there (measured: 6e-15); below, it has a margin of 200.
            assert!(err <= 1e-13, "w t = {wt}: relative error {err:e}");
        }
    }

    #[test]
    fn damped_oscillator() {
        for (w0, gamma, h) in OSCILLATORS {
            let a = oscillator(w0, gamma) * Scale(h);
            let x = expm(a.as_ref());
            let exact = oscillator_exact(w0, gamma, h);
            // Relative to the norm and entry by entry (the displacement-from-velocity entry
            // is 1e6 times smaller than the norm in the stiff case). Measured: ≤ 5e-16 for
            // both; without balancing, 1e-8 entry by entry in the stiff case.
            let err = rel_err(x.as_ref(), exact.as_ref());
            assert!(err <= 1e-13, "w0 = {w0}: relative error {err:e}");
            let err = max_entry_err(x.as_ref(), exact.as_ref());
            assert!(err <= 1e-13, "w0 = {w0}: entry relative error {err:e}");
        }
    }

    #[test]
    fn diagonal() {
        // ‖A‖₁ = 7: one squaring of a [13/13] approximant at entries -1.5 .. 3.5. Evaluating
        // q_13(3.5) = p_13(-3.5) is an alternating sum with cancellation e^3.5 ≈ 33, so the
        // error is ~ 33 u per entry, doubled by the squaring: bound 5e-14 (measured 9e-15).
        let d: [f64; 4] = [-3.0, 0.0, 0.25, 7.0];
        let a = Mat::from_fn(4, 4, |i, j| if i == j { d[i] } else { 0.0 });
        let x = expm(a.as_ref());
        let exact = Mat::from_fn(4, 4, |i, j| if i == j { d[i].exp() } else { 0.0 });
        let err = max_entry_err(x.as_ref(), exact.as_ref());
        assert!(err <= 5e-14, "diagonal: {err:e}");
        assert!(rel_err(x.as_ref(), exact.as_ref()) <= 5e-14);
        // Off-diagonal entries stay exactly zero.
        for j in 0..4 {
            for i in (0..4).filter(|&i| i != j) {
                assert_eq!(x[(i, j)], 0.0);
            }
        }
    }

    #[test]
    fn nilpotent() {
        // N strictly upper triangular: N³ = 0, e^N = I + N + N²/2. ‖N‖₁ = 4.5: m = 13, s = 0.
        let (p, q, r) = (2.0, -1.5, 3.0);
        let nil = Mat::from_fn(3, 3, |i, j| match (i, j) {
            (0, 1) => p,
            (0, 2) => q,
            (1, 2) => r,
            _ => 0.0,
        });
        let exact = Mat::from_fn(3, 3, |i, j| match (i, j) {
            _ if i == j => 1.0,
            (0, 1) => p,
            (0, 2) => q + p * r / 2.0,
            (1, 2) => r,
            _ => 0.0,
        });
        let x = expm(nil.as_ref());
        let err = max_entry_err(x.as_ref(), exact.as_ref());
        assert!(err <= 1e-14, "nilpotent: {err:e}");
        for i in 1..3 {
            for j in 0..i {
                assert_eq!(x[(i, j)], 0.0);
            }
        }
    }

    #[test]
    fn zero_and_empty() {
        let zero = Mat::<f64>::zeros(5, 5);
        assert_eq!(expm(zero.as_ref()), Mat::<f64>::identity(5, 5));
        assert_eq!(expm(Mat::<f64>::zeros(0, 0).as_ref()).nrows(), 0);
    }

    #[test]
    fn non_finite_input_gives_nan() {
        let all_nan = |x: &Mat<f64>| x.col_iter().flat_map(|c| c.iter().copied()).all(f64::is_nan);
        let a = mat2([[f64::INFINITY, 0.0], [0.0, 1.0]]);
        assert!(all_nan(&expm(a.as_ref())));
        let a = mat2([[f64::NAN, 0.0], [0.0, 1.0]]);
        assert!(all_nan(&expm(a.as_ref())));
        let (phi, g) = expm_augmented(oscillator(1.0, 0.0).as_ref(), &[0.0, f64::NAN], 0.1);
        assert!(all_nan(&phi) && g.iter().all(|x| x.is_nan()));
    }

    #[test]
    fn balancing_finishes_on_sums_near_overflow() {
        // Finite entries whose off-diagonal row sum (2e308) overflows, against a column sum of
        // 5e-324: the search for the power of two once ran forever on the infinite sum. The
        // factors found are powers of two, finite and nonzero.
        let a = Mat::from_fn(3, 3, |i, j| match (i, j) {
            (0, 1) | (0, 2) => 1e308,
            (1, 0) => 5e-324,
            _ => 0.0,
        });
        let (_, d) = balance(a.as_ref());
        for di in d {
            assert!(di.is_finite() && di > 0.0 && di.log2().fract() == 0.0, "{di}");
        }
        assert_eq!(expm(a.as_ref()).nrows(), 3);
    }

    #[test]
    fn augmented_constant_force() {
        // g = ∫₀ʰ e^{Aτ} b dτ = A⁻¹ (e^{A h} - I) b, A⁻¹ = [[-γ, -1], [w0², 0]] / w0².
        let gravity = -9.81;
        for (w0, gamma, h) in OSCILLATORS {
            let a = oscillator(w0, gamma);
            let (phi, g) = expm_augmented(a.as_ref(), &[0.0, gravity], h);
            let exact_phi = oscillator_exact(w0, gamma, h);
            let err = max_entry_err(phi.as_ref(), exact_phi.as_ref());
            assert!(err <= 1e-13, "w0 = {w0}: e^(A h) entry relative error {err:e}");
            // y = (e^{A h} - I) b with b = [0, g]; then A⁻¹ y.
            let y = [exact_phi[(0, 1)] * gravity, (exact_phi[(1, 1)] - 1.0) * gravity];
            let exact = [(-gamma * y[0] - y[1]) / (w0 * w0), y[0]];
            // Per component (measured ≤ 2e-16; the closed form itself loses a few u in
            // e^{A h}_11 - 1).
            for i in 0..2 {
                let err = ((g[i] - exact[i]) / exact[i]).abs();
                assert!(err <= 1e-13, "w0 = {w0}, component {i}: {err:e}");
            }
        }
    }

    #[test]
    fn augmented_large_force_costs_nothing() {
        // The b column is rescaled by a power of two, so forces 2^40 apart give results
        // exactly 2^40 apart, and e^{A h} keeps its accuracy however large the force.
        let (w0, gamma, h) = OSCILLATORS[0];
        let a = oscillator(w0, gamma);
        let b = [0.5e6, -3e6];
        let big = b.map(|x| x * 2f64.powi(40));
        let (phi, g) = expm_augmented(a.as_ref(), &b, h);
        let (phi_big, g_big) = expm_augmented(a.as_ref(), &big, h);
        assert_eq!(phi, phi_big);
        for i in 0..2 {
            assert_eq!(g_big[i], g[i] * 2f64.powi(40));
        }
        let err = max_entry_err(phi_big.as_ref(), oscillator_exact(w0, gamma, h).as_ref());
        assert!(err <= 1e-13, "e^(A h) with a large force: {err:e}");
    }

    #[test]
    fn block_diagonal_oscillators() {
        let blocks = [(125.0 * 2.0 * PI, 50.0), (2e4, 10.0), (300.0, 0.0)];
        let h = 1.0 / 44_100.0;
        let block_of = |i: usize, j: usize| (i / 2 == j / 2).then(|| blocks[i / 2]);
        let a = Mat::from_fn(6, 6, |i, j| match block_of(i, j) {
            Some((w0, gamma)) => oscillator(w0, gamma)[(i % 2, j % 2)] * h,
            None => 0.0,
        });
        let exact = Mat::from_fn(6, 6, |i, j| match block_of(i, j) {
            Some((w0, gamma)) => oscillator_exact(w0, gamma, h)[(i % 2, j % 2)],
            None => 0.0,
        });
        let x = expm(a.as_ref());
        let err = rel_err(x.as_ref(), exact.as_ref());
        assert!(err <= 1e-13, "block diagonal: {err:e}");
        let err = max_entry_err(x.as_ref(), exact.as_ref());
        assert!(err <= 1e-13, "block diagonal, entry by entry: {err:e}");
        // Off-diagonal blocks stay exactly zero (block-diagonal products never fill them).
        for j in 0..6 {
            for i in (0..6).filter(|&i| block_of(i, j).is_none()) {
                assert_eq!(x[(i, j)], 0.0);
            }
        }
    }
}
