//! The modal kernel: any linear scheme on a uniform chain or membrane, mode by mode.
//!
//! On a uniform chain or membrane with a fixed rim the stiffness `K`, the damping `D` and the
//! mass `m I` are all diagonal in the sine modes ([`SineModes`]), and every scheme's update is
//! built from `M^-1 K`, `M^-1 D` and the forces, so a scheme advances each mode's amplitude
//! `(q, p)` (position, velocity) exactly as it advances one mass on a spring and a damper (the
//! argument `analysis::discrete` makes for the discrete poles). A step is then, for every mode,
//!
//! ```text
//! q' = a q + b p + f_q F + g_q G        p' = c q + d p + f_p F + g_p G
//! ```
//!
//! with `F` the mode's share of the system's constant forces (anchors off zero, gravity) and `G`
//! its share of the held forces, each through its own response (the exact flow integrates the
//! first and applies the second as an impulse): a linear recurrence with four coefficients per
//! mode, the same cost for every scheme, explicit or implicit. The coefficients are given (the
//! engine has the analysis measure them on one oscillator per mode). Modes are independent, so
//! a block of steps runs a group of 32 modes in registers from start to end (temporal blocking
//! for free) while the pickups, each a weighted sum over the modes, accumulate. The results
//! equal the general path's to rounding (not bit for bit: the sums run in another order).

mod sines;

pub use sines::SineModes;

use super::chain::Tap;
use super::Real;
use crate::quantity::Quantity;

/// Modes per group: four vectors of eight f64 lanes (an AVX-512 register each), so that four
/// independent recurrences are in flight while one waits for its multiply-add.
const GROUP: usize = 32;
/// Lanes of one vector.
const LANES: usize = 8;
/// Steps per block: a group's pickups' partial sums (`taps x BLOCK x LANES` values) stay in L1.
pub const BLOCK: usize = 128;

/// One mode's step: `q' = a q + b p + f_q F + g_q G`, `p' = c q + d p + f_p F + g_p G` (`q` in
/// m, `p` in m/s, the mode's shares `F` of the constant forces and `G` of the held forces in N).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModeStep {
    /// `[[a, b], [c, d]]`: `a` and `d` are pure numbers, `b` in s, `c` in 1/s.
    pub matrix: [[f64; 2]; 2],
    /// `[f_q, f_p]`: the response to a constant force of the system of 1 N (gravity, anchors
    /// off zero), in m/N and m/(s N).
    pub constant_force: [f64; 2],
    /// `[g_q, g_p]`: the response to a held force of 1 N.
    pub held_force: [f64; 2],
    /// The mode's stiffness `k`, N/m: it feels the force `-k q`.
    pub stiffness: f64,
    /// The mode's damping `d`, N s/m: it feels the force `-d p`.
    pub damping: f64,
}

/// Per-mode arrays padded to whole groups (the padding modes are zero and stay zero).
#[derive(Debug, Clone, Default)]
struct ModeArrays {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    d: Vec<f64>,
    constant_q: Vec<f64>,
    constant_p: Vec<f64>,
    held_q: Vec<f64>,
    held_p: Vec<f64>,
    stiffness: Vec<f64>,
    damping: Vec<f64>,
}

/// The pickups' weights over the modes: a position tap reads `sum w_j q_j`, a velocity tap
/// `sum w_j p_j`. The position taps come first.
#[derive(Debug, Clone, Default)]
struct ModalTaps {
    /// Each tap's weights, one row of the padded mode count per tap.
    weights: Vec<f64>,
    /// How many taps read positions (the first ones).
    positions: usize,
    /// The caller's index of each tap (its row of the record).
    order: Vec<usize>,
}

impl ModalTaps {
    /// The number of taps.
    fn len(&self) -> usize {
        self.order.len()
    }
}

/// A uniform chain or membrane advanced mode by mode.
#[derive(Debug, Clone)]
pub struct ModalKernel {
    modes: SineModes,
    steps: ModeArrays,
    /// Modal positions (m) and velocities (m/s), padded.
    q: Vec<f64>,
    p: Vec<f64>,
    q_next: Vec<f64>,
    p_next: Vec<f64>,
    /// The constant forces on each mass besides the held ones (anchors, gravity), N.
    constant: Vec<f64>,
    /// The held force on each mass, N.
    held: Vec<f64>,
    /// Every mode's push per step: `f_q F + g_q G` and `f_p F + g_p G`.
    push_q: Vec<f64>,
    push_p: Vec<f64>,
    /// Whether any force acts (otherwise the step skips the pushes).
    forced: bool,
    taps: ModalTaps,
    /// One mode shape (scratch for changes), then the pickups' partial sums of a block.
    shape: Vec<f64>,
    partial: Vec<f64>,
}

impl ModalKernel {
    /// A kernel on `modes`, each advanced by `steps[j]`, with constant forces `constant` and
    /// held forces `held` on the masses (N), from the masses' positions `x` and velocities `v`
    /// (m, m/s; row-major), recording `taps` (by mass).
    pub fn new(
        modes: SineModes,
        steps: &[ModeStep],
        constant: Vec<f64>,
        held: Vec<f64>,
        x: &[f64],
        v: &[f64],
        taps: &[Tap],
    ) -> Self {
        let n = modes.len();
        let padded = n.div_ceil(GROUP) * GROUP;
        let column = |f: &dyn Fn(&ModeStep) -> f64| {
            let mut values: Vec<f64> = steps.iter().map(f).collect();
            values.resize(padded, 0.0);
            values
        };
        let arrays = ModeArrays {
            a: column(&|s| s.matrix[0][0]),
            b: column(&|s| s.matrix[0][1]),
            c: column(&|s| s.matrix[1][0]),
            d: column(&|s| s.matrix[1][1]),
            constant_q: column(&|s| s.constant_force[0]),
            constant_p: column(&|s| s.constant_force[1]),
            held_q: column(&|s| s.held_force[0]),
            held_p: column(&|s| s.held_force[1]),
            stiffness: column(&|s| s.stiffness),
            damping: column(&|s| s.damping),
        };
        let to_modes = |values: &[f64]| {
            let mut out = vec![0.0; padded];
            modes.transform(&values[..n], &mut out);
            out
        };
        let (q, p) = (to_modes(x), to_modes(v));
        let mut shape = vec![0.0; padded];
        let mut order: Vec<usize> = (0..taps.len()).collect();
        order.sort_by_key(|&t| taps[t].quantity != Quantity::Position);
        let mut weights = Vec::with_capacity(taps.len() * padded);
        for &t in &order {
            modes.shape_at(taps[t].mass, &mut shape);
            weights.extend(shape.iter().map(|s| taps[t].weight * s));
        }
        let positions = taps.iter().filter(|tap| tap.quantity == Quantity::Position).count();
        let taps = ModalTaps { weights, positions, order };
        let mut kernel = Self {
            steps: arrays,
            q_next: q.clone(),
            p_next: p.clone(),
            q,
            p,
            constant,
            held,
            push_q: vec![0.0; padded],
            push_p: vec![0.0; padded],
            forced: false,
            taps,
            shape,
            partial: Vec::new(),
            modes,
        };
        kernel.project_forces();
        kernel
    }

    /// Computes every mode's push from the constant and held forces.
    fn project_forces(&mut self) {
        let n = self.modes.len();
        self.forced = self.constant.iter().chain(&self.held).any(|&f| f != 0.0);
        let mut held = vec![0.0; n];
        self.modes.transform(&self.held, &mut held);
        self.modes.transform(&self.constant, &mut self.shape);
        let s = &self.steps;
        for j in 0..n {
            self.push_q[j] = s.constant_q[j] * self.shape[j] + s.held_q[j] * held[j];
            self.push_p[j] = s.constant_p[j] * self.shape[j] + s.held_p[j] * held[j];
        }
    }

    /// The force on mass `mass` now from everything but the held forces, N: the constant force
    /// less `K x + D v`, each mode's stiffness and damping times its amplitudes.
    pub fn free_force(&self, mass: usize) -> f64 {
        let (k, d) = (&self.steps.stiffness, &self.steps.damping);
        let restoring = self.modes.value_of(mass, |j| Real::mul_add(k[j], self.q[j], d[j] * self.p[j]));
        self.constant[mass] - restoring
    }

    /// Position (m) and velocity (m/s) of mass `mass`.
    pub fn motion(&self, mass: usize) -> (f64, f64) {
        (self.modes.value_at(mass, &self.q), self.modes.value_at(mass, &self.p))
    }

    /// Sets the position (m) and velocity (m/s) of mass `mass`, the others unchanged.
    pub fn set_motion(&mut self, mass: usize, x: f64, v: f64) {
        let (x_now, v_now) = self.motion(mass);
        self.modes.shape_at(mass, &mut self.shape);
        let n = self.modes.len();
        for j in 0..n {
            self.q[j] = Real::mul_add(self.shape[j], x - x_now, self.q[j]);
            self.p[j] = Real::mul_add(self.shape[j], v - v_now, self.p[j]);
        }
    }

    /// Holds `force` (N) on mass `mass` through the next steps, until changed.
    pub fn set_force(&mut self, mass: usize, force: f64) {
        let change = force - self.held[mass];
        if change == 0.0 {
            return;
        }
        self.held[mass] = force;
        self.modes.shape_at(mass, &mut self.shape);
        let n = self.modes.len();
        for j in 0..n {
            let share = self.shape[j] * change;
            self.push_q[j] = Real::mul_add(self.steps.held_q[j], share, self.push_q[j]);
            self.push_p[j] = Real::mul_add(self.steps.held_p[j], share, self.push_p[j]);
        }
        self.forced = self.forced || force != 0.0;
    }

    /// The masses' positions and velocities (m, m/s), row-major, into `x` and `v`.
    pub fn write_state(&self, x: &mut [f64], v: &mut [f64]) {
        self.modes.transform(&self.q, x);
        self.modes.transform(&self.p, v);
    }

    /// Advances `steps` steps, writing tap `t`'s value after step `s` to `record[t * steps + s]`.
    /// On a non-finite value the state is left at the start of the block that made it and the
    /// steps done before that block are returned in the error.
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), usize> {
        let mut done = 0;
        let mut buffer = std::mem::take(&mut self.partial);
        buffer.resize(self.taps.len() * BLOCK * LANES, 0.0);
        while done < steps {
            let length = BLOCK.min(steps - done);
            let partial = &mut buffer[..self.taps.len() * length * LANES];
            partial.fill(0.0);
            let finite = if self.forced {
                super::with_best_instructions(
                    #[inline(always)]
                    || self.run_block::<true>(length, partial),
                )
            } else {
                super::with_best_instructions(
                    #[inline(always)]
                    || self.run_block::<false>(length, partial),
                )
            };
            if !finite {
                self.partial = buffer;
                return Err(done);
            }
            std::mem::swap(&mut self.q, &mut self.q_next);
            std::mem::swap(&mut self.p, &mut self.p_next);
            for (&t, sums) in self.taps.order.iter().zip(partial.chunks_exact(length * LANES)) {
                let out = &mut record[t * steps + done..][..length];
                for (o, lanes) in out.iter_mut().zip(sums.chunks_exact(LANES)) {
                    *o = lanes.iter().sum();
                }
            }
            done += length;
        }
        self.partial = buffer;
        Ok(())
    }

    /// One block of `length` steps of every group, from `q, p` into `q_next, p_next`, each
    /// tap's partial sums (per lane) into `partial[(t length + s) LANES ..]`. Returns whether
    /// every new amplitude is finite.
    #[inline(always)]
    fn run_block<const FORCED: bool>(&mut self, length: usize, partial: &mut [f64]) -> bool {
        let s = &self.steps;
        let mut finite = true;
        let groups = self.q.len() / GROUP;
        for g in 0..groups {
            let range = g * GROUP..(g + 1) * GROUP;
            let load =
                |values: &[f64]| -> [f64; GROUP] { values[range.clone()].try_into().unwrap_or([0.0; GROUP]) };
            let (a, b, c, d) = (load(&s.a), load(&s.b), load(&s.c), load(&s.d));
            let (push_q, push_p) = (load(&self.push_q), load(&self.push_p));
            let (mut q, mut p) = (load(&self.q), load(&self.p));
            for step in 0..length {
                for l in 0..GROUP {
                    let (q_old, p_old) = (q[l], p[l]);
                    let (qb, pd) = if FORCED {
                        (Real::mul_add(b[l], p_old, push_q[l]), Real::mul_add(d[l], p_old, push_p[l]))
                    } else {
                        (b[l] * p_old, d[l] * p_old)
                    };
                    q[l] = Real::mul_add(a[l], q_old, qb);
                    p[l] = Real::mul_add(c[l], q_old, pd);
                }
                let (taps, padded) = (&self.taps, self.q.len());
                for t in 0..taps.len() {
                    let weights = &taps.weights[t * padded + g * GROUP..][..GROUP];
                    let sums = &mut partial[(t * length + step) * LANES..][..LANES];
                    // Position taps first; the loop-invariant test costs nothing, and choosing an
                    // array by reference instead would keep `q` and `p` out of registers.
                    if t < taps.positions {
                        accumulate(weights, &q, sums);
                    } else {
                        accumulate(weights, &p, sums);
                    }
                }
            }
            finite &= q.iter().chain(&p).all(|v| v.is_finite());
            self.q_next[range.clone()].copy_from_slice(&q);
            self.p_next[range].copy_from_slice(&p);
        }
        finite
    }
}

/// Adds `weights . values` to `sums`, lane by lane (the group's vectors summed into one).
#[inline(always)]
fn accumulate(weights: &[f64], values: &[f64; GROUP], sums: &mut [f64]) {
    for lane in 0..LANES {
        let mut sum = sums[lane];
        for vector in 0..GROUP / LANES {
            let l = vector * LANES + lane;
            sum = Real::mul_add(weights[l], values[l], sum);
        }
        sums[lane] = sum;
    }
}
