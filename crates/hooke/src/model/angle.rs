//! Angular springs: three nodes that resist a change of the angle at the middle one, for bent
//! rods, chains with a rest curvature and rings in 2D and 3D (`[[angle]]`).
//!
//! With the nodes `a`, `b` (the vertex) and `c`, the arms `u = x_a - x_b`, `w = x_c - x_b` and
//! the angle between them
//!
//! ```text
//! theta = atan2(|u x w|, u . w)  in [0, pi],   V = k / 2 (theta - theta_0)^2,
//! ```
//!
//! (in 2D `u x w` is the scalar `u_x w_y - u_y w_x`), `k` in N m/rad and the rest angle
//! `theta_0` in rad, `0 < theta_0 <= pi`: the element is at rest in any bent shape, unlike
//! [`super::Bending`], which is at rest only when its nodes are evenly spaced on a line. The
//! forces and the stiffness matrix are in `crate::forces` (module `angle`).
//!
//! Where `|u x w| = 0` (theta = 0 or pi) the plane of bending is undefined: there the energy is
//! smooth only for `theta_0 = pi` at `theta = pi` (a straight rest shape); otherwise it has a
//! kink, a cone in the angle. The forces take the gradient of theta as 0 there (no force), and
//! the stiffness is that of `k / 2 phi^2`, phi the angle away from the line (exact for
//! `theta_0 = pi`). The element is meant for rest angles away from 0, and motions that keep theta
//! away from 0 and from pi unless theta_0 = pi.

use super::validate::{check_finite, check_non_negative, distance};
use super::{Element, Model, ModelError, Node, NodeRef};
use serde::Deserialize;
use std::f64::consts::PI;

/// An angular spring as a user writes it (`[[angle]]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Angle {
    /// Optional id; unique if given.
    pub id: Option<String>,
    /// The nodes `[a, b, c]`, masses or anchors, distinct, at least one a mass: the angle is at
    /// `b`, between the arms to `a` and to `c`.
    pub nodes: Vec<NodeRef>,
    /// Stiffness k, N m/rad (>= 0): the torque per radian; the energy is
    /// `k / 2 (theta - theta_0)^2`, J.
    pub stiffness: f64,
    /// Rest angle theta_0, rad, in (0, pi]; `None`: the angle of the initial positions.
    pub rest_angle: Option<f64>,
}

impl Angle {
    /// The angular spring of stiffness `k` (N m/rad) at the vertex `b` between the arms to `a`
    /// and `c`, at rest in the initial positions.
    pub fn new(a: impl Into<NodeRef>, b: impl Into<NodeRef>, c: impl Into<NodeRef>, stiffness: f64) -> Self {
        Self { id: None, nodes: vec![a.into(), b.into(), c.into()], stiffness, rest_angle: None }
    }

    setters! {
        /// Names the element.
        some id(id: impl Into<String>) => id;
        /// Sets the rest angle, rad.
        some rest_angle(theta: f64) => rest_angle;
    }
}

/// An angular spring of a [`Model`]: its nodes resolved and its rest angle filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct AngleElement {
    /// Unique id, if the element was given one.
    pub id: Option<String>,
    /// The nodes `[a, b, c]`, `b` the vertex (distinct, at least one a mass).
    pub nodes: [Node; 3],
    /// k, N m/rad.
    pub stiffness: f64,
    /// theta_0, rad, in (0, pi].
    pub rest_angle: f64,
}

/// The angle between `u` and `w` (3 components; in 2D the third is 0), rad, in [0, pi]:
/// `atan2(|u x w|, u . w)`, accurate near 0 and pi.
fn angle_between(u: [f64; 3], w: [f64; 3]) -> f64 {
    let n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
    let dot: f64 = (0..3).map(|i| u[i] * w[i]).sum();
    n.iter().map(|c| c * c).sum::<f64>().sqrt().atan2(dot)
}

impl Model {
    /// Adds an angular spring. Rules: a 2D or 3D model; three distinct nodes of the model, at
    /// least one a mass, whose initial positions give two arms of non-zero length; stiffness
    /// finite and >= 0; a rest angle (given, or that of the initial positions) in (0, pi].
    pub fn add_angle(&mut self, angle: Angle) -> Result<(), ModelError> {
        let Angle { id, nodes, stiffness, rest_angle } = angle;
        let subject = self.element_subject("angle", id.as_deref(), &nodes)?;
        if self.dimension() == 1 {
            return Err(ModelError::new(
                subject,
                "nodes",
                "a 2D or 3D model (an angle between two arms needs a plane)",
                "a 1D model",
            ));
        }
        if nodes.len() != 3 {
            return Err(ModelError::new(
                subject,
                "nodes",
                "3 nodes: a, the vertex b, c",
                format!("{} nodes", nodes.len()),
            ));
        }
        let resolved = self.resolve_element_nodes(&subject, &nodes)?;
        let nodes = [resolved[0], resolved[1], resolved[2]];
        check_non_negative(&subject, "stiffness", stiffness)?;
        let vertex = self.node_position(nodes[1]);
        for end in [nodes[0], nodes[2]] {
            if distance(self.node_position(end), vertex) == 0.0 {
                return Err(ModelError::new(
                    subject,
                    "nodes",
                    "arms of non-zero length (an arm of zero length has no direction)",
                    format!(
                        "\"{}\" and the vertex \"{}\" both at {:?}",
                        self.node_id(end),
                        self.node_id(nodes[1]),
                        vertex.to_vec()
                    ),
                ));
            }
        }
        let rest_angle = match rest_angle {
            Some(theta) => {
                check_finite(&subject, "rest_angle", theta)?;
                if theta <= 0.0 || theta > PI {
                    return Err(ModelError::new(subject, "rest_angle", "an angle in (0, pi] rad", theta));
                }
                theta
            }
            None => {
                let arm = |end: Node| -> [f64; 3] {
                    let p = self.node_position(end);
                    std::array::from_fn(|i| if i < p.len() { p[i] - vertex[i] } else { 0.0 })
                };
                let theta = angle_between(arm(nodes[0]), arm(nodes[2]));
                if theta == 0.0 {
                    return Err(ModelError::new(
                        subject,
                        "rest_angle",
                        "an angle in (0, pi] rad (when none is given, the initial positions' angle)",
                        "0 (the arms start along one line, on the same side of the vertex)",
                    ));
                }
                theta
            }
        };
        if let Some(id) = &id {
            self.ids.insert(id.clone(), Element::Link);
        }
        self.angles.push(AngleElement { id, nodes, stiffness, rest_angle });
        Ok(())
    }

    /// Angular springs in the order they were added.
    pub fn angles(&self) -> &[AngleElement] {
        &self.angles
    }
}
