//! Schemes that apply the damping as its exact flow around a conservative step (Chatziioannou 2019,
//! section 2.6): Caldirola-Kanai (eqs. 35-36), EC[cs] (eq. 42) and VV[cs] (eq. 43).

use super::damping_flow::DampingFlow;
use super::implicit::{ImplicitStep, Rule};
use super::velocity_verlet::VelocityVerlet;
use super::{EnergyExchange, LinearSolver, Scheme, SchemeError, SchemeKind, SolverStats};
use crate::system::{State, System};

/// The undamped step inside a splitting.
#[derive(Debug)]
enum Conservative {
    /// The energy-conserving (discrete-gradient) step: conserves energy to round-off.
    EnergyConserving(Box<ImplicitStep>),
    /// Velocity Verlet without damping.
    VelocityVerlet(Box<VelocityVerlet>),
}

/// How the damping flow and the conservative step are composed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Composition {
    /// Half flow, step, half flow: second order.
    Symmetric,
    /// Whole flow, then step (`Phi^[H] o phi^[gamma]`): first order with damping.
    FlowFirst,
}

/// A damping-flow splitting; see [`caldirola_kanai`], [`energy_conserving_cs`],
/// [`velocity_verlet_cs`].
///
/// The flow is exact for any damping rate on coordinates whose damping touches no other one
/// (drag, and dampers to anchors in 1D): a rate of `1e300` 1/s stops the mass within the flow.
/// Where dampers couple coordinates, it sums a series over sub-steps whose number grows with the
/// rate times the step; a splitting whose step would take more than 2^20 sub-steps (rate times
/// step above about 5e5) is refused at construction,
/// with a [`SchemeError`] that names the mass, its damping rate (1/s) and the step.
#[derive(Debug)]
pub struct Splitting {
    kind: SchemeKind,
    dt: f64,
    composition: Composition,
    flow: DampingFlow,
    conservative: Conservative,
    last: Option<EnergyExchange>,
}

/// Caldirola-Kanai (CK; Chatziioannou 2019, eqs. (35)-(36), with the sign in 35b corrected as in
/// docs/errata.md; eqs. 72-81 for a string against a barrier). With `q = h p / 2m` and
/// `r = e^{gamma h/2}` the scheme is `y' - y = r q' + r^-1 q`,
/// `r q' - r^-1 q = -(h^2 / 2m) grad V(y, y')`: an undamped energy-conserving step between two
/// exact half-steps of the damping flow `q -> r^-1 q`. That is how it runs on a network, where
/// the flow `exp(-(h/2) M^-1 D)` couples masses joined by dampers:
///
/// ```text
/// v <- exp(-(h/2) M^-1 D(x_n)) v_n                    (exact damping half-flow)
/// (x_{n+1}, v) <- energy-conserving step of M x'' = F_c(x) + F_e(t), undamped
/// v_{n+1} <- exp(-(h/2) M^-1 D(x_{n+1})) v             (exact damping half-flow)
/// ```
///
/// On one oscillator this is exactly eqs. 35c-36. Second order (a symmetric splitting);
/// conformal symplectic on a linear network: the symplectic form contracts by exactly
/// `e^{-gamma h}` per step (Proposition 2.3). Its exactly conserved balance (docs/errata.md, on
/// eq. 84) is `H_{n+1} + sum (kinetic energy the half-flows remove) - sum (work of F_e)`. Stable
/// for every step. One Newton solve per step (a back-substitution on a linear network).
///
/// Refused when the exact damping flow cannot take the step (see [`Splitting`]).
pub fn caldirola_kanai(system: &System, dt: f64) -> Result<Splitting, SchemeError> {
    Splitting::new(system, dt, SchemeKind::CaldirolaKanai, Composition::Symmetric)
}

/// EC[cs] (Chatziioannou 2019, eq. (42)): the exact damping flow over a whole step, then an
/// undamped energy-conserving step:
///
/// ```text
/// v <- exp(-h M^-1 D(x_n)) v_n                     (one oscillator: p <- e^{-gamma h} p)
/// (x_{n+1}, v_{n+1}) <- energy-conserving step of M x'' = F_c(x) + F_e(t), undamped
/// ```
///
/// Conformal symplectic on a linear network (contraction `e^{-gamma h}`), but a Lie splitting:
/// first order with damping, second without. Exactly conserved balance as for
/// [`caldirola_kanai`]. Stable for every step. One Newton solve per step.
///
/// Refused when the exact damping flow cannot take the step (see [`Splitting`]).
pub fn energy_conserving_cs(system: &System, dt: f64) -> Result<Splitting, SchemeError> {
    Splitting::new(system, dt, SchemeKind::EnergyConservingCs, Composition::FlowFirst)
}

/// VV[cs] (Chatziioannou 2019, eq. (43)): the exact damping flow over a whole step, then undamped
/// velocity Verlet:
///
/// ```text
/// v_{n+1/2} = exp(-h M^-1 D(x_n)) v_n + h/2 M^-1 (F_c(x_n) + F_e(t_n))
/// x_{n+1}   = x_n + h v_{n+1/2}
/// v_{n+1}   = v_{n+1/2} + h/2 M^-1 (F_c(x_{n+1}) + F_e(t_{n+1}))
/// ```
///
/// Conformal symplectic (contraction `e^{-gamma h}`); first order with damping (a Lie
/// splitting), second without. Stable while `w0 h <= 2`. Explicit.
///
/// Refused when the exact damping flow cannot take the step (see [`Splitting`]).
pub fn velocity_verlet_cs(system: &System, dt: f64) -> Result<Splitting, SchemeError> {
    Splitting::new(system, dt, SchemeKind::VelocityVerletCs, Composition::FlowFirst)
}

impl Splitting {
    fn new(
        system: &System,
        dt: f64,
        kind: SchemeKind,
        composition: Composition,
    ) -> Result<Self, SchemeError> {
        let flow = DampingFlow::new(system, dt)?;
        let conservative = match kind {
            SchemeKind::VelocityVerletCs => {
                Conservative::VelocityVerlet(Box::new(VelocityVerlet::with_damping(system, dt, false)))
            }
            _ => {
                let step =
                    ImplicitStep::new(system, dt, Rule::DiscreteGradient, false, LinearSolver::Automatic);
                Conservative::EnergyConserving(Box::new(step))
            }
        };
        Ok(Self { kind, dt, composition, flow, conservative, last: None })
    }
}

impl Scheme for Splitting {
    fn kind(&self) -> SchemeKind {
        self.kind
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let first_flow = match self.composition {
            Composition::Symmetric => 0.5 * self.dt,
            Composition::FlowFirst => self.dt,
        };
        let mut dissipated = self.flow.apply(system, &state.x, &mut state.v, first_flow);
        let external_work = match &mut self.conservative {
            Conservative::EnergyConserving(step) => Some(step.step(system, state)?.external_work),
            Conservative::VelocityVerlet(step) => {
                step.step(system, state)?;
                None
            }
        };
        if self.composition == Composition::Symmetric {
            dissipated += self.flow.apply(system, &state.x, &mut state.v, 0.5 * self.dt);
        }
        self.last = external_work.map(|external_work| EnergyExchange { dissipated, external_work });
        Ok(())
    }

    fn last_exchange(&self) -> Option<EnergyExchange> {
        self.last
    }

    fn solver_stats(&self) -> Option<SolverStats> {
        match &self.conservative {
            Conservative::EnergyConserving(step) => Some(step.stats()),
            Conservative::VelocityVerlet(_) => None,
        }
    }
}
