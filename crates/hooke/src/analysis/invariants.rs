//! The discrete invariants of Chatziioannou 2019: the conserved quantity K (eqs. 18 and 54), its
//! preservation metric (eq. 19), the symplectic contraction factor D (eq. 20) and the energy
//! deviation H_dev (eq. 22).

use crate::analysis::energy::energy;
use crate::forces;
use crate::scheme::{SchemeError, SchemeKind};
use crate::system::{Observer, State, System};
use faer::Mat;

/// Follows `K^n = H^{n+1} + sum_{k<=n} h (mu v^T D mu v - mu v . mu F_e)` through a run, with
/// `mu v = (v_k + v_{k+1})/2` and `mu F_e = (F_e(t_k) + F_e(t_{k+1}))/2` (Chatziioannou 2019,
/// eqs. (18), (54) on a network: `gamma/m (mu p)^2 = mu v^T D mu v` for one oscillator; `D` at
/// the mean position).
/// It is computed from consecutive states alone, the same way for every scheme, as the paper's
/// Table 1 does; the energy-conserving scheme keeps it constant to round-off.
#[derive(Debug, Clone, Default)]
pub struct BalanceMonitor {
    previous: Option<State>,
    exchanged: f64,
    first: Option<f64>,
    last: Option<f64>,
    differences: u64,
    mean_x: Vec<f64>,
    mean_v: Vec<f64>,
    force: Vec<f64>,
}

impl BalanceMonitor {
    /// A monitor that has seen nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `K^0`, the first value (after the first step), J.
    pub fn first(&self) -> Option<f64> {
        self.first
    }

    /// The latest value of K, J.
    pub fn last(&self) -> Option<f64> {
        self.last
    }

    /// The preservation metric of eq. 19, `(1/(N+1)) sum_{n=0}^{N} (K^{n+1} - K^n) / K^0`, which
    /// telescopes to `(K^{N+1} - K^0) / ((N+1) K^0)`; without the division by `K^0` when `K^0` is 0
    /// (a system started at rest, as the driven reed of section 3.1).
    pub fn preservation_metric(&self) -> Option<f64> {
        let (first, last) = (self.first?, self.last?);
        if self.differences == 0 {
            return None;
        }
        let mean_change = (last - first) / self.differences as f64;
        Some(if first == 0.0 { mean_change } else { mean_change / first })
    }
}

impl Observer for BalanceMonitor {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        if let Some(previous) = &self.previous {
            let h = state.t - previous.t;
            let n = system.mass_coordinates();
            self.mean_x.clear();
            self.mean_x.extend(previous.x.iter().zip(&state.x).map(|(a, b)| 0.5 * (a + b)));
            self.mean_v.clear();
            self.mean_v.extend(previous.v.iter().zip(&state.v).map(|(a, b)| 0.5 * (a + b)));
            // h mu_v^T D mu_v, from the damping force -D mu_v.
            self.force.clear();
            self.force.resize(state.x.len(), 0.0);
            forces::add_damping(system, &self.mean_x, &self.mean_v, &mut self.force);
            let dissipated = -h * (0..n).map(|i| self.mean_v[i] * self.force[i]).sum::<f64>();
            // h mu_v . mu_F_e.
            self.force.fill(0.0);
            forces::add_external(system, previous.t, &mut self.force);
            forces::add_external(system, state.t, &mut self.force);
            let work = 0.5 * h * (0..n).map(|i| self.mean_v[i] * self.force[i]).sum::<f64>();
            self.exchanged += dissipated - work;
            let k = energy(system, state).total() + self.exchanged;
            if self.first.is_none() {
                self.first = Some(k);
            } else {
                self.differences += 1;
            }
            self.last = Some(k);
        }
        match &mut self.previous {
            Some(previous) => previous.clone_from(state),
            None => self.previous = Some(state.clone()),
        }
        Ok(())
    }
}

/// The symplectic contraction factor of eq. 20 measured from one step: with `J` the Jacobian of
/// the step map in the coordinates (x, p = M v), `D = det(J)^(1/n)` for `n` moving coordinates
/// (for one oscillator, `dy' ^ dp' = D dy ^ dp`). `J` is formed by central differences of the
/// step from `state`, each coordinate perturbed by `perturbation` (in m for positions, and the
/// same relative size for momenta); on a linear network the differences are exact up to rounding.
pub fn contraction_factor(
    system: &System,
    scheme: SchemeKind,
    dt: f64,
    state: &State,
    perturbation: f64,
) -> Result<f64, SchemeError> {
    let n = system.mass_coordinates();
    let mut stepper = scheme.build(system, dt)?;
    let mut step = |state: &State| -> Result<Vec<f64>, SchemeError> {
        let mut next = state.clone();
        stepper.step(system, &mut next)?;
        let momenta = (0..n).map(|i| next.v[i] / system.inverse_mass()[i]);
        Ok(next.x[..n].iter().copied().chain(momenta).collect())
    };
    let mut jacobian = Mat::<f64>::zeros(2 * n, 2 * n);
    for column in 0..2 * n {
        let mut images = [Vec::new(), Vec::new()];
        for (image, sign) in images.iter_mut().zip([1.0, -1.0]) {
            let mut perturbed = state.clone();
            if column < n {
                perturbed.x[column] += sign * perturbation;
            } else {
                let i = column - n;
                perturbed.v[i] += sign * perturbation * system.inverse_mass()[i];
            }
            *image = step(&perturbed)?;
        }
        for row in 0..2 * n {
            jacobian[(row, column)] = (images[0][row] - images[1][row]) / (2.0 * perturbation);
        }
    }
    Ok(jacobian.determinant().powf(1.0 / n as f64))
}

/// The energy deviation of eq. 22, in percent: `100 ||H - H_ref||_2 / mean(H_ref)` over two
/// series of equal length (a run and its reference, both without their initial value).
pub fn energy_deviation(energies: &[f64], reference: &[f64]) -> f64 {
    let squares: f64 = energies.iter().zip(reference).map(|(h, r)| (h - r) * (h - r)).sum();
    let mean = reference.iter().sum::<f64>() / reference.len() as f64;
    100.0 * squares.sqrt() / mean
}
