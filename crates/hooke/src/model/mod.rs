//! What a user describes: masses, anchors, links (springs, dampers, or both), drag, gravity,
//! contacts (Hertz barriers and collisions) and external driving forces.
//!
//! A [`Model`] is built element by element through methods that validate each element as it is
//! added, so a `Model` is always valid. The TOML format ([`mod@file`]) and the generators
//! ([`generate`]) build models through the same methods, so the rules live in one place.
//!
//! Coordinates: in 1D a position is a displacement from equilibrium (as in Morgan & Qiao 2008
//! and 2009); in 2D and 3D it is a point in space (as in Domoszlai's blog post). Units are SI
//! throughout.

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
    /// Linear drag to ground, gamma in 1/s: a force `-gamma m v` (Chatziioannou 2019, eq. (1)).
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
/// `Z (v_b - v_a)` (Morgan & Qiao 2009, eqs. (12)-(14)). In 2D/3D the spring is geometric: with
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

/// A rigid barrier, the plane `{x : n . x = c}` (1D: the point `c / n`), that pushes masses out
/// by Hertz's law (Chatziioannou 2019, eq. (44), any dimension).
///
/// A mass is free on the side `n . x > c`. With the penetration `delta = c - n . x`, while
/// `delta > 0` the force on the mass is `k delta^alpha n` and the stored energy
/// `k delta^(alpha + 1) / (alpha + 1)`; otherwise both are 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Barrier {
    /// Unique id, if the barrier was given one.
    pub id: Option<String>,
    /// The masses it acts on (indices into [`Model::masses`]), each once, in selection order.
    pub masses: Vec<usize>,
    /// A point on the plane, m (1D: the barrier's position).
    pub position: Vec<f64>,
    /// Unit normal `n`, pointing to the free side (1D: +1 or -1).
    pub normal: Vec<f64>,
    /// Contact stiffness `k`, N/m^alpha (>= 0).
    pub stiffness: f64,
    /// Hertz exponent `alpha` (>= 1; 1.5 for spheres, 1 for a linear penalty spring).
    pub exponent: f64,
}

impl Barrier {
    /// The plane's offset `c = n . position`, m: a mass is free where `n . x > c`.
    pub fn offset(&self) -> f64 {
        self.normal.iter().zip(&self.position).map(|(n, p)| n * p).sum()
    }
}

/// Which masses a barrier acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MassSelection<'a> {
    /// These masses, by id (each a mass, none twice, at least one).
    Ids(Vec<&'a str>),
    /// Every mass whose id starts with this prefix, in model order (anchors are skipped);
    /// the TOML form `"s.*"` is `Prefix("s.")`. It must match at least one mass.
    Prefix(&'a str),
}

/// A barrier as requested, before its masses are resolved and its normal normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct BarrierSpec<'a> {
    /// Optional id.
    pub id: Option<&'a str>,
    /// The masses it acts on.
    pub masses: MassSelection<'a>,
    /// A point on the plane, m, one entry per dimension.
    pub position: &'a [f64],
    /// A normal pointing to the free side, any length but not zero (1D: exactly +1 or -1).
    pub normal: &'a [f64],
    /// Contact stiffness, N/m^alpha.
    pub stiffness: f64,
    /// Hertz exponent alpha.
    pub exponent: f64,
}

/// A Hertz contact between two masses (Chatziioannou 2019, eq. (44) between two bodies).
///
/// 2D/3D (spheres touching): with `d = x_b - x_a`, `l = |d|`, the penetration is
/// `delta = distance - l` and, while `delta > 0`, the force on `b` is `k delta^alpha d / l` (on
/// `a` its opposite: they are pushed apart along the line of centres). 1D: `b` is meant to stay
/// at least `distance` above `a`: `delta = distance - (x_b - x_a)`, and while `delta > 0` the
/// force on `b` is `+k delta^alpha` and on `a` `-k delta^alpha`. The stored energy is
/// `k delta^(alpha + 1) / (alpha + 1)` while `delta > 0`, else 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Collision {
    /// Unique id, if the collision was given one.
    pub id: Option<String>,
    /// First mass (index into [`Model::masses`]).
    pub a: usize,
    /// Second mass (never equal to `a`).
    pub b: usize,
    /// Contact distance, m (> 0): the sum of the radii in 2D/3D, the least gap in 1D.
    pub distance: f64,
    /// Contact stiffness `k`, N/m^alpha (>= 0).
    pub stiffness: f64,
    /// Hertz exponent `alpha` (>= 1).
    pub exponent: f64,
}

/// A collision as requested, before its masses are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct CollisionSpec<'a> {
    /// Optional id.
    pub id: Option<&'a str>,
    /// Id of the first mass.
    pub a: &'a str,
    /// Id of the second mass.
    pub b: &'a str,
    /// Contact distance, m.
    pub distance: f64,
    /// Contact stiffness, N/m^alpha.
    pub stiffness: f64,
    /// Hertz exponent alpha.
    pub exponent: f64,
}

/// One sinusoidal term of a driving force: `amplitude sin(2 pi frequency t + phase)`, N.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sinusoid {
    /// Amplitude, N (any finite value, sign included).
    pub amplitude: f64,
    /// Frequency, Hz (finite, >= 0).
    pub frequency: f64,
    /// Phase, rad (finite).
    pub phase: f64,
}

/// A recorded signal: `values[n]` at time `n / rate`, scaled by `gain`.
///
/// Between samples the signal is interpolated linearly. It is 0 before `t = 0` and from
/// `t = len / rate` on; between the last sample and `len / rate` it falls linearly to 0 (the
/// silence after the recording is the sample that follows the last one).
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Sample rate, Hz (> 0).
    pub rate: f64,
    /// Force at full scale, N: a sample value of 1 is `gain` newtons (any finite value).
    pub gain: f64,
    /// The samples, full scale = 1 (finite).
    pub values: Vec<f64>,
}

impl Samples {
    /// The interpolated, scaled signal at time `t` (s), N.
    pub fn value(&self, t: f64) -> f64 {
        self.gain * interpolate(&self.values, t * self.rate)
    }
}

/// `values` interpolated linearly at the fractional index `s`: 0 for `s < 0` and for
/// `s >= len`, and falling linearly from the last value to 0 over `[len - 1, len)`.
pub(crate) fn interpolate(values: &[f64], s: f64) -> f64 {
    if !(s >= 0.0 && s < values.len() as f64) {
        return 0.0;
    }
    let i = s as usize;
    let fraction = s - i as f64;
    let here = values.get(i).copied().unwrap_or(0.0);
    let next = values.get(i + 1).copied().unwrap_or(0.0);
    here + fraction * (next - here)
}

/// The time course of a driving force.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// A constant force, N.
    Constant(f64),
    /// A sum of sinusoids (at least one), N.
    Sinusoids(Vec<Sinusoid>),
    /// A recorded signal (a WAV file's channel), N.
    Samples(Samples),
}

impl Signal {
    /// The force at time `t` (s), N.
    pub fn value(&self, t: f64) -> f64 {
        match self {
            Self::Constant(value) => *value,
            Self::Sinusoids(terms) => terms
                .iter()
                .map(|s| s.amplitude * (2.0 * std::f64::consts::PI * s.frequency * t + s.phase).sin())
                .sum(),
            Self::Samples(samples) => samples.value(t),
        }
    }
}

/// An external (driving) force on one coordinate of one mass (Chatziioannou 2019, section 3.1).
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalForce {
    /// The mass it pushes (index into [`Model::masses`]).
    pub mass: usize,
    /// The axis: 0 = x, 1 = y, 2 = z.
    pub axis: usize,
    /// Its time course.
    pub signal: Signal,
}

/// An external force as requested, before its mass is resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ForceSpec<'a> {
    /// Id of the mass.
    pub mass: &'a str,
    /// The axis: 0 = x, 1 = y, 2 = z (within the model's dimension).
    pub axis: usize,
    /// Its time course.
    pub signal: Signal,
}

/// A validated network of masses, anchors and links, with gravity, contacts and driving forces.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    dimension: usize,
    gravity: Vec<f64>,
    masses: Vec<Mass>,
    anchors: Vec<Anchor>,
    links: Vec<Link>,
    barriers: Vec<Barrier>,
    collisions: Vec<Collision>,
    forces: Vec<ExternalForce>,
    ids: HashMap<String, Element>,
}

/// What an id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    Node(Node),
    Link,
    Contact,
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
            barriers: Vec::new(),
            collisions: Vec::new(),
            forces: Vec::new(),
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

    /// Barriers in the order they were added.
    pub fn barriers(&self) -> &[Barrier] {
        &self.barriers
    }
    /// Collisions in the order they were added.
    pub fn collisions(&self) -> &[Collision] {
        &self.collisions
    }
    /// External forces in the order they were added.
    pub fn external_forces(&self) -> &[ExternalForce] {
        &self.forces
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

    /// A node's index in the compiled [`crate::system::System`]: masses first (in model order),
    /// then anchors.
    pub fn node_index(&self, node: Node) -> usize {
        match node {
            Node::Mass(i) => i,
            Node::Anchor(i) => self.masses.len() + i,
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

    /// Adds a rigid barrier acting on one or more masses. Rules: the masses exist and are masses
    /// (not anchors), none twice, at least one (a prefix must match a mass); `position` and
    /// `normal` have the model's dimension and are finite; the normal is not zero (1D: exactly
    /// +1 or -1) and is stored normalised; stiffness >= 0; exponent >= 1; both finite.
    pub fn add_barrier(&mut self, spec: BarrierSpec<'_>) -> Result<(), ModelError> {
        let subject = match spec.id {
            Some(id) => format!("barrier \"{id}\""),
            None => "barrier".to_string(),
        };
        if let Some(id) = spec.id {
            self.check_new_id(&subject, id)?;
        }
        let masses = self.select_masses(&subject, &spec.masses)?;
        self.check_vector(&subject, "position", spec.position)?;
        self.check_vector(&subject, "normal", spec.normal)?;
        if self.dimension == 1 && spec.normal[0].abs() != 1.0 {
            return Err(ModelError::new(
                subject,
                "normal",
                "+1 or -1 in 1D (the side where masses are free)",
                spec.normal[0],
            ));
        }
        // Normalised in two stages so that neither huge nor tiny components over- or underflow.
        let largest = spec.normal.iter().fold(0.0_f64, |m, c| m.max(c.abs()));
        if largest == 0.0 {
            return Err(ModelError::new(
                subject,
                "normal",
                "a non-zero vector pointing to the free side",
                format!("{:?}", spec.normal),
            ));
        }
        let scaled: Vec<f64> = spec.normal.iter().map(|c| c / largest).collect();
        let length = scaled.iter().map(|c| c * c).sum::<f64>().sqrt();
        check_contact_law(&subject, spec.stiffness, spec.exponent)?;
        if let Some(id) = spec.id {
            self.ids.insert(id.to_string(), Element::Contact);
        }
        self.barriers.push(Barrier {
            id: spec.id.map(str::to_string),
            masses,
            position: spec.position.to_vec(),
            normal: scaled.iter().map(|c| c / length).collect(),
            stiffness: spec.stiffness,
            exponent: spec.exponent,
        });
        Ok(())
    }

    /// Adds a Hertz contact between two masses. Rules: `a` and `b` are distinct masses (not
    /// anchors); distance > 0; stiffness >= 0; exponent >= 1; all finite; in 2D/3D the two
    /// masses start at distinct positions (the line of centres needs a direction).
    pub fn add_collision(&mut self, spec: CollisionSpec<'_>) -> Result<(), ModelError> {
        let subject = match spec.id {
            Some(id) => format!("collision \"{id}\""),
            None => format!("collision of \"{}\" and \"{}\"", spec.a, spec.b),
        };
        if let Some(id) = spec.id {
            self.check_new_id(&subject, id)?;
        }
        let a = self.resolve_mass(&subject, "a", spec.a)?;
        let b = self.resolve_mass(&subject, "b", spec.b)?;
        if a == b {
            return Err(ModelError::new(
                subject,
                "b",
                format!("a mass other than a (\"{}\")", spec.a),
                format!("\"{}\"", spec.b),
            ));
        }
        check_positive(&subject, "distance", spec.distance)?;
        check_contact_law(&subject, spec.stiffness, spec.exponent)?;
        let (pa, pb) = (&self.masses[a].position, &self.masses[b].position);
        if self.dimension > 1 && distance(pa, pb) == 0.0 {
            return Err(ModelError::new(
                subject,
                "b",
                "masses at distinct positions (the line of centres has no direction)",
                format!("both at {pa:?}"),
            ));
        }
        if let Some(id) = spec.id {
            self.ids.insert(id.to_string(), Element::Contact);
        }
        self.collisions.push(Collision {
            id: spec.id.map(str::to_string),
            a,
            b,
            distance: spec.distance,
            stiffness: spec.stiffness,
            exponent: spec.exponent,
        });
        Ok(())
    }

    /// Adds an external force on one axis of one mass. Rules: the mass exists and is a mass;
    /// the axis exists in the model's dimension; a constant is finite; sinusoids are at least
    /// one, each checked by [`check_sinusoid`]; samples have a rate > 0, a finite gain and
    /// finite values (errors on `wav` and `gain`).
    pub fn add_force(&mut self, spec: ForceSpec<'_>) -> Result<(), ModelError> {
        let subject = format!("force on \"{}\"", spec.mass);
        let mass = self.resolve_mass(&subject, "mass", spec.mass)?;
        if spec.axis >= self.dimension {
            let dim = self.dimension;
            return Err(ModelError::new(
                subject,
                "axis",
                format!("one of the model's {dim} axes ({})", &"x, y, z"[..3 * dim - 2]),
                ["x", "y", "z"][spec.axis.min(2)],
            ));
        }
        match &spec.signal {
            Signal::Constant(value) => check_finite(&subject, "constant", *value)?,
            Signal::Sinusoids(terms) => {
                if terms.is_empty() {
                    return Err(ModelError::new(subject, "sinusoids", "at least one sinusoid", "[]"));
                }
                for (i, term) in terms.iter().enumerate() {
                    check_sinusoid(&format!("{subject}, sinusoid {}", i + 1), term)?;
                }
            }
            Signal::Samples(samples) => {
                if !(samples.rate > 0.0 && samples.rate.is_finite()) {
                    return Err(ModelError::new(subject, "wav", "a sample rate > 0 Hz", samples.rate));
                }
                check_finite(&subject, "gain", samples.gain)?;
                if let Some(n) = samples.values.iter().position(|v| !v.is_finite()) {
                    return Err(ModelError::new(
                        subject,
                        "wav",
                        "finite samples",
                        format!("{} at sample {n} (0-based)", samples.values[n]),
                    ));
                }
            }
        }
        self.forces.push(ExternalForce { mass, axis: spec.axis, signal: spec.signal });
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
            Some(Element::Contact) => Err(ModelError::new(
                subject,
                field,
                "the id of a mass or an anchor",
                format!("\"{id}\", which is a barrier or a collision"),
            )),
            None => Err(ModelError::new(
                subject,
                field,
                "the id of a mass or an anchor defined in the model",
                format!("unknown id \"{id}\""),
            )),
        }
    }

    /// The index of the mass with this id; anchors, links and unknown ids are errors.
    fn resolve_mass(&self, subject: &str, field: &'static str, id: &str) -> Result<usize, ModelError> {
        match self.resolve_node(subject, field, id) {
            Ok(Node::Mass(i)) => Ok(i),
            Ok(Node::Anchor(_)) => Err(ModelError::new(
                subject,
                field,
                "the id of a mass (anchors do not move)",
                format!("anchor \"{id}\""),
            )),
            Err(mut error) => {
                error.expected = "the id of a mass defined in the model".to_string();
                Err(error)
            }
        }
    }

    /// The masses a barrier acts on.
    fn select_masses(&self, subject: &str, selection: &MassSelection<'_>) -> Result<Vec<usize>, ModelError> {
        let masses: Vec<usize> = match selection {
            MassSelection::Ids(ids) => {
                let mut masses = Vec::with_capacity(ids.len());
                for id in ids {
                    let mass = self.resolve_mass(subject, "masses", id)?;
                    if masses.contains(&mass) {
                        return Err(ModelError::new(
                            subject,
                            "masses",
                            "each mass once",
                            format!("\"{id}\" twice"),
                        ));
                    }
                    masses.push(mass);
                }
                masses
            }
            MassSelection::Prefix(prefix) => self
                .masses
                .iter()
                .enumerate()
                .filter(|(_, m)| m.id.starts_with(prefix))
                .map(|(i, _)| i)
                .collect(),
        };
        if masses.is_empty() {
            let found = match selection {
                MassSelection::Ids(_) => "an empty list".to_string(),
                MassSelection::Prefix(prefix) => format!("\"{prefix}*\", which matches no mass"),
            };
            return Err(ModelError::new(subject, "masses", "at least one mass", found));
        }
        Ok(masses)
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

/// Checks one term of a sinusoidal driving force: amplitude and phase finite, frequency finite
/// and >= 0. `subject` names the term (`force on "reed", sinusoid 2`).
pub fn check_sinusoid(subject: &str, sinusoid: &Sinusoid) -> Result<(), ModelError> {
    check_finite(subject, "amplitude", sinusoid.amplitude)?;
    check_non_negative(subject, "frequency", sinusoid.frequency)?;
    check_finite(subject, "phase", sinusoid.phase)
}

/// Checks a Hertz law: stiffness finite and >= 0, exponent finite and >= 1.
fn check_contact_law(subject: &str, stiffness: f64, exponent: f64) -> Result<(), ModelError> {
    check_non_negative(subject, "stiffness", stiffness)?;
    check_finite(subject, "exponent", exponent)?;
    if exponent >= 1.0 {
        Ok(())
    } else {
        Err(ModelError::new(subject, "exponent", "a Hertz exponent >= 1", exponent))
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
