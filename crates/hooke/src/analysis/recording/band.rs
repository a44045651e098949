//! One partial's band of a recording, and the damped sinusoids in it.
//!
//! The recording is shifted down by the band's centre `f_c` (multiplied by `e^(-i 2 pi f_c t)`),
//! low-passed by a Blackman window `w` of `W = 3 f_s / b` samples (its first zeros at `+-b`, the
//! band's width, so the neighbouring partials `b` away fall on them, and its side lobes at
//! -58 dB) and kept every `D` samples ([`demodulate`]). A damped sinusoid `A p^n` (`p = r e^(i
//! theta)`) comes out as `A G(p) p^(s_k)` at the `k`-th output, whose window starts at sample
//! `s_k = s_0 + k D`, with the window's gain `G(p) = sum_j w_j p^j / sum_j w_j`: a finite impulse
//! response keeps a pole where it is, so the band holds the partial's own `p^D`, exactly.
//!
//! ESPRIT (Roy & Kailath 1989) finds those poles ([`esprit`]): the Hankel matrix `Y_rj = z_(r+j)`
//! of a sum of `M` damped exponentials has rank `M`, its rows span the vectors `(q_m^j)_j`, and
//! that span shifted by one entry is the span times `diag(q_m)`. The `M` leading eigenvectors of
//! `Y^H Y` give the span; the least-squares solution `Phi` of `V_lower = V_upper Phi` has the
//! poles `q_m` as its eigenvalues. The method is not limited by the window's length the way an
//! FFT peak is: on a clean decaying partial it returns the frequency and the decay to rounding.

use crate::linalg::eigen::symmetric_eigen;
use faer::{c64, Mat};
use std::f64::consts::PI;

/// A recording shifted down, low-passed and decimated around one frequency.
#[derive(Debug, Clone)]
pub(super) struct Band {
    /// The frequency shifted to 0 Hz, Hz.
    pub(super) centre_hz: f64,
    /// The recording's sample rate, Hz.
    pub(super) rate: f64,
    /// Samples of the recording between two outputs.
    pub(super) decimation: usize,
    /// The first sample of the first output's window.
    pub(super) first_sample: usize,
    /// The window, normalised to sum 1.
    window: Vec<f64>,
    /// The outputs `z_k`.
    pub(super) values: Vec<c64>,
}

/// A damped sinusoid found in a band: `amplitude exp(-decay_rate t) cos(2 pi frequency_hz t +
/// phase)` in the recording, `t` from sample 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sinusoid {
    /// Frequency, Hz.
    pub frequency_hz: f64,
    /// Decay rate of the amplitude, 1/s (the time constant's inverse; T60 = 3 ln 10 / rate).
    pub decay_rate: f64,
    /// Amplitude at sample 0 of the recording, in the recording's units.
    pub amplitude: f64,
}

/// The window length `W` for a band `width_hz` wide at `rate`.
fn window_length(rate: f64, width_hz: f64) -> usize {
    ((3.0 * rate / width_hz).ceil() as usize).max(8)
}

/// The band of `samples[from..to]` around `centre_hz`, `width_hz` wide (the neighbouring
/// partials' distance): outputs every `D = floor(f_s / (2.5 b))` samples (at least 1), so that
/// the band's `+-b` lies inside the decimated rate's `+-1.25 b`.
pub(super) fn demodulate(
    samples: &[f64],
    rate: f64,
    centre_hz: f64,
    width_hz: f64,
    from: usize,
    to: usize,
) -> Band {
    let length = window_length(rate, width_hz);
    let raw: Vec<f64> = (0..length)
        .map(|j| {
            let x = 2.0 * PI * j as f64 / (length - 1) as f64;
            0.42 - 0.5 * x.cos() + 0.08 * (2.0 * x).cos()
        })
        .collect();
    let total: f64 = raw.iter().sum();
    let window: Vec<f64> = raw.iter().map(|w| w / total).collect();
    let decimation = ((rate / (2.5 * width_hz)).floor() as usize).max(1);
    let to = to.min(samples.len());
    let step = c64::from_polar(1.0, -2.0 * PI * centre_hz / rate);
    let mut values = Vec::new();
    let mut start = from;
    while start + length <= to {
        // The oscillator restarts from its exact phase at each window, so no rounding accumulates.
        let mut phasor = c64::from_polar(1.0, -2.0 * PI * centre_hz * start as f64 / rate);
        let mut sum = c64::new(0.0, 0.0);
        for (w, x) in window.iter().zip(&samples[start..start + length]) {
            sum += phasor * (w * x);
            phasor *= step;
        }
        values.push(sum);
        start += decimation;
    }
    Band { centre_hz, rate, decimation, first_sample: from, window, values }
}

impl Band {
    /// The band's first `end` outputs.
    pub(super) fn truncated(mut self, end: usize) -> Band {
        self.values.truncate(end);
        self
    }

    /// The time of output `k`, the centre of its window, s from sample 0.
    pub(super) fn time(&self, k: usize) -> f64 {
        (self.first_sample + k * self.decimation) as f64 / self.rate
            + (self.window.len() - 1) as f64 / (2.0 * self.rate)
    }

    /// The sinusoid in the recording whose band pole is `q` and whose least-squares amplitude at
    /// output 0 is `c`: frequency `f_c + arg(q) f_s / (2 pi D)`, rate `-ln|q| f_s / D`, and the
    /// real amplitude `2 |c| / |G(p)|` carried back to sample 0 (a real sinusoid is two complex
    /// exponentials of half its amplitude).
    fn sinusoid(&self, q: c64, c: c64) -> Sinusoid {
        let per_sample = q.ln() / self.decimation as f64;
        let shifted = per_sample.exp();
        let mut gain = c64::new(0.0, 0.0);
        let mut power = c64::new(1.0, 0.0);
        for w in &self.window {
            gain += power * *w;
            power *= shifted;
        }
        let decay_rate = -per_sample.re * self.rate;
        Sinusoid {
            frequency_hz: self.centre_hz + per_sample.im * self.rate / (2.0 * PI),
            decay_rate,
            amplitude: 2.0 * c.norm() / gain.norm()
                * (decay_rate * self.first_sample as f64 / self.rate).exp(),
        }
    }

    /// The `order` (1 or 2) strongest damped sinusoids of the band by ESPRIT, strongest first,
    /// and the fraction of the band's energy they leave unexplained. `None` when the band is too
    /// short (fewer than 8 outputs) or its poles cannot be found.
    pub(super) fn sinusoids(&self, order: usize) -> Option<(Vec<Sinusoid>, f64)> {
        let poles = esprit(&self.values, order)?;
        let amplitudes = least_squares_amplitudes(&self.values, &poles)?;
        let mut residual = 0.0;
        let mut energy = 0.0;
        for (k, z) in self.values.iter().enumerate() {
            let model: c64 = poles.iter().zip(&amplitudes).map(|(q, c)| c * q.powi(k as i32)).sum();
            residual += (z - model).norm_sqr();
            energy += z.norm_sqr();
        }
        let mut found: Vec<Sinusoid> =
            poles.iter().zip(&amplitudes).map(|(q, c)| self.sinusoid(*q, *c)).collect();
        found.sort_by(|a, b| b.amplitude.total_cmp(&a.amplitude));
        Some((found, if energy > 0.0 { residual / energy } else { 0.0 }))
    }
}

/// The poles of the `order` (1 or 2) leading damped exponentials in `z` by ESPRIT (module
/// documentation), on a Hankel matrix of `L + 1 = min(len / 3, 16)` columns.
pub(super) fn esprit(z: &[c64], order: usize) -> Option<Vec<c64>> {
    let columns = (z.len() / 3).min(16);
    if z.len() < 8 || columns < order + 2 {
        return None;
    }
    let rows = z.len() + 1 - columns;
    // The Hermitian Y^H Y as the real symmetric [[Re, -Im], [Im, Re]], whose eigenvalues are
    // Y^H Y's, each twice, with eigenvectors [a; b] for Y^H Y's a + i b.
    let mut covariance = vec![c64::new(0.0, 0.0); columns * columns];
    for i in 0..columns {
        for j in 0..=i {
            let value: c64 = (0..rows).map(|r| z[r + i].conj() * z[r + j]).sum();
            covariance[i * columns + j] = value;
            covariance[j * columns + i] = value.conj();
        }
    }
    let real = Mat::<f64>::from_fn(2 * columns, 2 * columns, |i, j| {
        let value = covariance[(i % columns) * columns + j % columns];
        match (i < columns, j < columns) {
            (true, true) | (false, false) => value.re,
            (true, false) => -value.im,
            (false, true) => value.im,
        }
    });
    let (_, vectors) = symmetric_eigen(real.as_ref()).ok()?;
    // The complex signal subspace: the leading real eigenvectors as complex vectors, each made
    // orthogonal to those before it (a pair of real vectors gives one complex direction).
    let mut basis: Vec<Vec<c64>> = Vec::with_capacity(order);
    for k in (0..2 * columns).rev() {
        if basis.len() == order {
            break;
        }
        let mut v: Vec<c64> =
            (0..columns).map(|i| c64::new(vectors[(i, k)], vectors[(i + columns, k)])).collect();
        for b in &basis {
            let projection: c64 = b.iter().zip(&v).map(|(bi, vi)| bi.conj() * vi).sum();
            v.iter_mut().zip(b).for_each(|(vi, bi)| *vi -= projection * bi);
        }
        let norm = v.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt();
        if norm > 0.5 {
            v.iter_mut().for_each(|x| *x /= norm);
            basis.push(v);
        }
    }
    if basis.len() < order {
        return None;
    }
    // The rows span the conjugates of the eigenvectors: W = conj(V).
    let upper = |m: usize, j: usize| basis[m][j].conj();
    let lower = |m: usize, j: usize| basis[m][j + 1].conj();
    let gram =
        |a: &dyn Fn(usize, usize) -> c64, b: &dyn Fn(usize, usize) -> c64, m: usize, n: usize| -> c64 {
            (0..columns - 1).map(|j| a(m, j).conj() * b(n, j)).sum()
        };
    let poles = if order == 1 {
        vec![gram(&upper, &lower, 0, 0) / gram(&upper, &upper, 0, 0)]
    } else {
        let g = [
            [gram(&upper, &upper, 0, 0), gram(&upper, &upper, 0, 1)],
            [gram(&upper, &upper, 1, 0), gram(&upper, &upper, 1, 1)],
        ];
        let h = [
            [gram(&upper, &lower, 0, 0), gram(&upper, &lower, 0, 1)],
            [gram(&upper, &lower, 1, 0), gram(&upper, &lower, 1, 1)],
        ];
        let phi = solve_2x2(g, h)?;
        let half_trace = (phi[0][0] + phi[1][1]) / 2.0;
        let det = phi[0][0] * phi[1][1] - phi[0][1] * phi[1][0];
        let root = (half_trace * half_trace - det).sqrt();
        vec![half_trace + root, half_trace - root]
    };
    poles.iter().all(|q| q.norm().is_finite() && q.norm() > 0.0).then_some(poles)
}

/// `G^-1 H` for 2 x 2 complex matrices; `None` when `G` is singular.
fn solve_2x2(g: [[c64; 2]; 2], h: [[c64; 2]; 2]) -> Option<[[c64; 2]; 2]> {
    let det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
    if det.norm() <= f64::EPSILON * (g[0][0].norm() * g[1][1].norm()) {
        return None;
    }
    let inverse = [[g[1][1] / det, -g[0][1] / det], [-g[1][0] / det, g[0][0] / det]];
    let mut out = [[c64::new(0.0, 0.0); 2]; 2];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = inverse[i][0] * h[0][j] + inverse[i][1] * h[1][j];
        }
    }
    Some(out)
}

/// The complex amplitudes `c_m` that fit `z_k = sum_m c_m q_m^k` best in least squares.
fn least_squares_amplitudes(z: &[c64], poles: &[c64]) -> Option<Vec<c64>> {
    let basis = |m: usize, k: usize| poles[m].powi(k as i32);
    let n = poles.len();
    let mut g = [[c64::new(0.0, 0.0); 2]; 2];
    let mut b = [[c64::new(0.0, 0.0); 2]; 2];
    for (k, value) in z.iter().enumerate() {
        for i in 0..n {
            for j in 0..n {
                g[i][j] += basis(i, k).conj() * basis(j, k);
            }
            b[i][0] += basis(i, k).conj() * value;
        }
    }
    if n == 1 {
        return (g[0][0].norm() > 0.0).then(|| vec![b[0][0] / g[0][0]]);
    }
    let solved = solve_2x2(g, b)?;
    Some(vec![solved[0][0], solved[1][0]])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two damped sinusoids 3 Hz apart (a beating partial) and a neighbour a partial's width
    /// away, in 2 s at 8 kHz: ESPRIT on the band returns both of the pair to 1e-4 Hz and 1e-4
    /// 1/s, and each amplitude to 1e-4 (what is left is the neighbour's leak through the
    /// window).
    #[test]
    fn esprit_finds_a_beating_pair_in_a_band_beside_a_neighbour() {
        let rate = 8000.0;
        let parts: [(f64, f64, f64); 3] = [(200.0, 1.5, 1.0), (203.0, 0.7, 0.6), (300.0, 1.0, 1.0)];
        let samples: Vec<f64> = (0..16000)
            .map(|n| {
                let t = n as f64 / rate;
                parts.iter().map(|(f, s, a)| a * (-s * t).exp() * (2.0 * PI * f * t + 0.3).cos()).sum()
            })
            .collect();
        let band = demodulate(&samples, rate, 201.0, 100.0, 400, samples.len());
        let (found, residual) = band.sinusoids(2).expect("two sinusoids");
        assert!(residual < 1e-6, "residual {residual}");
        for (sinusoid, (f, s, a)) in found.iter().zip(&parts) {
            assert!((sinusoid.frequency_hz - f).abs() < 1e-4, "{sinusoid:?}");
            assert!((sinusoid.decay_rate - s).abs() < 1e-4, "{sinusoid:?}");
            assert!((sinusoid.amplitude - a).abs() < 1e-4, "{sinusoid:?}");
        }
    }
}
