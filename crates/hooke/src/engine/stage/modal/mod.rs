//! The modal path: any scheme on uniform strings (a guitar's, stiff or not) or on a uniform
//! membrane, on the [`ModalKernel`]. Each mode's step is the scheme's own, measured on one
//! oscillator by the analysis ([`mode_steps`]), so the path runs every scheme at the cost
//! of a four-coefficient recurrence per mode. It takes motion and held forces in place, a
//! change of a link or a drag that leaves each lattice uniform (a tension or damping set, a
//! damper on a whole string: [`retune`]), and a mass left as it was; it gives a mass's free
//! force (for a hammer or a bow) without rebuilding the state. After any other change the
//! engine rebuilds it (or another path) from the state.

mod folding;
mod retune;

use super::{Motions, Stage};
use crate::analysis::discrete::mode_steps;
use crate::analysis::structure::{Lattice, Lattices};
use crate::engine::change::Change;
use crate::engine::decimate::Decimator;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::chain::Tap;
use crate::kernel::modal::{Bodies, ModalKernel, SineModes};
use crate::scheme::SchemeKind;
use crate::system::{State, System};
use folding::Folding;
use retune::Found;

/// A scheme on uniform strings or a uniform membrane, mode by mode.
pub(crate) struct ModalStage {
    kernel: ModalKernel,
    lattices: Lattices,
    step: u64,
    dt: f64,
    /// The decimation folded into the kernel's outputs, when the run oversamples.
    folding: Option<Folding>,
    /// The scheme the modes step by.
    scheme: SchemeKind,
    /// The system's revision the lattices were last retuned for ([`ModalStage::retune`]).
    retuned_at: u64,
    /// The system's springs and dampers when built (a change that adds one is refused).
    links: [usize; 2],
    /// What the last retune found of each lattice (scratch, one per lattice).
    found: Vec<Found>,
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
        let links = [system.springs().len(), system.dampers().len()];
        let found = vec![Found::default(); lattices.parts.len()];
        let retuned_at = system.revision();
        Some(Self { kernel, lattices, step: state.step, dt, folding, scheme, retuned_at, links, found })
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
        self.link_sides(a, b)
            .is_some_and(|(part, sides)| sides.iter().all(|&side| holds(&self.lattices.parts[part], side)))
    }

    /// The lattice the link between nodes `a` and `b` (masses first, then anchors) is on, and
    /// its sides there, if it is on one.
    fn link_sides(&self, a: usize, b: usize) -> Option<(usize, &'static [usize])> {
        let masses = self.lattices.first[self.lattices.first.len() - 1];
        let part = self.lattices.part_of(a.min(b))?;
        let start = self.lattices.first[part];
        let local = |node: usize| (node < masses).then(|| node - start);
        Some((part, self.lattices.parts[part].sides(local(a), local(b))))
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

    /// Takes motions and held forces; a freed mass (none is stopped here); a link or a drag
    /// that leaves its lattice uniform ([`ModalStage::retune`]: in place, with symplectic
    /// Euler, unfolded); and a mass left as the lattice has it.
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
            Change::Link { a, b } => {
                self.retune(system);
                self.link_as_lattice(system, a, b)
            }
            Change::Drag { mass } => {
                self.retune(system);
                self.drag_as_lattice(system, mass)
            }
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

    /// Where no mass is stopped and every link, drag and mass of `system` is the lattice's
    /// (retuned first, where it can be).
    fn take_over(&mut self, system: &System, step: u64, motion: Motions, stopped: &[usize]) -> bool {
        self.retune(system);
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
            || !(0..masses)
                .all(|mass| self.drag_as_lattice(system, mass) && self.mass_as_lattice(system, mass))
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
