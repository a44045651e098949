//! Hooke as a CLAP and VST3 instrument plugin (nice-plug): MIDI in, stereo out, a shipped
//! instrument (the acoustic guitar by default) or an instrument file played through the
//! library's live core (`hooke::score::live`), the body `hooke play` runs in its audio callback.
//!
//! - [`Plugin::activate`] (the host's main thread) builds the instrument ([`Sound::build`]):
//!   the analysis, the fret stops, the engine, the gain, the warm-up block. An instrument file
//!   that does not load leaves the sound playing as it was ([`Hooke::rebuild`]).
//! - [`Plugin::process`] (the audio thread) splits the block at its events: the frames before
//!   an event are rendered, then the event goes through the note map into the core's queue, so
//!   every note starts on its frame whatever the host's block size. Then the smoothed gain,
//!   and the meters (`meters`).
//! - The editor (`editor`, egui) shows the parameters, sets the files, and shows the meters and
//!   the last errors (`shared`).
//!
//! docs/plugin.md: building, installing, what it plays, its parameters, its limits.

mod editor;
mod meters;
mod params;
mod presets;
mod shared;
mod sound;
#[cfg(test)]
mod tests;
mod voices;

use hooke::format::tuning;
use hooke::score::notes::NoteKind;
use hooke::score::tuning::Tuning;
use meters::{HeldKeys, LoadMeter};
use nice_plug::midi::{Channel, Key, MidiResult, VoiceID};
use nice_plug::prelude::*;
use params::HookeParams;
use presets::Preset;
use shared::Shared;
use sound::{Factor, Sound, TuningMessage};
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;
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

impl Built {
    /// What it plays, as errors name it: the instrument file, or the preset.
    fn playing(&self) -> String {
        match self.file.as_str() {
            "" => format!("the preset {}", self.preset.name()),
            file => file.to_owned(),
        }
    }

    /// Its name, as the editor's title shows it: the instrument file's name, or the preset's.
    fn name(&self) -> String {
        match Path::new(&self.file).file_name() {
            Some(name) => name.to_string_lossy().into_owned(),
            None => self.preset.name().to_owned(),
        }
    }
}

/// The plugin.
pub struct Hooke {
    params: Arc<HookeParams>,
    /// What the editor shows beyond the parameters, and the files it set.
    shared: Arc<Shared>,
    /// The instrument playing (none before the first activation, or when none could be built).
    sound: Option<Sound>,
    /// What it was built from.
    built: Option<Built>,
    /// The count of the files the editor set ([`Shared::files_set`]) when it was built.
    files_set: u64,
    /// A restart was asked of the host since the preset changed or the editor set a file.
    restart_asked: bool,
    /// The notes the host gave ids, which it may modulate one by one.
    voices: Voices,
    /// The keys held, for the voice meter.
    keys: HeldKeys,
    /// The load meter's running figures.
    load: LoadMeter,
}

impl Default for Hooke {
    fn default() -> Self {
        Self {
            params: Arc::new(HookeParams::default()),
            shared: Arc::new(Shared::default()),
            sound: None,
            built: None,
            files_set: 0,
            restart_asked: false,
            voices: Voices::default(),
            keys: HeldKeys::default(),
            load: LoadMeter::default(),
        }
    }
}

impl Hooke {
    /// Builds the sound `wanted` asks for, or the nearest that builds when its instrument file
    /// does not load: the sound playing (kept as it is where it was built for the same rate,
    /// blocks and tuning, else its file built again), else the preset. Where a sound played
    /// before, the state's instrument file becomes the one played, so that the state and the
    /// sound agree; on a first activation it keeps the file wanted. Every error is
    /// logged and kept for the editor ([`Shared::errors`]). False when nothing builds.
    fn rebuild(&mut self, wanted: Built) -> bool {
        let mut errors = Vec::new();
        let tuning = Self::tuning(&wanted.tuning, &mut errors);
        let playing = self.built.clone().filter(|_| self.sound.is_some());
        // The file wanted, else the file playing, else the preset (none), for the rate, blocks
        // and tuning wanted.
        let mut candidates = vec![wanted.clone()];
        if !wanted.file.is_empty() {
            let files = playing.iter().map(|built| built.file.clone()).chain([String::new()]);
            candidates.extend(files.map(|file| Built { file, ..wanted.clone() }));
            candidates.dedup();
        }
        let mut failed = Vec::new();
        let mut chosen = None;
        for (tried, candidate) in candidates.into_iter().enumerate() {
            // The sound playing is kept as a fallback; the sound wanted is built again (its
            // files read again), and kept where that fails.
            let current = self.sound.is_some() && self.built.as_ref() == Some(&candidate);
            if tried > 0 && current {
                chosen = Some(candidate);
                break;
            }
            match Self::build(&candidate, &tuning, &mut errors) {
                Ok(sound) => {
                    self.sound = Some(sound);
                    self.keys = HeldKeys::default();
                    chosen = Some(candidate);
                    break;
                }
                Err(message) => failed.push(message),
            }
            if current {
                chosen = Some(candidate);
                break;
            }
        }
        let Some(chosen) = chosen else {
            errors.extend(failed);
            self.report(&errors);
            self.sound = None;
            self.built = None;
            return false;
        };
        let had_sound = playing.is_some();
        let kept = playing.is_some_and(|playing| playing.file == chosen.file);
        let playing = format!("{} {}", if kept { "still playing" } else { "playing" }, chosen.playing());
        errors.extend(failed.into_iter().map(|message| format!("{message}; {playing}")));
        // A file that replaced a sound is forgotten; one a reopened project names, with nothing
        // playing before, stays in the state (it may be back the next time: a drive not mounted).
        if chosen.file != wanted.file && had_sound {
            Self::set_state_file(&self.params.instrument_file, &chosen.file);
        }
        self.report(&errors);
        self.shared.set_playing(&chosen.name());
        self.built = Some(chosen);
        true
    }

    /// Logs `errors` and keeps them for the editor.
    fn report(&self, errors: &[String]) {
        for error in errors {
            nice_error!("hooke: {error}");
        }
        self.shared.set_errors(errors);
    }

    /// The tuning of the Scala scale and keyboard map files `files` (empty: none); none where
    /// they do not load (the error added to `errors`: the notes sound in equal temperament).
    fn tuning(files: &[String; 2], errors: &mut Vec<String>) -> Option<Tuning> {
        let [scale, map] = files;
        if scale.is_empty() {
            return None;
        }
        let map = (!map.is_empty()).then(|| Path::new(map));
        (tuning::load(Path::new(scale), map))
            .inspect_err(|e| errors.push(format!("{e}; playing in equal temperament")))
            .ok()
    }

    /// Builds the sound `built` asks for: its instrument file, or its preset when it names
    /// none; in `tuning` when the instrument takes it (else the error is added to `errors` and
    /// the notes sound in equal temperament).
    fn build(built: &Built, tuning: &Option<Tuning>, errors: &mut Vec<String>) -> Result<Sound, String> {
        let (rate, max_frames) = (f64::from(built.rate), built.max_frames as usize);
        let mut sound = |text: &str, file: &str| {
            Sound::build(text, file, rate, max_frames, tuning.clone()).or_else(|message| match tuning {
                Some(_) => {
                    errors.push(format!("{message}; playing in equal temperament"));
                    Sound::build(text, file, rate, max_frames, None)
                }
                None => Err(message),
            })
        };
        if built.file.is_empty() {
            let (file, text) = built.preset.file();
            return sound(text, file);
        }
        let text = std::fs::read_to_string(&built.file).map_err(|e| format!("{}: {e}", built.file))?;
        sound(&text, &built.file)
    }

    /// A file the state names (empty: none).
    fn state_file(file: &RwLock<String>) -> String {
        match file.read() {
            Ok(file) => file.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Names `path` in the state's `file` (empty: none).
    fn set_state_file(file: &RwLock<String>, path: &str) {
        path.clone_into(&mut file.write().unwrap_or_else(PoisonError::into_inner));
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
        // The audio that drives the instrument (the `input` parameter): a sidechain.
        aux_input_ports: &[NonZeroU32::new(2).expect("2 channels")],
        names: PortNames { aux_inputs: &["Excitation"], ..PortNames::const_default() },
        ..AudioIOLayout::const_default()
    }];

    // Pitch bend and the sustain pedal are MIDI messages: CCs are needed.
    const MIDI_INPUT: MidiConfig = MidiConfig::MidiCCs;

    type Editor = editor::Editor;
    // The MIDI Tuning Standard's messages; any other system-exclusive message is dropped.
    type SysExMessage = TuningMessage;
    type BackgroundTask = ();

    fn params(&self) -> Arc<dyn Params> {
        self.params.clone()
    }

    fn editor(&mut self, _async_executor: AsyncExecutor<Self>) -> Option<Self::Editor> {
        editor::create(self.params.clone(), self.shared.clone())
    }

    fn activate(
        &mut self,
        _layout: &AudioIOLayout,
        config: &BufferConfig,
        context: &mut impl ActivateContext<Self>,
    ) -> bool {
        // Read before the files: a file the editor sets meanwhile asks for another restart.
        let files_set = self.shared.files_set();
        let wanted = Built {
            rate: config.sample_rate,
            max_frames: config.max_buffer_size.max(1),
            preset: self.params.preset.value(),
            file: Self::state_file(&self.params.instrument_file),
            tuning: [&self.params.tuning_file, &self.params.keyboard_map_file].map(Self::state_file),
        };
        self.restart_asked = false;
        self.load = LoadMeter::new(config.sample_rate);
        if self.sound.is_none() || self.built.as_ref() != Some(&wanted) || self.files_set != files_set {
            if !self.rebuild(wanted) {
                return false;
            }
            self.files_set = files_set;
        }
        if let Some(sound) = &self.sound {
            context.set_latency_samples(sound.latency());
        }
        true
    }

    fn process(
        &mut self,
        buffer: &mut Buffer,
        aux: &mut AuxiliaryBuffers,
        context: &mut impl ProcessContext<Self>,
    ) -> ProcessStatus {
        let started = Instant::now();
        let preset = self.params.preset.value();
        let rebuild = self.built.as_ref().is_some_and(|built| built.preset != preset)
            || self.files_set != self.shared.files_set();
        if !self.restart_asked && rebuild {
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
        sound.set_input(f64::from(params.input.value()));
        let excitation = aux.inputs.first().map_or(&[][..], |buffer| buffer.as_slice_immutable());
        let mut next = context.next_event();
        let mut done = 0;
        loop {
            while let Some(event) = next.as_ref().filter(|event| event.timing() as usize <= done) {
                play(sound, &mut self.voices, &mut self.keys, params, event, context);
                next = context.next_event();
            }
            if done == frames {
                break;
            }
            let until = next.as_ref().map_or(frames, |event| (event.timing() as usize).min(frames));
            sound.render(outputs, done..until, excitation, || params.body_mix.smoothed.next());
            done = until;
        }
        // Events the host placed past the block's end (a host error) play now.
        while let Some(event) = next {
            play(sound, &mut self.voices, &mut self.keys, params, &event, context);
            next = context.next_event();
        }
        for frame in 0..frames {
            let gain = self.params.gain.smoothed.next();
            for channel in outputs.iter_mut() {
                channel[frame] *= gain;
            }
        }
        self.shared.meters.set_voices(self.keys.count());
        self.load.measure(frames, started.elapsed(), &self.shared.meters);
        ProcessStatus::KeepAlive
    }
}

/// Plays `event`: a note's tuning, pressure or brightness expression (CLAP; a MIDI polyphonic
/// aftertouch arrives as a pressure), a polyphonic modulation of the tension or the damping, a
/// MIDI Tuning Standard message, or a MIDI message (notes, controllers, pitch bend, channel
/// pressure); a note with an id begins or ends its voice (`voices`), the host told of the
/// voices that end; the keys held (`keys`) take the MIDI messages the sound takes.
fn play(
    sound: &mut Sound,
    voices: &mut Voices,
    keys: &mut HeldKeys,
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
                keys.send(&bytes);
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
