//! The TOML score format (docs/score-format.md), read against an instrument: every event is
//! checked (its part exists and can take it, its time is inside the score, a fret is on the
//! string, sustained events on one part do not overlap) and resolved into [`Cue`]s. Errors name
//! the file, line and column of the offending field.
//!
//! A score is the one format whose reading needs the layer below it: whether an event is valid
//! (a fret on the string, a position on the part, a bow that does not overlap another) is known
//! only against the instrument, and its errors must point at the event's fields. So the
//! resolution into cues lives here, with the text's spans, while the cues themselves and what
//! they do are the score layer's ([`crate::score`]). This module reads the events and expands
//! repeats; its module `event` resolves each occurrence.

mod event;

use super::source::{read_source, Document, SourceError};
use crate::instrument::frets::{place_frets, FretStop};
use crate::instrument::{Instrument, PartKind, StringPart};
use crate::limits::{MAX_SCORE_DURATION, MAX_SCORE_EVENTS, MAX_STEPS};
use crate::model::{ModelError, Sinusoid};
use crate::score::Action;
use crate::score::{Cue, Score};
use event::Context;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// A rule an event breaks, and the span of the text it is about.
type Located = (Range<usize>, ModelError);

/// Reads the score file at `path` for `instrument`; WAV files it names are read relative to its
/// folder.
pub fn load(path: &Path, instrument: &Instrument) -> Result<Score, SourceError> {
    let (file, source) = read_source(path, "score")?;
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
    let document = Document::parse(file, source)?;
    let raw: RawScore = document.read()?;
    raw.resolve(instrument, folder, &document)
        .map_err(|(span, error)| document.error_at(span, error.to_string()))
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
#[derive(Clone, Copy)]
enum Where {
    Along(f64),
    At([f64; 2]),
}

/// A `position` is a number or an array of two numbers; anything else is refused with both
/// forms named and what was found.
impl<'de> Deserialize<'de> for Where {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WhereVisitor;
        impl<'de> Visitor<'de> for WhereVisitor {
            type Value = Where;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a fraction along a string (a number such as 0.5) or a point [x, y] of a membrane \
                     (two fractions)",
                )
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Where, E> {
                Ok(Where::Along(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Where, E> {
                Ok(Where::Along(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Where, E> {
                Ok(Where::Along(v as f64))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Where, A::Error> {
                let mut point = Vec::with_capacity(2);
                while let Some(value) = seq.next_element::<f64>()? {
                    point.push(value);
                }
                match point[..] {
                    [x, y] => Ok(Where::At([x, y])),
                    _ => Err(de::Error::invalid_length(point.len(), &self)),
                }
            }
        }
        deserializer.deserialize_any(WhereVisitor)
    }
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
    pull: Option<Spanned<f64>>,
    release: Option<Spanned<f64>>,
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
    sinusoids: Option<Spanned<Vec<Sinusoid>>>,
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

/// The place of the event kind `name` (`"fret"`, `"damp"`, ...) in the order the events of one
/// time apply (0 first), if it is an event kind.
pub(crate) fn apply_rank(name: &str) -> Option<usize> {
    let kind = Kind::ALL.into_iter().find(|kind| kind.name() == name)?;
    Some(Kind::ALL.iter().filter(|other| **other < kind).count())
}

impl Kind {
    /// Every kind.
    const ALL: [Kind; 9] = [
        Kind::Fret,
        Kind::Release,
        Kind::Set,
        Kind::Damp,
        Kind::Undamp,
        Kind::Pluck,
        Kind::Strike,
        Kind::Bow,
        Kind::Drive,
    ];

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
            Kind::Pluck => &["position", "amplitude", "width", "pull", "release", "shape", "axis"],
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
            ("pull", span(&self.pull)),
            ("release", span(&self.release)),
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
    /// The event's index among the events of its kind (`[[drive]]` number 0, 1, ...).
    index: usize,
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
    fn resolve(
        &self,
        instrument: &Instrument,
        folder: Option<&Path>,
        document: &Document<'_>,
    ) -> Result<Score, Located> {
        let header = self.score.get_ref();
        let duration = *header.duration.get_ref();
        if !(positive(duration) && duration <= MAX_SCORE_DURATION) {
            let expected = format!("a duration > 0 s and at most {MAX_SCORE_DURATION} s (one hour)");
            return Err(error(header.duration.span(), "score", "duration", expected, duration));
        }
        let steps = (duration / instrument.dt).round();
        if steps > MAX_STEPS as f64 {
            return Err(error(
                header.duration.span(),
                "score",
                "duration",
                format!("at most 2^40 = {MAX_STEPS} steps of the instrument's {} s", instrument.dt),
                format!("{duration} s, {steps} steps"),
            ));
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
            for (index, raw) in list.iter().enumerate() {
                expand(kind, raw, index, duration, occurrences.len(), &mut occurrences)?;
            }
        }
        occurrences
            .sort_by(|a, b| a.time.total_cmp(&b.time).then(a.kind.cmp(&b.kind)).then(a.order.cmp(&b.order)));
        let mut states: HashMap<usize, PartState> = HashMap::new();
        let mut frets = placed_frets(instrument, &self.fret);
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
            let context =
                Context { instrument, part, occurrence, duration, folder, document, frets: &mut frets };
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

/// The stops of the score's frets, each string's fret once, placed on rayon's threads ahead of
/// the events (one after another where there are no threads). A fret that cannot be placed is
/// left out: its event places it again and names what is wrong.
fn placed_frets(instrument: &Instrument, frets: &[Spanned<RawEvent>]) -> HashMap<(usize, usize), FretStop> {
    let mut wanted: Vec<(usize, &StringPart, usize)> = frets
        .iter()
        .filter_map(|raw| {
            let raw = raw.get_ref();
            let part = instrument.parts.iter().position(|p| &p.name == raw.part.get_ref())?;
            let PartKind::String(string) = &instrument.parts[part].kind else { return None };
            Some((part, string, *raw.fret.as_ref()?.get_ref()))
        })
        .collect();
    wanted.sort_unstable_by_key(|&(part, _, fret)| (part, fret));
    wanted.dedup_by_key(|&mut (part, _, fret)| (part, fret));
    let strings: Vec<(&StringPart, usize)> = wanted.iter().map(|&(_, string, fret)| (string, fret)).collect();
    let stops = place_frets(&strings, instrument.scheme, instrument.dt);
    wanted.iter().zip(stops).filter_map(|(&(part, _, fret), stop)| Some(((part, fret), stop.ok()?))).collect()
}

/// Adds the occurrences of one event: once at `time`, or every `every` seconds for `for`
/// seconds.
fn expand<'a>(
    kind: Kind,
    raw: &'a Spanned<RawEvent>,
    index: usize,
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
        (None, None) if out.len() < MAX_SCORE_EVENTS => {
            out.push(Occurrence { time, kind, raw, index, order })
        }
        (None, None) => {
            return Err(error(
                event.time.span(),
                subject,
                "time",
                format!("at most {MAX_SCORE_EVENTS} events in a score, repeats included"),
                format!("one more after {MAX_SCORE_EVENTS}"),
            ))
        }
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
            if count > MAX_SCORE_EVENTS - out.len() {
                return Err(error(
                    every.span(),
                    subject,
                    "every",
                    format!("at most {MAX_SCORE_EVENTS} events in a score, repeats included"),
                    format!("{count} repeats after {} events", out.len()),
                ));
            }
            out.extend((0..count).map(|i| Occurrence {
                time: time + i as f64 * every_value,
                kind,
                raw,
                index,
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
