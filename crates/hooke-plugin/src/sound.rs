//! One instrument built to be played: the library's live core (`hooke::score::live`) set up as
//! `hooke play` and the playground set it up, with the host's MIDI in and the host's channels
//! out.
//!
//! [`Sound::build`] parses and builds the instrument, calibrates its gain and renders the
//! warm-up block: everything that allocates, done on the host's main thread when the plugin is
//! activated. [`Sound::send`] and [`Sound::render`] run on the audio thread: the note map and
//! the resolver ([`LiveInput`]) put cues in the core's queue, and [`LiveCore::process`] takes
//! them before the next frame it renders.

use hooke::engine::decimate::Decimator;
use hooke::format::instrument::parse;
use hooke::score::controls::SetParameter;
use hooke::score::expression::ExciteParameter;
use hooke::score::live::{calibrate, live, LiveCore, LiveInput, LiveOptions};
use hooke::score::notes::{from_midi, NoteInput, NoteKind, StringRule};
use hooke::score::performance::PerformanceOptions;
use hooke::score::tuning::{tuning_changes, Tuning};
use nice_plug::prelude::SysExMessage;
use std::ops::Range;

/// A fortissimo note's peak, as a fraction of full scale (room for chords), as `hooke play`
/// and the playground.
const NOTE_LEVEL: f64 = 0.25;

/// Cues the queue between the note map and the core holds: far more than one block's notes
/// make.
const QUEUE: usize = 4096;

/// Output channels: the plugin's stereo port (a mono instrument plays on both).
const CHANNELS: usize = 2;

/// The longest system-exclusive message the plugin takes, bytes: a MIDI Tuning Standard bulk
/// dump is 408.
const LONGEST_SYSEX: usize = 512;

/// A MIDI Tuning Standard system-exclusive message ([`tuning_changes`] reads it): the only
/// system-exclusive messages the plugin takes.
#[derive(Debug, Clone, PartialEq)]
pub struct TuningMessage {
    bytes: [u8; LONGEST_SYSEX],
    length: usize,
}

impl SysExMessage for TuningMessage {
    type Buffer = [u8; LONGEST_SYSEX];

    fn from_buffer(buffer: &[u8]) -> Option<Self> {
        let mut bytes = [0; LONGEST_SYSEX];
        bytes.get_mut(..buffer.len())?.copy_from_slice(buffer);
        tuning_changes(buffer, |_, _| ()).then_some(Self { bytes, length: buffer.len() })
    }

    fn as_buffer(&self) -> (Self::Buffer, usize) {
        (self.bytes, self.length)
    }
}

/// A host parameter the sound takes as a factor of the instrument's own (1: as designed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factor {
    /// The strings' (a drum's membrane's) tension.
    Tension,
    /// Their links' dampers.
    Damping,
    /// Where the next notes pluck or strike.
    Position,
    /// How hard.
    Hardness,
}

impl Factor {
    /// Every factor, in the order of [`Sound`]'s record of them.
    pub const ALL: [Self; 4] = [Self::Tension, Self::Damping, Self::Position, Self::Hardness];

    /// The live input that sets it to `factor` for every channel.
    fn kind(self, factor: f64) -> NoteKind {
        let set = |parameter| NoteKind::Set { parameter, factor };
        let excite = |parameter| NoteKind::Excite { parameter, factor };
        match self {
            Self::Tension => set(SetParameter::Tension),
            Self::Damping => set(SetParameter::Damping),
            Self::Position => excite(ExciteParameter::Position),
            Self::Hardness => excite(ExciteParameter::Hardness),
        }
    }
}

/// An instrument ready to play.
pub struct Sound {
    /// The note map and the resolver, feeding the core's queue.
    input: LiveInput,
    /// The real-time renderer.
    core: LiveCore,
    /// Interleaved stereo frames from the core, `CHANNELS` times the largest block.
    interleaved: Vec<f32>,
    /// The engine's latency, output frames ([`engine_latency`]).
    latency: u32,
    /// The factors last set ([`Sound::set`]), by [`Factor`].
    factors: [f64; Factor::ALL.len()],
}

impl Sound {
    /// Parses the instrument file `source` (called `file` in errors) and builds it for its
    /// scheme at `rate` (Hz, the output rate), oversampled as its `[render]` says or as the
    /// analysis finds stable, for blocks of up to `max_frames` frames. Its gain puts a
    /// fortissimo note at a quarter of full scale; its notes in `tuning`, if any. Allocates:
    /// never on the audio thread.
    pub fn build(
        source: &str,
        file: &str,
        rate: f64,
        max_frames: usize,
        tuning: Option<Tuning>,
    ) -> Result<Self, String> {
        let instrument_file = parse(source, file).map_err(|e| e.to_string())?;
        let (oversample, instrument) = instrument_file
            .build_stable(instrument_file.scheme, rate, instrument_file.oversample)
            .map_err(|e| e.to_string())?;
        let performance = PerformanceOptions { oversample, ..PerformanceOptions::default() };
        let (gain, _) =
            calibrate(&instrument, performance, NOTE_LEVEL).map_err(|e| format!("{file}: {e}"))?;
        let max_frames = max_frames.max(1);
        let options = LiveOptions {
            performance,
            rate,
            max_frames,
            gain,
            queue: QUEUE,
            record: 0,
            rule: StringRule::LowestFret,
            controls: Vec::new(),
            tuning,
        };
        let (input, core, _, _) = live(&instrument, options).map_err(|e| format!("{file}: {e}"))?;
        Ok(Self {
            input,
            core,
            interleaved: vec![0.0; CHANNELS * max_frames],
            latency: engine_latency(oversample),
            factors: [1.0; Factor::ALL.len()],
        })
    }

    /// The engine's latency, output frames: reported to the host, which compensates it.
    pub fn latency(&self) -> u32 {
        self.latency
    }

    /// Plays the MIDI message `bytes` (status byte first) from the next frame rendered: note on
    /// and off, the sustain pedal (CC 64), pitch bend (2 semitones either way); other messages,
    /// and notes the instrument cannot play, are ignored.
    pub fn send(&mut self, bytes: &[u8]) {
        if let Some((channel, kind)) = from_midi(bytes) {
            self.send_kind(channel, kind);
        }
    }

    /// Retunes the keys `message` retunes, from the next frame rendered, on every channel.
    /// Allocates nothing.
    pub fn retune(&mut self, message: &TuningMessage) {
        tuning_changes(&message.bytes[..message.length], |key, frequency| {
            self.send_kind(0, NoteKind::Retune { key, frequency })
        });
    }

    /// Plays `kind` on MIDI channel `channel` (0-based) from the next frame rendered.
    pub fn send_kind(&mut self, channel: u8, kind: NoteKind) {
        // An unplayable note is not played; there is no one to tell on the audio thread.
        let _ = self.input.send(&NoteInput { time: 0.0, track: 0, channel, kind });
    }

    /// Sets `factor` (of the instrument's own) for every channel, if it changed: a sounding
    /// string takes a tension or a damping from the next frame, the others at their next note;
    /// a position or a hardness acts on the next notes. Allocates nothing.
    pub fn set(&mut self, factor: Factor, value: f64) {
        let last = &mut self.factors[factor as usize];
        if value != *last {
            *last = value;
            self.send_kind(0, factor.kind(value));
        }
    }

    /// Renders the frames `frames` of every channel of `outputs` (full scale 1), in pieces of
    /// the largest block. Allocates nothing.
    pub fn render(&mut self, outputs: &mut [&mut [f32]], frames: Range<usize>) {
        let piece = self.interleaved.len() / CHANNELS;
        let mut start = frames.start;
        while start < frames.end {
            let end = (start + piece).min(frames.end);
            let block = &mut self.interleaved[..CHANNELS * (end - start)];
            self.core.process(block, CHANNELS);
            for (channel, output) in outputs.iter_mut().enumerate() {
                let source = channel.min(CHANNELS - 1);
                for (sample, frame) in output[start..end].iter_mut().zip(block.chunks_exact(CHANNELS)) {
                    *sample = frame[source];
                }
            }
            start = end;
        }
    }
}

/// The frames by which the live engine delays a note when it oversamples by `oversample`
/// (`K`), rounded to the nearest: output frame `n` is complete once simulation step
/// `n K + D` has run (`D` the decimator's half-length), so after a block the engine has
/// already simulated `D + 1 - K` steps past its last frame, and a cue taken then acts that
/// much later than it would in an offline render (`hooke render`). Zero without oversampling.
fn engine_latency(oversample: usize) -> u32 {
    let oversample = oversample.max(1);
    let ahead = (Decimator::new(oversample, 1).delay() + 1).saturating_sub(oversample);
    (ahead as f64 / oversample as f64).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::Preset;

    #[test]
    fn no_oversampling_no_latency() {
        assert_eq!(engine_latency(1), 0);
    }

    #[test]
    fn oversampling_delays_by_the_decimators_half_length() {
        for k in 2..=8 {
            let d = Decimator::new(k, 1).delay();
            let latency = f64::from(engine_latency(k));
            assert!(
                (latency - (d + 1 - k) as f64 / k as f64).abs() <= 0.5,
                "K {k}: D {d}, latency {latency}"
            );
        }
    }

    #[test]
    fn a_broken_file_is_an_error_naming_its_line() {
        let (_, text) = Preset::Marimba.file();
        let broken = text.replacen("[marimba]", "[marimba]\nbars = = 3", 1);
        let error = Sound::build(&broken, "broken.toml", 44_100.0, 64, None).err().expect("refused");
        assert!(error.starts_with("broken.toml:"), "{error}");
    }
}
