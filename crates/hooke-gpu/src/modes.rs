//! A uniform string's modes as the modal voices ([`crate::GpuVoices::modal`], `modal.wgsl`)
//! step them: any linear scheme, the structure-preserving ones of Chatziioannou 2019 included,
//! at the cost of one four-coefficient recurrence per mode, as [`hooke::kernel::modal`] runs
//! them on the CPU.
//!
//! Mode `p` is an oscillator of the chain's sine modes, and the scheme's step on it (measured by
//! the analysis on one oscillator per mode, [`chain_mode_steps`], as the engine's modal path
//! takes it) is
//!
//! ```text
//! q' = a q + b p + f_q F        p' = c q + d p + f_p F
//! ```
//!
//! with `F` the mode's share of the constant forces (gravity, and the end springs' pull towards
//! anchors off zero). A tap's value is a weighted sum over the modes: row `mass` of the sine
//! transform `S` (the modes' shapes at the mass) on `q` for a position, on `p` for a velocity.

use crate::GpuError;
use hooke::engine::chain_mode_steps;
use hooke::kernel::chain::UniformChain;
use hooke::kernel::modal::SineModes;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;

/// The coefficients per mode, in the order `modal.wgsl` reads them (`i * modes + mode`).
pub(crate) const COEFFICIENTS: usize = 6;

/// A uniform chain's modes and one scheme's step on each.
#[derive(Debug)]
pub(crate) struct ChainModes {
    modes: SineModes,
    /// `a, b, c, d, f_q F, f_p F` of every mode: `a`, `d` pure numbers, `b` in s, `c` in 1/s,
    /// the pushes in m and m/s.
    coefficients: Vec<f64>,
}

impl ChainModes {
    /// The modes of `chain` and `scheme`'s step `dt` (s) on each; an error if the analysis
    /// cannot measure the scheme on them.
    pub(crate) fn new(chain: &UniformChain, scheme: SchemeKind, dt: f64) -> Result<Self, GpuError> {
        let n = chain.masses;
        let (steps, share) = chain_mode_steps(chain, scheme, dt)
            .map_err(|error| GpuError::Size(format!("{} on the GPU's modes: {error}", scheme.name())))?;
        let mut coefficients = vec![0.0; COEFFICIENTS * n];
        for (p, (step, force)) in steps.iter().zip(&share).enumerate() {
            let values = [
                step.matrix[0][0],
                step.matrix[0][1],
                step.matrix[1][0],
                step.matrix[1][1],
                step.constant_force[0] * force,
                step.constant_force[1] * force,
            ];
            for (i, value) in values.into_iter().enumerate() {
                coefficients[i * n + p] = value;
            }
        }
        Ok(Self { modes: SineModes::new(n, 1), coefficients })
    }

    /// The number of modes (and of masses).
    pub(crate) fn len(&self) -> usize {
        self.modes.len()
    }

    /// The coefficients of every mode (`i * modes + mode`).
    pub(crate) fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }

    /// The modal amplitudes of the masses' `values` (positions, m, or velocities, m/s).
    pub(crate) fn to_modes(&self, values: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.len()];
        self.modes.transform(&values[..self.len()], &mut out);
        out
    }

    /// The masses' values of the modal amplitudes `modes`.
    pub(crate) fn to_masses(&self, modes: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.len()];
        self.modes.transform(modes, &mut out);
        out
    }

    /// The weights of `taps` on the modes, `capacity` taps' worth (the unused ones zero): tap
    /// `j`'s on the positions at `2 j * modes + mode`, on the velocities at `(2 j + 1) * modes +
    /// mode`.
    pub(crate) fn weights(&self, taps: &[(usize, Quantity)], capacity: usize) -> Vec<f64> {
        let n = self.len();
        let mut weights = vec![0.0; 2 * capacity * n];
        let mut shape = vec![0.0; n];
        for (j, &(mass, quantity)) in taps.iter().enumerate() {
            self.modes.shape_at(mass, &mut shape);
            let row = 2 * j + usize::from(quantity == Quantity::Velocity);
            weights[row * n..][..n].copy_from_slice(&shape);
        }
        weights
    }

    /// The lowest mass that a non-finite amplitude of mode `mode` makes non-finite: the first
    /// where the mode's shape is not zero.
    pub(crate) fn first_mass(&self, mode: usize) -> usize {
        (0..self.len()).find(|&mass| self.modes.value_of(mass, |p| f64::from(p == mode)) != 0.0).unwrap_or(0)
    }
}
