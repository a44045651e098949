//! The stencil paths: symplectic Euler on a uniform chain ([`UniformChain`]) or a uniform
//! membrane ([`UniformGrid`]), in f64 or f32, many steps per call. They take no change in place:
//! the engine rebuilds the path from the current state after one.

use super::{Stage, TapChannels};
use crate::engine::{PathKind, Pickups, Precision, RunError};
use crate::kernel::chain::{ChainKernel, UniformChain};
use crate::kernel::grid::{GridKernel, UniformGrid};
use crate::system::{State, System};
use std::sync::Arc;

/// A kernel in one of its precisions.
enum Kernel {
    Chain64(ChainKernel<f64>),
    Chain32(ChainKernel<f32>),
    Grid64(GridKernel<f64>),
    Grid32(GridKernel<f32>),
}

/// A stencil kernel and the pickups' terms it records.
pub(crate) struct KernelStage {
    kernel: Kernel,
    taps: TapChannels,
    pool: Option<Arc<rayon::ThreadPool>>,
    step: u64,
    dt: f64,
}

impl KernelStage {
    /// The kernel for `system` from `state`, if its structure has one (a uniform chain or
    /// membrane; symplectic Euler is the caller's to check).
    pub(crate) fn detect(
        system: &System,
        dt: f64,
        state: &State,
        pickups: &Pickups,
        precision: Precision,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> Option<Self> {
        let kernel = if let Some(chain) = UniformChain::detect(system) {
            match precision {
                Precision::F64 => Kernel::Chain64(ChainKernel::from_state(chain, dt, state)),
                Precision::F32 => Kernel::Chain32(ChainKernel::from_state(chain, dt, state)),
            }
        } else {
            let grid = UniformGrid::detect(system)?;
            match precision {
                Precision::F64 => Kernel::Grid64(GridKernel::from_state(grid, dt, state)),
                Precision::F32 => Kernel::Grid32(GridKernel::from_state(grid, dt, state)),
            }
        };
        Some(Self { kernel, taps: TapChannels::new(pickups), pool, step: state.step, dt })
    }
}

impl Stage for KernelStage {
    fn kind(&self) -> PathKind {
        match self.kernel {
            Kernel::Chain64(_) | Kernel::Chain32(_) => PathKind::Chain,
            Kernel::Grid64(_) | Kernel::Grid32(_) => PathKind::Membrane,
        }
    }

    fn step(&self) -> u64 {
        self.step
    }

    fn motion(&self, coordinate: usize) -> (f64, f64) {
        match &self.kernel {
            Kernel::Chain64(kernel) => kernel.motion(coordinate),
            Kernel::Chain32(kernel) => kernel.motion(coordinate),
            Kernel::Grid64(kernel) => kernel.motion(coordinate),
            Kernel::Grid32(kernel) => kernel.motion(coordinate),
        }
    }

    fn advance(&mut self, _system: &System, steps: usize, record: &mut [f64]) -> Result<usize, RunError> {
        let pool = self.pool.as_deref();
        let (taps, tap_record) = self.taps.rows(steps);
        let outcome = match &mut self.kernel {
            // The chain kernel writes every tap's samples; the grid kernel adds to them.
            Kernel::Chain64(kernel) => {
                kernel.advance(steps, taps, tap_record, pool).map_err(|(done, _)| done)
            }
            Kernel::Chain32(kernel) => {
                kernel.advance(steps, taps, tap_record, pool).map_err(|(done, _)| done)
            }
            Kernel::Grid64(kernel) => {
                tap_record.fill(0.0);
                kernel.advance(steps, taps, tap_record)
            }
            Kernel::Grid32(kernel) => {
                tap_record.fill(0.0);
                kernel.advance(steps, taps, tap_record)
            }
        };
        let done = outcome.map_or_else(|done| done, |()| steps);
        self.taps.mix(steps, done, record);
        self.step += done as u64;
        Ok(done)
    }

    fn state(&self, system: &System) -> State {
        let mut state = system.initial_state();
        match &self.kernel {
            Kernel::Chain64(kernel) => kernel.write_state(&mut state),
            Kernel::Chain32(kernel) => kernel.write_state(&mut state),
            Kernel::Grid64(kernel) => kernel.write_state(&mut state),
            Kernel::Grid32(kernel) => kernel.write_state(&mut state),
        }
        state.step = self.step;
        state.t = self.step as f64 * self.dt;
        state
    }
}
