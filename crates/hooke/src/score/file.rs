//! The TOML score format (docs/score-format.md), read against an instrument: every event is
//! checked (its part exists and can take it, its time is inside the score, a fret is on the
//! string, sustained events on one part do not overlap) and resolved into [`Cue`]s. Errors
//! name the file, line and column of the offending field.

use super::{Action, Bow, Cue, Drive, Hammer, Pulse, Score};
use crate::instrument::frets::{fret_stop, FretStop};
use crate::instrument::{nearest_inner_node, Instrument, InstrumentError, PartKind, StringPart};
use crate::model::file::{signal, signal_fields, Located, RawSinusoid};
use crate::model::{ModelError, SourceError};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Reads the score file at `path` for `instrument`; WAV files it names are read relative to its
/// folder.
pub fn load(path: &Path, instrument: &Instrument) -> Result<Score, SourceError> {
    let file = path.display().to_string();
    let source = std::fs::read_to_string(path)
        .map_err(|e| SourceError::at(&file, "", 0..0, format!("cannot read the score file: {e}")))?;
    parse(&source, &file, instrument, path.parent())
}

/// Parses and resolves a score for `instrument`. `file` names the source in errors; WAV files
/// are read relative to `folder` (the current directory when `None`).
pub fn parse(
    source: &str,
    file: &str,
    instrument: &Instrument,
    folder: Option<&Path>,
) -> Result<Score, SourceError> {
    let raw: RawScore = toml::from_str(source)
        .map_err(|e| SourceError::at(file, source, e.span().unwrap_or(0..0), e.message().trim_end()))?;
    raw.resolve(instrument, folder)
        .map_err(|(span, error)| SourceError::at(file, source, span, error.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScore {
    score: Spanned<RawHeader>,
    #[serde(default)]
    pluck: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    strike: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    bow: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    fret: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    release: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    damp: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    undamp: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    drive: Vec<Spanned<RawEvent>>,
    #[serde(default)]
    set: Vec<Spanned<RawEvent>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    duration: Spanned<f64>,
    name: Option<String>,
    description: Option<String>,
}

/// Where on a part: a fraction along a string, or a point `[x, y]` of a membrane.
#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum Where {
    Along(f64),
    At([f64; 2]),
}

/// Every event's fields; each kind accepts the ones [`Kind::fields`] lists.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    time: Spanned<f64>,
    part: Spanned<String>,
    every: Option<Spanned<f64>>,
    #[serde(rename = "for")]
    repeat_for: Option<Spanned<f64>>,
    position: Option<Spanned<Where>>,
    amplitude: Option<Spanned<f64>>,
    width: Option<Spanned<f64>>,
    shape: Option<Spanned<String>>,
    axis: Option<Spanned<String>>,
    velocity: Option<Spanned<f64>>,
    mass: Option<Spanned<f64>>,
    stiffness: Option<Spanned<f64>>,
    exponent: Option<Spanned<f64>>,
    force: Option<Spanned<f64>>,
    sharpness: Option<Spanned<f64>>,
    duration: Option<Spanned<f64>>,
    fret: Option<Spanned<usize>>,
    decay: Option<Spanned<f64>>,
    parameter: Option<Spanned<String>>,
    value: Option<Spanned<f64>>,
    constant: Option<Spanned<f64>>,
    sinusoids: Option<Spanned<Vec<Spanned<RawSinusoid>>>>,
    wav: Option<Spanned<String>>,
    channel: Option<Spanned<usize>>,
    gain: Option<Spanned<f64>>,
}

/// The event kinds, in the order they apply when they fall on the same time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Fret,
    Release,
    Set,
    Damp,
    Undamp,
    Pluck,
    Strike,
    Bow,
    Drive,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Fret => "fret",
            Kind::Release => "release",
            Kind::Set => "set",
            Kind::Damp => "damp",
            Kind::Undamp => "undamp",
            Kind::Pluck => "pluck",
            Kind::Strike => "strike",
            Kind::Bow => "bow",
            Kind::Drive => "drive",
        }
    }

    /// The optional fields this kind takes (besides `time`, `part`, `every`, `for`).
    fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Pluck => &["position", "amplitude", "width", "shape", "axis"],
            Kind::Strike => &["position", "velocity", "mass", "stiffness", "exponent", "axis"],
            Kind::Bow => &["position", "velocity", "force", "sharpness", "duration"],
            Kind::Fret => &["fret"],
            Kind::Release | Kind::Undamp => &[],
            Kind::Damp => &["decay", "duration"],
            Kind::Drive => {
                &["position", "axis", "duration", "constant", "sinusoids", "wav", "channel", "gain"]
            }
            Kind::Set => &["parameter", "value"],
        }
    }
}

impl RawEvent {
    /// The optional fields given, with their spans.
    fn given(&self) -> Vec<(&'static str, Range<usize>)> {
        fn span<T>(field: &Option<Spanned<T>>) -> Option<Range<usize>> {
            field.as_ref().map(Spanned::span)
        }
        [
            ("position", span(&self.position)),
            ("amplitude", span(&self.amplitude)),
            ("width", span(&self.width)),
            ("shape", span(&self.shape)),
            ("axis", span(&self.axis)),
            ("velocity", span(&self.velocity)),
            ("mass", span(&self.mass)),
            ("stiffness", span(&self.stiffness)),
            ("exponent", span(&self.exponent)),
            ("force", span(&self.force)),
            ("sharpness", span(&self.sharpness)),
            ("duration", span(&self.duration)),
            ("fret", span(&self.fret)),
            ("decay", span(&self.decay)),
            ("parameter", span(&self.parameter)),
            ("value", span(&self.value)),
            ("constant", span(&self.constant)),
            ("sinusoids", span(&self.sinusoids)),
            ("wav", span(&self.wav)),
            ("channel", span(&self.channel)),
            ("gain", span(&self.gain)),
        ]
        .into_iter()
        .filter_map(|(name, span)| span.map(|s| (name, s)))
        .collect()
    }
}

/// One occurrence of an event (a repeated event gives several), before resolution.
struct Occurrence<'a> {
    time: f64,
    kind: Kind,
    raw: &'a Spanned<RawEvent>,
    order: usize,
}

/// What a part is doing while the score is read in time order.
#[derive(Default)]
struct PartState {
    fret: Option<FretStop>,
    damped_until: Option<f64>,
    bowed_until: Option<f64>,
    driven_until: Option<f64>,
}

fn error(
    span: Range<usize>,
    subject: &str,
    field: &'static str,
    expected: impl Into<String>,
    found: impl std::fmt::Display,
) -> Located {
    (span, ModelError::new(subject, field, expected, found))
}

/// A number field: its value, or `default`; checked by `valid`, described by `expected`.
fn number(
    field: &Option<Spanned<f64>>,
    name: &'static str,
    subject: &str,
    default: Option<f64>,
    expected: &str,
    valid: impl Fn(f64) -> bool,
    whole: &Range<usize>,
) -> Result<f64, Located> {
    match (field, default) {
        (Some(value), _) if valid(*value.get_ref()) => Ok(*value.get_ref()),
        (Some(value), _) => Err(error(value.span(), subject, name, expected, value.get_ref())),
        (None, Some(default)) => Ok(default),
        (None, None) => Err(error(whole.clone(), subject, name, format!("`{name}`: {expected}"), "nothing")),
    }
}

fn positive(value: f64) -> bool {
    value.is_finite() && value > 0.0
}

impl RawScore {
    fn resolve(&self, instrument: &Instrument, folder: Option<&Path>) -> Result<Score, Located> {
        let header = self.score.get_ref();
        let duration = *header.duration.get_ref();
        if !positive(duration) {
            return Err(error(header.duration.span(), "score", "duration", "a duration > 0 s", duration));
        }
        let mut occurrences = Vec::new();
        let lists = [
            (Kind::Pluck, &self.pluck),
            (Kind::Strike, &self.strike),
            (Kind::Bow, &self.bow),
            (Kind::Fret, &self.fret),
            (Kind::Release, &self.release),
            (Kind::Damp, &self.damp),
            (Kind::Undamp, &self.undamp),
            (Kind::Drive, &self.drive),
            (Kind::Set, &self.set),
        ];
        for (kind, list) in lists {
            for raw in list {
                expand(kind, raw, duration, occurrences.len(), &mut occurrences)?;
            }
        }
        occurrences
            .sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.cmp(&b.kind)).then(a.order.cmp(&b.order)));
        let mut states: HashMap<usize, PartState> = HashMap::new();
        let mut frets: HashMap<(usize, usize), FretStop> = HashMap::new();
        let mut cues = Vec::with_capacity(occurrences.len());
        for occurrence in &occurrences {
            let raw = occurrence.raw.get_ref();
            let part_name = raw.part.get_ref();
            let Some(part) = instrument.parts.iter().position(|p| &p.name == part_name) else {
                let names: Vec<String> = instrument.parts.iter().map(|p| format!("\"{}\"", p.name)).collect();
                return Err(error(
                    raw.part.span(),
                    &format!("{} at {} s", occurrence.kind.name(), occurrence.time),
                    "part",
                    format!("a part of the {} ({})", instrument.kind, names.join(", ")),
                    format!("\"{part_name}\""),
                ));
            };
            let state = states.entry(part).or_default();
            let context = Context { instrument, part, occurrence, duration, folder, frets: &mut frets };
            let action = context.resolve(state)?;
            if let (Action::Damp(_), Some(end)) = (&action, state.damped_until.filter(|end| end.is_finite()))
            {
                // A damp for a while lifts by itself.
                cues.push(Cue { time: end, part, action: Action::Undamp });
            }
            cues.push(Cue { time: occurrence.time, part, action });
        }
        // The lifts of timed damps into time order (a stable sort: ties keep their order).
        cues.sort_by(|a, b| a.time.total_cmp(&b.time));
        Ok(Score { name: header.name.clone(), description: header.description.clone(), duration, cues })
    }
}

/// Adds the occurrences of one event: once at `time`, or every `every` seconds for `for`
/// seconds.
fn expand<'a>(
    kind: Kind,
    raw: &'a Spanned<RawEvent>,
    duration: f64,
    order: usize,
    out: &mut Vec<Occurrence<'a>>,
) -> Result<(), Located> {
    let event = raw.get_ref();
    let subject = kind.name();
    if let Some((name, span)) = event.given().into_iter().find(|(name, _)| !kind.fields().contains(name)) {
        return Err(error(
            span,
            subject,
            name,
            format!(
                "only the fields a {subject} takes: time, part, every, for, {}",
                kind.fields().join(", ")
            ),
            format!("`{name}`"),
        ));
    }
    let time = *event.time.get_ref();
    if !(time.is_finite() && (0.0..duration).contains(&time)) {
        return Err(error(
            event.time.span(),
            subject,
            "time",
            format!("a time from 0 s to before the score's end ({duration} s)"),
            time,
        ));
    }
    match (&event.every, &event.repeat_for) {
        (None, None) => out.push(Occurrence { time, kind, raw, order }),
        (Some(every), Some(span_for)) => {
            let every_value =
                number(&event.every, "every", subject, None, "a period > 0 s", positive, &raw.span())?;
            let length =
                number(&event.repeat_for, "for", subject, None, "a length > 0 s", positive, &raw.span())?;
            if time + length > duration + 1e-9 {
                return Err(error(
                    span_for.span(),
                    subject,
                    "for",
                    format!("repeats that end by the score's end ({duration} s)"),
                    format!("{length} s from {time} s"),
                ));
            }
            let count = (length / every_value - 1e-9).ceil().max(1.0) as usize;
            if count > MAX_REPEATS {
                return Err(error(
                    every.span(),
                    subject,
                    "every",
                    format!("at most {MAX_REPEATS} repeats"),
                    count,
                ));
            }
            out.extend((0..count).map(|i| Occurrence {
                time: time + i as f64 * every_value,
                kind,
                raw,
                order: order + i,
            }));
        }
        (Some(every), None) => {
            return Err(error(
                every.span(),
                subject,
                "for",
                "`for` (how long to repeat) with `every`",
                "no `for`",
            ))
        }
        (None, Some(span_for)) => {
            return Err(error(
                span_for.span(),
                subject,
                "every",
                "`every` (the period) with `for`",
                "no `every`",
            ))
        }
    }
    Ok(())
}

/// The most occurrences one repeated event may give.
const MAX_REPEATS: usize = 100_000;

/// Everything resolving one occurrence needs.
struct Context<'a, 'b> {
    instrument: &'a Instrument,
    part: usize,
    occurrence: &'a Occurrence<'b>,
    duration: f64,
    folder: Option<&'a Path>,
    frets: &'a mut HashMap<(usize, usize), FretStop>,
}

impl Context<'_, '_> {
    fn raw(&self) -> &RawEvent {
        self.occurrence.raw.get_ref()
    }

    fn whole(&self) -> Range<usize> {
        self.occurrence.raw.span()
    }

    fn subject(&self) -> String {
        format!(
            "{} on \"{}\" at {} s",
            self.occurrence.kind.name(),
            self.raw().part.get_ref(),
            self.occurrence.time
        )
    }

    fn number(
        &self,
        field: &Option<Spanned<f64>>,
        name: &'static str,
        default: Option<f64>,
        expected: &str,
        valid: impl Fn(f64) -> bool,
    ) -> Result<f64, Located> {
        number(field, name, &self.subject(), default, expected, valid, &self.whole())
    }

    fn string(&self) -> Result<&StringPart, Located> {
        match &self.instrument.parts[self.part].kind {
            PartKind::String(string) => Ok(string),
            _ => Err(error(
                self.raw().part.span(),
                &self.subject(),
                "part",
                "a string",
                format!("\"{}\" (not a string)", self.raw().part.get_ref()),
            )),
        }
    }

    /// A sustained event's end, checked against the score's end.
    fn end(&self, length: f64, field: &Option<Spanned<f64>>) -> Result<f64, Located> {
        let end = self.occurrence.time + length;
        if end > self.duration + 1e-9 {
            let span = field.as_ref().map_or_else(|| self.whole(), Spanned::span);
            return Err(error(
                span,
                &self.subject(),
                "duration",
                format!("an end by the score's end ({} s)", self.duration),
                format!("{end} s"),
            ));
        }
        Ok(end)
    }

    /// Fails if a sustained event on this part (`until`) is still going.
    fn not_during(&self, until: Option<f64>, what: &str) -> Result<(), Located> {
        match until {
            Some(end) if self.occurrence.time < end - 1e-12 => {
                let until =
                    if end.is_finite() { format!("until {end} s") } else { "until lifted".to_string() };
                Err(error(
                    self.raw().time.span(),
                    &self.subject(),
                    "time",
                    format!(
                        "no {} while a {what} on the same part lasts ({until})",
                        self.occurrence.kind.name()
                    ),
                    self.occurrence.time,
                ))
            }
            _ => Ok(()),
        }
    }

    /// The axis field (`"x"`, `"y"`, `"z"`) for a body of the instrument's dimension.
    fn axis(&self) -> Result<usize, Located> {
        let dim = self.instrument.model.dimension();
        let Some(axis) = &self.raw().axis else { return Ok(0) };
        match (axis.get_ref().as_str(), dim) {
            ("x", _) => Ok(0),
            ("y", 2 | 3) => Ok(1),
            ("z", 3) => Ok(2),
            (other, _) => Err(error(
                axis.span(),
                &self.subject(),
                "axis",
                format!("one of the model's {dim} axes"),
                format!("\"{other}\""),
            )),
        }
    }

    /// The state coordinate an excitation acts on, from `position` (and `axis` for a body).
    fn coordinate(&self, state: &PartState) -> Result<usize, Located> {
        let raw = self.raw();
        let subject = self.subject();
        let dim = self.instrument.model.dimension();
        let bad = |position: &Spanned<Where>, expected: &str| {
            let found = match *position.get_ref() {
                Where::Along(p) => p.to_string(),
                Where::At([x, y]) => format!("[{x}, {y}]"),
            };
            error(position.span(), &subject, "position", expected, found)
        };
        let part = &self.instrument.parts[self.part].kind;
        if let (Some(axis), PartKind::String(_) | PartKind::Membrane(_)) = (&raw.axis, part) {
            let expected = "no axis on a string or a membrane (they move along x)";
            return Err(error(axis.span(), &subject, "axis", expected, format!("\"{}\"", axis.get_ref())));
        }
        match (part, &raw.position) {
            (PartKind::String(string), Some(position)) => match *position.get_ref() {
                Where::Along(p) if p > 0.0 && p < 1.0 => {
                    let (first, last) = sounding(string, state);
                    Ok(string.masses[nearest_inner_node(first, last, p) - 1] * dim)
                }
                _ => Err(bad(position, "a fraction of the sounding length strictly between 0 and 1")),
            },
            (PartKind::Membrane(membrane), Some(position)) => match *position.get_ref() {
                Where::At([x, y]) if x > 0.0 && x < 1.0 && y > 0.0 && y < 1.0 => {
                    Ok(membrane.mass_at(x, y) * dim)
                }
                _ => Err(bad(position, "a point [x, y] with fractions strictly between 0 and 1")),
            },
            (PartKind::Body(body), None) => Ok(body.mass * dim + self.axis()?),
            (PartKind::Body(_), Some(position)) => {
                Err(bad(position, "no position on a single mass (use `axis`)"))
            }
            (_, None) => Err(error(self.whole(), &subject, "position", "`position` on the part", "nothing")),
        }
    }

    fn resolve(self, state: &mut PartState) -> Result<Action, Located> {
        let kind = self.occurrence.kind;
        if matches!(kind, Kind::Pluck | Kind::Strike | Kind::Bow) {
            self.not_during(state.bowed_until, "bow")?;
        }
        Ok(match kind {
            Kind::Pluck => self.pluck(state)?,
            Kind::Strike => {
                let raw = self.raw();
                Action::Strike(Hammer {
                    coordinate: self.coordinate(state)?,
                    velocity: self.number(
                        &raw.velocity,
                        "velocity",
                        Some(2.0),
                        "a speed > 0 m/s",
                        positive,
                    )?,
                    mass: self.number(&raw.mass, "mass", Some(5e-3), "a mass > 0 kg", positive)?,
                    stiffness: self.number(
                        &raw.stiffness,
                        "stiffness",
                        Some(1e9),
                        "a felt stiffness > 0 N/m^exponent",
                        positive,
                    )?,
                    exponent: self.number(
                        &raw.exponent,
                        "exponent",
                        Some(2.5),
                        "a Hertz exponent >= 1",
                        |e| e.is_finite() && e >= 1.0,
                    )?,
                })
            }
            Kind::Bow => {
                let raw = self.raw();
                self.string()?;
                let length = self.number(&raw.duration, "duration", None, "a length > 0 s", positive)?;
                state.bowed_until = Some(self.end(length, &raw.duration)?);
                Action::Bow(Bow {
                    coordinate: self.coordinate(state)?,
                    velocity: self.number(
                        &raw.velocity,
                        "velocity",
                        Some(0.2),
                        "a bow speed > 0 m/s",
                        positive,
                    )?,
                    force: self.number(&raw.force, "force", Some(1.0), "a bow force > 0 N", positive)?,
                    sharpness: self.number(
                        &raw.sharpness,
                        "sharpness",
                        Some(100.0),
                        "a friction sharpness > 0 s^2/m^2",
                        positive,
                    )?,
                    duration: length,
                })
            }
            Kind::Fret => {
                let string = self.string()?.clone();
                let raw = self.raw();
                let Some(fret) = &raw.fret else {
                    return Err(error(
                        self.whole(),
                        &self.subject(),
                        "fret",
                        "`fret`: the fret number",
                        "nothing",
                    ));
                };
                let key = (self.part, *fret.get_ref());
                let stop = match self.frets.get(&key) {
                    Some(stop) => *stop,
                    None => {
                        let stop = fret_stop(
                            &string,
                            *fret.get_ref(),
                            string.fret_method,
                            self.instrument.scheme,
                            self.instrument.dt,
                        )
                        .map_err(|e| match e {
                            InstrumentError::Model(model) => {
                                error(fret.span(), &self.subject(), model.field, model.expected, model.found)
                            }
                            other => error(
                                fret.span(),
                                &self.subject(),
                                "fret",
                                "a fret the analysis can place",
                                other,
                            ),
                        })?;
                        self.frets.insert(key, stop);
                        stop
                    }
                };
                state.fret = Some(stop);
                Action::Fret(stop)
            }
            Kind::Release => {
                self.string()?;
                if state.fret.take().is_none() {
                    return Err(error(
                        self.raw().time.span(),
                        &self.subject(),
                        "time",
                        "a fret held on the string to release",
                        "no fret held",
                    ));
                }
                Action::Release
            }
            Kind::Damp => {
                self.not_during(state.damped_until, "damp")?;
                let raw = self.raw();
                let decay =
                    self.number(&raw.decay, "decay", Some(0.05), "a time constant > 0 s", positive)?;
                let end = match &raw.duration {
                    Some(_) => self.end(
                        self.number(&raw.duration, "duration", None, "a length > 0 s", positive)?,
                        &raw.duration,
                    )?,
                    None => f64::INFINITY,
                };
                state.damped_until = Some(end);
                Action::Damp(2.0 / decay)
            }
            Kind::Undamp => {
                let time = self.occurrence.time;
                if state.damped_until.take().is_none_or(|end| time >= end - 1e-12) {
                    return Err(error(
                        self.raw().time.span(),
                        &self.subject(),
                        "time",
                        "a damp on the part to lift",
                        "the part is not damped",
                    ));
                }
                Action::Undamp
            }
            Kind::Drive => {
                self.not_during(state.driven_until, "drive")?;
                let raw = self.raw();
                let length = self.number(&raw.duration, "duration", None, "a length > 0 s", positive)?;
                state.driven_until = Some(self.end(length, &raw.duration)?);
                let whole = self.whole();
                let spans: HashMap<&str, Range<usize>> = raw.given().into_iter().collect();
                let at_field =
                    |e: ModelError| (spans.get(e.field).cloned().unwrap_or_else(|| whole.clone()), e);
                let signal = signal(&self.subject(), &signal_fields!(raw), self.folder, &at_field)?;
                Action::Drive(Drive { coordinate: self.coordinate(state)?, signal, duration: length })
            }
            Kind::Set => {
                let raw = self.raw();
                if matches!(self.instrument.parts[self.part].kind, PartKind::Body(_)) {
                    return Err(error(
                        raw.part.span(),
                        &self.subject(),
                        "part",
                        "a string or a membrane (a part with links)",
                        format!("\"{}\"", raw.part.get_ref()),
                    ));
                }
                let value = self.number(&raw.value, "value", None, "a factor > 0", positive)?;
                match raw.parameter.as_ref().map(|p| (p.get_ref().as_str(), p.span())) {
                    Some(("tension", _)) => Action::Tension(value),
                    Some(("damping", _)) => Action::Damping(value),
                    Some((other, span)) => {
                        return Err(error(
                            span,
                            &self.subject(),
                            "parameter",
                            "\"tension\" or \"damping\"",
                            format!("\"{other}\""),
                        ))
                    }
                    None => {
                        return Err(error(
                            self.whole(),
                            &self.subject(),
                            "parameter",
                            "`parameter`: \"tension\" or \"damping\"",
                            "nothing",
                        ))
                    }
                }
            }
        })
    }

    /// A pluck: a displacement shape (`triangle`, the default, or `raised`) over the sounding
    /// part, or a force `pulse`.
    fn pluck(&self, state: &PartState) -> Result<Action, Located> {
        let raw = self.raw();
        let subject = self.subject();
        let shape = raw.shape.as_ref().map_or("triangle", |s| s.get_ref().as_str());
        let amplitude = self.number(
            &raw.amplitude,
            "amplitude",
            None,
            "a displacement (m) or a force (N), not 0",
            |a| a.is_finite() && a != 0.0,
        )?;
        let dim = self.instrument.model.dimension();
        match shape {
            "pulse" => {
                let width = self.number(&raw.width, "width", Some(1e-3), "a pulse length > 0 s", positive)?;
                self.end(width, &raw.width)?;
                Ok(Action::Pulse(Pulse {
                    coordinate: self.coordinate(state)?,
                    peak: amplitude,
                    duration: width,
                }))
            }
            "triangle" | "raised" => {
                let triangle = shape == "triangle";
                let default_width = if triangle { None } else { Some(0.1) };
                let width = match default_width.or(raw.width.as_ref().map(|w| *w.get_ref())) {
                    Some(_) => Some(self.number(
                        &raw.width,
                        "width",
                        default_width,
                        "a width > 0 and at most 1 (a fraction of the length)",
                        |w| positive(w) && w <= 1.0,
                    )?),
                    None => None,
                };
                let bump = |distance: f64| match width {
                    None => 1.0 - distance,
                    Some(w) if triangle => (1.0 - 2.0 * distance / w).max(0.0),
                    Some(w) if 2.0 * distance < w => {
                        0.5 * (1.0 + (std::f64::consts::TAU * distance / w).cos())
                    }
                    Some(_) => 0.0,
                };
                let values = match &self.instrument.parts[self.part].kind {
                    PartKind::String(string) => {
                        let apex = self.coordinate(state)? / dim;
                        let (first, last) = sounding(string, state);
                        let apex_node = first
                            + 1
                            + string.masses[first..last - 1].iter().position(|&m| m == apex).unwrap_or(0);
                        let length = (last - first) as f64;
                        (first + 1..last)
                            .map(|node| {
                                let offset = node as f64 - apex_node as f64;
                                // The whole-length triangle falls to 0 at both ends of the sounding part.
                                let distance = match width {
                                    None if offset < 0.0 => -offset / (apex_node - first) as f64,
                                    None => offset / (last - apex_node) as f64,
                                    Some(_) => offset.abs() / length,
                                };
                                let mass = string.masses[node - 1];
                                (mass * dim, amplitude * bump(distance))
                            })
                            .collect()
                    }
                    PartKind::Membrane(membrane) => {
                        let centre = self.coordinate(state)? / dim;
                        let index = membrane.masses.iter().position(|&m| m == centre).unwrap_or(0);
                        let (ci, cj) = ((index % membrane.columns) as f64, (index / membrane.columns) as f64);
                        let (w, h) = ((membrane.columns + 1) as f64, (membrane.rows + 1) as f64);
                        let width = width.unwrap_or(1.0);
                        membrane
                            .masses
                            .iter()
                            .enumerate()
                            .map(|(k, &m)| {
                                let (i, j) = ((k % membrane.columns) as f64, (k / membrane.columns) as f64);
                                let distance = ((i - ci) / w).hypot((j - cj) / h);
                                let value = if width >= 1.0 && triangle {
                                    (1.0 - 2.0 * distance).max(0.0)
                                } else {
                                    bump(distance)
                                };
                                (m * dim, amplitude * value)
                            })
                            .collect()
                    }
                    PartKind::Body(_) => {
                        if raw.width.is_some() {
                            return Err(error(
                                raw.width.as_ref().map_or_else(|| self.whole(), Spanned::span),
                                &subject,
                                "width",
                                "no width on a single mass",
                                "a width",
                            ));
                        }
                        let coordinate = self.coordinate(state)?;
                        let rest =
                            self.instrument.model.masses()[coordinate / dim].position[coordinate % dim];
                        vec![(coordinate, rest + amplitude)]
                    }
                };
                Ok(Action::Shape(values))
            }
            other => Err(error(
                raw.shape.as_ref().map_or_else(|| self.whole(), Spanned::span),
                &subject,
                "shape",
                "\"triangle\", \"raised\" or \"pulse\"",
                format!("\"{other}\""),
            )),
        }
    }
}

/// The sounding part of a string as node positions `(first, last)`: `first` is the stop (or
/// the nut, 0) and `last` the bridge (N + 1); the masses between them sound.
fn sounding(string: &StringPart, state: &PartState) -> (usize, usize) {
    (state.fret.map_or(0, |stop| stop.mass + 1), string.masses.len() + 1)
}
