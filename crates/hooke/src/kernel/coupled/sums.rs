//! The coupled kernel's inner loops: a part's step, weighted sums over its modes in vector
//! lanes, a coupling row's sum.

use crate::kernel::Real;

/// Modes in the vector lanes at a time (an AVX-512 register of f64); parts are padded to it.
pub(super) const LANES: usize = 8;

/// `sum (k x_s + c v_s)` over a row's `(source, k, c)` entries, in four independent sums (a hub's
/// row, the piano's bridge, has one entry a string end and more).
#[inline(always)]
pub(super) fn row_sum(row: &[(usize, f64, f64)], x: &[f64], v: &[f64]) -> f64 {
    const SUMS: usize = 4;
    let term = |sum: f64, &(s, k, c): &(usize, f64, f64)| Real::mul_add(c, v[s], Real::mul_add(k, x[s], sum));
    let mut sums = [0.0; SUMS];
    let chunks = row.chunks_exact(SUMS);
    let tail = chunks.remainder().iter().fold(0.0, term);
    for chunk in chunks {
        for (sum, entry) in sums.iter_mut().zip(chunk) {
            *sum = term(*sum, entry);
        }
    }
    ((sums[0] + sums[1]) + (sums[2] + sums[3])) + tail
}

/// One symplectic Euler step of one part's modes, in one pass over them: the input `g = S +
/// sum_t w_t f_t` (`S` in `input`) from its `T` touched coordinates (weight rows `rows`, row
/// forces `forces`, N), then `p' = (1 - h gamma) p - h w^2 q + h g`, `q' = q + h p'` (Morgan &
/// Qiao 2009, eq. (26), modal mass 1). A loop over whole slices, which the compiler vectorises,
/// its multiply-adds fused where the CPU has them.
#[inline(always)]
pub(super) fn step_part<const T: usize>(
    h: f64,
    [q, p]: [&mut [f64]; 2],
    [stiffness, decay, input]: [&[f64]; 3],
    rows: [&[f64]; T],
    forces: [f64; T],
) {
    let n = q.len();
    let (p, stiffness, decay, input) = (&mut p[..n], &stiffness[..n], &decay[..n], &input[..n]);
    let rows = rows.map(|row| &row[..n]);
    for j in 0..n {
        let g = (0..T).fold(input[j], |g, t| Real::mul_add(rows[t][j], forces[t], g));
        let pushed = Real::mul_add(-stiffness[j], q[j], h * g);
        p[j] = Real::mul_add(decay[j], p[j], pushed);
        q[j] = Real::mul_add(h, p[j], q[j]);
    }
}

/// `values` as lane groups (its length a multiple of [`LANES`], as every part's is).
#[inline(always)]
pub(super) fn lanes(values: &[f64]) -> &[[f64; LANES]] {
    values.as_chunks::<LANES>().0
}

/// Each probe's sums `[sum w q, sum w p]` over one part's modes into `sums`, [`GROUP`] probes
/// in each pass over the modes.
#[inline(always)]
pub(super) fn probe_sums<'a>(
    q: &[f64],
    p: &[f64],
    rows: impl Iterator<Item = &'a [f64]>,
    sums: &mut [[f64; 2]],
) {
    let (mut rows, q, p) = (rows.map(lanes), lanes(q), lanes(p));
    for sums in sums.chunks_mut(GROUP) {
        let mut next = || rows.next().expect("a row for each probe");
        match sums.len() {
            1 => sums.copy_from_slice(&group_sums::<1>(q, p, [next()])),
            2 => sums.copy_from_slice(&group_sums::<2>(q, p, std::array::from_fn(|_| next()))),
            3 => sums.copy_from_slice(&group_sums::<3>(q, p, std::array::from_fn(|_| next()))),
            _ => sums.copy_from_slice(&group_sums::<GROUP>(q, p, std::array::from_fn(|_| next()))),
        }
    }
}

/// Probes summed in one pass over a part's modes: four, with 8 independent vector sums.
pub(super) const GROUP: usize = 4;

/// `[sum w_k q, sum w_k p]` for `G` weight rows `w_k` at once, in [`LANES`] independent sums
/// each, so that the additions of one row do not wait on each other's.
#[inline(always)]
pub(super) fn group_sums<const G: usize>(
    q: &[[f64; LANES]],
    p: &[[f64; LANES]],
    rows: [&[[f64; LANES]]; G],
) -> [[f64; 2]; G] {
    let (mut at_q, mut at_p) = ([[0.0; LANES]; G], [[0.0; LANES]; G]);
    for (j, (q, p)) in q.iter().zip(p).enumerate() {
        for k in 0..G {
            let w = &rows[k][j];
            for l in 0..LANES {
                at_q[k][l] = Real::mul_add(w[l], q[l], at_q[k][l]);
            }
            for l in 0..LANES {
                at_p[k][l] = Real::mul_add(w[l], p[l], at_p[k][l]);
            }
        }
    }
    std::array::from_fn(|k| [lane_sum(at_q[k]), lane_sum(at_p[k])])
}

/// Whether every value is finite: `sum 0 x` is NaN exactly when some `x` is not finite.
pub(super) fn finite(values: &[f64]) -> bool {
    let mut zeros = [0.0; LANES];
    let chunks = values.chunks_exact(LANES);
    let tail = chunks.remainder().iter().all(|x| x.is_finite());
    for chunk in chunks {
        for l in 0..LANES {
            zeros[l] += 0.0 * chunk[l];
        }
    }
    tail && lane_sum(zeros) == 0.0
}

/// The sum of the lanes, pairwise (three dependent additions, not seven).
#[inline(always)]
pub(super) fn lane_sum(x: [f64; LANES]) -> f64 {
    let half: [f64; 4] = std::array::from_fn(|l| x[l] + x[l + 4]);
    (half[0] + half[2]) + (half[1] + half[3])
}
