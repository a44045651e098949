//! Scores: timed events that play an [`Instrument`](crate::instrument::Instrument) (the guitar
//! script of Morgan & Qiao 2009: plucks, frets, releases and damping, plus strikes, bows, drives and
//! parameter changes). The score format (docs/score-format.md, read by the file layer above)
//! resolves each event against the instrument into a [`Cue`]: what to do to which masses at
//! which time.
//! [`crate::engine::excitation`] holds the interactions that act over many steps (a hammer, a bow, a force
//! pulse, a drive); [`performance`] plays the cues.

pub mod controls;
pub mod expression;
mod input;
pub mod live;
pub mod notes;
pub mod performance;
mod reason;
mod strands;
pub mod tuning;

pub use crate::engine::excitation::{Bow, Drive, Hammer, Pluck, Pulse};

use crate::instrument::frets::FretStop;

/// A resolved event: at `time` (s), `action` on part `part` (an index into the instrument's
/// parts).
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    /// When, s.
    pub time: f64,
    /// Which part.
    pub part: usize,
    /// What happens.
    pub action: Action,
}

/// What a cue does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Set these state coordinates to these positions (m), at rest: a pluck's shape.
    Shape(Vec<(usize, f64)>),
    /// A force pulse.
    Pulse(Pulse),
    /// A finger's or a plectrum's pull and release.
    Pluck(Pluck),
    /// A hammer thrown at a mass.
    Strike(Hammer),
    /// A bow drawn across a mass.
    Bow(Bow),
    /// A drive on a mass.
    Drive(Drive),
    /// Press a fret (replacing any fret held on the string).
    Fret(FretStop),
    /// Lift the finger.
    Release,
    /// Add drag `gamma` (1/s: the force on each mass is `-gamma m v`) to every mass of the part.
    Damp(f64),
    /// Remove that drag.
    Undamp,
    /// Scale every link's stiffness of the part by this factor (relative to the instrument as
    /// built).
    Tension(f64),
    /// Scale every link's damping of the part by this factor.
    Damping(f64),
}

/// A score resolved against an instrument.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// `[score] name`, if given.
    pub name: Option<String>,
    /// `[score] description`, if given.
    pub description: Option<String>,
    /// Length of the rendering, s.
    pub duration: f64,
    /// The cues, by time (ties in the order: fret/release, set, damp/undamp, excitations).
    pub cues: Vec<Cue>,
}

impl Score {
    /// The simulation steps of `dt` seconds the rendering lasts: its duration, rounded.
    pub fn steps(&self, dt: f64) -> u64 {
        (self.duration / dt).round() as u64
    }
}
