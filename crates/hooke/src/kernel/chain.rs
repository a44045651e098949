//! The uniform-chain kernel: symplectic Euler on a string of equal masses as a stencil, in
//! blocks of steps over cache-sized tiles.
//!
//! For masses `m` joined by springs `k` and dampers `Z` in parallel, with drag `c` (N s/m) and a
//! constant force `g` (N) on each, symplectic Euler (Morgan & Qiao 2009, eq. (26)) is, for mass
//! `i`,
//!
//! ```text
//! v_i' = v_i + h/m (k (x_{i-1} - 2 x_i + x_{i+1}) + Z (v_{i-1} - 2 v_i + v_{i+1}) - c v_i + g)
//! x_i' = x_i + h v_i'
//! ```
//!
//! with the anchors as fixed ghost cells at both ends, evaluated with fused multiply-adds (one
//! rounding each, the same on every CPU). A step reads only neighbours, so a tile of
//! the chain can be advanced `T` steps on its own from a copy widened by `T` masses on each side
//! (the halo shrinks by one mass per step): every mass is then read from main memory once per
//! `T` steps instead of once per step (temporal blocking). Tiles are independent within a block,
//! so they run on several threads with the same arithmetic in the same order: the results are
//! identical to one thread's. The arithmetic differs in order from the general path's
//! (`forces::total`), so the two agree to rounding, not bit for bit.

use super::Real;
use crate::quantity::Quantity;
use crate::system::{State, System};

/// Masses per tile when the chain is longer than one tile; with the halos and two time levels a
/// tile's working set (`4 (TILE + 2 BLOCK) * 8` bytes in f64) stays in a 48 KiB L1 cache.
pub const TILE: usize = 1024;
/// Steps per block when the chain spans several tiles (the halo width).
pub const BLOCK: usize = 32;
/// Steps per block when the whole chain is one tile (no halo: the anchors bound it).
pub const SINGLE_TILE_BLOCK: usize = 256;

/// The parameters of a uniform chain, SI units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UniformChain {
    /// Number of masses.
    pub masses: usize,
    /// Each mass, kg.
    pub mass: f64,
    /// Each spring, N/m (rest length 0: displacements from equilibrium).
    pub stiffness: f64,
    /// Each damper in parallel with a spring, N s/m (0 for none).
    pub damping: f64,
    /// Each mass's drag coefficient `gamma m`, N s/m.
    pub drag: f64,
    /// Each mass's constant force (gravity `m g`), N.
    pub force: f64,
    /// Position of the anchor before mass 0, m.
    pub left: f64,
    /// Position of the anchor after the last mass, m.
    pub right: f64,
}

impl UniformChain {
    /// Recognises a uniform chain in a compiled 1D system: masses `0..n` in order, springs
    /// (rest length 0, equal stiffness) joining an anchor to mass 0, each mass to the next, and
    /// the last mass to a second anchor; dampers absent or on exactly those pairs with equal
    /// damping; equal masses, drag and gravity; no bending, angular springs, contacts or external
    /// forces. This is what the string generator builds without bending.
    pub fn detect(system: &System) -> Option<Self> {
        let n = system.mass_count();
        if system.dimension() != 1
            || n == 0
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
        if springs.len() != n + 1 || springs.rest_length.iter().any(|&l| l != 0.0) {
            return None;
        }
        let stiffness = springs.coefficient[0];
        if springs.coefficient.iter().any(|&k| k != stiffness) {
            return None;
        }
        // Link i joins node i-1 to node i along the chain, the ends being anchors.
        let (left, right) = (springs.a[0] as usize, springs.b[n] as usize);
        let chain_node = |i: usize| {
            if i == 0 {
                left
            } else if i == n + 1 {
                right
            } else {
                i - 1
            }
        };
        let follows_chain = |a: &[u32], b: &[u32]| {
            (0..=n).all(|i| a[i] as usize == chain_node(i) && b[i] as usize == chain_node(i + 1))
        };
        if left < n || right < n || left == right || !follows_chain(&springs.a, &springs.b) {
            return None;
        }
        let dampers = system.dampers();
        let damping = match dampers.len() {
            0 => 0.0,
            len if len == n + 1 && follows_chain(&dampers.a, &dampers.b) => {
                let z = dampers.coefficient[0];
                if dampers.coefficient.iter().any(|&d| d != z) {
                    return None;
                }
                z
            }
            _ => return None,
        };
        let mass = system.masses()[0];
        let uniform = |values: &[f64]| {
            values.first().map_or(Some(0.0), |&v| values.iter().all(|&w| w == v).then_some(v))
        };
        if system.masses().iter().any(|&m| m != mass) {
            return None;
        }
        let (drag, force) = (uniform(system.drag())?, uniform(system.gravity_force())?);
        let x = system.initial_state().x;
        Some(Self { masses: n, mass, stiffness, damping, drag, force, left: x[left], right: x[right] })
    }
}

/// The per-step coefficients, in the kernel's precision.
#[derive(Debug, Clone, Copy)]
pub(super) struct Coefficients<T> {
    /// `h k / m`, 1/s.
    stiffness: T,
    /// `h Z / m`.
    damping: T,
    /// `1 - h c / m`: the share of velocity the drag leaves.
    retained: T,
    /// `h g / m`, m/s.
    force: T,
    /// `h`, s.
    step: T,
    /// -2.
    minus_two: T,
}

impl<T: Real> Coefficients<T> {
    /// The coefficients of `chain` with step `dt` (s).
    pub(super) fn new(chain: &UniformChain, dt: f64) -> Self {
        let per_mass = dt / chain.mass;
        Self {
            stiffness: T::from_f64(per_mass * chain.stiffness),
            damping: T::from_f64(per_mass * chain.damping),
            retained: T::from_f64(1.0 - per_mass * chain.drag),
            force: T::from_f64(per_mass * chain.force),
            step: T::from_f64(dt),
            minus_two: T::from_f64(-2.0),
        }
    }

    /// One mass's step (see the module doc) from its own and its neighbours' positions and
    /// velocities (left, own, right); returns the new (position, velocity).
    #[inline(always)]
    pub(super) fn advance_mass(&self, x: [T; 3], v: [T; 3]) -> (T, T) {
        let stretch = x[1].mul_add(self.minus_two, x[0] + x[2]);
        let shear = v[1].mul_add(self.minus_two, v[0] + v[2]);
        let velocity = self
            .stiffness
            .mul_add(stretch, self.damping.mul_add(shear, v[1].mul_add(self.retained, self.force)));
        (self.step.mul_add(velocity, x[1]), velocity)
    }
}

/// A pickup term in the kernel's layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tap {
    /// Mass index along the chain, 0-based.
    pub mass: usize,
    /// Position or velocity.
    pub quantity: Quantity,
    /// Weight of the term.
    pub weight: f64,
}

/// A chain whose state is held in padded arrays (ghost anchors at index 0 and `n + 1`).
#[derive(Debug, Clone)]
pub struct ChainKernel<T: Real> {
    chain: UniformChain,
    coefficients: Coefficients<T>,
    x: Vec<T>,
    v: Vec<T>,
    x_next: Vec<T>,
    v_next: Vec<T>,
    scratch: Scratch<T>,
    /// One block's tap samples (kept between calls).
    block_record: Vec<f64>,
}

/// The non-finite value found at the end of a block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFiniteBlock {
    /// Steps of the block that were not kept (the state is the block's start).
    pub block_steps: usize,
}

impl<T: Real> ChainKernel<T> {
    /// A kernel for `chain` with step `dt` (s), starting from positions `x` and velocities `v`
    /// of the masses (m, m/s).
    pub fn new(chain: UniformChain, dt: f64, x: &[f64], v: &[f64]) -> Self {
        let n = chain.masses;
        let coefficients = Coefficients::new(&chain, dt);
        let padded = |values: &[f64], left: f64, right: f64| -> Vec<T> {
            std::iter::once(left)
                .chain(values[..n].iter().copied())
                .chain(std::iter::once(right))
                .map(T::from_f64)
                .collect()
        };
        let x = padded(x, chain.left, chain.right);
        let v = padded(v, 0.0, 0.0);
        Self {
            chain,
            coefficients,
            x_next: x.clone(),
            v_next: v.clone(),
            x,
            v,
            scratch: Scratch::default(),
            block_record: Vec::new(),
        }
    }

    /// A kernel starting from a [`State`] of the system `chain` was detected in (masses first).
    pub fn from_state(chain: UniformChain, dt: f64, state: &State) -> Self {
        Self::new(chain, dt, &state.x, &state.v)
    }

    /// The chain's parameters.
    pub fn chain(&self) -> &UniformChain {
        &self.chain
    }

    /// Position (m) and velocity (m/s) of mass `i`.
    pub fn motion(&self, i: usize) -> (f64, f64) {
        (self.x[i + 1].to_f64(), self.v[i + 1].to_f64())
    }

    /// Copies the masses' positions and velocities into `state` (masses first; anchors kept).
    pub fn write_state(&self, state: &mut State) {
        let n = self.chain.masses;
        for i in 0..n {
            state.x[i] = self.x[i + 1].to_f64();
            state.v[i] = self.v[i + 1].to_f64();
        }
    }

    /// Advances `steps` steps, adding each tap's weighted value after every step to
    /// `record[j * steps + s]` (tap `j`, step `s` of this call, 0-based). `taps` must be sorted
    /// by mass. Tiles run on `pool`'s threads when one is given. On a non-finite value, the state
    /// is left at the start of the block that produced it and the steps done before it are
    /// returned in the error.
    pub fn advance(
        &mut self,
        steps: usize,
        taps: &[Tap],
        record: &mut [f64],
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<(), (usize, NonFiniteBlock)> {
        let n = self.chain.masses;
        let block = if n <= TILE { SINGLE_TILE_BLOCK } else { BLOCK };
        let mut done = 0;
        let mut kept = std::mem::take(&mut self.block_record);
        kept.resize(taps.len() * block, 0.0);
        while done < steps {
            let length = block.min(steps - done);
            let block_record = &mut kept[..taps.len() * length];
            block_record.fill(0.0);
            if !self.run_block(length, taps, block_record, pool) {
                self.block_record = kept;
                return Err((done, NonFiniteBlock { block_steps: length }));
            }
            std::mem::swap(&mut self.x, &mut self.x_next);
            std::mem::swap(&mut self.v, &mut self.v_next);
            for (j, samples) in block_record.chunks(length).enumerate() {
                record[j * steps + done..j * steps + done + length].copy_from_slice(samples);
            }
            done += length;
        }
        self.block_record = kept;
        Ok(())
    }

    /// One block: every tile from `x, v` to `x_next, v_next`, `length` steps. Returns whether
    /// every new value is finite (each tile checks its own, in parallel with the others).
    fn run_block(
        &mut self,
        length: usize,
        taps: &[Tap],
        record: &mut [f64],
        pool: Option<&rayon::ThreadPool>,
    ) -> bool {
        let n = self.chain.masses;
        if n <= SMALL {
            let (x, v, x_next, v_next) = (&self.x, &self.v, &mut self.x_next, &mut self.v_next);
            let coefficients = &self.coefficients;
            return super::with_best_instructions(
                #[inline(always)]
                || run_small(coefficients, x, v, x_next, v_next, length, taps, record),
            );
        }
        let coefficients = self.coefficients;
        let (x, v) = (&self.x, &self.v);
        if n <= TILE {
            // One tile: no job list to build.
            let job = TileJob {
                start: 1,
                end: n + 1,
                taps,
                out_x: &mut self.x_next[1..=n],
                out_v: &mut self.v_next[1..=n],
                record,
            };
            return run_tile(&coefficients, x, v, n, length, job, &mut self.scratch);
        }
        let tile = TILE;
        // Split outputs and tap records by tile (taps sorted by mass).
        let mut jobs = Vec::with_capacity(n.div_ceil(tile));
        let (mut out_x, mut out_v, mut record_left) =
            (&mut self.x_next[1..=n], &mut self.v_next[1..=n], &mut *record);
        let mut first_tap = 0;
        for start in (0..n).step_by(tile) {
            let end = (start + tile).min(n);
            let (tile_x, rest_x) = std::mem::take(&mut out_x).split_at_mut(end - start);
            let (tile_v, rest_v) = std::mem::take(&mut out_v).split_at_mut(end - start);
            out_x = rest_x;
            out_v = rest_v;
            let last_tap = first_tap + taps[first_tap..].iter().take_while(|t| t.mass < end).count();
            let (tile_record, rest_record) =
                std::mem::take(&mut record_left).split_at_mut((last_tap - first_tap) * length);
            record_left = rest_record;
            jobs.push(TileJob {
                start: start + 1,
                end: end + 1,
                taps: &taps[first_tap..last_tap],
                out_x: tile_x,
                out_v: tile_v,
                record: tile_record,
            });
            first_tap = last_tap;
        }
        match pool {
            Some(pool) if jobs.len() > 1 => pool.install(|| {
                use rayon::prelude::*;
                jobs.into_par_iter()
                    .map_init(Scratch::default, |scratch, job| {
                        run_tile(&coefficients, x, v, n, length, job, scratch)
                    })
                    .reduce(|| true, |a, b| a && b)
            }),
            _ => {
                // Every tile runs, whatever an earlier one found.
                let mut finite = true;
                for job in jobs {
                    finite &= run_tile(&coefficients, x, v, n, length, job, &mut self.scratch);
                }
                finite
            }
        }
    }
}

/// Chains up to this many masses are stepped in registers, one fixed-size loop per size.
const SMALL: usize = 8;

/// A chain of at most [`SMALL`] masses, `length` steps from `x, v` into `x_next, v_next`: the
/// same arithmetic as [`stencil`] on arrays the compiler keeps in registers.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run_small<T: Real>(
    c: &Coefficients<T>,
    x: &[T],
    v: &[T],
    x_next: &mut [T],
    v_next: &mut [T],
    length: usize,
    taps: &[Tap],
    record: &mut [f64],
) -> bool {
    macro_rules! sizes {
        ($($n:literal)*) => {
            match x.len() - 2 {
                $($n => run_fixed::<T, $n>(c, x, v, x_next, v_next, length, taps, record),)*
                other => unreachable!("run_small is called for at most {SMALL} masses, not {other}"),
            }
        };
    }
    sizes!(1 2 3 4 5 6 7 8)
}

/// [`run_small`] for exactly `N` masses: positions and velocities in `[T; N]` arrays, the anchors
/// as constants (velocity 0).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn run_fixed<T: Real, const N: usize>(
    c: &Coefficients<T>,
    x: &[T],
    v: &[T],
    x_next: &mut [T],
    v_next: &mut [T],
    length: usize,
    taps: &[Tap],
    record: &mut [f64],
) -> bool {
    let (left, right, rest) = (x[0], x[N + 1], T::default());
    let mut xs: [T; N] = std::array::from_fn(|i| x[i + 1]);
    let mut vs: [T; N] = std::array::from_fn(|i| v[i + 1]);
    for step in 0..length {
        let (xs_old, vs_old) = (xs, vs);
        for i in 0..N {
            let (x_left, v_left) = if i == 0 { (left, rest) } else { (xs_old[i - 1], vs_old[i - 1]) };
            let (x_right, v_right) = if i + 1 == N { (right, rest) } else { (xs_old[i + 1], vs_old[i + 1]) };
            (xs[i], vs[i]) = c.advance_mass([x_left, xs_old[i], x_right], [v_left, vs_old[i], v_right]);
        }
        for (j, tap) in taps.iter().enumerate() {
            let value = match tap.quantity {
                Quantity::Position => xs[tap.mass],
                Quantity::Velocity => vs[tap.mass],
            };
            record[j * length + step] += tap.weight * value.to_f64();
        }
    }
    x_next[1..=N].copy_from_slice(&xs);
    v_next[1..=N].copy_from_slice(&vs);
    xs.iter().chain(&vs).all(|value| value.is_finite())
}

/// One tile's share of a block: padded indices `[start, end)`, its taps and its outputs.
struct TileJob<'a, T> {
    start: usize,
    end: usize,
    taps: &'a [Tap],
    out_x: &'a mut [T],
    out_v: &'a mut [T],
    record: &'a mut [f64],
}

/// A tile's working copy: two time levels of positions and velocities.
#[derive(Debug, Clone, Default)]
struct Scratch<T> {
    x: [Vec<T>; 2],
    v: [Vec<T>; 2],
}

/// Advances one tile `length` steps from the padded arrays `x, v` (n masses + 2 anchors).
fn run_tile<T: Real>(
    coefficients: &Coefficients<T>,
    x: &[T],
    v: &[T],
    n: usize,
    length: usize,
    job: TileJob<'_, T>,
    scratch: &mut Scratch<T>,
) -> bool {
    super::with_best_instructions(
        #[inline(always)]
        || run_tile_portable(coefficients, x, v, n, length, job, scratch),
    )
}

/// The tile loop: copy the tile and its halo (clipped at the anchors), step it `length` times
/// on a shrinking range, record the taps, copy the tile's own masses out.
#[inline(always)]
fn run_tile_portable<T: Real>(
    coefficients: &Coefficients<T>,
    x: &[T],
    v: &[T],
    n: usize,
    length: usize,
    job: TileJob<'_, T>,
    scratch: &mut Scratch<T>,
) -> bool {
    let window_start = job.start.saturating_sub(length);
    let window_end = (job.end + length).min(n + 2);
    let width = window_end - window_start;
    // Align the tile's first own mass to a cache line, so the stencil's own loads and its
    // stores are aligned (only the neighbours' loads straddle lines).
    let first = job.start - window_start;
    let Scratch { x: [x0, x1], v: [v0, v1] } = scratch;
    let x0 = aligned_copy(x0, &x[window_start..window_end], first);
    let x1 = aligned_copy(x1, &x[window_start..window_end], first);
    let v0 = aligned_copy(v0, &v[window_start..window_end], first);
    let v1 = aligned_copy(v1, &v[window_start..window_end], first);
    let (mut current, mut next) = ((x0, v0), (x1, v1));
    for step in 0..length {
        // The range still valid after this step: the anchors bound it, or the halo shrinks.
        let low = if window_start == 0 { 1 } else { step + 1 };
        let high = if window_end == n + 2 { width - 1 } else { width - 1 - step };
        stencil(coefficients, current.0, current.1, next.0, next.1, low, high);
        for (j, tap) in job.taps.iter().enumerate() {
            let local = tap.mass + 1 - window_start;
            let value = match tap.quantity {
                Quantity::Position => next.0[local],
                Quantity::Velocity => next.1[local],
            };
            job.record[j * length + step] += tap.weight * value.to_f64();
        }
        std::mem::swap(&mut current, &mut next);
    }
    let offset = job.start - window_start;
    job.out_x.copy_from_slice(&current.0[offset..offset + (job.end - job.start)]);
    job.out_v.copy_from_slice(&current.1[offset..offset + (job.end - job.start)]);
    job.out_x.iter().chain(job.out_v.iter()).all(|value| value.is_finite())
}

/// Copies `source` into `buffer` at an offset that puts element `first` on a 64-byte boundary,
/// and returns the copy.
#[inline(always)]
fn aligned_copy<'a, T: Real>(buffer: &'a mut Vec<T>, source: &[T], first: usize) -> &'a mut [T] {
    const LINE: usize = 64;
    let slack = LINE / std::mem::size_of::<T>();
    buffer.resize(source.len() + slack, T::default());
    let address = buffer.as_ptr() as usize + first * std::mem::size_of::<T>();
    let offset = ((LINE - address % LINE) % LINE) / std::mem::size_of::<T>();
    let window = &mut buffer[offset..offset + source.len()];
    window.copy_from_slice(source);
    window
}

/// One symplectic Euler step of masses `[low, high)` of a padded tile (see the module doc).
#[inline(always)]
fn stencil<T: Real>(
    c: &Coefficients<T>,
    x: &[T],
    v: &[T],
    x_out: &mut [T],
    v_out: &mut [T],
    low: usize,
    high: usize,
) {
    let len = high - low;
    let (x_left, x_mid, x_right) = (&x[low - 1..][..len], &x[low..][..len], &x[low + 1..][..len]);
    let (v_left, v_mid, v_right) = (&v[low - 1..][..len], &v[low..][..len], &v[low + 1..][..len]);
    let (x_out, v_out) = (&mut x_out[low..][..len], &mut v_out[low..][..len]);
    for i in 0..len {
        (x_out[i], v_out[i]) =
            c.advance_mass([x_left[i], x_mid[i], x_right[i]], [v_left[i], v_mid[i], v_right[i]]);
    }
}
