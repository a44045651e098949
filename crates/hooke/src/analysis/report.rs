//! What a scheme will do to each mode of a model at a step: the analysis behind `hooke analyze`
//! and the check before `hooke run`.
//!
//! [`ModelModes`] linearises a system and finds its analog modes once; [`ModelModes::discretise`]
//! maps them through a scheme at a step ([`super::discrete`]) and gives, per mode, the discrete
//! pole with its digital frequency, decay, time constant and region ([`super::poles`]), plus the
//! model's largest stable step ([`super::stability`]). [`analyse`] does both.
//!
//! How each mode's discrete pole is found:
//! - modal damping: the mode's own oscillator through the scheme (exact);
//! - non-modal damping (up to [`STATE_MATRIX_LIMIT`] coordinates), or modes with negative
//!   stiffness: the eigenvalues of the measured `2n x 2n` one-step matrix, each matched to the
//!   analog pole whose equivalent oscillator ([`Oscillator::from_pole`]) the scheme maps nearest
//!   to it (greedy assignment by distance);
//! - larger models with non-modal damping (sparse path): the equivalent oscillators of the modes
//!   found, with a warning.

use super::discrete::{one_step_matrix, oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::linearise::{About, Linearisation};
use super::modes::{modes, Damping, Mode, Modes, SparseCounts, STATE_MATRIX_LIMIT};
use super::poles::{dominant, DiscretePole, Region, MATRIX_TOLERANCE, OSCILLATOR_TOLERANCE};
use super::stability::{fastest_rate, network_largest_step, oscillators_largest_step, StableStep};
use crate::linalg::eigen::eigenvalues;
use crate::scheme::SchemeKind;
use crate::system::System;
use faer::c64;

/// How to analyse: the state to linearise about and how many modes the sparse path finds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnalysisOptions {
    /// The state to linearise about (default: the initial state).
    pub about: About,
    /// Modes the sparse path finds in models too large for the dense paths.
    pub sparse: SparseCounts,
}

/// A model's linearisation and analog modes, ready to be mapped through any scheme.
#[derive(Debug)]
pub struct ModelModes {
    linearisation: Linearisation,
    modes: Modes,
}

/// One mode as a scheme at a step renders it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeReport {
    /// 1-based position in the list (by increasing analog frequency).
    pub index: usize,
    /// The analog mode.
    pub mode: Mode,
    /// Its dominant discrete pole.
    pub discrete: DiscretePole,
}

impl ModeReport {
    /// Whether the discrete pole is inside the unit circle.
    pub fn is_stable(&self) -> bool {
        self.discrete.is_stable()
    }

    /// Whether the scheme makes a mode grow that does not grow in the analog model.
    pub fn is_numerically_unstable(&self) -> bool {
        self.mode.is_stable() && !self.discrete.is_stable()
    }

    /// The frequency error `1200 log2(f_digital / f_analog)`, cents; `None` where either
    /// frequency is 0.
    pub fn cents_error(&self) -> Option<f64> {
        let (analog, digital) = (self.mode.frequency_hz(), self.discrete.frequency_hz());
        (analog > 0.0 && digital > 0.0).then(|| 1200.0 * (digital / analog).log2())
    }
}

/// A scheme's effect on every mode of a model at one step.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemeAnalysis {
    /// The scheme.
    pub scheme: SchemeKind,
    /// The step, s.
    pub dt: f64,
    /// Each mode with its discrete pole, by increasing analog frequency.
    pub modes: Vec<ModeReport>,
    /// Whether the damping is modal.
    pub damping: Damping,
    /// Whether `modes` holds every mode (dense paths) or the lowest and highest (sparse path).
    pub complete: bool,
    /// The largest stable step of this scheme on this model.
    pub largest_stable_step: StableStep,
    /// What the reader should know: modes that are unstable in the model itself, modes that
    /// stop vibrating at this step, estimates.
    pub warnings: Vec<String>,
}

impl SchemeAnalysis {
    /// Whether every mode's discrete pole is inside the unit circle.
    pub fn is_stable(&self) -> bool {
        self.modes.iter().all(ModeReport::is_stable)
    }

    /// The numerically unstable mode (stable in the model, growing in the scheme) that grows
    /// fastest.
    pub fn worst_mode(&self) -> Option<&ModeReport> {
        self.modes
            .iter()
            .filter(|m| m.is_numerically_unstable())
            .max_by(|a, b| a.discrete.modulus().total_cmp(&b.discrete.modulus()))
    }

    /// The factor by which the worst numerically unstable mode grows over `steps` steps,
    /// `|z|^steps` (1 when no mode is numerically unstable; infinite when it overflows).
    pub fn growth_over(&self, steps: u64) -> f64 {
        self.worst_mode().map_or(1.0, |m| (steps as f64 * m.discrete.modulus().ln()).exp())
    }
}

/// Linearises `system` as `options` say and maps its modes through `scheme` at step `dt`.
pub fn analyse(
    system: &System,
    scheme: SchemeKind,
    dt: f64,
    options: &AnalysisOptions,
) -> Result<SchemeAnalysis, AnalysisError> {
    ModelModes::new(system, options)?.discretise(system, scheme, dt)
}

impl ModelModes {
    /// Linearises `system` and finds its modes.
    pub fn new(system: &System, options: &AnalysisOptions) -> Result<Self, AnalysisError> {
        let linearisation = Linearisation::new(system, &options.about)?;
        let modes = modes(&linearisation, options.sparse)?;
        Ok(Self { linearisation, modes })
    }

    /// The linearisation.
    pub fn linearisation(&self) -> &Linearisation {
        &self.linearisation
    }

    /// The analog modes.
    pub fn modes(&self) -> &Modes {
        &self.modes
    }

    /// Whether every discrete pole of `system` (the one the modes came from) with `scheme` at
    /// `dt` lies inside the unit circle, to the tolerance of how it is computed: what
    /// [`SchemeAnalysis::is_stable`] says of [`ModelModes::discretise`], without the search for
    /// the largest stable step that a network with non-modal damping needs there (one eigenvalue
    /// computation of the one-step matrix instead of one per trial step).
    pub fn is_stable_at(&self, system: &System, scheme: SchemeKind, dt: f64) -> Result<bool, AnalysisError> {
        if !(self.is_dense_network() && self.modes.damping == Damping::NonModal) {
            return Ok(self.discretise(system, scheme, dt)?.is_stable());
        }
        let matrix = one_step_matrix(system, scheme, dt, &self.linearisation)?;
        let size = matrix.nrows();
        let poles = eigenvalues(matrix.as_ref()).map_err(|_| AnalysisError::Eigen { size })?;
        Ok(poles.iter().all(|z| z.norm() <= 1.0 + MATRIX_TOLERANCE))
    }

    /// Whether every mode is known and the network small enough for its one-step matrix's
    /// eigenvalues.
    fn is_dense_network(&self) -> bool {
        self.modes.complete && self.linearisation.coordinates() <= STATE_MATRIX_LIMIT
    }

    /// Maps every mode through `scheme` at step `dt` (`system` is the one the modes came from;
    /// the non-modal path steps it).
    pub fn discretise(
        &self,
        system: &System,
        scheme: SchemeKind,
        dt: f64,
    ) -> Result<SchemeAnalysis, AnalysisError> {
        let modes = &self.modes.modes;
        let mut warnings = self.modes.notes.clone();
        let negative_stiffness = modes.iter().any(|m| m.oscillator.omega0_squared < 0.0);
        let use_matrix = self.is_dense_network()
            && (self.modes.damping == Damping::NonModal
                || (negative_stiffness && scheme != SchemeKind::SymplecticEuler));
        let mappable: Vec<Oscillator> =
            modes.iter().map(|m| m.oscillator).filter(|o| maps_as_oscillator(*o)).collect();
        let estimate = oscillators_largest_step(scheme, &mappable)?;
        let (poles, tolerance, largest_stable_step) = if use_matrix {
            let poles = self.matched_matrix_poles(system, scheme, dt)?;
            let unstable =
                modes.iter().filter(|m| !m.is_stable()).map(|m| if m.pole.im > 0.0 { 2 } else { 1 }).sum();
            let fastest = fastest_rate(&mappable);
            let step =
                network_largest_step(system, scheme, &self.linearisation, estimate, unstable, fastest)?;
            (poles, MATRIX_TOLERANCE, step)
        } else {
            (oscillator_mode_poles(scheme, modes, dt, &mut warnings)?, OSCILLATOR_TOLERANCE, estimate)
        };
        let reports: Vec<ModeReport> = modes
            .iter()
            .zip(poles)
            .enumerate()
            .map(|(i, (mode, z))| ModeReport {
                index: i + 1,
                mode: mode.clone(),
                discrete: DiscretePole { z, dt, tolerance },
            })
            .collect();
        warnings.extend(mode_warnings(&reports));
        Ok(SchemeAnalysis {
            scheme,
            dt,
            modes: reports,
            damping: self.modes.damping,
            complete: self.modes.complete,
            largest_stable_step,
            warnings,
        })
    }

    /// Every mode's dominant discrete pole from the eigenvalues of the whole one-step matrix.
    fn matched_matrix_poles(
        &self,
        system: &System,
        scheme: SchemeKind,
        dt: f64,
    ) -> Result<Vec<c64>, AnalysisError> {
        let matrix = one_step_matrix(system, scheme, dt, &self.linearisation)?;
        let size = matrix.nrows();
        let actual = eigenvalues(matrix.as_ref()).map_err(|_| AnalysisError::Eigen { size })?;
        // Every analog pole (conjugates included), the mode it belongs to, and where the scheme
        // would put it as an oscillator.
        let mut owners = Vec::with_capacity(size);
        let mut predicted = Vec::with_capacity(size);
        for (index, mode) in self.modes.modes.iter().enumerate() {
            let pair = predicted_pair(scheme, mode, dt)?;
            if mode.pole.im > 0.0 {
                owners.extend([index, index]);
                predicted.extend(pair);
            } else {
                owners.push(index);
                predicted.push(pair[0]);
            }
        }
        let assignment = greedy_match(&predicted, &actual);
        let mut poles: Vec<Option<c64>> = vec![None; self.modes.modes.len()];
        for (slot, &owner) in owners.iter().enumerate() {
            let z = assignment[slot].map_or(predicted[slot], |k| actual[k]);
            poles[owner] = Some(match poles[owner] {
                Some(other) => dominant([other, z]),
                None => {
                    if z.im < 0.0 {
                        z.conj()
                    } else {
                        z
                    }
                }
            });
        }
        Ok(poles.into_iter().map(|z| z.unwrap_or(c64::new(0.0, 0.0))).collect())
    }
}

/// Whether an oscillator can be built as a spring and a damper (and so mapped by stepping).
fn maps_as_oscillator(oscillator: Oscillator) -> bool {
    oscillator.omega0_squared >= 0.0 && oscillator.gamma >= 0.0
}

/// Where `scheme` maps a mode's pole (first) and its partner (second) when the mode is taken as
/// its oscillator: for a vibrating mode the dominant discrete pole and its partner; for a real
/// pole the discrete pole nearer `e^{s h}` first. An oscillator that cannot be stepped
/// (negative stiffness or damping) is mapped as the exact flow, `e^{s h}`.
fn predicted_pair(scheme: SchemeKind, mode: &Mode, dt: f64) -> Result<[c64; 2], AnalysisError> {
    let exact = (mode.pole * dt).exp();
    if !maps_as_oscillator(mode.oscillator) && scheme != SchemeKind::SymplecticEuler {
        return Ok([exact, exact.conj()]);
    }
    let [a, b] = oscillator_poles(scheme, &[mode.oscillator], dt)?[0];
    Ok(if (a - exact).norm() <= (b - exact).norm() { [a, b] } else { [b, a] })
}

/// Each mode's dominant discrete pole, mapping the modes as oscillators: a vibrating mode takes
/// the dominant pole of its oscillator; the two real poles of a non-vibrating oscillator take its
/// two discrete poles, paired as they lie nearest the exact flow's `e^{s h}`. Oscillators with
/// negative stiffness (only on the sparse path, or with symplectic Euler's closed form) are
/// mapped by symplectic Euler's closed form or, for the other schemes, as the exact flow with a
/// warning.
fn oscillator_mode_poles(
    scheme: SchemeKind,
    modes: &[Mode],
    dt: f64,
    warnings: &mut Vec<String>,
) -> Result<Vec<c64>, AnalysisError> {
    let mappable: Vec<Oscillator> = modes
        .iter()
        .map(|m| m.oscillator)
        .filter(|o| maps_as_oscillator(*o) || scheme == SchemeKind::SymplecticEuler)
        .collect();
    let mut discrete = oscillator_poles(scheme, &mappable, dt)?.into_iter();
    let mut poles = Vec::with_capacity(modes.len());
    for (index, mode) in modes.iter().enumerate() {
        let exact = (mode.pole * dt).exp();
        if !(maps_as_oscillator(mode.oscillator) || scheme == SchemeKind::SymplecticEuler) {
            warnings.push(format!(
                "mode {}: its stiffness is negative, so {scheme} cannot be stepped on it as an oscillator; its \
                 discrete pole is taken as the exact flow's, e^(s h)",
                index + 1
            ));
            poles.push(exact);
            continue;
        }
        let pair = discrete.next().expect("one pole pair per mappable mode");
        if mode.pole.im > 0.0 {
            poles.push(dominant(pair));
            continue;
        }
        // A real pole: pair the oscillator's two analog poles with its two discrete poles as
        // they lie nearest the exact flow's, and take this one's.
        let [first, second] = mode.oscillator.poles();
        let (first_exact, second_exact) = ((first * dt).exp(), (second * dt).exp());
        let straight = (pair[0] - first_exact).norm() + (pair[1] - second_exact).norm();
        let crossed = (pair[1] - first_exact).norm() + (pair[0] - second_exact).norm();
        let index = if straight <= crossed { mode.root } else { 1 - mode.root };
        let z = pair[index];
        poles.push(if z.im < 0.0 { z.conj() } else { z });
    }
    Ok(poles)
}

/// Assigns each predicted pole one actual eigenvalue, nearest pairs first.
fn greedy_match(predicted: &[c64], actual: &[c64]) -> Vec<Option<usize>> {
    let mut pairs: Vec<(f64, usize, usize)> = Vec::with_capacity(predicted.len() * actual.len());
    for (p, zp) in predicted.iter().enumerate() {
        for (a, za) in actual.iter().enumerate() {
            pairs.push(((zp - za).norm(), p, a));
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut assignment = vec![None; predicted.len()];
    let mut taken = vec![false; actual.len()];
    for (_, p, a) in pairs {
        if assignment[p].is_none() && !taken[a] {
            assignment[p] = Some(a);
            taken[a] = true;
        }
    }
    assignment
}

/// Warnings about individual modes: free motions (no stiffness about this state), unstable in
/// the model itself, or vibrating in the model but not at this step.
fn mode_warnings(reports: &[ModeReport]) -> Vec<String> {
    let mut warnings = Vec::new();
    for report in reports {
        let mode = &report.mode;
        if mode.is_free() {
            warnings.push(format!(
                "mode {} is a free motion: no stiffness holds it about the linearisation state (a slack \
                 spring, a mass held by nothing in that direction), so it drifts instead of vibrating; about a \
                 loaded rest state it may vibrate",
                report.index
            ));
        } else if !mode.is_stable() {
            warnings.push(format!(
                "mode {} grows in the model itself (sigma = {:+.4e} 1/s, about the linearisation state): no step \
                 makes it decay",
                report.index,
                mode.decay_rate()
            ));
        } else if mode.pole.im > 0.0
            && report.discrete.is_stable()
            && report.discrete.region() != Region::Complex
        {
            warnings.push(format!(
                "mode {} ({:.6} Hz) does not vibrate at this step: its discrete pole is real (region {})",
                report.index,
                mode.frequency_hz(),
                report.discrete.region()
            ));
        }
    }
    warnings
}
