//! Independent strings with their own coefficients per link and per mass: the fast path of an
//! instrument played from a score (a guitar's six strings, each fretted, damped and plucked on
//! its own).
//!
//! Each string is a 1D chain between two fixed ends. With link `j` joining node `j` to node
//! `j + 1` (node 0 and node `n + 1` the ends), stiffness `k_j` (N/m) and damping `Z_j` (N s/m),
//! drag `c_i` (N s/m) and a held force `f_i` (N) on mass `i`, symplectic Euler (seed 000 eq.
//! 26, ERRATA) is
//!
//! ```text
//! F_i  = k_{i-1} (x_{i-1} - x_i) + k_i (x_{i+1} - x_i) + Z_{i-1} (v_{i-1} - v_i) + Z_i (v_{i+1} - v_i)
//!        - c_i v_i + f_i
//! v_i' = v_i + (h / m_i) F_i
//! x_i' = x_i + h v_i'
//! ```
//!
//! the general path's step ([`crate::scheme::SymplecticEuler`]) written as a stencil over
//! padded arrays, so it vectorises. A stopped (pinned) mass has `h / m_i = 0` and stays where
//! it was put. A step does not depend on how many steps a call advances, so rendering one step
//! at a time and in blocks gives identical results; strings run on several threads with results
//! identical to one thread's.

use crate::render::Quantity;

/// A weighted reading of one mass of one string, added to an output channel after every step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StringTap {
    /// The mass, 0-based along the string.
    pub mass: usize,
    /// Position or velocity.
    pub quantity: Quantity,
    /// Output channel, 0-based.
    pub channel: usize,
    /// Weight (output units per m, or per m/s).
    pub weight: f64,
}

/// One string: padded state (`x[0]` and `x[n + 1]` are its fixed ends) and coefficients.
#[derive(Debug, Clone)]
pub struct ChainString {
    dt: f64,
    x: Vec<f64>,
    v: Vec<f64>,
    x_next: Vec<f64>,
    v_next: Vec<f64>,
    /// `k_j`, N/m, links `0..=n`.
    stiffness: Vec<f64>,
    /// `Z_j`, N s/m, links `0..=n`.
    damping: Vec<f64>,
    /// `h / m_i` (0 for a stopped mass), s/kg, padded like `x`.
    step_over_mass: Vec<f64>,
    /// `c_i`, N s/m, padded.
    drag: Vec<f64>,
    /// `f_i`, N, padded.
    force: Vec<f64>,
    /// Each mass, kg (0-based along the string).
    mass: Vec<f64>,
    taps: Vec<StringTap>,
}

impl ChainString {
    /// A string of `mass.len()` masses (kg) with `stiffness.len() == damping.len() ==
    /// mass.len() + 1` links (N/m, N s/m), fixed ends at `ends` (m) and step `dt` (s), at rest
    /// with every mass at 0 m.
    pub fn new(dt: f64, mass: Vec<f64>, stiffness: Vec<f64>, damping: Vec<f64>, ends: [f64; 2]) -> Self {
        let n = mass.len();
        assert!(stiffness.len() == n + 1 && damping.len() == n + 1, "a string has one more link than masses");
        let mut x = vec![0.0; n + 2];
        (x[0], x[n + 1]) = (ends[0], ends[1]);
        let mut step_over_mass = vec![0.0; n + 2];
        for (w, m) in step_over_mass[1..=n].iter_mut().zip(&mass) {
            *w = dt / m;
        }
        Self {
            dt,
            x_next: x.clone(),
            v: vec![0.0; n + 2],
            v_next: vec![0.0; n + 2],
            x,
            stiffness,
            damping,
            step_over_mass,
            drag: vec![0.0; n + 2],
            force: vec![0.0; n + 2],
            mass,
            taps: Vec::new(),
        }
    }

    /// Number of masses.
    pub fn masses(&self) -> usize {
        self.mass.len()
    }

    /// Position (m) and velocity (m/s) of mass `i` (0-based).
    pub fn motion(&self, i: usize) -> (f64, f64) {
        (self.x[i + 1], self.v[i + 1])
    }

    /// Sets the position (m) and velocity (m/s) of mass `i`.
    pub fn set_motion(&mut self, i: usize, x: f64, v: f64) {
        (self.x[i + 1], self.v[i + 1]) = (x, v);
    }

    /// Stops mass `i` where it is now (`h/m = 0`), or frees it again.
    pub fn set_stopped(&mut self, i: usize, stopped: bool) {
        self.step_over_mass[i + 1] = if stopped { 0.0 } else { self.dt / self.mass[i] };
    }

    /// Sets link `j` (joining mass `j - 1` to mass `j`; link 0 starts at the first end).
    pub fn set_link(&mut self, j: usize, stiffness: f64, damping: f64) {
        (self.stiffness[j], self.damping[j]) = (stiffness, damping);
    }

    /// Sets the drag of mass `i`, N s/m.
    pub fn set_drag(&mut self, i: usize, drag: f64) {
        self.drag[i + 1] = drag;
    }

    /// Sets the force held on mass `i` from now on, N.
    pub fn set_force(&mut self, i: usize, force: f64) {
        self.force[i + 1] = force;
    }

    /// The force on mass `i` now from its links and drag (without the held force), N.
    pub fn link_force(&self, i: usize) -> f64 {
        let p = i + 1;
        let (x, v, k, z) = (&self.x, &self.v, &self.stiffness, &self.damping);
        k[p - 1] * (x[p - 1] - x[p]) + k[p] * (x[p + 1] - x[p]) + z[p - 1] * (v[p - 1] - v[p])
            + z[p] * (v[p + 1] - v[p])
            - self.drag[p] * v[p]
    }

    /// The readings added to the output after every step.
    pub fn set_taps(&mut self, taps: Vec<StringTap>) {
        self.taps = taps;
    }

    /// Advances `steps` steps, adding each tap's reading after step `s` to
    /// `record[channel * steps + s]`. On a non-finite value, stops with the state at the start of
    /// the failing step and returns where it appeared.
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), NonFiniteMass> {
        super::with_best_instructions(
            #[inline(always)]
            || self.advance_portable(steps, record),
        )
    }

    #[inline(always)]
    fn advance_portable(&mut self, steps: usize, record: &mut [f64]) -> Result<(), NonFiniteMass> {
        let n = self.masses();
        let h = self.dt;
        for step in 0..steps {
            {
                let (x, v) = (&self.x[..], &self.v[..]);
                let (x_left, x_mid, x_right) = (&x[..n], &x[1..=n], &x[2..n + 2]);
                let (v_left, v_mid, v_right) = (&v[..n], &v[1..=n], &v[2..n + 2]);
                let (k_left, k_right) = (&self.stiffness[..n], &self.stiffness[1..=n]);
                let (z_left, z_right) = (&self.damping[..n], &self.damping[1..=n]);
                let (w, c, f) = (&self.step_over_mass[1..=n], &self.drag[1..=n], &self.force[1..=n]);
                let (x_out, v_out) = (&mut self.x_next[1..=n], &mut self.v_next[1..=n]);
                let mut finite = true;
                for i in 0..n {
                    let force = k_left[i] * (x_left[i] - x_mid[i])
                        + k_right[i] * (x_right[i] - x_mid[i])
                        + z_left[i] * (v_left[i] - v_mid[i])
                        + z_right[i] * (v_right[i] - v_mid[i])
                        - c[i] * v_mid[i]
                        + f[i];
                    let v_new = v_mid[i] + w[i] * force;
                    let x_new = x_mid[i] + h * v_new;
                    finite &= (x_new - x_new == 0.0) & (v_new - v_new == 0.0);
                    v_out[i] = v_new;
                    x_out[i] = x_new;
                }
                if !finite {
                    let bad = |values: &[f64]| values.iter().position(|value| !value.is_finite());
                    let (mass, quantity) = match bad(x_out) {
                        Some(mass) => (mass, "position"),
                        None => (bad(v_out).unwrap_or(0), "velocity"),
                    };
                    return Err(NonFiniteMass { completed: step, mass, quantity });
                }
            }
            std::mem::swap(&mut self.x, &mut self.x_next);
            std::mem::swap(&mut self.v, &mut self.v_next);
            for tap in &self.taps {
                let value = match tap.quantity {
                    Quantity::Position => self.x[tap.mass + 1],
                    Quantity::Velocity => self.v[tap.mass + 1],
                };
                record[tap.channel * steps + step] += tap.weight * value;
            }
        }
        Ok(())
    }
}

/// Where a string's step gave a non-finite value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonFiniteMass {
    /// Steps completed before the failing one.
    pub completed: usize,
    /// The first non-finite mass, 0-based along the string.
    pub mass: usize,
    /// `position` or `velocity`.
    pub quantity: &'static str,
}

/// Several independent strings, advanced together (on several threads when a pool is given).
#[derive(Debug, Clone)]
pub struct StringBank {
    strings: Vec<ChainString>,
    channels: usize,
    records: Vec<Vec<f64>>,
}

impl StringBank {
    /// A bank of `strings` recording `channels` output channels.
    pub fn new(strings: Vec<ChainString>, channels: usize) -> Self {
        let records = vec![Vec::new(); strings.len()];
        Self { strings, channels, records }
    }

    /// The strings.
    pub fn strings(&self) -> &[ChainString] {
        &self.strings
    }

    /// The strings, to change.
    pub fn strings_mut(&mut self) -> &mut [ChainString] {
        &mut self.strings
    }

    /// Advances every string `steps` steps and adds the taps' readings to
    /// `record[channel * steps + s]`, summed over the strings in order (the same sums on any
    /// number of threads). On a non-finite value, returns the first failing string and the
    /// number of steps it completed (it is left at the start of the failing step; the others
    /// have done every step).
    pub fn advance(
        &mut self,
        steps: usize,
        record: &mut [f64],
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), (usize, NonFiniteMass)> {
        let size = self.channels * steps;
        let mut done = vec![Ok(()); self.strings.len()];
        let run = |(string, (own, done)): (&mut ChainString, (&mut Vec<f64>, &mut Result<(), NonFiniteMass>))| {
            own.clear();
            own.resize(size, 0.0);
            *done = string.advance(steps, own);
        };
        let parallel = self.strings.len() > 1;
        let jobs = self.strings.iter_mut().zip(self.records.iter_mut().zip(done.iter_mut()));
        match pool {
            Some(pool) if parallel => pool.install(|| {
                use rayon::prelude::*;
                jobs.collect::<Vec<_>>().into_par_iter().for_each(run);
            }),
            _ => jobs.for_each(run),
        }
        for own in &self.records {
            for (out, value) in record[..size].iter_mut().zip(own) {
                *out += value;
            }
        }
        let failures = done.iter().enumerate().filter_map(|(string, d)| d.err().map(|f| (string, f)));
        failures.min_by_key(|(_, failure)| failure.completed).map_or(Ok(()), Err)
    }
}
