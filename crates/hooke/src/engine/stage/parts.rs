//! The coupled modal path: symplectic Euler on a linear network split into parts, each in its
//! own modes, and a few masses stepped directly ([`crate::analysis::parts`]), on the
//! [`CoupledKernel`]: a guitar's or a piano's strings on their bridge and body, fretted or
//! open; bars; plates. It takes every change in place: motion and held forces at once; a drag
//! the same on every mass of a part (a damper on a string, a piano's pedal) at the next block,
//! as a rate added to the part's modes, with no analysis and no allocation; and a stop, a
//! link, another drag or a mass at the next block, when it splits the network as changed again
//! (each piece's modes found once and kept, so a fret pressed again costs no analysis). Pieces
//! prepared before play ([`regions`]: a string fretted anywhere) are swapped in place instead,
//! with no analysis and no allocation.

mod coupling;
mod regions;
mod retune;

use super::Stage;
use crate::analysis::parts::{split, Network, PartModes, Split};
use crate::engine::change::Change;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::coupled::CoupledKernel;
use crate::system::{State, System};
use coupling::{couple, fill_row, taps, touched_masses};
use regions::Region;
use std::collections::HashMap;
use std::sync::Arc;

/// The most pieces whose modes are kept (a cache that grows past it starts again).
const MAX_KEPT: usize = 4096;

/// Where a mass is on the path.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// Mass `local` of part `part`.
    Part(usize, usize),
    /// Direct coordinate `d`.
    Direct(usize),
    /// Stopped at this position, m.
    Stopped(f64),
}

/// The modes of every piece met so far, by [`Network::key`] (`None`: the piece has none).
type Kept = HashMap<Vec<u64>, Option<Arc<PartModes>>>;

/// Symplectic Euler on a split linear network.
pub(crate) struct PartsStage {
    kernel: CoupledKernel,
    split: Split,
    network: Network,
    place: Vec<Place>,
    /// Each mass's source index in the kernel (its direct or touched coordinate), `usize::MAX`
    /// where it is neither.
    source: Vec<usize>,
    /// Each mass's constant force `F_0` (anchors, gravity, stopped masses), N.
    constant: Vec<f64>,
    /// Each mass's held force, N.
    held: Vec<f64>,
    /// The stopped masses and where.
    stopped: Vec<(usize, f64)>,
    kept: Kept,
    /// The pieces prepared to be swapped in place, and each mass's (`usize::MAX`: none).
    regions: Vec<Region>,
    region_of: Vec<usize>,
    /// Room for the positions and velocities of a region's masses (m, m/s).
    scratch: Vec<f64>,
    /// Every coordinate at 0 (m), and room for the forces there (N): a retune's forces at rest.
    at_rest: [Vec<f64>; 2],
    pickups: Pickups,
    dt: f64,
    step: u64,
    /// The system's revision the split was made for.
    built_for: u64,
    /// Whether a stop outside every region changed since.
    restopped: bool,
    /// Each mass's drag coefficient as built and as the damping rows have it now, N s/m.
    drag_built: Vec<f64>,
    drag_now: Vec<f64>,
    /// The parts whose masses' drag changed since the last block (room for every part).
    redragged: Vec<usize>,
    /// Whether a drag changed on a direct mass, or on no mass of the network, since the last
    /// block.
    redragged_direct: bool,
    drag_outside: bool,
    /// Whether a link or a mode damping outside every region, or a mass, changed since the
    /// last block.
    relinked: bool,
}

/// The room a part swapped in place needs in the kernel: modes, touched coordinates, and
/// entries in each touched coordinate's row.
#[derive(Debug, Clone, Copy, Default)]
struct Room {
    modes: usize,
    touched: usize,
    row: usize,
    /// Whether the part may swap to other modes, whose touched masses differ (a region of
    /// more than one variant): a pickup on it is then heard through its modes.
    swaps: bool,
}

impl PartsStage {
    /// The path for `system` from `state` with step `dt` (s), the masses `stopped` stopped
    /// where they are, if the system is a linear network that splits ([`split`]).
    pub(crate) fn new(
        system: &System,
        dt: f64,
        state: &State,
        pickups: &Pickups,
        stopped: &[usize],
    ) -> Option<Self> {
        let stopped = stopped.iter().map(|&m| (m, state.x[m])).collect();
        Self::build(system, dt, state, pickups, stopped, (Kept::new(), Vec::new()))
    }

    fn build(
        system: &System,
        dt: f64,
        state: &State,
        pickups: &Pickups,
        mut stopped: Vec<(usize, f64)>,
        (mut kept, mut regions): (Kept, Vec<Region>),
    ) -> Option<Self> {
        let network = Network::new(system)?;
        let n = network.mass.len();
        let mut place = vec![Place::Direct(0); n];
        for &(mass, x) in &stopped {
            place[mass] = Place::Stopped(x);
        }
        let held: Vec<bool> = place.iter().map(|p| matches!(p, Place::Stopped(_))).collect();
        if kept.len() > MAX_KEPT {
            kept.clear();
        }
        let mut split = split(&network, &held, &mut cached(&network, &mut kept))?;
        let rooms = regions::place(&mut regions, system, &held, &mut split);
        for (part, modes) in split.parts.iter().enumerate() {
            for (local, &mass) in modes.masses.iter().enumerate() {
                place[mass] = Place::Part(part, local);
            }
        }
        for (d, &mass) in split.direct.iter().enumerate() {
            place[mass] = Place::Direct(d);
        }
        let mut x0 = state.x.clone();
        x0[..n].fill(0.0);
        for &(mass, x) in &stopped {
            x0[mass] = x;
        }
        let mut constant = vec![0.0; state.x.len()];
        crate::forces::conservative(system, &x0, &mut constant);
        constant.truncate(n);
        let mut held_forces = system.external_forces().held.clone();
        held_forces.resize(n, 0.0);
        let (coupled, source) = couple(&network, &split, &place, &rooms)?;
        let (mut q, mut p, mut share) = (Vec::new(), Vec::new(), Vec::new());
        for modes in &split.parts {
            let project = |values: &dyn Fn(usize) -> f64| -> Vec<f64> {
                (0..modes.modes()).map(|j| project(modes, j, |i| values(modes.masses[i]))).collect()
            };
            q.push(project(&|m| network.mass[m] * state.x[m]));
            p.push(project(&|m| network.mass[m] * state.v[m]));
            share.push(project(&|m| constant[m] + held_forces[m]));
        }
        let direct = &split.direct;
        let x = direct.iter().map(|&m| state.x[m]).collect();
        let v = direct.iter().map(|&m| state.v[m]).collect();
        let base = direct.iter().map(|&m| constant[m] + held_forces[m]).collect();
        let kernel = CoupledKernel::new(
            coupled,
            dt,
            [q, p, share],
            [x, v, base],
            taps(pickups, &split, &place, &source, &rooms)?,
        );
        stopped.reserve(n);
        let mut drag_now = system.drag().to_vec();
        drag_now.resize(n, 0.0);
        let mut drag_built = drag_now.clone();
        let mut redragged = Vec::with_capacity(split.parts.len());
        // A region's modes were found with its drags then: the drags now are added as any change.
        redragged.extend(regions::drags_found_with(&regions, &mut drag_built));
        let mut region_of = vec![usize::MAX; n];
        for (r, region) in regions.iter().enumerate() {
            region.masses.iter().for_each(|&m| region_of[m] = r);
        }
        let scratch = Vec::with_capacity(2 * regions.iter().map(|r| r.masses.len()).max().unwrap_or(0));
        let mut stage = Self {
            kernel,
            split,
            network,
            place,
            source,
            constant,
            held: held_forces,
            stopped,
            kept,
            regions,
            region_of,
            scratch,
            at_rest: [vec![0.0; state.x.len()], vec![0.0; state.x.len()]],
            pickups: pickups.clone(),
            dt,
            step: state.step,
            built_for: system.revision(),
            restopped: false,
            drag_built,
            drag_now,
            redragged,
            redragged_direct: false,
            drag_outside: false,
            relinked: false,
        };
        // A region whose links are not as prepared is retuned to them.
        let retuned = (0..stage.regions.len()).all(|r| !stage.regions[r].tuned || stage.retune(system, r));
        if retuned && (stage.redragged.is_empty() || stage.take_drags(system)) {
            return Some(stage);
        }
        // A drag not the same on each piece of a region, or a region that cannot be retuned:
        // split as any network.
        let (stopped, kept) = (std::mem::take(&mut stage.stopped), std::mem::take(&mut stage.kept));
        Self::build(system, dt, state, pickups, stopped, (kept, Vec::new()))
    }

    /// Takes the drags changed since the last block in place, where they are all that changed
    /// in the system and each part's masses all have the same drag rate added to their rates
    /// as built ([`CoupledKernel::set_part_drag`]); `false` otherwise, changing nothing.
    fn take_drags(&mut self, system: &System) -> bool {
        if self.restopped || self.drag_outside || self.relinked {
            return false;
        }
        let drag = system.drag();
        let added = |mass: usize| {
            (drag.get(mass).copied().unwrap_or(0.0) - self.drag_built[mass]) / self.network.mass[mass]
        };
        let diagonal = |m: usize| self.network.damping.0[m].iter().any(|&(j, _)| j == m);
        let uniform = |part: &usize| {
            let modes = &self.split.parts[*part];
            modes.blocks.iter().all(|block| {
                let rate = added(modes.masses[block.masses[0]]);
                let same = |&i: &usize| (added(modes.masses[i]) - rate).abs() <= 1e-12 * rate.abs();
                block.masses.iter().all(|i| same(i) && diagonal(modes.masses[*i]))
            })
        };
        let direct_rows = |&m: &usize| drag[m] == self.drag_now[m] || diagonal(m);
        if !self.redragged.iter().all(uniform) || !self.split.direct.iter().all(direct_rows) {
            return false;
        }
        for (d, &m) in self.split.direct.iter().enumerate().filter(|_| self.redragged_direct) {
            // The direct mass's own entry in its row, and the damping row, as the system has them.
            let change = drag[m] - self.drag_now[m];
            if let Some(own) = self.kernel.row(d).iter_mut().find(|e| e.0 == d) {
                own.2 += change;
            }
            let entry = self.network.damping.0[m].iter_mut().find(|(j, _)| *j == m);
            entry.expect("a diagonal entry").1 += change;
            self.drag_now[m] = drag[m];
        }
        self.redragged_direct = false;
        for &part in &self.redragged {
            let modes = &self.split.parts[part];
            for block in &modes.blocks {
                self.kernel.set_part_drag(part, block.modes.clone(), added(modes.masses[block.masses[0]]));
            }
            let masses = &modes.masses;
            // The damping rows (`free_force` reads them) as the system has them now.
            for &m in masses {
                let now = drag.get(m).copied().unwrap_or(0.0);
                let entry = self.network.damping.0[m].iter_mut().find(|(j, _)| *j == m);
                entry.expect("a diagonal entry").1 += now - self.drag_now[m];
                self.drag_now[m] = now;
            }
        }
        self.redragged.clear();
        self.built_for = system.revision();
        true
    }

    /// Takes the changes since the last block: a prepared region's stops and links by
    /// swapping its modes in place ([`regions`]), drags in place where they can be
    /// ([`PartsStage::take_drags`]); else splits the system again. `false` where it no longer
    /// splits.
    fn take_changes(&mut self, system: &System) -> bool {
        let dirty = self.regions.iter().any(|r| r.dirty);
        if !self.restopped && !dirty && self.built_for == system.revision() {
            // Changes that left every value as it was.
            (self.relinked, self.drag_outside, self.redragged_direct) = (false, false, false);
            self.redragged.clear();
            return true;
        }
        if !self.restopped && !self.relinked && self.take_regions(system) && self.take_drags(system) {
            return true;
        }
        let state = self.state(system);
        let (stopped, kept) = (std::mem::take(&mut self.stopped), std::mem::take(&mut self.kept));
        let regions = std::mem::take(&mut self.regions);
        match Self::build(system, self.dt, &state, &self.pickups, stopped, (kept, regions)) {
            Some(rebuilt) => {
                *self = rebuilt;
                true
            }
            None => false,
        }
    }

    fn set_motion(&mut self, coordinate: usize, x: f64, v: f64) -> bool {
        let (x0, v0) = self.motion(coordinate);
        match self.place[coordinate] {
            Place::Part(part, local) => {
                let m = self.network.mass[coordinate];
                let modes = Arc::clone(&self.split.parts[part]);
                let shape = shape_of(&modes, local);
                self.kernel.add_to_modes(
                    part,
                    shape.len(),
                    |j| shape[j] * m * (x - x0),
                    |j| shape[j] * m * (v - v0),
                );
            }
            Place::Direct(d) => self.kernel.set_direct_motion(d, x, v),
            // A stopped mass set at rest (a fret pressed again): held there.
            Place::Stopped(_) if v == 0.0 => self.move_stop(coordinate, x),
            Place::Stopped(_) => return false,
        }
        true
    }

    /// Marks the region mass `mass` is in as changed; `false` where it is in none.
    fn mark_region(&mut self, mass: usize) -> bool {
        match self.region_of.get(mass) {
            Some(&r) if r != usize::MAX => {
                self.regions[r].dirty = true;
                true
            }
            _ => false,
        }
    }

    /// A stop holds the mass at rest at once; the network is split again at the next block.
    fn set_stopped(&mut self, mass: usize, stopped: bool) -> bool {
        if !stopped && !self.stopped.iter().any(|s| s.0 == mass) {
            // Not stopped, nor to be: nothing changes (a release of a free mass).
            return true;
        }
        let (x, _) = self.motion(mass);
        let already =
            matches!(self.place[mass], Place::Stopped(_)) && self.stopped.iter().any(|s| s.0 == mass);
        if stopped && !already && !self.set_motion(mass, x, 0.0) {
            return false;
        }
        self.stopped.retain(|&(m, _)| m != mass);
        if stopped {
            self.stopped.push((mass, x));
        }
        self.restopped |= !self.mark_region(mass);
        true
    }

    /// Taken at the next block: in place where every mass of its part takes the same drag rate.
    fn set_drag(&mut self, mass: usize) -> bool {
        match self.place.get(mass) {
            Some(&Place::Part(part, _)) if !self.redragged.contains(&part) => self.redragged.push(part),
            Some(&Place::Part(..)) => {}
            Some(&Place::Direct(_)) => self.redragged_direct = true,
            // A stopped mass's drag acts once it is let go, which reads the drags again.
            Some(&Place::Stopped(_)) => {}
            None => self.drag_outside = true,
        }
        true
    }

    fn set_force(&mut self, coordinate: usize, force: f64) -> bool {
        let change = force - self.held[coordinate];
        self.held[coordinate] = force;
        self.add_force(coordinate, change);
        true
    }

    /// Adds `change` (N) to the constant or held force on `coordinate`, as the kernel holds it.
    fn add_force(&mut self, coordinate: usize, change: f64) {
        match self.place[coordinate] {
            Place::Part(part, local) => {
                let modes = Arc::clone(&self.split.parts[part]);
                let shape = shape_of(&modes, local);
                self.kernel.add_to_shares(part, shape.len(), |j| shape[j] * change);
            }
            Place::Direct(d) => self.kernel.add_to_direct_force(d, change),
            Place::Stopped(_) => {}
        }
    }

    /// Holds the stopped mass `mass` at `x` (m) instead: the forces its links put on the masses
    /// beside it change by `-K_jm` times the move.
    fn move_stop(&mut self, mass: usize, x: f64) {
        let Place::Stopped(held) = self.place[mass] else { return };
        self.place[mass] = Place::Stopped(x);
        if let Some(stop) = self.stopped.iter_mut().find(|s| s.0 == mass) {
            stop.1 = x;
        }
        for e in 0..self.network.stiffness.0[mass].len() {
            let (j, k) = self.network.stiffness.0[mass][e];
            if j != mass {
                self.constant[j] -= k * (x - held);
                self.add_force(j, -k * (x - held));
            }
        }
    }

    /// Mass `local` of part `part`: its shape over the part's modes.
    fn shape(&self, part: usize, local: usize) -> &[f64] {
        shape_of(&self.split.parts[part], local)
    }
}

/// Mass `local` of a part: its shape over the part's modes (`Phi`'s row), 1/sqrt(kg).
fn shape_of(modes: &PartModes, local: usize) -> &[f64] {
    let r = modes.modes();
    &modes.shapes[local * r..(local + 1) * r]
}

/// Mode `j`'s share of a value on each mass of a part, `sum_i Phi_ij value(i)` over its local
/// masses `i`.
fn project(modes: &PartModes, j: usize, value: impl Fn(usize) -> f64) -> f64 {
    let r = modes.modes();
    (0..modes.masses.len()).map(|i| modes.shapes[i * r + j] * value(i)).sum()
}

/// [`PartModes::new`] through the cache `kept`.
fn cached<'a>(
    network: &'a Network,
    kept: &'a mut Kept,
) -> impl FnMut(&[usize]) -> Option<Arc<PartModes>> + 'a {
    |masses: &[usize]| {
        let modes = || PartModes::new(network, masses).map(Arc::new);
        kept.entry(network.key(masses)).or_insert_with(modes).clone()
    }
}

impl Stage for PartsStage {
    fn kind(&self) -> PathKind {
        PathKind::Parts
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        match self.place[coordinate] {
            Place::Part(part, local) => {
                let (q, p) = self.kernel.modes(part);
                let shape = self.shape(part, local);
                (dot(shape, q), dot(shape, p))
            }
            Place::Direct(d) => self.kernel.direct_motion(d),
            Place::Stopped(x) => (x, 0.0),
        }
    }

    /// Takes every change: motions and held forces at once, a stop at once (the network split
    /// again at the next block), the rest at the next block (the system holds it; see the
    /// module documentation).
    fn take(&mut self, _system: &System, change: &Change) -> bool {
        match *change {
            Change::Motion { coordinate, x, v } => self.set_motion(coordinate, x, v),
            Change::Stop { mass, stopped } => self.set_stopped(mass, stopped),
            Change::Drag { mass } => self.set_drag(mass),
            Change::Force { coordinate, force } => self.set_force(coordinate, force),
            Change::Link { a, b } => {
                // A link with an end in a region is its (its variants hold every such link's
                // value); one between two regions or none is not.
                let region = |node: usize| self.region_of.get(node).copied().filter(|&r| r != usize::MAX);
                match (region(a), region(b)) {
                    (Some(r), Some(other)) if r != other => self.relinked = true,
                    (Some(r), _) | (_, Some(r)) => self.regions[r].dirty = true,
                    (None, None) => self.relinked = true,
                }
                true
            }
            Change::ModeDamping { mass } => {
                self.relinked |= !self.mark_region(mass);
                true
            }
            Change::Mass { .. } => {
                self.relinked = true;
                true
            }
        }
    }

    /// `F_0 - sum_j (K x_j + C v_j)` on the coordinate, the stopped masses in `F_0`.
    fn free_force(&mut self, system: &System, coordinate: usize) -> f64 {
        if !self.take_changes(system) {
            let state = self.state(system);
            let mut force = vec![0.0; state.x.len()];
            crate::forces::total(system, &state.x, &state.v, state.t, &mut force);
            return force[coordinate] - self.held[coordinate];
        }
        let mut force = self.constant[coordinate];
        for (rows, velocity) in [(&self.network.stiffness, false), (&self.network.damping, true)] {
            for &(j, value) in &rows.0[coordinate] {
                if !matches!(self.place[j], Place::Stopped(_)) {
                    let (x, v) = self.motion(j);
                    force -= value * if velocity { v } else { x };
                }
            }
        }
        force
    }

    /// Takes the changes made since the last block first; where the system as changed no
    /// longer splits, returns 0 steps, for the engine to move to another path.
    fn advance(&mut self, system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        if !self.take_changes(system) {
            return Ok(0);
        }
        if !self.kernel.advance(steps, record) {
            return Ok(0);
        }
        self.step += steps as u64;
        Ok(steps)
    }

    fn prepare(&mut self, system: &System, variants: &mut dyn Iterator<Item = (System, Vec<usize>)>) {
        self.prepare_regions(system, variants);
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        for (mass, place) in self.place.iter().enumerate() {
            (state.x[mass], state.v[mass]) = match place {
                Place::Stopped(x) => (*x, 0.0),
                _ => self.motion(mass),
            };
        }
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}

/// `sum a_i b_i`.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
