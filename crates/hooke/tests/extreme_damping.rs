//! Damping rates far beyond any step: Caldirola-Kanai and the `-cs` splittings apply the damping
//! as its exact flow (scheme/damping_flow.rs), which must either give the closed form (the
//! velocity decays by `exp(-gamma tau)`: to 0 here) or refuse the scheme with a message that
//! names the mass, the rate and the step; never hang. So must the engine and the analysis
//! (`hooke analyze`), which step these schemes. Each case runs on a thread with a deadline, so a
//! hang fails the test instead of stalling the suite.

use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::engine::{Engine, EngineConfig, EngineError, Pickups};
use hooke::model::{Anchor, Damper, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::sync::mpsc;
use std::time::Duration;

const SPLITTINGS: [SchemeKind; 3] =
    [SchemeKind::CaldirolaKanai, SchemeKind::EnergyConservingCs, SchemeKind::VelocityVerletCs];
/// The step, s (44.1 kHz).
const DT: f64 = 1.0 / 44_100.0;

/// Runs `work` on its own thread and fails if it takes more than 20 s.
fn within_deadline<T: Send + 'static>(what: String, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(work()));
    receiver.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("{what}: no answer in 20 s"))
}

/// One mass `m` (kg) moving at 1 m/s, in `dimension` dimensions, on a damper `z` (N s/m) to an
/// anchor, with drag `drag` (1/s).
fn one_mass(dimension: usize, m: f64, z: f64, drag: f64) -> Model {
    let mut model = Model::new(dimension).unwrap();
    let mut at = vec![0.0; dimension];
    let ground = model.add_anchor(Anchor::new("ground").position(at.clone())).unwrap();
    at[0] = 1.0;
    let mut velocity = vec![0.0; dimension];
    velocity[0] = 1.0;
    let mass = model.add_mass(Mass::new("m", m).position(at).velocity(velocity).drag(drag)).unwrap();
    if z > 0.0 {
        model.add_damper(Damper::new(ground, mass, z)).unwrap();
    }
    model
}

/// `steps` steps of `scheme` at `DT` through the engine; the final state's (x, v) of the mass
/// along the first axis, or the engine's refusal.
fn run(model: Model, scheme: SchemeKind, steps: u64) -> Result<(f64, f64), EngineError> {
    let config = EngineConfig::default().scheme(scheme).dt(DT);
    let mut engine = Engine::from_system(System::new(&model), Pickups::default(), config)?;
    engine.run(steps, &mut [], &mut []).unwrap();
    let state = engine.state();
    Ok((state.x[0], state.v[0]))
}

#[test]
fn a_huge_damping_rate_on_one_coordinate_stops_the_mass_as_the_closed_form_does() {
    // gamma = Z/m = 1e100 1/s, and a drag of 1e300 1/s: exp(-gamma tau) underflows to 0 at the
    // first flow, so v = 0 after every step, and the mass has moved at most v0 / gamma (the
    // closed form's whole travel, 1e-100 m and 1e-300 m) from x0 = 1 m.
    let cases =
        [("mass 1e-100 on a damper", 1e-100, 1.0, 0.0, 1e100), ("drag 1e300", 1.0, 0.0, 1e300, 1e300)];
    for (name, m, z, drag, gamma) in cases {
        for dimension in [1, 2] {
            for scheme in SPLITTINGS {
                if dimension == 2 && z > 0.0 {
                    continue; // a damper in 2D couples the coordinates: see the next test
                }
                let what = format!("{name}, {dimension}D, {scheme}");
                let model = one_mass(dimension, m, z, drag);
                let (x, v) = within_deadline(what.clone(), move || run(model, scheme, 100))
                    .unwrap_or_else(|e| panic!("{what}: refused: {e}"));
                assert_eq!(v, 0.0, "{what}");
                assert!((x - 1.0).abs() <= 1.0 / gamma, "{what}: x = {x}");
            }
        }
    }
}

#[test]
fn a_huge_rate_through_coupled_coordinates_is_refused_with_the_mass_the_rate_and_the_step() {
    // A 2D damper acts along its line (its damping matrix couples x and y), and a damper
    // between two masses couples them: there the flow is a series over sub-steps, 4e100 x 2.3e-5
    // / 0.5 of them for the light mass (its Gershgorin rate 2 Z dim / m = 4e100 1/s in 2D,
    // 2e100 1/s in 1D): refused, by the scheme and by the engine.
    let cases = [
        (one_mass(2, 1e-100, 1.0, 0.0), "m", "4e100 1/s"),
        (light_and_heavy(1e-100, 1.0, false), "light", "2e100 1/s"),
    ];
    for (model, mass, rate) in cases {
        for scheme in SPLITTINGS {
            let what = format!("mass \"{mass}\", {scheme}");
            let system = System::new(&model);
            let error = match scheme.build(&system, DT) {
                Ok(_) => panic!("{what}: built"),
                Err(error) => error.message,
            };
            for part in [format!("mass \"{mass}\""), rate.to_string(), format!("a step of {DT:e} s")] {
                assert!(error.contains(&part), "{what}: \"{part}\" missing from: {error}");
            }
            let model = model.clone();
            let refusal = within_deadline(what.clone(), move || run(model, scheme, 10));
            match refusal {
                Err(EngineError::Scheme(refused)) => assert_eq!(refused.message, error, "{what}"),
                other => panic!("{what}: the engine gave {other:?}"),
            }
        }
    }
}

/// A light mass of `light` kg joined by a damper of `z` N s/m to a heavy one (1 kg), in 1D;
/// with `springs`, each on a spring (1 N/m) to an anchor.
fn light_and_heavy(light: f64, z: f64, springs: bool) -> Model {
    let mut model = Model::new(1).unwrap();
    let ground = model.add_anchor(Anchor::new("ground")).unwrap();
    let light = model.add_mass(Mass::new("light", light).velocity([1.0])).unwrap();
    let heavy = model.add_mass(Mass::new("heavy", 1.0).position([1.0])).unwrap();
    model.add_damper(Damper::new(light, heavy, z)).unwrap();
    if springs {
        for mass in [light, heavy] {
            model.add_spring(Spring::new(ground, mass, 1.0)).unwrap();
        }
    }
    model
}

#[test]
fn the_analysis_of_huge_damping_rates_finishes() {
    // What `hooke analyze` computes (report::analyse): the modes mapped through each scheme,
    // and its largest stable step. With modal damping each mode is mapped as an oscillator of
    // its own (a damper to the ground, where the flow is exact): the damped modes go to
    // z = exp(-gamma h) = 0 and the free ones stay at z = 1, all stable. Springs of different
    // rates on the light and the heavy mass make the damping non-modal: the analysis steps the
    // network itself, and the scheme's refusal (a rate of 2e11 1/s between the masses) is the
    // answer, naming the mass.
    let models = [
        ("mass 1e-100 on a damper, 1D", one_mass(1, 1e-100, 1.0, 0.0), None),
        ("drag 1e300, 1D", one_mass(1, 1.0, 0.0, 1e300), None),
        ("drag 1e300, 2D", one_mass(2, 1.0, 0.0, 1e300), None),
        ("mass 1e-100 on a damper, 2D", one_mass(2, 1e-100, 1.0, 0.0), None),
        ("light and heavy masses", light_and_heavy(1e-100, 1.0, false), None),
        ("light and heavy masses on springs", light_and_heavy(1e-6, 1e5, true), Some("light")),
    ];
    for (name, model, refused) in models {
        for scheme in SPLITTINGS {
            let what = format!("{name}, {scheme}");
            let model = model.clone();
            let result = within_deadline(what.clone(), move || {
                analyse(&System::new(&model), scheme, DT, &AnalysisOptions::default())
            });
            match (result, refused) {
                (Ok(report), None) => assert!(report.is_stable(), "{what}: {report:?}"),
                (Err(error), Some(mass)) => {
                    let message = error.to_string();
                    for part in
                        [format!("mass \"{mass}\""), "2e11 1/s".to_string(), format!("a step of {DT:e} s")]
                    {
                        assert!(message.contains(&part), "{what}: \"{part}\" missing from: {message}");
                    }
                }
                (other, _) => panic!("{what}: {other:?}"),
            }
        }
    }
}
