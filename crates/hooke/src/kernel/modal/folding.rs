//! The decimation folded into the modes.
//!
//! An oversampled run keeps one sample in `K` of its channels after a low-pass FIR `h` of odd
//! length `N = 2 D + 1` ([`crate::engine::decimate`]): output `m` is
//! `y_m = sum_k h_k s_{mK + D - k}`, input `s_i` being a channel's value after step `i + 1`. On
//! the modal kernel a channel is `s = w . x` over the modes' amplitudes `x = (q, p)`, and
//! between changes each mode moves by its matrix `A`, so `x_{n - k} = A^-k x_n`. Where no
//! change falls in an output's window, then,
//!
//! ```text
//! y_m = (sum_k h_k w A^-k) . x_{mK + D + 1} = (w M) . x_{mK + D + 1},    M = sum_k h_k A^-k,
//! ```
//!
//! a 2 x 2 matrix `M` per mode: the filter folds into the weights, the kernel steps `K` steps at
//! once by `A^K` and reads each output once, at the output rate. The filter's work and `K - 1`
//! of every `K` reads are gone; the outputs equal the fine steps' through the filter to
//! rounding. After a change the filter's history (its last `N` inputs) is rebuilt from the
//! state by stepping back: `s_{i - a} = w A^-a x_{i + 1}`.

use super::outputs::Outputs;

/// A 2 x 2 matrix `[[a, b], [c, d]]`.
pub(super) type Matrix = [[f64; 2]; 2];

/// Each mode's step matrix `[[a, b], [c, d]]` (`a`, `d` pure numbers, `b` in s, `c` in 1/s), in
/// four arrays over the modes (padded: the padding modes' matrices are zero).
#[derive(Debug, Clone, Default)]
pub(super) struct Matrices {
    pub(super) a: Vec<f64>,
    pub(super) b: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) d: Vec<f64>,
}

impl Matrices {
    /// The matrices `matrix(j)` of modes `0..len`.
    pub(super) fn from_fn(len: usize, matrix: impl Fn(usize) -> Matrix) -> Self {
        let mut this = Self::default();
        for [[a, b], [c, d]] in (0..len).map(matrix) {
            this.a.push(a);
            this.b.push(b);
            this.c.push(c);
            this.d.push(d);
        }
        this
    }

    /// Mode `j`'s matrix.
    pub(super) fn get(&self, j: usize) -> Matrix {
        [[self.a[j], self.b[j]], [self.c[j], self.d[j]]]
    }

    /// Sets mode `j`'s matrix.
    pub(super) fn set(&mut self, j: usize, [[a, b], [c, d]]: Matrix) {
        (self.a[j], self.b[j], self.c[j], self.d[j]) = (a, b, c, d);
    }
}

/// `x y`.
fn product(x: Matrix, y: Matrix) -> Matrix {
    let entry = |i: usize, k: usize| x[i][0] * y[0][k] + x[i][1] * y[1][k];
    [[entry(0, 0), entry(0, 1)], [entry(1, 0), entry(1, 1)]]
}

/// `x^-1`, if `x` is invertible with a finite inverse (the zero matrix of a padding mode: zero).
fn inverse(x: Matrix) -> Option<Matrix> {
    if x == [[0.0; 2]; 2] {
        return Some(x);
    }
    let det = x[0][0] * x[1][1] - x[0][1] * x[1][0];
    let inverse = [[x[1][1] / det, -x[0][1] / det], [-x[1][0] / det, x[0][0] / det]];
    inverse.iter().flatten().all(|v| v.is_finite()).then_some(inverse)
}

/// What the kernel needs to run `K` steps at once with the filter folded into its outputs.
#[derive(Debug, Clone)]
pub(super) struct Folded {
    /// Each mode's `A^K`.
    pub(super) power: Matrices,
    /// Each mode's `A^-1`.
    pub(super) back: Matrices,
    /// The outputs read through `M`: rows `w M`.
    pub(super) outputs: Outputs,
    /// The amplitudes kept while the history steps back from them or fine steps go on from
    /// them (scratch).
    pub(super) saved_q: Vec<f64>,
    pub(super) saved_p: Vec<f64>,
    /// The amplitudes `K` steps on, kept by a look ahead.
    pub(super) ahead_q: Vec<f64>,
    pub(super) ahead_p: Vec<f64>,
}

impl Folded {
    /// The folding of the FIR `taps` (`h`, applied at the step rate) and the decimation by
    /// `factor` into `outputs`, for modes stepped by `steps` in groups of `group`; `None` where a
    /// mode's matrix has no inverse or its powers `A^-k` over the filter's length overflow (a
    /// mode so damped that stepping back cannot be done in floating point).
    pub(super) fn new(
        steps: &Matrices,
        outputs: &Outputs,
        taps: &[f64],
        factor: usize,
        group: usize,
    ) -> Option<Self> {
        let modes = steps.a.len();
        let mut power = Vec::with_capacity(modes);
        let mut back = Vec::with_capacity(modes);
        let mut folds = Vec::with_capacity(modes);
        for j in 0..modes {
            let step = steps.get(j);
            let inverse = inverse(step)?;
            power.push((1..factor).fold(step, |p, _| product(p, step)));
            // M = sum_k h_k A^-k, the powers `p` built up as the taps are taken.
            let (mut fold, mut p) = ([[0.0; 2]; 2], [[1.0, 0.0], [0.0, 1.0]]);
            for &h in taps {
                for (row, p_row) in fold.iter_mut().zip(&p) {
                    row[0] += h * p_row[0];
                    row[1] += h * p_row[1];
                }
                p = product(p, inverse);
            }
            if !p.iter().chain(&fold).flatten().all(|v| v.is_finite()) {
                return None;
            }
            back.push(inverse);
            folds.push(fold);
        }
        Some(Self {
            power: Matrices::from_fn(modes, |j| power[j]),
            back: Matrices::from_fn(modes, |j| back[j]),
            outputs: outputs.mapped(group, |j| folds[j]),
            saved_q: vec![0.0; modes],
            saved_p: vec![0.0; modes],
            ahead_q: vec![0.0; modes],
            ahead_p: vec![0.0; modes],
        })
    }
}
