//! The analysis against the papers (Morgan & Qiao 2009, sections 3-4 and Table 1;
//! Morgan & Qiao 2008, section 5; with the corrections of docs/errata.md) and against simulations
//! measured independently (`measure`: FFT peaks, zero crossings, envelope fits).

use crate::common;
use crate::measure;

use common::oscillator;
use faer::c64;
use hooke::analysis::design::{
    design_string, digital_target, inverse_warping, invert_pole, tune, TuneTarget,
};
use hooke::analysis::discrete::{oscillator_poles, Oscillator};
use hooke::analysis::linearise::About;
use hooke::analysis::linearise::Linearisation;
use hooke::analysis::modes::{state_matrix_modes, Damping};
use hooke::analysis::poles::Region;
use hooke::analysis::regions::{
    damping_curve, isodamping_lines, isofrequency_lines, region_boundaries, region_crossings,
    symplectic_euler_crossings, symplectic_euler_isofrequency, warping_curve, warping_stability_limit,
};
use hooke::analysis::report::{analyse, AnalysisOptions, ModelModes, SchemeAnalysis};
use hooke::analysis::stability::{symplectic_euler_largest_step, StableStep};
use hooke::engine::{Engine, EngineConfig, Observer, Pickups};
use hooke::model::{Anchor, Mass, Model, Spring, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};
use std::f64::consts::PI;

/// `|a - b| <= tolerance |b|`.
fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs()
}

/// A uniform 1D string of `n` masses with dampers on the springs (Morgan & Qiao 2009, section 4.3,
/// as docs/errata.md reads it).
fn string(n: usize, mass: f64, stiffness: f64, damping: f64) -> Model {
    let mut model = Model::new(1).unwrap();
    model.add_string(StringSpec::new("s", n).mass(mass).stiffness(stiffness).damping(damping)).unwrap();
    model
}

/// Records the first coordinate of one mass at every step.
struct Probe {
    coordinate: usize,
    samples: Vec<f64>,
}

impl Observer for Probe {
    fn observe(&mut self, _system: &System, state: &State) -> std::io::Result<()> {
        self.samples.push(state.x[self.coordinate]);
        Ok(())
    }
}

/// Runs `model` with `scheme` at step `dt` for `steps` steps and returns coordinate `coordinate`.
fn simulate(model: &Model, scheme: SchemeKind, dt: f64, steps: u64, coordinate: usize) -> Vec<f64> {
    let mut probe = Probe { coordinate, samples: Vec::with_capacity(steps as usize + 1) };
    let mut simulation = Engine::from_system(
        System::new(model),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(dt),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut probe]).unwrap();
    probe.samples
}

fn analysis(model: &Model, scheme: SchemeKind, dt: f64) -> SchemeAnalysis {
    analyse(&System::new(model), scheme, dt, &AnalysisOptions::default()).unwrap()
}

// ---- Morgan & Qiao 2009, section 3.9 ----------------------------------------------------------

#[test]
fn section_3_9_radius_and_digital_frequency_match_the_paper_and_a_run() {
    // w0 = 125 * 2 pi, gamma = 50, h = 1/1000, x(0) = 1, v(0) = 0 (eq. 69).
    let (omega0, gamma, h) = (125.0 * 2.0 * PI, 50.0, 1e-3);
    let model = oscillator(omega0, gamma, 1.0, 0.0);
    let report = analysis(&model, SchemeKind::SymplecticEuler, h);
    assert_eq!(report.modes.len(), 1);
    let mode = &report.modes[0];
    // Eq. 71: r = 0.97467943448090, w_d = 817.7132374981528 rad/s.
    assert!(close(mode.discrete.modulus(), 0.97467943448090, 1e-12), "{}", mode.discrete.modulus());
    assert!(
        close(mode.discrete.angular_frequency(), 817.7132374981528, 1e-12),
        "{}",
        mode.discrete.angular_frequency()
    );
    // Eq. 70: mu = 785.0001752025822.
    assert!(close(mode.mode.pole.im, 785.0001752025822, 1e-12));
    assert!(close(mode.mode.pole.re, -25.0, 1e-12));
    assert_eq!(mode.discrete.region(), Region::Complex);

    // A symplectic Euler run: its amplitude ratio per step and its zero-crossing rate.
    let x = simulate(&model, SchemeKind::SymplecticEuler, h, 1000, 0);
    let ratio = (measure::envelope_decay_rate(&x, 1.0 / h) * h).exp();
    assert!(close(ratio, 0.97467943448090, 1e-9), "amplitude ratio per step {ratio}");
    let frequency = 2.0 * PI * measure::zero_crossing_frequency(&x[..600], 1.0 / h);
    assert!(close(frequency, 817.7132374981528, 2e-4), "zero-crossing rate {frequency} rad/s");
}

// ---- Morgan & Qiao 2009, section 4.3, Table 1 -------------------------------------------------

/// Table 1 of Morgan & Qiao 2009: analog pole (re, im), w_d, sigma_d, Hz, tau, as printed.
const TABLE_1: [[&str; 6]; 5] = [
    ["-0.99983335", "2739.98210", "2764.60154", "-1.000000", "440.00000", "1.000000"],
    ["-3.73142886", "5293.23798", "5483.76570", "-3.733751", "872.76842", "0.2678272"],
    ["-7.46285773", "7485.76708", "8089.32370", "-7.472156", "1287.45585", "0.1338302"],
    ["-11.19428660", "9168.15257", "10447.41229", "-11.215224", "1662.75731", "0.0891645"],
    ["-13.92588212", "10225.74360", "12263.63276", "-13.958304", "1951.81777", "0.0716419"],
];

/// Whether `value` agrees with the printed `text` to its last digit, allowing one unit there
/// (the paper truncates).
fn matches_printed(value: f64, text: &str) -> bool {
    let decimals = text.split('.').nth(1).map_or(0, str::len);
    let unit = 10f64.powi(-(decimals as i32));
    let printed: f64 = text.parse().unwrap();
    (value - printed).abs() <= unit * (1.0 + 1e-9)
}

fn table_1_design() -> hooke::analysis::design::StringDesign {
    let target = TuneTarget { frequency_hz: 440.0, time_constant: Some(1.0) };
    design_string(5, 1.0, target, SchemeKind::SymplecticEuler, 1.0 / 6000.0).unwrap()
}

#[test]
fn table_1_design_gives_the_papers_coefficients_and_rows() {
    let design = table_1_design();
    // Eq. 90, with the exact root of docs/errata.md.
    assert!(close(design.omega0, 5293.239300336853, 1e-9), "omega0 {}", design.omega0);
    assert!(close(design.gamma, 7.4628577364145, 1e-9), "gamma {}", design.gamma);
    assert_eq!((design.stiffness, design.damping), (design.omega0 * design.omega0, design.gamma));
    let report = analysis(&design.model, SchemeKind::SymplecticEuler, 1.0 / 6000.0);
    assert_eq!(report.damping, Damping::Modal);
    assert_eq!(report.modes.len(), 5);
    for (row, mode) in TABLE_1.iter().zip(&report.modes) {
        let values = [
            mode.mode.pole.re,
            mode.mode.pole.im,
            mode.discrete.angular_frequency(),
            mode.discrete.decay_rate(),
            mode.discrete.frequency_hz(),
            mode.discrete.time_constant(),
        ];
        for (value, text) in values.iter().zip(row) {
            assert!(matches_printed(*value, text), "mode {}: {value} vs printed {text}", mode.index);
        }
        assert_eq!(mode.discrete.region(), Region::Complex);
    }
}

#[test]
fn the_designed_string_measures_440_hz_and_one_second() {
    let design = table_1_design();
    let rate = 6000.0;
    // Plucked at the third mass: the spectrum's lowest peak.
    let mut plucked = design.model.clone();
    plucked.set_initial_position(2, &[1e-3]).unwrap();
    let x = simulate(&plucked, SchemeKind::SymplecticEuler, 1.0 / rate, 36_000, 0);
    let (peak, _) = measure::spectral_peak(&x, rate, 300.0, 600.0);
    assert!((peak - 440.0).abs() < 5e-4, "FFT peak at {peak} Hz");
    // Started in the lowest mode's shape (sin(pi i / 6)): a single damped sinusoid.
    let mut first_mode = design.model.clone();
    for i in 0..5 {
        first_mode.set_initial_position(i, &[1e-3 * (PI * (i + 1) as f64 / 6.0).sin()]).unwrap();
    }
    let x = simulate(&first_mode, SchemeKind::SymplecticEuler, 1.0 / rate, 18_000, 0);
    let tau = -1.0 / measure::envelope_decay_rate(&x, rate);
    assert!((tau - 1.0).abs() < 5e-4, "envelope time constant {tau} s");
    let (peak, _) = measure::spectral_peak(&x, rate, 300.0, 600.0);
    assert!((peak - 440.0).abs() < 5e-4, "FFT peak at {peak} Hz");
}

// ---- Morgan & Qiao 2008, section 5: the 20-mass, 440 Hz string --------------------------------

/// The 20-mass string of Morgan & Qiao 2008, eq. (17): `w0 = 2 pi 440 / (2 sin(pi / 42))`,
/// undamped.
fn string_20() -> Model {
    let omega0 = 2.0 * PI * 440.0 / (2.0 * (PI / 42.0).sin());
    assert!(close(omega0, 18497.2439, 1e-8), "{omega0}");
    string(20, 1.0, omega0 * omega0, 0.0)
}

#[test]
fn morgan_qiao_2008_string_modes_and_their_warping_at_44100_hz() {
    let report = analysis(&string_20(), SchemeKind::SymplecticEuler, 1.0 / 44100.0);
    let analog: Vec<f64> = report.modes.iter().map(|m| m.mode.frequency_hz()).collect();
    let digital: Vec<f64> = report.modes.iter().map(|m| m.discrete.frequency_hz()).collect();
    // Printed to two decimals (rounded).
    let printed = |value: f64, text: f64| (value - text).abs() <= 0.005 + 1e-9;
    assert!(close(analog[0], 440.0, 1e-12));
    assert!(printed(analog[1], 877.54), "{}", analog[1]);
    assert!(printed(analog[2], 1310.17), "{}", analog[2]);
    assert!(printed(digital[0], 440.07), "{}", digital[0]);
    assert!(printed(digital[1], 878.11), "{}", digital[1]);
    assert!(printed(digital[2], 1312.08), "{}", digital[2]);
    // Corrected (docs/errata.md): the 19th mode is 5822.09 Hz and the 20th 5871.39 Hz.
    assert!(printed(analog[18], 5822.09), "{}", analog[18]);
    assert!(printed(analog[19], 5871.39), "{}", analog[19]);
    assert!(report.is_stable());
    assert!(report
        .modes
        .iter()
        .all(|m| m.discrete.region() == Region::Complex && (m.discrete.modulus() - 1.0).abs() < 1e-14));
}

#[test]
fn morgan_qiao_2008_fundamental_at_8_khz_and_the_largest_string() {
    // Corrected (docs/errata.md): at 8 kHz, 440 Hz warps to 442.22 Hz; the string's top modes are
    // then unstable.
    let report = analysis(&string_20(), SchemeKind::SymplecticEuler, 1.0 / 8000.0);
    assert!(
        (report.modes[0].discrete.frequency_hz() - 442.22).abs() <= 0.005,
        "{}",
        report.modes[0].discrete.frequency_hz()
    );
    assert!(!report.is_stable());
    assert_eq!(report.modes[19].discrete.region(), Region::Unstable);
    // Corrected (docs/errata.md): a 440 Hz string at 44.1 kHz is stable up to N = 49 masses (the
    // paper says 44); 50 masses are unstable.
    for (masses, stable) in [(49, true), (50, false)] {
        let omega0 = 2.0 * PI * 440.0 / (2.0 * (PI / (2.0 * (masses + 1) as f64)).sin());
        let report =
            analysis(&string(masses, 1.0, omega0 * omega0, 0.0), SchemeKind::SymplecticEuler, 1.0 / 44100.0);
        assert_eq!(report.is_stable(), stable, "{masses} masses");
        assert_eq!(report.largest_stable_step.allows(1.0 / 44100.0), stable, "{masses} masses");
    }
}

// ---- Morgan & Qiao 2009, figs. 10-17: regions, warping, damping, isolines ---------------------

#[test]
fn region_boundaries_at_mu_h_0_1_and_0_8_match_section_3_7() {
    // Printed to four decimals.
    let printed = |value: Option<f64>, text: f64| value.is_some_and(|v| (v - text).abs() <= 1e-4);
    let at_0_1 = symplectic_euler_crossings(0.1);
    assert!(printed(at_0_1.complex_to_zero, -0.1954), "{at_0_1:?}");
    assert!(printed(at_0_1.zero_to_nyquist, -0.7292), "{at_0_1:?}");
    let at_0_8 = symplectic_euler_crossings(0.8);
    assert!(printed(at_0_8.complex_to_zero, -0.4983), "{at_0_8:?}");
    assert!(printed(at_0_8.zero_to_nyquist, -0.5362), "{at_0_8:?}");
    // Eq. 64 corrected (docs/errata.md): at mu h = 0.87 the zero region is gone; the
    // complex/Nyquist boundary is at -0.499994, not -0.4977.
    let at_0_87 = symplectic_euler_crossings(0.87);
    assert_eq!((at_0_87.complex_to_zero, at_0_87.zero_to_nyquist), (None, None));
    assert!((at_0_87.complex_to_nyquist.unwrap() + 0.499994).abs() < 1e-6, "{at_0_87:?}");

    // The closed forms against the scheme's own poles, crossing by crossing.
    for (mu_h, expected) in [
        (
            0.1,
            vec![
                (Region::Complex, Region::Zero, at_0_1.complex_to_zero),
                (Region::Zero, Region::Nyquist, at_0_1.zero_to_nyquist),
                (Region::Nyquist, Region::Unstable, at_0_1.unstable),
            ],
        ),
        (
            0.8,
            vec![
                (Region::Complex, Region::Zero, at_0_8.complex_to_zero),
                (Region::Zero, Region::Nyquist, at_0_8.zero_to_nyquist),
                (Region::Nyquist, Region::Unstable, at_0_8.unstable),
            ],
        ),
        (
            0.87,
            vec![
                (Region::Complex, Region::Nyquist, at_0_87.complex_to_nyquist),
                (Region::Nyquist, Region::Unstable, at_0_87.unstable),
            ],
        ),
    ] {
        let found = region_crossings(SchemeKind::SymplecticEuler, mu_h, -0.9).unwrap();
        assert_eq!(found.len(), expected.len(), "mu h = {mu_h}: {found:?}");
        for (crossing, (from, to, sigma_h)) in found.iter().zip(expected) {
            assert_eq!((crossing.from, crossing.to), (from, to), "mu h = {mu_h}");
            assert!(
                (crossing.sigma_h - sigma_h.unwrap()).abs() < 1e-9,
                "mu h = {mu_h}: {crossing:?} vs {sigma_h:?}"
            );
        }
    }
    // The four curves of fig. 12 meet where the paper draws them: eq. 60's branches at
    // sigma h = -1/2 (mu h = sqrt(3)/2), eq. 58 and eq. 61 both end at mu h = 0 near -0.83.
    let curves = region_boundaries(1801);
    assert_eq!(curves.len(), 4);
    let upper = &curves[1].points;
    assert!((upper[0].sigma_h + 0.5).abs() < 1e-12 && (upper[0].mu_h - 0.75f64.sqrt()).abs() < 1e-12);
}

#[test]
fn warping_curves_match_figures_10_and_11() {
    // Fig. 10 (undamped): omega_d h = pi/3 at w0 h = 1 and pi at w0 h = 2 (Morgan & Qiao 2008,
    // eq. (11)).
    let undamped = warping_curve(SchemeKind::SymplecticEuler, 0.0, 2.0, 201).unwrap();
    assert!((undamped[100].omega_d_h - PI / 3.0).abs() < 1e-12, "{:?}", undamped[100]);
    assert!((undamped[200].omega_d_h - PI).abs() < 1e-6, "{:?}", undamped[200]);
    // Fig. 11 (gamma h = 0.5): complex poles only for 0.293 < w0 h < 1.707 (eq. 41).
    let damped = warping_curve(SchemeKind::SymplecticEuler, 0.5, 2.0, 20_001).unwrap();
    let complex: Vec<f64> =
        damped.iter().filter(|p| p.region == Region::Complex).map(|p| p.omega0_h).collect();
    let (first, last) = (complex[0], complex[complex.len() - 1]);
    assert!((first - (1.5 - 2f64.sqrt()).sqrt()).abs() < 1e-4, "{first}");
    assert!((last - (1.5 + 2f64.sqrt()).sqrt()).abs() < 1e-4, "{last}");
    assert!(damped.iter().filter(|p| p.omega0_h > last).all(|p| p.omega_d_h == PI));
}

#[test]
fn warping_curves_end_at_each_schemes_stability_limit() {
    let limit = |scheme, gamma_h| warping_stability_limit(scheme, gamma_h, PI, 500).unwrap();
    // Symplectic Euler: w0 h = sqrt(4 - 2 gamma h) (Morgan & Qiao 2009, eq. (54)); velocity
    // Verlet undamped likewise 2; RK4 undamped: 2 sqrt(2), where its stability region meets the
    // imaginary axis.
    let close = |found: Option<f64>, expected: f64| found.is_some_and(|w| (w - expected).abs() < 1e-9);
    assert!(
        close(limit(SchemeKind::SymplecticEuler, 0.0), 2.0),
        "{:?}",
        limit(SchemeKind::SymplecticEuler, 0.0)
    );
    assert!(close(limit(SchemeKind::SymplecticEuler, 0.5), 3f64.sqrt()));
    assert!(close(limit(SchemeKind::VelocityVerlet, 0.0), 2.0));
    assert!(close(limit(SchemeKind::Rk4, 0.0), 8f64.sqrt()), "{:?}", limit(SchemeKind::Rk4, 0.0));
    // The implicit midpoint rule and the exact flow are stable at every step.
    assert_eq!(limit(SchemeKind::Midpoint, 0.0), None);
    assert_eq!(limit(SchemeKind::Exact, 0.5), None);
    // Forward Euler grows at once without damping.
    assert!(limit(SchemeKind::ForwardEuler, 0.0).unwrap() < 1e-5);
}

#[test]
fn isofrequency_and_isodamping_lines_match_figures_16_and_17() {
    let sigma_h: Vec<f64> = (0..=50).map(|i| -0.01 * i as f64).collect();
    let closed = symplectic_euler_isofrequency(&[2.0], &sigma_h);
    // Fig. 16: the omega_d h = 2 line starts at mu h = 2 sin(1) = 1.68 (undamped) and is near
    // 1.2 at sigma h = -0.4.
    let line = &closed[0].points;
    assert!((line[0].mu_h - 2.0 * 1f64.sin()).abs() < 1e-12, "{:?}", line[0]);
    let at_0_4 = line.iter().find(|p| (p.sigma_h + 0.4).abs() < 1e-12).unwrap();
    assert!((at_0_4.mu_h - 1.2).abs() < 0.02, "{at_0_4:?}");
    // The same line from the scheme's poles.
    let numeric = isofrequency_lines(SchemeKind::SymplecticEuler, &[2.0], &sigma_h, 2.5).unwrap();
    assert_eq!(numeric[0].points.len(), line.len());
    for (a, b) in numeric[0].points.iter().zip(line) {
        assert!((a.mu_h - b.mu_h).abs() < 1e-9, "{a:?} vs {b:?}");
    }
    // Fig. 17: in the complex region the isodamping lines are vertical at
    // sigma h = (e^{2 sigma_d h} - 1) / 2 (eq. 44).
    let lines =
        isodamping_lines(SchemeKind::SymplecticEuler, &[-0.05, -0.2], &[0.1, 0.5, 1.0], -0.9).unwrap();
    for line in &lines {
        let expected = ((2.0 * line.level).exp() - 1.0) / 2.0;
        assert_eq!(line.points.len(), 3);
        for point in &line.points {
            assert!((point.sigma_h - expected).abs() < 1e-9, "level {}: {point:?}", line.level);
        }
    }
    // Figs. 13-14: the digital damping follows eq. 44 while the poles are complex.
    for point in damping_curve(SchemeKind::SymplecticEuler, 0.1, -0.19, 20).unwrap() {
        assert_eq!(point.region, Region::Complex);
        assert!((point.sigma_d_h - 0.5 * (1.0 + 2.0 * point.sigma_h).ln()).abs() < 1e-12, "{point:?}");
    }
}

// ---- stability: prediction against simulation, for every scheme ------------------------------

/// Runs an oscillator until `steps` or until it overflows; returns the largest |x| over the
/// last tenth of the run (infinite if it overflowed) and over the whole run.
fn run_amplitude(model: &Model, scheme: SchemeKind, dt: f64, steps: u64) -> (f64, f64) {
    let mut probe = Probe { coordinate: 0, samples: Vec::with_capacity(steps as usize + 1) };
    let mut simulation = Engine::from_system(
        System::new(model),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(dt),
    )
    .unwrap();
    let outcome = simulation.run(steps, &mut [], &mut [&mut probe]);
    let x = probe.samples;
    let whole = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if outcome.is_err() || x.len() as u64 != steps + 1 {
        return (f64::INFINITY, f64::INFINITY);
    }
    let tail = x[x.len() - x.len() / 10..].iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    (tail, whole)
}

#[test]
fn predicted_stability_agrees_with_simulation_on_a_grid_for_every_scheme() {
    let h = 1e-3;
    let omega0_h = [0.05, 0.3, 0.8, 1.5, 1.9, 2.1, 2.6, 2.9, 3.5, 5.0, 20.0];
    let gamma_h = [0.0, 0.02, 0.3, 1.0, 1.8, 3.0];
    for scheme in SchemeKind::ALL {
        let mut checked = 0;
        for &w in &omega0_h {
            for &g in &gamma_h {
                let model = oscillator(w / h, g / h, 1.0, 0.0);
                let report = analysis(&model, scheme, h);
                let radius = report.modes.iter().map(|m| m.discrete.modulus()).fold(0.0, f64::max);
                if radius > 1.0 + 1e-3 {
                    // Long enough to grow a millionfold.
                    let steps = ((1e6f64).ln() / radius.ln()).ceil().clamp(100.0, 200_000.0) as u64;
                    let (tail, _) = run_amplitude(&model, scheme, h, steps);
                    assert!(!report.is_stable(), "{scheme} w0h={w} gh={g}");
                    assert!(
                        tail > 1e3,
                        "{scheme} w0h={w} gh={g}: predicted |z| = {radius}, simulated {tail}"
                    );
                } else if report.is_stable() {
                    let (_, whole) = run_amplitude(&model, scheme, h, 3000);
                    assert!(
                        whole < 1e3,
                        "{scheme} w0h={w} gh={g}: predicted stable (|z| = {radius}), simulated {whole}"
                    );
                } else {
                    continue; // Within 1e-3 of the unit circle: growth too slow to see.
                }
                checked += 1;
            }
        }
        assert!(checked >= 60, "{scheme}: only {checked} points checked");
    }
}

#[test]
fn each_predicted_pole_matches_a_simulations_measured_frequency_and_decay() {
    let h = 1.0 / 8000.0;
    for scheme in SchemeKind::ALL {
        for (w, g) in [(0.3, 0.01), (1.0, 0.1), (0.6, 0.3), (1.4, 0.0)] {
            let model = oscillator(w / h, g / h, 1.0, 0.0);
            let report = analysis(&model, scheme, h);
            let pole = &report.modes[0].discrete;
            if pole.region() != Region::Complex && pole.region() != Region::Unstable {
                continue;
            }
            let growth = pole.modulus().ln().abs().max(1e-6);
            let steps = (300.0 / growth).clamp(400.0, 8000.0) as u64;
            let x = simulate(&model, scheme, h, steps, 0);
            let frequency = measure::zero_crossing_frequency(&x, 1.0 / h);
            let decay = measure::envelope_decay_rate(&x, 1.0 / h);
            assert!(
                close(frequency, pole.frequency_hz(), 2e-4),
                "{scheme} w0h={w} gh={g}: measured {frequency} Hz, predicted {}",
                pole.frequency_hz()
            );
            assert!(
                (decay - pole.decay_rate()).abs() <= 1e-6 * pole.decay_rate().abs() + 1e-6 / h * 1e-3,
                "{scheme} w0h={w} gh={g}: measured sigma_d {decay}, predicted {}",
                pole.decay_rate()
            );
        }
    }
}

// ---- the largest stable step -------------------------------------------------------------

#[test]
fn symplectic_euler_largest_step_is_the_corrected_eq_92() {
    // Corrected (docs/errata.md): h <= (-Z + sqrt(Z^2 + 4 k m)) / k, from eq. 54.
    for (m, k, z) in [(2.0f64, 5e5f64, 300.0f64), (1.0, 1e4, 0.0), (0.01, 3e6, 5.0)] {
        let expected = (-z + (z * z + 4.0 * k * m).sqrt()) / k;
        let h = symplectic_euler_largest_step(Oscillator { gamma: z / m, omega0_squared: k / m });
        assert!(close(h, expected, 1e-12), "{h} vs {expected}");
        // Eq. 54 holds with equality there.
        let (w0, gamma) = ((k / m).sqrt(), z / m);
        assert!(close(w0, (4.0 - 2.0 * gamma * h).sqrt() / h, 1e-12));
    }
    // Undamped: w0 h <= 2; without stiffness: gamma h <= 2.
    assert!(close(
        symplectic_euler_largest_step(Oscillator { gamma: 0.0, omega0_squared: 4e6 }),
        1e-3,
        1e-15
    ));
    assert!(close(
        symplectic_euler_largest_step(Oscillator { gamma: 500.0, omega0_squared: 0.0 }),
        4e-3,
        1e-15
    ));
}

/// A 3-mass 1D string with dampers on its springs (modal damping), unit masses.
fn damped_string() -> Model {
    string(3, 1.0, 4e6, 40.0)
}

#[test]
fn the_largest_stable_step_of_every_scheme_is_where_simulation_stops_being_stable() {
    let model = damped_string();
    let system = System::new(&model);
    let modes = ModelModes::new(&system, &AnalysisOptions::default()).unwrap();
    for scheme in SchemeKind::ALL {
        let step = modes.discretise(&system, scheme, 1e-4).unwrap().largest_stable_step;
        match step {
            StableStep::UpTo(h) => {
                let below = modes.discretise(&system, scheme, 0.999 * h).unwrap();
                assert!(below.is_stable(), "{scheme} at 0.999 h_max");
                let (_, whole) = run_amplitude(&model_with_push(&model), scheme, 0.999 * h, 20_000);
                assert!(whole < 1e-2, "{scheme}: bounded below h_max = {h}, simulated {whole} from 1e-3");
                let above = modes.discretise(&system, scheme, 1.01 * h).unwrap();
                assert!(!above.is_stable(), "{scheme} at 1.01 h_max");
                let radius = above.modes.iter().map(|m| m.discrete.modulus()).fold(0.0, f64::max);
                let steps = ((1e8f64).ln() / radius.ln()).ceil().clamp(100.0, 400_000.0) as u64;
                let growth = (steps as f64 * radius.ln()).exp();
                assert!(growth > 10.0, "{scheme}: |z| = {radius}");
                let (tail, _) = run_amplitude(&model_with_push(&model), scheme, 1.01 * h, steps);
                assert!(
                    tail > 1e-3 * growth.sqrt(),
                    "{scheme}: grows above h_max = {h} (|z| = {radius}, x{growth:.3e} predicted), simulated {tail} from 1e-3"
                );
            }
            StableStep::Unconditional { checked_up_to } => {
                let (_, whole) = run_amplitude(&model_with_push(&model), scheme, checked_up_to, 1000);
                assert!(whole < 1e-2, "{scheme}: bounded at {checked_up_to} s, simulated {whole} from 1e-3");
            }
            StableStep::Never => panic!("{scheme}: a damped string has stable steps"),
        }
        let expected_unconditional = matches!(
            scheme,
            SchemeKind::BackwardEuler
                | SchemeKind::EnergyConserving
                | SchemeKind::Midpoint
                | SchemeKind::Trapezoidal
                | SchemeKind::CaldirolaKanai
                | SchemeKind::EnergyConservingCs
                | SchemeKind::Exact
        );
        assert_eq!(
            matches!(step, StableStep::Unconditional { .. }),
            expected_unconditional,
            "{scheme}: {step:?}"
        );
    }
}

/// `model` with its first mass displaced by 1 mm.
fn model_with_push(model: &Model) -> Model {
    let mut pushed = model.clone();
    pushed.set_initial_position(0, &[1e-3]).unwrap();
    pushed
}

#[test]
fn forward_euler_has_no_stable_step_on_an_undamped_model_and_symplectic_euler_has_eq_54s() {
    let model = string(3, 1.0, 4e6, 0.0);
    let report = analysis(&model, SchemeKind::ForwardEuler, 1e-5);
    assert_eq!(report.largest_stable_step, StableStep::Never);
    assert_eq!(report.largest_stable_step.lowest_rate(), f64::INFINITY);
    assert!(!report.is_stable());
    // Symplectic Euler: w_max h <= 2 with w_max^2 = (k/m) 4 sin^2(3 pi / 8).
    let report = analysis(&model, SchemeKind::SymplecticEuler, 1e-5);
    let w_max = 2.0 * 2000.0 * (3.0 * PI / 8.0).sin();
    let StableStep::UpTo(h) = report.largest_stable_step else { panic!("{:?}", report.largest_stable_step) };
    assert!(close(h, 2.0 / w_max, 1e-12), "{h} vs {}", 2.0 / w_max);
    assert!(close(report.largest_stable_step.lowest_rate(), w_max / 2.0, 1e-12));
}

// ---- inverting the pole mapping, and design with every scheme ---------------------------

#[test]
fn inverting_each_schemes_pole_mapping_lands_on_the_target() {
    let h = 1.0 / 8000.0;
    let digital = digital_target(440.0, Some(0.5), h).unwrap();
    for scheme in SchemeKind::ALL {
        match invert_pole(scheme, digital, h) {
            Ok(oscillator) => {
                let z =
                    hooke::analysis::poles::dominant(oscillator_poles(scheme, &[oscillator], h).unwrap()[0]);
                let landed = z.ln() / h;
                assert!((landed - digital).norm() < 1e-9 * digital.norm(), "{scheme}: {landed} vs {digital}");
            }
            // Backward Euler damps a 440 Hz mode at 8 kHz by far more than 1/(0.5 s).
            Err(error) => assert_eq!(scheme, SchemeKind::BackwardEuler, "{scheme}: {error}"),
        }
    }
    // Symplectic Euler's closed form (Algorithm 2, corrected as in docs/errata.md) against the
    // generic Newton inverse applied to the measured one-step matrices: exact inverse warping,
    // undamped (Morgan & Qiao 2008, eq. (18), corrected: w_a = (2/h) sin(h w_d / 2)).
    let mu = inverse_warping(2.0 * PI * 440.0, 0.0, h).unwrap();
    assert!(close(mu, 2.0 / h * (PI * 440.0 * h).sin(), 1e-14));
    // Eq. 87 as printed, with tan^2, picks the same root by eq. 89.
    for (omega_d_h, gamma_h) in [(0.3, 0.1), (1.2, 0.4), (2.5, 0.05)] {
        let t = f64::tan(omega_d_h).powi(2);
        let (a, b, c) = (
            t + 1.0,
            2.0 * gamma_h - 4.0 + t * (2.0 * gamma_h - 4.0),
            gamma_h * gamma_h + t * (4.0 - 4.0 * gamma_h + gamma_h * gamma_h),
        );
        let root = if omega_d_h <= PI / 2.0 { -1.0 } else { 1.0 };
        let r = (-b + root * (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
        let expected = (r - (gamma_h / 2.0).powi(2)).sqrt();
        assert!(
            close(inverse_warping(omega_d_h, gamma_h, 1.0).unwrap(), expected, 1e-12),
            "{omega_d_h} {gamma_h}"
        );
    }
}

#[test]
fn strings_designed_for_each_scheme_measure_440_hz_and_one_second_in_that_scheme() {
    let rate = 6000.0;
    let target = TuneTarget { frequency_hz: 440.0, time_constant: Some(1.0) };
    for scheme in SchemeKind::ALL {
        let design = match design_string(5, 0.01, target, scheme, 1.0 / rate) {
            Ok(design) => design,
            Err(error) => {
                assert_eq!(scheme, SchemeKind::BackwardEuler, "{scheme}: {error}");
                continue;
            }
        };
        let mut first_mode = design.model.clone();
        for i in 0..5 {
            first_mode.set_initial_position(i, &[1e-3 * (PI * (i + 1) as f64 / 6.0).sin()]).unwrap();
        }
        let x = simulate(&first_mode, scheme, 1.0 / rate, 12_000, 0);
        let tau = -1.0 / measure::envelope_decay_rate(&x, rate);
        let (peak, _) = measure::spectral_peak(&x, rate, 300.0, 600.0);
        assert!((peak - 440.0).abs() < 1e-3, "{scheme}: FFT peak at {peak} Hz");
        assert!((tau - 1.0).abs() < 1e-3, "{scheme}: time constant {tau} s");
    }
}

// ---- linearisation, dense and sparse modes -----------------------------------------------

/// A 1 kg bob on a 1e4 N/m spring from `pivot` (rest length: the initial distance), under
/// gravity.
fn pendulum_at(pivot: [f64; 2], bob: [f64; 2]) -> Model {
    let mut model = Model::new(2).unwrap();
    model.set_gravity(&[0.0, -9.81]).unwrap();
    model.add_anchor(Anchor::new("pivot").position(pivot)).unwrap();
    model
        .add_mass(Mass {
            id: "bob".into(),
            mass: 1.0,
            position: bob.to_vec(),
            velocity: vec![0.0, 0.0],
            drag: 0.0,
        })
        .unwrap();
    model.add_spring(Spring::new("pivot", "bob", 1e4)).unwrap();
    model
}

/// The README's pendulum: a 1 m spring released from the horizontal.
fn pendulum() -> Model {
    pendulum_at([0.0, 1.0], [1.0, 1.0])
}

#[test]
fn a_pendulum_swings_at_sqrt_g_over_l_about_its_rest_state_and_not_about_its_initial_one() {
    let system = System::new(&pendulum());
    // About the initial state (horizontal, no tension): a free swing and the axial mode, two
    // modes for two coordinates (the swing's double pole at 0 has one eigenvector).
    let initial = ModelModes::new(&system, &AnalysisOptions::default()).unwrap();
    let poles: Vec<c64> = initial.modes().modes.iter().map(|m| m.pole).collect();
    assert_eq!(poles.len(), 2, "{poles:?}");
    assert!(initial.modes().modes[0].is_free() && !initial.modes().modes[1].is_free());
    assert!(close(poles[1].im, 100.0, 1e-12), "{poles:?}");
    // The spring is horizontal (along x): the swing is vertical (y).
    assert!(initial.modes().modes[0].shape[0].norm() < 1e-12, "{:?}", initial.modes().modes[0].shape);
    let report = initial.discretise(&system, SchemeKind::SymplecticEuler, 1e-3).unwrap();
    assert!(
        report.warnings.iter().any(|w| w.starts_with("mode 1 is a free motion")),
        "{:?}",
        report.warnings
    );
    // About the rest state: hanging, stretched by m g / k, tension m g, so w^2 = g / l.
    let options = AnalysisOptions { about: About::Rest, ..AnalysisOptions::default() };
    let rest = ModelModes::new(&system, &options).unwrap();
    let state = rest.linearisation().state();
    let length: f64 = 1.0 + 9.81 / 1e4;
    assert!((state.x[0]).abs() < 1e-12 && (state.x[1] - (1.0 - length)).abs() < 1e-12, "{:?}", state.x);
    let modes = &rest.modes().modes;
    assert!(close(modes[0].pole.im, (9.81 / length).sqrt(), 1e-9), "{:?}", modes[0].pole);
    assert!(close(modes[1].pole.im, 100.0, 1e-12), "{:?}", modes[1].pole);
    // The pendulum's shape is horizontal, the spring's vertical.
    assert!(modes[0].shape[1].norm() < 1e-9 && modes[1].shape[0].norm() < 1e-9);
    // The exact scheme, as every scheme, then plays the swing at its analog frequency.
    let report = rest.discretise(&system, SchemeKind::Exact, 1e-3).unwrap();
    assert!(close(report.modes[0].discrete.angular_frequency(), modes[0].pole.im, 1e-9));
}

#[test]
fn an_inverted_pendulum_rests_upright_and_its_unstable_mode_is_reported() {
    let model = pendulum_at([0.0, 0.0], [0.0, 1.0]);
    let options = AnalysisOptions { about: About::Rest, ..AnalysisOptions::default() };
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::Rk4] {
        let report = analyse(&System::new(&model), scheme, 1e-3, &options).unwrap();
        let unstable: Vec<_> = report.modes.iter().filter(|m| !m.mode.is_stable()).collect();
        assert_eq!(unstable.len(), 1, "{scheme}: {:?}", report.modes);
        // Compressed by m g: the negative stiffness -m g / l, so sigma = sqrt(g / l).
        let length: f64 = 1.0 - 9.81 / 1e4;
        assert!(close(unstable[0].mode.pole.re, (9.81 / length).sqrt(), 1e-9), "{:?}", unstable[0].mode.pole);
        assert!(!unstable[0].is_stable() && !unstable[0].is_numerically_unstable());
        assert!(report.worst_mode().is_none(), "{scheme}: the growth is physical, not the scheme's");
        assert!(
            report.warnings.iter().any(|w| w.contains("grows in the model itself")),
            "{:?}",
            report.warnings
        );
    }
}

#[test]
fn the_state_matrix_gives_the_modal_poles() {
    let design = table_1_design();
    let system = System::new(&design.model);
    let linearisation = Linearisation::new(&system, &About::Initial).unwrap();
    let general = state_matrix_modes(&linearisation).unwrap();
    let modal = ModelModes::new(&system, &AnalysisOptions::default()).unwrap();
    assert_eq!(general.len(), 5);
    for (a, b) in general.iter().zip(&modal.modes().modes) {
        assert!((a.pole - b.pole).norm() < 1e-9 * b.pole.norm(), "{} vs {}", a.pole, b.pole);
        // Same shapes (sin(n pi i / 6)), up to sign.
        for (p, q) in a.shape.iter().zip(&b.shape) {
            assert!((p - q).norm() < 1e-6, "{:?} vs {:?}", a.shape, b.shape);
        }
    }
    assert!(matches!(
        Linearisation::new(&system, &About::State(State { x: vec![0.0], v: vec![0.0], t: 0.0, step: 0 })),
        Err(hooke::analysis::error::AnalysisError::StateSize { expected: 7, found: 1 })
    ));
}

#[test]
fn a_large_string_takes_the_sparse_path_and_finds_its_lowest_and_highest_modes() {
    // 2500 masses: beyond the dense limit. Modes (Morgan & Qiao 2008, eq. (16)):
    // w_n = 2 w0 sin(n pi / (2 (N + 1))), with the dampers on the springs, gamma_n = (Z / k) w_n^2.
    let (n, k, z) = (2500, 1e8, 20.0);
    let model = string(n, 1.0, k, z);
    let report = analysis(&model, SchemeKind::SymplecticEuler, 1.0 / 44100.0);
    assert!(!report.complete);
    assert_eq!(report.damping, Damping::Modal);
    let analog = |index: usize| 2.0 * k.sqrt() * (index as f64 * PI / (2.0 * (n + 1) as f64)).sin();
    for (i, mode) in report.modes.iter().take(20).enumerate() {
        let w = analog(i + 1);
        assert!(
            close(mode.mode.oscillator.omega0_squared.sqrt(), w, 1e-9),
            "mode {}: {:?}",
            i + 1,
            mode.mode.oscillator
        );
        assert!(
            close(mode.mode.oscillator.gamma, z / k * w * w, 1e-6),
            "mode {}: {:?}",
            i + 1,
            mode.mode.oscillator
        );
    }
    let highest = report.modes.last().unwrap();
    assert!(
        close(highest.mode.oscillator.omega0_squared.sqrt(), analog(n), 1e-12),
        "{:?}",
        highest.mode.oscillator
    );
    // w_max h = 2 sqrt(k) / 44100 = 0.45: stable, and the largest step follows from the top mode.
    assert!(report.is_stable());
    let StableStep::UpTo(h) = report.largest_stable_step else { panic!() };
    let top = Oscillator { gamma: z / k * analog(n).powi(2), omega0_squared: analog(n).powi(2) };
    assert!(close(h, symplectic_euler_largest_step(top), 1e-12), "{h}");
}

// ---- non-modal damping: the whole one-step matrix ----------------------------------------

/// Three masses in a row between two anchors, a damper on one spring only and drag on the last
/// mass: the damping is not modal.
fn non_modal_chain() -> Model {
    let mut model = Model::new(1).unwrap();
    model.add_anchor(Anchor::new("left").position([0.0])).unwrap();
    for (id, mass, drag) in [("m1", 1.0, 0.0), ("m2", 1.5, 0.0), ("m3", 0.8, 5.0)] {
        model.add_mass(Mass { id: id.into(), mass, position: vec![0.0], velocity: vec![0.0], drag }).unwrap();
    }
    model.add_anchor(Anchor::new("right").position([0.0])).unwrap();
    for (a, b, stiffness, damping) in
        [("left", "m1", 3e5, 0.0), ("m1", "m2", 2e5, 6.0), ("m2", "m3", 4e5, 0.0), ("m3", "right", 1e5, 0.0)]
    {
        model
            .add_spring(Spring { id: None, a: a.into(), b: b.into(), stiffness, rest_length: None, damping })
            .unwrap();
    }
    model.set_initial_position(0, &[1e-3]).unwrap();
    model.set_initial_position(1, &[-0.5e-3]).unwrap();
    model.set_initial_position(2, &[0.8e-3]).unwrap();
    model
}

#[test]
fn non_modal_poles_match_each_schemes_simulation() {
    let model = non_modal_chain();
    for scheme in SchemeKind::ALL {
        // 4 kHz, or faster where a mode decays or grows too fast to resolve the spectrum.
        let mut rate = 4000.0;
        let (report, window) = loop {
            let report = analysis(&model, scheme, 1.0 / rate);
            let fastest = report.modes.iter().map(|m| m.discrete.decay_rate().abs()).fold(0.0, f64::max);
            let window = (3.0 / fastest).min(1.0);
            if window >= 0.3 {
                break (report, window);
            }
            rate *= 2.0;
        };
        assert_eq!(report.damping, Damping::NonModal);
        assert!(report.complete && report.modes.len() == 3);
        let samples = (window * rate) as usize;
        let x = simulate(&model, scheme, 1.0 / rate, 2 * samples as u64, 0);
        for mode in &report.modes {
            let f = mode.discrete.frequency_hz();
            let (peak, first) = measure::spectral_peak(&x[..samples], rate, 0.95 * f, 1.05 * f);
            let (_, second) = measure::spectral_peak(&x[samples..2 * samples], rate, 0.95 * f, 1.05 * f);
            let decay = (second / first).ln() / window;
            assert!(close(peak, f, 3e-5), "{scheme} mode {}: measured {peak} Hz, predicted {f}", mode.index);
            assert!(
                (decay - mode.discrete.decay_rate()).abs() < 3e-3 * mode.discrete.decay_rate().abs() + 5e-3,
                "{scheme} mode {}: measured sigma_d {decay}, predicted {}",
                mode.index,
                mode.discrete.decay_rate()
            );
        }
    }
}

// ---- tuning any model ---------------------------------------------------------------------

#[test]
fn tuning_a_non_modal_chain_puts_its_lowest_mode_on_target() {
    let model = non_modal_chain();
    let (rate, target) = (8000.0, TuneTarget { frequency_hz: 60.0, time_constant: Some(0.5) });
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::Rk4, SchemeKind::EnergyConserving] {
        let tuning = tune(&model, scheme, 1.0 / rate, target, &AnalysisOptions::default()).unwrap();
        let report = analysis(&tuning.model, scheme, 1.0 / rate);
        let lowest = &report.modes[0].discrete;
        assert!(close(lowest.frequency_hz(), 60.0, 1e-9), "{scheme}: {} Hz", lowest.frequency_hz());
        assert!(close(lowest.time_constant(), 0.5, 1e-9), "{scheme}: {} s", lowest.time_constant());
        assert!(close(tuning.lowest.discrete.frequency_hz(), 60.0, 1e-9));
        // The tuned model keeps its structure: only the coefficients changed, by two factors.
        for (a, b) in model.links().iter().zip(tuning.model.links()) {
            assert!(close(b.stiffness, a.stiffness * tuning.stiffness_scale, 1e-15));
            assert!(close(b.damping, a.damping * tuning.damping_scale, 1e-15) || a.damping == 0.0);
        }
        // And the simulation sounds at 60 Hz.
        let x = simulate(&tuning.model, scheme, 1.0 / rate, 16_000, 0);
        let (peak, _) = measure::spectral_peak(&x, rate, 50.0, 70.0);
        assert!((peak - 60.0).abs() < 2e-3, "{scheme}: FFT peak at {peak} Hz");
    }
}

#[test]
fn tuning_a_prestressed_2d_chain_follows_its_tension() {
    // Three masses on a line between anchors 4 m apart, springs of rest length 0.9 m (stretched
    // to 1 m): the transverse modes' frequencies come from the tension, which scales with k. The
    // dampers act along the links, so only the drag damps the transverse modes.
    let mut model = Model::new(2).unwrap();
    model.add_anchor(Anchor::new("left").position([0.0, 0.0])).unwrap();
    for i in 1..=3 {
        let id = format!("m{i}");
        model
            .add_mass(Mass {
                id,
                mass: 0.1,
                position: vec![i as f64, 0.0],
                velocity: vec![0.0, 0.0],
                drag: 0.3,
            })
            .unwrap();
    }
    model.add_anchor(Anchor::new("right").position([4.0, 0.0])).unwrap();
    for (a, b) in [("left", "m1"), ("m1", "m2"), ("m2", "m3"), ("m3", "right")] {
        model
            .add_spring(Spring {
                id: None,
                a: a.into(),
                b: b.into(),
                stiffness: 100.0,
                rest_length: Some(0.9),
                damping: 0.05,
            })
            .unwrap();
    }
    let target = TuneTarget { frequency_hz: 20.0, time_constant: Some(2.0) };
    let tuning = tune(&model, SchemeKind::VelocityVerlet, 1e-3, target, &AnalysisOptions::default()).unwrap();
    let report = analysis(&tuning.model, SchemeKind::VelocityVerlet, 1e-3);
    let lowest = report.modes.iter().find(|m| m.mode.pole.im > 0.0).unwrap();
    assert!(close(lowest.discrete.frequency_hz(), 20.0, 1e-9), "{}", lowest.discrete.frequency_hz());
    assert!(close(lowest.discrete.time_constant(), 2.0, 1e-9), "{}", lowest.discrete.time_constant());
    // The transverse fundamental: w^2 = (T / (m l)) 4 sin^2(pi / 8), T = k (1 - 0.9) (prestress).
    let tension = 100.0 * tuning.stiffness_scale * 0.1;
    let expected = tension / 0.1 * 4.0 * (PI / 8.0).sin().powi(2);
    assert!(close(lowest.mode.oscillator.omega0_squared, expected, 1e-9), "{:?}", lowest.mode.oscillator);
}

#[test]
fn free_motions_of_a_non_modal_2d_network_are_at_zero_not_unstable() {
    // Two masses on slack (rest-length) springs in a row: sideways they are free. A dashpot on one
    // spring and drag on one mass make the damping non-modal.
    let mut model = Model::new(2).unwrap();
    model.add_anchor(Anchor::new("left").position([0.0, 0.0])).unwrap();
    for (i, drag) in [(1, 0.0), (2, 2.0)] {
        let id = format!("m{i}");
        model
            .add_mass(Mass { id, mass: 1.0, position: vec![i as f64, 0.0], velocity: vec![0.0, 0.0], drag })
            .unwrap();
    }
    model.add_anchor(Anchor::new("right").position([3.0, 0.0])).unwrap();
    for (a, b, damping) in [("left", "m1", 0.0), ("m1", "m2", 3.0), ("m2", "right", 0.0)] {
        model
            .add_spring(Spring {
                id: None,
                a: a.into(),
                b: b.into(),
                stiffness: 1e4,
                rest_length: None,
                damping,
            })
            .unwrap();
    }
    let report = analysis(&model, SchemeKind::Rk4, 1e-3);
    assert_eq!(report.damping, Damping::NonModal);
    assert!(report.modes.iter().all(|m| m.mode.is_stable()), "{:?}", report.modes);
    // Sideways (y, coordinates 1 and 3), each mass is free: two free modes, one per direction,
    // whatever the eigensolver makes of m1's defective double pole at 0; m2's drag adds a real
    // pole at -2 1/s. Along x, two vibrating modes.
    let free: Vec<_> = report.modes.iter().filter(|m| m.mode.is_free()).collect();
    assert_eq!(free.len(), 2, "{:?}", report.modes);
    assert!(free.iter().all(|m| m.mode.shape[0].norm() + m.mode.shape[2].norm() < 1e-9), "{free:?}");
    assert_eq!(report.modes.len(), 5, "{:?}", report.modes);
    assert!(
        report.warnings.iter().all(|w| !w.contains("grows in the model itself")),
        "{:?}",
        report.warnings
    );
    assert!(report.is_stable(), "{:?}", report.modes);
}

#[test]
fn states_that_cannot_be_linearised_are_errors() {
    use hooke::analysis::error::AnalysisError;
    // A mass falling freely has no rest state.
    let mut falling = Model::new(1).unwrap();
    falling.set_gravity(&[-9.81]).unwrap();
    falling
        .add_mass(Mass { id: "m".into(), mass: 1.0, position: vec![0.0], velocity: vec![0.0], drag: 0.0 })
        .unwrap();
    let options = AnalysisOptions { about: About::Rest, ..AnalysisOptions::default() };
    let error = analyse(&System::new(&falling), SchemeKind::SymplecticEuler, 1e-3, &options).unwrap_err();
    assert!(matches!(error, AnalysisError::NoRestState { .. }), "{error}");
    // A geometric spring moved to zero length has no direction.
    let mut collapsed = pendulum();
    collapsed.set_initial_position(0, &[0.0, 1.0]).unwrap();
    let error =
        analyse(&System::new(&collapsed), SchemeKind::SymplecticEuler, 1e-3, &AnalysisOptions::default())
            .unwrap_err();
    assert!(error.to_string().contains("not finite at mass \"bob\""), "{error}");
    // A model without masses has no mode.
    let mut empty = Model::new(1).unwrap();
    empty.add_anchor(Anchor::new("a").position([0.0])).unwrap();
    let error =
        analyse(&System::new(&empty), SchemeKind::Rk4, 1e-3, &AnalysisOptions::default()).unwrap_err();
    assert_eq!(error, AnalysisError::NoMasses);
}
