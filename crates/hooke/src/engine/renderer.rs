//! Block rendering of pickups: the chain kernel where the model and scheme allow it, the general
//! per-step loop otherwise.

use super::pickup::Pickups;
use super::{PickupRecorder, RunError, Simulation};
use crate::kernel::chain::{ChainKernel, Tap, UniformChain};
use crate::kernel::grid::{GridKernel, UniformGrid};
use crate::scheme::SchemeKind;
use crate::system::{State, System};

/// The precision the chain kernel works in (the general path is always f64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 64-bit floats.
    #[default]
    F64,
    /// 32-bit floats: twice the numbers per cache line and vector register.
    F32,
}

/// How to render: precision and threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// Working precision of the chain kernel.
    pub precision: Precision,
    /// Threads for the chain kernel's tiles (1: the calling thread only).
    pub threads: usize,
    /// Whether a kernel may be used at all (false: always the general loop, for comparisons).
    pub kernels: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self { precision: Precision::F64, threads: 1, kernels: true }
    }
}

/// A kernel in one of its precisions.
enum KernelState {
    Chain64(ChainKernel<f64>),
    Chain32(ChainKernel<f32>),
    Grid64(GridKernel<f64>),
    Grid32(GridKernel<f32>),
}

impl KernelState {
    /// The kernel for `system`, if its structure has one.
    fn detect(system: &System, dt: f64, precision: Precision) -> Option<Self> {
        let state = system.initial_state();
        if let Some(chain) = UniformChain::detect(system) {
            return Some(match precision {
                Precision::F64 => Self::Chain64(ChainKernel::from_state(chain, dt, &state)),
                Precision::F32 => Self::Chain32(ChainKernel::from_state(chain, dt, &state)),
            });
        }
        let grid = UniformGrid::detect(system)?;
        Some(match precision {
            Precision::F64 => Self::Grid64(GridKernel::from_state(grid, dt, &state)),
            Precision::F32 => Self::Grid32(GridKernel::from_state(grid, dt, &state)),
        })
    }

    /// Advances `steps` steps; returns the steps done (fewer on a non-finite value).
    fn advance(
        &mut self,
        steps: usize,
        taps: &[Tap],
        record: &mut [f64],
        pool: Option<&rayon::ThreadPool>,
    ) -> usize {
        let outcome = match self {
            Self::Chain64(kernel) => kernel.advance(steps, taps, record, pool).map_err(|(done, _)| done),
            Self::Chain32(kernel) => kernel.advance(steps, taps, record, pool).map_err(|(done, _)| done),
            Self::Grid64(kernel) => kernel.advance(steps, taps, record),
            Self::Grid32(kernel) => kernel.advance(steps, taps, record),
        };
        outcome.map_or_else(|done| done, |()| steps)
    }

    /// Copies the kernel's masses into `state`.
    fn write_state(&self, state: &mut State) {
        match self {
            Self::Chain64(kernel) => kernel.write_state(state),
            Self::Chain32(kernel) => kernel.write_state(state),
            Self::Grid64(kernel) => kernel.write_state(state),
            Self::Grid32(kernel) => kernel.write_state(state),
        }
    }
}

/// The kernel, its taps (sorted by mass) and the channel of each tap.
struct KernelPath {
    kernel: KernelState,
    taps: Vec<Tap>,
    channels: Vec<usize>,
    pool: Option<rayon::ThreadPool>,
    record: Vec<f64>,
}

/// Renders the pickup channels of a system, many steps per call.
///
/// Symplectic Euler on a uniform chain ([`UniformChain::detect`]) runs on the stencil kernel
/// with temporal blocking, on a uniform membrane ([`UniformGrid::detect`]) on the five-point
/// stencil; anything else runs the general per-step loop of [`Simulation`]. A
/// non-finite value found by the kernel at the end of a block is located exactly by replaying
/// that block on the general path from the block's start, so the error names the step, time and
/// mass as the general path does.
pub struct Renderer {
    simulation: Simulation,
    pickups: Pickups,
    kernel: Option<KernelPath>,
}

impl Renderer {
    /// A renderer of `pickups` for `system` with `scheme` and step `dt` (s).
    pub fn new(
        system: System,
        scheme: SchemeKind,
        dt: f64,
        pickups: Pickups,
        options: RenderOptions,
    ) -> Self {
        let kernel = (options.kernels && scheme == SchemeKind::SymplecticEuler)
            .then(|| KernelState::detect(&system, dt, options.precision))
            .flatten()
            .map(|kernel| {
                let mut taps: Vec<(Tap, usize)> = pickups
                    .taps()
                    .map(|(channel, coordinate, quantity, weight)| {
                        (Tap { mass: coordinate, quantity, weight }, channel)
                    })
                    .collect();
                taps.sort_by_key(|(tap, _)| tap.mass);
                let pool = (options.threads > 1)
                    .then(|| rayon::ThreadPoolBuilder::new().num_threads(options.threads).build().ok())
                    .flatten();
                KernelPath {
                    kernel,
                    channels: taps.iter().map(|(_, c)| *c).collect(),
                    taps: taps.into_iter().map(|(t, _)| t).collect(),
                    pool,
                    record: Vec::new(),
                }
            });
        Self { simulation: Simulation::new(system, scheme, dt), pickups, kernel }
    }

    /// Whether the chain kernel renders (rather than the general loop).
    pub fn uses_kernel(&self) -> bool {
        self.kernel.is_some()
    }

    /// The steps taken so far.
    pub fn step(&self) -> u64 {
        self.simulation.state().step
    }

    /// The current state.
    pub fn state(&self) -> State {
        let mut state = self.simulation.state().clone();
        if let Some(path) = &self.kernel {
            path.kernel.write_state(&mut state);
        }
        state
    }

    /// Renders `steps` more steps, appending one sample per step to each of `channels` (one
    /// vector per pickup channel). The first call also appends the initial sample (step 0).
    pub fn render(&mut self, steps: u64, channels: &mut [Vec<f64>]) -> Result<(), RunError> {
        let Some(path) = &mut self.kernel else {
            // The general loop records step 0 itself when it starts there; skip it if the
            // kernel already did (an instability in the kernel's first block).
            let initial_recorded =
                self.simulation.state().step == 0 && channels.first().is_some_and(|c| !c.is_empty());
            let mut recorder = PickupRecorder::new(self.pickups.clone(), steps as usize + 1);
            let result = self.simulation.run(steps, &mut [&mut recorder], &mut |_| {});
            for (out, samples) in channels.iter_mut().zip(recorder.into_channels()) {
                out.extend(&samples[usize::from(initial_recorded)..]);
            }
            return result;
        };
        if self.simulation.state().step == 0 && channels.first().is_some_and(Vec::is_empty) {
            self.pickups.sample(self.simulation.state(), channels);
        }
        let steps_usize = steps as usize;
        path.record.clear();
        path.record.resize(path.taps.len() * steps_usize, 0.0);
        let done = path.kernel.advance(steps_usize, &path.taps, &mut path.record, path.pool.as_ref());
        let start = channels.first().map_or(0, Vec::len);
        for channel in channels.iter_mut() {
            channel.resize(start + done, 0.0);
        }
        for (j, &channel) in path.channels.iter().enumerate() {
            for (sample, value) in
                channels[channel][start..].iter_mut().zip(&path.record[j * steps_usize..][..done])
            {
                *sample += value;
            }
        }
        let mut state = self.simulation.state().clone();
        path.kernel.write_state(&mut state);
        state.step += done as u64;
        state.t = state.step as f64 * self.simulation.dt();
        self.simulation.set_state(state);
        if done == steps_usize {
            return Ok(());
        }
        // Go on from the failed block's start on the general path, which names the step and mass.
        self.kernel = None;
        self.render(steps - done as u64, channels)
    }
}
