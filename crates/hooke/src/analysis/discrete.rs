//! Each scheme's mapping from analog poles (s-plane) to discrete poles (z-plane).
//!
//! A linear network with modal damping is a set of independent oscillators
//! `q'' + gamma q' + w0^2 q = 0`, and every scheme, applied to the network, advances each
//! oscillator's coordinate exactly as it advances a single mass-spring-damper with those
//! constants (its update is built from `M^-1 K` and `M^-1 D`, which the modes diagonalise
//! together). So the discrete poles of a mode are the eigenvalues of the scheme's 2 x 2 one-step
//! matrix for that oscillator:
//!
//! - symplectic Euler: the closed form of Morgan & Qiao 2009, eqs. (35)-(37),
//!   [`symplectic_euler_poles`];
//! - every other scheme: the matrix is measured by stepping the scheme itself
//!   ([`SchemeKind::build`]) on a bank of one-mass oscillators from unit states,
//!   [`oscillator_one_step_matrices`], so the mapping is the scheme's own, whatever its
//!   formulas.
//!
//! Where the damping is not modal the oscillators do not separate; [`one_step_matrix`] measures
//! the whole `2n x 2n` one-step matrix of the scheme on the network, whose eigenvalues are the
//! discrete poles.

use super::error::AnalysisError;
use super::linearise::Linearisation;
use crate::kernel::modal::ModeStep;
use crate::model::{Anchor, Mass, Model, Spring};
use crate::scheme::SchemeKind;
use crate::system::{State, System};
use faer::{c64, Mat};

/// The single oscillator `q'' + gamma q' + w0^2 q = 0` (Morgan & Qiao 2009, eqs. (15)-(17) with
/// `gamma = Z/m`, `w0^2 = k/m`): one mode of a network with modal damping, or the equivalent
/// oscillator of one analog pole.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Oscillator {
    /// `gamma`, 1/s (`Z/m`; the pole's real part is `-gamma/2` when it vibrates).
    pub gamma: f64,
    /// `w0^2`, 1/s^2 (`k/m`; negative for a mode that the state's prestress makes unstable).
    pub omega0_squared: f64,
}

impl Oscillator {
    /// The oscillator whose analog poles are `s` and its conjugate (Morgan & Qiao 2009, eq. (57)):
    /// `gamma = -2 sigma`, `w0^2 = sigma^2 + mu^2`. For a real `s` this is the critically damped
    /// oscillator with a double pole at `s`.
    pub fn from_pole(s: c64) -> Self {
        Self { gamma: -2.0 * s.re, omega0_squared: s.re * s.re + s.im * s.im }
    }

    /// Its two analog poles, the roots of `s^2 + gamma s + w0^2 = 0` (Morgan & Qiao 2009,
    /// eqs. (18)-(19)): `-gamma/2 +- j mu` with `mu = sqrt(w0^2 - gamma^2/4)` when it vibrates (the
    /// one with `mu >= 0` first), otherwise two real poles (the slower first).
    pub fn poles(&self) -> [c64; 2] {
        quadratic_roots(self.gamma, self.omega0_squared)
    }
}

/// The two roots of `z^2 + b z + c = 0`: a complex pair with the positive imaginary part first,
/// or two real roots with the larger first (computed without cancellation).
pub fn quadratic_roots(b: f64, c: f64) -> [c64; 2] {
    // `0 - b/2` rather than `-b/2`, so that b = 0 gives +0 (an undamped pole's real part).
    let half = 0.0 - 0.5 * b;
    let discriminant = half * half - c;
    if discriminant < 0.0 {
        let im = (-discriminant).sqrt();
        [c64::new(half, im), c64::new(half, -im)]
    } else {
        let root = discriminant.sqrt();
        let far = if half >= 0.0 { half + root } else { half - root };
        let near = if far != 0.0 { c / far } else { 0.0 };
        if far >= near {
            [c64::new(far, 0.0), c64::new(near, 0.0)]
        } else {
            [c64::new(near, 0.0), c64::new(far, 0.0)]
        }
    }
}

/// The two roots of `z^2 + b z + c = 0` given as `z = 1 + lambda` with
/// `lambda^2 + p lambda + q = 0`, `p = b + 2`, `q = 1 + b + c`, ordered as [`quadratic_roots`]
/// orders them. Discrete poles of small steps lie near 1, where the roots of the first form lose
/// half their digits (a discriminant of two nearly equal numbers); `p` and `q` are small there and
/// computed without that cancellation.
pub fn roots_near_one(p: f64, q: f64) -> [c64; 2] {
    quadratic_roots(p, q).map(|lambda| lambda + 1.0)
}

/// The discrete poles of symplectic Euler for one oscillator with step `h`: the roots of
/// `z^2 + ((w0 h)^2 + gamma h - 2) z + (1 - gamma h) = 0` (Morgan & Qiao 2009, eqs. (35)-(37)),
/// computed as `z = 1 + lambda`, `lambda^2 + ((w0 h)^2 + gamma h) lambda + (w0 h)^2 = 0`
/// ([`roots_near_one`]). Complex poles lie on the circle `|z| = sqrt(1 - gamma h)` (eq. 44).
pub fn symplectic_euler_poles(oscillator: Oscillator, h: f64) -> [c64; 2] {
    let w0h_squared = oscillator.omega0_squared * h * h;
    roots_near_one(w0h_squared + oscillator.gamma * h, w0h_squared)
}

/// The eigenvalues of the 2 x 2 matrix `[[a, b], [c, d]]` (row-major), ordered as
/// [`quadratic_roots`] orders them; computed as `1 +` the eigenvalues of the matrix minus the
/// identity ([`roots_near_one`]).
pub fn eigenvalues_2x2(matrix: [[f64; 2]; 2]) -> [c64; 2] {
    let [[a, b], [c, d]] = matrix;
    let (a1, d1) = (a - 1.0, d - 1.0);
    roots_near_one(-(a1 + d1), a1 * d1 - b * c)
}

/// Oscillators per bank system for the `exact` scheme: few enough that its dense propagator
/// (`(2 n)^2` entries) stays cheap.
const EXACT_BANK_SIZE: usize = 32;
/// Oscillators per bank system for every other scheme (each costs a few operations per
/// oscillator): enough to spread the cost of building a system and a scheme.
const BANK_SIZE: usize = 1024;

/// One step of a scheme on one oscillator, in units of its step `h`: `matrix` (row-major)
/// acts on `(q, h q')`; the forces' columns are the change of `(q, h q')` from rest under a
/// force of `1 / h^2` per unit mass (so a force `F` on a mass `m` moves `q` by
/// `[0] h^2 F / m` and `q'` by `[1] h F / m`). A scheme may treat the system's own constant
/// forces (gravity, anchors off zero) and the forces held on it from outside (a hammer, a
/// pulse) differently: the exact flow integrates the first and applies the second as an
/// impulse.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OscillatorStep {
    /// The one-step matrix.
    pub matrix: [[f64; 2]; 2],
    /// The response to a constant force of the system (gravity).
    pub constant_force: [f64; 2],
    /// The response to a held force.
    pub held_force: [f64; 2],
}

/// The one-step matrices (row-major, acting on `(q, h q')`) of `scheme` for each oscillator,
/// with step `h` ([`oscillator_steps`]).
pub fn oscillator_one_step_matrices(
    scheme: SchemeKind,
    oscillators: &[Oscillator],
    h: f64,
) -> Result<Vec<[[f64; 2]; 2]>, AnalysisError> {
    Ok(oscillator_steps(scheme, oscillators, h)?.into_iter().map(|step| step.matrix).collect())
}

/// The step of `scheme` on each mode of a linear system, in SI units, as the modal kernel takes
/// it: mode `j` is `oscillators[j]` with the modal mass `masses[j]` (kg), its stiffness
/// `m w0^2` (N/m) and damping `m gamma` (N s/m), stepped by [`oscillator_steps`] with step `h`
/// (s), whose units (acting on `(q, h q')`, a force moving them by `h^2 F / m`) become SI.
pub fn mode_steps(
    scheme: SchemeKind,
    oscillators: &[Oscillator],
    masses: &[f64],
    h: f64,
) -> Result<Vec<ModeStep>, AnalysisError> {
    let steps = oscillator_steps(scheme, oscillators, h)?;
    Ok(steps
        .iter()
        .zip(oscillators.iter().zip(masses))
        .map(|(step, (oscillator, &m))| {
            let per_newton = |f: [f64; 2]| [f[0] * h * h / m, f[1] * h / m];
            ModeStep {
                matrix: [
                    [step.matrix[0][0], step.matrix[0][1] * h],
                    [step.matrix[1][0] / h, step.matrix[1][1]],
                ],
                constant_force: per_newton(step.constant_force),
                held_force: per_newton(step.held_force),
                stiffness: m * oscillator.omega0_squared,
                damping: m * oscillator.gamma,
            }
        })
        .collect())
}

/// Symplectic Euler's step on one mode of modal mass `m` (kg), in closed form: the force at the
/// step's start, `p' = p + h (-w0^2 q - gamma p + F / m)`, then `q' = q + h p'` (Morgan & Qiao
/// 2009, eq. (26), on one mode), so `[[1 - h^2 w0^2, h (1 - h gamma)], [-h w0^2, 1 - h gamma]]`
/// and a force of 1 N (constant or held alike) moves `q` by `h^2 / m` and `p` by `h / m`: what
/// [`mode_steps`] measures on the scheme, to rounding, without building a system.
pub fn symplectic_euler_mode_step(oscillator: Oscillator, m: f64, h: f64) -> ModeStep {
    let Oscillator { omega0_squared: w2, gamma } = oscillator;
    let decay = 1.0 - h * gamma;
    let per_newton = [h * h / m, h / m];
    ModeStep {
        matrix: [[1.0 - h * h * w2, h * decay], [-h * w2, decay]],
        constant_force: per_newton,
        held_force: per_newton,
        stiffness: m * w2,
        damping: m * gamma,
    }
}

/// The step of `scheme` on each oscillator, with step `h`. Each bank of up to 1024 oscillators
/// (32 for `exact`) is one 1D system of unit masses, each tied to the ground by a spring
/// `(w0 h)^2` and a damper `gamma h`, stepped with `dt = 1` from the states `q = 1, q' = 0` and `q = 0, q' = 1`
/// and from rest under a gravity of 1 and under a held force of 1 (in units of `h`: a
/// scheme's step depends only on `w0 h` and `gamma h`). The masses do not interact, so four
/// steps give every oscillator's.
/// Oscillators need `w0^2 >= 0` and `gamma >= 0` (they are built as springs and dampers).
pub fn oscillator_steps(
    scheme: SchemeKind,
    oscillators: &[Oscillator],
    h: f64,
) -> Result<Vec<OscillatorStep>, AnalysisError> {
    let mut steps = Vec::with_capacity(oscillators.len());
    let bank_size = if scheme == SchemeKind::Exact { EXACT_BANK_SIZE } else { BANK_SIZE };
    for bank in oscillators.chunks(bank_size) {
        let n = bank.len();
        let model = bank_model(bank, h)?;
        let free = System::new(&model);
        let mut weighed = model;
        weighed.set_gravity(&[1.0])?;
        let weighed = System::new(&weighed);
        let mut pushed = free.clone();
        for coordinate in 0..n {
            pushed.set_held_force(coordinate, 1.0);
        }
        let mut columns = Vec::with_capacity(4);
        let starts =
            [(&free, (1.0, 0.0)), (&free, (0.0, 1.0)), (&weighed, (0.0, 0.0)), (&pushed, (0.0, 0.0))];
        for (system, (x, v)) in starts {
            let mut stepper = scheme.build(system, 1.0).map_err(AnalysisError::Refused)?;
            let mut state = system.initial_state();
            state.x[..n].fill(x);
            state.v[..n].fill(v);
            stepper.step(system, &mut state)?;
            columns.push((state.x, state.v));
        }
        steps.extend((0..n).map(|i| {
            let [(x0, v0), (x1, v1), (x2, v2), (x3, v3)] =
                [0, 1, 2, 3].map(|c| (columns[c].0[i], columns[c].1[i]));
            OscillatorStep { matrix: [[x0, x1], [v0, v1]], constant_force: [x2, v2], held_force: [x3, v3] }
        }));
    }
    Ok(steps)
}

/// The discrete poles of `scheme` for each oscillator with step `h`, ordered as
/// [`quadratic_roots`] orders them: closed forms for symplectic Euler
/// ([`symplectic_euler_poles`]), the eigenvalues of the measured one-step matrices
/// ([`oscillator_one_step_matrices`]) for every other scheme.
pub fn oscillator_poles(
    scheme: SchemeKind,
    oscillators: &[Oscillator],
    h: f64,
) -> Result<Vec<[c64; 2]>, AnalysisError> {
    if scheme == SchemeKind::SymplecticEuler {
        return Ok(oscillators.iter().map(|&o| symplectic_euler_poles(o, h)).collect());
    }
    Ok(oscillator_one_step_matrices(scheme, oscillators, h)?.into_iter().map(eigenvalues_2x2).collect())
}

/// One 1D system of unit masses, each on its own spring `(w0 h)^2` and damper `gamma h` to the
/// ground.
fn bank_model(bank: &[Oscillator], h: f64) -> Result<Model, AnalysisError> {
    let mut model = Model::new(1)?;
    let ground = model.add_anchor(Anchor::new("ground"))?;
    for (i, oscillator) in bank.iter().enumerate() {
        let mass = model.add_mass(Mass::new(format!("q{i}"), 1.0))?;
        let spring = Spring::new(ground, mass, oscillator.omega0_squared * h * h);
        model.add_spring(spring.damping(oscillator.gamma * h))?;
    }
    Ok(model)
}

/// How far the perturbations of [`one_step_matrix`] reach on a nonlinear network, relative to
/// its length scale: small enough that the central differences' error (this squared) is
/// negligible, large enough that the rounding and Newton tolerances of the step (1e-13) stay
/// below 1e-7 of the result.
const RELATIVE_PERTURBATION: f64 = 1e-6;

/// The Jacobian of one step of `scheme` (step `dt`) at the linearisation's state: the
/// `2n x 2n` one-step matrix acting on `(x_1 .. x_n, v_1 .. v_n)`, measured by stepping the
/// scheme itself from perturbed states. On a linear network (1D, no contacts) the step is
/// affine and one-sided differences with perturbations of the model's size are exact up to
/// rounding; otherwise central differences with perturbations of `1e-6` of the model's length
/// scale (the mean rest length of its springs), and velocities perturbed by that over `dt`.
/// Its eigenvalues are the discrete poles of the network; where the linearisation's state is
/// an equilibrium it is the scheme applied to the linearised network.
pub fn one_step_matrix(
    system: &System,
    scheme: SchemeKind,
    dt: f64,
    linearisation: &Linearisation,
) -> Result<Mat<f64>, AnalysisError> {
    let n = system.mass_coordinates();
    let base = linearisation.state();
    let mut stepper = scheme.build(system, dt).map_err(AnalysisError::Refused)?;
    let mut step = |state: &State| -> Result<State, AnalysisError> {
        let mut next = state.clone();
        stepper.step(system, &mut next)?;
        Ok(next)
    };
    let length = length_scale(system);
    let (position_perturbation, central) =
        if linearisation.is_linear() { (length, false) } else { (RELATIVE_PERTURBATION * length, true) };
    let velocity_perturbation = position_perturbation / dt;
    let image_of_base = if central { None } else { Some(step(base)?) };
    let mut matrix = Mat::<f64>::zeros(2 * n, 2 * n);
    for column in 0..2 * n {
        let size = if column < n { position_perturbation } else { velocity_perturbation };
        let perturbed = |sign: f64| {
            let mut state = base.clone();
            if column < n {
                state.x[column] += sign * size;
            } else {
                state.v[column - n] += sign * size;
            }
            state
        };
        let forward = step(&perturbed(1.0))?;
        let (backward, width) = match &image_of_base {
            Some(image) => (image.clone(), size),
            None => (step(&perturbed(-1.0))?, 2.0 * size),
        };
        for row in 0..n {
            matrix[(row, column)] = (forward.x[row] - backward.x[row]) / width;
            matrix[(n + row, column)] = (forward.v[row] - backward.v[row]) / width;
        }
    }
    Ok(matrix)
}

/// The model's length scale for perturbations: the mean rest length of its springs in 2D/3D
/// (1 m without springs), 1 m in 1D, where positions are displacements.
fn length_scale(system: &System) -> f64 {
    let rest = &system.springs().rest_length;
    let mean = rest.iter().map(|l| l.abs()).sum::<f64>() / rest.len().max(1) as f64;
    if system.dimension() == 1 || mean == 0.0 {
        1.0
    } else {
        mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadratic_roots_are_ordered_and_accurate() {
        let [a, b] = quadratic_roots(-3.0, 2.0);
        assert_eq!((a, b), (c64::new(2.0, 0.0), c64::new(1.0, 0.0)));
        let [a, b] = quadratic_roots(2.0, 5.0);
        assert_eq!((a, b), (c64::new(-1.0, 2.0), c64::new(-1.0, -2.0)));
        // A tiny root next to a large one, without cancellation.
        let [a, b] = quadratic_roots(-1e8, 1.0);
        assert!((a.re - 1e8).abs() < 1e-6 && (b.re - 1e-8).abs() < 1e-22, "{a} {b}");
    }

    #[test]
    fn poles_of_tiny_steps_keep_their_modulus() {
        // w0 h = 1e-9: the poles 1 +- j 1e-9 have |z| = 1 to rounding, not 1 +- 1e-8.
        let poles = symplectic_euler_poles(Oscillator { gamma: 0.0, omega0_squared: 1.0 }, 1e-9);
        assert!(
            poles.iter().all(|z| (z.norm() - 1.0).abs() < 1e-15 && (z.im.abs() - 1e-9).abs() < 1e-20),
            "{poles:?}"
        );
        let poles = eigenvalues_2x2([[1.0, 1.0], [-1e-18, 1.0]]);
        assert!(
            poles.iter().all(|z| (z.norm() - 1.0).abs() < 1e-15 && (z.im.abs() - 1e-9).abs() < 1e-20),
            "{poles:?}"
        );
    }

    #[test]
    fn the_measured_symplectic_euler_matrix_has_the_closed_form_poles() {
        let oscillators = [
            Oscillator { gamma: 50.0, omega0_squared: (250.0 * std::f64::consts::PI).powi(2) },
            Oscillator { gamma: 0.0, omega0_squared: 3.9e6 },
            Oscillator { gamma: 1500.0, omega0_squared: 1e6 },
        ];
        let h = 1e-3;
        let matrices = oscillator_one_step_matrices(SchemeKind::SymplecticEuler, &oscillators, h).unwrap();
        for (oscillator, matrix) in oscillators.iter().zip(matrices) {
            let measured = eigenvalues_2x2(matrix);
            let closed = symplectic_euler_poles(*oscillator, h);
            for (m, c) in measured.iter().zip(&closed) {
                assert!((m - c).norm() < 1e-13, "{m} vs {c}");
            }
        }
    }
}
