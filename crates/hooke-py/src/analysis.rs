//! Analysis results as arrays: [`SchemeAnalysis`] to a `hooke.Analysis`, the warping curve, the
//! string design.

use crate::errors::analysis_error;
use crate::limits::{check_number, MAX_WARPING_SAMPLES};
use hooke::analysis::design::{design_string as library_design, TuneTarget};
use hooke::analysis::error::AnalysisError;
use hooke::analysis::modes::Damping;
use hooke::analysis::regions::warping_curve as library_warping;
use hooke::analysis::report::SchemeAnalysis;
use hooke::analysis::stability::StableStep;
use numpy::ndarray::Array2;
use numpy::{Complex64, IntoPyArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The largest damping `gamma h` and frequency `w0 h` of a warping curve: 1e6, so that
/// `(w0 h)^2` and the schemes' poles stay finite (any scheme is far past its stability or its
/// useful range there).
const MAX_WARPING_PRODUCT: f64 = 1e6;

/// A report as a `hooke.Analysis`: one array entry per mode, by increasing analog frequency.
pub(crate) fn analysis_result<'py>(py: Python<'py>, report: &SchemeAnalysis) -> PyResult<Bound<'py, PyAny>> {
    let modes = &report.modes;
    let column = |f: &dyn Fn(&hooke::analysis::report::ModeReport) -> f64| {
        modes.iter().map(f).collect::<Vec<f64>>().into_pyarray(py)
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("scheme", report.scheme.name())?;
    kwargs.set_item("dt", report.dt)?;
    kwargs.set_item("index", modes.iter().map(|m| m.index as i64).collect::<Vec<_>>().into_pyarray(py))?;
    let poles: Vec<Complex64> =
        modes.iter().map(|m| Complex64::new(m.mode.pole.re, m.mode.pole.im)).collect();
    kwargs.set_item("pole", poles.into_pyarray(py))?;
    kwargs.set_item("frequency_hz", column(&|m| m.mode.frequency_hz()))?;
    kwargs.set_item("decay_rate", column(&|m| m.mode.decay_rate()))?;
    let z: Vec<Complex64> = modes.iter().map(|m| Complex64::new(m.discrete.z.re, m.discrete.z.im)).collect();
    kwargs.set_item("z", z.into_pyarray(py))?;
    kwargs.set_item("modulus", column(&|m| m.discrete.modulus()))?;
    kwargs.set_item("digital_angular_frequency", column(&|m| m.discrete.angular_frequency()))?;
    kwargs.set_item("digital_frequency_hz", column(&|m| m.discrete.frequency_hz()))?;
    kwargs.set_item("digital_decay_rate", column(&|m| m.discrete.decay_rate()))?;
    kwargs.set_item("time_constant", column(&|m| m.discrete.time_constant()))?;
    kwargs.set_item("cents_error", column(&|m| m.cents_error().unwrap_or(f64::NAN)))?;
    kwargs.set_item("stable", modes.iter().map(|m| m.is_stable()).collect::<Vec<bool>>().into_pyarray(py))?;
    kwargs.set_item("region", modes.iter().map(|m| m.discrete.region().name()).collect::<Vec<_>>())?;
    let coordinates = modes.first().map_or(0, |m| m.mode.shape.len());
    let shapes: Vec<Complex64> =
        modes.iter().flat_map(|m| m.mode.shape.iter().map(|c| Complex64::new(c.re, c.im))).collect();
    let shapes = Array2::from_shape_vec((modes.len(), coordinates), shapes).expect("modes x coordinates");
    kwargs.set_item("shapes", shapes.into_pyarray(py))?;
    let (kind, step) = match report.largest_stable_step {
        StableStep::UpTo(h) => ("up-to", h),
        StableStep::Unconditional { checked_up_to } => ("unconditional", checked_up_to),
        StableStep::Never => ("never", 0.0),
    };
    kwargs.set_item("largest_stable_step", report.largest_stable_step.seconds().unwrap_or(f64::INFINITY))?;
    kwargs.set_item("stability", kind)?;
    kwargs.set_item("checked_up_to", step)?;
    kwargs.set_item("lowest_stable_rate", report.largest_stable_step.lowest_rate())?;
    kwargs.set_item("damping", if report.damping == Damping::Modal { "modal" } else { "non-modal" })?;
    kwargs.set_item("complete", report.complete)?;
    kwargs.set_item("warnings", report.warnings.clone())?;
    py.import("hooke._results")?.getattr("Analysis")?.call((), Some(&kwargs))
}

/// Morgan & Qiao 2009, Algorithm 1, for any scheme: the spring and damper of a uniform string of
/// `masses` masses of `mass` kg (dampers on the springs) whose lowest mode, simulated with
/// `scheme` at step `dt` s, sounds at `frequency_hz` Hz and decays with time constant
/// `time_constant` s (None: lossless). Returns a dict: `omega0` (rad/s), `gamma` (1/s), `mass`
/// (kg), `stiffness` (N/m), `damping` (N s/m).
#[pyfunction]
#[pyo3(signature = (masses, frequency_hz, time_constant = None, *, mass = 1.0, scheme = "symplectic-euler", dt = None, rate = None))]
pub(crate) fn design_string<'py>(
    py: Python<'py>,
    masses: usize,
    frequency_hz: f64,
    time_constant: Option<f64>,
    mass: f64,
    scheme: &str,
    dt: Option<f64>,
    rate: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = crate::scheme(scheme)?;
    check_number("design_string", "frequency_hz", frequency_hz, frequency_hz > 0.0, "a frequency > 0 Hz")?;
    if let Some(tau) = time_constant {
        check_number("design_string", "time_constant", tau, tau > 0.0, "a time constant > 0 s")?;
    }
    check_number("design_string", "mass", mass, mass > 0.0, "a mass > 0 kg")?;
    let h = crate::step_size(py, rate, dt)?
        .ok_or_else(|| crate::model_rule("design_string", "dt", "a step dt (s) or a rate (Hz)", "neither"))?
        .seconds();
    let target = TuneTarget { frequency_hz, time_constant };
    // A target the scheme cannot reach at this step is about the two arguments that set it.
    let design = py.detach(|| library_design(masses, mass, target, scheme, h)).map_err(|e| match e {
        AnalysisError::Target(message) => PyValueError::new_err(format!(
            "design_string: no string for `frequency_hz` = {frequency_hz} Hz and `time_constant` = {} at \
             a step of {h} s: {message}",
            time_constant.map_or("None".to_string(), |tau| format!("{tau} s"))
        )),
        other => analysis_error(py, &other),
    })?;
    let dict = PyDict::new(py);
    dict.set_item("omega0", design.omega0)?;
    dict.set_item("gamma", design.gamma)?;
    dict.set_item("mass", design.mass)?;
    dict.set_item("stiffness", design.stiffness)?;
    dict.set_item("damping", design.damping)?;
    Ok(dict)
}

/// The frequency warping of `scheme` with damping `gamma_h` (gamma h): `samples` points with
/// w0 h from 0 to `omega0_h_max` (rad/sample). Returns a dict of arrays: `omega0_h`, `mu_h`
/// (the analog frequency mu h; NaN when overdamped), `omega_d_h` (the digital frequency of the
/// dominant pole, rad/sample) and `region`. `gamma_h` and `omega0_h_max` are at most
/// [`MAX_WARPING_PRODUCT`], `samples` 2 to [`MAX_WARPING_SAMPLES`].
#[pyfunction]
#[pyo3(signature = (scheme, gamma_h = 0.0, omega0_h_max = 3.0, samples = 301))]
pub(crate) fn warping_curve<'py>(
    py: Python<'py>,
    scheme: &str,
    gamma_h: f64,
    omega0_h_max: f64,
    samples: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = crate::scheme(scheme)?;
    let bound = format!("at most {MAX_WARPING_PRODUCT:e}");
    let valid = (0.0..=MAX_WARPING_PRODUCT).contains(&gamma_h);
    check_number("warping_curve", "gamma_h", gamma_h, valid, &format!("a damping gamma h >= 0 and {bound}"))?;
    let valid = 0.0 < omega0_h_max && omega0_h_max <= MAX_WARPING_PRODUCT;
    let expected = format!("a frequency w0 h > 0 rad/sample and {bound}");
    check_number("warping_curve", "omega0_h_max", omega0_h_max, valid, &expected)?;
    if !(2..=MAX_WARPING_SAMPLES).contains(&samples) {
        let expected = format!("2 to 2^20 = {MAX_WARPING_SAMPLES} points");
        return Err(crate::model_rule("warping_curve", "samples", expected, samples));
    }
    let points =
        library_warping(scheme, gamma_h, omega0_h_max, samples).map_err(|e| analysis_error(py, &e))?;
    let dict = PyDict::new(py);
    dict.set_item("omega0_h", points.iter().map(|p| p.omega0_h).collect::<Vec<_>>().into_pyarray(py))?;
    dict.set_item(
        "mu_h",
        points.iter().map(|p| p.mu_h.unwrap_or(f64::NAN)).collect::<Vec<_>>().into_pyarray(py),
    )?;
    dict.set_item("omega_d_h", points.iter().map(|p| p.omega_d_h).collect::<Vec<_>>().into_pyarray(py))?;
    dict.set_item("region", points.iter().map(|p| p.region.name()).collect::<Vec<_>>())?;
    Ok(dict)
}
