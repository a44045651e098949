//! A string fitted to a measured note: its fundamental and inharmonicity (the measure's own
//! fit), the loss law `sigma(f) = sigma_0 + sigma_f f + sigma_1 xi(f)` of
//! [`crate::analysis::string_partials`] through the partials' decays, and where along it the
//! string was plucked; a bar's two modes or a bell's modes as measured ([`fit_bar`], [`fit_bell`]).
//!
//! **Loss.** `sigma_0`, `sigma_f` and `sigma_1` minimise the relative decay errors of partials 1
//! to [`LOSS_PARTIALS`], each weighted by `1 / sqrt(n)`: `sum_n ((sigma_0 + sigma_f f_n + sigma_1
//! xi(f_n)) / sigma_n - 1)^2 / n`, each kept `>= 0` (the design takes three points of a law whose
//! terms are all `>= 0`): the least squares over every subset of the three terms, the best whose
//! terms come out `>= 0` (Lawson & Hanson's non-negative least squares, by enumeration) and
//! whose residual times `2^k` (`k` terms) is least: a term is kept where it halves the
//! residual, so that it explains the decays rather than their noise.
//!
//! **Pluck position.** A string plucked at a fraction `p` of its length sounds partial `n` in
//! proportion to `sin(n pi p)` (Fletcher & Rossing, The Physics of Musical Instruments, section
//! 2.8), times what varies slowly with `n`: the excitation's spectrum, the string's response
//! at the bridge, the body and the room, and the spectrum of the pluck itself: a finger or a
//! plectrum letting go over a time `T` (a half cosine, as Hooke's plucks do,
//! [`crate::engine::excitation::Pluck`]) weights partial `n` by `R(f_n T)`, `R(x) = cos(pi x) /
//! (1 - 4 x^2)`: flat up to about `1 / (2 T)` and zero at `3 / (2 T), 5 / (2 T), ...`. The pluck
//! is the `(p, T)` for which `20 log10 |sin(n pi p)| + 20 log10 |R(f_n T)|` (their zeros filled
//! to [`COMB_DEPTH_DB`] and [`RELEASE_DEPTH_DB`]) plus a line in `ln n` (a power law for the
//! rest) fits the levels of the partials found among 1 to [`COMB_PARTIALS`] best, the residuals
//! weighed by Huber's loss; a partial not found counts against a fit that puts it more than
//! [`MISSING_MARGIN_DB`] above the weakest partial found (a zero of the comb or of the release
//! hides partials too). `p` and `1 - p` give the same levels:
//! the fit gives the one nearer an end, `p <= 1/2`.

use super::modes::{BarMeasurement, ModesMeasurement};
use super::partials::NoteMeasurement;
use super::partials::RANGE_DB;
use super::RecordingError;
use crate::analysis::string_partials::unstiffened_square;
use crate::linalg::dense::DenseMatrix;
use crate::linalg::Assemble;
use std::f64::consts::PI;

/// The partials whose levels the pluck is fitted to.
pub const COMB_PARTIALS: usize = 30;

/// The range of release times the pluck's is sought in, s.
pub const RELEASE_TIMES: (f64, f64) = (2.5e-5, 2.5e-3);

/// How deep the comb's zeros are taken to be, dB: a finger or a plectrum is not a point.
pub const COMB_DEPTH_DB: f64 = -30.0;

/// How deep the release spectrum's zeros are taken to be, dB.
pub const RELEASE_DEPTH_DB: f64 = -50.0;

/// How far above the measure's floor the fit may put a partial that was not found before it
/// counts against the fit, dB.
pub const MISSING_MARGIN_DB: f64 = 10.0;

/// Where the pluck fit's residuals turn from squared to linear, dB (Huber's loss).
pub const HUBER_DB: f64 = 6.0;

/// The highest partial number whose decay the loss law is fitted to, and the weight `1 / n` of
/// each: the low partials carry the sound's energy.
pub const LOSS_PARTIALS: usize = 30;

/// A string that sounds like a measured note.
#[derive(Debug, Clone, PartialEq)]
pub struct StringFit {
    /// The fundamental, Hz.
    pub fundamental_hz: f64,
    /// The inharmonicity `B >= 0` (a measured negative `B` is 0).
    pub inharmonicity: f64,
    /// `sigma_0`, the decay rate that is the same at every frequency, 1/s.
    pub constant_loss: f64,
    /// `sigma_f`, the decay rate per Hz (a loss of constant quality factor), 1/s per Hz.
    pub linear_loss: f64,
    /// `sigma_1`, the decay rate per Hz^2 of `xi(f)`, s.
    pub quadratic_loss: f64,
    /// The pluck's distance from the nearer end, a fraction of the length (0 to 1/2).
    pub pluck_position: f64,
    /// How long the pluck took to let go of the string, whose spectrum the partials' levels
    /// follow (a shorter release is brighter: a plectrum's, 0.1 ms), s.
    pub pluck_release: f64,
    /// The highest partial whose decay the loss law was fitted to, Hz.
    pub highest_fitted_hz: f64,
    /// The time constants of partials `1 ..= K`, s, `K` the highest whose decay was measured
    /// (at most [`LOSS_PARTIALS`]): each as measured, the law's where a partial was not.
    pub partial_decays: Vec<f64>,
}

impl StringFit {
    /// The decay rate the fitted law gives at `frequency_hz`, 1/s.
    pub fn decay_rate(&self, frequency_hz: f64) -> f64 {
        let stretch = self.inharmonicity / self.fundamental_hz.powi(2);
        self.constant_loss
            + self.linear_loss * frequency_hz
            + self.quadratic_loss * unstiffened_square(frequency_hz, stretch)
    }
}

/// The string fitted to `note` (module documentation); an error when fewer than two partials
/// decay measurably.
pub fn fit_string(note: &NoteMeasurement) -> Result<StringFit, RecordingError> {
    let inharmonicity = note.inharmonicity.max(0.0);
    let stretch = inharmonicity / note.fundamental_hz.powi(2);
    let decays: Vec<([f64; 3], f64, f64)> = note
        .partials
        .iter()
        .filter(|p| p.number <= LOSS_PARTIALS && p.decay_rate > 0.0 && p.span_s.1 - p.span_s.0 >= 0.1)
        .map(|p| {
            let f = p.main.frequency_hz;
            ([1.0, f, unstiffened_square(f, stretch)], p.decay_rate, 1.0 / (p.number as f64).sqrt())
        })
        .collect();
    if decays.len() < 2 {
        return Err(RecordingError::TooFewDecays { found: decays.len() });
    }
    let [constant_loss, linear_loss, quadratic_loss] = relative_least_squares(&decays);
    let measured = |n: usize| {
        let found = note.partials.iter().find(|p| p.number == n);
        found.filter(|p| p.decay_rate > 0.0 && p.span_s.1 - p.span_s.0 >= 0.1).map(|p| p.decay_rate)
    };
    let highest_measured = (1..=LOSS_PARTIALS).rev().find(|&n| measured(n).is_some()).unwrap_or(0);
    let (pluck_position, pluck_release) = pluck(note);
    let highest_fitted_hz =
        note.partials.iter().filter(|p| p.decay_rate > 0.0).fold(0.0f64, |m, p| m.max(p.main.frequency_hz));
    let mut fit = StringFit {
        fundamental_hz: note.fundamental_hz,
        inharmonicity,
        constant_loss,
        linear_loss,
        quadratic_loss,
        pluck_position,
        pluck_release,
        highest_fitted_hz,
        partial_decays: Vec::new(),
    };
    fit.partial_decays = (1..=highest_measured)
        .map(|n| {
            let f = n as f64 * note.fundamental_hz * (1.0 + inharmonicity * (n * n) as f64).sqrt();
            1.0 / measured(n).unwrap_or_else(|| fit.decay_rate(f))
        })
        .collect();
    Ok(fit)
}

/// The terms `s >= 0` minimising `sum w^2 ((s . g) / y - 1)^2` over the points `(g, y, w)` (`g`
/// the three basis values at a partial, `y` its decay rate): the least squares over each subset
/// of `k` terms (the others 0), among those whose terms are all `>= 0` the one of least
/// `sum 2^k`: a term is kept where it halves the residual.
fn relative_least_squares(points: &[([f64; 3], f64, f64)]) -> [f64; 3] {
    // Each column scaled to a largest entry of 1: 1, f and f^2 span ten orders of magnitude.
    let scale: [f64; 3] = std::array::from_fn(|t| {
        points.iter().fold(0.0f64, |m, (g, y, w)| m.max((w * g[t] / y).abs())).max(1e-300)
    });
    let mut best = ([0.0; 3], f64::INFINITY);
    for subset in 1..8usize {
        let terms: Vec<usize> = (0..3).filter(|t| subset & (1 << t) != 0).collect();
        // Normal equations of the rows w g_t / y against w.
        let n = terms.len();
        let (mut normal, mut solved) = (DenseMatrix::new(n), vec![0.0; n]);
        for (g, y, w) in points {
            for (r, &tr) in terms.iter().enumerate() {
                let a = w * g[tr] / y / scale[tr];
                for (c, &tc) in terms.iter().enumerate() {
                    normal.add(r, c, a * w * g[tc] / y / scale[tc]);
                }
                solved[r] += a * w;
            }
        }
        if normal.factor().is_err() {
            continue;
        }
        normal.solve_in_place(&mut solved);
        if !solved.iter().all(|&s| s >= 0.0) {
            continue;
        }
        let mut s = [0.0; 3];
        for (&t, &value) in terms.iter().zip(&solved) {
            s[t] = value / scale[t];
        }
        let residual: f64 = points
            .iter()
            .map(|(g, y, w)| (w * ((s[0] * g[0] + s[1] * g[1] + s[2] * g[2]) / y - 1.0)).powi(2))
            .sum();
        // Each term must halve the residual to earn its place: otherwise the noise of the
        // decays, or a lattice's own small departure from a law, buys a spurious one (a two-term
        // design under noise 40 dB down: a third term cuts the residual by 31%).
        let sum = residual * 2f64.powi(n as i32);
        if sum < best.1 {
            best = (s, sum);
        }
    }
    best.0
}

/// The pluck position `p <= 1/2` and the release time `T` (s) whose comb `sin(n pi p)` and
/// spectrum `R(f_n T)` fit the levels of partials 1 to [`COMB_PARTIALS`] best (module
/// documentation).
fn pluck(note: &NoteMeasurement) -> (f64, f64) {
    let count = note.sought.min(COMB_PARTIALS);
    // What the measure could not have found: under the range it measures or under the weakest
    // partial it did find (noise hides the rest).
    let strongest = note.partials.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude));
    let weakest = note.partials.iter().fold(f64::INFINITY, |m, p| m.min(p.main.amplitude));
    let floor_db = (20.0 * strongest.log10() - RANGE_DB).max(20.0 * weakest.log10());
    let mut levels: Vec<Option<(f64, f64)>> = vec![None; count];
    for p in note.partials.iter().filter(|p| p.number <= count) {
        levels[p.number - 1] = Some((p.main.frequency_hz, 20.0 * p.main.amplitude.log10()));
    }
    let frequency = |i: usize| levels[i].map_or((i + 1) as f64 * note.fundamental_hz, |(f, _)| f);
    // Zeros filled to COMB_DEPTH_DB: a real pluck is neither a point nor an exact half cosine,
    // and the partial at a zero is never quite silent.
    let filled = |x: f64, depth_db: f64| 10.0 * (x * x + 10f64.powf(depth_db / 10.0)).log10();
    let model = |i: usize, position: f64, release: f64| {
        filled(((i + 1) as f64 * PI * position).sin(), COMB_DEPTH_DB)
            + filled(release_spectrum(frequency(i) * release), RELEASE_DEPTH_DB)
    };
    let misfit = |position: f64, release: f64| -> f64 {
        // The smooth rest, a line in ln n: least squares on the partials found; a partial not
        // found counts where the fit puts it clearly above the floor of the measure.
        let (mut s1, mut sx, mut sxx, mut sy, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, level) in levels.iter().enumerate() {
            if let Some((_, level)) = level {
                let (x, y) = (((i + 1) as f64).ln(), level - model(i, position, release));
                (s1, sx, sxx, sy, sxy) = (s1 + 1.0, sx + x, sxx + x * x, sy + y, sxy + x * y);
            }
        }
        let det = s1 * sxx - sx * sx;
        let (intercept, slope) = if det > 0.0 {
            ((sy * sxx - sx * sxy) / det, (s1 * sxy - sx * sy) / det)
        } else {
            (sy / s1.max(1.0), 0.0)
        };
        (0..count)
            .map(|i| {
                let fitted = model(i, position, release) + intercept + slope * ((i + 1) as f64).ln();
                match levels[i] {
                    Some((_, level)) => huber(level - fitted),
                    None => huber((fitted - floor_db - MISSING_MARGIN_DB).max(0.0)),
                }
            })
            .sum()
    };
    let (shortest, longest) = RELEASE_TIMES;
    let releases: Vec<f64> =
        (0..=48).map(|k| shortest * (longest / shortest).powf(k as f64 / 48.0)).collect();
    let mut best = (f64::INFINITY, 0.5, releases[0]);
    for &release in &releases {
        let mut position = 0.01;
        while position <= 0.5 {
            let m = misfit(position, release);
            if m < best.0 {
                best = (m, position, release);
            }
            position += 5e-4;
        }
    }
    // Refine the position at the best release.
    let (_, coarse, release) = best;
    let mut position = (coarse - 5e-4).max(0.01);
    while position <= (coarse + 5e-4).min(0.5) {
        let m = misfit(position, release);
        if m < best.0 {
            best = (m, position, release);
        }
        position += 2e-5;
    }
    (best.1, best.2)
}

/// Huber's loss of a residual `r` (dB): `r^2` within [`HUBER_DB`], growing linearly beyond, so
/// that one partial far off its line (a body resonance, a missed zero) does not decide the fit.
fn huber(r: f64) -> f64 {
    if r.abs() <= HUBER_DB {
        r * r
    } else {
        HUBER_DB * (2.0 * r.abs() - HUBER_DB)
    }
}

/// `|R(x)|`, `x = f T`: what a release over `T` (a half cosine) leaves of a sudden release's
/// spectrum, `|cos(pi x) / (1 - 4 x^2)|` (`pi / 4` at `x = 1/2`), with zeros at `x = 3/2, 5/2,
/// ...` ([`crate::engine::excitation::Pluck`]).
fn release_spectrum(x: f64) -> f64 {
    if (x - 0.5).abs() < 1e-9 {
        return PI / 4.0;
    }
    ((PI * x).cos() / (1.0 - 4.0 * x * x)).abs()
}

/// A bar that sounds like a measured strike: its first mode, the ratio of its second to it, and
/// the two modes' time constants (decay of the amplitude to `1/e`), what
/// [`crate::analysis::bar_design`] designs a bar for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarFit {
    /// The first mode's frequency, Hz.
    pub frequency_hz: f64,
    /// The second mode's frequency over the first's.
    pub ratio: f64,
    /// The first mode's time constant, s.
    pub decay: f64,
    /// The second mode's time constant, s.
    pub high_decay: f64,
}

/// The bar fitted to `bar`: its two modes' frequencies and decays as measured.
pub fn fit_bar(bar: &BarMeasurement) -> BarFit {
    let [first, second] = &bar.modes;
    BarFit {
        frequency_hz: first.main.frequency_hz,
        ratio: second.main.frequency_hz / first.main.frequency_hz,
        decay: 1.0 / first.decay_rate,
        high_decay: 1.0 / second.decay_rate,
    }
}

/// One mode of a fitted bell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BellMode {
    /// Its frequency over the strike note's.
    pub ratio: f64,
    /// Its time constant (decay of the amplitude to `1/e`), s.
    pub decay: f64,
    /// Its amplitude at the onset, in the recording's units.
    pub amplitude: f64,
}

/// A bell that sounds like a measured strike: its strike note and its modes.
#[derive(Debug, Clone, PartialEq)]
pub struct BellFit {
    /// The strike note, Hz.
    pub strike_hz: f64,
    /// The modes, lowest first.
    pub modes: Vec<BellMode>,
}

/// The bell fitted to `bell`, its strike note `strike_hz` (Hz) where given, or else half its
/// strongest mode's frequency: a tuned bell's nominal (twice the strike note) is its loudest
/// partial at the strike, and the strike note is heard from it (Fletcher & Rossing 1998, ch. 21).
pub fn fit_bell(bell: &ModesMeasurement, strike_hz: Option<f64>) -> BellFit {
    let loudest = bell.modes.iter().max_by(|a, b| a.main.amplitude.total_cmp(&b.main.amplitude));
    let strike_hz = strike_hz.or(loudest.map(|m| m.main.frequency_hz / 2.0)).unwrap_or(1.0);
    let modes = bell
        .modes
        .iter()
        .map(|m| BellMode {
            ratio: m.main.frequency_hz / strike_hz,
            decay: 1.0 / m.decay_rate,
            amplitude: m.main.amplitude,
        })
        .collect();
    BellFit { strike_hz, modes }
}
