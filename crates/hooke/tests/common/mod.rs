//! Helpers shared by the integration tests.
#![allow(dead_code)]

use hooke::engine::{Engine, EngineConfig, Observer, Pickups};
use hooke::model::{Anchor, Mass, Model, Spring};
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};

/// One mass (1 kg) on a spring-damper to an anchor at 0, in 1D: `x'' = -w0^2 x - gamma v`.
pub fn oscillator(omega0: f64, gamma: f64, x0: f64, v0: f64) -> Model {
    let mut model = Model::new(1).unwrap();
    let ground = model.add_anchor(Anchor::new("ground")).unwrap();
    let m = model.add_mass(Mass::new("m", 1.0).position([x0]).velocity([v0])).unwrap();
    model.add_spring(Spring::new(ground, m, omega0 * omega0).damping(gamma)).unwrap();
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
    let mut simulation = Engine::from_system(
        System::new(model),
        Pickups::default(),
        EngineConfig::default().scheme(scheme).dt(dt),
    )
    .unwrap();
    simulation.run(steps, &mut [], &mut [&mut log]).unwrap();
    log.0
}

/// The two roots of `z^2 + b z + c = 0` as (re, im) pairs; complex roots come as a conjugate
/// pair with the positive imaginary part first.
pub fn quadratic_roots(b: f64, c: f64) -> [(f64, f64); 2] {
    let discriminant = b * b - 4.0 * c;
    if discriminant < 0.0 {
        let im = (-discriminant).sqrt() / 2.0;
        [(-b / 2.0, im), (-b / 2.0, -im)]
    } else {
        let s = discriminant.sqrt();
        [((-b + s) / 2.0, 0.0), ((-b - s) / 2.0, 0.0)]
    }
}

/// `x_n` of the second-order recurrence whose characteristic roots are `roots`, through the
/// given `x_0`, `x_1`: for complex roots `|C| r^n cos(theta n + arg C)` with `C` fitted from
/// `x_0`, `x_1` (Morgan & Qiao 2009, eq. (71) as corrected in docs/errata.md), for real roots
/// `A z1^n + B z2^n`.
pub fn closed_form(roots: [(f64, f64); 2], x0: f64, x1: f64, n: usize) -> f64 {
    let [(re, im), (re2, _)] = roots;
    if im != 0.0 {
        let r = re.hypot(im);
        let theta = im.atan2(re);
        // x_n = Re(C z^n): Re C = x0, and x1 = Re C Re z - Im C Im z.
        let c_re = x0;
        let c_im = (x0 * re - x1) / im;
        c_re.hypot(c_im) * r.powi(n as i32) * (theta * n as f64 + c_im.atan2(c_re)).cos()
    } else {
        let a = (x1 - x0 * re2) / (re - re2);
        let b = x0 - a;
        a * re.powi(n as i32) + b * re2.powi(n as i32)
    }
}

/// A Standard MIDI File of format 0 with `division` (ticks per beat, or an SMPTE word) and
/// one track of `(delta ticks, event bytes)`.
pub fn smf(division: u16, events: &[(u32, &[u8])]) -> Vec<u8> {
    let mut track = Vec::new();
    for &(delta, event) in events.iter().chain([(0, &[0xff, 0x2f, 0x00][..])].iter()) {
        let mut groups = vec![(delta & 0x7f) as u8];
        let mut rest = delta >> 7;
        while rest > 0 {
            groups.push(0x80 | (rest & 0x7f) as u8);
            rest >>= 7;
        }
        track.extend(groups.iter().rev());
        track.extend_from_slice(event);
    }
    let mut bytes = b"MThd\0\0\0\x06\0\0\0\x01".to_vec();
    bytes.extend(division.to_be_bytes());
    bytes.extend(b"MTrk");
    bytes.extend((track.len() as u32).to_be_bytes());
    bytes.extend(track);
    bytes
}
