//! Which parts of a coupled network are far, what couples them, and their summed responses.

use super::{Drive, Far, Output, Slot, BLOCK, MOST_DRIVES, MOST_PAIRS, MOST_SLOTS};
use crate::kernel::coupled::sums::lane_sum;
use crate::kernel::coupled::CoupledKernel;
use crate::quantity::Quantity;

/// For each part of `kernel` (`part_of_touched` the part of each touched coordinate), room for
/// the weight rows of its slots and drives: two for each direct row and channel that reads its
/// touched coordinates or taps its modes, and for each direct coordinate their rows read.
pub(super) fn rows_room(kernel: &CoupledKernel, part_of_touched: &[usize]) -> Vec<usize> {
    let d = kernel.x.len();
    let parts = kernel.parts.len();
    let (mut outputs, mut sources, mut last) = (vec![0; parts], vec![0; parts], vec![usize::MAX; parts]);
    let rows = kernel.rows[..d].iter().enumerate().flat_map(|(r, row)| row.iter().map(move |e| (r, e.0)));
    let taps = kernel.source_taps.iter().map(|tap| (d + tap.0, tap.1));
    for (output, s) in rows.chain(taps).filter(|&(_, s)| s >= d) {
        let part = part_of_touched[s - d];
        if part != usize::MAX && last[part] != output {
            (last[part], outputs[part]) = (output, outputs[part] + 1);
        }
    }
    let mut tapped: Vec<(usize, usize)> = kernel.modal_taps.iter().map(|tap| (tap.1, tap.0)).collect();
    tapped.sort_unstable();
    tapped.dedup();
    tapped.iter().for_each(|&(part, _)| outputs[part] += 1);
    for (i, part) in kernel.parts.iter().enumerate() {
        let mut read: Vec<usize> =
            part.touched.clone().flat_map(|t| &kernel.rows[d + t]).map(|e| e.0).collect();
        read.sort_unstable();
        read.dedup();
        sources[i] = read.iter().filter(|&&s| s < d).count();
    }
    (0..parts).map(|i| 2 * outputs[i].min(MOST_SLOTS) + (2 * sources[i]).min(MOST_DRIVES)).collect()
}

impl Far {
    /// Forgets the far parts and their outputs.
    fn clear(&mut self) {
        self.inputs.clear();
        self.outputs.clear();
        self.far_parts.clear();
        for at in [&mut self.input_at, &mut self.output_at, &mut self.channel_at] {
            at.fill(usize::MAX);
        }
    }

    /// Makes `channel` an output, if it is not one yet.
    fn output_channel(&mut self, channel: usize) {
        if self.channel_at[channel] == usize::MAX {
            self.channel_at[channel] = self.outputs.len();
            self.outputs.push(Output::Channel(channel));
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
    /// touched row), their inputs and outputs (the direct rows and channels that read their
    /// inputs, and the channels that tap their modes), and their summed responses; none is far if
    /// they would need more room than the build gave.
    #[inline(always)]
    pub(in crate::kernel::coupled) fn lay_out(&mut self) {
        let d = self.x.len();
        let Self { parts, rows, far, source_taps, modal_taps, stiffness, decay, dt, .. } = self;
        (far.stale, far.recorded) = (false, 0);
        for ((a, k), d) in far.recurrence.iter_mut().zip(stiffness.iter()).zip(decay.iter()) {
            *a = 1.0 + d - *dt * k;
        }
        far.read.fill(false);
        rows[d..].iter().flatten().filter(|e| e.0 >= d).for_each(|e| far.read[e.0 - d] = true);
        for (i, part) in parts.iter().enumerate() {
            far.is_far[i] = part.inputs.iter().all(|&t| !far.read[t] && rows[d + t].iter().all(|e| e.0 < d));
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
            if s >= d && far.far_input(s - d, parts) {
                far.output_channel(channel);
            }
        }
        for &(channel, part, ..) in modal_taps.iter() {
            if far.is_far[part] {
                far.output_channel(channel);
            }
        }
        far.near_parts.clear();
        far.near_rows.clear();
        far.near_rows.extend(0..d);
        for (i, part) in parts.iter().enumerate() {
            if far.is_far[i] {
                far.far_parts.push(i);
            } else {
                far.near_parts.push(i);
                far.near_rows.extend(part.touched.clone().map(|t| d + t));
            }
        }
        far.entries.clear();
        far.near_taps.clear();
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
        far.near_modal_taps.clear();
        for &(channel, part, tap, quantity) in modal_taps.iter() {
            if far.is_far[part] {
                let (x, v) = if quantity == Quantity::Position { (1.0, 0.0) } else { (0.0, 1.0) };
                far.entries.push((part, parts[part].inputs.len() + tap, far.channel_at[channel], x, v));
            } else {
                far.near_modal_taps.push((channel, part, tap, quantity));
            }
        }
        far.entries.sort_unstable_by_key(|e| (e.0, e.2, e.1));
        if far.outputs.len() * 2 * far.inputs.len() > MOST_PAIRS || !self.weigh() {
            self.far.clear();
            return;
        }
        self.respond();
    }

    /// Each far part's slots (for each output, the weights of its entries summed over the part's
    /// modes: `sum_t k_t Phi_t` on `q`, and on `p` where some velocity weight is not 0, over `h`,
    /// as the blocks read `h p`) and drives (for each input pair its rows read,
    /// `-h sum_t K_tc Phi_t`, as the blocks add `h` times the force). Whether they fit the
    /// room the build gave.
    #[inline(always)]
    fn weigh(&mut self) -> bool {
        let d = self.x.len();
        let Self { parts, rows, weights, far, dt, .. } = self;
        let Far {
            entries,
            slots,
            slots_at,
            drives,
            drives_at,
            part_weights,
            weights_at,
            weights_room,
            inputs,
            is_far,
            ..
        } = far;
        slots.clear();
        drives.clear();
        let mut e = 0;
        for (i, part) in parts.iter().enumerate() {
            (slots_at[i], drives_at[i]) = (slots.len(), drives.len());
            if !is_far[i] {
                continue;
            }
            let (size, mut used) = (part.modes.len(), 0);
            let shape = |k: usize| &weights[part.probes[k]..part.probes[k] + size];
            let mut weigh = |terms: &mut dyn Iterator<Item = (usize, f64)>| -> Option<usize> {
                if used == weights_room[i] {
                    return None;
                }
                let start = weights_at[i] + used * size;
                let row = &mut part_weights[start..start + size];
                row.fill(0.0);
                for (k, weight) in terms {
                    row.iter_mut().zip(shape(k)).for_each(|(w, &phi)| *w += weight * phi);
                }
                used += 1;
                Some(start)
            };
            while e < entries.len() && entries[e].0 == i {
                let output = entries[e].2;
                let group = entries[e..].iter().take_while(|entry| entry.0 == i && entry.2 == output).count();
                let group = &entries[e..e + group];
                e += group.len();
                if slots.len() - slots_at[i] == MOST_SLOTS {
                    return false;
                }
                let Some(on_q) = weigh(&mut group.iter().map(|entry| (entry.1, entry.3))) else {
                    return false;
                };
                let on_p = match group.iter().any(|entry| entry.4 != 0.0) {
                    true => match weigh(&mut group.iter().map(|entry| (entry.1, entry.4 / *dt))) {
                        None => return false,
                        on_p => on_p,
                    },
                    false => None,
                };
                slots.push(Slot { output, on_q, on_p });
            }
            for pair in 0..2 * inputs.len() {
                let coefficient = |k: usize| {
                    let entries = rows[d + part.inputs[k]].iter().filter(|entry| entry.0 == inputs[pair / 2]);
                    entries.map(|entry| if pair % 2 == 0 { entry.1 } else { entry.2 }).sum::<f64>()
                };
                if (0..part.inputs.len()).all(|k| coefficient(k) == 0.0) {
                    continue;
                }
                if drives.len() - drives_at[i] == MOST_DRIVES {
                    return false;
                }
                let Some(row) = weigh(&mut (0..part.inputs.len()).map(|k| (k, -*dt * coefficient(k)))) else {
                    return false;
                };
                drives.push(Drive { pair, row });
            }
        }
        (slots_at[parts.len()], drives_at[parts.len()]) = (slots.len(), drives.len());
        true
    }

    /// The far parts' summed responses `H`: each part run from rest after a unit of each of its
    /// drives at one step.
    #[inline(always)]
    fn respond(&mut self) {
        let size = self.far.outputs.len() * 2 * self.far.inputs.len() * BLOCK;
        self.far.response_lanes[..size].fill([0.0; super::LANES]);
        for at in 0..self.far.far_parts.len() {
            let i = self.far.far_parts[at];
            for k in 0..self.far.drives_at[i + 1] - self.far.drives_at[i] {
                self.run_parts(at..at + 1, 1, BLOCK, Some(k));
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
