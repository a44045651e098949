//! A string instrument's body: the strings end on its bridge, each tuned on it so that it keeps
//! its fixed-bridge pitch, and the instrument is heard by the bridge's acceleration. The guitar
//! and the sitar use it.

use super::guitar::string_pickups;
use super::{secant, Instrument, InstrumentError};
use crate::analysis::design::StringDesign;
use crate::analysis::error::AnalysisError;
use crate::analysis::linearise::{About, Linearisation};
use crate::engine::PickupSpec;
use crate::linalg::eigen::symmetric_eigen;
use crate::model::{BodyMode, BodySpec, Model, ModelError, Node, StringSpec};
use crate::system::System;
use faer::Mat;
use std::sync::Arc;

/// The id prefix of an instrument's body.
const BODY: &str = "body";

/// The body a string ends on, as the string's tuning sees it: a model of the body alone (its
/// masses `body.1` to `body.K`, no strings) and its bridge. Each open string's tension
/// ([`tune_on_body`]) and each fret's stop ([`super::frets`]) are tuned on it.
#[derive(Debug, PartialEq)]
pub struct BodyAlone {
    /// The body's masses and links, nothing else.
    pub model: Model,
    /// Its bridge, the mass the strings end on.
    pub bridge: Node,
}

/// Adds the body of `modes` (if any) to `model`, an instrument's model with nothing in it yet,
/// as masses `body.1` (the bridge) to `body.K`. Returns a copy of the body alone; an error names
/// the field `body`.
pub(super) fn add_body(
    model: &mut Model,
    modes: Option<&Vec<BodyMode>>,
) -> Result<Option<Arc<BodyAlone>>, ModelError> {
    let Some(modes) = modes else { return Ok(None) };
    let added = model.add_body(BodySpec::new(BODY, modes.clone()));
    let bridge = added.map_err(|error| ModelError { field: "body", ..error })?[0];
    Ok(Some(Arc::new(BodyAlone { model: model.clone(), bridge })))
}

/// The model index of the bridge of the instrument's body in `model` (the mass the strings end
/// on, [`add_body`]), if it has one.
pub(crate) fn bridge_mass(model: &Model) -> Option<usize> {
    match model.node(&format!("{BODY}.1"))? {
        Node::Mass(index) => Some(index),
        Node::Anchor(_) => None,
    }
}

/// Where [`direct_pickups`] hear each string, a fraction of its length from the nut: near the
/// bridge, where every low partial moves.
const DIRECT_PICKUP: f64 = 0.9;

/// For an instrument whose strings end on its body's bridge, pickups on the strings themselves:
/// each string's displacement (m) at [`DIRECT_PICKUP`] of its length, panned as the parts are,
/// on as many channels as the instrument's own pickups. The strings without the body's
/// radiation, what a plugin's body mix fades to. `None` for an instrument without a body.
pub fn direct_pickups(instrument: &Instrument) -> Option<Vec<PickupSpec>> {
    bridge_mass(&instrument.model)?;
    let stereo = instrument.pickups.iter().any(|pickup| pickup.channel == 2);
    Some(string_pickups(&instrument.parts, &[DIRECT_PICKUP], stereo))
}

/// Angular frequencies (rad/s), mass-normalised shapes and `M^-1/2 D M^-1/2` (1/s): [`undamped_modes`].
pub(super) type UndampedModes = (Vec<f64>, Mat<f64>, Mat<f64>);

/// The undamped modes of a 1D `model`: the angular frequencies (rad/s, ascending) and the
/// mass-normalised shapes (columns of unit length; entry `i` squared is the share of the mode's
/// kinetic energy on mass `i`), the eigenvalues `w^2` and eigenvectors of `M^-1/2 K M^-1/2`;
/// and `M^-1/2 D M^-1/2` (1/s). `part` names the model in an error.
pub(super) fn undamped_modes(model: &Model, part: &str) -> Result<UndampedModes, InstrumentError> {
    let failed = |source| InstrumentError::Analysis { part: part.to_string(), source };
    let linearisation = Linearisation::new(&System::new(model), &About::Initial).map_err(failed)?;
    let stiffness = linearisation.normalised_stiffness();
    let size = stiffness.nrows();
    let (squared, shapes) =
        symmetric_eigen(stiffness.as_ref()).map_err(|_| failed(AnalysisError::Eigen { size }))?;
    let omegas = squared.into_iter().map(|w2| w2.max(0.0).sqrt()).collect();
    Ok((omegas, shapes, linearisation.normalised_damping()))
}

/// The factor on the designed stiffness and bending of a course of strings (their tension,
/// keeping their inharmonicity and their detuning from each other) that keeps their pitch on
/// the bridge of `body` (a model of the body alone), by a secant search on the undamped modes of
/// the coupled model (the eigenvalues `w^2` of its `M^-1/2 K M^-1/2`):
/// - one string: the mode nearest its fixed-bridge fundamental is put there;
/// - a course (a piano key's two or three strings): its modes within a semitone (those mostly
///   on the strings), their log frequencies weighed by the power each sends to the bridge after
///   a blow on all the strings (`b^4`, `b` the mode's bridge entry in its mass-normalised shape:
///   excited and heard each in proportion to `b`), are put at the geometric mean of the
///   strings' fixed-bridge fundamentals. Tuned one by one, each string alone, the course's mode
///   that moves the bridge most would be pulled by all of them at once (2 to 3 cents flat on
///   `piano.toml`), and it is the one heard first (Weinreich 1977).
///
/// The scheme's warping maps both alike, so the simulated pitch stays the designed one; what is
/// left out, the body's damping acting on the pitch, is measured in `crates/hooke/tests/body.rs`
/// (four strings within 0.35 cents by FFT, where the A string was 5.9 cents sharp untuned).
pub(super) fn tune_on_body(
    course: &[(StringSpec, &StringDesign)],
    body: &BodyAlone,
) -> Result<f64, InstrumentError> {
    let part = format!("string {} on the body", course[0].0.id);
    let failed = |source| InstrumentError::Analysis { part: part.clone(), source };
    let mut log_fixed = 0.0;
    for (_, design) in course {
        log_fixed += undamped_modes(&design.model, &part)?.0.into_iter().fold(f64::INFINITY, f64::min).ln();
    }
    let fixed = (log_fixed / course.len() as f64).exp();
    let Node::Mass(bridge) = body.bridge else { unreachable!("a body's bridge is a mass") };
    let log_error = |log_tension: f64| -> Result<f64, InstrumentError> {
        let tension = log_tension.exp();
        let mut model = body.model.clone();
        for (string, design) in course {
            let coupled = string
                .clone()
                .stiffness(design.stiffness * tension)
                .bending(design.bending * tension)
                .to(body.bridge);
            model.add_string(coupled)?;
        }
        let (omegas, shapes, _) = undamped_modes(&model, &part)?;
        let near = |w: f64| (w / fixed).ln().abs();
        let nearest =
            || omegas.iter().copied().min_by(|a, b| near(*a).total_cmp(&near(*b))).unwrap_or(f64::NAN);
        let tuned = if course.len() == 1 {
            nearest()
        } else {
            // The course's modes within a semitone (mostly on the strings, not the body's own),
            // each weighed by the power it sends to the bridge.
            let semitone = 2f64.ln() / 12.0;
            let body_masses = body.model.masses().len();
            let on_strings = |k: usize| 1.0 - (0..body_masses).map(|i| shapes[(i, k)].powi(2)).sum::<f64>();
            let within = || (0..omegas.len()).filter(|&k| near(omegas[k]) < semitone);
            let (mut weights, mut logs) = (0.0, 0.0);
            for k in within().filter(|&k| on_strings(k) > 0.5) {
                let weight = shapes[(bridge, k)].powi(4);
                (weights, logs) = (weights + weight, logs + weight * omegas[k].ln());
            }
            // None where a body mode at the course's pitch shares its motion with the strings:
            // the mode most on the strings then.
            if weights > 0.0 {
                (logs / weights).exp()
            } else {
                let most_on_strings = within().max_by(|&a, &b| on_strings(a).total_cmp(&on_strings(b)));
                most_on_strings.map_or_else(nearest, |k| omegas[k])
            }
        };
        Ok(tuned.ln() - fixed.ln())
    };
    // The search keeps the tension within a factor e^(+-TENSION_SPAN) (pitch within about a
    // semitone): beyond, no mode of the course is near its pitch.
    let bounded = |log_tension: f64| match log_tension.is_finite() {
        true => log_error(log_tension.clamp(-TENSION_SPAN, TENSION_SPAN)),
        false => Ok(f64::NAN),
    };
    if let Some(root) = secant(0.0, 1e-3, 1e-11, bounded)?.filter(|t| t.abs() < TENSION_SPAN) {
        return Ok(root.exp());
    }
    // No root: a body mode at the course's pitch shares its motion with the strings, and the
    // course's pitch jumps between modes as the tension moves. The tension on a grid over the
    // span that comes nearest then.
    let mut best = (f64::INFINITY, 0.0);
    for step in -TENSION_STEPS..=TENSION_STEPS {
        let log_tension = TENSION_SPAN * f64::from(step) / f64::from(TENSION_STEPS);
        let error = log_error(log_tension)?.abs();
        if error < best.0 {
            best = (error, log_tension);
        }
    }
    if best.0.is_finite() {
        Ok(best.1.exp())
    } else {
        Err(failed(AnalysisError::Target(format!(
            "no tension gives the strings their fixed-bridge pitch, {:.3} Hz, on the body",
            fixed / (2.0 * std::f64::consts::PI)
        ))))
    }
}

/// How far a course's tuning on its body may move its tension, as a log: `e^0.12` is a pitch
/// a semitone away.
const TENSION_SPAN: f64 = 0.12;
/// Grid steps each way over [`TENSION_SPAN`] where the secant search finds no root.
const TENSION_STEPS: i32 = 24;

/// The acceleration of a body's bridge, m/s^2, in the middle of the field (one channel, or two
/// at constant power): a small source radiates a pressure proportional to its volume
/// acceleration (Fletcher & Rossing 1998, ch. 7, the monopole). In a linear 1D model with rest
/// lengths 0 it is the net force on the bridge over its mass, a weighted sum of positions and
/// velocities: `k (x_o - x_b) + Z (v_o - v_b)` for each link to another node `o`, `-gamma m
/// v_b` for its drag and `-kappa w_b sum_j w_j x_j - c w_b sum_j w_j v_j` for each bending element
/// through it.
pub(super) fn body_pickups(model: &Model, bridge: Node, stereo: bool) -> Vec<PickupSpec> {
    let Node::Mass(index) = bridge else { unreachable!("a body's bridge is a mass") };
    let mass = &model.masses()[index];
    let mut terms: Vec<(PickupSpec, f64)> = vec![(PickupSpec::velocity(bridge), -mass.drag * mass.mass)];
    for link in model.links().iter().filter(|l| l.a == bridge || l.b == bridge) {
        let other = if link.a == bridge { link.b } else { link.a };
        terms.push((PickupSpec::position(bridge), -link.stiffness));
        terms.push((PickupSpec::velocity(bridge), -link.damping));
        if matches!(other, Node::Mass(_)) {
            terms.push((PickupSpec::position(other), link.stiffness));
            terms.push((PickupSpec::velocity(other), link.damping));
        }
    }
    for element in model.bendings() {
        let Some(at) = element.nodes.iter().position(|&n| n == bridge) else { continue };
        for (&node, &weight) in element.nodes.iter().zip(&element.weights) {
            if matches!(node, Node::Mass(_)) {
                let weight = element.weights[at] * weight;
                terms.push((PickupSpec::position(node), -element.stiffness * weight));
                if element.damping != 0.0 {
                    terms.push((PickupSpec::velocity(node), -element.damping * weight));
                }
            }
        }
    }
    let gains = if stereo { vec![std::f64::consts::FRAC_1_SQRT_2; 2] } else { vec![1.0] };
    let mut pickups = Vec::new();
    for (channel, gain) in gains.iter().enumerate() {
        for (term, weight) in terms.iter().filter(|(_, w)| *w != 0.0) {
            pickups.push(term.clone().channel(channel + 1).weight(gain * weight / mass.mass));
        }
    }
    pickups
}
