//! Excitations that act over many steps. Each computes, once per step from the state at the
//! step's start, the force it holds on one state coordinate through the step: the interaction
//! is explicit in time, as Chatziioannou 2019, eq. (50) treats external forces, and the same on
//! every path and scheme. [`Excitation`] is one in play, as the engine keeps it.

use crate::model::Signal;

/// A force pulse `F(t) = peak (1 - cos(2 pi t / duration)) / 2` for `0 <= t < duration`: a
/// pluck by a force rather than a shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Pulse {
    /// The state coordinate pushed.
    pub coordinate: usize,
    /// Peak force, N.
    pub peak: f64,
    /// Length, s.
    pub duration: f64,
}

impl Pulse {
    /// The force `elapsed` seconds after the start, N (0 once over).
    pub fn force(&self, elapsed: f64) -> f64 {
        if elapsed < self.duration {
            0.5 * self.peak * (1.0 - (std::f64::consts::TAU * elapsed / self.duration).cos())
        } else {
            0.0
        }
    }
}

/// A finger or a plectrum plucking: it pulls the coordinate aside with a force that rises to
/// `peak` over `pull` s, `F = peak (1 - cos(pi t / pull)) / 2`, and lets go of it over `release`
/// s, `F = peak (1 + cos(pi (t - pull) / release)) / 2`. A string pulled slowly against its
/// partials' periods is near its static deflection under the force when let go, so that the
/// release starts a released shape's vibration: partials falling as `1 / n^2` times the pluck
/// position's comb, as a plucked string's (Fletcher & Rossing 1998, ch. 2), with its
/// highs kept to about `1 / (2 release)`: the release's half cosine multiplies a step's spectrum
/// by `cos(pi f release) / (1 - (2 f release)^2)`. A fast release (a plectrum, 0.1 ms) is
/// bright; a slow one (the flesh of a finger) is mellow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pluck {
    /// The state coordinate pulled.
    pub coordinate: usize,
    /// The force when let go, N.
    pub peak: f64,
    /// How long the pull takes, s (> 0).
    pub pull: f64,
    /// How long the release takes, s (> 0).
    pub release: f64,
}

impl Pluck {
    /// How long it acts, s.
    pub fn duration(&self) -> f64 {
        self.pull + self.release
    }

    /// The force `elapsed` seconds after the pull began, N (0 once let go).
    pub fn force(&self, elapsed: f64) -> f64 {
        use std::f64::consts::PI;
        if elapsed < self.pull {
            0.5 * self.peak * (1.0 - (PI * elapsed / self.pull).cos())
        } else if elapsed < self.duration() {
            0.5 * self.peak * (1.0 + (PI * (elapsed - self.pull) / self.release).cos())
        } else {
            0.0
        }
    }
}

/// A hammer of mass `mass` thrown at a mass with speed `velocity` (in the +x direction, from
/// just touching it), pressing it through a felt with Hertz's law `F = stiffness delta^exponent`
/// while the compression `delta = x_hammer - x_mass` is positive (Chatziioannou 2019, eq. (44));
/// its own motion follows symplectic Euler under the felt's reaction. The felt's nonlinearity makes
/// a harder blow shorter and brighter.
#[derive(Debug, Clone, PartialEq)]
pub struct Hammer {
    /// The state coordinate struck.
    pub coordinate: usize,
    /// Hammer mass, kg.
    pub mass: f64,
    /// Felt stiffness, N/m^exponent.
    pub stiffness: f64,
    /// Hertz exponent (>= 1; about 2.5 for piano felt).
    pub exponent: f64,
    /// Speed at impact, m/s.
    pub velocity: f64,
}

/// A hammer in flight: its position (m) and velocity (m/s), and whether it has touched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HammerFlight {
    position: f64,
    velocity: f64,
    touched: bool,
}

/// How long a hammer may stay in play, s: a blow lasts milliseconds.
pub const HAMMER_WINDOW: f64 = 0.1;

impl Hammer {
    /// The hammer leaving a struck mass at `x` (m).
    pub fn launch(&self, x: f64) -> HammerFlight {
        HammerFlight { position: x, velocity: self.velocity, touched: false }
    }

    /// The felt's force on the struck mass at position `x` and velocity `v` (N), advancing the
    /// hammer by one step `dt` (s) under its reaction. `None` once the hammer has left (touched,
    /// then out of contact and slower than the mass).
    pub fn force(&self, flight: &mut HammerFlight, x: f64, v: f64, dt: f64) -> Option<f64> {
        let compression = flight.position - x;
        let force = if compression > 0.0 { self.stiffness * compression.powf(self.exponent) } else { 0.0 };
        flight.touched |= force > 0.0;
        if flight.touched && force == 0.0 && flight.velocity < v {
            return None;
        }
        flight.velocity -= dt * force / self.mass;
        flight.position += dt * flight.velocity;
        Some(force)
    }
}

/// A bow drawn at speed `velocity` across a mass, pressed with `force`: the friction force is
/// `-force phi(u)` with `u` the mass's velocity relative to the bow and the standard soft
/// friction curve `phi(u) = sqrt(2 a) u exp(-a u^2 + 1/2)` (Bilbao, *Numerical Sound
/// Synthesis*, 2009, section 7.3; its peak is 1 at `u = 1 / sqrt(2 a)`). The friction force is
/// implicit in the mass's new velocity: with `v*` the velocity symplectic Euler would give
/// without the bow, `u` solves `u + (h force / m) phi(u) = v* - velocity`, which keeps the
/// interaction stable at any bow force.
#[derive(Debug, Clone, PartialEq)]
pub struct Bow {
    /// The state coordinate bowed.
    pub coordinate: usize,
    /// Bow speed, m/s.
    pub velocity: f64,
    /// Bow force, N.
    pub force: f64,
    /// The friction curve's sharpness `a`, s^2/m^2.
    pub sharpness: f64,
    /// How long the bow stays on, s.
    pub duration: f64,
}

impl Bow {
    /// `phi(u)` and `phi'(u)`.
    fn friction(&self, u: f64) -> (f64, f64) {
        let a = self.sharpness;
        let shape = (2.0 * a).sqrt() * (-a * u * u + 0.5).exp();
        (shape * u, shape * (1.0 - 2.0 * a * u * u))
    }

    /// The friction force (N) on a mass of `mass` kg whose velocity without the bow would be
    /// `free_velocity` (m/s) after a step `dt` (s). `relative` carries the last relative
    /// velocity from step to step (the root followed through stick and slip).
    pub fn friction_force(&self, free_velocity: f64, mass: f64, dt: f64, relative: &mut f64) -> f64 {
        let beta = dt * self.force / mass;
        let target = free_velocity - self.velocity;
        let residual = |u: f64| u + beta * self.friction(u).0 - target;
        let mut u = *relative;
        let mut converged = false;
        for _ in 0..BOW_NEWTON_ITERATIONS {
            let slope = 1.0 + beta * self.friction(u).1;
            if slope <= 0.0 {
                break;
            }
            let next = u - residual(u) / slope;
            converged = (next - u).abs() <= 1e-14 * (1.0 + next.abs());
            u = next;
            if converged {
                break;
            }
        }
        if !converged {
            // |phi| <= 1, so a root lies in [target - beta, target + beta]: bisect.
            let (mut low, mut high) = (target - beta - 1e-12, target + beta + 1e-12);
            for _ in 0..200 {
                let middle = 0.5 * (low + high);
                if residual(middle) > 0.0 {
                    high = middle;
                } else {
                    low = middle;
                }
            }
            u = 0.5 * (low + high);
        }
        *relative = u;
        -self.force * self.friction(u).0
    }
}

/// Iterations of the bow's Newton solve before it falls back to bisection.
const BOW_NEWTON_ITERATIONS: usize = 30;

/// A drive: `signal(t)` newtons on a coordinate, `t` counted from the drive's start, for
/// `duration` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Drive {
    /// The state coordinate driven.
    pub coordinate: usize,
    /// The force, N, against time from the start, s.
    pub signal: Signal,
    /// How long, s.
    pub duration: f64,
}

/// An excitation started on the engine ([`super::Event::Excite`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Excitation {
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
}

impl Excitation {
    /// The state coordinate it acts on.
    pub fn coordinate(&self) -> usize {
        match self {
            Self::Pulse(pulse) => pulse.coordinate,
            Self::Pluck(pluck) => pluck.coordinate,
            Self::Strike(hammer) => hammer.coordinate,
            Self::Bow(bow) => bow.coordinate,
            Self::Drive(drive) => drive.coordinate,
        }
    }
}

/// An excitation in play and what it carries from step to step.
#[derive(Debug, Clone)]
pub(crate) enum Playing {
    Pulse(Pulse),
    Pluck(Pluck),
    Hammer(Hammer, HammerFlight),
    /// The bow and the last relative velocity (m/s).
    Bow(Bow, f64),
    Drive(Drive),
}

impl Playing {
    /// The excitation starting now, on a coordinate at position `x` (m).
    pub(crate) fn start(excitation: Excitation, x: f64) -> Self {
        match excitation {
            Excitation::Pulse(pulse) => Self::Pulse(pulse),
            Excitation::Pluck(pluck) => Self::Pluck(pluck),
            Excitation::Strike(hammer) => {
                let flight = hammer.launch(x);
                Self::Hammer(hammer, flight)
            }
            Excitation::Bow(bow) => {
                let relative = -bow.velocity;
                Self::Bow(bow, relative)
            }
            Excitation::Drive(drive) => Self::Drive(drive),
        }
    }

    /// The coordinate it acts on now.
    pub(crate) fn target(&self) -> usize {
        match self {
            Self::Pulse(pulse) => pulse.coordinate,
            Self::Pluck(pluck) => pluck.coordinate,
            Self::Hammer(hammer, _) => hammer.coordinate,
            Self::Bow(bow, _) => bow.coordinate,
            Self::Drive(drive) => drive.coordinate,
        }
    }

    /// The force (N) it holds on [`Playing::target`] through the step of length `dt` (s)
    /// starting `elapsed` seconds after it began; `None` once it is over. `motion` is the
    /// target's position (m) and velocity (m/s), `free_velocity` gives its velocity after the
    /// step without this force (m/s), `mass` is its mass (kg).
    pub(crate) fn force(
        &mut self,
        elapsed: f64,
        dt: f64,
        (x, v): (f64, f64),
        free_velocity: impl FnOnce() -> f64,
        mass: f64,
    ) -> Option<f64> {
        match self {
            Self::Pulse(pulse) => (elapsed < pulse.duration).then(|| pulse.force(elapsed)),
            Self::Pluck(pluck) => (elapsed < pluck.duration()).then(|| pluck.force(elapsed)),
            Self::Drive(drive) => (elapsed < drive.duration).then(|| drive.signal.value(elapsed)),
            Self::Hammer(hammer, flight) => {
                (elapsed < HAMMER_WINDOW).then(|| hammer.force(flight, x, v, dt)).flatten()
            }
            Self::Bow(bow, relative) => {
                (elapsed < bow.duration).then(|| bow.friction_force(free_velocity(), mass, dt, relative))
            }
        }
    }
}
