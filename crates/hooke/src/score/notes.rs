//! Notes to gestures: how a keyboard's or a MIDI file's notes play an instrument's parts.
//!
//! A [`NoteMap`] reads [`NoteInput`]s (note on, note off, sustain pedal, pitch bend,
//! controllers) in time order and answers [`Gesture`]s on the instrument's parts, the events a
//! score would write by hand (`fret`, `release`, `pluck`, `strike`, `damp`, `undamp`, `set`). A MIDI file is
//! turned into a score this way (the file layer writes the gestures as score events and reads
//! them back, so a MIDI file and its equivalent score sound the same, sample for sample), and
//! `hooke play` maps live notes through the same map. The rules, per instrument (docs/play.md):
//!
//! - **Strings (guitar, sitar)**: a note `n` can be played on string `s` at fret `n - open(s)`
//!   when that is from 0 (open) to the string's `frets`. With [`StringRule::LowestFret`] (the
//!   default) a note goes to the string already sounding that pitch (re-plucked, as a player
//!   does for a repeated note), else to the free string (no note held on it) where it lies at
//!   the lowest fret (the thicker string on a tie), else it takes the candidate string whose
//!   note began first. With [`StringRule::ByChannel`] MIDI channel 1 plays the highest string,
//!   channel 2 the next, and so on (the mono mode of guitar-to-MIDI pickups): the override for a
//!   part that must stay on one string. The string is plucked by its part's [`Plucker`] (a
//!   plectrum by default: [`crate::score::Pluck`], pulled over `pluck_pull` and let go over
//!   `pluck_release`) at its `pluck_position` of its sounding length, with a force of
//!   `PLUCK_PEAK (v / 127)^2` newtons when let go, for velocity `v` (about 42 dB from velocity 1
//!   to 127). A note off damps the string
//!   (time constant [`RELEASE_DECAY`]); the next note on it lifts the damp first. The sustain
//!   pedal (CC 64 >= 64) defers the note offs of its channel until it is lifted. Pitch bend (a
//!   range of [`BEND_RANGE`] semitones) sets the tension of the strings the channel sounds,
//!   `2^(b / 6)` for a bend of `b` semitones (the pitch goes as the square root of the tension).
//!   A controller mapped to a `set` parameter ([`ControlMapping`]) sets it on the strings the
//!   channel sounds (times the bend's factor for tension); a string takes its channel's factors
//!   when its next note begins. With a tuning ([`NoteMap::with_tuning`]) a note plays the fret
//!   of the equal-tempered note nearest its frequency, its tension times `(f / f_12)^2`.
//! - **Struck strings (piano)**: as strings, but a note strikes the string's course with its
//!   key's hammer ([`crate::instrument::KeyHammer`]) at speed `STRIKE_SPEED v / 127`, where the
//!   hammer strikes, instead of plucking it. A piano's keys have no frets: a note goes to the
//!   key of its pitch. Its keys' felt dampers ([`Damper::Felt`]) rest on the strings
//!   ([`NoteMap::rest`]): a note lifts its key's damper and its note off lets it fall, unless
//!   the sustain pedal is down; the pedal (on any channel) lifts every damper, so that every
//!   string rings in sympathy with those struck, and its release lets the dampers of the keys
//!   not held fall. Keys without dampers (a piano's highest, [`Damper::None`]) ring on.
//! - **Bars and plates (marimba, bell plates)**: a note strikes the bar or plate of its pitch
//!   with its mallet at speed `STRIKE_SPEED v / 127`, where the mallet strikes; a note none
//!   sounds is refused. Note offs, the pedal and pitch bend do nothing: a bar or a plate rings,
//!   and has no tension to bend.
//! - **Membrane (drum)**: every note strikes it with a hammer at speed `STRIKE_SPEED v / 127`;
//!   the note picks the point, the centre for C (pitch class 0) out towards the rim for B (11):
//!   `x = 0.5 + 0.4 (n mod 12) / 11`, `y = 0.5`. Note offs are ignored: a drum rings. Mapped
//!   controllers set the membrane's tension or damping, from any channel.
//! - **Body (reed, pendulum)**: a note pushes the mass by a force pulse of peak
//!   `PLUCK_PEAK (v / 127)^2` along x; the note off damps it. The pitch is the instrument's.

pub use super::input::{from_midi, NoteInput, NoteKind};
pub use super::reason::{NoteSet, Reason};
pub use crate::instrument::{midi_note, note_name};
use crate::instrument::{Damper, Instrument, PartKind, Plucker};
use crate::score::controls::{ControlMapping, Controlled};
use crate::score::expression::{express, Excite, Expression, Touch, TIMBRE_CONTROLLER};
use crate::score::strands::{channel_of, choose, silence, Factors, Strand};
use crate::score::tuning::{Retuned, Tuning, Untunable};

/// The length of the force pulse that pushes a body (reed, pendulum), s.
pub const PLUCK_WIDTH: f64 = 1e-3;
/// A pluck's peak force at velocity 127 (a string's pull, a body's push), N.
pub const PLUCK_PEAK: f64 = 0.5;
/// A hammer's speed at velocity 127 (drum, piano), m/s.
pub const STRIKE_SPEED: f64 = 4.0;
/// Time constant of the damp a note off puts on a string or a body, s.
pub const RELEASE_DECAY: f64 = 0.05;
/// The pitch bend range, semitones either way (the General MIDI default).
pub const BEND_RANGE: f64 = 2.0;

/// A gesture on one part: one event of a score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gesture {
    /// When, s.
    pub time: f64,
    /// The part (an index into the instrument's parts).
    pub part: usize,
    /// What.
    pub stroke: Stroke,
}

/// What a gesture does (the score event it is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stroke {
    /// Press fret `n` (1-based).
    Fret(usize),
    /// Lift the finger.
    Release,
    /// A pluck (`pluck`) of `peak` N: on a string, by its [`Plucker`] (`shape = "pull"`); on a
    /// body (`None`), a force pulse of [`PLUCK_WIDTH`] along x (`shape = "pulse"`).
    Pluck {
        /// How the string is plucked; `None` on a body.
        plucker: Option<Plucker>,
        /// Peak force, N.
        peak: f64,
    },
    /// A hammer (`strike`) at the point `[x, y]` of a membrane, at `velocity` m/s.
    Strike {
        /// Fractions of the width and the height.
        position: [f64; 2],
        /// Hammer speed, m/s.
        velocity: f64,
        /// The factor on the hammer's felt stiffness (1: the part's own hammer).
        hardness: f64,
    },
    /// `damp` with this time constant, s.
    Damp(f64),
    /// `undamp`.
    Undamp,
    /// `set tension` to this factor.
    Tension(f64),
    /// `set damping` to this factor.
    Damping(f64),
}

/// How notes choose strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringRule {
    /// The string sounding that pitch, else the free string with the lowest fret.
    #[default]
    LowestFret,
    /// MIDI channel 1 the highest string, 2 the next, ...
    ByChannel,
}

/// A note that cannot be played as written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("track {track}, channel {channel}, at {time} s: note {note} ({name}): {reason}", track = .input.track + 1, channel = .input.channel + 1, time = .input.time, name = note_name(*.note))]
pub struct Unplayable {
    /// The input.
    pub input: NoteInput,
    /// Its note.
    pub note: u8,
    /// Why: what the instrument can play.
    pub reason: Reason,
}

/// What the map plays.
#[derive(Debug, Clone)]
enum Target {
    Strings(Vec<Strand>),
    Membrane {
        part: usize,
        factors: Factors,
    },
    Body {
        part: usize,
        damped: bool,
    },
    /// Struck bars or plates (`what`: "bar" or "plate").
    Keys {
        keys: Vec<Key>,
        what: &'static str,
    },
}

/// A bar or a plate and the note it sounds.
#[derive(Debug, Clone, Copy)]
struct Key {
    part: usize,
    note: i32,
    /// Where its mallet strikes: fractions of a bar's length (and 0.5) or of a plate's width and
    /// height.
    struck_at: [f64; 2],
}

/// A controller mapping that cannot apply to the instrument.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnmappableControl {
    /// The instrument plays a body, bars or plates, which have no tension or damping to set.
    #[error("controller {controller}: the {instrument} plays {played}, with no links whose {parameter} a controller could set")]
    NoLinks {
        /// The controller.
        controller: u8,
        /// The parameter.
        parameter: &'static str,
        /// The instrument's kind.
        instrument: String,
        /// What it plays (`a body`, `bars`, `plates`).
        played: &'static str,
    },
    /// Two mappings for one controller.
    #[error("controller {0} is mapped twice")]
    Twice(u8),
}

/// The note map of one instrument: what each note does, and what every part is doing.
#[derive(Debug, Clone)]
pub struct NoteMap {
    target: Target,
    rule: StringRule,
    sustain: [bool; 16],
    bend: [f64; 16],
    controls: Vec<ControlMapping>,
    /// Per channel: the tension and damping factors its controllers set.
    controlled: [Factors; 16],
    /// For every channel: the factors [`NoteKind::Set`] sets.
    set: Factors,
    count: u64,
    /// The scale notes sound in; `None`: 12-tone equal temperament, A4 = 440 Hz.
    tuning: Option<Tuning>,
    /// Keys a MIDI Tuning Standard message retuned, Hz ([`NoteKind::Retune`]).
    retuned: [Option<f64>; 128],
    /// Per channel: the touch (pressure, brightness) its notes begin with.
    touch: [Touch; 16],
    /// For every channel: where and how hard the next notes are excited ([`NoteKind::Excite`]).
    excite: Excite,
}

impl NoteMap {
    /// The map for `instrument`: its strings if it has any, else its bars, else its first
    /// membrane, else its first body.
    pub fn new(instrument: &Instrument, rule: StringRule) -> Self {
        let strings: Vec<Strand> = instrument
            .parts
            .iter()
            .enumerate()
            .filter_map(|(part, p)| match &p.kind {
                PartKind::String(s) => Some(Strand {
                    part,
                    open: midi_note(s.frequency_hz),
                    frets: s.frets,
                    note: None,
                    pedal: false,
                    fret: 0,
                    damped: false,
                    factors: Factors::AS_BUILT,
                    detune: 1.0,
                    base_hz: 0.0,
                    began: 0,
                    struck_at: s.hammer.map(|h| h.position),
                    plucker: s.plucker,
                    touch: Touch::NEUTRAL,
                    damper: s.damper,
                }),
                _ => None,
            })
            .collect();
        let first = |membrane: bool| {
            instrument.parts.iter().position(|p| matches!(p.kind, PartKind::Membrane(_)) == membrane)
        };
        let mut what = "bar";
        let keys: Vec<Key> = instrument
            .parts
            .iter()
            .enumerate()
            .filter_map(|(part, p)| {
                let (pitch, struck_at) = match &p.kind {
                    PartKind::Bar(bar) => (bar.frequency_hz, [bar.mallet.position, 0.5]),
                    PartKind::Plate(plate) => {
                        what = "plate";
                        (plate.frequency_hz, plate.strike)
                    }
                    _ => return None,
                };
                Some(Key { part, note: midi_note(pitch), struck_at })
            })
            .collect();
        let target = if !strings.is_empty() {
            Target::Strings(strings)
        } else if !keys.is_empty() {
            Target::Keys { keys, what }
        } else if let Some(part) = first(true) {
            Target::Membrane { part, factors: Factors::AS_BUILT }
        } else {
            Target::Body { part: first(false).unwrap_or(0), damped: false }
        };
        Self {
            target,
            rule,
            sustain: [false; 16],
            bend: [0.0; 16],
            controls: Vec::new(),
            controlled: [Factors::AS_BUILT; 16],
            set: Factors::AS_BUILT,
            count: 0,
            tuning: None,
            retuned: [None; 128],
            touch: [Touch::NEUTRAL; 16],
            excite: Excite::AS_DESIGNED,
        }
    }

    /// The map with its notes in `tuning`: a note plays its frequency on the fret or key of the
    /// nearest equal-tempered note, the string's tension moved by the rest
    /// ([`Tuning::retune`]). Refused where the instrument plays no strings.
    pub fn with_tuning(mut self, tuning: Tuning, instrument: &Instrument) -> Result<Self, Untunable> {
        let played = match self.target {
            Target::Strings(_) => {
                self.tuning = Some(tuning);
                return Ok(self);
            }
            Target::Body { .. } => "a body",
            Target::Keys { what: "plate", .. } => "plates",
            Target::Keys { .. } => "bars",
            Target::Membrane { .. } => "a membrane",
        };
        Err(Untunable { instrument: instrument.kind.to_string(), played })
    }

    /// The map with `controls`: each moves its parameter on the parts its channel plays (every
    /// string the channel sounds; the drum's membrane from any channel), or how the next notes
    /// are excited. A `set` parameter is refused on an instrument that plays a body, bars or
    /// plates; any controller mapped twice is refused.
    pub fn with_controls(
        mut self,
        controls: &[ControlMapping],
        instrument: &Instrument,
    ) -> Result<Self, UnmappableControl> {
        for (i, mapping) in controls.iter().enumerate() {
            if controls[..i].iter().any(|m| m.controller == mapping.controller) {
                return Err(UnmappableControl::Twice(mapping.controller));
            }
            // An excitation moves whatever the instrument plays.
            if matches!(mapping.parameter, Controlled::Excite(_)) {
                continue;
            }
            let played = match self.target {
                Target::Body { .. } => "a body",
                Target::Keys { what: "plate", .. } => "plates",
                Target::Keys { .. } => "bars",
                Target::Strings(_) | Target::Membrane { .. } => continue,
            };
            return Err(UnmappableControl::NoLinks {
                controller: mapping.controller,
                parameter: mapping.parameter.name(),
                instrument: instrument.kind.to_string(),
                played,
            });
        }
        self.controls = controls.to_vec();
        Ok(self)
    }

    /// The factors that channel `channel` plays at: its bend's tension times its controllers'
    /// times the factors set for every channel.
    fn factors(&self, channel: usize) -> Factors {
        let (controlled, set) = (self.controlled[channel], self.set);
        Factors {
            tension: tension(self.bend[channel]) * controlled.tension * set.tension,
            damping: controlled.damping * set.damping,
        }
    }

    /// The gestures that put the instrument at rest at `time` (s), before its first note: every
    /// piano key's felt damper on its strings ([`Damper::Felt`]); nothing for other instruments.
    pub fn rest(&mut self, time: f64, out: &mut Vec<Gesture>) {
        if let Target::Strings(strings) = &mut self.target {
            for string in strings.iter_mut().filter(|s| s.damper == Damper::Felt) {
                silence(string, time, out);
            }
        }
    }

    /// Plays `input`, appending its gestures to `out`.
    pub fn play(&mut self, input: &NoteInput, out: &mut Vec<Gesture>) -> Result<(), Unplayable> {
        self.count += 1;
        let channel = usize::from(input.channel & 15);
        let time = input.time;
        let push = |out: &mut Vec<Gesture>, part, stroke| out.push(Gesture { time, part, stroke });
        let strength = |velocity: u8| (f64::from(velocity.min(127)) / 127.0).powi(2);
        let factors = self.factors(channel);
        let (excite, hardness) = (self.excite, self.excite.hardness());
        match (&mut self.target, input.kind) {
            (_, NoteKind::On { note, velocity: 0 }) => {
                let off = NoteInput { kind: NoteKind::Off { note }, ..*input };
                return self.play(&off, out);
            }
            (Target::Strings(strings), NoteKind::On { note, velocity }) => {
                let retuned = match (self.retuned[usize::from(note & 127)], &self.tuning) {
                    (Some(frequency), _) => Retuned::at(frequency),
                    (None, Some(tuning)) => tuning.retune(note),
                    (None, None) => Some(Retuned { note, tension: 1.0 }),
                };
                let retuned = retuned.ok_or(Unplayable { input: *input, note, reason: Reason::Untuned })?;
                let s = choose(strings, self.rule, input, retuned.note)?;
                let string = &mut strings[s];
                let part = string.part;
                if string.damped {
                    push(out, part, Stroke::Undamp);
                    string.damped = false;
                }
                string.base_hz = retuned.frequency();
                string.touch = self.touch[channel];
                string.take(retuned, factors, time, out);
                push(
                    out,
                    part,
                    match string.struck_at {
                        Some(x) => Stroke::Strike {
                            position: [excite.along_string(x), 0.5],
                            velocity: strike_speed(velocity),
                            hardness,
                        },
                        None => Stroke::Pluck {
                            plucker: Some(excite.pluck(string.touch.pluck(string.plucker))),
                            peak: PLUCK_PEAK * strength(velocity),
                        },
                    },
                );
                (string.note, string.pedal, string.began) = (Some((note, input.channel)), false, self.count);
            }
            (Target::Strings(strings), NoteKind::Off { note }) => {
                let held = strings.iter_mut().find(|s| s.note == Some((note, input.channel)) && !s.pedal);
                if let Some(string) = held {
                    if self.sustain[channel] {
                        string.pedal = true;
                    } else {
                        silence(string, time, out);
                    }
                }
            }
            (Target::Strings(strings), NoteKind::Sustain(down)) => {
                self.sustain[channel] = down;
                for string in strings.iter_mut() {
                    match string.damper {
                        // A hand's damps wait for the pedal of its note's channel.
                        Damper::Hand
                            if !down && string.pedal && channel_of(string) == Some(input.channel) =>
                        {
                            silence(string, time, out)
                        }
                        // The pedal lifts every felt damper, and lets those of keys not held fall.
                        Damper::Felt if down && string.damped => {
                            push(out, string.part, Stroke::Undamp);
                            string.damped = false;
                        }
                        Damper::Felt if !down && (string.note.is_none() || string.pedal) => {
                            silence(string, time, out)
                        }
                        _ => {}
                    }
                }
            }
            (Target::Strings(_), NoteKind::Bend(amount)) => {
                self.bend[channel] = amount.clamp(-1.0, 1.0) * BEND_RANGE;
                self.apply_factors(input, out);
            }
            (Target::Strings(strings), NoteKind::Pressure { note, amount }) => {
                let pressure = Expression::Pressure(amount);
                express(strings, &mut self.touch[channel], input, note, pressure, factors, out);
            }
            (Target::Strings(strings), NoteKind::Timbre { note, amount }) => {
                let brightness = Expression::Brightness(amount);
                express(strings, &mut self.touch[channel], input, note, brightness, factors, out);
            }
            (Target::Strings(strings), NoteKind::Damping { note, factor }) => {
                let damping = Expression::Damping(factor);
                express(strings, &mut self.touch[channel], input, Some(note), damping, factors, out);
            }
            (_, NoteKind::Control { controller, value }) => {
                let Some(mapping) = self.controls.iter().find(|m| m.controller == controller) else {
                    if controller == TIMBRE_CONTROLLER {
                        let timbre =
                            NoteKind::Timbre { note: None, amount: f64::from(value.min(127)) / 127.0 };
                        return self.play(&NoteInput { kind: timbre, ..*input }, out);
                    }
                    return Ok(());
                };
                match mapping.parameter {
                    Controlled::Set(parameter) => {
                        self.controlled[channel].set(parameter, mapping.factor(value));
                        self.apply_factors(input, out);
                    }
                    Controlled::Excite(parameter) => self.excite.set(parameter, mapping.factor(value)),
                }
            }
            (Target::Strings(strings), NoteKind::Tuning { note, semitones }) => {
                let held = strings.iter_mut().find(|s| s.note == Some((note, input.channel)));
                if let Some(string) = held {
                    // On the nearest note's fret where the string has it, else on the fret held
                    // (a piano's key), the tension doing the rest.
                    let target = string.base_hz * 2f64.powf(semitones / 12.0);
                    let held = (string.open + string.fret as i32) as u8;
                    let retuned = Retuned::at(target)
                        .filter(|r| string.fret_of(r.note).is_some())
                        .unwrap_or_else(|| Retuned::on(held, target));
                    string.take(retuned, factors, time, out);
                }
            }
            (_, NoteKind::Retune { key, frequency }) => {
                self.retuned[usize::from(key & 127)] = Some(frequency)
            }
            (_, NoteKind::Excite { parameter, factor }) => self.excite.set(parameter, factor),
            (_, NoteKind::Set { parameter, factor }) => {
                self.set.set(parameter, factor);
                for channel in 0..16 {
                    self.apply_factors(&NoteInput { channel, ..*input }, out);
                }
            }
            (Target::Membrane { part, .. }, NoteKind::On { note, velocity }) => {
                let x = 0.5 + 0.4 * f64::from(note % 12) / 11.0;
                let stroke =
                    Stroke::Strike { position: [x, 0.5], velocity: strike_speed(velocity), hardness };
                push(out, *part, stroke);
            }
            (Target::Body { part, damped }, NoteKind::On { velocity, .. }) => {
                if *damped {
                    push(out, *part, Stroke::Undamp);
                    *damped = false;
                }
                push(out, *part, Stroke::Pluck { plucker: None, peak: PLUCK_PEAK * strength(velocity) });
            }
            (Target::Keys { keys, what }, NoteKind::On { note, velocity }) => {
                let Some(key) = keys.iter().find(|key| key.note == i32::from(note)) else {
                    let reason = Reason::NoKey { what, keys: NoteSet::of(keys.iter().map(|key| key.note)) };
                    return Err(Unplayable { input: *input, note, reason });
                };
                // A bar is struck along its length alone (its `y` is not read).
                let moved = excite.across(key.struck_at);
                let position = if *what == "bar" { [moved[0], key.struck_at[1]] } else { moved };
                let stroke = Stroke::Strike { position, velocity: strike_speed(velocity), hardness };
                push(out, key.part, stroke);
            }
            (Target::Body { part, damped }, NoteKind::Off { .. }) if !*damped => {
                push(out, *part, Stroke::Damp(RELEASE_DECAY));
                *damped = true;
            }
            _ => {}
        }
        Ok(())
    }

    /// Brings the parts `input`'s channel plays to its factors: the strings it sounds, or the
    /// membrane.
    fn apply_factors(&mut self, input: &NoteInput, out: &mut Vec<Gesture>) {
        let factors = self.factors(usize::from(input.channel & 15));
        match &mut self.target {
            Target::Strings(strings) => {
                for string in strings.iter_mut().filter(|s| channel_of(s) == Some(input.channel)) {
                    let own = string.own(factors);
                    string.factors.change_to(own, input.time, string.part, out);
                }
            }
            Target::Membrane { part, factors: now } => now.change_to(factors, input.time, *part, out),
            Target::Body { .. } | Target::Keys { .. } => {}
        }
    }
}

/// The hammer speed of a note of MIDI velocity `velocity`, m/s.
fn strike_speed(velocity: u8) -> f64 {
    STRIKE_SPEED * f64::from(velocity.min(127)) / 127.0
}

/// The tension factor for a bend of `semitones`.
fn tension(semitones: f64) -> f64 {
    if semitones == 0.0 {
        1.0
    } else {
        2f64.powf(semitones / 6.0)
    }
}
