//! The coupled modal kernel: symplectic Euler on a linear network split into parts advanced in
//! their own modes and a few masses stepped directly (`analysis::parts` makes the split).
//!
//! A step from the state at step `n`:
//!
//! ```text
//! f_r   = b_r - sum_s (K_rs x_s + C_rs v_s)        every coupling row r, sources s at step n
//! v_d' = v_d + h f_d / m_d,  x_d' = x_d + h v_d'   each direct coordinate d
//! G_j   = S_j + sum_t Phi_tj f_t                   each mode j, over its part's touched t
//! q_j' = a q_j + b p_j + g_q G_j,  p_j' = c q_j + d p_j + g_p G_j
//! x_t' = sum_j Phi_tj q_j',  v_t' = sum_j Phi_tj p_j'
//! ```
//!
//! The rows are the direct coordinates' (every force on them: `b` their constant and held
//! forces) and the touched coordinates' (the entries no part's modes hold: couplings between
//! parts, to direct masses, a part's deviation from its reference); the sources are the direct
//! and touched coordinates. `S_j` is mode `j`'s share of its part's constant and held forces.
//! Every force is taken at the step's start, as symplectic Euler takes it, so the step is the
//! network's to rounding.

use crate::quantity::Quantity;
use std::ops::Range;

/// One mode's symplectic Euler step with modal mass 1: `[a, b, c, d]` and the response `[g_q,
/// g_p]` to a modal force of 1 N (`a`, `d` pure numbers, `b` in s, `c` in 1/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoupledMode {
    /// `[[a, b], [c, d]]`.
    pub matrix: [[f64; 2]; 2],
    /// `[g_q, g_p]`.
    pub response: [f64; 2],
}

/// A coordinate of a part that a coupling row reads or drives: its part and its shape over the
/// part's modes (`Phi_tj`, 1/sqrt(kg)).
#[derive(Debug, Clone, PartialEq)]
pub struct Touched {
    /// The part (index into the kernel's parts).
    pub part: usize,
    /// Its share of each of the part's modes.
    pub shape: Vec<f64>,
}

/// One coupling row: `f = b - sum (k x_s + c v_s)` over `(source, k, c)` entries, sources
/// numbered direct coordinates first, then touched ones.
pub type Row = Vec<(usize, f64, f64)>;

/// The network as the kernel takes it.
#[derive(Debug, Clone)]
pub struct CoupledNetwork {
    /// Each part's range of modes.
    pub parts: Vec<Range<usize>>,
    /// Every mode's step.
    pub modes: Vec<CoupledMode>,
    /// Each touched coordinate, by part.
    pub touched: Vec<Touched>,
    /// The rows, direct coordinates first, then touched ones.
    pub rows: Vec<Row>,
    /// Each direct coordinate's inverse mass, 1/kg.
    pub inverse_mass: Vec<f64>,
}

/// The coupled modal kernel's state and scratch.
#[derive(Debug, Clone)]
pub struct CoupledKernel {
    network: CoupledNetwork,
    dt: f64,
    /// Each touched coordinate's range in `touched` per part.
    touched_of: Vec<Range<usize>>,
    /// Modal amplitudes `q` (sqrt(kg) m) and rates `p` (sqrt(kg) m/s).
    q: Vec<f64>,
    p: Vec<f64>,
    /// Each mode's share of its part's constant and held forces, N.
    share: Vec<f64>,
    /// Each direct coordinate's position (m), velocity (m/s) and constant plus held force (N).
    x: Vec<f64>,
    v: Vec<f64>,
    base: Vec<f64>,
    /// Every source's position and velocity at the step's start.
    source_x: Vec<f64>,
    source_v: Vec<f64>,
    force: Vec<f64>,
    input: Vec<f64>,
    /// Taps on direct coordinates: `(channel, direct coordinate, quantity, weight)`.
    direct_taps: Vec<(usize, usize, Quantity, f64)>,
    /// Per channel: weights of every mode's `q` and `p` (empty where no tap is on a part).
    modal_taps: Vec<(Vec<f64>, Vec<f64>)>,
    backup: Vec<f64>,
}

impl CoupledKernel {
    /// The kernel for `network` with step `dt` (s), from modal amplitudes `q`, `p`, shares
    /// `share` and the direct coordinates' `x`, `v` and constant plus held forces `base`.
    /// `taps` per channel: on a direct coordinate (its index) or on modes (`q` and `p` weights
    /// over every mode).
    pub fn new(
        network: CoupledNetwork,
        dt: f64,
        [q, p, share]: [Vec<f64>; 3],
        [x, v, base]: [Vec<f64>; 3],
        direct_taps: Vec<(usize, usize, Quantity, f64)>,
        modal_taps: Vec<(Vec<f64>, Vec<f64>)>,
    ) -> Self {
        let mut touched_of = vec![0..0; network.parts.len()];
        for (t, touched) in network.touched.iter().enumerate() {
            let range = &mut touched_of[touched.part];
            if range.start == range.end {
                *range = t..t;
            }
            range.end = t + 1;
        }
        let rows = network.rows.len();
        let modes = network.modes.len();
        let mut kernel = Self {
            network,
            dt,
            touched_of,
            q,
            p,
            share,
            x,
            v,
            base,
            source_x: vec![0.0; rows],
            source_v: vec![0.0; rows],
            force: vec![0.0; rows],
            input: vec![0.0; modes],
            direct_taps,
            modal_taps,
            backup: Vec::new(),
        };
        kernel.refresh_sources();
        kernel
    }

    /// The direct coordinates' count.
    fn direct(&self) -> usize {
        self.x.len()
    }

    /// Every source's position and velocity from the state.
    fn refresh_sources(&mut self) {
        let d = self.direct();
        self.source_x[..d].copy_from_slice(&self.x);
        self.source_v[..d].copy_from_slice(&self.v);
        for (t, touched) in self.network.touched.iter().enumerate() {
            let modes = self.network.parts[touched.part].clone();
            self.source_x[d + t] = dot(&touched.shape, &self.q[modes.clone()]);
            self.source_v[d + t] = dot(&touched.shape, &self.p[modes]);
        }
    }

    /// Modal amplitudes and rates of part `part`.
    pub fn modes(&self, part: usize) -> (&[f64], &[f64]) {
        let range = self.network.parts[part].clone();
        (&self.q[range.clone()], &self.p[range])
    }

    /// Adds `dq`, `dp` (sqrt(kg) m, sqrt(kg) m/s) to part `part`'s modes.
    pub fn add_to_modes(&mut self, part: usize, dq: impl Fn(usize) -> f64, dp: impl Fn(usize) -> f64) {
        for (j, mode) in self.network.parts[part].clone().enumerate() {
            self.q[mode] += dq(j);
            self.p[mode] += dp(j);
        }
        self.refresh_sources();
    }

    /// Adds `share(j)` (N) to the share of constant and held forces of part `part`'s mode `j`.
    pub fn add_to_shares(&mut self, part: usize, share: impl Fn(usize) -> f64) {
        for (j, mode) in self.network.parts[part].clone().enumerate() {
            self.share[mode] += share(j);
        }
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

    /// Advances `steps` steps, writing channel `c`'s value after step `s` to `record[c * steps
    /// + s]`. If a value is not finite at the end, the state goes back to where it was and the
    /// error is `Err(())`.
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), ()> {
        self.save();
        super::with_best_instructions(|| {
            for s in 0..steps {
                self.step();
                self.record(s, steps, record);
            }
        });
        let sum: f64 = self.q.iter().chain(&self.p).chain(&self.x).chain(&self.v).sum();
        if sum.is_finite() {
            Ok(())
        } else {
            self.restore();
            Err(())
        }
    }

    /// One step (see the module's equations).
    #[inline(always)]
    fn step(&mut self) {
        let (h, d) = (self.dt, self.direct());
        let net = &self.network;
        for (r, row) in net.rows.iter().enumerate() {
            let base = if r < d { self.base[r] } else { 0.0 };
            self.force[r] = row.iter().fold(base, |f, &(s, k, c)| f - k * self.source_x[s] - c * self.source_v[s]);
        }
        for i in 0..d {
            self.v[i] += h * self.force[i] * net.inverse_mass[i];
            self.x[i] += h * self.v[i];
            self.source_x[i] = self.x[i];
            self.source_v[i] = self.v[i];
        }
        for (part, modes) in net.parts.iter().enumerate() {
            let input = &mut self.input[modes.clone()];
            input.copy_from_slice(&self.share[modes.clone()]);
            let touched = self.touched_of[part].clone();
            for t in touched.clone() {
                let f = self.force[d + t];
                for (i, s) in input.iter_mut().zip(&net.touched[t].shape) {
                    *i += s * f;
                }
            }
            let (q, p) = (&mut self.q[modes.clone()], &mut self.p[modes.clone()]);
            for (((q, p), mode), g) in q.iter_mut().zip(p.iter_mut()).zip(&net.modes[modes.clone()]).zip(input.iter()) {
                let [[a, b], [c, e]] = mode.matrix;
                let (q0, p0) = (*q, *p);
                *q = a * q0 + b * p0 + mode.response[0] * g;
                *p = c * q0 + e * p0 + mode.response[1] * g;
            }
            for t in touched {
                self.source_x[d + t] = dot(&net.touched[t].shape, q);
                self.source_v[d + t] = dot(&net.touched[t].shape, p);
            }
        }
    }

    /// Writes every channel's value after this step to `record[c * steps + s]`.
    #[inline(always)]
    fn record(&self, s: usize, steps: usize, record: &mut [f64]) {
        for (c, (wq, wp)) in self.modal_taps.iter().enumerate() {
            record[c * steps + s] = if wq.is_empty() { 0.0 } else { dot(wq, &self.q) + dot(wp, &self.p) };
        }
        for &(c, d, quantity, weight) in &self.direct_taps {
            let value = match quantity {
                Quantity::Position => self.x[d],
                Quantity::Velocity => self.v[d],
            };
            record[c * steps + s] += weight * value;
        }
    }

    fn save(&mut self) {
        self.backup.clear();
        for values in [&self.q, &self.p, &self.x, &self.v] {
            self.backup.extend_from_slice(values);
        }
    }

    fn restore(&mut self) {
        let mut at = 0;
        for values in [&mut self.q, &mut self.p, &mut self.x, &mut self.v] {
            let n = values.len();
            values.copy_from_slice(&self.backup[at..at + n]);
            at += n;
        }
        self.refresh_sources();
    }
}

/// `sum a_i b_i` in four independent sums (so that it vectorises).
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sums = [0.0; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4.remainder().iter().zip(b4.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a4.zip(b4) {
        for l in 0..4 {
            sums[l] += x[l] * y[l];
        }
    }
    sums[0] + sums[1] + sums[2] + sums[3] + tail
}
