//! What a simulation of a [`Model`] listens to and steps at: its pickups (given, added in code,
//! or the file's), its step and its scheme; and the pickups and vectors read from Python
//! arguments.

use crate::model::Model;
use crate::{model_rule, step_size};
use hooke::engine::{PickupSpec, Pickups, StepSize};
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

impl Model {
    /// The pickups a simulation listens to: `given` (ids or dicts), else those added in code,
    /// else the file's, else (as a file without pickups) one channel summing every mass's first
    /// coordinate.
    pub(crate) fn resolve_pickups(
        &self,
        py: Python<'_>,
        given: Option<&Bound<'_, PyList>>,
    ) -> PyResult<Pickups> {
        let specs = match given {
            Some(list) => list.iter().map(|item| pickup_spec(&item)).collect::<PyResult<Vec<_>>>()?,
            None => self.pickups.clone(),
        };
        if specs.is_empty() && given.is_none() {
            let all = || Pickups::sum_of_all_masses(&self.model);
            return Ok(self.file_pickups.clone().unwrap_or_else(all));
        }
        Pickups::new(&specs, &self.model).map_err(|e| crate::errors::engine_error(py, &e.into()))
    }

    /// The step: `rate` (Hz) or `dt` (s), else the file's, else 44 100 Hz.
    pub(crate) fn step(&self, py: Python<'_>, rate: Option<f64>, dt: Option<f64>) -> PyResult<StepSize> {
        Ok(step_size(py, rate, dt)?.or(self.run.step).unwrap_or(StepSize::Rate(44_100.0)))
    }

    /// The scheme: `name`, else the file's, else symplectic Euler.
    pub(crate) fn scheme(&self, name: Option<&str>) -> PyResult<SchemeKind> {
        Ok(match name {
            Some(name) => crate::scheme(name)?,
            None => self.run.scheme.unwrap_or(SchemeKind::SymplecticEuler),
        })
    }
}

/// A pickup from a mass id (its position along x) or a dict with `mass` and optional
/// `quantity` ('position' or 'velocity'), `axis` (0, 1, 2), `weight` and `channel` (1-based).
pub(crate) fn pickup_spec(item: &Bound<'_, PyAny>) -> PyResult<PickupSpec> {
    if let Ok(id) = item.extract::<String>() {
        return Ok(PickupSpec::position(id));
    }
    let dict = item.cast::<PyDict>()?;
    let get = |key: &str| dict.get_item(key);
    let mass: String =
        get("mass")?.ok_or_else(|| model_rule("pickup", "mass", "a mass id", "nothing"))?.extract()?;
    let mut spec = PickupSpec::position(mass);
    if let Some(quantity) = get("quantity")? {
        spec.quantity = quantity_named(&quantity.extract::<String>()?)?;
    }
    if let Some(axis) = get("axis")? {
        spec = spec.axis(axis.extract()?);
    }
    if let Some(weight) = get("weight")? {
        spec = spec.weight(weight.extract()?);
    }
    if let Some(channel) = get("channel")? {
        spec = spec.channel(channel.extract()?);
    }
    Ok(spec)
}

/// 'position' or 'velocity'.
pub(crate) fn quantity_named(name: &str) -> PyResult<Quantity> {
    match name {
        "position" => Ok(Quantity::Position),
        "velocity" => Ok(Quantity::Velocity),
        other => Err(model_rule("pickup", "quantity", "\"position\" or \"velocity\"", other)),
    }
}

/// A vector argument: `None` is empty (the element's default).
pub(crate) fn vector(value: Option<Vec<f64>>) -> Vec<f64> {
    value.unwrap_or_default()
}
