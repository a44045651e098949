//! Regions: pieces of the network prepared before play to be split again in place. A fret
//! pressed on a string on a body stops one of its masses, changes the link beside it and, with a
//! mode damping, the string's damping on each side: the string's masses fall into other pieces
//! with other modes. Each way a region can be (a *variant*: its stops, its links' values, its
//! mode damping's scale) is analysed before play: its pieces' modes as one part
//! ([`PartModes::union`]), its network rows, its touched masses; the kernel is built with room
//! for the largest. At play, a region whose stops or links changed is matched to its variant and
//! swapped in: its masses' motions projected onto the new modes, its rows, weights and forces
//! written in place. Nothing is analysed or allocated; a change no variant matches splits the
//! network again, as any other. A set that leaves the stops as they are (a tension or a damping:
//! a piano's course bent) is not split at all: each piece whose links it changes becomes a region
//! of one variant, the system's, retuned in place at play ([`prepare_retunes`]).

use super::{cached, fill_row, project, shape_of, touched_masses, Kept, PartsStage, Place, Room};
use crate::analysis::parts::{split, Network, PartModes, Split};
use crate::engine::stage::Stage;
use crate::engine::Pickups;
use crate::kernel::coupled::CoupledMode;
use crate::quantity::Quantity;
use crate::system::System;
use std::sync::Arc;

/// Masses swapped in place as one part.
pub(super) struct Region {
    /// The masses, ascending.
    pub(super) masses: Vec<usize>,
    /// The springs and the dampers with an end among them (indices into the system's).
    springs: Vec<usize>,
    dampers: Vec<usize>,
    variants: Vec<Variant>,
    /// The pickups' taps on its masses as the kernel groups them: `(channel, quantity)`.
    tap_groups: Vec<(usize, Quantity)>,
    /// The kernel part it runs as and its variant, where the system as built matched one.
    pub(super) running: Option<(usize, usize)>,
    /// Whether a stop, a link or a mode damping of it changed since the last block.
    pub(super) dirty: bool,
    /// Whether the part runs with the system's links rather than its variant's as prepared
    /// (`retune`), or must be retuned to them.
    pub(super) tuned: bool,
    /// Its masses and the masses outside joined to them, ascending (the rows a retune sets).
    pub(super) touching: Vec<usize>,
    /// The running part's deviation from its reference, as its touched rows read it (room for
    /// every variant's).
    pub(super) deviation: Vec<(usize, usize, f64, f64)>,
}

/// One way a region can be.
pub(super) struct Variant {
    /// Its masses stopped, ascending.
    stopped: Vec<usize>,
    /// The springs' stiffnesses (N/m), then the dampers' coefficients (N s/m).
    links: Vec<f64>,
    /// Each mass's mode damping scale (`None`: in none).
    scales: Vec<Option<f64>>,
    /// The pieces' modes as one part.
    part: Arc<PartModes>,
    /// Its touched masses (local to `part`), those with an entry leaving the region first.
    touched: Vec<usize>,
    /// Each mass's stiffness, damping and mode damping rows (spare while the variant runs: the
    /// network holds its own).
    rows: [Vec<Vec<(usize, f64)>>; 3],
    /// Each mass's drag (N s/m) and its force with every mass at 0 (anchors, gravity; N).
    drag: Vec<f64>,
    rest: Vec<f64>,
    /// Each mode's share of the mode damping, `Phi_j^T D Phi_j` (1/s), where every piece runs
    /// in a uniform string's modes (which a retune keeps); `None` otherwise.
    pub(super) mode_rates: Option<Vec<f64>>,
}

impl Variant {
    /// Its pieces' modes as one part.
    pub(super) fn part(&self) -> &Arc<PartModes> {
        &self.part
    }

    /// The mode damping scale it was prepared at, on mass `i` of the region.
    pub(super) fn scale(&self, i: usize) -> Option<f64> {
        self.scales[i]
    }
}

/// A system as a region is prepared from: its network, its stopped masses and its split.
pub(super) struct Configuration {
    network: Network,
    held: Vec<bool>,
    split: Split,
}

impl Configuration {
    /// `system`'s, the masses `stopped` stopped, if it is a linear network that splits.
    pub(super) fn new(system: &System, stopped: &[usize], kept: &mut Kept) -> Option<Self> {
        let network = Network::new(system)?;
        let held: Vec<bool> = (0..network.mass.len()).map(|m| stopped.contains(&m)).collect();
        let split = split(&network, &held, &mut cached(&network, kept))?;
        Some(Self { network, held, split })
    }
}

/// Prepares the region in which `systems[1]` (as `configurations[1]`) differs from
/// `systems[0]`, each as a variant of it: the masses whose rows or stops differ, grown to
/// whole pieces of both splits. `None` (nothing prepared) where the systems are the same, or
/// differ where a region cannot: a direct mass, a stop beside a mass outside, a stop on a
/// tapped mass, a region overlapping another.
pub(super) fn prepare(
    regions: &mut Vec<Region>,
    systems: [&System; 2],
    configurations: [&Configuration; 2],
    pickups: &Pickups,
) -> Option<()> {
    let networks = configurations.map(|c| &c.network);
    let n = networks[0].mass.len();
    let held = configurations.map(|c| &c.held);
    let splits = configurations.map(|c| &c.split);
    let rows = |k: usize, m: usize| {
        let network = networks[k];
        (&network.stiffness.0[m], &network.damping.0[m], &network.mode_damping.0[m])
    };
    let neighbours = |m: usize| {
        let entries = networks.iter().flat_map(move |w| w.stiffness.0[m].iter().chain(&w.damping.0[m]));
        entries.map(|e| e.0).filter(move |&j| j != m)
    };
    let mut inside: Vec<bool> =
        (0..n).map(|m| held[0][m] != held[1][m] || rows(0, m) != rows(1, m)).collect();
    if !inside.contains(&true) {
        return None;
    }
    let stop = |m: usize| held[0][m] || held[1][m];
    loop {
        let mut grown = false;
        for part in splits.iter().flat_map(|s| &s.parts) {
            if part.masses.iter().any(|&m| inside[m]) && !part.masses.iter().all(|&m| inside[m]) {
                part.masses.iter().for_each(|&m| inside[m] = true);
                grown = true;
            }
        }
        for m in 0..n {
            if !inside[m] && stop(m) && neighbours(m).any(|j| inside[j]) {
                (inside[m], grown) = (true, true);
            }
        }
        if !grown {
            break;
        }
    }
    let masses: Vec<usize> = (0..n).filter(|&m| inside[m]).collect();
    let direct = |m: usize| splits.iter().any(|s| s.direct.binary_search(&m).is_ok());
    let tapped = |m: usize| pickups.taps().any(|tap| tap.1 == m);
    let edge = |m: usize| stop(m) && (neighbours(m).any(|j| !inside[j]) || tapped(m));
    if masses.iter().any(|&m| direct(m) || edge(m)) {
        return None;
    }
    let at = match regions.iter().position(|r| r.masses == masses) {
        Some(at) => at,
        None if regions.iter().any(|r| r.masses.iter().any(|&m| inside[m])) => return None,
        None => {
            regions.push(Region::new(systems[0], masses, pickups));
            regions.len() - 1
        }
    };
    for k in 0..2 {
        regions[at].add(systems[k], networks[k], splits[k], held[k]);
    }
    Some(())
}

/// Prepares, for `systems[1]` (`systems[0]`, split as `base`, with the same stops and some
/// links or mode damping scales changed: a tension or a damping set), each piece of the base's
/// split with a mass whose links changed as a region of its own, with the base's variant alone,
/// where the piece runs in a uniform string's modes: any tension and damping set on it are then
/// a retune of that variant ([`PartsStage::retune`]), the direct masses beside it (a bridge)
/// set by the retune too. A piece in a region already, or in another's, is left as it is.
pub(super) fn prepare_retunes(
    regions: &mut Vec<Region>,
    systems: [&System; 2],
    base: &Configuration,
    pickups: &Pickups,
) {
    let n = base.network.mass.len();
    let mut changed = vec![false; n];
    let [mine, theirs] = systems;
    for (links, other) in [(mine.springs(), theirs.springs()), (mine.dampers(), theirs.dampers())] {
        if links.coefficient.len() != other.coefficient.len() {
            return;
        }
        for e in (0..links.a.len()).filter(|&e| links.coefficient[e] != other.coefficient[e]) {
            for end in [links.a[e], links.b[e]] {
                if let Some(changed) = changed.get_mut(end as usize) {
                    *changed = true;
                }
            }
        }
    }
    for (m, changed) in changed.iter_mut().enumerate() {
        *changed |= mine.mode_damping_scale(m) != theirs.mode_damping_scale(m);
    }
    for piece in &base.split.parts {
        let uniform = piece.blocks.iter().all(|b| b.uniform);
        let taken = |r: &Region| r.masses.iter().any(|m| piece.masses.binary_search(m).is_ok());
        if !uniform || regions.iter().any(taken) || !piece.masses.iter().any(|&m| changed[m]) {
            continue;
        }
        let mut region = Region::new(mine, piece.masses.clone(), pickups);
        region.add(mine, &base.network, &base.split, &base.held);
        regions.push(region);
    }
}

/// Puts each region whose stops, links and drags match one of its variants (every piece with
/// a mass in it lying in it) into `split` as that variant's part, its pieces taken out; returns
/// each part's room in the kernel (none for the others).
pub(super) fn place(regions: &mut [Region], system: &System, held: &[bool], split: &mut Split) -> Vec<Room> {
    let mut placed = Vec::new();
    for (r, region) in regions.iter_mut().enumerate() {
        (region.running, region.dirty) = (None, false);
        let inside = |m: &usize| region.masses.binary_search(m).is_ok();
        let whole = split.parts.iter().all(|p| p.masses.iter().all(inside) || !p.masses.iter().any(inside));
        let variant = region.variant(system, |m| held[m]);
        if let Some((v, prepared)) = variant.filter(|_| whole && !split.direct.iter().any(inside)) {
            // In the place of its first piece: the parts keep the order the split gave them.
            let at =
                split.parts.iter().position(|p| p.masses.iter().any(inside)).unwrap_or(split.parts.len());
            split.parts.retain(|p| !p.masses.iter().any(inside));
            split.parts.insert(at, Arc::clone(&region.variants[v].part));
            placed.push((r, v));
            region.tuned = !prepared;
        }
    }
    let mut rooms = vec![Room::default(); split.parts.len()];
    for (r, v) in placed {
        let region = &mut regions[r];
        let part = split.parts.iter().position(|p| Arc::ptr_eq(p, &region.variants[v].part));
        let part = part.expect("a placed region's part");
        rooms[part] = region.room();
        region.running = Some((part, v));
        region.deviation.clear();
        region.deviation.extend_from_slice(&region.variants[v].part.deviation);
    }
    rooms
}

impl Region {
    /// The region of `masses` in `system`, with no variant yet.
    fn new(system: &System, masses: Vec<usize>, pickups: &Pickups) -> Self {
        let inside = |node: u32| masses.binary_search(&(node as usize)).is_ok();
        let ends = |links: &crate::system::LinkArrays| -> Vec<usize> {
            (0..links.a.len()).filter(|&e| inside(links.a[e]) || inside(links.b[e])).collect()
        };
        let (springs, dampers) = (ends(system.springs()), ends(system.dampers()));
        let mut tap_groups = Vec::new();
        for (channel, coordinate, quantity, _) in pickups.taps() {
            if masses.binary_search(&coordinate).is_ok() && !tap_groups.contains(&(channel, quantity)) {
                tap_groups.push((channel, quantity));
            }
        }
        let mut touching = masses.clone();
        for links in [system.springs(), system.dampers()] {
            for e in 0..links.a.len() {
                let (a, b) = (links.a[e] as usize, links.b[e] as usize);
                if masses.binary_search(&a).is_ok() || masses.binary_search(&b).is_ok() {
                    touching.extend([a, b]);
                }
            }
        }
        touching.retain(|&m| m < system.mass_count());
        touching.sort_unstable();
        touching.dedup();
        let (running, dirty, tuned, deviation) = (None, false, false, Vec::new());
        Self {
            masses,
            springs,
            dampers,
            variants: Vec::new(),
            tap_groups,
            running,
            dirty,
            tuned,
            touching,
            deviation,
        }
    }

    /// Adds the variant `system` (with `network`, split as `split`, the masses `held` stopped)
    /// is in, unless it has it.
    fn add(&mut self, system: &System, network: &Network, split: &Split, held: &[bool]) {
        if self.variant(system, |m| held[m]).is_some() {
            return;
        }
        let inside = |m: &usize| self.masses.binary_search(m).is_ok();
        let pieces: Vec<&PartModes> =
            split.parts.iter().filter(|p| p.masses.iter().any(inside)).map(|p| &**p).collect();
        let part = PartModes::union(network, &pieces);
        let touched = touched_masses(network, &part, |j| !inside(&j) && !held[j]);
        let r = part.modes();
        // `Phi_j^T D Phi_j` for every mode, each entry of `D` visited once.
        let mode_rates = || {
            let mut rates = vec![0.0; r];
            for (i, &mass) in part.masses.iter().enumerate() {
                for &(col, d) in &network.mode_damping.0[mass] {
                    let Ok(l) = part.masses.binary_search(&col) else { continue };
                    let (a, b) = (&part.shapes[i * r..(i + 1) * r], &part.shapes[l * r..(l + 1) * r]);
                    for ((rate, a), b) in rates.iter_mut().zip(a).zip(b) {
                        *rate += a * d * b;
                    }
                }
            }
            rates
        };
        let mode_rates = part.blocks.iter().all(|b| b.uniform).then(mode_rates);
        let rows = [&network.stiffness, &network.damping, &network.mode_damping]
            .map(|rows| self.masses.iter().map(|&m| rows.0[m].clone()).collect());
        let mut rest = vec![0.0; system.initial_state().x.len()];
        crate::forces::conservative(system, &vec![0.0; rest.len()], &mut rest);
        let variant = Variant {
            stopped: self.masses.iter().copied().filter(|&m| held[m]).collect(),
            links: self.links(system).collect(),
            scales: self.masses.iter().map(|&m| system.mode_damping_scale(m)).collect(),
            part: Arc::new(part),
            touched,
            rows,
            drag: self.masses.iter().map(|&m| system.drag().get(m).copied().unwrap_or(0.0)).collect(),
            rest: self.masses.iter().map(|&m| rest[m]).collect(),
            mode_rates,
        };
        let deviations = variant.part.deviation.len();
        self.deviation.reserve(deviations.saturating_sub(self.deviation.len()));
        self.variants.push(variant);
    }

    /// Its variants.
    pub(super) fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// The values of its springs' stiffnesses and its dampers' coefficients in `system`.
    fn links<'a>(&'a self, system: &'a System) -> impl Iterator<Item = f64> + Clone + 'a {
        let springs = self.springs.iter().map(|&e| system.springs().coefficient[e]);
        springs.chain(self.dampers.iter().map(|&e| system.dampers().coefficient[e]))
    }

    /// The variant `system` is in, its masses `stopped` or not, if prepared: the one with
    /// those stops whose links and mode damping scales are also the system's (`true`), else one
    /// with those stops that a retune sets to the system's (`false`).
    fn variant(&self, system: &System, stopped: impl Fn(usize) -> bool) -> Option<(usize, bool)> {
        let stops =
            |v: &Variant| self.masses.iter().all(|&m| stopped(m) == v.stopped.binary_search(&m).is_ok());
        let prepared = |v: &Variant| {
            let scale = |(i, &m): (usize, &usize)| system.mode_damping_scale(m) == v.scales[i];
            v.links.iter().copied().eq(self.links(system)) && self.masses.iter().enumerate().all(scale)
        };
        let exact = self.variants.iter().position(|v| stops(v) && prepared(v));
        let retuned = || self.variants.iter().position(|v| stops(v) && v.mode_rates.is_some());
        exact.map(|v| (v, true)).or_else(|| retuned().map(|v| (v, false)))
    }

    /// Its room in the kernel: the most modes, touched masses and row entries of a variant.
    fn room(&self) -> Room {
        let mut room = Room { swaps: self.variants.len() > 1, ..Room::default() };
        for v in &self.variants {
            room.modes = room.modes.max(v.part.modes());
            room.touched = room.touched.max(v.touched.len());
            for &local in &v.touched {
                let i = self.masses.binary_search(&v.part.masses[local]).expect("a region mass");
                let deviation = v.part.deviation.iter().filter(|e| e.0 == local).count();
                room.row = room.row.max(v.rows[0][i].len() + v.rows[1][i].len() + deviation);
            }
        }
        room
    }
}

impl PartsStage {
    /// Prepares the regions in which each of `variants` (the system with some stops and links
    /// changed, and its stopped masses) differs from `system` as it runs now (see the module),
    /// and splits the network again with room for them.
    pub(super) fn prepare_regions(
        &mut self,
        system: &System,
        variants: &mut dyn Iterator<Item = (System, Vec<usize>)>,
    ) {
        let stopped: Vec<usize> = self.stopped.iter().map(|s| s.0).collect();
        let Some(base) = Configuration::new(system, &stopped, &mut self.kept) else { return };
        for (variant, variant_stopped) in variants {
            if same_masses(&variant_stopped, &stopped) {
                prepare_retunes(&mut self.regions, [system, &variant], &base, &self.pickups);
                continue;
            }
            if let Some(configuration) = Configuration::new(&variant, &variant_stopped, &mut self.kept) {
                let _ =
                    prepare(&mut self.regions, [system, &variant], [&base, &configuration], &self.pickups);
            }
        }
        // Split again now, with room for the regions (not at the next block, during play).
        self.restopped = true;
        self.take_changes(system);
    }

    /// Swaps each changed region, in place, to the variant its stops and links now match;
    /// `false` where one matches none or runs as no part.
    pub(super) fn take_regions(&mut self, system: &System) -> bool {
        for r in 0..self.regions.len() {
            if !self.regions[r].dirty {
                continue;
            }
            let region = &self.regions[r];
            let Some((part, running)) = region.running else { return false };
            let Some((next, prepared)) = region.variant(system, |m| self.stopped.iter().any(|s| s.0 == m))
            else {
                return false;
            };
            if next != running {
                self.swap(r, part, [running, next]);
            }
            // The links as prepared, or set to the system's in place.
            let tuned = self.regions[r].tuned;
            if (!prepared || tuned) && !self.retune(system, r) {
                return false;
            }
            self.regions[r].dirty = false;
        }
        true
    }

    /// Swaps region `r`, running as kernel part `part`, from variant `variants[0]` to
    /// `variants[1]`: its rows, places, sources, drags and forces at rest, then the kernel's
    /// part (modes, amplitudes and rates from the masses' motions, shares, probes, rows).
    fn swap(&mut self, r: usize, part: usize, [from, to]: [usize; 2]) {
        let mut regions = std::mem::take(&mut self.regions);
        let region = &mut regions[r];
        self.scratch.clear();
        for &m in &region.masses {
            let (x, v) = self.motion(m);
            self.scratch.extend([x, v]);
        }
        let touched_room = region.room().touched;
        let (low, high) = region.variants.split_at_mut(from.max(to));
        let (old, new) =
            if from < to { (&mut low[from], &mut high[0]) } else { (&mut high[0], &mut low[to]) };
        for (i, &m) in region.masses.iter().enumerate() {
            let network = &mut self.network;
            let rows = [&mut network.stiffness, &mut network.damping, &mut network.mode_damping];
            for (k, rows) in rows.into_iter().enumerate() {
                std::mem::swap(&mut rows.0[m], &mut new.rows[k][i]);
                std::mem::swap(&mut new.rows[k][i], &mut old.rows[k][i]);
            }
        }
        let modes = Arc::clone(&new.part);
        for (i, &m) in region.masses.iter().enumerate() {
            self.place[m] = match modes.masses.binary_search(&m) {
                Ok(local) => Place::Part(part, local),
                Err(_) => Place::Stopped(self.scratch[2 * i]),
            };
            self.source[m] = usize::MAX;
            (self.drag_built[m], self.drag_now[m]) = (new.drag[i], new.drag[i]);
        }
        let first = self.split.direct.len() + self.kernel.touched_start(part);
        for (k, &local) in new.touched.iter().enumerate() {
            self.source[modes.masses[local]] = first + k;
        }
        self.split.parts[part] = Arc::clone(&modes);
        region.deviation.clear();
        region.deviation.extend_from_slice(&modes.deviation);
        region.tuned = false;
        for (i, &m) in region.masses.iter().enumerate() {
            let stops = self.network.stiffness.0[m].iter().map(|&(j, k)| match self.place[j] {
                Place::Stopped(x) => k * x,
                _ => 0.0,
            });
            self.constant[m] = new.rest[i] - stops.sum::<f64>();
        }
        let mode = |j: usize| {
            let o = &modes.oscillators[j];
            CoupledMode { omega0_squared: o.omega0_squared, gamma: o.gamma }
        };
        self.kernel.set_part(part, modes.modes(), mode, new.touched.len());
        let index = |local: usize| region.masses.binary_search(&modes.masses[local]).expect("a region mass");
        let [q, p, share] = self.kernel.part_state(part);
        for (j, ((q, p), share)) in q.iter_mut().zip(p.iter_mut()).zip(share.iter_mut()).enumerate() {
            let within = j < modes.modes();
            let mass = |i: usize| self.network.mass[modes.masses[i]];
            *q = if within { project(&modes, j, |i| mass(i) * self.scratch[2 * index(i)]) } else { 0.0 };
            *p = if within { project(&modes, j, |i| mass(i) * self.scratch[2 * index(i) + 1]) } else { 0.0 };
            let force = |i: usize| self.constant[modes.masses[i]] + self.held[modes.masses[i]];
            *share = if within { project(&modes, j, force) } else { 0.0 };
        }
        for (k, &local) in new.touched.iter().enumerate() {
            let weights = self.kernel.probe_weights(part, k, false);
            weights.fill(0.0);
            weights[..modes.modes()].copy_from_slice(shape_of(&modes, local));
        }
        for k in 0..region.tap_groups.len() {
            self.kernel.probe_weights(part, k, true).fill(0.0);
        }
        for (channel, coordinate, quantity, weight) in self.pickups.taps() {
            let (Place::Part(_, local), Some(k)) =
                (self.place[coordinate], region.tap_groups.iter().position(|g| *g == (channel, quantity)))
            else {
                continue;
            };
            if region.masses.binary_search(&coordinate).is_ok() {
                let weights = self.kernel.probe_weights(part, k, true);
                for (w, s) in weights.iter_mut().zip(shape_of(&modes, local)) {
                    *w += weight * s;
                }
            }
        }
        for k in 0..touched_room {
            let row = self.kernel.row(first + k);
            match new.touched.get(k) {
                Some(&local) => {
                    let mass = modes.masses[local];
                    fill_row(
                        row,
                        &self.network,
                        &self.place,
                        &self.source,
                        mass,
                        Some((part, &modes.masses, &region.deviation)),
                    );
                }
                None => row.clear(),
            }
        }
        self.kernel.refresh_part(part);
        if !self.redragged.contains(&part) {
            self.redragged.push(part);
        }
        region.running = Some((part, to));
        self.regions = regions;
    }
}

/// Sets each running region's masses' drags (N s/m) in `drag` to those its variant's modes were
/// found with; returns the regions' parts.
pub(super) fn drags_found_with<'a>(
    regions: &'a [Region],
    drag: &'a mut [f64],
) -> impl Iterator<Item = usize> + 'a {
    regions.iter().filter_map(move |region| {
        let (part, v) = region.running?;
        for (i, &m) in region.masses.iter().enumerate() {
            drag[m] = region.variants[v].drag[i];
        }
        Some(part)
    })
}

/// Whether `a` and `b` hold the same masses, in any order.
fn same_masses(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().all(|m| b.contains(m))
}
