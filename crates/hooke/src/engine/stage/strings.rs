//! The string-bank path: symplectic Euler on a system made only of 1D strings, on the
//! [`StringBank`] kernel, many times faster than the general path and able to take every change
//! a performance makes (motion, stops, links, drag, held forces) in place.

use super::{Motions, Stage};
use crate::analysis::structure::centred_bending;
use crate::engine::change::Change;
use crate::engine::{PathKind, Pickups, RunError};
use crate::kernel::strings::{StringBank, StringGroup, StringTap, StringValues};
use crate::system::{State, System};

/// Symplectic Euler on a system made only of 1D strings, on the [`StringBank`] kernel with `L`
/// strings of equal length per group (one group per thread of `threads` when more than one).
pub(crate) struct StringStage<const L: usize> {
    bank: StringBank<L>,
    dt: f64,
    step: u64,
    /// For each mass: its group, lane and place along its string.
    place: Vec<(usize, usize, usize)>,
    /// For each group and lane: the string's nodes in order (nut anchor, masses, bridge anchor).
    nodes: Vec<Vec<Vec<usize>>>,
    /// Where each link is in the bank, and its spring and damper in the system.
    links: Vec<LinkIndex>,
    ids: Vec<String>,
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

/// Where a link of the bank is: its group, lane and place along its string (link `j` joins the
/// string's nodes `j` and `j + 1`), and its spring's and damper's indices in the system.
struct LinkIndex {
    group: usize,
    lane: usize,
    place: usize,
    spring: usize,
    damper: Option<usize>,
}

impl<const L: usize> StringStage<L> {
    /// The strings `strings` of `system` (each the node path from its first anchor through its
    /// masses to its last anchor) from `state`, with step `dt` (s) and `pickups`, if the system
    /// is exactly those strings: 1D, every mass on one of them, every spring (rest length 0) and
    /// damper one of their links, every bending element a `(1, -2, 1)` centred at a mass along its
    /// string, no angular spring, contact, driving force or gravity. Held forces are taken from
    /// the system. `pool` runs the groups on its threads.
    pub(crate) fn new(
        system: &System,
        strings: &[Vec<usize>],
        dt: f64,
        state: &State,
        pickups: &Pickups,
        pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    ) -> Option<Self> {
        let plain = system.dimension() == 1
            && system.angles().is_empty()
            && !system.has_contacts()
            && !system.external_forces().drives()
            && system.gravity_force().is_empty()
            && system.springs().rest_length.iter().all(|&l| l == 0.0);
        let covered: usize = strings.iter().map(|s| s.len() - 2).sum();
        if !plain || covered != system.mass_count() || system.springs().len() != covered + strings.len() {
            return None;
        }
        let bending = centred_bending(system, strings)?;
        let mut place = vec![(usize::MAX, 0, 0); system.mass_count()];
        let mut dampers = 0;
        let mut groups = Vec::new();
        let mut nodes = Vec::new();
        let mut links = Vec::new();
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
                    for (place, pair) in path.windows(2).enumerate() {
                        let spring = system.spring_between(pair[0], pair[1])?;
                        stiffness.push(system.springs().coefficient[spring]);
                        let damper = system.damper_between(pair[0], pair[1]);
                        links.push(LinkIndex { group: g, lane, place, spring, damper });
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
                    let ends = [state.x[path[0]], state.x[path[length + 1]]];
                    let bending = string[1..=length].iter().map(|&m| bending[m]).collect();
                    values.push(StringValues { mass, stiffness, damping, bending, ends });
                    paths.push(path);
                }
                let mut group = StringGroup::<L>::new(dt, length, &values);
                for (lane, string) in members.iter().enumerate() {
                    for (i, &m) in string[1..=length].iter().enumerate() {
                        group.set_motion(lane, i, state.x[m], state.v[m]);
                        if let Some(&drag) = system.drag().get(m) {
                            group.set_drag(lane, i, drag);
                        }
                        if let Some(&force) = system.external_forces().held.get(m) {
                            group.set_force(lane, i, force);
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
        Some(Self {
            bank: StringBank::new(groups, pickups.channel_count(), crate::engine::MAX_BLOCK as usize),
            dt,
            step: state.step,
            place,
            nodes,
            links,
            ids: system.node_ids().to_vec(),
            pool,
        })
    }

    /// Takes the spring and damper joining nodes `a` and `b` as now set in `system`, if the
    /// link is on one of its strings.
    fn set_link(&mut self, system: &System, a: usize, b: usize) -> bool {
        let stiffness = system.spring_between(a, b).map(|s| system.springs().coefficient[s]);
        let damping = system.damper_between(a, b).map_or(0.0, |d| system.dampers().coefficient[d]);
        for (g, paths) in self.nodes.iter().enumerate() {
            for (lane, path) in paths.iter().enumerate() {
                if let Some(j) =
                    path.windows(2).position(|w| (w[0], w[1]) == (a, b) || (w[0], w[1]) == (b, a))
                {
                    let Some(stiffness) = stiffness else { return false };
                    self.bank.groups_mut()[g].set_link(lane, j, stiffness, damping);
                    return true;
                }
            }
        }
        false
    }

    /// The group holding a mass's coordinate, its lane and its place along the string.
    fn group(&mut self, coordinate: usize) -> (&mut StringGroup<L>, usize, usize) {
        let (g, lane, i) = self.place[coordinate];
        (&mut self.bank.groups_mut()[g], lane, i)
    }
}

impl<const L: usize> Stage for StringStage<L> {
    fn kind(&self) -> PathKind {
        PathKind::Strings
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        let (g, lane, i) = self.place[coordinate];
        self.bank.groups()[g].motion(lane, i)
    }

    /// Takes every change of its strings in place but a mass.
    fn take(&mut self, system: &System, change: &Change) -> bool {
        match *change {
            Change::Motion { coordinate, x, v } => {
                let (group, lane, i) = self.group(coordinate);
                group.set_motion(lane, i, x, v);
            }
            Change::Stop { mass, stopped } => {
                let (group, lane, i) = self.group(mass);
                if stopped {
                    let (x, _) = group.motion(lane, i);
                    group.set_motion(lane, i, x, 0.0);
                }
                group.set_stopped(lane, i, stopped);
            }
            Change::Link { a, b } => return self.set_link(system, a, b),
            Change::Drag { mass } => {
                let drag = system.drag().get(mass).copied().unwrap_or(0.0);
                let (group, lane, i) = self.group(mass);
                group.set_drag(lane, i, drag);
            }
            Change::Force { coordinate, force } => {
                let (group, lane, i) = self.group(coordinate);
                group.set_force(lane, i, force);
            }
            Change::Mass { .. } | Change::ModeDamping { .. } => return false,
        }
        true
    }

    fn free_force(&mut self, _system: &System, coordinate: usize) -> f64 {
        let (group, lane, i) = self.group(coordinate);
        group.link_force(lane, i)
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        record.fill(0.0);
        match self.bank.advance(steps, record, self.pool.as_deref()) {
            Ok(()) => {
                self.step += steps as u64;
                Ok(steps)
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

    /// Where every mass of `system` is the bank's (it was built for them): then the bank takes
    /// every link, drag, stop and held force of its strings in place.
    fn take_over(&mut self, system: &System, step: u64, motion: Motions, stopped: &[usize]) -> bool {
        let masses = system.masses();
        let groups = self.bank.groups();
        if self.place.iter().zip(masses).any(|(&(g, lane, i), &m)| groups[g].mass(lane, i) != m) {
            return false;
        }
        self.step = step;
        for link in &self.links {
            let damping = link.damper.map_or(0.0, |d| system.dampers().coefficient[d]);
            let stiffness = system.springs().coefficient[link.spring];
            self.bank.groups_mut()[link.group].set_link(link.lane, link.place, stiffness, damping);
        }
        let held = &system.external_forces().held;
        for mass in 0..self.place.len() {
            let (x, v) = motion(mass);
            let (group, lane, i) = self.group(mass);
            group.set_motion(lane, i, x, v);
            group.set_drag(lane, i, system.drag().get(mass).copied().unwrap_or(0.0));
            group.set_force(lane, i, held.get(mass).copied().unwrap_or(0.0));
            let stop = stopped.contains(&mass);
            if stop {
                group.set_motion(lane, i, x, 0.0);
            }
            group.set_stopped(lane, i, stop);
        }
        true
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        for (coordinate, &(g, lane, i)) in self.place.iter().enumerate() {
            (state.x[coordinate], state.v[coordinate]) = self.bank.groups()[g].motion(lane, i);
        }
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}
