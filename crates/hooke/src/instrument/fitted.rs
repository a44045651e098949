//! Instruments fitted to recordings ([`crate::analysis::recording::fit`]): a guitar with one
//! string for each recorded note, designed (as every guitar is, [`super::guitar`]) for the
//! scheme and rate it runs at, so that the *simulated* partials have the recording's
//! fundamental, inharmonicity and loss law; a marimba of one bar whose simulated modes have a
//! recorded strike's; a bell whose modes have a recorded bell's frequencies, decays and
//! levels; and a plate whose lattice and loss law are a recorded plate's.

use super::bell::{designed_modes, BellPartial, BellSpec, CHURCH_BELL};
use super::guitar::GuitarSpec;
use super::marimba::MarimbaSpec;
use super::plates::PlatesSpec;
use super::{InstrumentError, InstrumentSpec, Plucker, MIDDLE_C_HZ};
use crate::analysis::bar_design::{shortest_decay_ratio, BarTarget};
use crate::analysis::error::AnalysisError;
use crate::analysis::recording::fit::{BarFit, BellFit, StringFit};
use crate::analysis::recording::plate::{fit_plate, PlateFit};
use crate::analysis::recording::{ModesMeasurement, RecordingError};
use crate::model::{nearest_decay_times, BodySpec, Model};
use crate::scheme::SchemeKind;

/// The tension the fitted strings are given, N (a guitar string's is 60-110 N): with the scale
/// length it sets each string's linear density, which changes only how loud a pluck of a given
/// force sounds.
pub const FITTED_TENSION: f64 = 70.0;

/// The scale length of a fitted guitar, m.
pub const FITTED_SCALE_LENGTH: f64 = 0.648;

/// The least and most masses a fitted string gets.
pub const FITTED_MASSES: std::ops::RangeInclusive<usize> = 40..=400;

/// A string of a fitted guitar: its name (what a score calls it) and its fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedString {
    /// The part's name.
    pub name: String,
    /// What the recording gave.
    pub fit: StringFit,
}

/// The guitar of `strings`, each heard by its force on a fixed bridge: masses enough for the
/// partials fitted (1.5 per partial up to the highest fitted, within [`FITTED_MASSES`]), the
/// loss law through each string's fundamental and a frequency above every fundamental (and one
/// between, the geometric mean of the two, where a law has a term linear in `f`) and each
/// partial whose decay was measured decaying as measured, a
/// density for [`FITTED_TENSION`], and every string plucked where the recordings were, the
/// median of their pluck positions (nearer the bridge than the nut).
pub fn fitted_guitar(strings: &[FittedString]) -> GuitarSpec {
    let highest_fundamental = strings.iter().fold(0.0f64, |m, s| m.max(s.fit.fundamental_hz));
    let masses = strings
        .iter()
        .map(|s| (1.5 * s.fit.highest_fitted_hz / s.fit.fundamental_hz).ceil() as usize)
        .max()
        .unwrap_or(0)
        .clamp(*FITTED_MASSES.start(), *FITTED_MASSES.end());
    let high_frequency = (2.0 * highest_fundamental).max(2000.0);
    // A law with a term linear in f takes a third point, between every fundamental and the high
    // one (the string is then damped mode by mode).
    let linear = strings.iter().any(|s| s.fit.linear_loss > 0.0);
    let middle_frequency = (highest_fundamental * high_frequency).sqrt();
    let density = |f0: f64| FITTED_TENSION / (2.0 * FITTED_SCALE_LENGTH * f0).powi(2);
    GuitarSpec {
        masses,
        strings: strings.iter().map(|s| (s.name.clone(), s.fit.fundamental_hz)).collect(),
        linear_density: strings.iter().map(|s| density(s.fit.fundamental_hz)).collect(),
        decay: strings.iter().map(|s| 1.0 / s.fit.decay_rate(s.fit.fundamental_hz)).collect(),
        high_decay: Some(strings.iter().map(|s| 1.0 / s.fit.decay_rate(high_frequency)).collect()),
        high_frequency,
        middle_decay: linear
            .then(|| strings.iter().map(|s| 1.0 / s.fit.decay_rate(middle_frequency)).collect()),
        middle_frequency,
        partial_decays: Some(strings.iter().map(|s| s.fit.partial_decays.clone()).collect()),
        inharmonicity: Some(strings.iter().map(|s| s.fit.inharmonicity).collect()),
        scale_length: FITTED_SCALE_LENGTH,
        pluck: Plucker {
            position: 1.0 - median(strings.iter().map(|s| s.fit.pluck_position).collect()),
            release: median(strings.iter().map(|s| s.fit.pluck_release).collect()),
            ..Plucker::PLECTRUM
        },
        stereo: false,
        bridge: true,
        ..GuitarSpec::default()
    }
}

/// The median of `values` (the mean of the middle two for an even count; 0.5 for none).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.5,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The marimba of one bar, `key` (a note name, what a score and a MIDI note call it), tuned to
/// `fit` for `scheme` at step `h` (s): its first mode, the ratio of its second, and their decays
/// (given at C4 as the marimba takes them, `decay f / f_C4`, so that its key has the fitted
/// ones); the second decay no shorter than the bar's stiffness-proportional damping can give
/// ([`shortest_decay_ratio`], with [`DECAY_MARGIN`]); mono. Returns the spec and whether the
/// second decay was lengthened.
pub fn fitted_marimba(
    key: &str,
    fit: &BarFit,
    scheme: SchemeKind,
    h: f64,
) -> Result<(MarimbaSpec, bool), AnalysisError> {
    let to_middle_c = fit.frequency_hz / MIDDLE_C_HZ;
    let spec = MarimbaSpec {
        keys: vec![key.to_string()],
        tuning: Some(vec![fit.frequency_hz]),
        ratio: fit.ratio,
        decay: fit.decay * to_middle_c,
        high_decay: fit.high_decay * to_middle_c,
        stereo: false,
        ..MarimbaSpec::default()
    };
    let target = BarTarget {
        frequency_hz: fit.frequency_hz,
        ratio: fit.ratio,
        decay: fit.decay,
        high_decay: fit.high_decay.min(fit.decay),
        third_ratio: None,
        masses: spec.masses,
        linear_density: spec.linear_density,
        rigidity: spec.rigidity,
    };
    let shortest = spec.decay * shortest_decay_ratio(&target, scheme, h)? * DECAY_MARGIN;
    let lengthened = spec.high_decay < shortest;
    Ok((MarimbaSpec { high_decay: spec.high_decay.max(shortest).min(spec.decay), ..spec }, lengthened))
}

/// How far above the shortest a fitted bar's second decay is held, a factor: the shortest is
/// measured near the design, not on it.
pub const DECAY_MARGIN: f64 = 1.02;

/// Rounds [`fitted_bell`] takes to bring its decays to what a bell's body can give.
const BELL_DECAY_ROUNDS: usize = 8;

/// How far inside a bell's body's reach [`fitted_bell`] first moves decays that were out of it: a
/// rate this fraction of the slowest mode's added to every mode's (twice as far each round).
const BELL_INWARD: f64 = 0.01;

/// The bell of one key, `key` (a note name, what a score and a MIDI note call it), tuned to
/// `fit` for `scheme` at step `h` (s): its strike note, and each mode's ratio and decay (given at
/// C4 as the bell takes them); mono, struck by the default clapper. Each mode's effective mass
/// is what makes the clapper sound it at the level measured: struck by a force `F(t)`, a mode of
/// effective mass `m_k` sounds at the struck point with the velocity amplitude `|F^(w_k)| /
/// m_k`, and the clapper's contact is short (about 0.1 ms at C4, the force's spectrum flat
/// within 1 dB up to ten times the strike note), so `m_k = c / a_k` for the measured amplitudes
/// `a_k`, `c` making the modes weigh as much together as the default bell's at that pitch. A
/// bell's body realises its modes as a chain of masses whose drags and dampers cannot give every
/// set of decays ([`crate::model::nearest_decay_times`]): where the measured ones are out of its
/// reach, each decay is moved to the nearest it can give and a little inside ([`BELL_INWARD`]),
/// until the body realises them, at most [`BELL_DECAY_ROUNDS`] times (the scheme's pole mapping
/// moves them again a little); the bell built from the result says why where it still cannot. Returns the bell and the largest
/// relative change made to a decay (0 where none was needed).
pub fn fitted_bell(
    key: &str,
    fit: &BellFit,
    scheme: SchemeKind,
    h: f64,
) -> Result<(BellSpec, f64), InstrumentError> {
    let defaults = BellSpec::default();
    let size = MIDDLE_C_HZ / fit.strike_hz;
    let total = CHURCH_BELL.iter().map(|p| p.mass).sum::<f64>();
    let inverse: f64 = fit.modes.iter().map(|m| 1.0 / m.amplitude).sum();
    let mut partials: Vec<BellPartial> = fit
        .modes
        .iter()
        .map(|m| BellPartial { ratio: m.ratio, decay: m.decay / size, mass: total / (m.amplitude * inverse) })
        .collect();
    let asked = partials.clone();
    let part = || format!("bell \"{key}\"");
    for round in 0..BELL_DECAY_ROUNDS {
        let modes = designed_modes(&partials, fit.strike_hz, scheme, h)
            .map_err(|source| InstrumentError::Analysis { part: part(), source })?;
        let realised = Model::new(1).and_then(|mut model| model.add_body(BodySpec::new(key, modes.clone())));
        if realised.is_ok() {
            break;
        }
        let nearest = nearest_decay_times(&modes)?;
        // Inside the reach rather than on its edge, where the realisation's own corrections
        // could not follow: every drag made positive by a rate added to every mode, as a drag
        // proportional to each mass adds; further in at each round.
        let inward =
            BELL_INWARD * 2f64.powi(round as i32) / nearest.iter().fold(0.0f64, |m, tau| m.max(*tau));
        for ((partial, mode), tau) in partials.iter_mut().zip(&modes).zip(&nearest) {
            partial.decay *= 1.0 / (1.0 / tau + inward) / mode.decay_time;
        }
    }
    let moved = partials.iter().zip(&asked).fold(0.0f64, |m, (p, a)| m.max((p.decay / a.decay - 1.0).abs()));
    let spec = BellSpec {
        keys: vec![key.to_string()],
        tuning: Some(vec![fit.strike_hz]),
        partials,
        stereo: false,
        ..defaults
    };
    Ok((spec, moved))
}

/// The plate of one key, `key` (a note name, what a score and a MIDI note call it), tuned to
/// `fit`: its first mode, its lattice, and the fitted law through the first mode's decay (given
/// at C4, as the plates take it) and the highest measured mode's; mono, struck and heard where
/// the default plates are.
pub fn fitted_plate(key: &str, fit: &PlateFit) -> PlatesSpec {
    PlatesSpec {
        keys: vec![key.to_string()],
        tuning: Some(vec![fit.frequency_hz]),
        columns: fit.columns,
        rows: fit.rows,
        decay: fit.decay(fit.frequency_hz) * fit.frequency_hz / MIDDLE_C_HZ,
        high_decay: fit.decay(fit.high_frequency),
        high_frequency: fit.high_frequency,
        stereo: false,
        ..PlatesSpec::default()
    }
}

/// Why no plate could be fitted: the modes measured, or the plate built from them.
#[derive(Debug, thiserror::Error)]
pub enum FittedPlateError {
    /// Too few modes to fit.
    #[error(transparent)]
    Recording(#[from] RecordingError),
    /// The fitted plate cannot be built.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
}

/// The most steps a sample [`plate_for_rate`] fits a plate for.
const PLATE_MOST_STEPS: usize = 4;

/// The plate fitted to `measured` ([`fit_plate`], its first mode near `hint` Hz where given) for
/// `scheme`, written for output rate `rate` (Hz), and its fit. The lattice is fitted for the step
/// the plate runs at, which its build chooses (the fewest whole steps a sample that keep it
/// stable), so for `k` steps a sample, `k` from 1 to [`PLATE_MOST_STEPS`]: of the fits whose
/// plate the build runs at the `k` it was fitted for, the one whose lattice lies nearest the
/// modes (two lattices can each be right for their own step: a Hooke plate rendered at 2 steps a
/// sample is also matched, less well, by another at 1); where none is, the fit for the step the
/// first one's build took. `name`: the key's name
/// for its first mode's frequency (Hz).
pub fn plate_for_rate(
    measured: &ModesMeasurement,
    hint: Option<f64>,
    scheme: SchemeKind,
    rate: f64,
    name: impl Fn(f64) -> String,
) -> Result<(PlatesSpec, PlateFit), FittedPlateError> {
    let fitted = |steps: usize| -> Result<(PlatesSpec, PlateFit, usize), FittedPlateError> {
        let fit = fit_plate(measured, hint, scheme, 1.0 / (rate * steps as f64))?;
        let spec = fitted_plate(&name(fit.frequency_hz), &fit);
        let (built, _) = InstrumentSpec::Plates(spec.clone()).build_stable(scheme, rate, None)?;
        Ok((spec, fit, built))
    };
    let first = fitted(1)?;
    let mut best: Option<(PlatesSpec, PlateFit)> = None;
    for steps in 1..=PLATE_MOST_STEPS {
        // A step whose fit cannot be built is no candidate; the first's error is the one told.
        let candidate = if steps == 1 { Ok(first.clone()) } else { fitted(steps) };
        let Ok((spec, fit, built)) = candidate else { continue };
        if built == steps && best.as_ref().is_none_or(|b| fit.ratio_error_cents < b.1.ratio_error_cents) {
            best = Some((spec, fit));
        }
    }
    match best {
        Some(found) => Ok(found),
        None => fitted(first.2).map(|(spec, fit, _)| (spec, fit)),
    }
}
