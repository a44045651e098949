//! The TOML instrument format (docs/score-format.md): one table naming the instrument
//! (`[guitar]`, `[drum]`, `[reed]`, `[sitar]` or `[pendulum]`) with its parameters, and an
//! optional `[render]` table (scheme, output rate, oversampling). An instrument is built for a
//! scheme and a simulation rate, so reading the file and building it are two steps; errors of
//! either name the file, line and column.

use super::drum::{drum, DrumSpec};
use super::frets::FretMethod;
use super::guitar::{guitar, note_frequency, GuitarSpec};
use super::pendulum::{pendulum, PendulumSpec};
use super::reed::{reed, ReedSpec};
use super::sitar::{sitar, SitarSpec};
use super::{Instrument, InstrumentError};
use crate::model::SourceError;
use crate::scheme::SchemeKind;
use serde::Deserialize;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

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
    spans: Vec<(&'static str, Range<usize>)>,
    table: Range<usize>,
}

/// The instruments, with their parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum InstrumentSpec {
    /// `[guitar]`.
    Guitar(GuitarSpec),
    /// `[drum]`.
    Drum(DrumSpec),
    /// `[reed]`.
    Reed(ReedSpec),
    /// `[sitar]`.
    Sitar(SitarSpec),
    /// `[pendulum]`.
    Pendulum(PendulumSpec),
}

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
            InstrumentSpec::Guitar(spec) => guitar(spec, scheme, dt),
            InstrumentSpec::Drum(spec) => drum(spec, scheme, dt),
            InstrumentSpec::Reed(spec) => reed(spec, scheme, dt),
            InstrumentSpec::Sitar(spec) => sitar(spec, scheme, dt),
            InstrumentSpec::Pendulum(spec) => pendulum(spec, scheme, dt),
        }
    }
}

/// The largest oversampling [`InstrumentFile::build_stable`] tries.
pub const MAX_OVERSAMPLE: usize = 16;

impl InstrumentFile {
    /// Builds the instrument with `scheme` simulating at `oversample` times `rate` (Hz).
    pub fn build(&self, scheme: SchemeKind, rate: f64, oversample: usize) -> Result<Instrument, SourceError> {
        self.spec.build(scheme, 1.0 / (rate * oversample as f64)).map_err(|error| self.locate(error))
    }

    /// Builds at the given oversampling, or, without one, at the smallest from 1 to
    /// [`MAX_OVERSAMPLE`] at which the analysis finds every mode stable. Returns the
    /// oversampling used and the instrument.
    pub fn build_stable(
        &self,
        scheme: SchemeKind,
        rate: f64,
        oversample: Option<usize>,
    ) -> Result<(usize, Instrument), SourceError> {
        if let Some(k) = oversample {
            return Ok((k, self.build(scheme, rate, k)?));
        }
        let mut last = None;
        for k in 1..=MAX_OVERSAMPLE {
            match self.spec.build(scheme, 1.0 / (rate * k as f64)) {
                Ok(instrument) => return Ok((k, instrument)),
                Err(error @ InstrumentError::Unstable { .. }) => last = Some(error),
                Err(error) => return Err(self.locate(error)),
            }
        }
        Err(self.locate(last.expect("at least one try")))
    }

    /// Places a build error on the field it names, or on the instrument's table.
    fn locate(&self, error: InstrumentError) -> SourceError {
        let span = match &error {
            InstrumentError::Model(model) => {
                self.spans.iter().find(|(name, _)| *name == model.field).map(|(_, span)| span.clone())
            }
            _ => None,
        };
        SourceError::at(
            &self.file,
            &self.source,
            span.unwrap_or_else(|| self.table.clone()),
            error.to_string(),
        )
    }
}

/// Reads the instrument file at `path`.
pub fn load(path: &Path) -> Result<InstrumentFile, SourceError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path)
        .map_err(|e| SourceError::at(&file, "", 0..0, format!("cannot read the instrument file: {e}")))?;
    parse(&source, &file)
}

/// Parses an instrument file; `file` names the source in errors.
pub fn parse(source: &str, file: &str) -> Result<InstrumentFile, SourceError> {
    let at = |span: Range<usize>, message: String| SourceError::at(file, source, span, message);
    let raw: RawFile = toml::from_str(source)
        .map_err(|e| at(e.span().unwrap_or(0..0), e.message().trim_end().to_string()))?;
    let tables: Vec<(&str, Range<usize>)> = [
        ("guitar", raw.guitar.as_ref().map(Spanned::span)),
        ("drum", raw.drum.as_ref().map(Spanned::span)),
        ("reed", raw.reed.as_ref().map(Spanned::span)),
        ("sitar", raw.sitar.as_ref().map(Spanned::span)),
        ("pendulum", raw.pendulum.as_ref().map(Spanned::span)),
    ]
    .into_iter()
    .filter_map(|(name, span)| span.map(|s| (name, s)))
    .collect();
    let table =
        match &tables[..] {
            [(_, span)] => span.clone(),
            [] => return Err(at(
                0..0,
                "expected one instrument table: [guitar], [drum], [reed], [sitar] or [pendulum]; found none"
                    .into(),
            )),
            [_, (second, span), ..] => {
                return Err(at(
                    span.clone(),
                    format!("expected one instrument table; found a second, [{second}]"),
                ))
            }
        };
    let (spec, spans) = if let Some(g) = &raw.guitar {
        g.get_ref().spec().map_err(|(span, message)| at(span, message))?
    } else if let Some(d) = &raw.drum {
        d.get_ref().spec()
    } else if let Some(r) = &raw.reed {
        r.get_ref().spec()
    } else if let Some(s) = &raw.sitar {
        s.get_ref().spec()
    } else {
        raw.pendulum.as_ref().expect("one table").get_ref().spec()
    };
    let render = raw.render.as_ref().map(Spanned::get_ref);
    let scheme = match render.and_then(|r| r.scheme.as_ref()) {
        Some(name) => name.get_ref().parse::<SchemeKind>().map_err(|e| {
            at(name.span(), format!("expected a scheme name ({e}); found \"{}\"", name.get_ref()))
        })?,
        None => spec.default_scheme(),
    };
    let rate = match render.and_then(|r| r.rate.as_ref()) {
        Some(rate)
            if rate.get_ref().is_finite() && *rate.get_ref() >= 1.0 && rate.get_ref().fract() == 0.0 =>
        {
            *rate.get_ref()
        }
        Some(rate) => {
            return Err(at(
                rate.span(),
                format!("expected an output rate in whole Hz (>= 1); found {}", rate.get_ref()),
            ))
        }
        None => 44_100.0,
    };
    let oversample = match render.and_then(|r| r.oversample.as_ref()) {
        Some(k) if (1..=MAX_OVERSAMPLE).contains(k.get_ref()) => Some(*k.get_ref()),
        Some(k) => {
            return Err(at(
                k.span(),
                format!("expected an oversampling from 1 to {MAX_OVERSAMPLE}; found {}", k.get_ref()),
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
        spans,
        table,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    guitar: Option<Spanned<RawGuitar>>,
    drum: Option<Spanned<RawDrum>>,
    reed: Option<Spanned<RawReed>>,
    sitar: Option<Spanned<RawSitar>>,
    pendulum: Option<Spanned<RawPendulum>>,
    render: Option<Spanned<RawRender>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRender {
    scheme: Option<Spanned<String>>,
    rate: Option<Spanned<f64>>,
    oversample: Option<Spanned<usize>>,
}

/// A pitch: a note name (`"E2"`) or a frequency in Hz.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Pitch {
    Name(String),
    Hz(f64),
}

/// One value for every string, or a list.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum PerString {
    One(f64),
    Each(Vec<f64>),
}

impl PerString {
    fn values(&self, count: usize) -> Vec<f64> {
        match self {
            PerString::One(value) => vec![*value; count],
            PerString::Each(values) => values.clone(),
        }
    }
}

type Spans = Vec<(&'static str, Range<usize>)>;

/// Fills `spec`'s fields from the raw fields that are given and lists their spans:
/// `fill!(raw, spec, spans; field => |value| expression, ...)`.
macro_rules! fill {
    ($raw:expr, $spec:expr, $spans:expr; $($field:ident => $convert:expr),* $(,)?) => {
        $(if let Some(value) = &$raw.$field {
            $spans.push((stringify!($field), value.span()));
            #[allow(clippy::redundant_closure_call)]
            {
                $spec.$field = ($convert)(value.get_ref().clone());
            }
        })*
    };
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGuitar {
    masses: Option<Spanned<usize>>,
    tuning: Option<Spanned<Vec<Spanned<Pitch>>>>,
    names: Option<Spanned<Vec<String>>>,
    linear_density: Option<Spanned<PerString>>,
    decay: Option<Spanned<PerString>>,
    scale_length: Option<Spanned<f64>>,
    frets: Option<Spanned<usize>>,
    fret_method: Option<Spanned<String>>,
    pickups: Option<Spanned<Vec<f64>>>,
    stereo: Option<Spanned<bool>>,
}

impl RawGuitar {
    fn spec(&self) -> Result<(InstrumentSpec, Spans), (Range<usize>, String)> {
        let mut spec = GuitarSpec::default();
        let mut spans = Spans::new();
        if let Some(tuning) = &self.tuning {
            spans.push(("tuning", tuning.span()));
            spec.strings = Vec::with_capacity(tuning.get_ref().len());
            for pitch in tuning.get_ref() {
                let (name, hz) = match pitch.get_ref() {
                    Pitch::Name(name) => match note_frequency(name) {
                        Some(hz) => (name.clone(), hz),
                        None => {
                            return Err((pitch.span(), format!("expected a note name such as \"E2\", \"C#4\" or \"Bb3\", or a frequency in Hz; found \"{name}\"")))
                        }
                    },
                    Pitch::Hz(hz) => (format!("{hz}Hz"), *hz),
                };
                spec.strings.push((name, hz));
            }
            let count = spec.strings.len();
            spec.linear_density = vec![GuitarSpec::default().linear_density[0]; count];
            spec.decay = vec![3.0; count];
        }
        if let Some(names) = &self.names {
            spans.push(("names", names.span()));
            if names.get_ref().len() != spec.strings.len() {
                return Err((
                    names.span(),
                    format!(
                        "expected one name per string ({}); found {}",
                        spec.strings.len(),
                        names.get_ref().len()
                    ),
                ));
            }
            for ((name, _), given) in spec.strings.iter_mut().zip(names.get_ref()) {
                name.clone_from(given);
            }
        }
        let count = spec.strings.len();
        fill!(self, spec, spans;
            masses => |v| v,
            linear_density => |v: PerString| v.values(count),
            decay => |v: PerString| v.values(count),
            scale_length => |v| v,
            frets => |v| v,
            pickups => |v| v,
            stereo => |v| v,
        );
        if let Some(method) = &self.fret_method {
            spans.push(("fret_method", method.span()));
            spec.fret_method = match method.get_ref().as_str() {
                "between" => FretMethod::Between,
                "nearest" => FretMethod::Nearest,
                other => {
                    return Err((
                        method.span(),
                        format!("expected \"between\" or \"nearest\"; found \"{other}\""),
                    ))
                }
            };
        }
        Ok((InstrumentSpec::Guitar(spec), spans))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrum {
    columns: Option<Spanned<usize>>,
    rows: Option<Spanned<usize>>,
    size: Option<Spanned<[f64; 2]>>,
    tension: Option<Spanned<f64>>,
    density: Option<Spanned<f64>>,
    pitch: Option<Spanned<f64>>,
    decay: Option<Spanned<f64>>,
    pickups: Option<Spanned<Vec<[f64; 2]>>>,
}

impl RawDrum {
    fn spec(&self) -> (InstrumentSpec, Spans) {
        let (mut spec, mut spans) = (DrumSpec::default(), Spans::new());
        fill!(self, spec, spans; columns => |v| v, rows => |v| v, size => |v| v, tension => |v| v,
            density => |v| v, pitch => |v| v, decay => |v| v, pickups => |v| v);
        (InstrumentSpec::Drum(spec), spans)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReed {
    mass: Option<Spanned<f64>>,
    omega0: Option<Spanned<f64>>,
    gamma: Option<Spanned<f64>>,
    lay: Option<Spanned<f64>>,
    contact_stiffness: Option<Spanned<f64>>,
    exponent: Option<Spanned<f64>>,
}

impl RawReed {
    fn spec(&self) -> (InstrumentSpec, Spans) {
        let (mut spec, mut spans) = (ReedSpec::default(), Spans::new());
        fill!(self, spec, spans; mass => |v| v, omega0 => |v| v, gamma => |v| v, lay => |v| v,
            contact_stiffness => |v| v, exponent => |v| v);
        (InstrumentSpec::Reed(spec), spans)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSitar {
    masses: Option<Spanned<usize>>,
    pitch: Option<Spanned<f64>>,
    decay: Option<Spanned<f64>>,
    mass: Option<Spanned<f64>>,
    barrier_masses: Option<Spanned<usize>>,
    barrier_position: Option<Spanned<f64>>,
    barrier_stiffness: Option<Spanned<f64>>,
    barrier_exponent: Option<Spanned<f64>>,
    frets: Option<Spanned<usize>>,
    pickups: Option<Spanned<Vec<f64>>>,
}

impl RawSitar {
    fn spec(&self) -> (InstrumentSpec, Spans) {
        let (mut spec, mut spans) = (SitarSpec::default(), Spans::new());
        fill!(self, spec, spans; masses => |v| v, pitch => |v| v, decay => |v| v, mass => |v| v,
            barrier_masses => |v| v, barrier_position => |v| v, barrier_stiffness => |v| v,
            barrier_exponent => |v| v, frets => |v| v, pickups => |v| v);
        (InstrumentSpec::Sitar(spec), spans)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPendulum {
    mass: Option<Spanned<f64>>,
    stretch_hz: Option<Spanned<f64>>,
    swing_hz: Option<Spanned<f64>>,
    gravity: Option<Spanned<f64>>,
    decay: Option<Spanned<f64>>,
}

impl RawPendulum {
    fn spec(&self) -> (InstrumentSpec, Spans) {
        let (mut spec, mut spans) = (PendulumSpec::default(), Spans::new());
        fill!(self, spec, spans; mass => |v| v, stretch_hz => |v| v, swing_hz => |v| v,
            gravity => |v| v, decay => |v| v);
        (InstrumentSpec::Pendulum(spec), spans)
    }
}
