//! Run settings: the scheme, the step and the length of a run.

use crate::limits::MAX_STEPS;
use crate::model::{check_positive, ModelError};
use crate::scheme::SchemeKind;

/// The time step, given as a sample rate or as a step length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepSize {
    /// Steps per second, Hz.
    Rate(f64),
    /// Step length, s.
    Dt(f64),
}

impl StepSize {
    /// A step from a sample rate in Hz (> 0, with a finite step `1 / rate`).
    pub fn rate(hz: f64) -> Result<Self, ModelError> {
        check_positive("run", "rate", hz)?;
        check_finite_reciprocal("rate", hz)?;
        Ok(Self::Rate(hz))
    }

    /// A step from its length in s (> 0, with a finite rate `1 / dt`).
    pub fn dt(seconds: f64) -> Result<Self, ModelError> {
        check_positive("run", "dt", seconds)?;
        check_finite_reciprocal("dt", seconds)?;
        Ok(Self::Dt(seconds))
    }

    /// Step length, s.
    pub fn seconds(self) -> f64 {
        match self {
            Self::Rate(hz) => 1.0 / hz,
            Self::Dt(dt) => dt,
        }
    }

    /// Steps per second, Hz.
    pub fn hertz(self) -> f64 {
        match self {
            Self::Rate(hz) => hz,
            Self::Dt(dt) => 1.0 / dt,
        }
    }
}

/// Refuses a rate or step so small that its reciprocal (the step or the rate) is infinite.
fn check_finite_reciprocal(field: &'static str, value: f64) -> Result<(), ModelError> {
    if (1.0 / value).is_finite() {
        return Ok(());
    }
    Err(ModelError::new(
        "run",
        field,
        format!("a {field} whose reciprocal is finite (above 5.6e-309)"),
        value,
    ))
}

/// How long a run lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunLength {
    /// Simulated time, s; the number of steps is `round(duration / dt)`.
    Duration(f64),
    /// Number of steps.
    Steps(u64),
}

impl RunLength {
    /// A length in simulated seconds (> 0).
    pub fn duration(seconds: f64) -> Result<Self, ModelError> {
        check_positive("run", "duration", seconds)?;
        Ok(Self::Duration(seconds))
    }

    /// The number of steps of size `dt` this length covers (`u64::MAX` past it; see
    /// [`RunLength::step_count`] for the checked count).
    pub fn steps(self, dt: f64) -> u64 {
        match self {
            Self::Duration(seconds) => (seconds / dt).round() as u64,
            Self::Steps(n) => n,
        }
    }

    /// The number of steps of size `dt` (s) this length covers, checked: at most
    /// [`MAX_STEPS`]. The error names the length asked, the steps it makes and the limit.
    pub fn step_count(self, dt: f64) -> Result<u64, ModelError> {
        let expected = format!("a run of at most 2^40 = {MAX_STEPS} steps");
        match self {
            Self::Steps(n) if n <= MAX_STEPS => Ok(n),
            Self::Steps(n) => Err(ModelError::new("run", "steps", expected, n)),
            Self::Duration(seconds) => {
                let steps = (seconds / dt).round();
                if steps <= MAX_STEPS as f64 {
                    Ok(steps as u64)
                } else {
                    let found = format!("{seconds} s at a step of {dt} s, {steps} steps");
                    Err(ModelError::new("run", "duration", expected, found))
                }
            }
        }
    }
}

/// Everything a run needs besides the model. Defaults: symplectic Euler, 44.1 kHz, 1 s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSettings {
    /// The integrator.
    pub scheme: SchemeKind,
    /// The time step.
    pub step: StepSize,
    /// The length of the run.
    pub length: RunLength,
}

impl RunSettings {
    /// The number of steps the run takes, checked: at most [`MAX_STEPS`]
    /// ([`RunLength::step_count`]).
    pub fn step_count(&self) -> Result<u64, ModelError> {
        self.length.step_count(self.step.seconds())
    }
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            scheme: SchemeKind::SymplecticEuler,
            step: StepSize::Rate(44_100.0),
            length: RunLength::Duration(1.0),
        }
    }
}

/// Run settings as a file gives them: each one optional, to be completed by defaults and
/// overridden by the command line.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PartialRunSettings {
    /// The integrator, if given.
    pub scheme: Option<SchemeKind>,
    /// The time step, if given.
    pub step: Option<StepSize>,
    /// The run length, if given.
    pub length: Option<RunLength>,
}

impl PartialRunSettings {
    /// `over`'s settings where given, else `self`'s.
    pub fn overridden_by(self, over: PartialRunSettings) -> Self {
        Self {
            scheme: over.scheme.or(self.scheme),
            step: over.step.or(self.step),
            length: over.length.or(self.length),
        }
    }

    /// Completes the settings with the defaults of [`RunSettings`].
    pub fn or_defaults(self) -> RunSettings {
        let default = RunSettings::default();
        RunSettings {
            scheme: self.scheme.unwrap_or(default.scheme),
            step: self.step.unwrap_or(default.step),
            length: self.length.unwrap_or(default.length),
        }
    }
}
