//! The strings a [`super::notes::NoteMap`] plays: what each is doing, the factors it is set
//! to, and which one a note goes to (the rules in [`super::notes`]).

use super::controls::SetParameter;
use super::expression::Touch;
use super::notes::{
    Gesture, NoteInput, NoteKind, NoteSet, Reason, StringRule, Stroke, Unplayable, RELEASE_DECAY,
};
use super::tuning::Retuned;
use crate::instrument::Damper;

/// A string and what it is doing.
#[derive(Debug, Clone)]
pub(super) struct Strand {
    pub(super) part: usize,
    pub(super) open: i32,
    pub(super) frets: usize,
    /// The note held on it and its channel.
    pub(super) note: Option<(u8, u8)>,
    /// Its note was lifted while the pedal held it.
    pub(super) pedal: bool,
    pub(super) fret: usize,
    pub(super) damped: bool,
    /// Its `set` factors now.
    pub(super) factors: Factors,
    /// Its note's tension factor from a tuning or a note expression
    /// ([`super::tuning::Retuned::tension`]; 1 without either).
    pub(super) detune: f64,
    /// The frequency its note began at, Hz (before a note expression moves it).
    pub(super) base_hz: f64,
    /// When its note began (an input count).
    pub(super) began: u64,
    /// Where its hammer strikes (a fraction of the length), if it is struck rather than plucked.
    pub(super) struck_at: Option<f64>,
    /// How it is plucked (as designed: its note's touch moves where).
    pub(super) plucker: crate::instrument::Plucker,
    /// How its note is touched (pressure, brightness).
    pub(super) touch: Touch,
    /// What stops it when its note ends.
    pub(super) damper: Damper,
}

impl Strand {
    /// The fret at which it plays the equal-tempered note `note`, if it has one.
    pub(super) fn fret_of(&self, note: u8) -> Option<usize> {
        let fret = i32::from(note) - self.open;
        (fret >= 0 && fret as usize <= self.frets).then_some(fret as usize)
    }

    /// Takes `retuned` (its fret, its tension times the channel's `factors`) from `time`,
    /// pushing the `fret`, `release` and `set`s that move it there. The fret must be one it
    /// has ([`Strand::fret_of`]).
    pub(super) fn take(&mut self, retuned: Retuned, factors: Factors, time: f64, out: &mut Vec<Gesture>) {
        let fret = self.fret_of(retuned.note).expect("a fret of the string");
        if fret != self.fret {
            let stroke = if fret == 0 { Stroke::Release } else { Stroke::Fret(fret) };
            out.push(Gesture { time, part: self.part, stroke });
            self.fret = fret;
        }
        self.detune = retuned.tension;
        let own = self.own(factors);
        self.factors.change_to(own, time, self.part, out);
    }

    /// Its own factors: its channel's `factors`, the tension times its note's detuning, the
    /// damping times its touch's pressure ([`Touch::damping`]).
    pub(super) fn own(&self, factors: Factors) -> Factors {
        Factors { tension: factors.tension * self.detune, damping: factors.damping * self.touch.damping() }
    }
}

/// A part's `set` factors (tension, damping), relative to the instrument as built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Factors {
    pub(super) tension: f64,
    pub(super) damping: f64,
}

impl Factors {
    pub(super) const AS_BUILT: Self = Self { tension: 1.0, damping: 1.0 };

    /// Sets `parameter`'s factor to `factor`.
    pub(super) fn set(&mut self, parameter: SetParameter, factor: f64) {
        match parameter {
            SetParameter::Tension => self.tension = factor,
            SetParameter::Damping => self.damping = factor,
        }
    }

    /// Pushes the `set`s that take a part from `self` to `to`, and takes them.
    pub(super) fn change_to(&mut self, to: Self, time: f64, part: usize, out: &mut Vec<Gesture>) {
        if to.tension != self.tension {
            out.push(Gesture { time, part, stroke: Stroke::Tension(to.tension) });
        }
        if to.damping != self.damping {
            out.push(Gesture { time, part, stroke: Stroke::Damping(to.damping) });
        }
        *self = to;
    }
}

/// The channel of the note a string holds.
pub(super) fn channel_of(string: &Strand) -> Option<u8> {
    string.note.map(|(_, channel)| channel)
}

/// Damps a string whose note has ended (one with no damper rings on).
pub(super) fn silence(string: &mut Strand, time: f64, out: &mut Vec<Gesture>) {
    string.note = None;
    string.pedal = false;
    if !string.damped && string.damper != Damper::None {
        out.push(Gesture { time, part: string.part, stroke: Stroke::Damp(RELEASE_DECAY) });
        string.damped = true;
    }
}

/// The string that plays `note`, an equal-tempered note (see the module's rules): the one
/// that holds the input's own note, if any, else by the rule.
pub(super) fn choose(
    strings: &[Strand],
    rule: StringRule,
    input: &NoteInput,
    note: u8,
) -> Result<usize, Unplayable> {
    let fret = |s: &Strand| s.fret_of(note);
    let unplayable = |reason: Reason| Unplayable { input: *input, note, reason };
    let plays = |s: &Strand| NoteSet::span(s.open, s.open + s.frets as i32);
    if rule == StringRule::ByChannel {
        let (channel, count) = (input.channel, strings.len());
        let index = count.checked_sub(1 + usize::from(channel));
        let index = index.ok_or(unplayable(Reason::NoStringForChannel { channel, strings: count }))?;
        return match fret(&strings[index]) {
            Some(_) => Ok(index),
            None => Err(unplayable(Reason::OffTheChannelsString { channel, plays: plays(&strings[index]) })),
        };
    }
    // The strings where the note lies, as an iterator: a note allocates nothing, played or
    // refused (it is mapped on a live input thread, or in a plugin's audio callback).
    let candidates = || (0..strings.len()).filter(|&s| fret(&strings[s]).is_some());
    let Some(first) = candidates().next() else {
        let lowest = strings.iter().map(|s| s.open).min().unwrap_or(0);
        let highest = strings.iter().map(|s| s.open + s.frets as i32).max().unwrap_or(0);
        let reason = if i32::from(note) < lowest {
            Reason::BelowTheStrings { lowest }
        } else if i32::from(note) > highest {
            Reason::AboveTheFrets { highest }
        } else {
            Reason::OnNoString { plays: strings.iter().fold(NoteSet::default(), |set, s| set.with(plays(s))) }
        };
        return Err(unplayable(reason));
    };
    let key = match input.kind {
        NoteKind::On { note: key, .. } => key,
        _ => note,
    };
    if let Some(same) = candidates().find(|&s| strings[s].note.is_some_and(|(n, _)| n == key)) {
        return Ok(same);
    }
    let free = candidates().filter(|&s| strings[s].note.is_none()).min_by_key(|&s| (fret(&strings[s]), s));
    Ok(free.unwrap_or_else(|| candidates().min_by_key(|&s| strings[s].began).unwrap_or(first)))
}
