//! The chain of masses, springs, drags and dampers that has a body's modes at its first mass
//! (the module documentation of [`super::body`] gives the admittance it matches).
//!
//! 1. **Lossless chain.** Lanczos on `diag(w_k^2)` from the unit vector `sqrt(M_1 / m_k)` gives
//!    the Jacobi matrix `J = tridiag(beta, alpha, beta)` with that spectral measure (Golub & Van
//!    Loan 2013, section 10.1; the inverse eigenvalue problem of a Jacobi matrix). Flipping the
//!    sign of every other Lanczos vector makes the off-diagonal `-beta`. A chain of masses `M_j`
//!    and springs, the last one to the ground, has `M^-1/2 K M^-1/2 = J` when `u = (sqrt M_j)`
//!    solves `J u = c e_K`: every row of `K = U J U` then sums to 0 but the last. `J` is a
//!    positive definite matrix with off-diagonals <= 0, so `J^-1` is positive and so is `u`:
//!    every mass and spring comes out positive. `u` is scaled so that `M_1 = 1 / sum 1/m_k`.
//! 2. **Damping to first order.** A drag `c_j` (N s/m) on mass j and a damper `Z_l` on link l
//!    change mode k's decay rate by `1/2 psi_k^T C psi_k` (`psi_k` the mass-normalised mode):
//!    linear in `(c, Z)`, solved for the target rates with `c, Z >= 0` (Lawson & Hanson's
//!    non-negative least squares; 2K unknowns for K rates).
//! 3. **Exact modes.** The damped chain's poles (eigenvalues of its state matrix) move the
//!    undamped `w_k^2` and the first-order rates until every mode's frequency and decay rate
//!    match to [`TOLERANCE`].

use super::body::BodyMode;
use crate::linalg::dense::DenseMatrix;
use crate::linalg::eigen::eigenvalues;
use crate::linalg::Assemble;
use faer::Mat;
use std::f64::consts::PI;

/// Relative error of every mode's frequency and decay rate at which the realisation stops.
const TOLERANCE: f64 = 1e-9;

/// Corrections tried before giving up.
const MAX_ITERATIONS: usize = 60;

/// A realised body: masses `1..K` from the bridge, and the links `j -> j+1`, the last to the
/// ground.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct BodyChain {
    /// Each mass, kg.
    pub masses: Vec<f64>,
    /// Each link's stiffness, N/m.
    pub springs: Vec<f64>,
    /// Each mass's drag, 1/s.
    pub drags: Vec<f64>,
    /// Each link's damper, N s/m.
    pub dampers: Vec<f64>,
}

/// Why modes cannot be realised: what was expected and what was found.
#[derive(Debug)]
pub(super) struct Unrealisable {
    pub expected: String,
    pub found: String,
}

impl Unrealisable {
    fn new(expected: impl Into<String>, found: impl Into<String>) -> Self {
        Self { expected: expected.into(), found: found.into() }
    }
}

/// The chain whose damped modes seen from mass 1 are `modes` (any order).
pub(super) fn realise(modes: &[BodyMode]) -> Result<BodyChain, Unrealisable> {
    let mut modes = modes.to_vec();
    modes.sort_by(|a, b| a.frequency.total_cmp(&b.frequency));
    let omega: Vec<f64> = modes.iter().map(|m| 2.0 * PI * m.frequency).collect();
    let sigma: Vec<f64> = modes.iter().map(|m| 1.0 / m.decay_time).collect();
    let inverse_mass: Vec<f64> = modes.iter().map(|m| 1.0 / m.mass).collect();
    let mut squared: Vec<f64> = omega.iter().zip(&sigma).map(|(w, s)| w * w + s * s).collect();
    let mut rates = sigma.clone();
    let mut worst = f64::INFINITY;
    for _ in 0..MAX_ITERATIONS {
        let lossless = lossless_chain(&squared, &inverse_mass)?;
        let (drag_forces, dampers) = damping_for(&lossless, &rates)?;
        let chain = BodyChain {
            drags: drag_forces.iter().zip(&lossless.masses).map(|(c, m)| c / m).collect(),
            masses: lossless.masses,
            springs: lossless.springs,
            dampers,
        };
        let poles = damped_poles(&chain)?;
        worst = 0.0f64;
        for k in 0..modes.len() {
            let (rate, frequency) = poles[k];
            worst = worst.max((frequency / omega[k] - 1.0).abs()).max((rate / sigma[k] - 1.0).abs());
            squared[k] *= (omega[k].powi(2) + sigma[k].powi(2)) / (frequency.powi(2) + rate.powi(2));
            rates[k] += sigma[k] - rate;
        }
        if worst <= TOLERANCE {
            return Ok(chain);
        }
    }
    Err(Unrealisable::new(
        format!("modes a chain matches within {TOLERANCE:e}"),
        format!("the closest chain {worst:.1e} off after {MAX_ITERATIONS} corrections"),
    ))
}

/// The lossless chain and its mass-normalised mode shapes.
struct LosslessChain {
    masses: Vec<f64>,
    springs: Vec<f64>,
    /// `shapes[k][j]`: mode k at mass j, with `psi^T M psi = 1`.
    shapes: Vec<Vec<f64>>,
}

/// The chain with modes at `squared` = `w_k^2` (rad^2/s^2) and effective masses `1 /
/// inverse_mass` (module documentation, step 1).
fn lossless_chain(squared: &[f64], inverse_mass: &[f64]) -> Result<LosslessChain, Unrealisable> {
    let n = squared.len();
    let bridge = 1.0 / inverse_mass.iter().sum::<f64>();
    let mut vectors: Vec<Vec<f64>> = vec![inverse_mass.iter().map(|w| (w * bridge).sqrt()).collect()];
    let (mut alpha, mut beta) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let largest = squared.iter().copied().fold(0.0, f64::max);
    for j in 0..n {
        let mut z: Vec<f64> = vectors[j].iter().zip(squared).map(|(q, l)| q * l).collect();
        alpha.push(dot(&vectors[j], &z));
        for _ in 0..2 {
            for q in &vectors {
                let c = dot(q, &z);
                z.iter_mut().zip(q).for_each(|(z, q)| *z -= c * q);
            }
        }
        if j + 1 < n {
            let b = dot(&z, &z).sqrt();
            if b <= 1e-12 * largest {
                return Err(Unrealisable::new(
                    "modes a chain can separate",
                    format!("{n} modes whose frequencies or masses leave a Lanczos step of {b:.1e}"),
                ));
            }
            beta.push(b);
            vectors.push(z.iter().map(|z| z / b).collect());
        }
    }
    let mut u = solve_jacobi_for_last(&alpha, &beta);
    if !u.iter().all(|&x| x > 0.0) {
        return Err(Unrealisable::new("modes a chain of positive masses can realise", "a mass <= 0"));
    }
    let scale = bridge.sqrt() / u[0];
    u.iter_mut().for_each(|x| *x *= scale);
    let masses = u.iter().map(|x| x * x).collect();
    let mut springs: Vec<f64> = (0..n - 1).map(|j| beta[j] * u[j] * u[j + 1]).collect();
    springs.push(u[n - 1] * scale);
    let shapes = (0..n)
        .map(|k| (0..n).map(|j| if j % 2 == 0 { 1.0 } else { -1.0 } * vectors[j][k] / u[j]).collect())
        .collect();
    Ok(LosslessChain { masses, springs, shapes })
}

/// `u` with `J u = e_n`, `J = tridiag(-beta, alpha, -beta)`, by the Thomas algorithm (stable
/// without pivoting: `J` is symmetric positive definite).
fn solve_jacobi_for_last(alpha: &[f64], beta: &[f64]) -> Vec<f64> {
    let n = alpha.len();
    let (mut diagonal, mut rhs) = (alpha.to_vec(), vec![0.0; n]);
    rhs[n - 1] = 1.0;
    for j in 1..n {
        let factor = -beta[j - 1] / diagonal[j - 1];
        diagonal[j] -= factor * -beta[j - 1];
        rhs[j] -= factor * rhs[j - 1];
    }
    let mut u = vec![0.0; n];
    u[n - 1] = rhs[n - 1] / diagonal[n - 1];
    for j in (0..n - 1).rev() {
        u[j] = (rhs[j] + beta[j] * u[j + 1]) / diagonal[j];
    }
    u
}

/// Drag forces per velocity `c_j` (N s/m) and link dampers `Z_l` (N s/m) that give each mode
/// its decay `rates` (1/s) to first order (module documentation, step 2).
fn damping_for(chain: &LosslessChain, rates: &[f64]) -> Result<(Vec<f64>, Vec<f64>), Unrealisable> {
    let n = chain.masses.len();
    let rows = damping_rows(chain);
    if let Some(k) = rates.iter().position(|&r| r.is_nan() || r <= 0.0) {
        return Err(Unrealisable::new(
            "decay rates a passive chain can realise",
            format!("mode {} would need gain", k + 1),
        ));
    }
    let mut solution = non_negative_least_squares(&rows, rates);
    let residual =
        rows.iter().zip(rates).map(|(row, r)| (dot(row, &solution) / r - 1.0).abs()).fold(0.0, f64::max);
    if residual > 1e-6 {
        return Err(Unrealisable::new(
            "decay times that drags and link dampers can give together (decay rates that do not fall too steeply with frequency)",
            format!("the closest damping {:.1}% off on a mode", 100.0 * residual),
        ));
    }
    let dampers = solution.split_off(n);
    Ok((solution, dampers))
}

/// Each mode's decay rate per unit drag force on each mass, then per unit damper on each link,
/// to first order: `1/2 psi_j^2` and `1/2 (psi_l - psi_(l+1))^2` (module documentation, step 2).
fn damping_rows(chain: &LosslessChain) -> Vec<Vec<f64>> {
    let n = chain.masses.len();
    chain
        .shapes
        .iter()
        .map(|psi| {
            let drags = psi.iter().map(|p| 0.5 * p * p);
            let links = (0..n).map(|l| 0.5 * (psi[l] - psi.get(l + 1).copied().unwrap_or(0.0)).powi(2));
            drags.chain(links).collect()
        })
        .collect()
}

/// The decay rates (1/s, in the order of `modes`) nearest theirs that drags and link dampers
/// give together, to first order: the non-negative least squares of step 2 on the relative
/// errors, `sum_k (r'_k / r_k - 1)^2` least, and the rates `r'` it gives.
pub(super) fn nearest_rates(modes: &[BodyMode]) -> Result<Vec<f64>, Unrealisable> {
    let mut order: Vec<usize> = (0..modes.len()).collect();
    order.sort_by(|&a, &b| modes[a].frequency.total_cmp(&modes[b].frequency));
    let squared: Vec<f64> = order
        .iter()
        .map(|&k| (2.0 * PI * modes[k].frequency).powi(2) + modes[k].decay_time.powi(-2))
        .collect();
    let inverse_mass: Vec<f64> = order.iter().map(|&k| 1.0 / modes[k].mass).collect();
    let rows = damping_rows(&lossless_chain(&squared, &inverse_mass)?);
    let relative: Vec<Vec<f64>> = rows
        .iter()
        .zip(&order)
        .map(|(row, &k)| row.iter().map(|a| a * modes[k].decay_time).collect())
        .collect();
    let solution = non_negative_least_squares(&relative, &vec![1.0; modes.len()]);
    let mut rates = vec![0.0; modes.len()];
    for (row, &k) in rows.iter().zip(&order) {
        rates[k] = dot(row, &solution);
    }
    Ok(rates)
}

/// `x >= 0` minimising `|A x - b|` for the matrix of `rows` (Lawson & Hanson 1974, ch. 23,
/// algorithm NNLS), each column scaled to unit norm first.
fn non_negative_least_squares(rows: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let columns = rows[0].len();
    let norms: Vec<f64> =
        (0..columns).map(|c| rows.iter().map(|r| r[c] * r[c]).sum::<f64>().sqrt()).collect();
    let norms = &norms;
    let column = |c: usize| rows.iter().map(move |r| r[c] / norms[c]);
    let mut x = vec![0.0; columns];
    let mut passive: Vec<usize> = Vec::new();
    let gradient = |x: &[f64]| -> Vec<f64> {
        let residual: Vec<f64> = rows
            .iter()
            .zip(b)
            .map(|(r, b)| b - (0..columns).map(|c| r[c] / norms[c] * x[c]).sum::<f64>())
            .collect();
        (0..columns)
            .map(|c| if norms[c] > 0.0 { column(c).zip(&residual).map(|(a, r)| a * r).sum() } else { 0.0 })
            .collect()
    };
    let scale = dot(b, b).sqrt();
    for _ in 0..3 * columns {
        let w = gradient(&x);
        let entering = (0..columns)
            .filter(|c| !passive.contains(c) && norms[*c] > 0.0)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(entering) = entering.filter(|&c| w[c] > 1e-14 * scale) else { break };
        passive.push(entering);
        loop {
            let Some(z) = least_squares_on(&passive, &column, b) else {
                passive.pop();
                return unscale(x, norms);
            };
            if z.iter().all(|&v| v > 0.0) {
                passive.iter().zip(&z).for_each(|(&c, &v)| x[c] = v);
                break;
            }
            let step = passive
                .iter()
                .zip(&z)
                .filter(|(_, &v)| v <= 0.0)
                .map(|(&c, &v)| x[c] / (x[c] - v))
                .fold(1.0, f64::min);
            passive.iter().zip(&z).for_each(|(&c, &v)| x[c] += step * (v - x[c]));
            passive.retain(|&c| x[c] > 1e-15 * scale);
            (0..columns).filter(|c| !passive.contains(c)).for_each(|c| x[c] = 0.0);
        }
    }
    unscale(x, norms)
}

/// The unconstrained least-squares solution on the columns `passive` (normal equations), or
/// `None` when they are dependent.
fn least_squares_on<I: Iterator<Item = f64>>(
    passive: &[usize],
    column: &impl Fn(usize) -> I,
    b: &[f64],
) -> Option<Vec<f64>> {
    let size = passive.len();
    let mut normal = DenseMatrix::new(size);
    let mut rhs = vec![0.0; size];
    for (i, &ci) in passive.iter().enumerate() {
        for (j, &cj) in passive.iter().enumerate() {
            normal.add(i, j, column(ci).zip(column(cj)).map(|(a, b)| a * b).sum());
        }
        rhs[i] = column(ci).zip(b).map(|(a, b)| a * b).sum();
    }
    normal.factor().ok()?;
    normal.solve_in_place(&mut rhs);
    rhs.iter().all(|v| v.is_finite()).then_some(rhs)
}

fn unscale(x: Vec<f64>, norms: &[f64]) -> Vec<f64> {
    x.iter().zip(norms).map(|(x, n)| if *n > 0.0 { x / n } else { 0.0 }).collect()
}

/// Each mode's decay rate `-Re s` (1/s) and frequency `Im s` (rad/s), in rising frequency:
/// the eigenvalues of the state matrix `[[0, w I], [-M^-1 K / w, -M^-1 C]]` (balanced by a
/// typical `w`) in the upper half plane.
fn damped_poles(chain: &BodyChain) -> Result<Vec<(f64, f64)>, Unrealisable> {
    let n = chain.masses.len();
    let mut stiffness = Mat::<f64>::zeros(n, n);
    let mut damping = Mat::<f64>::zeros(n, n);
    for l in 0..n {
        for (matrix, value) in [(&mut stiffness, chain.springs[l]), (&mut damping, chain.dampers[l])] {
            matrix[(l, l)] += value;
            if l + 1 < n {
                matrix[(l + 1, l + 1)] += value;
                matrix[(l, l + 1)] -= value;
                matrix[(l + 1, l)] -= value;
            }
        }
        damping[(l, l)] += chain.drags[l] * chain.masses[l];
    }
    let typical = (0..n).map(|j| stiffness[(j, j)] / chain.masses[j]).sum::<f64>().sqrt();
    let mut state = Mat::<f64>::zeros(2 * n, 2 * n);
    for i in 0..n {
        state[(i, n + i)] = typical;
        for j in 0..n {
            state[(n + i, j)] = -stiffness[(i, j)] / chain.masses[i] / typical;
            state[(n + i, n + j)] = -damping[(i, j)] / chain.masses[i];
        }
    }
    let values = eigenvalues(state.as_ref()).map_err(|_| {
        Unrealisable::new("a chain whose modes can be computed", "an eigenvalue solver failure")
    })?;
    let mut poles: Vec<(f64, f64)> = values.iter().filter(|s| s.im > 0.0).map(|s| (-s.re, s.im)).collect();
    if poles.len() != n {
        return Err(Unrealisable::new(
            format!("{n} oscillating modes"),
            format!("{} (a mode is overdamped)", poles.len()),
        ));
    }
    poles.sort_by(|a, b| a.1.total_cmp(&b.1));
    Ok(poles)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}
