//! What a user describes: masses, anchors, links (springs, dampers, or both), drag, gravity.
//!
//! A [`Model`] is built element by element through methods that validate each element as it is
//! added, so a `Model` is always valid. The TOML format ([`file`]) and the generators
//! ([`generate`]) build models through the same methods, so the rules live in one place.
//!
//! Coordinates: in 1D a position is a displacement from equilibrium (as in Morgan & Qiao); in 2D
//! and 3D it is a point in space (as in the blog of seed 004). Units are SI throughout.

pub mod error;
pub mod file;
pub mod generate;

use std::collections::HashMap;

pub use error::{ModelError, SourceError};

/// One end of a link: a mass or an anchor, by index into [`Model::masses`] or [`Model::anchors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// Index into [`Model::masses`].
    Mass(usize),
    /// Index into [`Model::anchors`].
    Anchor(usize),
}

/// A point mass.
#[derive(Debug, Clone, PartialEq)]
pub struct Mass {
    /// Unique id (shared namespace with anchors and links).
    pub id: String,
    /// Mass, kg (> 0).
    pub mass: f64,
    /// Initial position, m (1D: displacement from equilibrium), one entry per dimension.
    pub position: Vec<f64>,
    /// Initial velocity, m/s, one entry per dimension.
    pub velocity: Vec<f64>,
    /// Linear drag to ground, gamma in 1/s: a force `-gamma m v` (seed 003, eq. 1).
    pub drag: f64,
}

/// A fixed point (the blog's "fixture").
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// Unique id.
    pub id: String,
    /// Position, m (1D: displacement, normally 0).
    pub position: Vec<f64>,
}

/// A spring, a damper, or both in parallel, between two nodes.
///
/// In 1D the spring force on `a` is `k ((x_b - x_a) - l0)` and the damper force on `a` is
/// `Z (v_b - v_a)` (seed 000 eqs. 12-14). In 2D/3D the spring is geometric: with
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

/// A link as requested, before its ends are resolved and its rest length defaulted.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec<'a> {
    /// Optional id (links are mostly anonymous).
    pub id: Option<&'a str>,
    /// Id of the first end (a mass or an anchor).
    pub a: &'a str,
    /// Id of the second end.
    pub b: &'a str,
    /// Stiffness, N/m.
    pub stiffness: f64,
    /// Rest length, m; `None` means 0 in 1D and the initial distance in 2D/3D.
    pub rest_length: Option<f64>,
    /// Damping, N s/m.
    pub damping: f64,
}

/// A validated network of masses, anchors and links, with gravity.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    dimension: usize,
    gravity: Vec<f64>,
    masses: Vec<Mass>,
    anchors: Vec<Anchor>,
    links: Vec<Link>,
    ids: HashMap<String, Element>,
}

/// What an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    Node(Node),
    Link,
}

impl Model {
    /// An empty model in `dimension` (1, 2 or 3) with no gravity.
    pub fn new(dimension: usize) -> Result<Self, ModelError> {
        if !(1..=3).contains(&dimension) {
            return Err(ModelError::new("model", "dimension", "1, 2 or 3", dimension));
        }
        Ok(Self {
            dimension,
            gravity: vec![0.0; dimension],
            masses: Vec::new(),
            anchors: Vec::new(),
            links: Vec::new(),
            ids: HashMap::new(),
        })
    }

    /// Number of coordinates per position: 1, 2 or 3.
    pub fn dimension(&self) -> usize {
        self.dimension
    }
    /// Gravitational acceleration, m/s^2, one entry per dimension.
    pub fn gravity(&self) -> &[f64] {
        &self.gravity
    }
    /// Masses in the order they were added.
    pub fn masses(&self) -> &[Mass] {
        &self.masses
    }
    /// Anchors in the order they were added.
    pub fn anchors(&self) -> &[Anchor] {
        &self.anchors
    }
    /// Links in the order they were added.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The node with this id, if any.
    pub fn node(&self, id: &str) -> Option<Node> {
        match self.ids.get(id) {
            Some(Element::Node(node)) => Some(*node),
            _ => None,
        }
    }

    /// The id of a node.
    pub fn node_id(&self, node: Node) -> &str {
        match node {
            Node::Mass(i) => &self.masses[i].id,
            Node::Anchor(i) => &self.anchors[i].id,
        }
    }

    /// The initial position of a node, m.
    pub fn node_position(&self, node: Node) -> &[f64] {
        match node {
            Node::Mass(i) => &self.masses[i].position,
            Node::Anchor(i) => &self.anchors[i].position,
        }
    }

    /// Sets gravity (m/s^2, one entry per dimension). Applied once per mass as `m g`.
    pub fn set_gravity(&mut self, gravity: &[f64]) -> Result<(), ModelError> {
        self.check_vector("model", "gravity", gravity)?;
        self.gravity = gravity.to_vec();
        Ok(())
    }

    /// Adds a mass; `mass` must be positive, vectors of the model's dimension, drag >= 0.
    pub fn add_mass(&mut self, mass: Mass) -> Result<Node, ModelError> {
        let subject = format!("mass \"{}\"", mass.id);
        self.check_new_id(&subject, &mass.id)?;
        check_positive(&subject, "mass", mass.mass)?;
        self.check_vector(&subject, "position", &mass.position)?;
        self.check_vector(&subject, "velocity", &mass.velocity)?;
        check_non_negative(&subject, "drag", mass.drag)?;
        let node = Node::Mass(self.masses.len());
        self.ids.insert(mass.id.clone(), Element::Node(node));
        self.masses.push(mass);
        Ok(node)
    }

    /// Adds an anchor (a fixed point).
    pub fn add_anchor(&mut self, id: &str, position: &[f64]) -> Result<Node, ModelError> {
        let subject = format!("anchor \"{id}\"");
        self.check_new_id(&subject, id)?;
        self.check_vector(&subject, "position", position)?;
        let node = Node::Anchor(self.anchors.len());
        self.ids.insert(id.to_string(), Element::Node(node));
        self.anchors.push(Anchor { id: id.to_string(), position: position.to_vec() });
        Ok(node)
    }

    /// Adds a spring, a damper or a spring-damper between two existing nodes.
    pub fn add_link(&mut self, spec: LinkSpec<'_>) -> Result<(), ModelError> {
        let subject = match spec.id {
            Some(id) => format!("link \"{id}\""),
            None => format!("link from \"{}\" to \"{}\"", spec.a, spec.b),
        };
        if let Some(id) = spec.id {
            self.check_new_id(&subject, id)?;
        }
        let a = self.resolve_node(&subject, "a", spec.a)?;
        let b = self.resolve_node(&subject, "b", spec.b)?;
        if a == b {
            return Err(ModelError::new(
                subject,
                "b",
                format!("a node other than a (\"{}\")", spec.a),
                format!("\"{}\"", spec.b),
            ));
        }
        if matches!((a, b), (Node::Anchor(_), Node::Anchor(_))) {
            return Err(ModelError::new(
                subject,
                "b",
                "a mass (a link between two anchors never moves)",
                format!("anchor \"{}\"", spec.b),
            ));
        }
        check_non_negative(&subject, "stiffness", spec.stiffness)?;
        check_non_negative(&subject, "damping", spec.damping)?;
        let rest_length = self.rest_length(&subject, a, b, spec.rest_length)?;
        if let Some(id) = spec.id {
            self.ids.insert(id.to_string(), Element::Link);
        }
        self.links.push(Link {
            id: spec.id.map(str::to_string),
            a,
            b,
            stiffness: spec.stiffness,
            rest_length,
            damping: spec.damping,
        });
        Ok(())
    }

    /// Replaces a mass's initial position (m); used by initial conditions and plucks.
    pub fn set_initial_position(&mut self, mass: usize, position: &[f64]) -> Result<(), ModelError> {
        let subject = format!("mass \"{}\"", self.masses[mass].id);
        self.check_vector(&subject, "position", position)?;
        self.masses[mass].position = position.to_vec();
        Ok(())
    }

    /// Replaces a mass's initial velocity (m/s).
    pub fn set_initial_velocity(&mut self, mass: usize, velocity: &[f64]) -> Result<(), ModelError> {
        let subject = format!("mass \"{}\"", self.masses[mass].id);
        self.check_vector(&subject, "velocity", velocity)?;
        self.masses[mass].velocity = velocity.to_vec();
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

    fn resolve_node(&self, subject: &str, field: &'static str, id: &str) -> Result<Node, ModelError> {
        match self.ids.get(id) {
            Some(Element::Node(node)) => Ok(*node),
            Some(Element::Link) => Err(ModelError::new(
                subject,
                field,
                "the id of a mass or an anchor",
                format!("\"{id}\", which is a link"),
            )),
            None => Err(ModelError::new(
                subject,
                field,
                "the id of a mass or an anchor defined in the model",
                format!("unknown id \"{id}\""),
            )),
        }
    }

    fn check_new_id(&self, subject: &str, id: &str) -> Result<(), ModelError> {
        if id.is_empty() {
            return Err(ModelError::new(subject, "id", "a non-empty id", "\"\""));
        }
        if self.ids.contains_key(id) {
            return Err(ModelError::new(
                subject,
                "id",
                "an id not used before",
                format!("duplicate id \"{id}\""),
            ));
        }
        Ok(())
    }

    fn check_vector(&self, subject: &str, field: &'static str, v: &[f64]) -> Result<(), ModelError> {
        if v.len() != self.dimension {
            return Err(ModelError::new(
                subject,
                field,
                format!("{} component(s) for a {}D model", self.dimension, self.dimension),
                format!("{} component(s)", v.len()),
            ));
        }
        v.iter().try_for_each(|&c| check_finite(subject, field, c))
    }
}

/// Euclidean distance between two points.
pub(crate) fn distance(p: &[f64], q: &[f64]) -> f64 {
    p.iter().zip(q).map(|(a, b)| (b - a) * (b - a)).sum::<f64>().sqrt()
}

pub(crate) fn check_finite(subject: &str, field: &'static str, value: f64) -> Result<(), ModelError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ModelError::new(subject, field, "a finite number", value))
    }
}

pub(crate) fn check_positive(subject: &str, field: &'static str, value: f64) -> Result<(), ModelError> {
    check_finite(subject, field, value)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(ModelError::new(subject, field, "a value > 0", value))
    }
}

pub(crate) fn check_non_negative(subject: &str, field: &'static str, value: f64) -> Result<(), ModelError> {
    check_finite(subject, field, value)?;
    if value >= 0.0 {
        Ok(())
    } else {
        Err(ModelError::new(subject, field, "a value >= 0", value))
    }
}
