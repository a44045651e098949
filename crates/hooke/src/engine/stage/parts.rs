//! The coupled modal path: symplectic Euler on a linear network split into parts, each in its
//! own modes, and a few masses stepped directly ([`crate::analysis::parts`]), on the
//! [`CoupledKernel`]: a guitar's or a piano's strings on their bridge and body, fretted or
//! open; bars; plates. It takes every change in place: motion and held forces at once; a drag
//! the same on every mass of a part (a damper on a string, a piano's pedal) at the next block,
//! as a rate added to the part's modes, with no analysis and no allocation; and a stop, a
//! link, another drag or a mass at the next block, when it splits the network as changed again
//! (each piece's modes found once and kept, so a fret pressed again costs no analysis).

use super::Stage;
use crate::analysis::parts::{split, Network, PartModes, Split};
use crate::engine::change::Change;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::coupled::{CoupledKernel, CoupledMode, CoupledNetwork, CoupledTaps, Probe, Row};
use crate::quantity::Quantity;
use crate::system::{State, System};
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
    /// Each mass's constant force `F_0` (anchors, gravity, stopped masses), N.
    constant: Vec<f64>,
    /// Each mass's held force, N.
    held: Vec<f64>,
    /// The stopped masses and where.
    stopped: Vec<(usize, f64)>,
    kept: Kept,
    pickups: Pickups,
    dt: f64,
    step: u64,
    /// The system's revision the split was made for.
    built_for: u64,
    /// Whether a stop changed since.
    restopped: bool,
    /// Each mass's drag coefficient as built and as the damping rows have it now, N s/m.
    drag_built: Vec<f64>,
    drag_now: Vec<f64>,
    /// The parts whose masses' drag changed since the last block (room for every part).
    redragged: Vec<usize>,
    /// Whether a drag changed on a mass outside every part since the last block.
    drag_outside: bool,
    /// Whether a link, a mass or a mode damping changed since the last block.
    relinked: bool,
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
        Self::build(system, dt, state, pickups, stopped, Kept::new())
    }

    fn build(
        system: &System,
        dt: f64,
        state: &State,
        pickups: &Pickups,
        mut stopped: Vec<(usize, f64)>,
        mut kept: Kept,
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
        let split = split(&network, &held, &mut |masses: &[usize]| {
            let modes = || PartModes::new(&network, masses).map(Arc::new);
            kept.entry(network.key(masses)).or_insert_with(modes).clone()
        })?;
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
        let (coupled, source) = couple(&network, &split, &place)?;
        let (mut q, mut p, mut share) = (Vec::new(), Vec::new(), Vec::new());
        for modes in &split.parts {
            let project = |values: &dyn Fn(usize) -> f64| -> Vec<f64> {
                let r = modes.masses.len();
                (0..r)
                    .map(|j| (0..r).map(|i| modes.shapes[i * r + j] * values(modes.masses[i])).sum())
                    .collect()
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
            taps(pickups, &split, &place, &source)?,
        );
        stopped.reserve(n);
        let mut drag_built = system.drag().to_vec();
        drag_built.resize(n, 0.0);
        let (drag_now, redragged) = (drag_built.clone(), Vec::with_capacity(split.parts.len()));
        Some(Self {
            kernel,
            split,
            network,
            place,
            constant,
            held: held_forces,
            stopped,
            kept,
            pickups: pickups.clone(),
            dt,
            step: state.step,
            built_for: system.revision(),
            restopped: false,
            drag_built,
            drag_now,
            redragged,
            drag_outside: false,
            relinked: false,
        })
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
        let uniform = |part: &usize| {
            let masses = &self.split.parts[*part].masses;
            let rate = added(masses[0]);
            let diagonal = |m: usize| self.network.damping.0[m].iter().any(|&(j, _)| j == m);
            masses.iter().all(|&m| (added(m) - rate).abs() <= 1e-12 * rate.abs() && diagonal(m))
        };
        if !self.redragged.iter().all(uniform) {
            return false;
        }
        for &part in &self.redragged {
            let masses = &self.split.parts[part].masses;
            self.kernel.set_part_drag(part, masses.len(), added(masses[0]));
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

    /// Splits the system again where a stop, a link, a drag or a mass changed; `false` where
    /// it no longer splits.
    fn take_changes(&mut self, system: &System) -> bool {
        if !self.restopped && self.built_for == system.revision() {
            // Changes that left every value as it was.
            (self.relinked, self.drag_outside) = (false, false);
            self.redragged.clear();
            return true;
        }
        if self.take_drags(system) {
            return true;
        }
        let state = self.state(system);
        let (stopped, kept) = (std::mem::take(&mut self.stopped), std::mem::take(&mut self.kept));
        match Self::build(system, self.dt, &state, &self.pickups, stopped, kept) {
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
            Place::Stopped(_) => return false,
        }
        true
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
        self.restopped = true;
        true
    }

    /// Taken at the next block: in place where every mass of its part takes the same drag rate.
    fn set_drag(&mut self, mass: usize) -> bool {
        match self.place.get(mass) {
            Some(&Place::Part(part, _)) if !self.redragged.contains(&part) => self.redragged.push(part),
            Some(&Place::Part(..)) => {}
            _ => self.drag_outside = true,
        }
        true
    }

    fn set_force(&mut self, coordinate: usize, force: f64) -> bool {
        let change = force - self.held[coordinate];
        self.held[coordinate] = force;
        match self.place[coordinate] {
            Place::Part(part, local) => {
                let modes = Arc::clone(&self.split.parts[part]);
                let shape = shape_of(&modes, local);
                self.kernel.add_to_shares(part, shape.len(), |j| shape[j] * change);
            }
            Place::Direct(d) => self.kernel.add_to_direct_force(d, change),
            Place::Stopped(_) => {}
        }
        true
    }

    /// Mass `local` of part `part`: its shape over the part's modes.
    fn shape(&self, part: usize, local: usize) -> &[f64] {
        shape_of(&self.split.parts[part], local)
    }
}

/// Mass `local` of a part: its shape over the part's modes (`Phi`'s row), 1/sqrt(kg).
fn shape_of(modes: &PartModes, local: usize) -> &[f64] {
    let r = modes.masses.len();
    &modes.shapes[local * r..(local + 1) * r]
}

/// The kernel's network: every part's modes, and the coupling rows of the direct masses and of
/// the part masses that an entry outside their part's reference touches; with each mass's
/// source index (`usize::MAX` where it is neither direct nor touched).
fn couple(network: &Network, split: &Split, place: &[Place]) -> Option<(CoupledNetwork, Vec<usize>)> {
    let n = network.mass.len();
    let outside = |mass: usize, part: usize| match place[mass] {
        Place::Part(other, _) => other != part,
        Place::Direct(_) => true,
        Place::Stopped(_) => false,
    };
    // A part's mass is touched by its deviation from the reference or by any entry leaving it.
    let mut touched = vec![false; n];
    for (part, modes) in split.parts.iter().enumerate() {
        for &(i, j, _, _) in &modes.deviation {
            touched[modes.masses[i]] = true;
            touched[modes.masses[j]] = true;
        }
        for &mass in &modes.masses {
            let entries = network.stiffness.0[mass].iter().chain(&network.damping.0[mass]);
            touched[mass] |= entries.clone().any(|&(j, _)| outside(j, part));
        }
    }
    let d = split.direct.len();
    let mut source = vec![usize::MAX; n];
    for (i, &mass) in split.direct.iter().enumerate() {
        source[mass] = i;
    }
    let mut touched_list = Vec::new();
    for (part, modes) in split.parts.iter().enumerate() {
        for (local, &mass) in modes.masses.iter().enumerate() {
            if touched[mass] {
                source[mass] = d + touched_list.len();
                touched_list.push(Probe { part, weights: shape_of(modes, local).to_vec() });
            }
        }
    }
    let row_of = |mass: usize, part: Option<usize>| -> Row {
        let mut entries: Vec<(usize, f64, f64)> = Vec::new();
        for (rows, is_k) in [(&network.stiffness, true), (&network.damping, false)] {
            for &(j, value) in &rows.0[mass] {
                if part.is_none_or(|p| outside(j, p)) && !matches!(place[j], Place::Stopped(_)) {
                    entries.push(if is_k { (source[j], value, 0.0) } else { (source[j], 0.0, value) });
                }
            }
        }
        if let (Some(part), Place::Part(_, local)) = (part, place[mass]) {
            let modes = &split.parts[part];
            for &(i, j, k, c) in modes.deviation.iter().filter(|e| e.0 == local) {
                debug_assert_eq!(i, local);
                entries.push((source[modes.masses[j]], k, c));
            }
        }
        entries.sort_unstable_by_key(|e| e.0);
        let mut row: Row = Vec::with_capacity(entries.len());
        for (s, k, c) in entries {
            match row.last_mut() {
                Some(last) if last.0 == s => (last.1, last.2) = (last.1 + k, last.2 + c),
                _ => row.push((s, k, c)),
            }
        }
        row
    };
    let mut rows: Vec<Row> = split.direct.iter().map(|&mass| row_of(mass, None)).collect();
    for (part, modes) in split.parts.iter().enumerate() {
        rows.extend(modes.masses.iter().filter(|&&m| touched[m]).map(|&mass| row_of(mass, Some(part))));
    }
    if rows.iter().flatten().any(|e| e.0 == usize::MAX) {
        return None;
    }
    let mode = |o: &crate::analysis::discrete::Oscillator| CoupledMode {
        omega0_squared: o.omega0_squared,
        gamma: o.gamma,
    };
    let parts = split.parts.iter().map(|modes| modes.oscillators.iter().map(mode).collect()).collect();
    let inverse_mass = split.direct.iter().map(|&m| 1.0 / network.mass[m]).collect();
    Some((CoupledNetwork { parts, touched: touched_list, rows, inverse_mass }, source))
}

/// The pickups as the kernel reads them: taps on direct masses and touched part masses (each a
/// source the kernel has every step), and per channel and part one probe for the other part
/// masses' positions and one for their velocities; `None` where a tap is on a stopped mass.
fn taps(pickups: &Pickups, split: &Split, place: &[Place], source: &[usize]) -> Option<CoupledTaps> {
    let mut taps = CoupledTaps::default();
    for (channel, coordinate, quantity, weight) in pickups.taps() {
        match *place.get(coordinate)? {
            Place::Stopped(_) => return None,
            // A direct coordinate's source index is its own.
            Place::Direct(d) => taps.sources.push((channel, d, quantity, weight)),
            Place::Part(..) if source[coordinate] != usize::MAX => {
                taps.sources.push((channel, source[coordinate], quantity, weight))
            }
            Place::Part(part, local) => {
                let r = split.parts[part].masses.len();
                let same = |tap: &&mut (usize, Probe, Quantity)| {
                    tap.0 == channel && tap.1.part == part && tap.2 == quantity
                };
                let at = match taps.modal.iter_mut().position(|tap| same(&tap)) {
                    Some(at) => at,
                    None => {
                        taps.modal.push((channel, Probe { part, weights: vec![0.0; r] }, quantity));
                        taps.modal.len() - 1
                    }
                };
                for (w, s) in taps.modal[at].1.weights.iter_mut().zip(shape_of(&split.parts[part], local)) {
                    *w += weight * s;
                }
            }
        }
    }
    Some(taps)
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
            Change::Link { .. } | Change::Mass { .. } | Change::ModeDamping { .. } => {
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
