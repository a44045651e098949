//! The uniform-membrane kernel: symplectic Euler on a rectangular grid of equal masses with a
//! fixed rim, as a five-point stencil.
//!
//! For a membrane of `W x H` masses `m` moving transversally (1D displacement), joined to their
//! four neighbours by spring-dampers `k_x, Z_x` (along x) and `k_y, Z_y` (along y), with drag
//! `c` and a constant force `g`, symplectic Euler (seed 000 eq. 26) is
//!
//! ```text
//! v' = v + h/m (k_x (x_W + x_E - 2x) + Z_x (v_W + v_E - 2v)
//!             + k_y (x_S + x_N - 2x) + Z_y (v_S + v_N - 2v) - c v + g)
//! x' = x + h v'
//! ```
//!
//! with the rim as fixed ghost cells. Two time levels of two padded `(W + 2) x (H + 2)` arrays:
//! 32 bytes per mass in f64.

use super::Real;

/// The parameters of a uniform membrane, SI units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniformGrid {
    /// Masses along x.
    pub columns: usize,
    /// Masses along y.
    pub rows: usize,
    /// Each mass, kg.
    pub mass: f64,
    /// Each link along x, N/m.
    pub stiffness_x: f64,
    /// Each link along y, N/m.
    pub stiffness_y: f64,
    /// Each damper along x, N s/m.
    pub damping_x: f64,
    /// Each damper along y, N s/m.
    pub damping_y: f64,
    /// Each mass's drag coefficient `gamma m`, N s/m.
    pub drag: f64,
    /// Each mass's constant force, N.
    pub force: f64,
}

/// A membrane's state in padded row-major arrays (row `j`, column `i` at `j (W + 2) + i`).
#[derive(Debug, Clone)]
pub struct GridKernel<T: Real> {
    grid: UniformGrid,
    coefficients: [T; 7],
    x: Vec<T>,
    v: Vec<T>,
    x_next: Vec<T>,
    v_next: Vec<T>,
}

impl<T: Real> GridKernel<T> {
    /// A kernel for `grid` with step `dt` (s) from the masses' positions and velocities (m, m/s)
    /// in row-major order (`j W + i`, 0-based); the rim is at rest at 0.
    pub fn new(grid: UniformGrid, dt: f64, x: &[f64], v: &[f64]) -> Self {
        let (w, h) = (grid.columns, grid.rows);
        let per_mass = dt / grid.mass;
        let coefficients = [
            T::from_f64(per_mass * grid.stiffness_x),
            T::from_f64(per_mass * grid.stiffness_y),
            T::from_f64(per_mass * grid.damping_x),
            T::from_f64(per_mass * grid.damping_y),
            T::from_f64(1.0 - per_mass * grid.drag),
            T::from_f64(per_mass * grid.force),
            T::from_f64(dt),
        ];
        let mut px = vec![T::default(); (w + 2) * (h + 2)];
        let mut pv = vec![T::default(); (w + 2) * (h + 2)];
        for j in 0..h {
            for i in 0..w {
                px[(j + 1) * (w + 2) + i + 1] = T::from_f64(x[j * w + i]);
                pv[(j + 1) * (w + 2) + i + 1] = T::from_f64(v[j * w + i]);
            }
        }
        Self { grid, coefficients, x_next: px.clone(), v_next: pv.clone(), x: px, v: pv }
    }

    /// The position of mass (`i`, `j`) (0-based column and row), m.
    pub fn position(&self, i: usize, j: usize) -> f64 {
        self.x[(j + 1) * (self.grid.columns + 2) + i + 1].to_f64()
    }

    /// Advances `steps` steps, writing the position of mass `tap` (column, row) after every step
    /// to `record[step]`. Returns false, with the state at the start of the offending step, as
    /// soon as a row has a non-finite value.
    pub fn advance(&mut self, steps: usize, tap: (usize, usize), record: &mut [f64]) -> bool {
        super::with_best_instructions(
            #[inline(always)]
            || self.advance_portable(steps, tap, record),
        )
    }

    #[inline(always)]
    fn advance_portable(&mut self, steps: usize, tap: (usize, usize), record: &mut [f64]) -> bool {
        let (w, h) = (self.grid.columns, self.grid.rows);
        let stride = w + 2;
        let [kx, ky, zx, zy, retained, force, step_length] = self.coefficients;
        let minus_two = T::from_f64(-2.0);
        let tap_index = (tap.1 + 1) * stride + tap.0 + 1;
        for step in 0..steps {
            for j in 1..=h {
                let row = j * stride + 1;
                let (x, v) = (&self.x, &self.v);
                let (x_south, x_mid, x_north) =
                    (&x[row - stride..][..w], &x[row..][..w], &x[row + stride..][..w]);
                let (x_west, x_east) = (&x[row - 1..][..w], &x[row + 1..][..w]);
                let (v_south, v_mid, v_north) =
                    (&v[row - stride..][..w], &v[row..][..w], &v[row + stride..][..w]);
                let (v_west, v_east) = (&v[row - 1..][..w], &v[row + 1..][..w]);
                let x_out = &mut self.x_next[row..][..w];
                let v_out = &mut self.v_next[row..][..w];
                for i in 0..w {
                    let stretch_x = x_mid[i].mul_add(minus_two, x_west[i] + x_east[i]);
                    let stretch_y = x_mid[i].mul_add(minus_two, x_south[i] + x_north[i]);
                    let shear_x = v_mid[i].mul_add(minus_two, v_west[i] + v_east[i]);
                    let shear_y = v_mid[i].mul_add(minus_two, v_south[i] + v_north[i]);
                    let velocity = kx.mul_add(
                        stretch_x,
                        ky.mul_add(
                            stretch_y,
                            zx.mul_add(shear_x, zy.mul_add(shear_y, v_mid[i].mul_add(retained, force))),
                        ),
                    );
                    v_out[i] = velocity;
                    x_out[i] = step_length.mul_add(velocity, x_mid[i]);
                }
                if !x_out.iter().all(|value| value.is_finite()) {
                    return false;
                }
            }
            std::mem::swap(&mut self.x, &mut self.x_next);
            std::mem::swap(&mut self.v, &mut self.v_next);
            record[step] = self.x[tap_index].to_f64();
        }
        true
    }
}
