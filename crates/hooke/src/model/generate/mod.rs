//! Generators: a string ([`Model::add_string`]), a membrane or mesh with a fixed rim
//! ([`Model::add_membrane`]), a chain ([`Model::add_chain`]), a free bar ([`Model::add_bar`]), a
//! body given by its modes at a bridge ([`Model::add_body`]), a simply supported plate
//! ([`Model::add_plate`]).
//! Each adds ordinary masses, anchors, links and bending elements with predictable ids, so
//! pickups and initial conditions can name them, and returns the handles of the masses it made.
//!
//! A string's or membrane's elements are given either directly ("lumped": `mass`, `stiffness`,
//! `damping`) or from the continuous body ("physical": length, tension, density and a decay
//! time), never both; this module turns either into the values of each element.

mod bar;
mod body;
mod body_chain;
mod chain;
mod membrane;
mod plate;
mod string;
mod undercut;

pub use bar::{BarSpec, MAX_UNDERCUT_MASSES};
pub use body::{nearest_decay_times, BodyMode, BodySpec, MAX_BODY_MODES};
pub use chain::ChainSpec;
pub use membrane::MembraneSpec;
pub use plate::PlateSpec;
pub use string::{Pluck, StringSpec};
pub use undercut::{MAX_UNDERCUT_DEPTH, UNDERCUT_WIDTH};

use super::validate::{check_mass, check_non_negative, check_positive};
use super::ModelError;
use std::f64::consts::PI;

/// How a string's or membrane's elements are given, once checked that only one way is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Elements {
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

/// The element values of a field group, by field name (`("mass", spec.mass)`).
type Group = [(&'static str, Option<f64>)];

/// Which of a spec's two ways of giving its elements a file or program used.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Given {
    Lumped,
    Physical,
}

/// Which group of fields is given, the lumped or the physical one, never both and not neither:
/// errors name the fields as the spec does.
fn given(subject: &str, lumped: &Group, physical: &Group) -> Result<Given, ModelError> {
    let first = |fields: &Group| fields.iter().find(|(_, f)| f.is_some()).map(|(n, _)| *n);
    let names = |fields: &Group| fields.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("/");
    match (first(lumped), first(physical)) {
        (Some(_), Some(extra)) => Err(ModelError::new(
            subject,
            extra,
            format!("either {} or {}, not both", names(lumped), names(physical)),
            format!("both, including `{extra}`"),
        )),
        (None, None) => Err(ModelError::new(
            subject,
            "masses",
            format!("element values: {} or {}", names(lumped), names(physical)),
            "neither",
        )),
        (Some(_), None) => Ok(Given::Lumped),
        (None, Some(_)) => Ok(Given::Physical),
    }
}

/// The value of a field the given group needs, or an error naming it with its `unit`.
fn required(
    subject: &str,
    (name, value): (&'static str, Option<f64>),
    unit: &str,
) -> Result<f64, ModelError> {
    value.ok_or_else(|| ModelError::new(subject, name, format!("`{name}` ({unit})"), "nothing"))
}

/// Either the lumped fields (mass, stiffness, damping) or the physical fields (length, tension,
/// density, decay time), never both: errors name the fields as the spec does.
fn elements(subject: &str, lumped: &Group, physical: &Group) -> Result<Elements, ModelError> {
    Ok(match given(subject, lumped, physical)? {
        Given::Lumped => Elements::Lumped {
            mass: required(subject, lumped[0], "kg")?,
            stiffness: required(subject, lumped[1], "N/m")?,
            damping: lumped[2].1.unwrap_or(0.0),
        },
        Given::Physical => Elements::Physical {
            length: required(subject, physical[0], "m")?,
            tension: required(subject, physical[1], "N or N/m")?,
            density: required(subject, physical[2], "kg/m or kg/m^2")?,
            decay_time: physical[3].1,
        },
    })
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

/// Lumped element values of a uniform string (`membrane: None`) or membrane
/// (`membrane: Some((rows, height))`) with `columns` masses along x. `physical` names the
/// length, tension and density fields in errors.
///
/// `Physical` elements: with `dx = L / (N + 1)`, `m = rho dx`, `k = T / dx` (a membrane:
/// `m = rho dx dy`, `k_x = T dy / dx`, `k_y = T dx / dy`). The decay uses dampers on the springs,
/// `Z = c k` (the string of Morgan & Qiao 2009, section 4.3; corrected: see docs/errata.md),
/// whose modes decay at `sigma_n = -c omega_n^2 / 2`; `c` is chosen so the lowest mode's analog
/// time constant is the decay time.
fn lumped_values(
    subject: &str,
    elements: &Elements,
    columns: usize,
    membrane: Option<(usize, f64)>,
    physical: [&'static str; 3],
) -> Result<Lumped, ModelError> {
    match *elements {
        Elements::Lumped { mass, stiffness, damping } => {
            check_mass(subject, "mass", mass)?;
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
            check_positive(subject, physical[0], length)?;
            check_positive(subject, physical[1], tension)?;
            check_positive(subject, physical[2], density)?;
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
fn mode_eigenvalue(n: usize, masses: usize) -> f64 {
    let s = (n as f64 * PI / (2.0 * (masses + 1) as f64)).sin();
    4.0 * s * s
}
