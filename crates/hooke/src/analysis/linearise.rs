//! The linearised network about a state: the mass, stiffness and damping matrices `M`, `K`,
//! `D` (`Z` in Morgan & Qiao 2009) and the state matrix of Morgan & Qiao 2009, eq. (77).
//!
//! About a state `x*` the equation of motion `M x'' = F_c(x) + F_e(t) - D(x) x'` becomes, for a
//! small displacement `u = x - x*`, `M u'' + D(x*) u' + K(x*) u = (forcing)`, with `K = -dF_c/dx`
//! the tangent stiffness. For the geometric springs of 2D and 3D models `K` holds the tension
//! (prestress) term `k (1 - l0/l) (I - u u^T)` beside the axial `k u u^T`, so a hanging
//! pendulum, whose spring carries its weight, gets its `sqrt(g/l)` mode from it. Gravity and
//! external forces are constant in `x` and do not enter `K`.
//!
//! Which state: [`About::Initial`] (the default everywhere) is the model's initial positions and
//! velocities, the state a run starts from and the one the `exact` scheme linearises about. For
//! a 1D model `K` and `D` do not depend on the state. For a 2D/3D model they do: a pendulum
//! released from the horizontal has no tension there, so its swinging mode has zero frequency
//! about its initial state; [`About::Rest`] finds the static equilibrium near the initial
//! positions ([`rest_state`]) and linearises about it, where the swing has its `sqrt(g/l)`.

use super::error::AnalysisError;
use crate::forces;
use crate::linalg::sparse::SparseMatrix;
use crate::system::{State, System};
use faer::Mat;

/// The state a linearisation is taken about.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum About {
    /// The model's initial positions and velocities.
    #[default]
    Initial,
    /// The static equilibrium nearest the initial positions, at rest (see [`rest_state`]).
    Rest,
    /// A given state (positions and velocities of every node, anchors included).
    State(State),
}

/// `M`, `K` and `D` of a system about one state, over its moving coordinates.
#[derive(Debug)]
pub struct Linearisation {
    state: State,
    inverse_mass: Vec<f64>,
    stiffness: SparseMatrix,
    damping: SparseMatrix,
    linear: bool,
}

impl Linearisation {
    /// Linearises `system` about the state `about` names.
    pub fn new(system: &System, about: &About) -> Result<Self, AnalysisError> {
        if system.mass_count() == 0 {
            return Err(AnalysisError::NoMasses);
        }
        let state = match about {
            About::Initial => system.initial_state(),
            About::Rest => rest_state(system)?,
            About::State(state) => {
                let expected = system.initial_state().x.len();
                if state.x.len() != expected || state.v.len() != expected {
                    return Err(AnalysisError::StateSize { expected, found: state.x.len() });
                }
                state.clone()
            }
        };
        let n = system.mass_coordinates();
        let mut stiffness = SparseMatrix::new(n);
        forces::add_stiffness(system, &state.x, 1.0, &mut stiffness);
        let mut damping = SparseMatrix::new(n);
        forces::add_damping_matrix(system, &state.x, 1.0, &mut damping);
        for (matrix, entries) in [("stiffness", &stiffness), ("damping", &damping)] {
            if let Some((row, _, _)) = entries.entries().find(|(_, _, value)| !value.is_finite()) {
                return Err(AnalysisError::NonFinite {
                    matrix,
                    mass: system.mass_of_coordinate(row).to_string(),
                });
            }
        }
        Ok(Self {
            state,
            inverse_mass: system.inverse_mass().to_vec(),
            stiffness,
            damping,
            linear: forces::is_linear(system),
        })
    }

    /// The number of moving coordinates `n` (masses times dimension).
    pub fn coordinates(&self) -> usize {
        self.inverse_mass.len()
    }

    /// The state the linearisation is about.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// `1/m` for each moving coordinate, 1/kg.
    pub fn inverse_mass(&self) -> &[f64] {
        &self.inverse_mass
    }

    /// The tangent stiffness `K`, N/m (entries not summed; see [`SparseMatrix::entries`]).
    pub fn stiffness(&self) -> &SparseMatrix {
        &self.stiffness
    }

    /// The damping matrix `D`, N s/m.
    pub fn damping(&self) -> &SparseMatrix {
        &self.damping
    }

    /// Whether the forces are affine in the positions (1D, no contacts), so that `K` and `D`
    /// are the same about every state and the one-step map of every scheme is affine.
    pub fn is_linear(&self) -> bool {
        self.linear
    }

    /// Whether `D` is zero.
    pub fn is_undamped(&self) -> bool {
        self.damping.entries().all(|(_, _, d)| d == 0.0)
    }

    /// `M^-1/2 K M^-1/2`, dense and symmetric: its eigenvalues are the squared undamped
    /// angular frequencies `w^2` (the generalised problem `K u = w^2 M u`; Morgan & Qiao 2008,
    /// section 5).
    pub fn normalised_stiffness(&self) -> Mat<f64> {
        self.normalised(&self.stiffness)
    }

    /// `M^-1/2 D M^-1/2`, dense and symmetric, 1/s.
    pub fn normalised_damping(&self) -> Mat<f64> {
        self.normalised(&self.damping)
    }

    /// The state matrix of Morgan & Qiao 2009, eq. (77), `A = [[0, I], [-M^-1 K, -M^-1 D]]`
    /// (2n x 2n), for the state `(x_1 .. x_n, v_1 .. v_n)`. Its eigenvalues are the analog poles.
    pub fn state_matrix(&self) -> Mat<f64> {
        let n = self.coordinates();
        let mut a = Mat::<f64>::zeros(2 * n, 2 * n);
        for i in 0..n {
            a[(i, n + i)] = 1.0;
        }
        for (r, c, k) in self.stiffness.entries() {
            a[(n + r, c)] -= self.inverse_mass[r] * k;
        }
        for (r, c, d) in self.damping.entries() {
            a[(n + r, n + c)] -= self.inverse_mass[r] * d;
        }
        a
    }

    fn normalised(&self, matrix: &SparseMatrix) -> Mat<f64> {
        let n = self.coordinates();
        let scale: Vec<f64> = self.inverse_mass.iter().map(|w| w.sqrt()).collect();
        let mut dense = Mat::<f64>::zeros(n, n);
        for (r, c, value) in matrix.entries() {
            dense[(r, c)] += scale[r] * value * scale[c];
        }
        // Symmetrise exactly: the kernels add mirrored entries, rounding may differ.
        for r in 0..n {
            for c in 0..r {
                let mean = 0.5 * (dense[(r, c)] + dense[(c, r)]);
                dense[(r, c)] = mean;
                dense[(c, r)] = mean;
            }
        }
        dense
    }
}

/// Largest number of iterations [`rest_state`] takes.
pub const REST_STATE_ITERATIONS: usize = 500;

/// The static equilibrium nearest the initial positions: a stationary point of the potential
/// `V` (springs, gravity, contacts; external forces are left out), reached by minimising `V` from
/// the initial positions with damped Newton steps (Levenberg-Marquardt):
/// `(K(x) + mu M) dx = F_c(x)`, a step kept only when it lowers `V`, `mu` lowered after a kept
/// step and raised after a refused one. Velocities are zero. It stops when a full Newton step
/// (`mu = 0`) moves no coordinate by more than `1e-12` of the model's size, or when no force
/// component exceeds `1e-12` of the model's force scale (the stiffest diagonal entry of `K`
/// times the model's size, or the largest weight). Started exactly at an unstable equilibrium (an inverted pendulum standing
/// upright) it stays there, and the analysis then shows the unstable mode.
pub fn rest_state(system: &System) -> Result<State, AnalysisError> {
    let n = system.mass_coordinates();
    let mut state = system.initial_state();
    state.v.fill(0.0);
    let size = state.x.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    let mut force = vec![0.0; state.x.len()];
    let mut trial = state.x.clone();
    let mut matrix = SparseMatrix::new(n);
    let mut energy = forces::potential(system, &state.x);
    // The smallest damping worth trying, from the stiffest coordinate's w^2.
    matrix.clear();
    forces::add_stiffness(system, &state.x, 1.0, &mut matrix);
    let diagonal = |r: usize, c: usize| r == c;
    let stiffest_rate = matrix
        .entries()
        .filter(|&(r, c, _)| diagonal(r, c))
        .map(|(r, _, k)| k.abs() * system.inverse_mass()[r])
        .fold(0.0, f64::max);
    let stiffest =
        matrix.entries().filter(|&(r, c, _)| diagonal(r, c)).map(|(_, _, k)| k.abs()).fold(0.0, f64::max);
    let weight = system.gravity_force().iter().fold(0.0_f64, |m, f| m.max(f.abs()));
    let force_tolerance = 1e-12 * (stiffest * size).max(weight);
    let smallest_damping = 1e-9 * stiffest_rate.max(1.0);
    let mut mu = 0.0;
    for _ in 0..REST_STATE_ITERATIONS {
        forces::conservative(system, &state.x, &mut force);
        if force[..n].iter().all(|f| f.abs() <= force_tolerance) {
            return Ok(state);
        }
        matrix.clear();
        forces::add_stiffness(system, &state.x, 1.0, &mut matrix);
        forces::add_mass_matrix(system, mu, &mut matrix);
        let mut step = force[..n].to_vec();
        let solved = matrix.factor().is_ok() && {
            matrix.solve_in_place(&mut step);
            step.iter().all(|s| s.is_finite())
        };
        if solved {
            trial.copy_from_slice(&state.x);
            for (x, s) in trial.iter_mut().zip(&step) {
                *x += s;
            }
            let trial_energy = forces::potential(system, &trial);
            if trial_energy <= energy + 1e-14 * energy.abs() {
                let largest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
                state.x.copy_from_slice(&trial);
                energy = trial_energy;
                if mu == 0.0 && largest <= 1e-12 * size {
                    return Ok(state);
                }
                mu = if mu <= smallest_damping { 0.0 } else { mu / 8.0 };
                continue;
            }
        }
        mu = (mu * 8.0).max(smallest_damping);
    }
    forces::conservative(system, &state.x, &mut force);
    Err(AnalysisError::NoRestState {
        iterations: REST_STATE_ITERATIONS,
        force: force[..n].iter().fold(0.0, |m: f64, f| m.max(f.abs())),
    })
}
