//! A held note's touch (`score::expression`): pressure (channel and polyphonic aftertouch,
//! MPE) multiplies the damping factor of the strings it touches by `8^amount`, on its channel
//! or on its one note;
//! timbre (MPE's CC 74) moves where the next pluck pulls, and the plucked string's partials
//! follow the comb `sin(n pi p)` of the new place (measured on the sound of `guitar.toml`).
//! The excitation's factors for every channel (a plugin's host parameters): position moves a
//! string's pluck or hammer from the bridge and a bar's mallet from its nearer end, hardness
//! shortens a pluck's release and stiffens a felt; the MIDI file's score and the live resolver
//! take them alike.

use crate::common::smf;
use crate::instruments::render;
use crate::measure::spectral_peak;
use hooke::format::instrument::load as load_instrument;
use hooke::format::midi;
use hooke::instrument::Instrument;
use hooke::instrument::PartKind;
use hooke::score::controls::{ControlMapping, Controlled, SetParameter};
use hooke::score::expression::{ExciteParameter, BRIGHTNESS_SPAN, PRESSURE_DAMPING};
use hooke::score::live::Resolver;
use hooke::score::notes::{from_midi, Gesture, NoteInput, NoteKind, NoteMap, StringRule, Stroke};
use hooke::score::performance::PerformanceOptions;
use hooke::score::Action;
use std::f64::consts::PI;

/// The shipped instrument `name` built at `rate` Hz.
fn example(name: &str, rate: f64) -> Instrument {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let file = load_instrument(&folder.join(name)).unwrap();
    file.spec.build(file.scheme, 1.0 / rate).unwrap()
}

fn guitar() -> Instrument {
    example("guitar.toml", 88200.0)
}

/// A map of `instrument` with the excitation factors `position` and `hardness` set.
fn excited(instrument: &Instrument, position: f64, hardness: f64) -> NoteMap {
    let mut map = NoteMap::new(instrument, StringRule::LowestFret);
    for (parameter, factor) in [(ExciteParameter::Position, position), (ExciteParameter::Hardness, hardness)]
    {
        let kind = NoteKind::Excite { parameter, factor };
        map.play(&NoteInput { time: 0.0, track: 0, channel: 0, kind }, &mut Vec::new()).unwrap();
    }
    map
}

/// The gestures of `bytes` (live MIDI messages, at 0.1 s each) through `map`.
fn play(map: &mut NoteMap, messages: &[&[u8]]) -> Vec<Gesture> {
    let mut gestures = Vec::new();
    for (i, bytes) in messages.iter().enumerate() {
        let (channel, kind) = from_midi(bytes).expect("a message the map reads");
        let input = NoteInput { time: 0.1 * i as f64, track: 0, channel, kind };
        map.play(&input, &mut gestures).unwrap();
    }
    gestures
}

/// The damping factors set in `gestures`, by part.
fn dampings(gestures: &[Gesture]) -> Vec<(usize, f64)> {
    gestures
        .iter()
        .filter_map(|g| match g.stroke {
            Stroke::Damping(factor) => Some((g.part, factor)),
            _ => None,
        })
        .collect()
}

/// The part a note on `channel` was plucked on, in `gestures`.
fn plucked(gestures: &[Gesture]) -> Vec<usize> {
    gestures.iter().filter(|g| matches!(g.stroke, Stroke::Pluck { .. })).map(|g| g.part).collect()
}

#[test]
fn pressure_damps_the_strings_of_its_channel_or_its_note() {
    let instrument = guitar();
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    // E2 on channel 1, A2 and D3 on channel 2 (open strings: parts 0, 1, 2).
    let notes = play(&mut map, &[&[0x90, 40, 100], &[0x91, 45, 100], &[0x91, 50, 100]]);
    assert_eq!(plucked(&notes), [0, 1, 2]);
    // Channel 2's aftertouch at 64: its two strings, not channel 1's.
    let half = PRESSURE_DAMPING.powf(64.0 / 127.0);
    let channel = dampings(&play(&mut map, &[&[0xd1, 64]]));
    assert_eq!(channel.len(), 2, "{channel:?}");
    for (part, factor) in &channel {
        assert!([1, 2].contains(part) && (factor - half).abs() < 1e-12, "{channel:?}, expected {half}");
    }
    // E2's own (polyphonic) aftertouch at 127 on channel 1: its string alone, 8 times.
    let key = dampings(&play(&mut map, &[&[0xa0, 40, 127]]));
    assert_eq!(key, [(0, 8.0)]);
    // A note begun on channel 2 now (G3, part 3) starts with the channel's pressure; lifting it
    // to 0 brings the channel's strings back to the instrument's damping.
    let begun = play(&mut map, &[&[0x91, 55, 100]]);
    assert_eq!(dampings(&begun), [(3, half)]);
    let lifted = dampings(&play(&mut map, &[&[0xd1, 0]]));
    assert_eq!(lifted.len(), 3, "{lifted:?}");
    assert!(lifted.iter().all(|&(part, factor)| [1, 2, 3].contains(&part) && factor == 1.0), "{lifted:?}");
}

#[test]
fn timbre_moves_the_next_pluck_unless_a_mapping_takes_its_controller() {
    let instrument = guitar();
    let position = |gestures: &[Gesture]| {
        gestures.iter().find_map(|g| match g.stroke {
            Stroke::Pluck { plucker: Some(plucker), .. } => Some(plucker.position),
            _ => None,
        })
    };
    let designed =
        position(&play(&mut NoteMap::new(&instrument, StringRule::LowestFret), &[&[0x90, 40, 100]]));
    let designed = designed.unwrap();
    // CC 74 at 127 (full brightness): the distance from the bridge divided by the span.
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let bright = position(&play(&mut map, &[&[0xb0, 74, 127], &[0x90, 40, 100]])).unwrap();
    let expected = 1.0 - (1.0 - designed) / BRIGHTNESS_SPAN;
    assert!((bright - expected).abs() < 1e-12, "{bright} against {expected}");
    // A mapping of CC 74 to the damping takes it instead.
    let mapping = ControlMapping {
        controller: 74,
        parameter: Controlled::Set(SetParameter::Damping),
        low: 0.5,
        high: 2.0,
    };
    let mut map =
        NoteMap::new(&instrument, StringRule::LowestFret).with_controls(&[mapping], &instrument).unwrap();
    let mapped = play(&mut map, &[&[0xb0, 74, 127], &[0x90, 40, 100]]);
    assert_eq!(position(&mapped), Some(designed));
    assert_eq!(dampings(&mapped), [(0, 2.0)]);
}

/// The magnitudes of partials 2 and 3 of open E2 (82.4 Hz) on `guitar.toml`, plucked by a MIDI
/// note after `before` (MIDI messages at time 0), over 0.1 to 0.6 s.
fn e2_partials(instrument: &Instrument, before: &[&[u8]]) -> [f64; 2] {
    e2_partials_of(instrument, NoteMap::new(instrument, StringRule::LowestFret), before)
}

/// [`e2_partials`] through `map`.
fn e2_partials_of(instrument: &Instrument, map: NoteMap, before: &[&[u8]]) -> [f64; 2] {
    let mut events: Vec<(u32, &[u8])> = before.iter().map(|bytes| (0, *bytes)).collect();
    events.extend([(0, &[0x90u8, 40, 100][..]), (960, &[0x80, 40, 0][..])]);
    let score = midi::load(&smf(480, &events), "e2.mid", instrument, map, false, 0.2).unwrap();
    let channels =
        render(instrument, &score.text, PerformanceOptions { oversample: 2, ..Default::default() });
    let mono: Vec<f64> = (0..channels[0].len()).map(|i| channels.iter().map(|c| c[i]).sum()).collect();
    let window = &mono[(0.1 * 44100.0) as usize..(0.6 * 44100.0) as usize];
    [2.0f64, 3.0].map(|n| {
        let f = n * 82.407 * (1.0 + 1.0e-4 * n * n).sqrt();
        spectral_peak(window, 44100.0, f - 4.0, f + 4.0).1
    })
}

#[test]
fn a_brighter_pluck_moves_the_combs_zero_onto_its_partial() {
    let instrument = guitar();
    // CC 74 at 17: the pluck's distance from the bridge 0.2 x 2^(1 - 34/127), p = 0.668. The
    // lumped string (80 masses, node k at k / 81 of the length from the nut) is pulled at the
    // node nearest: 54, at 2/3, the third partial's zero. As designed (p = 0.8: node 65) the
    // third partial is near its largest.
    let node = |p: f64| (p * 81.0).round() / 81.0;
    let designed = node(0.8);
    let moved = node(1.0 - 0.2 * BRIGHTNESS_SPAN.powf(1.0 - 2.0 * 17.0 / 127.0));
    let comb = |n: f64, p: f64| (n * PI * p).sin().abs();
    let as_designed = e2_partials(&instrument, &[]);
    let timbre = e2_partials(&instrument, &[&[0xb0, 74, 17]]);
    let db = |a: f64, b: f64| 20.0 * (a / b).log10();
    let expected = [2.0, 3.0].map(|n| db(comb(n, moved), comb(n, designed)));
    let measured = [db(timbre[0], as_designed[0]), db(timbre[1], as_designed[1])];
    eprintln!("partials 2 and 3: {measured:.1?} dB, the comb {expected:.1?} dB");
    assert!((measured[0] - expected[0]).abs() < 0.5, "partial 2: {measured:?} against {expected:?}");
    assert!(comb(3.0, moved) < 1e-12 && measured[1] < -60.0, "partial 3 fell only {:.1} dB", measured[1]);
}

#[test]
fn a_pluck_moved_from_the_bridge_by_the_position_factor_loses_the_partial_of_its_node() {
    let instrument = guitar();
    // Position 5/3: the pluck's distance from the bridge 0.2 becomes 1/3, p = 2/3, node 54 of
    // the lumped string exactly: the third partial's zero.
    let node = |p: f64| (p * 81.0).round() / 81.0;
    let (designed, moved) = (node(0.8), node(1.0 - 0.2 * 5.0 / 3.0));
    let comb = |n: f64, p: f64| (n * PI * p).sin().abs();
    let as_designed = e2_partials(&instrument, &[]);
    let placed = e2_partials_of(&instrument, excited(&instrument, 5.0 / 3.0, 1.0), &[]);
    let db = |a: f64, b: f64| 20.0 * (a / b).log10();
    let expected = db(comb(2.0, moved), comb(2.0, designed));
    let measured = [db(placed[0], as_designed[0]), db(placed[1], as_designed[1])];
    eprintln!("partials 2 and 3: {measured:.1?} dB, the comb {expected:.1} dB and -inf");
    assert!((measured[0] - expected).abs() < 0.5, "partial 2: {measured:?} against {expected}");
    assert!(comb(3.0, moved) < 1e-12 && measured[1] < -60.0, "partial 3 fell only {:.1} dB", measured[1]);
}

/// The first strike or pluck of `gestures`.
fn excitation(gestures: &[Gesture]) -> Stroke {
    let excites = |g: &&Gesture| matches!(g.stroke, Stroke::Pluck { .. } | Stroke::Strike { .. });
    gestures.iter().find(excites).expect("an excitation").stroke
}

#[test]
fn position_and_hardness_move_plucks_hammers_and_mallets_in_the_score_and_live() {
    let note = |note: u8| [0x90, note, 127];
    // A pluck: its distance from the bridge halved, its release a quarter as long.
    let guitar = guitar();
    let designed = excitation(&play(&mut NoteMap::new(&guitar, StringRule::LowestFret), &[&note(40)]));
    let plucked = excitation(&play(&mut excited(&guitar, 0.5, 4.0), &[&note(40)]));
    let (Stroke::Pluck { plucker: Some(designed), .. }, Stroke::Pluck { plucker: Some(plucked), .. }) =
        (designed, plucked)
    else {
        panic!("plucks: {designed:?}, {plucked:?}")
    };
    assert!((1.0 - plucked.position - 0.5 * (1.0 - designed.position)).abs() < 1e-12, "{plucked:?}");
    assert!((plucked.release - designed.release / 4.0).abs() < 1e-18 && plucked.pull == designed.pull);

    // A bar (C4): the mallet from 0.45 of the length to 0.225 (half as far from the nearer
    // end), its felt three times as stiff, in the MIDI file's score and from the live resolver.
    let marimba = example("marimba.toml", 8.0 * 44_100.0);
    let c4 = marimba.parts.iter().position(|part| part.name == "C4").expect("a C4 bar");
    let PartKind::Bar(bar) = &marimba.parts[c4].kind else { panic!("a bar") };
    let (mass, stiffness) = (bar.masses[bar.mass_at(0.225)], 3.0 * bar.mallet.stiffness);
    let struck = play(&mut excited(&marimba, 0.5, 3.0), &[&note(60)]);
    let Stroke::Strike { position: [x, y], hardness, .. } = excitation(&struck) else { panic!("{struck:?}") };
    assert!((x - 0.225).abs() < 1e-12 && y == 0.5 && hardness == 3.0, "{struck:?}");
    // The same from two knobs, `--cc 20=position:1:0.5 --cc 21=hardness:1:3` turned all the way.
    let knobs: Vec<ControlMapping> =
        ["20=position:1:0.5", "21=hardness:1:3"].map(|m| m.parse().unwrap()).to_vec();
    let mut turned = NoteMap::new(&marimba, StringRule::LowestFret).with_controls(&knobs, &marimba).unwrap();
    let by_knobs = play(&mut turned, &[&[0xB0, 20, 127], &[0xB0, 21, 127], &note(60)]);
    assert_eq!(excitation(&by_knobs), excitation(&struck), "{by_knobs:?}");
    let file = smf(480, &[(0, &note(60)[..]), (480, &[0x80, 60, 0][..])]);
    let score = midi::load(&file, "c4.mid", &marimba, excited(&marimba, 0.5, 3.0), false, 0.1).unwrap();
    let live = Resolver::new(&marimba).unwrap().resolve(&struck[0]).1;
    for action in [&score.score.cues[0].action, &live] {
        let Action::Strike(hammer) = action else { panic!("a strike, found {action:?}") };
        assert_eq!(hammer.coordinate, mass * marimba.model.dimension(), "{hammer:?}");
        assert!((hammer.stiffness / stiffness - 1.0).abs() < 1e-15, "{hammer:?}");
    }

    // A piano's hammer: twice as far from the bridge (from the agraffe at 1/8: 1 - 2 x 7/8 is
    // kept at 0.01).
    let piano = example("piano.toml", 88200.0);
    let c4 = piano.parts.iter().position(|part| part.name == "C4").expect("a C4 key");
    let PartKind::String(key) = &piano.parts[c4].kind else { panic!("a key") };
    let hammer = key.hammer.expect("a hammer");
    let far = excitation(&play(&mut excited(&piano, 2.0, 1.0), &[&note(60)]));
    let near = excitation(&play(&mut excited(&piano, 0.5, 1.0), &[&note(60)]));
    let at = |stroke: Stroke| match stroke {
        Stroke::Strike { position: [x, _], hardness: 1.0, .. } => x,
        other => panic!("a strike of hardness 1, found {other:?}"),
    };
    assert_eq!(at(far), 0.01);
    assert!((at(near) - (1.0 - 0.5 * (1.0 - hammer.position))).abs() < 1e-12, "{near:?}");
}

#[test]
fn a_notes_own_damping_factor_damps_its_string_alone_and_ends_with_it() {
    let instrument = guitar();
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let _ = play(&mut map, &[&[0x90, 40, 100], &[0x90, 45, 100]]);
    let mut send = |kind: NoteKind| {
        let mut gestures = Vec::new();
        map.play(&NoteInput { time: 0.3, track: 0, channel: 0, kind }, &mut gestures).unwrap();
        dampings(&gestures)
    };
    // E2's own damping halved: its string alone; then fully pressed, 8 times that.
    assert_eq!(send(NoteKind::Damping { note: 40, factor: 0.5 }), [(0, 0.5)]);
    assert_eq!(send(NoteKind::Pressure { note: Some(40), amount: 1.0 }), [(0, 4.0)]);
    // A new note on the string begins with its channel's damping (the pressure released first).
    assert_eq!(send(NoteKind::Pressure { note: Some(40), amount: 0.0 }), [(0, 0.5)]);
    assert_eq!(send(NoteKind::On { note: 40, velocity: 100 }), [(0, 1.0)]);
}
