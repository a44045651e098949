//! What an engine is built with ([`EngineConfig`]), which path it runs ([`PathKind`]) and what
//! it can be told between steps ([`Event`]).

use super::excitation::Excitation;
use super::settings::StepSize;
use crate::model::ModelError;
use crate::scheme::{SchemeError, SchemeKind};
use crate::system::System;

/// The precision of the stencil kernels (the other paths are always f64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 64-bit floats.
    #[default]
    F64,
    /// 32-bit floats: twice the numbers per cache line and vector register.
    F32,
}

/// The most threads an engine takes: more than any machine it runs on has cores to give.
pub const MAX_THREADS: usize = 256;

/// The largest oversampling factor (simulation steps per output sample).
pub const MAX_OVERSAMPLE: usize = 64;

/// How to run a model: the scheme, the step, the output rate and the fast paths.
///
/// ```
/// use hooke::engine::EngineConfig;
/// use hooke::scheme::SchemeKind;
/// let config = EngineConfig::default().scheme(SchemeKind::VelocityVerlet).rate(96_000.0).oversample(2);
/// assert_eq!(config.output_rate(), 48_000.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineConfig {
    /// The integrator. Default: symplectic Euler.
    pub scheme: SchemeKind,
    /// The simulation step, as a rate (Hz) or a length (s). Default: 44 100 Hz.
    pub step: StepSize,
    /// Simulation steps per output frame, 1 to [`MAX_OVERSAMPLE`]; above 1 the output is
    /// low-pass filtered and decimated ([`super::decimate`]). Default: 1.
    pub oversample: usize,
    /// Precision of the stencil kernels. Default: f64.
    pub precision: Precision,
    /// Threads for the kernels, 1 to [`MAX_THREADS`]. Default: 1.
    pub threads: usize,
    /// Whether a kernel may run (false: always the general path, for comparisons). Default: true.
    pub kernels: bool,
    /// Whether uniform strings and membranes may run mode by mode on the modal kernel (false:
    /// symplectic Euler keeps its stencils and the string bank, any other scheme the general
    /// path; for comparisons). Default: true.
    pub modal: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            scheme: SchemeKind::SymplecticEuler,
            step: StepSize::Rate(44_100.0),
            oversample: 1,
            precision: Precision::F64,
            threads: 1,
            kernels: true,
            modal: true,
        }
    }
}

impl EngineConfig {
    /// With this scheme.
    pub fn scheme(self, scheme: SchemeKind) -> Self {
        Self { scheme, ..self }
    }

    /// With this simulation rate, Hz.
    pub fn rate(self, hz: f64) -> Self {
        Self { step: StepSize::Rate(hz), ..self }
    }

    /// With this simulation step, s.
    pub fn dt(self, seconds: f64) -> Self {
        Self { step: StepSize::Dt(seconds), ..self }
    }

    /// With `factor` simulation steps per output frame.
    pub fn oversample(self, factor: usize) -> Self {
        Self { oversample: factor, ..self }
    }

    /// With the kernels in this precision.
    pub fn precision(self, precision: Precision) -> Self {
        Self { precision, ..self }
    }

    /// With this many threads for the kernels.
    pub fn threads(self, threads: usize) -> Self {
        Self { threads, ..self }
    }

    /// Never on the modal kernel (symplectic Euler on its stencils and the string bank).
    pub fn without_modal(self) -> Self {
        Self { modal: false, ..self }
    }

    /// On the general path only, never a kernel.
    pub fn general_only(self) -> Self {
        Self { kernels: false, ..self }
    }

    /// The output frame rate, Hz: the simulation rate divided by the oversampling.
    pub fn output_rate(&self) -> f64 {
        self.step.hertz() / self.oversample.max(1) as f64
    }

    /// Checks every figure; the error names the field, what was expected and what was found.
    pub fn check(&self) -> Result<(), ModelError> {
        let step = self.step.seconds();
        if !(step.is_finite() && step > 0.0 && self.step.hertz().is_finite()) {
            let (field, found) = match self.step {
                StepSize::Rate(hz) => ("rate", hz),
                StepSize::Dt(dt) => ("dt", dt),
            };
            return Err(ModelError::new("engine", field, "a finite number > 0", found));
        }
        if !(1..=MAX_OVERSAMPLE).contains(&self.oversample) {
            return Err(ModelError::new(
                "engine",
                "oversample",
                format!("a factor from 1 to {MAX_OVERSAMPLE}"),
                self.oversample,
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return Err(ModelError::new(
                "engine",
                "threads",
                format!("1 to {MAX_THREADS} threads"),
                self.threads,
            ));
        }
        Ok(())
    }
}

/// The path an engine runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// Any scheme on any system, one step at a time ([`crate::scheme`]).
    General,
    /// Symplectic Euler on a uniform chain: the stencil with temporal blocking.
    Chain,
    /// Symplectic Euler on a uniform membrane: the five-point stencil.
    Membrane,
    /// Symplectic Euler on independent 1D strings: the string bank, in vector lanes.
    Strings,
    /// Any scheme on uniform strings or a uniform membrane, mode by mode: the modal kernel.
    Modal,
    /// Symplectic Euler on a linear network split into parts in their own modes and a few
    /// masses stepped directly (strings on a bridge and a body, bars, plates): the coupled
    /// modal kernel.
    Parts,
    /// A device's path ([`super::Device`]: the GPU).
    Device,
}

impl PathKind {
    /// A short name for reports: `general`, `chain kernel`, `membrane kernel`, `string kernel`,
    /// `modal kernel`, `coupled modal kernel`, `device`.
    pub fn name(self) -> &'static str {
        match self {
            Self::General => "general",
            Self::Chain => "chain kernel",
            Self::Membrane => "membrane kernel",
            Self::Strings => "string kernel",
            Self::Modal => "modal kernel",
            Self::Parts => "coupled modal kernel",
            Self::Device => "device",
        }
    }
}

/// A change the engine makes between two steps (now, or at a step given to
/// [`super::Engine::schedule`]). Coordinates are state indices (`mass * dimension + axis`,
/// [`super::Engine::coordinate`]); nodes are system node indices (masses, then anchors).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Set these coordinates to these positions (m), at rest: a pluck's shape.
    Shape(Vec<(usize, f64)>),
    /// Set a coordinate's position (m) and velocity (m/s).
    Motion {
        /// The coordinate.
        coordinate: usize,
        /// Position, m.
        position: f64,
        /// Velocity, m/s.
        velocity: f64,
    },
    /// Start an excitation (a pulse, a hammer, a bow, a drive): it acts until it is over.
    Excite(Excitation),
    /// Set the spring and damper joining two nodes (those that exist), N/m and N s/m.
    Link {
        /// One node.
        a: usize,
        /// The other.
        b: usize,
        /// Stiffness, N/m.
        stiffness: f64,
        /// Damping, N s/m.
        damping: f64,
    },
    /// Set a mass's drag coefficient, N s/m (a force `-drag v` on each coordinate).
    Drag {
        /// The mass (index).
        mass: usize,
        /// Drag, N s/m.
        drag: f64,
    },
    /// Set a mass's mass, kg (> 0).
    Mass {
        /// The mass (index).
        mass: usize,
        /// Its new mass, kg.
        kilograms: f64,
    },
    /// Scale the mode damping of the string a mass is in (`model::ModeDamping`): every mode's
    /// rate times `scale` (1: as built). Nothing for a mass in none.
    ModeDamping {
        /// A mass of the string (index).
        mass: usize,
        /// The factor on every rate, >= 0.
        scale: f64,
    },
    /// Stop a mass where it is (velocity 0 from now on) or free it.
    Stop {
        /// The mass (index).
        mass: usize,
        /// Stopped or free.
        stopped: bool,
    },
}

/// Why an engine could not be built.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A pickup names no mass of the model, or the channels have gaps.
    #[error(transparent)]
    Pickup(#[from] super::PickupError),
    /// A figure of the [`EngineConfig`] is out of range.
    #[error(transparent)]
    Config(#[from] ModelError),
    /// The scheme cannot take the configured step on this system ([`SchemeKind::build`]).
    #[error(transparent)]
    Scheme(#[from] SchemeError),
    /// The device asked for cannot run this model.
    #[error("{device} cannot run this model: {reason}")]
    Device {
        /// The device's name.
        device: String,
        /// Why, in the device's words.
        reason: String,
    },
}

impl Event {
    /// Checks the event against `system`: every index in range, every figure finite and of the
    /// right sign. The error names the field, what was expected and what was found.
    pub fn check(&self, system: &System) -> Result<(), ModelError> {
        let coordinates = system.mass_coordinates();
        let in_range = |field: &'static str, index: usize, count: usize, what: &str| {
            if index < count {
                Ok(())
            } else {
                Err(ModelError::new("event", field, format!("one of the {count} {what}"), index))
            }
        };
        let finite = |field: &'static str, value: f64, positive: bool| {
            if value.is_finite() && (!positive || value >= 0.0) {
                Ok(())
            } else {
                let expected = if positive { "a finite number >= 0" } else { "a finite number" };
                Err(ModelError::new("event", field, expected, value))
            }
        };
        match self {
            Self::Shape(values) => values.iter().try_for_each(|&(c, x)| {
                in_range("coordinate", c, coordinates, "moving coordinates")?;
                finite("position", x, false)
            }),
            Self::Motion { coordinate, position, velocity } => {
                in_range("coordinate", *coordinate, coordinates, "moving coordinates")?;
                finite("position", *position, false)?;
                finite("velocity", *velocity, false)
            }
            Self::Excite(excitation) => {
                in_range("coordinate", excitation.coordinate(), coordinates, "moving coordinates")
            }
            Self::Link { a, b, stiffness, damping } => {
                let nodes = system.node_ids().len();
                in_range("a", *a, nodes, "nodes")?;
                in_range("b", *b, nodes, "nodes")?;
                finite("stiffness", *stiffness, true)?;
                finite("damping", *damping, true)
            }
            Self::Drag { mass, drag } => {
                in_range("mass", *mass, system.mass_count(), "masses")?;
                finite("drag", *drag, true)
            }
            Self::Mass { mass, kilograms } => {
                in_range("mass", *mass, system.mass_count(), "masses")?;
                if kilograms.is_finite() && *kilograms > 0.0 {
                    Ok(())
                } else {
                    Err(ModelError::new("event", "kilograms", "a finite mass > 0 kg", kilograms))
                }
            }
            Self::ModeDamping { mass, scale } => {
                in_range("mass", *mass, system.mass_count(), "masses")?;
                finite("scale", *scale, true)
            }
            Self::Stop { mass, .. } => in_range("mass", *mass, system.mass_count(), "masses"),
        }
    }
}
