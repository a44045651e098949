//! The rules every element is checked against as it is added: numbers finite and in range,
//! vectors of the model's dimension, ids new, and node references that name a node of the model.

use super::{Element, Model, ModelError, Node, NodeRef};
use crate::limits::MAX_NODES;
use std::fmt;

impl Model {
    /// The node a reference names: a handle of this model, or the id of a mass or an anchor.
    pub(crate) fn resolve_node(
        &self,
        subject: &str,
        field: &'static str,
        node: &NodeRef,
    ) -> Result<Node, ModelError> {
        let id = match node {
            NodeRef::Node(node) => {
                let (index, count) = match *node {
                    Node::Mass(i) => (i, self.masses.len()),
                    Node::Anchor(i) => (i, self.anchors.len()),
                };
                return if index < count {
                    Ok(*node)
                } else {
                    Err(ModelError::new(
                        subject,
                        field,
                        "a node of this model",
                        self.label(&NodeRef::Node(*node)),
                    ))
                };
            }
            NodeRef::Id(id) => id,
        };
        match self.ids.get(id.as_str()) {
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

    /// The index of the mass a reference names; anchors, links and unknown ids are errors.
    pub(crate) fn resolve_mass(
        &self,
        subject: &str,
        field: &'static str,
        node: &NodeRef,
    ) -> Result<usize, ModelError> {
        match self.resolve_node(subject, field, node) {
            Ok(Node::Mass(i)) => Ok(i),
            Ok(Node::Anchor(_)) => Err(ModelError::new(
                subject,
                field,
                "the id of a mass (anchors do not move)",
                format!("anchor \"{}\"", self.label(node)),
            )),
            Err(mut error) => {
                error.expected = "the id of a mass defined in the model".to_string();
                Err(error)
            }
        }
    }

    /// `nodes` resolved for an element (`subject`'s field `nodes`): distinct nodes of the
    /// model, at least one a mass.
    pub(crate) fn resolve_element_nodes(
        &self,
        subject: &str,
        nodes: &[NodeRef],
    ) -> Result<Vec<Node>, ModelError> {
        let mut resolved = Vec::with_capacity(nodes.len());
        for node in nodes {
            let found = self.resolve_node(subject, "nodes", node)?;
            if resolved.contains(&found) {
                let found = format!("\"{}\" twice", self.label(node));
                return Err(ModelError::new(subject, "nodes", "distinct nodes", found));
            }
            resolved.push(found);
        }
        if resolved.iter().all(|n| matches!(n, Node::Anchor(_))) {
            return Err(ModelError::new(subject, "nodes", "at least one mass", "anchors only"));
        }
        Ok(resolved)
    }

    /// The subject of the errors of an element of `kind` (`bending`, `angle`) on `nodes`:
    /// `KIND "ID"`, its id checked new, or `KIND on "A", "B", ...` without one.
    pub(crate) fn element_subject(
        &self,
        kind: &str,
        id: Option<&str>,
        nodes: &[NodeRef],
    ) -> Result<String, ModelError> {
        let Some(id) = id else {
            let labels: Vec<String> = nodes.iter().map(|n| format!("\"{}\"", self.label(n))).collect();
            return Ok(format!("{kind} on {}", labels.join(", ")));
        };
        let subject = format!("{kind} \"{id}\"");
        self.check_new_id(&subject, id)?;
        Ok(subject)
    }

    /// How errors name a node reference: its id, or for a handle of no node of this model,
    /// `mass #i` or `anchor #i`.
    pub(crate) fn label(&self, node: &NodeRef) -> String {
        match node {
            NodeRef::Id(id) => id.clone(),
            NodeRef::Node(Node::Mass(i)) => {
                self.masses.get(*i).map_or(format!("mass #{i}"), |m| m.id.clone())
            }
            NodeRef::Node(Node::Anchor(i)) => {
                self.anchors.get(*i).map_or(format!("anchor #{i}"), |a| a.id.clone())
            }
        }
    }

    /// Checks that the model is 1D, for a generator whose masses move along one axis; `why`
    /// says so in the error.
    pub(crate) fn check_one_dimensional(&self, subject: &str, why: &str) -> Result<(), ModelError> {
        if self.dimension() == 1 {
            return Ok(());
        }
        let found = format!("a {}D model", self.dimension());
        Err(ModelError::new(subject, "dimension", format!("a 1D model ({why})"), found))
    }

    /// Checks that `nodes` more nodes (masses and anchors; `None`: more than a `usize` counts)
    /// fit in the model, which holds at most [`MAX_NODES`]; `asked` says what asked for them.
    /// A generator checks before it allocates anything.
    pub(crate) fn check_room(
        &self,
        subject: &str,
        field: &'static str,
        nodes: Option<usize>,
        asked: impl fmt::Display,
    ) -> Result<(), ModelError> {
        let room = MAX_NODES.saturating_sub(self.masses.len() + self.anchors.len());
        match nodes {
            Some(nodes) if nodes <= room => Ok(()),
            _ => Err(ModelError::new(
                subject,
                field,
                format!(
                    "at most {room} more nodes (a model holds at most {MAX_NODES} masses and anchors, \
                     about 1 KiB of memory each)"
                ),
                asked,
            )),
        }
    }

    pub(crate) fn check_new_id(&self, subject: &str, id: &str) -> Result<(), ModelError> {
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

    /// Checks that `v` has the model's dimension and finite components.
    pub(crate) fn check_vector(
        &self,
        subject: &str,
        field: &'static str,
        v: &[f64],
    ) -> Result<(), ModelError> {
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

    /// A position as given, or the origin in 1D when none is given (empty); 2D/3D need one.
    pub(crate) fn position_or_origin(
        &self,
        subject: &str,
        field: &'static str,
        given: Vec<f64>,
    ) -> Result<Vec<f64>, ModelError> {
        let dim = self.dimension;
        match given {
            empty if empty.is_empty() && dim == 1 => Ok(vec![0.0]),
            empty if empty.is_empty() => Err(ModelError::new(
                subject,
                field,
                format!("`{field}` (m, {dim} components; required in 2D/3D)"),
                "nothing",
            )),
            given => {
                self.check_vector(subject, field, &given)?;
                Ok(given)
            }
        }
    }
}

/// Checks a Hertz law: stiffness finite and >= 0, exponent finite and >= 1.
pub(crate) fn check_contact_law(subject: &str, stiffness: f64, exponent: f64) -> Result<(), ModelError> {
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

/// Checks a mass, kg: finite, > 0, and at least the smallest normal `f64` (about 2.2e-308), so
/// that its reciprocal, by which every force is divided, is finite (1 / 5e-324 is infinite).
pub(crate) fn check_mass(subject: &str, field: &'static str, value: f64) -> Result<(), ModelError> {
    check_positive(subject, field, value)?;
    if value >= f64::MIN_POSITIVE {
        Ok(())
    } else {
        let expected = format!(
            "a mass of at least {:e} kg (the smallest whose reciprocal is finite)",
            f64::MIN_POSITIVE
        );
        Err(ModelError::new(subject, field, expected, format!("{value:e} kg")))
    }
}

/// Checks a count of generated masses, rows or columns: at least 1.
pub(crate) fn check_count(subject: &str, field: &'static str, n: usize) -> Result<(), ModelError> {
    if n >= 1 {
        Ok(())
    } else {
        Err(ModelError::new(subject, field, "at least 1", n))
    }
}
