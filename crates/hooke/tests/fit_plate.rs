//! A plate fitted to a recorded strike (`hooke fit --as plate`, docs/fit.md), on recordings Hooke
//! renders itself from known plates: the fit must give back the lattice (its columns and rows),
//! the first mode (to 0.1 cent) and the loss law (its decays at the first mode and at the highest
//! measured, to 2%), clean and with white noise 40 dB under the strike; and the fitted plate,
//! struck, sounds the recording's modes.

use crate::fit::{struck, RATE};
use hooke::analysis::recording::measure_modes;
use hooke::analysis::recording::plate::fit_plate;
use hooke::instrument::fitted::plate_for_rate;
use hooke::instrument::plates::PlatesSpec;
use hooke::instrument::{InstrumentSpec, MIDDLE_C_HZ};
use hooke::scheme::SchemeKind;

/// The step `spec` runs at when built for [`RATE`]: the plates take more than one step a sample.
fn step(spec: &PlatesSpec) -> f64 {
    let (oversample, _) =
        InstrumentSpec::Plates(spec.clone()).build_stable(SchemeKind::SymplecticEuler, RATE, None).unwrap();
    1.0 / (RATE * oversample as f64)
}

/// The plate `spec` (its one key `key`, first mode `pitch` Hz), struck and fitted, checked
/// against its design.
fn assert_plate_fit_recovers(spec: &PlatesSpec, key: &str, pitch: f64, snr_db: Option<f64>) {
    let sound = struck(&InstrumentSpec::Plates(spec.clone()), key, 4.0, snr_db);
    let measured = measure_modes(&sound, RATE).unwrap();
    let fit = fit_plate(&measured, None, SchemeKind::SymplecticEuler, step(spec)).unwrap();
    let label = format!("{key} {} x {}, noise {snr_db:?}: {fit:?}", spec.columns, spec.rows);
    assert_eq!((fit.columns, fit.rows), (spec.columns, spec.rows), "{label}");
    assert!((1200.0 * (fit.frequency_hz / pitch).log2()).abs() < 0.1, "{label}: the first mode");
    // The design's law: `decay` at C4's first mode as 1 / f elsewhere, `high_decay` at
    // `high_frequency`; linear in f between.
    let rate_at = |f: f64| {
        let (f1, r1) = (pitch, pitch / (spec.decay * MIDDLE_C_HZ));
        let (fh, rh) = (spec.high_frequency, 1.0 / spec.high_decay);
        r1 + (rh - r1) * (f - f1) / (fh - f1)
    };
    for f in [fit.frequency_hz, fit.high_frequency] {
        let asked = 1.0 / rate_at(f);
        assert!(
            (fit.decay(f) / asked - 1.0).abs() < 0.02,
            "{label}: decay at {f} Hz {} s for {asked} s",
            fit.decay(f)
        );
    }
}

#[test]
fn the_fit_gives_back_a_plates_design() {
    let one = |key: &str, columns: usize, rows: usize| PlatesSpec {
        keys: vec![key.into()],
        columns,
        rows,
        stereo: false,
        ..PlatesSpec::default()
    };
    assert_plate_fit_recovers(&one("C4", 14, 10), "C4", MIDDLE_C_HZ, None);
    assert_plate_fit_recovers(&one("A4", 9, 7), "A4", 440.0, None);
    assert_plate_fit_recovers(&one("C4", 14, 10), "C4", MIDDLE_C_HZ, Some(40.0));
}

/// The fitted plate, fitted for the step it runs at, struck, sounds the recording's modes: each
/// measured mode within 0.5 cent of one of the resynthesis', decaying within 5% of it.
#[test]
fn a_fitted_plate_sounds_the_recorded_modes() {
    let spec =
        PlatesSpec { keys: vec!["E4".into()], columns: 12, rows: 9, stereo: false, ..PlatesSpec::default() };
    let recorded =
        measure_modes(&struck(&InstrumentSpec::Plates(spec.clone()), "E4", 4.0, None), RATE).unwrap();
    let (fitted, fit) =
        plate_for_rate(&recorded, None, SchemeKind::SymplecticEuler, RATE, |_| "E4".to_string()).unwrap();
    assert_eq!((fit.columns, fit.rows), (12, 9), "{fit:?}");
    let simulated = measure_modes(&struck(&InstrumentSpec::Plates(fitted), "E4", 4.0, None), RATE).unwrap();
    for was in &recorded.modes {
        let hz = was.main.frequency_hz;
        let now = simulated
            .modes
            .iter()
            .min_by(|a, b| (a.main.frequency_hz - hz).abs().total_cmp(&(b.main.frequency_hz - hz).abs()))
            .unwrap();
        let cents = 1200.0 * (now.main.frequency_hz / hz).log2();
        assert!(cents.abs() < 0.5, "mode at {hz} Hz: {cents} cents");
        assert!(
            (now.decay_rate / was.decay_rate - 1.0).abs() < 0.05,
            "mode at {hz} Hz: {now:?} against {was:?}"
        );
    }
}
