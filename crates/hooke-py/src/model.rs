//! `hooke._hooke.Model`: a [`Model`] built in code or read from a model file, with its pickups
//! and run settings. Every element goes through the library's validating `add_*` methods.

use crate::analysis::analysis_result;
use crate::errors::{analysis_error, model_error, source_error};
use crate::model_rule;
use crate::run_setup::{quantity_named, vector};
use crate::simulation::Simulation;
use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::engine::{EngineConfig, PartialRunSettings, PickupSpec, Pickups, RunLength, StepSize};
use hooke::model::{
    Anchor, Angle, BarrierSpec, Bending, ChainSpec, CollisionSpec, Damper, ForceSpec, Initial, Mass,
    MassSelection, MembraneSpec, Model as LibraryModel, Node, NodeRef, Samples, Signal, Sinusoid, Spring,
    StringSpec,
};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::Path;

/// A network of masses, anchors, springs, dampers, contacts and driving forces, in 1, 2 or 3
/// dimensions, with SI units throughout. Nodes are named by id (str).
#[pyclass(module = "hooke._hooke", subclass)]
pub struct Model {
    pub(crate) model: LibraryModel,
    /// Pickups added in code (they replace the file's when any is given).
    pub(crate) pickups: Vec<PickupSpec>,
    /// The file's pickups, resolved (one channel summing every mass when the file names none).
    pub(crate) file_pickups: Option<Pickups>,
    /// The file's `[run]` settings.
    pub(crate) run: PartialRunSettings,
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
}

impl Model {
    /// The ids of `nodes`.
    fn ids(&self, nodes: &[Node]) -> Vec<String> {
        nodes.iter().map(|&node| self.model.node_id(node).to_string()).collect()
    }
}

#[pymethods]
impl Model {
    /// An empty model in `dimension` (1, 2 or 3) with no gravity. In 1D positions are
    /// displacements from equilibrium (m); in 2D and 3D points in space (m).
    #[new]
    #[pyo3(signature = (dimension = 1))]
    fn new(py: Python<'_>, dimension: usize) -> PyResult<Self> {
        Ok(Self {
            model: LibraryModel::new(dimension).map_err(|e| model_error(py, &e))?,
            pickups: Vec::new(),
            file_pickups: None,
            run: PartialRunSettings::default(),
            name: None,
            description: None,
        })
    }

    /// Replaces this model by the model file at `path` (TOML, docs/model-format.md), with its
    /// pickups, `[run]` settings, name and description. Errors are `ModelError`s with the file,
    /// line and column.
    fn _load_file(&mut self, py: Python<'_>, path: &str) -> PyResult<()> {
        let file = hooke::format::model::load(Path::new(path)).map_err(|e| source_error(py, &e))?;
        *self = Self {
            model: file.model,
            pickups: Vec::new(),
            file_pickups: Some(file.pickups),
            run: file.run,
            name: file.name,
            description: file.description,
        };
        Ok(())
    }

    /// Adds a point mass of `mass` kg at `position` (m, one entry per dimension; 1D default 0)
    /// with `velocity` (m/s) and drag to ground `drag` (1/s: a force -drag m v). Returns its id.
    #[pyo3(signature = (id, mass, position = None, velocity = None, drag = 0.0))]
    fn add_mass(
        &mut self,
        py: Python<'_>,
        id: String,
        mass: f64,
        position: Option<Vec<f64>>,
        velocity: Option<Vec<f64>>,
        drag: f64,
    ) -> PyResult<String> {
        let spec = Mass::new(id, mass).position(vector(position)).velocity(vector(velocity)).drag(drag);
        let node = self.model.add_mass(spec).map_err(|e| model_error(py, &e))?;
        Ok(self.model.node_id(node).to_string())
    }

    /// Adds a fixed point at `position` (m; 1D default 0). Returns its id.
    #[pyo3(signature = (id, position = None))]
    fn add_anchor(&mut self, py: Python<'_>, id: String, position: Option<Vec<f64>>) -> PyResult<String> {
        let node = self
            .model
            .add_anchor(Anchor::new(id).position(vector(position)))
            .map_err(|e| model_error(py, &e))?;
        Ok(self.model.node_id(node).to_string())
    }

    /// Adds a spring of `stiffness` N/m between nodes `a` and `b`, with a damper of `damping`
    /// N s/m in parallel and rest length `rest_length` m (default: 0 in 1D, the initial
    /// distance in 2D/3D).
    #[pyo3(signature = (a, b, stiffness, damping = 0.0, rest_length = None, id = None))]
    fn add_spring(
        &mut self,
        py: Python<'_>,
        a: String,
        b: String,
        stiffness: f64,
        damping: f64,
        rest_length: Option<f64>,
        id: Option<String>,
    ) -> PyResult<()> {
        let mut spec = Spring::new(a, b, stiffness).damping(damping);
        spec.rest_length = rest_length;
        spec.id = id;
        self.model.add_spring(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds a damper alone of `damping` N s/m between nodes `a` and `b`.
    #[pyo3(signature = (a, b, damping, id = None))]
    fn add_damper(
        &mut self,
        py: Python<'_>,
        a: String,
        b: String,
        damping: f64,
        id: Option<String>,
    ) -> PyResult<()> {
        let mut spec = Damper::new(a, b, damping);
        spec.id = id;
        self.model.add_damper(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds a bending element `stiffness / 2 |sum_i w_i x_i|^2` (N/m) on 3 to 9 nodes, the
    /// weights summing to 0 (default `[1, -2, 1]` on three nodes), its curvature's rate damped by
    /// `damping` N s/m (the force `-damping w_i sum_j w_j v_j`).
    #[pyo3(signature = (nodes, stiffness, weights = None, id = None, damping = 0.0))]
    fn add_bending(
        &mut self,
        py: Python<'_>,
        nodes: Vec<String>,
        stiffness: f64,
        weights: Option<Vec<f64>>,
        id: Option<String>,
        damping: f64,
    ) -> PyResult<()> {
        let nodes = nodes.into_iter().map(Into::into).collect();
        let spec =
            Bending { id, damping, ..Bending::weighted(nodes, weights.unwrap_or_default(), stiffness) };
        self.model.add_bending(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds an angular spring `stiffness / 2 (theta - rest_angle)^2` (2D/3D) at the vertex
    /// `nodes[1]`, theta the angle between the arms to `nodes[0]` and `nodes[2]`: `stiffness` in
    /// N m/rad, `rest_angle` in rad, in (0, pi] (default: the angle of the initial positions).
    #[pyo3(signature = (nodes, stiffness, rest_angle = None, id = None))]
    fn add_angle(
        &mut self,
        py: Python<'_>,
        nodes: Vec<String>,
        stiffness: f64,
        rest_angle: Option<f64>,
        id: Option<String>,
    ) -> PyResult<()> {
        let spec = Angle { id, nodes: nodes.into_iter().map(Into::into).collect(), stiffness, rest_angle };
        self.model.add_angle(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds a string (1D) of `masses` masses between anchors `ID.0` and `ID.{N+1}`, given lumped
    /// (`mass` kg, `stiffness` N/m, `damping` N s/m) or physical (`length` m, `tension` N,
    /// `linear_density` kg/m, `decay_time` s of the lowest mode); `drag` 1/s per mass; `pluck`
    /// = (position as a fraction of the length, amplitude m). Stiff: one of `bending` (kappa,
    /// N/m), `inharmonicity` (B) or `young_modulus` (Pa) with `diameter` (m). Returns the mass ids.
    #[pyo3(signature = (id, masses, *, mass = None, stiffness = None, damping = None, length = None,
        tension = None, linear_density = None, decay_time = None, drag = 0.0, pluck = None, bending = None,
        inharmonicity = None, young_modulus = None, diameter = None))]
    fn add_string(
        &mut self,
        py: Python<'_>,
        id: String,
        masses: usize,
        mass: Option<f64>,
        stiffness: Option<f64>,
        damping: Option<f64>,
        length: Option<f64>,
        tension: Option<f64>,
        linear_density: Option<f64>,
        decay_time: Option<f64>,
        drag: f64,
        pluck: Option<(f64, f64)>,
        bending: Option<f64>,
        inharmonicity: Option<f64>,
        young_modulus: Option<f64>,
        diameter: Option<f64>,
    ) -> PyResult<Vec<String>> {
        let mut spec = StringSpec {
            bending,
            inharmonicity,
            young_modulus,
            diameter,
            mass,
            stiffness,
            damping,
            length,
            tension,
            linear_density,
            decay_time,
            drag,
            ..StringSpec::new(id, masses)
        };
        if let Some((position, amplitude)) = pluck {
            spec = spec.pluck(position, amplitude);
        }
        let nodes = self.model.add_string(spec).map_err(|e| model_error(py, &e))?;
        Ok(self.ids(&nodes))
    }

    /// Adds a membrane or mesh of `columns` x `rows` masses with a rim of anchors, given lumped
    /// (`mass` kg, `stiffness` N/m, `damping` N s/m; in 2D/3D `spacing` m and `origin` m) or, in
    /// 1D, physical (`width` m, `height` m, `tension` N/m, `surface_density` kg/m^2,
    /// `decay_time` s); `drag` 1/s per mass. Returns the mass ids row by row.
    #[pyo3(signature = (id, columns, rows, *, mass = None, stiffness = None, damping = None, spacing = None,
        origin = None, width = None, height = None, tension = None, surface_density = None,
        decay_time = None, drag = 0.0))]
    fn add_membrane(
        &mut self,
        py: Python<'_>,
        id: String,
        columns: usize,
        rows: usize,
        mass: Option<f64>,
        stiffness: Option<f64>,
        damping: Option<f64>,
        spacing: Option<f64>,
        origin: Option<Vec<f64>>,
        width: Option<f64>,
        height: Option<f64>,
        tension: Option<f64>,
        surface_density: Option<f64>,
        decay_time: Option<f64>,
        drag: f64,
    ) -> PyResult<Vec<String>> {
        let spec = MembraneSpec {
            mass,
            stiffness,
            damping,
            spacing,
            origin: vector(origin),
            width,
            height,
            tension,
            surface_density,
            decay_time,
            drag,
            ..MembraneSpec::new(id, columns, rows)
        };
        let nodes = self.model.add_membrane(spec).map_err(|e| model_error(py, &e))?;
        Ok(self.ids(&nodes))
    }

    /// Adds the generator `kind` ("bar", "plate" or "body") with the fields of its model-file
    /// table (`[[bar]]`, ...) given as a dict; returns the mass ids. `Model.add_bar`,
    /// `add_plate` and `add_body` call it.
    fn _add_generated(
        &mut self,
        py: Python<'_>,
        kind: &str,
        fields: &Bound<'_, PyDict>,
    ) -> PyResult<Vec<String>> {
        let nodes = crate::generators::add_generated(py, &mut self.model, kind, fields)?;
        Ok(self.ids(&nodes))
    }

    /// Adds a chain of `masses` masses of `mass` kg hanging from node `start` along `direction`,
    /// linked by springs of `stiffness` N/m, rest length `link_length` m and damping `damping`
    /// N s/m; the last is tied to node `end` if given. Returns the mass ids.
    #[pyo3(signature = (id, start, masses, link_length, direction, mass, stiffness, damping = 0.0, end = None))]
    fn add_chain(
        &mut self,
        py: Python<'_>,
        id: String,
        start: String,
        masses: usize,
        link_length: f64,
        direction: Vec<f64>,
        mass: f64,
        stiffness: f64,
        damping: f64,
        end: Option<String>,
    ) -> PyResult<Vec<String>> {
        let mut spec =
            ChainSpec::new(id, start, masses, link_length, direction, mass, stiffness).damping(damping);
        spec.to = end.map(NodeRef::from);
        let nodes = self.model.add_chain(spec).map_err(|e| model_error(py, &e))?;
        Ok(self.ids(&nodes))
    }

    /// Adds a rigid barrier through `position` (m) with the free side along `normal`, pushing
    /// `masses` (a list of ids, or a prefix pattern such as "s.*") out by Hertz's law with
    /// `stiffness` N/m^exponent.
    #[pyo3(signature = (masses, position, normal, stiffness, exponent = 1.5, id = None))]
    fn add_barrier(
        &mut self,
        py: Python<'_>,
        masses: &Bound<'_, PyAny>,
        position: Vec<f64>,
        normal: Vec<f64>,
        stiffness: f64,
        exponent: f64,
        id: Option<String>,
    ) -> PyResult<()> {
        let selection = match masses.extract::<String>() {
            Ok(pattern) => match pattern.strip_suffix('*') {
                Some(prefix) => MassSelection::Prefix(prefix.to_string()),
                None => MassSelection::Masses(vec![NodeRef::from(pattern)]),
            },
            Err(_) => MassSelection::from(masses.extract::<Vec<String>>()?),
        };
        let mut spec = BarrierSpec::new(selection, position, normal, stiffness, exponent);
        spec.id = id;
        self.model.add_barrier(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds a Hertz contact between masses `a` and `b` closer than `distance` m, with
    /// `stiffness` N/m^exponent.
    #[pyo3(signature = (a, b, distance, stiffness, exponent = 1.5, id = None))]
    fn add_collision(
        &mut self,
        py: Python<'_>,
        a: String,
        b: String,
        distance: f64,
        stiffness: f64,
        exponent: f64,
        id: Option<String>,
    ) -> PyResult<()> {
        let mut spec = CollisionSpec::new(a, b, distance, stiffness, exponent);
        spec.id = id;
        self.model.add_collision(spec).map_err(|e| model_error(py, &e))
    }

    /// Adds a driving force on axis `axis` of `mass`: a `constant` (N), a sum of `sinusoids`
    /// ((amplitude N, frequency Hz[, phase rad]) each), or recorded `samples` at `rate` Hz
    /// scaled by `gain` (N at full scale 1). Give exactly one.
    #[pyo3(signature = (mass, *, constant = None, sinusoids = None, samples = None, rate = None, gain = 1.0, axis = 0))]
    fn add_force(
        &mut self,
        py: Python<'_>,
        mass: String,
        constant: Option<f64>,
        sinusoids: Option<Vec<Vec<f64>>>,
        samples: Option<Vec<f64>>,
        rate: Option<f64>,
        gain: f64,
        axis: usize,
    ) -> PyResult<()> {
        let signal = match (constant, sinusoids, samples) {
            (Some(value), None, None) => Signal::Constant(value),
            (None, Some(terms), None) => Signal::Sinusoids(
                terms
                    .iter()
                    .map(|term| match term[..] {
                        [amplitude, frequency] => Ok(Sinusoid::new(amplitude, frequency)),
                        [amplitude, frequency, phase] => Ok(Sinusoid::new(amplitude, frequency).phase(phase)),
                        _ => Err(model_rule(
                            "force",
                            "sinusoids",
                            "(amplitude, frequency[, phase])",
                            term.len(),
                        )),
                    })
                    .collect::<PyResult<_>>()?,
            ),
            (None, None, Some(values)) => {
                let rate =
                    rate.ok_or_else(|| model_rule("force", "rate", "a sample rate in Hz", "nothing"))?;
                Signal::Samples(Samples { rate, gain, values })
            }
            _ => {
                return Err(model_rule("force", "signal", "one of constant, sinusoids or samples", "another"))
            }
        };
        self.model.add_force(ForceSpec::new(mass, signal).axis(axis)).map_err(|e| model_error(py, &e))
    }

    /// Sets gravity, m/s^2, one entry per dimension (applied once per mass as m g).
    fn set_gravity(&mut self, py: Python<'_>, gravity: Vec<f64>) -> PyResult<()> {
        self.model.set_gravity(&gravity).map_err(|e| model_error(py, &e))
    }

    /// Changes the initial condition of `mass`: `position` (m) or `displacement` (m, added to
    /// the position it has), and `velocity` (m/s).
    #[pyo3(signature = (mass, *, position = None, displacement = None, velocity = None))]
    fn set_initial(
        &mut self,
        py: Python<'_>,
        mass: String,
        position: Option<Vec<f64>>,
        displacement: Option<Vec<f64>>,
        velocity: Option<Vec<f64>>,
    ) -> PyResult<()> {
        let initial = Initial::new(mass)
            .position(vector(position))
            .displacement(vector(displacement))
            .velocity(vector(velocity));
        self.model.set_initial(initial).map_err(|e| model_error(py, &e))
    }

    /// Adds a pickup: output channel `channel` (1-based) sums `weight` times the `quantity`
    /// ('position', m, or 'velocity', m/s) of `mass` along `axis` (0 = x). Pickups added in code
    /// replace the file's.
    #[pyo3(signature = (mass, quantity = "position", axis = 0, weight = 1.0, channel = 1))]
    fn add_pickup(
        &mut self,
        py: Python<'_>,
        mass: String,
        quantity: &str,
        axis: usize,
        weight: f64,
        channel: usize,
    ) -> PyResult<()> {
        let mut spec = PickupSpec::position(mass).axis(axis).weight(weight).channel(channel);
        spec.quantity = quantity_named(quantity)?;
        let mut specs = self.pickups.clone();
        specs.push(spec);
        // Checked now, so that the error points at this call.
        Pickups::new(&specs, &self.model).map_err(|e| crate::errors::engine_error(py, &e.into()))?;
        self.pickups = specs;
        Ok(())
    }

    /// Number of coordinates per position: 1, 2 or 3.
    #[getter]
    fn dimension(&self) -> usize {
        self.model.dimension()
    }

    /// Gravity, m/s^2, one entry per dimension.
    #[getter]
    fn gravity(&self) -> Vec<f64> {
        self.model.gravity().to_vec()
    }

    /// The masses' ids, in model order (the order of the arrays of a run).
    #[getter]
    fn mass_ids(&self) -> Vec<String> {
        self.model.masses().iter().map(|m| m.id.clone()).collect()
    }

    /// The anchors' ids.
    #[getter]
    fn anchor_ids(&self) -> Vec<String> {
        self.model.anchors().iter().map(|a| a.id.clone()).collect()
    }

    /// Each mass, kg.
    #[getter]
    fn masses(&self) -> Vec<f64> {
        self.model.masses().iter().map(|m| m.mass).collect()
    }

    /// The masses' initial positions, m: one list of `dimension` entries per mass.
    #[getter]
    fn positions(&self) -> Vec<Vec<f64>> {
        self.model.masses().iter().map(|m| m.position.clone()).collect()
    }

    /// The anchors' positions, m.
    #[getter]
    fn anchor_positions(&self) -> Vec<Vec<f64>> {
        self.model.anchors().iter().map(|a| a.position.clone()).collect()
    }

    /// The links as (a, b, stiffness N/m, damping N s/m, rest length m) with node ids.
    #[getter]
    fn links(&self) -> Vec<(String, String, f64, f64, f64)> {
        let id = |node| self.model.node_id(node).to_string();
        self.model.links().iter().map(|l| (id(l.a), id(l.b), l.stiffness, l.damping, l.rest_length)).collect()
    }

    /// Counts of what the model holds: masses, anchors, links, barriers, collisions, forces.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("masses", self.model.masses().len())?;
        dict.set_item("anchors", self.model.anchors().len())?;
        dict.set_item("links", self.model.links().len())?;
        dict.set_item("barriers", self.model.barriers().len())?;
        dict.set_item("collisions", self.model.collisions().len())?;
        dict.set_item("forces", self.model.external_forces().len())?;
        Ok(dict)
    }

    /// The file's `[model] name`, if any.
    #[getter]
    fn name(&self) -> Option<String> {
        self.name.clone()
    }

    /// The file's `[model] description`, if any.
    #[getter]
    fn description(&self) -> Option<String> {
        self.description.clone()
    }

    /// The file's `[run]` settings: `scheme` (name), `dt` (s), `steps` or `duration` (s); None
    /// where not given.
    #[getter]
    fn run_settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("scheme", self.run.scheme.map(SchemeKind::name))?;
        dict.set_item("dt", self.run.step.map(StepSize::seconds))?;
        dict.set_item(
            "steps",
            self.run.length.and_then(|l| if let RunLength::Steps(n) = l { Some(n) } else { None }),
        )?;
        dict.set_item(
            "duration",
            self.run.length.and_then(|l| if let RunLength::Duration(d) = l { Some(d) } else { None }),
        )?;
        Ok(dict)
    }

    /// A simulation of this model (a copy: later changes to the model do not reach it) with
    /// `scheme` (a name from `hooke.schemes()`), a step given as `rate` (Hz) or `dt` (s), the
    /// `pickups` (mass ids, or dicts with mass, quantity, axis, weight, channel; default: those
    /// added, else the file's, else one channel summing every mass's first coordinate), `oversample` steps per output frame, `threads` for the kernels and
    /// `kernels=False` to force the general path, and `device="gpu"` to run on the GPU
    /// (a uniform string with any linear scheme, a membrane with symplectic Euler; f64 where
    /// the GPU has it, else f32; a wheel built with the `gpu` feature). Defaults: the file's `[run]`, else symplectic Euler at 44 100 Hz, on the CPU.
    #[pyo3(signature = (scheme = None, rate = None, dt = None, pickups = None, oversample = 1, threads = 1, kernels = true, device = "cpu"))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn simulate(
        &self,
        py: Python<'_>,
        scheme: Option<&str>,
        rate: Option<f64>,
        dt: Option<f64>,
        pickups: Option<&Bound<'_, PyList>>,
        oversample: usize,
        threads: usize,
        kernels: bool,
        device: &str,
    ) -> PyResult<Simulation> {
        let config = EngineConfig {
            scheme: self.scheme(scheme)?,
            step: self.step(py, rate, dt)?,
            oversample,
            threads,
            kernels,
            ..EngineConfig::default()
        };
        let pickups = self.resolve_pickups(py, pickups)?;
        let device = crate::device::device(device)?;
        Simulation::new(py, System::new(&self.model), pickups, config, device, self.run.length)
    }

    /// What `scheme` at a step of `dt` s (or `rate` Hz) does to each mode of the model,
    /// linearised about its initial state: an `Analysis` with one entry per mode (frequencies
    /// in Hz, decay rates in 1/s, time constants in s, discrete poles and their regions) and the
    /// largest stable step (s). Defaults as for `simulate`.
    #[pyo3(signature = (scheme = None, dt = None, rate = None))]
    fn analyze<'py>(
        &self,
        py: Python<'py>,
        scheme: Option<&str>,
        dt: Option<f64>,
        rate: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (scheme, dt) = (self.scheme(scheme)?, self.step(py, rate, dt)?.seconds());
        let system = System::new(&self.model);
        let report = py
            .detach(|| analyse(&system, scheme, dt, &AnalysisOptions::default()))
            .map_err(|e| analysis_error(py, &e))?;
        analysis_result(py, &report)
    }

    fn __repr__(&self) -> String {
        let name = self.name.as_deref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
        format!(
            "<hooke.Model{name}: {}D, {} masses, {} anchors, {} links>",
            self.model.dimension(),
            self.model.masses().len(),
            self.model.anchors().len(),
            self.model.links().len()
        )
    }
}
