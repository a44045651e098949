//! The marimba against its design and its files: a designed bar, simulated and measured by FFT
//! and by the envelope of each mode, sounds the asked pitch and ratio and decays as asked with
//! three schemes; notes strike bars with their mallet; bad files are refused at the field.

use crate::measure::{fundamental_decay_rate, spectral_peak};

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, StepSize};
use hooke::format::instrument::parse as parse_instrument;
use hooke::format::score::parse as parse_score;
use hooke::instrument::marimba::MarimbaSpec;
use hooke::instrument::{InstrumentSpec, PartKind, MIDDLE_C_HZ};
use hooke::scheme::SchemeKind;
use hooke::score::controls::{ControlMapping, Controlled, SetParameter};
use hooke::score::notes::{NoteInput, NoteKind, NoteMap, StringRule, Stroke};

/// A one-bar marimba on key `key`, built stable at 44.1 kHz with `scheme`: its simulation rate
/// and 1.2 s of its output (channel 1, at the simulation rate) after a 0.2 ms push at 0.4 of the
/// bar.
fn struck_bar(key: &str, scheme: SchemeKind) -> (f64, f64, Vec<f64>) {
    struck_bar_of(MarimbaSpec::default(), key, scheme)
}

/// [`struck_bar`] on a bar of `spec`.
fn struck_bar_of(spec: MarimbaSpec, key: &str, scheme: SchemeKind) -> (f64, f64, Vec<f64>) {
    let spec = MarimbaSpec { keys: vec![key.to_string()], ..spec };
    let (_, instrument) = InstrumentSpec::Marimba(spec).build_stable(scheme, 44_100.0, None).unwrap();
    let PartKind::Bar(bar) = &instrument.parts[0].kind else { panic!("a marimba's key is a bar") };
    let rate = 1.0 / instrument.dt;
    let config = EngineConfig { scheme, step: StepSize::Dt(instrument.dt), ..EngineConfig::default() };
    let mut engine = Engine::new(&instrument.model, &instrument.pickups, config).unwrap();
    let coordinate = bar.masses[bar.mass_at(0.4)];
    engine.apply(Event::Excite(Excitation::Pulse(Pulse { coordinate, peak: 1.0, duration: 2e-4 }))).unwrap();
    let mut output = vec![Vec::new(); engine.channels()];
    engine.advance((1.2 * rate) as u64, &mut output).unwrap();
    (rate, bar.frequency_hz, output.swap_remove(0))
}

#[test]
fn a_designed_bar_sounds_and_decays_as_asked() {
    // The default bar: the second mode at 4 f1, and time constants 0.3 s and 0.18 s at C4, as
    // 1/f elsewhere. Each is measured on the simulated sound: the pitch and the ratio from the
    // spectrum's peaks, each decay from the mode's own envelope (complex demodulation).
    let spec = MarimbaSpec::default();
    for (key, scheme) in [
        ("C5", SchemeKind::SymplecticEuler),
        ("G3", SchemeKind::SymplecticEuler),
        ("C5", SchemeKind::VelocityVerlet),
        ("C5", SchemeKind::Rk4),
    ] {
        let (rate, pitch, sound) = struck_bar(key, scheme);
        let scale = MIDDLE_C_HZ / pitch;
        let (first, _) = spectral_peak(&sound, rate, 0.9 * pitch, 1.1 * pitch);
        let (second, _) = spectral_peak(&sound, rate, 3.6 * pitch, 4.4 * pitch);
        let rates = [
            -fundamental_decay_rate(&sound, rate, first, 0.05, 0.05 + 3.0 * spec.decay * scale),
            -fundamental_decay_rate(&sound, rate, second, 0.05, 0.05 + 3.0 * spec.high_decay * scale),
        ];
        let wanted = [1.0 / (spec.decay * scale), 1.0 / (spec.high_decay * scale)];
        eprintln!(
            "{key} with {}: f1 {first:.3} Hz (designed {pitch:.3}), f2 / f1 {:.5}, decay rates {:.4} and {:.4} 1/s \
             (asked {:.4} and {:.4})",
            scheme.name(),
            second / first,
            rates[0],
            rates[1],
            wanted[0],
            wanted[1]
        );
        assert!((first / pitch - 1.0).abs() < 1e-3, "{key} {scheme:?}: f1 {first} Hz for {pitch} Hz");
        assert!(
            (second / first / spec.ratio - 1.0).abs() < 5e-3,
            "{key} {scheme:?}: ratio {}",
            second / first
        );
        for (measured, asked) in rates.iter().zip(wanted) {
            assert!(
                (measured / asked - 1.0).abs() < 0.05,
                "{key} {scheme:?}: decay rate {measured} for {asked}"
            );
        }
    }
}

#[test]
fn a_bar_cut_for_three_modes_sounds_them_at_one_four_and_ten_times_its_pitch() {
    // The concert marimba's tuning (Bork 1995), the third mode by the relief left at the cut's
    // centre; measured on the simulated sound, by the spectrum's peaks.
    let spec = MarimbaSpec { third_ratio: Some(10.0), ..MarimbaSpec::default() };
    for (key, scheme) in [
        ("G3", SchemeKind::SymplecticEuler),
        ("C5", SchemeKind::SymplecticEuler),
        ("C6", SchemeKind::SymplecticEuler),
        ("C4", SchemeKind::Rk4),
    ] {
        let (rate, pitch, sound) = struck_bar_of(spec.clone(), key, scheme);
        let (first, _) = spectral_peak(&sound, rate, 0.9 * pitch, 1.1 * pitch);
        let (second, _) = spectral_peak(&sound, rate, 3.6 * pitch, 4.4 * pitch);
        let (third, _) = spectral_peak(&sound, rate, 9.0 * pitch, 11.0 * pitch);
        let cents = |f: f64, ratio: f64| 1200.0 * (f / (ratio * first)).log2();
        let errors = [cents(first, pitch / first), cents(second, 4.0), cents(third, 10.0)];
        assert!(
            errors.iter().all(|e| e.abs() < 1.0),
            "{key} {scheme:?}: modes at {first:.3}, {second:.3} and {third:.3} Hz, off 1 : 4 : 10 of \
             {pitch:.3} Hz by {errors:?} cents"
        );
    }
}

#[test]
fn notes_strike_bars_with_their_mallet() {
    let file = parse_instrument("[marimba]\nkeys = [\"C4\", \"E4\", \"G4\"]\n", "m.toml").unwrap();
    let instrument = file.build(SchemeKind::SymplecticEuler, 44_100.0, 4).unwrap();
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let mut gestures = Vec::new();
    let on =
        |note, velocity| NoteInput { time: 0.5, track: 0, channel: 0, kind: NoteKind::On { note, velocity } };
    map.play(&on(64, 127), &mut gestures).unwrap();
    map.play(&NoteInput { kind: NoteKind::Off { note: 64 }, ..on(64, 0) }, &mut gestures).unwrap();
    // One strike on E4 (part 1) at the mallet's point, at 4 m/s; the note off leaves it ringing.
    assert_eq!(gestures.len(), 1, "{gestures:?}");
    assert_eq!(gestures[0].part, 1);
    assert_eq!(gestures[0].stroke, Stroke::Strike { position: [0.4, 0.5], velocity: 4.0, hardness: 1.0 });
    let error = map.play(&on(62, 100), &mut gestures).unwrap_err().to_string();
    assert!(error.contains("no bar sounds it") && error.contains("C4, E4, G4"), "{error}");
    let tension = ControlMapping {
        controller: 1,
        parameter: Controlled::Set(SetParameter::Tension),
        low: 0.5,
        high: 2.0,
    };
    let refused = NoteMap::new(&instrument, StringRule::LowestFret).with_controls(&[tension], &instrument);
    assert!(refused.unwrap_err().to_string().contains("plays bars"));

    // A score's strike without fields takes the bar's mallet and its point.
    let score = "[score]\nduration = 1.0\n[[strike]]\ntime = 0.0\npart = \"G4\"\n";
    let score = parse_score(score, "s.toml", &instrument, None).unwrap();
    let PartKind::Bar(bar) = &instrument.parts[2].kind else { panic!("a bar") };
    match &score.cues[0].action {
        hooke::score::Action::Strike(hammer) => {
            assert_eq!(hammer.coordinate, bar.masses[bar.mass_at(0.4)]);
            assert_eq!(hammer.mass, MarimbaSpec::default().mallet_mass);
            assert_eq!(hammer.exponent, 1.5);
        }
        other => panic!("a strike, found {other:?}"),
    }
    // What a bar cannot do is refused at the event's field.
    for (event, expected) in [
        ("[[set]]\ntime = 0.0\npart = \"C4\"\nparameter = \"tension\"\nvalue = 1.1\n", "s.toml:6:8"),
        (
            "[[pluck]]\ntime = 0.0\npart = \"C4\"\nposition = 0.5\namplitude = 0.001\nshape = \"triangle\"\n",
            "s.toml:9:9",
        ),
        ("[[strike]]\ntime = 0.0\npart = \"C4\"\nposition = 1.0\n", "s.toml:7:12"),
    ] {
        let text = format!("[score]\nduration = 1.0\n\n{event}");
        let error = parse_score(&text, "s.toml", &instrument, None).unwrap_err().to_string();
        assert!(error.starts_with(expected), "{error}");
    }
}

#[test]
fn bad_marimba_files_are_refused_at_the_field() {
    for (field, line, expected) in [
        ("keys = [\"C4\", \"H4\"]", 2, "note names"),
        ("keys = [\"C4\", \"C4\"]", 2, "each key once"),
        ("masses = 4", 2, "6 to 400"),
        ("strike_position = 1.0", 2, "strictly between 0 and 1"),
        ("ratio = 20.0", 2, "a ratio this bar's undercut reaches"),
        // The stiffness-proportional damping alone gives the second mode (at 4 f1) about 16 times
        // the first's rate: a steeper fall is refused with the range the losses reach.
        ("high_decay = 0.01", 2, "that damping alone"),
        ("high_decay = 0.5", 2, "at most the first mode's"),
    ] {
        let text = format!("[marimba]\n{field}\n");
        let file = parse_instrument(&text, "m.toml").unwrap();
        let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 4).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("m.toml:{line}:")) && error.contains(expected),
            "{field}: {error}"
        );
    }
}
