//! Integrators. Each scheme is one file implementing [`Scheme`]; [`SchemeKind`] names them.
//!
//! A scheme is built for one system and one step size ([`SchemeKind::build`]), so an implicit
//! scheme can factor its matrix once, and it keeps its own scratch buffers between steps. It
//! advances positions and velocities of the masses; the run loop advances the clock.

mod backward_euler;
mod damping_flow;
mod energy_conserving;
mod exact;
mod forward_euler;
mod implicit;
mod midpoint;
mod newton;
mod rk4;
mod splitting;
mod symplectic_euler;
mod trapezoidal;
mod vefrl;
mod velocity_verlet;

pub use backward_euler::BackwardEuler;
pub use energy_conserving::EnergyConserving;
pub use exact::Exact;
pub use forward_euler::ForwardEuler;
pub use midpoint::Midpoint;
pub use newton::{LinearSolver, SolverStats, DENSE_LIMIT};
pub use rk4::Rk4;
pub use splitting::{caldirola_kanai, energy_conserving_cs, velocity_verlet_cs, Splitting};
pub use symplectic_euler::SymplecticEuler;
pub use trapezoidal::Trapezoidal;
pub use vefrl::Vefrl;
pub use velocity_verlet::VelocityVerlet;

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

/// The energy one step exchanged with the outside, in the form a scheme balances exactly:
/// `H_{n+1} = H_n - dissipated + external_work` to round-off (Chatziioannou 2019, eqs. (17), (54)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyExchange {
    /// Energy removed by dampers and drag during the step, J.
    pub dissipated: f64,
    /// Work done by the external forces during the step, J.
    pub external_work: f64,
}

/// One integrator, built for a system and a step size.
pub trait Scheme: Send {
    /// Which scheme this is.
    fn kind(&self) -> SchemeKind;

    /// Advances the masses of `state` from time `state.t` by one step. Does not touch
    /// `state.t` or `state.step`.
    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError>;

    /// The energy the last step exchanged, for schemes with an exact discrete energy balance
    /// (energy-conserving, Caldirola-Kanai, EC[cs]); `None` for the others.
    fn last_exchange(&self) -> Option<EnergyExchange> {
        None
    }

    /// What the nonlinear solves of an implicit scheme have cost so far (Newton iterations,
    /// factorisations); `None` for a scheme that solves nothing.
    fn solver_stats(&self) -> Option<SolverStats> {
        None
    }

    /// Takes `system`'s values as they are now (a link's stiffness, a drag, a mass) in place,
    /// where its sizes are the ones it was built for; `false` where it must be built again (the
    /// default: a scheme that keeps nothing of the system's values says so by taking them).
    /// Allocates nothing.
    fn retake(&mut self, _system: &System) -> bool {
        false
    }
}

/// The schemes Hooke knows, by kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// `forward-euler`: the update of Domoszlai's blog post, first order, gains energy.
    ForwardEuler,
    /// `symplectic-euler`: velocity then position (Morgan & Qiao 2009, eq. (26)), first order,
    /// symplectic.
    SymplecticEuler,
    /// `rk4`: classical Runge-Kutta (Morgan & Qiao 2008, section 3), fourth order, loses energy.
    Rk4,
    /// `vefrl`: velocity-extended Forest-Ruth-like (Morgan & Qiao 2008, eq. (14), Algorithm 1),
    /// fourth order and symplectic without damping, first order with dampers or drag.
    Vefrl,
    /// `backward-euler`: implicit Euler (Morgan & Qiao 2009, eq. (6)), first order, numerically
    /// damped.
    BackwardEuler,
    /// `velocity-verlet`: Chatziioannou 2019, eq. (29), second order, symplectic without damping.
    VelocityVerlet,
    /// `energy-conserving`: the discrete-gradient scheme (Chatziioannou 2019, eqs. (26)-(27)),
    /// second order, exact energy balance; symplectic on a linear network only (where it is the
    /// midpoint rule; see [`SchemeInfo`]).
    EnergyConserving,
    /// `midpoint`: the implicit midpoint rule (Chatziioannou 2019, eq. (47)), second order,
    /// symplectic.
    Midpoint,
    /// `trapezoidal`: the trapezoidal rule (Chatziioannou 2019, eq. (48)), second order;
    /// symplectic on a linear network only (where it is the midpoint rule; see [`SchemeInfo`]).
    Trapezoidal,
    /// `caldirola-kanai`: Chatziioannou 2019, eqs. (35)-(36) (with the sign corrected in
    /// docs/errata.md), second order, conformal symplectic on a linear network (its undamped step
    /// is the energy-conserving one).
    CaldirolaKanai,
    /// `energy-conserving-cs`: Chatziioannou 2019, eq. (42), conformal symplectic splitting
    /// on a linear network (its undamped step is the energy-conserving one).
    EnergyConservingCs,
    /// `velocity-verlet-cs`: Chatziioannou 2019, eq. (43), conformal symplectic splitting.
    VelocityVerletCs,
    /// `exact`: the exact flow of the linear network (Chatziioannou 2019, section 2.5 taken to its
    /// end), nonlinear and external forces as impulses (eq. 50).
    Exact,
}

/// The order [`SchemeInfo`] gives the exact flow: no truncation error on a linear network.
pub const EXACT_ORDER: u32 = u32::MAX;

/// Facts about a scheme that tests and analysis rely on.
///
/// Symplecticity is that of the undamped scheme (`dy ^ dp` preserved by the one-step map), as
/// the literature states it (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006,
/// sections VI.3-VI.4 and VI.8; Chatziioannou 2019, section 2.4). Two levels are told apart,
/// because the implicit schemes differ only on nonlinear networks:
///
/// - on every conservative network (geometric springs, contacts): symplectic Euler, velocity
///   Verlet, VEFRL (compositions of exact flows of kinetic and potential parts), the implicit
///   midpoint rule (a symplectic Runge-Kutta method), the exact flow with its impulses (a linear
///   flow composed with a kick of a potential force) and VV[cs] (velocity Verlet when undamped);
/// - on linear networks only: the trapezoidal rule and the energy-conserving (discrete-gradient)
///   scheme, and with it Caldirola-Kanai and EC[cs], whose undamped step it is. With a quadratic
///   energy all three equal the implicit midpoint rule (Chatziioannou 2019, text after eq. (27)).
///   On a nonlinear network the trapezoidal rule is only conjugate to a symplectic method, and an
///   energy-conserving scheme cannot in general also be symplectic (Ge & Marsden 1988, cited
///   there as [19]).
///
/// Forward Euler, backward Euler and RK4 are symplectic on no network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemeInfo {
    /// Global order of accuracy without damping.
    pub order: u32,
    /// Global order of accuracy when dampers or drag are present.
    pub damped_order: u32,
    /// Whether the undamped scheme is symplectic on every conservative network, nonlinear ones
    /// included.
    pub symplectic: bool,
    /// Whether the undamped scheme is symplectic on a linear network (1D springs, no contacts):
    /// true wherever [`SchemeInfo::symplectic`] is, and for the schemes that equal the implicit
    /// midpoint rule there.
    pub linear_symplectic: bool,
    /// Whether a step needs no system solve.
    pub explicit: bool,
}

impl SchemeKind {
    /// Every scheme, in the order they are listed to users.
    pub const ALL: [SchemeKind; 13] = [
        SchemeKind::ForwardEuler,
        SchemeKind::SymplecticEuler,
        SchemeKind::BackwardEuler,
        SchemeKind::Rk4,
        SchemeKind::Vefrl,
        SchemeKind::VelocityVerlet,
        SchemeKind::EnergyConserving,
        SchemeKind::Midpoint,
        SchemeKind::Trapezoidal,
        SchemeKind::CaldirolaKanai,
        SchemeKind::EnergyConservingCs,
        SchemeKind::VelocityVerletCs,
        SchemeKind::Exact,
    ];

    /// The kebab-case name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::ForwardEuler => "forward-euler",
            Self::SymplecticEuler => "symplectic-euler",
            Self::Rk4 => "rk4",
            Self::Vefrl => "vefrl",
            Self::BackwardEuler => "backward-euler",
            Self::VelocityVerlet => "velocity-verlet",
            Self::EnergyConserving => "energy-conserving",
            Self::Midpoint => "midpoint",
            Self::Trapezoidal => "trapezoidal",
            Self::CaldirolaKanai => "caldirola-kanai",
            Self::EnergyConservingCs => "energy-conserving-cs",
            Self::VelocityVerletCs => "velocity-verlet-cs",
            Self::Exact => "exact",
        }
    }

    /// Order, symplecticity and explicitness (see [`SchemeInfo`] for why each scheme is, or is
    /// not, symplectic).
    pub fn info(self) -> SchemeInfo {
        // `symplectic`: on every network; `linear`: on a linear network.
        let info = |order, damped_order, symplectic, linear, explicit| SchemeInfo {
            order,
            damped_order,
            symplectic,
            linear_symplectic: linear,
            explicit,
        };
        match self {
            Self::ForwardEuler => info(1, 1, false, false, true),
            Self::SymplecticEuler => info(1, 1, true, true, true),
            Self::BackwardEuler => info(1, 1, false, false, false),
            Self::Rk4 => info(4, 4, false, false, true),
            Self::Vefrl => info(4, 1, true, true, true),
            Self::VelocityVerlet => info(2, 2, true, true, true),
            Self::EnergyConserving => info(2, 2, false, true, false),
            Self::Midpoint => info(2, 2, true, true, false),
            Self::Trapezoidal => info(2, 2, false, true, false),
            Self::CaldirolaKanai => info(2, 2, false, true, false),
            Self::EnergyConservingCs => info(2, 1, false, true, false),
            Self::VelocityVerletCs => info(2, 1, true, true, true),
            Self::Exact => info(EXACT_ORDER, EXACT_ORDER, true, true, true),
        }
    }

    /// Builds the scheme for `system` with step `dt` (s). Refused, with a [`SchemeError`] that
    /// says why, when the scheme cannot take that step on that system: a splitting whose exact
    /// damping flow would take too many sub-steps ([`Splitting`]).
    pub fn build(self, system: &System, dt: f64) -> Result<Box<dyn Scheme>, SchemeError> {
        Ok(match self {
            Self::ForwardEuler => Box::new(ForwardEuler::new(system, dt)),
            Self::SymplecticEuler => Box::new(SymplecticEuler::new(system, dt)),
            Self::Rk4 => Box::new(Rk4::new(system, dt)),
            Self::Vefrl => Box::new(Vefrl::new(system, dt)),
            Self::BackwardEuler => Box::new(BackwardEuler::new(system, dt)),
            Self::VelocityVerlet => Box::new(VelocityVerlet::new(system, dt)),
            Self::EnergyConserving => Box::new(EnergyConserving::new(system, dt)),
            Self::Midpoint => Box::new(Midpoint::new(system, dt)),
            Self::Trapezoidal => Box::new(Trapezoidal::new(system, dt)),
            Self::CaldirolaKanai => Box::new(caldirola_kanai(system, dt)?),
            Self::EnergyConservingCs => Box::new(energy_conserving_cs(system, dt)?),
            Self::VelocityVerletCs => Box::new(velocity_verlet_cs(system, dt)?),
            Self::Exact => Box::new(Exact::new(system, dt)),
        })
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
