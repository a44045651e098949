//! The analysis finishes in bounded time, with the right answer, on the models that once hung it
//! or fooled it: simply supported plates, whose modes come in near or exact degenerate clusters.
//! The expected frequencies are the lattice's closed form (docs/model-format.md, `[[plate]]`),
//! computed here; every analysis runs on a worker thread with a deadline, so a hang fails.

use hooke::analysis::modes::Damping;
use hooke::analysis::report::{analyse, AnalysisOptions, ModeReport, SchemeAnalysis};
use hooke::format::model::parse;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::f64::consts::PI;
use std::sync::mpsc;
use std::time::Duration;

/// Far more than any of these analyses takes (under 2 s in release on a 2-core machine).
const DEADLINE: Duration = Duration::from_secs(60);

/// The plate of issue 35: D = 600 N m, rho h = 20 kg/m^2, s = 0.02 m, and `extra` TOML.
fn plate(columns: usize, rows: usize, extra: &str) -> String {
    format!(
        "[model]\ndimension = 1\n[[plate]]\nid = \"p\"\ncolumns = {columns}\nrows = {rows}\nspacing = 0.02\n\
         surface_density = 20.0\nrigidity = 600.0\n{extra}"
    )
}

/// The undamped frequency `w0 / 2 pi` of a report's mode, Hz.
fn undamped_hz(mode: &ModeReport) -> f64 {
    mode.mode.oscillator.omega0_squared.sqrt() / (2.0 * PI)
}

/// The analysis of `text` with `scheme` at 44.1 kHz, or a failure naming what did not finish.
fn analysed_within_deadline(text: &str, scheme: SchemeKind) -> SchemeAnalysis {
    let model = parse(text, "plate.toml").unwrap().model;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let system = System::new(&model);
        let _ = sender.send(analyse(&system, scheme, 1.0 / 44_100.0, &AnalysisOptions::default()));
    });
    match receiver.recv_timeout(DEADLINE) {
        Ok(result) => result.unwrap_or_else(|e| panic!("{scheme}: the analysis failed: {e}")),
        Err(_) => panic!("{scheme}: the analysis did not finish within {DEADLINE:?}:\n{text}"),
    }
}

/// The lattice's mode frequencies, Hz, ascending: `w_pq = sqrt(D / (rho h)) mu_pq / s^2` with
/// `mu_pq = 4 sin^2(p pi / (2 (C + 1))) + 4 sin^2(q pi / (2 (R + 1)))`.
fn closed_form(columns: usize, rows: usize) -> Vec<f64> {
    let term = |k: usize, count: usize| 4.0 * (k as f64 * PI / (2.0 * (count + 1) as f64)).sin().powi(2);
    let mut frequencies: Vec<f64> = (1..=columns)
        .flat_map(|p| (1..=rows).map(move |q| (p, q)))
        .map(|(p, q)| {
            (600.0_f64 / 20.0).sqrt() * (term(p, columns) + term(q, rows)) / 0.02_f64.powi(2) / (2.0 * PI)
        })
        .collect();
    frequencies.sort_by(f64::total_cmp);
    frequencies
}

#[test]
fn undamped_and_uniformly_damped_plates_are_modal_with_the_closed_form_frequencies() {
    // 14 x 10 (140 coordinates) hung `hooke analyze`; 12 x 12 has 71 exactly repeated
    // frequencies. Both were classed non-modal: the symmetric eigensolver's divide and conquer
    // gave vectors that did not diagonalise the stiffness (by 1.4e-4 and 5.2e-4 of its norm).
    for (columns, rows, extra) in [(14, 10, ""), (12, 12, ""), (12, 12, "drag = 1.0\n")] {
        let analysis = analysed_within_deadline(&plate(columns, rows, extra), SchemeKind::SymplecticEuler);
        assert_eq!(analysis.damping, Damping::Modal, "{columns} x {rows} {extra}");
        let expected = closed_form(columns, rows);
        assert_eq!(analysis.modes.len(), expected.len());
        for (mode, f) in analysis.modes.iter().zip(&expected) {
            let analog = undamped_hz(mode);
            assert!(
                (analog / f - 1.0).abs() < 1e-9,
                "{columns} x {rows}: mode {} at {analog} Hz, closed form {f} Hz",
                mode.index
            );
        }
    }
}

#[test]
fn the_plates_that_hung_each_scheme_are_analysed_in_bounded_time() {
    let struck = plate(12, 12, "[[initial]]\nmass = \"p.3.4\"\nvelocity = [1.0]\n");
    let cases = [
        (plate(12, 12, "drag = 1.0\n"), SchemeKind::SymplecticEuler),
        (plate(12, 12, ""), SchemeKind::Vefrl),
        (plate(12, 12, ""), SchemeKind::VelocityVerlet),
        (plate(12, 12, ""), SchemeKind::VelocityVerletCs),
        (plate(12, 12, ""), SchemeKind::Exact),
        (struck, SchemeKind::Rk4),
    ];
    for (text, scheme) in cases {
        let analysis = analysed_within_deadline(&text, scheme);
        assert_eq!(analysis.damping, Damping::Modal, "{scheme}");
        let lowest = closed_form(12, 12)[0];
        let analog = undamped_hz(&analysis.modes[0]);
        assert!((analog / lowest - 1.0).abs() < 1e-9, "{scheme}: {analog} Hz against {lowest} Hz");
    }
}

#[test]
fn a_non_modal_plate_with_repeated_frequencies_is_analysed_in_bounded_time() {
    // One damper at a corner: the damping is not modal, so the poles come from the 288 x 288
    // state matrix and the largest stable step from one-step matrices, whose eigenvalues come in
    // the square plate's clusters (the case where the blocked Schur reordering loops).
    let text = plate(12, 12, "[[damper]]\na = \"p.1.1\"\nb = \"p.rim.0.1\"\ndamping = 0.5\n");
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::Rk4, SchemeKind::Vefrl, SchemeKind::Exact] {
        let analysis = analysed_within_deadline(&text, scheme);
        assert_eq!(analysis.damping, Damping::NonModal, "{scheme}");
        // The damper barely moves the modes: each within 0.1% of the undamped lattice's.
        for (mode, f) in analysis.modes.iter().zip(closed_form(12, 12)) {
            let analog = mode.mode.frequency_hz();
            assert!(
                (analog / f - 1.0).abs() < 1e-3,
                "{scheme}: mode {} at {analog} Hz, undamped {f} Hz",
                mode.index
            );
        }
    }
}
