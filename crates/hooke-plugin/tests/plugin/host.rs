//! A headless CLAP host for the tests (clack-host), and the reference: the same notes played
//! by the library's live core directly, as `hooke play` plays them.

use clack_extensions::params::{ParamInfoBuffer, PluginParams};
use clack_extensions::state::PluginState;
use clack_host::events::event_types::{
    MidiEvent, MidiSysExEvent, NoteEndEvent, NoteExpressionEvent, NoteExpressionType, NoteOffEvent,
    NoteOnEvent, ParamModEvent, ParamValueEvent,
};
use clack_host::events::Match;
use clack_host::prelude::*;
use hooke::format::instrument::parse;
use hooke::score::live::{calibrate, live, LiveOptions};
use hooke::score::notes::{from_midi, NoteInput, NoteKind, StringRule};
use hooke::score::performance::PerformanceOptions;
use hooke::score::tuning::{tuning_changes, Tuning};
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The output rate of the tests, Hz.
pub const RATE: f64 = 44_100.0;

/// A fortissimo note's level in `hooke play`: the fraction of full scale its peak reaches.
const NOTE_LEVEL: f64 = 0.25;

/// One input event, at an output frame.
#[derive(Debug, Clone, Copy)]
pub enum Input {
    /// A CLAP note on: MIDI key and velocity (1-127, sent as velocity / 127).
    NoteOn(u8, u8),
    /// A CLAP note off: MIDI key.
    NoteOff(u8),
    /// A CLAP note on with a note id (a voice the host may modulate): MIDI key, velocity, id.
    VoiceOn(u8, u8, u32),
    /// A CLAP polyphonic modulation of a parameter on the note of id `.1` by the normalised
    /// offset `.2`, and what it says to the library's live input (on channel 1).
    Modulate(ClapId, u32, f64, NoteKind),
    /// A raw MIDI 1.0 message (CLAP's MIDI dialect).
    Midi([u8; 3]),
    /// A parameter's new value (CLAP's: a plain value).
    Param(ClapId, f64),
    /// A parameter's new value, and what it says to the library's live input (on channel 1).
    Setting(ClapId, f64, NoteKind),
    /// A CLAP tuning note expression: MIDI key (on channel 1) and semitones.
    Tuning(u8, f64),
    /// A CLAP pressure note expression: MIDI key (on channel 1) and pressure, 0 to 1.
    Pressure(u8, f64),
    /// A CLAP brightness note expression: MIDI key (on channel 1) and brightness, 0 to 1.
    Brightness(u8, f64),
    /// A MIDI system-exclusive message (CLAP's MIDI SysEx event), `F0` to `F7`.
    SysEx(&'static [u8]),
}

impl Input {
    /// What it says to the library's live input, on channel 1 (none for a parameter).
    pub fn note_kind(self) -> Option<(u8, NoteKind)> {
        match self {
            Input::NoteOn(key, velocity) => from_midi(&[0x90, key, velocity]),
            Input::NoteOff(key) => from_midi(&[0x80, key, 0]),
            Input::VoiceOn(key, velocity, _) => from_midi(&[0x90, key, velocity]),
            Input::Modulate(_, _, _, kind) => Some((0, kind)),
            Input::Midi(bytes) => from_midi(&bytes),
            Input::Param(..) => None,
            Input::Setting(_, _, kind) => Some((0, kind)),
            Input::Tuning(note, semitones) => Some((0, NoteKind::Tuning { note, semitones })),
            Input::Pressure(note, amount) => Some((0, NoteKind::Pressure { note: Some(note), amount })),
            Input::Brightness(note, amount) => Some((0, NoteKind::Timbre { note: Some(note), amount })),
            Input::SysEx(_) => None,
        }
    }
}

/// A melody of 20 000 frames that the guitars and the marimba can play: chords, a repeated
/// note, the sustain pedal and pitch bend, some events on the same frame, some one frame apart.
pub fn melody() -> Vec<(usize, Input)> {
    vec![
        (0, Input::NoteOn(55, 100)),
        (0, Input::NoteOn(59, 90)),
        (1, Input::NoteOn(64, 80)),
        (3000, Input::Midi([0xb0, 64, 127])),
        (5000, Input::NoteOff(55)),
        (7001, Input::NoteOn(69, 127)),
        (9000, Input::Midi([0xe0, 0x00, 0x50])),
        (12_345, Input::NoteOff(69)),
        (14_000, Input::Midi([0xe0, 0x00, 0x40])),
        (15_999, Input::NoteOn(57, 40)),
        (16_000, Input::Midi([0xb0, 64, 0])),
        (18_000, Input::NoteOn(57, 110)),
        (20_000, Input::NoteOff(59)),
    ]
}

/// The plugin to load: `$HOOKE_CLAP` (the bundle `scripts/build-plugin.sh` makes), else
/// [`test_build_path`].
pub fn plugin_path() -> PathBuf {
    std::env::var_os("HOOKE_CLAP").map_or_else(test_build_path, PathBuf::from)
}

/// The plugin library cargo built for this test run, beside the test binary
/// (`target/<profile>/deps/libhooke_plugin.so`).
pub fn test_build_path() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let name = format!("{}hooke_plugin{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    exe.with_file_name(name)
}

/// The host's callbacks.
pub struct TestHost;

/// What the plugin asked of the host, from any thread.
#[derive(Default)]
pub struct Requests {
    /// A restart (deactivate, activate).
    pub restart: AtomicBool,
}

impl<'a> SharedHandler<'a> for Requests {
    fn request_restart(&self) {
        self.restart.store(true, Relaxed);
    }
    fn request_process(&self) {}
    fn request_callback(&self) {}
}

impl HostHandlers for TestHost {
    type Shared<'a> = Requests;
    type MainThread<'a> = ();
    type AudioProcessor<'a> = ();
}

/// The loaded plugin library and an instance of its plugin.
pub struct Loaded {
    /// Kept alive while the instance lives.
    pub entry: PluginEntry,
    pub instance: PluginInstance<TestHost>,
    /// The note ids of the voices the plugin said ended (CLAP note end events), by the last
    /// render, with the frame of each.
    pub ended: Vec<(usize, u32)>,
}

/// Loads the plugin at `path` and makes an instance of its first plugin.
pub fn load(path: &Path) -> Loaded {
    assert!(path.exists(), "no plugin at {} (build it first)", path.display());
    // SAFETY: the library is the plugin under test, a CLAP plugin.
    let entry = unsafe { PluginEntry::load(path) }.expect("the CLAP entry loads");
    let factory = entry.get_plugin_factory().expect("a plugin factory");
    let id =
        factory.plugin_descriptors().next().and_then(|d| d.id()).expect("a plugin with an id").to_owned();
    let info = HostInfo::new("hooke tests", "hooke", "", "0").expect("host info");
    let instance = PluginInstance::<TestHost>::new(|_| Requests::default(), |_| (), &entry, &id, &info)
        .expect("the plugin instantiates");
    Loaded { entry, instance, ended: Vec::new() }
}

impl Loaded {
    /// The plugin's state, as it saves it.
    pub fn save_state(&mut self) -> Vec<u8> {
        let handle = self.instance.plugin_handle();
        let state: PluginState = handle.get_extension().expect("the state extension");
        let mut bytes = Vec::new();
        state.save(&handle, &mut bytes).expect("the state saves");
        bytes
    }

    /// Loads `bytes` as the plugin's state.
    pub fn load_state(&mut self, bytes: &[u8]) {
        let handle = self.instance.plugin_handle();
        let state: PluginState = handle.get_extension().expect("the state extension");
        state.load(&handle, &mut &bytes[..]).expect("the state loads");
    }

    /// Sets the file `key` of the plugin's state (`instrument-file`, `tuning-file`,
    /// `keyboard-map-file`: what a project reopened restores). The state is nice-plug's: its
    /// JSON's length (8 bytes, little-endian), then the JSON.
    pub fn set_state_file(&mut self, key: &str, file: &Path) {
        let saved = self.save_state();
        let json = std::str::from_utf8(saved.get(8..).unwrap_or_default()).expect("a JSON state");
        let empty = format!(r#""{key}":"\"\"""#);
        assert!(json.contains(&empty), "the state has no empty {key}: {json}");
        let named = format!(r#""{key}":{}"#, json_string(&json_string(&file.display().to_string())));
        let json = json.replace(&empty, &named);
        let mut state = (json.len() as u64).to_le_bytes().to_vec();
        state.extend_from_slice(json.as_bytes());
        self.load_state(&state);
    }

    /// Every parameter's id, name, lowest and highest value.
    pub fn params(&mut self) -> Vec<(ClapId, String, f64, f64)> {
        let handle = self.instance.plugin_handle();
        let params: PluginParams = handle.get_extension().expect("the params extension");
        let mut buffer = ParamInfoBuffer::new();
        (0..params.count(&handle))
            .filter_map(|index| {
                let info = params.get_info(&handle, index, &mut buffer)?;
                let name = String::from_utf8_lossy(info.name).into_owned();
                Some((info.id, name, info.min_value, info.max_value))
            })
            .collect()
    }

    /// The id of the parameter called `name`, and the value its text `text` stands for.
    pub fn param(&mut self, name: &str, text: &CStr) -> (ClapId, f64) {
        let id = (self.params().into_iter().find_map(|(id, named, ..)| (named == name).then_some(id)))
            .unwrap_or_else(|| panic!("no parameter called {name}"));
        let handle = self.instance.plugin_handle();
        let params: PluginParams = handle.get_extension().expect("the params extension");
        let value =
            params.text_to_value(&handle, id, text).unwrap_or_else(|| panic!("{name}: {text:?} refused"));
        (id, value)
    }

    /// Whether the plugin asked the host to restart it (deactivate, activate) since the last
    /// activation; forgets the request.
    pub fn restart_asked(&self) -> bool {
        self.instance.access_shared_handler(|requests| requests.restart.swap(false, Relaxed))
    }

    /// Activates the plugin at [`RATE`] for blocks of `block` frames, plays `inputs` (in frame
    /// order) and renders `frames` frames of its two channels.
    pub fn render(&mut self, block: usize, frames: usize, inputs: &[(usize, Input)]) -> [Vec<f32>; 2] {
        let config = PluginAudioConfiguration {
            sample_rate: RATE,
            min_frames_count: 1,
            max_frames_count: block as u32,
        };
        self.restart_asked();
        let processor = self.instance.activate(|_, _| (), config).expect("the plugin activates");
        let mut processor = processor.start_processing().expect("processing starts");
        let mut output = [vec![0.0f32; frames], vec![0.0f32; frames]];
        let mut output_ports = AudioPorts::with_capacity(2, 1);
        // The Excitation input (a sidechain), connected and silent, as a host connects it.
        let mut input_ports = AudioPorts::with_capacity(2, 1);
        let mut silence = [vec![0.0f32; block], vec![0.0f32; block]];
        let mut events = EventBuffer::with_capacity(inputs.len());
        let mut sent = EventBuffer::new();
        let mut next = 0;
        self.ended.clear();
        for start in (0..frames).step_by(block) {
            let end = (start + block).min(frames);
            events.clear();
            while next < inputs.len() && inputs[next].0 < end {
                push_event(&mut events, (inputs[next].0 - start) as u32, inputs[next].1);
                next += 1;
            }
            let [left, right] = &mut output;
            let mut output_audio = output_ports.with_output_buffers([AudioPortBuffer {
                latency: 0,
                channels: AudioPortBufferType::f32_output_only(
                    [&mut left[start..end], &mut right[start..end]].into_iter(),
                ),
            }]);
            let [silent_left, silent_right] = &mut silence;
            let input_audio = input_ports.with_input_buffers([AudioPortBuffer {
                latency: 0,
                channels: AudioPortBufferType::f32_input_only(
                    [&mut silent_left[..end - start], &mut silent_right[..end - start]]
                        .into_iter()
                        .map(|channel| InputChannel { buffer: channel, is_constant: true }),
                ),
            }]);
            processor
                .process(
                    &input_audio,
                    &mut output_audio,
                    &InputEvents::from_buffer(&events),
                    &mut OutputEvents::from_buffer(&mut sent),
                    Some(start as u64),
                    None,
                )
                .expect("the block processes");
            let ended = sent.iter().filter_map(|event| event.as_event::<NoteEndEvent>());
            self.ended.extend(ended.filter_map(|end| end.note_id().into_specific()).map(|id| (start, id)));
            sent.clear();
        }
        self.instance.deactivate(processor.stop_processing());
        output
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut quoted = String::from('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Appends `input` at `time` (frames into the block) to `events`.
fn push_event(events: &mut EventBuffer, time: u32, input: Input) {
    let key = |key: u8| Pckn::new(0u16, 0u16, u16::from(key), Match::<u32>::All);
    match input {
        Input::NoteOn(note, velocity) => {
            events.push(&NoteOnEvent::new(time, key(note), f64::from(velocity) / 127.0))
        }
        Input::NoteOff(note) => events.push(&NoteOffEvent::new(time, key(note), 0.0)),
        Input::VoiceOn(note, velocity, id) => {
            let pckn = Pckn::new(0u16, 0u16, u16::from(note), id);
            events.push(&NoteOnEvent::new(time, pckn, f64::from(velocity) / 127.0))
        }
        Input::Modulate(param, id, amount, _) => {
            let pckn = Pckn::new(0u16, 0u16, Match::<u16>::All, id);
            events.push(&ParamModEvent::new(time, param, pckn, amount))
        }
        Input::Midi(bytes) => events.push(&MidiEvent::new(time, 0, bytes)),
        Input::Param(id, value) | Input::Setting(id, value, _) => {
            events.push(&ParamValueEvent::new(time, id, Pckn::match_all(), value))
        }
        Input::Tuning(note, semitones) => {
            events.push(&NoteExpressionEvent::new(time, key(note), NoteExpressionType::Tuning, semitones))
        }
        Input::Pressure(note, amount) => {
            events.push(&NoteExpressionEvent::new(time, key(note), NoteExpressionType::Pressure, amount))
        }
        Input::Brightness(note, amount) => {
            events.push(&NoteExpressionEvent::new(time, key(note), NoteExpressionType::Brightness, amount))
        }
        // SAFETY: the message is static, so it outlives the event buffer.
        Input::SysEx(message) => events.push(&unsafe { MidiSysExEvent::new(time, 0, message) }),
    }
}

/// The instrument file `name` of `examples/instruments`.
pub fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments").join(name)
}

/// The reference: the instrument file `file` built as `hooke play` builds it (its own scheme,
/// oversampled as the analysis finds stable, the gain that puts a fortissimo note at a quarter
/// of full scale), `inputs` sent to its live input at their frames, `frames` frames rendered
/// by its live core, both channels.
pub fn reference(file: &Path, frames: usize, inputs: &[(usize, Input)]) -> [Vec<f32>; 2] {
    reference_in(file, None, frames, inputs)
}

/// [`reference`] with the notes in `tuning`.
pub fn reference_in(
    file: &Path,
    tuning: Option<Tuning>,
    frames: usize,
    inputs: &[(usize, Input)],
) -> [Vec<f32>; 2] {
    let text = std::fs::read_to_string(file).expect("the instrument file");
    let name = file.display().to_string();
    let instrument_file = parse(&text, &name).expect("the instrument parses");
    let (oversample, instrument) = instrument_file
        .build_stable(instrument_file.scheme, RATE, instrument_file.oversample)
        .expect("the instrument builds");
    let performance = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    let (gain, _) = calibrate(&instrument, performance, NOTE_LEVEL).expect("the gain calibrates");
    let options = LiveOptions {
        performance,
        rate: RATE,
        max_frames: 1024,
        gain,
        queue: 4096,
        record: 0,
        rule: StringRule::LowestFret,
        controls: Vec::new(),
        tuning,
    };
    let (mut input, mut core, _, _) = live(&instrument, options).expect("live play starts");
    let mut interleaved = vec![0.0f32; 2 * frames];
    let mut done = 0;
    for &(frame, event) in inputs {
        core.process(&mut interleaved[2 * done..2 * frame], 2);
        done = frame;
        if let Some((channel, kind)) = event.note_kind() {
            let _ = input.send(&NoteInput { time: 0.0, track: 0, channel, kind });
        }
        if let Input::SysEx(message) = event {
            tuning_changes(message, |key, frequency| {
                let _ = input.send(&NoteInput {
                    time: 0.0,
                    track: 0,
                    channel: 0,
                    kind: NoteKind::Retune { key, frequency },
                });
            });
        }
    }
    core.process(&mut interleaved[2 * done..], 2);
    let channel = |c: usize| interleaved.iter().skip(c).step_by(2).copied().collect();
    [channel(0), channel(1)]
}

/// The largest difference between `a` and `b` over their peak (the larger of the two), and
/// that peak.
pub fn relative_difference(a: &[Vec<f32>; 2], b: &[Vec<f32>; 2]) -> (f64, f64) {
    let samples = || a.iter().flatten().zip(b.iter().flatten());
    let peak = samples().fold(0.0f64, |m, (x, y)| m.max(f64::from(x.abs())).max(f64::from(y.abs())));
    let worst = samples().fold(0.0f64, |m, (x, y)| m.max(f64::from(x - y).abs()));
    (worst / peak, peak)
}
