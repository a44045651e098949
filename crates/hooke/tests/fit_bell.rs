//! A bell fitted to a recorded strike (`hooke fit --as bell`, docs/fit.md), on recordings Hooke
//! renders itself from known bells: the fit must give back the strike note and every partial's
//! ratio (to 0.1 cent), its decay (to 2%) and its effective mass (the level it sounds at, to 5%),
//! clean and with white noise 40 dB under the strike; and the fitted bell, played, sounds the
//! recording's partials at their levels.

use crate::fit::{struck, RATE};
use hooke::analysis::recording::fit::{fit_bell, BellFit};
use hooke::analysis::recording::measure_modes;
use hooke::instrument::bell::{BellSpec, CHURCH_BELL};
use hooke::instrument::fitted::fitted_bell;
use hooke::instrument::{InstrumentSpec, MIDDLE_C_HZ};
use hooke::scheme::SchemeKind;

/// 4 s of the bell `spec` (its one key, `key`) struck ([`struck`]).
fn struck_bell(spec: &BellSpec, key: &str, snr_db: Option<f64>) -> Vec<f64> {
    struck(&InstrumentSpec::Bell(spec.clone()), key, 4.0, snr_db)
}

/// The fit of the default bell at `key` (strike note `pitch`, Hz), checked against its design.
fn assert_bell_fit_recovers(key: &str, pitch: f64, snr_db: Option<f64>) -> BellFit {
    let spec = BellSpec { keys: vec![key.into()], stereo: false, ..BellSpec::default() };
    let fit = fit_bell(&measure_modes(&struck_bell(&spec, key, snr_db), RATE).unwrap(), None);
    let label = format!("{key}, noise {snr_db:?}: {fit:?}");
    let cents = |found: f64, asked: f64| 1200.0 * (found / asked).log2();
    assert!(cents(fit.strike_hz, pitch).abs() < 0.1, "{label}: the strike note");
    assert_eq!(fit.modes.len(), CHURCH_BELL.len(), "{label}: the partials found");
    let size = MIDDLE_C_HZ / pitch;
    let (fitted, moved) = fitted_bell(key, &fit, SchemeKind::SymplecticEuler, 1.0 / RATE).unwrap();
    assert_eq!(moved, 0.0, "{label}: the decays are the design's, which its body gives");
    for ((mode, design), partial) in fit.modes.iter().zip(CHURCH_BELL).zip(&fitted.partials) {
        assert!(cents(mode.ratio, design.ratio).abs() < 0.1, "{label}: ratio {}", design.ratio);
        let decay = design.decay * size;
        assert!((mode.decay / decay - 1.0).abs() < 0.02, "{label}: decay of {}: {decay} s", design.ratio);
        // The fitted bell's partial at C4, as the design's.
        assert!(
            (partial.mass / design.mass - 1.0).abs() < 0.05,
            "{label}: mass of {}: {} kg where the design has {} kg",
            design.ratio,
            partial.mass,
            design.mass
        );
    }
    fit
}

#[test]
fn the_fit_gives_back_a_bells_design() {
    assert_bell_fit_recovers("C4", MIDDLE_C_HZ, None);
    assert_bell_fit_recovers("A4", 440.0, None);
    assert_bell_fit_recovers("C4", MIDDLE_C_HZ, Some(40.0));
}

/// A bell unlike the church bell (other ratios, a loud hum, a quiet nominal), with its strike
/// note given: the fitted bell, struck, sounds each mode within 0.1 cent, 2% of its decay and
/// 0.5 dB of its level (both sides measured the same way, levels relative to the loudest).
#[test]
fn a_fitted_bell_sounds_the_recorded_modes_at_their_levels() {
    let partials = [(0.55, 3.0, 0.6), (1.0, 2.0, 1.5), (1.28, 1.5, 1.0), (2.1, 1.0, 4.0), (3.3, 0.5, 2.0)];
    let spec = BellSpec {
        keys: vec!["D4".into()],
        partials: partials
            .iter()
            .map(|&(ratio, decay, mass)| hooke::instrument::bell::BellPartial { ratio, decay, mass })
            .collect(),
        stereo: false,
        ..BellSpec::default()
    };
    let pitch = 293.664_767_917_407_6;
    let recorded = measure_modes(&struck_bell(&spec, "D4", None), RATE).unwrap();
    let fit = fit_bell(&recorded, Some(pitch));
    let (fitted, _) = fitted_bell("D4", &fit, SchemeKind::SymplecticEuler, 1.0 / RATE).unwrap();
    let simulated = measure_modes(&struck_bell(&fitted, "D4", None), RATE).unwrap();
    assert_eq!(simulated.modes.len(), partials.len(), "{simulated:?}");
    let loudest = |modes: &[hooke::analysis::recording::MeasuredPartial]| {
        modes.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude))
    };
    let (top_recorded, top_simulated) = (loudest(&recorded.modes), loudest(&simulated.modes));
    for ((was, now), (ratio, _, _)) in recorded.modes.iter().zip(&simulated.modes).zip(partials) {
        let cents = 1200.0 * (now.main.frequency_hz / was.main.frequency_hz).log2();
        assert!(cents.abs() < 0.1, "mode {ratio}: {cents} cents");
        assert!(
            (now.decay_rate / was.decay_rate - 1.0).abs() < 0.02,
            "mode {ratio}: {now:?} against {was:?}"
        );
        let level = |p: &hooke::analysis::recording::MeasuredPartial, top: f64| {
            20.0 * (p.main.amplitude / top).log10()
        };
        let (a, b) = (level(was, top_recorded), level(now, top_simulated));
        assert!((a - b).abs() < 0.5, "mode {ratio}: {b:.2} dB where the recording has {a:.2} dB");
    }
}

/// Modes as a glockenspiel's sample gives them (MuseScore General's C6 through fluidsynth, as
/// `hooke fit --as bell` measured it: ratio to 1388.41 Hz, T60 in s, level in dB), whose
/// decays a bell's body cannot give: the sample's envelope and loops set them. The fitted bell
/// takes the nearest decays it can, a little inside its reach, builds, and says how far they
/// moved.
const SAMPLED_MODES: [(f64, f64, f64); 24] = [
    (0.0279, 6.847, -64.2),
    (0.0374, 0.856, -44.2),
    (0.7546, 47.215, -80.0),
    (1.0325, 3.139, -45.1),
    (1.1314, 341.743, -78.9),
    (1.4591, 34.739, -63.8),
    (1.9616, 1.035, -15.9),
    (1.9748, 1.536, -34.7),
    (1.9874, 0.944, -37.2),
    (1.9933, 0.753, -25.6),
    (2.0, 0.907, 0.0),
    (2.0192, 0.915, -38.8),
    (2.0298, 0.614, -36.5),
    (2.9629, 4.126, -60.4),
    (4.551, 3.886, -49.9),
    (4.8295, 0.869, -18.1),
    (4.838, 1.737, -32.9),
    (4.8457, 1.001, -8.4),
    (4.8494, 1.163, -32.2),
    (4.8685, 1.379, -29.7),
    (6.2541, 0.572, -14.4),
    (6.2648, 2.069, -58.4),
    (6.4631, 0.555, -32.5),
    (6.6528, 0.551, -24.9),
];

#[test]
fn decays_out_of_a_bodys_reach_are_moved_to_the_nearest_it_gives() {
    use hooke::analysis::recording::fit::BellMode;
    use hooke::analysis::recording::t60;
    let strike_hz = 1388.4064;
    let fit = BellFit {
        strike_hz,
        modes: SAMPLED_MODES
            .iter()
            .map(|&(ratio, t, db)| BellMode { ratio, decay: t / t60(1.0), amplitude: 10f64.powf(db / 20.0) })
            .collect(),
    };
    let h = 1.0 / RATE;
    let size = MIDDLE_C_HZ / strike_hz;
    let raw = BellSpec {
        keys: vec!["F6".into()],
        tuning: Some(vec![strike_hz]),
        partials: fit
            .modes
            .iter()
            .map(|m| hooke::instrument::bell::BellPartial {
                ratio: m.ratio,
                decay: m.decay / size,
                mass: 1.0,
            })
            .collect(),
        stereo: false,
        ..BellSpec::default()
    };
    let refused = InstrumentSpec::Bell(raw).build(SchemeKind::SymplecticEuler, h);
    assert!(refused.is_err(), "the raw decays are out of the body's reach");
    let (spec, moved) = fitted_bell("F6", &fit, SchemeKind::SymplecticEuler, h).unwrap();
    assert!(moved > 0.1, "moved by {moved}");
    InstrumentSpec::Bell(spec).build(SchemeKind::SymplecticEuler, h).unwrap();
}
