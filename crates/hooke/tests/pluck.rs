//! A finger's or a plectrum's pluck (`Excitation::Pluck`): pulled aside over `pull` and let go
//! over `release`, each a half cosine. On a lossless uniform string each mode `j` is a forced
//! oscillator `q_j'' + w_j^2 q_j = F g(t) phi_j(i_0) / m` (orthonormal sine modes `phi_j`), so
//! once the pluck is over its amplitude is, by Duhamel's integral taken by parts,
//! `S_j |int g'(s) e^{i w_j s} ds|` with `S_j = F phi_j(i_0) / (m w_j^2)` the static deflection:
//! `|G(pull) - e^{i w pull} G(release)|` with `G(L) = e^{i w L / 2} cos(w L / 2) / (1 - (w L /
//! pi)^2)`, the transform of a half cosine's derivative of unit area over `L`. The simulated
//! modes are measured on the state, by projection, against this closed form.

use hooke::engine::excitation::{Excitation, Pluck};
use hooke::engine::{Engine, EngineConfig, Event, PickupSpec};
use hooke::model::{Anchor, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use std::f64::consts::PI;

const MASSES: usize = 49;
const MASS: f64 = 1e-3;
const STIFFNESS: f64 = 1e6;
const RATE: f64 = 192_000.0;
/// Where the pluck pulls: mass 10 of 49 (0-based 9), about a fifth of the length.
const PLUCKED: usize = 9;
const PEAK: f64 = 0.7;

/// A lossless string of [`MASSES`] masses between two anchors.
fn string() -> Model {
    let mut model = Model::new(1).unwrap();
    let nut = model.add_anchor(Anchor::new("nut")).unwrap();
    let masses: Vec<_> =
        (0..MASSES).map(|i| model.add_mass(Mass::new(format!("m{i}"), MASS)).unwrap()).collect();
    let bridge = model.add_anchor(Anchor::new("bridge")).unwrap();
    let nodes: Vec<_> = std::iter::once(nut).chain(masses).chain(std::iter::once(bridge)).collect();
    for pair in nodes.windows(2) {
        model.add_spring(Spring::new(pair[0], pair[1], STIFFNESS)).unwrap();
    }
    model
}

/// Mode `j`'s (1-based) shape at mass `i` (0-based), orthonormal.
fn shape(j: usize, i: usize) -> f64 {
    (2.0 / (MASSES + 1) as f64).sqrt() * (j as f64 * PI * (i + 1) as f64 / (MASSES + 1) as f64).sin()
}

/// Mode `j`'s angular frequency, rad/s.
fn omega(j: usize) -> f64 {
    let lambda = 4.0 * (j as f64 * PI / (2.0 * (MASSES + 1) as f64)).sin().powi(2);
    (STIFFNESS * lambda / MASS).sqrt()
}

/// `|int g'(s) e^{i w s} ds|` for the pull and release of `pluck` (see the module's text).
fn release_spectrum(pluck: &Pluck, w: f64) -> f64 {
    // G(L) as (re, im).
    let g = |length: f64| {
        let x = w * length / PI;
        let magnitude = (0.5 * w * length).cos() / (1.0 - x * x);
        let phase = 0.5 * w * length;
        (magnitude * phase.cos(), magnitude * phase.sin())
    };
    let (rise, fall) = (g(pluck.pull), g(pluck.release));
    let (c, s) = ((w * pluck.pull).cos(), (w * pluck.pull).sin());
    let fall = (c * fall.0 - s * fall.1, s * fall.0 + c * fall.1);
    (rise.0 - fall.0).hypot(rise.1 - fall.1)
}

/// Each mode's amplitude (m) after `pluck`, simulated with `scheme`, and its closed form.
fn modes_after(pluck: Pluck, scheme: SchemeKind, modes: usize) -> Vec<(f64, f64)> {
    let model = string();
    let pickups = [PickupSpec::position(format!("m{PLUCKED}"))];
    let config = EngineConfig::default().scheme(scheme).rate(RATE);
    let mut engine = Engine::new(&model, &pickups, config).unwrap();
    engine.apply(Event::Excite(Excitation::Pluck(pluck))).unwrap();
    let steps = ((pluck.pull + pluck.release) * RATE).ceil() as u64 + 50;
    let mut output = vec![Vec::new()];
    engine.advance(steps, &mut output).unwrap();
    let state = engine.state();
    (1..=modes)
        .map(|j| {
            let q: f64 = (0..MASSES).map(|i| state.x[i] * shape(j, i)).sum();
            let p: f64 = (0..MASSES).map(|i| state.v[i] * shape(j, i)).sum();
            let w = omega(j);
            let deflection = pluck.peak * shape(j, PLUCKED) / (MASS * w * w);
            (q.hypot(p / w), deflection.abs() * release_spectrum(&pluck, w))
        })
        .collect()
}

#[test]
fn a_plucked_strings_modes_ring_at_their_static_deflection_times_the_release_spectrum() {
    // A plectrum's quick release, then a finger's slow one, whose spectrum has a zero near
    // 1.5 kHz (w release / pi = 3): the modes there are nearly silent, as the closed form says.
    for (pull, release) in [(3e-3, 1e-4), (3e-3, 1e-3), (2e-2, 2e-4)] {
        let pluck = Pluck { coordinate: PLUCKED, peak: PEAK, pull, release };
        // The exact scheme, whose modes are the continuous oscillators (another scheme's amplitude
        // `sqrt(q^2 + (p / w)^2)` wobbles with its own invariant, by `w h / 2`).
        let modes = modes_after(pluck, SchemeKind::Exact, 20);
        let largest = modes.iter().fold(0.0f64, |m, (_, e)| m.max(*e));
        for (j, (simulated, expected)) in modes.iter().enumerate() {
            // The force is held through each step (its value at the step's start): a delay of
            // half a step.
            let error = (simulated - expected).abs() / largest;
            assert!(
                error < 2e-3,
                "pull {pull} s, release {release} s: mode {} at {:.0} Hz: {simulated:e} m, \
                 expected {expected:e} m ({error:e} of the largest)",
                j + 1,
                omega(j + 1) / (2.0 * PI)
            );
        }
    }
}
