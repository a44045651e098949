//! Runs a model with a scheme and records what the plots need: positions and momenta of chosen
//! coordinates, the total energy and the conserved quantity K of Chatziioannou 2019, at every
//! `every`-th step.

use crate::error::PlotError;
use hooke::analysis::energy::energy;
use hooke::analysis::invariants::BalanceMonitor;
use hooke::engine::{Engine, EngineConfig, Observer, Pickups};
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};

/// What to record from a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// State coordinates (`mass * dimension + axis`) whose position and momentum to keep.
    pub coordinates: Vec<usize>,
    /// Keep one sample every this many steps (step 0 and the last step are always kept).
    pub every: u64,
    /// Whether to follow K (Chatziioannou 2019, eqs. (18), (54)), which costs an energy evaluation
    /// per step.
    pub balance: bool,
}

/// One coordinate of the state, named.
#[derive(Debug, Clone, PartialEq)]
pub struct Coordinate {
    /// Index in the state vectors: `mass * dimension + axis`.
    pub index: usize,
    /// The mass's id, with `.x`, `.y` or `.z` in 2D and 3D (e.g. `bob.y`).
    pub name: String,
    /// The mass, kg (momentum = mass x velocity).
    pub mass: f64,
}

/// Finds the coordinate `spec` names: a mass id (its first axis), or `ID.x`, `ID.y`, `ID.z`.
pub fn coordinate(system: &System, spec: &str) -> Result<Coordinate, PlotError> {
    let dimension = system.dimension();
    let ids = &system.node_ids()[..system.mass_count()];
    let named = |id: &str, axis: usize| {
        ids.iter().position(|m| m == id).filter(|_| axis < dimension).map(|mass| {
            let name = if dimension == 1 { id.to_string() } else { format!("{id}.{}", AXES[axis]) };
            Coordinate { index: mass * dimension + axis, name, mass: system.masses()[mass] }
        })
    };
    let with_axis = spec.rsplit_once('.').and_then(|(id, axis)| {
        let axis = AXES.iter().position(|a| *a == axis)?;
        named(id, axis)
    });
    named(spec, 0).or(with_axis).ok_or_else(|| {
        let mut expected: Vec<&str> = ids.iter().take(6).map(String::as_str).collect();
        if ids.len() > 6 {
            expected.push("...");
        }
        PlotError::UnknownMass { found: spec.to_string(), expected: expected.join(", ") }
    })
}

const AXES: [&str; 3] = ["x", "y", "z"];

/// What a run recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// The scheme.
    pub scheme: SchemeKind,
    /// The step, s.
    pub dt: f64,
    /// The time of each sample, s.
    pub times: Vec<f64>,
    /// Positions, m: one row of `request.coordinates.len()` values per sample.
    pub positions: Vec<f64>,
    /// Momenta `m v`, kg m/s, laid out as `positions`.
    pub momenta: Vec<f64>,
    /// Total mechanical energy of each sample, J.
    pub energy: Vec<f64>,
    /// K of each sample (from step 1 on; `None` at step 0 or without `request.balance`), J.
    pub balance: Vec<Option<f64>>,
    /// Why the run stopped early, if it did (the samples before are kept).
    pub stopped: Option<String>,
    width: usize,
}

impl Recording {
    /// The `(t, position)` series of the `k`-th requested coordinate.
    pub fn position_series(&self, k: usize) -> Vec<(f64, f64)> {
        self.times.iter().zip(self.positions.chunks_exact(self.width)).map(|(&t, row)| (t, row[k])).collect()
    }

    /// The `(position, momentum)` series of the `k`-th requested coordinate.
    pub fn phase_series(&self, k: usize) -> Vec<(f64, f64)> {
        self.positions
            .chunks_exact(self.width)
            .zip(self.momenta.chunks_exact(self.width))
            .map(|(x, p)| (x[k], p[k]))
            .collect()
    }

    /// The positions of every requested coordinate at sample `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.positions[i * self.width..(i + 1) * self.width]
    }

    /// The number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

/// The observer behind [`simulate`].
struct Recorder<'a> {
    request: &'a Request,
    last_step: u64,
    monitor: BalanceMonitor,
    recording: Recording,
}

impl Observer for Recorder<'_> {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        if self.request.balance {
            self.monitor.observe(system, state)?;
        }
        if !state.step.is_multiple_of(self.request.every.max(1)) && state.step != self.last_step {
            return Ok(());
        }
        let r = &mut self.recording;
        r.times.push(state.t);
        for &c in &self.request.coordinates {
            r.positions.push(state.x[c]);
            r.momenta.push(state.v[c] / system.inverse_mass()[c]);
        }
        r.energy.push(energy(system, state).total());
        r.balance.push(if state.step == 0 { None } else { self.monitor.last() });
        Ok(())
    }
}

/// Runs `system` for `steps` steps of `dt` s with `scheme` and records what `request` asks. A run
/// that becomes unstable keeps the samples before (with [`Recording::stopped`] saying why); one
/// that stops before its first step is an error.
pub fn simulate(
    system: &System,
    scheme: SchemeKind,
    dt: f64,
    steps: u64,
    request: &Request,
) -> Result<Recording, PlotError> {
    let samples = (steps / request.every.max(1) + 2) as usize;
    let width = request.coordinates.len();
    let mut recorder = Recorder {
        request,
        last_step: steps,
        monitor: BalanceMonitor::new(),
        recording: Recording {
            scheme,
            dt,
            times: Vec::with_capacity(samples),
            positions: Vec::with_capacity(samples * width),
            momenta: Vec::with_capacity(samples * width),
            energy: Vec::with_capacity(samples),
            balance: Vec::with_capacity(samples),
            stopped: None,
            width,
        },
    };
    let config = EngineConfig::default().scheme(scheme).dt(dt);
    let mut engine = Engine::from_system(system.clone(), Pickups::default(), config)
        .map_err(|e| PlotError::Unsuitable(e.to_string()))?;
    let outcome = engine.run(steps, &mut [], &mut [&mut recorder]);
    let mut recording = recorder.recording;
    if let Err(source) = outcome {
        if recording.len() < 2 {
            return Err(PlotError::Run { scheme, source });
        }
        recording.stopped = Some(format!("{scheme}: {source}"));
    }
    Ok(recording)
}
