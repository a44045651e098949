//! Nodes (masses and anchors), the links between them (springs and dampers) and initial
//! conditions: the spec types a user builds, and how a [`Model`] adds them.
//!
//! A model file reads the same types (`[[mass]]` is a [`Mass`], `[[spring]]` a [`Spring`]). Ends
//! of links are [`NodeRef`]s: the [`Node`] that [`Model::add_mass`] or [`Model::add_anchor`]
//! returned, or an id.

use super::validate::{check_finite, check_mass, check_non_negative, distance};
use super::{de, Element, Model, ModelError};
use serde::Deserialize;

/// A node of a model: a mass or an anchor, by index into [`Model::masses`] or
/// [`Model::anchors`]. [`Model::add_mass`] and [`Model::add_anchor`] return one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// Index into [`Model::masses`].
    Mass(usize),
    /// Index into [`Model::anchors`].
    Anchor(usize),
}

/// A node named by its handle or by its id; every element that refers to a node takes one
/// (`impl Into<NodeRef>`: a [`Node`], a `&str` or a `String`). Model files give ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NodeRef {
    /// A handle returned by [`Model::add_mass`] or [`Model::add_anchor`].
    Node(Node),
    /// The id of a mass or an anchor.
    Id(String),
}

impl Default for NodeRef {
    /// The empty id, which names no node.
    fn default() -> Self {
        Self::Id(String::new())
    }
}

impl From<Node> for NodeRef {
    fn from(node: Node) -> Self {
        Self::Node(node)
    }
}

impl From<&str> for NodeRef {
    fn from(id: &str) -> Self {
        Self::Id(id.to_string())
    }
}

impl From<String> for NodeRef {
    fn from(id: String) -> Self {
        Self::Id(id)
    }
}

impl From<&String> for NodeRef {
    fn from(id: &String) -> Self {
        Self::Id(id.clone())
    }
}

/// A point mass (`[[mass]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mass {
    /// Unique id (shared namespace with anchors, links and contacts).
    pub id: String,
    /// Mass, kg (> 0).
    pub mass: f64,
    /// Initial position, m (1D: displacement from equilibrium), one entry per dimension. Empty:
    /// the origin in 1D (required in 2D/3D). Always filled in a [`Model`].
    #[serde(default, deserialize_with = "de::vector")]
    pub position: Vec<f64>,
    /// Initial velocity, m/s, one entry per dimension. Empty: at rest.
    #[serde(default, deserialize_with = "de::vector")]
    pub velocity: Vec<f64>,
    /// Linear drag to ground, gamma in 1/s: a force `-gamma m v` (Chatziioannou 2019, eq. (1)).
    #[serde(default)]
    pub drag: f64,
}

impl Mass {
    /// A mass of `mass` kg at the origin, at rest, without drag.
    pub fn new(id: impl Into<String>, mass: f64) -> Self {
        Self { id: id.into(), mass, ..Self::default() }
    }

    setters! {
        /// Sets the initial position, m.
        set position(position: impl Into<Vec<f64>>) => position;
        /// Sets the initial velocity, m/s.
        set velocity(velocity: impl Into<Vec<f64>>) => velocity;
        /// Sets the drag to ground, 1/s.
        set drag(gamma: f64) => drag;
    }
}

/// A fixed point, the blog's "fixture" (`[[anchor]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// Unique id.
    pub id: String,
    /// Position, m (1D: displacement, normally 0). Empty: the origin in 1D (required in 2D/3D).
    /// Always filled in a [`Model`].
    #[serde(default, deserialize_with = "de::vector")]
    pub position: Vec<f64>,
}

impl Anchor {
    /// An anchor at the origin.
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), position: Vec::new() }
    }

    setters! {
        /// Sets the position, m.
        set position(position: impl Into<Vec<f64>>) => position;
    }
}

/// A spring between two nodes, with an optional damper in parallel (`[[spring]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Optional id (springs are mostly anonymous); unique if given.
    pub id: Option<String>,
    /// First end (a mass or an anchor).
    pub a: NodeRef,
    /// Second end (not `a`; not an anchor when `a` is one).
    pub b: NodeRef,
    /// Stiffness k, N/m (>= 0).
    pub stiffness: f64,
    /// Rest length, m; `None`: 0 in 1D (a signed offset `x_b - x_a`), the initial distance in
    /// 2D/3D.
    pub rest_length: Option<f64>,
    /// Damping Z of the damper in parallel, N s/m (>= 0).
    #[serde(default)]
    pub damping: f64,
}

impl Spring {
    /// A spring of stiffness `stiffness` (N/m) from `a` to `b`, at rest, without damping.
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>, stiffness: f64) -> Self {
        Self { a: a.into(), b: b.into(), stiffness, ..Self::default() }
    }

    setters! {
        /// Names the spring.
        some id(id: impl Into<String>) => id;
        /// Sets the rest length, m.
        some rest_length(length: f64) => rest_length;
        /// Sets the damping of the damper in parallel, N s/m.
        set damping(damping: f64) => damping;
    }
}

/// A damper (dashpot) alone between two nodes (`[[damper]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Damper {
    /// Optional id; unique if given.
    pub id: Option<String>,
    /// First end (a mass or an anchor).
    pub a: NodeRef,
    /// Second end (not `a`; not an anchor when `a` is one).
    pub b: NodeRef,
    /// Damping Z, N s/m (>= 0).
    pub damping: f64,
}

impl Damper {
    /// A damper of damping `damping` (N s/m) from `a` to `b`.
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>, damping: f64) -> Self {
        Self { id: None, a: a.into(), b: b.into(), damping }
    }

    setters! {
        /// Names the damper.
        some id(id: impl Into<String>) => id;
    }
}

/// A spring and a damper in parallel between two nodes, as a model holds every [`Spring`] and
/// [`Damper`] (a damper is a link of stiffness 0).
///
/// In 1D the spring force on `a` is `k ((x_b - x_a) - l0)` and the damper force on `a` is
/// `Z (v_b - v_a)` (Morgan & Qiao 2009, eqs. 12-14). In 2D/3D the spring is geometric: with
/// `d = x_b - x_a`, `l = |d|`, `u = d / l`, the force on `a` is `k (l - l0) u` and the dashpot
/// force is `Z ((v_b - v_a) . u) u`. Forces on `b` are opposite.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Unique id, if the link was given one.
    pub id: Option<String>,
    /// First end.
    pub a: Node,
    /// Second end (never equal to `a`).
    pub b: Node,
    /// Stiffness k, N/m (>= 0; 0 for a pure damper).
    pub stiffness: f64,
    /// Rest length l0, m. In 1D a signed rest offset `x_b - x_a` (0 for displacement models).
    pub rest_length: f64,
    /// Damping Z, N s/m (>= 0; 0 for a pure spring).
    pub damping: f64,
}

/// A changed initial condition of one mass (`[[initial]]`): its position (absolute, or as a
/// displacement from the one it has) and/or its velocity. Empty vectors change nothing.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Initial {
    /// The mass.
    pub mass: NodeRef,
    /// New position, m (not with `displacement`).
    #[serde(default, deserialize_with = "de::vector")]
    pub position: Vec<f64>,
    /// Displacement added to the position, m (not with `position`).
    #[serde(default, deserialize_with = "de::vector")]
    pub displacement: Vec<f64>,
    /// New velocity, m/s.
    #[serde(default, deserialize_with = "de::vector")]
    pub velocity: Vec<f64>,
}

impl Initial {
    /// Changes nothing yet about `mass`.
    pub fn new(mass: impl Into<NodeRef>) -> Self {
        Self { mass: mass.into(), ..Self::default() }
    }

    setters! {
        /// Sets the position, m.
        set position(position: impl Into<Vec<f64>>) => position;
        /// Moves the position by `displacement`, m.
        set displacement(displacement: impl Into<Vec<f64>>) => displacement;
        /// Sets the velocity, m/s.
        set velocity(velocity: impl Into<Vec<f64>>) => velocity;
    }
}

impl Model {
    /// Adds a mass: `mass` > 0, vectors of the model's dimension and finite, drag >= 0.
    pub fn add_mass(&mut self, mut mass: Mass) -> Result<Node, ModelError> {
        let subject = format!("mass \"{}\"", mass.id);
        self.check_room(&subject, "id", Some(1), "one more mass")?;
        self.check_new_id(&subject, &mass.id)?;
        check_mass(&subject, "mass", mass.mass)?;
        mass.position = self.position_or_origin(&subject, "position", std::mem::take(&mut mass.position))?;
        if mass.velocity.is_empty() {
            mass.velocity = vec![0.0; self.dimension];
        }
        self.check_vector(&subject, "velocity", &mass.velocity)?;
        check_non_negative(&subject, "drag", mass.drag)?;
        let node = Node::Mass(self.masses.len());
        self.ids.insert(mass.id.clone(), Element::Node(node));
        self.masses.push(mass);
        Ok(node)
    }

    /// Adds an anchor (a fixed point).
    pub fn add_anchor(&mut self, mut anchor: Anchor) -> Result<Node, ModelError> {
        let subject = format!("anchor \"{}\"", anchor.id);
        self.check_room(&subject, "id", Some(1), "one more anchor")?;
        self.check_new_id(&subject, &anchor.id)?;
        anchor.position =
            self.position_or_origin(&subject, "position", std::mem::take(&mut anchor.position))?;
        let node = Node::Anchor(self.anchors.len());
        self.ids.insert(anchor.id.clone(), Element::Node(node));
        self.anchors.push(anchor);
        Ok(node)
    }

    /// Checks that each coefficient divided by the mass of each end that is a mass is finite:
    /// the analysis and the schemes read `k / m` and `c / m` (a stiffness of 1e4 N/m on a mass
    /// of 1e-308 kg is 1e312 1/s^2, beyond an `f64`).
    fn check_per_mass<const N: usize>(
        &self,
        subject: &str,
        ends: [Node; 2],
        coefficients: [(&'static str, f64, &str); N],
    ) -> Result<(), ModelError> {
        for end in ends {
            let Node::Mass(i) = end else { continue };
            let mass = &self.masses[i];
            for (field, value, unit) in coefficients {
                if !(value / mass.mass).is_finite() {
                    let expected = format!("a {field} whose ratio to the mass of \"{}\" is finite", mass.id);
                    let found = format!("{value:e} {unit} on {:e} kg", mass.mass);
                    return Err(ModelError::new(subject, field, expected, found));
                }
            }
        }
        Ok(())
    }

    /// Adds a spring (with its damper in parallel). Rules: the ends are nodes of the model,
    /// distinct and not both anchors; stiffness and damping finite and >= 0; in 2D/3D the ends
    /// start at distinct positions; a rest length is finite (2D/3D: >= 0).
    pub fn add_spring(&mut self, spring: Spring) -> Result<(), ModelError> {
        let Spring { id, a, b, stiffness, rest_length, damping } = spring;
        self.add_link(id, &a, &b, stiffness, rest_length, damping)
    }

    /// Adds a damper alone (the rules of [`Model::add_spring`]).
    pub fn add_damper(&mut self, damper: Damper) -> Result<(), ModelError> {
        let Damper { id, a, b, damping } = damper;
        self.add_link(id, &a, &b, 0.0, None, damping)
    }

    fn add_link(
        &mut self,
        id: Option<String>,
        a: &NodeRef,
        b: &NodeRef,
        stiffness: f64,
        rest_length: Option<f64>,
        damping: f64,
    ) -> Result<(), ModelError> {
        let subject = match &id {
            Some(id) => format!("link \"{id}\""),
            None => format!("link from \"{}\" to \"{}\"", self.label(a), self.label(b)),
        };
        if let Some(id) = &id {
            self.check_new_id(&subject, id)?;
        }
        let a_node = self.resolve_node(&subject, "a", a)?;
        let b_node = self.resolve_node(&subject, "b", b)?;
        if a_node == b_node {
            return Err(ModelError::new(
                subject,
                "b",
                format!("a node other than a (\"{}\")", self.label(a)),
                format!("\"{}\"", self.label(b)),
            ));
        }
        if matches!((a_node, b_node), (Node::Anchor(_), Node::Anchor(_))) {
            return Err(ModelError::new(
                subject,
                "b",
                "a mass (a link between two anchors never moves)",
                format!("anchor \"{}\"", self.label(b)),
            ));
        }
        check_non_negative(&subject, "stiffness", stiffness)?;
        check_non_negative(&subject, "damping", damping)?;
        self.check_per_mass(
            &subject,
            [a_node, b_node],
            [("stiffness", stiffness, "N/m"), ("damping", damping, "N s/m")],
        )?;
        let rest_length = self.rest_length(&subject, a_node, b_node, rest_length)?;
        if let Some(id) = &id {
            self.ids.insert(id.clone(), Element::Link);
        }
        self.links.push(Link { id, a: a_node, b: b_node, stiffness, rest_length, damping });
        Ok(())
    }

    /// The rest length of a new link: given, or 0 in 1D, or the initial distance in 2D/3D.
    /// In 2D/3D the ends must not coincide: the direction of a geometric link is undefined.
    fn rest_length(&self, subject: &str, a: Node, b: Node, given: Option<f64>) -> Result<f64, ModelError> {
        if let Some(l0) = given {
            check_finite(subject, "rest_length", l0)?;
        }
        if self.dimension == 1 {
            return Ok(given.unwrap_or(0.0));
        }
        let distance = distance(self.node_position(a), self.node_position(b));
        if distance == 0.0 {
            return Err(ModelError::new(
                subject,
                "b",
                "ends at distinct positions (a geometric spring of zero length has no direction)",
                format!("both ends at {:?}", self.node_position(a).to_vec()),
            ));
        }
        match given {
            Some(l0) if l0 < 0.0 => Err(ModelError::new(subject, "rest_length", "a length >= 0 m", l0)),
            Some(l0) => Ok(l0),
            None => Ok(distance),
        }
    }

    /// Changes a mass's initial condition: a position or a displacement (not both) and/or a
    /// velocity, each of the model's dimension and finite.
    pub fn set_initial(&mut self, initial: Initial) -> Result<(), ModelError> {
        let subject = format!("initial condition of \"{}\"", self.label(&initial.mass));
        let mass = self.resolve_mass(&subject, "mass", &initial.mass)?;
        match (initial.position.is_empty(), initial.displacement.is_empty()) {
            (false, false) => {
                return Err(ModelError::new(
                    subject,
                    "displacement",
                    "either `position` or `displacement`, not both",
                    "both",
                ))
            }
            (false, true) => self.set_initial_position(mass, &initial.position)?,
            (true, false) => {
                self.check_vector(&subject, "displacement", &initial.displacement)?;
                let position = &self.masses[mass].position;
                let moved: Vec<f64> =
                    position.iter().zip(&initial.displacement).map(|(p, d)| p + d).collect();
                self.set_initial_position(mass, &moved)?;
            }
            (true, true) => {}
        }
        if !initial.velocity.is_empty() {
            self.set_initial_velocity(mass, &initial.velocity)?;
        }
        Ok(())
    }

    /// Replaces the initial position (m) of mass `mass` (an index into [`Model::masses`]).
    pub fn set_initial_position(&mut self, mass: usize, position: &[f64]) -> Result<(), ModelError> {
        let subject = self.mass_subject(mass)?;
        self.check_vector(&subject, "position", position)?;
        self.masses[mass].position = position.to_vec();
        Ok(())
    }

    /// Replaces the initial velocity (m/s) of mass `mass` (an index into [`Model::masses`]).
    pub fn set_initial_velocity(&mut self, mass: usize, velocity: &[f64]) -> Result<(), ModelError> {
        let subject = self.mass_subject(mass)?;
        self.check_vector(&subject, "velocity", velocity)?;
        self.masses[mass].velocity = velocity.to_vec();
        Ok(())
    }

    /// `mass "ID"` for a mass index of this model.
    fn mass_subject(&self, mass: usize) -> Result<String, ModelError> {
        match self.masses.get(mass) {
            Some(m) => Ok(format!("mass \"{}\"", m.id)),
            None => Err(ModelError::new(
                "initial condition",
                "mass",
                format!("a mass index below {}", self.masses.len()),
                mass,
            )),
        }
    }
}
