//! `hooke._hooke`, the Rust core of the Python package `hooke` (crates/hooke-py/python/hooke).
//!
//! A thin layer over the library: models are built through `hooke::model`'s validating
//! methods or read with `hooke::format`, run on `hooke::engine::Engine` (runs with observers for
//! trajectories and energies, `render`/`advance` for frames, `apply`/`schedule` for events),
//! analysed with `hooke::analysis`, and scores played with `hooke::score`. Nothing here steps a
//! system. Arrays go to numpy without copies (a `Vec` moved into the array). Long runs release
//! the GIL in blocks and let Python's signal handlers run between them, so Ctrl-C interrupts.
//!
//! The pure-Python package adds the `Model` subclass that pickles, the result classes
//! (`Trajectory`, `Analysis`), plots, sweeps and notebook display.

// Python functions take their options as keyword arguments, one Rust parameter each.
#![allow(clippy::too_many_arguments)]

mod analysis;
mod device;
mod errors;
mod fit;
mod generators;
mod limits;
mod model;
mod performance;
mod record;
mod run_setup;
mod simulation;

use hooke::engine::StepSize;
use hooke::model::ModelError as LibraryModelError;
use hooke::scheme::SchemeKind;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A `ModelError` for a rule the binding checks (an argument of the wrong kind).
pub(crate) fn model_rule(
    subject: &str,
    field: &'static str,
    expected: impl Into<String>,
    found: impl std::fmt::Display,
) -> PyErr {
    let error = LibraryModelError {
        subject: subject.to_string(),
        field,
        expected: expected.into(),
        found: found.to_string(),
    };
    Python::attach(|py| errors::model_error(py, &error))
}

/// The scheme named `name` (see `hooke.schemes()`).
pub(crate) fn scheme(name: &str) -> PyResult<SchemeKind> {
    name.parse::<SchemeKind>()
        .map_err(|_| model_rule("scheme", "scheme", format!("one of {}", SchemeKind::names()), name))
}

/// A step from `rate` (Hz) or `dt` (s), checked; `None` when neither is given. A value whose
/// reciprocal overflows (a rate of 1e-320 Hz, a step of 1e-320 s) is refused with the others.
pub(crate) fn step_size(py: Python<'_>, rate: Option<f64>, dt: Option<f64>) -> PyResult<Option<StepSize>> {
    let (field, value, step) = match (rate, dt) {
        (Some(hz), None) => ("rate", hz, StepSize::rate(hz)),
        (None, Some(seconds)) => ("dt", seconds, StepSize::dt(seconds)),
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => return Err(model_rule("run", "dt", "a rate or a dt, not both", "both")),
    };
    let step = step.map_err(|e| errors::model_error(py, &e))?;
    if !(step.seconds().is_finite() && step.hertz().is_finite()) {
        return Err(model_rule("run", field, "a value whose reciprocal is finite (above 5.6e-309)", value));
    }
    Ok(Some(step))
}

/// The schemes, in the order they are listed to users: a list of dicts with `name`, `order`
/// (global order without damping), `damped_order`, `symplectic` and `explicit`.
#[pyfunction]
fn schemes(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    SchemeKind::ALL
        .iter()
        .map(|kind| {
            let info = kind.info();
            let dict = PyDict::new(py);
            dict.set_item("name", kind.name())?;
            dict.set_item("order", info.order)?;
            dict.set_item("damped_order", info.damped_order)?;
            dict.set_item("symplectic", info.symplectic)?;
            dict.set_item("explicit", info.explicit)?;
            Ok(dict)
        })
        .collect()
}

#[pymodule]
fn _hooke(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<model::Model>()?;
    module.add_class::<simulation::Simulation>()?;
    module.add_class::<performance::Performance>()?;
    module.add_function(wrap_pyfunction!(schemes, module)?)?;
    module.add_function(wrap_pyfunction!(analysis::design_string, module)?)?;
    module.add_function(wrap_pyfunction!(analysis::warping_curve, module)?)?;
    module.add_function(wrap_pyfunction!(fit::fit, module)?)?;
    module.add_function(wrap_pyfunction!(fit::fit_struck, module)?)?;
    errors::register(module)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
