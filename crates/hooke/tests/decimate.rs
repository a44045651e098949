//! The anti-aliasing decimator against its definition and against closed forms: factor 1 is the
//! identity, the output does not depend on how the input is split, sinusoids in the pass band
//! come out with unit gain and no delay, sinusoids and noise above the output Nyquist are removed
//! to below -80 dB. Spectra are taken with rustfft, convolutions are computed here.

use hooke::engine::decimate::Decimator;
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;
use std::f64::consts::PI;

/// The output rate of the audio tests, Hz.
const OUTPUT_RATE: f64 = 44_100.0;

/// A deterministic pseudo-random signal in [-1, 1) (Knuth's 64-bit LCG, top 53 bits).
fn noise(len: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            2.0 * (state >> 11) as f64 / (1u64 << 53) as f64 - 1.0
        })
        .collect()
}

/// Decimates `channels` in one `process` call followed by `finish`.
fn decimate(decimator: &mut Decimator, channels: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let len = channels[0].len();
    let samples: Vec<f64> = channels.concat();
    let mut output = vec![Vec::new(); channels.len()];
    decimator.process(&samples, len, len, &mut output);
    decimator.finish(&mut output);
    output
}

/// Decimates `channels` in consecutive chunks of the given sizes (cycled), then `finish`.
fn decimate_in_chunks(decimator: &mut Decimator, channels: &[Vec<f64>], sizes: &[usize]) -> Vec<Vec<f64>> {
    let len = channels[0].len();
    let mut output = vec![Vec::new(); channels.len()];
    let mut start = 0;
    for &size in sizes.iter().cycle() {
        if start == len {
            break;
        }
        let end = (start + size).min(len);
        let samples: Vec<f64> = channels.iter().flat_map(|c| c[start..end].iter().copied()).collect();
        decimator.process(&samples, end - start, end - start, &mut output);
        start = end;
    }
    decimator.finish(&mut output);
    output
}

/// `sqrt(mean(x^2))`.
fn rms(x: &[f64]) -> f64 {
    (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt()
}

#[test]
fn factor_one_is_the_identity() {
    let channels = vec![noise(1001, 1), noise(1001, 2)];
    let mut decimator = Decimator::new(1, 2);
    assert_eq!(decimator.factor(), 1);
    assert_eq!(decimator.taps(), &[1.0]);
    assert_eq!(decimator.stop_band_attenuation_db(), f64::INFINITY);
    assert_eq!(decimate(&mut decimator, &channels), channels);
    assert_eq!(decimate_in_chunks(&mut decimator, &channels, &[1, 5, 0, 17]), channels);
}

#[test]
fn output_does_not_depend_on_how_the_input_is_split() {
    let len = 10_001;
    let channels = vec![noise(len, 3), noise(len, 4)];
    for factor in 2..=4 {
        let whole = decimate(&mut Decimator::new(factor, 2), &channels);
        let one_by_one = decimate_in_chunks(&mut Decimator::new(factor, 2), &channels, &[1]);
        let irregular =
            decimate_in_chunks(&mut Decimator::new(factor, 2), &channels, &[7, 0, 1, 250, 3, 1000, 2, 13]);
        for output in [&whole, &one_by_one, &irregular] {
            assert!(output.iter().all(|c| c.len() == len.div_ceil(factor)), "K = {factor}");
        }
        // Bit-identical: compare the bit patterns so that -0.0 and 0.0 would differ too.
        let bits = |o: &Vec<Vec<f64>>| -> Vec<Vec<u64>> {
            o.iter().map(|c| c.iter().map(|v| v.to_bits()).collect()).collect()
        };
        assert_eq!(bits(&whole), bits(&one_by_one), "K = {factor}: one sample per call");
        assert_eq!(bits(&whole), bits(&irregular), "K = {factor}: irregular chunks");
    }
}

#[test]
fn outputs_made_by_the_caller_keep_the_count_and_the_history_restores_the_filter() {
    // A stretch whose outputs the caller makes (here: copies of the filter's own) while the
    // decimator only counts, then the history restored from the true inputs: the same outputs,
    // bit for bit, as the filter throughout, the flush included.
    let len = 3001;
    let channels = vec![noise(len, 6), noise(len, 7)];
    for factor in 2..=4 {
        let whole = decimate(&mut Decimator::new(factor, 2), &channels);
        for (from, to) in [(0, 1500), (700, 701), (700, 2999), (1200, len)] {
            let mut decimator = Decimator::new(factor, 2);
            let mut output = vec![Vec::new(); 2];
            let feed = |decimator: &mut Decimator, output: &mut [Vec<f64>], range: std::ops::Range<usize>| {
                let samples: Vec<f64> =
                    channels.iter().flat_map(|c| c[range.clone()].iter().copied()).collect();
                decimator.process(&samples, range.len(), range.len(), output);
            };
            feed(&mut decimator, &mut output, 0..from);
            let mut at = from;
            while at < to {
                let due = decimator.due_in();
                if at + due <= to {
                    let made = output[0].len();
                    decimator.push_output(|channel| whole[channel][made], &mut output);
                    at += due;
                } else {
                    decimator.skip(to - at);
                    at = to;
                }
            }
            let n = decimator.taps().len();
            decimator.restore_history(|channel, age| {
                let index = to as isize - 1 - age as isize;
                if index >= 0 {
                    channels[channel][index as usize]
                } else {
                    0.0
                }
            });
            feed(&mut decimator, &mut output, to..len);
            decimator.finish(&mut output);
            assert!(n > 1 && output == whole, "K = {factor}, outputs made from {from} to {to}");
        }
    }
}

#[test]
fn output_is_the_centred_convolution_sampled_every_k() {
    for (factor, len) in [(2, 0), (2, 1), (3, 2), (3, 50), (4, 999), (5, 4001)] {
        let x = noise(len, 5);
        let mut decimator = Decimator::new(factor, 1);
        let h = decimator.taps().to_vec();
        let delay = (h.len() - 1) / 2;
        // y[n] = sum_k h[k] x[n K + D - k], with x zero outside 0..len.
        let expected: Vec<f64> = (0..len.div_ceil(factor))
            .map(|n| {
                (0..h.len())
                    .filter_map(|k| {
                        (n * factor + delay).checked_sub(k).and_then(|i| x.get(i)).map(|x| h[k] * x)
                    })
                    .sum()
            })
            .collect();
        let output = decimate(&mut decimator, std::slice::from_ref(&x));
        assert_eq!(output[0].len(), expected.len(), "K = {factor}, length {len}");
        for (got, want) in output[0].iter().zip(&expected) {
            assert!((got - want).abs() < 1e-14, "K = {factor}, length {len}: {got} vs {want}");
        }
        // After `finish` the decimator starts afresh.
        assert_eq!(decimate(&mut decimator, &[x]), output, "K = {factor}, length {len}: reuse");
    }
}

#[test]
fn design_is_linear_phase_with_unit_dc_gain_and_deep_stop_band() {
    let mut previous_len = 1;
    for factor in 2..=8 {
        let decimator = Decimator::new(factor, 1);
        let h = decimator.taps();
        assert_eq!(h.len() % 2, 1, "K = {factor}: odd length");
        assert!(h.len() > previous_len, "K = {factor}: the length grows with K");
        previous_len = h.len();
        assert!(h.iter().eq(h.iter().rev()), "K = {factor}: symmetric");
        let dc_gain: f64 = h.iter().sum();
        assert!((dc_gain - 1.0).abs() < 1e-14, "K = {factor}: DC gain {dc_gain}");
        let attenuation = decimator.stop_band_attenuation_db();
        let ripple = decimator.pass_band_ripple_db();
        eprintln!(
            "K = {factor}: {} taps, stop band {attenuation:.2} dB, pass band ripple {ripple:.1e} dB",
            h.len()
        );
        assert!(attenuation >= 90.0, "K = {factor}: stop band {attenuation} dB");
        assert!(ripple < 0.01, "K = {factor}: pass band ripple {ripple} dB");
    }
}

/// Decimates a unit sinusoid at `frequency` Hz sampled at `factor` times [`OUTPUT_RATE`] and
/// returns the output samples far enough from both ends not to see the zero padding: 20 x 441
/// of them, a whole number of periods of every frequency that is a multiple of 100 Hz.
fn steady_state_output(factor: usize, frequency: f64) -> (usize, Vec<f64>) {
    let mut decimator = Decimator::new(factor, 1);
    let delay = (decimator.taps().len() - 1) / 2;
    let first = delay.div_ceil(factor);
    let count = 20 * 441;
    let len = (first + count) * factor + delay;
    let simulation_rate = factor as f64 * OUTPUT_RATE;
    let x: Vec<f64> = (0..len).map(|i| (2.0 * PI * frequency * i as f64 / simulation_rate).sin()).collect();
    let output = decimate(&mut decimator, &[x]);
    (first, output[0][first..first + count].to_vec())
}

#[test]
fn sinusoids_pass_with_unit_gain_and_no_delay_below_20_khz() {
    let factor = 2;
    let simulation_rate = factor as f64 * OUTPUT_RATE;
    for frequency in [1_000.0, 19_000.0] {
        let (first, y) = steady_state_output(factor, frequency);
        // Over whole periods the RMS of a sinusoid of amplitude a is a / sqrt(2).
        let gain_db = 20.0 * (rms(&y) * 2f64.sqrt()).log10();
        let worst = y
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let n = first + j;
                (v - (2.0 * PI * frequency * (n * factor) as f64 / simulation_rate).sin()).abs()
            })
            .fold(0.0, f64::max);
        eprintln!("K = 2, {frequency} Hz: gain {gain_db:.2e} dB, worst sample error {worst:.1e}");
        assert!(gain_db.abs() < 0.01, "{frequency} Hz: gain {gain_db} dB");
        assert!(worst < 1e-3, "{frequency} Hz: output differs from sin(2 pi f n K / fs) by {worst}");
    }
}

#[test]
fn a_sinusoid_above_the_output_nyquist_is_removed() {
    let (_, y) = steady_state_output(2, 30_000.0);
    let level_db = 20.0 * (rms(&y) * 2f64.sqrt()).log10();
    eprintln!("K = 2, 30 kHz: output level {level_db:.1} dB");
    assert!(level_db < -80.0, "30 kHz comes out at {level_db} dB");
}

#[test]
fn noise_filtered_by_the_taps_has_no_energy_above_the_output_nyquist() {
    let len = 1 << 16;
    let x = noise(len, 6);
    for factor in 2..=4 {
        let decimator = Decimator::new(factor, 1);
        let h = decimator.taps();
        let delay = (h.len() - 1) / 2;
        // Circular convolution: the filtered signal is exactly periodic, so its DFT is exactly
        // X[k] H[k], with no leakage from the ends that would hide the filter's stop band.
        let mut y: Vec<Complex<f64>> = (0..len)
            .map(|i| {
                let sum = h.iter().enumerate().map(|(k, hk)| hk * x[(i + len + delay - k) % len]).sum();
                Complex::new(sum, 0.0)
            })
            .collect();
        FftPlanner::new().plan_fft_forward(len).process(&mut y);
        let simulation_rate = factor as f64 * OUTPUT_RATE;
        let frequency = |bin: usize| bin.min(len - bin) as f64 * simulation_rate / len as f64;
        let total: f64 = y.iter().map(Complex::norm_sqr).sum();
        let above: f64 = y
            .iter()
            .enumerate()
            .filter(|(bin, _)| frequency(*bin) > OUTPUT_RATE / 2.0)
            .map(|(_, c)| c.norm_sqr())
            .sum();
        let ratio_db = 10.0 * (above / total).log10();
        eprintln!(
            "K = {factor}: {} taps, stop band {:.2} dB, noise energy above 22.05 kHz {ratio_db:.1} dB",
            h.len(),
            decimator.stop_band_attenuation_db()
        );
        assert!(ratio_db < -80.0, "K = {factor}: energy above the output Nyquist at {ratio_db} dB");
    }
}
