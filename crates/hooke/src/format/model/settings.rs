//! The settings a model file gives besides the model: `[run]` (the scheme, the step and the
//! length of a run, as the engine's [`PartialRunSettings`]) and `[output]` (the WAV encoding).

use crate::engine::{PartialRunSettings, RunLength, StepSize};
use crate::io::{SampleFormat, WavOptions};
use crate::model::ModelError;
use crate::scheme::SchemeKind;
use serde::Deserialize;

/// `[run]`: each setting optional; `rate` or `dt`, `duration` or `steps`, which at the file's
/// step (or the default one) make at most [`crate::limits::MAX_STEPS`] steps.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RunFields {
    scheme: Option<String>,
    rate: Option<f64>,
    dt: Option<f64>,
    duration: Option<f64>,
    steps: Option<u64>,
}

impl RunFields {
    /// The settings, checked; errors name the field.
    pub(super) fn settings(&self) -> Result<PartialRunSettings, ModelError> {
        let scheme = match &self.scheme {
            Some(name) => Some(name.parse::<SchemeKind>().map_err(|_| {
                ModelError::new(
                    "run",
                    "scheme",
                    format!("one of {}", SchemeKind::names()),
                    format!("\"{name}\""),
                )
            })?),
            None => None,
        };
        let step = match (self.rate, self.dt) {
            (Some(_), Some(_)) => {
                return Err(ModelError::new("run", "dt", "either `rate` or `dt`, not both", "both"))
            }
            (Some(rate), None) => Some(StepSize::rate(rate)?),
            (None, Some(dt)) => Some(StepSize::dt(dt)?),
            (None, None) => None,
        };
        let length = match (self.duration, self.steps) {
            (Some(_), Some(_)) => {
                return Err(ModelError::new("run", "steps", "either `duration` or `steps`, not both", "both"))
            }
            (Some(duration), None) => Some(RunLength::duration(duration)?),
            (None, Some(0)) => return Err(ModelError::new("run", "steps", "at least 1 step", 0)),
            (None, Some(n)) => Some(RunLength::Steps(n)),
            (None, None) => None,
        };
        let settings = PartialRunSettings { scheme, step, length };
        // The length the file asks for, at its step or the default one, fits the step limit.
        if length.is_some() {
            settings.or_defaults().step_count()?;
        }
        Ok(settings)
    }
}

/// `[output]`: the WAV sample format and normalisation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OutputFields {
    format: Option<String>,
    normalize: Option<bool>,
}

impl OutputFields {
    /// The WAV options, checked; errors name the field.
    pub(super) fn options(&self) -> Result<WavOptions, ModelError> {
        let format = match &self.format {
            Some(name) => SampleFormat::from_name(name).ok_or_else(|| {
                ModelError::new("output", "format", "\"f32\", \"i16\" or \"i24\"", format!("\"{name}\""))
            })?,
            None => SampleFormat::default(),
        };
        Ok(WavOptions { format, normalize: self.normalize.unwrap_or(true) })
    }
}
