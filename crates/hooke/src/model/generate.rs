//! Generators: a string, a membrane (or mesh) with a fixed rim, a chain. Each adds ordinary
//! masses, anchors and links to a [`Model`] with predictable ids, so pickups and initial
//! conditions can name them.

use super::{check_non_negative, check_positive, LinkSpec, Mass, Model, ModelError};
use std::f64::consts::PI;

/// Initial triangular displacement of a string (1D), as left by a finger pluck.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pluck {
    /// Where along the string, as a fraction of its length, strictly between 0 and 1.
    pub position: f64,
    /// Displacement at that point, m.
    pub amplitude: f64,
}

/// How a string's or membrane's elements are given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Elements {
    /// Each element given directly.
    Lumped {
        /// Mass of each mass, kg.
        mass: f64,
        /// Stiffness of each spring, N/m.
        stiffness: f64,
        /// Damping of each damper (in parallel with each spring), N s/m.
        damping: f64,
    },
    /// Derived from the continuous string (or membrane) with `masses + 1` equal segments.
    Physical {
        /// Length, m (a membrane: its width along x).
        length: f64,
        /// String: tension, N. Membrane: tension per unit length, N/m.
        tension: f64,
        /// String: linear density, kg/m. Membrane: surface density, kg/m^2.
        density: f64,
        /// Time for the lowest mode of the (analog) model to decay by 1/e, s; `None`: lossless.
        decay_time: Option<f64>,
    },
}

/// A string of N masses between two anchors, displacements in 1D (Morgan & Qiao 2009, section 4.3).
#[derive(Debug, Clone, PartialEq)]
pub struct StringSpec {
    /// Id prefix: anchors `ID.0` and `ID.{N+1}`, masses `ID.1` .. `ID.N`.
    pub id: String,
    /// Number of masses N (>= 1).
    pub masses: usize,
    /// Element values.
    pub elements: Elements,
    /// Drag to ground of each mass, 1/s.
    pub drag: f64,
    /// Optional initial triangular shape.
    pub pluck: Option<Pluck>,
}

/// A rectangular grid of masses with a rim of anchors, each mass linked to its four neighbours.
/// In 1D the masses move transversally (a drum); in 2D/3D they lie in the x-y plane and the
/// links are geometric (a mesh, or a cloth under gravity in 3D).
#[derive(Debug, Clone, PartialEq)]
pub struct MembraneSpec {
    /// Id prefix: node `ID.i.j`, i = 0..=columns+1 along x, j = 0..=rows+1 along y; the rim
    /// (i or j at an end) are anchors.
    pub id: String,
    /// Masses along x.
    pub columns: usize,
    /// Masses along y.
    pub rows: usize,
    /// Element values. `Physical` (1D only): `length` is the width along x and the height is
    /// set by `height`; masses are `density dx dy`, links `tension dy/dx` (along x) and
    /// `tension dx/dy` (along y).
    pub elements: Elements,
    /// Height along y, m (with `Physical` elements).
    pub height: Option<f64>,
    /// Grid spacing, m (2D/3D with `Lumped` elements): the rest length of each link.
    pub spacing: Option<f64>,
    /// Position of node `ID.0.0`, m (2D/3D; the coordinate origin when `None`).
    pub origin: Option<Vec<f64>>,
    /// Drag to ground of each mass, 1/s.
    pub drag: f64,
}

/// A chain of N masses hanging from a node (a pendulum when N = 1), in any dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainSpec {
    /// Id prefix: masses `ID.1` .. `ID.N`.
    pub id: String,
    /// Id of the node the chain starts from.
    pub from: String,
    /// Optional id of a node the last mass is tied to.
    pub to: Option<String>,
    /// Number of masses N (>= 1).
    pub masses: usize,
    /// Rest length of each link, m; masses start at these distances along `direction`.
    pub link_length: f64,
    /// Direction from `from` to the first mass (any length, not zero).
    pub direction: Vec<f64>,
    /// Mass of each mass, kg.
    pub mass: f64,
    /// Stiffness of each link, N/m.
    pub stiffness: f64,
    /// Damping of each link, N s/m.
    pub damping: f64,
}

/// Lumped values of one element of a uniform string or membrane: mass (kg), stiffness (N/m) and
/// damping (N s/m) of a link along x, and the same along y for a membrane.
struct Lumped {
    mass: f64,
    stiffness_x: f64,
    stiffness_y: f64,
    damping_x: f64,
    damping_y: f64,
}

/// Adds a string (see [`StringSpec`]).
///
/// `Physical` elements: with `dx = L / (N + 1)`, `m = rho dx`, `k = T / dx`. The decay uses
/// dampers on the springs, `Z = c k` (the string of Morgan & Qiao 2009, section 4.3, as
/// corrected in docs/errata.md), whose modes decay at `sigma_n = -c omega_n^2 / 2`; `c` is chosen
/// so the lowest mode's analog time constant is `decay_time`, with
/// `omega_1^2 = (k/m) 4 sin^2(pi / (2 (N + 1)))`.
pub fn add_string(model: &mut Model, spec: &StringSpec) -> Result<(), ModelError> {
    let subject = format!("string \"{}\"", spec.id);
    if model.dimension() != 1 {
        return Err(ModelError::new(
            subject,
            "dimension",
            "a 1D model (a string moves transversally; use a chain in 2D/3D)",
            format!("a {}D model", model.dimension()),
        ));
    }
    check_count(&subject, "masses", spec.masses)?;
    check_non_negative(&subject, "drag", spec.drag)?;
    let n = spec.masses;
    let lumped = lumped_values(&subject, &spec.elements, n, None)?;
    let node = |i: usize| format!("{}.{i}", spec.id);
    let shape = |i: usize| match spec.pluck {
        Some(p) => triangle(i as f64 / (n + 1) as f64, p),
        None => 0.0,
    };
    if let Some(p) = spec.pluck {
        if !(p.position > 0.0 && p.position < 1.0) {
            return Err(ModelError::new(subject, "pluck", "a position strictly between 0 and 1", p.position));
        }
        super::check_finite(&subject, "pluck", p.amplitude)?;
    }
    model.add_anchor(&node(0), &[0.0])?;
    for i in 1..=n {
        model.add_mass(Mass {
            id: node(i),
            mass: lumped.mass,
            position: vec![shape(i)],
            velocity: vec![0.0],
            drag: spec.drag,
        })?;
    }
    model.add_anchor(&node(n + 1), &[0.0])?;
    for i in 0..=n {
        model.add_link(LinkSpec {
            id: None,
            a: &node(i),
            b: &node(i + 1),
            stiffness: lumped.stiffness_x,
            rest_length: None,
            damping: lumped.damping_x,
        })?;
    }
    Ok(())
}

/// Adds a membrane or mesh (see [`MembraneSpec`]). `Physical` elements derive the damping as for
/// a string: `Z = c k` on every link, `c = 2 tau^-1 / omega_(1,1)^2`, where
/// `omega_(1,1)^2 = (4 / m) (k_x sin^2(pi / (2 (W + 1))) + k_y sin^2(pi / (2 (H + 1))))`.
pub fn add_membrane(model: &mut Model, spec: &MembraneSpec) -> Result<(), ModelError> {
    let subject = format!("membrane \"{}\"", spec.id);
    check_count(&subject, "columns", spec.columns)?;
    check_count(&subject, "rows", spec.rows)?;
    check_non_negative(&subject, "drag", spec.drag)?;
    let dim = model.dimension();
    let (w, h) = (spec.columns, spec.rows);
    let lumped = match (spec.elements, dim) {
        (Elements::Physical { .. }, 1) => {
            let height = spec.height.ok_or_else(|| {
                ModelError::new(&subject, "height", "the membrane's height in m (with tension)", "nothing")
            })?;
            check_positive(&subject, "height", height)?;
            lumped_values(&subject, &spec.elements, w, Some((h, height)))?
        }
        (Elements::Physical { .. }, _) => {
            return Err(ModelError::new(
                subject,
                "tension",
                "lumped elements (mass, stiffness, spacing) for a 2D/3D mesh",
                "tension",
            ))
        }
        (Elements::Lumped { .. }, _) => lumped_values(&subject, &spec.elements, w, None)?,
    };
    if let (Elements::Lumped { .. }, Some(height)) = (spec.elements, spec.height) {
        return Err(ModelError::new(
            subject,
            "height",
            "no height with lumped elements (it is set by rows and spacing)",
            height,
        ));
    }
    let spacing = if dim == 1 {
        if let Some(spacing) = spec.spacing {
            return Err(ModelError::new(
                subject,
                "spacing",
                "no spacing in 1D (masses only move transversally)",
                spacing,
            ));
        }
        0.0
    } else {
        let spacing = spec.spacing.ok_or_else(|| {
            ModelError::new(&subject, "spacing", "the grid spacing in m for a 2D/3D mesh", "nothing")
        })?;
        check_positive(&subject, "spacing", spacing)?;
        spacing
    };
    let origin = mesh_origin(&subject, spec, dim)?;
    let node = |i: usize, j: usize| format!("{}.{i}.{j}", spec.id);
    let position = |i: usize, j: usize| {
        let mut p = origin.clone();
        if dim > 1 {
            p[0] += i as f64 * spacing;
            p[1] += j as f64 * spacing;
        }
        p
    };
    let on_rim = |i: usize, j: usize| i == 0 || j == 0 || i == w + 1 || j == h + 1;
    let is_corner = |i: usize, j: usize| (i == 0 || i == w + 1) && (j == 0 || j == h + 1);
    for j in 0..=h + 1 {
        for i in 0..=w + 1 {
            if is_corner(i, j) {
                continue;
            }
            if on_rim(i, j) {
                model.add_anchor(&node(i, j), &position(i, j))?;
            } else {
                model.add_mass(Mass {
                    id: node(i, j),
                    mass: lumped.mass,
                    position: position(i, j),
                    velocity: vec![0.0; dim],
                    drag: spec.drag,
                })?;
            }
        }
    }
    let link = |model: &mut Model, a: String, b: String, stiffness, damping| {
        model.add_link(LinkSpec { id: None, a: &a, b: &b, stiffness, rest_length: None, damping })
    };
    for j in 1..=h {
        for i in 0..=w {
            link(model, node(i, j), node(i + 1, j), lumped.stiffness_x, lumped.damping_x)?;
        }
    }
    for i in 1..=w {
        for j in 0..=h {
            link(model, node(i, j), node(i, j + 1), lumped.stiffness_y, lumped.damping_y)?;
        }
    }
    Ok(())
}

/// The position of node `ID.0.0`: the given origin (2D/3D only) or the coordinate origin.
fn mesh_origin(subject: &str, spec: &MembraneSpec, dim: usize) -> Result<Vec<f64>, ModelError> {
    match &spec.origin {
        None => Ok(vec![0.0; dim]),
        Some(_) if dim == 1 => Err(ModelError::new(
            subject,
            "origin",
            "no origin in 1D (positions are displacements)",
            "an origin",
        )),
        Some(origin) if origin.len() != dim => Err(ModelError::new(
            subject,
            "origin",
            format!("{dim} component(s) for a {dim}D model"),
            format!("{} component(s)", origin.len()),
        )),
        Some(origin) => {
            origin.iter().try_for_each(|&c| super::check_finite(subject, "origin", c))?;
            Ok(origin.clone())
        }
    }
}

/// Adds a chain (see [`ChainSpec`]).
pub fn add_chain(model: &mut Model, spec: &ChainSpec) -> Result<(), ModelError> {
    let subject = format!("chain \"{}\"", spec.id);
    check_count(&subject, "masses", spec.masses)?;
    check_positive(&subject, "link_length", spec.link_length)?;
    check_positive(&subject, "mass", spec.mass)?;
    check_non_negative(&subject, "stiffness", spec.stiffness)?;
    check_non_negative(&subject, "damping", spec.damping)?;
    let start = model.node(&spec.from).ok_or_else(|| {
        ModelError::new(
            &subject,
            "from",
            "the id of a mass or an anchor defined before the chain",
            format!("unknown id \"{}\"", spec.from),
        )
    })?;
    let dim = model.dimension();
    if spec.direction.len() != dim {
        return Err(ModelError::new(
            subject,
            "direction",
            format!("{dim} component(s) for a {dim}D model"),
            format!("{} component(s)", spec.direction.len()),
        ));
    }
    let norm = super::distance(&vec![0.0; dim], &spec.direction);
    if !(norm.is_finite() && norm > 0.0) {
        return Err(ModelError::new(
            subject,
            "direction",
            "a finite, non-zero vector",
            format!("{:?}", spec.direction),
        ));
    }
    let origin = model.node_position(start).to_vec();
    // In 1D a rest length is the signed offset x_b - x_a (positions are coordinates here).
    let link_rest = if dim == 1 { spec.link_length * spec.direction[0] / norm } else { spec.link_length };
    let mut previous = spec.from.clone();
    let mut last_position = origin.clone();
    for i in 1..=spec.masses {
        let id = format!("{}.{i}", spec.id);
        let position: Vec<f64> = origin
            .iter()
            .zip(&spec.direction)
            .map(|(o, d)| o + i as f64 * spec.link_length * d / norm)
            .collect();
        model.add_mass(Mass {
            id: id.clone(),
            mass: spec.mass,
            position: position.clone(),
            velocity: vec![0.0; dim],
            drag: 0.0,
        })?;
        model.add_link(LinkSpec {
            id: None,
            a: &previous,
            b: &id,
            stiffness: spec.stiffness,
            rest_length: Some(link_rest),
            damping: spec.damping,
        })?;
        previous = id;
        last_position = position;
    }
    if let Some(to) = &spec.to {
        // Tied at its initial length: in 1D the signed initial offset, in 2D/3D the distance.
        let rest_length = match model.node(to) {
            Some(node) if dim == 1 => Some(model.node_position(node)[0] - last_position[0]),
            _ => None,
        };
        model.add_link(LinkSpec {
            id: None,
            a: &previous,
            b: to,
            stiffness: spec.stiffness,
            rest_length,
            damping: spec.damping,
        })?;
    }
    Ok(())
}

/// Lumped element values of a uniform string (`membrane: None`) or membrane
/// (`membrane: Some((rows, height))`) with `columns` masses along x.
fn lumped_values(
    subject: &str,
    elements: &Elements,
    columns: usize,
    membrane: Option<(usize, f64)>,
) -> Result<Lumped, ModelError> {
    match *elements {
        Elements::Lumped { mass, stiffness, damping } => {
            check_positive(subject, "mass", mass)?;
            check_non_negative(subject, "stiffness", stiffness)?;
            check_non_negative(subject, "damping", damping)?;
            Ok(Lumped {
                mass,
                stiffness_x: stiffness,
                stiffness_y: stiffness,
                damping_x: damping,
                damping_y: damping,
            })
        }
        Elements::Physical { length, tension, density, decay_time } => {
            check_positive(subject, "length", length)?;
            check_positive(subject, "tension", tension)?;
            check_positive(subject, "density", density)?;
            if let Some(tau) = decay_time {
                check_positive(subject, "decay_time", tau)?;
            }
            let dx = length / (columns + 1) as f64;
            let (mass, stiffness_x, stiffness_y, omega1_sq) = match membrane {
                None => {
                    let (m, k) = (density * dx, tension / dx);
                    (m, k, k, k / m * mode_eigenvalue(1, columns))
                }
                Some((rows, height)) => {
                    let dy = height / (rows + 1) as f64;
                    let (m, kx, ky) = (density * dx * dy, tension * dy / dx, tension * dx / dy);
                    let omega1_sq = (kx * mode_eigenvalue(1, columns) + ky * mode_eigenvalue(1, rows)) / m;
                    (m, kx, ky, omega1_sq)
                }
            };
            // Stiffness-proportional damping Z = c k gives sigma_n = -c omega_n^2 / 2.
            let c = decay_time.map_or(0.0, |tau| 2.0 / (tau * omega1_sq));
            Ok(Lumped {
                mass,
                stiffness_x,
                stiffness_y,
                damping_x: c * stiffness_x,
                damping_y: c * stiffness_y,
            })
        }
    }
}

/// Eigenvalue n (1-based) of the N x N tridiagonal matrix (2, -1): `4 sin^2(n pi / (2 (N + 1)))`.
pub fn mode_eigenvalue(n: usize, masses: usize) -> f64 {
    let s = (n as f64 * PI / (2.0 * (masses + 1) as f64)).sin();
    4.0 * s * s
}

/// Triangle of height `amplitude` peaking at `pluck.position`, zero at 0 and 1.
fn triangle(s: f64, pluck: Pluck) -> f64 {
    if s <= pluck.position {
        pluck.amplitude * s / pluck.position
    } else {
        pluck.amplitude * (1.0 - s) / (1.0 - pluck.position)
    }
}

fn check_count(subject: &str, field: &'static str, n: usize) -> Result<(), ModelError> {
    if n >= 1 {
        Ok(())
    } else {
        Err(ModelError::new(subject, field, "at least 1", n))
    }
}
