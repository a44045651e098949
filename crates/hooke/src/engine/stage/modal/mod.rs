//! The modal path: any scheme on uniform strings (a guitar's, stiff or not) or on a uniform
//! membrane, on the [`ModalKernel`]. Each mode's step is the scheme's own, measured on one
//! oscillator by the analysis ([`mode_steps`]), so the path runs every scheme at the cost
//! of a four-coefficient recurrence per mode. It takes motion and held forces in place, and a
//! change of a link, a drag or a mass that leaves the system as it was; it gives a mass's free
//! force (for a hammer or a bow) without rebuilding the state. After any other change the
//! engine rebuilds it (or another path) from the state.

mod folding;

use super::strings::{centred_bending, string_paths};
use super::Stage;
use crate::engine::change::Change;
use crate::analysis::discrete::{mode_steps, Oscillator};
use crate::analysis::error::AnalysisError;
use crate::engine::decimate::Decimator;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::chain::{Tap, UniformChain};
use crate::kernel::grid::UniformGrid;
use crate::kernel::modal::{Bodies, ModalKernel, ModeStep, SineModes};
use crate::scheme::SchemeKind;
use crate::system::{State, System};
use folding::Folding;

/// Masses along a side at most: the sine tables take `8 side^2` bytes a side and a change of
/// state `O(W H (W + H))` operations, so longer strings and larger membranes run elsewhere.
const MAX_SIDE: usize = 2048;

/// A uniform string or membrane as the modal kernel sees it: its sides, its mass, the stiffness
/// and damping of its links along each side and its bending, SI units.
struct Lattice {
    columns: usize,
    rows: usize,
    /// Each mass, kg.
    mass: f64,
    /// Each link along x and along y, N/m.
    stiffness: [f64; 2],
    /// Each link's damper along x and along y, N s/m.
    damping: [f64; 2],
    /// Each mass's drag `gamma m`, N s/m.
    drag: f64,
    /// A string's bending `kappa` at every mass (a `(1, -2, 1)` element), N/m.
    bending: f64,
    /// The constant force on each mass (anchors off zero, gravity), N.
    constant: Vec<f64>,
}

impl Lattice {
    /// Mode `mode`'s oscillator: `w0^2 = (k_x mu_p + k_y mu_q + kappa mu_p^2) / m`,
    /// `gamma = (Z_x mu_p + Z_y mu_q + c) / m`, the bending being the square of the string's
    /// second difference.
    fn oscillator(&self, modes: &SineModes, mode: usize) -> Oscillator {
        let (mu_x, mu_y) = modes.eigenvalues(mode);
        let stiffness = self.stiffness[0] * mu_x + self.stiffness[1] * mu_y + self.bending * mu_x * mu_x;
        let damping = self.damping[0] * mu_x + self.damping[1] * mu_y + self.drag;
        Oscillator { gamma: damping / self.mass, omega0_squared: stiffness / self.mass }
    }

    /// The sides along which a link between masses `a` and `b` (an anchor: `None`) lies: x
    /// between neighbours in a row, y between rows, both (which must agree) for a membrane's
    /// rim link.
    fn sides(&self, a: Option<usize>, b: Option<usize>) -> &'static [usize] {
        match (a, b) {
            (Some(a), Some(b)) if a.abs_diff(b) == self.columns && self.rows > 1 => &[1],
            (Some(a), Some(b)) if a.abs_diff(b) == 1 => &[0],
            _ if self.rows == 1 => &[0],
            _ => &[0, 1],
        }
    }
}

/// The uniform strings or the uniform membrane a system is, side by side in the order of their
/// masses.
pub(crate) struct Lattices {
    parts: Vec<Lattice>,
    /// Each part's first mass, then the number of masses.
    first: Vec<usize>,
}

impl Lattices {
    /// The uniform membrane ([`UniformGrid::detect`]) or the uniform strings (see
    /// [`Lattices::strings`]) `system` is, if it is one, with at most [`MAX_SIDE`] masses a side.
    pub(crate) fn detect(system: &System) -> Option<Self> {
        let parts = match UniformGrid::detect(system) {
            Some(grid) => vec![Lattice {
                columns: grid.columns,
                rows: grid.rows,
                mass: grid.mass,
                stiffness: [grid.stiffness_x, grid.stiffness_y],
                damping: [grid.damping_x, grid.damping_y],
                drag: grid.drag,
                bending: 0.0,
                constant: vec![grid.force; grid.columns * grid.rows],
            }],
            None => Self::strings(system)?,
        };
        if parts.iter().any(|part| part.columns > MAX_SIDE || part.rows > MAX_SIDE) {
            return None;
        }
        let mut first = vec![0];
        for part in &parts {
            first.push(first[first.len() - 1] + part.columns * part.rows);
        }
        Some(Self { parts, first })
    }

    /// The strings of a 1D system made only of strings ([`string_paths`]), if each is uniform:
    /// its masses numbered in turn along it, equal masses, drags and gravity, equal spring links
    /// (rest length 0), a damper on every link or on none (all equal), and bending elements
    /// centred at every mass with one `kappa` or at none; no angular spring, contact or driving
    /// force. Held forces are allowed (the kernel holds them).
    fn strings(system: &System) -> Option<Vec<Lattice>> {
        let (springs, dampers) = (system.springs(), system.dampers());
        if system.dimension() != 1
            || system.has_contacts()
            || !system.angles().is_empty()
            || system.external_forces().drives()
            || springs.rest_length.iter().any(|&l| l != 0.0)
        {
            return None;
        }
        let paths = string_paths(system)?;
        let bending = centred_bending(system, &paths)?;
        let anchors = system.initial_state().x;
        let (mut links, mut damped, mut next) = (0, 0, 0);
        let mut parts = Vec::with_capacity(paths.len());
        for path in &paths {
            let masses = &path[1..path.len() - 1];
            let n = masses.len();
            if masses.iter().enumerate().any(|(i, &m)| m != next + i) {
                return None;
            }
            next += n;
            let link = |pair: &[usize]| {
                let spring = system.spring_between(pair[0], pair[1])?;
                let damper = system.damper_between(pair[0], pair[1]);
                Some((springs.coefficient[spring], damper.map(|d| dampers.coefficient[d])))
            };
            let first = link(&path[..2])?;
            for pair in path.windows(2) {
                if link(pair)? != first {
                    return None;
                }
            }
            links += n + 1;
            damped += if first.1.is_some() { n + 1 } else { 0 };
            let uniform = |values: &[f64]| match values {
                [] => Some(0.0),
                _ => masses.iter().all(|&m| values[m] == values[masses[0]]).then_some(values[masses[0]]),
            };
            let (stiffness, kappa) = (first.0, uniform(&bending)?);
            let ends = [anchors[path[0]], anchors[path[n + 1]]];
            parts.push(Lattice {
                columns: n,
                rows: 1,
                mass: uniform(system.masses())?,
                stiffness: [stiffness, 0.0],
                damping: [first.1.unwrap_or(0.0), 0.0],
                drag: uniform(system.drag())?,
                bending: kappa,
                constant: string_constant(n, uniform(system.gravity_force())?, stiffness, kappa, ends),
            });
        }
        (links == springs.len() && damped == dampers.len()).then_some(parts)
    }

    /// The part holding mass `mass` and the mass's index in it.
    fn locate(&self, mass: usize) -> Option<(&Lattice, usize)> {
        let part = self.first.partition_point(|&first| first <= mass).checked_sub(1)?;
        self.parts
            .get(part)
            .map(|lattice| (lattice, mass - self.first[part]))
            .filter(|_| part + 1 < self.first.len())
    }
}

/// A uniform chain's modes as the modal path runs them: `scheme`'s step `dt` (s) on each sine
/// mode (`SineModes::new(n, 1)`, mode `p` the oscillator [`Lattice::oscillator`] gives), and
/// each mode's share of the constant forces (N: gravity, and the end springs' pull towards
/// anchors off zero). For kernels outside the engine that step the same modes (the GPU's).
pub fn chain_mode_steps(
    chain: &UniformChain,
    scheme: SchemeKind,
    dt: f64,
) -> Result<(Vec<ModeStep>, Vec<f64>), AnalysisError> {
    let n = chain.masses;
    let lattice = Lattice {
        columns: n,
        rows: 1,
        mass: chain.mass,
        stiffness: [chain.stiffness, 0.0],
        damping: [chain.damping, 0.0],
        drag: chain.drag,
        bending: 0.0,
        constant: string_constant(n, chain.force, chain.stiffness, 0.0, [chain.left, chain.right]),
    };
    let modes = SineModes::new(n, 1);
    let oscillators: Vec<Oscillator> = (0..n).map(|p| lattice.oscillator(&modes, p)).collect();
    let steps = mode_steps(scheme, &oscillators, &vec![chain.mass; n], dt)?;
    let mut shares = vec![0.0; n];
    modes.transform(&lattice.constant, &mut shares);
    Ok((steps, shares))
}

/// The constant force on each of the `n` masses of a string (N): `gravity` on each, the end
/// springs' pull `k a` towards anchors at `ends = [a_0, a_1]` (m), and the bending's
/// `kappa L e`, `e` holding the anchors' positions at the ends (the curvature at the first mass
/// is `a_0 - 2 x_0 + x_1`, so the bending energy `kappa |e - L x|^2 / 2` has the force
/// `kappa L e - kappa L^2 x`).
fn string_constant(n: usize, gravity: f64, stiffness: f64, kappa: f64, ends: [f64; 2]) -> Vec<f64> {
    let mut e = vec![0.0; n];
    e[0] += ends[0];
    e[n - 1] += ends[1];
    (0..n)
        .map(|i| {
            let neighbours = if i > 0 { e[i - 1] } else { 0.0 } + e.get(i + 1).copied().unwrap_or(0.0);
            gravity + stiffness * e[i] + kappa * (2.0 * e[i] - neighbours)
        })
        .collect()
}

/// A scheme on uniform strings or a uniform membrane, mode by mode.
pub(crate) struct ModalStage {
    kernel: ModalKernel,
    lattices: Lattices,
    step: u64,
    dt: f64,
    /// The decimation folded into the kernel's outputs, when the run oversamples.
    folding: Option<Folding>,
}

impl ModalStage {
    /// The modal path for `system`, the uniform strings or membrane `lattices`, from `state`
    /// with `scheme` at step `dt` (s), if the scheme's step on its modes can be measured.
    pub(crate) fn new(
        lattices: Lattices,
        system: &System,
        scheme: SchemeKind,
        dt: f64,
        state: &State,
        pickups: &Pickups,
        oversample: usize,
    ) -> Option<Self> {
        let bodies =
            Bodies::new(lattices.parts.iter().map(|part| SineModes::new(part.columns, part.rows)).collect());
        let mut oscillators = Vec::with_capacity(bodies.len());
        let mut masses = Vec::with_capacity(bodies.len());
        for ((modes, range), part) in bodies.parts().zip(&lattices.parts) {
            oscillators.extend((0..range.len()).map(|j| part.oscillator(modes, j)));
            masses.resize(oscillators.len(), part.mass);
        }
        let steps = mode_steps(scheme, &oscillators, &masses, dt).ok()?;
        let n = bodies.len();
        let mut held = vec![0.0; n];
        for (target, &force) in held.iter_mut().zip(&system.external_forces().held) {
            *target = force;
        }
        let constant = lattices.parts.iter().flat_map(|part| part.constant.iter().copied()).collect();
        let mut outputs = vec![Vec::new(); pickups.channel_count()];
        for (channel, mass, quantity, weight) in pickups.taps() {
            outputs[channel].push(Tap { mass, quantity, weight });
        }
        let mut kernel = ModalKernel::new(bodies, &steps, constant, held, &state.x, &state.v, &outputs);
        let folding = (oversample > 1)
            .then(|| Folding::new(&mut kernel, oversample, outputs.len(), state.step))
            .flatten();
        Some(Self { kernel, lattices, step: state.step, dt, folding })
    }

    /// Whether the spring and damper joining nodes `a` and `b`, as set in `system`, are the
    /// lattice's.
    fn link_as_lattice(&self, system: &System, a: usize, b: usize) -> bool {
        let Some(spring) = system.spring_between(a, b) else { return false };
        let stiffness = system.springs().coefficient[spring];
        let damping = system.damper_between(a, b).map_or(0.0, |d| system.dampers().coefficient[d]);
        self.link_is(a, b, |lattice, side| {
            lattice.stiffness[side] == stiffness && lattice.damping[side] == damping
        })
    }

    /// Whether mass `mass`'s drag in `system` is its lattice's.
    fn drag_as_lattice(&self, system: &System, mass: usize) -> bool {
        let drag = system.drag().get(mass).copied().unwrap_or(0.0);
        self.lattices.locate(mass).is_some_and(|(lattice, _)| lattice.drag == drag)
    }

    /// Whether mass `mass` in `system` is its lattice's.
    fn mass_as_lattice(&self, system: &System, mass: usize) -> bool {
        self.lattices.locate(mass).is_some_and(|(lattice, _)| lattice.mass == system.masses()[mass])
    }

    /// Whether the link between nodes `a` and `b` (masses first, then anchors) is on a lattice
    /// and `holds(lattice, side)` along each of its sides.
    fn link_is(&self, a: usize, b: usize, holds: impl Fn(&Lattice, usize) -> bool) -> bool {
        let masses = self.lattices.first[self.lattices.first.len() - 1];
        let Some((lattice, start)) = self.lattices.locate(a.min(b)) else { return false };
        let local = |node: usize| (node < masses).then(|| node - (a.min(b) - start));
        lattice.sides(local(a), local(b)).iter().all(|&side| holds(lattice, side))
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

    /// Takes motions and held forces; a freed mass (none is stopped here); and a link, a drag
    /// or a mass left as the lattice has it (a performance setting every link again).
    fn take(&mut self, system: &System, change: &Change) -> bool {
        match *change {
            Change::Motion { coordinate, x, v } => {
                self.changed();
                self.kernel.set_motion(coordinate, x, v);
                true
            }
            Change::Force { coordinate, force } => {
                self.changed();
                self.kernel.set_force(coordinate, force);
                true
            }
            Change::Stop { stopped, .. } => !stopped,
            Change::Link { a, b } => self.link_as_lattice(system, a, b),
            Change::Drag { mass } => self.drag_as_lattice(system, mass),
            Change::Mass { mass } => self.mass_as_lattice(system, mass),
            Change::ModeDamping { .. } => false,
        }
    }

    fn free_force(&mut self, _system: &System, coordinate: usize) -> f64 {
        self.kernel.free_force(coordinate)
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        let done = self.kernel.advance(steps, record).map_or_else(|done| done, |()| steps);
        self.step += done as u64;
        Ok(done)
    }

    /// Folded ([`folding`]) where the run oversamples, no force acts and the filter's window
    /// has passed the last change; otherwise step by step through the decimator.
    fn advance_decimated(
        &mut self,
        system: &System,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> Result<usize, RunError> {
        self.advance_folding(system, steps, record, decimator, output)
    }

    /// Where no mass is stopped and every link, drag and mass of `system` is the lattice's.
    fn take_over(
        &mut self,
        system: &System,
        step: u64,
        motion: &dyn Fn(usize) -> (f64, f64),
        stopped: &[usize],
    ) -> bool {
        let masses = system.mass_count();
        let (springs, dampers) = (system.springs(), system.dampers());
        let springs_as_they_were = (0..springs.len()).all(|s| {
            self.link_is(springs.a[s] as usize, springs.b[s] as usize, |lattice, side| {
                lattice.stiffness[side] == springs.coefficient[s]
            })
        });
        let dampers_as_they_were = (0..dampers.len()).all(|d| {
            self.link_is(dampers.a[d] as usize, dampers.b[d] as usize, |lattice, side| {
                lattice.damping[side] == dampers.coefficient[d]
            })
        });
        if !stopped.is_empty()
            || !springs_as_they_were
            || !dampers_as_they_were
            || !(0..masses).all(|mass| self.drag_as_lattice(system, mass) && self.mass_as_lattice(system, mass))
        {
            return false;
        }
        self.step = step;
        self.kernel.set_state(motion);
        let held = &system.external_forces().held;
        for mass in 0..masses {
            self.kernel.set_force(mass, held.get(mass).copied().unwrap_or(0.0));
        }
        self.changed();
        true
    }

    /// Also forgets a look ahead: the path goes on from the state it shows.
    fn restore_history(&mut self, decimator: &mut Decimator) {
        self.restore_folded_history(decimator);
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        self.kernel.write_state(&mut state.x, &mut state.v);
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}
