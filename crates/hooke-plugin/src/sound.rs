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
use hooke::engine::PickupSpec;
use hooke::format::instrument::parse;
use hooke::instrument::{direct_pickups, Instrument};
use hooke::score::controls::SetParameter;
use hooke::score::expression::ExciteParameter;
use hooke::score::live::{calibrate, input_points, live, LiveCore, LiveInput, LiveOptions};
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

/// The core's channels for an instrument on a body: its own stereo pair (the body's radiation),
/// then the strings heard directly ([`direct_pickups`]), the two the body mix fades between.
const BODY_AND_STRINGS: usize = 2 * CHANNELS;

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
    /// Interleaved frames from the core, `channels` times the largest block.
    interleaved: Vec<f32>,
    /// The core's channels: [`CHANNELS`], or [`BODY_AND_STRINGS`] for an instrument on a body.
    channels: usize,
    /// The audio input of the piece being rendered, its channels averaged (full scale 1), as
    /// long as the largest block.
    audio_in: Vec<f32>,
    /// The force a full-scale audio input pushes with, N, last set ([`Sound::set_input`]).
    input_force: f64,
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
        let calibrated = |instrument: &Instrument| {
            calibrate(instrument, performance, NOTE_LEVEL)
                .map(|(gain, _)| gain)
                .map_err(|e| format!("{file}: {e}"))
        };
        let gain = calibrated(&instrument)?;
        let (instrument, channels) = match direct_pickups(&instrument) {
            Some(direct) => {
                let strings = Instrument { pickups: direct, ..instrument.clone() };
                let relative = calibrated(&strings)? / gain;
                let body = stereo(instrument.pickups, 0, 1.0);
                let pickups = body.into_iter().chain(stereo(strings.pickups, CHANNELS, relative)).collect();
                (Instrument { pickups, ..instrument }, BODY_AND_STRINGS)
            }
            None => (instrument, CHANNELS),
        };
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
        let (input, mut core, _, _) = live(&instrument, options).map_err(|e| format!("{file}: {e}"))?;
        core.open_input(input_points(&instrument)).map_err(|e| format!("{file}: {e}"))?;
        Ok(Self {
            input,
            core,
            interleaved: vec![0.0; channels * max_frames],
            channels,
            audio_in: vec![0.0; max_frames],
            input_force: 0.0,
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

    /// Sets the force (N) with which a full-scale audio input pushes the instrument's input
    /// points ([`input_points`]: a body's bridge, else each string, bar, plate or membrane), if
    /// it changed; 0 (or less) turns the input off. Allocates nothing.
    pub fn set_input(&mut self, newtons: f64) {
        let newtons = newtons.max(0.0);
        if newtons != self.input_force && self.core.set_input_gain(newtons).is_ok() {
            self.input_force = newtons;
        }
    }

    /// Renders the frames `frames` of every channel of `outputs` (full scale 1), in pieces of
    /// the largest block, driven by the same frames of `audio_in` (its channels averaged; none:
    /// silence) and, for an instrument on a body, each frame's body mix (`body_mix()`: 1 the
    /// body's radiation, 0 the strings heard directly). Allocates nothing.
    pub fn render(
        &mut self,
        outputs: &mut [&mut [f32]],
        frames: Range<usize>,
        audio_in: &[&mut [f32]],
        mut body_mix: impl FnMut() -> f32,
    ) {
        let channels = self.channels;
        let piece = self.interleaved.len() / channels;
        let mut start = frames.start;
        while start < frames.end {
            let end = (start + piece).min(frames.end);
            let heard = &mut self.audio_in[..end - start];
            average_channels(audio_in, start, heard);
            let block = &mut self.interleaved[..channels * (end - start)];
            self.core.process_with_input(block, channels, heard);
            for (offset, frame) in block.chunks_exact(channels).enumerate() {
                let mix = if channels == BODY_AND_STRINGS { body_mix() } else { 1.0 };
                for (channel, output) in outputs.iter_mut().enumerate() {
                    let source = channel.min(CHANNELS - 1);
                    output[start + offset] = match channels {
                        BODY_AND_STRINGS => mix * frame[source] + (1.0 - mix) * frame[CHANNELS + source],
                        _ => frame[source],
                    };
                }
            }
            start = end;
        }
    }
}

/// `heard[i]`, the mean of `channels`' samples at frame `start + i` (0 past their end, or
/// without channels).
fn average_channels(channels: &[&mut [f32]], start: usize, heard: &mut [f32]) {
    let share = 1.0 / channels.len().max(1) as f32;
    for (i, sample) in heard.iter_mut().enumerate() {
        *sample = channels.iter().map(|channel| channel.get(start + i).copied().unwrap_or(0.0)).sum::<f32>()
            * share;
    }
}

/// `pickups` on the channels `first + 1` and `first + 2` (a mono instrument's channel heard on
/// both), their weights times `scale`.
fn stereo(pickups: Vec<PickupSpec>, first: usize, scale: f64) -> Vec<PickupSpec> {
    let mono = pickups.iter().all(|pickup| pickup.channel == 1);
    let copies = if mono { CHANNELS } else { 1 };
    let spread = pickups.into_iter().flat_map(|pickup| {
        (0..copies).map(move |copy| PickupSpec {
            channel: first + pickup.channel + copy,
            weight: pickup.weight * scale,
            ..pickup.clone()
        })
    });
    spread.collect()
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
    use hooke::score::notes::NoteInput;

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

    const RATE: f64 = 44_100.0;
    const BLOCK: usize = 256;

    /// `preset` as the plugin plays it at 44.1 kHz in blocks of [`BLOCK`], and the same
    /// instrument on the library's live core, heard by `pickups(instrument)` with its gain
    /// calibrated on them.
    fn sound_and_core(
        preset: Preset,
        pickups: fn(&Instrument) -> Vec<PickupSpec>,
    ) -> (Sound, LiveInput, LiveCore) {
        let (file, text) = preset.file();
        let sound = Sound::build(text, file, RATE, BLOCK, None).unwrap();
        let parsed = parse(text, file).unwrap();
        let (oversample, instrument) = parsed.build_stable(parsed.scheme, RATE, parsed.oversample).unwrap();
        let instrument = Instrument { pickups: pickups(&instrument), ..instrument };
        let performance = PerformanceOptions { oversample, ..PerformanceOptions::default() };
        let (gain, _) = calibrate(&instrument, performance, NOTE_LEVEL).unwrap();
        let options = LiveOptions {
            performance,
            rate: RATE,
            max_frames: BLOCK,
            gain,
            queue: QUEUE,
            record: 0,
            rule: StringRule::LowestFret,
            controls: Vec::new(),
            tuning: None,
        };
        let (input, mut core, _, _) = live(&instrument, options).unwrap();
        core.open_input(input_points(&instrument)).unwrap();
        (sound, input, core)
    }

    /// `frames` frames of the core's first channel, driven by `excitation` (mono).
    fn core_left(core: &mut LiveCore, frames: usize, excitation: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0f32; 2 * frames];
        for (block, fed) in
            out.chunks_mut(2 * BLOCK).zip(excitation.chunks(BLOCK).chain(std::iter::repeat(&[][..])))
        {
            core.process_with_input(block, 2, fed);
        }
        out.chunks_exact(2).map(|frame| frame[0]).collect()
    }

    /// `frames` frames of the sound's first channel at body mix `mix`, driven by `excitation`.
    fn sound_left(sound: &mut Sound, frames: usize, excitation: &[&mut [f32]], mix: f32) -> Vec<f32> {
        let (mut left, mut right) = (vec![0.0f32; frames], vec![0.0f32; frames]);
        sound.render(&mut [&mut left, &mut right], 0..frames, excitation, || mix);
        left
    }

    /// Asserts `heard` is `expected` within 1e-6 of its peak, and heard.
    fn assert_same(heard: &[f32], expected: &[f32], what: &str) {
        let peak = expected.iter().fold(0.0f32, |p, x| p.max(x.abs()));
        let difference = heard.iter().zip(expected).fold(0.0f32, |d, (x, y)| d.max((x - y).abs())) / peak;
        assert!(peak > 1e-3, "{what}: silent (peak {peak})");
        assert!(difference < 1e-6, "{what}: differs by {difference:e} of the peak {peak}");
    }

    #[test]
    fn the_body_mix_fades_from_the_body_to_the_strings_heard_directly() {
        let frames = 8192;
        let own: fn(&Instrument) -> Vec<PickupSpec> = |instrument| instrument.pickups.clone();
        let direct: fn(&Instrument) -> Vec<PickupSpec> =
            |instrument| direct_pickups(instrument).expect("a body");
        let mut heard = Vec::new();
        for (mix, pickups) in [(1.0, own), (0.0, direct), (0.5, own)] {
            let (mut sound, mut input, mut core) = sound_and_core(Preset::AcousticGuitar, pickups);
            let note =
                NoteInput { time: 0.0, track: 0, channel: 0, kind: NoteKind::On { note: 45, velocity: 100 } };
            sound.send_kind(0, note.kind);
            input.send(&note).unwrap();
            heard.push(sound_left(&mut sound, frames, &[], mix));
            if mix != 0.5 {
                assert_same(
                    &heard[heard.len() - 1],
                    &core_left(&mut core, frames, &[]),
                    &format!("body mix {mix}"),
                );
            }
        }
        let halfway: Vec<f32> =
            heard[0].iter().zip(&heard[1]).map(|(body, strings)| 0.5 * body + 0.5 * strings).collect();
        assert_same(&heard[2], &halfway, "body mix 0.5");
        let (body, strings) = (&heard[0], &heard[1]);
        let apart = body.iter().zip(strings).fold(0.0f32, |d, (a, b)| d.max((a - b).abs()));
        assert!(apart > 0.01, "the body and the strings sound alike ({apart})");
    }

    #[test]
    fn an_audio_input_drives_the_instrument_as_the_live_core_fed_its_mean() {
        let frames = 4096;
        let (mut left, mut right): (Vec<f32>, Vec<f32>) = (0..frames)
            .map(|n| (((n * 37) % 101) as f32 / 50.0 - 1.0, ((n * 53) % 89) as f32 / 44.0 - 1.0))
            .unzip();
        let mean: Vec<f32> = left.iter().zip(&right).map(|(l, r)| 0.5 * (l + r)).collect();
        for preset in [Preset::Guitar, Preset::AcousticGuitar] {
            let own: fn(&Instrument) -> Vec<PickupSpec> = |instrument| instrument.pickups.clone();
            let (mut sound, _, mut core) = sound_and_core(preset, own);
            let off = sound_left(&mut sound, 256, &[&mut left[..256], &mut right[..256]], 1.0);
            assert!(off.iter().all(|&x| x == 0.0), "{}: an input with no drive is heard", preset.name());
            core_left(&mut core, 256, &mean[..256]);
            sound.set_input(0.2);
            core.set_input_gain(0.2).unwrap();
            let heard = sound_left(&mut sound, frames - 256, &[&mut left[256..], &mut right[256..]], 1.0);
            let expected = core_left(&mut core, frames - 256, &mean[256..]);
            assert_same(&heard, &expected, preset.name());
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
