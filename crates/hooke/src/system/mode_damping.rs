//! Mode dampings compiled ([`crate::model::ModeDamping`]): each string's rate per sine mode,
//! kept as given, and the dense blocks the forces read, rebuilt when a mass of the string is
//! stopped or let go.
//!
//! A stopped mass (a fret's stop) cuts a string in two, each side a shorter uniform string with
//! fixed ends of its own: each side's block is the mode damping of that string, its mode `j'` of
//! `n'` masses at the wavenumber `theta' = j' pi / (n' + 1)` taking the rate the whole string has
//! at `theta'` (linear between the whole string's modes `theta_j = j pi / (N + 1)`; below the
//! first, its rate). On the same lattice the dispersion depends on `theta` alone, so each side's
//! modes decay as the whole string's law says at their own frequencies, and each side's block
//! stays diagonal in its own modes (which the coupled modal path needs).
//!
//! Blocks made for other stops and scales before play are *parked* ([`ModeDampingSource::park`])
//! and taken back when the string comes to them again, swapped with the blocks in use, so that
//! a fret pressed during play allocates nothing.

use super::{DenseDamping, System};
use crate::model::{sine_modes, Model};

/// A string's mode damping as given, and which of its masses are stopped.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ModeDampingSource {
    /// The masses' node indices, in order along the string.
    masses: Vec<u32>,
    /// `gamma_j`, 1/s, of the whole string's modes `j = 1 ..= N`.
    rates: Vec<f64>,
    /// Each mass, kg (all equal).
    mass: f64,
    /// Whether each mass is stopped.
    stopped: Vec<bool>,
    /// The factor on every rate (an event's; 1 as built).
    scale: f64,
    /// The dense blocks of the runs between stops.
    blocks: Vec<DenseDamping>,
    /// The stops and scale `blocks` were made for.
    made_for: (Vec<bool>, f64),
    /// Blocks made for other stops and scales, with theirs.
    parked: Vec<(Vec<bool>, f64, Vec<DenseDamping>)>,
}

impl ModeDampingSource {
    /// The model's mode dampings that damp anything.
    pub(super) fn of(model: &Model, node_index: impl Fn(usize) -> u32) -> Vec<Self> {
        let damping = model.mode_dampings().iter().filter(|d| d.rates.iter().any(|&r| r > 0.0));
        damping
            .map(|d| {
                let mut source = Self {
                    masses: d.masses.iter().map(|&i| node_index(i)).collect(),
                    rates: d.rates.clone(),
                    mass: model.masses()[d.masses[0]].mass,
                    stopped: vec![false; d.masses.len()],
                    scale: 1.0,
                    blocks: Vec::new(),
                    made_for: (vec![false; d.masses.len()], 1.0),
                    parked: Vec::new(),
                };
                source.blocks = source.runs();
                source
            })
            .collect()
    }

    /// Stops or lets go node `node` if it is one of this string's masses (its blocks rebuilt);
    /// whether that changed anything.
    pub(super) fn set_stopped(&mut self, node: u32, stopped: bool) -> bool {
        match self.masses.iter().position(|&m| m == node) {
            Some(at) if self.stopped[at] != stopped => {
                self.stopped[at] = stopped;
                self.remake();
                true
            }
            _ => false,
        }
    }

    /// Sets the factor on every rate (its blocks rebuilt or scaled); whether that changed
    /// anything.
    pub(super) fn set_scale(&mut self, scale: f64) -> bool {
        if self.scale == scale {
            return false;
        }
        let old = self.scale;
        self.scale = scale;
        let parked = self.parked.iter().any(|p| p.0 == self.stopped && p.1 == scale);
        if !parked && old != 0.0 && self.made_for.0 == self.stopped && self.made_for.1 == old {
            // The blocks in use scaled in place (a damping control moving during play).
            self.scale_blocks(scale / old);
            self.made_for.1 = scale;
        } else {
            self.remake();
        }
        true
    }

    /// The factor on every rate.
    pub(super) fn scale(&self) -> f64 {
        self.scale
    }

    /// Each node's mode damping in `dampings` (an index; `u32::MAX`: none), for the nodes up
    /// to the last in one.
    pub(super) fn index(dampings: &[Self]) -> Vec<u32> {
        let nodes = dampings.iter().flat_map(|d| &d.masses).map(|&node| node as usize + 1).max();
        let mut index = vec![u32::MAX; nodes.unwrap_or(0)];
        for (i, damping) in dampings.iter().enumerate() {
            damping.masses.iter().for_each(|&node| index[node as usize] = i as u32);
        }
        index
    }

    /// The blocks for the stops and scale now: parked ones made for those stops swapped in
    /// (the blocks in use parked in their place, nothing allocated) and scaled to the scale
    /// now where made for another, else made.
    fn remake(&mut self) {
        let exact = self.parked.iter().position(|p| p.0 == self.stopped && p.1 == self.scale);
        let scalable = || self.parked.iter().position(|p| p.0 == self.stopped && p.1 != 0.0);
        match exact.or_else(scalable) {
            Some(at) => {
                let parked = &mut self.parked[at];
                std::mem::swap(&mut parked.2, &mut self.blocks);
                let factor = self.scale / parked.1;
                parked.0.copy_from_slice(&self.made_for.0);
                parked.1 = self.made_for.1;
                self.scale_blocks(factor);
            }
            None => self.blocks = self.runs(),
        }
        self.made_for.0.copy_from_slice(&self.stopped);
        self.made_for.1 = self.scale;
    }

    /// Multiplies the blocks in use by `factor`, in place.
    fn scale_blocks(&mut self, factor: f64) {
        if factor != 1.0 {
            for block in &mut self.blocks {
                block.matrix.iter_mut().for_each(|d| *d *= factor);
            }
        }
    }

    /// Parks the blocks of `other` (this string in another system: its stops and scale),
    /// unless they are those in use or parked already.
    pub(super) fn park(&mut self, other: &Self) {
        let same = |stopped: &[bool], scale: f64| stopped == other.stopped && scale == other.scale;
        if same(&self.made_for.0, self.made_for.1) || self.parked.iter().any(|p| same(&p.0, p.1)) {
            return;
        }
        self.parked.push((other.stopped.clone(), other.scale, other.blocks.clone()));
    }

    /// The dense blocks of the runs between stops.
    pub(super) fn blocks(&self) -> &[DenseDamping] {
        &self.blocks
    }

    /// The blocks of the runs of masses between stops.
    fn runs(&self) -> Vec<DenseDamping> {
        let (mut blocks, mut start) = (Vec::new(), 0);
        for at in 0..=self.masses.len() {
            if at == self.masses.len() || self.stopped[at] {
                if at > start {
                    blocks.push(self.block(&self.masses[start..at]));
                }
                start = at + 1;
            }
        }
        blocks
    }

    /// The block over `run` (consecutive masses of the string, none stopped).
    fn block(&self, run: &[u32]) -> DenseDamping {
        let n = run.len();
        let shapes = sine_modes(n);
        let mut matrix = vec![0.0; n * n];
        for (j, gamma) in run_rates(&self.rates, n).into_iter().enumerate() {
            let mode = &shapes[j * n..(j + 1) * n];
            for (row, &a) in matrix.chunks_exact_mut(n).zip(mode) {
                for (entry, &b) in row.iter_mut().zip(mode) {
                    *entry += self.scale * self.mass * gamma * a * b;
                }
            }
        }
        DenseDamping { masses: run.to_vec(), matrix }
    }
}

/// The rate (1/s) of each mode of a run of `n` masses of a string whose whole modes have the
/// rates `whole` (see the module): mode `j'` takes the whole string's rate at mode number `u =
/// j' (N + 1) / (n + 1)`, `gamma_u` at whole `u`, linear between, the first mode's below it
/// and the last's above. A run of the whole string keeps its rates.
pub fn run_rates(whole: &[f64], n: usize) -> Vec<f64> {
    let last = whole.len();
    let rate_at = |u: f64| {
        if u <= 1.0 {
            return whole[0];
        }
        if u >= last as f64 {
            return whole[last - 1];
        }
        let below = u.floor() as usize;
        let t = u - below as f64;
        if t == 0.0 {
            whole[below - 1]
        } else {
            (1.0 - t) * whole[below - 1] + t * whole[below]
        }
    };
    (1..=n).map(|j| rate_at((j * (last + 1)) as f64 / (n + 1) as f64)).collect()
}

/// A system's mode dampings, as the engine and the paths set and read them.
impl System {
    /// The mode dampings' dense blocks, one per run of a string's masses between stops (those
    /// with every rate 0 are left out).
    pub fn dense_dampings(&self) -> impl Iterator<Item = &DenseDamping> + '_ {
        self.mode_dampings.iter().flat_map(ModeDampingSource::blocks)
    }

    /// Whether any mass is in a mode damping.
    pub fn has_mode_damping(&self) -> bool {
        !self.mode_dampings.is_empty()
    }

    /// Stops or lets go mass `mass` in its string's mode damping, if it has one (see
    /// `mode_damping`: each side of a stop is damped in its own modes). A mass is in one mode
    /// damping at most.
    pub(crate) fn set_mode_damping_stop(&mut self, mass: usize, stopped: bool) {
        let node = u32::try_from(mass).expect("more than 2^32 nodes");
        if let Some(d) = self.mode_damping_at(mass) {
            if self.mode_dampings[d].set_stopped(node, stopped) {
                self.revision += 1;
            }
        }
    }

    /// The factor on the mode damping of the string mass `mass` is in, if it is in one.
    pub fn mode_damping_scale(&self, mass: usize) -> Option<f64> {
        Some(self.mode_dampings[self.mode_damping_at(mass)?].scale())
    }

    /// The index of the mode damping mass `mass` is in, if it is in one.
    fn mode_damping_at(&self, mass: usize) -> Option<usize> {
        self.mode_damping_of.get(mass).filter(|&&d| d != u32::MAX).map(|&d| d as usize)
    }

    /// Keeps the mode damping blocks `other` (this system with other stops or scales) has, to
    /// be taken in place when this system comes to the same stops and scales.
    pub(crate) fn park_mode_dampings(&mut self, other: &System) {
        for (mine, theirs) in self.mode_dampings.iter_mut().zip(&other.mode_dampings) {
            mine.park(theirs);
        }
    }

    /// Scales the mode damping of the string mass `mass` is in (every rate times `scale`), if
    /// it is in one.
    pub(crate) fn set_mode_damping_scale(&mut self, mass: usize, scale: f64) {
        if let Some(d) = self.mode_damping_at(mass) {
            if self.mode_dampings[d].set_scale(scale) {
                self.revision += 1;
            }
        }
    }
}
