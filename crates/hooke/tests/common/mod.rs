//! Helpers shared by the integration tests.
#![allow(dead_code)]

use hooke::model::{LinkSpec, Mass, Model};
use hooke::render::{Observer, Simulation};
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};

/// One mass (1 kg) on a spring-damper to an anchor at 0, in 1D: `x'' = -w0^2 x - gamma v`.
pub fn oscillator(omega0: f64, gamma: f64, x0: f64, v0: f64) -> Model {
    let mut model = Model::new(1).unwrap();
    model.add_anchor("ground", &[0.0]).unwrap();
    model
        .add_mass(Mass { id: "m".into(), mass: 1.0, position: vec![x0], velocity: vec![v0], drag: 0.0 })
        .unwrap();
    model
        .add_link(LinkSpec {
            id: None,
            a: "ground",
            b: "m",
            stiffness: omega0 * omega0,
            rest_length: None,
            damping: gamma,
        })
        .unwrap();
    model
}

/// Records every observed state.
#[derive(Default)]
pub struct StateLog(pub Vec<State>);

impl Observer for StateLog {
    fn observe(&mut self, _system: &System, state: &State) -> std::io::Result<()> {
        self.0.push(state.clone());
        Ok(())
    }
}

/// Runs `model` for `steps` steps and returns the first coordinate of mass 0 at every step.
pub fn positions(model: &Model, scheme: SchemeKind, dt: f64, steps: u64) -> Vec<f64> {
    struct FirstPosition(Vec<f64>);
    impl Observer for FirstPosition {
        fn observe(&mut self, _system: &System, state: &State) -> std::io::Result<()> {
            self.0.push(state.x[0]);
            Ok(())
        }
    }
    let mut log = FirstPosition(Vec::with_capacity(steps as usize + 1));
    let mut simulation = Simulation::new(System::new(model), scheme, dt);
    simulation.run(steps, &mut [&mut log], &mut |_| {}).unwrap();
    log.0
}
