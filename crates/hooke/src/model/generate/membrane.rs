//! A rectangular grid of masses with a rim of anchors, each mass linked to its four neighbours.
//! In 1D the masses move transversally (a drum); in 2D/3D they lie in the x-y plane and the
//! links are geometric (a mesh, or a cloth under gravity in 3D).

use super::{elements, lumped_values, Elements};
use crate::model::validate::{check_count, check_finite, check_non_negative, check_positive};
use crate::model::{de, Anchor, Mass, Model, ModelError, Node, Spring};
use serde::Deserialize;

/// A membrane or mesh (`[[membrane]]`): node `ID.i.j`, i = 0..=columns+1 along x,
/// j = 0..=rows+1 along y; the rim (i or j at an end, corners left out) are anchors. Its elements
/// are given either lumped (`mass`, `stiffness`, optional `damping`; in 2D/3D with `spacing`) or,
/// in 1D, physical (`width`, `height`, `tension`, `surface_density`, optional `decay_time`): masses
/// `density dx dy`, links `tension dy/dx` along x and `tension dx/dy` along y.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MembraneSpec {
    /// Id prefix of the generated nodes.
    pub id: String,
    /// Masses along x (>= 1).
    pub columns: usize,
    /// Masses along y (>= 1).
    pub rows: usize,
    /// Lumped: each mass, kg (> 0).
    pub mass: Option<f64>,
    /// Lumped: each link, N/m (>= 0).
    pub stiffness: Option<f64>,
    /// Lumped: each damper (in parallel with each link), N s/m (>= 0; default 0).
    pub damping: Option<f64>,
    /// Lumped, 2D/3D: the grid spacing and rest length of each link, m (> 0).
    pub spacing: Option<f64>,
    /// 2D/3D: position of node `ID.0.0`, m (empty: the coordinate origin).
    #[serde(default, deserialize_with = "de::vector")]
    pub origin: Vec<f64>,
    /// Physical: width along x, m (> 0).
    pub width: Option<f64>,
    /// Physical: height along y, m (> 0).
    pub height: Option<f64>,
    /// Physical: tension per unit length, N/m (> 0).
    pub tension: Option<f64>,
    /// Physical: surface density, kg/m^2 (> 0).
    pub surface_density: Option<f64>,
    /// Physical: time for the lowest mode to decay by 1/e, s (> 0; default lossless).
    pub decay_time: Option<f64>,
    /// Drag to ground of each mass, 1/s (>= 0).
    #[serde(default)]
    pub drag: f64,
}

impl MembraneSpec {
    /// A grid of `columns` by `rows` masses; give its elements with the lumped or the physical
    /// methods.
    pub fn new(id: impl Into<String>, columns: usize, rows: usize) -> Self {
        Self { id: id.into(), columns, rows, ..Self::default() }
    }

    setters! {
        /// Lumped: sets each mass, kg.
        some mass(mass: f64) => mass;
        /// Lumped: sets each link's stiffness, N/m.
        some stiffness(stiffness: f64) => stiffness;
        /// Lumped: sets each damper's damping, N s/m.
        some damping(damping: f64) => damping;
        /// Lumped, 2D/3D: sets the grid spacing, m.
        some spacing(spacing: f64) => spacing;
        /// 2D/3D: sets the position of node `ID.0.0`, m.
        set origin(origin: impl Into<Vec<f64>>) => origin;
        /// Physical: sets the width along x, m.
        some width(width: f64) => width;
        /// Physical: sets the height along y, m.
        some height(height: f64) => height;
        /// Physical: sets the tension per unit length, N/m.
        some tension(tension: f64) => tension;
        /// Physical: sets the surface density, kg/m^2.
        some surface_density(density: f64) => surface_density;
        /// Physical: sets the 1/e decay time of the lowest mode, s.
        some decay_time(seconds: f64) => decay_time;
        /// Sets each mass's drag to ground, 1/s.
        set drag(gamma: f64) => drag;
    }
}

impl Model {
    /// Adds a membrane or mesh (see [`MembraneSpec`]); returns its masses row by row
    /// (`ID.1.1`, `ID.2.1`, ...). Physical elements derive the damping as for a string:
    /// `Z = c k` on every link, `c = 2 tau^-1 / omega_(1,1)^2`, where
    /// `omega_(1,1)^2 = (4 / m) (k_x sin^2(pi / (2 (W + 1))) + k_y sin^2(pi / (2 (H + 1))))`.
    pub fn add_membrane(&mut self, spec: MembraneSpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("membrane \"{}\"", spec.id);
        check_count(&subject, "columns", spec.columns)?;
        check_count(&subject, "rows", spec.rows)?;
        // (columns + 2) x (rows + 2) nodes less the 4 corners.
        let nodes = (spec.columns.checked_add(2))
            .zip(spec.rows.checked_add(2))
            .and_then(|(w, h)| w.checked_mul(h))
            .map(|n| n - 4);
        let asked = format!("{} x {} masses and their rim", spec.columns, spec.rows);
        self.check_room(&subject, "columns", nodes, asked)?;
        check_non_negative(&subject, "drag", spec.drag)?;
        let elements = elements(
            &subject,
            &[("mass", spec.mass), ("stiffness", spec.stiffness), ("damping", spec.damping)],
            &[
                ("width", spec.width),
                ("tension", spec.tension),
                ("surface_density", spec.surface_density),
                ("decay_time", spec.decay_time),
            ],
        )?;
        let dim = self.dimension();
        let (w, h) = (spec.columns, spec.rows);
        let physical = ["width", "tension", "surface_density"];
        let lumped = match (elements, dim) {
            (Elements::Physical { .. }, 1) => {
                let height = spec.height.ok_or_else(|| {
                    ModelError::new(
                        &subject,
                        "height",
                        "the membrane's height in m (with tension)",
                        "nothing",
                    )
                })?;
                check_positive(&subject, "height", height)?;
                lumped_values(&subject, &elements, w, Some((h, height)), physical)?
            }
            (Elements::Physical { .. }, _) => {
                return Err(ModelError::new(
                    subject,
                    "tension",
                    "lumped elements (mass, stiffness, spacing) for a 2D/3D mesh",
                    "tension",
                ))
            }
            (Elements::Lumped { .. }, _) => lumped_values(&subject, &elements, w, None, physical)?,
        };
        if let (Elements::Lumped { .. }, Some(height)) = (elements, spec.height) {
            return Err(ModelError::new(
                subject,
                "height",
                "no height with lumped elements (it is set by rows and spacing)",
                height,
            ));
        }
        let spacing = mesh_spacing(&subject, &spec, dim)?;
        let origin = mesh_origin(&subject, &spec, dim)?;
        let position = |i: usize, j: usize| {
            let mut p = origin.clone();
            if dim > 1 {
                p[0] += i as f64 * spacing;
                p[1] += j as f64 * spacing;
            }
            p
        };
        let id = |i: usize, j: usize| format!("{}.{i}.{j}", spec.id);
        let on_rim = |i: usize, j: usize| i == 0 || j == 0 || i == w + 1 || j == h + 1;
        let is_corner = |i: usize, j: usize| (i == 0 || i == w + 1) && (j == 0 || j == h + 1);
        // The handle of node (i, j) at `grid[j * (w + 2) + i]`; corners have none.
        let mut grid = vec![None; (w + 2) * (h + 2)];
        let mut masses = Vec::with_capacity(w * h);
        for j in 0..=h + 1 {
            for i in 0..=w + 1 {
                if is_corner(i, j) {
                    continue;
                }
                grid[j * (w + 2) + i] = Some(if on_rim(i, j) {
                    self.add_anchor(Anchor::new(id(i, j)).position(position(i, j)))?
                } else {
                    let mass = Mass::new(id(i, j), lumped.mass).position(position(i, j)).drag(spec.drag);
                    let node = self.add_mass(mass)?;
                    masses.push(node);
                    node
                });
            }
        }
        let node = |i: usize, j: usize| grid[j * (w + 2) + i].expect("links join no corner");
        for j in 1..=h {
            for i in 0..=w {
                let spring = Spring::new(node(i, j), node(i + 1, j), lumped.stiffness_x);
                self.add_spring(spring.damping(lumped.damping_x))?;
            }
        }
        for i in 1..=w {
            for j in 0..=h {
                let spring = Spring::new(node(i, j), node(i, j + 1), lumped.stiffness_y);
                self.add_spring(spring.damping(lumped.damping_y))?;
            }
        }
        Ok(masses)
    }
}

/// The grid spacing: none in 1D, required and > 0 in 2D/3D.
fn mesh_spacing(subject: &str, spec: &MembraneSpec, dim: usize) -> Result<f64, ModelError> {
    match (dim, spec.spacing) {
        (1, None) => Ok(0.0),
        (1, Some(spacing)) => Err(ModelError::new(
            subject,
            "spacing",
            "no spacing in 1D (masses only move transversally)",
            spacing,
        )),
        (_, None) => {
            Err(ModelError::new(subject, "spacing", "the grid spacing in m for a 2D/3D mesh", "nothing"))
        }
        (_, Some(spacing)) => {
            check_positive(subject, "spacing", spacing)?;
            Ok(spacing)
        }
    }
}

/// The position of node `ID.0.0`: the given origin (2D/3D only) or the coordinate origin.
fn mesh_origin(subject: &str, spec: &MembraneSpec, dim: usize) -> Result<Vec<f64>, ModelError> {
    let origin = &spec.origin;
    if origin.is_empty() {
        Ok(vec![0.0; dim])
    } else if dim == 1 {
        Err(ModelError::new(subject, "origin", "no origin in 1D (positions are displacements)", "an origin"))
    } else if origin.len() != dim {
        Err(ModelError::new(
            subject,
            "origin",
            format!("{dim} component(s) for a {dim}D model"),
            format!("{} component(s)", origin.len()),
        ))
    } else {
        origin.iter().try_for_each(|&c| check_finite(subject, "origin", c))?;
        Ok(origin.clone())
    }
}
