//! The modal kernel: any linear scheme on uniform chains and membranes, mode by mode.
//!
//! On a uniform chain or membrane with a fixed rim the stiffness `K`, the damping `D` and the
//! mass `m I` are all diagonal in the sine modes ([`SineModes`]); so is a string's bending
//! `kappa L^2`, the square of its second difference `L`. Every scheme's update is built from
//! `M^-1 K`, `M^-1 D` and the forces, so a scheme advances each mode's amplitude `(q, p)`
//! (position, velocity) exactly as it advances one mass on a spring and a damper (the argument
//! `analysis::discrete` makes for the discrete poles). A step is then, for every mode,
//!
//! ```text
//! q' = a q + b p + f_q F + g_q G        p' = c q + d p + f_p F + g_p G
//! ```
//!
//! with `F` the mode's share of the system's constant forces (anchors off zero, gravity) and `G`
//! its share of the held forces, each through its own response (the exact flow integrates the
//! first and applies the second as an impulse): a linear recurrence with four coefficients per
//! mode, the same cost for every scheme, explicit or implicit. The coefficients are given (the
//! engine has the analysis measure them on one oscillator per mode). Independent bodies (the
//! strings of a guitar) lie side by side ([`Bodies`]), each with its own modes. Modes are
//! independent, so a block of steps runs a group of modes in registers from start to end
//! (temporal blocking for free) while the outputs, each a weighted sum over the modes,
//! accumulate. The results equal the general path's to rounding (not bit for bit: the sums run
//! in another order).

mod bodies;
mod folding;
mod outputs;
mod sines;

pub use bodies::Bodies;
pub use sines::SineModes;

use super::chain::Tap;
use super::Real;
use folding::{Folded, Matrices};
use outputs::Outputs;

/// Modes per group of a large model: four vectors of eight f64 lanes (an AVX-512 register
/// each), so that four independent recurrences are in flight while one waits for its
/// multiply-add.
const GROUP: usize = 32;
/// Lanes of one vector, and the group of a model of at most that many modes (a short string,
/// whose padding to [`GROUP`] would cost four times its work).
const LANES: usize = 8;
/// Steps per block: a group's signals' partial sums (`signals x BLOCK x LANES` values) stay
/// in L1.
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
    matrices: Matrices,
    constant_q: Vec<f64>,
    constant_p: Vec<f64>,
    held_q: Vec<f64>,
    held_p: Vec<f64>,
    stiffness: Vec<f64>,
    damping: Vec<f64>,
}

/// Uniform chains and membranes advanced mode by mode.
#[derive(Debug, Clone)]
pub struct ModalKernel {
    bodies: Bodies,
    /// Modes per group: [`LANES`] for a model of at most that many modes, else [`GROUP`].
    group: usize,
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
    /// Whether a constant force acts.
    constantly_forced: bool,
    /// The masses holding a force other than zero.
    holding: usize,
    outputs: Outputs,
    /// A mode shape (scratch for changes).
    shape: Vec<f64>,
    /// The signals' partial sums of a block, per lane, then their values.
    partial: Vec<f64>,
    values: Vec<f64>,
    /// The decimation folded into the outputs, once [`ModalKernel::fold`] has made it.
    folded: Option<Folded>,
    /// One value per channel (scratch).
    frame: Vec<f64>,
}

/// What a block of the kernel runs: the steps with the outputs, `K` steps at once with the
/// outputs folded ([`folding`]), or steps back with the outputs (for the decimator's history).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rate {
    Fine,
    Folded,
    Back,
}

impl ModalKernel {
    /// A kernel on `bodies`, mode `j` advanced by `steps[j]`, with constant forces `constant`
    /// and held forces `held` on the masses (N), from the masses' positions `x` and velocities
    /// `v` (m, m/s; each body's row-major), recording the channels `outputs` (each the sum of
    /// its terms, by mass).
    pub fn new(
        bodies: Bodies,
        steps: &[ModeStep],
        constant: Vec<f64>,
        held: Vec<f64>,
        x: &[f64],
        v: &[f64],
        outputs: &[Vec<Tap>],
    ) -> Self {
        let n = bodies.len();
        let group = if n <= LANES { LANES } else { GROUP };
        let padded = n.div_ceil(group) * group;
        let column = |f: &dyn Fn(&ModeStep) -> f64| {
            let mut values: Vec<f64> = steps.iter().map(f).collect();
            values.resize(padded, 0.0);
            values
        };
        let arrays = ModeArrays {
            matrices: Matrices::from_fn(padded, |j| steps.get(j).map_or([[0.0; 2]; 2], |s| s.matrix)),
            constant_q: column(&|s| s.constant_force[0]),
            constant_p: column(&|s| s.constant_force[1]),
            held_q: column(&|s| s.held_force[0]),
            held_p: column(&|s| s.held_force[1]),
            stiffness: column(&|s| s.stiffness),
            damping: column(&|s| s.damping),
        };
        let to_modes = |values: &[f64]| {
            let mut out = vec![0.0; padded];
            bodies.transform(values, &mut out);
            out
        };
        let (q, p) = (to_modes(x), to_modes(v));
        let outputs = Outputs::new(&bodies, outputs, padded, group);
        let mut kernel = Self {
            group,
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
            constantly_forced: false,
            holding: 0,
            frame: vec![0.0; outputs.channels],
            partial: vec![0.0; outputs.signals * BLOCK * LANES],
            values: vec![0.0; outputs.signals * BLOCK],
            outputs,
            shape: vec![0.0; padded],
            bodies,
            folded: None,
        };
        kernel.project_forces();
        kernel
    }

    /// Steps body `body`'s modes by `step(modes, j)` from now (`j` its mode, from 0; `modes` its
    /// sine modes). Refused (`false`, nothing changed) where the kernel folds the decimation
    /// (its folded matrices would be made again, `O(N)` a mode for a filter of `N` taps), or
    /// where a force acts and a mode's response to it changes (its push would be made again
    /// from the forces: symplectic Euler's response, `h^2 / m` and `h / m`, stays as it is when
    /// the stiffness or the damping changes). Allocates nothing.
    pub fn retune(&mut self, body: usize, step: impl Fn(&SineModes, usize) -> ModeStep) -> bool {
        let Some((modes, range)) = self.bodies.parts().nth(body) else { return false };
        let s = &self.steps;
        let pushes_kept = |j: usize| {
            let new = step(modes, j - range.start);
            new.constant_force == [s.constant_q[j], s.constant_p[j]]
                && new.held_force == [s.held_q[j], s.held_p[j]]
        };
        if self.folded.is_some() || self.forced && !range.clone().all(pushes_kept) {
            return false;
        }
        let s = &mut self.steps;
        for j in range.clone() {
            let ModeStep { matrix, constant_force, held_force, stiffness, damping } =
                step(modes, j - range.start);
            s.matrices.set(j, matrix);
            [s.constant_q[j], s.constant_p[j]] = constant_force;
            [s.held_q[j], s.held_p[j]] = held_force;
            (s.stiffness[j], s.damping[j]) = (stiffness, damping);
        }
        true
    }

    /// Computes every mode's push from the constant and held forces.
    fn project_forces(&mut self) {
        let n = self.bodies.len();
        self.constantly_forced = self.constant.iter().any(|&f| f != 0.0);
        self.holding = self.held.iter().filter(|&&f| f != 0.0).count();
        self.forced = self.constantly_forced || self.holding > 0;
        let mut held = vec![0.0; n];
        self.bodies.transform(&self.held, &mut held);
        self.bodies.transform(&self.constant, &mut self.shape);
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
        let restoring = self.bodies.value_of(mass, |j| Real::mul_add(k[j], self.q[j], d[j] * self.p[j]));
        self.constant[mass] - restoring
    }

    /// Position (m) and velocity (m/s) of mass `mass`.
    pub fn motion(&self, mass: usize) -> (f64, f64) {
        (self.bodies.value_of(mass, |j| self.q[j]), self.bodies.value_of(mass, |j| self.p[j]))
    }

    /// Sets the position (m) and velocity (m/s) of mass `mass`, the others unchanged.
    pub fn set_motion(&mut self, mass: usize, x: f64, v: f64) {
        let (x_now, v_now) = self.motion(mass);
        for j in self.bodies.shape_at(mass, &mut self.shape) {
            self.q[j] = Real::mul_add(self.shape[j], x - x_now, self.q[j]);
            self.p[j] = Real::mul_add(self.shape[j], v - v_now, self.p[j]);
        }
    }

    /// Sets every mass's position (m) and velocity (m/s) to `motion(mass)`: each mode's
    /// amplitudes are the sums of the masses' values along its shape (`q = S x`, `S` its own
    /// inverse), `O(n^2)` a body, in place.
    pub fn set_state(&mut self, motion: impl Fn(usize) -> (f64, f64)) {
        self.q.fill(0.0);
        self.p.fill(0.0);
        for mass in 0..self.bodies.len() {
            let (x, v) = motion(mass);
            for j in self.bodies.shape_at(mass, &mut self.shape) {
                self.q[j] = Real::mul_add(self.shape[j], x, self.q[j]);
                self.p[j] = Real::mul_add(self.shape[j], v, self.p[j]);
            }
        }
    }

    /// Holds `force` (N) on mass `mass` through the next steps, until changed. When the last
    /// held force goes back to zero and no constant force acts, the pushes are zero again,
    /// exactly, and the steps unforced.
    pub fn set_force(&mut self, mass: usize, force: f64) {
        let change = force - self.held[mass];
        if change == 0.0 {
            return;
        }
        match (self.held[mass] != 0.0, force != 0.0) {
            (false, true) => self.holding += 1,
            (true, false) => self.holding -= 1,
            _ => {}
        }
        self.held[mass] = force;
        if self.holding == 0 && !self.constantly_forced {
            self.push_q.fill(0.0);
            self.push_p.fill(0.0);
            self.forced = false;
            return;
        }
        for j in self.bodies.shape_at(mass, &mut self.shape) {
            let share = self.shape[j] * change;
            self.push_q[j] = Real::mul_add(self.steps.held_q[j], share, self.push_q[j]);
            self.push_p[j] = Real::mul_add(self.steps.held_p[j], share, self.push_p[j]);
        }
        self.forced = true;
    }

    /// The masses' positions and velocities (m, m/s), each body's row-major, into `x` and `v`.
    pub fn write_state(&self, x: &mut [f64], v: &mut [f64]) {
        self.bodies.transform(&self.q, x);
        self.bodies.transform(&self.p, v);
    }

    /// Whether a constant or held force acts (then the kernel cannot fold: see [`Self::fold`]).
    pub fn forced(&self) -> bool {
        self.forced
    }

    /// Folds the decimation by `factor` after the low-pass FIR `taps` (applied at the step rate)
    /// into the outputs ([`folding`]), for [`Self::advance_folded`] and [`Self::read_folded`]
    /// and [`Self::history`]. Returns whether it could (not where a mode's matrix cannot be
    /// stepped back; the kernel then runs as before).
    pub fn fold(&mut self, taps: &[f64], factor: usize) -> bool {
        self.folded = Folded::new(&self.steps.matrices, &self.outputs, taps, factor, self.group);
        self.folded.is_some()
    }

    /// Advances `steps` steps, writing channel `c`'s value after step `s` to
    /// `record[c * steps + s]`. On a non-finite value the state is left at the start of the
    /// block that made it and the steps done before that block are returned in the error.
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), usize> {
        self.run(Rate::Fine, steps, record, steps, 0)
    }

    /// Advances `frames` times `K` steps, unforced, `K` at a time, writing channel `c`'s
    /// decimated output after frame `f` to `record[c * frames + f]`: the filter's output whose
    /// window ends at that step, exact where no change fell in the window. On a non-finite
    /// value the state is left at the start of the block that made it and the frames done
    /// before that block are returned in the error. Does nothing without [`Self::fold`].
    pub fn advance_folded(&mut self, frames: usize, record: &mut [f64]) -> Result<(), usize> {
        debug_assert!(!self.forced, "the folded steps leave out the forces");
        self.run(Rate::Folded, frames, record, frames, 0)
    }

    /// Takes `K` steps at once ([`Self::advance_folded`], its frame into `frame`) and keeps the
    /// state they reach aside, then `steps < K` fine steps from where it started (their values
    /// into `record`, as [`Self::advance`] writes them): where a run stops inside the `K`
    /// steps, so that going on ([`Self::catch_up`]) gives the same values, to the bit, as a run
    /// that never stopped. On a non-finite value the state is left where it started.
    pub fn look_ahead(&mut self, steps: usize, frame: &mut [f64], record: &mut [f64]) -> Result<(), usize> {
        let Some(folded) = &mut self.folded else { return Err(0) };
        folded.saved_q.copy_from_slice(&self.q);
        folded.saved_p.copy_from_slice(&self.p);
        self.run(Rate::Folded, 1, frame, 1, 0)?;
        let Some(folded) = &mut self.folded else { return Err(0) };
        folded.ahead_q.copy_from_slice(&self.q);
        folded.ahead_p.copy_from_slice(&self.p);
        self.q.copy_from_slice(&folded.saved_q);
        self.p.copy_from_slice(&folded.saved_p);
        self.run(Rate::Fine, steps, record, steps, 0)
    }

    /// Goes to the state the last [`Self::look_ahead`] kept aside.
    pub fn catch_up(&mut self) {
        if let Some(folded) = &self.folded {
            self.q.copy_from_slice(&folded.ahead_q);
            self.p.copy_from_slice(&folded.ahead_p);
        }
    }

    /// Each channel's decimated output whose window ends now, into `values` (one per channel):
    /// as [`Self::advance_folded`] reads them, where fine steps reached the output.
    pub fn read_folded(&self, values: &mut [f64]) {
        if let Some(folded) = &self.folded {
            folded.outputs.read(self.group, &self.q, &self.p, values);
        }
    }

    /// The channels' values over the last `ages` steps, as if no change had come in them:
    /// channel `c`'s value `a` steps ago (now for `a = 0`) to `record[c * ages + a]`, each from
    /// the state now stepped back by `A^-a`. The state is left as it was.
    pub fn history(&mut self, ages: usize, record: &mut [f64]) {
        let Some(folded) = &mut self.folded else { return };
        folded.saved_q.copy_from_slice(&self.q);
        folded.saved_p.copy_from_slice(&self.p);
        self.outputs.read(self.group, &self.q, &self.p, &mut self.frame);
        for (channel, value) in self.frame.iter().enumerate() {
            record[channel * ages] = *value;
        }
        // Stepping back from a finite state through finite inverses: a non-finite value here
        // would only repeat one the steps forward met first.
        let _ = self.run(Rate::Back, ages.saturating_sub(1), record, ages, 1);
        let Some(folded) = &self.folded else { return };
        self.q.copy_from_slice(&folded.saved_q);
        self.p.copy_from_slice(&folded.saved_p);
    }

    /// Runs `steps` steps at `rate` in blocks, channel `c`'s value after step `s` to
    /// `record[c * stride + first + s]`.
    fn run(
        &mut self,
        rate: Rate,
        steps: usize,
        record: &mut [f64],
        stride: usize,
        first: usize,
    ) -> Result<(), usize> {
        let mut done = 0;
        let (mut partial, mut values) = (std::mem::take(&mut self.partial), std::mem::take(&mut self.values));
        let signals = self.outputs.signals;
        let forced = self.forced && rate == Rate::Fine;
        while done < steps {
            let length = BLOCK.min(steps - done);
            let sums = &mut partial[..signals * length * LANES];
            sums.fill(0.0);
            let finite = match (forced, self.group) {
                (true, LANES) => self.run_block_best::<true, LANES>(rate, length, sums),
                (true, _) => self.run_block_best::<true, GROUP>(rate, length, sums),
                (false, LANES) => self.run_block_best::<false, LANES>(rate, length, sums),
                (false, _) => self.run_block_best::<false, GROUP>(rate, length, sums),
            };
            if !finite {
                (self.partial, self.values) = (partial, values);
                return Err(done);
            }
            std::mem::swap(&mut self.q, &mut self.q_next);
            std::mem::swap(&mut self.p, &mut self.p_next);
            let values = &mut values[..signals * length];
            for (value, lanes) in values.iter_mut().zip(sums.chunks_exact(LANES)) {
                // A tree of pairs of lanes, which vectorises.
                let [a, b, c, d, e, f, g, h] = lanes.try_into().unwrap_or([0.0; LANES]);
                *value = ((a + e) + (c + g)) + ((b + f) + (d + h));
            }
            let outputs = match (&self.folded, rate) {
                (Some(folded), Rate::Folded) => &folded.outputs,
                _ => &self.outputs,
            };
            for channel in 0..outputs.channels {
                record[channel * stride + first + done..][..length].fill(0.0);
            }
            for &(signal, channel, gain) in &outputs.mix {
                let out = &mut record[channel * stride + first + done..][..length];
                let signal = &values[signal * length..][..length];
                // A product then a sum: a fused multiply-add out here would be a library call.
                out.iter_mut().zip(signal).for_each(|(o, s)| *o += gain * s);
            }
            done += length;
        }
        (self.partial, self.values) = (partial, values);
        Ok(())
    }

    /// [`Self::run_block`] compiled for the best instructions the CPU has.
    fn run_block_best<const FORCED: bool, const G: usize>(
        &mut self,
        rate: Rate,
        length: usize,
        partial: &mut [f64],
    ) -> bool {
        super::with_best_instructions(
            #[inline(always)]
            || self.run_block::<FORCED, G>(rate, length, partial),
        )
    }

    /// One block of `length` steps at `rate` of every group of `G` modes, from `q, p` into
    /// `q_next, p_next`, each output's partial sums (per lane) into
    /// `partial[(o length + s) LANES ..]`. Returns whether every new amplitude is finite.
    #[inline(always)]
    fn run_block<const FORCED: bool, const G: usize>(
        &mut self,
        rate: Rate,
        length: usize,
        partial: &mut [f64],
    ) -> bool {
        let Self { steps, folded, outputs, q: q_now, p: p_now, q_next, p_next, push_q, push_p, .. } = self;
        let (s, outputs) = match (folded.as_ref(), rate) {
            (Some(folded), Rate::Folded) => (&folded.power, &folded.outputs),
            (Some(folded), Rate::Back) => (&folded.back, &*outputs),
            _ => (&steps.matrices, &*outputs),
        };
        let mut finite = true;
        let groups = q_now.len() / G;
        for g in 0..groups {
            let range = g * G..(g + 1) * G;
            let load = |values: &[f64]| -> [f64; G] { values[range.clone()].try_into().unwrap_or([0.0; G]) };
            let (a, b, c, d) = (load(&s.a), load(&s.b), load(&s.c), load(&s.d));
            let (push_q, push_p) = (load(push_q), load(push_p));
            let (mut q, mut p) = (load(q_now), load(p_now));
            for step in 0..length {
                for l in 0..G {
                    let (q_old, p_old) = (q[l], p[l]);
                    let (qb, pd) = if FORCED {
                        (Real::mul_add(b[l], p_old, push_q[l]), Real::mul_add(d[l], p_old, push_p[l]))
                    } else {
                        (b[l] * p_old, d[l] * p_old)
                    };
                    q[l] = Real::mul_add(a[l], q_old, qb);
                    p[l] = Real::mul_add(c[l], q_old, pd);
                }
                for read in &outputs.reads[g] {
                    let sums = &mut partial[(read.signal * length + step) * LANES..][..LANES];
                    let row = |start: usize| &outputs.rows[start..][..G];
                    // One sum of both rows where a signal has both: a second pass over the same
                    // sums would wait on the first's stores (about 1.5 times the time on the guitar).
                    match (read.q, read.p) {
                        (Some(w_q), Some(w_p)) => accumulate_both(row(w_q), &q, row(w_p), &p, sums),
                        (Some(w_q), None) => accumulate(row(w_q), &q, sums),
                        (None, Some(w_p)) => accumulate(row(w_p), &p, sums),
                        (None, None) => {}
                    }
                }
            }
            finite &= q.iter().chain(&p).all(|v| v.is_finite());
            q_next[range.clone()].copy_from_slice(&q);
            p_next[range].copy_from_slice(&p);
        }
        finite
    }
}

/// Adds `weights . values` to `sums`, lane by lane (the group's vectors summed into one), in
/// two chains of multiply-adds so that each is short.
#[inline(always)]
fn accumulate<const G: usize>(weights: &[f64], values: &[f64; G], sums: &mut [f64]) {
    if G == LANES {
        for lane in 0..LANES {
            sums[lane] = Real::mul_add(weights[lane], values[lane], sums[lane]);
        }
        return;
    }
    for lane in 0..LANES {
        let (mut even, mut odd) = (sums[lane], 0.0);
        for pair in 0..G / LANES / 2 {
            let (l, m) = (2 * pair * LANES + lane, (2 * pair + 1) * LANES + lane);
            even = Real::mul_add(weights[l], values[l], even);
            odd = Real::mul_add(weights[m], values[m], odd);
        }
        if G / LANES % 2 == 1 {
            let l = (G / LANES - 1) * LANES + lane;
            even = Real::mul_add(weights[l], values[l], even);
        }
        sums[lane] = even + odd;
    }
}

/// Adds `weights_q . q + weights_p . p` to `sums`, lane by lane, in two chains of
/// multiply-adds, one per row.
#[inline(always)]
fn accumulate_both<const G: usize>(
    weights_q: &[f64],
    q: &[f64; G],
    weights_p: &[f64],
    p: &[f64; G],
    sums: &mut [f64],
) {
    for lane in 0..LANES {
        let (mut over_q, mut over_p) = (sums[lane], 0.0);
        for vector in 0..G / LANES {
            let l = vector * LANES + lane;
            over_q = Real::mul_add(weights_q[l], q[l], over_q);
            over_p = Real::mul_add(weights_p[l], p[l], over_p);
        }
        sums[lane] = over_q + over_p;
    }
}
