//! A string of N masses between two anchors, displacements in 1D (Morgan & Qiao 2009,
//! section 4.3).

use super::{elements, lumped_values, required, Elements};
use crate::model::validate::{check_count, check_finite, check_non_negative, check_positive};
use crate::model::{Anchor, Bending, Mass, Model, ModelError, Node, NodeRef, Spring};
use serde::Deserialize;
use std::f64::consts::PI;

/// Initial triangular displacement of a string (1D), as left by a finger pluck.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pluck {
    /// Where along the string, as a fraction of its length, strictly between 0 and 1.
    pub position: f64,
    /// Displacement at that point, m.
    pub amplitude: f64,
}

/// A string (`[[string]]`): anchors `ID.0` and `ID.{N+1}`, masses `ID.1` .. `ID.N`, and a
/// spring with a damper in parallel between neighbours. Its elements are given either lumped
/// (`mass`, `stiffness`, optional `damping`) or physical (`length`, `tension`,
/// `linear_density`, optional `decay_time`), not both.
///
/// A stiff string also has a bending element `(1, -2, 1)` centred at each mass (its ends reach
/// the anchors: pinned ends), whose stiffness is given by one of `bending` (kappa, lumped),
/// `inharmonicity` (B) or `young_modulus` and `diameter` (physical). With `N + 1` segments of
/// length `dx`, `kappa = E I / dx^3` (`I = pi d^4 / 64`) and `B = pi^2 E I / (T L^2)` (Fletcher &
/// Rossing, The Physics of Musical Instruments), so `kappa = B k (N + 1)^2 / pi^2`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StringSpec {
    /// Id prefix of the generated nodes.
    pub id: String,
    /// Number of masses N (>= 1).
    pub masses: usize,
    /// Lumped: each mass, kg (> 0).
    pub mass: Option<f64>,
    /// Lumped: each spring, N/m (>= 0).
    pub stiffness: Option<f64>,
    /// Lumped: each damper (in parallel with each spring), N s/m (>= 0; default 0).
    pub damping: Option<f64>,
    /// Physical: length between the anchors, m (> 0).
    pub length: Option<f64>,
    /// Physical: tension, N (> 0).
    pub tension: Option<f64>,
    /// Physical: linear density, kg/m (> 0).
    pub linear_density: Option<f64>,
    /// Physical: time for the lowest mode to decay by 1/e, s (> 0; default lossless).
    pub decay_time: Option<f64>,
    /// Drag to ground of each mass, 1/s (>= 0).
    #[serde(default)]
    pub drag: f64,
    /// Stiffness, lumped: each bending element's kappa, N/m (>= 0; 0: no bending; see below).
    pub bending: Option<f64>,
    /// Stiffness as the inharmonicity coefficient B of `f_n = n f_0 sqrt(1 + B n^2)`
    /// (dimensionless, >= 0), either form.
    pub inharmonicity: Option<f64>,
    /// Stiffness, physical: Young's modulus E of the core, Pa (> 0), with `diameter`.
    pub young_modulus: Option<f64>,
    /// Stiffness, physical: diameter d of the core, m (> 0), with `young_modulus`.
    pub diameter: Option<f64>,
    /// Optional initial triangular shape.
    pub pluck: Option<Pluck>,
    /// A loss per mode (`model::ModeDamping`): the rate `gamma_j` (1/s, >= 0) of each of the
    /// string's `N` sine modes, mode `j` decaying at `gamma_j / 2` on top of the dampers and drag;
    /// strings of 1 to 512 masses. Empty: none.
    #[serde(default)]
    pub mode_damping: Vec<f64>,
    /// The node the last link ends at instead of a new anchor `ID.{N+1}`: a mass or an anchor
    /// defined before the string (a bridge shared by several strings).
    pub to: Option<NodeRef>,
}

impl StringSpec {
    /// A string of `masses` masses; give its elements with [`StringSpec::mass`] and
    /// [`StringSpec::stiffness`], or with [`StringSpec::length`], [`StringSpec::tension`] and
    /// [`StringSpec::linear_density`].
    pub fn new(id: impl Into<String>, masses: usize) -> Self {
        Self { id: id.into(), masses, ..Self::default() }
    }

    setters! {
        /// Lumped: sets each mass, kg.
        some mass(mass: f64) => mass;
        /// Lumped: sets each spring's stiffness, N/m.
        some stiffness(stiffness: f64) => stiffness;
        /// Lumped: sets each damper's damping, N s/m.
        some damping(damping: f64) => damping;
        /// Physical: sets the length, m.
        some length(length: f64) => length;
        /// Physical: sets the tension, N.
        some tension(tension: f64) => tension;
        /// Physical: sets the linear density, kg/m.
        some linear_density(density: f64) => linear_density;
        /// Physical: sets the 1/e decay time of the lowest mode, s.
        some decay_time(seconds: f64) => decay_time;
        /// Sets each mass's drag to ground, 1/s.
        set drag(gamma: f64) => drag;
        /// Lumped: sets each bending element's stiffness kappa, N/m.
        some bending(kappa: f64) => bending;
        /// Sets the stiffness by the inharmonicity coefficient B.
        some inharmonicity(b: f64) => inharmonicity;
        /// Physical: sets Young's modulus of the core, Pa.
        some young_modulus(pascals: f64) => young_modulus;
        /// Physical: sets the diameter of the core, m.
        some diameter(metres: f64) => diameter;
        /// Ends the string at `node` instead of a new anchor.
        some to(node: impl Into<NodeRef>) => to;
        /// Sets the rate of each sine mode's damping, 1/s (see `model::ModeDamping`).
        set mode_damping(rates: Vec<f64>) => mode_damping;
    }

    /// Starts the string in a triangle of height `amplitude` (m) peaking at `position` (a
    /// fraction of the length).
    pub fn pluck(mut self, position: f64, amplitude: f64) -> Self {
        self.pluck = Some(Pluck { position, amplitude });
        self
    }
}

impl Model {
    /// Adds a string (see [`StringSpec`]) to a 1D model; returns its masses from `ID.1` to
    /// `ID.N`. Its last link ends at `to` when given (a bridge), else at a new anchor.
    ///
    /// Physical elements: with `dx = L / (N + 1)`, `m = rho dx`, `k = T / dx`; the decay uses
    /// dampers `Z = c k` on the springs, whose modes decay at `sigma_n = -c omega_n^2 / 2`, with
    /// `c` chosen so the lowest mode's analog time constant is `decay_time`, where
    /// `omega_1^2 = (k/m) 4 sin^2(pi / (2 (N + 1)))`.
    pub fn add_string(&mut self, spec: StringSpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("string \"{}\"", spec.id);
        self.check_one_dimensional(&subject, "a string moves transversally; use a chain in 2D/3D")?;
        check_count(&subject, "masses", spec.masses)?;
        let asked = format!("{} masses and 2 anchors", spec.masses);
        self.check_room(&subject, "masses", spec.masses.checked_add(2), asked)?;
        check_non_negative(&subject, "drag", spec.drag)?;
        let elements = elements(
            &subject,
            &[("mass", spec.mass), ("stiffness", spec.stiffness), ("damping", spec.damping)],
            &[
                ("length", spec.length),
                ("tension", spec.tension),
                ("linear_density", spec.linear_density),
                ("decay_time", spec.decay_time),
            ],
        )?;
        let n = spec.masses;
        let lumped = lumped_values(&subject, &elements, n, None, ["length", "tension", "linear_density"])?;
        if let Some(p) = spec.pluck {
            if !(p.position > 0.0 && p.position < 1.0) {
                return Err(ModelError::new(
                    subject,
                    "pluck",
                    "a position strictly between 0 and 1",
                    p.position,
                ));
            }
            check_finite(&subject, "pluck", p.amplitude)?;
        }
        let end = spec.to.as_ref().map(|to| self.resolve_node(&subject, "to", to)).transpose()?;
        if !spec.mode_damping.is_empty() {
            self.check_mode_damping(&subject, n, &spec.mode_damping)?;
        }
        let id = |i: usize| format!("{}.{i}", spec.id);
        let shape = |i: usize| spec.pluck.map_or(0.0, |p| triangle(i as f64 / (n + 1) as f64, p));
        let mut nodes = Vec::with_capacity(n + 2);
        nodes.push(self.add_anchor(Anchor::new(id(0)))?);
        for i in 1..=n {
            nodes.push(self.add_mass(Mass::new(id(i), lumped.mass).position([shape(i)]).drag(spec.drag))?);
        }
        nodes.push(match end {
            Some(node) => node,
            None => self.add_anchor(Anchor::new(id(n + 1)))?,
        });
        for pair in nodes.windows(2) {
            self.add_spring(Spring::new(pair[0], pair[1], lumped.stiffness_x).damping(lumped.damping_x))?;
        }
        // A stiffness of 0 adds no element: a string without bending.
        let kappa = bending_stiffness(&subject, &spec, &elements, lumped.stiffness_x)?;
        if let Some(kappa) = kappa.filter(|&kappa| kappa > 0.0) {
            for triple in nodes.windows(3) {
                self.add_bending(Bending::new(triple[0], triple[1], triple[2], kappa))?;
            }
        }
        if !spec.mode_damping.is_empty() {
            self.add_mode_damping(&subject, &nodes[1..=n], spec.mode_damping)?;
        }
        Ok(nodes[1..=n].to_vec())
    }
}

/// The string's bending stiffness kappa (N/m) from whichever of `bending`, `inharmonicity` or
/// `young_modulus` with `diameter` is given (at most one), `None` for a string without any;
/// `stiffness` is the lumped spring stiffness k.
fn bending_stiffness(
    subject: &str,
    spec: &StringSpec,
    elements: &Elements,
    stiffness: f64,
) -> Result<Option<f64>, ModelError> {
    let physical = spec.young_modulus.is_some() || spec.diameter.is_some();
    let given: Vec<&str> = [
        ("bending", spec.bending.is_some()),
        ("inharmonicity", spec.inharmonicity.is_some()),
        ("young_modulus", physical),
    ]
    .into_iter()
    .filter_map(|(field, present)| present.then_some(field))
    .collect();
    if let [field, extra, ..] = given[..] {
        return Err(ModelError::new(
            subject,
            extra,
            "one of bending, inharmonicity or young_modulus/diameter",
            format!("`{field}` and `{extra}`"),
        ));
    }
    let segments = (spec.masses + 1) as f64;
    if let Some(kappa) = spec.bending {
        check_non_negative(subject, "bending", kappa)?;
        return Ok(Some(kappa));
    }
    if let Some(b) = spec.inharmonicity {
        check_non_negative(subject, "inharmonicity", b)?;
        return Ok(Some(b * stiffness * segments * segments / (PI * PI)));
    }
    if !physical {
        return Ok(None);
    }
    let &Elements::Physical { length, .. } = elements else {
        return Err(ModelError::new(
            subject,
            "young_modulus",
            "the physical form (length, tension, linear_density) with young_modulus and diameter",
            "the lumped form",
        ));
    };
    let modulus = required(subject, ("young_modulus", spec.young_modulus), "Pa")?;
    let diameter = required(subject, ("diameter", spec.diameter), "m")?;
    check_positive(subject, "young_modulus", modulus)?;
    check_positive(subject, "diameter", diameter)?;
    Ok(Some(modulus * PI * diameter.powi(4) / 64.0 / (length / segments).powi(3)))
}

/// Triangle of height `amplitude` peaking at `pluck.position`, zero at 0 and 1.
fn triangle(s: f64, pluck: Pluck) -> f64 {
    if s <= pluck.position {
        pluck.amplitude * s / pluck.position
    } else {
        pluck.amplitude * (1.0 - s) / (1.0 - pluck.position)
    }
}
