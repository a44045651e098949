//! A far part's modes run through a block: forced steps, then its free response recorded.

use super::MOST_SLOTS;
use crate::kernel::coupled::sums::LANES;
use crate::kernel::Real;
use std::array::from_fn;

/// Lane groups of modes stepped together, so that their operations do not wait on each other.
const CHUNK: usize = 4;

/// Where a part's free response is summed: for each of its outputs, the accumulator's index of
/// its first record and its weight rows on `q` and (where it has one) on `p`.
pub(super) struct Slots<'a> {
    pub(super) count: usize,
    pub(super) at: [usize; MOST_SLOTS],
    pub(super) on_q: [&'a [[f64; LANES]]; MOST_SLOTS],
    pub(super) on_p: [Option<&'a [[f64; LANES]]>; MOST_SLOTS],
}

impl Slots<'_> {
    /// No outputs.
    pub(super) fn none() -> Self {
        Slots { count: 0, at: [0; MOST_SLOTS], on_q: [&[]; MOST_SLOTS], on_p: [None; MOST_SLOTS] }
    }
}

/// Runs one part's modes (`q`, `p`, lane groups) `forced` steps, driven through weight rows
/// `rows` by `drives` (each drive's value at each step), keeping where that leaves them; then,
/// from there, adds `records` states' weighted sums (the first before any step) to `sums` by
/// `slots`, stepping freely between them. Symplectic Euler in modes as
/// [`super::super::sums::step_part`] takes it, `CHUNK` lane groups at a time.
#[inline(always)]
pub(super) fn run<const T: usize>(
    h: f64,
    coefficients: [&[[f64; LANES]]; 3],
    [q, p]: [&mut [[f64; LANES]]; 2],
    rows: [&[[f64; LANES]]; T],
    (forced, drives): (usize, [&[f64]; T]),
    (records, slots): (usize, &Slots),
    sums: &mut [[f64; LANES]],
) {
    let groups = q.len();
    let mut g = 0;
    while g + CHUNK <= groups {
        run_chunk::<T, CHUNK>(h, g, coefficients, [q, p], rows, (forced, drives), (records, slots), sums);
        g += CHUNK;
    }
    while g < groups {
        run_chunk::<T, 1>(h, g, coefficients, [q, p], rows, (forced, drives), (records, slots), sums);
        g += 1;
    }
}

/// [`run`] on lane groups `g..g + C`, their state in registers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_chunk<const T: usize, const C: usize>(
    h: f64,
    g: usize,
    coefficients: [&[[f64; LANES]]; 3],
    [q, p]: [&mut [[f64; LANES]]; 2],
    rows: [&[[f64; LANES]]; T],
    (forced, drives): (usize, [&[f64]; T]),
    (records, slots): (usize, &Slots),
    sums: &mut [[f64; LANES]],
) {
    let (mut qs, mut ps): ([[f64; LANES]; C], [[f64; LANES]; C]) =
        (from_fn(|c| q[g + c]), from_fn(|c| p[g + c]));
    for m in 0..forced {
        chunk_step::<T, C>(h, g, coefficients, rows, [&mut qs, &mut ps], Some(from_fn(|t| drives[t][m])));
    }
    for c in 0..C {
        (q[g + c], p[g + c]) = (qs[c], ps[c]);
    }
    for k in 0..records {
        if k > 0 {
            chunk_step::<T, C>(h, g, coefficients, rows, [&mut qs, &mut ps], None);
        }
        for s in 0..slots.count {
            let mut sum = [0.0; LANES];
            for c in 0..C {
                sum = fused(slots.on_q[s][g + c], qs[c], sum);
                if let Some(on_p) = slots.on_p[s] {
                    sum = fused(on_p[g + c], ps[c], sum);
                }
            }
            let total = &mut sums[slots.at[s] + k];
            *total = from_fn(|l| total[l] + sum[l]);
        }
    }
}

/// One step of lane groups `g..g + C` (state `qs`, `ps`), driven by `drive` or free.
#[inline(always)]
fn chunk_step<const T: usize, const C: usize>(
    h: f64,
    g: usize,
    [stiffness, decay, share]: [&[[f64; LANES]]; 3],
    rows: [&[[f64; LANES]]; T],
    [qs, ps]: [&mut [[f64; LANES]; C]; 2],
    drive: Option<[f64; T]>,
) {
    for c in 0..C {
        let mut input = share[g + c];
        if let Some(drive) = drive {
            for t in 0..T {
                input = fused(rows[t][g + c], [drive[t]; LANES], input);
            }
        }
        let pushed = fused(stiffness[g + c].map(|k| -k), qs[c], input.map(|input| h * input));
        ps[c] = fused(decay[g + c], ps[c], pushed);
        qs[c] = fused([h; LANES], ps[c], qs[c]);
    }
}

/// `a b + c` lane by lane, fused where the CPU can.
#[inline(always)]
fn fused(a: [f64; LANES], b: [f64; LANES], c: [f64; LANES]) -> [f64; LANES] {
    from_fn(|l| Real::mul_add(a[l], b[l], c[l]))
}
