//! The library's errors as Python exceptions.
//!
//! - `hooke.ModelError(ValueError)`: a model, a setting or an event that breaks a rule. From a
//!   file ([`SourceError`]) it carries `file`, `line`, `column` (1-based), `found` and `message`;
//!   from code ([`ModelError`]) `subject`, `field`, `expected` and `found`, with `file`, `line`
//!   and `column` `None`.
//! - `hooke.InstabilityError(hooke.HookeError)`: a run that became unstable, with `step`, `time`
//!   (s), `mass` and `quantity`; the caller attaches what was computed as `partial`.
//! - `hooke.HookeError(RuntimeError)`: anything else the library reports (an analysis that could
//!   not be done, a scheme that failed).

use hooke::analysis::error::AnalysisError;
use hooke::engine::{EngineError, RunError};
use hooke::format::SourceError;
use hooke::model::ModelError as LibraryModelError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

pyo3::create_exception!(
    hooke,
    ModelError,
    PyValueError,
    "A model, setting or event that breaks a rule. From a file: `file`, `line` and `column` \
     (1-based) locate the offending text, `found` is that text and `message` says what was \
     expected. From code: `subject`, `field`, `expected` and `found` name the rule; `file`, `line` \
     and `column` are None."
);
pyo3::create_exception!(
    hooke,
    HookeError,
    PyRuntimeError,
    "An error the library reports that is not about the model's description: an analysis that \
     could not be done, a scheme that failed to take a step."
);
pyo3::create_exception!(
    hooke,
    InstabilityError,
    HookeError,
    "A run became unstable: `step` (the step whose result was not finite), `time` (its time, s), \
     `mass` (the id of the first mass found non-finite), `quantity` ('position' or 'velocity'), \
     and `partial`, what was computed before (a Trajectory for Simulation.run, the frames for \
     render: the frames before the failing step, zeros after)."
);

/// Sets `attributes` on the exception `error`.
fn with_attributes<'py>(py: Python<'py>, error: PyErr, attributes: &[(&str, Bound<'py, PyAny>)]) -> PyErr {
    let value = error.value(py);
    for (name, attribute) in attributes {
        // Setting an attribute on a fresh exception instance does not fail.
        let _ = value.setattr(*name, attribute);
    }
    error
}

/// Any value as a Python object (`None` for `Option::None`).
fn object<'py, T: IntoPyObjectExt<'py>>(py: Python<'py>, value: T) -> Bound<'py, PyAny> {
    value.into_bound_py_any(py).unwrap_or_else(|_| py.None().into_bound(py))
}

/// A positioned error from a file.
pub fn source_error(py: Python<'_>, error: &SourceError) -> PyErr {
    with_attributes(
        py,
        ModelError::new_err(error.to_string()),
        &[
            ("file", object(py, error.file.clone())),
            ("line", object(py, error.line)),
            ("column", object(py, error.column)),
            ("found", object(py, error.found.clone())),
            ("message", object(py, error.message.clone())),
            ("subject", object(py, None::<String>)),
            ("field", object(py, None::<String>)),
            ("expected", object(py, None::<String>)),
        ],
    )
}

/// A rule broken by a model built in code, a setting or an event.
pub fn model_error(py: Python<'_>, error: &LibraryModelError) -> PyErr {
    with_attributes(
        py,
        ModelError::new_err(error.to_string()),
        &[
            ("file", object(py, None::<String>)),
            ("line", object(py, None::<usize>)),
            ("column", object(py, None::<usize>)),
            ("found", object(py, error.found.clone())),
            ("message", object(py, error.to_string())),
            ("subject", object(py, error.subject.clone())),
            ("field", object(py, error.field)),
            ("expected", object(py, error.expected.clone())),
        ],
    )
}

/// An engine that could not be built: a pickup, a figure of the configuration, or a scheme that
/// refuses the model.
pub fn engine_error(py: Python<'_>, error: &EngineError) -> PyErr {
    match error {
        EngineError::Pickup(pickup) => {
            let subject = format!("pickup {} of the list, {}", pickup.index + 1, pickup.error.subject);
            let located = LibraryModelError { subject, ..pickup.error.clone() };
            model_error(py, &located)
        }
        EngineError::Config(config) => model_error(py, config),
        // The scheme cannot run this model at this step (a damping flow too stiff to compute).
        EngineError::Scheme(_) => PyValueError::new_err(error.to_string()),
        // The device asked for cannot run this model (a scheme or a structure it lacks).
        EngineError::Device { .. } => PyValueError::new_err(error.to_string()),
    }
}

/// An analysis that could not be done; a rule broken by a model it built is a `ModelError`.
pub fn analysis_error(py: Python<'_>, error: &AnalysisError) -> PyErr {
    match error {
        AnalysisError::Model(model) => model_error(py, model),
        AnalysisError::Target(_) => PyValueError::new_err(error.to_string()),
        _ => HookeError::new_err(error.to_string()),
    }
}

/// A run that stopped early; `partial` is what was computed before.
pub fn run_error<'py>(py: Python<'py>, error: &RunError, partial: Bound<'py, PyAny>) -> PyErr {
    match error {
        RunError::NonFinite { step, time, mass, quantity } => with_attributes(
            py,
            InstabilityError::new_err(error.to_string()),
            &[
                ("step", object(py, *step)),
                ("time", object(py, *time)),
                ("mass", object(py, mass.clone())),
                ("quantity", object(py, *quantity)),
                ("partial", partial),
            ],
        ),
        RunError::NonFiniteOutput { step, time, channel } => with_attributes(
            py,
            InstabilityError::new_err(error.to_string()),
            &[
                ("step", object(py, *step)),
                ("time", object(py, *time)),
                ("channel", object(py, *channel)),
                ("partial", partial),
            ],
        ),
        RunError::Event { source, .. } => model_error(py, source),
        _ => with_attributes(py, HookeError::new_err(error.to_string()), &[("partial", partial)]),
    }
}

/// Registers the exceptions in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("HookeError", py.get_type::<HookeError>())?;
    module.add("ModelError", py.get_type::<ModelError>())?;
    module.add("InstabilityError", py.get_type::<InstabilityError>())?;
    Ok(())
}
