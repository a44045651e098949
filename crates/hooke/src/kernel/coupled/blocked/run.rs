//! Far parts' modes run through a block, four lane groups at a time (from one part or several of
//! the same shape): forced steps, then their free response recorded.

use super::{MOST_DRIVES, MOST_SLOTS};
use crate::kernel::coupled::sums::LANES;
use crate::kernel::Real;
use std::array::from_fn;

/// The most lane groups of modes stepped together, so that their operations do not wait on each
/// other, where the CPU has AVX-512's 32 wide registers: four groups' `q` and `p` take 8.
pub(super) const BATCH: usize = 4;

/// The same with AVX2's 16 registers of 4 lanes, where a group's `q` and `p` take 4: three
/// groups' take 12, four would spill to the stack (BENCHMARKS.md, "On a CPU without AVX-512").
pub(super) const NARROW_BATCH: usize = 3;

/// What a batch reads and writes, as lane groups: the modes' `q` and `p` (of the kernel, or a
/// part's at rest), their coefficients `h w^2`, `1 - h gamma` and shares (the kernel's, the
/// shares at rest all 0), and the far parts' weight rows.
pub(super) struct Lanes<'a> {
    pub(super) state: [&'a mut [[f64; LANES]]; 2],
    pub(super) coefficients: [&'a [[f64; LANES]]; 3],
    pub(super) share: &'a [[f64; LANES]],
    pub(super) weights: &'a [[f64; LANES]],
}

/// One lane group of a batch: where its state, its coefficients and its share are, and the
/// weights of each drive and slot (on `q`, and on `p` where the slot has one).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Group {
    pub(super) state: usize,
    pub(super) coefficients: usize,
    pub(super) share: usize,
    pub(super) drives: [usize; MOST_DRIVES],
    pub(super) on_q: [usize; MOST_SLOTS],
    pub(super) on_p: [usize; MOST_SLOTS],
}

/// What a batch's groups share: `forced` steps driven by each drive's values, then `records`
/// states summed into each slot's records in the accumulator from `at` on (with `p` where
/// `with_p`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape<'a> {
    pub(super) forced: usize,
    pub(super) drives: [&'a [f64]; MOST_DRIVES],
    pub(super) drive_count: usize,
    pub(super) records: usize,
    pub(super) slots: usize,
    pub(super) at: [usize; MOST_SLOTS],
    pub(super) with_p: [bool; MOST_SLOTS],
}

impl Shape<'_> {
    /// Whether groups of `other`'s shape can run in one batch with this one's: the same counts,
    /// slots and drives (the same recorded motion, compared by where it is, not value by value).
    pub(super) fn runs_as(&self, other: &Shape) -> bool {
        let same_drives = self.drives.iter().zip(&other.drives).all(|(a, b)| std::ptr::eq(*a, *b));
        same_drives
            && (self.forced, self.drive_count, self.records, self.slots)
                == (other.forced, other.drive_count, other.records, other.slots)
            && (self.at, self.with_p) == (other.at, other.with_p)
    }
}

/// Runs `groups` (one to [`BATCH`]) of one `shape`: [`run`] with the drives' count and the
/// groups' as constants.
#[inline(always)]
pub(super) fn run_groups(
    h: f64,
    lanes: &mut Lanes,
    groups: &[Group],
    shape: &Shape,
    sums: &mut [[f64; LANES]],
) {
    #[inline(always)]
    fn with_drives<const T: usize>(
        h: f64,
        lanes: &mut Lanes,
        groups: &[Group],
        shape: &Shape,
        sums: &mut [[f64; LANES]],
    ) {
        match groups.len() {
            1 => run::<T, 1>(h, lanes, groups.first_chunk().expect("1"), shape, sums),
            2 => run::<T, 2>(h, lanes, groups.first_chunk().expect("2"), shape, sums),
            3 => run::<T, 3>(h, lanes, groups.first_chunk().expect("3"), shape, sums),
            _ => run::<T, BATCH>(h, lanes, groups.first_chunk().expect("a batch"), shape, sums),
        }
    }
    match shape.drive_count {
        0 => with_drives::<0>(h, lanes, groups, shape, sums),
        1 => with_drives::<1>(h, lanes, groups, shape, sums),
        2 => with_drives::<2>(h, lanes, groups, shape, sums),
        3 => with_drives::<3>(h, lanes, groups, shape, sums),
        _ => with_drives::<4>(h, lanes, groups, shape, sums),
    }
}

/// Runs `C` lane groups, their state in registers, `shape.forced` steps driven by `T` drives,
/// keeping where that leaves them; then, from there, adds `shape.records` states' weighted sums
/// (the first before any step) to `sums`, stepping freely between them. Symplectic Euler in
/// modes as [`super::super::sums::step_part`] takes it; where each group's coefficients and
/// weights are is found once, before the steps (found at each use, their bounds checks and
/// reloads took half the loops' instructions). The forced and the free steps stay in one
/// function: split in two, or with the free steps' state copied lane by lane, the compiler
/// gathered across the groups or kept the state in memory, two to five times slower
/// (`perf annotate` on the grand piano).
#[inline(always)]
fn run<const T: usize, const C: usize>(
    h: f64,
    lanes: &mut Lanes,
    groups: &[Group; C],
    shape: &Shape,
    sums: &mut [[f64; LANES]],
) {
    let modes = Modes::<T, C>::of(h, lanes, groups);
    let [q, p] = &mut lanes.state;
    let (mut qs, mut ps): ([[f64; LANES]; C], [[f64; LANES]; C]) =
        (from_fn(|c| q[groups[c].state]), from_fn(|c| p[groups[c].state]));
    let drives: [&[f64]; T] = from_fn(|t| &shape.drives[t][..shape.forced]);
    for m in 0..shape.forced {
        modes.step(&mut qs, &mut ps, from_fn(|t| drives[t][m]));
    }
    for c in 0..C {
        (q[groups[c].state], p[groups[c].state]) = (qs[c], ps[c]);
    }
    let weights = |on: fn(&Group) -> &[usize; MOST_SLOTS]| -> [[&[f64; LANES]; C]; MOST_SLOTS] {
        // A slot not in use may name a row that no part has (none at all where no part is far).
        from_fn(|s| from_fn(|c| lanes.weights.get(on(&groups[c])[s]).unwrap_or(&[0.0; LANES])))
    };
    let (on_q, on_p) = (weights(|group| &group.on_q), weights(|group| &group.on_p));
    // The free steps on `q` alone, `ps` holding each group's `q` a step before (the weights on
    // `p` are over `h`: they read `h p_k = q_k - q_(k-1)`).
    for c in 0..C {
        ps[c] = fused(modes.h.map(|h| -h), ps[c], qs[c]);
    }
    for k in 0..shape.records {
        if k > 0 {
            modes.free_step(&mut qs, &mut ps);
        }
        for s in 0..shape.slots {
            let mut sum = [0.0; LANES];
            for c in 0..C {
                sum = fused(*on_q[s][c], qs[c], sum);
            }
            if shape.with_p[s] {
                for c in 0..C {
                    let moved = from_fn(|l| qs[c][l] - ps[c][l]);
                    sum = fused(*on_p[s][c], moved, sum);
                }
            }
            let total = &mut sums[shape.at[s] + k];
            *total = from_fn(|l| total[l] + sum[l]);
        }
    }
}

/// Where `C` lane groups' coefficients are: `h w^2`, `1 - h gamma`, the free recurrence's `a`
/// ([`Modes::free_step`]) and each drive's weights `h a_t`; and the share's pushes `h S`,
/// `h^2 S`: found once for a run's steps.
struct Modes<'a, const T: usize, const C: usize> {
    h: [f64; LANES],
    stiffness: [&'a [f64; LANES]; C],
    decay: [&'a [f64; LANES]; C],
    recurrence: [&'a [f64; LANES]; C],
    /// `h S` and `h^2 S`: the share's push in a forced and in a free step.
    pushed: [[f64; LANES]; C],
    pushed_free: [[f64; LANES]; C],
    drive: [[&'a [f64; LANES]; T]; C],
}

impl<'a, const T: usize, const C: usize> Modes<'a, T, C> {
    /// The coefficients of `groups` in `lanes`.
    #[inline(always)]
    fn of(h: f64, lanes: &Lanes<'a>, groups: &[Group; C]) -> Self {
        let [stiffness, decay, recurrence] = lanes.coefficients;
        Self {
            h: [h; LANES],
            stiffness: from_fn(|c| &stiffness[groups[c].coefficients]),
            decay: from_fn(|c| &decay[groups[c].coefficients]),
            recurrence: from_fn(|c| &recurrence[groups[c].coefficients]),
            pushed: from_fn(|c| lanes.share[groups[c].share].map(|s| h * s)),
            pushed_free: from_fn(|c| lanes.share[groups[c].share].map(|s| h * (h * s))),
            drive: from_fn(|c| from_fn(|t| &lanes.weights[groups[c].drives[t]])),
        }
    }

    /// One free step of the groups' `q` alone, `before` its value a step before: [`Modes::step`]
    /// with `h p_k = q_k - q_(k-1)`, `q_(k+1) = a q_k - d q_(k-1) + h^2 S` (`a = 1 + d - h (h
    /// w^2)`, `d = 1 - h gamma`): one multiply-add waits on the last, not three.
    #[inline(always)]
    fn free_step(&self, qs: &mut [[f64; LANES]; C], before: &mut [[f64; LANES]; C]) {
        for c in 0..C {
            let pushed = fused(self.decay[c].map(|d| -d), before[c], self.pushed_free[c]);
            let next = fused(*self.recurrence[c], qs[c], pushed);
            before[c] = qs[c];
            qs[c] = next;
        }
    }

    /// One step of the groups' state `qs`, `ps`, driven by `drive`.
    #[inline(always)]
    fn step(&self, qs: &mut [[f64; LANES]; C], ps: &mut [[f64; LANES]; C], drive: [f64; T]) {
        for c in 0..C {
            let mut pushed = self.pushed[c];
            for t in 0..T {
                pushed = fused(*self.drive[c][t], [drive[t]; LANES], pushed);
            }
            let pushed = fused(self.stiffness[c].map(|k| -k), qs[c], pushed);
            ps[c] = fused(*self.decay[c], ps[c], pushed);
            qs[c] = fused(self.h, ps[c], qs[c]);
        }
    }
}

/// `a b + c` lane by lane, fused where the CPU can.
#[inline(always)]
fn fused(a: [f64; LANES], b: [f64; LANES], c: [f64; LANES]) -> [f64; LANES] {
    from_fn(|l| Real::mul_add(a[l], b[l], c[l]))
}
