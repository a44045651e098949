//! A plate fitted to a struck body's modes ([`super::measure_modes`]): the simply supported
//! lattice plate of [`crate::analysis::plate_design`] whose modes lie where the measured ones do,
//! and the loss law `sigma(f) = sigma_0 + sigma_1 f` through their decays.
//!
//! **Lattice.** A plate of `C x R` masses has its modes at `w_pq ~ mu_pq = 4 sin^2(p pi / (2 (C +
//! 1))) + 4 sin^2(q pi / (2 (R + 1)))` (the module documentation of `plate_design`), so their
//! ratios to the first, `mu_pq / mu_11`, depend on the lattice alone: its aspect and, through the
//! sines, its size. Each measured mode is taken back through the scheme's pole mapping to the
//! analog oscillator the simulation would need ([`invert_pole`]: the simulated plate warps its
//! modes as the scheme does), and the lattice is the one whose ratios lie nearest the measured
//! ones (each measured mode to its nearest `mu_pq / mu_11`, the rms in cents); of the lattices
//! within [`LATTICE_SLACK_CENTS`] of the best, the one with the fewest masses.
//!
//! **Loss.** `sigma_0, sigma_1 >= 0` minimise the relative errors `sum_k a_k (sigma(f_k) /
//! sigma_k - 1)^2` of the measured decay rates, each weighted by its mode's amplitude `a_k` (a
//! weak mode's decay is measured nearer the noise, or beating with a neighbour it cannot be told
//! from): least squares on both, or on the one left where the other would be negative.

use super::modes::ModesMeasurement;
use super::RecordingError;
use crate::analysis::design::{digital_target, invert_pole};
use crate::scheme::SchemeKind;
use std::f64::consts::PI;

/// The most masses along a fitted plate's side.
pub const MAX_FITTED_SIDE: usize = 64;

/// How far (rms, cents) a lattice's ratios may lie from the best lattice's and be preferred for
/// having fewer masses.
pub const LATTICE_SLACK_CENTS: f64 = 0.5;

/// A plate that sounds like a measured strike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlateFit {
    /// The first mode's frequency, Hz.
    pub frequency_hz: f64,
    /// Masses along the plate's width.
    pub columns: usize,
    /// Masses along its height.
    pub rows: usize,
    /// The rms distance of the measured modes from the lattice's, cents.
    pub ratio_error_cents: f64,
    /// `sigma_0`, 1/s.
    pub constant_loss: f64,
    /// `sigma_1`, 1/s per Hz.
    pub linear_loss: f64,
    /// The highest mode measured, Hz: where the law is given its second point.
    pub high_frequency: f64,
}

impl PlateFit {
    /// The time constant (decay of the amplitude to `1/e`) the law gives at `frequency_hz`, s.
    pub fn decay(&self, frequency_hz: f64) -> f64 {
        1.0 / (self.constant_loss + self.linear_loss * frequency_hz)
    }

    /// The ratio of mode `(p, q)` to the first on the fitted lattice, `mu_pq / mu_11`.
    pub fn ratio(&self, p: usize, q: usize) -> f64 {
        mu(p, q, self.columns, self.rows) / mu(1, 1, self.columns, self.rows)
    }
}

/// `mu_pq` of a `columns x rows` lattice.
fn mu(p: usize, q: usize, columns: usize, rows: usize) -> f64 {
    let side = |k: usize, count: usize| 4.0 * (0.5 * k as f64 * PI / (count + 1) as f64).sin().powi(2);
    side(p, columns) + side(q, rows)
}

/// The plate fitted to `measured` for `scheme` at step `h` (s): its first mode the lowest
/// measured (or the one nearest `hint` Hz), its lattice and its loss law (module
/// documentation). At least two modes are needed.
pub fn fit_plate(
    measured: &ModesMeasurement,
    hint: Option<f64>,
    scheme: SchemeKind,
    h: f64,
) -> Result<PlateFit, RecordingError> {
    // Each mode's analog frequency, where the scheme can sound it, with its digital frequency,
    // decay rate and amplitude.
    let analog: Vec<(f64, f64, f64, f64)> = measured
        .modes
        .iter()
        .filter_map(|mode| {
            let (hz, rate) = (mode.main.frequency_hz, mode.decay_rate);
            let digital = digital_target(hz, Some(1.0 / rate), h).ok()?;
            let oscillator = invert_pole(scheme, digital, h).ok()?;
            Some((oscillator.omega0_squared.sqrt(), hz, rate, mode.main.amplitude))
        })
        .collect();
    let first = match hint {
        Some(hz) => analog
            .iter()
            .filter(|m| (1200.0 * (m.1 / hz).log2()).abs() <= 60.0)
            .min_by(|a, b| (a.1 - hz).abs().total_cmp(&(b.1 - hz).abs())),
        None => analog.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
    }
    .copied();
    let above: Vec<(f64, f64, f64, f64)> =
        analog.iter().filter(|m| first.is_some_and(|f| m.1 > f.1)).copied().collect();
    let Some(first) = first.filter(|_| !above.is_empty()) else {
        return Err(RecordingError::TooFewModes { needed: 2, found: analog.len() });
    };
    let ratios: Vec<f64> = above.iter().map(|m| m.0 / first.0).collect();
    let (columns, rows, ratio_error_cents) = nearest_lattice(&ratios);
    let decays: Vec<(f64, f64, f64)> =
        std::iter::once(&first).chain(&above).map(|m| (m.1, m.2, m.3)).collect();
    let (constant_loss, linear_loss) = loss_law(&decays);
    let high_frequency = above.iter().fold(first.1, |m, a| m.max(a.1));
    Ok(PlateFit {
        frequency_hz: first.1,
        columns,
        rows,
        ratio_error_cents,
        constant_loss,
        linear_loss,
        high_frequency,
    })
}

/// The lattice (columns >= rows, each 2 to [`MAX_FITTED_SIDE`]) whose `mu_pq / mu_11` lie
/// nearest `ratios` (module documentation), with the rms distance in cents.
fn nearest_lattice(ratios: &[f64]) -> (usize, usize, f64) {
    let top = ratios.iter().fold(1.0f64, |m, r| m.max(*r)) * 1.05;
    let mut candidates = Vec::new();
    for columns in 2..=MAX_FITTED_SIDE {
        for rows in 2..=columns {
            let base = mu(1, 1, columns, rows);
            let mut lattice: Vec<f64> = (1..=columns)
                .flat_map(|p| (1..=rows).map(move |q| (p, q)))
                .filter(|&pq| pq != (1, 1))
                .map(|(p, q)| mu(p, q, columns, rows) / base)
                .filter(|r| *r <= top)
                .collect();
            lattice.sort_by(f64::total_cmp);
            let squares: f64 = ratios
                .iter()
                .map(|r| {
                    let at = lattice.partition_point(|x| x < r);
                    let near = [at.checked_sub(1), Some(at)]
                        .into_iter()
                        .flatten()
                        .filter_map(|i| lattice.get(i))
                        .map(|x| (1200.0 * (r / x).log2()).abs())
                        .fold(f64::INFINITY, f64::min);
                    near.min(1200.0).powi(2)
                })
                .sum();
            candidates.push((columns, rows, (squares / ratios.len() as f64).sqrt()));
        }
    }
    let best = candidates.iter().fold(f64::INFINITY, |m, c| m.min(c.2));
    candidates
        .into_iter()
        .filter(|c| c.2 <= best + LATTICE_SLACK_CENTS)
        .min_by_key(|c| (c.0 * c.1, c.0))
        .unwrap_or((2, 2, best))
}

/// `(sigma_0, sigma_1) >= 0` of the law through `decays` (frequency, Hz; decay rate, 1/s;
/// amplitude), least in weighted relative error (module documentation).
fn loss_law(decays: &[(f64, f64, f64)]) -> (f64, f64) {
    // Rows (1 / sigma_k, f_k / sigma_k), each against 1, weighted by a_k.
    let rows: Vec<(f64, f64, f64)> = decays.iter().map(|&(f, rate, a)| (1.0 / rate, f / rate, a)).collect();
    let sum = |term: &dyn Fn(f64, f64) -> f64| rows.iter().map(|&(x, y, w)| w * term(x, y)).sum::<f64>();
    let (saa, sab, sbb) = (sum(&|x, _| x * x), sum(&|x, y| x * y), sum(&|_, y| y * y));
    let (sa, sb) = (sum(&|x, _| x), sum(&|_, y| y));
    let determinant = saa * sbb - sab * sab;
    let both = ((sa * sbb - sb * sab) / determinant, (saa * sb - sab * sa) / determinant);
    if determinant > 0.0 && both.0 >= 0.0 && both.1 >= 0.0 {
        return both;
    }
    // One term alone: the other would come out negative.
    let constant = (sa / saa, 0.0);
    let linear = (0.0, sb / sbb);
    let residual = |(c, l): (f64, f64)| sum(&|x, y| (c * x + l * y - 1.0).powi(2));
    if residual(constant) <= residual(linear) {
        constant
    } else {
        linear
    }
}
