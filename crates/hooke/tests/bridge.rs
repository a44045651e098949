//! Strings that share a bridge: sympathetic resonance. A plucked string drives the bridge, and
//! the bridge drives the others: a string one octave below the plucked one (its second partial on
//! the plucked fundamental) rings, a string a tritone away stays nearly still. The tunings are
//! the lattice's closed-form modes, computed here. The sitar's sympathetic strings (its taraf) on
//! its body do the same.

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PickupSpec, StepSize};
use hooke::instrument::sitar::SitarSpec;
use hooke::instrument::{Instrument, InstrumentSpec, PartKind, StringPart};
use hooke::model::{Anchor, BodyMode, Mass, Model, Spring, StringSpec};
use hooke::scheme::SchemeKind;
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

/// The mean kinetic energy (J) of each string part of `instrument` over the last quarter of
/// `seconds`, after its part 0 is given `pulse` N for 1 ms at 0.3 of its length.
fn part_energies(instrument: &Instrument, pulse: f64, seconds: f64) -> Vec<f64> {
    let strings: Vec<&StringPart> = instrument
        .parts
        .iter()
        .map(|part| match &part.kind {
            PartKind::String(string) => string,
            other => panic!("a sitar's parts are strings, found {other:?}"),
        })
        .collect();
    let config = EngineConfig {
        scheme: instrument.scheme,
        step: StepSize::Dt(instrument.dt),
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(&instrument.model, &instrument.pickups, config).unwrap();
    let coordinate = strings[0].masses[strings[0].mass_at(0.3)];
    engine
        .apply(Event::Excite(Excitation::Pulse(Pulse { coordinate, peak: pulse, duration: 1e-3 })))
        .unwrap();
    let steps = (seconds / instrument.dt) as u64;
    let mut output = vec![Vec::new(); engine.channels()];
    let mut energies = vec![0.0; strings.len()];
    for step in 0..steps {
        engine.advance(1, &mut output).unwrap();
        output.iter_mut().for_each(Vec::clear);
        if step >= 3 * steps / 4 {
            let state = engine.state();
            for (energy, string) in energies.iter_mut().zip(&strings) {
                let kinetic: f64 =
                    string.masses.iter().map(|&m| 0.5 * string.mass * state.v[m].powi(2)).sum();
                *energy += kinetic / (steps / 4) as f64;
            }
        }
    }
    energies
}

#[test]
fn a_sitars_taraf_rings_in_sympathy_through_its_body() {
    // The played string at C#3; a sympathetic string an octave above (its fundamental is the
    // played string's second partial) and one a tritone above (G3, no partial within 5% of one of
    // C#3's below 1 kHz). Only the played string is plucked. Unlike the lossless strings above,
    // the taraf has the played string's decay and the pluck's attack reaches every string through
    // the light bridge, so the tritone keeps some of the attack: 10 dB is asked here (16.1 dB
    // measured), the 20 dB of resonance alone being the test above's.
    let spec = SitarSpec {
        body: Some(vec![BodyMode::new(95.0, 0.06, 0.3), BodyMode::new(180.0, 0.04, 0.45)]),
        sympathetic: vec!["C#4".to_string(), "G3".to_string()],
        barrier_position: -1.0,
        ..SitarSpec::default()
    };
    let (_, instrument) =
        InstrumentSpec::Sitar(spec).build_stable(SchemeKind::SymplecticEuler, 44_100.0, None).unwrap();
    assert_eq!(instrument.parts.len(), 3);
    let [played, octave, tritone] = part_energies(&instrument, 0.5, 1.0)[..] else { unreachable!() };
    let db = |x: f64| 10.0 * x.log10();
    eprintln!(
        "played {played:.3e} J, octave {octave:.3e} J ({:.1} dB), tritone {tritone:.3e} J ({:.1} dB)",
        db(octave / played),
        db(tritone / played)
    );
    assert!(
        octave > 1e-6 * played,
        "the octave rings: {:.1} dB under the played string",
        db(octave / played)
    );
    assert!(
        db(octave / tritone) >= 10.0,
        "the tritone is {:.1} dB under the octave, not 10",
        db(octave / tritone)
    );
    // Sympathetic strings need a body to reach.
    let alone = SitarSpec { sympathetic: vec!["C#4".to_string()], ..SitarSpec::default() };
    let error = InstrumentSpec::Sitar(alone).build(SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap_err();
    assert!(error.to_string().contains("a body to couple them to"), "{error}");
}
