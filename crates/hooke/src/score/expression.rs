//! A held note's touch (MPE's pressure and timbre, channel and polyphonic aftertouch, CLAP's
//! pressure and brightness expressions) as physical changes of its string: pressure raises the
//! ringing string's damping as a finger resting on it harder would, and brightness moves where its next
//! pluck pulls, nearer the bridge the brighter (the plucked string's partial `n` has the
//! amplitude `sin(n pi p) / n^2` of a pull at `p`: Fletcher & Rossing 1998, chapter 2).

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

/// How a note is touched: pressure 0 to 1, brightness 0 to 1 (0.5 as the instrument plucks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Touch {
    pub(super) pressure: f64,
    pub(super) brightness: f64,
}

impl Touch {
    /// No pressure, the instrument's own brightness.
    pub(super) const NEUTRAL: Self = Self { pressure: 0.0, brightness: 0.5 };

    /// The factor pressure puts on the string's damping: `PRESSURE_DAMPING^pressure`.
    pub(super) fn damping(self) -> f64 {
        PRESSURE_DAMPING.powf(self.pressure)
    }

    /// `plucker` moved for brightness: its distance from the bridge `1 - p` times
    /// `BRIGHTNESS_SPAN^(1 - 2 brightness)`, kept inside the string (0.01 to 0.99).
    pub(super) fn pluck(self, plucker: Plucker) -> Plucker {
        let from_bridge = (1.0 - plucker.position) * BRIGHTNESS_SPAN.powf(1.0 - 2.0 * self.brightness);
        Plucker { position: (1.0 - from_bridge).clamp(0.01, 0.99), ..plucker }
    }
}

/// A change of touch: how hard, or how bright.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Expression {
    Pressure(f64),
    Brightness(f64),
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
