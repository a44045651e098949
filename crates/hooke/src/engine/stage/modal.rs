//! The modal path: any scheme on uniform strings (a guitar's, stiff or not) or on a uniform
//! membrane, on the [`ModalKernel`]. Each mode's step is the scheme's own, measured on one
//! oscillator by the analysis ([`mode_steps`]), so the path runs every scheme at the cost
//! of a four-coefficient recurrence per mode. It takes motion and held forces in place, and a
//! change of a link, a drag or a mass that leaves the system as it was; it gives a mass's free
//! force (for a hammer or a bow) without rebuilding the state. After any other change the
//! engine rebuilds it (or another path) from the state.

use super::strings::{centred_bending, string_paths};
use super::{advance_and_filter, Stage};
use crate::analysis::discrete::{mode_steps, Oscillator};
use crate::analysis::error::AnalysisError;
use crate::engine::decimate::Decimator;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::chain::{Tap, UniformChain};
use crate::kernel::grid::UniformGrid;
use crate::kernel::modal::{Bodies, ModalKernel, ModeStep, SineModes};
use crate::scheme::SchemeKind;
use crate::system::{State, System};

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

    /// Whether a link of this lattice between its masses `a` and `b` (an anchor: `None`)
    /// with a spring of `stiffness` (N/m) and a damper of `damping` (N s/m, 0 for none) is as
    /// the lattice has it: along x between neighbours in a row, along y between rows, along
    /// both (which must agree) for a membrane's rim link.
    fn has_link(&self, a: Option<usize>, b: Option<usize>, stiffness: f64, damping: f64) -> bool {
        let along = |side: &usize| self.stiffness[*side] == stiffness && self.damping[*side] == damping;
        self.sides(a, b).iter().all(along)
    }

    /// The sides along which a link between masses `a` and `b` (an anchor: `None`) lies: x
    /// between neighbours in a row, y between rows, both for a membrane's rim link.
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

/// How the modal path makes an oversampled run's outputs itself (`kernel::modal::folding`):
/// once the filter's window has passed the last change, it steps `K` steps at once and reads
/// each output folded, the decimator only counting; after a change, until the window has
/// passed it, it steps one step at a time through the decimator.
struct Folding {
    /// `K`, the steps per output.
    factor: usize,
    /// `N`, the filter's length in steps.
    length: usize,
    /// The step of the last change (the path's start counts as one).
    changed_at: u64,
    /// Whether the decimator's history is behind the path (outputs made here since).
    stale: bool,
    /// The step of the state a look ahead keeps aside ([`ModalKernel::look_ahead`]), if any.
    ahead_to: Option<u64>,
    /// That state's output (one per channel).
    ahead_frame: Vec<f64>,
    /// The channels' last `N` inputs, channel by channel (scratch for the history).
    history: Vec<f64>,
    /// One output per channel (scratch).
    frame: Vec<f64>,
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
            .then(|| {
                let taps = Decimator::new(oversample, 0).taps().to_vec();
                kernel.fold(&taps, oversample).then(|| Folding {
                    factor: oversample,
                    length: taps.len(),
                    changed_at: state.step,
                    stale: false,
                    ahead_to: None,
                    ahead_frame: vec![0.0; outputs.len()],
                    history: vec![0.0; outputs.len() * taps.len()],
                    frame: vec![0.0; outputs.len()],
                })
            })
            .flatten();
        Some(Self { kernel, lattices, step: state.step, dt, folding })
    }

    /// Whether the link between nodes `a` and `b` (masses first, then anchors) is on a lattice
    /// and `holds(lattice, side)` along each of its sides.
    fn link_is(&self, a: u32, b: u32, holds: impl Fn(&Lattice, usize) -> bool) -> bool {
        let (a, b) = (a as usize, b as usize);
        let masses = self.lattices.first[self.lattices.first.len() - 1];
        let Some((lattice, start)) = self.lattices.locate(a.min(b)) else { return false };
        let local = |node: usize| (node < masses).then(|| node - (a.min(b) - start));
        lattice.sides(local(a), local(b)).iter().all(|&side| holds(lattice, side))
    }

    /// Notes a change at the current step: the folded outputs wait until the filter's window
    /// has passed it.
    fn changed(&mut self) {
        if let Some(folding) = &mut self.folding {
            folding.changed_at = self.step;
            folding.ahead_to = None;
        }
    }

    /// Fine steps with the outputs folded: `steps` steps, at most up to the next output, the
    /// decimator counting them, and the output made if they reach it. Returns the steps taken
    /// and whether they all were (none are on a non-finite value).
    fn fine_folded(
        &mut self,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        if self.kernel.advance(steps, &mut record[..folding.frame.len() * steps]).is_err() {
            return (0, false);
        }
        self.step += steps as u64;
        folding.stale = true;
        if steps == decimator.due_in() {
            decimator.skip(steps - 1);
            self.kernel.read_folded(&mut folding.frame);
            decimator.push_output(|channel| folding.frame[channel], output);
        } else {
            decimator.skip(steps);
        }
        (steps, true)
    }

    /// `frames` outputs, `K` steps at a time, from a step where an output is `K` steps away.
    /// Returns the steps taken and whether every frame was made.
    fn folded_frames(
        &mut self,
        frames: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        let record = &mut record[..folding.frame.len() * frames];
        let made = self.kernel.advance_folded(frames, record).map_or_else(|made| made, |()| frames);
        for frame in 0..made {
            decimator.push_output(|channel| record[channel * frames + frame], output);
        }
        self.step += (made * folding.factor) as u64;
        folding.stale = true;
        (made * folding.factor, made == frames)
    }

    /// `steps < K` steps from a step where an output is `K` steps away, the `K` steps taken at
    /// once and kept aside ([`ModalKernel::look_ahead`]) so that a run stopped here goes on as
    /// one that never stopped.
    fn look_ahead(&mut self, steps: usize, record: &mut [f64], decimator: &mut Decimator) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        let record = &mut record[..folding.frame.len() * steps];
        if self.kernel.look_ahead(steps, &mut folding.ahead_frame, record).is_err() {
            return (0, false);
        }
        decimator.skip(steps);
        folding.ahead_to = Some(self.step + folding.factor as u64);
        folding.stale = true;
        self.step += steps as u64;
        (steps, true)
    }

    /// Up to `steps` steps towards the state a look ahead kept for step `target`: there, the
    /// kept state and its output; short of it, fine steps.
    fn go_ahead(
        &mut self,
        target: u64,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> (usize, bool) {
        let Some(folding) = &mut self.folding else { return (0, false) };
        let gap = (target - self.step) as usize;
        if steps < gap {
            if self.kernel.advance(steps, &mut record[..folding.frame.len() * steps]).is_err() {
                return (0, false);
            }
            decimator.skip(steps);
            self.step += steps as u64;
            return (steps, true);
        }
        self.kernel.catch_up();
        decimator.skip(gap - 1);
        decimator.push_output(|channel| folding.ahead_frame[channel], output);
        folding.ahead_to = None;
        self.step = target;
        (gap, true)
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
        self.changed();
        self.kernel.set_motion(coordinate, x, v);
        true
    }

    /// Freeing a mass changes nothing (none is stopped here); stopping one needs another path.
    fn set_stopped(&mut self, _mass: usize, stopped: bool) -> bool {
        !stopped
    }

    /// Taken when the link is as the lattice has it (a performance setting every link again).
    fn set_link(&mut self, system: &System, a: usize, b: usize) -> bool {
        let (Some(spring), masses) = (system.spring_between(a, b), system.mass_count()) else { return false };
        let stiffness = system.springs().coefficient[spring];
        let damping = system.damper_between(a, b).map_or(0.0, |d| system.dampers().coefficient[d]);
        let Some((lattice, start)) = self.lattices.locate(a.min(b)) else { return false };
        let local = |node: usize| (node < masses).then(|| node - (a.min(b) - start));
        lattice.has_link(local(a), local(b), stiffness, damping)
    }

    /// Taken when the drag is the lattice's.
    fn set_drag(&mut self, system: &System, mass: usize) -> bool {
        let drag = system.drag().get(mass).copied().unwrap_or(0.0);
        self.lattices.locate(mass).is_some_and(|(lattice, _)| lattice.drag == drag)
    }

    /// Taken when the mass is the lattice's.
    fn set_mass(&mut self, system: &System, mass: usize) -> bool {
        self.lattices.locate(mass).is_some_and(|(lattice, _)| lattice.mass == system.masses()[mass])
    }

    fn set_force(&mut self, coordinate: usize, force: f64) -> bool {
        self.changed();
        self.kernel.set_force(coordinate, force);
        true
    }

    fn free_force(&mut self, _system: &System, coordinate: usize) -> f64 {
        self.kernel.free_force(coordinate)
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        let done = self.kernel.advance(steps, record).map_or_else(|done| done, |()| steps);
        self.step += done as u64;
        Ok(done)
    }

    /// Folded ([`Folding`]) where the run oversamples, no force acts and the filter's window
    /// has passed the last change; otherwise step by step through the decimator.
    fn advance_decimated(
        &mut self,
        system: &System,
        steps: usize,
        record: &mut [f64],
        decimator: &mut Decimator,
        output: &mut [Vec<f64>],
    ) -> Result<usize, RunError> {
        let mut done = 0;
        while done < steps {
            let remaining = steps - done;
            let folding =
                self.folding.as_ref().filter(|f| f.factor == decimator.factor() && !self.kernel.forced());
            let Some(folding) = folding else {
                self.restore_history(decimator);
                return Ok(done + advance_and_filter(self, system, remaining, record, decimator, output)?);
            };
            // The filter's window must have passed the last change and hold only inputs made
            // since the decimator started.
            let unsettled =
                (folding.changed_at + folding.length as u64 - 1).saturating_sub(self.step) as usize;
            let unsettled = unsettled.max(decimator.unfilled());
            let (factor, due) = (folding.factor, decimator.due_in());
            let (made, whole) = if unsettled > 0 {
                let fine = remaining.min(unsettled);
                let made = advance_and_filter(self, system, fine, record, decimator, output)?;
                (made, made == fine)
            } else if let Some(target) = folding.ahead_to {
                self.go_ahead(target, remaining, record, decimator, output)
            } else if due == factor && remaining >= factor {
                self.folded_frames(remaining / factor, record, decimator, output)
            } else if due == factor {
                self.look_ahead(remaining, record, decimator)
            } else {
                self.fine_folded(due.min(remaining), record, decimator, output)
            };
            done += made;
            if !whole {
                // A non-finite value: the steps before it are kept, the decimator's history
                // brought up to them, and the engine goes on on the general path.
                self.restore_history(decimator);
                return Ok(done);
            }
        }
        Ok(done)
    }

    /// Where no mass is stopped and every link, drag and mass of `system` is the lattice's.
    fn take_over(&mut self, system: &System, from: &dyn Stage, stopped: &[usize]) -> bool {
        let masses = system.mass_count();
        let (springs, dampers) = (system.springs(), system.dampers());
        let springs_as_they_were = (0..springs.len()).all(|s| {
            self.link_is(springs.a[s], springs.b[s], |lattice, side| {
                lattice.stiffness[side] == springs.coefficient[s]
            })
        });
        let dampers_as_they_were = (0..dampers.len()).all(|d| {
            self.link_is(dampers.a[d], dampers.b[d], |lattice, side| {
                lattice.damping[side] == dampers.coefficient[d]
            })
        });
        if !stopped.is_empty()
            || !springs_as_they_were
            || !dampers_as_they_were
            || !(0..masses).all(|mass| self.set_drag(system, mass) && self.set_mass(system, mass))
        {
            return false;
        }
        self.step = from.step();
        let held = &system.external_forces().held;
        for mass in 0..masses {
            let (x, v) = from.motion(mass);
            self.kernel.set_motion(mass, x, v);
            self.kernel.set_force(mass, held.get(mass).copied().unwrap_or(0.0));
        }
        self.changed();
        true
    }

    /// Also forgets a look ahead: the path goes on from the state it shows.
    fn restore_history(&mut self, decimator: &mut Decimator) {
        let Some(folding) = self.folding.as_mut().filter(|folding| folding.stale) else { return };
        folding.ahead_to = None;
        let length = folding.length;
        self.kernel.history(length, &mut folding.history);
        decimator.restore_history(|channel, age| folding.history[channel * length + age]);
        folding.stale = false;
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        self.kernel.write_state(&mut state.x, &mut state.v);
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}
