//! The voices a CLAP host modulates one by one: polyphonic modulation of the tension and the
//! damping. Each note the host gave an id is a voice in a fixed table (nothing allocates on the
//! audio thread) with its own tuning expression and its modulation offsets; the sound takes a
//! voice's tension as the note's own pitch offset (`NoteKind::Tuning`: the pitch goes as the
//! square root of the tension, so a tension `r` times the instrument's is `6 log2 r` semitones)
//! and its damping as the note's own damping factor (`NoteKind::Damping`). A voice ends at its
//! note off, or when a note on the same channel and key begins; the host is told
//! (`NoteEvent::VoiceTerminated`).

use crate::sound::Factor;
use hooke::score::notes::NoteKind;

/// The most voices held at once: one per key.
pub const CAPACITY: usize = 128;

/// A parameter the host may modulate voice by voice, by its polyphonic modulation id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modulated {
    /// The tension.
    Tension = 0,
    /// The damping.
    Damping = 1,
}

impl Modulated {
    /// The host parameter it is.
    pub fn factor(self) -> Factor {
        match self {
            Self::Tension => Factor::Tension,
            Self::Damping => Factor::Damping,
        }
    }

    /// The parameter of polyphonic modulation id `id`, if any.
    pub fn from_id(id: u32) -> Option<Self> {
        [Self::Tension, Self::Damping].into_iter().find(|m| *m as u32 == id)
    }
}

/// A note the host gave an id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Voice {
    /// The host's note id.
    pub id: i32,
    /// MIDI channel (0-based) and key.
    pub channel: u8,
    pub key: u8,
    /// Its tuning expression, semitones.
    tuning: f64,
    /// Its normalised modulation offsets, by [`Modulated`].
    pub offsets: [f32; 2],
    /// When it began (a count of the notes begun).
    began: u64,
}

impl Voice {
    /// The note's own pitch offset for its tuning expression and its tension `ratio` times the
    /// instrument's tension as set: `tuning + 6 log2 ratio` semitones.
    pub fn tuning(&self, ratio: f64) -> NoteKind {
        NoteKind::Tuning { note: self.key, semitones: self.tuning + 6.0 * ratio.log2() }
    }

    /// The note's own damping factor, `ratio` times the instrument's damping as set.
    pub fn damping(&self, ratio: f64) -> NoteKind {
        NoteKind::Damping { note: self.key, factor: ratio }
    }
}

/// The voices held.
#[derive(Debug, Clone)]
pub struct Voices {
    slots: [Option<Voice>; CAPACITY],
    began: u64,
}

impl Default for Voices {
    fn default() -> Self {
        Self { slots: [None; CAPACITY], began: 0 }
    }
}

impl Voices {
    /// A note with id `id` begins on `channel` and `key`; returns the voice it ends: the one
    /// on the same channel and key, or the oldest where every slot is taken.
    pub fn begin(&mut self, id: i32, channel: u8, key: u8) -> Option<Voice> {
        self.began += 1;
        let voice = Voice { id, channel, key, tuning: 0.0, offsets: [0.0; 2], began: self.began };
        let same = self.slots.iter().position(|v| v.is_some_and(|v| (v.channel, v.key) == (channel, key)));
        let free = || self.slots.iter().position(Option::is_none);
        let oldest = || (0..CAPACITY).min_by_key(|&i| self.slots[i].map_or(0, |v| v.began));
        let slot = same.or_else(free).or_else(oldest)?;
        self.slots[slot].replace(voice)
    }

    /// The note on `channel` and `key` ends: its voice, if it had one.
    pub fn end(&mut self, channel: u8, key: u8) -> Option<Voice> {
        let slot = self.slots.iter_mut().find(|v| v.is_some_and(|v| (v.channel, v.key) == (channel, key)))?;
        slot.take()
    }

    /// The voice of the note on `channel` and `key` takes the tuning expression `semitones`.
    pub fn tune(&mut self, channel: u8, key: u8, semitones: f64) -> Option<Voice> {
        let voice = self.slots.iter_mut().flatten().find(|v| (v.channel, v.key) == (channel, key))?;
        voice.tuning = semitones;
        Some(*voice)
    }

    /// Voice `id`'s offset of `parameter` becomes `offset` (normalised).
    pub fn modulate(&mut self, id: i32, parameter: Modulated, offset: f32) -> Option<Voice> {
        let voice = self.slots.iter_mut().flatten().find(|v| v.id == id)?;
        voice.offsets[parameter as usize] = offset;
        Some(*voice)
    }

    /// The voices modulating `parameter`.
    pub fn modulating(&self, parameter: Modulated) -> impl Iterator<Item = Voice> + '_ {
        self.slots.iter().flatten().copied().filter(move |v| v.offsets[parameter as usize] != 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_on_the_same_key_ends_its_voice_and_a_full_table_its_oldest() {
        let mut voices = Voices::default();
        assert_eq!(voices.begin(7, 0, 60), None);
        assert_eq!(voices.begin(8, 0, 60).map(|v| v.id), Some(7));
        for key in 0..CAPACITY as u8 - 1 {
            assert_eq!(voices.begin(100 + i32::from(key), 1, key), None);
        }
        // Full: the oldest (8, on channel 0) ends.
        assert_eq!(voices.begin(9, 2, 0).map(|v| v.id), Some(8));
        assert_eq!(voices.end(1, 5).map(|v| v.id), Some(105));
        assert_eq!(voices.end(1, 5), None);
    }

    #[test]
    fn a_voices_tension_is_its_pitch_offset_and_its_tuning_adds() {
        let mut voices = Voices::default();
        voices.begin(3, 0, 57);
        let voice = voices.tune(0, 57, 0.5).expect("a voice");
        // Four times the tension: an octave of pitch, 12 semitones, on top of the tuning.
        assert_eq!(voice.tuning(4.0), NoteKind::Tuning { note: 57, semitones: 12.5 });
        assert_eq!(voice.damping(0.25), NoteKind::Damping { note: 57, factor: 0.25 });
        assert!(voices.modulate(4, Modulated::Damping, 0.1).is_none());
        let modulated = voices.modulate(3, Modulated::Damping, 0.1).expect("voice 3");
        assert_eq!(modulated.offsets, [0.0, 0.1]);
        assert_eq!(voices.modulating(Modulated::Damping).count(), 1);
        assert_eq!(voices.modulating(Modulated::Tension).count(), 0);
    }
}
