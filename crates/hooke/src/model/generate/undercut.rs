//! The undercut of a marimba or xylophone bar: thinning the middle of the bar lowers its first
//! mode much more than its second, so the ratio `f_2 / f_1`, 2.7565 for a uniform free bar, can
//! be raised to 4 (a marimba's double octave) or 3 (a xylophone's twelfth) (Fletcher & Rossing
//! 1998, ch. 19: the tuning of bars by removing material from the middle).
//!
//! The profile here: the thickness is `t(x) = t_0 (1 - d s_w(x) + r s_n(x))` with `s_w(x) =
//! cos^2(pi (x - L/2) / (w L))` over the middle `w L` of the bar (`w` = [`UNDERCUT_WIDTH`]) and 0
//! outside, and `s_n` the same over the narrower middle [`RELIEF_WIDTH`]; a cell of relative
//! thickness `tau` has mass `tau m` and rigidity `tau^3 E I` (a rectangular section). The
//! ratios are those of the lumped bar's own modes, the eigenvalues of `M^-1/2 K M^-1/2` with `K =
//! sum_i kappa_i w w^T`, `w = (1, -2, 1)` at mass `i`: the bar as simulated has the ratios asked
//! for.
//!
//! - **Two modes** (`f_2 / f_1` alone): no relief (`r = 0`), the depth `d` by bisection.
//! - **Three modes** (`f_2 / f_1` and `f_3 / f_1`, 4 and about 10 on a concert marimba's bars,
//!   Bork 1995): the cut with a thicker middle, a relief `r` left at the centre of the cut (what a
//!   bar maker does to raise the third mode against the second: the third's curvature is largest
//!   at the centre and near the ends, the second's between), `(d, r)` by Newton's method on the
//!   two ratios from the two-mode cut. On 12 to 80 masses `(4, 10)` is met with `d` about 0.83 to
//!   0.91 and `r` about 0.28 to 0.32, the thinnest cell 0.40 to 0.43 of the uncut thickness.

use crate::linalg::eigen::symmetric_eigenvalues;
use faer::Mat;
use std::f64::consts::PI;

/// The fraction of the bar's length that the undercut spans, centred.
pub const UNDERCUT_WIDTH: f64 = 0.6;

/// The deepest cut allowed, as a fraction of the thickness.
pub const MAX_UNDERCUT_DEPTH: f64 = 0.9;

/// The fraction of the bar's length that the relief of a three-mode cut spans, centred.
pub const RELIEF_WIDTH: f64 = 0.3;

/// The thinnest a three-mode cut may leave a cell, as a fraction of the thickness.
pub const THINNEST: f64 = 0.05;

/// Newton steps a three-mode cut may take.
const NEWTON_STEPS: usize = 60;

/// Each cell's relative thickness `tau_i` (cell i's centre at `(i + 1/2) L / N`) for depth `d`
/// and relief `r`.
pub(super) fn thickness(cells: usize, depth: f64, relief: f64) -> Vec<f64> {
    let bump = |from_middle: f64, width: f64| {
        if from_middle.abs() < 0.5 * width {
            (PI * from_middle / width).cos().powi(2)
        } else {
            0.0
        }
    };
    (0..cells)
        .map(|i| {
            let from_middle = (i as f64 + 0.5) / cells as f64 - 0.5;
            1.0 - depth * bump(from_middle, UNDERCUT_WIDTH) + relief * bump(from_middle, RELIEF_WIDTH)
        })
        .collect()
}

/// `f_2 / f_1` and `f_3 / f_1` of a free bar of masses `mass * tau_i` and elements `kappa *
/// tau_i^3` centred at the inner masses (the third to fifth eigenvalues: the first two are the
/// free motions).
pub(super) fn mode_ratios(tau: &[f64]) -> Option<[f64; 2]> {
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
    (n >= 5 && values[2] > 0.0).then(|| [(values[3] / values[2]).sqrt(), (values[4] / values[2]).sqrt()])
}

/// The depth `d` whose bar of `cells` masses has `f_2 / f_1 = ratio`, by bisection to 1e-12;
/// `Err` with the range of ratios the profile reaches when `ratio` is outside it.
pub(super) fn depth_for_ratio(cells: usize, ratio: f64) -> Result<f64, (f64, f64)> {
    let at = |depth: f64| mode_ratios(&thickness(cells, depth, 0.0)).map_or(f64::NAN, |r| r[0]);
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

/// The depth and relief `(d, r)` whose bar of `cells` masses has `f_2 / f_1 = ratio` and `f_3 /
/// f_1 = third`, to 1e-12 of each; `Err` with the ratios the nearest cut reached when Newton's
/// method cannot meet them within a profile that keeps every cell between [`THINNEST`] and the
/// uncut thickness.
pub(super) fn cut_for_ratios(cells: usize, ratio: f64, third: f64) -> Result<(f64, f64), [f64; 2]> {
    let target = [ratio, third];
    let misses = |depth: f64, relief: f64| -> Option<[f64; 2]> {
        let tau = thickness(cells, depth, relief);
        if tau.iter().any(|t| !(THINNEST..=1.0).contains(t)) {
            return None;
        }
        mode_ratios(&tau).map(|r| [r[0] / target[0] - 1.0, r[1] / target[1] - 1.0])
    };
    let start = depth_for_ratio(cells, ratio).unwrap_or(0.5 * MAX_UNDERCUT_DEPTH);
    let (mut depth, mut relief) = (start, 0.0);
    let mut miss = misses(depth, relief).ok_or([f64::NAN; 2])?;
    for _ in 0..NEWTON_STEPS {
        if miss.iter().all(|m| m.abs() < 1e-12) {
            return Ok((depth, relief));
        }
        // The Jacobian by forward differences, each knob moved by 1e-7.
        let step = 1e-7;
        let (Some(by_depth), Some(by_relief)) = (misses(depth + step, relief), misses(depth, relief + step))
        else {
            break;
        };
        let d = [(by_depth[0] - miss[0]) / step, (by_depth[1] - miss[1]) / step];
        let r = [(by_relief[0] - miss[0]) / step, (by_relief[1] - miss[1]) / step];
        let determinant = d[0] * r[1] - d[1] * r[0];
        if !(determinant.is_finite() && determinant != 0.0) {
            break;
        }
        let (dd, dr) = (
            (r[0] * miss[1] - r[1] * miss[0]) / determinant,
            (d[1] * miss[0] - d[0] * miss[1]) / determinant,
        );
        // Halved until the cut stays a cut and the miss shrinks.
        let norm = |m: [f64; 2]| m[0].abs().max(m[1].abs());
        let mut scale = 1.0;
        loop {
            if let Some(next) =
                misses(depth + scale * dd, relief + scale * dr).filter(|m| norm(*m) < norm(miss))
            {
                (depth, relief, miss) = (depth + scale * dd, relief + scale * dr, next);
                break;
            }
            scale *= 0.5;
            if scale < 1e-6 {
                return Err([(1.0 + miss[0]) * ratio, (1.0 + miss[1]) * third]);
            }
        }
    }
    Err([(1.0 + miss[0]) * ratio, (1.0 + miss[1]) * third])
}
