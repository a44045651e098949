//! Generators added from a dict of fields (`Model.add_bar`, `add_plate`, `add_body` in Python):
//! the dict is read with serde into the library's spec, as a model file's table is, so every
//! field, default and unknown-field error is the model file's.

use crate::errors::model_error;
use hooke::model::{BarSpec, BodySpec, Model, Node, PlateSpec};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::DeserializeOwned;

/// Adds the generator `kind` (`"bar"`, `"plate"` or `"body"`) with `fields` to `model`; returns
/// the masses it made.
pub(crate) fn add_generated(
    py: Python<'_>,
    model: &mut Model,
    kind: &str,
    fields: &Bound<'_, PyDict>,
) -> PyResult<Vec<Node>> {
    let table = toml_value(fields.as_any())?;
    let added = match kind {
        "bar" => model.add_bar(read::<BarSpec>(kind, table)?),
        "plate" => model.add_plate(&read::<PlateSpec>(kind, table)?),
        "body" => model.add_body(read::<BodySpec>(kind, table)?),
        other => {
            return Err(PyValueError::new_err(format!(
                "expected a generator bar, plate or body; found {other:?}"
            )))
        }
    };
    added.map_err(|e| model_error(py, &e))
}

/// `table` read as `kind`'s spec; a missing, unknown or mistyped field is a `TypeError`, as a
/// wrong keyword argument is in Python.
fn read<T: DeserializeOwned>(kind: &str, table: toml::Value) -> PyResult<T> {
    table.try_into().map_err(|e: toml::de::Error| PyTypeError::new_err(format!("{kind}: {}", e.message())))
}

/// A Python value (bool, int, float, str, list, tuple or dict with str keys) as a TOML value.
fn toml_value(value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    Ok(if value.is_instance_of::<PyBool>() {
        toml::Value::Boolean(value.extract()?)
    } else if value.is_instance_of::<PyInt>() {
        toml::Value::Integer(value.extract()?)
    } else if value.is_instance_of::<PyFloat>() {
        toml::Value::Float(value.extract()?)
    } else if value.is_instance_of::<PyString>() {
        toml::Value::String(value.extract()?)
    } else if let Ok(dict) = value.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (key, item) in dict.iter() {
            table.insert(key.extract()?, toml_value(&item)?);
        }
        toml::Value::Table(table)
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        toml::Value::Array(value.try_iter()?.map(|item| toml_value(&item?)).collect::<PyResult<_>>()?)
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected a number, a string, a list or a dict; found {}",
            value.get_type().name()?
        )));
    })
}
