//! Hooke as a CLAP and VST3 instrument plugin (nice-plug): MIDI in, stereo out, a shipped
//! instrument (the acoustic guitar by default) or an instrument file played through the
//! library's live core (`hooke::score::live`), the body `hooke play` runs in its audio callback.
//!
//! - [`Plugin::activate`] (the host's main thread) builds the instrument ([`Sound::build`]):
//!   the analysis, the fret stops, the engine, the gain, the warm-up block.
//! - [`Plugin::process`] (the audio thread) splits the block at its events: the frames before
//!   an event are rendered, then the event goes through the note map into the core's queue, so
//!   every note starts on its frame whatever the host's block size. Then the smoothed gain.
//!
//! docs/plugin.md: building, installing, what it plays, its parameters, its limits.

mod params;
mod presets;
mod sound;
mod voices;

use hooke::format::tuning;
use hooke::score::notes::NoteKind;
use nice_plug::midi::{Channel, Key, MidiResult, VoiceID};
use nice_plug::prelude::*;
use params::HookeParams;
use presets::Preset;
use sound::{Factor, Sound, TuningMessage};
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{Arc, RwLock};
use voices::{Modulated, Voice, Voices};

/// What the current sound was built from and for: a rebuild is needed when any changes.
#[derive(Debug, Clone, PartialEq)]
struct Built {
    /// The output rate, Hz.
    rate: f32,
    /// The largest block, frames.
    max_frames: u32,
    /// The preset parameter's value then.
    preset: Preset,
    /// The instrument file then (empty: the preset played).
    file: String,
    /// The Scala scale and keyboard map files then (empty: none).
    tuning: [String; 2],
}

/// The plugin.
pub struct Hooke {
    params: Arc<HookeParams>,
    /// The instrument playing (none before the first activation, or when none could be built).
    sound: Option<Sound>,
    /// What it was built from.
    built: Option<Built>,
    /// A restart was asked of the host since the preset changed.
    restart_asked: bool,
    /// The notes the host gave ids, which it may modulate one by one.
    voices: Voices,
}

impl Default for Hooke {
    fn default() -> Self {
        Self {
            params: Arc::new(HookeParams::default()),
            sound: None,
            built: None,
            restart_asked: false,
            voices: Voices::default(),
        }
    }
}

impl Hooke {
    /// Builds the sound `built` asks for: the instrument file when one is set and it loads
    /// (else its error is logged and the preset plays), or the preset; in the tuning when one
    /// is set, it loads and the instrument takes it (else its error is logged and the notes
    /// sound in equal temperament).
    fn build(built: &Built) -> Result<Sound, String> {
        let (rate, max_frames) = (f64::from(built.rate), built.max_frames as usize);
        let tuning = match &built.tuning {
            [scale, _] if scale.is_empty() => None,
            [scale, map] => {
                let map = (!map.is_empty()).then(|| Path::new(map));
                tuning::load(Path::new(scale), map)
                    .inspect_err(|e| nice_error!("hooke: {e}; playing in equal temperament"))
                    .ok()
            }
        };
        let sound = |text: &str, file: &str| {
            Sound::build(text, file, rate, max_frames, tuning.clone()).or_else(|message| match tuning {
                Some(_) => {
                    nice_error!("hooke: {message}; playing in equal temperament");
                    Sound::build(text, file, rate, max_frames, None)
                }
                None => Err(message),
            })
        };
        if !built.file.is_empty() {
            let loaded = std::fs::read_to_string(&built.file)
                .map_err(|e| format!("{}: {e}", built.file))
                .and_then(|text| sound(&text, &built.file));
            match loaded {
                Ok(sound) => return Ok(sound),
                Err(message) => {
                    nice_error!("hooke: {message}; playing the preset {} instead", built.preset.name())
                }
            }
        }
        let (file, text) = built.preset.file();
        sound(text, file)
    }

    /// A file the state names (empty: none).
    fn state_file(file: &RwLock<String>) -> String {
        match file.read() {
            Ok(file) => file.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl Plugin for Hooke {
    const NAME: &'static str = "Hooke";
    const VENDOR: &'static str = "Hooke";
    const URL: &'static str = "";
    const EMAIL: &'static str = "";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    const AUDIO_IO_LAYOUTS: &'static [AudioIOLayout] = &[AudioIOLayout {
        main_input_channels: None,
        main_output_channels: NonZeroU32::new(2),
        ..AudioIOLayout::const_default()
    }];

    // Pitch bend and the sustain pedal are MIDI messages: CCs are needed.
    const MIDI_INPUT: MidiConfig = MidiConfig::MidiCCs;

    type Editor = ();
    // The MIDI Tuning Standard's messages; any other system-exclusive message is dropped.
    type SysExMessage = TuningMessage;
    type BackgroundTask = ();

    fn params(&self) -> Arc<dyn Params> {
        self.params.clone()
    }

    fn activate(
        &mut self,
        _layout: &AudioIOLayout,
        config: &BufferConfig,
        context: &mut impl ActivateContext<Self>,
    ) -> bool {
        let wanted = Built {
            rate: config.sample_rate,
            max_frames: config.max_buffer_size.max(1),
            preset: self.params.preset.value(),
            file: Self::state_file(&self.params.instrument_file),
            tuning: [&self.params.tuning_file, &self.params.keyboard_map_file].map(Self::state_file),
        };
        self.restart_asked = false;
        if self.sound.is_none() || self.built.as_ref() != Some(&wanted) {
            match Self::build(&wanted) {
                Ok(sound) => self.sound = Some(sound),
                Err(message) => {
                    nice_error!("hooke: {message}");
                    self.sound = None;
                    return false;
                }
            }
            self.built = Some(wanted);
        }
        if let Some(sound) = &self.sound {
            context.set_latency_samples(sound.latency());
        }
        true
    }

    fn process(
        &mut self,
        buffer: &mut Buffer,
        _aux: &mut AuxiliaryBuffers,
        context: &mut impl ProcessContext<Self>,
    ) -> ProcessStatus {
        let preset = self.params.preset.value();
        if !self.restart_asked && self.built.as_ref().is_some_and(|built| built.preset != preset) {
            context.request_restart();
            self.restart_asked = true;
        }
        let frames = buffer.samples();
        let outputs = buffer.as_slice();
        let Some(sound) = &mut self.sound else {
            outputs.iter_mut().for_each(|channel| channel.fill(0.0));
            return ProcessStatus::Normal;
        };
        let params = &self.params;
        for factor in Factor::ALL {
            sound.set(factor, f64::from(params.of(factor).value()));
        }
        let mut next = context.next_event();
        let mut done = 0;
        loop {
            while let Some(event) = next.as_ref().filter(|event| event.timing() as usize <= done) {
                play(sound, &mut self.voices, params, event, context);
                next = context.next_event();
            }
            if done == frames {
                break;
            }
            let until = next.as_ref().map_or(frames, |event| (event.timing() as usize).min(frames));
            sound.render(outputs, done..until);
            done = until;
        }
        // Events the host placed past the block's end (a host error) play now.
        while let Some(event) = next {
            play(sound, &mut self.voices, params, &event, context);
            next = context.next_event();
        }
        for frame in 0..frames {
            let gain = self.params.gain.smoothed.next();
            for channel in outputs.iter_mut() {
                channel[frame] *= gain;
            }
        }
        ProcessStatus::KeepAlive
    }
}

/// Plays `event`: a note's tuning, pressure or brightness expression (CLAP; a MIDI polyphonic
/// aftertouch arrives as a pressure), a polyphonic modulation of the tension or the damping, a
/// MIDI Tuning Standard message, or a MIDI message (notes, controllers, pitch bend, channel
/// pressure); a note with an id begins or ends its voice (`voices`), the host told of the
/// voices that end.
fn play(
    sound: &mut Sound,
    voices: &mut Voices,
    params: &HookeParams,
    event: &PluginNoteEvent<Hooke>,
    context: &mut impl ProcessContext<Hooke>,
) {
    // A wildcard key names no held note; a wildcard channel is taken as the first.
    let mut expression = |channel: Channel, key: Key, kind: &dyn Fn(u8) -> NoteKind| {
        if let Some(note) = key.number() {
            sound.send_kind(channel.number().unwrap_or(0), kind(note));
        }
    };
    let mut ended = |voice: Option<Voice>, timing: u32| {
        if let Some(voice) = voice {
            let (channel, key) = (Channel::Number(voice.channel), Key::Number(voice.key));
            let voice_id = VoiceID::ID(voice.id);
            // A host whose output buffer is full misses the hint; the voice is gone either way.
            let _ = context.try_send_event(NoteEvent::VoiceTerminated { timing, voice_id, channel, key });
        }
    };
    match *event {
        NoteEvent::PolyTuning { channel, key, tuning, .. } => {
            let semitones = f64::from(tuning);
            let voice = (channel.number().zip(key.number()))
                .and_then(|(channel, key)| voices.tune(channel, key, semitones));
            match voice {
                Some(voice) => send_modulated(sound, params, voice, Modulated::Tension),
                None => expression(channel, key, &|note| NoteKind::Tuning { note, semitones }),
            }
        }
        NoteEvent::PolyPressure { channel, key, pressure, .. } => expression(channel, key, &|note| {
            NoteKind::Pressure { note: Some(note), amount: f64::from(pressure) }
        }),
        NoteEvent::PolyBrightness { channel, key, brightness, .. } => expression(channel, key, &|note| {
            NoteKind::Timbre { note: Some(note), amount: f64::from(brightness) }
        }),
        NoteEvent::PolyModulation { voice_id, poly_modulation_id, normalized_offset, .. } => {
            let Some(parameter) = Modulated::from_id(poly_modulation_id) else { return };
            if let Some(voice) = voices.modulate(voice_id, parameter, normalized_offset) {
                send_modulated(sound, params, voice, parameter);
            }
        }
        NoteEvent::MonoAutomation { poly_modulation_id, .. } => {
            let Some(parameter) = Modulated::from_id(poly_modulation_id) else { return };
            for voice in voices.modulating(parameter) {
                send_modulated(sound, params, voice, parameter);
            }
        }
        NoteEvent::MidiSysEx { ref message, .. } => sound.retune(message),
        _ => {
            if let NoteEvent::NoteOn { timing, voice_id, channel, key, .. } = *event {
                let begun = (voice_id.id().zip(channel.number()).zip(key.number()))
                    .map(|((id, channel), key)| voices.begin(id, channel, key));
                ended(begun.flatten(), timing);
            }
            if let NoteEvent::NoteOff { timing, channel, key, .. } = *event {
                let voice =
                    channel.number().zip(key.number()).and_then(|(channel, key)| voices.end(channel, key));
                ended(voice, timing);
            }
            if let Some(MidiResult::Basic(bytes)) = event.as_midi() {
                sound.send(&bytes);
            }
        }
    }
}

/// Sends `voice`'s own `parameter` to the sound: the parameter's value with the voice's offset
/// as a ratio to its value for every voice, the note's pitch offset for the tension, its
/// damping factor for the damping.
fn send_modulated(sound: &mut Sound, params: &HookeParams, voice: Voice, parameter: Modulated) {
    let param = params.of(parameter.factor());
    let offset = voice.offsets[parameter as usize];
    let own = param.preview_plain(param.unmodulated_normalized_value() + offset);
    let ratio = if offset == 0.0 { 1.0 } else { f64::from(own) / f64::from(param.value()) };
    let kind = match parameter {
        Modulated::Tension => voice.tuning(ratio),
        Modulated::Damping => voice.damping(ratio),
    };
    sound.send_kind(voice.channel, kind);
}

impl ClapPlugin for Hooke {
    const CLAP_ID: &'static str = "dev.hooke.instrument";
    const CLAP_DESCRIPTION: Option<&'static str> =
        Some("Physically modelled instruments: mass-spring-damper networks played live");
    const CLAP_MANUAL_URL: Option<&'static str> = None;
    const CLAP_SUPPORT_URL: Option<&'static str> = None;
    const CLAP_FEATURES: &'static [ClapFeature] =
        &[ClapFeature::Instrument, ClapFeature::Synthesizer, ClapFeature::Stereo];
    const CLAP_POLY_MODULATION_CONFIG: Option<PolyModulationConfig> = Some(PolyModulationConfig {
        max_voice_capacity: voices::CAPACITY as u32,
        supports_overlapping_voices: false,
    });
}

impl Vst3Plugin for Hooke {
    const VST3_CLASS_ID: [u8; 16] = *b"HookePhysModel01";
    const VST3_SUBCATEGORIES: &'static [Vst3SubCategory] =
        &[Vst3SubCategory::Instrument, Vst3SubCategory::Synth, Vst3SubCategory::Stereo];
}

nice_export_clap!(Hooke);
nice_export_vst3!(Hooke);
