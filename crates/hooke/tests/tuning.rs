//! Microtuning from Scala files: the scale and keyboard-map formats (errors at their line and
//! column), the frequency of every key against closed forms (12-tone and 19-tone equal
//! temperament, a keyboard map's pattern, reference and octave degree), and a MIDI file played
//! on `guitar.toml` in 19-tone equal temperament, each note's pitch measured on the sound.

use crate::common::smf;
use crate::fret_tuning::fundamental;
use crate::instruments::render;
use hooke::format::instrument::load as load_instrument;
use hooke::format::midi;
use hooke::format::tuning::{parse_keyboard_map, parse_scale};
use hooke::score::notes::{NoteInput, NoteKind, NoteMap, StringRule};
use hooke::score::performance::PerformanceOptions;
use hooke::score::tuning::{tuning_changes, KeyboardMap, Scale, Tuning};

/// 19-tone equal temperament as a Scala file writes it, with comments and a trailing word.
fn nineteen() -> String {
    let mut text = String::from("! 19-tet.scl\n!\n19 equal divisions of the octave\n 19\n!\n");
    for k in 1..=19 {
        text += &format!(" {:.6} degree {k}\n", 1200.0 * k as f64 / 19.0);
    }
    text
}

fn cents(a: f64, b: f64) -> f64 {
    1200.0 * (a / b).log2()
}

#[test]
fn a_scale_reads_cents_and_ratios_and_its_period() {
    let scale =
        parse_scale("! just\nA just major third and fifth\n3\n5/4\n 701.955 fifth\n2\n", "j.scl").unwrap();
    assert_eq!(scale.description, "A just major third and fifth");
    let expected = [1200.0 * 1.25f64.log2(), 701.955, 1200.0];
    for (c, e) in scale.cents.iter().zip(expected) {
        assert!((c - e).abs() < 1e-9, "{c} against {e}");
    }
    // Degree 5 is one period plus degree 2; degree -1 a period below degree 2.
    assert!((scale.degree_cents(5) - (1200.0 + 701.955)).abs() < 1e-9);
    assert!((scale.degree_cents(-1) - (701.955 - 1200.0)).abs() < 1e-9);
}

#[test]
fn a_bad_scale_is_refused_at_its_line_and_column() {
    let cases = [
        ("desc\n3\n100.0\n  abc\n", "s.scl:4:3: expected a pitch: cents with a `.`", "`abc`"),
        ("desc\n3\n100.0\n200.0\n", "s.scl:5:1: expected 3 pitches (the number of degrees), found 2", ""),
        ("desc\nthree\n", "s.scl:2:1: expected the number of degrees, from 1 to 4096, found `three`", ""),
        ("desc\n1\n2/0\n", "s.scl:3:1: expected a pitch", "`2/0`"),
        ("desc\n1\n-3/2\n", "s.scl:3:1: expected a pitch", "`-3/2`"),
        (
            "desc\n1\n1200.0\n5/4\n",
            "s.scl:4:1: expected the file to end after its 1 pitches, found `5/4`",
            "",
        ),
        ("desc\n1\n-100.0\n", "expected a last pitch (the period) above 0 cents, found -100 cents", ""),
        ("! only a comment\n", "s.scl:2:1: expected a description line", ""),
    ];
    for (text, message, found) in cases {
        let error = parse_scale(text, "s.scl").unwrap_err().to_string();
        assert!(error.contains(message) && error.contains(found), "{text:?}: {error}");
    }
}

#[test]
fn twelve_tone_equal_temperament_gives_every_midi_note_its_standard_frequency() {
    let scale = parse_scale(
        &format!("12-TET\n12\n{}", (1..=12).map(|k| format!("{}.0\n", 100 * k)).collect::<String>()),
        "12.scl",
    )
    .unwrap();
    let tuning = Tuning::new(scale, KeyboardMap::default()).unwrap();
    for key in 0..=127u8 {
        let expected = 440.0 * 2f64.powf((f64::from(key) - 69.0) / 12.0);
        let frequency = tuning.frequency(key).unwrap();
        assert!((frequency / expected - 1.0).abs() < 1e-12, "key {key}: {frequency} Hz against {expected}");
        let retuned = tuning.retune(key).unwrap();
        assert_eq!(retuned.note, key);
        assert!((retuned.tension - 1.0).abs() < 1e-12);
    }
}

#[test]
fn a_keyboard_map_places_its_pattern_reference_and_octave() {
    // Seven keys of twelve mapped (the white keys of C major), middle key 60, A4 = 432 Hz,
    // octave degree 12, the black keys left out; keys below 48 and above 84 not retuned.
    let text = "! white.kbm\n12\n48\n84\n60\n69\n432.0\n12\n0\nx\n2\nx\n4\n5\nx\n7\nx\n9\nx\n11\n";
    let map = parse_keyboard_map(text, "white.kbm").unwrap();
    let scale = parse_scale(
        &format!("12-TET\n12\n{}", (1..=12).map(|k| format!("{}.0\n", 100 * k)).collect::<String>()),
        "12.scl",
    )
    .unwrap();
    let tuning = Tuning::new(scale, map).unwrap();
    for key in 0..=127u8 {
        let white = [0, 2, 4, 5, 7, 9, 11].contains(&(key % 12));
        let expected =
            (white && (48..=84).contains(&key)).then(|| 432.0 * 2f64.powf((f64::from(key) - 69.0) / 12.0));
        match (tuning.frequency(key), expected) {
            (Some(f), Some(e)) => assert!((f / e - 1.0).abs() < 1e-12, "key {key}: {f} against {e}"),
            (f, e) => assert_eq!(f, e, "key {key}"),
        }
    }
    // A map whose reference key is unmapped is refused; a bad header line names its line.
    let unmapped = parse_keyboard_map("12\n0\n127\n60\n61\n440.0\n12\n0\nx\n", "u.kbm").unwrap();
    let scale = parse_scale("12-TET\n1\n1200.0\n", "o.scl").unwrap();
    assert!(Tuning::new(scale.clone(), unmapped).unwrap_err().contains("reference key 61 to be mapped"));
    let empty = Scale { description: String::new(), cents: Vec::new() };
    assert!(Tuning::new(empty, KeyboardMap::default()).unwrap_err().contains("at least one degree"));
    let error = parse_keyboard_map("12\n0\n127\n60\n69\n-440\n12\n", "b.kbm").unwrap_err().to_string();
    assert!(error.starts_with("b.kbm:6:1: expected the reference frequency"), "{error}");
    let error = parse_keyboard_map("2\n0\n127\n60\n60\n440\n2\n0\nseven\n", "d.kbm").unwrap_err().to_string();
    assert!(
        error.starts_with("d.kbm:9:1: expected a scale degree (0 to 4096) or `x`, found `seven`"),
        "{error}"
    );
}

/// A type-0 MIDI file at 480 ticks a beat (120 beats a minute): `keys` one after another, each
/// held 0.5 s at velocity 100, then 0.5 s of rest (so that no note rings into the next's).
fn melody(keys: &[u8]) -> Vec<u8> {
    let events: Vec<(u32, [u8; 3])> = keys
        .iter()
        .enumerate()
        .flat_map(|(i, &key)| [(if i == 0 { 0 } else { 480 }, [0x90, key, 100]), (480, [0x80, key, 0])])
        .collect();
    let events: Vec<(u32, &[u8])> = events.iter().map(|(delta, event)| (*delta, &event[..])).collect();
    smf(480, &events)
}

#[test]
fn a_midi_file_in_nineteen_tone_equal_temperament_plays_each_note_within_half_a_cent() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let file = load_instrument(&folder.join("guitar.toml")).unwrap();
    let oversample = 2;
    let instrument = file.spec.build(file.scheme, 1.0 / (44100.0 * oversample as f64)).unwrap();
    let tuning = Tuning::new(parse_scale(&nineteen(), "19.scl").unwrap(), KeyboardMap::default()).unwrap();
    // Keys 41 to 79: from 19 degrees below middle C to one octave (19 keys) above it.
    let keys: Vec<u8> = (41..=79).collect();
    let map = NoteMap::new(&instrument, StringRule::LowestFret).with_tuning(tuning, &instrument).unwrap();
    let score = midi::load(&melody(&keys), "19.mid", &instrument, map, false, 0.5).unwrap();
    let options = PerformanceOptions { oversample, ..Default::default() };
    let channels = render(&instrument, &score.text, options);
    let mono: Vec<f64> = (0..channels[0].len()).map(|i| channels.iter().map(|c| c[i]).sum()).collect();
    let mut worst: f64 = 0.0;
    for (i, &key) in keys.iter().enumerate() {
        // 19-tone equal temperament, degree 0 on key 60 at middle C's 261.626 Hz.
        let expected = 440.0 * 2f64.powf(-9.0 / 12.0) * 2f64.powf((f64::from(key) - 60.0) / 19.0);
        let start = ((i as f64 + 0.02) * 44100.0) as usize;
        let note = &mono[start..start + (0.4 * 44100.0) as usize];
        let error = cents(fundamental(note, 44100.0, expected), expected);
        eprintln!("key {key}: {expected:.3} Hz, {error:+.3} cents");
        worst = worst.max(error.abs());
        assert!(error.abs() < 0.5, "key {key}: {error:+.3} cents from {expected:.3} Hz");
    }
    eprintln!("19-TET on guitar.toml: {} keys, worst {worst:.3} cents", keys.len());
}

/// The key changes of a MIDI Tuning Standard message, in order.
fn changes(message: &[u8]) -> (bool, Vec<(u8, f64)>) {
    let mut changed = Vec::new();
    let read = tuning_changes(message, |key, frequency| changed.push((key, frequency)));
    (read, changed)
}

fn equal(key: f64) -> f64 {
    440.0 * 2f64.powf((key - 69.0) / 12.0)
}

#[test]
fn the_midi_tuning_standard_messages_retune_their_keys() {
    // Real-time single-note change: key 69 to half a semitone above A4 (yy zz = 2^13 of 2^14),
    // key 60 left alone (7F 7F 7F).
    let (read, changed) =
        changes(&[0xf0, 0x7f, 0x7f, 0x08, 0x02, 0x00, 0x02, 69, 69, 0x40, 0x00, 60, 0x7f, 0x7f, 0x7f, 0xf7]);
    assert!(read);
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].0, 69);
    assert!((changed[0].1 / equal(69.5) - 1.0).abs() < 1e-12, "{:?}", changed[0]);
    // Bulk dump: key k at k - 1 plus a quarter semitone (yy zz = 2^12).
    let mut bulk = vec![0x7e, 0x00, 0x08, 0x01, 0x00];
    bulk.extend([b' '; 16]);
    for key in 0..128u8 {
        bulk.extend([key.saturating_sub(1), 0x20, 0x00]);
    }
    bulk.push(0x00);
    let (read, changed) = changes(&bulk);
    assert!(read && changed.len() == 128);
    for (key, frequency) in changed {
        let expected = equal(f64::from(key.saturating_sub(1)) + 0.25);
        assert!((frequency / expected - 1.0).abs() < 1e-12, "key {key}: {frequency} against {expected}");
    }
    // Scale/octave, 1-byte (64 = 0 cents): C 10 cents up; 2-byte (8192 = 0): C 50 cents up.
    let mut one = vec![0xf0, 0x7e, 0x7f, 0x08, 0x08, 0x03, 0x7f, 0x7f, 64 + 10];
    one.extend([64; 11]);
    let mut two = vec![0x7f, 0x7f, 0x08, 0x09, 0x03, 0x7f, 0x7f, 96, 0];
    two.extend([64, 0].repeat(11));
    for (message, cents_on_c) in [(one, 10.0), (two, 50.0)] {
        let (read, changed) = changes(&message);
        assert!(read && changed.len() == 128);
        for (key, frequency) in changed {
            let offset = if key % 12 == 0 { cents_on_c } else { 0.0 };
            let expected = equal(f64::from(key)) * 2f64.powf(offset / 1200.0);
            assert!((frequency / expected - 1.0).abs() < 1e-12, "key {key}: {frequency} against {expected}");
        }
    }
    // Not a tuning message, or cut short: nothing changes.
    for message in [&[0xf0, 0x43, 0x10, 0x4c, 0xf7][..], &[0x7e, 0x00, 0x08, 0x01, 0x00, 0x20][..]] {
        assert_eq!(changes(message), (false, Vec::new()), "{message:?}");
    }
}

#[test]
fn a_tuning_message_in_a_midi_file_retunes_the_notes_after_it() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let file = load_instrument(&folder.join("guitar.toml")).unwrap();
    let instrument = file.spec.build(file.scheme, 1.0 / 88200.0).unwrap();
    // Key 57 (A3, fret 2 of the G3 string) retuned 30 cents up (yy zz = 0.3 of 2^14), then
    // played; the score sets the G3 string's tension to 2^(30 / 600).
    let fraction = (0.3 * 16384.0f64).round() as u16;
    let sysex =
        [0x7f, 0x7f, 0x08, 0x02, 0x00, 0x01, 57, 57, (fraction >> 7) as u8, (fraction & 127) as u8, 0xf7];
    let sysex = [&[0xf0, sysex.len() as u8][..], &sysex].concat();
    let bytes = smf(480, &[(0, &sysex), (0, &[0x90, 57, 100]), (480, &[0x80, 57, 0])]);
    let map = NoteMap::new(&instrument, StringRule::LowestFret);
    let score = midi::load(&bytes, "mts.mid", &instrument, map, false, 0.5).unwrap();
    let set = score.text.split("[[set]]").nth(1).expect("a set").split("\n[[").next().unwrap();
    assert!(set.contains("part = \"G3\"") && set.contains("parameter = \"tension\""), "{}", score.text);
    let value: f64 = set.split("value = ").nth(1).unwrap().lines().next().unwrap().parse().unwrap();
    let expected = (equal(57.0 + f64::from(fraction) / 16384.0) / equal(57.0)).powi(2);
    assert!((value / expected - 1.0).abs() < 1e-12, "{value} against {expected}");
}

#[test]
fn a_note_expression_of_one_semitone_moves_the_pitch_by_a_hundred_cents() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let file = load_instrument(&folder.join("guitar.toml")).unwrap();
    let instrument = file.spec.build(file.scheme, 1.0 / 88200.0).unwrap();
    // A3 (the G3 string at fret 2) held 1 s, then moved by an expression at 1 s: +1 semitone
    // (fret 3); in two other renders +0.5 semitone (the nearest fret, 3, and the tension for -50
    // cents) and +7 semitones (fret 9). Each measured against the same note before it moved.
    let mut pitches = Vec::new();
    for semitones in [1.0, 0.5, 7.0] {
        let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
        let mut gestures = Vec::new();
        let input = |time: f64, kind: NoteKind| NoteInput { time, track: 0, channel: 0, kind };
        map.play(&input(0.0, NoteKind::On { note: 57, velocity: 100 }), &mut gestures).unwrap();
        map.play(&input(1.0, NoteKind::Tuning { note: 57, semitones }), &mut gestures).unwrap();
        let text = midi::score_text(&gestures, &instrument, 1.6, "expression");
        let channels = render(&instrument, &text, PerformanceOptions { oversample: 2, ..Default::default() });
        let mono: Vec<f64> = (0..channels[0].len()).map(|i| channels.iter().map(|c| c[i]).sum()).collect();
        let window = |start: f64| &mono[(start * 44100.0) as usize..((start + 0.4) * 44100.0) as usize];
        let a3 = 220.0;
        let before = fundamental(window(0.3), 44100.0, a3);
        let moved = a3 * 2f64.powf(semitones / 12.0);
        let after = fundamental(window(1.1), 44100.0, moved);
        pitches.push((semitones, cents(after, before)));
    }
    for (semitones, moved) in pitches {
        eprintln!("expression {semitones:+} semitones: moved {moved:+.3} cents");
        assert!((moved - 100.0 * semitones).abs() < 1.0, "{semitones} semitones moved {moved:.3} cents");
    }
}
