//! An instrument played live: an instrument file built for the page's rate, notes in through
//! the live core's queue, blocks out of [`LiveCore::process`], the real-time body `hooke play`
//! runs in its audio callback (it never allocates).

use crate::instrument::BuiltInstrument;
use crate::playground::WebError;
use hooke::scheme::SchemeKind;
use hooke::score::live::{live, LiveCore, LiveInput, LiveOptions};
use hooke::score::notes::{from_midi, NoteInput, NoteKind, StringRule};
use hooke::score::tuning::tuning_changes;

/// The most frames one [`LiveInstrument::render`] call gives.
pub const MAX_LIVE_FRAMES: usize = 8192;

/// Cues the queue between notes and blocks holds.
const QUEUE: usize = 1024;

/// An instrument, its live input and its real-time core.
pub struct LiveInstrument {
    file: String,
    input: LiveInput,
    core: LiveCore,
    /// Interleaved stereo frames of the last render (`MAX_LIVE_FRAMES` of them).
    output: Vec<f32>,
    /// Output rate, Hz.
    rate: f64,
    /// Simulation steps per output frame.
    oversample: usize,
}

impl LiveInstrument {
    /// Parses the instrument file `source` (called `file` in errors) and builds it for its
    /// scheme at `rate` Hz (the output rate), oversampled as its `[render]` says or as the
    /// analysis finds stable; its gain puts a fortissimo note at a quarter of full scale.
    pub fn load(source: &str, file: &str, rate: f64) -> Result<Self, WebError> {
        Self::load_with(source, file, rate, None)
    }

    /// As [`LiveInstrument::load`], for `scheme` (the file's when `None`).
    pub fn load_with(
        source: &str,
        file: &str,
        rate: f64,
        scheme: Option<SchemeKind>,
    ) -> Result<Self, WebError> {
        let built = BuiltInstrument::load(source, file, rate, scheme)?;
        let options = LiveOptions {
            performance: built.options(),
            rate,
            max_frames: MAX_LIVE_FRAMES,
            gain: built.gain,
            queue: QUEUE,
            record: 0,
            rule: StringRule::LowestFret,
            controls: Vec::new(),
            tuning: None,
        };
        let (input, core, _, _) =
            live(&built.instrument, options).map_err(|e| WebError::run(file, e.to_string()))?;
        let output = vec![0.0; 2 * MAX_LIVE_FRAMES];
        Ok(Self { file: file.to_string(), input, core, output, rate, oversample: built.oversample })
    }

    /// Checks the instrument file `source` (called `file` in errors) as it is read, without
    /// building it.
    pub fn check(source: &str, file: &str) -> Result<(), WebError> {
        BuiltInstrument::check(source, file)
    }

    /// The output rate, Hz.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Simulation steps per output frame.
    pub fn oversample(&self) -> usize {
        self.oversample
    }

    /// A key pressed (`velocity` 1 to 127) or lifted (`velocity` 0): MIDI note `note` (60 =
    /// C4), played from the next block on.
    pub fn note(&mut self, note: u8, velocity: u8) -> Result<(), WebError> {
        let kind = if velocity == 0 { NoteKind::Off { note } } else { NoteKind::On { note, velocity } };
        self.send(0, kind)
    }

    /// A live MIDI message, status byte first: note on and off, the sustain pedal (CC 64),
    /// pitch bend (2 semitones either way), the other controllers (which do nothing: none is
    /// mapped) and the MIDI Tuning Standard's system-exclusive messages (their keys retuned),
    /// from the next block on. Anything else is ignored.
    pub fn midi(&mut self, bytes: &[u8]) -> Result<(), WebError> {
        if let Some((channel, kind)) = from_midi(bytes) {
            return self.send(channel, kind);
        }
        let mut sent = Ok(());
        tuning_changes(bytes, |key, frequency| {
            if sent.is_ok() {
                sent = self.send(0, NoteKind::Retune { key, frequency });
            }
        });
        sent
    }

    fn send(&mut self, channel: u8, kind: NoteKind) -> Result<(), WebError> {
        let input = NoteInput { time: 0.0, track: 0, channel, kind };
        self.input.send(&input).map(|_| ()).map_err(|e| WebError::run(&self.file, e.to_string()))
    }

    /// Renders the next `frames` frames (at most [`MAX_LIVE_FRAMES`]) as interleaved stereo
    /// (a mono instrument on both channels), full scale 1; returns them. Allocates nothing.
    pub fn render(&mut self, frames: usize) -> &[f32] {
        let frames = frames.min(MAX_LIVE_FRAMES);
        self.core.process(&mut self.output[..2 * frames], 2);
        &self.output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guitar() -> String {
        let path = format!("{}/../../examples/instruments/guitar.toml", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn a_note_sounds_at_its_pitch() {
        let mut guitar = LiveInstrument::load(&guitar(), "guitar.toml", 44_100.0).unwrap();
        assert!(guitar.render(4096)[..8192].iter().all(|&x| x == 0.0));
        // A3 = 220 Hz (12-tone equal temperament from A4 = 440 Hz): the open A string.
        guitar.note(57, 100).unwrap();
        let frames = 1 << 15;
        let mut left: Vec<f32> = Vec::with_capacity(frames);
        while left.len() < frames {
            left.extend(guitar.render(4096)[..8192].iter().step_by(2).copied());
        }
        let peak = left.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert!(peak > 0.01 && peak <= 1.0, "peak {peak}");
        // The strongest component from 150 to 300 Hz over the last 0.5 s (a DFT scanned in
        // 0.25 Hz steps, Hann window) is the note's fundamental, 220 Hz.
        let tail = &left[frames - 22_050..];
        let power = |hz: f64| {
            let (mut re, mut im) = (0.0, 0.0);
            for (i, &x) in tail.iter().enumerate() {
                let window = 0.5 - 0.5 * (std::f64::consts::TAU * i as f64 / tail.len() as f64).cos();
                let phase = std::f64::consts::TAU * hz * i as f64 / 44_100.0;
                re += window * f64::from(x) * phase.cos();
                im += window * f64::from(x) * phase.sin();
            }
            re * re + im * im
        };
        let strongest =
            (600..=1200).map(|k| k as f64 * 0.25).max_by(|a, b| power(*a).total_cmp(&power(*b))).unwrap();
        assert!((strongest - 220.0).abs() < 2.0, "strongest component at {strongest} Hz");
        guitar.note(57, 0).unwrap();
        assert!(guitar.note(10, 100).is_err(), "a note below the lowest string is refused");
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let text = guitar().replace("masses = 80", "masses = = 80");
        let line = text.lines().position(|l| l.starts_with("masses = =")).unwrap() + 1;
        let error = LiveInstrument::load(&text, "guitar.toml", 44_100.0).err().unwrap();
        assert_eq!(error.position.map(|p| p.0), Some(line), "{error:?}");
    }
}
