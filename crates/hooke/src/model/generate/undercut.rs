//! The undercut of a marimba or xylophone bar: thinning the middle of the bar lowers its first
//! mode much more than its second, so the ratio `f_2 / f_1`, 2.7565 for a uniform free bar, can
//! be raised to 4 (a marimba's double octave) or 3 (a xylophone's twelfth) (Fletcher & Rossing
//! 1998, ch. 19: the tuning of bars by removing material from the middle).
//!
//! The profile here: the thickness is `t(x) = t_0 (1 - d s(x))` with `s(x) = cos^2(pi (x - L/2)
//! / (w L))` over the middle `w L` of the bar (`w` = [`UNDERCUT_WIDTH`]) and 0 outside; a cell of
//! relative thickness `tau` has mass `tau m` and rigidity `tau^3 E I` (a rectangular section).
//! The depth `d` is found by bisection on the ratio of the lumped bar's own modes, the
//! eigenvalues of `M^-1/2 K M^-1/2` with `K = sum_i kappa_i w w^T`, `w = (1, -2, 1)` at mass
//! `i`: the bar as simulated has the ratio asked for.

use crate::linalg::eigen::symmetric_eigenvalues;
use faer::Mat;
use std::f64::consts::PI;

/// The fraction of the bar's length that the undercut spans, centred.
pub const UNDERCUT_WIDTH: f64 = 0.6;

/// The deepest cut allowed, as a fraction of the thickness.
pub const MAX_UNDERCUT_DEPTH: f64 = 0.9;

/// Each cell's relative thickness `tau_i` (cell i's centre at `(i + 1/2) L / N`) for depth `d`.
pub(super) fn thickness(cells: usize, depth: f64) -> Vec<f64> {
    (0..cells)
        .map(|i| {
            let from_middle = (i as f64 + 0.5) / cells as f64 - 0.5;
            let shape = if from_middle.abs() < 0.5 * UNDERCUT_WIDTH {
                (PI * from_middle / UNDERCUT_WIDTH).cos().powi(2)
            } else {
                0.0
            };
            1.0 - depth * shape
        })
        .collect()
}

/// `f_2 / f_1` of a free bar of masses `mass * tau_i` and elements `kappa * tau_i^3` centred at
/// the inner masses (the third and fourth eigenvalues: the first two are the free motions).
pub(super) fn mode_ratio(tau: &[f64]) -> Option<f64> {
    let n = tau.len();
    let mut scaled = Mat::<f64>::zeros(n, n);
    for i in 1..n - 1 {
        let weights = [(i - 1, 1.0), (i, -2.0), (i + 1, 1.0)];
        for &(r, wr) in &weights {
            for &(c, wc) in &weights {
                scaled[(r, c)] += tau[i].powi(3) * wr * wc / (tau[r] * tau[c]).sqrt();
            }
        }
    }
    let mut values = symmetric_eigenvalues(scaled.as_ref()).ok()?;
    values.sort_by(f64::total_cmp);
    (n >= 4 && values[2] > 0.0).then(|| (values[3] / values[2]).sqrt())
}

/// The depth `d` whose bar of `cells` masses has `f_2 / f_1 = ratio`, by bisection to 1e-12;
/// `Err` with the range of ratios the profile reaches when `ratio` is outside it.
pub(super) fn depth_for_ratio(cells: usize, ratio: f64) -> Result<f64, (f64, f64)> {
    let at = |depth: f64| mode_ratio(&thickness(cells, depth)).unwrap_or(f64::NAN);
    let (lowest, highest) = (at(0.0), at(MAX_UNDERCUT_DEPTH));
    if !(lowest..=highest).contains(&ratio) {
        return Err((lowest, highest));
    }
    let (mut shallow, mut deep) = (0.0, MAX_UNDERCUT_DEPTH);
    while deep - shallow > 1e-12 {
        let middle = 0.5 * (shallow + deep);
        if at(middle) < ratio {
            shallow = middle;
        } else {
            deep = middle;
        }
    }
    Ok(0.5 * (shallow + deep))
}
