//! `hooke.fit`: strings fitted to recorded notes, or a bar, a bell or a plate to a strike
//! (docs/fit.md), the library's measure and fit
//! with no loop of their own; the pure-Python `hooke.fit` wraps the result.

use hooke::analysis::recording::fit::{fit_bar as fit_bar_modes, fit_bell as fit_bell_modes, fit_string};
use hooke::analysis::recording::{measure_bar, measure_modes, measure_note, MeasuredPartial};
use hooke::format::instrument::{
    bell_toml, fitted_names, guitar_toml, marimba_toml, parse as parse_instrument, plates_toml,
};
use hooke::instrument::fitted::{fitted_bell, fitted_guitar, fitted_marimba, plate_for_rate, FittedString};
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

/// Fits a struck `kind` (`"bar"`, `"bell"` or `"plate"`) to a recorded strike (mono, full scale 1) at `rate`
/// Hz; returns a dict: `instrument` (the file's text, for `scheme`, written with `output_rate`,
/// default `rate`), `name` (the key), `onset_s`, `modes` (per mode: `frequency_hz`,
/// `decay_rate`, `t60`, `amplitude`) and what the kind adds ([`fit_bar`], [`fit_bell`],
/// [`fit_plate`]).
#[pyfunction]
#[pyo3(signature = (recording, rate, *, kind, note = None, scheme = "symplectic-euler", output_rate = None))]
pub(crate) fn fit_struck<'py>(
    py: Python<'py>,
    recording: PyReadonlyArray1<'py, f64>,
    rate: f64,
    kind: &str,
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
    let struck = Struck { samples, rate, note, scheme, output_rate: output_rate.unwrap_or(rate) };
    match kind {
        "bar" => fit_bar(py, &struck),
        "bell" => fit_bell(py, &struck),
        "plate" => fit_plate(py, &struck),
        _ => Err(crate::model_rule("fit", "kind", "\"bar\", \"bell\" or \"plate\"", format!("{kind:?}"))),
    }
}

/// A recorded strike and what to fit it for.
struct Struck<'a> {
    /// Its samples (mono, full scale 1).
    samples: &'a [f64],
    /// Its rate, Hz.
    rate: f64,
    /// The note expected, Hz: a bar's or a plate's first mode, a bell's strike note.
    note: Option<f64>,
    /// The scheme the instrument is designed for.
    scheme: SchemeKind,
    /// The rate it is written with, Hz.
    output_rate: f64,
}

/// A marimba bar, its first mode near `note` where given; adds `frequency_hz`, `ratio`, `decay`
/// and `high_decay` (time constants, s, as measured) and `designed_high_decay` (the second as the
/// bar's dampers can give it, s).
fn fit_bar<'py>(py: Python<'py>, struck: &Struck) -> PyResult<Bound<'py, PyDict>> {
    let Struck { samples, rate, note, scheme, output_rate } = *struck;
    let (bar, fit) = py
        .detach(|| measure_bar(samples, rate, note).map(|bar| (bar.clone(), fit_bar_modes(&bar))))
        .map_err(|e| PyValueError::new_err(format!("fit: expected {e}")))?;
    let key = fitted_names(&[fit.frequency_hz]).remove(0);
    let (spec, _) = py
        .detach(|| fitted_marimba(&key, &fit, scheme, 1.0 / output_rate))
        .map_err(|e| PyValueError::new_err(format!("fit: no bar for the modes measured: {e}")))?;
    let text = marimba_toml(&spec, scheme, output_rate, "Fitted by hooke.fit (docs/fit.md).");
    let out = struck_dict(py, text, struck, &key, bar.onset_s, &bar.modes)?;
    out.set_item("frequency_hz", fit.frequency_hz)?;
    out.set_item("ratio", fit.ratio)?;
    out.set_item("decay", fit.decay)?;
    out.set_item("high_decay", fit.high_decay)?;
    out.set_item("designed_high_decay", spec.high_decay * MIDDLE_C_HZ / fit.frequency_hz)?;
    Ok(out)
}

/// A bell, its strike note `note` where given (else half its loudest mode's); adds `strike_hz`
/// and `decays_moved` (the largest relative change the bell's body made to a decay, 0 where
/// none).
fn fit_bell<'py>(py: Python<'py>, struck: &Struck) -> PyResult<Bound<'py, PyDict>> {
    let Struck { samples, rate, note, scheme, output_rate } = *struck;
    let (bell, fit) = py
        .detach(|| measure_modes(samples, rate).map(|bell| (bell.clone(), fit_bell_modes(&bell, note))))
        .map_err(|e| PyValueError::new_err(format!("fit: expected {e}")))?;
    let key = fitted_names(&[fit.strike_hz]).remove(0);
    let (spec, moved) = py
        .detach(|| fitted_bell(&key, &fit, scheme, 1.0 / output_rate))
        .map_err(|e| PyValueError::new_err(format!("fit: no bell for the modes measured: {e}")))?;
    let text = bell_toml(&spec, scheme, output_rate, "Fitted by hooke.fit (docs/fit.md).");
    let out = struck_dict(py, text, struck, &key, bell.onset_s, &bell.modes)?;
    out.set_item("strike_hz", fit.strike_hz)?;
    out.set_item("decays_moved", moved)?;
    Ok(out)
}

/// A bell plate, its first mode near `note` where given (else its lowest), fitted for the step it
/// runs at; adds `frequency_hz` (the first mode), `columns` and `rows` (its lattice),
/// `ratio_error_cents` (the modes' rms distance from the lattice's), `constant_loss` (1/s),
/// `linear_loss` (1/s per Hz) and `high_frequency` (Hz, the law's second point).
fn fit_plate<'py>(py: Python<'py>, struck: &Struck) -> PyResult<Bound<'py, PyDict>> {
    let Struck { samples, rate, note, scheme, output_rate } = *struck;
    let measured = py
        .detach(|| measure_modes(samples, rate))
        .map_err(|e| PyValueError::new_err(format!("fit: expected {e}")))?;
    let (spec, fit) = py
        .detach(|| plate_for_rate(&measured, note, scheme, output_rate, |hz| fitted_names(&[hz]).remove(0)))
        .map_err(|e| PyValueError::new_err(format!("fit: no plate for the modes measured: {e}")))?;
    let text = plates_toml(&spec, scheme, output_rate, "Fitted by hooke.fit (docs/fit.md).");
    let out = struck_dict(py, text, struck, &spec.keys[0], measured.onset_s, &measured.modes)?;
    out.set_item("frequency_hz", fit.frequency_hz)?;
    out.set_item("columns", fit.columns)?;
    out.set_item("rows", fit.rows)?;
    out.set_item("ratio_error_cents", fit.ratio_error_cents)?;
    out.set_item("constant_loss", fit.constant_loss)?;
    out.set_item("linear_loss", fit.linear_loss)?;
    out.set_item("high_frequency", fit.high_frequency)?;
    Ok(out)
}

/// The dict every struck fit returns: the instrument file's `text` (checked to build), the key's
/// `name`, `onset_s` and each mode as a dict of `frequency_hz`, `decay_rate` (1/s), `t60` (s)
/// and `amplitude`.
fn struck_dict<'py>(
    py: Python<'py>,
    text: String,
    struck: &Struck,
    name: &str,
    onset_s: f64,
    modes: &[MeasuredPartial],
) -> PyResult<Bound<'py, PyDict>> {
    py.detach(|| buildable(&text, struck.scheme, struck.output_rate))?;
    let out = PyDict::new(py);
    out.set_item("instrument", text)?;
    out.set_item("name", name)?;
    out.set_item("onset_s", onset_s)?;
    let rows = modes
        .iter()
        .map(|mode| {
            let row = PyDict::new(py);
            row.set_item("frequency_hz", mode.main.frequency_hz)?;
            row.set_item("decay_rate", mode.decay_rate)?;
            row.set_item("t60", mode.t60())?;
            row.set_item("amplitude", mode.main.amplitude)?;
            Ok(row)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("modes", rows)?;
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
