//! External (driving) forces on one coordinate of a mass (Chatziioannou 2019, section 3.1): a
//! constant, a sum of sinusoids, or a recorded signal. [`ForceSpec`] is what a user gives
//! (`[[force]]`); [`ExternalForce`] what a model holds.

use super::validate::{check_finite, check_non_negative};
use super::{Model, ModelError, NodeRef};
use serde::Deserialize;

/// One sinusoidal term of a driving force: `amplitude sin(2 pi frequency t + phase)`, N.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sinusoid {
    /// Amplitude, N (any finite value, sign included).
    pub amplitude: f64,
    /// Frequency, Hz (finite, >= 0).
    pub frequency: f64,
    /// Phase, rad (finite; default 0).
    #[serde(default)]
    pub phase: f64,
}

impl Sinusoid {
    /// `amplitude sin(2 pi frequency t)`: amplitude in N, frequency in Hz.
    pub fn new(amplitude: f64, frequency: f64) -> Self {
        Self { amplitude, frequency, phase: 0.0 }
    }

    setters! {
        /// Sets the phase, rad.
        set phase(phase: f64) => phase;
    }

    /// Checks the term: amplitude and phase finite, frequency finite and >= 0. `subject` names
    /// the term (`force on "reed", sinusoid 2`).
    pub(crate) fn check(&self, subject: &str) -> Result<(), ModelError> {
        check_finite(subject, "amplitude", self.amplitude)?;
        check_non_negative(subject, "frequency", self.frequency)?;
        check_finite(subject, "phase", self.phase)
    }
}

/// A recorded signal: `values[n]` at time `n / rate`, scaled by `gain`.
///
/// Between samples the signal is interpolated linearly. It is 0 before `t = 0` and from
/// `t = len / rate` on; between the last sample and `len / rate` it falls linearly to 0 (the
/// silence after the recording is the sample that follows the last one).
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Sample rate, Hz (> 0).
    pub rate: f64,
    /// Force at full scale, N: a sample value of 1 is `gain` newtons (any finite value).
    pub gain: f64,
    /// The samples, full scale = 1 (finite).
    pub values: Vec<f64>,
}

impl Samples {
    /// The interpolated, scaled signal at time `t` (s), N.
    pub fn value(&self, t: f64) -> f64 {
        self.gain * interpolate(&self.values, t * self.rate)
    }
}

/// `values` interpolated linearly at the fractional index `s`: 0 for `s < 0` and for
/// `s >= len`, and falling linearly from the last value to 0 over `[len - 1, len)`.
pub(crate) fn interpolate(values: &[f64], s: f64) -> f64 {
    if !(s >= 0.0 && s < values.len() as f64) {
        return 0.0;
    }
    let i = s as usize;
    let fraction = s - i as f64;
    let here = values.get(i).copied().unwrap_or(0.0);
    let next = values.get(i + 1).copied().unwrap_or(0.0);
    here + fraction * (next - here)
}

/// The time course of a driving force.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// A constant force, N.
    Constant(f64),
    /// A sum of sinusoids (at least one), N.
    Sinusoids(Vec<Sinusoid>),
    /// A recorded signal (a WAV file's channel), N.
    Samples(Samples),
}

impl Default for Signal {
    /// No force: a constant 0 N.
    fn default() -> Self {
        Self::Constant(0.0)
    }
}

impl Signal {
    /// The force at time `t` (s), N.
    pub fn value(&self, t: f64) -> f64 {
        match self {
            Self::Constant(value) => *value,
            Self::Sinusoids(terms) => terms
                .iter()
                .map(|s| s.amplitude * (2.0 * std::f64::consts::PI * s.frequency * t + s.phase).sin())
                .sum(),
            Self::Samples(samples) => samples.value(t),
        }
    }

    /// Checks the signal: a constant is finite; sinusoids are at least one, each checked by
    /// [`Sinusoid::check`]; samples have a rate > 0, a finite gain and finite values (errors on
    /// `wav` and `gain`).
    pub(crate) fn check(&self, subject: &str) -> Result<(), ModelError> {
        match self {
            Signal::Constant(value) => check_finite(subject, "constant", *value),
            Signal::Sinusoids(terms) => {
                if terms.is_empty() {
                    return Err(ModelError::new(subject, "sinusoids", "at least one sinusoid", "[]"));
                }
                for (i, term) in terms.iter().enumerate() {
                    term.check(&format!("{subject}, sinusoid {}", i + 1))?;
                }
                Ok(())
            }
            Signal::Samples(samples) => {
                if !(samples.rate > 0.0 && samples.rate.is_finite()) {
                    return Err(ModelError::new(subject, "wav", "a sample rate > 0 Hz", samples.rate));
                }
                check_finite(subject, "gain", samples.gain)?;
                match samples.values.iter().position(|v| !v.is_finite()) {
                    Some(n) => Err(ModelError::new(
                        subject,
                        "wav",
                        "finite samples",
                        format!("{} at sample {n} (0-based)", samples.values[n]),
                    )),
                    None => Ok(()),
                }
            }
        }
    }
}

/// An external (driving) force on one coordinate of one mass.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalForce {
    /// The mass it pushes (index into [`Model::masses`]).
    pub mass: usize,
    /// The axis: 0 = x, 1 = y, 2 = z.
    pub axis: usize,
    /// Its time course.
    pub signal: Signal,
}

/// An external force as a user gives it (`[[force]]`), before its mass is resolved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForceSpec {
    /// The mass.
    pub mass: NodeRef,
    /// The axis: 0 = x (the default), 1 = y, 2 = z (within the model's dimension).
    pub axis: usize,
    /// Its time course.
    pub signal: Signal,
}

impl ForceSpec {
    /// A force `signal` (N) along x on `mass`.
    pub fn new(mass: impl Into<NodeRef>, signal: Signal) -> Self {
        Self { mass: mass.into(), axis: 0, signal }
    }

    setters! {
        /// Sets the axis: 0 = x, 1 = y, 2 = z.
        set axis(axis: usize) => axis;
    }
}

impl Model {
    /// Adds an external force on one axis of one mass. Rules: the mass exists and is a mass;
    /// the axis exists in the model's dimension; the signal passes its checks (finite values,
    /// at least one sinusoid, frequencies >= 0, a sample rate > 0).
    pub fn add_force(&mut self, spec: ForceSpec) -> Result<(), ModelError> {
        let subject = format!("force on \"{}\"", self.label(&spec.mass));
        let mass = self.resolve_mass(&subject, "mass", &spec.mass)?;
        self.check_axis(&subject, spec.axis)?;
        spec.signal.check(&subject)?;
        self.forces.push(ExternalForce { mass, axis: spec.axis, signal: spec.signal });
        Ok(())
    }

    /// Checks that `axis` (0 = x, 1 = y, 2 = z) is one of the model's axes.
    pub(crate) fn check_axis(&self, subject: &str, axis: usize) -> Result<(), ModelError> {
        if axis < self.dimension {
            return Ok(());
        }
        let dim = self.dimension;
        Err(ModelError::new(
            subject,
            "axis",
            format!("one of the model's {dim} axes ({})", &"x, y, z"[..3 * dim - 2]),
            ["x", "y", "z"].get(axis).map_or_else(|| axis.to_string(), |name| name.to_string()),
        ))
    }
}
