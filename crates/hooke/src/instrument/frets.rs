//! Stopping a string at a fret.
//!
//! Fret `n` of 12-tone equal temperament stands at the fraction `1 - 2^(-n/12)` of the length
//! from the nut, so the stopped string is `2^(-n/12)` of the open one and sounds `n` semitones
//! higher. Morgan & Qiao 2009 stop the mass nearest the fret ([`FretMethod::Nearest`]): with 80
//! masses the sounding length is then off by up to half a segment, tens of cents.
//! [`FretMethod::Between`] also stops the mass nearest the fret but replaces the link from it
//! towards the bridge by one whose stiffness is chosen so that the stopped string's fundamental,
//! *simulated*, is the fret's pitch: a stop placed between the two masses around the fret.
//!
//! The stop is tuned on the sounding part as the instrument holds it: the masses from the stop
//! to the bridge with their links and drag; on a stiff string every bending element that moves
//! them, the one centred at the stopped mass included, which couples the first sounding mass to
//! the last mass on the nut side; and the body the string ends on, if any ([`StringPart::body`]).
//! That element, `kappa/2 (x_{s-1} + x_{s+1})^2` with the stopped mass `s` held, acts on the
//! sounding part as a spring to the ground of stiffness `kappa (1 - kappa Re G)` at `x_{s+1}`,
//! `G` the receptance at `x_{s-1}` of the nut side (muted by [`MUTE_DRAG`]) at the fret's pitch:
//! the nut side condensed onto the one coordinate through which it acts. The fundamental is
//! the undamped mode (of `M^-1/2 K M^-1/2`) nearest the fret's pitch among those with most of
//! their kinetic energy on the string (not a body mode), damped together with the undamped modes
//! near it (a body mode's damping moves a string mode next to it); its simulated frequency is
//! what the scheme at the step makes of that analog pole ([`oscillator_poles`]). The link's
//! stiffness starts at `k / (1 - a)` (a segment shortened by the fraction `a` of the fret past
//! the stopped mass) and is refined by regula falsi ([`increasing_root`]) within `k / 4` to
//! `4 k`; its damper keeps the string's ratio `Z / k`.
//!
//! That design is then checked on the string as the engine steps it ([`held_simulated_hz`]):
//! the whole string with its muted nut side and its body, stepped by the scheme with the
//! stopped mass put back at rest after each step. Velocity Verlet moves the stopped mass within
//! a step (its drift follows the first half kick), so a stop designed as an anchor sounds flat
//! (up to 8.7 cents on `guitar.toml`'s top string at fret 20); the analog design's goal is
//! moved by the discrepancy, by secant steps, until the stepped pitch is the fret's within
//! [`HELD_TOLERANCE`]. Where the fundamental jumps across the pitch (a body mode right there)
//! or cannot reach it in that range, the stop is the best effort and its
//! [`FretStop::frequency_hz`] says where the note is. A stopped string whose discrete poles
//! grow is refused. Other strings on the same body are left out of the design.

use super::body::undamped_modes;
use super::{InstrumentError, StringPart};
use crate::analysis::discrete::{one_step_matrix, oscillator_poles, Oscillator};
use crate::analysis::error::AnalysisError;
use crate::analysis::linearise::{About, Linearisation};
use crate::analysis::poles::dominant;
use crate::linalg::dense::DenseMatrix;
use crate::linalg::eigen::{eigen, eigenvalues};
use crate::linalg::Assemble;
use crate::model::{Anchor, Bending, Mass, Model, ModelError, Node, Spring};
use crate::scheme::SchemeKind;
use crate::system::{run_rates, System};
use faer::{c64, Mat};
use std::f64::consts::PI;

/// Drag that mutes the part of a string between the nut and a pressed fret (the finger's
/// flesh): time constant 5 ms, as `gamma = 2 / tau`, 1/s.
pub const MUTE_DRAG: f64 = 2.0 / 5e-3;

/// How a fret stops a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FretMethod {
    /// Stop the mass nearest the fret, as Morgan & Qiao 2009 do.
    Nearest,
    /// Stop the mass nearest the fret and tune the link after it so the simulated pitch is the
    /// fret's.
    Between,
}

/// Where and how a string is stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FretStop {
    /// The stopped mass, 0-based from the nut.
    pub mass: usize,
    /// Stiffness of the link from the stopped mass towards the bridge, N/m.
    pub stiffness: f64,
    /// Damping of that link, N s/m.
    pub damping: f64,
    /// The stopped string's lowest simulated mode, Hz.
    pub frequency_hz: f64,
}

/// The fraction of the length from the nut where fret `fret` stands.
pub fn fret_position(fret: usize) -> f64 {
    1.0 - 2f64.powf(-(fret as f64) / 12.0)
}

/// The pitch of fret `fret` on `string`, Hz.
pub fn fret_pitch(string: &StringPart, fret: usize) -> f64 {
    string.frequency_hz * 2f64.powf(fret as f64 / 12.0)
}

/// The stop for fret `fret` (1-based) of `string` simulated with `scheme` at step `dt` (s).
pub fn fret_stop(
    string: &StringPart,
    fret: usize,
    method: FretMethod,
    scheme: SchemeKind,
    dt: f64,
) -> Result<FretStop, InstrumentError> {
    let n = string.masses.len();
    let place = fret_position(fret) * (n + 1) as f64;
    let stopped = place.round() as usize;
    let part = format!("fret {fret}");
    if fret == 0 || fret > string.frets || stopped + 2 > n + 1 {
        return Err(ModelError::new(
            part,
            "fret",
            format!(
                "a fret from 1 to {} that leaves at least 2 masses sounding",
                string.frets.min(max_fret(n))
            ),
            fret,
        )
        .into());
    }
    let condensed = condensed_stop(string, stopped, 2.0 * PI * fret_pitch(string, fret), &part)?;
    let simulated = |stiffness: f64| -> Result<f64, InstrumentError> {
        let model = sounding_part(string, stopped, stiffness, condensed)?;
        let body = string.body.as_ref().map_or(0, |b| b.model.masses().len());
        let pole = fundamental(&model, body, 2.0 * PI * fret_pitch(string, fret), &part)?;
        simulated_hz(pole, scheme, dt)
            .map_err(|source| InstrumentError::Analysis { part: part.clone(), source })
    };
    let k = string.stiffness;
    let damping_ratio = string.damping / k;
    let stop = |stiffness: f64, frequency_hz: f64| FretStop {
        mass: stopped - 1,
        stiffness,
        damping: damping_ratio * stiffness,
        frequency_hz,
    };
    let result = match method {
        FretMethod::Nearest => {
            stop(k, held_simulated_hz(string, stopped, k, simulated(k)?, scheme, dt, &part)?)
        }
        FretMethod::Between => {
            let target = fret_pitch(string, fret).ln();
            let past = place - stopped as f64;
            // Best effort where the fundamental jumps across the target (a body mode or another
            // string's partial right there): the reported `frequency_hz` says how far it is off.
            // The stepped string's stability is checked on its discrete poles.
            let range = [(0.25 * k).ln(), (4.0 * k).ln()];
            let mut log_stiffness = (k / (1.0 - past)).ln();
            // (goal asked of the analog design, log error of the stepped string) of the last
            // two checks, and the best stop so far.
            let mut checks: Vec<(f64, f64)> = Vec::new();
            let mut best: Option<(FretStop, f64)> = None;
            let mut goal = target;
            for _ in 0..HELD_CHECKS {
                let error = |log_k: f64| Ok::<_, InstrumentError>(simulated(log_k.exp())?.ln() - goal);
                log_stiffness = increasing_root(log_stiffness, range, error)?.0;
                let stiffness = log_stiffness.exp();
                let held =
                    held_simulated_hz(string, stopped, stiffness, simulated(stiffness)?, scheme, dt, &part)?;
                let off = held.ln() - target;
                if best.is_none_or(|(_, best_off)| best_off.is_nan() || off.abs() < best_off.abs()) {
                    best = Some((stop(stiffness, held), off));
                }
                if off.abs() < HELD_TOLERANCE {
                    break;
                }
                // The stepped string differs from the analog design by a discrepancy that varies
                // slowly with the link: ask the design for the target less that discrepancy, by
                // a secant step on the goal once two checks are known.
                let slope = match checks.last() {
                    Some(&(last_goal, last_off)) if goal != last_goal => {
                        (off - last_off) / (goal - last_goal)
                    }
                    _ => 1.0,
                };
                checks.push((goal, off));
                goal -= off / if slope.is_finite() && slope > 0.1 { slope } else { 1.0 };
            }
            best.expect("at least one check").0
        }
    };
    Ok(result)
}

/// The stops of frets `wanted`, each `(string, fret)` as [`fret_stop`] places it with `scheme`
/// at step `dt` (s), in `wanted`'s order: placed on rayon's threads, each fret's analysis its
/// own (one after another where there are no threads).
pub fn place_frets(
    wanted: &[(&StringPart, usize)],
    scheme: SchemeKind,
    dt: f64,
) -> Vec<Result<FretStop, InstrumentError>> {
    use rayon::prelude::*;
    wanted.par_iter().map(|&(string, fret)| fret_stop(string, fret, string.fret_method, scheme, dt)).collect()
}

/// How many times [`fret_stop`] checks its design on the string as the scheme steps it.
const HELD_CHECKS: usize = 4;

/// The largest log-frequency error (0.017 cent) at which [`fret_stop`] stops correcting.
const HELD_TOLERANCE: f64 = 1e-5;

/// The frequency (Hz) at which `scheme` at step `dt` simulates the fundamental of `string`
/// stopped at node `stopped` with link `stiffness` after it, as the engine runs it: the whole
/// string, the nut side muted by [`MUTE_DRAG`], on its body or a fixed bridge, each step the
/// scheme's on every mass, after which the stopped mass is put back at rest where it was (so
/// within a step of velocity Verlet it moves, and its neighbours' second half kick sees it
/// moved: up to 8.7 cents flat on `guitar.toml`'s top string, were it designed as an anchor).
/// The discrete poles are the eigenvalues of the one-step matrix without the stopped mass's
/// rows and columns (an error if one grows); the fundamental is the one nearest in the z-plane to the design's
/// prediction `predicted` (Hz, its decay taken from the open string's).
fn held_simulated_hz(
    string: &StringPart,
    stopped: usize,
    stiffness: f64,
    predicted: f64,
    scheme: SchemeKind,
    dt: f64,
    part: &str,
) -> Result<f64, InstrumentError> {
    let failed = |source| InstrumentError::Analysis { part: part.to_string(), source };
    let mut model = match &string.body {
        Some(body) => body.model.clone(),
        None => Model::new(1)?,
    };
    let first = model.masses().len();
    let mut nodes = vec![model.add_anchor(Anchor::new("nut"))?];
    for i in 1..=string.masses.len() {
        let drag = if i < stopped { string.drag + MUTE_DRAG } else { string.drag };
        nodes.push(model.add_mass(Mass::new(format!("m{i}"), string.mass).drag(drag))?);
    }
    nodes.push(match &string.body {
        Some(body) => body.bridge,
        None => model.add_anchor(Anchor::new("bridge"))?,
    });
    let ratio = string.damping / string.stiffness;
    for (j, pair) in nodes.windows(2).enumerate() {
        let k = if j == stopped { stiffness } else { string.stiffness };
        model.add_spring(Spring::new(pair[0], pair[1], k).damping(ratio * k))?;
    }
    if string.bending > 0.0 {
        for triple in nodes.windows(3) {
            model.add_bending(Bending::new(triple[0], triple[1], triple[2], string.bending))?;
        }
    }
    // The mode damping as the engine holds it with the mass stopped: on each side on its own.
    add_mode_damping(&mut model, string, &nodes[1..stopped])?;
    add_mode_damping(&mut model, string, &nodes[stopped + 1..=string.masses.len()])?;
    let system = System::new(&model);
    let linearisation = Linearisation::new(&system, &About::Initial).map_err(failed)?;
    let step = one_step_matrix(&system, scheme, dt, &linearisation).map_err(failed)?;
    let n = system.mass_coordinates();
    let held = first + stopped - 1;
    let keep: Vec<usize> = (0..2 * n).filter(|&c| c % n != held).collect();
    let matrix = Mat::<f64>::from_fn(keep.len(), keep.len(), |r, c| step[(keep[r], keep[c])]);
    let poles =
        eigenvalues(matrix.as_ref()).map_err(|_| failed(AnalysisError::Eigen { size: keep.len() }))?;
    let growth = poles.iter().map(|z| z.norm()).fold(0.0, f64::max);
    if growth > 1.0 + 1e-9 {
        return Err(failed(AnalysisError::Target(format!(
            "the stopped string as {scheme} steps it at {:.0} Hz grows by |z| = {growth:.9} per step \
             (a link of {stiffness:.6e} N/m after the stop): raise the rate",
            1.0 / dt
        ))));
    }
    let decay = string.time_constant.map_or(1.0, |tau| (-dt / tau).exp());
    let expected = c64::from_polar(decay, 2.0 * PI * predicted * dt);
    let nearest = poles
        .iter()
        .filter(|z| z.im > 0.0)
        .min_by(|a, b| (**a - expected).norm().total_cmp(&(**b - expected).norm()));
    Ok(nearest.map_or(f64::NAN, |z| z.im.atan2(z.re) / (2.0 * PI * dt)))
}

/// The root of `error`, a nondecreasing function that may jump, near `first` in `range`: a
/// bracket found by steps of growing length (at most to the range's ends), narrowed by the Illinois variant of regula falsi until `|error| <
/// 1e-12` or the bracket is as narrow as rounding allows. Returns the point and its error: where
/// the function jumps across 0 instead of crossing it, the side nearer 0; where it does not
/// reach 0 in the range, the end nearer.
fn increasing_root<E>(
    first: f64,
    range: [f64; 2],
    mut error: impl FnMut(f64) -> Result<f64, E>,
) -> Result<(f64, f64), E> {
    let mut a = (first, error(first)?);
    let direction = -a.1.signum();
    let mut step = 0.01;
    let mut b = a;
    for _ in 0..BRACKET_STEPS {
        if a.1 == 0.0 || b.1 * a.1 < 0.0 {
            break;
        }
        if b.0 == range[0] || b.0 == range[1] {
            return Ok(b);
        }
        a = b;
        let x = (a.0 + direction * step).clamp(range[0], range[1]);
        b = (x, error(x)?);
        step *= 2.0;
    }
    let mut weight = a.1;
    for _ in 0..BRACKET_STEPS {
        if b.1.abs() < 1e-12 || a.1.abs() < 1e-12 || (a.0 - b.0).abs() <= 1e-15 * a.0.abs().max(1.0) {
            break;
        }
        let x = (a.0 * b.1 - b.0 * weight) / (b.1 - weight);
        let x = if x.is_finite() && (x - a.0) * (x - b.0) < 0.0 { x } else { 0.5 * (a.0 + b.0) };
        let next = (x, error(x)?);
        if next.1 * b.1 < 0.0 {
            (a, weight) = (b, b.1);
        } else {
            weight *= 0.5;
        }
        b = next;
    }
    Ok(if a.1.abs() < b.1.abs() { a } else { b })
}

/// The evaluations [`increasing_root`] allows for each of its bracket and its narrowing.
const BRACKET_STEPS: usize = 60;

/// The highest fret that leaves two masses sounding on a string of `masses` masses.
fn max_fret(masses: usize) -> usize {
    (1..)
        .take_while(|&f| (fret_position(f) * (masses + 1) as f64).round() as usize + 2 <= masses + 1)
        .last()
        .unwrap_or(0)
}

/// The sounding part of `string` stopped at node `stopped` (0 the nut, `1..=N` the masses), as
/// the instrument holds it: the masses after the stop, the first link of stiffness `stiffness`
/// (its damper keeping the string's `Z / k`), the others and the drag as built; on a stiff
/// string the bending elements centred at each sounding mass and the one centred at the stop
/// as a spring `condensed` (N/m) from the first sounding mass to the ground; the end on the
/// string's body (its masses first in the model) or on a fixed bridge.
fn sounding_part(
    string: &StringPart,
    stopped: usize,
    stiffness: f64,
    condensed: f64,
) -> Result<Model, ModelError> {
    let mut model = match &string.body {
        Some(body) => body.model.clone(),
        None => Model::new(1)?,
    };
    let stop = model.add_anchor(Anchor::new("stop"))?;
    let mut nodes = vec![stop];
    for i in stopped + 1..=string.masses.len() {
        nodes.push(model.add_mass(Mass::new(format!("m{i}"), string.mass).drag(string.drag))?);
    }
    nodes.push(match &string.body {
        Some(body) => body.bridge,
        None => model.add_anchor(Anchor::new("bridge"))?,
    });
    let ratio = string.damping / string.stiffness;
    for (j, pair) in nodes.windows(2).enumerate() {
        let k = if j == 0 { stiffness } else { string.stiffness };
        model.add_spring(Spring::new(pair[0], pair[1], k).damping(ratio * k))?;
    }
    if string.bending > 0.0 {
        let ground = model.add_anchor(Anchor::new("ground"))?;
        model.add_spring(Spring::new(ground, nodes[1], condensed))?;
        for triple in nodes.windows(3) {
            model.add_bending(Bending::new(triple[0], triple[1], triple[2], string.bending))?;
        }
    }
    add_mode_damping(&mut model, string, &nodes[1..nodes.len() - 1])?;
    Ok(model)
}

/// The mode damping of `string` (if it has one) on a run of its masses, `run` (their nodes in
/// `model`), as the engine damps the run between stops ([`crate::system::run_rates`]).
fn add_mode_damping(model: &mut Model, string: &StringPart, run: &[Node]) -> Result<(), ModelError> {
    if string.mode_damping.is_empty() || run.is_empty() {
        return Ok(());
    }
    model.add_mode_damping("a stopped string", run, run_rates(&string.mode_damping, run.len()))
}

/// The stiffness (N/m) of the spring to the ground at the first sounding mass that stands for
/// the bending element centred at the stopped node `stopped` of `string` at angular frequency
/// `omega` (rad/s): `kappa (1 - kappa Re G)`, `G` the receptance (m/N) at the nut side's last
/// mass of the nut side (masses `1..stopped`, their links, dampers, drag and [`MUTE_DRAG`], the
/// bending elements centred at them, and the `kappa` the stop's element adds there), from
/// `(K - w^2 M + i w D) x = e` solved as a real system of twice the size. 0 on a string without
/// bending; `kappa` where the stop is next to the nut.
fn condensed_stop(
    string: &StringPart,
    stopped: usize,
    omega: f64,
    part: &str,
) -> Result<f64, InstrumentError> {
    let (kappa, count) = (string.bending, stopped - 1);
    if kappa == 0.0 || count == 0 {
        return Ok(kappa);
    }
    let mut matrix = DenseMatrix::new(2 * count);
    let mut add = |i: usize, j: usize, stiffness: f64, damping: f64| {
        matrix.add(i, j, stiffness);
        matrix.add(count + i, count + j, stiffness);
        matrix.add(i, count + j, -omega * damping);
        matrix.add(count + i, j, omega * damping);
    };
    let coordinate = |node: usize| (1..=count).contains(&node).then(|| node - 1);
    let (k, z) = (string.stiffness, string.damping);
    for node in 0..stopped {
        let ends = [coordinate(node), coordinate(node + 1)];
        for (a, b) in [(ends[0], ends[1]), (ends[1], ends[0])] {
            if let Some(a) = a {
                add(a, a, k, z);
                if let Some(b) = b {
                    add(a, b, -k, -z);
                }
            }
        }
    }
    for centre in 1..=stopped {
        let element = [(centre - 1, 1.0), (centre, -2.0), (centre + 1, 1.0)];
        for (a, wa) in element {
            for (b, wb) in element {
                if let (Some(a), Some(b)) = (coordinate(a), coordinate(b)) {
                    add(a, b, kappa * wa * wb, 0.0);
                }
            }
        }
    }
    for i in 0..count {
        add(i, i, -omega * omega * string.mass, string.mass * (string.drag + MUTE_DRAG));
    }
    matrix.factor().map_err(|error| InstrumentError::Analysis {
        part: part.to_string(),
        source: AnalysisError::Target(format!("the muted nut side's receptance: {error}")),
    })?;
    let mut receptance = vec![0.0; 2 * count];
    receptance[count - 1] = 1.0;
    matrix.solve_in_place(&mut receptance);
    Ok(kappa * (1.0 - kappa * receptance[count - 1]))
}

/// The fundamental of a stopped string's sounding part `model` (its first `body` masses a
/// body's), its analog pole (1/s): of the undamped modes with more than half their kinetic
/// energy on the string, the nearest in frequency to `target` (rad/s) (else the mode with the
/// most on the string), damped by the model's dampers and drag
/// together with the undamped modes within [`DAMPED_BAND`] of it (a body mode next to it,
/// whose damping moves the string's pitch): the pole of `s^2 + C s + W^2` in those modes whose
/// vector lies most on the string's mode.
fn fundamental(model: &Model, body: usize, target: f64, part: &str) -> Result<c64, InstrumentError> {
    let (omegas, shapes, damping) = undamped_modes(model, part)?;
    let on_string = |mode: usize| (body..shapes.nrows()).map(|i| shapes[(i, mode)].powi(2)).sum::<f64>();
    let modes = 0..omegas.len();
    let distance = |mode: usize| (omegas[mode] / target).ln().abs();
    let nearest = modes
        .clone()
        .filter(|&mode| on_string(mode) > 0.5)
        .min_by(|&a, &b| distance(a).total_cmp(&distance(b)));
    let Some(mode) = nearest.or_else(|| modes.max_by(|&a, &b| on_string(a).total_cmp(&on_string(b)))) else {
        return Ok(c64::new(f64::NAN, f64::NAN));
    };
    let near: Vec<usize> =
        (0..omegas.len()).filter(|&j| (omegas[j] / omegas[mode]).ln().abs() <= DAMPED_BAND.ln()).collect();
    let m = near.len();
    let projected = shapes.transpose() * &damping * &shapes;
    let mut state = Mat::<f64>::zeros(2 * m, 2 * m);
    for (a, &i) in near.iter().enumerate() {
        state[(a, m + a)] = 1.0;
        state[(m + a, a)] = -omegas[i] * omegas[i];
        for (b, &j) in near.iter().enumerate() {
            state[(m + a, m + b)] = -projected[(i, j)];
        }
    }
    let failed = |_| InstrumentError::Analysis {
        part: part.to_string(),
        source: AnalysisError::Eigen { size: 2 * m },
    };
    let (poles, vectors) = eigen(state.as_ref()).map_err(failed)?;
    let string = near.iter().position(|&j| j == mode).unwrap_or(0);
    let weight = |k: usize| vectors[(string, k)].norm() / (0..m).map(|a| vectors[(a, k)].norm()).sum::<f64>();
    let best = (0..2 * m).filter(|&k| poles[k].im > 0.0).max_by(|&a, &b| weight(a).total_cmp(&weight(b)));
    Ok(best.map_or(c64::new(0.0, omegas[mode]), |k| poles[k]))
}

/// How far in frequency (a ratio) the undamped modes that damp the fundamental with it may lie.
const DAMPED_BAND: f64 = 1.3;

/// The frequency (Hz) at which `scheme` at step `dt` simulates a mode of analog pole `pole`
/// (1/s): the angle of its dominant discrete pole over `2 pi dt`.
fn simulated_hz(pole: c64, scheme: SchemeKind, dt: f64) -> Result<f64, AnalysisError> {
    let z = dominant(oscillator_poles(scheme, &[Oscillator::from_pole(pole)], dt)?[0]);
    Ok(z.im.abs().atan2(z.re) / (2.0 * PI * dt))
}
