//! `hooke.fit`: strings fitted to recorded notes, or a bar to a strike (docs/fit.md), the library's measure and fit
//! with no loop of their own; the pure-Python `hooke.fit` wraps the result.

use hooke::analysis::recording::fit::{fit_bar as fit_bar_modes, fit_string};
use hooke::analysis::recording::{measure_bar, measure_note};
use hooke::format::instrument::{fitted_names, guitar_toml, marimba_toml, parse as parse_instrument};
use hooke::instrument::fitted::{fitted_guitar, fitted_marimba, FittedString};
use hooke::instrument::MIDDLE_C_HZ;
use hooke::limits::MAX_READ_SAMPLES;
use hooke::scheme::SchemeKind;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Fits one string to each recording (mono, full scale 1) at `rate` Hz, near `notes[i]` Hz where
/// given; returns a dict: `instrument` (the instrument file's text, designed for `scheme` and
/// written with `output_rate`, default `rate`) and `strings` (per recording: `name`,
/// `onset_s`, `fundamental_hz`, `inharmonicity`, `constant_loss` (1/s), `linear_loss` (1/s per
/// Hz), `quadratic_loss` (s),
/// `pluck_position`, `pluck_release` (s) and `partials`, each a dict of `number`,
/// `frequency_hz`, `decay_rate` (1/s), `t60` (s), `amplitude` and `beating_hz` (the second
/// sinusoid's frequency, or None)).
#[pyfunction]
#[pyo3(signature = (recordings, rate, *, notes = None, scheme = "symplectic-euler", output_rate = None))]
pub(crate) fn fit<'py>(
    py: Python<'py>,
    recordings: Vec<PyReadonlyArray1<'py, f64>>,
    rate: f64,
    notes: Option<Vec<Option<f64>>>,
    scheme: &str,
    output_rate: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = crate::scheme(scheme)?;
    if recordings.is_empty() {
        return Err(crate::model_rule("fit", "recordings", "at least one recording", "none"));
    }
    let notes = notes.unwrap_or_else(|| vec![None; recordings.len()]);
    if notes.len() != recordings.len() {
        let expected = format!("one note (or None) for each of the {} recordings", recordings.len());
        return Err(crate::model_rule("fit", "notes", expected, notes.len()));
    }
    let mut measured = Vec::with_capacity(recordings.len());
    for (i, (samples, hint)) in recordings.iter().zip(&notes).enumerate() {
        let samples = samples.as_slice()?;
        if samples.len() > MAX_READ_SAMPLES {
            let expected = format!("at most {MAX_READ_SAMPLES} samples a recording");
            return Err(crate::model_rule("fit", "recordings", expected, samples.len()));
        }
        let fitted = py.detach(|| {
            let note = measure_note(samples, rate, *hint)?;
            let fit = fit_string(&note)?;
            Ok::<_, hooke::analysis::recording::RecordingError>((note, fit))
        });
        measured.push(
            fitted.map_err(|e| PyValueError::new_err(format!("fit: recording {}: expected {e}", i + 1)))?,
        );
    }
    let fundamentals: Vec<f64> = measured.iter().map(|(_, fit)| fit.fundamental_hz).collect();
    let strings: Vec<FittedString> = fitted_names(&fundamentals)
        .into_iter()
        .zip(&measured)
        .map(|(name, (_, fit))| FittedString { name, fit: fit.clone() })
        .collect();
    let spec = fitted_guitar(&strings);
    let comment = "Fitted by hooke.fit (docs/fit.md).";
    let text = guitar_toml(&spec, scheme, output_rate.unwrap_or(rate), comment);
    py.detach(|| buildable(&text, scheme, output_rate.unwrap_or(rate)))?;
    let out = PyDict::new(py);
    out.set_item("instrument", text)?;
    let mut rows = Vec::with_capacity(strings.len());
    for (string, (note, fit)) in strings.iter().zip(&measured) {
        let row = PyDict::new(py);
        row.set_item("name", &string.name)?;
        row.set_item("onset_s", note.onset_s)?;
        row.set_item("fundamental_hz", fit.fundamental_hz)?;
        row.set_item("inharmonicity", fit.inharmonicity)?;
        row.set_item("constant_loss", fit.constant_loss)?;
        row.set_item("linear_loss", fit.linear_loss)?;
        row.set_item("quadratic_loss", fit.quadratic_loss)?;
        row.set_item("pluck_position", fit.pluck_position)?;
        row.set_item("pluck_release", fit.pluck_release)?;
        let mut partials = Vec::with_capacity(note.partials.len());
        for p in &note.partials {
            let partial = PyDict::new(py);
            partial.set_item("number", p.number)?;
            partial.set_item("frequency_hz", p.main.frequency_hz)?;
            partial.set_item("decay_rate", p.decay_rate)?;
            partial.set_item("t60", p.t60())?;
            partial.set_item("amplitude", p.main.amplitude)?;
            partial.set_item("beating_hz", p.second.map(|s| s.frequency_hz))?;
            partials.push(partial);
        }
        row.set_item("partials", partials)?;
        rows.push(row);
    }
    out.set_item("strings", rows)?;
    Ok(out)
}

/// Fits a marimba bar to a recorded strike (mono, full scale 1) at `rate` Hz, its first mode near
/// `note` Hz where given; returns a dict: `instrument` (the file's text, for `scheme`, written
/// with `output_rate`, default `rate`), `name` (the key), `onset_s`, `frequency_hz`, `ratio`,
/// `decay` and `high_decay` (time constants, s, as measured), `designed_high_decay` (the second
/// as the bar's dampers can give it, s) and `modes` (per mode: `frequency_hz`, `decay_rate`,
/// `t60`, `amplitude`).
#[pyfunction]
#[pyo3(signature = (recording, rate, *, note = None, scheme = "symplectic-euler", output_rate = None))]
pub(crate) fn fit_bar<'py>(
    py: Python<'py>,
    recording: PyReadonlyArray1<'py, f64>,
    rate: f64,
    note: Option<f64>,
    scheme: &str,
    output_rate: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = crate::scheme(scheme)?;
    let samples = recording.as_slice()?;
    if samples.len() > MAX_READ_SAMPLES {
        let expected = format!("at most {MAX_READ_SAMPLES} samples");
        return Err(crate::model_rule("fit", "samples", expected, samples.len()));
    }
    let output_rate = output_rate.unwrap_or(rate);
    let (bar, fit) = py
        .detach(|| measure_bar(samples, rate, note).map(|bar| (bar.clone(), fit_bar_modes(&bar))))
        .map_err(|e| PyValueError::new_err(format!("fit: expected {e}")))?;
    let key = fitted_names(&[fit.frequency_hz]).remove(0);
    let (spec, _) = py
        .detach(|| fitted_marimba(&key, &fit, scheme, 1.0 / output_rate))
        .map_err(|e| PyValueError::new_err(format!("fit: no bar for the modes measured: {e}")))?;
    let out = PyDict::new(py);
    let text = marimba_toml(&spec, scheme, output_rate, "Fitted by hooke.fit (docs/fit.md).");
    py.detach(|| buildable(&text, scheme, output_rate))?;
    out.set_item("instrument", text)?;
    out.set_item("name", &key)?;
    out.set_item("onset_s", bar.onset_s)?;
    out.set_item("frequency_hz", fit.frequency_hz)?;
    out.set_item("ratio", fit.ratio)?;
    out.set_item("decay", fit.decay)?;
    out.set_item("high_decay", fit.high_decay)?;
    out.set_item("designed_high_decay", spec.high_decay * MIDDLE_C_HZ / fit.frequency_hz)?;
    let mut modes = Vec::with_capacity(2);
    for mode in &bar.modes {
        let row = PyDict::new(py);
        row.set_item("frequency_hz", mode.main.frequency_hz)?;
        row.set_item("decay_rate", mode.decay_rate)?;
        row.set_item("t60", mode.t60())?;
        row.set_item("amplitude", mode.main.amplitude)?;
        modes.push(row);
    }
    out.set_item("modes", modes)?;
    Ok(out)
}

/// Checks that the fitted instrument file `text` builds for `scheme` at `rate` Hz: a design the
/// scheme cannot reach is a `ValueError`, never a file that fails later.
fn buildable(text: &str, scheme: SchemeKind, rate: f64) -> PyResult<()> {
    let built =
        parse_instrument(text, "<fitted instrument>").and_then(|file| file.build_stable(scheme, rate, None));
    built
        .map(|_| ())
        .map_err(|e| PyValueError::new_err(format!("fit: the fitted instrument cannot be built: {e}")))
}
