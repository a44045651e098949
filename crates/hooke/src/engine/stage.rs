//! Stages: what a score plays on. A [`Stage`] advances a system step by step and lets a
//! performance change it between steps: set masses' motion (a pluck), stop a mass (a fret),
//! change a link (a fret's stop, a tension change), add drag (damping a string) and hold forces
//! on masses (a hammer, a bow, a drive), each held through the next step.
//!
//! Two stages give the same results (to rounding, `tests/instruments.rs`): [`GeneralStage`]
//! runs any scheme on any system through [`crate::scheme`], rebuilding the scheme after a
//! change to the system; [`StringStage`] runs symplectic Euler on systems made only of 1D
//! strings, on the [`StringBank`] kernel, many times faster.

use super::{Pickups, RunError};
use crate::kernel::strings::{StringBank, StringGroup, StringTap, StringValues};
use crate::scheme::{Scheme, SchemeKind};
use crate::system::{State, System};

/// A system being played.
pub trait Stage: Send {
    /// The step, s.
    fn dt(&self) -> f64;
    /// The steps taken.
    fn step(&self) -> u64;
    /// The number of output channels.
    fn channels(&self) -> usize;
    /// Mass of the mass owning state coordinate `coordinate`, kg.
    fn mass(&self, coordinate: usize) -> f64;
    /// Position (m) and velocity (m/s) of a state coordinate.
    fn motion(&self, coordinate: usize) -> (f64, f64);
    /// Sets the position (m) and velocity (m/s) of a state coordinate.
    fn set_motion(&mut self, coordinate: usize, x: f64, v: f64);
    /// Stops mass `mass` where it is (it keeps its position, with velocity 0), or frees it.
    fn set_stopped(&mut self, mass: usize, stopped: bool);
    /// Sets the spring and damper joining system nodes `a` and `b`, N/m and N s/m.
    fn set_link(&mut self, a: usize, b: usize, stiffness: f64, damping: f64);
    /// Sets the drag of mass `mass`, N s/m.
    fn set_drag(&mut self, mass: usize, drag: f64);
    /// Holds `force` (N) on a state coordinate until changed.
    fn set_force(&mut self, coordinate: usize, force: f64);
    /// The force (N) on a state coordinate now from everything but the held forces.
    fn free_force(&mut self, coordinate: usize) -> f64;
    /// Advances `steps` steps, adding each channel's value after step `s` to
    /// `record[channel * steps + s]`. On an error, [`Stage::step`] counts the steps recorded.
    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), RunError>;
}

/// Any scheme on any system: the scheme is rebuilt after a change to the system. A stopped mass
/// is put back where it was stopped, with velocity 0, after every step (exact for symplectic
/// Euler, whose other masses only read its old position; a projection for the others).
pub struct GeneralStage {
    system: System,
    kind: SchemeKind,
    scheme: Box<dyn Scheme>,
    state: State,
    dt: f64,
    pickups: Pickups,
    stopped: Vec<(usize, Vec<f64>)>,
    rebuild: bool,
    force: Vec<f64>,
    sample: Vec<Vec<f64>>,
}

impl GeneralStage {
    /// `system` from its initial state, stepped by `kind` at `dt` (s), read by `pickups`.
    pub fn new(mut system: System, kind: SchemeKind, dt: f64, pickups: Pickups) -> Self {
        if system.mass_coordinates() > 0 {
            // Room for held forces before the scheme is built.
            system.set_held_force(0, 0.0);
        }
        let scheme = kind.build(&system, dt);
        let state = system.initial_state();
        let force = vec![0.0; state.x.len()];
        let sample = vec![Vec::with_capacity(1); pickups.channel_count()];
        Self { system, kind, scheme, state, dt, pickups, stopped: Vec::new(), rebuild: false, force, sample }
    }
}

impl Stage for GeneralStage {
    fn dt(&self) -> f64 {
        self.dt
    }

    fn step(&self) -> u64 {
        self.state.step
    }

    fn channels(&self) -> usize {
        self.pickups.channel_count()
    }

    fn mass(&self, coordinate: usize) -> f64 {
        self.system.masses()[coordinate / self.system.dimension()]
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        (self.state.x[coordinate], self.state.v[coordinate])
    }

    fn set_motion(&mut self, coordinate: usize, x: f64, v: f64) {
        (self.state.x[coordinate], self.state.v[coordinate]) = (x, v);
    }

    fn set_stopped(&mut self, mass: usize, stopped: bool) {
        let dim = self.system.dimension();
        self.stopped.retain(|(m, _)| *m != mass);
        if stopped {
            self.state.v[mass * dim..(mass + 1) * dim].fill(0.0);
            self.stopped.push((mass, self.state.x[mass * dim..(mass + 1) * dim].to_vec()));
        }
    }

    fn set_link(&mut self, a: usize, b: usize, stiffness: f64, damping: f64) {
        if let Some(spring) = self.system.spring_between(a, b) {
            self.system.set_spring_stiffness(spring, stiffness);
        }
        if let Some(damper) = self.system.damper_between(a, b) {
            self.system.set_damper_coefficient(damper, damping);
        }
        self.rebuild = true;
    }

    fn set_drag(&mut self, mass: usize, drag: f64) {
        self.system.set_drag(mass, drag);
        self.rebuild = true;
    }

    fn set_force(&mut self, coordinate: usize, force: f64) {
        self.system.set_held_force(coordinate, force);
    }

    fn free_force(&mut self, coordinate: usize) -> f64 {
        crate::forces::total(&self.system, &self.state.x, &self.state.v, self.state.t, &mut self.force);
        self.force[coordinate] - self.system.external_forces().held[coordinate]
    }

    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), RunError> {
        if std::mem::take(&mut self.rebuild) {
            self.scheme = self.kind.build(&self.system, self.dt);
        }
        let dim = self.system.dimension();
        for s in 0..steps {
            super::take_step(self.scheme.as_mut(), &self.system, &mut self.state)?;
            for (mass, position) in &self.stopped {
                self.state.x[mass * dim..(mass + 1) * dim].copy_from_slice(position);
                self.state.v[mass * dim..(mass + 1) * dim].fill(0.0);
            }
            self.state.step += 1;
            self.state.t = self.state.step as f64 * self.dt;
            if let Err(error) = super::check_finite(&self.system, &self.state) {
                // `step()` counts the steps whose output was recorded.
                self.state.step -= 1;
                self.state.t = self.state.step as f64 * self.dt;
                return Err(error);
            }
            self.sample.iter_mut().for_each(Vec::clear);
            self.pickups.sample(&self.state, &mut self.sample);
            for (channel, values) in self.sample.iter().enumerate() {
                record[channel * steps + s] += values[0];
            }
        }
        Ok(())
    }
}

/// Symplectic Euler on a system made only of 1D strings, on the [`StringBank`] kernel with `L`
/// strings of equal length per group (one group per thread of `threads` when more than one).
pub struct StringStage<const L: usize> {
    bank: StringBank<L>,
    dt: f64,
    step: u64,
    /// For each mass: its group, lane and place along its string.
    place: Vec<(usize, usize, usize)>,
    /// For each group and lane: the string's nodes in order (nut anchor, masses, bridge anchor).
    nodes: Vec<Vec<Vec<usize>>>,
    ids: Vec<String>,
    pool: Option<rayon::ThreadPool>,
}

impl<const L: usize> StringStage<L> {
    /// The strings `strings` of `system` (each the node path from its first anchor through its
    /// masses to its last anchor), with step `dt` (s) and `pickups`, if the system is exactly
    /// those strings: 1D, every mass on one of them, every spring and damper one of their
    /// links, no contact, external force or gravity.
    pub fn new(
        system: &System,
        strings: &[Vec<usize>],
        dt: f64,
        pickups: &Pickups,
        threads: usize,
    ) -> Option<Self> {
        let plain = system.dimension() == 1
            && !system.has_contacts()
            && system.external_forces().is_empty()
            && system.gravity_force().is_empty();
        let covered: usize = strings.iter().map(|s| s.len() - 2).sum();
        if !plain || covered != system.mass_count() || system.springs().len() != covered + strings.len() {
            return None;
        }
        let initial = system.initial_state();
        let mut place = vec![(usize::MAX, 0, 0); system.mass_count()];
        let mut dampers = 0;
        let mut groups = Vec::new();
        let mut nodes = Vec::new();
        let mut lengths: Vec<usize> = strings.iter().map(|s| s.len() - 2).collect();
        lengths.sort_unstable();
        lengths.dedup();
        for length in lengths {
            let same: Vec<&Vec<usize>> = strings.iter().filter(|s| s.len() - 2 == length).collect();
            for members in same.chunks(L) {
                let g = groups.len();
                let mut values = Vec::with_capacity(members.len());
                let mut paths = Vec::with_capacity(members.len());
                for (lane, string) in members.iter().enumerate() {
                    let path: Vec<usize> = string.to_vec();
                    let mut stiffness = Vec::with_capacity(length + 1);
                    let mut damping = Vec::with_capacity(length + 1);
                    for pair in path.windows(2) {
                        stiffness
                            .push(system.springs().coefficient[system.spring_between(pair[0], pair[1])?]);
                        let damper = system.damper_between(pair[0], pair[1]);
                        dampers += usize::from(damper.is_some());
                        damping.push(damper.map_or(0.0, |d| system.dampers().coefficient[d]));
                    }
                    for (i, &m) in string[1..=length].iter().enumerate() {
                        if place[m].0 != usize::MAX {
                            return None;
                        }
                        place[m] = (g, lane, i);
                    }
                    let mass = string[1..=length].iter().map(|&m| system.masses()[m]).collect();
                    let ends = [initial.x[path[0]], initial.x[path[length + 1]]];
                    values.push(StringValues { mass, stiffness, damping, ends });
                    paths.push(path);
                }
                let mut group = StringGroup::<L>::new(dt, length, &values);
                for (lane, string) in members.iter().enumerate() {
                    for (i, &m) in string[1..=length].iter().enumerate() {
                        group.set_motion(lane, i, initial.x[m], initial.v[m]);
                        if let Some(&drag) = system.drag().get(m) {
                            group.set_drag(lane, i, drag);
                        }
                    }
                }
                groups.push(group);
                nodes.push(paths);
            }
        }
        if dampers != system.dampers().len() {
            return None;
        }
        let mut taps = vec![Vec::new(); groups.len()];
        for (channel, coordinate, quantity, weight) in pickups.taps() {
            let (g, lane, mass) = place[coordinate];
            taps[g].push(StringTap { lane, mass, quantity, channel, weight });
        }
        for (group, taps) in groups.iter_mut().zip(taps) {
            group.set_taps(taps);
        }
        let pool = (threads > 1)
            .then(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok())
            .flatten();
        Some(Self {
            bank: StringBank::new(groups, pickups.channel_count()),
            dt,
            step: 0,
            place,
            nodes,
            ids: system.node_ids().to_vec(),
            pool,
        })
    }

    /// The group holding a mass's coordinate, its lane and its place along the string.
    fn group(&mut self, coordinate: usize) -> (&mut StringGroup<L>, usize, usize) {
        let (g, lane, i) = self.place[coordinate];
        (&mut self.bank.groups_mut()[g], lane, i)
    }
}

impl<const L: usize> Stage for StringStage<L> {
    fn dt(&self) -> f64 {
        self.dt
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn channels(&self) -> usize {
        self.bank.channels()
    }

    fn mass(&self, coordinate: usize) -> f64 {
        let (g, lane, i) = self.place[coordinate];
        self.bank.groups()[g].mass(lane, i)
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        let (g, lane, i) = self.place[coordinate];
        self.bank.groups()[g].motion(lane, i)
    }

    fn set_motion(&mut self, coordinate: usize, x: f64, v: f64) {
        let (group, lane, i) = self.group(coordinate);
        group.set_motion(lane, i, x, v);
    }

    fn set_stopped(&mut self, mass: usize, stopped: bool) {
        let (group, lane, i) = self.group(mass);
        if stopped {
            let (x, _) = group.motion(lane, i);
            group.set_motion(lane, i, x, 0.0);
        }
        group.set_stopped(lane, i, stopped);
    }

    fn set_link(&mut self, a: usize, b: usize, stiffness: f64, damping: f64) {
        for (g, paths) in self.nodes.iter().enumerate() {
            for (lane, path) in paths.iter().enumerate() {
                if let Some(j) =
                    path.windows(2).position(|w| (w[0], w[1]) == (a, b) || (w[0], w[1]) == (b, a))
                {
                    self.bank.groups_mut()[g].set_link(lane, j, stiffness, damping);
                    return;
                }
            }
        }
    }

    fn set_drag(&mut self, mass: usize, drag: f64) {
        let (group, lane, i) = self.group(mass);
        group.set_drag(lane, i, drag);
    }

    fn set_force(&mut self, coordinate: usize, force: f64) {
        let (group, lane, i) = self.group(coordinate);
        group.set_force(lane, i, force);
    }

    fn free_force(&mut self, coordinate: usize) -> f64 {
        let (group, lane, i) = self.group(coordinate);
        group.link_force(lane, i)
    }

    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), RunError> {
        match self.bank.advance(steps, record, self.pool.as_ref()) {
            Ok(()) => {
                self.step += steps as u64;
                Ok(())
            }
            Err((g, failure)) => {
                let step = self.step + failure.completed as u64 + 1;
                self.step += failure.completed as u64;
                Err(RunError::NonFinite {
                    step,
                    time: step as f64 * self.dt,
                    mass: self.ids[self.nodes[g][failure.lane][failure.mass + 1]].clone(),
                    quantity: failure.quantity,
                })
            }
        }
    }
}
