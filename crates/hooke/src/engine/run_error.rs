//! Why a run stopped early ([`RunError`]), and the check of a state that finds a non-finite
//! coordinate.

use crate::model::{number, quoted, ModelError};
use crate::scheme::SchemeError;
use crate::system::{State, System};

/// Why a run stopped early. The observers keep everything up to the last good step.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A position or velocity became NaN or infinite.
    #[error(
        "the simulation became unstable at step {step} (t = {} s): \
         mass {} has a non-finite {quantity}",
        seconds(*time),
        quoted(mass)
    )]
    NonFinite {
        /// The step whose result was not finite.
        step: u64,
        /// Its time, s.
        time: f64,
        /// The id of the first mass found with a non-finite coordinate.
        mass: String,
        /// `position` or `velocity`.
        quantity: &'static str,
    },
    /// The state stayed finite but an output value did not: the pickups read a motion grown
    /// past what a float holds (an unstable run a few steps before its state overflows).
    #[error(
        "the simulation became unstable in the steps from {step} (t = {} s): \
         output channel {channel} is no longer finite",
        seconds(*time)
    )]
    NonFiniteOutput {
        /// The first step of the block whose output was not finite.
        step: u64,
        /// Its time, s.
        time: f64,
        /// The channel, from 1.
        channel: usize,
    },
    /// The scheme could not complete a step.
    #[error("step {step} (t = {} s) failed: {source}", seconds(*time))]
    Scheme {
        /// The step that failed.
        step: u64,
        /// Its start time, s.
        time: f64,
        /// What the scheme reported.
        source: SchemeError,
    },
    /// An event did not fit the system (an index out of range, a figure that is not finite).
    #[error("an event at step {step} was refused: {source}")]
    Event {
        /// The step it was to apply at.
        step: u64,
        /// What is wrong with it.
        source: ModelError,
    },
    /// The output given has not one vector per channel.
    #[error("the output has {found} channel(s); the engine's pickups make {expected}")]
    Channels {
        /// The engine's channels.
        expected: usize,
        /// The vectors given.
        found: usize,
    },
    /// A device failed (it was lost, or a transfer failed); the state before the call is kept.
    #[error("the device failed at step {step}: {message}")]
    Device {
        /// The step the failed call started at.
        step: u64,
        /// What the device reported.
        message: String,
    },
    /// An observer could not write its output.
    #[error("writing output failed at step {step}: {source}")]
    Output {
        /// The step being recorded.
        step: u64,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A time in seconds to 9 decimals, without trailing zeros (`0.502`, not `0.5020000000000001`),
/// from 1e-3 s to 1e9 s; beyond, in exponent form ([`number`]), never hundreds of digits.
fn seconds(t: f64) -> String {
    if t != 0.0 && !(1e-3..1e9).contains(&t.abs()) {
        return number(t);
    }
    let text = format!("{t:.9}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Checks that every moving coordinate of `state` is finite; the error names the step, the time
/// and the first mass found with a non-finite position or velocity.
pub(crate) fn check_finite(system: &System, state: &State) -> Result<(), RunError> {
    let n = system.mass_coordinates();
    for (values, quantity) in [(&state.x, "position"), (&state.v, "velocity")] {
        if let Some(coordinate) = values[..n].iter().position(|c| !c.is_finite()) {
            return Err(RunError::NonFinite {
                step: state.step,
                time: state.t,
                mass: system.mass_of_coordinate(coordinate).to_string(),
                quantity,
            });
        }
    }
    Ok(())
}
