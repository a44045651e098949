//! Strings that share a bridge: sympathetic resonance. A plucked string drives the bridge, and
//! the bridge drives the others: a string one octave below the plucked one (its second partial on
//! the plucked fundamental) rings, a string a tritone away stays nearly still. The tunings are
//! the lattice's closed-form modes, computed here.

use hooke::engine::{Engine, EngineConfig, PickupSpec};
use hooke::model::{Anchor, Mass, Model, Spring, StringSpec};
use std::f64::consts::PI;

const MASSES: usize = 40;
const MASS: f64 = 1e-4;
const RATE: f64 = 44_100.0;

/// The spring stiffness (N/m) whose lattice mode `mode` sounds at `hz` on a fixed-fixed string of
/// [`MASSES`] masses of [`MASS`]: `w = 2 sqrt(k / m) sin(mode pi / (2 (N + 1)))`.
fn stiffness_for(hz: f64, mode: usize) -> f64 {
    let s = (mode as f64 * PI / (2 * (MASSES + 1)) as f64).sin();
    MASS * (PI * hz / s).powi(2)
}

/// Three strings from their nut anchors to one bridge mass (0.2 kg) on a damped spring to the
/// ground (a body resonance at 100 Hz): `a` plucked at 220 Hz, `b` with its second mode on 220 Hz (an
/// octave below), `c` a tritone below `a`. `b` and `c` start at rest and have no loss.
fn three_strings_on_a_bridge() -> Model {
    let mut model = Model::new(1).unwrap();
    let ground = model.add_anchor(Anchor::new("ground")).unwrap();
    let bridge = model.add_mass(Mass::new("bridge", 0.2)).unwrap();
    let body = 0.2 * (2.0 * PI * 100.0f64).powi(2);
    model.add_spring(Spring::new(ground, bridge, body).damping(0.5)).unwrap();
    let tunings = [
        ("a", stiffness_for(220.0, 1)),
        ("b", stiffness_for(220.0, 2)),
        ("c", stiffness_for(220.0 / 2f64.sqrt(), 1)),
    ];
    for (id, stiffness) in tunings {
        let mut string = StringSpec::new(id, MASSES).mass(MASS).stiffness(stiffness).to("bridge");
        if id == "a" {
            string = string.pluck(0.3, 1e-3);
        }
        model.add_string(string).unwrap();
    }
    model
}

/// The mean kinetic energy (J) of each string's masses over the last quarter of one second.
fn string_energies(model: &Model) -> Vec<f64> {
    let config = EngineConfig::default().rate(RATE);
    let mut engine = Engine::new(model, &[PickupSpec::position("a.3")], config).unwrap();
    let mut output = vec![Vec::new()];
    let steps = RATE as u64;
    let mut energies = vec![0.0; 3];
    for step in 0..steps {
        engine.advance(1, &mut output).unwrap();
        if step >= 3 * steps / 4 {
            let state = engine.state();
            for (s, id) in ["a", "b", "c"].iter().enumerate() {
                let kinetic: f64 = (1..=MASSES)
                    .map(|i| {
                        let node = model.node(&format!("{id}.{i}")).unwrap();
                        0.5 * MASS * state.v[model.node_index(node)].powi(2)
                    })
                    .sum();
                energies[s] += kinetic / (steps / 4) as f64;
            }
        }
    }
    energies
}

#[test]
fn a_string_an_octave_below_rings_in_sympathy_and_one_a_tritone_away_does_not() {
    let model = three_strings_on_a_bridge();
    let [a, b, c] = string_energies(&model)[..] else { unreachable!() };
    let db = |x: f64| 10.0 * x.log10();
    eprintln!(
        "plucked {a:.3e} J, octave below {b:.3e} J ({:.1} dB), tritone {c:.3e} J ({:.1} dB)",
        db(b / a),
        db(c / a)
    );
    assert!(b > 1e-6 * a, "the octave below rings: {:.1} dB under the plucked string", db(b / a));
    assert!(db(b / c) >= 20.0, "the tritone string is {:.1} dB under the octave, not 20", db(b / c));
    // Without the shared bridge (each string on its own anchor) nothing reaches the others.
    let mut apart = Model::new(1).unwrap();
    for id in ["a", "b"] {
        let string = StringSpec::new(id, MASSES).mass(MASS).stiffness(stiffness_for(220.0, 1));
        apart.add_string(if id == "a" { string.pluck(0.3, 1e-3) } else { string }).unwrap();
    }
    let mut engine =
        Engine::new(&apart, &[PickupSpec::position("b.3")], EngineConfig::default().rate(RATE)).unwrap();
    let mut output = vec![Vec::new()];
    engine.advance(4410, &mut output).unwrap();
    assert!(output[0].iter().all(|&x| x == 0.0), "strings on their own anchors do not couple");
}
