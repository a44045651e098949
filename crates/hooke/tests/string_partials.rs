//! A string designed for two decay times decays by the two-point loss law at every partial below
//! 5 kHz, measured on the simulation: the state is projected on the string's sine modes every
//! step (the exact modes of a uniform chain, computed here, not by the library), each partial's
//! energy is fitted by a straight line in log scale, and its frequency is counted from the zero
//! crossings of its modal coordinate. The law is `sigma(f) = sigma_0 + sigma_1 xi(f)` through the
//! two given time constants, computed here from the targets, with `xi(f) = f^2` on a string
//! without stiffness and `xi(f_n) = (n f_0)^2` on a stiff one (Bilbao 2009, section 7.1.3).

use hooke::analysis::design::StringDesign;
use hooke::analysis::string_partials::{design_string_partials, LossLaw, PartialsTarget};
use hooke::engine::{Engine, EngineConfig, PickupSpec};
use hooke::scheme::SchemeKind;
use std::f64::consts::PI;

const MASSES: usize = 80;
const RATE: f64 = 96_000.0;
const FUNDAMENTAL: f64 = 110.0;
const TAU_LOW: f64 = 3.0;
const HIGH: f64 = 3000.0;
const TAU_HIGH: f64 = 0.3;
const SECONDS: f64 = 0.4;

/// Each partial's measured (frequency, decay rate) over `seconds` of the plucked `design`: short
/// enough that no measured partial decays into the rounding of the others (about 1e-30 of the
/// starting energy).
fn measured_partials(design: &StringDesign, scheme: SchemeKind, seconds: f64) -> Vec<(f64, f64)> {
    let masses = design.model.masses().len();
    let mut model = design.model.clone();
    // Displacing the first mass excites every mode (sin(j pi / (N + 1)) is never 0).
    model.set_initial_position(0, &[1e-3]).unwrap();
    let config = EngineConfig::default().scheme(scheme).rate(RATE);
    let mut engine = Engine::new(&model, &[PickupSpec::position("s.1")], config).unwrap();
    let modes: Vec<Vec<f64>> = (1..=masses)
        .map(|j| (1..=masses).map(|i| (PI * (i * j) as f64 / (masses + 1) as f64).sin()).collect())
        .collect();
    let lambda = |j: usize| 4.0 * (0.5 * PI * j as f64 / (masses + 1) as f64).sin().powi(2);
    let steps = (seconds * RATE) as usize;
    let mut log_energy = vec![Vec::new(); masses];
    let mut crossings = vec![Vec::new(); masses];
    let mut previous = vec![0.0; masses];
    let mut output = vec![Vec::new()];
    for step in 0..steps {
        engine.advance(1, &mut output).unwrap();
        output[0].clear();
        let state = engine.state();
        for (j, mode) in modes.iter().enumerate() {
            let a: f64 = mode.iter().zip(&state.x).map(|(s, x)| s * x).sum();
            let b: f64 = mode.iter().zip(&state.v).map(|(s, v)| s * v).sum();
            // K = k L + kappa L^2: mode j's stiffness is k lambda_j + kappa lambda_j^2.
            let l = lambda(j + 1);
            let energy =
                0.5 * ((design.stiffness * l + design.bending * l * l) * a * a + design.mass * b * b);
            log_energy[j].push(energy.ln());
            if step > 0 && (previous[j] < 0.0) != (a < 0.0) {
                crossings[j].push(step as f64 - a / (a - previous[j]));
            }
            previous[j] = a;
        }
    }
    (0..masses)
        .map(|j| {
            let crossed = &crossings[j];
            let frequency =
                0.5 * (crossed.len() - 1) as f64 / ((crossed[crossed.len() - 1] - crossed[0]) / RATE);
            (frequency, -0.5 * slope(&log_energy[j], 1.0 / RATE))
        })
        .collect()
}

/// The least-squares slope of `values` sampled every `dt` s.
fn slope(values: &[f64], dt: f64) -> f64 {
    let n = values.len() as f64;
    let mean_t = 0.5 * (n - 1.0) * dt;
    let mean_y = values.iter().sum::<f64>() / n;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let t = i as f64 * dt - mean_t;
        covariance += t * (y - mean_y);
        variance += t * t;
    }
    covariance / variance
}

/// Designs a string of `masses` masses for f_0 = 110 Hz, `inharmonicity` and the two time
/// constants on each scheme, and checks every partial below 5 kHz against the law: `xi(f)` is
/// the squared frequency of the harmonic partial of the same index, `(n f_0)^2` where
/// `f = n f_0 sqrt(1 + B n^2)`, so `n^2 = (sqrt(1 + 4 B (f / f_0)^2) - 1) / (2 B)`.
fn every_partial_below_5_khz_follows_the_law(
    masses: usize,
    inharmonicity: f64,
    schemes: &[SchemeKind],
    below_5_khz: f64,
    above: std::ops::RangeInclusive<f64>,
) {
    let xi = |f: f64| match inharmonicity {
        0.0 => f * f,
        b => {
            FUNDAMENTAL * FUNDAMENTAL * ((1.0 + 4.0 * b * (f / FUNDAMENTAL).powi(2)).sqrt() - 1.0) / (2.0 * b)
        }
    };
    let sigma_1 = (1.0 / TAU_HIGH - 1.0 / TAU_LOW) / (xi(HIGH) - xi(FUNDAMENTAL));
    let expected = |f: f64| 1.0 / TAU_LOW + sigma_1 * (xi(f) - xi(FUNDAMENTAL));
    let law = LossLaw::through(FUNDAMENTAL, TAU_LOW, HIGH, TAU_HIGH).unwrap();
    for &scheme in schemes {
        let target = PartialsTarget { fundamental_hz: FUNDAMENTAL, inharmonicity, loss: Some(law) };
        let design = design_string_partials(masses, 1e-4, &target, scheme, 1.0 / RATE).unwrap();
        assert!(design.drag > 0.0 && design.damping > 0.0, "{scheme}: both losses are used");
        assert_eq!(design.bending > 0.0, inharmonicity > 0.0, "{scheme}: bending {}", design.bending);
        let partials = measured_partials(&design, scheme, SECONDS);
        let below: Vec<&(f64, f64)> = partials.iter().filter(|(f, _)| *f < 5000.0).collect();
        assert!(below.len() >= 40, "{scheme}: {} partials below 5 kHz", below.len());
        let first = FUNDAMENTAL * (1.0 + inharmonicity).sqrt();
        assert!((partials[0].0 / first - 1.0).abs() < 1e-3, "{scheme}: fundamental {}", partials[0].0);
        let worst = below.iter().map(|(f, rate)| (rate / expected(*f) - 1.0).abs()).fold(0.0, f64::max);
        eprintln!(
            "B = {inharmonicity:e}, N = {masses}, {scheme}: {} partials below 5 kHz, worst decay error {:.3}%",
            below.len(),
            100.0 * worst
        );
        // Above 5 kHz (docs/analysis.md quotes these bounds): the lattice's wavenumbers fall
        // behind the continuous string's, most on a stiff string, whose top partials then decay
        // slower than the law.
        for &(frequency, rate) in partials.iter().filter(|(f, _)| *f >= 5000.0) {
            let error = rate / expected(frequency) - 1.0;
            assert!(
                above.contains(&error),
                "B = {inharmonicity:e}, {scheme}: the partial at {frequency:.1} Hz decays at {rate:.4} 1/s, the \
                 law says {:.4} ({:+.2}%, outside {:+.0}% to {:+.0}%)",
                expected(frequency),
                100.0 * error,
                100.0 * above.start(),
                100.0 * above.end()
            );
        }
        for (j, &&(frequency, rate)) in below.iter().enumerate() {
            let error = rate / expected(frequency) - 1.0;
            assert!(
                error.abs() < below_5_khz,
                "B = {inharmonicity:e}, {scheme}: partial {} at {frequency:.1} Hz decays at {rate:.4} 1/s, the law \
                 says {:.4} ({:+.2}%)",
                j + 1,
                expected(frequency),
                100.0 * error
            );
        }
    }
}

#[test]
fn every_partial_below_5_khz_decays_by_the_two_point_law() {
    let schemes = [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::CaldirolaKanai];
    every_partial_below_5_khz_follows_the_law(MASSES, 0.0, &schemes, 0.012, -0.02..=0.02);
}

#[test]
fn a_stiff_strings_partials_below_5_khz_decay_by_the_law_of_its_wavenumbers() {
    // B = 1e-4 stretches partial 41 (near 5 kHz) by 8%, so a law in f^2 would miss it by
    // more than 5%. The lattice's wavenumbers fall behind the continuous string's towards the
    // top: measured, within 3.2% below 5 kHz on 160 masses, and the top partials (16-18 kHz)
    // 14% (symplectic Euler, velocity Verlet) to 23% (energy-conserving) slower than the law.
    let schemes = [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::EnergyConserving];
    every_partial_below_5_khz_follows_the_law(160, 1e-4, &schemes, 0.035, -0.25..=0.0);
}

#[test]
fn dampers_alone_miss_the_law_at_the_high_partial() {
    // The library's one-time-constant design (dampers only) decays much faster at 3 kHz than a
    // string with 0.3 s there: what the two-point design is for. With dampers alone mode j's
    // rate is Z lambda_j / 2m = (omega_j / omega_1)^2 / tau_0 (the modes' closed form), about
    // 248 1/s at 3 kHz.
    let target =
        hooke::analysis::design::TuneTarget { frequency_hz: FUNDAMENTAL, time_constant: Some(TAU_LOW) };
    let design =
        hooke::analysis::design::design_string(MASSES, 1e-4, target, SchemeKind::SymplecticEuler, 1.0 / RATE)
            .unwrap();
    // 50 ms: the 3 kHz partial falls by e^-17 in energy, well above the rounding floor.
    let partials = measured_partials(&design, SchemeKind::SymplecticEuler, 0.05);
    let near_high = partials.iter().min_by(|a, b| (a.0 - HIGH).abs().total_cmp(&(b.0 - HIGH).abs())).unwrap();
    assert!((near_high.0 - HIGH).abs() < 0.05 * HIGH, "the partial nearest 3 kHz: {near_high:?}");
    assert!(near_high.1 > 5.0 / TAU_HIGH, "dampers alone: {near_high:?}");
    let closed_form = (near_high.0 / FUNDAMENTAL).powi(2) / TAU_LOW;
    assert!(
        (near_high.1 / closed_form - 1.0).abs() < 0.05,
        "dampers alone: {near_high:?}, closed form {closed_form}"
    );
}

/// The three points of a law with a term linear in frequency (1/Q constant): time constants
/// (s) at 110 Hz, 600 Hz and 3 kHz.
const THREE_POINTS: [(f64, f64); 3] = [(FUNDAMENTAL, 2.0), (600.0, 1.0), (HIGH, 0.25)];

/// `sigma(f) = sigma_0 + sigma_f f + sigma_1 xi(f)` through [`THREE_POINTS`], solved here by
/// Gaussian elimination: each partial's decay rate, 1/s.
fn three_point_law(xi: impl Fn(f64) -> f64) -> impl Fn(f64) -> f64 {
    let mut rows: Vec<[f64; 4]> = THREE_POINTS.iter().map(|&(f, tau)| [1.0, f, xi(f), 1.0 / tau]).collect();
    for p in 0..3 {
        let pivot = rows[p];
        for row in &mut rows[p + 1..] {
            let factor = row[p] / pivot[p];
            for (entry, above) in row.iter_mut().zip(pivot).skip(p) {
                *entry -= factor * above;
            }
        }
    }
    let mut terms = [0.0; 3];
    for p in (0..3).rev() {
        terms[p] = (rows[p][3] - (p + 1..3).map(|c| rows[p][c] * terms[c]).sum::<f64>()) / rows[p][p];
    }
    assert!(terms.iter().all(|&t| t > 0.0), "the test's law has a term <= 0: {terms:?}");
    move |f: f64| terms[0] + terms[1] * f + terms[2] * xi(f)
}

/// A three-point law is designed mode by mode (a mode damping, no dampers or drag), so every
/// partial, to the top of the string, decays as the law says at its simulated frequency, which
/// the two-point law's dampers and drag could not: measured on the simulation.
#[test]
fn every_partial_decays_by_the_three_point_law() {
    for (masses, b) in [(MASSES, 0.0), (160, 1e-4)] {
        let xi = move |f: f64| match b {
            0.0 => f * f,
            b => {
                FUNDAMENTAL * FUNDAMENTAL * ((1.0 + 4.0 * b * (f / FUNDAMENTAL).powi(2)).sqrt() - 1.0)
                    / (2.0 * b)
            }
        };
        let expected = three_point_law(xi);
        let law = LossLaw::through_three(THREE_POINTS[0], THREE_POINTS[1], THREE_POINTS[2]).unwrap();
        for scheme in
            [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::EnergyConservingCs]
        {
            let target = PartialsTarget { fundamental_hz: FUNDAMENTAL, inharmonicity: b, loss: Some(law) };
            let design = design_string_partials(masses, 1e-4, &target, scheme, 1.0 / RATE).unwrap();
            assert_eq!((design.drag, design.damping, design.mode_damping.len()), (0.0, 0.0, masses));
            let partials = measured_partials(&design, scheme, SECONDS);
            let mut worst = (0.0f64, 0.0);
            for &(frequency, rate) in &partials {
                let error = rate / expected(frequency) - 1.0;
                if error.abs() > worst.0.abs() {
                    worst = (error, frequency);
                }
            }
            eprintln!(
                "B = {b:e}, N = {masses}, {scheme}: worst decay error {:+.4}% at {:.0} Hz",
                100.0 * worst.0,
                worst.1
            );
            assert!(
                worst.0.abs() < 5e-4,
                "B = {b:e}, {scheme}: {:+.3}% at {:.1} Hz",
                100.0 * worst.0,
                worst.1
            );
        }
    }
}

#[test]
fn a_three_point_law_is_refused_where_a_term_would_be_negative() {
    // Falling faster from 110 to 600 Hz than from 600 Hz to 3 kHz needs a negative f^2 term.
    let error = LossLaw::through_three((110.0, 2.0), (600.0, 0.35), (3000.0, 0.3)).unwrap_err().to_string();
    assert!(error.contains("three terms are >= 0") && error.contains("600 Hz"), "{error}");
    assert!(LossLaw::through_three((110.0, 2.0), (60.0, 1.0), (3000.0, 0.3)).is_err());
}
