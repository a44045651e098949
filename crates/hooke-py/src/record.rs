//! What a run hands to Python: the blocks it runs in (the GIL released, signals checked between
//! them), the rows it records, and the arrays they become.

use crate::errors::run_error;
use hooke::analysis::energy::energy;
use hooke::engine::{Observer, PickupRecorder, Pickups, RunError};
use hooke::system::{State, System};
use numpy::ndarray::{Array1, Array2, Array3};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

/// How long one block runs with the GIL released, s: Ctrl-C is answered within about this.
const BLOCK_SECONDS: f64 = 0.05;

/// Steps (or frames) per block, grown or shrunk so that each block takes about
/// [`BLOCK_SECONDS`].
pub(crate) struct Blocks {
    pub(crate) size: u64,
}

impl Blocks {
    pub(crate) fn new() -> Self {
        Self { size: 64 }
    }

    /// The next block's size after a block of `done` items took `seconds`.
    pub(crate) fn adapt(&mut self, done: u64, seconds: f64) {
        let rate = done as f64 / seconds.max(1e-6);
        self.size = ((rate * BLOCK_SECONDS) as u64).clamp(1, 1 << 22);
    }
}

/// Takes `steps` steps of `target` with `advance(target, block, output)` in adaptive blocks,
/// the GIL released during each block and Ctrl-C checked between them (so it is answered within
/// about [`BLOCK_SECONDS`]). Returns the frames gathered, float64 of shape (channels, frames),
/// or the run's error carrying them.
pub(crate) fn frames_in_blocks<'py, T: Send>(
    py: Python<'py>,
    target: &mut T,
    channels: usize,
    steps: u64,
    advance: impl Fn(&mut T, u64, &mut [Vec<f64>]) -> Result<u64, RunError> + Sync,
) -> PyResult<Bound<'py, PyAny>> {
    let mut output = vec![Vec::new(); channels];
    let mut blocks = Blocks::new();
    let (mut done, mut outcome) = (0, Ok(0));
    while done < steps && outcome.is_ok() {
        let block = blocks.size.min(steps - done);
        let began = Instant::now();
        let (target, output, advance) = (&mut *target, &mut output, &advance);
        outcome = py.detach(move || advance(target, block, output));
        blocks.adapt(block, began.elapsed().as_secs_f64());
        match outcome {
            Ok(0) => break,
            Ok(taken) => done += taken,
            Err(_) => {}
        }
        py.check_signals()?;
    }
    let frames = channels_array(py, output);
    match outcome {
        Ok(_) => Ok(frames),
        Err(error) => Err(run_error(py, &error, frames)),
    }
}

/// The rows of a run: every `every` steps and at `last_step`, with the pickups and, if asked,
/// the energy of each.
pub(crate) struct Recorder {
    every: u64,
    last_step: u64,
    with_energy: bool,
    coordinates: usize,
    dimension: usize,
    pub(crate) steps: Vec<u64>,
    times: Vec<f64>,
    positions: Vec<f64>,
    velocities: Vec<f64>,
    kinetic: Vec<f64>,
    potential: Vec<f64>,
    total: Vec<f64>,
    pickups: PickupRecorder,
}

impl Recorder {
    /// A recorder of every `every`-th state of `system` up to `last_step` (at most `rows` rows),
    /// with `pickups`, and the energies if `with_energy`.
    pub(crate) fn new(
        system: &System,
        pickups: Pickups,
        every: u64,
        last_step: u64,
        with_energy: bool,
        rows: usize,
    ) -> Self {
        let coordinates = system.mass_coordinates();
        let energies = if with_energy { rows } else { 0 };
        Self {
            every,
            last_step,
            with_energy,
            coordinates,
            dimension: system.dimension(),
            steps: Vec::with_capacity(rows),
            times: Vec::with_capacity(rows),
            positions: Vec::with_capacity(rows * coordinates),
            velocities: Vec::with_capacity(rows * coordinates),
            kinetic: Vec::with_capacity(energies),
            potential: Vec::with_capacity(energies),
            total: Vec::with_capacity(energies),
            pickups: PickupRecorder::new(pickups, rows),
        }
    }

    /// The rows as a `hooke.Trajectory` of `scheme` at step `dt` (s), arrays moved into numpy
    /// without copies.
    pub(crate) fn into_trajectory<'py>(
        self,
        py: Python<'py>,
        scheme: &str,
        dt: f64,
        mass_ids: &[String],
    ) -> PyResult<Bound<'py, PyAny>> {
        let (rows, masses, dimension) = (self.steps.len(), mass_ids.len(), self.dimension);
        let shaped = |values: Vec<f64>| {
            Array3::from_shape_vec((rows, masses, dimension), values)
                .expect("rows x masses x dimension")
                .into_pyarray(py)
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("scheme", scheme)?;
        kwargs.set_item("dt", dt)?;
        kwargs.set_item("mass_ids", mass_ids.to_vec())?;
        kwargs.set_item("steps", Array1::from(self.steps).into_pyarray(py))?;
        kwargs.set_item("times", self.times.into_pyarray(py))?;
        kwargs.set_item("positions", shaped(self.positions))?;
        kwargs.set_item("velocities", shaped(self.velocities))?;
        if self.with_energy {
            kwargs.set_item("kinetic", self.kinetic.into_pyarray(py))?;
            kwargs.set_item("potential", self.potential.into_pyarray(py))?;
            kwargs.set_item("energy", self.total.into_pyarray(py))?;
        }
        kwargs.set_item("pickups", channels_array(py, self.pickups.into_channels()))?;
        py.import("hooke._results")?.getattr("Trajectory")?.call((), Some(&kwargs))
    }
}

impl Observer for Recorder {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        if !state.step.is_multiple_of(self.every) && state.step != self.last_step {
            return Ok(());
        }
        self.steps.push(state.step);
        self.times.push(state.t);
        self.positions.extend_from_slice(&state.x[..self.coordinates]);
        self.velocities.extend_from_slice(&state.v[..self.coordinates]);
        if self.with_energy {
            let e = energy(system, state);
            self.kinetic.push(e.kinetic);
            self.potential.push(e.potential());
            self.total.push(e.total());
        }
        self.pickups.observe(system, state)
    }
}

/// Channels of equal length as a float64 array of shape (channels, frames).
pub(crate) fn channels_array(py: Python<'_>, channels: Vec<Vec<f64>>) -> Bound<'_, PyAny> {
    let (rows, frames) = (channels.len(), channels.first().map_or(0, Vec::len));
    let flat: Vec<f64> = channels.into_iter().flatten().collect();
    Array2::from_shape_vec((rows, frames), flat)
        .expect("channels of equal length")
        .into_pyarray(py)
        .into_any()
}
