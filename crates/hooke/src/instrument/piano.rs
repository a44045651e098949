//! A piano-like instrument: one course of two or three stiff strings to a key, slightly detuned,
//! all ending on the bridge of one soundboard and struck by a felt hammer.
//!
//! Each string is designed as the guitar's stiff strings are (its simulated fundamental, its
//! inharmonicity `B` and the two-point loss law, [`crate::analysis::string_partials`]) and tuned
//! on the soundboard ([`guitar`]'s body). The strings of a course share the bridge, so they
//! exchange energy through it: struck together, the course's in-phase motion drives the bridge
//! and dies fast (the prompt sound), and the detuning turns it, over seconds, into a motion the
//! bridge hardly feels (the aftersound): the two-stage decay and beats of Weinreich 1977. A
//! hammer striking the `n` strings of a course is played as `n` hammers of `1/n` of its mass
//! ([`super::StringPart::unisons`]), the same blow when the strings are alike. The output is
//! the acceleration of the bridge, which the soundboard radiates.

use super::frets::FretMethod;
use super::guitar::{guitar, note_frequency, GuitarSpec};
use super::{
    check_fields, key_pitches, midi_note, note_name, Damper, Instrument, InstrumentError, KeyHammer, Part,
    PartKind, Plucker, StringPart, Valid, MIDDLE_C_HZ, POSITIVE,
};
use crate::analysis::error::AnalysisError;
use crate::analysis::string_partials::LossLaw;
use crate::model::{BodyMode, ModelError, MAX_BODY_MODES};
use crate::scheme::SchemeKind;
use serde::Deserialize;

/// The most strings a course may have.
pub const MAX_COURSE: usize = 3;

/// A piano to build. Without a `scale`, every key has `strings_per_key` strings of one linear
/// density and tension whose speaking length goes as `1/f` from `length` at C4, so that their
/// inharmonicity goes as `f^2` (`B = pi^3 E d^4 / (64 T L^2)`, Fletcher & Rossing 1998,
/// eq. (2.62)) from `inharmonicity` at C4. With a `scale`, each key takes its strings, length,
/// density, inharmonicity and hammer from the scale's points ([`ScalePoint`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PianoSpec {
    /// The keys, as note names (`"C4"`) or chromatic ranges of them (`"A0-C8"`): one course
    /// each, and the name a score gives the part.
    pub keys: Vec<String>,
    /// Strings per key, 1 to [`MAX_COURSE`] (without a `scale`).
    pub strings_per_key: usize,
    /// The spread of a course's tuning, cents from its lowest string to its highest (spaced
    /// evenly about the key's pitch).
    pub detune: f64,
    /// Masses per string; with `top_frequency`, the most a string has.
    pub masses: usize,
    /// Hz: each string gets as many masses as it has partials up to this frequency
    /// (`n f_0 sqrt(1 + B n^2) <= top_frequency`, at least 2, at most `masses`), so that its
    /// modes reach it and go little beyond. `None`: `masses` for every string.
    pub top_frequency: Option<f64>,
    /// Speaking length at C4, m (without a `scale`).
    pub length: f64,
    /// Linear density of every string, kg/m (without a `scale`).
    pub linear_density: f64,
    /// Inharmonicity `B` at C4 (without a `scale`).
    pub inharmonicity: f64,
    /// The string scale, points from the lowest key up; empty: the simple scale above.
    pub scale: Vec<ScalePoint>,
    /// Each string's own time constant at its fundamental (decay to 1/e on a rigid bridge), s
    /// (without a `scale`).
    pub decay: f64,
    /// Each string's own time constant at `high_frequency`, s.
    pub high_decay: f64,
    /// The frequency of `high_decay`, Hz.
    pub high_frequency: f64,
    /// Damp each string mode by mode, every partial on the loss law (the model format's
    /// `mode_damping`, as the guitar's `partial_decays`), rather than by dampers and drag,
    /// which meet it at two points only and cannot give a steep law on a string of few masses
    /// (a treble string's).
    pub mode_damping: bool,
    /// Hammer mass, kg (without a `scale`).
    pub hammer_mass: f64,
    /// Felt stiffness, N/m^felt_exponent (without a `scale`).
    pub felt_stiffness: f64,
    /// Hertz exponent of the felt (>= 1; about 2.5).
    pub felt_exponent: f64,
    /// Where the hammer strikes, as a fraction of the length from the end away from the bridge
    /// (the agraffe).
    pub strike_position: f64,
    /// The lowest key without a damper (`"F#6"`): it and the keys above ring on after their
    /// notes end. `None`: every key has one. A key's damper rests on its strings: its note lifts it
    /// and the sustain pedal lifts them all ([`super::Damper::Felt`]).
    pub undamped_from: Option<String>,
    /// The soundboard's modes at the bridge ([`crate::model::BodySpec`]).
    pub soundboard: Vec<BodyMode>,
    /// A smoothed soundboard instead of `soundboard`'s modes ([`smoothed_soundboard`]).
    pub board: Option<BoardLaw>,
}

/// One point of a piano's string scale: the values at `key`. Between two points each value goes
/// geometrically with the key (a straight line on a log scale against the note number); below the
/// first point and above the last the end points' values hold. A key has the `strings` of the
/// point at or below it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalePoint {
    /// The key, a note name.
    pub key: String,
    /// Strings a key, 1 to [`MAX_COURSE`], from this key up to the next point.
    pub strings: usize,
    /// Speaking length, m.
    pub length: f64,
    /// Linear density, kg/m (a wound string's, winding included).
    pub linear_density: f64,
    /// Inharmonicity `B`.
    pub inharmonicity: f64,
    /// The strings' own time constant at their fundamental, s (`decay`'s, key by key).
    pub decay: f64,
    /// Hammer mass, kg.
    pub hammer_mass: f64,
    /// Felt stiffness, N/m^felt_exponent.
    pub felt_stiffness: f64,
}

/// A smoothed soundboard ([`smoothed_soundboard`]): `modes` modes spaced evenly on a log scale
/// from `lowest` to `highest`, Hz.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardLaw {
    /// The lowest mode, Hz.
    pub lowest: f64,
    /// The highest mode, Hz.
    pub highest: f64,
    /// How many modes (2 to [`MAX_BODY_MODES`], a body's most).
    pub modes: usize,
}

impl Default for PianoSpec {
    /// An octave of white keys from C4 to C5, three strings a key spread over 3 cents, 40 masses a
    /// string; 1 mm steel wire (6.17 g/m) 0.62 m long at C4 with B = 3.8e-4 (at 652 N); own
    /// decays 4 s at the fundamental and 0.3 s at 3 kHz; an 8 g hammer with a felt of 1e9
    /// N/m^2.5 striking at 1/8 of the length; the [`soundboard`] below; every key damped.
    fn default() -> Self {
        Self {
            keys: ["C4", "D4", "E4", "F4", "G4", "A4", "B4", "C5"].map(String::from).to_vec(),
            strings_per_key: 3,
            detune: 3.0,
            masses: 40,
            top_frequency: None,
            length: 0.62,
            linear_density: 6.17e-3,
            inharmonicity: 3.8e-4,
            scale: Vec::new(),
            decay: 4.0,
            high_decay: 0.3,
            high_frequency: 3000.0,
            mode_damping: false,
            hammer_mass: 8e-3,
            felt_stiffness: 1e9,
            felt_exponent: 2.5,
            strike_position: 0.125,
            undamped_from: None,
            soundboard: soundboard(),
            board: None,
        }
    }
}

/// A smoothed soundboard: 16 modes spaced a ratio of 1.257 apart from 90 Hz to 2.8 kHz
/// ([`smoothed_soundboard`]).
pub fn soundboard() -> Vec<BodyMode> {
    smoothed_soundboard(BoardLaw { lowest: 90.0, highest: 2800.0, modes: 16 })
}

/// A smoothed soundboard: `law.modes` modes spaced evenly on a log scale from `law.lowest` to
/// `law.highest`, with effective masses falling as `1/f` so that the bridge's mean
/// conductance, `1 / (4 m df)` for modes of mass `m` spaced `df` (the area under one mode's
/// conductance is `1 / (4 m)` in Hz), is 1e-3 s/kg, the order of a piano soundboard's
/// (Fletcher & Rossing 1998, ch. 12); decay rates `20 + 1e-4 f^2` 1/s (Q = pi f / rate from 11
/// at 90 Hz to 35 at 2.8 kHz), a law the body's drags and dampers can give. Illustrative, not
/// measured.
pub fn smoothed_soundboard(law: BoardLaw) -> Vec<BodyMode> {
    const CONDUCTANCE: f64 = 1e-3;
    let steps = law.modes.max(2) - 1;
    let ratio = (law.highest / law.lowest).powf(1.0 / steps as f64);
    (0..=steps)
        .map(|k| {
            let frequency = law.lowest * ratio.powi(k as i32);
            let spacing = frequency * (ratio - 1.0);
            let decay_rate = 20.0 + 1e-4 * frequency * frequency;
            BodyMode::new(frequency, 1.0 / decay_rate, 1.0 / (4.0 * CONDUCTANCE * spacing))
        })
        .collect()
}

/// One key as the scale makes it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct KeyScale {
    strings: usize,
    /// Speaking length, m.
    length: f64,
    /// Linear density, kg/m.
    density: f64,
    inharmonicity: f64,
    /// Own time constant at the fundamental, s.
    decay: f64,
    hammer: KeyHammer,
}

/// Expands `keys`' ranges (`"A0-C8"`, chromatic, both ends included) into note names, sharps
/// for the black keys.
fn expand_keys(keys: &[String]) -> Result<Vec<String>, ModelError> {
    let note = |name: &str| note_frequency(name.trim()).map(midi_note).filter(|n| (0..=127).contains(n));
    let mut names = Vec::new();
    for entry in keys {
        // A note name with octave -1 (`"C-1"`) has a dash too: a range is two note names.
        let range = entry.split_once('-').and_then(|(low, high)| Some((note(low)?, note(high)?)));
        match range {
            None => names.push(entry.clone()),
            Some((low, high)) if low <= high => names.extend((low..=high).map(|n| note_name(n as u8))),
            Some(_) => {
                let expected = "note names or ranges of them from low to high, such as \"A0-C8\"";
                return Err(ModelError::new("piano", "keys", expected, format!("\"{entry}\"")));
            }
        }
    }
    Ok(names)
}

impl PianoSpec {
    /// Each key's scale, for keys of pitches `pitches` (Hz).
    fn key_scales(&self, pitches: &[f64]) -> Result<Vec<KeyScale>, ModelError> {
        let hammer = |mass, stiffness| KeyHammer {
            mass,
            stiffness,
            exponent: self.felt_exponent,
            position: self.strike_position,
        };
        if self.scale.is_empty() {
            return Ok(pitches
                .iter()
                .map(|&pitch| {
                    let scale = pitch / MIDDLE_C_HZ;
                    KeyScale {
                        strings: self.strings_per_key,
                        length: self.length / scale,
                        density: self.linear_density,
                        inharmonicity: self.inharmonicity * scale * scale,
                        decay: self.decay,
                        hammer: hammer(self.hammer_mass, self.felt_stiffness),
                    }
                })
                .collect());
        }
        let mut points = Vec::with_capacity(self.scale.len());
        for point in &self.scale {
            let bad = |expected: &str, found: String| ModelError::new("piano", "scale", expected, found);
            let Some(note) = note_frequency(&point.key).map(midi_note) else {
                return Err(bad("points at note names such as \"A0\"", format!("\"{}\"", point.key)));
            };
            if points.last().is_some_and(|&(last, _)| note <= last) {
                return Err(bad(
                    "points from the lowest key up, each key once",
                    format!("\"{}\"", point.key),
                ));
            }
            if !(1..=MAX_COURSE).contains(&point.strings) {
                return Err(bad("1 to 3 strings a key", format!("{} at {}", point.strings, point.key)));
            }
            let values = [
                point.length,
                point.linear_density,
                point.inharmonicity,
                point.decay,
                point.hammer_mass,
                point.felt_stiffness,
            ];
            if let Some(v) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
                return Err(bad(
                    "lengths, densities, inharmonicities, decays, hammer masses and felt stiffnesses > 0",
                    format!("{v} at {}", point.key),
                ));
            }
            points.push((note, point));
        }
        Ok(pitches
            .iter()
            .map(|&pitch| {
                let note = midi_note(pitch);
                let above = points.iter().position(|&(n, _)| n > note).unwrap_or(points.len());
                let (low, high) = (points[above.saturating_sub(1)], points[above.min(points.len() - 1)]);
                let t = if high.0 > low.0 {
                    f64::from((note - low.0).clamp(0, high.0 - low.0)) / f64::from(high.0 - low.0)
                } else {
                    0.0
                };
                let between = |a: f64, b: f64| a * (b / a).powf(t);
                let (a, b) = (low.1, high.1);
                KeyScale {
                    strings: a.strings,
                    length: between(a.length, b.length),
                    density: between(a.linear_density, b.linear_density),
                    inharmonicity: between(a.inharmonicity, b.inharmonicity),
                    decay: between(a.decay, b.decay),
                    hammer: hammer(
                        between(a.hammer_mass, b.hammer_mass),
                        between(a.felt_stiffness, b.felt_stiffness),
                    ),
                }
            })
            .collect())
    }

    /// The masses of a string of fundamental `frequency` (Hz) and inharmonicity `b`: its
    /// partials up to `top_frequency`, from 2 to `masses`; `masses` without a top.
    fn string_masses(&self, frequency: f64, b: f64) -> usize {
        let Some(top) = self.top_frequency else {
            return self.masses;
        };
        let partial = |n: usize| n as f64 * frequency * (1.0 + b * (n * n) as f64).sqrt();
        let below = (1..=self.masses).take_while(|&n| partial(n) <= top).count();
        below.clamp(2, self.masses.max(2))
    }
}

/// Builds the piano for `scheme` at step `dt` (s).
pub fn piano(spec: &PianoSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    let bad = |field: &'static str, expected: &str, found: String| {
        InstrumentError::from(ModelError::new("piano", field, expected, found))
    };
    if spec.scale.is_empty() && !(1..=MAX_COURSE).contains(&spec.strings_per_key) {
        return Err(bad("strings_per_key", "1 to 3 strings a key", spec.strings_per_key.to_string()));
    }
    if spec.masses < 2 {
        return Err(bad("masses", "at least 2 masses per string", spec.masses.to_string()));
    }
    let non_negative: Valid = |v| v.is_finite() && v >= 0.0;
    let head = KeyHammer {
        mass: spec.hammer_mass,
        stiffness: spec.felt_stiffness,
        exponent: spec.felt_exponent,
        position: spec.strike_position,
    };
    check_fields("piano", &head.head_checks(["hammer_mass", "felt_stiffness", "felt_exponent"]))?;
    check_fields(
        "piano",
        &[
            ("detune", spec.detune, "a spread >= 0 cents", non_negative),
            ("length", spec.length, "a length > 0 m", POSITIVE),
            ("linear_density", spec.linear_density, "a density > 0 kg/m", POSITIVE),
            ("inharmonicity", spec.inharmonicity, "an inharmonicity B >= 0", non_negative),
            ("top_frequency", spec.top_frequency.unwrap_or(1.0), "a frequency > 0 Hz", POSITIVE),
            ("strike_position", spec.strike_position, "a fraction strictly between 0 and 1", |p| {
                p > 0.0 && p < 1.0
            }),
        ],
    )?;
    let soundboard = match spec.board {
        None => spec.soundboard.clone(),
        Some(law) => {
            let valid = |f: f64| f.is_finite() && f > 0.0;
            let modes = (2..=MAX_BODY_MODES).contains(&law.modes);
            if !(valid(law.lowest) && law.highest > law.lowest && valid(law.highest) && modes) {
                let expected = format!("lowest > 0 Hz below highest, and 2 to {MAX_BODY_MODES} modes");
                return Err(bad("board", &expected, format!("{law:?}")));
            }
            smoothed_soundboard(law)
        }
    };
    let keys = expand_keys(&spec.keys)?;
    let pitches = key_pitches("piano", &keys)?;
    let scales = spec.key_scales(&pitches)?;
    let undamped_from = match &spec.undamped_from {
        None => None,
        Some(key) => match note_frequency(key) {
            Some(pitch) => Some(midi_note(pitch)),
            None => return Err(bad("undamped_from", "a note name such as \"F#6\"", format!("\"{key}\""))),
        },
    };
    let mut strings = Vec::new();
    let (mut density, mut inharmonicity, mut masses, mut decay) = (vec![], vec![], vec![], vec![]);
    for ((key, &pitch), scale) in keys.iter().zip(&pitches).zip(&scales) {
        let course = scale.strings;
        for j in 0..course {
            let cents = if course > 1 { spec.detune * (j as f64 / (course - 1) as f64 - 0.5) } else { 0.0 };
            let name = if j == 0 { key.clone() } else { format!("{key}_{}", j + 1) };
            strings.push((name, pitch * 2f64.powf(cents / 1200.0)));
            // The guitar takes one scale length: each string's mass comes in its density.
            density.push(scale.density * scale.length);
            inharmonicity.push(scale.inharmonicity);
            decay.push(scale.decay);
            masses.push(spec.string_masses(pitch, scale.inharmonicity));
        }
    }
    let count = strings.len();
    // Every partial's time constant on the two-point law: the strings damped mode by mode.
    let partial_decays = if spec.mode_damping {
        let on_law = |s: usize| {
            let (pitch, b) = (strings[s].1, inharmonicity[s]);
            let law = LossLaw::through(pitch, decay[s], spec.high_frequency, spec.high_decay)?
                .on_stiff_string(pitch, b)?;
            let partial = |n: f64| n * pitch * (1.0 + b * n * n).sqrt();
            Ok((1..=masses[s]).map(|n| 1.0 / law.rate(partial(n as f64))).collect())
        };
        let decays: Result<Vec<Vec<f64>>, AnalysisError> = (0..count).map(on_law).collect();
        Some(decays.map_err(|source| InstrumentError::Analysis { part: "piano".into(), source })?)
    } else {
        None
    };
    let strung = GuitarSpec {
        masses: spec.masses,
        string_masses: Some(masses),
        strings,
        linear_density: density,
        decay,
        high_decay: Some(vec![spec.high_decay; count]),
        high_frequency: spec.high_frequency,
        middle_decay: None,
        middle_frequency: GuitarSpec::default().middle_frequency,
        partial_decays,
        inharmonicity: Some(inharmonicity),
        scale_length: 1.0,
        frets: 0,
        fret_method: FretMethod::Between,
        pluck: Plucker::PLECTRUM, // not played: the keys are struck
        pickups: vec![0.5],       // not heard: with a body, `bridge` hears the bridge's acceleration
        stereo: false,
        bridge: true,
        body: Some(soundboard),
        courses: scales.iter().map(|scale| scale.strings).collect(),
    };
    // The guitar's fields, as the piano names them.
    let relabel = |error: InstrumentError| match error {
        InstrumentError::Model(error) => {
            let (subject, field) = match error.field {
                "body" => (error.subject.replacen("body \"body\"", "piano soundboard", 1), "soundboard"),
                "masses" | "decay" | "high_decay" | "high_frequency" | "linear_density" | "inharmonicity" => {
                    ("piano".to_string(), error.field)
                }
                _ => ("piano".to_string(), "keys"),
            };
            InstrumentError::Model(ModelError { subject, field, ..error })
        }
        other => other,
    };
    let strung = guitar(&strung, scheme, dt).map_err(relabel)?;
    let mut strung_parts = strung.parts.into_iter();
    let parts = keys
        .iter()
        .zip(&pitches)
        .zip(&scales)
        .map(|((key, &pitch), scale)| {
            let damper = match undamped_from {
                Some(from) if midi_note(pitch) >= from => Damper::None,
                _ => Damper::Felt,
            };
            let mut strings = strung_parts.by_ref().take(scale.strings).map(|part| match part.kind {
                PartKind::String(string) => StringPart { damper, ..string },
                _ => unreachable!("the guitar has only strings"),
            });
            let mut first = strings.next().expect("a course has a string");
            first.unisons = strings.collect();
            first.hammer = Some(scale.hammer);
            Part { name: key.clone(), kind: PartKind::String(first) }
        })
        .collect();
    Ok(Instrument { kind: "piano", model: strung.model, parts, pickups: strung.pickups, scheme, dt })
}
