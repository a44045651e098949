//! The structure of a system that the fast paths need, found once by the analysis: the 1D
//! strings it is made of (`string_paths`: the string bank's), the bending centred on their
//! masses, and the uniform strings or uniform membrane it is (`Lattices`: the modal kernel's,
//! each part's sine modes and per-mode oscillator). The coupled modal path's parts and their
//! couplings are `analysis::parts`'; the stencils' uniform chain and membrane are their
//! kernels' own detectors (`UniformChain::detect`, `UniformGrid::detect`).

use crate::analysis::discrete::{mode_steps, Oscillator};
use crate::analysis::error::AnalysisError;
use crate::kernel::chain::UniformChain;
use crate::kernel::grid::UniformGrid;
use crate::kernel::modal::{ModeStep, SineModes};
use crate::scheme::SchemeKind;
use crate::system::System;

/// Masses along a side at most: the sine tables take `8 side^2` bytes a side and a change of
/// state `O(W H (W + H))` operations, so longer strings and larger membranes run elsewhere.
const MAX_SIDE: usize = 2048;

/// A uniform string or membrane as the modal kernel sees it: its sides, its mass, the stiffness
/// and damping of its links along each side and its bending, SI units.
pub(crate) struct Lattice {
    pub(crate) columns: usize,
    pub(crate) rows: usize,
    /// Each mass, kg.
    pub(crate) mass: f64,
    /// Each link along x and along y, N/m.
    pub(crate) stiffness: [f64; 2],
    /// Each link's damper along x and along y, N s/m.
    pub(crate) damping: [f64; 2],
    /// Each mass's drag `gamma m`, N s/m.
    pub(crate) drag: f64,
    /// A string's bending `kappa` at every mass (a `(1, -2, 1)` element), N/m.
    pub(crate) bending: f64,
    /// The constant force on each mass (anchors off zero, gravity), N.
    pub(crate) constant: Vec<f64>,
}

impl Lattice {
    /// Mode `mode`'s oscillator: `w0^2 = (k_x mu_p + k_y mu_q + kappa mu_p^2) / m`,
    /// `gamma = (Z_x mu_p + Z_y mu_q + c) / m`, the bending being the square of the string's
    /// second difference.
    pub(crate) fn oscillator(&self, modes: &SineModes, mode: usize) -> Oscillator {
        let (mu_x, mu_y) = modes.eigenvalues(mode);
        let stiffness = self.stiffness[0] * mu_x + self.stiffness[1] * mu_y + self.bending * mu_x * mu_x;
        let damping = self.damping[0] * mu_x + self.damping[1] * mu_y + self.drag;
        Oscillator { gamma: damping / self.mass, omega0_squared: stiffness / self.mass }
    }

    /// The sides along which a link between masses `a` and `b` (an anchor: `None`) lies: x
    /// between neighbours in a row, y between rows, both (which must agree) for a membrane's
    /// rim link.
    pub(crate) fn sides(&self, a: Option<usize>, b: Option<usize>) -> &'static [usize] {
        match (a, b) {
            (Some(a), Some(b)) if a.abs_diff(b) == self.columns && self.rows > 1 => &[1],
            (Some(a), Some(b)) if a.abs_diff(b) == 1 => &[0],
            _ if self.rows == 1 => &[0],
            _ => &[0, 1],
        }
    }
}

/// The uniform strings or the uniform membrane a system is, side by side in the order of their
/// masses.
pub(crate) struct Lattices {
    pub(crate) parts: Vec<Lattice>,
    /// Each part's first mass, then the number of masses.
    pub(crate) first: Vec<usize>,
}

impl Lattices {
    /// The uniform membrane ([`UniformGrid::detect`]) or the uniform strings (see
    /// [`Lattices::strings`]) `system` is, if it is one, with at most [`MAX_SIDE`] masses a side.
    pub(crate) fn detect(system: &System) -> Option<Self> {
        let parts = match UniformGrid::detect(system) {
            Some(grid) => vec![Lattice {
                columns: grid.columns,
                rows: grid.rows,
                mass: grid.mass,
                stiffness: [grid.stiffness_x, grid.stiffness_y],
                damping: [grid.damping_x, grid.damping_y],
                drag: grid.drag,
                bending: 0.0,
                constant: vec![grid.force; grid.columns * grid.rows],
            }],
            None => Self::strings(system)?,
        };
        if parts.iter().any(|part| part.columns > MAX_SIDE || part.rows > MAX_SIDE) {
            return None;
        }
        let mut first = vec![0];
        for part in &parts {
            first.push(first[first.len() - 1] + part.columns * part.rows);
        }
        Some(Self { parts, first })
    }

    /// The strings of a 1D system made only of strings ([`string_paths`]), if each is uniform:
    /// its masses numbered in turn along it, equal masses, drags and gravity, equal spring links
    /// (rest length 0), a damper on every link or on none (all equal), and bending elements
    /// centred at every mass with one `kappa` or at none; no angular spring, contact or driving
    /// force. Held forces are allowed (the kernel holds them).
    fn strings(system: &System) -> Option<Vec<Lattice>> {
        let (springs, dampers) = (system.springs(), system.dampers());
        if system.dimension() != 1
            || system.has_contacts()
            || !system.angles().is_empty()
            || system.external_forces().drives()
            || springs.rest_length.iter().any(|&l| l != 0.0)
        {
            return None;
        }
        let paths = string_paths(system)?;
        let bending = centred_bending(system, &paths)?;
        let anchors = system.initial_state().x;
        let (mut links, mut damped, mut next) = (0, 0, 0);
        let mut parts = Vec::with_capacity(paths.len());
        for path in &paths {
            let masses = &path[1..path.len() - 1];
            let n = masses.len();
            if masses.iter().enumerate().any(|(i, &m)| m != next + i) {
                return None;
            }
            next += n;
            let link = |pair: &[usize]| {
                let spring = system.spring_between(pair[0], pair[1])?;
                let damper = system.damper_between(pair[0], pair[1]);
                Some((springs.coefficient[spring], damper.map(|d| dampers.coefficient[d])))
            };
            let first = link(&path[..2])?;
            for pair in path.windows(2) {
                if link(pair)? != first {
                    return None;
                }
            }
            links += n + 1;
            damped += if first.1.is_some() { n + 1 } else { 0 };
            let uniform = |values: &[f64]| match values {
                [] => Some(0.0),
                _ => masses.iter().all(|&m| values[m] == values[masses[0]]).then_some(values[masses[0]]),
            };
            let (stiffness, kappa) = (first.0, uniform(&bending)?);
            let ends = [anchors[path[0]], anchors[path[n + 1]]];
            parts.push(Lattice {
                columns: n,
                rows: 1,
                mass: uniform(system.masses())?,
                stiffness: [stiffness, 0.0],
                damping: [first.1.unwrap_or(0.0), 0.0],
                drag: uniform(system.drag())?,
                bending: kappa,
                constant: string_constant(n, uniform(system.gravity_force())?, stiffness, kappa, ends),
            });
        }
        (links == springs.len() && damped == dampers.len()).then_some(parts)
    }

    /// The part holding mass `mass`, if any.
    pub(crate) fn part_of(&self, mass: usize) -> Option<usize> {
        let part = self.first.partition_point(|&first| first <= mass).checked_sub(1)?;
        (part + 1 < self.first.len()).then_some(part)
    }

    /// The part holding mass `mass` and the mass's index in it.
    pub(crate) fn locate(&self, mass: usize) -> Option<(&Lattice, usize)> {
        let part = self.part_of(mass)?;
        Some((&self.parts[part], mass - self.first[part]))
    }
}

/// A uniform chain's modes as the modal path runs them: `scheme`'s step `dt` (s) on each sine
/// mode (`SineModes::new(n, 1)`, mode `p` the oscillator [`Lattice::oscillator`] gives), and
/// each mode's share of the constant forces (N: gravity, and the end springs' pull towards
/// anchors off zero). For kernels outside the engine that step the same modes (the GPU's).
pub fn chain_mode_steps(
    chain: &UniformChain,
    scheme: SchemeKind,
    dt: f64,
) -> Result<(Vec<ModeStep>, Vec<f64>), AnalysisError> {
    let n = chain.masses;
    let lattice = Lattice {
        columns: n,
        rows: 1,
        mass: chain.mass,
        stiffness: [chain.stiffness, 0.0],
        damping: [chain.damping, 0.0],
        drag: chain.drag,
        bending: 0.0,
        constant: string_constant(n, chain.force, chain.stiffness, 0.0, [chain.left, chain.right]),
    };
    let modes = SineModes::new(n, 1);
    let oscillators: Vec<Oscillator> = (0..n).map(|p| lattice.oscillator(&modes, p)).collect();
    let steps = mode_steps(scheme, &oscillators, &vec![chain.mass; n], dt)?;
    let mut shares = vec![0.0; n];
    modes.transform(&lattice.constant, &mut shares);
    Ok((steps, shares))
}

/// The constant force on each of the `n` masses of a string (N): `gravity` on each, the end
/// springs' pull `k a` towards anchors at `ends = [a_0, a_1]` (m), and the bending's
/// `kappa L e`, `e` holding the anchors' positions at the ends (the curvature at the first mass
/// is `a_0 - 2 x_0 + x_1`, so the bending energy `kappa |e - L x|^2 / 2` has the force
/// `kappa L e - kappa L^2 x`).
fn string_constant(n: usize, gravity: f64, stiffness: f64, kappa: f64, ends: [f64; 2]) -> Vec<f64> {
    let mut e = vec![0.0; n];
    e[0] += ends[0];
    e[n - 1] += ends[1];
    (0..n)
        .map(|i| {
            let neighbours = if i > 0 { e[i - 1] } else { 0.0 } + e.get(i + 1).copied().unwrap_or(0.0);
            gravity + stiffness * e[i] + kappa * (2.0 * e[i] - neighbours)
        })
        .collect()
}

/// The kappa (N/m) of the bending centred at each mass of `strings` (0 where none; several
/// elements on one mass add up), if every bending element of `system` is a `(1, -2, 1)` on a
/// mass and its two neighbours along its string, undamped; `None` otherwise.
pub(crate) fn centred_bending(system: &System, strings: &[Vec<usize>]) -> Option<Vec<f64>> {
    let masses = system.mass_count();
    let bendings = system.bendings();
    let mut kappa = vec![0.0; masses];
    let mut neighbours = vec![(usize::MAX, usize::MAX); masses];
    for path in strings {
        for triple in path.windows(3) {
            neighbours[triple[1]] = (triple[0], triple[2]);
        }
    }
    for e in 0..bendings.len() {
        let entries = bendings.entries(e);
        if bendings.weight[entries.clone()] != [1.0, -2.0, 1.0] || bendings.damping[e] != 0.0 {
            return None;
        }
        let [a, b, c] = [0, 1, 2].map(|i| bendings.node[entries.start + i] as usize);
        if b >= masses || (neighbours[b] != (a, c) && neighbours[b] != (c, a)) {
            return None;
        }
        kappa[b] += bendings.stiffness[e];
    }
    Some(kappa)
}

/// The strings of a 1D system whose every mass lies on exactly one path of springs from an
/// anchor to an anchor (two springs per mass): each as its node path, first anchor, masses,
/// last anchor, oriented so that its masses come in increasing order, and the strings in the
/// order of their first masses (the order the string generator builds them in). `None` if the
/// system is not made of such strings.
pub(crate) fn string_paths(system: &System) -> Option<Vec<Vec<usize>>> {
    let masses = system.mass_count();
    // A mode damping couples every mass of its string: no stencil runs it.
    if system.dimension() != 1 || masses == 0 || system.has_mode_damping() {
        return None;
    }
    let springs = system.springs();
    let mut neighbours = vec![Vec::with_capacity(2); masses];
    for (&a, &b) in springs.a.iter().zip(&springs.b) {
        let (a, b) = (a as usize, b as usize);
        for (from, to) in [(a, b), (b, a)] {
            if from < masses {
                neighbours[from].push(to);
            }
        }
    }
    if neighbours.iter().any(|n| n.len() != 2) {
        return None;
    }
    let mut on_string = vec![false; masses];
    let mut strings = Vec::new();
    for first in 0..masses {
        if on_string[first] {
            continue;
        }
        // Walk from `first` away from `towards` until an anchor; the nodes met, in order.
        let walk = |towards: usize| -> Option<Vec<usize>> {
            let (mut previous, mut node, mut nodes) = (first, towards, vec![]);
            while node < masses {
                nodes.push(node);
                if nodes.len() > masses {
                    return None;
                }
                let next =
                    if neighbours[node][0] == previous { neighbours[node][1] } else { neighbours[node][0] };
                (previous, node) = (node, next);
            }
            nodes.push(node);
            Some(nodes)
        };
        let mut left = walk(neighbours[first][0])?;
        let right = walk(neighbours[first][1])?;
        left.reverse();
        let mut path: Vec<usize> = left.into_iter().chain(std::iter::once(first)).chain(right).collect();
        if path.len() > 3 && path[1] > path[path.len() - 2] {
            path.reverse();
        }
        for &node in &path[1..path.len() - 1] {
            if on_string[node] {
                return None;
            }
            on_string[node] = true;
        }
        strings.push(path);
    }
    Some(strings)
}
