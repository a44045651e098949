//! What a user describes: masses, anchors, links (springs and dampers), bending, angular springs,
//! drag, gravity, contacts (Hertz barriers and collisions), driving forces, and the generators
//! that build strings, membranes and chains from them.
//!
//! A [`Model`] is built element by element through methods that validate each element as it is
//! added (`add_mass`, `add_spring`, `add_string`, ...), so a `Model` is always valid. Each element
//! is described by a spec type, the same type the model file reads (`[[mass]]` is a [`Mass`],
//! `[[string]]` a [`StringSpec`]; the file layer above, `format`, reads them), so the rules and
//! the vocabulary live in one place. A spec is made with `new`, which takes the fields a model
//! file requires, and one method per optional field, named as the field (`.position(..)`,
//! `.damping(..)`), or as a struct with `..Default::default()` (the file's defaults for the
//! optional fields). Elements name nodes by handle or by id ([`NodeRef`]).
//!
//! Coordinates: in 1D a position is a displacement from equilibrium (as in Morgan & Qiao 2009);
//! in 2D and 3D it is a point in space (as in the blog post's simulator). Units are SI
//! throughout.
//!
//! ```
//! use hooke::model::{Anchor, Mass, Model, Spring, StringSpec};
//!
//! let mut model = Model::new(1)?;
//! let ground = model.add_anchor(Anchor::new("ground"))?;
//! let bob = model.add_mass(Mass::new("bob", 0.01).position([1e-3]))?;
//! model.add_spring(Spring::new(ground, bob, 400.0).damping(0.01))?;
//! let string = model.add_string(StringSpec::new("s", 20).mass(1e-3).stiffness(1e3).pluck(0.3, 1e-3))?;
//! assert_eq!((model.masses().len(), string.len()), (21, 20));
//! # Ok::<(), hooke::model::ModelError>(())
//! ```

/// The builder methods of a spec type, one per optional field: `name(value) -> Self` sets the
/// field to `value.into()`, or to `Some(value.into())` for `some` fields. Each entry carries its
/// doc comment (with the unit) into the method.
macro_rules! setters {
    ($($(#[$doc:meta])* $kind:ident $name:ident($value:ident: $type:ty) => $field:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $value: $type) -> Self {
                setters!(@assign $kind self.$field, $value.into());
                self
            }
        )*
    };
    (@assign some $place:expr, $value:expr) => { $place = Some($value) };
    (@assign set $place:expr, $value:expr) => { $place = $value };
}

mod angle;
mod bending;
mod contact;
pub(crate) mod de;
mod elements;
mod error;
mod forces;
mod generate;
mod mode_damping;
mod validate;

pub use angle::{Angle, AngleElement};
pub use bending::{Bending, BendingElement, MAX_BENDING_NODES};
pub use contact::{Barrier, BarrierSpec, Collision, CollisionSpec, MassSelection};
pub use elements::{Anchor, Damper, Initial, Link, Mass, Node, NodeRef, Spring};
pub(crate) use error::tidy;
pub use error::ModelError;
pub use error::{clip, number, quoted};
pub(crate) use forces::interpolate;
pub use forces::{ExternalForce, ForceSpec, Samples, Signal, Sinusoid};
pub use generate::{
    nearest_decay_times, BarSpec, BodyMode, BodySpec, ChainSpec, MembraneSpec, PlateSpec, Pluck, StringSpec,
    MAX_BODY_MODES, MAX_UNDERCUT_DEPTH, MAX_UNDERCUT_MASSES, UNDERCUT_WIDTH,
};
pub use mode_damping::{sine_modes, ModeDamping};
pub(crate) use validate::{check_finite, check_positive};

use std::collections::HashMap;

/// A validated network of masses, anchors and links, with gravity, contacts and driving forces.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    dimension: usize,
    gravity: Vec<f64>,
    masses: Vec<Mass>,
    anchors: Vec<Anchor>,
    links: Vec<Link>,
    bendings: Vec<BendingElement>,
    angles: Vec<AngleElement>,
    barriers: Vec<Barrier>,
    collisions: Vec<Collision>,
    forces: Vec<ExternalForce>,
    mode_dampings: Vec<ModeDamping>,
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
            bendings: Vec::new(),
            angles: Vec::new(),
            barriers: Vec::new(),
            collisions: Vec::new(),
            forces: Vec::new(),
            mode_dampings: Vec::new(),
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
}
