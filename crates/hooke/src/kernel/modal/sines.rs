//! The modes of a uniform membrane with a fixed rim, a uniform chain being a membrane of one row:
//! products of sines, the orthonormal type-I discrete sine transform (DST-I) along each side.
//!
//! For `n` masses between two fixed ends, the second difference `(x_{i-1} - 2 x_i + x_{i+1})`
//! is the matrix `-L` with eigenvectors `S_pi = sqrt(2 / (n + 1)) sin(pi (p + 1) (i + 1) / (n + 1))`
//! and eigenvalues `mu_p = 4 sin^2(pi (p + 1) / (2 (n + 1)))` (the closed form of the second
//! difference with fixed ends). `S` is symmetric and its own inverse. On a `W x H` membrane the modes are
//! the products `S_pi S'_qj` (mode `q W + p`, mass `j W + i`, both row-major), so one routine
//! takes masses to modes and modes to masses, a side at a time (`O(W H (W + H))`, as two
//! matrix products).

use crate::kernel::Real;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};

/// The sine modes of a `columns x rows` membrane (a chain: `rows = 1`).
#[derive(Debug, Clone)]
pub struct SineModes {
    columns: usize,
    rows: usize,
    /// The DST-I matrix along x, `columns x columns`, row-major (symmetric).
    along_x: Vec<f64>,
    /// The DST-I matrix along y, `rows x rows`.
    along_y: Vec<f64>,
    /// `mu_p` along x.
    eigen_x: Vec<f64>,
    /// `mu_q` along y.
    eigen_y: Vec<f64>,
}

/// The orthonormal DST-I matrix of size `n` and the eigenvalues `mu_p` of its Laplacian.
fn sine_transform(n: usize) -> (Vec<f64>, Vec<f64>) {
    let scale = (2.0 / (n as f64 + 1.0)).sqrt();
    let angle = std::f64::consts::PI / (n as f64 + 1.0);
    let mut matrix = vec![0.0; n * n];
    for p in 0..n {
        for i in 0..n {
            // The product reduced modulo 2 (n + 1), so the sine's argument stays below 2 pi.
            let turns = ((p + 1) * (i + 1)) % (2 * (n + 1));
            matrix[p * n + i] = scale * (angle * turns as f64).sin();
        }
    }
    let eigen = (0..n).map(|p| (2.0 * (0.5 * angle * (p + 1) as f64).sin()).powi(2)).collect();
    (matrix, eigen)
}

impl SineModes {
    /// The modes of a `columns x rows` membrane (each at least 1).
    pub fn new(columns: usize, rows: usize) -> Self {
        let (along_x, eigen_x) = sine_transform(columns);
        let (along_y, eigen_y) = sine_transform(rows);
        Self { columns, rows, along_x, along_y, eigen_x, eigen_y }
    }

    /// The number of modes (and of masses).
    pub fn len(&self) -> usize {
        self.columns * self.rows
    }

    /// Whether there is no mode.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The eigenvalues `(mu_p, mu_q)` of the second differences along x and along y of mode
    /// `mode` (`q W + p`): its stiffness is `k_x mu_p + k_y mu_q`.
    pub fn eigenvalues(&self, mode: usize) -> (f64, f64) {
        (self.eigen_x[mode % self.columns], self.eigen_y[mode / self.columns])
    }

    /// `out = S values`: masses to modes, or modes to masses (`S` is its own inverse). Both
    /// hold `W x H` values, row-major: as an `H x W` matrix `X`, `out = S_y X S_x` (two
    /// matrix products, by faer's blocked kernels).
    pub fn transform(&self, values: &[f64], out: &mut [f64]) {
        let (w, h) = (self.columns, self.rows);
        let out = &mut out[..w * h];
        if values[..w * h].iter().all(|&v| v == 0.0) {
            out.fill(0.0);
            return;
        }
        let field = MatRef::from_row_major_slice(&values[..w * h], h, w);
        let along_x = MatRef::from_row_major_slice(&self.along_x, w, w);
        let along_y = MatRef::from_row_major_slice(&self.along_y, h, h);
        let mut across = Mat::<f64>::zeros(h, w);
        matmul(across.as_mut(), Accum::Replace, field, along_x, 1.0, Par::Seq);
        let out = MatMut::from_row_major_slice_mut(out, h, w);
        matmul(out, Accum::Replace, along_y, across.as_ref(), 1.0, Par::Seq);
    }

    /// Every mode's value at mass `mass` (`j W + i`): row `mass` of `S`, into `out` (one value
    /// per mode).
    pub fn shape_at(&self, mass: usize, out: &mut [f64]) {
        let (w, h) = (self.columns, self.rows);
        let (i, j) = (mass % w, mass / w);
        let sines_x = &self.along_x[i * w..][..w];
        for (q, target) in out[..w * h].chunks_exact_mut(w).enumerate() {
            let sine_y = self.along_y[j * h + q];
            target.iter_mut().zip(sines_x).for_each(|(o, s)| *o = sine_y * s);
        }
    }

    /// The value at mass `mass` of the field whose modal amplitudes are `modes`.
    pub fn value_at(&self, mass: usize, modes: &[f64]) -> f64 {
        self.value_of(mass, |mode| modes[mode])
    }

    /// The value at mass `mass` of the field whose amplitude of mode `j` is `amplitude(j)`.
    pub fn value_of(&self, mass: usize, amplitude: impl Fn(usize) -> f64) -> f64 {
        let (w, h) = (self.columns, self.rows);
        let (i, j) = (mass % w, mass / w);
        let sines_x = &self.along_x[i * w..][..w];
        let mut sum = 0.0;
        for q in 0..h {
            let along: f64 = sines_x.iter().enumerate().map(|(p, s)| amplitude(q * w + p) * s).sum();
            sum = Real::mul_add(self.along_y[j * h + q], along, sum);
        }
        sum
    }
}
