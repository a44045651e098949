//! A radix-2 fast Fourier transform, enough for the magnitude spectra of [`crate::spectrum`].

use std::f64::consts::PI;

/// The magnitudes `|X_k|`, `k = 0 ..= n/2`, of the discrete Fourier transform of `signal`
/// weighted by a Hann window and zero-padded to `n`, the next power of two.
pub fn hann_magnitudes(signal: &[f64]) -> Vec<f64> {
    let n = signal.len().next_power_of_two().max(2);
    let len = signal.len();
    let window = |i: usize| {
        if len < 2 {
            1.0
        } else {
            0.5 - 0.5 * (2.0 * PI * i as f64 / (len - 1) as f64).cos()
        }
    };
    let mut re: Vec<f64> = (0..n).map(|i| if i < len { signal[i] * window(i) } else { 0.0 }).collect();
    let mut im = vec![0.0; n];
    transform(&mut re, &mut im);
    (0..=n / 2).map(|k| re[k].hypot(im[k])).collect()
}

/// In-place iterative Cooley-Tukey transform; `re.len()` is a power of two.
fn transform(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut length = 2;
    while length <= n {
        let angle = -2.0 * PI / length as f64;
        for start in (0..n).step_by(length) {
            for k in 0..length / 2 {
                let (sin, cos) = (angle * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + length / 2);
                let (tr, ti) = (re[b] * cos - im[b] * sin, re[b] * sin + im[b] * cos);
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        length <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sinusoid_peaks_at_its_bin() {
        // 64 samples of a sinusoid at bin 8 (of 64): the Hann-windowed peak is at bin 8.
        let signal: Vec<f64> = (0..64).map(|i| (2.0 * PI * 8.0 * i as f64 / 64.0).sin()).collect();
        let magnitudes = hann_magnitudes(&signal);
        assert_eq!(magnitudes.len(), 33);
        let peak = (0..magnitudes.len()).max_by(|&a, &b| magnitudes[a].total_cmp(&magnitudes[b])).unwrap();
        assert_eq!(peak, 8);
        assert!(magnitudes[20] < 1e-3 * magnitudes[8]);
    }
}
