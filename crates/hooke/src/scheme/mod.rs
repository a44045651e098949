//! Integrators. Each scheme is one file implementing [`Scheme`]; [`SchemeKind`] names them.
//!
//! A scheme is built for one system and one step size ([`SchemeKind::build`]), so an implicit
//! scheme can factor its matrix once, and it keeps its own scratch buffers between steps. It
//! advances positions and velocities of the masses; the run loop advances the clock.

mod forward_euler;
mod symplectic_euler;

pub use forward_euler::ForwardEuler;
pub use symplectic_euler::SymplecticEuler;

use crate::system::{State, System};
use std::fmt;
use std::str::FromStr;

/// The force buffer of a scheme that evaluates the total force once per step.
#[derive(Debug, Clone)]
struct ForceEvaluation {
    force: Vec<f64>,
}

impl ForceEvaluation {
    fn new(system: &System) -> Self {
        Self { force: vec![0.0; system.initial_state().x.len()] }
    }

    /// Evaluates `F(x_n, v_n, t_n)` and calls `update(x, v, F/m)` for every moving coordinate.
    #[inline]
    fn update_each(&mut self, system: &System, state: &mut State, update: impl Fn(&mut f64, &mut f64, f64)) {
        crate::forces::total(system, &state.x, &state.v, state.t, &mut self.force);
        let n = system.mass_coordinates();
        let (x, v) = (&mut state.x[..n], &mut state.v[..n]);
        for (((x, v), f), inv_m) in x.iter_mut().zip(v).zip(&self.force).zip(system.inverse_mass()) {
            update(x, v, f * inv_m);
        }
    }
}

/// A step that could not be completed (an implicit solve that did not converge, for example).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SchemeError {
    /// What went wrong, with the figures that show it.
    pub message: String,
}

/// One integrator, built for a system and a step size.
pub trait Scheme: Send {
    /// Which scheme this is.
    fn kind(&self) -> SchemeKind;

    /// Advances the masses of `state` from time `state.t` by one step. Does not touch
    /// `state.t` or `state.step`.
    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError>;
}

/// The schemes Hooke knows, by kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// `forward-euler`: the blog's update (seed 004), first order, gains energy.
    ForwardEuler,
    /// `symplectic-euler`: velocity then position (seed 000 eq. 26), first order, symplectic.
    SymplecticEuler,
}

/// Facts about a scheme that tests and analysis rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemeInfo {
    /// Global order of accuracy (without damping for schemes where damping lowers it).
    pub order: u32,
    /// Whether the undamped scheme is symplectic.
    pub symplectic: bool,
    /// Whether a step needs no system solve.
    pub explicit: bool,
}

impl SchemeKind {
    /// Every scheme, in the order they are listed to users.
    pub const ALL: [SchemeKind; 2] = [SchemeKind::ForwardEuler, SchemeKind::SymplecticEuler];

    /// The kebab-case name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::ForwardEuler => "forward-euler",
            Self::SymplecticEuler => "symplectic-euler",
        }
    }

    /// Order, symplecticity and explicitness.
    pub fn info(self) -> SchemeInfo {
        match self {
            Self::ForwardEuler => SchemeInfo { order: 1, symplectic: false, explicit: true },
            Self::SymplecticEuler => SchemeInfo { order: 1, symplectic: true, explicit: true },
        }
    }

    /// Builds the scheme for `system` with step `dt` (s).
    pub fn build(self, system: &System, dt: f64) -> Box<dyn Scheme> {
        match self {
            Self::ForwardEuler => Box::new(ForwardEuler::new(system, dt)),
            Self::SymplecticEuler => Box::new(SymplecticEuler::new(system, dt)),
        }
    }

    /// All names, comma-separated, for messages.
    pub fn names() -> String {
        Self::ALL.map(Self::name).join(", ")
    }
}

impl fmt::Display for SchemeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown scheme name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown scheme \"{0}\"; expected one of: {names}", names = SchemeKind::names())]
pub struct UnknownScheme(pub String);

impl FromStr for SchemeKind {
    type Err = UnknownScheme;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|kind| kind.name() == name).ok_or_else(|| UnknownScheme(name.to_string()))
    }
}
