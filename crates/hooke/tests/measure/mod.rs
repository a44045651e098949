//! Measuring a simulated signal's frequency and decay, independently of the analysis code: an
//! FFT peak with interpolation, the zero-crossing rate, and an exponential fit of the envelope.
//! Each test file uses the ones it needs.
#![allow(dead_code)]

use std::f64::consts::PI;

/// In-place radix-2 FFT of `(re, im)` pairs; the length must be a power of two.
fn fft(data: &mut [(f64, f64)]) {
    let n = data.len();
    assert!(n.is_power_of_two());
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            data.swap(i, j);
        }
    }
    let mut length = 2;
    while length <= n {
        let angle = -2.0 * PI / length as f64;
        for start in (0..n).step_by(length) {
            for k in 0..length / 2 {
                let (s, c) = (angle * k as f64).sin_cos();
                let (a, b) = (data[start + k], data[start + k + length / 2]);
                let t = (b.0 * c - b.1 * s, b.0 * s + b.1 * c);
                data[start + k] = (a.0 + t.0, a.1 + t.1);
                data[start + k + length / 2] = (a.0 - t.0, a.1 - t.1);
            }
        }
        length <<= 1;
    }
}

/// The magnitude spectrum of `signal` under a Hann window, zero-padded to at least `pad` times
/// its length (a power of two); returns (magnitudes of bins 0..=N/2, bin width in Hz).
pub fn spectrum(signal: &[f64], rate: f64, pad: usize) -> (Vec<f64>, f64) {
    let n = (signal.len() * pad).next_power_of_two();
    let mut data = vec![(0.0, 0.0); n];
    let last = (signal.len() - 1) as f64;
    for (i, x) in signal.iter().enumerate() {
        let window = 0.5 - 0.5 * (2.0 * PI * i as f64 / last).cos();
        data[i] = (x * window, 0.0);
    }
    fft(&mut data);
    let magnitudes = data[..=n / 2].iter().map(|(re, im)| re.hypot(*im)).collect();
    (magnitudes, rate / n as f64)
}

/// The frequency (Hz) and magnitude of the largest spectral peak of `signal` between `low` and
/// `high` Hz: the largest bin of the padded Hann spectrum, refined by a parabola through the
/// logarithms of it and its neighbours.
pub fn spectral_peak(signal: &[f64], rate: f64, low: f64, high: f64) -> (f64, f64) {
    let (magnitudes, bin) = spectrum(signal, rate, 16);
    let first = ((low / bin).ceil() as usize).max(1);
    let last = ((high / bin).floor() as usize).min(magnitudes.len() - 2);
    let k = (first..=last).max_by(|&a, &b| magnitudes[a].total_cmp(&magnitudes[b])).unwrap();
    assert!(
        magnitudes[k] >= magnitudes[k - 1] && magnitudes[k] >= magnitudes[k + 1],
        "no spectral peak between {low} and {high} Hz (the largest bin is at the edge)"
    );
    let (a, b, c) = (magnitudes[k - 1].ln(), magnitudes[k].ln(), magnitudes[k + 1].ln());
    let offset = 0.5 * (a - c) / (a - 2.0 * b + c);
    ((k as f64 + offset) * bin, (b - 0.25 * (a - c) * offset).exp())
}

/// The frequency (Hz) from the rate of upward zero crossings, each located by linear
/// interpolation between samples: (crossings - 1) periods between the first and the last.
pub fn zero_crossing_frequency(signal: &[f64], rate: f64) -> f64 {
    let mut crossings = Vec::new();
    for i in 1..signal.len() {
        let (a, b) = (signal[i - 1], signal[i]);
        if a < 0.0 && b >= 0.0 {
            crossings.push((i - 1) as f64 + a / (a - b));
        }
    }
    assert!(crossings.len() >= 3, "only {} zero crossings", crossings.len());
    (crossings.len() - 1) as f64 * rate / (crossings[crossings.len() - 1] - crossings[0])
}

/// The decay rate (1/s; negative when decaying) of a single damped sinusoid, by a least-squares
/// line through the logarithm of its envelope. The envelope is the discrete energy operator
/// `sqrt(x_n^2 - x_{n-1} x_{n+1})`, which for `x_n = A r^n cos(theta n + phi)` is exactly
/// `A r^n |sin theta|` (so the fit is exact for one mode, whatever its phase).
pub fn envelope_decay_rate(signal: &[f64], rate: f64) -> f64 {
    let points: Vec<(f64, f64)> = (1..signal.len() - 1)
        .filter_map(|n| {
            let energy = signal[n] * signal[n] - signal[n - 1] * signal[n + 1];
            (energy > 0.0 && energy.is_finite()).then(|| (n as f64 / rate, 0.5 * energy.ln()))
        })
        .collect();
    assert!(points.len() >= 3, "no envelope");
    slope(&points)
}

/// The decay rate (1/s; negative when decaying) of the component of `signal` at `frequency` Hz
/// from `from` to `to` s: the signal shifted down by `frequency` (complex demodulation),
/// averaged over a window of 0.1 s (which keeps one component within a few tenths of a hertz
/// and rejects those a partial apart), and a least-squares line through the logarithm of its
/// magnitude.
pub fn fundamental_decay_rate(signal: &[f64], rate: f64, frequency: f64, from: f64, to: f64) -> f64 {
    let window = (0.1 * rate) as usize;
    let shifted: Vec<(f64, f64)> = signal
        .iter()
        .enumerate()
        .map(|(n, x)| {
            let phase = 2.0 * PI * frequency * n as f64 / rate;
            (x * phase.cos(), -x * phase.sin())
        })
        .collect();
    let (first, last) = ((from * rate) as usize, ((to * rate) as usize).min(signal.len() - window));
    let points: Vec<(f64, f64)> = (first..last)
        .step_by(window / 10)
        .map(|n| {
            let (re, im) = shifted[n..n + window].iter().fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d));
            ((n + window / 2) as f64 / rate, re.hypot(im).ln())
        })
        .collect();
    assert!(points.len() >= 3, "too short a signal");
    slope(&points)
}

/// The least-squares slope of `points` `(t, y)`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let count = points.len() as f64;
    let (mean_t, mean_y) =
        (points.iter().map(|p| p.0).sum::<f64>() / count, points.iter().map(|p| p.1).sum::<f64>() / count);
    let covariance: f64 = points.iter().map(|p| (p.0 - mean_t) * (p.1 - mean_y)).sum();
    let variance: f64 = points.iter().map(|p| (p.0 - mean_t).powi(2)).sum();
    covariance / variance
}
