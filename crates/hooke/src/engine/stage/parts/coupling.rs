//! The coupled modal path's coupling: which masses of a split network the kernel reads every
//! step (its direct masses and its parts' touched masses, the sources), each one's coupling row,
//! and the pickups' taps, for [`CoupledKernel`](crate::kernel::coupled::CoupledKernel).

use super::{shape_of, Place, Room};
use crate::analysis::parts::{Network, PartModes, Split};
use crate::engine::Pickups;
use crate::kernel::coupled::{CoupledMode, CoupledNetwork, CoupledTaps, Probe, Row};
use crate::quantity::Quantity;

/// The kernel's network: every part's modes, and the coupling rows of the direct masses and of
/// the part masses that an entry outside their part's reference touches (those with an entry
/// leaving their part first, so that a part swapped in place keeps its sources that other
/// rows read); with each mass's source index (`usize::MAX` where it is neither direct nor
/// touched). A part with room (`rooms`) has room for its modes, touched coordinates and rows.
pub(super) fn couple(
    network: &Network,
    split: &Split,
    place: &[Place],
    rooms: &[Room],
) -> Option<(CoupledNetwork, Vec<usize>)> {
    let d = split.direct.len();
    let mut source = vec![usize::MAX; network.mass.len()];
    for (i, &mass) in split.direct.iter().enumerate() {
        source[mass] = i;
    }
    let (mut touched_list, mut owners) = (Vec::new(), Vec::new());
    for (part, modes) in split.parts.iter().enumerate() {
        let room = rooms.get(part).copied().unwrap_or_default();
        let touched = touched_masses(network, modes, |j| outside(place, j, part));
        for (k, &local) in touched.iter().enumerate() {
            source[modes.masses[local]] = d + touched_list.len() + k;
        }
        for slot in 0..touched.len().max(room.touched) {
            let weights = touched.get(slot).map_or_else(Vec::new, |&local| shape_of(modes, local).to_vec());
            touched_list.push(Probe { part, weights });
            owners.push((part, touched.get(slot).map(|&local| modes.masses[local]), room.row));
        }
    }
    let mut rows: Vec<Row> = Vec::with_capacity(d + owners.len());
    for &mass in &split.direct {
        let mut row = Row::new();
        fill_row(&mut row, network, place, &source, mass, None);
        rows.push(row);
    }
    for &(part, mass, room) in &owners {
        let mut row = Row::with_capacity(room);
        if let Some(mass) = mass {
            let modes = &split.parts[part];
            fill_row(&mut row, network, place, &source, mass, Some((part, &modes.masses, &modes.deviation)));
        }
        rows.push(row);
    }
    if rows.iter().flatten().any(|e| e.0 == usize::MAX) {
        return None;
    }
    let mode = |o: &crate::analysis::discrete::Oscillator| CoupledMode {
        omega0_squared: o.omega0_squared,
        gamma: o.gamma,
    };
    let parts = split.parts.iter().map(|modes| modes.oscillators.iter().map(mode).collect()).collect();
    let room = (0..split.parts.len()).map(|part| rooms.get(part).map_or(0, |r| r.modes)).collect();
    let inverse_mass = split.direct.iter().map(|&m| 1.0 / network.mass[m]).collect();
    Some((CoupledNetwork { parts, room, touched: touched_list, rows, inverse_mass }, source))
}

/// Whether mass `j` is outside part `part` for its coupling: in another part or direct, not
/// stopped.
fn outside(place: &[Place], j: usize, part: usize) -> bool {
    match place[j] {
        Place::Part(other, _) => other != part,
        Place::Direct(_) => true,
        Place::Stopped(_) => false,
    }
}

/// The local masses of part `modes` that an entry outside its reference touches: those with a
/// stiffness or damping entry to a mass `outside` it first, then those its deviation from its
/// reference touches, each ascending.
pub(super) fn touched_masses(
    network: &Network,
    modes: &PartModes,
    outside: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let leaving = |&local: &usize| {
        let mass = modes.masses[local];
        let entries = network.stiffness.0[mass].iter().chain(&network.damping.0[mass]);
        entries.clone().any(|&(j, _)| outside(j))
    };
    let mut deviating = vec![false; modes.masses.len()];
    for &(i, j, _, _) in &modes.deviation {
        (deviating[i], deviating[j]) = (true, true);
    }
    let all = 0..modes.masses.len();
    let mut touched: Vec<usize> = all.clone().filter(leaving).collect();
    touched.extend(all.filter(|i| deviating[*i] && !leaving(i)));
    touched
}

/// A part as a coupling row reads it: its index, its masses, its deviation from its reference
/// (as [`PartModes`] has them).
pub(super) type RowPart<'a> = (usize, &'a [usize], &'a [(usize, usize, f64, f64)]);

/// Sets `row` to mass `mass`'s coupling row, in place (allocating nothing within its room): its
/// stiffness and damping entries to sources outside its part (`part`; `None` for a direct mass:
/// every entry), the stopped masses left out, and its part's deviation entries; `(source, k,
/// c)` by source, those of one source summed.
pub(super) fn fill_row(
    row: &mut Row,
    network: &Network,
    place: &[Place],
    source: &[usize],
    mass: usize,
    part: Option<RowPart>,
) {
    row.clear();
    let counts = |j: usize| match part {
        Some((part, _, _)) => outside(place, j, part),
        None => !matches!(place[j], Place::Stopped(_)),
    };
    row.extend(network.stiffness.0[mass].iter().filter(|e| counts(e.0)).map(|&(j, k)| (source[j], k, 0.0)));
    row.extend(network.damping.0[mass].iter().filter(|e| counts(e.0)).map(|&(j, c)| (source[j], 0.0, c)));
    if let (Some((_, masses, deviation)), Place::Part(_, local)) = (part, place[mass]) {
        let deviation = deviation.iter().filter(|e| e.0 == local);
        row.extend(deviation.map(|&(_, j, k, c)| (source[masses[j]], k, c)));
    }
    row.sort_unstable_by_key(|e| e.0);
    row.dedup_by(|next, kept| {
        let same = next.0 == kept.0;
        if same {
            (kept.1, kept.2) = (kept.1 + next.1, kept.2 + next.2);
        }
        same
    });
}

/// The pickups as the kernel reads them: taps on direct masses and touched part masses (each a
/// source the kernel has every step), and per channel and part one probe for the other part
/// masses' positions and one for their velocities (every tap on a part that may swap, whose
/// touched masses change when it is swapped); `None` where a tap is on a stopped mass.
pub(super) fn taps(
    pickups: &Pickups,
    split: &Split,
    place: &[Place],
    source: &[usize],
    rooms: &[Room],
) -> Option<CoupledTaps> {
    let mut taps = CoupledTaps::default();
    let swapped = |part: usize| rooms.get(part).is_some_and(|room| room.swaps);
    for (channel, coordinate, quantity, weight) in pickups.taps() {
        match *place.get(coordinate)? {
            Place::Stopped(_) => return None,
            // A direct coordinate's source index is its own.
            Place::Direct(d) => taps.sources.push((channel, d, quantity, weight)),
            Place::Part(part, _) if source[coordinate] != usize::MAX && !swapped(part) => {
                taps.sources.push((channel, source[coordinate], quantity, weight))
            }
            Place::Part(part, local) => {
                let r = split.parts[part].modes();
                let same = |tap: &&mut (usize, Probe, Quantity)| {
                    tap.0 == channel && tap.1.part == part && tap.2 == quantity
                };
                let at = match taps.modal.iter_mut().position(|tap| same(&tap)) {
                    Some(at) => at,
                    None => {
                        taps.modal.push((channel, Probe { part, weights: vec![0.0; r] }, quantity));
                        taps.modal.len() - 1
                    }
                };
                for (w, s) in taps.modal[at].1.weights.iter_mut().zip(shape_of(&split.parts[part], local)) {
                    *w += weight * s;
                }
            }
        }
    }
    Some(taps)
}
