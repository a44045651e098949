//! The guitar of the closing section of Morgan & Qiao 2009: six strings of 80 masses each, each
//! designed (section 4.3, Algorithms 1-4 through [`design_string`]) for the scheme and simulation
//! rate it will run at, so that its *simulated* fundamental and decay are the targets.

use super::body::{add_body, body_pickups, tune_on_body};
use super::frets::FretMethod;
use super::{
    check_fields, check_stable, pan_gains, Damper, Instrument, InstrumentError, Part, PartKind, Plucker,
    StringPart,
};
use crate::analysis::design::{design_string, StringDesign, TuneTarget};
use crate::analysis::string_partials::{design_string_measured, LossLaw, PartialsTarget};
use crate::engine::PickupSpec;
use crate::limits::MAX_NODES;
use crate::model::{BodyMode, Model, ModelError, Node, StringSpec};
use crate::scheme::SchemeKind;
use crate::system::System;

/// A guitar to build. Strings are listed from the lowest to the highest.
#[derive(Debug, Clone, PartialEq)]
pub struct GuitarSpec {
    /// Masses per string.
    pub masses: usize,
    /// Each string's own count of masses, overriding `masses` (one per string: a piano's
    /// strings, each sized to its partials). `None`: `masses` for every string.
    pub string_masses: Option<Vec<usize>>,
    /// Each string's name (what a score calls it) and open pitch, Hz.
    pub strings: Vec<(String, f64)>,
    /// Each string's linear density, kg/m (one per string).
    pub linear_density: Vec<f64>,
    /// Each string's time constant (decay of the fundamental to 1/e), s (one per string).
    pub decay: Vec<f64>,
    /// Each string's time constant at [`GuitarSpec::high_frequency`], s (one per string): the
    /// partials then decay by the two-point law `1/tau = sigma_0 + sigma_1 f^2`
    /// ([`crate::analysis::string_partials`]), drag and dampers together. `None`: dampers alone,
    /// every partial decaying `(f / f_0)^2` times faster than the fundamental.
    pub high_decay: Option<Vec<f64>>,
    /// The frequency of `high_decay`, Hz.
    pub high_frequency: f64,
    /// Each string's time constant at [`GuitarSpec::middle_frequency`], s (one per string, with
    /// `high_decay`): the partials then decay by the three-term law
    /// `1/tau = sigma_0 + sigma_f f + sigma_1 f^2` through the three points, each string damped mode by mode
    /// ([`crate::analysis::string_partials::LossLaw`], `model::ModeDamping`). `None`: the
    /// two-point law.
    pub middle_decay: Option<Vec<f64>>,
    /// The frequency of `middle_decay`, Hz (between each fundamental and `high_frequency`).
    pub middle_frequency: f64,
    /// Each string's time constants of its partials `1 ..= K`, s, one by one (what `hooke fit`
    /// measured; with `high_decay`, the law giving the others): the string is then damped mode
    /// by mode ([`crate::analysis::string_partials::design_string_measured`]). `None`: the law
    /// alone.
    pub partial_decays: Option<Vec<Vec<f64>>>,
    /// Each string's inharmonicity B (one per string, with `high_decay`): stiff strings whose
    /// first partials, simulated, follow `f_n = n f_0 sqrt(1 + B n^2)`
    /// ([`crate::analysis::string_partials`]). `None`: strings without stiffness.
    pub inharmonicity: Option<Vec<f64>>,
    /// Vibrating length from nut to bridge, m (sets the mass of each mass with the density).
    pub scale_length: f64,
    /// Frets on the fingerboard.
    pub frets: usize,
    /// How a fret stops a string.
    pub fret_method: FretMethod,
    /// How a MIDI note plucks a string ([`crate::score::notes`]): `[guitar] pluck_position`,
    /// `pluck_pull` and `pluck_release`.
    pub pluck: Plucker,
    /// Pickup positions as fractions of the length from the nut (0 < p < 1); the output sums the
    /// masses nearest them, equally weighted.
    pub pickups: Vec<f64>,
    /// Two channels, the strings panned from left (lowest) to right (highest) at constant power;
    /// otherwise one channel.
    pub stereo: bool,
    /// Listen to the force each string exerts on the bridge (N) instead of the displacement at
    /// `pickups`: what drives a guitar's body, partial `n` weighted about `n` times more than
    /// by a displacement pickup. With a [`GuitarSpec::body`]: the acceleration of the body's
    /// bridge (m/s^2), to which the body's radiated pressure is proportional.
    pub bridge: bool,
    /// The body the strings end on: its modes at the bridge ([`crate::model::BodySpec`], masses
    /// `body.1` to `body.K`, `body.1` the bridge), so that the strings drive the body and each
    /// other. `None`: each string ends on a fixed bridge anchor. Each open string's tension is
    /// tuned on the body ([`tune_on_body`]), and so is each fret's stop ([`super::frets`]).
    pub body: Option<Vec<BodyMode>>,
    /// The courses, in order: how many consecutive strings form each (a piano key's two or
    /// three), tuned on the body together ([`tune_on_body`]); empty: each string alone (the
    /// guitar's).
    pub courses: Vec<usize>,
}

/// Standard tuning E2 A2 D3 G3 B3 E4 (12-tone equal temperament, A4 = 440 Hz).
pub const STANDARD_TUNING: [&str; 6] = ["E2", "A2", "D3", "G3", "B3", "E4"];

/// Linear densities of a common light-gauge set (0.010-0.046 in, D'Addario's published unit
/// weights), kg/m, lowest string first.
pub const STANDARD_DENSITIES: [f64; 6] = [6.4e-3, 3.6e-3, 1.9e-3, 1.1e-3, 7.0e-4, 4.0e-4];

impl Default for GuitarSpec {
    /// The guitar of Morgan & Qiao 2009: 80 masses a string, standard tuning, decays from 4 s (E2)
    /// to 2.5 s (E4), a 648 mm scale, 20 frets, the fret stop placed between masses, one pickup at
    /// 0.9 of the length (near the bridge), stereo.
    fn default() -> Self {
        Self {
            masses: 80,
            string_masses: None,
            strings: STANDARD_TUNING
                .iter()
                .map(|name| (name.to_string(), note_frequency(name).expect("a note name")))
                .collect(),
            linear_density: STANDARD_DENSITIES.to_vec(),
            decay: vec![4.0, 3.7, 3.4, 3.1, 2.8, 2.5],
            high_decay: None,
            high_frequency: 2000.0,
            middle_decay: None,
            middle_frequency: 600.0,
            partial_decays: None,
            inharmonicity: None,
            scale_length: 0.648,
            frets: 20,
            fret_method: FretMethod::Between,
            pluck: Plucker::PLECTRUM,
            pickups: vec![0.9],
            stereo: true,
            bridge: false,
            body: None,
            courses: Vec::new(),
        }
    }
}

impl GuitarSpec {
    /// The size of each course, in order (one string each without `courses`).
    pub fn course_sizes(&self) -> Vec<usize> {
        if self.courses.is_empty() {
            vec![1; self.strings.len()]
        } else {
            self.courses.clone()
        }
    }

    /// The masses of string `s`.
    pub fn masses_of(&self, s: usize) -> usize {
        self.string_masses.as_ref().map_or(self.masses, |each| each[s])
    }
}

/// The octaves a note name may give: -1 to 10 (C-1 = 8.18 Hz, the lowest MIDI note, to B10 =
/// 31.6 kHz, above hearing).
pub const OCTAVES: std::ops::RangeInclusive<i32> = -1..=10;

/// The frequency of a note name in 12-tone equal temperament with A4 = 440 Hz: a letter A-G,
/// optional `#` or `b`, an octave number in [`OCTAVES`] (`E2` = 82.41 Hz, `C#4`, `Bb3`).
pub fn note_frequency(name: &str) -> Option<f64> {
    let mut chars = name.chars();
    let semitone = match chars.next()?.to_ascii_uppercase() {
        'C' => -9,
        'D' => -7,
        'E' => -5,
        'F' => -4,
        'G' => -2,
        'A' => 0,
        'B' => 2,
        _ => return None,
    };
    let rest = chars.as_str();
    let (accidental, octave) = match rest.chars().next()? {
        '#' => (1, &rest[1..]),
        'b' => (-1, &rest[1..]),
        _ => (0, rest),
    };
    let digits = octave.strip_prefix('-').unwrap_or(octave);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || digits.len() > 2 {
        return None;
    }
    let octave: i32 = octave.parse().ok().filter(|o| OCTAVES.contains(o))?;
    let from_a4 = semitone + accidental + 12 * (octave - 4);
    Some(440.0 * 2f64.powf(from_a4 as f64 / 12.0))
}

/// Builds the guitar for `scheme` at step `dt` (s): each string designed so that its lowest
/// mode, simulated, has the string's pitch and decay, and checked stable by the analysis.
pub fn guitar(spec: &GuitarSpec, scheme: SchemeKind, dt: f64) -> Result<Instrument, InstrumentError> {
    check_spec(spec)?;
    let mut model = Model::new(1)?;
    let body = add_body(&mut model, spec.body.as_ref())?;
    let bridge = body.as_ref().map(|body| body.bridge);
    let mut designs = Vec::with_capacity(spec.strings.len());
    let mut specs = Vec::with_capacity(spec.strings.len());
    for (s, (name, frequency_hz)) in spec.strings.iter().enumerate() {
        let masses = spec.masses_of(s);
        let mass = spec.linear_density[s] * spec.scale_length / (masses + 1) as f64;
        let design = match &spec.high_decay {
            None => {
                let target = TuneTarget { frequency_hz: *frequency_hz, time_constant: Some(spec.decay[s]) };
                design_string(masses, mass, target, scheme, dt)
            }
            Some(high) => {
                let (low, high) = ((*frequency_hz, spec.decay[s]), (spec.high_frequency, high[s]));
                match &spec.middle_decay {
                    None => LossLaw::through(low.0, low.1, high.0, high.1),
                    Some(middle) => LossLaw::through_three(low, (spec.middle_frequency, middle[s]), high),
                }
            }
            .and_then(|law| {
                let target = PartialsTarget {
                    fundamental_hz: *frequency_hz,
                    inharmonicity: spec.inharmonicity.as_ref().map_or(0.0, |b| b[s]),
                    loss: Some(law),
                };
                let measured = spec.partial_decays.as_ref().map_or(&[][..], |p| &p[s][..]);
                design_string_measured(masses, mass, &target, measured, scheme, dt)
            }),
        }
        .map_err(|source| InstrumentError::Analysis { part: format!("string {name}"), source })?;
        check_stable(&System::new(&design.model), scheme, dt, &format!("string {name}"))?;
        specs.push(StringSpec::new(name, masses).mass(mass));
        designs.push(design);
    }
    if let Some(body) = &body {
        let mut first = 0;
        for size in spec.course_sizes() {
            let (course, designs) = (&specs[first..first + size], &mut designs[first..first + size]);
            first += size;
            let strings: Vec<(StringSpec, &StringDesign)> =
                course.iter().cloned().zip(designs.iter()).collect();
            let tension = tune_on_body(&strings, body)?;
            for design in designs {
                design.stiffness *= tension;
                design.bending *= tension;
            }
        }
    }
    for (string, design) in specs.into_iter().zip(&designs) {
        let string = string
            .stiffness(design.stiffness)
            .damping(design.damping)
            .drag(design.drag)
            .bending(design.bending)
            .mode_damping(design.mode_damping.clone());
        model.add_string(match bridge {
            Some(bridge) => string.to(bridge),
            None => string,
        })?;
    }
    let node = |id: String| Instrument::node_index(&model, &id).expect("the string generator's ids");
    let end = |name: &str, n: usize| match bridge {
        Some(bridge) => model.node_index(bridge),
        None => node(format!("{name}.{}", n + 1)),
    };
    let parts: Vec<Part> = spec
        .strings
        .iter()
        .zip(&designs)
        .enumerate()
        .map(|(s, ((name, frequency_hz), design))| Part {
            name: name.clone(),
            kind: PartKind::String(StringPart {
                masses: (1..=spec.masses_of(s)).map(|i| node(format!("{name}.{i}"))).collect(),
                ends: [node(format!("{name}.0")), end(name, spec.masses_of(s))],
                mass: design.mass,
                stiffness: design.stiffness,
                damping: design.damping,
                drag: design.drag,
                bending: design.bending,
                mode_damping: design.mode_damping.clone(),
                frequency_hz: *frequency_hz,
                time_constant: Some(spec.decay[s]),
                frets: spec.frets,
                fret_method: spec.fret_method,
                plucker: spec.pluck,
                body: body.clone(),
                unisons: Vec::new(),
                hammer: None,
                damper: Damper::Hand,
            }),
        })
        .collect();
    let pickups = match (spec.bridge, bridge) {
        (true, Some(bridge)) => body_pickups(&model, bridge, spec.stereo),
        (true, None) => bridge_pickups(&parts, spec.stereo),
        (false, _) => string_pickups(&parts, &spec.pickups, spec.stereo),
    };
    Ok(Instrument { kind: "guitar", model, parts, pickups, scheme, dt })
}

/// Pickups at fractions `positions` of every string part's length, equally weighted; with
/// `stereo`, two channels with the strings panned from left (first) to right (last) at
/// constant power over the middle half of the field.
pub fn string_pickups(parts: &[Part], positions: &[f64], stereo: bool) -> Vec<PickupSpec> {
    let mut pickups = Vec::new();
    for (string, gains) in panned_strings(parts, stereo) {
        for &position in positions {
            let mass = string.masses[string.mass_at(position)];
            for (channel, gain) in gains.iter().enumerate() {
                let weight = gain / positions.len() as f64;
                pickups.push(PickupSpec::position(Node::Mass(mass)).channel(channel + 1).weight(weight));
            }
        }
    }
    pickups
}

/// Pickups of the force each string part exerts on the bridge anchor, N, panned as
/// [`string_pickups`] pans: `k (x_N - x_b) + Z (v_N - v_b)` for a last link of stiffness `k` and
/// damping `Z` from the last mass `N` to the fixed bridge `b` at 0, that is `k x_N + Z v_N`, and
/// for a stiff string the reaction of the bending element centred at `N`,
/// `-kappa (x_{N-1} - 2 x_N + x_b)` (see [`crate::model::Bending`]). The weights are the elements
/// as built: a `set tension` or `set damping` later scales the force without changing them.
pub fn bridge_pickups(parts: &[Part], stereo: bool) -> Vec<PickupSpec> {
    let mut pickups = Vec::new();
    for (string, gains) in panned_strings(parts, stereo) {
        let n = string.masses.len();
        let last = Node::Mass(string.masses[n - 1]);
        for (channel, gain) in gains.iter().enumerate() {
            let channel = channel + 1;
            let stiffness = string.stiffness + 2.0 * string.bending;
            pickups.push(PickupSpec::position(last).channel(channel).weight(gain * stiffness));
            if string.damping > 0.0 {
                pickups.push(PickupSpec::velocity(last).channel(channel).weight(gain * string.damping));
            }
            if string.bending > 0.0 && n > 1 {
                let before = Node::Mass(string.masses[n - 2]);
                pickups.push(PickupSpec::position(before).channel(channel).weight(-gain * string.bending));
            }
        }
    }
    pickups
}

/// Every string part with its channel gains ([`pan_gains`]).
fn panned_strings(parts: &[Part], stereo: bool) -> Vec<(&StringPart, Vec<f64>)> {
    let strings: Vec<&StringPart> = parts
        .iter()
        .filter_map(|p| match &p.kind {
            PartKind::String(s) => Some(s),
            _ => None,
        })
        .collect();
    let count = strings.len();
    strings.into_iter().enumerate().map(|(s, string)| (string, pan_gains(s, count, stereo))).collect()
}

fn check_spec(spec: &GuitarSpec) -> Result<(), ModelError> {
    let count = spec.strings.len();
    let check_count = |field: &'static str, len: usize| {
        if len == count {
            Ok(())
        } else {
            Err(ModelError::new(
                "guitar",
                field,
                format!("one value per string ({count})"),
                format!("{len} values"),
            ))
        }
    };
    if count == 0 {
        return Err(ModelError::new("guitar", "tuning", "at least one string", "none"));
    }
    let in_courses = spec.courses.iter().try_fold(0usize, |sum, &n| sum.checked_add(n));
    if spec.courses.contains(&0) || !(spec.courses.is_empty() || in_courses == Some(count)) {
        let expected = format!("courses of at least one string, {count} strings in all");
        return Err(ModelError::new("guitar", "courses", expected, format!("{:?}", spec.courses)));
    }
    if let Some(each) = &spec.string_masses {
        check_count("masses", each.len())?;
    }
    check_count("linear_density", spec.linear_density.len())?;
    check_count("decay", spec.decay.len())?;
    // A point of the loss law: a time constant per string at a frequency.
    let check_point = |field: &'static str, values: &[f64], at: &'static str, frequency: f64| {
        check_count(field, values.len())?;
        if let Some(bad) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            return Err(ModelError::new("guitar", field, "values > 0", bad));
        }
        if !(frequency.is_finite() && frequency > 0.0) {
            return Err(ModelError::new("guitar", at, "a frequency > 0 Hz", frequency));
        }
        Ok(())
    };
    if let Some(high) = &spec.high_decay {
        check_point("high_decay", high, "high_frequency", spec.high_frequency)?;
    }
    if let Some(middle) = &spec.middle_decay {
        if spec.high_decay.is_none() {
            return Err(ModelError::new("guitar", "middle_decay", "`high_decay` with it", "none"));
        }
        check_point("middle_decay", middle, "middle_frequency", spec.middle_frequency)?;
    }
    if let Some(partials) = &spec.partial_decays {
        if spec.high_decay.is_none() {
            return Err(ModelError::new("guitar", "partial_decays", "`high_decay` with it", "none"));
        }
        check_count("partial_decays", partials.len())?;
        for (s, list) in partials.iter().enumerate() {
            if list.len() > spec.masses_of(s) {
                let expected = format!("at most one time constant per mass ({})", spec.masses_of(s));
                return Err(ModelError::new("guitar", "partial_decays", expected, list.len()));
            }
            if let Some(bad) = list.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
                return Err(ModelError::new("guitar", "partial_decays", "values > 0", bad));
            }
        }
    }
    if let Some(inharmonicity) = &spec.inharmonicity {
        check_count("inharmonicity", inharmonicity.len())?;
        if spec.high_decay.is_none() {
            return Err(ModelError::new(
                "guitar",
                "inharmonicity",
                "`high_decay` too (a stiff string is designed for two decay times)",
                "none",
            ));
        }
        if let Some(bad) = inharmonicity.iter().find(|b| !(b.is_finite() && **b >= 0.0)) {
            return Err(ModelError::new("guitar", "inharmonicity", "values >= 0", bad));
        }
    }
    if let Some(few) = (0..count).map(|s| spec.masses_of(s)).find(|&n| n < 2) {
        return Err(ModelError::new("guitar", "masses", "at least 2 masses per string", few));
    }
    let nodes = (0..count).try_fold(0usize, |sum, s| spec.masses_of(s).checked_add(2)?.checked_add(sum));
    if nodes.is_none_or(|n| n > MAX_NODES) {
        let found = match &spec.string_masses {
            None => format!("{} masses on each of {count} strings", spec.masses),
            Some(each) => {
                format!("{} masses on {count} strings", each.iter().fold(0usize, |a, &n| a.saturating_add(n)))
            }
        };
        return Err(ModelError::new(
            "guitar",
            "masses",
            format!("at most {MAX_NODES} nodes in all (the masses and 2 anchors of each string)"),
            found,
        ));
    }
    for (name, frequency) in &spec.strings {
        if !(frequency.is_finite() && *frequency > 0.0) {
            return Err(ModelError::new(
                format!("guitar string {name}"),
                "tuning",
                "a pitch > 0 Hz",
                frequency,
            ));
        }
        if spec.strings.iter().filter(|(other, _)| other == name).count() > 1 {
            return Err(ModelError::new(
                "guitar",
                "names",
                "a different name for each string",
                format!("\"{name}\" twice"),
            ));
        }
    }
    for (field, values) in [("linear_density", &spec.linear_density), ("decay", &spec.decay)] {
        if let Some(bad) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            return Err(ModelError::new("guitar", field, "values > 0", bad));
        }
    }
    if !(spec.scale_length.is_finite() && spec.scale_length > 0.0) {
        return Err(ModelError::new("guitar", "scale_length", "a length > 0 m", spec.scale_length));
    }
    if let Some(bad) = spec.pickups.iter().find(|p| !(**p > 0.0 && **p < 1.0)) {
        return Err(ModelError::new("guitar", "pickups", "positions strictly between 0 and 1", bad));
    }
    check_fields("guitar", &spec.pluck.checks(["pluck_position", "pluck_pull", "pluck_release"]))?;
    if spec.pickups.is_empty() {
        return Err(ModelError::new("guitar", "pickups", "at least one pickup position", "none"));
    }
    Ok(())
}
