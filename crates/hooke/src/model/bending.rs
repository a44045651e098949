//! Bending: elements that resist curvature, as the stiffness of a real string, a bar or a plate
//! does (`[[bending]]`).
//!
//! A bending element joins a few nodes `x_i` with weights `w_i` summing to 0 and stores the
//! energy
//!
//! ```text
//! V = kappa / 2 |s|^2,   s = sum_i w_i x_i   (each axis alike),
//! ```
//!
//! so it pushes node `i` with `-kappa w_i s`; with a damping `c`, also with `-c w_i s'` (`s'` the
//! same sum of the velocities: a Kelvin-Voigt solid, whose loss grows with the curvature's rate).
//! With the weights `(1, -2, 1)` on three consecutive nodes of a chain, `s` is the discrete
//! second difference and a string with one element centred at each mass has the
//! fourth-difference stiffness of the Euler-Bernoulli beam, `EI w''''`
//! (Bilbao 2009, Numerical Sound Synthesis, section 7.1): with spacing `h`, `kappa = EI / h^3`.
//! Elements that reach an anchor at each end make the ends pinned (simply supported). On a grid,
//! the five-point Laplacian's weights `(1, 1, 1, 1, -4)` (over `h^2`) give the plate's
//! biharmonic stiffness `D (Laplacian)^2`, `kappa = D / h^2`.
//!
//! The energy is quadratic, so the force is linear in the positions in every dimension: in 1D a
//! position is a displacement and the rest shape is straight; in 2D and 3D the element is at rest
//! when `s = 0` (three nodes in line and evenly spaced), the small-strain bending of a straight
//! chain.

use super::validate::{check_finite, check_non_negative};
use super::{de, Element, Model, ModelError, Node, NodeRef};
use serde::Deserialize;

/// The most nodes one bending element joins (a 3 x 3 stencil).
pub const MAX_BENDING_NODES: usize = 9;

/// A bending element as a user writes it (`[[bending]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bending {
    /// Optional id; unique if given.
    pub id: Option<String>,
    /// The nodes, masses or anchors, distinct, at least one a mass (3 to 9 of them).
    pub nodes: Vec<NodeRef>,
    /// One weight per node, dimensionless in 1D chains (summing to 0); empty: `[1, -2, 1]` for
    /// three nodes.
    #[serde(default, deserialize_with = "de::vector")]
    pub weights: Vec<f64>,
    /// Bending stiffness kappa, N/m (>= 0): the energy is `kappa / 2 |sum w_i x_i|^2`.
    pub stiffness: f64,
    /// Viscous damping of the curvature `c`, N s/m (>= 0, default 0): the element pushes node
    /// `i` with `-c w_i sum_j w_j v_j` too (a Kelvin-Voigt solid's internal loss).
    #[serde(default)]
    pub damping: f64,
}

impl Bending {
    /// The element `kappa / 2 (x_a - 2 x_b + x_c)^2` on three nodes, `kappa` in N/m.
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>, c: impl Into<NodeRef>, stiffness: f64) -> Self {
        Self {
            id: None,
            nodes: vec![a.into(), b.into(), c.into()],
            weights: Vec::new(),
            stiffness,
            damping: 0.0,
        }
    }

    /// The element `kappa / 2 |sum w_i x_i|^2` on any nodes, `kappa` in N/m.
    pub fn weighted(nodes: Vec<NodeRef>, weights: Vec<f64>, stiffness: f64) -> Self {
        Self { id: None, nodes, weights, stiffness, damping: 0.0 }
    }

    setters! {
        /// Names the element.
        some id(id: impl Into<String>) => id;
        /// Sets the curvature's viscous damping `c`, N s/m.
        set damping(c: f64) => damping;
    }
}

/// A bending element of a [`Model`]: its nodes resolved and its weights filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct BendingElement {
    /// Unique id, if the element was given one.
    pub id: Option<String>,
    /// The nodes (distinct, at least one a mass).
    pub nodes: Vec<Node>,
    /// One weight per node, summing to 0.
    pub weights: Vec<f64>,
    /// kappa, N/m.
    pub stiffness: f64,
    /// The curvature's viscous damping `c`, N s/m.
    pub damping: f64,
}

impl Model {
    /// Adds a bending element. Rules: 3 to [`MAX_BENDING_NODES`] distinct nodes of the model, at
    /// least one a mass; one finite weight per node (or none for three nodes), not all 0, summing
    /// to 0 (so that moving every node alike stores no energy); stiffness and damping finite and
    /// >= 0.
    pub fn add_bending(&mut self, bending: Bending) -> Result<(), ModelError> {
        let Bending { id, nodes, weights, stiffness, damping } = bending;
        let subject = self.element_subject("bending", id.as_deref(), &nodes)?;
        if !(3..=MAX_BENDING_NODES).contains(&nodes.len()) {
            return Err(ModelError::new(
                subject,
                "nodes",
                format!("3 to {MAX_BENDING_NODES} nodes"),
                format!("{} nodes", nodes.len()),
            ));
        }
        let resolved = self.resolve_element_nodes(&subject, &nodes)?;
        let weights = match (weights.is_empty(), nodes.len()) {
            (true, 3) => vec![1.0, -2.0, 1.0],
            (true, n) => {
                return Err(ModelError::new(subject, "weights", format!("{n} weights, one per node"), "none"))
            }
            (false, n) if weights.len() != n => {
                return Err(ModelError::new(
                    subject,
                    "weights",
                    format!("{n} weights, one per node"),
                    weights.len(),
                ))
            }
            (false, _) => weights,
        };
        for &w in &weights {
            check_finite(&subject, "weights", w)?;
        }
        let scale: f64 = weights.iter().map(|w| w.abs()).sum();
        let sum: f64 = weights.iter().sum();
        if scale == 0.0 || sum.abs() > 1e-12 * scale {
            return Err(ModelError::new(
                subject,
                "weights",
                "weights not all 0 that sum to 0",
                format!("{weights:?}, summing to {sum}"),
            ));
        }
        check_non_negative(&subject, "stiffness", stiffness)?;
        check_non_negative(&subject, "damping", damping)?;
        if let Some(id) = &id {
            self.ids.insert(id.clone(), Element::Link);
        }
        self.bendings.push(BendingElement { id, nodes: resolved, weights, stiffness, damping });
        Ok(())
    }

    /// Bending elements in the order they were added.
    pub fn bendings(&self) -> &[BendingElement] {
        &self.bendings
    }
}
