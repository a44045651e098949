//! `hooke._hooke.Performance`: an instrument file played from a score file on the engine
//! ([`Performance`]), rendered in blocks with the GIL released.

use crate::errors::{engine_error, run_error, source_error};
use crate::limits::check_output;
use crate::record::{channels_array, frames_in_blocks};
use hooke::format::{instrument, score};
use hooke::score::performance::{Performance as LibraryPerformance, PerformanceOptions};
use pyo3::prelude::*;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// An instrument playing a score, ready to render.
#[pyclass(module = "hooke._hooke")]
pub struct Performance {
    /// Behind a lock because a Python object may be reached from several threads (the methods
    /// that render take `&mut self` and reach it without locking).
    performance: Mutex<LibraryPerformance>,
    rate: f64,
    oversample: usize,
    scheme: &'static str,
    duration: f64,
}

impl Performance {
    /// Renders up to `frames` more output frames (fewer at the score's end) for `call`, whose
    /// argument `argument` asked for them; refused before rendering when they would exceed
    /// [`MAX_OUTPUT_BYTES`](crate::limits::MAX_OUTPUT_BYTES).
    fn render_frames<'py>(
        &mut self,
        py: Python<'py>,
        call: &str,
        argument: &'static str,
        frames: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let oversample = self.oversample as u64;
        let performance = self.performance_mut();
        let (channels, step) = (performance.channels(), performance.step());
        let end = step.saturating_add(frames.saturating_mul(oversample)).min(performance.total_steps());
        // At most one frame for each `oversample` steps, and one the decimator owed.
        let made = (end - step).div_ceil(oversample) + 1;
        let asked = format!("{made} frames (of the {frames} asked) x {channels} channel(s) x 8 bytes");
        let bytes = made as u128 * channels as u128 * 8;
        check_output(call, argument, &asked, bytes, "render(frames) in blocks")?;
        frames_in_blocks(py, performance, channels, end - step, |performance, block, output| {
            performance.render(block, output)
        })
    }

    /// The performance, for reading.
    fn performance(&self) -> MutexGuard<'_, LibraryPerformance> {
        self.performance.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The performance, for rendering.
    fn performance_mut(&mut self) -> &mut LibraryPerformance {
        self.performance.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Performance {
    /// The instrument file `instrument` built for `scheme` (default: the file's) at `rate` Hz
    /// output (default: the file's) simulated at `oversample` times that rate (default: the
    /// file's, else the smallest the analysis finds stable), playing the score file `score`.
    /// Errors in either file are `ModelError`s with the file, line and column.
    #[new]
    #[pyo3(signature = (instrument, score, *, rate = None, oversample = None, scheme = None, threads = 1, kernels = true))]
    fn new(
        py: Python<'_>,
        instrument: &str,
        score: &str,
        rate: Option<f64>,
        oversample: Option<usize>,
        scheme: Option<&str>,
        threads: usize,
        kernels: bool,
    ) -> PyResult<Self> {
        let file = instrument::load(Path::new(instrument)).map_err(|e| source_error(py, &e))?;
        let scheme = match scheme {
            Some(name) => crate::scheme(name)?,
            None => file.scheme,
        };
        let rate = rate.unwrap_or(file.rate);
        let oversample = oversample.or(file.oversample);
        let (oversample, built) =
            py.detach(|| file.build_stable(scheme, rate, oversample)).map_err(|e| source_error(py, &e))?;
        let score = score::load(Path::new(score), &built).map_err(|e| source_error(py, &e))?;
        let duration = score.duration;
        let options = PerformanceOptions { oversample, threads: threads.max(1), kernels, modal: true };
        let performance =
            LibraryPerformance::new(&built, score, options).map_err(|e| engine_error(py, &e))?;
        Ok(Self { performance: Mutex::new(performance), rate, oversample, scheme: scheme.name(), duration })
    }

    /// Renders the next `frames` output frames (fewer at the score's end), float64 of shape
    /// (channels, frames), in metres (the pickups' units, not normalised). Ctrl-C interrupts.
    fn render<'py>(&mut self, py: Python<'py>, frames: u64) -> PyResult<Bound<'py, PyAny>> {
        self.render_frames(py, "render", "frames", frames)
    }

    /// The last frames owed by the decimator (the end of the render), float64 of shape
    /// (channels, frames).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut output = vec![Vec::new(); self.performance_mut().channels()];
        let outcome = self.performance_mut().finish(&mut output);
        let frames = channels_array(py, output);
        outcome.map(|()| frames.clone()).map_err(|error| run_error(py, &error, frames))
    }

    /// Renders the whole score and the decimator's tail: float64 of shape (channels, frames).
    fn render_all<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let remaining = self.performance_mut().total_steps() - self.performance_mut().step();
        let body =
            self.render_frames(py, "render_all", "score", remaining.div_ceil(self.oversample as u64))?;
        let tail = self.finish(py)?;
        py.import("numpy")?.getattr("concatenate")?.call1(((body, tail), 1))
    }

    /// The output rate, Hz.
    #[getter]
    fn rate(&self) -> f64 {
        self.rate
    }

    /// Simulation steps per output frame.
    #[getter]
    fn oversample(&self) -> usize {
        self.oversample
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.scheme
    }

    /// The score's length, s.
    #[getter]
    fn duration(&self) -> f64 {
        self.duration
    }

    /// The number of output channels.
    #[getter]
    fn channels(&self) -> usize {
        self.performance().channels()
    }

    /// The path the engine runs now ('general' or 'string kernel').
    #[getter]
    fn path(&self) -> &'static str {
        self.performance().path().name()
    }

    /// The simulation steps taken.
    #[getter]
    fn step(&self) -> u64 {
        self.performance().step()
    }

    /// The simulation steps the score lasts.
    #[getter]
    fn total_steps(&self) -> u64 {
        self.performance().total_steps()
    }

    fn __repr__(&self) -> String {
        // The performance locked once: a second lock in the same statement would wait for the
        // first.
        let performance = self.performance();
        format!(
            "<hooke.Performance: {} s, {} at {} x {} Hz, {} channel(s), step {} of {}>",
            self.duration,
            self.scheme,
            self.oversample,
            self.rate,
            performance.channels(),
            performance.step(),
            performance.total_steps()
        )
    }
}
