//! What a note map plays ([`super::notes::NoteMap`]): inputs in time, from a keyboard, a MIDI
//! file, a plugin's host or a script, and live MIDI bytes read as inputs.

use super::controls::SetParameter;
use super::expression::ExciteParameter;

/// One input, at `time` (s), from `track` (a MIDI file's track; 0 live) and `channel` (0-15).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoteInput {
    /// When, s.
    pub time: f64,
    /// The MIDI file's track it came from, 0-based.
    pub track: usize,
    /// MIDI channel, 0-based.
    pub channel: u8,
    /// What.
    pub kind: NoteKind,
}

/// What a [`NoteInput`] says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoteKind {
    /// A key pressed: MIDI note number, velocity 1 to 127 (0 is a note off).
    On {
        /// MIDI note (60 = C4).
        note: u8,
        /// Velocity, 1 to 127.
        velocity: u8,
    },
    /// A key lifted.
    Off {
        /// MIDI note.
        note: u8,
    },
    /// The sustain pedal (CC 64) pressed (true) or lifted.
    Sustain(bool),
    /// Pitch bend, -1 to 1 of [`BEND_RANGE`](super::notes::BEND_RANGE) (per channel: with
    /// MPE, per note).
    Bend(f64),
    /// How hard a note is pressed, 0 to 1 (MPE's or a channel's aftertouch, a key's polyphonic
    /// aftertouch, CLAP's pressure expression): its string's damping factor (`set damping`)
    /// times [`PRESSURE_DAMPING`](super::expression::PRESSURE_DAMPING)`^amount`, as a finger
    /// resting on it damps it.
    Pressure {
        /// The note pressed on the input's channel; `None`: every note of the channel, and the
        /// notes it begins from now on.
        note: Option<u8>,
        /// From 0 (no pressure) to 1.
        amount: f64,
    },
    /// How bright a note is, 0 to 1 (MPE's timbre, CC 74 when no mapping takes it; CLAP's
    /// brightness expression): where its string's next pluck pulls, its distance from the
    /// bridge times [`BRIGHTNESS_SPAN`](super::expression::BRIGHTNESS_SPAN)`^(1 - 2 amount)`
    /// (0.5: as the instrument plucks).
    Timbre {
        /// The note on the input's channel; `None`: every note of the channel, and the notes
        /// it begins from now on.
        note: Option<u8>,
        /// From 0 (dull) to 1 (bright).
        amount: f64,
    },
    /// A held note's own damping factor (a CLAP polyphonic modulation of the damping), times
    /// its channel's (`set damping`) and its pressure's: its string's dampers and mode damping.
    Damping {
        /// The note on the input's channel.
        note: u8,
        /// The factor (> 0; kept within 1/64 to 64; 1: the channel's).
        factor: f64,
    },
    /// A controller (CC) other than the sustain pedal moved: controller number and value
    /// (0-127). It does something only when the map has a
    /// [`ControlMapping`](super::controls::ControlMapping) for it (or, CC 74, as [`NoteKind::Timbre`]).
    Control {
        /// Controller number.
        controller: u8,
        /// Its value, 0 to 127.
        value: u8,
    },
    /// A held note's own pitch offset, `semitones` from the pitch it began at (a CLAP note
    /// expression): its string moves to the fret of the equal-tempered note nearest the new
    /// pitch, with its tension for the rest (beyond the string's frets, or on a piano's key,
    /// the fret stays and the tension does it all).
    Tuning {
        /// MIDI note held (on the input's channel).
        note: u8,
        /// The offset, semitones.
        semitones: f64,
    },
    /// Key `key` to sound `frequency` (Hz) from now on, in every channel (a MIDI Tuning
    /// Standard message, [`crate::score::tuning::tuning_changes`]): before a scale's tuning.
    Retune {
        /// MIDI key.
        key: u8,
        /// Its frequency, Hz.
        frequency: f64,
    },
    /// A factor on a `set` parameter for every channel (a plugin's host parameter), relative
    /// to the instrument as built; it multiplies the channels' bends and controllers.
    Set {
        /// The parameter.
        parameter: SetParameter,
        /// Its factor (> 0).
        factor: f64,
    },
    /// A factor on how every channel's next notes are excited (a plugin's host parameter),
    /// relative to the instrument as designed: where they pluck or strike, how hard.
    Excite {
        /// The parameter.
        parameter: ExciteParameter,
        /// Its factor (> 0; kept within 1/64 to 64).
        factor: f64,
    },
}

/// A live MIDI message (`bytes`, status first) as a channel (0-based) and an input: note on and
/// off, CC 64 (sustain), the other controllers, pitch bend, channel and polyphonic aftertouch;
/// `None` for anything else.
pub fn from_midi(bytes: &[u8]) -> Option<(u8, NoteKind)> {
    let (&status, data) = bytes.split_first()?;
    let channel = status & 0x0f;
    let byte = |i: usize| data.get(i).copied().filter(|b| *b < 0x80);
    let kind = match status & 0xf0 {
        0x90 => NoteKind::On { note: byte(0)?, velocity: byte(1)? },
        0x80 => NoteKind::Off { note: byte(0)? },
        0xb0 if byte(0)? == 64 => NoteKind::Sustain(byte(1)? >= 64),
        0xb0 => NoteKind::Control { controller: byte(0)?, value: byte(1)? },
        0xd0 => NoteKind::Pressure { note: None, amount: f64::from(byte(0)?) / 127.0 },
        0xa0 => NoteKind::Pressure { note: Some(byte(0)?), amount: f64::from(byte(1)?) / 127.0 },
        0xe0 => {
            let value = i32::from(byte(0)?) | i32::from(byte(1)?) << 7;
            NoteKind::Bend(f64::from(value - 0x2000) / f64::from(0x2000))
        }
        _ => return None,
    };
    Some((channel, kind))
}
