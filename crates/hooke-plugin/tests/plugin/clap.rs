//! The plugin seen by a CLAP host: what it declares, and what it plays.

use crate::host::{load, melody, plugin_path, reference, reference_in, relative_difference, shipped, Input};
use clack_extensions::audio_ports::{AudioPortInfoBuffer, PluginAudioPorts};
use clack_extensions::note_ports::{NoteDialect, NotePortInfoBuffer, PluginNotePorts};
use hooke::format::tuning;
use hooke::score::expression::ExciteParameter;
use hooke::score::notes::NoteKind;
use std::path::Path;

/// Frames the rendering tests play: 0.74 s at 44.1 kHz, past the melody's last event.
const FRAMES: usize = 1 << 15;

/// The tolerance against the reference, as a fraction of the peak.
const TOLERANCE: f64 = 1e-6;

#[test]
fn the_descriptor_names_an_instrument() {
    let loaded = load(&plugin_path());
    let factory = loaded.entry.get_plugin_factory().expect("a plugin factory");
    let descriptors: Vec<_> = factory.plugin_descriptors().collect();
    assert_eq!(descriptors.len(), 1);
    let descriptor = descriptors[0];
    assert_eq!(descriptor.id().and_then(|id| id.to_str().ok()), Some("dev.hooke.instrument"));
    assert_eq!(descriptor.name().and_then(|name| name.to_str().ok()), Some("Hooke"));
    let features: Vec<&str> = descriptor.features().filter_map(|f| f.to_str().ok()).collect();
    assert!(features.contains(&"instrument"), "features {features:?}");
}

#[test]
fn one_note_input_port_one_stereo_output_and_a_stereo_excitation_input() {
    let mut loaded = load(&plugin_path());
    let handle = loaded.instance.plugin_handle();
    let notes: PluginNotePorts = handle.get_extension().expect("the note ports extension");
    assert_eq!((notes.count(&handle, true), notes.count(&handle, false)), (1, 0));
    let mut buffer = NotePortInfoBuffer::new();
    let port = notes.get(&handle, 0, true, &mut buffer).expect("the note input port");
    for dialect in [NoteDialect::Clap, NoteDialect::Midi] {
        assert!(port.supported_dialects.supports(dialect), "{dialect:?} not supported");
    }
    let audio: PluginAudioPorts = handle.get_extension().expect("the audio ports extension");
    assert_eq!((audio.count(&handle, true), audio.count(&handle, false)), (1, 1));
    let mut buffer = AudioPortInfoBuffer::new();
    let port = audio.get(&handle, 0, false, &mut buffer).expect("the audio output port");
    assert_eq!(port.channel_count, 2);
    let port = audio.get(&handle, 0, true, &mut buffer).expect("the Excitation input (a sidechain)");
    assert_eq!((port.channel_count, port.name), (2, &b"Excitation"[..]));
}

/// Asserts that `played` is `expected` within [`TOLERANCE`] of the peak, and not silent.
fn assert_same(played: &[Vec<f32>; 2], expected: &[Vec<f32>; 2], what: &str) {
    let (difference, peak) = relative_difference(played, expected);
    assert!(peak > 1e-3, "{what}: silent (peak {peak})");
    assert!(difference <= TOLERANCE, "{what}: differs by {difference:e} of the peak {peak}");
}

#[test]
fn with_no_state_it_plays_the_acoustic_guitar_as_the_live_core() {
    let played = load(&plugin_path()).render(512, FRAMES, &melody());
    let expected = reference(&shipped("acoustic-guitar.toml"), FRAMES, &melody());
    assert_same(&played, &expected, "block 512");
}

#[test]
fn block_sizes_1_17_512_and_4096_give_the_same_output() {
    let blocks = [1, 17, 512, 4096];
    let outputs: Vec<_> =
        blocks.iter().map(|&block| load(&plugin_path()).render(block, FRAMES, &melody())).collect();
    for (block, output) in blocks.iter().zip(&outputs).skip(1) {
        assert_same(output, &outputs[0], &format!("block {block} against block 1"));
    }
}

#[test]
fn the_instrument_file_of_the_state_plays() {
    let marimba = shipped("marimba.toml");
    let notes = [(0, Input::NoteOn(67, 100)), (2000, Input::NoteOn(72, 64)), (9000, Input::NoteOff(67))];
    let mut loaded = load(&plugin_path());
    loaded.set_state_file("instrument-file", &marimba);
    let saved = loaded.save_state();
    // A new instance given the saved state (a project reopened).
    let mut reopened = load(&plugin_path());
    reopened.load_state(&saved);
    let played = reopened.render(256, FRAMES, &notes);
    assert_same(&played, &reference(&marimba, FRAMES, &notes), "the marimba from the state");
}

#[test]
fn the_tuning_file_of_the_state_plays_its_scale() {
    // 19-tone equal temperament, degree 0 on key 60 (the default keyboard map).
    let scale = std::env::temp_dir().join(format!("hooke-plugin-test-{}-19.scl", std::process::id()));
    let degrees: String = (1..=19).map(|k| format!("{:.6}\n", 1200.0 * f64::from(k) / 19.0)).collect();
    std::fs::write(&scale, format!("19 equal divisions of the octave\n19\n{degrees}")).unwrap();
    let tuning = tuning::load(&scale, None).expect("the scale reads");
    let mut loaded = load(&plugin_path());
    loaded.set_state_file("tuning-file", &scale);
    let played = loaded.render(512, FRAMES, &melody());
    std::fs::remove_file(&scale).unwrap();
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference_in(&guitar, Some(tuning), FRAMES, &melody()), "19-TET");
    // And not as in equal temperament.
    let (difference, _) = relative_difference(&played, &reference(&guitar, FRAMES, &melody()));
    assert!(difference > 0.1, "the tuning changed nothing ({difference:e} of the peak)");
}

#[test]
fn a_tuning_note_expression_plays_as_the_live_core_plays_it() {
    // A3 (the G3 string, fret 2) moved +1 semitone (fret 3) at 4000 frames, then +0.5 (fret
    // 3 and the tension) at 8000; the library's test measures the pitch such a move gives.
    let notes = [
        (0, Input::NoteOn(57, 100)),
        (4000, Input::Tuning(57, 1.0)),
        (8000, Input::Tuning(57, 0.5)),
        (12_000, Input::NoteOff(57)),
    ];
    let played = load(&plugin_path()).render(512, FRAMES, &notes);
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference(&guitar, FRAMES, &notes), "the tuning expressions");
    let unmoved = reference(&guitar, FRAMES, &[notes[0], notes[3]]);
    let (difference, _) = relative_difference(&played, &unmoved);
    assert!(difference > 0.1, "the expressions changed nothing ({difference:e} of the peak)");
}

#[test]
fn pressure_and_brightness_expressions_play_as_the_live_core_plays_them() {
    // A3 brightened at once (its next pluck nearer the bridge), plucked again at 4000 frames,
    // pressed fully at 8000 (damped 8 times more): the library's tests measure what each does.
    let notes = [
        (0, Input::NoteOn(57, 100)),
        (1, Input::Brightness(57, 1.0)),
        (4000, Input::NoteOn(57, 100)),
        (8000, Input::Pressure(57, 1.0)),
        (12_000, Input::NoteOff(57)),
    ];
    let played = load(&plugin_path()).render(512, FRAMES, &notes);
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference(&guitar, FRAMES, &notes), "the pressure and brightness expressions");
    let untouched = reference(&guitar, FRAMES, &[notes[0], notes[2], notes[4]]);
    let (difference, _) = relative_difference(&played, &untouched);
    assert!(difference > 0.1, "the expressions changed nothing ({difference:e} of the peak)");
}

#[test]
fn a_midi_tuning_standard_message_retunes_the_notes_after_it() {
    // Real-time single-note tuning change: key 57 (A3) to 30 cents above it (yy zz = 0.3 of
    // 2^14 = 4915 = 0x26 0x33), then A3 played, as the live core plays it.
    static RETUNE: [u8; 12] = [0xf0, 0x7f, 0x7f, 0x08, 0x02, 0x00, 0x01, 57, 57, 0x26, 0x33, 0xf7];
    let notes = [(0, Input::SysEx(&RETUNE)), (10, Input::NoteOn(57, 100)), (12_000, Input::NoteOff(57))];
    let played = load(&plugin_path()).render(512, FRAMES, &notes);
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference(&guitar, FRAMES, &notes), "the retuned A3");
    let (difference, _) = relative_difference(&played, &reference(&guitar, FRAMES, &notes[1..]));
    assert!(difference > 0.1, "the message changed nothing ({difference:e} of the peak)");
}

#[test]
fn an_instrument_file_that_does_not_load_leaves_the_preset_playing() {
    let mut loaded = load(&plugin_path());
    loaded.set_state_file("instrument-file", Path::new("/nonexistent/instrument.toml"));
    let played = loaded.render(512, FRAMES, &melody());
    let expected = reference(&shipped("acoustic-guitar.toml"), FRAMES, &melody());
    assert_same(&played, &expected, "the acoustic guitar in place of a missing file");
}

#[test]
fn a_new_instrument_parameter_restarts_the_plugin_with_that_instrument() {
    let mut loaded = load(&plugin_path());
    let (preset, marimba) = loaded.param("Instrument", c"Marimba");
    let _ = loaded.render(64, 64, &[(10, Input::Param(preset, marimba))]);
    assert!(loaded.restart_asked(), "no restart asked after a new instrument");
    let notes = [(0, Input::NoteOn(60, 100)), (3000, Input::NoteOn(64, 90))];
    let played = loaded.render(256, FRAMES, &notes);
    assert_same(
        &played,
        &reference(&shipped("marimba.toml"), FRAMES, &notes),
        "the marimba after the restart",
    );
}

/// The parameters' ids as a saved project and a host's automation name them, and their names.
const PARAMETERS: [(&str, &str); 8] = [
    ("gain", "Gain"),
    ("tension", "Tension"),
    ("damping", "Damping"),
    ("position", "Position"),
    ("hardness", "Hardness"),
    ("body-mix", "Body mix"),
    ("input", "Input drive"),
    ("preset", "Instrument"),
];

/// The CLAP id of the parameter id `id`: its string hash (`h = 31 h + byte`, 32 bits), the top
/// bit cleared (VST3 keeps it for the host's parameters).
fn clap_id(id: &str) -> u32 {
    id.bytes().fold(0u32, |h, byte| h.wrapping_mul(31).wrapping_add(u32::from(byte))) & !(1 << 31)
}

#[test]
fn the_parameters_keep_their_ids() {
    let params = load(&plugin_path()).params();
    let found: Vec<(u32, &str)> =
        params.iter().map(|(id, name, ..)| (u32::from(*id), name.as_str())).collect();
    let expected: Vec<(u32, &str)> = PARAMETERS.iter().map(|&(id, name)| (clap_id(id), name)).collect();
    assert_eq!(found, expected);
}

#[test]
fn position_and_hardness_parameters_play_as_the_live_core_plays_them() {
    // The next notes plucked a quarter as far from the bridge and let go four times as fast
    // (the ends of the parameters' ranges, which the host's normalised values reach exactly),
    // then an A3 and an E4 (the library's tests measure what each factor does to a pluck).
    let mut loaded = load(&plugin_path());
    let (position, near) = loaded.param("Position", c"0.25");
    let (hardness, hard) = loaded.param("Hardness", c"4");
    let excite = |parameter, factor| NoteKind::Excite { parameter, factor };
    let notes = [
        (0, Input::Setting(position, near, excite(ExciteParameter::Position, 0.25))),
        (0, Input::Setting(hardness, hard, excite(ExciteParameter::Hardness, 4.0))),
        (10, Input::NoteOn(57, 100)),
        (4000, Input::NoteOn(64, 100)),
        (12_000, Input::NoteOff(57)),
    ];
    let played = loaded.render(512, FRAMES, &notes);
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference(&guitar, FRAMES, &notes), "the position and hardness");
    let (difference, _) = relative_difference(&played, &reference(&guitar, FRAMES, &notes[2..]));
    assert!(difference > 0.1, "the parameters changed nothing ({difference:e} of the peak)");
}

#[test]
fn every_parameter_at_its_extremes_plays_finite_sound() {
    for extreme in ["lowest", "highest"] {
        let mut loaded = load(&plugin_path());
        let settings: Vec<(usize, Input)> = (loaded.params().into_iter())
            .filter(|(_, name, ..)| name != "Instrument")
            .map(|(id, _, low, high)| (0, Input::Param(id, if extreme == "lowest" { low } else { high })))
            .collect();
        let inputs: Vec<(usize, Input)> = settings.into_iter().chain(melody()).collect();
        let played = loaded.render(512, FRAMES, &inputs);
        // The live core limits its output to full scale, then the gain at most +12 dB.
        let loudest = 10f32.powf(12.0 / 20.0);
        let finite = played.iter().flatten().all(|x| x.is_finite() && x.abs() <= loudest);
        assert!(finite, "every parameter at its {extreme}: a sample not finite or past +12 dB of full scale");
    }
}

#[test]
fn polyphonic_modulation_moves_one_voice_as_its_own_expressions_and_its_end_is_told() {
    // Two voices, A3 (id 1) and E4 (id 2); A3's tension to the top of its range (four times: an
    // octave, 12 semitones) and E4's damping to the bottom (a quarter), by normalised offsets of
    // 0.6 from the middle, where the parameters stand (past the ends, which hold); then A3 ends.
    let mut loaded = load(&plugin_path());
    let (tension, _) = loaded.param("Tension", c"1");
    let (damping, _) = loaded.param("Damping", c"1");
    let notes = [
        (0, Input::VoiceOn(57, 100, 1)),
        (0, Input::VoiceOn(64, 100, 2)),
        (2000, Input::Modulate(tension, 1, 0.6, NoteKind::Tuning { note: 57, semitones: 12.0 })),
        (2000, Input::Modulate(damping, 2, -0.6, NoteKind::Damping { note: 64, factor: 0.25 })),
        (12_000, Input::NoteOff(57)),
    ];
    let played = loaded.render(512, FRAMES, &notes);
    let guitar = shipped("acoustic-guitar.toml");
    assert_same(&played, &reference(&guitar, FRAMES, &notes), "the modulated voices");
    let (difference, _) =
        relative_difference(&played, &reference(&guitar, FRAMES, &[notes[0], notes[1], notes[4]]));
    assert!(difference > 0.1, "the modulation changed nothing ({difference:e} of the peak)");
    // A3's voice ended in the block of its note off (frames 11 776 to 12 287); E4's rings on.
    assert_eq!(loaded.ended, [(11_776, 1)]);
}
