//! `hooke._hooke.Simulation`: an [`Engine`] driven from Python. Runs go in blocks with the GIL
//! released, and Python's signal handlers run between blocks, so Ctrl-C stops a long run.

use crate::analysis::analysis_result;
use crate::errors::{analysis_error, engine_error, model_error, run_error, HookeError};
use crate::limits::{check_number, check_output};
use crate::model_rule;
use crate::record::{channels_array, frames_in_blocks, Blocks, Recorder};
use hooke::analysis::report::AnalysisOptions;
use hooke::engine::excitation::{Bow, Excitation, Hammer, Pulse};
use hooke::engine::{Device, Engine, EngineConfig, Event, Pickups, RunLength, Sample};
use hooke::system::System;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// A model compiled and running: its engine, the mass ids and the default run length.
#[pyclass(module = "hooke._hooke")]
pub struct Simulation {
    /// The engine, behind a lock because a Python object may be reached from several threads
    /// (the methods that step it take `&mut self` and reach it without locking).
    engine: Mutex<Engine>,
    pickups: Pickups,
    /// Node ids (masses, then anchors) and their indices.
    nodes: HashMap<String, usize>,
    mass_ids: Vec<String>,
    length: Option<RunLength>,
}

impl Simulation {
    /// The engine for `system` with `pickups` and `config`, on `device` if given; `length` is
    /// the run length a file gave.
    pub(crate) fn new(
        py: Python<'_>,
        system: System,
        pickups: Pickups,
        config: EngineConfig,
        device: Option<Arc<dyn Device>>,
        length: Option<RunLength>,
    ) -> PyResult<Self> {
        let ids = system.node_ids().to_vec();
        let mass_ids = ids[..system.mass_count()].to_vec();
        let engine =
            Engine::build(system, pickups.clone(), config, device).map_err(|e| engine_error(py, &e))?;
        let nodes = ids.into_iter().enumerate().map(|(i, id)| (id, i)).collect();
        Ok(Self { engine: Mutex::new(engine), pickups, nodes, mass_ids, length })
    }

    /// The engine, for reading.
    fn engine(&self) -> MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The engine, for stepping and changing.
    fn engine_mut(&mut self) -> &mut Engine {
        self.engine.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// The node index of `id`.
    fn node(&self, id: &str) -> PyResult<usize> {
        self.nodes
            .get(id)
            .copied()
            .ok_or_else(|| model_rule("event", "mass", "the id of a node of the model", id))
    }

    /// The mass index of `id`.
    fn mass(&self, id: &str) -> PyResult<usize> {
        let index = self.node(id)?;
        if index < self.mass_ids.len() {
            Ok(index)
        } else {
            Err(model_rule("event", "mass", "a mass (not an anchor)", id))
        }
    }

    /// The state coordinate of `axis` of mass `id`.
    fn coordinate(&self, id: &str, axis: usize) -> PyResult<usize> {
        let dimension = self.engine().system().dimension();
        if axis >= dimension {
            return Err(model_rule("event", "axis", format!("an axis below {dimension}"), axis));
        }
        Ok(self.engine().coordinate(self.mass(id)?, axis))
    }

    /// Applies `event` now, or at time `at` (s) if given.
    fn send(&mut self, py: Python<'_>, event: Event, at: Option<f64>) -> PyResult<()> {
        let result = match at {
            Some(seconds) => {
                if !(seconds.is_finite() && seconds >= 0.0) {
                    return Err(model_rule("event", "at", "a time >= 0 s", seconds));
                }
                let step = (seconds / self.engine_mut().dt()).round() as u64;
                self.engine_mut().schedule(step, event)
            }
            None => self.engine_mut().apply(event),
        };
        result.map_err(|e| model_error(py, &e))
    }

    /// The bytes of one row of a `Trajectory`: its step and time, the masses' positions and
    /// velocities, the pickups and, `with_energy`, the three energies; 8 bytes each.
    fn row_bytes(&self, with_energy: bool) -> usize {
        let engine = self.engine();
        let energies = if with_energy { 3 } else { 0 };
        8 * (2 + 2 * engine.system().mass_coordinates() + engine.channels() + energies)
    }

    /// Renders `frames` frames per channel in blocks with the GIL released.
    fn render_blocks<'py, S: Sample + Send + numpy::Element>(
        &mut self,
        py: Python<'py>,
        frames: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let channels = self.engine().channels();
        let sample = std::mem::size_of::<S>();
        let asked = format!("{frames} frames x {channels} channel(s) x {sample} bytes");
        let bytes = frames as u128 * channels as u128 * sample as u128;
        check_output("render", "frames", &asked, bytes, "render longer output in blocks")?;
        let mut buffer = vec![S::from_f64(0.0); channels * frames];
        let mut blocks = Blocks::new();
        let mut start = 0;
        let mut outcome = Ok(());
        while start < frames && outcome.is_ok() {
            let end = (start + blocks.size as usize).min(frames);
            let began = Instant::now();
            let engine = self.engine_mut();
            let buffer = &mut buffer;
            outcome = py.detach(move || {
                let mut rows: Vec<&mut [S]> =
                    buffer.chunks_mut(frames.max(1)).map(|row| &mut row[start..end]).collect();
                engine.render(&mut rows)
            });
            blocks.adapt((end - start) as u64, began.elapsed().as_secs_f64());
            start = end;
            py.check_signals()?;
        }
        let array = Array2::from_shape_vec((channels, frames), buffer).expect("channels x frames samples");
        let array = array.into_pyarray(py).into_any();
        match outcome {
            Ok(()) => Ok(array),
            Err(error) => Err(run_error(py, &error, array)),
        }
    }
}

#[pymethods]
impl Simulation {
    /// Runs `seconds` of simulated time (or `steps` steps; default: the file's `[run]` length)
    /// and returns a `Trajectory`: a row at the start (on the first run), every `every` steps
    /// and at the end, with times (s), positions (m), velocities (m/s), energies (J, with
    /// `energy=True`) and the pickups at each row. Observers need every state, so the general
    /// path runs. An instability raises `InstabilityError` with the rows before it as
    /// `partial`.
    #[pyo3(signature = (seconds = None, steps = None, every = 1, energy = true))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        seconds: Option<f64>,
        steps: Option<u64>,
        every: u64,
        energy: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        // The argument that gave the length, named by its errors (the file's field without one).
        let (argument, length) = match (seconds, steps) {
            (Some(s), None) => {
                let length =
                    RunLength::duration(s).map_err(|e| model_rule("run", "seconds", e.expected, e.found))?;
                (Some("seconds"), length)
            }
            (None, Some(n)) => (Some("steps"), RunLength::Steps(n)),
            (None, None) => (
                None,
                self.length.ok_or_else(|| model_rule("run", "seconds", "seconds or steps", "neither"))?,
            ),
            (Some(_), Some(_)) => {
                return Err(model_rule("run", "steps", "seconds or steps, not both", "both"))
            }
        };
        if every == 0 {
            return Err(model_rule("run", "every", "a step count >= 1", 0));
        }
        if self.engine().device().is_some() {
            return Err(HookeError::new_err(
                "run() records the state after every step, which only the CPU's general path \
                 shows: on device=\"gpu\" use render() or advance(), or simulate on the CPU",
            ));
        }
        let total = length
            .step_count(self.engine().dt())
            .map_err(|e| model_rule("run", argument.unwrap_or(e.field), e.expected, e.found))?;
        let rows = total / every + 2;
        let row_bytes = self.row_bytes(energy);
        let asked = format!("{total} steps recorded every {every}: {rows} rows x {row_bytes} bytes");
        let remedy = "a larger `every`, or the run in parts";
        check_output("run", argument.unwrap_or("every"), &asked, rows as u128 * row_bytes as u128, remedy)?;
        let rows = rows as usize;
        let last_step = self.engine().step() + total;
        let pickups = self.pickups.clone();
        let mut recorder = Recorder::new(self.engine().system(), pickups, every, last_step, energy, rows);
        let mut output = vec![Vec::new(); self.engine().channels()];
        let mut blocks = Blocks::new();
        let end = self.engine().step() + total;
        let mut outcome = Ok(0);
        while outcome.is_ok() && (self.engine().step() < end || recorder.steps.is_empty()) {
            let block = blocks.size.min(end - self.engine().step());
            let began = Instant::now();
            let (engine, recorder, output) = (self.engine_mut(), &mut recorder, &mut output);
            outcome = py.detach(move || {
                let result = engine.run(block, output, &mut [recorder]);
                output.iter_mut().for_each(Vec::clear);
                result
            });
            blocks.adapt(block.max(1), began.elapsed().as_secs_f64());
            py.check_signals()?;
            if total == 0 {
                break;
            }
        }
        let trajectory = {
            let engine = self.engine();
            recorder.into_trajectory(py, engine.scheme().name(), engine.dt(), &self.mass_ids)?
        };
        match outcome {
            Ok(_) => Ok(trajectory),
            Err(error) => Err(run_error(py, &error, trajectory)),
        }
    }

    /// Renders exactly `frames` frames at the output rate and returns them as an array of shape
    /// (channels, frames), `dtype` 'float32' (the default) or 'float64', in the pickups' units
    /// (m or m/s times their weights). Blocks follow one another seamlessly.
    #[pyo3(signature = (frames, dtype = "float32"))]
    fn render<'py>(&mut self, py: Python<'py>, frames: usize, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
        match dtype {
            "float32" => self.render_blocks::<f32>(py, frames),
            "float64" => self.render_blocks::<f64>(py, frames),
            other => Err(model_rule("render", "dtype", "'float32' or 'float64'", other)),
        }
    }

    /// Takes `steps` simulation steps and returns the output frames they complete, float64 of
    /// shape (channels, frames).
    fn advance<'py>(&mut self, py: Python<'py>, steps: u64) -> PyResult<Bound<'py, PyAny>> {
        let steps = RunLength::Steps(steps)
            .step_count(self.dt())
            .map_err(|e| model_rule("advance", "steps", e.expected, e.found))?;
        let (channels, oversample) = {
            let engine = self.engine();
            (engine.channels(), engine.config().oversample)
        };
        // At most one frame for each `oversample` steps, and one the decimator owed.
        let frames = steps.div_ceil(oversample as u64) + 1;
        let asked = format!(
            "{steps} steps at {oversample} a frame: {frames} frames x {channels} channel(s) x 8 bytes"
        );
        let bytes = frames as u128 * channels as u128 * 8;
        check_output("advance", "steps", &asked, bytes, "advance in parts")?;
        frames_in_blocks(py, self.engine_mut(), channels, steps, |engine, block, output| {
            engine.advance(block, output)
        })
    }

    /// The last output frames owed by the decimator's look-ahead (the end of an offline
    /// render with oversampling), float64 of shape (channels, frames).
    fn flush<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut output = vec![Vec::new(); self.engine().channels()];
        let outcome = self.engine_mut().flush(&mut output);
        let frames = channels_array(py, output);
        outcome.map(|()| frames.clone()).map_err(|error| run_error(py, &error, frames))
    }

    /// The pickups' values now, one per channel.
    fn sample<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let mut output = vec![Vec::new(); self.engine().channels()];
        self.engine().sample(&mut output);
        output.into_iter().flatten().collect::<Vec<f64>>().into_pyarray(py)
    }

    /// The state now: `step`, `time` (s), and the masses' `positions` (m) and `velocities`
    /// (m/s), arrays of shape (masses, dimension).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let state = self.engine().state();
        let (masses, dimension) = (self.mass_ids.len(), self.engine().system().dimension());
        let n = masses * dimension;
        let shaped = |values: &[f64]| {
            Array2::from_shape_vec((masses, dimension), values[..n].to_vec())
                .expect("masses x dimension")
                .into_pyarray(py)
        };
        let dict = PyDict::new(py);
        dict.set_item("step", state.step)?;
        dict.set_item("time", state.t)?;
        dict.set_item("positions", shaped(&state.x))?;
        dict.set_item("velocities", shaped(&state.v))?;
        Ok(dict)
    }

    /// What the scheme does to each mode of the system as it is now (after the changes made),
    /// at the simulation's step: an `Analysis`.
    fn analyze<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let engine = self.engine_mut();
        let report = py
            .detach(move || engine.analyse(&AnalysisOptions::default()))
            .map_err(|e| analysis_error(py, &e))?;
        analysis_result(py, &report)
    }

    /// Sets masses' positions (m) along `axis`, at rest: `shape` maps mass ids to positions.
    /// Now, or at time `at` (s).
    #[pyo3(signature = (shape, axis = 0, at = None))]
    fn set_shape(
        &mut self,
        py: Python<'_>,
        shape: HashMap<String, f64>,
        axis: usize,
        at: Option<f64>,
    ) -> PyResult<()> {
        let values = shape
            .iter()
            .map(|(id, &x)| {
                let expected = "the ids of masses (not anchors) of the model";
                self.mass(id).map_err(|_| model_rule("set_shape", "shape", expected, id))?;
                let coordinate = self.coordinate(id, axis)?;
                check_number("set_shape", "shape", x, true, &format!("a finite position (m) for {id}"))?;
                Ok((coordinate, x))
            })
            .collect::<PyResult<Vec<_>>>()?;
        self.send(py, Event::Shape(values), at)
    }

    /// Sets the position (m) and velocity (m/s) of `mass` along `axis`.
    #[pyo3(signature = (mass, position, velocity = 0.0, axis = 0, at = None))]
    fn set_motion(
        &mut self,
        py: Python<'_>,
        mass: &str,
        position: f64,
        velocity: f64,
        axis: usize,
        at: Option<f64>,
    ) -> PyResult<()> {
        let coordinate = self.coordinate(mass, axis)?;
        self.send(py, Event::Motion { coordinate, position, velocity }, at)
    }

    /// Plucks `mass` with a force pulse `peak (1 - cos(2 pi t / duration)) / 2` N along `axis`
    /// for `duration` s.
    #[pyo3(signature = (mass, peak, duration = 1e-3, axis = 0, at = None))]
    fn pluck(
        &mut self,
        py: Python<'_>,
        mass: &str,
        peak: f64,
        duration: f64,
        axis: usize,
        at: Option<f64>,
    ) -> PyResult<()> {
        check_number("pluck", "peak", peak, true, "a finite force (N)")?;
        check_number("pluck", "duration", duration, duration > 0.0, "a duration > 0 s")?;
        let coordinate = self.coordinate(mass, axis)?;
        self.send(py, Event::Excite(Excitation::Pulse(Pulse { coordinate, peak, duration })), at)
    }

    /// Strikes `mass` with a hammer of `hammer_mass` kg thrown at `velocity` m/s through a felt
    /// of `stiffness` N/m^exponent (Hertz's law).
    #[pyo3(signature = (mass, velocity, hammer_mass = 0.01, stiffness = 1e8, exponent = 2.5, axis = 0, at = None))]
    fn strike(
        &mut self,
        py: Python<'_>,
        mass: &str,
        velocity: f64,
        hammer_mass: f64,
        stiffness: f64,
        exponent: f64,
        axis: usize,
        at: Option<f64>,
    ) -> PyResult<()> {
        check_number("strike", "velocity", velocity, true, "a finite velocity (m/s)")?;
        check_number("strike", "hammer_mass", hammer_mass, hammer_mass > 0.0, "a mass > 0 kg")?;
        check_number("strike", "stiffness", stiffness, stiffness >= 0.0, "a stiffness >= 0 (N/m^exponent)")?;
        check_number("strike", "exponent", exponent, exponent >= 1.0, "an exponent >= 1")?;
        let coordinate = self.coordinate(mass, axis)?;
        let hammer = Hammer { coordinate, mass: hammer_mass, stiffness, exponent, velocity };
        self.send(py, Event::Excite(Excitation::Strike(hammer)), at)
    }

    /// Bows `mass` at `velocity` m/s pressed with `force` N for `duration` s (friction curve of
    /// sharpness `sharpness` s^2/m^2).
    #[pyo3(signature = (mass, velocity, force, duration, sharpness = 100.0, axis = 0, at = None))]
    fn bow(
        &mut self,
        py: Python<'_>,
        mass: &str,
        velocity: f64,
        force: f64,
        duration: f64,
        sharpness: f64,
        axis: usize,
        at: Option<f64>,
    ) -> PyResult<()> {
        check_number("bow", "velocity", velocity, true, "a finite velocity (m/s)")?;
        check_number("bow", "force", force, force >= 0.0, "a force >= 0 N")?;
        check_number("bow", "duration", duration, duration > 0.0, "a duration > 0 s")?;
        check_number("bow", "sharpness", sharpness, sharpness > 0.0, "a sharpness > 0 (s^2/m^2)")?;
        let coordinate = self.coordinate(mass, axis)?;
        let bow = Bow { coordinate, velocity, force, sharpness, duration };
        self.send(py, Event::Excite(Excitation::Bow(bow)), at)
    }

    /// Sets the spring (N/m) and damper (N s/m) between nodes `a` and `b`; a value not given
    /// keeps the current one. A link built without damping has no damper to set (nor one built
    /// without stiffness a spring): give it a little in the model.
    #[pyo3(signature = (a, b, stiffness = None, damping = None, at = None))]
    fn set_link(
        &mut self,
        py: Python<'_>,
        a: &str,
        b: &str,
        stiffness: Option<f64>,
        damping: Option<f64>,
        at: Option<f64>,
    ) -> PyResult<()> {
        let (a, b) = (self.node(a)?, self.node(b)?);
        let system = self.engine_mut().system();
        let spring = system.spring_between(a, b);
        let damper = system.damper_between(a, b);
        if spring.is_none() && damper.is_none() {
            return Err(model_rule("set_link", "b", "two nodes joined by a spring or a damper", "no link"));
        }
        // A link is compiled as a spring only where its stiffness was > 0 and as a damper only
        // where its damping was: the other cannot be added while running.
        if spring.is_none() && stiffness.is_some_and(|k| k != 0.0) {
            return Err(model_rule(
                "set_link",
                "stiffness",
                "0 (the link has no spring)",
                stiffness.unwrap_or(0.0),
            ));
        }
        if damper.is_none() && damping.is_some_and(|z| z != 0.0) {
            return Err(model_rule(
                "set_link",
                "damping",
                "0 (the link has no damper)",
                damping.unwrap_or(0.0),
            ));
        }
        let stiffness = stiffness.or(spring.map(|s| system.springs().coefficient[s])).unwrap_or(0.0);
        let damping = damping.or(damper.map(|d| system.dampers().coefficient[d])).unwrap_or(0.0);
        self.send(py, Event::Link { a, b, stiffness, damping }, at)
    }

    /// Sets the mass of `mass`, kg.
    #[pyo3(signature = (mass, kilograms, at = None))]
    fn set_mass(&mut self, py: Python<'_>, mass: &str, kilograms: f64, at: Option<f64>) -> PyResult<()> {
        let mass = self.mass(mass)?;
        self.send(py, Event::Mass { mass, kilograms }, at)
    }

    /// Sets the drag coefficient of `mass`, N s/m (a force -drag v on each coordinate).
    #[pyo3(signature = (mass, drag, at = None))]
    fn set_drag(&mut self, py: Python<'_>, mass: &str, drag: f64, at: Option<f64>) -> PyResult<()> {
        let mass = self.mass(mass)?;
        self.send(py, Event::Drag { mass, drag }, at)
    }

    /// Stops `mass` where it is (velocity 0 from now on), or frees it with `stopped=False`.
    #[pyo3(signature = (mass, stopped = true, at = None))]
    fn stop(&mut self, py: Python<'_>, mass: &str, stopped: bool, at: Option<f64>) -> PyResult<()> {
        let mass = self.mass(mass)?;
        self.send(py, Event::Stop { mass, stopped }, at)
    }

    /// The steps taken.
    #[getter]
    fn step(&self) -> u64 {
        self.engine().step()
    }

    /// The simulated time now, s.
    #[getter]
    fn time(&self) -> f64 {
        self.engine().state().t
    }

    /// The simulation step, s.
    #[getter]
    fn dt(&self) -> f64 {
        self.engine().dt()
    }

    /// The simulation rate, Hz.
    #[getter]
    fn rate(&self) -> f64 {
        self.engine().config().step.hertz()
    }

    /// The output frame rate, Hz (the rate divided by the oversampling).
    #[getter]
    fn output_rate(&self) -> f64 {
        self.engine().config().output_rate()
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.engine().scheme().name()
    }

    /// The path running now: 'general', 'chain kernel', 'membrane kernel', 'string kernel',
    /// 'modal kernel' or 'device' (the GPU).
    #[getter]
    fn path(&self) -> &'static str {
        self.engine().path().name()
    }

    /// The number of output channels.
    #[getter]
    fn channels(&self) -> usize {
        self.engine().channels()
    }

    /// The masses' ids, in the order of the arrays.
    #[getter]
    fn mass_ids(&self) -> Vec<String> {
        self.mass_ids.clone()
    }

    fn __repr__(&self) -> String {
        // The engine locked once: a second lock in the same statement would wait for the first.
        let engine = self.engine();
        format!(
            "<hooke.Simulation: {} at {} Hz, {} masses, step {}, {} path>",
            engine.scheme(),
            engine.config().step.hertz(),
            self.mass_ids.len(),
            engine.step(),
            engine.path().name()
        )
    }
}
