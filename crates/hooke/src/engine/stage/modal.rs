//! The modal path: any scheme on a uniform membrane in f64, any but symplectic Euler (which has
//! its stencil) on a uniform chain, on the [`ModalKernel`]. Each mode's step is the scheme's
//! own, measured on one oscillator by the analysis ([`oscillator_steps`]), so the path runs
//! every scheme at the cost of a four-coefficient recurrence per mode. It takes motion and held forces in place
//! and gives a mass's free force (for a hammer or a bow) without rebuilding the state;
//! after any other change the engine rebuilds it (or the general path) from the state.

use super::{Stage, TapChannels};
use crate::analysis::discrete::{oscillator_steps, Oscillator};
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::chain::UniformChain;
use crate::kernel::grid::UniformGrid;
use crate::kernel::modal::{ModalKernel, ModeStep, SineModes};
use crate::scheme::SchemeKind;
use crate::system::{State, System};

/// Masses along a side at most: the sine tables take `8 side^2` bytes a side and a change of
/// state `O(W H (W + H))` operations, so longer chains and larger membranes run elsewhere.
const MAX_SIDE: usize = 2048;

/// A uniform chain or membrane as the modal kernel sees it: its sides, its mass and the
/// stiffness and damping of its links along each side, SI units.
pub(crate) struct Lattice {
    columns: usize,
    rows: usize,
    mass: f64,
    stiffness: [f64; 2],
    damping: [f64; 2],
    drag: f64,
    /// The constant force on each mass (anchors off zero, gravity), N.
    constant: Vec<f64>,
}

impl Lattice {
    /// The uniform chain or membrane `system` is, if it is one (see [`UniformChain::detect`]
    /// and [`UniformGrid::detect`]) with at most [`MAX_SIDE`] masses a side.
    pub(crate) fn detect(system: &System) -> Option<Self> {
        Self::detect_any_size(system).filter(|l| l.columns <= MAX_SIDE && l.rows <= MAX_SIDE)
    }

    /// Whether it is a membrane (more than one row).
    pub(crate) fn is_membrane(&self) -> bool {
        self.rows > 1
    }

    fn detect_any_size(system: &System) -> Option<Self> {
        if let Some(chain) = UniformChain::detect(system) {
            let n = chain.masses;
            let mut constant = vec![chain.force; n];
            // A spring of rest length 0 to an anchor at `a` pulls its mass with `k a - k x`.
            constant[0] += chain.stiffness * chain.left;
            constant[n - 1] += chain.stiffness * chain.right;
            return Some(Self {
                columns: n,
                rows: 1,
                mass: chain.mass,
                stiffness: [chain.stiffness, 0.0],
                damping: [chain.damping, 0.0],
                drag: chain.drag,
                constant,
            });
        }
        let grid = UniformGrid::detect(system)?;
        Some(Self {
            columns: grid.columns,
            rows: grid.rows,
            mass: grid.mass,
            stiffness: [grid.stiffness_x, grid.stiffness_y],
            damping: [grid.damping_x, grid.damping_y],
            drag: grid.drag,
            constant: vec![grid.force; grid.columns * grid.rows],
        })
    }

    /// Mode `mode`'s oscillator: `w0^2 = (k_x mu_p + k_y mu_q) / m`,
    /// `gamma = (Z_x mu_p + Z_y mu_q + c) / m`.
    fn oscillator(&self, modes: &SineModes, mode: usize) -> Oscillator {
        let (mu_x, mu_y) = modes.eigenvalues(mode);
        let stiffness = self.stiffness[0] * mu_x + self.stiffness[1] * mu_y;
        let damping = self.damping[0] * mu_x + self.damping[1] * mu_y + self.drag;
        Oscillator { gamma: damping / self.mass, omega0_squared: stiffness / self.mass }
    }
}

/// A scheme on a uniform chain or membrane, mode by mode.
pub(crate) struct ModalStage {
    kernel: ModalKernel,
    taps: TapChannels,
    step: u64,
    dt: f64,
}

impl ModalStage {
    /// The modal path for `system`, the uniform chain or membrane `lattice`, from `state` with
    /// `scheme` at step `dt` (s), if the scheme's step on its modes can be measured.
    pub(crate) fn new(
        lattice: Lattice,
        system: &System,
        scheme: SchemeKind,
        dt: f64,
        state: &State,
        pickups: &Pickups,
    ) -> Option<Self> {
        let modes = SineModes::new(lattice.columns, lattice.rows);
        let oscillators: Vec<Oscillator> = (0..modes.len()).map(|j| lattice.oscillator(&modes, j)).collect();
        let measured = oscillator_steps(scheme, &oscillators, dt).ok()?;
        let (h, m) = (dt, lattice.mass);
        // From units of the step (acting on `(q, h q')`, a force of `h^2 F / m`) to SI.
        let per_newton = |f: [f64; 2]| [f[0] * h * h / m, f[1] * h / m];
        let steps: Vec<ModeStep> = measured
            .iter()
            .zip(&oscillators)
            .map(|(s, oscillator)| ModeStep {
                matrix: [[s.matrix[0][0], s.matrix[0][1] * h], [s.matrix[1][0] / h, s.matrix[1][1]]],
                constant_force: per_newton(s.constant_force),
                held_force: per_newton(s.held_force),
                stiffness: m * oscillator.omega0_squared,
                damping: m * oscillator.gamma,
            })
            .collect();
        let n = modes.len();
        let mut held = vec![0.0; n];
        for (target, &force) in held.iter_mut().zip(&system.external_forces().held) {
            *target = force;
        }
        let taps = TapChannels::new(pickups);
        let kernel = ModalKernel::new(modes, &steps, lattice.constant, held, &state.x, &state.v, taps.taps());
        Some(Self { kernel, taps, step: state.step, dt })
    }
}

impl Stage for ModalStage {
    fn kind(&self) -> PathKind {
        PathKind::Modal
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        self.kernel.motion(coordinate)
    }

    fn set_motion(&mut self, coordinate: usize, x: f64, v: f64) -> bool {
        self.kernel.set_motion(coordinate, x, v);
        true
    }

    fn set_force(&mut self, coordinate: usize, force: f64) -> bool {
        self.kernel.set_force(coordinate, force);
        true
    }

    fn free_force(&mut self, _system: &System, coordinate: usize) -> f64 {
        self.kernel.free_force(coordinate)
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        let (_, tap_record) = self.taps.rows(steps);
        let done = self.kernel.advance(steps, tap_record).map_or_else(|done| done, |()| steps);
        self.taps.mix(steps, done, record);
        self.step += done as u64;
        Ok(done)
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        self.kernel.write_state(&mut state.x, &mut state.v);
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}
