//! Files written to break the readers (issue 12, and what the fuzzers of fuzz/ found): each is
//! refused with an error that names the file, line and column, what was expected and what was
//! found, in a message of a sensible length; none panics, hangs or allocates without bound.

use crate::common::smf;
use hooke::analysis::design::{design_string, TuneTarget};
use hooke::engine::{Engine, EngineConfig, PickupSpec};
use hooke::format::{instrument, midi, model, score, SourceError};
use hooke::instrument::pendulum::{pendulum, PendulumSpec};
use hooke::instrument::Instrument;
use hooke::io::CsvWriter;
use hooke::limits::{MAX_CHANNELS, MAX_NODES, MAX_STEPS};
use hooke::model::{Anchor, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use hooke::score::notes::{NoteMap, StringRule};
use hooke::system::System;
use std::path::Path;
use std::sync::OnceLock;

/// Asserts the error's place (`file:line:column`), the offending text it quotes, and that its
/// message holds every fragment.
fn assert_error(e: &SourceError, (line, column): (usize, usize), found: &str, fragments: &[&str]) {
    let text = e.to_string();
    assert_eq!((e.line, e.column), (line, column), "position of: {text}");
    assert!(text.starts_with(&format!("{}:{line}:{column}: ", e.file)), "{text}");
    assert_eq!(e.found, found, "offending text of: {text}");
    for fragment in fragments {
        assert!(text.contains(fragment), "`{fragment}` missing from: {text}");
    }
}

fn model_error(source: &str) -> SourceError {
    model::parse(source, "bad.toml").err().unwrap_or_else(|| panic!("accepted:\n{source}"))
}

fn instrument_error(source: &str) -> SourceError {
    instrument::parse(source, "bad.toml").err().unwrap_or_else(|| panic!("accepted:\n{source}"))
}

/// A pendulum at 44.1 kHz: the cheapest instrument to build, with one part, "bob".
fn bob() -> &'static Instrument {
    static PENDULUM: OnceLock<Instrument> = OnceLock::new();
    PENDULUM.get_or_init(|| {
        pendulum(&PendulumSpec::default(), SchemeKind::SymplecticEuler, 1.0 / 44_100.0).unwrap()
    })
}

fn score_error(source: &str) -> SourceError {
    score::parse(source, "bad.toml", bob(), None).err().unwrap_or_else(|| panic!("accepted:\n{source}"))
}

const ONE_MASS: &str = "[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = 1.0\n";

#[test]
fn instrument_arrays_with_extra_elements_are_refused() {
    let e = instrument_error("[drum]\nsize = [0.3, 0.3, -1, nan, \"junk\"]\n");
    let found = "[0.3, 0.3, -1, nan, \"junk\"]";
    assert_error(&e, (2, 8), found, &["invalid length 5, expected an array of 2 numbers"]);
    let e = instrument_error("[drum]\nsize = [0.3]\n");
    assert_error(&e, (2, 8), "[0.3]", &["invalid length 1, expected an array of 2 numbers"]);
    let e = instrument_error("[drum]\npickups = [[0.3, 0.4], [0.5, 0.5, 0.5]]\n");
    assert_error(&e, (2, 24), "[0.5, 0.5, 0.5]", &["invalid length 3, expected an array of 2 numbers"]);
    let e = instrument_error("[drum]\nsize = [0.3, \"junk\"]\n");
    assert_error(&e, (2, 14), "\"junk\"", &["invalid type: string \"junk\", expected a number"]);
}

#[test]
fn a_tuning_octave_out_of_range_is_refused_not_wrapped() {
    let e = instrument_error("[guitar]\ntuning = [\"E2\", \"C2147483647\"]\n");
    let fragments = ["(octaves -1 to 10)", "found \"C2147483647\""];
    assert_error(&e, (2, 17), "\"C2147483647\"", &fragments);
    let e = instrument_error("[guitar]\ntuning = [\"A+4\"]\n");
    assert_error(&e, (2, 11), "\"A+4\"", &["a note name"]);
    let e = instrument_error("[guitar]\ntuning = [true]\n");
    assert_error(&e, (2, 11), "true", &["expected a note name such as \"E2\" or a frequency in Hz"]);
    // The ends of the range are notes.
    instrument::parse("[guitar]\ntuning = [\"C-1\", \"B10\"]\n", "good.toml").unwrap();
}

#[test]
fn a_bad_score_position_names_the_forms_accepted_and_what_was_found() {
    let event = "[score]\nduration = 1.0\n[[strike]]\ntime = 0.0\npart = \"bob\"\n";
    let forms = "expected a fraction along a string (a number such as 0.5) or a point [x, y] of a membrane";
    let e = score_error(&format!("{event}position = \"middle\"\n"));
    assert_error(&e, (6, 12), "\"middle\"", &["invalid type: string \"middle\"", forms]);
    let e = score_error(&format!("{event}position = [0.1, 0.2, 0.3]\n"));
    assert_error(&e, (6, 12), "[0.1, 0.2, 0.3]", &["invalid length 3", forms]);
}

#[test]
fn a_file_that_is_not_utf8_names_its_kind_and_the_byte() {
    let folder = std::env::temp_dir().join(format!("hooke-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("latin1.toml");
    std::fs::write(&path, b"[score]\nduration = 1.0\nname = \"caf\xe9\"\n").unwrap();
    let e = score::load(&path, bob()).unwrap_err();
    let expected = "expected UTF-8 text in the score file, found the byte 0xE9, which is not UTF-8";
    assert_eq!((e.line, e.column, e.file.as_str()), (3, 12, path.to_str().unwrap()), "{e}");
    assert!(e.message.contains(expected), "{e}");
    let e = instrument::load(&path).unwrap_err();
    assert!(e.message.contains("expected UTF-8 text in the instrument file"), "{e}");
    let e = model::load(&path).unwrap_err();
    assert!(e.message.contains("expected UTF-8 text in the model file"), "{e}");
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn a_long_id_is_cut_in_messages() {
    let id = "x".repeat(1_000_000);
    let e = model_error(&format!("{ONE_MASS}[[spring]]\na = \"{id}\"\nb = \"m\"\nstiffness = 1.0\n"));
    let cut = format!("\"{}...\" (1000000 characters)", "x".repeat(57));
    let fragments = [format!("link from {cut} to \"m\""), format!("found unknown id {cut}")];
    let found = format!("\"{}...", "x".repeat(59));
    assert_error(&e, (7, 5), &found, &fragments.each_ref().map(String::as_str));
    assert!(e.to_string().len() < 400, "{} bytes", e.to_string().len());
    // Keys the reader does not know, too.
    let e = model_error(&format!("{ONE_MASS}{id} = 1\n"));
    assert!(
        e.message.starts_with(&format!("unknown field `{}...` (1000000 characters)", "x".repeat(57))),
        "{e}"
    );
}

#[test]
fn numbers_in_messages_are_short() {
    let e = model_error("[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = -1e300\n");
    assert_error(&e, (5, 8), "-1e300", &["`mass`: expected a value > 0, found -1e300"]);
    let e = model_error("[model]\ndimension = 1\n[[mass]]\nid = \"m\"\nmass = -1.5e-300\n");
    assert_error(&e, (5, 8), "-1.5e-300", &["found -1.5e-300"]);
    // serde's own message, with the float written out in full, and a count past 2^53.
    let e = model_error("[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 1e300\n");
    assert_error(
        &e,
        (5, 10),
        "1e300",
        &["invalid type: floating point `1e300`, expected a whole number >= 0"],
    );
    let e = model_error(&format!("{ONE_MASS}[[pickup]]\nmass = \"m\"\nchannel = 9223372036854775807\n"));
    assert!(e.message.ends_with("found 9223372036854775807"), "{e}");
}

#[test]
fn run_and_analysis_errors_are_short_too() {
    let mut model = Model::new(1).unwrap();
    let id = "y".repeat(100_000);
    let wall = model.add_anchor(Anchor::new("wall")).unwrap();
    let mass = model.add_mass(Mass::new(id.as_str(), 1e-3).position([1e-3])).unwrap();
    model.add_spring(Spring::new(wall, mass, 1e12)).unwrap();
    let mut engine = Engine::new(&model, &[PickupSpec::position(mass)], EngineConfig::default()).unwrap();
    let error = engine.run(1_000, &mut [Vec::new()], &mut []).unwrap_err().to_string();
    let cut = format!("mass \"{}...\" (100000 characters) has a non-finite", "y".repeat(57));
    assert!(error.starts_with("the simulation became unstable at step ") && error.contains(&cut), "{error}");
    let target = TuneTarget { frequency_hz: 100.0, time_constant: Some(1.0) };
    let error = design_string(10, 1e-3, target, SchemeKind::SymplecticEuler, 1e-300).unwrap_err().to_string();
    assert!(error.contains("h = 1e-300 s"), "{error}");
}

#[test]
fn an_output_that_overflows_before_the_state_stops_the_run_and_keeps_the_frames_before() {
    // The spring of `run_and_analysis_errors_are_short_too` at the default step: unstable, its
    // motion grows by a factor of about 1e3 a step. Read with a weight of 1e300, the pickup's
    // value overflows some 30 steps before the state does.
    let mut model = Model::new(1).unwrap();
    let wall = model.add_anchor(Anchor::new("wall")).unwrap();
    let mass = model.add_mass(Mass::new("m", 1e-3).position([1e-3])).unwrap();
    model.add_spring(Spring::new(wall, mass, 1e12)).unwrap();
    let pickups = [PickupSpec::position(mass).weight(1e300)];
    let mut engine = Engine::new(&model, &pickups, EngineConfig::default()).unwrap();
    let mut output = [Vec::new()];
    // A step at a time, the error comes at the step whose output overflows.
    let error = (0..1_000).find_map(|_| engine.run(1, &mut output, &mut []).err()).expect("an error");
    assert!(matches!(error, hooke::engine::RunError::NonFiniteOutput { channel: 1, .. }), "{error}");
    assert!(error.to_string().contains("output channel 1 is no longer finite"), "{error}");
    assert!(engine.state().x.iter().all(|x| x.is_finite()), "the state overflowed first");
    assert!(!output[0].is_empty() && output[0].iter().all(|x| x.is_finite()), "{:?}", output[0]);
    // In one call, the state overflows within the block: that error, and the frames kept are
    // still only the finite ones.
    let mut engine = Engine::new(&model, &pickups, EngineConfig::default()).unwrap();
    let mut output = [Vec::new()];
    let error = engine.run(1_000, &mut output, &mut []).unwrap_err();
    assert!(matches!(error, hooke::engine::RunError::NonFinite { .. }), "{error}");
    assert!(!output[0].is_empty() && output[0].iter().all(|x| x.is_finite()), "{:?}", output[0]);
}

#[test]
fn whole_numbers_are_asked_for_in_words() {
    let e = model_error("[model]\ndimension = 1.0\n");
    assert_error(&e, (2, 13), "1.0", &["expected a whole number (1, 2 or 3), found 1.0"]);
    let e = model_error("[model]\ndimension = -2\n");
    assert_error(&e, (2, 13), "-2", &["expected a whole number (1, 2 or 3), found -2"]);
    let e = model_error("[model]\ndimension = 4\n");
    assert_error(&e, (2, 13), "4", &["model: `dimension`: expected 1, 2 or 3, found 4"]);
    let e = instrument_error("[guitar]\nmasses = 3.5\n");
    assert_error(&e, (2, 10), "3.5", &["floating point `3.5`, expected a whole number >= 0"]);
    let e = model_error("model = 5\n");
    assert_error(&e, (1, 9), "5", &["invalid type: integer `5`, expected a table"]);
    let e = instrument_error("[guitar]\ndecay = [[1.0]]\n");
    assert_error(&e, (2, 10), "[1.0]", &["invalid type: array, expected a number"]);
}

#[test]
fn mass_ids_with_commas_and_quotes_are_quoted_in_the_csv_header() {
    let mut model = Model::new(1).unwrap();
    model.add_mass(Mass::new("a,b", 1.0)).unwrap();
    model.add_mass(Mass::new("say \"hi\"", 1.0)).unwrap();
    model.add_mass(Mass::new("plain", 1.0)).unwrap();
    let system = System::new(&model);
    let mut out = Vec::new();
    CsvWriter::new(&mut out, &system, 1, 1, false).unwrap().finish(&system).unwrap();
    let header = String::from_utf8(out).unwrap();
    assert_eq!(
        header,
        "step,t,\"a,b.x\",\"a,b.vx\",\"say \"\"hi\"\".x\",\"say \"\"hi\"\".vx\",plain.x,plain.vx\n"
    );
}

#[test]
fn output_channels_are_limited() {
    assert_eq!(MAX_CHANNELS, 64);
    for channel in ["65", "4294967296", "9223372036854775807"] {
        let e = model_error(&format!("{ONE_MASS}[[pickup]]\nmass = \"m\"\nchannel = {channel}\n"));
        let fragments = ["pickup on \"m\": `channel`: expected a channel number from 1 to 64", channel];
        assert_error(&e, (8, 11), channel, &fragments);
    }
}

#[test]
fn generators_are_limited_before_they_allocate() {
    assert_eq!(MAX_NODES, 4_194_304);
    let room = "expected at most 4194304 more nodes (a model holds at most 4194304 masses and anchors";
    let string = "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmass = 1.0\nstiffness = 1.0\nmasses = ";
    let e = model_error(&format!("{string}1000000000\n"));
    assert_error(&e, (7, 10), "1000000000", &[room, "found 1000000000 masses and 2 anchors"]);
    let e = model_error(&format!("{string}18446744073709551615\n"));
    assert_error(&e, (7, 10), "18446744073709551615", &["found 18446744073709551615 masses and 2 anchors"]);
    let membrane = "[model]\ndimension = 1\n[[membrane]]\nid = \"d\"\nmass = 1.0\nstiffness = 1.0\n";
    let e = model_error(&format!("{membrane}columns = 9223372036854775807\nrows = 3\n"));
    let found = "found 9223372036854775807 x 3 masses and their rim";
    assert_error(&e, (7, 11), "9223372036854775807", &[room, found]);
    let chain = "[model]\ndimension = 1\n[[anchor]]\nid = \"o\"\n[[chain]]\nid = \"c\"\nfrom = \"o\"\n\
                 link_length = 1.0\ndirection = 1.0\nmass = 1.0\nstiffness = 1.0\nmasses = 4194304\n";
    let e = model_error(chain);
    assert_error(&e, (12, 10), "4194304", &["expected at most 4194303 more nodes", "found 4194304 masses"]);
    let message = "guitar: `masses`: expected at most 4194304 nodes in all (the masses and 2 anchors of \
                   each string), found 1000000 masses on each of 6 strings";
    let built = instrument::parse("[guitar]\nmasses = 1000000\n", "bad.toml").unwrap().build(
        SchemeKind::SymplecticEuler,
        44_100.0,
        1,
    );
    assert_error(&built.unwrap_err(), (2, 10), "1000000", &[message]);
}

#[test]
fn run_lengths_are_limited_to_2_to_the_40_steps() {
    assert_eq!(MAX_STEPS, 1 << 40);
    let limit = "run: `duration`: expected a run of at most 2^40 = 1099511627776 steps";
    let e = model_error(&format!("{ONE_MASS}[run]\nrate = 1e20\nduration = 1.0\n"));
    assert_error(&e, (8, 12), "1.0", &[limit, "found 1 s at a step of 1e-20 s, 1e20 steps"]);
    // Without a step in the file, the default one (44.1 kHz).
    let e = model_error(&format!("{ONE_MASS}[run]\nduration = 1e300\n"));
    assert_error(&e, (7, 12), "1e300", &[limit, "found 1e300 s at a step of", "4.41e304 steps"]);
    let e = model_error(&format!("{ONE_MASS}[run]\nsteps = 1099511627777\n"));
    assert_error(&e, (7, 9), "1099511627777", &["`steps`: expected a run of at most 2^40"]);
    model::parse(&format!("{ONE_MASS}[run]\nsteps = 1099511627776\n"), "good.toml").unwrap();
}

#[test]
fn scores_and_render_rates_are_limited() {
    let e = score_error("[score]\nduration = 1e308\n");
    let fragments =
        ["score: `duration`: expected a duration > 0 s and at most 3600 s (one hour), found 1e308"];
    assert_error(&e, (2, 12), "1e308", &fragments);
    let e = instrument_error("[guitar]\n[render]\nrate = 1e20\n");
    let message = "expected an output rate in whole Hz from 1 to 10000000 (10 MHz); found 1e20";
    assert_error(&e, (3, 8), "1e20", &[message]);
    instrument::parse("[guitar]\n[render]\nrate = 10000000\n", "good.toml").unwrap();
    // A rate or an oversampling from elsewhere (a command line) is checked when building.
    let file = instrument::parse("[pendulum]\n", "flags.toml").unwrap();
    let e = file.build_stable(SchemeKind::SymplecticEuler, 4e9, None).unwrap_err();
    let message =
        "render: `rate`: expected an output rate in whole Hz from 1 to 10000000 (10 MHz), found 4000000000";
    assert_error(&e, (1, 1), "[pendulum]", &[message]);
    let e = file.build_stable(SchemeKind::SymplecticEuler, 44_100.0, Some(17)).unwrap_err();
    assert_error(
        &e,
        (1, 1),
        "[pendulum]",
        &["render: `oversample`: expected an oversampling from 1 to 16, found 17"],
    );
}

#[test]
fn a_score_holds_at_most_200000_events_repeats_included() {
    let strike = |every: f64, length: f64| {
        format!("[[strike]]\ntime = 0.0\npart = \"bob\"\nevery = {every:e}\nfor = {length}\n")
    };
    let limit = "strike: `every`: expected at most 200000 events in a score, repeats included";
    let e = score_error(&format!("[score]\nduration = 1.0\n{}", strike(1e-6, 0.9)));
    assert_error(&e, (6, 9), "1e-6", &[limit, "found 900000 repeats after 0 events"]);
    let two = format!("[score]\nduration = 1.0\n{}{}", strike(5e-6, 0.75), strike(5e-6, 0.3));
    let e = score_error(&two);
    assert_error(&e, (11, 9), "5e-6", &[limit, "found 60000 repeats after 150000 events"]);
}

#[test]
fn the_readers_are_public_for_front_ends() {
    let e = hooke::format::read_source(Path::new("/no/such/file.toml"), "score").unwrap_err();
    assert_eq!((e.line, e.column), (1, 1), "{e}");
    assert!(e.message.starts_with("cannot read the score file: "), "{e}");
}

#[test]
fn midi_files_past_the_score_limits_are_refused_not_crashed() {
    let note = [0x90, 0x40, 0x64];
    let load = |bytes: &[u8]| {
        let error =
            midi::load(bytes, "bad.mid", bob(), NoteMap::new(bob(), StringRule::LowestFret), true, 0.5)
                .unwrap_err();
        error.to_string()
    };
    // The slowest tempo and the longest deltas: ticks times tempo pass 2^64.
    let slow: &[u8] = &[0xff, 0x51, 0x03, 0xff, 0xff, 0xff];
    let mut events = vec![(0, slow)];
    events.extend(std::iter::repeat_n((0x0fff_ffff, &note[..]), 5_000));
    let message = load(&smf(1, &events));
    let limit = "bad.mid: expected a MIDI file that lasts more than 0 s and at most 3600 s (one hour), its \
                 tail included, found ";
    // 5000 deltas of 2^28 - 1 ticks at 1 tick a beat and 16.777215 s a beat (the slowest tempo,
    // 0xFFFFFF us), and the 0.5 s tail: 2.2518e13 s.
    let ticks = f64::from(0x0fff_ffff_u32) * 5000.0;
    assert_eq!(((ticks * 16.777_215 + 0.5) / 1e9).round(), 22_518.0);
    assert_eq!(message, format!("{limit}2.2518e13 s (its slowest tempo: 16.777215 s a beat)"));
    // No ticks per beat, or per SMPTE frame: times would not be numbers.
    let expected = "bad.mid: expected a timing of at least 1 tick per beat or per frame, found 0";
    assert_eq!(load(&smf(0, &[(10, &note)])), expected);
    assert_eq!(load(&smf(0xe700, &[(10, &note)])), expected);
    // -128 frames per second, which the MIDI reader negates with an overflow, after a chunk it
    // does not know.
    let mut bytes = b"XTRA\0\0\0\x02ab".to_vec();
    bytes.extend(smf(0x8028, &[(10, &note)]));
    let found = "bad.mid: expected a Standard MIDI File, found an SMPTE timing of -128 frames per second";
    assert_eq!(load(&bytes), found);
}

#[test]
fn a_midi_note_that_ends_as_it_begins_plays() {
    // On at 0, then off, on and off at tick 480: the map damps, undamps, plucks and damps at one
    // time, which a score would apply damps first (two damps in a row, refused).
    let (on, off) = ([0x90, 0x40, 0x64], [0x80, 0x40, 0x00]);
    let bytes = smf(480, &[(0, &on), (480, &off), (0, &on), (0, &off)]);
    let midi::MidiScore { score, text, .. } =
        midi::load(&bytes, "tick.mid", bob(), NoteMap::new(bob(), StringRule::LowestFret), false, 0.5)
            .unwrap();
    assert_eq!(text.matches("[[damp]]").count(), 2, "{text}");
    assert_eq!(score.cues.len(), 5, "{text}");
}

#[test]
fn a_mass_whose_reciprocal_is_infinite_is_refused() {
    let mut model = Model::new(1).unwrap();
    // 1 / 5e-324 overflows; 1 / 2.2250738585072014e-308 (the smallest normal f64) is 4.5e307.
    let error = model.add_mass(Mass::new("m", 5e-324)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "mass \"m\": `mass`: expected a mass of at least 2.2250738585072014e-308 kg (the smallest whose \
         reciprocal is finite), found 5e-324 kg"
    );
    assert!((1.0 / f64::MIN_POSITIVE).is_finite());
    let n = model.add_mass(Mass::new("n", f64::MIN_POSITIVE)).unwrap();
    // On it, 1e4 N/m is k / m = 4.5e311 1/s^2, beyond an f64 (the analysis read a free mode);
    // 1 N/m is 4.5e307.
    let ground = model.add_anchor(Anchor::new("g")).unwrap();
    assert!((1e4 / f64::MIN_POSITIVE).is_infinite());
    let error = model.add_spring(Spring::new(ground, n, 1e4)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "link from \"g\" to \"n\": `stiffness`: expected a stiffness whose ratio to the mass of \"n\" is \
         finite, found 1e4 N/m on 2.2250738585072014e-308 kg"
    );
    model.add_spring(Spring::new(ground, n, 1.0)).unwrap();
}

#[test]
fn a_wav_is_refused_rather_than_filled_with_infinities() {
    use hooke::io::{write_wav, SampleFormat, WavOptions};
    let write = |samples: Vec<f64>, normalize: bool| {
        let options = WavOptions { format: SampleFormat::Float32, normalize };
        write_wav(std::io::Cursor::new(Vec::new()), &[samples], 1000, options)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    // A peak of 5e-324: the gain to -1 dBFS, 0.89 / 5e-324, is infinite.
    assert!(
        write(vec![0.0, 5e-324], true).starts_with("the loudest sample is 5e-324, below the smallest normal")
    );
    // f32 holds up to 3.4028235e38: 4e38 as it is would be an infinity.
    assert_eq!(
        write(vec![1.0, -4e38], false),
        "channel 1, frame 1: the sample -4e38 is beyond the range of 32-bit float samples \
         (+-3.4028235e38); nothing written: normalise the output or lower the pickup weights"
    );
    // Normalised, the same samples are written.
    let options = WavOptions { format: SampleFormat::Float32, normalize: true };
    let report = write_wav(std::io::Cursor::new(Vec::new()), &[vec![1.0, -4e38]], 1000, options).unwrap();
    assert!(report.gain.is_finite() && report.peak < 1.0);
}

#[test]
fn a_killed_writers_temporary_file_is_removed_and_a_live_ones_kept() {
    use hooke::io::{AtomicFile, STALE_AGE};
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("o.csv");
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let age = |name: &str| {
        let file = std::fs::File::options().write(true).open(dir.path().join(name)).unwrap();
        file.set_modified(SystemTime::now() - STALE_AGE - Duration::from_secs(60)).unwrap();
    };
    // A live writer holds the lock on its file.
    let live = AtomicFile::create(&target).unwrap();
    let live_name = listing().remove(0);
    // What a killed writer leaves (unlocked), a fresh unlocked one (a writer about to lock it),
    // and files of other names.
    let others = [".o.csv.Dead01.tmp", ".o.csv.x.tmp", ".o.csv.other.csv.Ab3456.tmp", "o.csv.Dead02.tmp"];
    for name in others {
        std::fs::write(dir.path().join(name), "partial").unwrap();
    }
    std::fs::write(dir.path().join(".o.csv.Fresh1.tmp"), "partial").unwrap();
    for name in others.iter().chain([&live_name.as_str()]) {
        age(name);
    }
    let next = AtomicFile::create(&target).unwrap();
    let left = listing();
    assert!(!left.contains(&".o.csv.Dead01.tmp".to_string()), "{left:?}");
    for kept in
        [&live_name, ".o.csv.Fresh1.tmp", ".o.csv.x.tmp", ".o.csv.other.csv.Ab3456.tmp", "o.csv.Dead02.tmp"]
    {
        assert!(left.iter().any(|n| n == kept), "{kept} kept: {left:?}");
    }
    drop((live, next));
}

#[test]
fn a_rate_or_step_whose_reciprocal_is_infinite_is_refused() {
    // 1 / 5e-324 overflows: the step (or the rate) the engine and the analysis would use is inf.
    for (error, field) in [
        (hooke::engine::StepSize::rate(5e-324).unwrap_err(), "rate"),
        (hooke::engine::StepSize::dt(1e-310).unwrap_err(), "dt"),
    ] {
        let message = error.to_string();
        assert!(
            message.contains(&format!("`{field}`")) && message.contains("reciprocal is finite"),
            "{message}"
        );
    }
    // The smallest normal double's reciprocal is finite: accepted.
    assert!(hooke::engine::StepSize::dt(f64::MIN_POSITIVE).is_ok());
}
