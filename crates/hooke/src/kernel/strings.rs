//! Independent strings with their own coefficients per link and per mass: the fast path of an
//! instrument played from a score (a guitar's six strings, each fretted, damped and plucked on
//! its own).
//!
//! Each string is a 1D chain between two fixed ends. With link `j` joining node `j` to node
//! `j + 1` (node 0 and node `n + 1` the ends), stiffness `k_j` (N/m) and damping `Z_j` (N s/m),
//! drag `c_i` (N s/m) and a held force `f_i` (N) on mass `i`, symplectic Euler
//! (Morgan & Qiao 2009, eq. (26), in the order docs/errata.md gives) is
//!
//! ```text
//! F_i  = k_{i-1} (x_{i-1} - x_i) + k_i (x_{i+1} - x_i) + Z_{i-1} (v_{i-1} - v_i) + Z_i (v_{i+1} - v_i)
//!        - c_i v_i + f_i
//! v_i' = v_i + (h / m_i) F_i
//! x_i' = x_i + h v_i'
//! ```
//!
//! the general path's step ([`crate::scheme::SymplecticEuler`]) written as a stencil. A stiff
//! string adds the forces of its bending elements `kappa_q / 2 s_q^2`, `s_q = x_{q-1} - 2 x_q +
//! x_{q+1}`, one centred at each mass `q` (see [`crate::model::Bending`]; `kappa` is 0 beyond the
//! masses):
//!
//! ```text
//! F_i += -(kappa_{i-1} s_{i-1} - 2 kappa_i s_i + kappa_{i+1} s_{i+1})
//! ```
//!
//! a five-point stencil, which only stiff groups run. Strings of
//! the same length are grouped `L` at a time with the strings in the vector lanes (`x[i L +
//! lane]`, as [`super::voices`] does with copies of one string), so every operation is a full,
//! aligned vector operation whatever the string's length, and a group's neighbours are whole
//! vectors rather than shifted loads. A stopped (pinned) mass has `h / m_i = 0` and stays where
//! it was put; unused lanes are strings of zero coefficients that stay at rest. A step does not
//! depend on how many steps a call advances, so rendering one step at a time and in blocks give
//! identical results; groups run on several threads with results identical to one thread's
//! (for the same grouping: the channels sum the strings group by group).

use crate::quantity::Quantity;

/// A weighted reading of one mass of one string, added to an output channel after every step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StringTap {
    /// The string's lane in its group.
    pub lane: usize,
    /// The mass, 0-based along the string.
    pub mass: usize,
    /// Position or velocity.
    pub quantity: Quantity,
    /// Output channel, 0-based.
    pub channel: usize,
    /// Weight (output units per m, or per m/s).
    pub weight: f64,
}

/// One string's values, to put in a lane: masses (kg), links (N/m, N s/m, one more than the
/// masses), bending (N/m, one per mass) and the fixed ends' positions (m).
#[derive(Debug, Clone, PartialEq)]
pub struct StringValues {
    /// Each mass, kg.
    pub mass: Vec<f64>,
    /// Each link's stiffness, N/m.
    pub stiffness: Vec<f64>,
    /// Each link's damping, N s/m.
    pub damping: Vec<f64>,
    /// kappa of the bending element centred at each mass, N/m (0: none).
    pub bending: Vec<f64>,
    /// Positions of the first and last ends, m.
    pub ends: [f64; 2],
}

/// One value per lane, on a cache line of its own (64 bytes), so a vector load never straddles
/// two lines.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
struct Lanes<const L: usize>([f64; L]);

impl<const L: usize> std::ops::Index<usize> for Lanes<L> {
    type Output = f64;
    fn index(&self, lane: usize) -> &f64 {
        &self.0[lane]
    }
}

impl<const L: usize> std::ops::IndexMut<usize> for Lanes<L> {
    fn index_mut(&mut self, lane: usize) -> &mut f64 {
        &mut self.0[lane]
    }
}

/// Up to `L` strings of `n` masses each, one per vector lane, with padded state (positions 0
/// and `n + 1` are the fixed ends, `n + 2` a ghost that bending reads with a weight of 0).
#[derive(Debug, Clone)]
pub struct StringGroup<const L: usize> {
    dt: f64,
    masses: usize,
    x: Vec<Lanes<L>>,
    v: Vec<Lanes<L>>,
    /// `k_j`, N/m, links `0..=n`.
    stiffness: Vec<Lanes<L>>,
    /// `Z_j`, N s/m, links `0..=n`.
    damping: Vec<Lanes<L>>,
    /// `kappa_q`, N/m, padded like `x` (0 at the ends and the ghost).
    bending: Vec<Lanes<L>>,
    /// Whether any lane has bending: the group runs the five-point stencil.
    stiff: bool,
    /// `h / m_i` (0 for a stopped mass or an unused lane), s/kg, padded like `x`.
    step_over_mass: Vec<Lanes<L>>,
    /// `c_i`, N s/m, padded.
    drag: Vec<Lanes<L>>,
    /// `f_i`, N, padded.
    force: Vec<Lanes<L>>,
    /// Each mass, kg, padded.
    mass: Vec<Lanes<L>>,
    taps: Vec<StringTap>,
}

/// Where a step gave a non-finite value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonFiniteMass {
    /// Steps completed before the failing one.
    pub completed: usize,
    /// The string's lane.
    pub lane: usize,
    /// The first non-finite mass of that string, 0-based.
    pub mass: usize,
    /// `position` or `velocity`.
    pub quantity: &'static str,
}

impl<const L: usize> StringGroup<L> {
    /// A group of the strings `strings` (at most `L`, all with `masses` masses), step `dt` (s),
    /// at rest with every mass at 0 m.
    pub fn new(dt: f64, masses: usize, strings: &[StringValues]) -> Self {
        assert!(strings.len() <= L, "at most {L} strings in a group");
        assert!(L <= 8, "a lane group fits one cache line");
        let zeros = |len: usize| vec![Lanes([0.0; L]); len];
        let mut group = Self {
            dt,
            masses,
            x: zeros(masses + 3),
            v: zeros(masses + 2),
            stiffness: zeros(masses + 1),
            damping: zeros(masses + 1),
            bending: zeros(masses + 3),
            stiff: false,
            step_over_mass: zeros(masses + 2),
            drag: zeros(masses + 2),
            force: zeros(masses + 2),
            mass: zeros(masses + 2),
            taps: Vec::new(),
        };
        for (lane, string) in strings.iter().enumerate() {
            assert!(
                string.mass.len() == masses
                    && string.stiffness.len() == masses + 1
                    && string.damping.len() == masses + 1
                    && string.bending.len() == masses
            );
            group.x[0][lane] = string.ends[0];
            group.x[masses + 1][lane] = string.ends[1];
            for (j, (&k, &z)) in string.stiffness.iter().zip(&string.damping).enumerate() {
                group.set_link(lane, j, k, z);
            }
            for (i, &m) in string.mass.iter().enumerate() {
                group.mass[i + 1][lane] = m;
                group.step_over_mass[i + 1][lane] = dt / m;
            }
            for (i, &kappa) in string.bending.iter().enumerate() {
                group.bending[i + 1][lane] = kappa;
                group.stiff |= kappa != 0.0;
            }
        }
        group
    }

    /// Mass `i` of the string in `lane`, kg.
    pub fn mass(&self, lane: usize, i: usize) -> f64 {
        self.mass[i + 1][lane]
    }

    /// Position (m) and velocity (m/s) of mass `i` (0-based) of the string in `lane`.
    pub fn motion(&self, lane: usize, i: usize) -> (f64, f64) {
        (self.x[i + 1][lane], self.v[i + 1][lane])
    }

    /// Sets the position (m) and velocity (m/s) of mass `i`.
    pub fn set_motion(&mut self, lane: usize, i: usize, x: f64, v: f64) {
        (self.x[i + 1][lane], self.v[i + 1][lane]) = (x, v);
    }

    /// Stops mass `i` where it is now (`h/m = 0`), or frees it again.
    pub fn set_stopped(&mut self, lane: usize, i: usize, stopped: bool) {
        self.step_over_mass[i + 1][lane] = if stopped { 0.0 } else { self.dt / self.mass[i + 1][lane] };
    }

    /// Sets link `j` (joining mass `j - 1` to mass `j`; link 0 starts at the first end).
    pub fn set_link(&mut self, lane: usize, j: usize, stiffness: f64, damping: f64) {
        (self.stiffness[j][lane], self.damping[j][lane]) = (stiffness, damping);
    }

    /// Sets the drag of mass `i`, N s/m.
    pub fn set_drag(&mut self, lane: usize, i: usize, drag: f64) {
        self.drag[i + 1][lane] = drag;
    }

    /// Sets the force held on mass `i` from now on, N.
    pub fn set_force(&mut self, lane: usize, i: usize, force: f64) {
        self.force[i + 1][lane] = force;
    }

    /// The force on mass `i` now from its links and drag (without the held force), N.
    pub fn link_force(&self, lane: usize, i: usize) -> f64 {
        let p = i + 1;
        let (x, v) = (|q: usize| self.x[q][lane], |q: usize| self.v[q][lane]);
        let (k, z) = (|j: usize| self.stiffness[j][lane], |j: usize| self.damping[j][lane]);
        // kappa_q s_q; kappa is 0 at the ends (q = 0 and n + 1), whose s would reach past them.
        let bent = |q: usize| {
            let kappa = self.bending[q][lane];
            if kappa == 0.0 {
                0.0
            } else {
                kappa * (x(q - 1) - 2.0 * x(q) + x(q + 1))
            }
        };
        -(bent(p - 1) - 2.0 * bent(p) + bent(p + 1))
            + k(p - 1) * (x(p - 1) - x(p))
            + k(p) * (x(p + 1) - x(p))
            + z(p - 1) * (v(p - 1) - v(p))
            + z(p) * (v(p + 1) - v(p))
            - self.drag[p][lane] * v(p)
    }

    /// The readings added to the output after every step.
    pub fn set_taps(&mut self, taps: Vec<StringTap>) {
        self.taps = taps;
    }

    /// Advances `steps` steps, adding each tap's reading after step `s` to
    /// `record[channel * steps + s]`. On a non-finite value, stops after the failing step and
    /// says where it appeared.
    pub fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<(), NonFiniteMass> {
        super::with_best_instructions(
            #[inline(always)]
            || self.advance_portable(steps, record),
        )
    }

    #[inline(always)]
    fn advance_portable(&mut self, steps: usize, record: &mut [f64]) -> Result<(), NonFiniteMass> {
        for step in 0..steps {
            let coefficients = Coefficients {
                stiffness: &self.stiffness,
                damping: &self.damping,
                bending: &self.bending,
                step_over_mass: &self.step_over_mass,
                drag: &self.drag,
                force: &self.force,
            };
            let finite = if self.stiff {
                step_group::<L, true>(self.dt, &coefficients, &mut self.x, &mut self.v)
            } else {
                step_group::<L, false>(self.dt, &coefficients, &mut self.x, &mut self.v)
            };
            if !finite {
                return Err(self.locate_non_finite(step));
            }
            for tap in &self.taps {
                let value = match tap.quantity {
                    Quantity::Position => self.x[tap.mass + 1][tap.lane],
                    Quantity::Velocity => self.v[tap.mass + 1][tap.lane],
                };
                record[tap.channel * steps + step] += tap.weight * value;
            }
        }
        Ok(())
    }

    /// The first non-finite value the failing step (after `completed` good ones) wrote.
    fn locate_non_finite(&self, completed: usize) -> NonFiniteMass {
        for (values, quantity) in [(&self.x, "position"), (&self.v, "velocity")] {
            for (i, lanes) in values[1..=self.masses].iter().enumerate() {
                if let Some(lane) = lanes.0.iter().position(|value| !value.is_finite()) {
                    return NonFiniteMass { completed, lane, mass: i, quantity };
                }
            }
        }
        unreachable!("a step found a non-finite value it did not write")
    }
}

/// A group's coefficients for one step.
struct Coefficients<'a, const L: usize> {
    stiffness: &'a [Lanes<L>],
    damping: &'a [Lanes<L>],
    bending: &'a [Lanes<L>],
    step_over_mass: &'a [Lanes<L>],
    drag: &'a [Lanes<L>],
    force: &'a [Lanes<L>],
}

/// One symplectic Euler step of a group, in place (the module's equations, with bending when
/// `STIFF`); returns whether every new value is finite. Going up the string, the old position
/// and velocity of the mass below (and the bending terms `kappa_q s_q` below and here) are
/// carried in registers, so each mass is read and written once per step; the arrays are
/// separate arguments so the compiler knows they do not overlap.
#[inline(always)]
fn step_group<const L: usize, const STIFF: bool>(
    h: f64,
    coefficients: &Coefficients<'_, L>,
    x: &mut [Lanes<L>],
    v: &mut [Lanes<L>],
) -> bool {
    let n = x.len() - 3;
    let Coefficients { stiffness, damping, bending, step_over_mass, drag, force } = *coefficients;
    let bending = &bending[..n + 3];
    // kappa_q s_q of the element centred at q, from the old positions.
    let bent = |q: usize, left: &[f64; L], mid: &[f64; L], right: &[f64; L]| -> [f64; L] {
        std::array::from_fn(|lane| bending[q].0[lane] * (left[lane] - 2.0 * mid[lane] + right[lane]))
    };
    let (stiffness, damping) = (&stiffness[..n + 1], &damping[..n + 1]);
    let (w, c, f, v) = (&step_over_mass[..n + 2], &drag[..n + 2], &force[..n + 2], &mut v[..n + 2]);
    // Stays 0 while every new value is finite: `inf * 0` and `NaN * 0` are NaN. Plain
    // arithmetic, so the lane loop vectorises.
    let mut poison = [0.0; L];
    let (mut x_left, mut v_left) = (x[0].0, v[0].0);
    let (mut x_mid, mut v_mid) = (x[1].0, v[1].0);
    let (mut k_left, mut z_left) = (stiffness[0].0, damping[0].0);
    let (mut bent_left, mut bent_mid) = ([0.0; L], [0.0; L]);
    if STIFF {
        bent_mid = bent(1, &x_left, &x_mid, &x[2].0);
    }
    for i in 1..=n {
        let (x_right, v_right) = (x[i + 1].0, v[i + 1].0);
        let (k_right, z_right) = (stiffness[i].0, damping[i].0);
        let (w, c, f) = (w[i].0, c[i].0, f[i].0);
        let bent_right = if STIFF { bent(i + 1, &x_mid, &x_right, &x[i + 2].0) } else { [0.0; L] };
        let (mut x_new, mut v_new) = ([0.0; L], [0.0; L]);
        for lane in 0..L {
            let mut force = k_left[lane] * (x_left[lane] - x_mid[lane])
                + k_right[lane] * (x_right[lane] - x_mid[lane])
                + z_left[lane] * (v_left[lane] - v_mid[lane])
                + z_right[lane] * (v_right[lane] - v_mid[lane])
                - c[lane] * v_mid[lane]
                + f[lane];
            if STIFF {
                force += 2.0 * bent_mid[lane] - bent_left[lane] - bent_right[lane];
            }
            v_new[lane] = v_mid[lane] + w[lane] * force;
            x_new[lane] = x_mid[lane] + h * v_new[lane];
            poison[lane] += x_new[lane] * 0.0 + v_new[lane] * 0.0;
        }
        x[i] = Lanes(x_new);
        v[i] = Lanes(v_new);
        (x_left, v_left, x_mid, v_mid) = (x_mid, v_mid, x_right, v_right);
        (k_left, z_left) = (k_right, z_right);
        (bent_left, bent_mid) = (bent_mid, bent_right);
    }
    !poison.iter().any(|p| p.is_nan())
}

/// Several groups of strings, advanced together (on several threads when a pool is given).
#[derive(Debug, Clone)]
pub struct StringBank<const L: usize> {
    groups: Vec<StringGroup<L>>,
    channels: usize,
    records: Vec<Vec<f64>>,
    /// Each group's outcome of the last call (kept between calls).
    outcomes: Vec<Result<(), NonFiniteMass>>,
}

impl<const L: usize> StringBank<L> {
    /// A bank of `groups` recording `channels` output channels, with room for `steps` steps per
    /// call before it allocates.
    pub fn new(groups: Vec<StringGroup<L>>, channels: usize, steps: usize) -> Self {
        let records = vec![Vec::with_capacity(channels * steps); groups.len()];
        let outcomes = vec![Ok(()); groups.len()];
        Self { groups, channels, records, outcomes }
    }

    /// The number of output channels.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The groups.
    pub fn groups(&self) -> &[StringGroup<L>] {
        &self.groups
    }

    /// The groups, to change.
    pub fn groups_mut(&mut self) -> &mut [StringGroup<L>] {
        &mut self.groups
    }

    /// Advances every group `steps` steps and adds the taps' readings to
    /// `record[channel * steps + s]`, summed over the groups in order (the same sums on any
    /// number of threads). On a non-finite value, returns the first failing group and where it
    /// failed (that group stops after the failing step; the others have done every step).
    pub fn advance(
        &mut self,
        steps: usize,
        record: &mut [f64],
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), (usize, NonFiniteMass)> {
        let size = self.channels * steps;
        let outcomes = &mut self.outcomes;
        type Job<'a, const L: usize> =
            (&'a mut StringGroup<L>, (&'a mut Vec<f64>, &'a mut Result<(), NonFiniteMass>));
        let run = |(group, (own, outcome)): Job<'_, L>| {
            own.clear();
            own.resize(size, 0.0);
            *outcome = group.advance(steps, own);
        };
        let parallel = self.groups.len() > 1;
        let jobs = self.groups.iter_mut().zip(self.records.iter_mut().zip(outcomes.iter_mut()));
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
        let failures = outcomes.iter().enumerate().filter_map(|(group, o)| o.err().map(|f| (group, f)));
        failures.min_by_key(|(_, failure)| failure.completed).map_or(Ok(()), Err)
    }
}
