//! Instruments: models built for playing from a score. An [`Instrument`] is a [`Model`] plus
//! named parts a score can address (strings, a membrane, a single body), the pickups that make
//! its output channels, and the scheme and step it was built for: a guitar's strings are
//! designed for one scheme at one simulation rate so that the *simulated* strings are in tune
//! (Morgan & Qiao 2009, section 4.3 and its closing guitar).
//!
//! Builders: [`guitar`], [`piano`], [`marimba`], [`plates`], [`bell`], [`drum`], [`reed`], [`sitar`], [`pendulum`], or
//! [`InstrumentSpec`] for any of them; the instrument file format (docs/score-format.md) reads their specs.

pub mod bell;
pub(crate) mod body;
pub mod drum;
pub mod fitted;
pub mod frets;
pub mod guitar;
pub mod marimba;
pub mod pendulum;
pub mod piano;
pub mod plates;
pub mod reed;
pub mod sitar;

pub use body::{direct_pickups, BodyAlone};

use crate::analysis::error::AnalysisError;
use crate::analysis::report::{AnalysisOptions, ModelModes};
use crate::engine::PickupSpec;
use crate::limits::MAX_OUTPUT_RATE;
use crate::model::{Model, ModelError};
use crate::scheme::SchemeKind;
use crate::system::System;

/// What can go wrong building an instrument.
#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    /// A parameter is out of range (names the parameter, what was expected and what was found).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The design or the stability analysis failed.
    #[error("{part}: {source}")]
    Analysis {
        /// The part being designed.
        part: String,
        /// Why.
        source: AnalysisError,
    },
    /// The scheme at this simulation rate would let a mode of a part grow.
    #[error(
        "{part}: {scheme} at a simulation rate of {rate} Hz is unstable: its highest mode ({highest_hz:.0} Hz \
         analog) needs a rate above {needed_rate:.0} Hz with this scheme{hint}"
    )]
    Unstable {
        /// The part.
        part: String,
        /// The scheme.
        scheme: SchemeKind,
        /// The simulation rate, Hz.
        rate: f64,
        /// The analog frequency of the part's highest mode, Hz.
        highest_hz: f64,
        /// The lowest stable simulation rate, Hz.
        needed_rate: f64,
        /// What to do about it (for symplectic Euler: every mode must stay under rate / pi).
        hint: String,
    },
}

/// A part of an instrument that a score can address by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The name scores use (`"E2"`, `"drum"`, `"reed"`).
    pub name: String,
    /// What it is.
    pub kind: PartKind,
}

/// The kinds of parts.
#[derive(Debug, Clone, PartialEq)]
pub enum PartKind {
    /// A 1D string between two anchors.
    String(StringPart),
    /// A 1D membrane: a grid of masses with a fixed rim.
    Membrane(MembranePart),
    /// One mass (a reed, a pendulum's bob).
    Body(BodyPart),
    /// A struck part whose masses run from the struck end: a free bar (a marimba's key), or a
    /// bell's modes seen from where its clapper strikes ([`bell`]).
    Bar(BarPart),
    /// A plate held on its rim (a bell plate).
    Plate(PlatePart),
}

impl PartKind {
    /// The pitch the part was built to sound, Hz: a string's open fundamental or a bar's or a
    /// plate's first mode; `None` for a membrane or a body.
    pub fn pitch_hz(&self) -> Option<f64> {
        match self {
            PartKind::String(string) => Some(string.frequency_hz),
            PartKind::Bar(bar) => Some(bar.frequency_hz),
            PartKind::Plate(plate) => Some(plate.frequency_hz),
            PartKind::Membrane(_) | PartKind::Body(_) => None,
        }
    }

    /// The hammer or mallet that plays the part, if it has one: a piano key's, a bar's or a
    /// plate's.
    pub fn hammer(&self) -> Option<KeyHammer> {
        match self {
            PartKind::String(string) => string.hammer,
            PartKind::Bar(bar) => Some(bar.mallet),
            PartKind::Plate(plate) => Some(plate.mallet),
            PartKind::Membrane(_) | PartKind::Body(_) => None,
        }
    }
}

/// A string: its masses in order from the nut (or first anchor) to the bridge, and what it
/// was designed to be.
#[derive(Debug, Clone, PartialEq)]
pub struct StringPart {
    /// Model indices of the masses, nut to bridge.
    pub masses: Vec<usize>,
    /// System node indices of the anchors at the nut and at the bridge.
    pub ends: [usize; 2],
    /// Each mass, kg.
    pub mass: f64,
    /// Each link's stiffness, N/m.
    pub stiffness: f64,
    /// Each link's damper, N s/m.
    pub damping: f64,
    /// Each mass's drag rate `c / m` (the frequency-independent loss), 1/s.
    pub drag: f64,
    /// kappa of the bending element centred at each mass, N/m (0: a string without stiffness).
    pub bending: f64,
    /// The rate of each of the open string's sine modes' damping, 1/s (`model::ModeDamping`;
    /// empty: none).
    pub mode_damping: Vec<f64>,
    /// The open string's designed (simulated) fundamental, Hz.
    pub frequency_hz: f64,
    /// The open string's designed time constant, s (`None`: lossless).
    pub time_constant: Option<f64>,
    /// Frets on the fingerboard (0: none).
    pub frets: usize,
    /// How a fret stops the string.
    pub fret_method: frets::FretMethod,
    /// How a MIDI note plucks it.
    pub plucker: Plucker,
    /// The body the string ends on (its bridge is `ends[1]`), on which its frets are tuned;
    /// `None`: a fixed bridge.
    pub body: Option<std::sync::Arc<BodyAlone>>,
    /// The other strings of its course (a piano's two or three strings to a key, each ending on
    /// the same bridge), struck, plucked, damped and set with it: an excitation is shared by the
    /// course's strings at the same place along each, a hammer's mass or a pulse's peak divided
    /// equally. Empty for a single string. A course has no frets.
    pub unisons: Vec<StringPart>,
    /// The hammer that plays it (a piano's key), if it is struck rather than plucked: what a note
    /// and a score's `strike` use unless the score says otherwise.
    pub hammer: Option<KeyHammer>,
    /// What stops it when its note ends ([`crate::score::notes`]).
    pub damper: Damper,
}

/// What stops a string when its note ends, as a note map plays it ([`crate::score::notes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damper {
    /// The player's hand (a guitar's, a sitar's): a note off damps the string, the sustain
    /// pedal deferring it; the string's next note lifts the damp.
    Hand,
    /// A piano key's felt damper: the string rests damped; its key lifts the damper while held,
    /// and the sustain pedal lifts every damper, so that undamped strings ring in sympathy.
    Felt,
    /// None: the string rings until it dies (a piano's highest keys, which have no dampers).
    None,
}

/// How a finger or a plectrum plucks a string when a note plays it ([`crate::score::Pluck`]):
/// where, how long it pulls the string aside and how fast it lets go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plucker {
    /// Where, a fraction of the sounding length from the stop (the nut or the fret), 0 < p < 1.
    pub position: f64,
    /// How long the pull takes, s.
    pub pull: f64,
    /// How long the release takes, s: the shorter, the brighter.
    pub release: f64,
}

impl Plucker {
    /// A plectrum near the bridge, where a guitarist plucks: at 0.8 of the sounding length from
    /// the stop, pulled over 3 ms (a note sounds that much after its note on) and let go in
    /// 0.1 ms, the time a plectrum's edge takes to slip off a steel string.
    pub const PLECTRUM: Self = Self { position: 0.8, pull: 3e-3, release: 1e-4 };

    /// The checks ([`check_fields`]) of its fields, read from an instrument's fields `names`
    /// (position, pull, release).
    pub(crate) fn checks(&self, names: [&'static str; 3]) -> [(&'static str, f64, &'static str, Valid); 3] {
        [
            (names[0], self.position, "a fraction of the length, 0 < p < 1", |p| p > 0.0 && p < 1.0),
            (names[1], self.pull, "a time > 0 s and at most 1 s", |t| t > 0.0 && t <= 1.0),
            (names[2], self.release, "a time > 0 s and at most 1 s", |t| t > 0.0 && t <= 1.0),
        ]
    }
}

/// The hammer of a struck string or the mallet of a bar: Hertz's law `F = stiffness
/// delta^exponent` ([`crate::score::Hammer`]) and where it strikes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyHammer {
    /// Hammer mass, kg.
    pub mass: f64,
    /// Felt stiffness, N/m^exponent.
    pub stiffness: f64,
    /// Hertz exponent (>= 1).
    pub exponent: f64,
    /// Where it strikes, as a fraction of the length from the first anchor (a bar: its first end;
    /// a plate: the fraction of its width, [`PlatePart::strike`] giving both coordinates).
    pub position: f64,
}

impl KeyHammer {
    /// The checks ([`check_fields`]) of the head's mass, stiffness and exponent, read from an
    /// instrument's fields `names`.
    pub(crate) fn head_checks(
        &self,
        names: [&'static str; 3],
    ) -> [(&'static str, f64, &'static str, Valid); 3] {
        [
            (names[0], self.mass, "a mass > 0 kg", POSITIVE),
            (names[1], self.stiffness, "a stiffness > 0 N/m^exponent", POSITIVE),
            (names[2], self.exponent, "a Hertz exponent >= 1", |e| e.is_finite() && e >= 1.0),
        ]
    }
}

impl StringPart {
    /// The system node at position `p` along the string: 0 the nut anchor, `1..=N` the masses,
    /// `N + 1` the bridge anchor.
    pub fn node(&self, p: usize) -> usize {
        match p {
            0 => self.ends[0],
            p if p <= self.masses.len() => self.masses[p - 1],
            _ => self.ends[1],
        }
    }

    /// The mass nearest a fraction `position` of the string's length from the nut (0-based
    /// along the string).
    pub fn mass_at(&self, position: f64) -> usize {
        nearest_inner_node(0, self.masses.len() + 1, position) - 1
    }

    /// The string and the other strings of its course.
    pub fn course(&self) -> impl Iterator<Item = &StringPart> {
        std::iter::once(self).chain(&self.unisons)
    }
}

/// On a line of equally spaced nodes `first..=last` whose ends are fixed, the moving node
/// (strictly between them) nearest the fraction `fraction` of the way from `first` to `last`.
pub fn nearest_inner_node(first: usize, last: usize, fraction: f64) -> usize {
    let place = first as f64 + fraction * (last - first) as f64;
    (place.round() as usize).clamp(first + 1, last - 1)
}

/// A grid of `columns x rows` masses inside a fixed rim, row by row.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Masses along x.
    pub columns: usize,
    /// Masses along y.
    pub rows: usize,
    /// Model indices of the masses, `j * columns + i` for column `i`, row `j`.
    pub masses: Vec<usize>,
}

impl Grid {
    /// The mass nearest the point at fractions `(x, y)` of the width and height (model index).
    pub fn mass_at(&self, x: f64, y: f64) -> usize {
        let pick = |fraction: f64, count: usize| nearest_inner_node(0, count + 1, fraction) - 1;
        self.masses[pick(y, self.rows) * self.columns + pick(x, self.columns)]
    }
}

/// A membrane: a grid of masses and the links between them.
#[derive(Debug, Clone, PartialEq)]
pub struct MembranePart {
    /// Its masses.
    pub grid: Grid,
    /// Every link of the membrane as system node pairs, with its stiffness (N/m) and damping
    /// (N s/m) as built.
    pub links: Vec<([usize; 2], f64, f64)>,
}

/// A plate held on its rim, struck by a mallet.
#[derive(Debug, Clone, PartialEq)]
pub struct PlatePart {
    /// Its masses.
    pub grid: Grid,
    /// The designed (simulated) first mode, Hz.
    pub frequency_hz: f64,
    /// The mallet that plays it.
    pub mallet: KeyHammer,
    /// Where the mallet strikes, fractions `[x, y]` of the width and height.
    pub strike: [f64; 2],
}

/// A free bar: masses from one end to the other, no anchors.
#[derive(Debug, Clone, PartialEq)]
pub struct BarPart {
    /// Model indices of the masses, the centres of equal cells from the first end.
    pub masses: Vec<usize>,
    /// The designed (simulated) first mode, Hz.
    pub frequency_hz: f64,
    /// The mallet that plays it.
    pub mallet: KeyHammer,
}

impl BarPart {
    /// The mass whose cell holds the fraction `position` of the bar's length from its first
    /// end (0-based along the bar).
    pub fn mass_at(&self, position: f64) -> usize {
        let cells = self.masses.len();
        ((position * cells as f64).floor().max(0.0) as usize).min(cells - 1)
    }
}

/// One mass.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyPart {
    /// Its model index.
    pub mass: usize,
}

/// A model ready to play: parts, pickups, and the scheme and step it was built for.
#[derive(Debug, Clone)]
pub struct Instrument {
    /// What it is (`guitar`, `drum`, ...).
    pub kind: &'static str,
    /// The network.
    pub model: Model,
    /// The parts a score can address.
    pub parts: Vec<Part>,
    /// The output channels.
    pub pickups: Vec<PickupSpec>,
    /// The scheme it was built for.
    pub scheme: SchemeKind,
    /// The simulation step it was built for, s.
    pub dt: f64,
}

/// The instruments, with their parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum InstrumentSpec {
    /// A guitar (`[guitar]`).
    Guitar(guitar::GuitarSpec),
    /// A drum (`[drum]`).
    Drum(drum::DrumSpec),
    /// A reed (`[reed]`).
    Reed(reed::ReedSpec),
    /// A sitar-like string (`[sitar]`).
    Sitar(sitar::SitarSpec),
    /// An elastic pendulum (`[pendulum]`).
    Pendulum(pendulum::PendulumSpec),
    /// A piano-like instrument (`[piano]`).
    Piano(piano::PianoSpec),
    /// A marimba-like instrument (`[marimba]`).
    Marimba(marimba::MarimbaSpec),
    /// Bell plates (`[plates]`).
    Plates(plates::PlatesSpec),
    /// Church bells (`[bell]`).
    Bell(bell::BellSpec),
}

/// The largest oversampling [`InstrumentSpec::build_stable`] tries.
pub const MAX_OVERSAMPLE: usize = 16;

impl InstrumentSpec {
    /// The scheme an instrument runs with unless told otherwise: symplectic Euler, but the
    /// reed's stiff contact takes the energy-conserving scheme of Chatziioannou 2019.
    pub fn default_scheme(&self) -> SchemeKind {
        match self {
            InstrumentSpec::Reed(_) => SchemeKind::EnergyConserving,
            _ => SchemeKind::SymplecticEuler,
        }
    }

    /// Builds the instrument for `scheme` at step `dt` (s).
    pub fn build(&self, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
        match self {
            InstrumentSpec::Guitar(spec) => guitar::guitar(spec, scheme, dt),
            InstrumentSpec::Drum(spec) => drum::drum(spec, scheme, dt),
            InstrumentSpec::Reed(spec) => reed::reed(spec, scheme, dt),
            InstrumentSpec::Sitar(spec) => sitar::sitar(spec, scheme, dt),
            InstrumentSpec::Pendulum(spec) => pendulum::pendulum(spec, scheme, dt),
            InstrumentSpec::Piano(spec) => piano::piano(spec, scheme, dt),
            InstrumentSpec::Marimba(spec) => marimba::marimba(spec, scheme, dt),
            InstrumentSpec::Plates(spec) => plates::plates(spec, scheme, dt),
            InstrumentSpec::Bell(spec) => bell::bell(spec, scheme, dt),
        }
    }

    /// Builds the instrument with `scheme` simulating at `oversample` times `rate` (Hz), or,
    /// without an oversampling, at the smallest from 1 to [`MAX_OVERSAMPLE`] at which the
    /// analysis finds every mode stable and every design reachable
    /// ([`AnalysisError::StepTooLong`]: a stiff string's warping). Returns the oversampling used
    /// and the instrument. The rate is a whole number of Hz from 1 to [`MAX_OUTPUT_RATE`] and
    /// the oversampling from 1 to [`MAX_OVERSAMPLE`], whoever gives them (a file, a command line).
    pub fn build_stable(
        &self,
        scheme: SchemeKind,
        rate: f64,
        oversample: Option<usize>,
    ) -> Result<(usize, Instrument), InstrumentError> {
        if !((1.0..=MAX_OUTPUT_RATE).contains(&rate) && rate.fract() == 0.0) {
            let expected = format!("an output rate in whole Hz from 1 to {MAX_OUTPUT_RATE} (10 MHz)");
            return Err(ModelError::new("render", "rate", expected, rate).into());
        }
        if let Some(k) = oversample.filter(|k| !(1..=MAX_OVERSAMPLE).contains(k)) {
            let expected = format!("an oversampling from 1 to {MAX_OVERSAMPLE}");
            return Err(ModelError::new("render", "oversample", expected, k).into());
        }
        if let Some(k) = oversample {
            return Ok((k, self.build(scheme, 1.0 / (rate * k as f64))?));
        }
        let mut last = None;
        for k in 1..=MAX_OVERSAMPLE {
            match self.build(scheme, 1.0 / (rate * k as f64)) {
                Ok(instrument) => return Ok((k, instrument)),
                Err(
                    error @ (InstrumentError::Unstable { .. }
                    | InstrumentError::Analysis { source: AnalysisError::StepTooLong(_), .. }),
                ) => last = Some(error),
                Err(error) => return Err(error),
            }
        }
        Err(last.expect("at least one try"))
    }
}

impl Instrument {
    /// The system node index of the node with id `id` ([`Model::node_index`]).
    pub fn node_index(model: &Model, id: &str) -> Option<usize> {
        model.node(id).map(|node| model.node_index(node))
    }
}

/// The gains of part `index` of `count` on the output's channels: one channel, or two with the
/// parts panned from left (the first) to right (the last) at constant power over the middle
/// half of the field.
pub fn pan_gains(index: usize, count: usize, stereo: bool) -> Vec<f64> {
    if !stereo {
        return vec![1.0];
    }
    let pan = if count > 1 { index as f64 / (count - 1) as f64 } else { 0.5 };
    let angle = std::f64::consts::FRAC_PI_4 * (0.5 + pan);
    vec![angle.cos(), angle.sin()]
}

/// A MIDI note's name (`60` is `C4`).
pub fn note_name(note: u8) -> String {
    const NAMES: [&str; 12] = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];
    format!("{}{}", NAMES[usize::from(note % 12)], i32::from(note / 12) - 1)
}

/// The MIDI note of a frequency (Hz), 12-tone equal temperament with A4 = 440 Hz = note 69,
/// rounded to the nearest.
pub fn midi_note(frequency_hz: f64) -> i32 {
    (69.0 + 12.0 * (frequency_hz / 440.0).log2()).round() as i32
}

/// Middle C (C4) in equal temperament with A4 = 440 Hz, Hz: the pitch an instrument's scaled
/// parameters are given at.
pub const MIDDLE_C_HZ: f64 = 261.625_565_300_598_6;

/// A rule a parameter's value must follow.
pub(crate) type Valid = fn(f64) -> bool;

/// A finite value > 0.
pub(crate) const POSITIVE: Valid = |v| v.is_finite() && v > 0.0;

/// Checks each `(field, value, what is expected, rule)` of `instrument`'s parameters; the first
/// broken rule is the error.
pub(crate) fn check_fields(
    instrument: &str,
    checks: &[(&'static str, f64, &str, Valid)],
) -> Result<(), ModelError> {
    match checks.iter().find(|(_, value, _, valid)| !valid(*value)) {
        Some((field, value, expected, _)) => Err(ModelError::new(instrument, field, *expected, value)),
        None => Ok(()),
    }
}

/// The pitch of each of `instrument`'s `keys`, note names (`"C4"`) each given once, Hz.
pub(crate) fn key_pitches(instrument: &str, keys: &[String]) -> Result<Vec<f64>, ModelError> {
    if keys.is_empty() {
        return Err(ModelError::new(instrument, "keys", "at least one key", "none"));
    }
    keys.iter()
        .enumerate()
        .map(|(k, key)| {
            let Some(pitch) = guitar::note_frequency(key) else {
                let expected = "note names such as \"C4\", \"F#3\" or \"Bb5\"";
                return Err(ModelError::new(instrument, "keys", expected, format!("\"{key}\"")));
            };
            if keys[..k].contains(key) {
                return Err(ModelError::new(instrument, "keys", "each key once", format!("\"{key}\" twice")));
            }
            Ok(pitch)
        })
        .collect()
}

/// The pitch of each of `instrument`'s `keys` ([`key_pitches`]), or `tuning` where given: one
/// frequency for each key, Hz, as a fitted instrument's keys are tuned to a recording's.
pub(crate) fn tuned_pitches(
    instrument: &str,
    keys: &[String],
    tuning: Option<&[f64]>,
) -> Result<Vec<f64>, ModelError> {
    let pitches = key_pitches(instrument, keys)?;
    let Some(tuning) = tuning else { return Ok(pitches) };
    if tuning.len() != pitches.len() {
        let expected = format!("one frequency for each of the {} keys", pitches.len());
        return Err(ModelError::new(instrument, "tuning", expected, tuning.len()));
    }
    if let Some(bad) = tuning.iter().find(|hz| !(hz.is_finite() && **hz > 0.0)) {
        return Err(ModelError::new(instrument, "tuning", "frequencies > 0 Hz", bad));
    }
    Ok(tuning.to_vec())
}

/// Iterations a secant search allows.
const SECANT_ITERATIONS: usize = 40;

/// The root of `error` by the secant method started from `first` and `second`, once `|error|
/// < tolerance`; `None` when [`SECANT_ITERATIONS`] do not reach it.
fn secant<E>(
    first: f64,
    second: f64,
    tolerance: f64,
    mut error: impl FnMut(f64) -> Result<f64, E>,
) -> Result<Option<f64>, E> {
    let (mut previous, mut current) = ((first, error(first)?), (second, error(second)?));
    for _ in 0..SECANT_ITERATIONS {
        if current.1.abs() < tolerance {
            return Ok(Some(current.0));
        }
        let next = current.0 - current.1 * (current.0 - previous.0) / (current.1 - previous.1);
        (previous, current) = (current, (next, error(next)?));
    }
    Ok(None)
}

/// Checks that `system` is stable with `scheme` at step `dt` (the analysis: every discrete
/// pole inside the unit circle); `part` names it in the error.
pub fn check_stable(system: &System, scheme: SchemeKind, dt: f64, part: &str) -> Result<(), InstrumentError> {
    let failed = |source| InstrumentError::Analysis { part: part.to_string(), source };
    let modes = ModelModes::new(system, &AnalysisOptions::default()).map_err(failed)?;
    if modes.is_stable_at(system, scheme, dt).map_err(failed)? {
        return Ok(());
    }
    let analysis = modes.discretise(system, scheme, dt).map_err(failed)?;
    let Some(worst) = analysis.worst_mode() else {
        return Ok(());
    };
    let highest_hz = analysis.modes.iter().map(|m| m.mode.frequency_hz()).fold(0.0, f64::max);
    let needed_rate = analysis.largest_stable_step.lowest_rate();
    let hint = match scheme {
        SchemeKind::SymplecticEuler => format!(
            " (symplectic Euler keeps a mode only while omega h <= 2: every mode must stay under \
             rate / pi = {:.0} Hz)",
            1.0 / (dt * std::f64::consts::PI)
        ),
        _ => format!("; mode {} grows by |z| = {:.6} per step", worst.index, worst.discrete.modulus()),
    };
    Err(InstrumentError::Unstable {
        part: part.to_string(),
        scheme,
        rate: 1.0 / dt,
        highest_hz,
        needed_rate,
        hint,
    })
}
