//! Resolving one occurrence of a score event against the instrument: the part can take it,
//! its fields are in range, and it does not clash with what the part is doing.

use super::{error, number, positive, Kind, Located, Occurrence, PartState, RawEvent, Where};
use crate::format::signal::{signal, SignalFields};
use crate::format::source::{Document, Step};
use crate::instrument::frets::{fret_stop, FretStop};
use crate::instrument::{
    nearest_inner_node, Instrument, InstrumentError, MembranePart, PartKind, PlatePart, Plucker, StringPart,
};
use crate::model::ModelError;
use crate::score::{Action, Bow, Drive, Hammer, Pluck, Pulse};
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Everything resolving one occurrence needs.
pub(super) struct Context<'a, 'b> {
    pub(super) instrument: &'a Instrument,
    pub(super) part: usize,
    pub(super) occurrence: &'a Occurrence<'b>,
    pub(super) duration: f64,
    pub(super) folder: Option<&'a Path>,
    pub(super) document: &'a Document<'a>,
    pub(super) frets: &'a mut HashMap<(usize, usize), FretStop>,
}

impl Context<'_, '_> {
    /// Places a signal's error on the field it names, of the event or of sinusoid `term`.
    fn locate(&self, term: Option<usize>, error: ModelError) -> Located {
        let event = [Step::Key(self.occurrence.kind.name()), Step::Index(self.occurrence.index)];
        let span = match term {
            Some(i) => self
                .document
                .field_span(&[&event[..], &[Step::Key("sinusoids"), Step::Index(i)]].concat(), error.field),
            None => self.document.field_span(&event, error.field),
        };
        (span, error)
    }

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

    /// Fails on a course of strings, which a bow or a drive cannot share out.
    fn single(&self) -> Result<(), Located> {
        match &self.instrument.parts[self.part].kind {
            PartKind::String(string) if !string.unisons.is_empty() => Err(error(
                self.raw().part.span(),
                &self.subject(),
                "part",
                format!("a single string (a {} acts on one string)", self.occurrence.kind.name()),
                format!(
                    "\"{}\", a course of {} strings",
                    self.raw().part.get_ref(),
                    1 + string.unisons.len()
                ),
            )),
            _ => Ok(()),
        }
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
        if let (
            Some(axis),
            PartKind::String(_) | PartKind::Membrane(_) | PartKind::Bar(_) | PartKind::Plate(_),
        ) = (&raw.axis, part)
        {
            let expected = "no axis on a string, a membrane, a bar or a plate (they move along x)";
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
            (
                PartKind::Membrane(MembranePart { grid, .. }) | PartKind::Plate(PlatePart { grid, .. }),
                Some(position),
            ) => match *position.get_ref() {
                Where::At([x, y]) if x > 0.0 && x < 1.0 && y > 0.0 && y < 1.0 => Ok(grid.mass_at(x, y) * dim),
                _ => Err(bad(position, "a point [x, y] with fractions strictly between 0 and 1")),
            },
            (PartKind::Body(body), None) => Ok(body.mass * dim + self.axis()?),
            (PartKind::Body(_), Some(position)) => {
                Err(bad(position, "no position on a single mass (use `axis`)"))
            }
            (PartKind::Bar(bar), Some(position)) => match *position.get_ref() {
                Where::Along(p) if p > 0.0 && p < 1.0 => Ok(bar.masses[bar.mass_at(p)] * dim),
                _ => Err(bad(position, "a fraction of the bar's length strictly between 0 and 1")),
            },
            (PartKind::String(string @ StringPart { hammer: Some(hammer), .. }), None) => {
                Ok(string.masses[string.mass_at(hammer.position)] * dim)
            }
            (PartKind::Bar(bar), None) => Ok(bar.masses[bar.mass_at(bar.mallet.position)] * dim),
            (PartKind::Plate(plate), None) => Ok(plate.grid.mass_at(plate.strike[0], plate.strike[1]) * dim),
            (_, None) => Err(error(self.whole(), &subject, "position", "`position` on the part", "nothing")),
        }
    }

    pub(super) fn resolve(self, state: &mut PartState) -> Result<Action, Located> {
        let kind = self.occurrence.kind;
        if matches!(kind, Kind::Pluck | Kind::Strike | Kind::Bow) {
            self.not_during(state.bowed_until, "bow")?;
        }
        Ok(match kind {
            Kind::Pluck => self.pluck(state)?,
            Kind::Strike => {
                let raw = self.raw();
                let key = self.instrument.parts[self.part].kind.hammer();
                Action::Strike(Hammer {
                    coordinate: self.coordinate(state)?,
                    velocity: self.number(
                        &raw.velocity,
                        "velocity",
                        Some(2.0),
                        "a speed > 0 m/s",
                        positive,
                    )?,
                    mass: self.number(
                        &raw.mass,
                        "mass",
                        Some(key.map_or(5e-3, |h| h.mass)),
                        "a mass > 0 kg",
                        positive,
                    )?,
                    stiffness: self.number(
                        &raw.stiffness,
                        "stiffness",
                        Some(key.map_or(1e9, |h| h.stiffness)),
                        "a felt stiffness > 0 N/m^exponent",
                        positive,
                    )?,
                    exponent: self.number(
                        &raw.exponent,
                        "exponent",
                        Some(key.map_or(2.5, |h| h.exponent)),
                        "a Hertz exponent >= 1",
                        |e| e.is_finite() && e >= 1.0,
                    )?,
                })
            }
            Kind::Bow => {
                let raw = self.raw();
                self.string()?;
                self.single()?;
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
                self.single()?;
                self.not_during(state.driven_until, "drive")?;
                let raw = self.raw();
                let length = self.number(&raw.duration, "duration", None, "a length > 0 s", positive)?;
                state.driven_until = Some(self.end(length, &raw.duration)?);
                let value = |field: &Option<Spanned<f64>>| field.as_ref().map(|v| *v.get_ref());
                let fields = SignalFields {
                    constant: value(&raw.constant),
                    sinusoids: raw.sinusoids.as_ref().map(|s| s.get_ref().as_slice()),
                    wav: raw.wav.as_ref().map(|w| w.get_ref().as_str()),
                    channel: raw.channel.as_ref().map(|c| *c.get_ref()),
                    gain: value(&raw.gain),
                };
                let signal = signal(&self.subject(), &fields, self.folder)
                    .map_err(|(term, e)| self.locate(term, e))?;
                Action::Drive(Drive { coordinate: self.coordinate(state)?, signal, duration: length })
            }
            Kind::Set => {
                let raw = self.raw();
                if matches!(
                    self.instrument.parts[self.part].kind,
                    PartKind::Body(_) | PartKind::Bar(_) | PartKind::Plate(_)
                ) {
                    return Err(error(
                        raw.part.span(),
                        &self.subject(),
                        "part",
                        "a string or a membrane (a part with tension and damping to set)",
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
    /// part, a force `pulse`, or a finger's or a plectrum's `pull` and release.
    fn pluck(&self, state: &PartState) -> Result<Action, Located> {
        let raw = self.raw();
        let subject = self.subject();
        let shape = raw.shape.as_ref().map_or("triangle", |s| s.get_ref().as_str());
        let only_pulled = |field: &Option<Spanned<f64>>, name: &'static str| match field {
            Some(given) if shape != "pull" => Err(error(
                given.span(),
                &subject,
                name,
                format!("no `{name}` but with shape = \"pull\""),
                format!("`{name}` with shape = \"{shape}\""),
            )),
            _ => Ok(()),
        };
        only_pulled(&raw.pull, "pull")?;
        only_pulled(&raw.release, "release")?;
        let amplitude = self.number(
            &raw.amplitude,
            "amplitude",
            None,
            "a displacement (m) or a force (N), not 0",
            |a| a.is_finite() && a != 0.0,
        )?;
        let dim = self.instrument.model.dimension();
        match shape {
            "pull" => {
                if let Some(width) = &raw.width {
                    let expected = "no width with shape = \"pull\" (`pull` and `release` are its times)";
                    return Err(error(
                        width.span(),
                        &subject,
                        "width",
                        expected,
                        format!("{:?}", width.get_ref()),
                    ));
                }
                let plucker = match &self.instrument.parts[self.part].kind {
                    PartKind::String(string) => string.plucker,
                    _ => Plucker::PLECTRUM,
                };
                let time = |t: f64| t > 0.0 && t <= 1.0;
                let expected = "a time > 0 s and at most 1 s";
                let pull = self.number(&raw.pull, "pull", Some(plucker.pull), expected, time)?;
                let release = self.number(&raw.release, "release", Some(plucker.release), expected, time)?;
                self.end(pull + release, &raw.release)?;
                Ok(Action::Pluck(Pluck {
                    coordinate: self.coordinate(state)?,
                    peak: amplitude,
                    pull,
                    release,
                }))
            }
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
                    PartKind::Membrane(MembranePart { grid, .. }) => {
                        let centre = self.coordinate(state)? / dim;
                        let index = grid.masses.iter().position(|&m| m == centre).unwrap_or(0);
                        let (ci, cj) = ((index % grid.columns) as f64, (index / grid.columns) as f64);
                        let (w, h) = ((grid.columns + 1) as f64, (grid.rows + 1) as f64);
                        let width = width.unwrap_or(1.0);
                        grid.masses
                            .iter()
                            .enumerate()
                            .map(|(k, &m)| {
                                let (i, j) = ((k % grid.columns) as f64, (k / grid.columns) as f64);
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
                    PartKind::Bar(_) | PartKind::Plate(_) => {
                        return Err(error(
                            raw.shape.as_ref().map_or_else(|| self.whole(), Spanned::span),
                            &subject,
                            "shape",
                            "\"pulse\" on a bar or a plate (a held shape needs a string, a membrane or a single mass)",
                            format!("\"{shape}\""),
                        ))
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
                "\"triangle\", \"raised\", \"pulse\" or \"pull\"",
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
