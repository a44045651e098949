//! Anti-aliasing decimation from the simulation rate to the output rate.
//!
//! The simulation runs at `K` times the output rate. Before keeping every `K`-th sample, the
//! content above the output Nyquist frequency must be removed, or it folds back into the audible
//! band. [`Decimator`] does both with one linear-phase windowed-sinc FIR low-pass (Kaiser window),
//! evaluated only at the kept samples (the polyphase form: the filter output is never computed
//! for the `K - 1` samples in `K` that are thrown away).
//!
//! # Design (Kaiser 1974)
//!
//! Frequencies below are in cycles per simulation-rate sample (the simulation rate is 1, its
//! Nyquist is 0.5 and the output rate is `1 / K`):
//!
//! - pass band `0 ..= f_p` with `f_p = 0.45 / K` (20 kHz at a 44.1 kHz output rate);
//! - stop band `f_s ..= 0.5` with `f_s = 0.5 / K` (the output Nyquist), attenuated by at least
//!   90 dB. Kaiser's formulas are estimates: given exactly 90 dB they give filters that measure
//!   89.7 dB for some `K`, so they are given `A` = 91 dB, which measures 90.7 dB or more for
//!   `K` = 2 to 8 ([`Decimator::stop_band_attenuation_db`]);
//! - transition width `delta_omega = 2 pi (f_s - f_p)` rad per simulation-rate sample;
//! - length `N = (A - 8) / (2.285 delta_omega) + 1`, rounded up to an odd integer so that the
//!   centre `D = (N - 1) / 2` (the group delay, in simulation-rate samples) is a whole sample;
//!   `N` grows in proportion to `K`;
//! - shape `beta = 0.1102 (A - 8.7)` (Kaiser's formula for `A > 50` dB);
//! - ideal low-pass `h_ideal[n] = 2 f_c sinc(2 f_c (n - D))`, `sinc(x) = sin(pi x) / (pi x)`,
//!   with the cutoff `f_c = (f_p + f_s) / 2` midway in the transition band;
//! - window `w[n] = I0(beta sqrt(1 - ((n - D) / D)^2)) / I0(beta)`, `I0` the zeroth-order
//!   modified Bessel function of the first kind, by its power series
//!   `I0(x) = sum_k ((x / 2)^k / k!)^2`;
//! - taps `h[n] = h_ideal[n] w[n] / sum_m h_ideal[m] w[m]`, so that the DC gain is 1.
//!
//! # Alignment
//!
//! Output sample `n` is the filter centred on input sample `n K`:
//! `y[n] = sum_k h[k] x[n K + D - k]`, with the input taken as zero before its start and after
//! its end. The linear-phase delay `D` is thus compensated, and an input of `L` samples gives
//! `ceil(L / K)` output samples.

/// `A`, the stop-band attenuation given to Kaiser's formulas, dB: the 90 dB required plus 1 dB
/// for the error of the formulas (module documentation).
const DESIGN_ATTENUATION_DB: f64 = 91.0;
/// Upper edge of the pass band, as a fraction of the output rate.
const PASS_EDGE: f64 = 0.45;
/// Lower edge of the stop band, as a fraction of the output rate (the output Nyquist).
const STOP_EDGE: f64 = 0.5;
/// Frequencies at which the measured figures evaluate the response, per band.
const MEASUREMENT_GRID: usize = 8192;

/// A streaming anti-aliasing decimator by an integer factor, for several channels at once.
///
/// Feed simulation-rate samples with [`process`](Self::process) in chunks of any size (the
/// result does not depend on how the input is split), then call [`finish`](Self::finish) once
/// for the last output samples. Factor 1 is an exact pass-through.
#[derive(Debug, Clone)]
pub struct Decimator {
    /// `K`, simulation-rate samples per output sample.
    factor: usize,
    /// The number of channels.
    channels: usize,
    /// The filter `h`, symmetric, odd length `N`, summing to 1 (just `[1.0]` for factor 1).
    taps: Vec<f64>,
    /// Per channel, a ring of length `2 N` holding the last `N` inputs twice (at `i` and
    /// `i + N`), so that they always lie contiguous, oldest first, at `ring[write..write + N]`.
    history: Vec<f64>,
    /// Where the next input goes in every channel's ring, `0..N`.
    write: usize,
    /// Simulation-rate samples pushed into the rings since the start (inputs, then flush zeros).
    clock: usize,
    /// Output samples whose centre input has arrived but which have not been produced yet.
    owed: usize,
}

impl Decimator {
    /// A decimator by `factor` (`K`) for `channels` channels, with the filter designed as
    /// described in the [module documentation](self).
    ///
    /// # Panics
    ///
    /// If `factor` is 0.
    pub fn new(factor: usize, channels: usize) -> Self {
        assert!(factor >= 1, "the decimation factor must be at least 1");
        let taps = if factor == 1 { vec![1.0] } else { design(factor) };
        let history = vec![0.0; channels * 2 * taps.len()];
        Self { factor, channels, taps, history, write: 0, clock: 0, owed: 0 }
    }

    /// `K`, the number of simulation-rate samples per output sample.
    pub fn factor(&self) -> usize {
        self.factor
    }

    /// `D`, the filter's half-length: output `n` is centred on input `n K` and complete once
    /// input `n K + D` has arrived.
    pub fn delay(&self) -> usize {
        self.taps.len() / 2
    }

    /// The filter taps, applied at the simulation rate: symmetric, of odd length, summing to 1.
    /// For factor 1, the single tap 1.
    pub fn taps(&self) -> &[f64] {
        &self.taps
    }

    /// The worst attenuation of the filter over the stop band (from the output Nyquist to the
    /// simulation Nyquist), dB, as a positive number: `-20 log10 max |H(f)|`, measured on a
    /// grid of 8192 frequencies. Infinite for factor 1, which has nothing to remove.
    pub fn stop_band_attenuation_db(&self) -> f64 {
        if self.factor == 1 {
            return f64::INFINITY;
        }
        let stop_edge = STOP_EDGE / self.factor as f64;
        let worst = grid(stop_edge, 0.5).map(|f| self.amplitude(f).abs()).fold(0.0, f64::max);
        -20.0 * worst.log10()
    }

    /// The largest deviation of the gain from 0 dB over the pass band (0 to 0.45 of the output
    /// rate), dB, as a positive number: `max |20 log10 |H(f)||`, measured on a grid of 8192
    /// frequencies. Zero for factor 1.
    pub fn pass_band_ripple_db(&self) -> f64 {
        if self.factor == 1 {
            return 0.0;
        }
        let pass_edge = PASS_EDGE / self.factor as f64;
        grid(0.0, pass_edge).map(|f| (20.0 * self.amplitude(f).abs().log10()).abs()).fold(0.0, f64::max)
    }

    /// Takes `len` simulation-rate samples of every channel, channel `c`'s at
    /// `samples[c * stride..c * stride + len]` (possibly `len = 0`), and appends the output-rate
    /// samples that are now complete to `output[channel]`.
    ///
    /// Allocates nothing beyond the growth of the `output` vectors.
    ///
    /// # Panics
    ///
    /// If `output` does not have one entry per channel, `len > stride`, or `samples` is shorter
    /// than the channels need.
    pub fn process(&mut self, samples: &[f64], stride: usize, len: usize, output: &mut [Vec<f64>]) {
        assert_eq!(output.len(), self.channels, "one output vector per channel");
        assert!(len <= stride, "at most `stride` samples per channel");
        let channel = |c: usize| &samples[c * stride..c * stride + len];
        if self.factor == 1 {
            for (c, out) in output.iter_mut().enumerate() {
                out.extend_from_slice(channel(c));
            }
            return;
        }
        for i in 0..len {
            self.push(|c| samples[c * stride + i], output);
        }
    }

    /// The inputs still to come before every input in the filter's window came since the
    /// start (or the last [`Self::finish`], which takes the inputs before a new signal as zero).
    pub fn unfilled(&self) -> usize {
        self.taps.len().saturating_sub(self.clock)
    }

    /// The number of inputs still to come up to and including the one that completes the next
    /// output (1 when the next input does).
    pub fn due_in(&self) -> usize {
        let delay = self.taps.len() / 2;
        match self.clock.checked_sub(delay) {
            None => delay - self.clock + 1,
            Some(past) => match past % self.factor {
                0 => 1,
                rest => self.factor - rest + 1,
            },
        }
    }

    /// Counts `len` inputs that complete no output (`len < due_in()`) without taking their
    /// values: the caller makes the outputs itself ([`Self::push_output`]) and rebuilds the
    /// history before the decimator filters again ([`Self::restore_history`]).
    pub fn skip(&mut self, len: usize) {
        debug_assert!(len < self.due_in(), "a skipped input would complete an output");
        for _ in 0..len {
            self.count_input();
        }
    }

    /// Counts the inputs up to the one that completes the next output ([`Self::due_in`]) and
    /// appends `frame` (one value per channel) to `output` as that output, made by the caller:
    /// an oversampled path that folds the filter into its own outputs (the modal kernel).
    pub fn push_output(&mut self, frame: impl Fn(usize) -> f64, output: &mut [Vec<f64>]) {
        while !self.count_input() {}
        for (channel, out) in output.iter_mut().enumerate() {
            out.push(frame(channel));
        }
    }

    /// Rewrites the history with the last `N` inputs, channel `c`'s input `a` inputs ago being
    /// `input(c, a)` (`a = 0` the last): after [`Self::skip`] and [`Self::push_output`].
    pub fn restore_history(&mut self, input: impl Fn(usize, usize) -> f64) {
        let n = self.taps.len();
        for (channel, ring) in self.history.chunks_exact_mut(2 * n).enumerate() {
            for i in 0..n {
                let value = input(channel, n - 1 - i);
                ring[i] = value;
                ring[i + n] = value;
            }
        }
        self.write = 0;
    }

    /// Appends the output samples still owed (those centred within the filter's half-length of
    /// the end), taking the input after its end as zero; the output then holds
    /// `ceil(L / K)` samples per channel for an input of `L`. The decimator is then back in its
    /// initial state, ready for a new signal. Adds nothing for factor 1.
    ///
    /// # Panics
    ///
    /// If `output` does not have one entry per channel.
    pub fn finish(&mut self, output: &mut [Vec<f64>]) {
        assert_eq!(output.len(), self.channels, "one output vector per channel");
        while self.owed > 0 {
            self.write_input(|_| 0.0);
            if self.count_due() {
                self.append_filtered(output);
            }
        }
        self.history.fill(0.0);
        self.write = 0;
        self.clock = 0;
    }

    /// Counts one input: an output is owed from its centre input (`clock = n K`) and due at
    /// the last input of its window (`clock = n K + D`). Returns whether one is due now.
    fn count_input(&mut self) -> bool {
        if self.clock.is_multiple_of(self.factor) {
            self.owed += 1;
        }
        self.count_due()
    }

    /// Advances the clock by one input; returns whether an owed output is due at it.
    fn count_due(&mut self) -> bool {
        let delay = self.taps.len() / 2;
        let due = self.clock >= delay && (self.clock - delay).is_multiple_of(self.factor);
        self.clock += 1;
        if due {
            self.owed -= 1;
        }
        due
    }

    /// Pushes one simulation-rate sample per channel (`sample(channel)`) and, when it is the
    /// last input of an owed output's window, appends that output.
    fn push(&mut self, sample: impl Fn(usize) -> f64, output: &mut [Vec<f64>]) {
        self.write_input(sample);
        if self.count_input() {
            self.append_filtered(output);
        }
    }

    /// Writes one input per channel into the history.
    fn write_input(&mut self, sample: impl Fn(usize) -> f64) {
        let n = self.taps.len();
        for (channel, ring) in self.history.chunks_exact_mut(2 * n).enumerate() {
            let x = sample(channel);
            ring[self.write] = x;
            ring[self.write + n] = x;
        }
        self.write = if self.write + 1 == n { 0 } else { self.write + 1 };
    }

    /// Appends every channel's filtered history, the output due now.
    fn append_filtered(&mut self, output: &mut [Vec<f64>]) {
        let n = self.taps.len();
        for (ring, out) in self.history.chunks_exact(2 * n).zip(output.iter_mut()) {
            // The window runs oldest first, the reverse of `x[n K + D - k]`; `h` is symmetric.
            let window = &ring[self.write..self.write + n];
            out.push(crate::kernel::with_best_instructions(
                #[inline(always)]
                || dot(&self.taps, window),
            ));
        }
    }

    /// The real amplitude response `H(f) e^{2 pi i f D}` at `f` cycles per simulation-rate sample:
    /// `h[D] + 2 sum_{m=1}^{D} h[D + m] cos(2 pi f m)` (the taps are symmetric).
    fn amplitude(&self, f: f64) -> f64 {
        let delay = self.taps.len() / 2;
        let omega = 2.0 * std::f64::consts::PI * f;
        let tail = self.taps[delay + 1..]
            .iter()
            .enumerate()
            .map(|(m, h)| h * (omega * (m + 1) as f64).cos())
            .sum::<f64>();
        self.taps[delay] + 2.0 * tail
    }
}

/// The Kaiser-window low-pass for decimation by `factor >= 2` (module documentation).
fn design(factor: usize) -> Vec<f64> {
    let k = factor as f64;
    let (pass_edge, stop_edge) = (PASS_EDGE / k, STOP_EDGE / k);
    let delta_omega = 2.0 * std::f64::consts::PI * (stop_edge - pass_edge);
    let min_len = (DESIGN_ATTENUATION_DB - 8.0) / (2.285 * delta_omega) + 1.0;
    let delay = ((min_len - 1.0) / 2.0).ceil() as usize; // the smallest odd length 2 D + 1 >= min_len
    let beta = 0.1102 * (DESIGN_ATTENUATION_DB - 8.7);
    let cutoff = (pass_edge + stop_edge) / 2.0;
    // Computed from the centre outwards and mirrored, so that the taps are exactly symmetric.
    let half: Vec<f64> = (0..=delay)
        .map(|m| {
            let ratio = m as f64 / delay as f64;
            let window = bessel_i0(beta * (1.0 - ratio * ratio).sqrt()) / bessel_i0(beta);
            2.0 * cutoff * sinc(2.0 * cutoff * m as f64) * window
        })
        .collect();
    let mut taps: Vec<f64> = half.iter().rev().chain(&half[1..]).copied().collect();
    let dc_gain: f64 = taps.iter().sum();
    taps.iter_mut().for_each(|h| *h /= dc_gain);
    taps
}

/// `sin(pi x) / (pi x)`, 1 at 0.
fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let a = std::f64::consts::PI * x;
        a.sin() / a
    }
}

/// The zeroth-order modified Bessel function of the first kind, `sum_k ((x / 2)^k / k!)^2`,
/// summed until the terms no longer change the sum.
fn bessel_i0(x: f64) -> f64 {
    let (mut sum, mut term, mut k) = (1.0, 1.0, 0.0);
    loop {
        k += 1.0;
        let ratio = x / (2.0 * k);
        term *= ratio * ratio;
        if sum + term == sum {
            return sum;
        }
        sum += term;
    }
}

/// `MEASUREMENT_GRID` equally spaced frequencies from `from` to `to`, both included.
fn grid(from: f64, to: f64) -> impl Iterator<Item = f64> {
    let step = (to - from) / (MEASUREMENT_GRID - 1) as f64;
    (0..MEASUREMENT_GRID).map(move |i| from + step * i as f64)
}

/// `sum a[i] b[i]` with four times eight partial sums (a fixed order, so the result does not
/// depend on anything but the inputs), which lets the compiler use full vector registers, four
/// of them, so that no addition waits on the one before it.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    const LANES: usize = 8;
    const SUMS: usize = 4;
    let mut partial = [[0.0; LANES]; SUMS];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES * SUMS), b.chunks_exact(LANES * SUMS));
    let tail: f64 = a_chunks.remainder().iter().zip(b_chunks.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for (sum, partial) in partial.iter_mut().enumerate() {
            for lane in 0..LANES {
                partial[lane] += x[sum * LANES + lane] * y[sum * LANES + lane];
            }
        }
    }
    let lanes: [f64; LANES] = std::array::from_fn(|lane| {
        (partial[0][lane] + partial[1][lane]) + (partial[2][lane] + partial[3][lane])
    });
    lanes.iter().sum::<f64>() + tail
}
