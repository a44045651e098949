//! The binding's limits on what one call may return, checked before anything is allocated, and
//! the checks of the numbers the calls take: a request beyond them is a `hooke.ModelError` (a
//! `ValueError`) that names the argument, what was asked and the limit, never an allocation
//! that aborts the interpreter. The library's own limits (`hooke::limits`, such as
//! `MAX_STEPS`) apply as well. docs/python.md ("Limits") lists them.

use crate::model_rule;
use pyo3::prelude::*;

/// The most bytes of arrays one call may return: 2^32 = 4 GiB. An hour of stereo at 44.1 kHz
/// in float64 (the longest score, `hooke::limits::MAX_SCORE_DURATION`) takes 2.5 GB; longer
/// output is taken in blocks (`render` or `advance` called again), a long run's rows are
/// thinned with `every`.
pub(crate) const MAX_OUTPUT_BYTES: u128 = 1 << 32;

/// The most points of a warping curve: 2^20 = 1 048 576, far more than a figure shows.
pub(crate) const MAX_WARPING_SAMPLES: usize = 1 << 20;

/// Refuses an output of `bytes` bytes that argument `argument` of `call` asks for when it
/// exceeds [`MAX_OUTPUT_BYTES`]: `asked` says what was asked (the counts that make the bytes),
/// `remedy` how to get the output within the limit.
pub(crate) fn check_output(
    call: &str,
    argument: &'static str,
    asked: &str,
    bytes: u128,
    remedy: &str,
) -> PyResult<()> {
    if bytes <= MAX_OUTPUT_BYTES {
        return Ok(());
    }
    let expected = format!("at most 2^32 bytes (4 GiB) of arrays from one call ({remedy})");
    Err(model_rule(call, argument, expected, format!("{asked} = {} bytes ({})", bytes, size(bytes))))
}

/// Refuses `value` of argument `argument` of `call` unless `valid` holds for it: `expected`
/// says what is valid. NaN fails every comparison, so `valid` written as comparisons refuses it.
pub(crate) fn check_number(
    call: &str,
    argument: &'static str,
    value: f64,
    valid: bool,
    expected: &str,
) -> PyResult<()> {
    if valid && value.is_finite() {
        Ok(())
    } else {
        Err(model_rule(call, argument, expected, value))
    }
}

/// `bytes` in kB, MB, GB or TB (powers of 1000), three significant figures.
fn size(bytes: u128) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let (mut value, mut unit) = (bytes as f64, 0);
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.3} {}", units[unit])
}
