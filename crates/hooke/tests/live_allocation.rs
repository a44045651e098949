//! The live callback's body allocates nothing: [`LiveCore::process`] is driven through 10 s of a
//! scripted performance on the guitar at 48 kHz (oversampled twice, 256-frame callbacks): a note
//! every 1/8 s across the neck, note offs, the sustain pedal, pitch bends and two mapped controllers, recorded through
//! the recording queue; and on a piano on its soundboard (the coupled modal path), whose keys'
//! dampers fall and lift with every note and all at once with the pedal; and on a drum (the
//! modal kernel, unoversampled) whose tension and damping two controllers move, which the
//! modal path retunes in place; and on the reed (the general path, the energy-conserving
//! scheme), whose damper each note lifts and each note off lets fall, which the scheme takes in
//! place; and on the piano again while an audio input pushes on its bridge
//! ([`LiveCore::process_with_input`]), and while its keys are bent and its tension and damping
//! controllers move; and on the sitar (the general path) fretted and bent. A counting global
//! allocator counts this thread's allocations while the callback body runs (the input side,
//! which maps notes and solves nothing at play time, runs between callbacks and is not counted).

use hooke::instrument::drum::{drum, DrumSpec};
use hooke::instrument::guitar::{guitar, GuitarSpec};
use hooke::instrument::piano::{piano, PianoSpec};
use hooke::instrument::reed::{reed, ReedSpec};
use hooke::instrument::Instrument;
use hooke::scheme::SchemeKind;
use hooke::score::live::{calibrate, input_points, live, LiveOptions};
use hooke::score::notes::{NoteInput, NoteKind, StringRule};
use hooke::score::performance::PerformanceOptions;
use std::sync::atomic::Ordering::Relaxed;

mod counting;
use counting::{heap_operations, Counting};

#[global_allocator]
static COUNTING: Counting = Counting;

/// A line of `count` notes, one every 1/8 s from `notes` in turn, each held `held` s, the sustain
/// pedal pressed at note `pedal.0` of every 16 and lifted `pedal.1` s later; and `extra(i, time)`'s
/// inputs at note `i`. At each time (s), the inputs, in time order.
fn line(
    notes: &[u8],
    count: usize,
    held: f64,
    pedal: (usize, f64),
    extra: impl Fn(usize, f64) -> Vec<(f64, NoteKind)>,
) -> Vec<(f64, NoteKind)> {
    let mut events = Vec::new();
    for i in 0..count {
        let time = i as f64 * 0.125;
        let note = notes[i % notes.len()];
        events.push((time, NoteKind::On { note, velocity: 40 + (i * 7 % 88) as u8 }));
        events.push((time + held, NoteKind::Off { note }));
        if i % 16 == pedal.0 {
            events.push((time, NoteKind::Sustain(true)));
            events.push((time + pedal.1, NoteKind::Sustain(false)));
        }
        events.extend(extra(i, time));
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    events
}

/// The guitar's script: notes across the neck held 0.1 s, a bend every eight notes and two
/// controllers moved every eight, the pedal down for 0.5 s every 16.
fn script() -> Vec<(f64, NoteKind)> {
    let notes = [40u8, 45, 50, 55, 59, 64, 47, 52, 57, 62, 67, 72, 76, 43, 48, 53];
    line(&notes, 79, 0.1, (5, 0.5), |i, time| match i % 8 {
        3 => vec![(time + 0.05, NoteKind::Bend(0.5)), (time + 0.11, NoteKind::Bend(0.0))],
        6 => {
            let value = (i * 13 % 128) as u8;
            vec![
                (time + 0.02, NoteKind::Control { controller: 1, value }),
                (time + 0.03, NoteKind::Control { controller: 74, value: 127 - value }),
            ]
        }
        _ => Vec::new(),
    })
}

/// The piano's script: a C major line up and down over two octaves, each note held 0.3 s, the
/// pedal down for 1 s every 2 s.
fn piano_script() -> Vec<(f64, NoteKind)> {
    line(&[48, 52, 55, 60, 64, 67, 72, 67, 64, 60, 55, 52], 72, 0.3, (2, 1.0), |_, _| Vec::new())
}

/// Controllers 1 and 74 mapped to the damping and the tension (0.9 to 1.1).
fn damping_and_tension_controllers() -> Vec<hooke::score::controls::ControlMapping> {
    vec!["1=damping".parse().unwrap(), "74=tension:0.9:1.1".parse().unwrap()]
}

/// For [`line`]: at every fourth note (the second) a bend up half its range 0.05 s in, back
/// `bent` s in; at every fourth (the fourth) the two controllers of
/// [`damping_and_tension_controllers`] moved.
fn bends_and_controllers(bent: f64) -> impl Fn(usize, f64) -> Vec<(f64, NoteKind)> {
    move |i, time| match i % 4 {
        1 => vec![(time + 0.05, NoteKind::Bend(0.5)), (time + bent, NoteKind::Bend(0.0))],
        3 => vec![
            (time + 0.02, NoteKind::Control { controller: 1, value: (i * 13 % 128) as u8 }),
            (time + 0.03, NoteKind::Control { controller: 74, value: (i * 29 % 128) as u8 }),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn the_callback_body_allocates_nothing_over_ten_seconds_of_playing() {
    let rate = 48_000.0;
    let instrument = guitar(&GuitarSpec::default(), SchemeKind::SymplecticEuler, 1.0 / (2.0 * rate)).unwrap();
    let controls = damping_and_tension_controllers();
    callback_allocates_nothing(&instrument, (rate, 2), controls, &script(), 0.0);
}

/// The acoustic guitar (its strings on a bridge and body: the coupled modal path, each string's
/// losses a mode damping) played with the guitar's script, bends and controllers too: every
/// fret's split of its string was prepared before play, so a fret pressed or let go swaps that
/// string's modes in place, and a tension or damping set retunes them in place.
#[test]
fn the_callback_body_allocates_nothing_while_frets_are_pressed_on_a_guitar_on_its_body() {
    let source = include_str!("../../../examples/instruments/acoustic-guitar.toml");
    let file = hooke::format::instrument::parse(source, "acoustic-guitar.toml").unwrap();
    let rate = 48_000.0;
    let instrument = file.build(SchemeKind::SymplecticEuler, rate, 2).unwrap();
    let controls = damping_and_tension_controllers();
    callback_allocates_nothing(&instrument, (rate, 2), controls, &script(), 0.0);
}

/// A piano of seven keys, C3 to C5, 24 masses a string, at 48 kHz oversampled twice: the rate
/// and the instrument.
fn seven_key_piano() -> (f64, Instrument) {
    let rate = 48_000.0;
    let keys = ["C3", "E3", "G3", "C4", "E4", "G4", "C5"].map(String::from).to_vec();
    let spec = PianoSpec { keys, masses: 24, ..PianoSpec::default() };
    (rate, piano(&spec, SchemeKind::SymplecticEuler, 1.0 / (2.0 * rate)).unwrap())
}

/// The piano's dampers and pedal change a drag the same on every mass of a string, which the
/// coupled modal path takes in place, with no new analysis and nothing allocated.
#[test]
fn the_callback_body_allocates_nothing_while_a_pianos_dampers_and_pedal_move() {
    let (rate, instrument) = seven_key_piano();
    callback_allocates_nothing(&instrument, (rate, 2), Vec::new(), &piano_script(), 0.0);
}

/// An audio input pushing on the piano's bridge while it is played: the input's ring was made
/// when it was opened, and each step's force is held as a hammer's is.
#[test]
fn the_callback_body_allocates_nothing_while_an_audio_input_drives_the_piano() {
    let (rate, instrument) = seven_key_piano();
    callback_allocates_nothing(&instrument, (rate, 2), Vec::new(), &piano_script(), 0.5);
}

/// Bends and the tension and damping controllers on the piano's keys: each string prepared
/// before play as a region of the coupled modal path, retuned in place.
#[test]
fn the_callback_body_allocates_nothing_while_a_pianos_keys_are_bent() {
    let (rate, instrument) = seven_key_piano();
    let controls = damping_and_tension_controllers();
    let notes = [48, 52, 55, 60, 64, 67, 72, 67, 64, 60, 55, 52];
    let script = line(&notes, 72, 0.3, (2, 1.0), bends_and_controllers(0.2));
    callback_allocates_nothing(&instrument, (rate, 2), controls, &script, 0.0);
}

/// A tension or a damping set on the drum's membrane scales every link alike: the modal path
/// takes it in place, a new step for each mode in closed form, nothing analysed or allocated.
#[test]
fn the_callback_body_allocates_nothing_while_a_drums_tension_and_damping_move() {
    let rate = 48_000.0;
    let instrument = drum(&DrumSpec::default(), SchemeKind::SymplecticEuler, 1.0 / rate).unwrap();
    let controls = vec!["1=tension:0.8:1.25".parse().unwrap(), "2=damping".parse().unwrap()];
    let script = line(&[36, 38, 40, 41], 79, 0.1, (5, 0.5), |i, time| {
        let value = (i * 13 % 128) as u8;
        vec![
            (time + 0.02, NoteKind::Control { controller: 1, value }),
            (time + 0.07, NoteKind::Control { controller: 2, value: 127 - value }),
        ]
    });
    callback_allocates_nothing(&instrument, (rate, 1), controls, &script, 0.0);
}

/// A note off damps the reed and the next note lifts the damp: a drag on its mass, which the
/// energy-conserving scheme takes in place (its masses, its damping and its factorisation
/// forgotten), nothing built again or allocated.
#[test]
fn the_callback_body_allocates_nothing_while_the_reed_is_played() {
    let rate = 44_100.0;
    let instrument = reed(&ReedSpec::default(), SchemeKind::EnergyConserving, 1.0 / rate).unwrap();
    let script = line(&[60, 62, 64], 79, 0.06, (5, 0.5), |_, _| Vec::new());
    callback_allocates_nothing(&instrument, (rate, 1), Vec::new(), &script, 0.0);
}

/// The sitar (one fretted string over a jawari barrier, four sympathetic strings, all on a
/// body: the general path), its notes across the frets, bends and the two controllers: a fret
/// pressed keeps the stopped mass's position in room made when the path was built (it
/// allocated a vector for each before).
#[test]
fn the_callback_body_allocates_nothing_while_the_sitar_is_fretted_and_bent() {
    let source = include_str!("../../../examples/instruments/sitar.toml");
    let file = hooke::format::instrument::parse(source, "sitar.toml").unwrap();
    let rate = 44_100.0;
    let instrument = file.build(SchemeKind::SymplecticEuler, rate, 3).unwrap();
    let controls = damping_and_tension_controllers();
    let notes = [49u8, 51, 53, 54, 56, 58, 60, 61, 63, 65, 66, 68];
    let script = line(&notes, 60, 0.1, (5, 0.5), bends_and_controllers(0.11));
    callback_allocates_nothing(&instrument, (rate, 3), controls, &script, 0.0);
}

/// Plays `script` live on `instrument` (at `rate` Hz, oversampled `oversample` times, with
/// `controls`) for 10 s, an audio input (a sawtooth of full scale) pushing on its input points
/// with `input_gain` N where that is not 0, and checks the callback body allocated nothing and
/// lost nothing.
fn callback_allocates_nothing(
    instrument: &Instrument,
    (rate, oversample): (f64, usize),
    controls: Vec<hooke::score::controls::ControlMapping>,
    script: &[(f64, NoteKind)],
    input_gain: f64,
) {
    let performance = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    // The gain `hooke play` takes: a fortissimo note at a quarter of full scale.
    let (gain, _) = calibrate(instrument, performance, 0.25).unwrap();
    let options = LiveOptions {
        performance,
        rate,
        max_frames: 256,
        gain,
        queue: 1024,
        record: 1 << 16,
        rule: StringRule::LowestFret,
        controls,
        tuning: None,
    };
    let (mut input, mut core, record, stats) = live(instrument, options).unwrap();
    let mut record = record.unwrap();
    let (frames, device_channels) = (256, 2);
    let audio: Vec<f32> = (0..frames).map(|n| 2.0 * (n % 100) as f32 / 100.0 - 1.0).collect();
    if input_gain != 0.0 {
        core.open_input(input_points(instrument)).unwrap();
        core.set_input_gain(input_gain).unwrap();
    }
    let mut out = vec![0.0f32; frames * device_channels];
    let mut recorded = Vec::with_capacity(10 * 48_000 * 2 + 4096);
    let mut next = 0;
    let (mut callback_heap_operations, mut peak, mut sent) = (0, 0.0f32, 0);
    let blocks = (10.0 * rate) as usize / frames;
    for block in 0..blocks {
        let now = (block * frames) as f64 / rate;
        while next < script.len() && script[next].0 <= now {
            let kind = script[next].1;
            sent += input.send(&NoteInput { time: script[next].0, track: 0, channel: 0, kind }).unwrap();
            next += 1;
        }
        let before = heap_operations();
        core.process_with_input(&mut out, device_channels, &audio);
        callback_heap_operations += heap_operations() - before;
        peak = out.iter().fold(peak, |m, s| m.max(s.abs()));
        while let Ok(sample) = record.pop() {
            recorded.push(sample);
        }
    }
    assert_eq!(next, script.len(), "the whole script was played");
    assert!(sent > script.len() / 2, "gestures sent: {sent} for {} inputs", script.len());
    assert_eq!(callback_heap_operations, 0, "heap operations in the callback body over {blocks} callbacks");
    assert!(peak > 1e-3, "the {} is heard (peak {peak})", instrument.kind);
    assert_eq!(recorded.len(), blocks * frames * device_channels, "everything heard was recorded");
    assert_eq!(stats.errors.load(Relaxed), 0);
    assert_eq!(stats.dropped_cues.load(Relaxed) + stats.dropped_samples.load(Relaxed), 0);
    assert_eq!(stats.callbacks.load(Relaxed), blocks as u64);
}
