//! The uniform-membrane kernel: symplectic Euler on a rectangular grid of equal masses with a
//! fixed rim, as a five-point stencil.
//!
//! For a membrane of `W x H` masses `m` moving transversally (1D displacement), joined to their
//! four neighbours by spring-dampers `k_x, Z_x` (along x) and `k_y, Z_y` (along y), with drag
//! `c` and a constant force `g`, symplectic Euler (Morgan & Qiao 2009, eq. (26)) is
//!
//! ```text
//! v' = v + h/m (k_x (x_W + x_E - 2x) + Z_x (v_W + v_E - 2v)
//!             + k_y (x_S + x_N - 2x) + Z_y (v_S + v_N - 2v) - c v + g)
//! x' = x + h v'
//! ```
//!
//! with the rim as fixed ghost cells. Two time levels of two padded `(W + 2) x (H + 2)` arrays:
//! 32 bytes per mass in f64.

use super::chain::Tap;
use super::Real;
use crate::quantity::Quantity;
use crate::system::{State, System};
use std::collections::HashMap;

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

impl UniformGrid {
    /// Recognises a uniform membrane in a compiled 1D system, as the membrane generator builds
    /// it: masses in row-major order (`j W + i`), each joined by springs with rest length 0 to
    /// its four neighbours, the rim being anchors at 0; equal masses, drag and gravity; links
    /// along x all alike, links along y all alike (dampers, if any, on the same pairs); no
    /// bending, angular springs, contacts or external forces. At least 2 x 2 masses.
    pub fn detect(system: &System) -> Option<Self> {
        let n = system.mass_count();
        if system.dimension() != 1
            || n < 4
            || system.has_contacts()
            || system.has_mode_damping()
            || !system.bendings().is_empty()
            || !system.angles().is_empty()
            || system.external_forces().drives()
            || system.holds_forces()
        {
            return None;
        }
        let springs = system.springs();
        if springs.rest_length.iter().any(|&l| l != 0.0) {
            return None;
        }
        let key = |a: u32, b: u32| (a.min(b) as usize, a.max(b) as usize);
        let mut links: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
        for i in 0..springs.len() {
            if links.insert(key(springs.a[i], springs.b[i]), (springs.coefficient[i], 0.0)).is_some() {
                return None;
            }
        }
        let dampers = system.dampers();
        for i in 0..dampers.len() {
            links.get_mut(&key(dampers.a[i], dampers.b[i]))?.1 = dampers.coefficient[i];
        }
        // The row length: the first mass not linked to the one before it.
        let w = (1..n).find(|&i| !links.contains_key(&(i - 1, i)))?;
        let h = n / w;
        if w < 2 || h < 2 || w * h != n || springs.len() != (w + 1) * h + (h + 1) * w {
            return None;
        }
        let (along_x, along_y) = (*links.get(&(0, 1))?, *links.get(&(0, w))?);
        let x0 = system.initial_state().x;
        // Each mass: its mass neighbours by index, the rest anchors at 0, with the right links.
        let mut incident: Vec<Vec<(usize, (f64, f64))>> = vec![Vec::new(); n];
        for (&(a, b), &link) in &links {
            if a >= n && b >= n {
                return None;
            }
            for (end, other) in [(a, b), (b, a)] {
                if end < n {
                    incident[end].push((other, link));
                }
            }
        }
        for (mass, neighbours) in incident.iter().enumerate() {
            let (i, j) = (mass % w, mass / w);
            let mut expected_anchor_links = Vec::new();
            let mut check = |neighbour: Option<usize>, link: (f64, f64)| match neighbour {
                Some(other) => neighbours.iter().any(|&(o, l)| o == other && l == link),
                None => {
                    expected_anchor_links.push(link);
                    true
                }
            };
            let sides = [
                check((i > 0).then(|| mass - 1), along_x),
                check((i + 1 < w).then_some(mass + 1), along_x),
                check((j > 0).then(|| mass - w), along_y),
                check((j + 1 < h).then_some(mass + w), along_y),
            ];
            let mut anchor_links: Vec<(f64, f64)> =
                neighbours.iter().filter(|&&(o, _)| o >= n && x0[o] == 0.0).map(|&(_, l)| l).collect();
            let ordering =
                |a: &(f64, f64), b: &(f64, f64)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
            anchor_links.sort_by(ordering);
            expected_anchor_links.sort_by(ordering);
            if neighbours.len() != 4 || !sides.iter().all(|&ok| ok) || anchor_links != expected_anchor_links {
                return None;
            }
        }
        let mass = system.masses()[0];
        if system.masses().iter().any(|&m| m != mass) {
            return None;
        }
        let uniform = |values: &[f64]| {
            values.first().map_or(Some(0.0), |&v| values.iter().all(|&w| w == v).then_some(v))
        };
        Some(Self {
            columns: w,
            rows: h,
            mass,
            stiffness_x: along_x.0,
            stiffness_y: along_y.0,
            damping_x: along_x.1,
            damping_y: along_y.1,
            drag: uniform(system.drag())?,
            force: uniform(system.gravity_force())?,
        })
    }
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

    /// A kernel starting from a [`State`] of the system `grid` was detected in (masses first).
    pub fn from_state(grid: UniformGrid, dt: f64, state: &State) -> Self {
        Self::new(grid, dt, &state.x, &state.v)
    }

    /// Copies the masses' positions and velocities into `state` (masses first; anchors kept).
    pub fn write_state(&self, state: &mut State) {
        let (w, h) = (self.grid.columns, self.grid.rows);
        for j in 0..h {
            for i in 0..w {
                state.x[j * w + i] = self.x[(j + 1) * (w + 2) + i + 1].to_f64();
                state.v[j * w + i] = self.v[(j + 1) * (w + 2) + i + 1].to_f64();
            }
        }
    }

    /// Position (m) and velocity (m/s) of mass `index` (row-major, `j W + i`).
    pub fn motion(&self, index: usize) -> (f64, f64) {
        let w = self.grid.columns;
        let padded = (index / w + 1) * (w + 2) + index % w + 1;
        (self.x[padded].to_f64(), self.v[padded].to_f64())
    }

    /// The position of mass (`i`, `j`) (0-based column and row), m.
    pub fn position(&self, i: usize, j: usize) -> f64 {
        self.x[(j + 1) * (self.grid.columns + 2) + i + 1].to_f64()
    }

    /// Advances `steps` steps, adding each tap's weighted value after every step to
    /// `record[j * steps + step]` (tap `j`; `Tap::mass` is the row-major mass index `j W + i`).
    /// On a non-finite value, stops with the state at the start of the offending step and
    /// returns the number of steps done in the error.
    pub fn advance(&mut self, steps: usize, taps: &[Tap], record: &mut [f64]) -> Result<(), usize> {
        super::with_best_instructions(
            #[inline(always)]
            || self.advance_portable(steps, taps, record),
        )
    }

    #[inline(always)]
    fn advance_portable(&mut self, steps: usize, taps: &[Tap], record: &mut [f64]) -> Result<(), usize> {
        let (w, h) = (self.grid.columns, self.grid.rows);
        let stride = w + 2;
        let [kx, ky, zx, zy, retained, force, step_length] = self.coefficients;
        let minus_two = T::from_f64(-2.0);
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
                    return Err(step);
                }
            }
            std::mem::swap(&mut self.x, &mut self.x_next);
            std::mem::swap(&mut self.v, &mut self.v_next);
            for (j, tap) in taps.iter().enumerate() {
                let index = (tap.mass / w + 1) * stride + tap.mass % w + 1;
                let value = match tap.quantity {
                    Quantity::Position => self.x[index],
                    Quantity::Velocity => self.v[index],
                };
                record[j * steps + step] += tap.weight * value.to_f64();
            }
        }
        Ok(())
    }
}
