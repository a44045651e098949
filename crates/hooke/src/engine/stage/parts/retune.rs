//! Retuning a region in place: a tension or a damping set on a string on a body (a pitch bend,
//! a note's expression, the damping control), fretted or open. Where each piece of the region
//! runs in the sine modes of a uniform string (its reference `K_0 = k L + kappa L^2` and `C_0 =
//! Z L + gamma m I + D`, `L` the second difference with fixed ends), any `k`, `kappa`, `Z`,
//! `gamma` and mode damping scale keep those modes: `L` and `L^2` share the eigenvectors
//! `sin(i j pi / (n + 1))`, with the eigenvalues `lambda_j = 2 - 2 cos(j pi / (n + 1))` and
//! `lambda_j^2`. So a retune reads the string's constants from its rows as the system has them
//! now and sets each mode's `w_j^2 = (k lambda_j + kappa lambda_j^2) / m` and `gamma_j = (Z
//! lambda_j + gamma m) / m` plus `s D_j` (`D_j` its share of the mode damping as prepared, `s`
//! the scale's change); then the deviation from the reference, the forces at rest and the rows,
//! in place. Every entry of the rows is checked against the reference and the deviation first:
//! a change that is not a new tension or damping of the same strings is refused (the network is
//! then split again).

use super::regions::Region;
use super::{fill_row, project, PartsStage, Place};
use crate::analysis::parts::{Block, Network, PartModes, ROUNDING};
use crate::kernel::coupled::CoupledMode;
use crate::system::System;
use std::f64::consts::PI;
use std::sync::Arc;

/// A uniform piece's constants as its rows read at its middle mass: `k` (N/m), `kappa` (N/m),
/// `Z` (N s/m), its drag `gamma m` (N s/m) and mass `m` (kg).
struct Uniform {
    k: f64,
    kappa: f64,
    z: f64,
    drag: f64,
    mass: f64,
}

impl Uniform {
    /// The constants of the piece of `masses` (consecutive) in `network`, read as
    /// `analysis::parts` reads them for its reference.
    fn of(network: &Network, masses: impl Fn(usize) -> usize, n: usize) -> Self {
        let mid = masses(n / 2);
        let kappa = network.stiffness.get(mid, mid + 2);
        let own = |i: usize, j: usize| network.damping.get(i, j) - network.mode_damping.get(i, j);
        let z = -own(mid, mid + 1);
        let k = -network.stiffness.get(mid, mid + 1) - 4.0 * kappa;
        Self { k, kappa, z, drag: own(mid, mid) - 2.0 * z, mass: network.mass[mid] }
    }

    /// `(K_0, C_0 - D)` between the piece's masses `a` and `b` (indices along it, of `n`).
    fn reference(&self, a: usize, b: usize, n: usize) -> (f64, f64) {
        let second = |i: usize, j: usize| match i.abs_diff(j) {
            0 => 2.0,
            1 => -1.0,
            _ => 0.0,
        };
        let near = a.saturating_sub(1)..(a + 2).min(n);
        let squared: f64 = near.map(|l| second(a, l) * second(l, b)).sum();
        let drag = if a == b { self.drag } else { 0.0 };
        (self.k * second(a, b) + self.kappa * squared, self.z * second(a, b) + drag)
    }

    /// Mode `j`'s (0-based) `w^2` and `gamma` without the mode damping, of a piece of `n`.
    fn mode(&self, j: usize, n: usize) -> (f64, f64) {
        let lambda = 2.0 - 2.0 * ((j + 1) as f64 * PI / (n + 1) as f64).cos();
        let w2 = (self.k * lambda + self.kappa * lambda * lambda) / self.mass;
        (w2, (self.z * lambda + self.drag) / self.mass)
    }

    /// The largest entries of the reference's `K_0` and `C_0 - D`, for the rounding bound.
    fn top(&self) -> (f64, f64) {
        ((2.0 * self.k).abs() + (6.0 * self.kappa).abs(), (2.0 * self.z).abs() + self.drag.abs())
    }
}

impl PartsStage {
    /// Sets region `r`'s running part to the links, drags and mode damping scale the system has
    /// now, its modes' shapes kept (see the module); `false` where it cannot, having set part
    /// of it (the network is then split again).
    pub(super) fn retune(&mut self, system: &System, r: usize) -> bool {
        let mut regions = std::mem::take(&mut self.regions);
        let retuned = self.retune_region(system, &mut regions[r]);
        self.regions = regions;
        retuned
    }

    fn retune_region(&mut self, system: &System, region: &mut Region) -> bool {
        let Some((part, v)) = region.running else { return false };
        let variant = &region.variants()[v];
        let (Some(mode_rates), modes) = (&variant.mode_rates, Arc::clone(variant.part())) else {
            return false;
        };
        let inside = |m: usize| region.masses.binary_search(&m).is_ok();
        let direct = |m: &usize| inside(*m) || matches!(self.place[*m], Place::Direct(_));
        if !region.touching.iter().all(direct)
            || !self.network.refresh(system, &region.touching, &self.at_rest[0])
        {
            return false;
        }
        for block in &modes.blocks {
            let n = block.masses.len();
            let uniform = Uniform::of(&self.network, |i| modes.masses[block.masses[i]], n);
            let mid = region.masses.binary_search(&modes.masses[block.masses[n / 2]]).expect("a region mass");
            let ratio = match (system.mode_damping_scale(region.masses[mid]), variant.scale(mid)) {
                (Some(now), Some(then)) if then != 0.0 => now / then,
                (now, then) if now == then => 1.0,
                _ => return false,
            };
            if !matches_reference(&self.network, &modes, block, &uniform) {
                return false;
            }
            for (j, mode) in block.modes.clone().enumerate() {
                let (w2, gamma) = uniform.mode(j, n);
                let gamma = gamma + ratio * mode_rates[mode];
                self.kernel.set_mode(
                    part,
                    mode,
                    CoupledMode { omega0_squared: w2.max(0.0), gamma: gamma.max(0.0) },
                );
            }
        }
        region.deviation.clear();
        for &(i, j, _, _) in &modes.deviation {
            let (a, b) = (modes.masses[i], modes.masses[j]);
            let (mut k, mut c) = (self.network.stiffness.get(a, b), self.network.damping.get(a, b));
            if let Some((block, ia, ib)) = same_block(&modes, i, j) {
                let n = block.masses.len();
                let (k0, c0) =
                    Uniform::of(&self.network, |l| modes.masses[block.masses[l]], n).reference(ia, ib, n);
                (k, c) = (k - k0, c - c0 - self.network.mode_damping.get(a, b));
            }
            region.deviation.push((i, j, k, c));
        }
        self.set_rest_forces(system, region, part, &modes);
        let first = self.split.direct.len() + self.kernel.touched_start(part);
        for t in 0..self.kernel.inputs(part) {
            let Some(mass) = modes.masses.iter().copied().find(|&m| self.source[m] == first + t) else {
                return false;
            };
            let row_part = Some((part, &modes.masses[..], &region.deviation[..]));
            fill_row(self.kernel.row(first + t), &self.network, &self.place, &self.source, mass, row_part);
        }
        for &m in &region.touching {
            if let Place::Direct(d) = self.place[m] {
                fill_row(self.kernel.row(d), &self.network, &self.place, &self.source, m, None);
            }
            let drag = system.drag().get(m).copied().unwrap_or(0.0);
            (self.drag_built[m], self.drag_now[m]) = (drag, drag);
        }
        self.kernel.refresh_part(part);
        region.tuned = true;
        true
    }

    /// The forces at rest on the region's masses and the direct masses joined to them (anchors
    /// and gravity with the links now, less the links to the stopped masses), and the part's
    /// shares of them with the held forces; a direct mass's change added to its force.
    fn set_rest_forces(&mut self, system: &System, region: &Region, part: usize, modes: &PartModes) {
        let [zeros, rest] = &mut self.at_rest;
        crate::forces::conservative(system, zeros, rest);
        for &m in &region.touching {
            let stops = self.network.stiffness.0[m].iter().map(|&(j, k)| match self.place[j] {
                Place::Stopped(x) => k * x,
                _ => 0.0,
            });
            let now = rest[m] - stops.sum::<f64>();
            if let Place::Direct(d) = self.place[m] {
                self.kernel.add_to_direct_force(d, now - self.constant[m]);
            }
            self.constant[m] = now;
        }
        let [_, _, share] = self.kernel.part_state(part);
        for (j, share) in share.iter_mut().enumerate() {
            let force = |i: usize| self.constant[modes.masses[i]] + self.held[modes.masses[i]];
            *share = if j < modes.modes() { project(modes, j, force) } else { 0.0 };
        }
    }
}

/// Whether every entry of the rows of `block`'s masses within it is the uniform reference's,
/// to rounding, or in the part's deviation.
fn matches_reference(network: &Network, modes: &PartModes, block: &Block, uniform: &Uniform) -> bool {
    let n = block.masses.len();
    let (k_top, c_top) = uniform.top();
    let along = |mass: usize| {
        let local = modes.masses.binary_search(&mass).ok()?;
        block.masses.binary_search(&local).ok().map(|at| (local, at))
    };
    let deviates = |i: usize, j: usize| modes.deviation.binary_search_by_key(&(i, j), |e| (e.0, e.1)).is_ok();
    block.masses.iter().enumerate().all(|(ia, &li)| {
        let a = modes.masses[li];
        let fits = |(j, value): (usize, f64), stiffness: bool| match along(j) {
            Some((lj, ib)) => {
                let (k0, c0) = uniform.reference(ia, ib, n);
                let (reference, top) =
                    if stiffness { (k0, k_top) } else { (c0 + network.mode_damping.get(a, j), c_top) };
                (value - reference).abs() <= ROUNDING * top || deviates(li, lj)
            }
            None => true,
        };
        network.stiffness.0[a].iter().all(|&e| fits(e, true))
            && network.damping.0[a].iter().all(|&e| fits(e, false))
    })
}

/// The block both local masses `i` and `j` of `modes` are in, with their indices along it.
fn same_block(modes: &PartModes, i: usize, j: usize) -> Option<(&Block, usize, usize)> {
    modes.blocks.iter().find_map(|block| {
        let (ia, ib) = (block.masses.binary_search(&i).ok()?, block.masses.binary_search(&j).ok()?);
        Some((block, ia, ib))
    })
}
