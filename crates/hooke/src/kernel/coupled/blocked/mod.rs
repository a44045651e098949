//! The *far* parts of a coupled network, advanced a block of steps at a time.
//!
//! A part whose inputs (its touched coordinates in use) are driven by rows that read direct
//! coordinates only, and which no other part's row reads (a string on a bridge; a marimba's bar,
//! with no inputs, heard by pickups on its modes), is a linear system between the direct
//! coordinates' motion and the forces it puts on their rows and the pickups' channels.
//! Over a block of `L` steps from step `n0`, its share of direct row `r` at step `n0 + k` is, by
//! superposition,
//!
//! ```text
//! z_r(k) = z_r^free(k) + sum_{m < k} sum_c H_rc(k - 1 - m) u_c(n0 + m)
//! ```
//!
//! where `z^free` is what it puts there with its inputs' forces held at zero (from its state at
//! `n0`, its constant forces acting), `u_c` the direct coordinates' positions and velocities its
//! rows read, and `H_rc(j)` its response `j + 1` steps after a unit `u_c` at one step; a pickup's
//! taps on its inputs and modes the same, a step later (after step `n0 + k`). Summed over the far
//! parts, `z^free` and `H` are a few numbers a step, so the direct coordinates and the other parts
//! step one step at a time with them; then each far part runs the block driven by the recorded
//! motion, each mode read and written once a block instead of once a step, its state in
//! registers through the block. Its inputs' forces `f_t = -sum_c (K_tc x_c + C_tc v_c)` act on
//! its modes as `sum_t Phi_t f_t`, which each part keeps as one weight row per position or
//! velocity it reads, `-h sum_t K_tc Phi_t` (its *drives*, times the step `h` as a step adds
//! them); its outputs as one row per output, `sum_t k_t Phi_t` (its *slots*; on `p`, over `h`). The step is the step-by-step kernel's, its sums taken in
//! another order, so equal to rounding. The responses are found again when a part's modes,
//! damping or rows change.

mod layout;
mod run;

use super::sums::{lane_sum, lanes, LANES};
use super::{CoupledKernel, Row};
use crate::kernel::has_wide_registers;
use crate::kernel::Real;
use crate::quantity::Quantity;
use run::{run_groups, Group, Lanes, Shape, BATCH, NARROW_BATCH};
use std::array::from_fn;
use std::ops::Range;

/// Steps in a block.
const BLOCK: usize = 32;
/// The fewest steps an advance takes in blocks; fewer run step by step.
pub(super) const FEWEST_IN_BLOCKS: usize = 8;
/// The most drives of a far part (positions and velocities of direct coordinates it reads).
const MOST_DRIVES: usize = 4;
/// The most outputs a far part is summed into.
const MOST_SLOTS: usize = 4;
/// The most pairs of an output (a direct row or a channel) and a direct coordinate's position or
/// velocity that the far parts couple (each pair is a convolution every step): beyond, no part is
/// far.
const MOST_PAIRS: usize = 64;

/// What the far parts' inputs are summed into: a direct row (its force at a step, from the state
/// at the step's start) or a channel (its value after the step).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Output {
    Row(usize),
    Channel(usize),
}

impl Output {
    /// How many steps after a step's start it reads the state: 0 for a row, 1 for a channel.
    fn lead(self) -> usize {
        match self {
            Output::Row(_) => 0,
            Output::Channel(_) => 1,
        }
    }
}

/// A far part's output: its index, and where its weight rows on `q` and on `p` (if any) start
/// in `Far::part_weights`.
#[derive(Debug, Clone, Copy)]
struct Slot {
    output: usize,
    on_q: usize,
    on_p: Option<usize>,
}

/// A far part's drive: the input pair (`2 i` the position of input `i`, `2 i + 1` its
/// velocity) and where its weight row starts in `Far::part_weights`.
#[derive(Debug, Clone, Copy)]
struct Drive {
    pair: usize,
    row: usize,
}

/// Which parts are far, what couples them, and a block's records. Every list has its room from
/// the kernel's build, so that laying the parts out again allocates nothing.
#[derive(Debug, Clone, Default)]
pub(super) struct Far {
    /// Whether the parts must be laid out again (a part's modes, damping, weights or a row
    /// changed).
    pub(super) stale: bool,
    /// How many states of the far parts' free response from the state now `free` holds (0 once
    /// the state or a share changed).
    pub(super) recorded: usize,
    is_far: Vec<bool>,
    far_parts: Vec<usize>,
    /// The rows and parts stepped one step at a time in a block, and in a step-by-step advance.
    near_rows: Vec<usize>,
    near_parts: Vec<usize>,
    every_row: Vec<usize>,
    every_part: Vec<usize>,
    /// Each touched coordinate's part, and whether a touched row reads it.
    part_of_touched: Vec<usize>,
    read: Vec<bool>,
    /// The direct rows and channels the far parts' inputs are summed into (*outputs*), each direct
    /// row's and channel's index among them (`usize::MAX`: none); each such row without the far
    /// parts' entries, and the taps on sources without theirs.
    outputs: Vec<Output>,
    output_at: Vec<usize>,
    channel_at: Vec<usize>,
    pub(super) trimmed: Vec<Row>,
    pub(super) near_taps: Vec<(usize, usize, Quantity, f64)>,
    /// The taps on the parts that are not far (as `CoupledKernel::modal_taps`).
    pub(super) near_modal_taps: Vec<(usize, usize, usize, Quantity)>,
    /// The direct coordinates the far parts' rows read (*inputs*), and each one's index among them.
    inputs: Vec<usize>,
    input_at: Vec<usize>,
    /// `(part, its probe k, output, weight on position, weight on velocity)`: the outputs'
    /// entries on far inputs (probes `0..inputs`; for a row N/m and N s/m) and the channels' on
    /// far parts' taps (the probes after their inputs), by part then output.
    entries: Vec<(usize, usize, usize, f64, f64)>,
    /// Each far part's outputs and drives (where each part's start), and their weight rows over
    /// its modes: each part's room for them starts at `weights_at` and holds `weights_room` rows.
    slots: Vec<Slot>,
    slots_at: Vec<usize>,
    drives: Vec<Drive>,
    drives_at: Vec<usize>,
    part_weights: Vec<f64>,
    weights_at: Vec<usize>,
    weights_room: Vec<usize>,
    /// `H`, each pair's lags last to first (`H(j)` at `(o 2 I + 2 i + quantity) BLOCK + BLOCK - 1
    /// - j` for output `o`, input `i` of `I`, its position or velocity), in lanes as summed.
    response: Vec<f64>,
    response_lanes: Vec<[f64; LANES]>,
    /// `z^free` at `o (BLOCK + 1) + k`, in lanes as summed and added up; and each output's far
    /// share at the step now.
    free_lanes: Vec<[f64; LANES]>,
    free: Vec<f64>,
    pub(super) now: Vec<f64>,
    /// The inputs' positions and velocities at each step of the block (`(2 i + quantity) BLOCK +
    /// k` for input `i`).
    history: Vec<f64>,
    /// A part's `q`, `p` and share at rest (room for the largest).
    rest: [Vec<f64>; 3],
    /// Each mode's `1 + (1 - h gamma) - h (h w^2)`, its free step's weight on `q_k` in the
    /// recurrence on `q` alone (`run.rs`).
    recurrence: Vec<f64>,
}

impl Far {
    /// The layout's room for `kernel`, to be laid out before its first block.
    pub(super) fn with_room(kernel: &CoupledKernel) -> Self {
        let (d, rows, parts) = (kernel.x.len(), kernel.rows.len(), kernel.parts.len());
        let mut part_of_touched = vec![usize::MAX; rows - d];
        for (i, part) in kernel.parts.iter().enumerate() {
            part.touched.clone().for_each(|t| part_of_touched[t] = i);
        }
        let largest = kernel.parts.iter().map(|part| part.modes.len()).max().unwrap_or(0);
        let taps =
            kernel.source_taps.iter().map(|tap| tap.0).chain(kernel.modal_taps.iter().map(|tap| tap.0));
        let channels = taps.map(|channel| channel + 1).max().unwrap_or(0);
        let (mut weights_at, mut weights_room) = (Vec::with_capacity(parts), Vec::with_capacity(parts));
        let mut at = 0;
        for (i, room) in layout::rows_room(kernel, &part_of_touched).into_iter().enumerate() {
            weights_at.push(at);
            weights_room.push(room);
            at += room * kernel.parts[i].modes.len();
        }
        Self {
            stale: true,
            recorded: 0,
            is_far: vec![false; parts],
            far_parts: Vec::with_capacity(parts),
            near_rows: Vec::with_capacity(rows),
            near_parts: Vec::with_capacity(parts),
            every_row: (0..rows).collect(),
            every_part: (0..parts).collect(),
            part_of_touched,
            read: vec![false; rows - d],
            outputs: Vec::with_capacity(d + channels),
            output_at: vec![usize::MAX; d],
            channel_at: vec![usize::MAX; channels],
            trimmed: kernel.rows[..d].iter().map(|row| Vec::with_capacity(row.len())).collect(),
            near_taps: Vec::with_capacity(kernel.source_taps.len()),
            near_modal_taps: Vec::with_capacity(kernel.modal_taps.len()),
            inputs: Vec::with_capacity(d),
            input_at: vec![usize::MAX; d],
            entries: Vec::with_capacity(
                kernel.rows[..d].iter().map(Vec::len).sum::<usize>()
                    + kernel.source_taps.len()
                    + kernel.modal_taps.len(),
            ),
            slots: Vec::with_capacity(parts * MOST_SLOTS),
            slots_at: vec![0; parts + 1],
            drives: Vec::with_capacity(parts * MOST_DRIVES),
            drives_at: vec![0; parts + 1],
            part_weights: vec![0.0; at],
            weights_at,
            weights_room,
            response: vec![0.0; MOST_PAIRS * BLOCK],
            response_lanes: vec![[0.0; LANES]; MOST_PAIRS * BLOCK],
            free_lanes: vec![[0.0; LANES]; (d + channels) * (BLOCK + 1)],
            free: vec![0.0; (d + channels) * (BLOCK + 1)],
            now: vec![0.0; d + channels],
            history: vec![0.0; 2 * d * BLOCK],
            rest: from_fn(|_| vec![0.0; largest]),
            recurrence: vec![0.0; kernel.stiffness.len()],
        }
    }

    /// Whether any part is far.
    pub(super) fn any(&self) -> bool {
        !self.far_parts.is_empty()
    }

    /// The rows and parts a block steps one step at a time.
    pub(super) fn near(&self) -> (&[usize], &[usize]) {
        (&self.near_rows, &self.near_parts)
    }

    /// Every row and part.
    pub(super) fn every(&self) -> (&[usize], &[usize]) {
        (&self.every_row, &self.every_part)
    }

    /// Row `r`'s index among the outputs, if it is one.
    pub(super) fn output_of(&self, r: usize) -> Option<usize> {
        self.output_at.get(r).copied().filter(|&o| o != usize::MAX)
    }

    /// Each channel's far share after the step now, in a block.
    pub(super) fn channel_shares(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.outputs.iter().zip(&self.now).filter_map(|(output, &share)| match *output {
            Output::Channel(channel) => Some((channel, share)),
            Output::Row(_) => None,
        })
    }

    /// Records the inputs' motion at step `k` of the block from the direct coordinates' `x`, `v`.
    #[inline(always)]
    fn remember(&mut self, k: usize, [x, v]: [&[f64]; 2]) {
        for (i, &s) in self.inputs.iter().enumerate() {
            self.history[2 * i * BLOCK + k] = x[s];
            self.history[(2 * i + 1) * BLOCK + k] = v[s];
        }
    }

    /// The far share of each output that `which` picks, at step `k` of the block (its state
    /// `k + lead` steps in): its free response there and the convolution of the responses with the
    /// inputs' motion recorded before it.
    #[inline(always)]
    fn share_at(&mut self, k: usize, which: impl Fn(Output) -> bool) {
        let pairs = 2 * self.inputs.len();
        for (o, &output) in self.outputs.iter().enumerate().filter(|(_, &output)| which(output)) {
            let lag = k + output.lead();
            let mut z = self.free[o * (BLOCK + 1) + lag];
            for pair in 0..pairs {
                let h = &self.response[(o * pairs + pair + 1) * BLOCK - lag..][..lag];
                let past = &self.history[pair * BLOCK..][..lag];
                z = h.iter().zip(past).fold(z, |z, (&h, &u)| Real::mul_add(h, u, z));
            }
            self.now[o] = z;
        }
    }
}

impl CoupledKernel {
    /// Advances `steps` steps in blocks (the parts laid out, some far), writing channel `c`'s
    /// value after step `s` to `record[c * steps + s]`.
    #[inline(always)]
    pub(super) fn advance_in_blocks(&mut self, steps: usize, record: &mut [f64]) {
        let mut at = 0;
        while at < steps {
            let length = (steps - at).min(BLOCK);
            if self.far.recorded <= length {
                self.far_pass(0, length + 1);
            }
            self.near_block(at, length, steps, record);
            let next = (steps - at - length).min(BLOCK);
            self.far_pass(length, if next == 0 { BLOCK } else { next } + 1);
            at += length;
        }
        for at in 0..self.far.far_parts.len() {
            self.refresh_part_here(self.far.far_parts[at]);
        }
    }

    /// Steps the direct coordinates and the near parts `length` steps, the far parts' shares of
    /// each output from the block's free response and its motion so far, recording the direct
    /// coordinates' motion.
    #[inline(always)]
    fn near_block(&mut self, at: usize, length: usize, steps: usize, record: &mut [f64]) {
        for k in 0..length {
            self.far.remember(k, [&self.x, &self.v]);
            self.far.share_at(k, |output| output.lead() == 0);
            self.step(true);
            self.far.share_at(k, |output| output.lead() == 1);
            self.record(at + k, steps, record, true);
        }
    }

    /// Runs every far part `forced` steps driven by the block's recorded motion, then sums
    /// `records` states of its free response from there into `free`.
    #[inline(always)]
    fn far_pass(&mut self, forced: usize, records: usize) {
        self.far.free_lanes[..self.far.outputs.len() * (BLOCK + 1)].fill([0.0; LANES]);
        self.run_parts(0..self.far.far_parts.len(), forced, records, None);
        let Far { free, free_lanes, outputs, .. } = &mut self.far;
        for (z, lanes) in free[..outputs.len() * (BLOCK + 1)].iter_mut().zip(free_lanes.iter()) {
            *z = lane_sum(*lanes);
        }
        self.far.recorded = records;
    }

    /// Runs the far parts `parts` (of `far_parts`; with `impulse`, one part) `forced` steps
    /// driven by the block's recorded motion and `records` steps free, from their state (kept),
    /// their sums into `far.free_lanes`, lane groups of parts of one shape together; or with
    /// `impulse`, one step from rest with no share driven by a unit of its drive `impulse` alone,
    /// its sums into `far.response_lanes` as that drive's pair's response. Compiled once for each
    /// instruction set and called, not inlined where it is used: [`run_groups`] is twenty loops
    /// (by drives and groups), and inlined at every use for every instruction set they made the
    /// `hooke` crate's release build several times longer (BENCHMARKS.md, "The far parts'
    /// build").
    #[inline(never)]
    fn run_parts(&mut self, parts: Range<usize>, forced: usize, records: usize, impulse: Option<usize>) {
        crate::kernel::with_best_instructions(
            #[inline(always)]
            || self.run_batches(parts, forced, records, impulse),
        )
    }

    /// [`CoupledKernel::run_parts`] for the instruction set it is compiled for: up to [`BATCH`]
    /// lane groups at a time where the CPU has AVX-512's registers, [`NARROW_BATCH`] where not.
    #[inline(always)]
    fn run_batches(&mut self, parts: Range<usize>, forced: usize, records: usize, impulse: Option<usize>) {
        const ONE: &[f64] = &[1.0];
        const ZERO: &[f64] = &[0.0];
        let most = if has_wide_registers() { BATCH } else { NARROW_BATCH };
        let Self { parts: all, stiffness, decay, share, q, p, far, dt, .. } = self;
        let Far { rest, free_lanes, response_lanes, history, part_weights, recurrence, .. } = far;
        let pairs = 2 * far.inputs.len();
        let (state, share) = match impulse {
            Some(_) => {
                let [q, p, share] = rest;
                q.fill(0.0);
                p.fill(0.0);
                ([&mut q[..], &mut p[..]], &share[..])
            }
            None => ([&mut q[..], &mut p[..]], &share[..]),
        };
        let mut lanes = Lanes {
            state: state.map(|values| values.as_chunks_mut::<LANES>().0),
            coefficients: [lanes(stiffness), lanes(decay), lanes(recurrence)],
            share: lanes(share),
            weights: lanes(part_weights),
        };
        let sums = if impulse.is_some() { &mut response_lanes[..] } else { &mut free_lanes[..] };
        let (slots, drives) = (&far.slots, &far.drives);
        let (slots_at, drives_at) = (&far.slots_at, &far.drives_at);
        let part_slots = |i: usize| &slots[slots_at[i]..slots_at[i + 1]];
        let part_drives = |i: usize| &drives[drives_at[i]..drives_at[i + 1]];
        let shape_of = |i: usize| {
            let (slots, drives) = (part_slots(i), part_drives(i));
            let at = |o: usize| match impulse {
                Some(k) => (o * pairs + drives[k].pair) * BLOCK,
                None => o * (BLOCK + 1),
            };
            let drive = |k: usize| match impulse {
                Some(which) => {
                    if k == which {
                        ONE
                    } else {
                        ZERO
                    }
                }
                None => &history[drives[k].pair * BLOCK..][..forced],
            };
            Shape {
                forced,
                drives: from_fn(|k| if k < drives.len() { drive(k) } else { ZERO }),
                drive_count: drives.len(),
                records,
                slots: slots.len(),
                at: from_fn(|s| slots.get(s).map_or(0, |slot| at(slot.output))),
                with_p: from_fn(|s| slots.get(s).is_some_and(|slot| slot.on_p.is_some())),
            }
        };
        let group_of = |i: usize, g: usize| {
            let (slots, drives) = (part_slots(i), part_drives(i));
            let first = all[i].modes.start / LANES;
            let local = if impulse.is_some() { g } else { first + g };
            Group {
                state: local,
                coefficients: first + g,
                share: local,
                drives: from_fn(|k| drives.get(k).map_or(0, |drive| drive.row / LANES + g)),
                on_q: from_fn(|s| slots.get(s).map_or(0, |slot| slot.on_q / LANES + g)),
                on_p: from_fn(|s| slots.get(s).and_then(|slot| slot.on_p).map_or(0, |on_p| on_p / LANES + g)),
            }
        };
        // Every part's lane groups in turn, run as a batch when it is full, when the next part's
        // shape differs, and at the end: one place, so one copy of `run_groups`.
        let mut groups =
            far.far_parts[parts].iter().flat_map(|&i| (0..all[i].modes.len() / LANES).map(move |g| (i, g)));
        let (mut batch, mut count, mut shape, mut part) = ([Group::default(); BATCH], 0, None, None);
        loop {
            let next = groups.next();
            // At a new part, its shape where it differs from the batch's.
            let new_shape = next
                .filter(|&(i, _)| part != Some(i))
                .map(|(i, _)| shape_of(i))
                .filter(|new| !shape.is_some_and(|old: Shape| old.runs_as(new)));
            if count > 0 && (count == most || next.is_none() || new_shape.is_some()) {
                run_groups(*dt, &mut lanes, &batch[..count], shape.as_ref().expect("a shape"), sums);
                count = 0;
            }
            let Some((i, g)) = next else { break };
            shape = new_shape.or(shape);
            (batch[count], part) = (group_of(i, g), Some(i));
            count += 1;
        }
    }
}
