//! A linear network split into parts that run in their own modes, for the coupled modal path
//! (`engine::stage::parts`): the strings of a guitar or a piano on their bridge and body, the
//! bars of a marimba, the plates of a peal.
//!
//! Component mode synthesis (the Craig-Bampton family: each part in its fixed-interface modes,
//! coupled through the coordinates it shares) in the form that keeps an explicit scheme's step
//! exact: the network's mass coordinates are split into
//!
//! - **parts**, each advanced in the undamped modes `Phi` of a reference `(K_0, C_0)` that its
//!   modes diagonalise together (`Phi^T M Phi = I`, `Phi^T K_0 Phi = W^2`, `Phi^T C_0 Phi =
//!   Gamma`, all diagonal): the part's own matrices where its damping is modal, or for a string
//!   whose few masses differ from a uniform string (a fret's stop, the bending across it) the
//!   uniform string `K_0 = k L + kappa L^2`, `C_0 = Z L + gamma m I` (`L` the second difference
//!   with fixed ends);
//! - **direct** masses, stepped as masses: the hubs (a bridge that many parts share) and small
//!   pieces whose damping is not modal (a body realised as a chain);
//!
//! and every entry of `K` and `C` that no part's reference holds (between parts, to a direct
//! mass, a part's deviation `K - K_0`) acts as an explicit force on the few coordinates it
//! touches, read from the modes every step. Symplectic Euler takes every force from the state at
//! the step's start, so the split step is the network's to rounding.

use super::discrete::Oscillator;
use crate::linalg::eigen::symmetric_eigen;
use crate::linalg::Assemble;
use crate::model::sine_modes;
use crate::system::System;
use faer::Mat;

/// The most masses in a part (its modes take `8 n^2` bytes and `O(n^3)` to find).
pub const MAX_PART: usize = 1024;
/// The most work the split's modes may take, as the sum of `n^3` over the pieces whose modes it
/// looks for (about a second; the shapes then take at most `8 sum n^2` bytes, 128 MB): beyond,
/// the network runs elsewhere.
const MAX_WORK: f64 = 4e9;
/// The most masses of a non-modal piece stepped directly.
const MAX_DIRECT_PIECE: usize = 64;
/// The most coordinates of a string touched by its deviation from the uniform string.
const MAX_TOUCHED: usize = 8;
/// Entries of `Phi^T K_0 Phi` and `Phi^T C_0 Phi` off the diagonal up to this fraction of the
/// largest on it count as rounding; larger ones mean the damping is not modal.
const OFF_DIAGONAL: f64 = 1e-11;

/// The asymmetry of `K~ C~`, relative to `n |K~| |C~|`, up to which two matrices count as
/// commuting: rounding is about 1e-16 of it; pieces whose damping is not modal reach 1e-3 and
/// more.
const COMMUTING: f64 = 1e-10;

/// Differences between a part's matrices and its reference up to this fraction of the
/// reference's largest entry are the rounding of their sums (`k + k` against `2 k`).
pub const ROUNDING: f64 = 1e-14;

/// The rows of a sparse square matrix: for each row, its `(column, value)` entries by column.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows(pub Vec<Vec<(usize, f64)>>);

impl Rows {
    /// Entry `(i, j)` (0 where none).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let row = &self.0[i];
        row.binary_search_by_key(&j, |e| e.0).map_or(0.0, |at| row[at].1)
    }
}

/// Entries gathered from `forces`' assembly, those of anchors dropped.
struct Triplets {
    size: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl Assemble for Triplets {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        if row < self.size && col < self.size {
            self.entries.push((row, col, value));
        }
    }
}

impl Triplets {
    /// The rows, duplicates summed and zeros dropped.
    fn rows(mut self) -> Rows {
        self.entries.sort_unstable_by_key(|&(r, c, _)| (r, c));
        let mut rows = vec![Vec::new(); self.size];
        for (r, c, value) in self.entries {
            let row: &mut Vec<(usize, f64)> = &mut rows[r];
            match row.last_mut() {
                Some(last) if last.0 == c => last.1 += value,
                _ => row.push((c, value)),
            }
        }
        rows.iter_mut().for_each(|row| row.retain(|e| e.1 != 0.0));
        Rows(rows)
    }
}

/// Entries added into the existing entries of some rows ([`Network::refresh`]).
struct InPlace<'a> {
    rows: &'a mut Rows,
    /// The rows set, ascending.
    masses: &'a [usize],
    /// Whether every entry had its place.
    in_place: bool,
}

impl Assemble for InPlace<'_> {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        if self.masses.binary_search(&row).is_err() || col >= self.rows.0.len() {
            return;
        }
        let entries = &mut self.rows.0[row];
        match entries.binary_search_by_key(&col, |e| e.0) {
            Ok(at) => entries[at].1 += value,
            Err(_) => self.in_place &= value == 0.0,
        }
    }
}

/// A 1D linear network as matrices over its masses: `M`, `K` and `C` (`F = F_0 - K x - C v`).
#[derive(Debug, Clone)]
pub struct Network {
    /// Each mass, kg.
    pub mass: Vec<f64>,
    /// The stiffness `K` (springs and bending), N/m.
    pub stiffness: Rows,
    /// The damping `C` (dampers, drag and mode dampings), N s/m.
    pub damping: Rows,
    /// The mode dampings' share of `C` alone, N s/m.
    pub mode_damping: Rows,
}

impl Network {
    /// The matrices of `system` if its forces are linear in the state: 1D, springs of rest
    /// length 0, bending elements, dampers, drag, gravity and held forces; no angular spring,
    /// contact or driving force.
    pub fn new(system: &System) -> Option<Self> {
        let linear = system.dimension() == 1
            && system.angles().is_empty()
            && !system.has_contacts()
            && !system.external_forces().drives()
            && system.springs().rest_length.iter().all(|&l| l == 0.0);
        if !linear || system.mass_count() == 0 {
            return None;
        }
        let size = system.mass_count();
        let x = system.initial_state().x;
        let mut stiffness = Triplets { size, entries: Vec::new() };
        crate::forces::add_stiffness(system, &x, 1.0, &mut stiffness);
        let mut damping = Triplets { size, entries: Vec::new() };
        crate::forces::add_damping_matrix(system, &x, 1.0, &mut damping);
        let mut mode_damping = Triplets { size, entries: Vec::new() };
        crate::forces::add_mode_damping_matrix(system, 1.0, &mut mode_damping);
        let (stiffness, damping, mode_damping) = (stiffness.rows(), damping.rows(), mode_damping.rows());
        Some(Self { mass: system.masses().to_vec(), stiffness, damping, mode_damping })
    }

    /// Sets the rows of `masses` (ascending) to `system`'s values now, in place: their entries
    /// kept where they are, none added (`x` the masses' positions, any: the network is linear).
    /// `false` where `system` has an entry the rows have no room for (a link made where there
    /// was none), the rows then half set.
    pub fn refresh(&mut self, system: &System, masses: &[usize], x: &[f64]) -> bool {
        let mut all_in_place = true;
        let mut refresh = |rows: &mut Rows, assemble: &dyn Fn(&mut InPlace)| {
            for &m in masses {
                rows.0[m].iter_mut().for_each(|e| e.1 = 0.0);
            }
            let mut in_place = InPlace { rows, masses, in_place: true };
            assemble(&mut in_place);
            all_in_place &= in_place.in_place;
        };
        refresh(&mut self.stiffness, &|a| crate::forces::add_stiffness(system, x, 1.0, a));
        refresh(&mut self.damping, &|a| crate::forces::add_damping_matrix(system, x, 1.0, a));
        refresh(&mut self.mode_damping, &|a| crate::forces::add_mode_damping_matrix(system, 1.0, a));
        for &m in masses {
            self.mass[m] = system.masses()[m];
        }
        all_in_place
    }

    /// The masses joined to mass `i` by a stiffness or damping entry.
    fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (k, c) = (&self.stiffness.0[i], &self.damping.0[i]);
        k.iter().chain(c).map(|e| e.0).filter(move |&j| j != i)
    }

    /// A key that is equal for two pieces exactly when their masses and matrices are (for a
    /// cache of [`PartModes`]): the masses' indices and the bits of every entry among them.
    pub fn key(&self, masses: &[usize]) -> Vec<u64> {
        let mut key = Vec::with_capacity(masses.len() * 8);
        for &i in masses {
            key.extend([i as u64, self.mass[i].to_bits()]);
            for rows in [&self.stiffness, &self.damping] {
                for &(j, value) in &rows.0[i] {
                    key.extend([j as u64, value.to_bits()]);
                }
                key.push(u64::MAX);
            }
        }
        key
    }
}

/// A part's modes: the undamped modes of its reference `(K_0, C_0)`, which diagonalise both.
#[derive(Debug, Clone, PartialEq)]
pub struct PartModes {
    /// The part's masses, ascending.
    pub masses: Vec<usize>,
    /// `Phi`, row-major `n x r` (`r` modes, [`PartModes::modes`]): entry `i * r + j` is mass
    /// `masses[i]`'s share of mode `j` (mass-normalised, `Phi^T M Phi = I`: 1/sqrt(kg)).
    pub shapes: Vec<f64>,
    /// Each mode's oscillator: `w^2` and `gamma` (modal mass 1).
    pub oscillators: Vec<Oscillator>,
    /// The part's deviation from its reference, `(i, j, (K - K_0)_ij, (C - C_0)_ij)` for local
    /// indices `i`, `j` (N/m, N s/m): empty where the part's own damping is modal. Differences
    /// within [`ROUNDING`] of the largest entry are rounding and left out.
    pub deviation: Vec<(usize, usize, f64, f64)>,
    /// The pieces the part is made of, each its own modes over its own masses (one, but for a
    /// [`PartModes::union`]): a drag the same on a piece's masses keeps its modes.
    pub blocks: Vec<Block>,
}

/// A piece of a part: modes `modes` that move the part's masses `masses` (local indices) alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The piece's modes, a range of the part's.
    pub modes: std::ops::Range<usize>,
    /// The piece's masses, local indices ascending.
    pub masses: Vec<usize>,
    /// Whether its modes are the sine modes of a uniform string (its reference), mode `j` at
    /// the wavenumber `(j + 1) pi / (n + 1)` of its `n` masses: the same for any tension or
    /// damping of the string.
    pub uniform: bool,
}

impl PartModes {
    /// The modes of the piece `masses` (ascending) of `network`: of its own matrices if its
    /// damping is modal, else of the uniform string it deviates from at a few masses (if it is
    /// a string); `None` if neither.
    pub fn new(network: &Network, masses: &[usize]) -> Option<Self> {
        if masses.len() > MAX_PART {
            return None;
        }
        let local = |rows: &Rows| dense(rows, masses);
        let (k, c) = (local(&network.stiffness), local(&network.damping));
        // A uniform string's modes are its sine modes: no search. Where the piece is that string
        // as it is, they are its own modes.
        let uniform = uniform_string(network, masses).and_then(|(k0, c0)| {
            let n = masses.len();
            let sines = sine_modes(n);
            let vectors = Mat::from_fn(n, n, |i, j| sines[i * n + j]);
            Self::of(network, masses, [&k, &c], [&k0, &c0], Some(vectors))
        });
        if uniform.as_ref().is_some_and(|part| part.deviation.is_empty()) {
            return uniform;
        }
        let own =
            commute(network, masses, &k, &c).then(|| Self::of(network, masses, [&k, &c], [&k, &c], None));
        own.flatten().or_else(|| {
            let part = uniform?;
            let mut touched: Vec<usize> = part.deviation.iter().map(|e| e.0).collect();
            touched.dedup();
            (touched.len() <= MAX_TOUCHED).then_some(part)
        })
    }

    /// The part `masses` with matrices `[K, C]` run in the modes of the reference `[K_0, C_0]`,
    /// if they diagonalise both: `vectors` (the mass-normalised modes, by column) where known,
    /// else the eigenvectors of `S = K~ / |K~| + phi C~ / |C~|` (`K~ = M^-1/2 K_0 M^-1/2`, `phi`
    /// the golden ratio's inverse so that no two distinct pairs of eigenvalues meet), checked on
    /// `K~` and `C~`.
    fn of(
        network: &Network,
        masses: &[usize],
        [k, c]: [&Mat<f64>; 2],
        [k0, c0]: [&Mat<f64>; 2],
        vectors: Option<Mat<f64>>,
    ) -> Option<Self> {
        let n = masses.len();
        let scale: Vec<f64> = masses.iter().map(|&i| 1.0 / network.mass[i].sqrt()).collect();
        let (kn, cn) = (normalised(k0, &scale), normalised(c0, &scale));
        let sines = vectors.is_some();
        let vectors = match vectors {
            Some(vectors) => vectors,
            None => {
                let (k_size, c_size) = (largest(&kn), largest(&cn));
                let combined = Mat::<f64>::from_fn(n, n, |i, j| {
                    let mut s = if k_size > 0.0 { kn[(i, j)] / k_size } else { 0.0 };
                    if c_size > 0.0 {
                        s += 0.618_033_988_749_894_9 * cn[(i, j)] / c_size;
                    }
                    s
                });
                symmetric_eigen(combined.as_ref()).ok()?.1
            }
        };
        let modal = |a: &Mat<f64>| {
            let projected = vectors.transpose() * a * &vectors;
            let diagonal: Vec<f64> = (0..n).map(|j| projected[(j, j)]).collect();
            let top = diagonal.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            let off = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)));
            off.clone().all(|e| projected[e].abs() <= OFF_DIAGONAL * top).then_some(diagonal)
        };
        let (squared, gammas) = (modal(&kn)?, modal(&cn)?);
        let oscillators = squared
            .iter()
            .zip(&gammas)
            .map(|(&w2, &gamma)| Oscillator { omega0_squared: w2.max(0.0), gamma: gamma.max(0.0) })
            .collect();
        let shapes = (0..n * n).map(|e| vectors[(e / n, e % n)] * scale[e / n]).collect();
        let (k_top, c_top) = (largest(k0), largest(c0));
        let deviation = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|e| (e.0, e.1, k[e] - k0[e], c[e] - c0[e]))
            .filter(|&(_, _, dk, dc)| dk.abs() > ROUNDING * k_top || dc.abs() > ROUNDING * c_top)
            .collect();
        let blocks = vec![Block { modes: 0..n, masses: (0..n).collect(), uniform: sines }];
        Some(Self { masses: masses.to_vec(), shapes, oscillators, deviation, blocks })
    }

    /// The number of modes, `r`.
    pub fn modes(&self) -> usize {
        self.oscillators.len()
    }

    /// The pieces `pieces` of `network` (no mass in two) as one part: their modes side by side
    /// (`Phi` block-diagonal over the pieces' masses), their deviations, and every entry of `K`
    /// and `C` between two of them as deviation too (the block-diagonal reference holds none).
    /// A string fretted anywhere is one part so (the coupled modal path swaps it in place).
    pub fn union(network: &Network, pieces: &[&PartModes]) -> Self {
        let mut masses: Vec<usize> = pieces.iter().flat_map(|p| p.masses.iter().copied()).collect();
        masses.sort_unstable();
        let local = |mass: usize| masses.binary_search(&mass).expect("a piece's mass");
        let (n, r) = (masses.len(), pieces.iter().map(|p| p.modes()).sum::<usize>());
        let mut shapes = vec![0.0; n * r];
        let (mut oscillators, mut deviation, mut blocks) = (Vec::new(), Vec::new(), Vec::new());
        let mut piece_of = vec![usize::MAX; n];
        for (index, piece) in pieces.iter().enumerate() {
            let (first, own) = (oscillators.len(), piece.modes());
            let locals: Vec<usize> = piece.masses.iter().map(|&m| local(m)).collect();
            for (i, &li) in locals.iter().enumerate() {
                shapes[li * r + first..li * r + first + own]
                    .copy_from_slice(&piece.shapes[i * own..(i + 1) * own]);
                piece_of[li] = index;
            }
            oscillators.extend_from_slice(&piece.oscillators);
            deviation.extend(piece.deviation.iter().map(|&(i, j, k, c)| (locals[i], locals[j], k, c)));
            blocks.push(Block {
                modes: first..first + own,
                masses: locals,
                uniform: piece.blocks[0].uniform,
            });
        }
        for (li, &mass) in masses.iter().enumerate() {
            for (j, k, c) in cross_entries(&network.stiffness.0[mass], &network.damping.0[mass]) {
                let lj = masses.binary_search(&j).ok();
                if let Some(lj) = lj.filter(|&lj| piece_of[lj] != piece_of[li]) {
                    deviation.push((li, lj, k, c));
                }
            }
        }
        deviation.sort_unstable_by_key(|e| (e.0, e.1));
        Self { masses, shapes, oscillators, deviation, blocks }
    }
}

/// A row's stiffness and damping entries merged by column: `(column, k, c)`.
fn cross_entries(k: &[(usize, f64)], c: &[(usize, f64)]) -> Vec<(usize, f64, f64)> {
    let mut merged: Vec<(usize, f64, f64)> = k.iter().map(|&(j, v)| (j, v, 0.0)).collect();
    for &(j, v) in c {
        match merged.iter_mut().find(|e| e.0 == j) {
            Some(entry) => entry.2 = v,
            None => merged.push((j, 0.0, v)),
        }
    }
    merged
}

/// `M^-1/2 A M^-1/2`, `scale` the masses' `1 / sqrt(m)`.
fn normalised(a: &Mat<f64>, scale: &[f64]) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] * scale[i] * scale[j])
}

/// The largest magnitude of an entry of `a`.
fn largest(a: &Mat<f64>) -> f64 {
    (0..a.nrows()).flat_map(|i| (0..a.ncols()).map(move |j| a[(i, j)].abs())).fold(0.0, f64::max)
}

/// Whether `K` and `C` of the piece `masses`, mass-normalised, commute to rounding: the
/// condition for one set of modes to diagonalise both (symmetric matrices commute exactly when
/// they share their eigenvectors), checked before those are searched for: `K~ C~` is then
/// symmetric, to [`COMMUTING`] of `n |K~| |C~|`.
fn commute(network: &Network, masses: &[usize], k: &Mat<f64>, c: &Mat<f64>) -> bool {
    let scale: Vec<f64> = masses.iter().map(|&i| 1.0 / network.mass[i].sqrt()).collect();
    let (kn, cn) = (normalised(k, &scale), normalised(c, &scale));
    let product = &kn * &cn;
    let n = masses.len();
    let bound = COMMUTING * n as f64 * largest(&kn) * largest(&cn);
    (0..n).all(|i| (0..i).all(|j| (product[(i, j)] - product[(j, i)]).abs() <= bound))
}

/// `rows` restricted to `masses`, dense.
fn dense(rows: &Rows, masses: &[usize]) -> Mat<f64> {
    Mat::from_fn(masses.len(), masses.len(), |i, j| rows.get(masses[i], masses[j]))
}

/// The uniform string that `masses` (consecutive, equal) deviate from: `K_0 = k L + kappa L^2`,
/// `C_0 = Z L + gamma m I + D` (`D` the mode damping among them, diagonal in the string's sine
/// modes), its constants read at the middle mass (`K_{i,i+2} = kappa`, `K_{i,i+1} = -k - 4
/// kappa`, `(C - D)_{i,i+1} = -Z`, `(C - D)_ii = 2 Z + gamma m`).
fn uniform_string(network: &Network, masses: &[usize]) -> Option<(Mat<f64>, Mat<f64>)> {
    let n = masses.len();
    let consecutive = masses.windows(2).all(|w| w[1] == w[0] + 1);
    let equal = masses.iter().all(|&i| network.mass[i] == network.mass[masses[0]]);
    if n < 2 || !consecutive || !equal {
        return None;
    }
    let mid = masses[n / 2];
    let kappa = network.stiffness.get(mid, mid + 2);
    let k = -network.stiffness.get(mid, mid + 1) - 4.0 * kappa;
    let own = |i: usize, j: usize| network.damping.get(i, j) - network.mode_damping.get(i, j);
    let z = -own(mid, mid + 1);
    let drag = own(mid, mid) - 2.0 * z;
    let second = |i: usize, j: usize| match i.abs_diff(j) {
        0 => 2.0,
        1 => -1.0,
        _ => 0.0,
    };
    // (L^2)_ij = sum_l L_il L_lj over the string's own masses.
    let squared = |i: usize, j: usize| (0..n).map(|l| second(i, l) * second(l, j)).sum::<f64>();
    let k0 = Mat::from_fn(n, n, |i, j| k * second(i, j) + kappa * squared(i, j));
    let c0 = Mat::from_fn(n, n, |i, j| {
        z * second(i, j) + if i == j { drag } else { 0.0 } + network.mode_damping.get(masses[i], masses[j])
    });
    Some((k0, c0))
}

/// The masses of a network split for the coupled modal path.
#[derive(Debug, Clone)]
pub struct Split {
    /// The parts, each a piece of masses with its modes.
    pub parts: Vec<std::sync::Arc<PartModes>>,
    /// The masses stepped directly, ascending.
    pub direct: Vec<usize>,
}

/// Splits the masses of `network` not `held` (stopped masses, which act as anchors) into parts
/// and direct masses: the hubs (masses whose removal cuts the network into three pieces or
/// more: a bridge) are direct; each piece left is a part if `modes` finds its modes, else it is
/// cut into runs of consecutive linked masses, each a part if `modes` finds its modes or direct
/// if small. `None` where a large piece has no modes, or where the direct masses would be more
/// than a quarter of the moving ones (the path would gain little), or where finding the pieces'
/// modes would take more than [`MAX_WORK`]. `modes` is [`PartModes::new`], or a cache of it.
pub fn split(
    network: &Network,
    held: &[bool],
    modes: &mut impl FnMut(&[usize]) -> Option<std::sync::Arc<PartModes>>,
) -> Option<Split> {
    let n = network.mass.len();
    let adjacency: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let mut list: Vec<usize> = network.neighbours(i).filter(|&j| !held[j]).collect();
            list.sort_unstable();
            list.dedup();
            list
        })
        .collect();
    let hubs = hubs(&adjacency, held);
    let alive: Vec<bool> = (0..n).map(|i| !held[i] && !hubs[i]).collect();
    let mut direct: Vec<usize> = (0..n).filter(|&i| hubs[i]).collect();
    let mut parts = Vec::new();
    let mut work = 0.0;
    let mut modes = |piece: &[usize]| {
        if piece.len() <= MAX_PART {
            work += (piece.len() as f64).powi(3);
        }
        if work > MAX_WORK {
            return Err(());
        }
        Ok(modes(piece))
    };
    for piece in pieces(&adjacency, &alive) {
        if let Some(part) = modes(&piece).ok()? {
            parts.push(part);
            continue;
        }
        for run in piece.chunk_by(|a, b| b == &(a + 1) && adjacency[*a].binary_search(b).is_ok()) {
            match modes(run).ok()? {
                Some(part) => parts.push(part),
                None if run.len() <= MAX_DIRECT_PIECE => direct.extend_from_slice(run),
                None => return None,
            }
        }
    }
    direct.sort_unstable();
    let moving = held.iter().filter(|&&h| !h).count();
    (!parts.is_empty() && direct.len() * 4 <= moving).then_some(Split { parts, direct })
}

/// The connected pieces of the masses `alive` (each ascending).
fn pieces(adjacency: &[Vec<usize>], alive: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; adjacency.len()];
    let mut pieces = Vec::new();
    for start in (0..adjacency.len()).filter(|&i| alive[i]) {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let (mut piece, mut stack) = (Vec::new(), vec![start]);
        while let Some(i) = stack.pop() {
            piece.push(i);
            for &j in &adjacency[i] {
                if alive[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        piece.sort_unstable();
        pieces.push(piece);
    }
    pieces
}

/// The masses whose removal cuts their piece into three or more (articulation points with at
/// least two separated subtrees besides the rest, found by Tarjan's depth-first low links).
fn hubs(adjacency: &[Vec<usize>], held: &[bool]) -> Vec<bool> {
    let n = adjacency.len();
    let (mut discovered, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let mut cut_off = vec![0usize; n];
    let mut root = vec![false; n];
    let mut time = 0;
    for start in 0..n {
        if held[start] || discovered[start] != usize::MAX {
            continue;
        }
        root[start] = true;
        discovered[start] = time;
        low[start] = time;
        time += 1;
        let mut stack = vec![(start, usize::MAX, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (u, parent) = (top.0, top.1);
            if let Some(&w) = adjacency[u].get(top.2) {
                top.2 += 1;
                if w == parent || held[w] {
                    continue;
                }
                if discovered[w] == usize::MAX {
                    discovered[w] = time;
                    low[w] = time;
                    time += 1;
                    stack.push((w, u, 0));
                } else {
                    low[u] = low[u].min(discovered[w]);
                }
            } else {
                stack.pop();
                if let Some(&(p, _, _)) = stack.last() {
                    low[p] = low[p].min(low[u]);
                    cut_off[p] += usize::from(low[u] >= discovered[p]);
                }
            }
        }
    }
    (0..n).map(|i| cut_off[i] + usize::from(!root[i]) >= 3).collect()
}
