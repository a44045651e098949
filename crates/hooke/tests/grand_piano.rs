//! The 88-key grand piano (`examples/instruments/grand-piano.toml`) and a piano's dampers: the
//! keys, courses and masses the file's scale gives, the note map's felt dampers and sustain
//! pedal, and the sympathetic ringing the pedal lets through.

use crate::instruments::render;
use crate::measure::spectrum;

use hooke::engine::PathKind;
use hooke::format::instrument::parse as parse_instrument;
use hooke::format::midi::score_text;
use hooke::format::score::parse as parse_score;
use hooke::instrument::guitar::note_frequency;
use hooke::instrument::piano::{piano, PianoSpec};
use hooke::instrument::{Damper, Instrument, InstrumentSpec, PartKind, StringPart};
use hooke::scheme::SchemeKind;
use hooke::score::notes::{Gesture, NoteInput, NoteKind, NoteMap, StringRule, Stroke};
use hooke::score::performance::{Performance, PerformanceOptions};

const RATE: f64 = 44_100.0;

fn key(instrument: &Instrument, k: usize) -> &StringPart {
    match &instrument.parts[k].kind {
        PartKind::String(string) => string,
        other => panic!("a piano key is a string course, found {other:?}"),
    }
}

fn input(time: f64, kind: NoteKind) -> NoteInput {
    NoteInput { time, track: 0, channel: 0, kind }
}

/// The file's 88 keys from A0 to C8 with one string a key to E1, two to E2 and three above; no
/// dampers from F#6 up; and at each point of its scale as many masses a string as the stiff
/// string has partials `n f_0 sqrt(1 + B n^2)` up to 10 kHz (counted here from the point's key
/// and `B`).
#[test]
fn the_grand_piano_has_88_keys_their_courses_dampers_and_masses_to_10_khz() {
    let text = std::fs::read_to_string("../../examples/instruments/grand-piano.toml").unwrap();
    let file = parse_instrument(&text, "grand-piano.toml").unwrap();
    let instrument = file.build(SchemeKind::SymplecticEuler, RATE, 1).unwrap();
    assert_eq!(instrument.parts.len(), 88);
    assert_eq!((instrument.parts[0].name.as_str(), instrument.parts[87].name.as_str()), ("A0", "C8"));
    let strings: Vec<usize> = (0..88).map(|k| key(&instrument, k).course().count()).collect();
    assert!(strings[..8].iter().all(|&n| n == 1) && strings[8..20].iter().all(|&n| n == 2), "{strings:?}");
    assert!(strings[20..].iter().all(|&n| n == 3), "{strings:?}");
    assert_eq!(strings.iter().sum::<usize>(), 236);
    // Keys 1 to 69 (A0 to F6) have dampers, 70 to 88 (F#6 to C8) none.
    let dampers: Vec<Damper> = (0..88).map(|k| key(&instrument, k).damper).collect();
    assert!(
        dampers[..69].iter().all(|&d| d == Damper::Felt) && dampers[69..].iter().all(|&d| d == Damper::None)
    );
    // At each point of the file's scale, its inharmonicity B.
    let InstrumentSpec::Piano(spec) = &file.spec else { panic!("a piano: {:?}", file.spec) };
    assert!(spec.scale.len() >= 5, "{} points", spec.scale.len());
    for point in &spec.scale {
        let (f0, b) = (note_frequency(&point.key).unwrap(), point.inharmonicity);
        let k = instrument.parts.iter().position(|part| part.name == point.key).unwrap();
        let partials = (1..).take_while(|&n| {
            let n = f64::from(n);
            n * f0 * (1.0 + b * n * n).sqrt() <= 10_000.0
        });
        let expected = partials.count().max(2);
        let found = key(&instrument, k).masses.len();
        eprintln!("{}: {found} masses a string, {expected} partials up to 10 kHz", instrument.parts[k].name);
        assert_eq!(found, expected, "{}", instrument.parts[k].name);
    }
}

/// What a note map does with a piano's dampers, on two keys, the second without a damper.
#[test]
fn a_pianos_dampers_rest_on_its_strings_and_the_pedal_lifts_them_all() {
    let spec = PianoSpec {
        keys: vec!["C4".into(), "D4".into(), "E4".into()],
        strings_per_key: 1,
        undamped_from: Some("E4".into()),
        ..PianoSpec::default()
    };
    let instrument = piano(&spec, SchemeKind::SymplecticEuler, 1.0 / RATE).unwrap();
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let mut gestures = Vec::new();
    let strokes = |gestures: &[Gesture]| gestures.iter().map(|g| (g.part, g.stroke)).collect::<Vec<_>>();
    let is_damp = |stroke: &Stroke| matches!(stroke, Stroke::Damp(_));
    map.rest(0.0, &mut gestures);
    let rest = strokes(&gestures);
    assert!(
        rest.len() == 2 && rest[0].0 == 0 && rest[1].0 == 1 && rest.iter().all(|(_, s)| is_damp(s)),
        "{rest:?}"
    );
    let mut play = |kind| {
        gestures.clear();
        map.play(&input(1.0, kind), &mut gestures).unwrap();
        strokes(&gestures)
    };
    // C4 played: its damper lifts before the strike; lifted again, it falls.
    let on = play(NoteKind::On { note: 60, velocity: 100 });
    assert!(matches!(on[..], [(0, Stroke::Undamp), (0, Stroke::Strike { .. })]), "{on:?}");
    let off = play(NoteKind::Off { note: 60 });
    assert!(matches!(off[..], [(0, Stroke::Damp(_))]), "{off:?}");
    // E4 has no damper: nothing falls on it.
    let on = play(NoteKind::On { note: 64, velocity: 100 });
    assert!(matches!(on[..], [(2, Stroke::Strike { .. })]), "{on:?}");
    assert!(play(NoteKind::Off { note: 64 }).is_empty());
    // The pedal lifts every damper down (C4's and D4's); a key lifted under it keeps ringing.
    let down = play(NoteKind::Sustain(true));
    assert_eq!(down, vec![(0, Stroke::Undamp), (1, Stroke::Undamp)]);
    assert!(matches!(play(NoteKind::On { note: 60, velocity: 90 })[..], [(0, Stroke::Strike { .. })]));
    let held = play(NoteKind::On { note: 62, velocity: 90 });
    assert!(matches!(held[..], [(1, Stroke::Strike { .. })]), "{held:?}");
    assert!(play(NoteKind::Off { note: 60 }).is_empty());
    // Released, the pedal lets fall the dampers of the keys not held (C4), not D4's.
    let up = play(NoteKind::Sustain(false));
    assert!(matches!(up[..], [(0, Stroke::Damp(_))]), "{up:?}");
}

/// The largest magnitude of `signal`'s spectrum between `low` and `high` Hz.
fn largest(signal: &[f64], low: f64, high: f64) -> f64 {
    let (magnitudes, bin) = spectrum(signal, RATE, 4);
    let bins = (low / bin).ceil() as usize..=(high / bin).floor() as usize;
    bins.map(|k| magnitudes[k]).fold(0.0, f64::max)
}

/// C3 struck on a piano of two keys, C3 and C#3: with the pedal down the C#3 string is free and
/// rings at its own pitch, driven through the bridge (sympathetic resonance); with the pedal up
/// its damper (time constant 0.05 s) leaves at 0.5-1.5 s nothing of that ringing (e^-10 of it
/// at 0.5 s). Measured at C#3's pitch (138.6 Hz), a semitone above C3's fundamental.
#[test]
fn with_the_pedal_down_an_unplayed_string_rings_in_sympathy() {
    let spec =
        PianoSpec { keys: vec!["C3".into(), "C#3".into()], strings_per_key: 1, ..PianoSpec::default() };
    let instrument = piano(&spec, SchemeKind::SymplecticEuler, 1.0 / RATE).unwrap();
    let options = PerformanceOptions { oversample: 1, ..Default::default() };
    let played = |pedal: bool| {
        let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
        let mut gestures = Vec::new();
        map.rest(0.0, &mut gestures);
        let inputs =
            [input(0.0, NoteKind::Sustain(pedal)), input(0.01, NoteKind::On { note: 48, velocity: 110 })];
        for input in &inputs {
            map.play(input, &mut gestures).unwrap();
        }
        let sound =
            render(&instrument, &score_text(&gestures, &instrument, 1.5, "sympathy"), options).remove(0);
        let late = &sound[(0.5 * RATE) as usize..];
        (largest(late, 136.0, 141.0), largest(late, 128.0, 133.5))
    };
    let ((free, struck_down), (damped, struck_up)) = (played(true), played(false));
    eprintln!(
        "C#3's pitch: {free:.3e} with the pedal down, {damped:.3e} up ({:.1} dB); C3's: {struck_down:.3e} and {struck_up:.3e}",
        20.0 * (free / damped).log10()
    );
    assert!(free > 10.0 * damped, "the pedal let C#3 ring only {free:.3e} against {damped:.3e}");
}

/// A piano's score from note inputs through its note map: its dampers at rest, then `inputs`.
fn from_notes(instrument: &Instrument, inputs: &[NoteInput], duration: f64) -> String {
    let mut map = NoteMap::new(instrument, StringRule::LowestFret);
    let mut gestures = Vec::new();
    map.rest(0.0, &mut gestures);
    for input in inputs {
        map.play(input, &mut gestures).unwrap();
    }
    score_text(&gestures, instrument, duration, "notes")
}

/// `score` on `instrument` in blocks of `chunk` steps, on the kernels or the general path; with
/// the path it ended on.
fn played_in_blocks(instrument: &Instrument, score: &str, kernels: bool, chunk: u64) -> (Vec<f64>, PathKind) {
    let score = parse_score(score, "notes.toml", instrument, None).unwrap();
    let options = PerformanceOptions { oversample: 1, threads: 1, kernels, modal: true };
    let mut performance = Performance::new(instrument, score, options).unwrap();
    let mut output = vec![Vec::new(); performance.channels()];
    while performance.step() < performance.total_steps() {
        performance.render(chunk.min(performance.total_steps() - performance.step()), &mut output).unwrap();
    }
    let path = performance.path();
    performance.finish(&mut output).unwrap();
    (output.remove(0), path)
}

/// Dampers falling and lifting, key by key and all at once with the pedal, change a string's
/// drag on every mass alike: the coupled path adds the rate to the string's modes in place
/// (no new analysis), and must still be the general path's symplectic Euler, to rounding, in
/// blocks of 1, 64 and 4096 steps.
#[test]
fn dampers_and_the_pedal_on_the_coupled_path_match_the_general_path() {
    let spec = PianoSpec {
        keys: vec!["C4".into(), "E4".into(), "G4".into(), "C5".into()],
        strings_per_key: 2,
        masses: 16,
        undamped_from: Some("C5".into()),
        ..PianoSpec::default()
    };
    let instrument = piano(&spec, SchemeKind::SymplecticEuler, 1.0 / RATE).unwrap();
    let on = |time, note| input(time, NoteKind::On { note, velocity: 100 });
    let off = |time, note| input(time, NoteKind::Off { note });
    let inputs = [
        on(0.0, 60),
        on(0.02, 64),
        off(0.08, 60),
        input(0.1, NoteKind::Sustain(true)),
        on(0.12, 67),
        off(0.15, 64),
        off(0.16, 67),
        on(0.18, 72),
        input(0.22, NoteKind::Sustain(false)),
        on(0.25, 60),
        off(0.28, 60),
    ];
    let score = from_notes(&instrument, &inputs, 0.35);
    let (general, path) = played_in_blocks(&instrument, &score, false, 4096);
    assert_eq!(path, PathKind::General);
    let peak = general.iter().fold(0.0f64, |p, x| p.max(x.abs()));
    for chunk in [1, 64, 4096] {
        let (coupled, path) = played_in_blocks(&instrument, &score, true, chunk);
        assert_eq!(path, PathKind::Parts, "blocks of {chunk}");
        let difference = coupled.iter().zip(&general).fold(0.0f64, |d, (a, b)| d.max((a - b).abs())) / peak;
        eprintln!("blocks of {chunk}: {difference:.2e} of the peak");
        assert!(difference < 1e-9, "blocks of {chunk}: {difference:e} of the peak");
    }
}
