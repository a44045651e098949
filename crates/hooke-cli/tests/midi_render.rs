//! `hooke render INSTRUMENT song.mid`: a MIDI file written here with midly (format 1, a tempo
//! change, two tracks on two channels, a pitch bend, the sustain pedal) renders to the same
//! samples as the score file that docs/play.md says it stands for, written by hand; unplayable
//! notes are named, and left out only with --lenient; controllers mapped with --cc become the
//! `set`s docs/play.md says they are.

use midly::num::{u15, u28, u4, u7};
use midly::{Format, Header, MetaMessage, MidiMessage, PitchBend, Smf, Timing, TrackEvent, TrackEventKind};
use std::path::Path;

mod common;
use common::hooke;

const INSTRUMENT: &str =
    "[guitar]\ntuning = [\"E2\", \"A2\", \"D3\"]\nlinear_density = [6.4e-3, 3.6e-3, 1.9e-3]\n\
    decay = [3.0, 3.0, 3.0]\nmasses = 40\nfrets = 12\nstereo = false\n\n[render]\nrate = 22050\n";

/// Events at absolute ticks, as one track.
fn track(mut events: Vec<(u32, TrackEventKind<'static>)>) -> Vec<TrackEvent<'static>> {
    events.sort_by_key(|(tick, _)| *tick);
    let mut last = 0;
    let mut track: Vec<TrackEvent> = events
        .into_iter()
        .map(|(tick, kind)| {
            let delta = u28::new(tick - last);
            last = tick;
            TrackEvent { delta, kind }
        })
        .collect();
    track.push(TrackEvent { delta: u28::new(0), kind: TrackEventKind::Meta(MetaMessage::EndOfTrack) });
    track
}

fn midi(channel: u8, message: MidiMessage) -> TrackEventKind<'static> {
    TrackEventKind::Midi { channel: u4::new(channel), message }
}

fn on(channel: u8, key: u8, vel: u8) -> TrackEventKind<'static> {
    midi(channel, MidiMessage::NoteOn { key: u7::new(key), vel: u7::new(vel) })
}

fn off(channel: u8, key: u8) -> TrackEventKind<'static> {
    midi(channel, MidiMessage::NoteOff { key: u7::new(key), vel: u7::new(0) })
}

fn pedal(channel: u8, down: bool) -> TrackEventKind<'static> {
    midi(
        channel,
        MidiMessage::Controller { controller: u7::new(64), value: u7::new(if down { 127 } else { 0 }) },
    )
}

fn controller(channel: u8, number: u8, value: u8) -> TrackEventKind<'static> {
    midi(channel, MidiMessage::Controller { controller: u7::new(number), value: u7::new(value) })
}

/// 480 ticks a beat; 120 bpm (0.5 s a beat), then 240 bpm from tick 960 (1 s).
fn song(extra: Vec<(u32, TrackEventKind<'static>)>) -> Vec<u8> {
    let tempo = |us: u32| TrackEventKind::Meta(MetaMessage::Tempo(midly::num::u24::new(us)));
    let mut first = vec![
        (0, on(0, 40, 100)),     // E2 open, 0 s
        (480, on(0, 47, 127)),   // B2: E2 is busy, so A2 fret 2, 0.5 s
        (960, off(0, 40)),       // 1 s
        (1440, pedal(0, true)),  // 1.25 s
        (1440, on(0, 45, 90)),   // A2 is busy: E2 fret 5, 1.25 s
        (1680, off(0, 45)),      // held by the pedal, 1.375 s
        (1920, pedal(0, false)), // E2 damped, 1.5 s
        (1920, off(0, 47)),      // A2 damped, 1.5 s
    ];
    first.extend(extra);
    let second = vec![
        (240, on(1, 50, 64)),                                                      // D3, 0.25 s
        (720, midi(1, MidiMessage::PitchBend { bend: PitchBend::from_f64(0.5) })), // 0.75 s
        (1200, off(1, 50)),                                                        // 1.125 s
    ];
    let smf = Smf {
        header: Header::new(Format::Parallel, Timing::Metrical(u15::new(480))),
        tracks: vec![track(vec![(0, tempo(500_000)), (960, tempo(250_000))]), track(first), track(second)],
    };
    let mut bytes = Vec::new();
    smf.write_std(&mut bytes).unwrap();
    bytes
}

/// The score the song stands for (docs/play.md): plectrum plucks at 0.8 (pulled over 3 ms, let
/// go over 0.1 ms), damps on note offs, and `extra` events.
fn equivalent_score(extra: &[String]) -> String {
    let peak = |velocity: f64| 0.5 * (velocity / 127.0f64).powi(2);
    let pluck = |time: f64, part: &str, velocity: f64| {
        format!(
            "[[pluck]]\ntime = {time:?}\npart = \"{part}\"\nposition = 0.8\nshape = \"pull\"\n\
             amplitude = {:?}\npull = 0.003\nrelease = 0.0001\n\n",
            peak(velocity)
        )
    };
    let event = |kind: &str, time: f64, part: &str, rest: &str| {
        format!("[[{kind}]]\ntime = {time:?}\npart = \"{part}\"\n{rest}\n")
    };
    [
        "[score]\nduration = 2.0\n\n".to_string(),
        pluck(0.0, "E2", 100.0),
        pluck(0.25, "D3", 64.0),
        event("fret", 0.5, "A2", "fret = 2\n"),
        pluck(0.5, "A2", 127.0),
        event("set", 0.75, "D3", &format!("parameter = \"tension\"\nvalue = {:?}\n", 2f64.powf(1.0 / 6.0))),
        event("damp", 1.0, "E2", "decay = 0.05\n"),
        event("damp", 1.125, "D3", "decay = 0.05\n"),
        event("undamp", 1.25, "E2", ""),
        event("fret", 1.25, "E2", "fret = 5\n"),
        pluck(1.25, "E2", 90.0),
        event("damp", 1.5, "E2", "decay = 0.05\n"),
        event("damp", 1.5, "A2", "decay = 0.05\n"),
    ]
    .into_iter()
    .chain(extra.iter().cloned())
    .collect()
}

/// A `[[set]]` event.
fn set(time: f64, part: &str, parameter: &str, value: f64) -> String {
    format!("[[set]]\ntime = {time:?}\npart = \"{part}\"\nparameter = \"{parameter}\"\nvalue = {value:?}\n\n")
}

fn samples(path: &Path) -> Vec<f32> {
    hound::WavReader::open(path).unwrap().samples::<f32>().map(Result::unwrap).collect()
}

/// Renders `song` and `score` and checks that they are the same samples.
fn renders_as(song: Vec<u8>, score: String, flags: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guitar.toml"), INSTRUMENT).unwrap();
    std::fs::write(dir.path().join("song.mid"), song).unwrap();
    std::fs::write(dir.path().join("score.toml"), score).unwrap();
    let mut args =
        vec!["render", "guitar.toml", "song.mid", "-o", "midi.wav", "--format", "f32", "--tail", "0.5"];
    args.extend(flags);
    let midi = hooke(&args, dir.path());
    assert!(midi.status.success(), "{}", String::from_utf8_lossy(&midi.stderr));
    let score =
        hooke(&["render", "guitar.toml", "score.toml", "-o", "score.wav", "--format", "f32"], dir.path());
    assert!(score.status.success(), "{}", String::from_utf8_lossy(&score.stderr));
    let (from_midi, from_score) =
        (samples(&dir.path().join("midi.wav")), samples(&dir.path().join("score.wav")));
    assert_eq!(from_midi.len(), (2.0 * 22050.0) as usize);
    assert!(from_midi.iter().any(|&s| s.abs() > 0.5), "the song is heard");
    assert!(from_midi == from_score, "the MIDI file and its score differ");
}

#[test]
fn a_midi_file_renders_as_its_equivalent_score_sample_for_sample() {
    renders_as(song(Vec::new()), equivalent_score(&[]), &[]);
}

#[test]
fn mapped_controllers_set_the_parameters_of_the_strings_their_channel_sounds() {
    let controllers = vec![
        (360, controller(0, 1, 0)),    // 0.375 s: tension 0.8 on E2, which channel 1 sounds
        (400, controller(0, 7, 100)),  // not mapped: nothing
        (576, controller(1, 74, 127)), // 0.6 s: damping 3 on D3, which channel 2 sounds
    ];
    // A2 takes channel 1's tension when its note begins at 0.5 s; E2 keeps it at 1.25 s.
    let sets =
        [set(0.375, "E2", "tension", 0.8), set(0.5, "A2", "tension", 0.8), set(0.6, "D3", "damping", 3.0)];
    renders_as(
        song(controllers),
        equivalent_score(&sets),
        &["--cc", "1=tension:0.8:1.25", "--cc", "74=damping:0.5:3"],
    );
}

#[test]
fn a_controller_mapping_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guitar.toml"), INSTRUMENT).unwrap();
    std::fs::write(dir.path().join("song.mid"), song(Vec::new())).unwrap();
    for (flag, expected) in [
        ("64=tension", "--cc"),
        (
            "74=pitch",
            "expected the parameter \"tension\", \"damping\", \"position\" or \"hardness\", found \"pitch\"",
        ),
    ] {
        let output = hooke(&["render", "guitar.toml", "song.mid", "-o", "x.wav", "--cc", flag], dir.path());
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success() && message.contains(expected), "{flag}: {message}");
    }
    let twice = hooke(
        &["render", "guitar.toml", "song.mid", "-o", "x.wav", "--cc", "1=tension", "--cc", "1=damping"],
        dir.path(),
    );
    assert!(String::from_utf8_lossy(&twice.stderr).contains("--cc: controller 1 is mapped twice"));
    std::fs::write(dir.path().join("reed.toml"), "[reed]\n").unwrap();
    let body = hooke(&["render", "reed.toml", "song.mid", "-o", "x.wav", "--cc", "1=damping"], dir.path());
    let message = String::from_utf8_lossy(&body.stderr);
    assert!(message.contains("--cc: controller 1: the reed plays a body"), "{message}");
    assert!(!dir.path().join("x.wav").exists());
}

#[test]
fn an_unplayable_note_is_named_and_left_out_only_when_lenient() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guitar.toml"), INSTRUMENT).unwrap();
    // C2 (36) below the E2 string, at tick 720 (0.75 s), on track 2 (1-based), channel 1.
    std::fs::write(dir.path().join("low.mid"), song(vec![(720, on(0, 36, 100)), (800, off(0, 36))])).unwrap();
    let strict = hooke(&["render", "guitar.toml", "low.mid", "-o", "low.wav"], dir.path());
    let message = String::from_utf8_lossy(&strict.stderr);
    assert!(!strict.status.success());
    assert!(
        message.contains("track 2, channel 1, at 0.75 s: note 36 (C2): below the lowest string (E2)"),
        "{message}"
    );
    assert!(message.contains("--lenient"), "{message}");
    assert!(!dir.path().join("low.wav").exists());
    let lenient = hooke(
        &["render", "guitar.toml", "low.mid", "-o", "low.wav", "--lenient", "--write-score", "low.toml"],
        dir.path(),
    );
    assert!(lenient.status.success(), "{}", String::from_utf8_lossy(&lenient.stderr));
    assert!(
        String::from_utf8_lossy(&lenient.stderr).contains("left out: track 2, channel 1, at 0.75 s: note 36")
    );
    let written = std::fs::read_to_string(dir.path().join("low.toml")).unwrap();
    assert_eq!(written.matches("[[pluck]]").count(), 4, "{written}");
}

#[test]
fn a_scala_tuning_sets_each_strings_tension_and_its_files_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guitar.toml"), INSTRUMENT).unwrap();
    std::fs::write(dir.path().join("song.mid"), song(Vec::new())).unwrap();
    // Quarter-comma meantone's major third (5/4) on degree 4 of a 12-note scale, the rest
    // equal-tempered; key 60 (middle C) plays degree 0 at 261.626 Hz.
    let mut scale = String::from("! third.scl\nequal but for a just major third\n12\n");
    for k in 1..=12 {
        scale += &if k == 4 { "5/4\n".to_string() } else { format!("{}.0\n", 100 * k) };
    }
    std::fs::write(dir.path().join("third.scl"), scale).unwrap();
    let flags = ["--tuning", "third.scl", "--write-score", "tuned.toml"];
    let output =
        hooke(&[&["render", "guitar.toml", "song.mid", "-o", "x.wav"][..], &flags[..]].concat(), dir.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // Degree = (key - 60) mod 12: the song's E2 (40) is degree 4, the just third, 13.7 cents
    // under its equal-tempered pitch, so its string's first `set` is the tension (5/4 /
    // 2^(4/12))^2; its later A2 (45, degree 9) on the same string sets it back to 1.
    let written = std::fs::read_to_string(dir.path().join("tuned.toml")).unwrap();
    let flat = (1.25f64 / 2f64.powf(4.0 / 12.0)).powi(2);
    let on_e2: Vec<f64> = written
        .split("[[set]]")
        .skip(1)
        .map(|set| set.split("\n[[").next().unwrap())
        .filter(|set| set.contains("part = \"E2\"") && set.contains("parameter = \"tension\""))
        .map(|set| set.split("value = ").nth(1).unwrap().lines().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(on_e2.len(), 2, "{written}");
    assert!((on_e2[0] / flat - 1.0).abs() < 1e-12 && on_e2[1] == 1.0, "{on_e2:?} against {flat}");
    // A scale that does not read is named at its line and column; a keyboard map needs a scale;
    // bars take no tuning.
    std::fs::write(dir.path().join("bad.scl"), "bad\n2\n100.0\nsharp\n").unwrap();
    let bad = hooke(&["render", "guitar.toml", "song.mid", "-o", "y.wav", "--tuning", "bad.scl"], dir.path());
    let message = String::from_utf8_lossy(&bad.stderr);
    assert!(message.contains("bad.scl:4:1: expected a pitch") && message.contains("`sharp`"), "{message}");
    let alone =
        hooke(&["render", "guitar.toml", "song.mid", "-o", "y.wav", "--keyboard-map", "a.kbm"], dir.path());
    assert!(
        String::from_utf8_lossy(&alone.stderr).contains("--tuning"),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );
    std::fs::write(dir.path().join("marimba.toml"), "[marimba]\n").unwrap();
    let bars =
        hooke(&["render", "marimba.toml", "song.mid", "-o", "y.wav", "--tuning", "third.scl"], dir.path());
    let message = String::from_utf8_lossy(&bars.stderr);
    assert!(message.contains("--tuning: the marimba plays bars"), "{message}");
    assert!(!dir.path().join("y.wav").exists());
}
