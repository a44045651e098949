//! `hooke fit` end to end: a note rendered by `hooke render`, fitted, written as an instrument
//! file that `hooke render` plays at the fitted pitch, the resynthesis and the report; and its
//! refusals, each naming the file or the flag and what it found, writing nothing.

use std::path::Path;

mod common;
use common::{hooke, stderr, stdout};

/// Renders the repository's known string (examples/instruments/fit-known-string*.toml) to
/// `known.wav` in `dir`.
fn known_note(dir: &Path) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let rendered = hooke(
        &[
            "render",
            examples.join("fit-known-string.toml").to_str().unwrap(),
            examples.join("fit-known-string-note.toml").to_str().unwrap(),
            "-o",
            "known.wav",
            "--format",
            "i24",
        ],
        dir,
    );
    assert!(rendered.status.success(), "{}", stderr(&rendered));
}

#[test]
fn a_fitted_note_plays_back_at_its_pitch_with_a_report_and_a_resynthesis() {
    let dir = tempfile::tempdir().unwrap();
    known_note(dir.path());
    let fitted = hooke(
        &[
            "fit",
            "known.wav",
            "--as",
            "string",
            "-o",
            "fitted.toml",
            "--wav",
            "re.wav",
            "--report",
            "report.md",
            "--plot",
            "fit.svg",
        ],
        dir.path(),
    );
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    for picture in ["fit.svg", "fit-spectrum.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(picture)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("fitted string, simulated"), "{picture}");
    }
    assert_eq!(stdout(&fitted).trim(), report.trim(), "the report is printed as written");
    // The summary row: the design's E2 (82.4069 Hz) and B = 1e-4.
    let row: Vec<&str> =
        report.lines().find(|l| l.starts_with("| known.wav")).unwrap().split('|').map(str::trim).collect();
    let (f0, b): (f64, f64) = (row[3].parse().unwrap(), row[4].parse().unwrap());
    assert!((1200.0 * (f0 / 82.406_889).log2()).abs() < 0.1, "f0 {f0}");
    assert!((b / 1e-4 - 1.0).abs() < 0.02, "B {b}");
    let text = std::fs::read_to_string(dir.path().join("fitted.toml")).unwrap();
    assert!(text.contains("names = [\"E2\"]"), "{text}");
    // Plucked on the mass nearest 0.8 of the length: mass 81 of the 100 between 101 links.
    let pluck: f64 = text.lines().find_map(|l| l.strip_prefix("pluck_position = ")).unwrap().parse().unwrap();
    assert!((pluck - 81.0 / 101.0).abs() < 0.02, "{text}");
    // The resynthesis has the recording's rate and length.
    let recording = hound::WavReader::open(dir.path().join("known.wav")).unwrap();
    let resynthesis = hound::WavReader::open(dir.path().join("re.wav")).unwrap();
    assert_eq!(resynthesis.spec().sample_rate, recording.spec().sample_rate);
    assert_eq!(resynthesis.duration(), recording.duration());
    // The fitted file plays a note like any instrument; fitted again, it is the same string.
    std::fs::write(
        dir.path().join("note.toml"),
        "[score]\nduration = 3.0\n[[pluck]]\ntime = 0.1\npart = \"E2\"\nposition = 0.8\nshape = \"pulse\"\namplitude = 0.3\nwidth = 1e-3\n",
    )
    .unwrap();
    let played = hooke(&["render", "fitted.toml", "note.toml", "-o", "played.wav"], dir.path());
    assert!(played.status.success(), "{}", stderr(&played));
    let again =
        hooke(&["fit", "played.wav", "--as", "string", "-o", "again.toml", "--note", "E2"], dir.path());
    assert!(again.status.success(), "{}", stderr(&again));
    let row = stdout(&again);
    let row: Vec<&str> =
        row.lines().find(|l| l.starts_with("| played.wav")).unwrap().split('|').map(str::trim).collect();
    let f0_again: f64 = row[3].parse().unwrap();
    assert!((1200.0 * (f0_again / f0).log2()).abs() < 0.1, "played back at {f0_again} Hz, fitted {f0} Hz");
}

#[test]
fn recordings_and_flags_it_cannot_use_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    known_note(dir.path());
    let silent = hound::WavSpec {
        channels: 1,
        sample_rate: 44_100,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(dir.path().join("silent.wav"), silent).unwrap();
    (0..44_100).for_each(|_| writer.write_sample(0i16).unwrap());
    writer.finalize().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["fit", "known.wav", "known.wav", "--as", "guitar", "-o", "f.toml", "--plot", "p.png"],
            "--plot: one recorded note; found 2",
        ),
        (
            &["fit", "missing.wav", "--as", "string", "-o", "f.toml"],
            "missing.wav: expected a readable WAV file",
        ),
        (
            &["fit", "silent.wav", "--as", "string", "-o", "f.toml"],
            "silent.wav: expected a note; found silence",
        ),
        (
            &["fit", "known.wav", "--as", "string", "-o", "f.toml", "--note", "E2,A2"],
            "--note: expected one note for each of the 1",
        ),
        (
            &["fit", "known.wav", "known.wav", "--as", "string", "-o", "f.toml"],
            "--as string: expected one recording; found 2",
        ),
        (
            &["fit", "known.wav", "--as", "string", "-o", "f.toml", "--note", "H9"],
            "--note: expected a note name",
        ),
    ];
    for (args, message) in cases {
        let output = hooke(args, dir.path());
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
        assert!(!dir.path().join("f.toml").exists(), "{args:?} wrote f.toml");
    }
}

#[test]
fn a_struck_bar_is_fitted_as_a_marimba_key_that_sounds_its_two_modes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bar.toml"),
        "[marimba]\nkeys = [\"A4\"]\nratio = 3.5\nstereo = false\n[render]\nscheme = \"symplectic-euler\"\nrate = 44100\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("strike.toml"),
        "[score]\nduration = 2.0\n[[strike]]\ntime = 0.1\npart = \"A4\"\nvelocity = 1.0\n",
    )
    .unwrap();
    let rendered = hooke(&["render", "bar.toml", "strike.toml", "-o", "bar.wav"], dir.path());
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let fitted =
        hooke(&["fit", "bar.wav", "--as", "bar", "-o", "fitted.toml", "--wav", "re.wav"], dir.path());
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    // The marimba's default decays at C4 (0.3 s, 0.18 s), as 1/f at A4: T60 = 3 ln 10 tau.
    let scale = 261.625_565_300_598_6 / 440.0;
    let expected = [(440.0, 0.3 * scale), (440.0 * 3.5, 0.18 * scale)];
    let report = stdout(&fitted);
    for (mode, (hz, tau)) in expected.iter().enumerate() {
        let row: Vec<f64> = report
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", mode + 1)))
            .unwrap()
            .split('|')
            .filter_map(|c| c.trim().parse().ok())
            .collect();
        // mode, recorded Hz and T60, fitted Hz and T60, simulated Hz and T60.
        let t60 = 3.0 * std::f64::consts::LN_10 * tau;
        for (f, t) in [(row[1], row[2]), (row[5], row[6])] {
            assert!((1200.0 * (f / hz).log2()).abs() < 0.1, "mode {}: {f} Hz\n{report}", mode + 1);
            assert!((t / t60 - 1.0).abs() < 0.02, "mode {}: T60 {t} s, designed {t60}\n{report}", mode + 1);
        }
    }
    let text = std::fs::read_to_string(dir.path().join("fitted.toml")).unwrap();
    assert!(
        text.contains("[marimba]") && text.contains("keys = [\"A4\"]") && text.contains("tuning = [4"),
        "{text}"
    );
}

#[test]
fn several_recordings_make_a_guitar_of_one_string_each() {
    let dir = tempfile::tempdir().unwrap();
    known_note(dir.path());
    // A second string: the known one's instrument tuned to A2, rendered the same way.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let known = std::fs::read_to_string(examples.join("fit-known-string.toml")).unwrap();
    std::fs::write(dir.path().join("a2.toml"), known.replace("tuning = [\"E2\"]", "tuning = [\"A2\"]"))
        .unwrap();
    let note = std::fs::read_to_string(examples.join("fit-known-string-note.toml")).unwrap();
    std::fs::write(dir.path().join("a2-note.toml"), note.replace("part = \"E2\"", "part = \"A2\"")).unwrap();
    let rendered = hooke(&["render", "a2.toml", "a2-note.toml", "-o", "a2.wav"], dir.path());
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let fitted = hooke(&["fit", "known.wav", "a2.wav", "--as", "guitar", "-o", "guitar.toml"], dir.path());
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    let text = std::fs::read_to_string(dir.path().join("guitar.toml")).unwrap();
    assert!(text.contains("names = [\"E2\", \"A2\"]"), "{text}");
    let tuning: Vec<f64> = text
        .lines()
        .find_map(|l| l.strip_prefix("tuning = ["))
        .unwrap()
        .trim_end_matches(']')
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    for (hz, expected) in tuning.iter().zip([82.406_889, 110.0]) {
        assert!((1200.0 * (hz / expected).log2()).abs() < 0.1, "{hz} Hz for {expected} Hz");
    }
    // Each string plays its own note.
    std::fs::write(
        dir.path().join("both.toml"),
        "[score]\nduration = 1.0\n[[pluck]]\ntime = 0.0\npart = \"A2\"\nposition = 0.8\namplitude = 0.002\n",
    )
    .unwrap();
    let played = hooke(&["render", "guitar.toml", "both.toml", "-o", "both.wav"], dir.path());
    assert!(played.status.success(), "{}", stderr(&played));
}

/// A Standard MIDI File of one note, `key` at velocity 100 for 2 s (480 ticks a beat, 120 bpm).
fn one_note(key: u8) -> Vec<u8> {
    use midly::num::{u15, u28, u4, u7};
    use midly::{Format, Header, MetaMessage, MidiMessage, Smf, Timing, TrackEvent, TrackEventKind};
    let midi = |message| TrackEventKind::Midi { channel: u4::new(0), message };
    let track = vec![
        TrackEvent {
            delta: u28::new(0),
            kind: midi(MidiMessage::NoteOn { key: u7::new(key), vel: u7::new(100) }),
        },
        TrackEvent {
            delta: u28::new(1920),
            kind: midi(MidiMessage::NoteOff { key: u7::new(key), vel: u7::new(0) }),
        },
        TrackEvent { delta: u28::new(0), kind: TrackEventKind::Meta(MetaMessage::EndOfTrack) },
    ];
    let smf = Smf {
        header: Header::new(Format::SingleTrack, Timing::Metrical(u15::new(480))),
        tracks: vec![track],
    };
    let mut bytes = Vec::new();
    smf.write_std(&mut bytes).unwrap();
    bytes
}

#[test]
fn the_fitted_file_plays_a_midi_note_plucked_where_the_recording_was() {
    let dir = tempfile::tempdir().unwrap();
    known_note(dir.path());
    let fitted = hooke(&["fit", "known.wav", "--as", "string", "-o", "fitted.toml"], dir.path());
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    std::fs::write(dir.path().join("e2.mid"), one_note(40)).unwrap();
    let played = hooke(&["render", "fitted.toml", "e2.mid", "-o", "midi.wav"], dir.path());
    assert!(played.status.success(), "{}", stderr(&played));
    // The MIDI note, fitted in turn: the same pitch, plucked where the recording was (the
    // mass nearest 0.8 of the length, 20/101 from the bridge) and let go as fast, within the
    // factor 2 the release is found to (crates/hooke/tests/fit.rs).
    let again = hooke(&["fit", "midi.wav", "--as", "string", "-o", "again.toml"], dir.path());
    assert!(again.status.success(), "{}", stderr(&again));
    let row = |text: &str, file: &str| -> Vec<f64> {
        let line = text.lines().find(|l| l.starts_with(&format!("| {file}"))).unwrap().to_string();
        line.split('|').skip(2).filter_map(|c| c.trim().parse().ok()).collect()
    };
    let (first, second) = (row(&stdout(&fitted), "known.wav"), row(&stdout(&again), "midi.wav"));
    // onset, f0, B, sigma_0, sigma_f, sigma_1, pluck, release (ms).
    assert!((1200.0 * (second[1] / first[1]).log2()).abs() < 0.1, "f0 {} then {}", first[1], second[1]);
    assert!((second[6] - 20.0 / 101.0).abs() < 0.02, "plucked at {} from the bridge", second[6]);
    assert!((second[7] / first[7]).log2().abs() < 1.0, "let go over {} ms, then {} ms", first[7], second[7]);
}

#[test]
fn a_struck_bell_is_fitted_as_a_bell_that_sounds_its_modes_and_plays_a_midi_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bell.toml"),
        "[bell]\nkeys = [\"G4\"]\nstereo = false\n[render]\nscheme = \"symplectic-euler\"\nrate = 44100\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("strike.toml"),
        "[score]\nduration = 3.0\n[[strike]]\ntime = 0.1\npart = \"G4\"\nvelocity = 1.0\n",
    )
    .unwrap();
    let rendered = hooke(&["render", "bell.toml", "strike.toml", "-o", "bell.wav"], dir.path());
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let fitted = hooke(
        &["fit", "bell.wav", "--as", "bell", "-o", "fitted.toml", "--wav", "re.wav", "--plot", "modes.svg"],
        dir.path(),
    );
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    for picture in ["modes.svg", "modes-spectrum.svg"] {
        let svg = std::fs::read_to_string(dir.path().join(picture)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("fitted bell, simulated"), "{picture}");
    }
    // The default bell's partials (docs/score-format.md, [bell]): hum, prime, tierce, quint,
    // nominal, deciem, undeciem, duodeciem, double octave, over G4's strike note.
    let ratios = [0.5, 1.0, 1.2, 1.5, 2.0, 2.5, 2.67, 3.0, 4.0];
    let g4 = 391.995_435_981_749_3;
    let report = stdout(&fitted);
    for (mode, ratio) in ratios.iter().enumerate() {
        let row: Vec<f64> = report
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", mode + 1)))
            .unwrap_or_else(|| panic!("mode {}\n{report}", mode + 1))
            .split('|')
            .filter_map(|c| c.trim().parse().ok())
            .collect();
        // mode, recorded Hz, ratio, T60, level; mass; simulated Hz, T60, level.
        let cents = |hz: f64| 1200.0 * (hz / (ratio * g4)).log2();
        assert!(cents(row[1]).abs() < 0.1 && cents(row[6]).abs() < 0.1, "mode {}\n{report}", mode + 1);
        assert!((row[7] / row[3] - 1.0).abs() < 0.02, "mode {}: T60\n{report}", mode + 1);
        assert!((row[8] - row[4]).abs() < 0.5, "mode {}: level\n{report}", mode + 1);
    }
    let text = std::fs::read_to_string(dir.path().join("fitted.toml")).unwrap();
    assert!(
        text.contains("[bell]") && text.contains("keys = [\"G4\"]") && text.contains("tuning = [391.99"),
        "{text}"
    );
    std::fs::write(dir.path().join("g4.mid"), one_note(67)).unwrap();
    let played = hooke(&["render", "fitted.toml", "g4.mid", "-o", "midi.wav"], dir.path());
    assert!(played.status.success(), "{}", stderr(&played));
    let again = hooke(&["fit", "midi.wav", "--as", "bell", "-o", "again.toml"], dir.path());
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("9 modes"), "{}", stdout(&again));
}

#[test]
fn a_struck_plate_is_fitted_as_a_plate_of_its_lattice_that_sounds_its_modes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plate.toml"),
        "[plates]\nkeys = [\"A4\"]\ncolumns = 11\nrows = 8\nstereo = false\n[render]\nscheme = \"symplectic-euler\"\nrate = 44100\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("strike.toml"),
        "[score]\nduration = 3.0\n[[strike]]\ntime = 0.1\npart = \"A4\"\nvelocity = 1.0\n",
    )
    .unwrap();
    let rendered = hooke(&["render", "plate.toml", "strike.toml", "-o", "plate.wav"], dir.path());
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let fitted =
        hooke(&["fit", "plate.wav", "--as", "plate", "-o", "fitted.toml", "--wav", "re.wav"], dir.path());
    assert!(fitted.status.success(), "{}", stderr(&fitted));
    let report = stdout(&fitted);
    assert!(report.contains("first mode 440.0000 Hz; 11 x 8 masses"), "{report}");
    let rows: Vec<Vec<f64>> = report
        .lines()
        .filter(|l| l.starts_with("| ") && l[2..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split('|').filter_map(|c| c.trim().parse().ok()).collect())
        .collect();
    assert!(rows.len() >= 4, "{report}");
    for row in &rows {
        // mode, recorded Hz, ratio, T60; lattice ratio, law's T60; simulated Hz, T60.
        assert_eq!(row.len(), 8, "{report}");
        assert!((1200.0 * (row[6] / row[1]).log2()).abs() < 0.5, "mode {}\n{report}", row[0]);
        assert!((row[7] / row[3] - 1.0).abs() < 0.05, "mode {}: T60\n{report}", row[0]);
    }
    std::fs::write(dir.path().join("a4.mid"), one_note(69)).unwrap();
    let played = hooke(&["render", "fitted.toml", "a4.mid", "-o", "midi.wav"], dir.path());
    assert!(played.status.success(), "{}", stderr(&played));
}
