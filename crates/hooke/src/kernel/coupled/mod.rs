//! The coupled modal kernel: symplectic Euler on a linear network split into parts advanced in
//! their own modes and a few masses stepped directly (`analysis::parts` makes the split).
//!
//! A step from the state at step `n` (Morgan & Qiao 2009, eq. (26), mode by mode):
//!
//! ```text
//! f_r  = b_r - sum_s (K_rs x_s + C_rs v_s)        every coupling row r, sources s at step n
//! v_d' = v_d + h f_d / m_d,  x_d' = x_d + h v_d'  each direct coordinate d
//! p_j' = p_j + h (S_j + sum_t Phi_tj f_t - w_j^2 q_j - gamma_j p_j),  q_j' = q_j + h p_j'
//! x_t' = sum_j Phi_tj q_j',  v_t' = sum_j Phi_tj p_j'
//! ```
//!
//! The rows are the direct coordinates' (every force on them: `b` their constant and held
//! forces) and the touched coordinates' (the entries no part's modes hold: couplings between
//! parts, to direct masses, a part's deviation from its reference); the sources are the direct
//! and touched coordinates. Modes `j` have modal mass 1; `S_j` is mode `j`'s share of its
//! part's constant and held forces. Every force is taken at the step's start, as symplectic
//! Euler takes it, so the step is the network's to rounding.
//!
//! Each part's modes run in two passes per step: the input from its touched coordinates (up to
//! three read in the same pass) and the update, a loop over whole slices that the compiler
//! vectorises; then the sums that read its touched coordinates and the pickups' taps on it (its
//! *probes*), four probes at a time in eight-lane sums so that no addition waits on the one
//! before it. Multiply-adds are fused where the CPU has them. Taps on direct or touched
//! coordinates are read from the sources, which the step has anyway, merged by source and
//! summed channel by channel.
//!
//! Parts that only direct coordinates drive and read (a piano's strings on their bridge) run a
//! block of steps at a time instead ([`blocked`]), their modes read once a block.

mod blocked;
mod sums;

use super::Real;
use crate::quantity::Quantity;
use blocked::{Far, FEWEST_IN_BLOCKS};
use std::array::from_fn;
use std::ops::Range;
use sums::{finite, group_sums, lanes, probe_sums, row_sum, step_part, LANES};

/// One mode: `w^2` (1/s^2) and `gamma` (1/s), with modal mass 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoupledMode {
    /// `w^2`, 1/s^2.
    pub omega0_squared: f64,
    /// `gamma`, 1/s.
    pub gamma: f64,
}

/// A weighted sum over one part's modes (`sum_j w_j q_j` and `sum_j w_j p_j`): a touched
/// coordinate's position and velocity (`w = Phi_t`), or the taps of a channel on the part.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The part (index into the kernel's parts).
    pub part: usize,
    /// The weights over the part's modes (1/sqrt(kg) for a coordinate).
    pub weights: Vec<f64>,
}

/// One coupling row: `f = b - sum (k x_s + c v_s)` over `(source, k, c)` entries, sources
/// numbered direct coordinates first, then touched ones.
pub type Row = Vec<(usize, f64, f64)>;

/// The network as the kernel takes it.
#[derive(Debug, Clone)]
pub struct CoupledNetwork {
    /// Each part's modes.
    pub parts: Vec<Vec<CoupledMode>>,
    /// Each part's room for modes (at least its modes; a part swapped in place later may have
    /// up to this many: [`CoupledKernel::set_part`]).
    pub room: Vec<usize>,
    /// The touched coordinates, each a probe of its part that its row also drives, part by
    /// part; those with no weights are room for a part swapped in place, unused now.
    pub touched: Vec<Probe>,
    /// The rows, direct coordinates first, then touched ones.
    pub rows: Vec<Row>,
    /// Each direct coordinate's inverse mass, 1/kg.
    pub inverse_mass: Vec<f64>,
}

/// The pickups as the kernel reads them: per channel, taps on sources (direct and touched
/// coordinates) `(source, quantity, weight)` and probes on parts, read as positions (`q`) or
/// velocities.
#[derive(Debug, Clone, Default)]
pub struct CoupledTaps {
    /// `(channel, source, quantity, weight)`, sources numbered as the rows' (direct coordinates
    /// first, then touched ones).
    pub sources: Vec<(usize, usize, Quantity, f64)>,
    /// `(channel, probe, quantity)`.
    pub modal: Vec<(usize, Probe, Quantity)>,
}

/// One part as stepped: its padded range of modes, its inputs (touched coordinates) and its
/// probes (touched coordinates first, then taps), each a padded weight row in `weights`.
#[derive(Debug, Clone)]
struct Part {
    modes: Range<usize>,
    /// The touched coordinates it has room for (their rows are `direct + t`).
    touched: Range<usize>,
    /// Touched coordinates in use: the first of `touched`.
    inputs: Vec<usize>,
    /// Where each probe in use starts in `weights`.
    probes: Vec<usize>,
    /// Where its first touched coordinate's weights start in `weights` (its taps' follow the
    /// room for every touched one).
    rows_at: usize,
    /// Its taps' count.
    taps: usize,
}

/// The coupled modal kernel's state and scratch.
#[derive(Debug, Clone)]
pub struct CoupledKernel {
    parts: Vec<Part>,
    rows: Vec<Row>,
    inverse_mass: Vec<f64>,
    dt: f64,
    /// Per mode: `h w^2` and `1 - h gamma` (padding: 0 and 1).
    stiffness: Vec<f64>,
    decay: Vec<f64>,
    /// Per mode: `gamma` as built, 1/s (padding: 0).
    gamma: Vec<f64>,
    /// Modal amplitudes `q` (sqrt(kg) m) and rates `p` (sqrt(kg) m/s).
    q: Vec<f64>,
    p: Vec<f64>,
    /// Each mode's share of its part's constant and held forces, N.
    share: Vec<f64>,
    /// Probe weight rows, padded like the modes.
    weights: Vec<f64>,
    /// Each direct coordinate's position (m), velocity (m/s) and constant plus held force (N).
    x: Vec<f64>,
    v: Vec<f64>,
    base: Vec<f64>,
    /// Every source's position and velocity at the step's start.
    source_x: Vec<f64>,
    source_v: Vec<f64>,
    force: Vec<f64>,
    /// Every mode's input, N (scratch).
    input: Vec<f64>,
    /// Every probe's last sums (`q` and `p`), by part and probe in use.
    probed: Vec<[f64; 2]>,
    /// Where each part's probes start in `probed`.
    probed_at: Vec<usize>,
    /// Taps: `(channel, source, quantity, weight)` on sources, and `(channel, part, tap,
    /// quantity)` on parts (the part's tap-th tap probe).
    source_taps: Vec<(usize, usize, Quantity, f64)>,
    modal_taps: Vec<(usize, usize, usize, Quantity)>,
    backup: Vec<f64>,
    /// The parts advanced a block of steps at a time, and the block's records.
    far: Far,
}

impl CoupledKernel {
    /// The kernel for `network` with step `dt` (s), from each part's modal amplitudes `q`
    /// (sqrt(kg) m), rates `p` and shares `share` (N), the direct coordinates' `x` (m), `v`
    /// (m/s) and constant plus held forces `base` (N), read by `taps`.
    pub fn new(
        network: CoupledNetwork,
        dt: f64,
        [q, p, share]: [Vec<Vec<f64>>; 3],
        [x, v, base]: [Vec<f64>; 3],
        taps: CoupledTaps,
    ) -> Self {
        let padded = |n: usize| n.div_ceil(LANES) * LANES;
        let (mut parts, mut weights) = (Vec::new(), Vec::new());
        let (mut stiffness, mut decay, mut qs, mut ps, mut shares) = (vec![], vec![], vec![], vec![], vec![]);
        let mut gamma = Vec::new();
        let mut modal_taps = Vec::new();
        let mut probed_at = Vec::new();
        let mut probes_so_far = 0;
        for (i, modes) in network.parts.iter().enumerate() {
            let (start, size) = (stiffness.len(), padded(network.room[i].max(modes.len())));
            for (values, own) in [(&mut qs, &q[i]), (&mut ps, &p[i]), (&mut shares, &share[i])] {
                values.extend_from_slice(own);
                values.resize(start + size, 0.0);
            }
            stiffness.extend(modes.iter().map(|m| dt * m.omega0_squared));
            stiffness.resize(start + size, 0.0);
            decay.extend(modes.iter().map(|m| 1.0 - dt * m.gamma));
            decay.resize(start + size, 1.0);
            gamma.extend(modes.iter().map(|m| m.gamma));
            gamma.resize(start + size, 0.0);
            let touched: Vec<usize> =
                (0..network.touched.len()).filter(|&t| network.touched[t].part == i).collect();
            let touched = touched.first().map_or(0..0, |&t| t..t + touched.len());
            let rows_at = weights.len();
            let rows: Vec<usize> =
                touched.clone().map(|t| pad(&mut weights, &network.touched[t].weights, size)).collect();
            let in_use = touched.clone().filter(|&t| !network.touched[t].weights.is_empty()).count();
            let room = touched.len() + taps.modal.iter().filter(|tap| tap.1.part == i).count();
            let (mut inputs, mut probes) = (Vec::with_capacity(touched.len()), Vec::with_capacity(room));
            inputs.extend(touched.clone().take(in_use));
            probes.extend_from_slice(&rows[..in_use]);
            for (channel, probe, quantity) in taps.modal.iter().filter(|tap| tap.1.part == i) {
                modal_taps.push((*channel, i, probes.len() - in_use, *quantity));
                probes.push(pad(&mut weights, &probe.weights, size));
            }
            probed_at.push(probes_so_far);
            probes_so_far += room;
            let taps = room - touched.len();
            parts.push(Part { modes: start..start + size, touched, inputs, probes, rows_at, taps });
        }
        let (rows, modes) = (network.rows.len(), stiffness.len());
        let mut kernel = Self {
            parts,
            rows: network.rows,
            inverse_mass: network.inverse_mass,
            dt,
            stiffness,
            decay,
            gamma,
            q: qs,
            p: ps,
            share: shares,
            weights,
            x,
            v,
            base,
            source_x: vec![0.0; rows],
            source_v: vec![0.0; rows],
            force: vec![0.0; rows],
            input: vec![0.0; modes],
            probed: vec![[0.0; 2]; probes_so_far],
            probed_at,
            source_taps: merged(taps.sources),
            modal_taps,
            backup: Vec::new(),
            far: Far::default(),
        };
        kernel.far = Far::with_room(&kernel);
        kernel.refresh_sources();
        kernel
    }

    /// Every probe's sums and every source from the state.
    fn refresh_sources(&mut self) {
        let d = self.x.len();
        self.source_x[..d].copy_from_slice(&self.x);
        self.source_v[..d].copy_from_slice(&self.v);
        for part in 0..self.parts.len() {
            self.refresh_part(part);
        }
    }

    /// Part `i`'s probes' sums, and the sources among them, from its modes.
    pub fn refresh_part(&mut self, i: usize) {
        super::with_best_instructions(
            #[inline(always)]
            || self.refresh_part_here(i),
        );
    }

    /// [`CoupledKernel::refresh_part`] with the caller's instructions.
    #[inline(always)]
    fn refresh_part_here(&mut self, i: usize) {
        let (d, part) = (self.x.len(), &self.parts[i]);
        for (k, &at) in part.probes.iter().enumerate() {
            let w = &self.weights[at..at + part.modes.len()];
            let (q, p) = (&self.q[part.modes.clone()], &self.p[part.modes.clone()]);
            let sums = group_sums::<1>(lanes(q), lanes(p), [lanes(w)])[0];
            self.probed[self.probed_at[i] + k] = sums;
            if let Some(&t) = part.inputs.get(k) {
                [self.source_x[d + t], self.source_v[d + t]] = sums;
            }
        }
    }

    /// Modal amplitudes (sqrt(kg) m) and rates (sqrt(kg) m/s) of part `part`, padded.
    pub fn modes(&self, part: usize) -> (&[f64], &[f64]) {
        let range = self.parts[part].modes.clone();
        (&self.q[range.clone()], &self.p[range])
    }

    /// Adds `dq(j)`, `dp(j)` (sqrt(kg) m, sqrt(kg) m/s) to mode `j` of part `part`, `j` below
    /// `count`.
    pub fn add_to_modes(
        &mut self,
        part: usize,
        count: usize,
        dq: impl Fn(usize) -> f64,
        dp: impl Fn(usize) -> f64,
    ) {
        self.far.recorded = 0;
        let first = self.parts[part].modes.start;
        for j in 0..count {
            self.q[first + j] += dq(j);
            self.p[first + j] += dp(j);
        }
        self.refresh_part(part);
    }

    /// Adds `share(j)` (N) to the constant and held force of mode `j` of part `part`.
    pub fn add_to_shares(&mut self, part: usize, count: usize, share: impl Fn(usize) -> f64) {
        self.far.recorded = 0;
        let first = self.parts[part].modes.start;
        for j in 0..count {
            self.share[first + j] += share(j);
        }
    }

    /// Adds the decay rate `rate` (1/s) to the modes `modes` of part `part`, over their rates
    /// as built: a drag of `rate` on every mass those modes move (mass-proportional damping,
    /// `C = rate M`, which `Phi^T C Phi = rate I` leaves modal, so the modes stay the part's).
    pub fn set_part_drag(&mut self, part: usize, modes: Range<usize>, rate: f64) {
        self.far.stale = true;
        let first = self.parts[part].modes.start;
        for j in first + modes.start..first + modes.end {
            self.decay[j] = 1.0 - self.dt * (self.gamma[j] + rate);
        }
    }

    /// Makes `mode(j)`, `j` below `count`, part `part`'s modes, and its first `inputs` touched
    /// coordinates its inputs, in place (within the room it was built with), the rest of its
    /// room still; its amplitudes, rates and shares are then set through
    /// [`CoupledKernel::part_state`], its probes' weights through
    /// [`CoupledKernel::probe_weights`], and read by [`CoupledKernel::refresh_part`].
    pub fn set_part(
        &mut self,
        part: usize,
        count: usize,
        mode: impl Fn(usize) -> CoupledMode,
        inputs: usize,
    ) {
        self.far.stale = true;
        let range = self.parts[part].modes.clone();
        assert!(count <= range.len() && inputs <= self.parts[part].touched.len(), "room for the part");
        let still = CoupledMode { omega0_squared: 0.0, gamma: 0.0 };
        for j in 0..range.len() {
            self.set_mode(part, j, if j < count { mode(j) } else { still });
        }
        let part = &mut self.parts[part];
        let size = part.modes.len();
        part.inputs.clear();
        part.inputs.extend(part.touched.clone().take(inputs));
        part.probes.clear();
        part.probes.extend((0..inputs).map(|k| part.rows_at + k * size));
        let taps_at = part.rows_at + part.touched.len() * size;
        part.probes.extend((0..part.taps).map(|k| taps_at + k * size));
    }

    /// Sets mode `j` of part `part` to `mode`, its amplitude and rate as they are.
    pub fn set_mode(&mut self, part: usize, j: usize, mode: CoupledMode) {
        self.far.stale = true;
        let at = self.parts[part].modes.start + j;
        self.stiffness[at] = self.dt * mode.omega0_squared;
        self.gamma[at] = mode.gamma;
        self.decay[at] = 1.0 - self.dt * mode.gamma;
    }

    /// Part `part`'s modal amplitudes `q` (sqrt(kg) m), rates `p` and shares (N), padded.
    pub fn part_state(&mut self, part: usize) -> [&mut [f64]; 3] {
        self.far.recorded = 0;
        let range = self.parts[part].modes.clone();
        [&mut self.q[range.clone()], &mut self.p[range.clone()], &mut self.share[range]]
    }

    /// The weights (padded) of part `part`'s `k`-th touched coordinate, or with `tap` its
    /// `k`-th tap.
    pub fn probe_weights(&mut self, part: usize, k: usize, tap: bool) -> &mut [f64] {
        self.far.stale = true;
        let part = &self.parts[part];
        let size = part.modes.len();
        let at = part.rows_at + (k + if tap { part.touched.len() } else { 0 }) * size;
        &mut self.weights[at..at + size]
    }

    /// How many of part `part`'s touched coordinates are in use (its first ones).
    pub fn inputs(&self, part: usize) -> usize {
        self.parts[part].inputs.len()
    }

    /// The index of part `part`'s first touched coordinate (its row is `direct + t`).
    pub fn touched_start(&self, part: usize) -> usize {
        self.parts[part].touched.start
    }

    /// Coupling row `r` (direct coordinates first, then touched ones), to be set in place.
    pub fn row(&mut self, r: usize) -> &mut Row {
        self.far.stale = true;
        &mut self.rows[r]
    }

    /// Direct coordinate `d`'s position (m) and velocity (m/s).
    pub fn direct_motion(&self, d: usize) -> (f64, f64) {
        (self.x[d], self.v[d])
    }

    /// Sets direct coordinate `d`'s position (m) and velocity (m/s).
    pub fn set_direct_motion(&mut self, d: usize, x: f64, v: f64) {
        (self.x[d], self.v[d]) = (x, v);
        (self.source_x[d], self.source_v[d]) = (x, v);
    }

    /// Adds `force` (N) to direct coordinate `d`'s constant and held force.
    pub fn add_to_direct_force(&mut self, d: usize, force: f64) {
        self.base[d] += force;
    }

    /// Advances `steps` steps, writing channel `c`'s value after step `s` to
    /// `record[c * steps + s]`; returns whether every value is finite at the end (if not, the
    /// state goes back to where it was).
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> bool {
        self.save();
        super::with_best_instructions(
            #[inline(always)]
            || {
                if steps >= FEWEST_IN_BLOCKS && self.far.stale {
                    self.lay_out();
                }
                if steps >= FEWEST_IN_BLOCKS && self.far.any() {
                    self.advance_in_blocks(steps, record);
                } else if steps > 0 {
                    for s in 0..steps {
                        self.step(false);
                        self.record(s, steps, record, false);
                    }
                    self.far.recorded = 0;
                }
            },
        );
        let all_finite = [&self.q, &self.p, &self.x, &self.v].iter().all(|values| finite(values));
        if !all_finite {
            self.restore();
        }
        all_finite
    }

    /// One step (see the module's equations); in a block (`blocked`), of the rows and parts that
    /// are not far, the far parts' shares of the direct rows added.
    #[inline(always)]
    fn step(&mut self, blocked: bool) {
        let (h, d, far) = (self.dt, self.x.len(), &self.far);
        let (rows, parts) = if blocked { far.near() } else { far.every() };
        for &r in rows {
            let base = if r < d { self.base[r] } else { 0.0 };
            let output = if blocked { far.output_of(r) } else { None };
            let (row, far_share) = match output {
                Some(o) => (&far.trimmed[r], far.now[o]),
                None => (&self.rows[r], 0.0),
            };
            self.force[r] = base - row_sum(row, &self.source_x, &self.source_v) - far_share;
        }
        for i in 0..d {
            self.v[i] += h * self.force[i] * self.inverse_mass[i];
            self.x[i] += h * self.v[i];
            self.source_x[i] = self.x[i];
            self.source_v[i] = self.v[i];
        }
        let (q, p) = (&mut self.q, &mut self.p);
        for &i in parts {
            let part = &self.parts[i];
            let modes = part.modes.clone();
            let sums = &mut self.probed[self.probed_at[i]..self.probed_at[i] + part.probes.len()];
            let probes = part.probes.iter().map(|&at| &self.weights[at..at + modes.len()]);
            let mut rows = probes.clone();
            let mut forces = part.inputs.iter().map(|&t| self.force[d + t]);
            let state = [&mut q[modes.clone()], &mut p[modes.clone()]];
            let (stiffness, decay, share) =
                (&self.stiffness[modes.clone()], &self.decay[modes.clone()], &self.share[modes.clone()]);
            let (mut row, mut force) = (|| rows.next().expect("a row"), || forces.next().expect("a force"));
            match part.inputs.len() {
                0 => step_part::<0>(h, state, [stiffness, decay, share], [], []),
                1 => step_part(h, state, [stiffness, decay, share], [row()], [force()]),
                2 => step_part::<2>(
                    h,
                    state,
                    [stiffness, decay, share],
                    from_fn(|_| row()),
                    from_fn(|_| force()),
                ),
                3 => step_part::<3>(
                    h,
                    state,
                    [stiffness, decay, share],
                    from_fn(|_| row()),
                    from_fn(|_| force()),
                ),
                _ => {
                    let input = &mut self.input[modes.clone()];
                    input.copy_from_slice(share);
                    for (row, f) in rows.zip(forces) {
                        for (g, w) in input.iter_mut().zip(row) {
                            *g = Real::mul_add(*w, f, *g);
                        }
                    }
                    step_part::<0>(h, state, [stiffness, decay, input], [], []);
                }
            }
            probe_sums(&q[modes.clone()], &p[modes.clone()], probes, sums);
            for (k, &t) in part.inputs.iter().enumerate() {
                [self.source_x[d + t], self.source_v[d + t]] = sums[k];
            }
        }
    }

    /// Writes every channel's value after this step to `record[c * steps + s]`: its taps on
    /// parts, then its taps on sources (sorted by channel), each channel summed in a register;
    /// in a block (`blocked`), its taps on the far parts' inputs and modes as the far parts'
    /// share.
    #[inline(always)]
    fn record(&self, s: usize, steps: usize, record: &mut [f64], blocked: bool) {
        let channels = record.len() / steps.max(1);
        for c in 0..channels {
            record[c * steps + s] = 0.0;
        }
        let modal_taps = if blocked { &self.far.near_modal_taps } else { &self.modal_taps };
        for &(c, part, tap, quantity) in modal_taps {
            let [q, p] = self.probed[self.probed_at[part] + self.parts[part].inputs.len() + tap];
            record[c * steps + s] += if quantity == Quantity::Position { q } else { p };
        }
        let source_taps = if blocked { &self.far.near_taps } else { &self.source_taps };
        for taps in source_taps.chunk_by(|a, b| a.0 == b.0) {
            let sum = taps.iter().fold(0.0, |sum, &(_, source, quantity, weight)| {
                let value = if quantity == Quantity::Position {
                    self.source_x[source]
                } else {
                    self.source_v[source]
                };
                sum + weight * value
            });
            record[taps[0].0 * steps + s] += sum;
        }
        if blocked {
            for (channel, share) in self.far.channel_shares() {
                record[channel * steps + s] += share;
            }
        }
    }

    fn save(&mut self) {
        self.backup.clear();
        for values in [&self.q, &self.p, &self.x, &self.v] {
            self.backup.extend_from_slice(values);
        }
    }

    fn restore(&mut self) {
        self.far.recorded = 0;
        let mut at = 0;
        for values in [&mut self.q, &mut self.p, &mut self.x, &mut self.v] {
            let n = values.len();
            values.copy_from_slice(&self.backup[at..at + n]);
            at += n;
        }
        self.refresh_sources();
    }
}

/// Appends `row` to `weights` padded with zeros to `to` values; returns where it starts.
fn pad(weights: &mut Vec<f64>, row: &[f64], to: usize) -> usize {
    weights.extend_from_slice(row);
    weights.resize(weights.len() + to - row.len(), 0.0);
    weights.len() - to
}

/// Taps on sources sorted by channel, source and quantity, the weights of the same channel's
/// taps on the same source and quantity added into one.
fn merged(mut taps: Vec<(usize, usize, Quantity, f64)>) -> Vec<(usize, usize, Quantity, f64)> {
    taps.sort_by_key(|&(channel, source, quantity, _)| (channel, source, quantity == Quantity::Velocity));
    let mut merged: Vec<(usize, usize, Quantity, f64)> = Vec::with_capacity(taps.len());
    for tap in taps {
        match merged.last_mut() {
            Some(last) if (last.0, last.1, last.2) == (tap.0, tap.1, tap.2) => last.3 += tap.3,
            _ => merged.push(tap),
        }
    }
    merged
}
