//! A held note's touch (MPE's pressure and timbre, channel and polyphonic aftertouch, CLAP's
//! pressure and brightness expressions) as physical changes of its string: pressure raises the
//! ringing string's damping as a finger resting on it harder would, and brightness moves where its next
//! pluck pulls, nearer the bridge the brighter (the plucked string's partial `n` has the
//! amplitude `sin(n pi p) / n^2` of a pull at `p`: Fletcher & Rossing 1998, chapter 2).
//!
//! And how every channel's next notes are excited ([`ExciteParameter`], a plugin's host parameters):
//! where a pluck pulls or a hammer or mallet strikes, and how hard its felt or its release is.

use super::notes::{Gesture, NoteInput};
use super::strands::{channel_of, Factors, Strand};
use crate::instrument::Plucker;

/// The factor on a string's damping (`set damping`: its dampers and its mode damping) at full
/// pressure, a finger resting on it rather than pressing it to a fret.
pub const PRESSURE_DAMPING: f64 = 8.0;
/// The factor on a pluck's distance from the bridge at no brightness; full brightness divides
/// it by the same (a designed pluck 0.2 of the length from the bridge moves to 0.4 or to 0.1).
pub const BRIGHTNESS_SPAN: f64 = 2.0;
/// The MIDI controller MPE sends the timbre on (its third dimension, "slide").
pub const TIMBRE_CONTROLLER: u8 = 74;

/// How a note is touched: pressure 0 to 1, brightness 0 to 1 (0.5 as the instrument plucks),
/// and its own damping factor (1: its channel's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Touch {
    pub(super) pressure: f64,
    pub(super) brightness: f64,
    pub(super) damping: f64,
}

impl Touch {
    /// No pressure, the instrument's own brightness.
    pub(super) const NEUTRAL: Self = Self { pressure: 0.0, brightness: 0.5, damping: 1.0 };

    /// The factor the touch puts on the string's damping: its own times what the pressure
    /// puts, `PRESSURE_DAMPING^pressure`.
    pub(super) fn damping(self) -> f64 {
        self.damping * PRESSURE_DAMPING.powf(self.pressure)
    }

    /// `plucker` moved for brightness: its distance from the bridge `1 - p` times
    /// `BRIGHTNESS_SPAN^(1 - 2 brightness)`, kept inside the string (0.01 to 0.99).
    pub(super) fn pluck(self, plucker: Plucker) -> Plucker {
        let from_bridge = (1.0 - plucker.position) * BRIGHTNESS_SPAN.powf(1.0 - 2.0 * self.brightness);
        Plucker { position: (1.0 - from_bridge).clamp(0.01, 0.99), ..plucker }
    }
}

/// A factor set from outside (a host's parameter, a modulation) kept within 1/64 to 64; `None`
/// where it is not a number.
fn bounded(factor: f64) -> Option<f64> {
    (!factor.is_nan()).then(|| factor.clamp(1.0 / 64.0, 64.0))
}

/// A factor on how the next notes are excited, for every channel, relative to the instrument as
/// designed (1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExciteParameter {
    /// Where: a string's pluck and hammer move their distance from the bridge by the factor, a
    /// bar's or a plate's mallet its distance from the nearer end (of each side, on a plate).
    Position,
    /// How hard: a pluck's release takes its time divided by the factor (the shorter, the
    /// brighter: the release's spectrum, `tests/pluck.rs`), a hammer's or a mallet's felt its
    /// stiffness times the factor (a harder felt, a shorter contact).
    Hardness,
}

/// The factors [`ExciteParameter`]s set (1: as designed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Excite {
    position: f64,
    hardness: f64,
}

impl Excite {
    /// As the instrument is designed.
    pub(super) const AS_DESIGNED: Self = Self { position: 1.0, hardness: 1.0 };

    /// Sets `parameter`'s factor ([`bounded`]; a factor that is not a number is ignored).
    pub(super) fn set(&mut self, parameter: ExciteParameter, factor: f64) {
        let Some(factor) = bounded(factor) else { return };
        match parameter {
            ExciteParameter::Position => self.position = factor,
            ExciteParameter::Hardness => self.hardness = factor,
        }
    }

    /// `plucker` moved and hardened: its distance from the bridge `1 - p` times the position
    /// factor (kept inside the string, 0.01 to 0.99), its release time divided by the hardness
    /// (kept within 1 us to 1 s).
    pub(super) fn pluck(self, plucker: Plucker) -> Plucker {
        let release = (plucker.release / self.hardness).clamp(1e-6, 1.0);
        Plucker { position: self.along_string(plucker.position), release, ..plucker }
    }

    /// A string's point `x` (a fraction of its length from the end away from the bridge)
    /// moved: its distance from the bridge `1 - x` times the position factor, within 0.01 to
    /// 0.99.
    pub(super) fn along_string(self, x: f64) -> f64 {
        (1.0 - (1.0 - x) * self.position).clamp(0.01, 0.99)
    }

    /// A bar's or a plate's point `[x, y]` (fractions of its sides) moved: each coordinate's
    /// distance from its nearer end times the position factor, on the same side, within 0.01
    /// to 0.5 of the side.
    pub(super) fn across(self, point: [f64; 2]) -> [f64; 2] {
        point.map(|x| {
            let from_end = (x.min(1.0 - x) * self.position).clamp(0.01, 0.5);
            if x <= 0.5 {
                from_end
            } else {
                1.0 - from_end
            }
        })
    }

    /// The factor on a hammer's or a mallet's felt stiffness.
    pub(super) fn hardness(self) -> f64 {
        self.hardness
    }
}

/// A change of touch: how hard, how bright, or the note's own damping factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Expression {
    Pressure(f64),
    Brightness(f64),
    Damping(f64),
}

/// Takes `expression` on `input`'s channel (`note: None`: the channel's `touch` and every string
/// its notes hold) or on the string holding `note` there, pushing the damping changes the
/// strings' channel `factors` then call for.
pub(super) fn express(
    strings: &mut [Strand],
    touch: &mut Touch,
    input: &NoteInput,
    note: Option<u8>,
    expression: Expression,
    factors: Factors,
    out: &mut Vec<Gesture>,
) {
    let set = |touch: &mut Touch| match expression {
        Expression::Pressure(amount) => touch.pressure = amount.clamp(0.0, 1.0),
        Expression::Brightness(amount) => touch.brightness = amount.clamp(0.0, 1.0),
        Expression::Damping(factor) => touch.damping = bounded(factor).unwrap_or(touch.damping),
    };
    if note.is_none() {
        set(touch);
    }
    let touched = |s: &Strand| match note {
        None => channel_of(s) == Some(input.channel),
        Some(note) => s.note == Some((note, input.channel)),
    };
    for string in strings.iter_mut().filter(|s| touched(s)) {
        set(&mut string.touch);
        let own = string.own(factors);
        string.factors.change_to(own, input.time, string.part, out);
    }
}
