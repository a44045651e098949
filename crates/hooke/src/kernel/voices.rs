//! Many voices of one small string at once: the chain stencil with the voices in the vector
//! lanes.
//!
//! A string of a few masses is latency-bound: each step waits for the previous one, and a
//! vector register has more lanes than the string has masses. Interleaving `V` independent
//! voices of the same string (`x[i V + voice]`) makes every operation of the stencil of
//! [`super::chain`] a full-width vector operation on aligned data, with `V` independent
//! dependency chains in flight. Each voice follows exactly the same arithmetic as a
//! [`super::chain::ChainKernel`] would give it alone.

use super::chain::{Coefficients, UniformChain};
use super::Real;

/// `V` voices of one uniform chain, lane-interleaved, with ghost anchors at padded indices 0 and
/// `n + 1`.
#[derive(Debug, Clone)]
pub struct VoiceBank<T: Real> {
    masses: usize,
    voices: usize,
    coefficients: Coefficients<T>,
    x: Vec<T>,
    v: Vec<T>,
    x_next: Vec<T>,
    v_next: Vec<T>,
}

impl<T: Real> VoiceBank<T> {
    /// `voices` copies of `chain` with step `dt` (s); `initial(voice)` gives each voice's
    /// positions and velocities of the masses (m, m/s).
    pub fn new(
        chain: UniformChain,
        dt: f64,
        voices: usize,
        initial: impl Fn(usize) -> (Vec<f64>, Vec<f64>),
    ) -> Self {
        let n = chain.masses;
        let coefficients = Coefficients::new(&chain, dt);
        let mut x = vec![T::default(); (n + 2) * voices];
        let mut v = vec![T::default(); (n + 2) * voices];
        for voice in 0..voices {
            let (positions, velocities) = initial(voice);
            x[voice] = T::from_f64(chain.left);
            x[(n + 1) * voices + voice] = T::from_f64(chain.right);
            for i in 0..n {
                x[(i + 1) * voices + voice] = T::from_f64(positions[i]);
                v[(i + 1) * voices + voice] = T::from_f64(velocities[i]);
            }
        }
        Self { masses: n, voices, coefficients, x_next: x.clone(), v_next: v.clone(), x, v }
    }

    /// The position of mass `mass` (0-based) of voice `voice`, m.
    pub fn position(&self, voice: usize, mass: usize) -> f64 {
        self.x[(mass + 1) * self.voices + voice].to_f64()
    }

    /// The velocity of mass `mass` (0-based) of voice `voice`, m/s.
    pub fn velocity(&self, voice: usize, mass: usize) -> f64 {
        self.v[(mass + 1) * self.voices + voice].to_f64()
    }

    /// Advances every voice `steps` steps, writing the position of mass `tap` of each voice
    /// after every step to `record[step * voices + voice]`.
    pub fn advance(&mut self, steps: usize, tap: usize, record: &mut [f64]) {
        super::with_best_instructions(
            #[inline(always)]
            || self.advance_portable(steps, tap, record),
        );
    }

    #[inline(always)]
    fn advance_portable(&mut self, steps: usize, tap: usize, record: &mut [f64]) {
        let (n, lanes) = (self.masses, self.voices);
        let c = self.coefficients;
        let (mut current, mut next) = ((&mut self.x, &mut self.v), (&mut self.x_next, &mut self.v_next));
        for step in 0..steps {
            {
                let (x, v) = (&current.0[..], &current.1[..]);
                let (x_next, v_next) = (&mut next.0[..], &mut next.1[..]);
                for i in 1..=n {
                    let (x_left, x_mid, x_right) = (
                        &x[(i - 1) * lanes..][..lanes],
                        &x[i * lanes..][..lanes],
                        &x[(i + 1) * lanes..][..lanes],
                    );
                    let (v_left, v_mid, v_right) = (
                        &v[(i - 1) * lanes..][..lanes],
                        &v[i * lanes..][..lanes],
                        &v[(i + 1) * lanes..][..lanes],
                    );
                    let x_out = &mut x_next[i * lanes..][..lanes];
                    let v_out = &mut v_next[i * lanes..][..lanes];
                    for lane in 0..lanes {
                        (x_out[lane], v_out[lane]) = c.advance_mass(
                            [x_left[lane], x_mid[lane], x_right[lane]],
                            [v_left[lane], v_mid[lane], v_right[lane]],
                        );
                    }
                }
                let tapped = &x_next[(tap + 1) * lanes..][..lanes];
                for (out, value) in record[step * lanes..][..lanes].iter_mut().zip(tapped) {
                    *out = value.to_f64();
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        if steps % 2 == 1 {
            std::mem::swap(&mut self.x, &mut self.x_next);
            std::mem::swap(&mut self.v, &mut self.v_next);
        }
    }
}
