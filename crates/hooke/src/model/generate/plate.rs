//! A thin rectangular plate, simply supported on its rim (displacements in 1D, across it).

use crate::model::validate::{check_non_negative, check_positive};
use crate::model::{Anchor, Bending, Damper, Mass, Model, ModelError, Node};
use serde::Deserialize;

/// A simply supported plate (`[[plate]]`): `columns x rows` masses `ID.i.j` (`i` along x from 1, `j` along y
/// from 1) on a square lattice of `spacing`, and a rim of anchors `ID.rim.i.j` around them (no
/// corners), so the plate measures `(columns + 1) spacing` by `(rows + 1) spacing`.
///
/// Each mass is `rho h spacing^2` and carries a bending element on the five-point Laplacian
/// (weights `-4, 1, 1, 1, 1`) of `kappa = D / spacing^2`: the discrete form of Kirchhoff's
/// bending energy `D/2 (laplacian w)^2` per area. With the rim held (`w = 0` and, the elements
/// reaching it, `laplacian w = 0` there) the modes are the sines of a simply supported plate,
/// `f_pq` proportional to `(p / a)^2 + (q / b)^2` (Fletcher & Rossing 1998, ch. 3), to the
/// lattice's dispersion. Losses: a drag on every mass, the same rate for every mode, and a
/// damper on every lattice edge (rim edges included), whose rate grows with a mode's Laplacian
/// eigenvalue, so in proportion to its frequency.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlateSpec {
    /// Id prefix of the generated masses and anchors.
    pub id: String,
    /// Masses along x (>= 2).
    pub columns: usize,
    /// Masses along y (>= 2).
    pub rows: usize,
    /// The lattice's spacing, m (> 0).
    pub spacing: f64,
    /// Mass per unit area `rho h`, kg/m^2 (> 0).
    pub surface_density: f64,
    /// Bending rigidity `D = E h^3 / (12 (1 - nu^2))`, N m (> 0).
    pub rigidity: f64,
    /// Drag to ground of each mass, 1/s (>= 0).
    #[serde(default)]
    pub drag: f64,
    /// Damping of the damper on each lattice edge, N s/m (>= 0; 0: no dampers).
    #[serde(default)]
    pub damping: f64,
}

impl PlateSpec {
    /// Each mass, kg: `rho h spacing^2`.
    pub fn mass(&self) -> f64 {
        self.surface_density * self.spacing * self.spacing
    }

    /// Each bending element's kappa, N/m: `D / spacing^2`.
    pub fn bending(&self) -> f64 {
        self.rigidity / (self.spacing * self.spacing)
    }
}

impl Model {
    /// Adds a simply supported plate (see [`PlateSpec`]) to a 1D model; returns its masses row by
    /// row (`j * columns + i` for the mass `ID.(i+1).(j+1)`).
    pub fn add_plate(&mut self, spec: &PlateSpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("plate \"{}\"", spec.id);
        self.check_one_dimensional(&subject, "a plate's masses move across it")?;
        for (field, count) in [("columns", spec.columns), ("rows", spec.rows)] {
            if count < 2 {
                return Err(ModelError::new(&subject, field, "at least 2 masses", count));
            }
        }
        let (columns, rows) = (spec.columns, spec.rows);
        let rim = columns.checked_add(rows).and_then(|n| n.checked_mul(2));
        let count = columns.checked_mul(rows).zip(rim).and_then(|(inner, rim)| inner.checked_add(rim));
        self.check_room(&subject, "columns", count, format!("{columns} x {rows} masses and their rim"))?;
        check_positive(&subject, "spacing", spec.spacing)?;
        check_positive(&subject, "surface_density", spec.surface_density)?;
        check_positive(&subject, "rigidity", spec.rigidity)?;
        check_non_negative(&subject, "drag", spec.drag)?;
        check_non_negative(&subject, "damping", spec.damping)?;
        let (mass, kappa) = (spec.mass(), spec.bending());
        if !(mass > 0.0 && kappa > 0.0 && kappa.is_finite()) {
            let expected =
                format!("a spacing giving masses > 0 kg and bending < inf N/m; found {mass} kg, {kappa} N/m");
            return Err(ModelError::new(&subject, "spacing", expected, spec.spacing));
        }
        // Row by row, so that the masses' model indices follow the grid's order.
        let mut node = vec![vec![None; rows + 2]; columns + 2];
        for j in 0..rows + 2 {
            for i in 0..columns + 2 {
                let on_rim_x = i == 0 || i == columns + 1;
                let on_rim_y = j == 0 || j == rows + 1;
                node[i][j] = match (on_rim_x, on_rim_y) {
                    (true, true) => None,
                    (false, false) => {
                        let id = format!("{}.{i}.{j}", spec.id);
                        Some(self.add_mass(Mass::new(id, mass).drag(spec.drag))?)
                    }
                    _ => Some(self.add_anchor(Anchor::new(format!("{}.rim.{i}.{j}", spec.id)))?),
                };
            }
        }
        let at = |i: usize, j: usize| node[i][j].expect("a mass or a rim anchor");
        let mut masses = Vec::with_capacity(columns * rows);
        for j in 1..=rows {
            for i in 1..=columns {
                masses.push(at(i, j));
                let stencil = [at(i, j), at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1)];
                let weights = vec![-4.0, 1.0, 1.0, 1.0, 1.0];
                self.add_bending(Bending::weighted(stencil.map(Into::into).to_vec(), weights, kappa))?;
            }
        }
        if spec.damping > 0.0 {
            for j in 1..=rows {
                for i in 0..=columns {
                    self.add_damper(Damper::new(at(i, j), at(i + 1, j), spec.damping))?;
                }
            }
            for i in 1..=columns {
                for j in 0..=rows {
                    self.add_damper(Damper::new(at(i, j), at(i, j + 1), spec.damping))?;
                }
            }
        }
        Ok(masses)
    }
}
