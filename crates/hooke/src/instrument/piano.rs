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
use super::guitar::{guitar, GuitarSpec};
use super::{
    check_fields, key_pitches, Instrument, InstrumentError, KeyHammer, Part, PartKind, Plucker, Valid,
    MIDDLE_C_HZ, POSITIVE,
};
use crate::model::{BodyMode, ModelError};
use crate::scheme::SchemeKind;
use serde::Deserialize;

/// The most strings a course may have.
pub const MAX_COURSE: usize = 3;

/// A piano to build. The strings' speaking length goes as `1/f` from `length` at C4, at one
/// linear density and tension for every key; their inharmonicity then goes as `f^2`
/// (`B = pi^3 E d^4 / (64 T L^2)`, Fletcher & Rossing 1998, eq. (2.62)), from `inharmonicity`
/// at C4. Real pianos shorten and thicken the bass strings; this scale is the simple one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PianoSpec {
    /// The keys, as note names (`"C4"`): one course each, and the name a score gives the part.
    pub keys: Vec<String>,
    /// Strings per key, 1 to [`MAX_COURSE`].
    pub strings_per_key: usize,
    /// The spread of a course's tuning, cents from its lowest string to its highest (spaced
    /// evenly about the key's pitch).
    pub detune: f64,
    /// Masses per string.
    pub masses: usize,
    /// Speaking length at C4, m.
    pub length: f64,
    /// Linear density of every string, kg/m.
    pub linear_density: f64,
    /// Inharmonicity `B` at C4.
    pub inharmonicity: f64,
    /// Each string's own time constant at its fundamental (decay to 1/e on a rigid bridge), s.
    pub decay: f64,
    /// Each string's own time constant at `high_frequency`, s.
    pub high_decay: f64,
    /// The frequency of `high_decay`, Hz.
    pub high_frequency: f64,
    /// Hammer mass, kg.
    pub hammer_mass: f64,
    /// Felt stiffness, N/m^felt_exponent.
    pub felt_stiffness: f64,
    /// Hertz exponent of the felt (>= 1; about 2.5).
    pub felt_exponent: f64,
    /// Where the hammer strikes, as a fraction of the length from the end away from the bridge
    /// (the agraffe).
    pub strike_position: f64,
    /// The soundboard's modes at the bridge ([`crate::model::BodySpec`]).
    pub soundboard: Vec<BodyMode>,
}

impl Default for PianoSpec {
    /// An octave of white keys from C4 to C5, three strings a key spread over 3 cents, 40 masses a
    /// string; 1 mm steel wire (6.17 g/m) 0.62 m long at C4 with B = 3.8e-4 (at 652 N); own
    /// decays 4 s at the fundamental and 0.3 s at 3 kHz; an 8 g hammer with a felt of 1e9
    /// N/m^2.5 striking at 1/8 of the length; the [`soundboard`] below.
    fn default() -> Self {
        Self {
            keys: ["C4", "D4", "E4", "F4", "G4", "A4", "B4", "C5"].map(String::from).to_vec(),
            strings_per_key: 3,
            detune: 3.0,
            masses: 40,
            length: 0.62,
            linear_density: 6.17e-3,
            inharmonicity: 3.8e-4,
            decay: 4.0,
            high_decay: 0.3,
            high_frequency: 3000.0,
            hammer_mass: 8e-3,
            felt_stiffness: 1e9,
            felt_exponent: 2.5,
            strike_position: 0.125,
            soundboard: soundboard(),
        }
    }
}

/// A smoothed soundboard: 16 modes spaced a ratio of 1.257 apart from 90 Hz to 2.8 kHz, with
/// effective masses falling as `1/f` so that the bridge's mean conductance, `1 / (4 m df)` for
/// modes of mass `m` spaced `df` (the area under one mode's conductance is `1 / (4 m)` in Hz),
/// is 1e-3 s/kg, the order of a piano soundboard's (Fletcher & Rossing 1998, ch. 12); decay
/// rates `20 + 1e-4 f^2` 1/s (Q = pi f / rate from 11 to 35), a law the body's drags and dampers can give.
/// Illustrative, not measured.
pub fn soundboard() -> Vec<BodyMode> {
    const LOWEST_HZ: f64 = 90.0;
    const HIGHEST_HZ: f64 = 2800.0;
    const MODES: i32 = 16;
    const CONDUCTANCE: f64 = 1e-3;
    let ratio = (HIGHEST_HZ / LOWEST_HZ).powf(1.0 / f64::from(MODES - 1));
    (0..MODES)
        .map(|k| {
            let frequency = LOWEST_HZ * ratio.powi(k);
            let spacing = frequency * (ratio - 1.0);
            let decay_rate = 20.0 + 1e-4 * frequency * frequency;
            BodyMode::new(frequency, 1.0 / decay_rate, 1.0 / (4.0 * CONDUCTANCE * spacing))
        })
        .collect()
}

/// Builds the piano for `scheme` at step `dt` (s).
pub fn piano(spec: &PianoSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    let course = spec.strings_per_key;
    let bad = |field: &'static str, expected: &str, found: String| {
        InstrumentError::from(ModelError::new("piano", field, expected, found))
    };
    if !(1..=MAX_COURSE).contains(&course) {
        return Err(bad("strings_per_key", "1 to 3 strings a key", course.to_string()));
    }
    let non_negative: Valid = |v| v.is_finite() && v >= 0.0;
    let hammer = KeyHammer {
        mass: spec.hammer_mass,
        stiffness: spec.felt_stiffness,
        exponent: spec.felt_exponent,
        position: spec.strike_position,
    };
    check_fields("piano", &hammer.head_checks(["hammer_mass", "felt_stiffness", "felt_exponent"]))?;
    check_fields(
        "piano",
        &[
            ("detune", spec.detune, "a spread >= 0 cents", non_negative),
            ("length", spec.length, "a length > 0 m", POSITIVE),
            ("linear_density", spec.linear_density, "a density > 0 kg/m", POSITIVE),
            ("inharmonicity", spec.inharmonicity, "an inharmonicity B >= 0", non_negative),
            ("strike_position", spec.strike_position, "a fraction strictly between 0 and 1", |p| {
                p > 0.0 && p < 1.0
            }),
        ],
    )?;
    let pitches = key_pitches("piano", &spec.keys)?;
    let mut strings = Vec::with_capacity(spec.keys.len() * course);
    let (mut density, mut inharmonicity) = (Vec::new(), Vec::new());
    for (key, &pitch) in spec.keys.iter().zip(&pitches) {
        let scale = pitch / MIDDLE_C_HZ;
        for j in 0..course {
            let cents = if course > 1 { spec.detune * (j as f64 / (course - 1) as f64 - 0.5) } else { 0.0 };
            let name = if j == 0 { key.clone() } else { format!("{key}_{}", j + 1) };
            strings.push((name, pitch * 2f64.powf(cents / 1200.0)));
            // The guitar takes one scale length: each string's mass comes in its density.
            density.push(spec.linear_density * spec.length / scale);
            inharmonicity.push(spec.inharmonicity * scale * scale);
        }
    }
    let count = strings.len();
    let strung = GuitarSpec {
        masses: spec.masses,
        strings,
        linear_density: density,
        decay: vec![spec.decay; count],
        high_decay: Some(vec![spec.high_decay; count]),
        high_frequency: spec.high_frequency,
        middle_decay: None,
        middle_frequency: GuitarSpec::default().middle_frequency,
        partial_decays: None,
        inharmonicity: Some(inharmonicity),
        scale_length: 1.0,
        frets: 0,
        fret_method: FretMethod::Between,
        pluck: Plucker::PLECTRUM, // not played: the keys are struck
        pickups: vec![0.5],       // not heard: with a body, `bridge` hears the bridge's acceleration
        stereo: false,
        bridge: true,
        body: Some(spec.soundboard.clone()),
        strings_per_course: course,
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
    let parts = spec
        .keys
        .iter()
        .map(|key| {
            let mut strings = strung_parts.by_ref().take(course).map(|part| match part.kind {
                PartKind::String(string) => string,
                _ => unreachable!("the guitar has only strings"),
            });
            let mut first = strings.next().expect("a course has a string");
            first.unisons = strings.collect();
            first.hammer = Some(hammer);
            Part { name: key.clone(), kind: PartKind::String(first) }
        })
        .collect();
    Ok(Instrument { kind: "piano", model: strung.model, parts, pickups: strung.pickups, scheme, dt })
}
