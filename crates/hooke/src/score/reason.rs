//! Why a note cannot be played, with what the instrument can play instead: data, formatted
//! only when shown, so that a note refused on the audio thread (a plugin's `process`) allocates
//! nothing.

use crate::instrument::note_name;
use std::fmt;

/// A set of MIDI notes (0 to 127).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoteSet(u128);

impl NoteSet {
    /// The notes `notes` (those outside 0 to 127 left out).
    pub fn of(notes: impl IntoIterator<Item = i32>) -> Self {
        let bits = notes.into_iter().filter(|n| (0..128).contains(n)).fold(0, |bits, n| bits | 1u128 << n);
        Self(bits)
    }

    /// The notes from `low` to `high`, both included (clamped to 0 to 127).
    pub fn span(low: i32, high: i32) -> Self {
        Self::of(low.max(0)..=high.min(127))
    }

    /// The union.
    pub fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The notes, ascending.
    pub fn notes(self) -> impl Iterator<Item = u8> {
        (0..128u8).filter(move |&n| self.0 & 1u128 << n != 0)
    }

    /// The runs of consecutive notes, `(first, last)`, ascending.
    fn runs(self) -> impl Iterator<Item = (u8, u8)> {
        let starts = self.notes().filter(move |&n| n == 0 || self.0 & 1u128 << (n - 1) == 0);
        starts.map(move |first| {
            (first, (first..128).take_while(|&n| self.0 & 1u128 << n != 0).last().unwrap_or(first))
        })
    }
}

/// The notes by name, `C4, E4, G4`.
struct Names(NoteSet);

impl fmt::Display for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, note) in self.0.notes().enumerate() {
            write!(f, "{}{}", if i > 0 { ", " } else { "" }, note_name(note))?;
        }
        Ok(())
    }
}

/// The notes as runs, `E2 to E4, A4 to C6`.
struct Runs(NoteSet);

impl fmt::Display for Runs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (first, last)) in self.0.runs().enumerate() {
            write!(f, "{}{} to {}", if i > 0 { ", " } else { "" }, note_name(first), note_name(last))?;
        }
        Ok(())
    }
}

/// Why a note cannot be played, and what the instrument plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reason {
    /// Its tuning leaves it unplayed, or puts it outside the MIDI notes.
    Untuned,
    /// With one string a channel, its channel (0-based) has none: the instrument has `strings`.
    NoStringForChannel { channel: u8, strings: usize },
    /// With one string a channel, it is not on its channel's string, which plays `plays`.
    OffTheChannelsString { channel: u8, plays: NoteSet },
    /// Below the lowest string's open note `lowest`.
    BelowTheStrings { lowest: i32 },
    /// Above the highest fret's note `highest`.
    AboveTheFrets { highest: i32 },
    /// Between the strings' notes, `plays`.
    OnNoString { plays: NoteSet },
    /// No `what` (bar, plate) sounds it: they sound `keys`.
    NoKey { what: &'static str, keys: NoteSet },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |note: i32| note_name(note.clamp(0, 127) as u8);
        match *self {
            Self::Untuned => write!(f, "its tuning leaves it unplayed, or outside the MIDI notes"),
            Self::NoStringForChannel { channel, strings } => {
                write!(f, "channel {} has no string (the instrument has {strings})", channel + 1)
            }
            Self::OffTheChannelsString { channel, plays } => {
                write!(f, "not on the string of channel {} (which plays {})", channel + 1, Runs(plays))
            }
            Self::BelowTheStrings { lowest } => write!(f, "below the lowest string ({})", name(lowest)),
            Self::AboveTheFrets { highest } => write!(f, "above the highest fret ({})", name(highest)),
            Self::OnNoString { plays } => write!(f, "on no string (they play {})", Runs(plays)),
            Self::NoKey { what, keys } => write!(f, "no {what} sounds it (the {what}s: {})", Names(keys)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_show_by_name_and_by_runs() {
        let set = NoteSet::of([60, 64, 67, 127, 128, -1]);
        assert_eq!(Names(set).to_string(), "C4, E4, G4, G9");
        let strings = NoteSet::span(40, 52).with(NoteSet::span(45, 57)).with(NoteSet::span(70, 71));
        assert_eq!(Runs(strings).to_string(), "E2 to A3, A#4 to B4");
        assert_eq!(Runs(NoteSet::span(0, 0)).to_string(), "C-1 to C-1");
    }
}
