//! The TOML instrument format (docs/score-format.md): one table naming the instrument
//! (`[guitar]`, `[piano]`, `[marimba]`, `[plates]`, `[bell]`, `[drum]`, `[reed]`, `[sitar]` or
//! `[pendulum]`) with its parameters, and an
//! optional `[render]` table (scheme, output rate, oversampling). An instrument is built for a
//! scheme and a simulation rate, so reading the file and building it are two steps; errors of
//! either name the file, line and column.
//!
//! `[piano]`, `[marimba]`, `[plates]`, `[bell]`, `[drum]`, `[reed]`, `[sitar]` and `[pendulum]` read the instruments' own spec types (every
//! field optional, defaulting to the spec's `Default`); `[guitar]` names its strings by pitch
//! (`tuning`, `names`) and may give one density or decay for all strings, so it has a reader
//! of its own that makes a [`GuitarSpec`].

use super::source::{read_source, Document, SourceError, Step};
use crate::instrument::bell::BellSpec;
use crate::instrument::drum::DrumSpec;
use crate::instrument::frets::FretMethod;
use crate::instrument::guitar::{note_frequency, GuitarSpec, OCTAVES};
use crate::instrument::marimba::MarimbaSpec;
use crate::instrument::pendulum::PendulumSpec;
use crate::instrument::piano::PianoSpec;
use crate::instrument::plates::PlatesSpec;
use crate::instrument::reed::ReedSpec;
use crate::instrument::sitar::SitarSpec;
use crate::instrument::{Instrument, InstrumentError, InstrumentSpec, MAX_OVERSAMPLE};
use crate::limits::MAX_OUTPUT_RATE;
use crate::model::BodyMode;
use crate::scheme::SchemeKind;
use crate::score::notes::{midi_note, note_name};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::Path;
use Step::{Index, Key};

/// An instrument file, read and checked, ready to build at a scheme and rate.
#[derive(Debug, Clone)]
pub struct InstrumentFile {
    /// What to build.
    pub spec: InstrumentSpec,
    /// `[render] scheme`, or the instrument's default.
    pub scheme: SchemeKind,
    /// `[render] rate`: the output rate, Hz (default 44100).
    pub rate: f64,
    /// `[render] oversample`: simulation steps per output sample; `None`: chosen by the analysis.
    pub oversample: Option<usize>,
    file: String,
    source: String,
    table: &'static str,
}

impl InstrumentFile {
    /// Builds the instrument with `scheme` simulating at `oversample` times `rate` (Hz).
    pub fn build(&self, scheme: SchemeKind, rate: f64, oversample: usize) -> Result<Instrument, SourceError> {
        self.build_stable(scheme, rate, Some(oversample)).map(|(_, instrument)| instrument)
    }

    /// Builds at the given oversampling, or, without one, at the smallest from 1 to
    /// [`MAX_OVERSAMPLE`] at which the analysis finds every mode stable
    /// ([`InstrumentSpec::build_stable`]). Returns the oversampling used and the instrument.
    pub fn build_stable(
        &self,
        scheme: SchemeKind,
        rate: f64,
        oversample: Option<usize>,
    ) -> Result<(usize, Instrument), SourceError> {
        self.spec.build_stable(scheme, rate, oversample).map_err(|error| self.locate(error))
    }

    /// Places a build error on the field it names (of `[render]` for a rate or an
    /// oversampling, which may also come from a command line), or on the instrument's table.
    fn locate(&self, error: InstrumentError) -> SourceError {
        let document = match Document::parse(&self.file, &self.source) {
            Ok(document) => document,
            Err(unparsable) => return unparsable,
        };
        let table = [Key(self.table)];
        let span = match &error {
            InstrumentError::Model(model) if model.subject == "render" => document
                .span(&[Key("render"), Key(model.field)])
                .or_else(|| document.span(&table))
                .unwrap_or(0..0),
            InstrumentError::Model(model) => document.field_span(&table, model.field),
            _ => document.span(&table).unwrap_or(0..0),
        };
        document.error_at(span, error.to_string())
    }
}

/// Reads the instrument file at `path`.
pub fn load(path: &Path) -> Result<InstrumentFile, SourceError> {
    let (file, source) = read_source(path, "instrument")?;
    parse(&source, &file)
}

/// Parses an instrument file; `file` names the source in errors.
pub fn parse(source: &str, file: &str) -> Result<InstrumentFile, SourceError> {
    let document = Document::parse(file, source)?;
    let tables: Tables = document.read()?;
    let given: Vec<&'static str> = [
        ("guitar", tables.guitar.is_some()),
        ("drum", tables.drum.is_some()),
        ("reed", tables.reed.is_some()),
        ("sitar", tables.sitar.is_some()),
        ("pendulum", tables.pendulum.is_some()),
        ("piano", tables.piano.is_some()),
        ("marimba", tables.marimba.is_some()),
        ("plates", tables.plates.is_some()),
        ("bell", tables.bell.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, given)| given.then_some(name))
    .collect();
    let table =
        match given[..] {
            [table] => table,
            [] => return Err(document.error_at(
                0..0,
                "expected one instrument table: [guitar], [piano], [marimba], [plates], [bell], [drum], [reed], [sitar] or [pendulum]; found none",
            )),
            [_, second, ..] => {
                return Err(document.error_at(
                    document.span(&[Key(second)]).unwrap_or(0..0),
                    format!("expected one instrument table; found a second, [{second}]"),
                ))
            }
        };
    let Tables { guitar, drum, reed, sitar, pendulum, piano, marimba, plates, bell, render } = tables;
    let spec = match (guitar, drum, reed, sitar, piano, marimba, plates, bell, pendulum) {
        (Some(guitar), ..) => InstrumentSpec::Guitar(guitar.spec(&document)?),
        (_, Some(drum), ..) => InstrumentSpec::Drum(drum),
        (_, _, Some(reed), ..) => InstrumentSpec::Reed(reed),
        (_, _, _, Some(sitar), ..) => InstrumentSpec::Sitar(sitar),
        (_, _, _, _, Some(piano), ..) => InstrumentSpec::Piano(piano),
        (_, _, _, _, _, Some(marimba), ..) => InstrumentSpec::Marimba(marimba),
        (_, _, _, _, _, _, Some(plates), ..) => InstrumentSpec::Plates(plates),
        (_, _, _, _, _, _, _, Some(bell), _) => InstrumentSpec::Bell(bell),
        (.., pendulum) => InstrumentSpec::Pendulum(pendulum.expect("one table")),
    };
    let render = render.unwrap_or_default();
    let at = |field: &str| document.span(&[Key("render"), Key(field)]).unwrap_or(0..0);
    let scheme = match &render.scheme {
        Some(name) => name.parse::<SchemeKind>().map_err(|e| {
            document.error_at(at("scheme"), format!("expected a scheme name ({e}); found \"{name}\""))
        })?,
        None => spec.default_scheme(),
    };
    let rate = match render.rate {
        Some(rate) if (1.0..=MAX_OUTPUT_RATE).contains(&rate) && rate.fract() == 0.0 => rate,
        Some(rate) => {
            return Err(document.error_at(
                at("rate"),
                format!(
                    "expected an output rate in whole Hz from 1 to {MAX_OUTPUT_RATE} (10 MHz); found {rate}"
                ),
            ))
        }
        None => 44_100.0,
    };
    let oversample = match render.oversample {
        Some(k) if (1..=MAX_OVERSAMPLE).contains(&k) => Some(k),
        Some(k) => {
            return Err(document.error_at(
                at("oversample"),
                format!("expected an oversampling from 1 to {MAX_OVERSAMPLE}; found {k}"),
            ))
        }
        None => None,
    };
    Ok(InstrumentFile {
        spec,
        scheme,
        rate,
        oversample,
        file: file.to_string(),
        source: source.to_string(),
        table,
    })
}

/// The tables of an instrument file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tables {
    guitar: Option<GuitarFields>,
    drum: Option<DrumSpec>,
    reed: Option<ReedSpec>,
    sitar: Option<SitarSpec>,
    pendulum: Option<PendulumSpec>,
    piano: Option<PianoSpec>,
    marimba: Option<MarimbaSpec>,
    plates: Option<PlatesSpec>,
    bell: Option<BellSpec>,
    render: Option<RenderFields>,
}

/// `[render]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RenderFields {
    scheme: Option<String>,
    rate: Option<f64>,
    oversample: Option<usize>,
}

/// A pitch: a note name (`"E2"`) or a frequency in Hz.
#[derive(Clone)]
enum Pitch {
    Name(String),
    Hz(f64),
}

/// A pitch is a string or a number; anything else is refused with both forms named.
impl<'de> Deserialize<'de> for Pitch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PitchVisitor;
        impl Visitor<'_> for PitchVisitor {
            type Value = Pitch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a note name such as \"E2\" or a frequency in Hz")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Pitch, E> {
                Ok(Pitch::Name(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Pitch, E> {
                Ok(Pitch::Hz(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Pitch, E> {
                Ok(Pitch::Hz(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Pitch, E> {
                Ok(Pitch::Hz(v as f64))
            }
        }
        deserializer.deserialize_any(PitchVisitor)
    }
}

/// One value for every string, or a list.
#[derive(Clone)]
enum PerString {
    One(f64),
    Each(Vec<f64>),
}

/// A number or an array of numbers; anything else is refused with both forms named.
impl<'de> Deserialize<'de> for PerString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PerStringVisitor;
        impl<'de> Visitor<'de> for PerStringVisitor {
            type Value = PerString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number (for every string) or an array of numbers (one per string)")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<PerString, E> {
                Ok(PerString::One(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PerString, E> {
                Ok(PerString::One(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<PerString, E> {
                Ok(PerString::One(v as f64))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PerString, A::Error> {
                let mut values = Vec::new();
                while let Some(value) = seq.next_element()? {
                    values.push(value);
                }
                Ok(PerString::Each(values))
            }
        }
        deserializer.deserialize_any(PerStringVisitor)
    }
}

impl PerString {
    fn values(self, count: usize) -> Vec<f64> {
        match self {
            PerString::One(value) => vec![value; count],
            PerString::Each(values) => values,
        }
    }
}

/// `[guitar]`: a [`GuitarSpec`] whose strings are named by pitch; every field optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuitarFields {
    masses: Option<usize>,
    tuning: Option<Vec<Pitch>>,
    names: Option<Vec<String>>,
    linear_density: Option<PerString>,
    decay: Option<PerString>,
    high_decay: Option<PerString>,
    high_frequency: Option<f64>,
    middle_decay: Option<PerString>,
    middle_frequency: Option<f64>,
    partial_decays: Option<Vec<Vec<f64>>>,
    inharmonicity: Option<PerString>,
    scale_length: Option<f64>,
    pluck_position: Option<f64>,
    pluck_pull: Option<f64>,
    pluck_release: Option<f64>,
    frets: Option<usize>,
    fret_method: Option<String>,
    pickups: Option<Vec<f64>>,
    stereo: Option<bool>,
    bridge: Option<bool>,
    body: Option<Vec<BodyMode>>,
}

impl GuitarFields {
    /// The guitar: the defaults of [`GuitarSpec`] where a field is not given (a new tuning
    /// resets every string's density and decay).
    fn spec(self, document: &Document<'_>) -> Result<GuitarSpec, SourceError> {
        let at = |path: &[Step<'_>], message: String| {
            document.error_at(document.span(&[&[Key("guitar")], path].concat()).unwrap_or(0..0), message)
        };
        let mut spec = GuitarSpec::default();
        if let Some(tuning) = self.tuning {
            spec.strings = Vec::with_capacity(tuning.len());
            for (i, pitch) in tuning.into_iter().enumerate() {
                spec.strings.push(match pitch {
                    Pitch::Name(name) => match note_frequency(&name) {
                        Some(hz) => (name, hz),
                        None => {
                            return Err(at(
                                &[Key("tuning"), Index(i)],
                                format!(
                                    "expected a note name such as \"E2\", \"C#4\" or \"Bb3\" (octaves {} to {}), \
                                     or a frequency in Hz; found \"{name}\"",
                                    OCTAVES.start(),
                                    OCTAVES.end()
                                ),
                            ))
                        }
                    },
                    Pitch::Hz(hz) => (format!("{hz}Hz"), hz),
                });
            }
            let count = spec.strings.len();
            spec.linear_density = vec![GuitarSpec::default().linear_density[0]; count];
            spec.decay = vec![3.0; count];
        }
        if let Some(names) = self.names {
            if names.len() != spec.strings.len() {
                return Err(at(
                    &[Key("names")],
                    format!("expected one name per string ({}); found {}", spec.strings.len(), names.len()),
                ));
            }
            for ((name, _), given) in spec.strings.iter_mut().zip(names) {
                *name = given;
            }
        }
        let count = spec.strings.len();
        spec.masses = self.masses.unwrap_or(spec.masses);
        spec.linear_density = self.linear_density.map_or(spec.linear_density, |v| v.values(count));
        spec.decay = self.decay.map_or(spec.decay, |v| v.values(count));
        // A point of the loss law: its time constants at its frequency.
        let without_decay = |frequency: &'static str, decay: &str| {
            let message = format!(
                "expected `{decay}` with `{frequency}` (the time constants at that frequency); found none"
            );
            at(&[Key(frequency)], message)
        };
        if self.high_frequency.is_some() && self.high_decay.is_none() {
            return Err(without_decay("high_frequency", "high_decay"));
        }
        spec.high_decay = self.high_decay.map(|v| v.values(count));
        spec.high_frequency = self.high_frequency.unwrap_or(spec.high_frequency);
        if self.middle_frequency.is_some() && self.middle_decay.is_none() {
            return Err(without_decay("middle_frequency", "middle_decay"));
        }
        spec.middle_decay = self.middle_decay.map(|v| v.values(count));
        spec.middle_frequency = self.middle_frequency.unwrap_or(spec.middle_frequency);
        spec.partial_decays = self.partial_decays;
        spec.inharmonicity = self.inharmonicity.map(|v| v.values(count));
        spec.scale_length = self.scale_length.unwrap_or(spec.scale_length);
        spec.frets = self.frets.unwrap_or(spec.frets);
        spec.pluck.position = self.pluck_position.unwrap_or(spec.pluck.position);
        spec.pluck.pull = self.pluck_pull.unwrap_or(spec.pluck.pull);
        spec.pluck.release = self.pluck_release.unwrap_or(spec.pluck.release);
        spec.pickups = self.pickups.unwrap_or(spec.pickups);
        spec.stereo = self.stereo.unwrap_or(spec.stereo);
        spec.bridge = self.bridge.unwrap_or(spec.bridge);
        spec.body = self.body;
        if let Some(method) = self.fret_method {
            spec.fret_method = match method.as_str() {
                "between" => FretMethod::Between,
                "nearest" => FretMethod::Nearest,
                other => {
                    return Err(at(
                        &[Key("fret_method")],
                        format!("expected \"between\" or \"nearest\"; found \"{other}\""),
                    ))
                }
            };
        }
        Ok(spec)
    }
}

/// The instrument file of a guitar without a body (`[guitar]`, and `[render]` with `scheme` and
/// `rate`), every number written so that it reads back exactly, after the comment lines
/// `comment` (each line prefixed with `# `). What `hooke fit` writes.
pub fn guitar_toml(spec: &GuitarSpec, scheme: SchemeKind, rate: f64, comment: &str) -> String {
    let list =
        |values: &mut dyn Iterator<Item = String>| format!("[{}]", values.collect::<Vec<_>>().join(", "));
    let numbers = |values: &[f64]| list(&mut values.iter().map(|v| format!("{v:?}")));
    let mut text = commented(comment);
    text.push_str("\n[guitar]\n");
    text.push_str(&format!("masses = {}\n", spec.masses));
    text.push_str(&format!("tuning = {}\n", list(&mut spec.strings.iter().map(|(_, hz)| format!("{hz:?}")))));
    text.push_str(&format!(
        "names = {}\n",
        list(&mut spec.strings.iter().map(|(name, _)| format!("{name:?}")))
    ));
    text.push_str(&format!("linear_density = {}\n", numbers(&spec.linear_density)));
    text.push_str(&format!("decay = {}\n", numbers(&spec.decay)));
    if let Some(high) = &spec.high_decay {
        text.push_str(&format!(
            "high_decay = {}\nhigh_frequency = {:?}\n",
            numbers(high),
            spec.high_frequency
        ));
    }
    if let Some(middle) = &spec.middle_decay {
        text.push_str(&format!(
            "middle_decay = {}\nmiddle_frequency = {:?}\n",
            numbers(middle),
            spec.middle_frequency
        ));
    }
    if let Some(partials) = &spec.partial_decays {
        text.push_str(&format!("partial_decays = {}\n", list(&mut partials.iter().map(|p| numbers(p)))));
    }
    if let Some(b) = &spec.inharmonicity {
        text.push_str(&format!("inharmonicity = {}\n", numbers(b)));
    }
    text.push_str(&format!(
        "scale_length = {:?}\npluck_position = {:?}\npluck_pull = {:?}\npluck_release = {:?}\nfrets = {}\npickups = {}\nstereo = {}\nbridge = {}\n",
        spec.scale_length,
        spec.pluck.position,
        spec.pluck.pull,
        spec.pluck.release,
        spec.frets,
        numbers(&spec.pickups),
        spec.stereo,
        spec.bridge
    ));
    text.push_str(&render_table(scheme, rate));
    text
}

/// Names for strings of fundamentals `fundamentals_hz`: each the nearest equal-tempered note
/// (`"E2"`), with `-k` after a name an earlier string (the `k`-th, 1-based) already took.
pub fn fitted_names(fundamentals_hz: &[f64]) -> Vec<String> {
    let notes: Vec<i32> = fundamentals_hz.iter().map(|hz| midi_note(*hz).clamp(0, 127)).collect();
    notes
        .iter()
        .enumerate()
        .map(|(i, note)| {
            let name = note_name(*note as u8);
            if notes[..i].contains(note) {
                format!("{name}-{}", i + 1)
            } else {
                name
            }
        })
        .collect()
}

/// The instrument file of a marimba (`[marimba]` with the fields a fit sets, and `[render]`),
/// after the comment lines `comment`. What `hooke fit --as bar` writes.
pub fn marimba_toml(spec: &MarimbaSpec, scheme: SchemeKind, rate: f64, comment: &str) -> String {
    let mut text = commented(comment);
    text.push_str(&keys_lines("marimba", &spec.keys, spec.tuning.as_deref()));
    text.push_str(&format!(
        "masses = {}\nratio = {:?}\ndecay = {:?}\nhigh_decay = {:?}\nstereo = {}\n",
        spec.masses, spec.ratio, spec.decay, spec.high_decay, spec.stereo
    ));
    text.push_str(&render_table(scheme, rate));
    text
}

/// The instrument file of a bell (`[bell]` with the fields a fit sets, and `[render]`), after the
/// comment lines `comment`. What `hooke fit --as bell` writes.
pub fn bell_toml(spec: &BellSpec, scheme: SchemeKind, rate: f64, comment: &str) -> String {
    let mut text = commented(comment);
    text.push_str(&keys_lines("bell", &spec.keys, spec.tuning.as_deref()));
    text.push_str(
        "partials = [  # ratio to the strike note; time constant (s) and effective mass (kg) at C4\n",
    );
    for p in &spec.partials {
        text.push_str(&format!(
            "  {{ ratio = {:?}, decay = {:?}, mass = {:?} }},\n",
            p.ratio, p.decay, p.mass
        ));
    }
    text.push_str(&format!(
        "]\nclapper_mass = {:?}\nclapper_stiffness = {:?}\nclapper_exponent = {:?}\nstereo = {}\n",
        spec.clapper_mass, spec.clapper_stiffness, spec.clapper_exponent, spec.stereo
    ));
    text.push_str(&render_table(scheme, rate));
    text
}

/// The instrument file of bell plates (`[plates]` with the fields a fit sets, and `[render]`),
/// after the comment lines `comment`. What `hooke fit --as plate` writes.
pub fn plates_toml(spec: &PlatesSpec, scheme: SchemeKind, rate: f64, comment: &str) -> String {
    let mut text = commented(comment);
    text.push_str(&keys_lines("plates", &spec.keys, spec.tuning.as_deref()));
    text.push_str(&format!(
        "columns = {}\nrows = {}\ndecay = {:?}\nhigh_decay = {:?}\nhigh_frequency = {:?}\nstereo = {}\n",
        spec.columns, spec.rows, spec.decay, spec.high_decay, spec.high_frequency, spec.stereo
    ));
    text.push_str(&render_table(scheme, rate));
    text
}

/// The table header `[table]`, after a blank line, with its `keys` and, where given, their
/// `tuning`.
fn keys_lines(table: &str, keys: &[String], tuning: Option<&[f64]>) -> String {
    let keys: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    let mut text = format!("\n[{table}]\nkeys = [{}]\n", keys.join(", "));
    if let Some(tuning) = tuning {
        let hz: Vec<String> = tuning.iter().map(|f| format!("{f:?}")).collect();
        text.push_str(&format!("tuning = [{}]\n", hz.join(", ")));
    }
    text
}

/// `comment`'s lines as TOML comment lines.
fn commented(comment: &str) -> String {
    comment
        .lines()
        .map(|line| if line.is_empty() { "#\n".to_string() } else { format!("# {line}\n") })
        .collect()
}

/// The `[render]` table of `scheme` at `rate` Hz, after a blank line.
fn render_table(scheme: SchemeKind, rate: f64) -> String {
    format!("\n[render]\nscheme = \"{}\"\nrate = {rate:?}\n", scheme.name())
}
