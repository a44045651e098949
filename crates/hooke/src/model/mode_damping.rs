//! A loss per mode: damping that acts on each sine mode of a uniform string at its own rate,
//! as a real string's losses do (air, internal friction and the bridge, each growing with
//! frequency in its own way; see `analysis::string_partials`), where dampers on the links and
//! drag give only `gamma_1 + gamma_2 lambda_j`.
//!
//! Over the `N` masses `m` of a string, in order, with the sine modes
//! `s_j(i) = sqrt(2 / (N + 1)) sin(i j pi / (N + 1))` (orthonormal, the modes of the string with
//! fixed ends; Bilbao 2009, Numerical Sound Synthesis, section 6.1) and a rate `gamma_j` (1/s)
//! per mode, the damping matrix is
//!
//! ```text
//! D = m sum_j gamma_j s_j s_j^T        (each axis alike),
//! ```
//!
//! so that on the string alone mode `j` is the oscillator `x'' + gamma_j x' + w_j^2 x = 0`: it
//! decays at `gamma_j / 2` (1/s) on top of what the string's other damping gives, and no mode is
//! coupled to another. `D` is symmetric and positive semi-definite (`gamma_j >= 0`), so it only
//! dissipates. It is dense: every mass's force reads every mass's velocity.

use super::validate::check_non_negative;
use super::{Model, ModelError, Node};
use crate::limits::{MAX_MODE_DAMPING_ENTRIES, MAX_MODE_DAMPING_MASSES};

/// A mode damping of a [`Model`]: a uniform string's masses and the rate of each of its modes.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeDamping {
    /// The string's masses in order along it, as indices into [`Model::masses`] (distinct
    /// masses of equal mass).
    pub masses: Vec<usize>,
    /// `gamma_j`, 1/s (>= 0), for modes `j = 1 ..= N`: mode `j` decays at `gamma_j / 2` 1/s.
    pub rates: Vec<f64>,
}

/// The orthonormal sine modes of a string of `n` masses with fixed ends, row-major: entry
/// `j * n + i` is `sqrt(2 / (n + 1)) sin((i + 1)(j + 1) pi / (n + 1))`.
pub fn sine_modes(n: usize) -> Vec<f64> {
    let scale = (2.0 / (n + 1) as f64).sqrt();
    let step = std::f64::consts::PI / (n + 1) as f64;
    (0..n * n).map(|e| scale * (((e / n + 1) * (e % n + 1)) as f64 * step).sin()).collect()
}

impl Model {
    /// Adds a mode damping over `masses` (a uniform string's, in order) with one rate per mode.
    /// Rules: 1 to [`MAX_MODE_DAMPING_MASSES`] distinct masses of equal mass, none in another mode
    /// damping; one rate per mass, each finite and >= 0; all the model's mode dampings together
    /// at most [`MAX_MODE_DAMPING_ENTRIES`] matrix entries.
    pub fn add_mode_damping(
        &mut self,
        subject: &str,
        masses: &[Node],
        rates: Vec<f64>,
    ) -> Result<(), ModelError> {
        self.check_mode_damping(subject, masses.len(), &rates)?;
        let n = masses.len();
        let mut indices = Vec::with_capacity(n);
        for node in masses {
            match *node {
                Node::Mass(i) if i < self.masses.len() => indices.push(i),
                _ => {
                    return Err(ModelError::new(
                        subject,
                        "mode_damping",
                        "masses of this model",
                        "another node",
                    ))
                }
            }
        }
        let first = self.masses[indices[0]].mass;
        if indices.iter().any(|&i| self.masses[i].mass != first) {
            return Err(ModelError::new(
                subject,
                "mode_damping",
                "masses of equal mass",
                "masses that differ",
            ));
        }
        let mut taken: Vec<usize> =
            self.mode_dampings.iter().flat_map(|d| d.masses.iter().copied()).collect();
        taken.extend(&indices);
        taken.sort_unstable();
        if taken.windows(2).any(|w| w[0] == w[1]) {
            let found = "a mass listed twice or already in another mode damping";
            return Err(ModelError::new(subject, "mode_damping", "distinct masses", found));
        }
        self.mode_dampings.push(ModeDamping { masses: indices, rates });
        Ok(())
    }

    /// Checks `rates` for a mode damping over `n` masses before they are added: 1 to
    /// [`MAX_MODE_DAMPING_MASSES`] masses, one finite rate >= 0 per mass, and room for its `n^2`
    /// entries under [`MAX_MODE_DAMPING_ENTRIES`].
    pub(crate) fn check_mode_damping(
        &self,
        subject: &str,
        n: usize,
        rates: &[f64],
    ) -> Result<(), ModelError> {
        if !(1..=MAX_MODE_DAMPING_MASSES).contains(&n) {
            let expected = format!("a string of 1 to {MAX_MODE_DAMPING_MASSES} masses");
            return Err(ModelError::new(subject, "mode_damping", expected, format!("{n} masses")));
        }
        if rates.len() != n {
            let expected = format!("{n} rates, one per mode of the {n} masses");
            return Err(ModelError::new(subject, "mode_damping", expected, rates.len()));
        }
        for &rate in rates {
            check_non_negative(subject, "mode_damping", rate)?;
        }
        let entries: usize = self.mode_dampings.iter().map(|d| d.masses.len().pow(2)).sum::<usize>() + n * n;
        if entries > MAX_MODE_DAMPING_ENTRIES {
            let expected = format!("at most {MAX_MODE_DAMPING_ENTRIES} entries of mode damping in a model");
            return Err(ModelError::new(subject, "mode_damping", expected, format!("{entries} entries")));
        }
        Ok(())
    }

    /// Mode dampings in the order they were added.
    pub fn mode_dampings(&self) -> &[ModeDamping] {
        &self.mode_dampings
    }
}
