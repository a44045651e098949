//! Symplectic Euler, the standard mass-spring method (Morgan & Qiao 2009, eq. (26), in the order
//! docs/errata.md gives).

use super::{ForceEvaluation, Scheme, SchemeError, SchemeKind};
use crate::system::{State, System};

/// Symplectic Euler (Morgan & Qiao 2009, eqs. (7), (11) and (26), in the order fixed in
/// docs/errata.md): new velocity from the old forces, then new position from the new velocity:
///
/// ```text
/// v_{n+1} = v_n + h F(x_n, v_n, t_n) / m
/// x_{n+1} = x_n + h v_{n+1}
/// ```
///
/// First order; symplectic, so an undamped network keeps a modified energy exactly and its
/// energy bounded. On a single oscillator with `gamma = Z/m`, `w0^2 = k/m` the poles are the
/// roots of `z^2 + ((w0 h)^2 + gamma h - 2) z + (1 - gamma h) = 0` (Morgan & Qiao 2009,
/// eqs. (35)-(37)): complex with `|z| = sqrt(1 - gamma h)` (eq. 44) and frequency
/// `atan2(Im z, Re z) / h` (eq. 45, four-quadrant as corrected in docs/errata.md). Stable while
/// `w0 <= sqrt(4 - 2 gamma h) / h` (eq. 54), that is `h <= (-Z + sqrt(Z^2 + 4 k m)) / k` (eq. 92
/// as corrected in docs/errata.md); undamped, `w0 h <= 2`.
/// The same as mi.lib's position Verlet with backward-difference damper velocities.
#[derive(Debug, Clone)]
pub struct SymplecticEuler {
    dt: f64,
    forces: ForceEvaluation,
}

impl SymplecticEuler {
    /// Symplectic Euler for `system` with step `dt` (s).
    pub fn new(system: &System, dt: f64) -> Self {
        Self { dt, forces: ForceEvaluation::new(system) }
    }
}

impl Scheme for SymplecticEuler {
    fn kind(&self) -> SchemeKind {
        SchemeKind::SymplecticEuler
    }

    /// It keeps nothing of the system but buffers the size of its state.
    fn retake(&mut self, _system: &System) -> bool {
        true
    }

    fn step(&mut self, system: &System, state: &mut State) -> Result<(), SchemeError> {
        let h = self.dt;
        self.forces.update_each(system, state, |x, v, acceleration| {
            *v += h * acceleration;
            *x += h * *v;
        });
        Ok(())
    }
}
