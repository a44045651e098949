//! Contacts by Hertz's law (Chatziioannou 2019, eq. (44)): rigid barriers that masses bounce
//! off, and collisions between two masses. [`BarrierSpec`] and [`CollisionSpec`] are what a user
//! gives (`[[barrier]]`, `[[collision]]`); [`Barrier`] and [`Collision`] what a model holds.

use super::validate::{check_contact_law, check_positive, distance};
use super::{de, Element, Model, ModelError, NodeRef};
use serde::Deserialize;

/// A rigid barrier, the plane `{x : n . x = c}` (1D: the point `c / n`), that pushes masses out
/// by Hertz's law (Chatziioannou 2019, eq. (44), in any dimension).
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

/// Which masses a barrier acts on. A model file writes a list of ids, one id, or a prefix
/// pattern `"s.*"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MassSelection {
    /// These masses (each a mass, none twice, at least one).
    Masses(Vec<NodeRef>),
    /// Every mass whose id starts with this prefix, in model order (anchors are skipped); the
    /// file form `"s.*"` is `Prefix("s.")`. It must match at least one mass.
    Prefix(String),
}

impl Default for MassSelection {
    /// No mass (an error when added: select at least one).
    fn default() -> Self {
        Self::Masses(Vec::new())
    }
}

impl<T: Into<NodeRef>> From<Vec<T>> for MassSelection {
    fn from(masses: Vec<T>) -> Self {
        Self::Masses(masses.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<NodeRef>, const N: usize> From<[T; N]> for MassSelection {
    fn from(masses: [T; N]) -> Self {
        Self::Masses(masses.into_iter().map(Into::into).collect())
    }
}

/// A barrier as a user gives it (`[[barrier]]`), before its masses are resolved and its normal
/// normalised.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierSpec {
    /// Optional id; unique if given.
    pub id: Option<String>,
    /// The masses it acts on.
    pub masses: MassSelection,
    /// A point on the plane, m, one entry per dimension.
    #[serde(deserialize_with = "de::vector")]
    pub position: Vec<f64>,
    /// A normal pointing to the free side, any length but not zero (1D: exactly +1 or -1).
    #[serde(deserialize_with = "de::vector")]
    pub normal: Vec<f64>,
    /// Contact stiffness `k`, N/m^alpha (>= 0).
    pub stiffness: f64,
    /// Hertz exponent `alpha` (>= 1).
    pub exponent: f64,
}

impl BarrierSpec {
    /// A barrier through `position` (m) with the free side along `normal`, acting on `masses`
    /// with stiffness `stiffness` (N/m^alpha) and Hertz exponent `exponent`.
    pub fn new(
        masses: impl Into<MassSelection>,
        position: impl Into<Vec<f64>>,
        normal: impl Into<Vec<f64>>,
        stiffness: f64,
        exponent: f64,
    ) -> Self {
        Self {
            id: None,
            masses: masses.into(),
            position: position.into(),
            normal: normal.into(),
            stiffness,
            exponent,
        }
    }

    setters! {
        /// Names the barrier.
        some id(id: impl Into<String>) => id;
    }
}

/// A Hertz contact between two masses (Chatziioannou 2019, eq. (44), between two bodies).
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

/// A collision as a user gives it (`[[collision]]`), before its masses are resolved.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollisionSpec {
    /// Optional id; unique if given.
    pub id: Option<String>,
    /// The first mass.
    pub a: NodeRef,
    /// The second mass.
    pub b: NodeRef,
    /// Contact distance, m (> 0).
    pub distance: f64,
    /// Contact stiffness, N/m^alpha (>= 0).
    pub stiffness: f64,
    /// Hertz exponent alpha (>= 1).
    pub exponent: f64,
}

impl CollisionSpec {
    /// A contact of masses `a` and `b` closer than `distance` (m), with stiffness `stiffness`
    /// (N/m^alpha) and Hertz exponent `exponent`.
    pub fn new(
        a: impl Into<NodeRef>,
        b: impl Into<NodeRef>,
        distance: f64,
        stiffness: f64,
        exponent: f64,
    ) -> Self {
        Self { id: None, a: a.into(), b: b.into(), distance, stiffness, exponent }
    }

    setters! {
        /// Names the collision.
        some id(id: impl Into<String>) => id;
    }
}

impl Model {
    /// Adds a rigid barrier acting on one or more masses. Rules: the masses exist and are masses
    /// (not anchors), none twice, at least one (a prefix must match a mass); `position` and
    /// `normal` have the model's dimension and are finite; the normal is not zero (1D: exactly
    /// +1 or -1) and is stored normalised; stiffness >= 0; exponent >= 1; both finite.
    pub fn add_barrier(&mut self, spec: BarrierSpec) -> Result<(), ModelError> {
        let subject = match &spec.id {
            Some(id) => format!("barrier \"{id}\""),
            None => "barrier".to_string(),
        };
        if let Some(id) = &spec.id {
            self.check_new_id(&subject, id)?;
        }
        let masses = self.select_masses(&subject, &spec.masses)?;
        self.check_vector(&subject, "position", &spec.position)?;
        self.check_vector(&subject, "normal", &spec.normal)?;
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
        if let Some(id) = &spec.id {
            self.ids.insert(id.clone(), Element::Contact);
        }
        self.barriers.push(Barrier {
            id: spec.id,
            masses,
            position: spec.position,
            normal: scaled.iter().map(|c| c / length).collect(),
            stiffness: spec.stiffness,
            exponent: spec.exponent,
        });
        Ok(())
    }

    /// Adds a Hertz contact between two masses. Rules: `a` and `b` are distinct masses (not
    /// anchors); distance > 0; stiffness >= 0; exponent >= 1; all finite; in 2D/3D the two
    /// masses start at distinct positions (the line of centres needs a direction).
    pub fn add_collision(&mut self, spec: CollisionSpec) -> Result<(), ModelError> {
        let subject = match &spec.id {
            Some(id) => format!("collision \"{id}\""),
            None => format!("collision of \"{}\" and \"{}\"", self.label(&spec.a), self.label(&spec.b)),
        };
        if let Some(id) = &spec.id {
            self.check_new_id(&subject, id)?;
        }
        let a = self.resolve_mass(&subject, "a", &spec.a)?;
        let b = self.resolve_mass(&subject, "b", &spec.b)?;
        if a == b {
            return Err(ModelError::new(
                subject,
                "b",
                format!("a mass other than a (\"{}\")", self.label(&spec.a)),
                format!("\"{}\"", self.label(&spec.b)),
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
        if let Some(id) = &spec.id {
            self.ids.insert(id.clone(), Element::Contact);
        }
        self.collisions.push(Collision {
            id: spec.id,
            a,
            b,
            distance: spec.distance,
            stiffness: spec.stiffness,
            exponent: spec.exponent,
        });
        Ok(())
    }

    /// The masses a barrier acts on.
    fn select_masses(&self, subject: &str, selection: &MassSelection) -> Result<Vec<usize>, ModelError> {
        let masses: Vec<usize> = match selection {
            MassSelection::Masses(nodes) => {
                let mut masses = Vec::with_capacity(nodes.len());
                for node in nodes {
                    let mass = self.resolve_mass(subject, "masses", node)?;
                    if masses.contains(&mass) {
                        return Err(ModelError::new(
                            subject,
                            "masses",
                            "each mass once",
                            format!("\"{}\" twice", self.label(node)),
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
                .filter(|(_, m)| m.id.starts_with(prefix.as_str()))
                .map(|(i, _)| i)
                .collect(),
        };
        if masses.is_empty() {
            let found = match selection {
                MassSelection::Masses(_) => "an empty list".to_string(),
                MassSelection::Prefix(prefix) => format!("\"{prefix}*\", which matches no mass"),
            };
            return Err(ModelError::new(subject, "masses", "at least one mass", found));
        }
        Ok(masses)
    }
}
