//! The plugin driven directly by a mock host (activate, then `process` on blocks of note
//! events), for what no CLAP host sees: the state it shares with its editor (the meters, the
//! errors, what plays). tests/plugin/ tests it through CLAP.

use super::*;
use nice_plug::prelude::{AudioIOLayout, AuxiliaryBuffers, BufferConfig, ProcessMode, Transport};
use std::cell::Cell;
use std::collections::VecDeque;
use std::path::PathBuf;

/// The output rate, Hz.
const RATE: f32 = 44_100.0;

/// The largest block, frames.
const BLOCK: usize = 256;

/// A host's contexts: the events of the block being processed, and what the plugin asked.
struct MockHost {
    events: VecDeque<PluginNoteEvent<Hooke>>,
    transport: Transport,
    restart: Cell<bool>,
}

impl MockHost {
    fn new() -> Self {
        Self { events: VecDeque::new(), transport: Transport::new(RATE), restart: Cell::new(false) }
    }
}

impl ActivateContext<Hooke> for MockHost {
    fn plugin_api(&self) -> PluginApi {
        PluginApi::Clap
    }
    fn execute(&self, _task: ()) {}
    fn set_latency_samples(&self, _samples: u32) {}
    fn set_current_voice_capacity(&self, _capacity: u32) {}
}

impl ProcessContext<Hooke> for MockHost {
    fn plugin_api(&self) -> PluginApi {
        PluginApi::Clap
    }
    fn execute_background(&self, _task: ()) {}
    fn execute_gui(&self, _task: ()) {}
    fn transport(&self) -> &Transport {
        &self.transport
    }
    fn next_event(&mut self) -> Option<PluginNoteEvent<Hooke>> {
        self.events.pop_front()
    }
    fn try_send_event(
        &mut self,
        _event: PluginNoteEvent<Hooke>,
    ) -> Result<(), (PluginNoteEvent<Hooke>, nice_plug::context::process::SendEventError)> {
        Ok(())
    }
    fn set_latency_samples(&self, _samples: u32) {}
    fn request_restart(&self) {
        self.restart.set(true);
    }
    fn set_current_voice_capacity(&self, _capacity: u32) {}
}

/// Activates `plugin` at [`RATE`] for blocks of up to [`BLOCK`] frames, its gain at its value
/// (as a host's wrapper sets the smoothers).
fn activate(plugin: &mut Hooke) -> bool {
    let gain = &plugin.params.gain;
    gain.smoothed.reset(gain.value());
    let layout: AudioIOLayout = Hooke::AUDIO_IO_LAYOUTS[0];
    let config = BufferConfig {
        sample_rate: RATE,
        min_buffer_size: None,
        max_buffer_size: BLOCK as u32,
        process_mode: ProcessMode::Realtime,
    };
    plugin.activate(&layout, &config, &mut MockHost::new())
}

/// Plays `events` (at their frames, in order) and renders `frames` frames in blocks of
/// [`BLOCK`]: both channels, and whether the plugin asked for a restart.
fn render(plugin: &mut Hooke, events: &[(usize, Event)], frames: usize) -> ([Vec<f32>; 2], bool) {
    let mut host = MockHost::new();
    let mut output = [vec![0.0; frames], vec![0.0; frames]];
    let mut next = events.iter().peekable();
    for start in (0..frames).step_by(BLOCK) {
        let end = (start + BLOCK).min(frames);
        while let Some((frame, event)) = next.next_if(|(frame, _)| *frame < end) {
            host.events.push_back(event.at((frame - start) as u32));
        }
        let [left, right] = &mut output;
        let mut buffer = Buffer::default();
        // SAFETY: the slices outlive the buffer, and have its length.
        unsafe {
            buffer.set_slices(end - start, |slices| {
                slices.clear();
                slices.extend([&mut left[start..end], &mut right[start..end]]);
            })
        };
        let mut aux = AuxiliaryBuffers { inputs: &mut [], outputs: &mut [] };
        plugin.process(&mut buffer, &mut aux, &mut host);
    }
    (output, host.restart.get())
}

/// A note event on channel 1.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A note on: key, velocity (0 to 1).
    On(u8, f32),
    /// A note off: key.
    Off(u8),
    /// The sustain pedal: down or not.
    Pedal(bool),
}

impl Event {
    /// The event at `timing` (frames into the block).
    fn at(self, timing: u32) -> PluginNoteEvent<Hooke> {
        let (voice_id, channel) = (VoiceID::Wildcard, Channel::Number(0));
        match self {
            Self::On(key, velocity) => {
                NoteEvent::NoteOn { timing, voice_id, channel, key: Key::Number(key), velocity }
            }
            Self::Off(key) => {
                NoteEvent::NoteOff { timing, voice_id, channel, key: Key::Number(key), velocity: 0.0 }
            }
            Self::Pedal(down) => {
                NoteEvent::MidiCC { timing, channel: 0, cc: 64, value: f32::from(u8::from(down)) }
            }
        }
    }
}

/// The instrument file `name` of `examples/instruments`.
fn shipped(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments").join(name);
    path.display().to_string()
}

/// A plugin playing the instrument file `file`, activated.
fn playing(file: &str) -> Hooke {
    let mut plugin = Hooke::default();
    Hooke::set_state_file(&plugin.params.instrument_file, file);
    assert!(activate(&mut plugin), "{file} does not play");
    plugin
}

/// A marimba file with an error on its line 2, written to the temporary folder.
fn broken_marimba() -> PathBuf {
    let (_, text) = Preset::Marimba.file();
    let broken = std::env::temp_dir().join(format!("hooke-plugin-{}-broken.toml", std::process::id()));
    std::fs::write(&broken, text.replacen("[marimba]", "[marimba]\nbars = = 3", 1)).expect("written");
    broken
}

#[test]
fn an_instrument_file_that_does_not_load_keeps_the_sound_playing_and_is_reported() {
    let marimba = shipped("marimba.toml");
    let mut plugin = playing(&marimba);
    let (_, restart) = render(&mut plugin, &[], BLOCK);
    assert!(!restart, "a restart asked with nothing changed");
    assert_eq!((plugin.shared.playing(), plugin.shared.errors()), ("marimba.toml".into(), String::new()));
    // The editor sets a broken file: a restart is asked, and the activation keeps the marimba.
    let broken = broken_marimba();
    let broken_name = broken.display().to_string();
    Hooke::set_state_file(&plugin.params.instrument_file, &broken_name);
    plugin.shared.note_file_set();
    let (_, restart) = render(&mut plugin, &[], BLOCK);
    assert!(restart, "no restart asked for a new file");
    assert!(activate(&mut plugin), "the activation failed");
    std::fs::remove_file(&broken).expect("removed");
    let errors = plugin.shared.errors();
    assert!(errors.starts_with(&format!("{broken_name}:2:")), "the error does not name the file: {errors}");
    assert!(errors.ends_with(&format!("; still playing {marimba}")), "{errors}");
    assert_eq!(Hooke::state_file(&plugin.params.instrument_file), marimba, "the state's file");
    assert_eq!(plugin.shared.playing(), "marimba.toml");
    // It plays as a plugin given the marimba does (not the preset, the acoustic guitar).
    let notes = [(0, Event::On(67, 0.8)), (3000, Event::On(72, 0.5))];
    let (played, _) = render(&mut plugin, &notes, 1 << 13);
    let (expected, _) = render(&mut playing(&marimba), &notes, 1 << 13);
    let peak = expected.iter().flatten().fold(0.0f32, |m, x| m.max(x.abs()));
    let worst =
        played.iter().flatten().zip(expected.iter().flatten()).fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    assert!(peak > 1e-3 && worst <= 1e-6 * peak, "not the marimba: differs by {worst} of the peak {peak}");
}

#[test]
fn the_meters_count_the_keys_held_and_measure_the_load() {
    let mut plugin = playing(&shipped("marimba.toml"));
    let meters = &plugin.shared.clone().meters;
    let chord = [(0, Event::On(60, 0.8)), (10, Event::On(64, 0.8)), (20, Event::On(67, 0.8))];
    let _ = render(&mut plugin, &chord, 1024);
    assert_eq!(meters.voices(), 3);
    // The pedal holds the keys released under it, until it lifts.
    let released = [(0, Event::Pedal(true)), (100, Event::Off(60)), (300, Event::Off(64))];
    let _ = render(&mut plugin, &released, 1024);
    assert_eq!(meters.voices(), 3, "the pedal holds nothing");
    let _ = render(&mut plugin, &[(0, Event::Pedal(false))], 1024);
    assert_eq!(meters.voices(), 1, "the pedal lifted");
    let _ = render(&mut plugin, &[(0, Event::Off(67))], 1024);
    assert_eq!(meters.voices(), 0);
    // A second of audio: a load measured.
    let _ = render(&mut plugin, &[], RATE as usize);
    let (load, peak) = (meters.load(), meters.peak());
    assert!(load.is_finite() && load > 0.0 && peak >= load, "load {load}, peak {peak}");
}

#[test]
fn a_reopened_project_whose_file_does_not_load_plays_the_preset_and_keeps_the_files_path() {
    let broken = broken_marimba();
    let broken_name = broken.display().to_string();
    let mut plugin = Hooke::default();
    Hooke::set_state_file(&plugin.params.instrument_file, &broken_name);
    assert!(activate(&mut plugin), "the activation failed");
    std::fs::remove_file(&broken).expect("removed");
    let errors = plugin.shared.errors();
    assert!(errors.starts_with(&format!("{broken_name}:2:")), "the error does not name the file: {errors}");
    assert!(errors.ends_with("; playing the preset Acoustic guitar"), "{errors}");
    assert_eq!(plugin.shared.playing(), "Acoustic guitar");
    assert_eq!(Hooke::state_file(&plugin.params.instrument_file), broken_name, "the state's file");
}
