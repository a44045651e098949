//! Church bells against their design: a bell struck by its clapper, as a MIDI note strikes it,
//! sounds each partial of a church bell (hum, prime, tierce, quint, nominal at 0.5, 1, 1.2, 1.5
//! and 2 times the strike note, and the upper partials; Fletcher & Rossing 1998, ch. 21) where it
//! is asked, measured on the simulated sound by its spectrum's peaks, and decays as asked,
//! measured by each partial's envelope; bad files are refused at the field.

use crate::instruments::render;
use crate::measure::{fundamental_decay_rate, spectral_peak};

use hooke::format::instrument::parse as parse_instrument;
use hooke::format::midi::score_text;
use hooke::instrument::bell::{BellSpec, CHURCH_BELL};
use hooke::instrument::{InstrumentSpec, MIDDLE_C_HZ};
use hooke::scheme::SchemeKind;
use hooke::score::notes::{NoteInput, NoteKind, NoteMap, StringRule};
use hooke::score::performance::PerformanceOptions;

const RATE: f64 = 44_100.0;

/// The bell `key` (alone) built at [`RATE`] with `scheme`, struck as a MIDI note at velocity
/// 100 strikes it: 3 s of its sound at [`RATE`], and its strike note, Hz.
fn struck_bell(key: &str, scheme: SchemeKind) -> (Vec<f64>, f64) {
    let spec = BellSpec { keys: vec![key.to_string()], stereo: false, ..BellSpec::default() };
    let (oversample, instrument) = InstrumentSpec::Bell(spec).build_stable(scheme, RATE, None).unwrap();
    let pitch = instrument.parts[0].kind.pitch_hz().unwrap();
    let note = (12.0 * (pitch / 440.0).log2() + 69.0).round() as u8;
    let mut map = NoteMap::new(&instrument, StringRule::LowestFret);
    let mut gestures = Vec::new();
    let on = NoteInput { time: 0.0, track: 0, channel: 0, kind: NoteKind::On { note, velocity: 100 } };
    map.play(&on, &mut gestures).unwrap();
    let score = score_text(&gestures, &instrument, 3.0, "bell");
    let options = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    (render(&instrument, &score, options).remove(0), pitch)
}

#[test]
fn a_bell_sounds_a_church_bells_partials_and_decays_as_asked() {
    for (key, scheme) in
        [("C4", SchemeKind::SymplecticEuler), ("C5", SchemeKind::SymplecticEuler), ("G4", SchemeKind::Rk4)]
    {
        let (sound, pitch) = struck_bell(key, scheme);
        let rate = RATE;
        let size = MIDDLE_C_HZ / pitch;
        for partial in CHURCH_BELL {
            let asked = partial.ratio * pitch;
            let (found, _) = spectral_peak(&sound, rate, 0.98 * asked, 1.02 * asked);
            let cents = 1200.0 * (found / asked).log2();
            assert!(
                cents.abs() < 1.0,
                "{key} {scheme:?}: partial {} at {found:.3} Hz for {asked:.3} Hz ({cents:.3} cents)",
                partial.ratio
            );
        }
        // The hum, the prime and the nominal: far enough from the others for their own envelopes.
        for partial in [CHURCH_BELL[0], CHURCH_BELL[1], CHURCH_BELL[4]] {
            let decay = partial.decay * size;
            let rate_found = -fundamental_decay_rate(
                &sound,
                rate,
                partial.ratio * pitch,
                0.1,
                (0.1 + 2.0 * decay).min(2.9),
            );
            assert!(
                (rate_found * decay - 1.0).abs() < 0.05,
                "{key} {scheme:?}: partial {} decays at {rate_found} 1/s, asked {}",
                partial.ratio,
                1.0 / decay
            );
        }
    }
}

#[test]
fn bad_bell_files_are_refused_at_the_field() {
    for (table, field, position) in [
        ("[bell]\npartials = []\n", "partials", (2, 12)),
        ("[bell]\nclapper_mass = -1.0\n", "clapper_mass", (2, 16)),
        ("[bell]\npartials = [{ ratio = 1.0, decay = 1.0, mass = 1.0 }, { ratio = 1.0, decay = 2.0, mass = 1.0 }]\n", "partials", (2, 12)),
    ] {
        let file = parse_instrument(table, "b.toml").unwrap();
        let error = file.build(SchemeKind::SymplecticEuler, 44_100.0, 1).unwrap_err();
        assert_eq!((error.line, error.column), position, "{error}");
        assert!(error.message.contains(field), "{error}");
    }
}
