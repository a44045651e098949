//! A chain of N masses hanging from a node (a pendulum when N = 1), in any dimension.

use crate::model::validate::{check_count, check_mass, check_non_negative, check_positive, distance};
use crate::model::{de, Mass, Model, ModelError, Node, NodeRef, Spring};
use serde::Deserialize;

/// A chain (`[[chain]]`): masses `ID.1` .. `ID.N` in a line from `from` along `direction`, each
/// linked to the one before by a spring (with a damper in parallel); the last may be tied to
/// `to`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Id prefix of the generated masses.
    pub id: String,
    /// The node the chain starts from (a model file: defined before the chain).
    pub from: NodeRef,
    /// Optional node the last mass is tied to, at its initial length.
    pub to: Option<NodeRef>,
    /// Number of masses N (>= 1).
    pub masses: usize,
    /// Rest length of each link, m (> 0); masses start at these distances along `direction`.
    pub link_length: f64,
    /// Direction from `from` to the first mass (any length, not zero), one entry per dimension.
    #[serde(deserialize_with = "de::vector")]
    pub direction: Vec<f64>,
    /// Mass of each mass, kg (> 0).
    pub mass: f64,
    /// Stiffness of each link, N/m (>= 0).
    pub stiffness: f64,
    /// Damping of each link, N s/m (>= 0).
    #[serde(default)]
    pub damping: f64,
}

impl ChainSpec {
    /// A chain of `masses` masses of `mass` kg from `from`, along `direction`, linked by springs
    /// of `stiffness` N/m and rest length `link_length` m.
    pub fn new(
        id: impl Into<String>,
        from: impl Into<NodeRef>,
        masses: usize,
        link_length: f64,
        direction: impl Into<Vec<f64>>,
        mass: f64,
        stiffness: f64,
    ) -> Self {
        Self {
            id: id.into(),
            from: from.into(),
            to: None,
            masses,
            link_length,
            direction: direction.into(),
            mass,
            stiffness,
            damping: 0.0,
        }
    }

    setters! {
        /// Ties the last mass to `node`.
        some to(node: impl Into<NodeRef>) => to;
        /// Sets each link's damping, N s/m.
        set damping(damping: f64) => damping;
    }
}

impl Model {
    /// Adds a chain (see [`ChainSpec`]); returns its masses from `ID.1` to `ID.N`.
    pub fn add_chain(&mut self, spec: ChainSpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("chain \"{}\"", spec.id);
        check_count(&subject, "masses", spec.masses)?;
        self.check_room(&subject, "masses", Some(spec.masses), format!("{} masses", spec.masses))?;
        check_positive(&subject, "link_length", spec.link_length)?;
        check_mass(&subject, "mass", spec.mass)?;
        check_non_negative(&subject, "stiffness", spec.stiffness)?;
        check_non_negative(&subject, "damping", spec.damping)?;
        let start = self.resolve_node(&subject, "from", &spec.from).map_err(|mut error| {
            error.expected = "the id of a mass or an anchor defined before the chain".to_string();
            error
        })?;
        let dim = self.dimension();
        if spec.direction.len() != dim {
            return Err(ModelError::new(
                subject,
                "direction",
                format!("{dim} component(s) for a {dim}D model"),
                format!("{} component(s)", spec.direction.len()),
            ));
        }
        let norm = distance(&vec![0.0; dim], &spec.direction);
        if !(norm.is_finite() && norm > 0.0) {
            return Err(ModelError::new(
                subject,
                "direction",
                "a finite, non-zero vector",
                format!("{:?}", spec.direction),
            ));
        }
        let origin = self.node_position(start).to_vec();
        // In 1D a rest length is the signed offset x_b - x_a (positions are coordinates here).
        let link_rest = if dim == 1 { spec.link_length * spec.direction[0] / norm } else { spec.link_length };
        let mut previous = start;
        let mut last_position = origin.clone();
        let mut masses = Vec::with_capacity(spec.masses);
        for i in 1..=spec.masses {
            let position: Vec<f64> = origin
                .iter()
                .zip(&spec.direction)
                .map(|(o, d)| o + i as f64 * spec.link_length * d / norm)
                .collect();
            let node =
                self.add_mass(Mass::new(format!("{}.{i}", spec.id), spec.mass).position(position.clone()))?;
            let link = Spring::new(previous, node, spec.stiffness).rest_length(link_rest);
            self.add_spring(link.damping(spec.damping))?;
            masses.push(node);
            previous = node;
            last_position = position;
        }
        if let Some(to) = spec.to {
            // Tied at its initial length: in 1D the signed initial offset, in 2D/3D the distance.
            let mut tie = Spring::new(previous, to.clone(), spec.stiffness).damping(spec.damping);
            if let (Ok(end), 1) = (self.resolve_node(&subject, "to", &to), dim) {
                tie = tie.rest_length(self.node_position(end)[0] - last_position[0]);
            }
            self.add_spring(tie)?;
        }
        Ok(masses)
    }
}
