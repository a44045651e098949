//! A free bar: a beam with free ends, as in a xylophone, a marimba or a tuning fork's prong
//! (displacements in 1D).

use super::{given, required, undercut, Given};
use crate::model::validate::{check_mass, check_non_negative, check_positive};
use crate::model::{Bending, Damper, Mass, Model, ModelError, Node};
use serde::Deserialize;

/// A free bar (`[[bar]]`): masses `ID.1` .. `ID.N` (no anchors: both ends free), the centres of
/// `N` equal cells, with a bending element `(1, -2, 1)` centred at each inner mass (see
/// [`crate::model::Bending`]). Its elements are given either lumped (`mass`, `bending`) or
/// physical (`length`, `linear_density`, `rigidity`), not both. Physical: with `h = L / N`,
/// `m = rho A h` and `kappa = E I / h^3`, so the bar's modes tend to Euler-Bernoulli's,
/// `w_n = (beta_n L)^2 sqrt(E I / (rho A)) / L^2` with `beta_n L = 4.7300, 7.8532, 10.9956, ...`
/// (Fletcher & Rossing 1998), the error falling as `h^2`. Its losses: a drag on every mass,
/// dampers between neighbours (`damping`) and the bending elements' own damping
/// (`stiffness_damping`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarSpec {
    /// Id prefix of the generated masses.
    pub id: String,
    /// Number of masses N (>= 3).
    pub masses: usize,
    /// Lumped: each mass, kg (> 0).
    pub mass: Option<f64>,
    /// Lumped: each bending element's kappa, N/m (>= 0).
    pub bending: Option<f64>,
    /// Physical: length, m (> 0).
    pub length: Option<f64>,
    /// Physical: mass per unit length rho A, kg/m (> 0).
    pub linear_density: Option<f64>,
    /// Physical: bending rigidity E I, N m^2 (> 0).
    pub rigidity: Option<f64>,
    /// Drag to ground of each mass, 1/s (>= 0): the same decay rate, `drag / 2`, for every mode.
    #[serde(default)]
    pub drag: f64,
    /// Damping Z of a damper between each two neighbouring masses, N s/m (>= 0): a decay rate
    /// that grows in proportion to a mode's frequency, the bar's form of the loss term
    /// `2 sigma_1 u_txx` of Bilbao 2009 (ch. 7).
    #[serde(default)]
    pub damping: f64,
    /// Stiffness-proportional damping `eta`, s (>= 0): each bending element of stiffness `kappa`
    /// damped by `eta kappa` (a Kelvin-Voigt solid, the bar model of Chaigne & Doutaut 1997), so
    /// that with the drag alone besides, the damping is `drag M + eta K` and each mode of the free
    /// bar decays at the rate `(drag + eta w^2) / 2`: growing as its frequency squared, and
    /// keeping the bar's modes uncoupled (classical damping).
    #[serde(default)]
    pub stiffness_damping: f64,
    /// An undercut that gives the bar this ratio of its second mode's frequency to its first
    /// (4: a marimba, 3: a xylophone; from 2.7565 for no cut up to what the deepest cut
    /// reaches), the given elements being those of the uncut bar ([`super::undercut`]); at most
    /// [`MAX_UNDERCUT_MASSES`] masses.
    pub undercut_ratio: Option<f64>,
    /// With `undercut_ratio`: a cut that also gives this ratio of the third mode's frequency to
    /// the first (about 10 on a concert marimba; [`super::undercut`]).
    pub undercut_third: Option<f64>,
}

/// The most masses an undercut bar may have (its depth is searched on dense eigenvalue
/// problems of this size).
pub const MAX_UNDERCUT_MASSES: usize = 400;

impl BarSpec {
    /// A bar of `masses` masses; give its elements with [`BarSpec::mass`] and
    /// [`BarSpec::bending`], or with [`BarSpec::length`], [`BarSpec::linear_density`] and
    /// [`BarSpec::rigidity`].
    pub fn new(id: impl Into<String>, masses: usize) -> Self {
        Self { id: id.into(), masses, ..Self::default() }
    }

    setters! {
        /// Lumped: sets each mass, kg.
        some mass(mass: f64) => mass;
        /// Lumped: sets each bending element's kappa, N/m.
        some bending(kappa: f64) => bending;
        /// Physical: sets the length, m.
        some length(length: f64) => length;
        /// Physical: sets the mass per unit length, kg/m.
        some linear_density(density: f64) => linear_density;
        /// Physical: sets the bending rigidity E I, N m^2.
        some rigidity(rigidity: f64) => rigidity;
        /// Sets each mass's drag to ground, 1/s.
        set drag(gamma: f64) => drag;
        /// Sets the damping between neighbouring masses, N s/m.
        set damping(damping: f64) => damping;
        /// Sets the bending elements' damping over their stiffness, s.
        set stiffness_damping(eta: f64) => stiffness_damping;
        /// Undercuts the bar for the ratio `f_2 / f_1`.
        some undercut_ratio(ratio: f64) => undercut_ratio;
        /// With [`BarSpec::undercut_ratio`], undercuts it for the ratio `f_3 / f_1` too.
        some undercut_third(ratio: f64) => undercut_third;
    }
}

impl Model {
    /// Adds a free bar (see [`BarSpec`]) to a 1D model; returns its masses from `ID.1` to `ID.N`.
    pub fn add_bar(&mut self, spec: BarSpec) -> Result<Vec<Node>, ModelError> {
        let subject = format!("bar \"{}\"", spec.id);
        self.check_one_dimensional(&subject, "a bar's masses move across it")?;
        if spec.masses < 3 {
            return Err(ModelError::new(
                subject,
                "masses",
                "at least 3 (a bar bends over three masses)",
                spec.masses,
            ));
        }
        self.check_room(&subject, "masses", Some(spec.masses), format!("{} masses", spec.masses))?;
        check_non_negative(&subject, "drag", spec.drag)?;
        check_non_negative(&subject, "damping", spec.damping)?;
        check_non_negative(&subject, "stiffness_damping", spec.stiffness_damping)?;
        let (mass, kappa) = bar_elements(&subject, &spec)?;
        let thickness = match (spec.undercut_ratio, spec.undercut_third) {
            (Some(ratio), third) => undercut_thickness(&subject, spec.masses, ratio, third)?,
            (None, Some(_)) => {
                return Err(ModelError::new(
                    subject,
                    "undercut_third",
                    "`undercut_ratio` with it (the second mode's ratio)",
                    "none",
                ))
            }
            (None, None) => vec![1.0; spec.masses],
        };
        let mut nodes = Vec::with_capacity(spec.masses);
        for (i, tau) in thickness.iter().enumerate() {
            let id = format!("{}.{}", spec.id, i + 1);
            nodes.push(self.add_mass(Mass::new(id, tau * mass).drag(spec.drag))?);
        }
        for (triple, tau) in nodes.windows(3).zip(&thickness[1..]) {
            let kappa = tau.powi(3) * kappa;
            let element = Bending::new(triple[0], triple[1], triple[2], kappa);
            self.add_bending(element.damping(spec.stiffness_damping * kappa))?;
        }
        if spec.damping > 0.0 {
            for pair in nodes.windows(2) {
                self.add_damper(Damper::new(pair[0], pair[1], spec.damping))?;
            }
        }
        Ok(nodes)
    }
}

/// Each cell's relative thickness for an undercut giving `f_2 / f_1 = ratio` (and `f_3 / f_1 =
/// third` where given).
fn undercut_thickness(
    subject: &str,
    masses: usize,
    ratio: f64,
    third: Option<f64>,
) -> Result<Vec<f64>, ModelError> {
    check_positive(subject, "undercut_ratio", ratio)?;
    if !(6..=MAX_UNDERCUT_MASSES).contains(&masses) {
        return Err(ModelError::new(
            subject,
            "masses",
            format!("6 to {MAX_UNDERCUT_MASSES} masses for an undercut bar"),
            masses,
        ));
    }
    if let Some(third) = third {
        check_positive(subject, "undercut_third", third)?;
        let (depth, relief) = undercut::cut_for_ratios(masses, ratio, third).map_err(|reached| {
            ModelError::new(
                subject,
                "undercut_third",
                format!(
                    "ratios a cut with a relief reaches with `undercut_ratio` {ratio} on {masses} masses \
                     (the nearest found: {:.4} and {:.4})",
                    reached[0], reached[1]
                ),
                third,
            )
        })?;
        return Ok(undercut::thickness(masses, depth, relief));
    }
    let depth = undercut::depth_for_ratio(masses, ratio).map_err(|(lowest, highest)| {
        ModelError::new(
            subject,
            "undercut_ratio",
            format!(
                "a ratio this bar's undercut reaches, {lowest:.4} (no cut) to {highest:.4} (the deepest)"
            ),
            ratio,
        )
    })?;
    Ok(undercut::thickness(masses, depth, 0.0))
}

/// Each mass (kg) and each element's kappa (N/m) of a bar, from its lumped or physical fields.
fn bar_elements(subject: &str, spec: &BarSpec) -> Result<(f64, f64), ModelError> {
    let lumped = [("mass", spec.mass), ("bending", spec.bending)];
    let physical =
        [("length", spec.length), ("linear_density", spec.linear_density), ("rigidity", spec.rigidity)];
    match given(subject, &lumped, &physical)? {
        Given::Lumped => {
            let (mass, kappa) = (required(subject, lumped[0], "kg")?, required(subject, lumped[1], "N/m")?);
            check_mass(subject, "mass", mass)?;
            check_non_negative(subject, "bending", kappa)?;
            Ok((mass, kappa))
        }
        Given::Physical => {
            let length = required(subject, physical[0], "m")?;
            let density = required(subject, physical[1], "kg/m")?;
            let rigidity = required(subject, physical[2], "N m^2")?;
            check_positive(subject, "length", length)?;
            check_positive(subject, "linear_density", density)?;
            check_positive(subject, "rigidity", rigidity)?;
            let h = length / spec.masses as f64;
            Ok((density * h, rigidity / h.powi(3)))
        }
    }
}
