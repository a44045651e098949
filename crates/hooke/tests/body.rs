//! A body given by its modes at the bridge (`[[body]]`, `Model::add_body`): the chain it makes
//! has each mode's frequency and decay time (the eigenvalues of its state matrix, assembled here
//! from the model's masses and links) and each mode's effective mass at the bridge (the lossless
//! chain's driving-point receptance, here); a plucked string on it shows the body's resonances
//! in the bridge's spectrum; a guitar on it stays in tune and is heard by the net force on its
//! bridge; the energy-conserving scheme balances energy with a stiff string on
//! a body; bad bodies are refused with the place and the rule.

use crate::bending::energy_conserving_run;
use crate::instruments::{assert_output_follows_the_forces, pluck_score, render};
use crate::measure::spectral_peak;
use faer::{Mat, Side};
use hooke::engine::{Engine, EngineConfig, PickupSpec};
use hooke::format::model::parse;
use hooke::instrument::direct_pickups;
use hooke::instrument::guitar::{guitar, GuitarSpec};
use hooke::model::{BodyMode, BodySpec, Model, Node, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::score::performance::PerformanceOptions;
use std::f64::consts::PI;

/// A guitar-like body: four modes (Hz, 1/e decay time s, effective mass kg), Q from 31 to 37.
fn modes() -> Vec<BodyMode> {
    vec![
        BodyMode::new(98.0, 0.1, 0.3),
        BodyMode::new(204.0, 0.05, 0.5),
        BodyMode::new(390.0, 0.03, 0.8),
        BodyMode::new(560.0, 0.02, 1.2),
    ]
}

/// The mass, stiffness and damping matrices (drags on the diagonal) of a 1D model's masses,
/// assembled from its elements.
fn matrices(model: &Model) -> (Vec<f64>, Mat<f64>, Mat<f64>) {
    let n = model.masses().len();
    let masses: Vec<f64> = model.masses().iter().map(|m| m.mass).collect();
    let (mut stiffness, mut damping) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
    for link in model.links() {
        let ends = [link.a, link.b].map(|node| match node {
            Node::Mass(i) => Some(i),
            Node::Anchor(_) => None,
        });
        for (matrix, value) in [(&mut stiffness, link.stiffness), (&mut damping, link.damping)] {
            for (i, j) in [(ends[0], ends[1]), (ends[1], ends[0])] {
                if let Some(i) = i {
                    matrix[(i, i)] += value;
                    if let Some(j) = j {
                        matrix[(i, j)] -= value;
                    }
                }
            }
        }
    }
    for (i, mass) in model.masses().iter().enumerate() {
        damping[(i, i)] += mass.drag * mass.mass;
    }
    (masses, stiffness, damping)
}

#[test]
fn a_body_has_each_modes_frequency_decay_and_effective_mass_at_the_bridge() {
    let mut model = Model::new(1).unwrap();
    let nodes = model.add_body(BodySpec::new("body", modes())).unwrap();
    assert_eq!(nodes.len(), 4);
    assert_eq!(model.node("body.1"), Some(nodes[0]));
    let (masses, stiffness, damping) = matrices(&model);
    let n = masses.len();
    // Poles: the eigenvalues of [[0, I], [-M^-1 K, -M^-1 C]] in the upper half plane.
    let mut state = Mat::<f64>::zeros(2 * n, 2 * n);
    for i in 0..n {
        state[(i, n + i)] = 1.0;
        for j in 0..n {
            state[(n + i, j)] = -stiffness[(i, j)] / masses[i];
            state[(n + i, n + j)] = -damping[(i, j)] / masses[i];
        }
    }
    let eigen = state.eigen().unwrap();
    let mut poles: Vec<_> = (0..2 * n).map(|k| eigen.S()[k]).filter(|s| s.im > 0.0).collect();
    poles.sort_by(|a, b| a.im.total_cmp(&b.im));
    for (pole, mode) in poles.iter().zip(modes()) {
        let (frequency, decay_time) = (pole.im / (2.0 * PI), -1.0 / pole.re);
        eprintln!("mode {:.1} Hz: {frequency:.6} Hz, tau {decay_time:.6} s", mode.frequency);
        assert!((frequency / mode.frequency - 1.0).abs() < 1e-7, "{frequency} Hz for {}", mode.frequency);
        assert!(
            (decay_time / mode.decay_time - 1.0).abs() < 1e-7,
            "tau {decay_time} for {}",
            mode.decay_time
        );
    }
    // Lossless receptance at the bridge: x_1 / F = sum_k phi_k(1)^2 / (w_k^2 - w^2), with phi
    // the mass-normalised modes; each residue phi_k(1)^2 is 1 / m_k.
    let mut scaled = Mat::<f64>::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            scaled[(i, j)] = stiffness[(i, j)] / (masses[i] * masses[j]).sqrt();
        }
    }
    let eigen = scaled.self_adjoint_eigen(Side::Lower).unwrap();
    for (k, mode) in modes().iter().enumerate() {
        let residue = eigen.U()[(0, k)].powi(2) / masses[0];
        let effective = 1.0 / residue;
        eprintln!("mode {:.1} Hz: effective mass {effective:.9} kg", mode.frequency);
        assert!((effective / mode.mass - 1.0).abs() < 1e-7, "{effective} kg for {}", mode.mass);
    }
}

/// A string of 60 masses at 165 Hz ending on the body's bridge, plucked; the bridge's velocity
/// over two seconds at 44.1 kHz.
fn plucked_string_on_a_body(scheme: SchemeKind, steps: usize) -> (Model, Vec<f64>) {
    let mut model = Model::new(1).unwrap();
    model.add_body(BodySpec::new("body", modes())).unwrap();
    let (masses, mass) = (60, 1e-4);
    let stiffness = mass * (165.0 * 2.0 * 61.0f64).powi(2);
    let string =
        StringSpec::new("s", masses).mass(mass).stiffness(stiffness).drag(0.5).bending(2.0).to("body.1");
    model.add_string(string.pluck(0.2, 1e-3)).unwrap();
    let config = EngineConfig::default().scheme(scheme).rate(44_100.0);
    let mut engine = Engine::new(&model, &[PickupSpec::velocity("body.1")], config).unwrap();
    let mut output = vec![Vec::new()];
    engine.advance(steps as u64, &mut output).unwrap();
    (model, output.remove(0))
}

#[test]
fn a_string_plucked_on_a_body_shows_the_body_resonances_at_the_bridge() {
    let (_, bridge) = plucked_string_on_a_body(SchemeKind::SymplecticEuler, 88_200);
    // The body's resonances lie between the string's partials (165, 330, 495, 660 Hz, ...): each
    // mode rings at its own frequency in the bridge's motion, within 1% (its peak, biased a
    // little by its neighbours' skirts).
    for mode in modes() {
        let (found, _) = spectral_peak(&bridge, 44_100.0, 0.97 * mode.frequency, 1.03 * mode.frequency);
        eprintln!("body mode {:.1} Hz: bridge peak at {found:.2} Hz", mode.frequency);
        assert!((found / mode.frequency - 1.0).abs() < 0.01, "{found} Hz for {}", mode.frequency);
    }
}

#[test]
fn the_energy_conserving_scheme_balances_energy_with_a_body_to_round_off() {
    let mut model = Model::new(1).unwrap();
    model.add_body(BodySpec::new("body", modes())).unwrap();
    let string = StringSpec::new("s", 30).mass(1e-3).stiffness(2e3).damping(1e-3).drag(0.5).bending(40.0);
    model.add_string(string.to("body.1").pluck(0.3, 1e-3)).unwrap();
    let (drift, _, _) = energy_conserving_run(&model);
    assert!(drift < 1e-12, "K drifted by {drift:e}");
}

#[test]
fn a_body_in_a_model_file_is_built_and_bad_bodies_are_refused_with_the_place() {
    let file = |dimension: usize, modes: &str| {
        format!("[model]\ndimension = {dimension}\n[[body]]\nid = \"b\"\nmodes = [\n{modes}]\n")
    };
    let good = "  { frequency = 100.0, decay_time = 0.1, mass = 0.2 },\n  { frequency = 250.0, decay_time = 0.05, mass = 0.4 },\n";
    let parsed = parse(&file(1, good), "body.toml").unwrap();
    assert_eq!(parsed.model.masses().len(), 2);
    assert!(parsed.model.node("b.ground").is_some());
    let cases = [
        (file(2, good), "dimension", 3),
        (file(1, ""), "1 to 32 modes", 5),
        (file(1, "  { frequency = 100.0, decay_time = 0.001, mass = 0.2 },\n"), "mode 1", 5),
        (file(1, "  { frequency = 100.0, decay_time = 0.1, mass = 0.2 },\n  { frequency = 100.0, decay_time = 0.2, mass = 0.2 },\n"), "mode 2", 5),
        (file(1, "  { frequency = 100.0, decay_time = 0.1, mass = -1.0 },\n"), "`mass` a value > 0", 5),
        (file(1, "  { frequency = 100.0, decay = 0.1, mass = 1.0 },\n"), "decay", 6),
    ];
    for (text, needle, line) in cases {
        let error = parse(&text, "body.toml").unwrap_err();
        let message = error.to_string();
        eprintln!("{message}");
        assert!(message.contains(needle), "{message}");
        assert!(message.contains(&format!("body.toml:{line}:")), "{message}");
    }
}

/// The guitar on a body, heard by its bridge's acceleration: one open string plucked.
fn guitar_on_a_body_plucked(string: &str, seconds: f64) -> Vec<f64> {
    let spec = GuitarSpec { stereo: false, bridge: true, body: Some(modes()), ..GuitarSpec::default() };
    let instrument = guitar(&spec, SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap();
    let options = PerformanceOptions { oversample: 2, ..Default::default() };
    render(&instrument, &pluck_score(string, None, seconds), options).remove(0)
}

#[test]
fn a_guitar_on_a_body_rings_its_lowest_body_mode_and_stays_in_tune() {
    let rate = 44_100.0;
    let heard = guitar_on_a_body_plucked("A2", 0.3);
    // The body's lowest mode (98 Hz, decaying in 0.1 s) below the string's fundamental (110
    // Hz): a peak of its own in the first 0.3 s.
    let (_, strongest) = spectral_peak(&heard, rate, 20.0, 5000.0);
    let (body, level) = spectral_peak(&heard, rate, 94.0, 102.0);
    let db = 20.0 * (level / strongest).log10();
    eprintln!("body mode 98 Hz: peak at {body:.2} Hz, {db:.1} dB under the strongest peak");
    assert!((body / 98.0 - 1.0).abs() < 0.01, "{body} Hz");
    assert!(db > -40.0, "{db} dB");
    // Each open string's pitch, tuned on the body (designed for a fixed bridge, the A string
    // sounded +5.9 cents on this body).
    for (string, target) in [("E2", 82.407), ("A2", 110.0), ("G3", 195.998), ("E4", 329.628)] {
        let heard = guitar_on_a_body_plucked(string, 1.5);
        let (fundamental, _) = spectral_peak(&heard[22_050..], rate, 0.95 * target, 1.05 * target);
        let cents = 1200.0 * (fundamental / target).log2();
        eprintln!("{string} on the body: {fundamental:.4} Hz ({cents:+.2} cents)");
        assert!(cents.abs() < 1.0, "{string}: {cents} cents");
    }
}

#[test]
fn the_body_pickup_is_the_net_force_on_the_bridge_over_its_mass() {
    let dt = 1.0 / 88_200.0;
    let spec = GuitarSpec {
        bridge: true,
        stereo: false,
        high_decay: Some(vec![0.3; 6]),
        inharmonicity: Some(vec![1e-4, 6e-5, 4e-5, 8e-5, 3e-5, 1.5e-5]),
        body: Some(modes()),
        ..GuitarSpec::default()
    };
    let instrument = guitar(&spec, SchemeKind::SymplecticEuler, dt).unwrap();
    let index = instrument.model.node_index(instrument.model.node("body.1").unwrap());
    let mass = instrument.model.masses()[index].mass;
    // Every element's force on the bridge (strings' springs, dampers and bending, the body's
    // link and the bridge's drag), as the force module computes it, over the bridge's mass.
    assert_output_follows_the_forces(&instrument, dt, |force| force[index] / mass);
}

#[test]
fn extreme_bodies_are_built_or_refused_without_a_panic() {
    let extremes = [1e-300, 1e-12, 1e12, 1e300, f64::MAX];
    for &frequency in &extremes {
        for &decay_time in &extremes {
            for &mass in &extremes {
                let modes = vec![
                    BodyMode::new(frequency, decay_time, mass),
                    BodyMode::new(2.0 * frequency, decay_time, mass),
                ];
                let mut model = Model::new(1).unwrap();
                if let Ok(nodes) = model.add_body(BodySpec::new("b", modes)) {
                    let masses = &model.masses()[model.node_index(nodes[0])..];
                    assert!(
                        masses.iter().all(|m| m.mass.is_finite() && m.mass > 0.0),
                        "{frequency} {decay_time} {mass}"
                    );
                }
            }
        }
    }
}

#[test]
fn heard_directly_the_strings_on_a_body_ring_without_its_lowest_mode() {
    let rate = 44_100.0;
    let spec = GuitarSpec { stereo: false, bridge: true, body: Some(modes()), ..GuitarSpec::default() };
    let mut instrument = guitar(&spec, SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap();
    let bare = guitar(
        &GuitarSpec { stereo: false, ..GuitarSpec::default() },
        SchemeKind::SymplecticEuler,
        1.0 / 88_200.0,
    );
    assert!(direct_pickups(&bare.unwrap()).is_none(), "a guitar with no body has no direct pickups");
    let options = PerformanceOptions { oversample: 2, ..Default::default() };
    let body_mode_db = |heard: &[f64]| {
        let (_, strongest) = spectral_peak(heard, rate, 20.0, 5000.0);
        let (_, level) = spectral_peak(heard, rate, 94.0, 102.0);
        20.0 * (level / strongest).log10()
    };
    let bridge = body_mode_db(&render(&instrument, &pluck_score("A2", None, 0.3), options).remove(0));
    instrument.pickups = direct_pickups(&instrument).expect("a guitar on a body has direct pickups");
    assert!(instrument.pickups.iter().all(|pickup| pickup.channel == 1), "mono as the instrument");
    let direct = body_mode_db(&render(&instrument, &pluck_score("A2", None, 0.3), options).remove(0));
    eprintln!("the body's 98 Hz mode under the strongest peak: {bridge:.1} dB at the bridge, {direct:.1} dB on the strings");
    // The strings hear the body only through the bridge's motion, at the pickup a tenth of
    // its amplitude (the string's displacement near the bridge end): measured 8.8 dB further down.
    assert!(direct < bridge - 6.0, "bridge {bridge} dB, strings {direct} dB");
}
