//! Which parts of a coupled network are far, what couples them, and their summed responses.

use super::{Far, Output, Slot, BLOCK, MOST_INPUTS, MOST_PAIRS, MOST_SLOTS};
use crate::kernel::coupled::sums::lane_sum;
use crate::kernel::coupled::CoupledKernel;
use crate::quantity::Quantity;

/// For each part of `kernel`, how many direct rows and channels read its touched coordinates
/// (`part_of_touched` the part of each).
pub(super) fn outputs_reached(kernel: &CoupledKernel, part_of_touched: &[usize]) -> Vec<usize> {
    let d = kernel.x.len();
    let (mut reached, mut last) = (vec![0; kernel.parts.len()], vec![usize::MAX; kernel.parts.len()]);
    let rows = kernel.rows[..d].iter().enumerate().flat_map(|(r, row)| row.iter().map(move |e| (r, e.0)));
    let taps = kernel.source_taps.iter().map(|tap| (d + tap.0, tap.1));
    for (output, s) in rows.chain(taps).filter(|&(_, s)| s >= d) {
        let part = part_of_touched[s - d];
        if part != usize::MAX && last[part] != output {
            (last[part], reached[part]) = (output, reached[part] + 1);
        }
    }
    reached
}

impl Far {
    /// Forgets the far parts and their outputs.
    fn clear(&mut self) {
        (self.inputs.clear(), self.outputs.clear(), self.far_parts.clear());
        for at in [&mut self.input_at, &mut self.output_at, &mut self.channel_at] {
            at.fill(usize::MAX);
        }
    }

    /// Whether touched coordinate `t` is an input of a far part.
    fn far_input(&self, t: usize, parts: &[super::super::Part]) -> bool {
        let part = self.part_of_touched[t];
        part != usize::MAX && self.is_far[part] && parts[part].inputs.contains(&t)
    }
}

impl CoupledKernel {
    /// Finds the far parts (those whose inputs' rows read direct coordinates only, read by no
    /// touched row, with no probes but their inputs), their inputs and outputs, and their summed
    /// responses; none is far if they would need more room than the build gave.
    #[inline(always)]
    pub(in crate::kernel::coupled) fn lay_out(&mut self) {
        let d = self.x.len();
        let Self { parts, rows, far, source_taps, .. } = self;
        (far.stale, far.free_valid) = (false, false);
        far.read.fill(false);
        rows[d..].iter().flatten().filter(|e| e.0 >= d).for_each(|e| far.read[e.0 - d] = true);
        for (i, part) in parts.iter().enumerate() {
            far.is_far[i] = part.probes.len() == part.inputs.len()
                && part.inputs.len() <= MOST_INPUTS
                && part.inputs.iter().all(|&t| !far.read[t] && rows[d + t].iter().all(|e| e.0 < d));
        }
        far.clear();
        for part in parts.iter().enumerate().filter(|(i, _)| far.is_far[*i]).map(|(_, part)| part) {
            for &(s, ..) in part.inputs.iter().flat_map(|&t| &rows[d + t]) {
                if far.input_at[s] == usize::MAX {
                    far.input_at[s] = far.inputs.len();
                    far.inputs.push(s);
                }
            }
        }
        for (r, row) in rows[..d].iter().enumerate() {
            if row.iter().any(|e| e.0 >= d && far.far_input(e.0 - d, parts)) {
                far.output_at[r] = far.outputs.len();
                far.outputs.push(Output::Row(r));
            }
        }
        for &(channel, s, ..) in source_taps.iter() {
            if s >= d && far.far_input(s - d, parts) && far.channel_at[channel] == usize::MAX {
                far.channel_at[channel] = far.outputs.len();
                far.outputs.push(Output::Channel(channel));
            }
        }
        (far.near_parts.clear(), far.near_rows.clear());
        far.near_rows.extend(0..d);
        for (i, part) in parts.iter().enumerate() {
            if far.is_far[i] {
                far.far_parts.push(i);
            } else {
                far.near_parts.push(i);
                far.near_rows.extend(part.touched.clone().map(|t| d + t));
            }
        }
        (far.entries.clear(), far.near_taps.clear());
        for o in 0..far.outputs.len() {
            if let Output::Row(r) = far.outputs[o] {
                far.trimmed[r].clear();
                for &(s, k, c) in &rows[r] {
                    if s >= d && far.far_input(s - d, parts) {
                        let part = far.part_of_touched[s - d];
                        far.entries.push((part, s - d - parts[part].touched.start, o, k, c));
                    } else {
                        far.trimmed[r].push((s, k, c));
                    }
                }
            }
        }
        for &(channel, s, quantity, weight) in source_taps.iter() {
            if s >= d && far.far_input(s - d, parts) {
                let (part, o) = (far.part_of_touched[s - d], far.channel_at[channel]);
                let (x, v) = if quantity == Quantity::Position { (weight, 0.0) } else { (0.0, weight) };
                far.entries.push((part, s - d - parts[part].touched.start, o, x, v));
            } else {
                far.near_taps.push((channel, s, quantity, weight));
            }
        }
        far.entries.sort_unstable_by_key(|e| (e.0, e.2, e.1));
        if far.outputs.len() * 2 * far.inputs.len() > MOST_PAIRS || !self.weigh_slots() {
            self.far.clear();
            return;
        }
        self.respond();
    }

    /// Each far part's slots: for each output, the weights of its entries summed over the part's
    /// modes (`sum_k x_k Phi_k` on `q`, and `sum_k v_k Phi_k` on `p` where some `v_k` is not 0).
    /// Whether they fit the room the build gave.
    #[inline(always)]
    fn weigh_slots(&mut self) -> bool {
        let Self { parts, weights, far, .. } = self;
        let Far { entries, slots, slots_at, out_weights, weights_at, weights_room, .. } = far;
        slots.clear();
        let mut e = 0;
        for (i, part) in parts.iter().enumerate() {
            slots_at[i] = slots.len();
            let (size, mut used) = (part.modes.len(), 0);
            while e < entries.len() && entries[e].0 == i {
                let output = entries[e].2;
                let group = entries[e..].iter().take_while(|entry| entry.0 == i && entry.2 == output).count();
                let group = &entries[e..e + group];
                e += group.len();
                let on_p = group.iter().any(|entry| entry.4 != 0.0);
                if slots.len() - slots_at[i] == MOST_SLOTS || used + 1 + usize::from(on_p) > weights_room[i] {
                    return false;
                }
                let mut weigh = |value: fn(&(usize, usize, usize, f64, f64)) -> f64| {
                    let start = weights_at[i] + used * size;
                    let row = &mut out_weights[start..start + size];
                    row.fill(0.0);
                    for entry in group {
                        let shape = &weights[part.probes[entry.1]..part.probes[entry.1] + size];
                        row.iter_mut().zip(shape).for_each(|(w, &phi)| *w += value(entry) * phi);
                    }
                    used += 1;
                    start
                };
                let on_q = weigh(|entry| entry.3);
                let on_p = on_p.then(|| weigh(|entry| entry.4));
                slots.push(Slot { output, on_q, on_p });
            }
        }
        slots_at[parts.len()] = slots.len();
        true
    }

    /// The far parts' summed responses `H`: each part run from rest after a unit position or
    /// velocity of each input at one step.
    #[inline(always)]
    fn respond(&mut self) {
        let d = self.x.len();
        let pairs = 2 * self.far.inputs.len();
        let size = self.far.outputs.len() * pairs * BLOCK;
        self.far.response_lanes[..size].fill([0.0; super::LANES]);
        for at in 0..self.far.far_parts.len() {
            let i = self.far.far_parts[at];
            for pair in 0..pairs {
                let s = self.far.inputs[pair / 2];
                let mut unit = [0.0; MOST_INPUTS];
                for (k, &t) in self.parts[i].inputs.iter().enumerate() {
                    for &(_, stiffness, damping) in self.rows[d + t].iter().filter(|e| e.0 == s) {
                        unit[k] -= if pair % 2 == 0 { stiffness } else { damping };
                    }
                }
                if unit.iter().any(|&f| f != 0.0) {
                    self.far.forces[0] = unit;
                    self.run_part(i, 1, BLOCK, Some(pair));
                }
            }
        }
        let Far { response, response_lanes, .. } = &mut self.far;
        for (pair, lanes) in response[..size].chunks_mut(BLOCK).zip(response_lanes.chunks(BLOCK)) {
            for (j, lanes) in lanes.iter().enumerate() {
                pair[BLOCK - 1 - j] = lane_sum(*lanes);
            }
        }
    }
}
