//! The modal path retuned in place: where a tension or a damping set (every link of a string or
//! of the membrane scaled alike) or a drag on every mass of one (a damper) leaves each lattice
//! uniform, the lattice takes its new values and its modes their new steps, in place, with no
//! analysis and no allocation: the modes of a uniform lattice are its sine modes whatever its
//! values, and only each mode's `w0^2` and `gamma` move ([`crate::analysis::structure::Lattice::oscillator`]). Symplectic
//! Euler's step on a mode has a closed form ([`symplectic_euler_mode_step`]); another scheme's
//! is measured by the analysis, and a run that folds its decimation would fold it again, so
//! those rebuild as before.

use super::ModalStage;
use crate::analysis::discrete::symplectic_euler_mode_step;
use crate::scheme::SchemeKind;
use crate::system::System;

/// Which value of a link a pass meets.
const STIFFNESS: usize = 0;
const DAMPING: usize = 1;

/// What one pass over the system found of a lattice: its links' stiffness and damping (by
/// [`STIFFNESS`] and [`DAMPING`]) along x and y (the first met: `None` where none), and
/// whether every link agreed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Found {
    values: [[Option<f64>; 2]; 2],
    uneven: bool,
}

impl ModalStage {
    /// Takes the system's links and drags as they are now where each lattice is still uniform
    /// (module documentation); a lattice that is not keeps its values, so that the change is
    /// refused. Once per revision of the system; allocates nothing.
    pub(super) fn retune(&mut self, system: &System) {
        if self.retuned_at == system.revision() {
            return;
        }
        self.retuned_at = system.revision();
        let (springs, dampers) = (system.springs(), system.dampers());
        if self.scheme != SchemeKind::SymplecticEuler || [springs.len(), dampers.len()] != self.links {
            return;
        }
        self.found.fill(Found::default());
        for (which, links) in [(STIFFNESS, springs), (DAMPING, dampers)] {
            for l in 0..links.coefficient.len() {
                self.meet_link(links.a[l] as usize, links.b[l] as usize, which, links.coefficient[l]);
            }
        }
        for part in 0..self.lattices.parts.len() {
            self.retune_part(system, part);
        }
    }

    /// Meets the link between nodes `a` and `b` on its lattice's side (or sides, on a
    /// membrane's rim), its `which` value being `value`: the first met sets it, another must
    /// agree.
    fn meet_link(&mut self, a: usize, b: usize, which: usize, value: f64) {
        let Some((part, sides)) = self.link_sides(a, b) else { return };
        let found = &mut self.found[part];
        for &side in sides {
            match found.values[which][side] {
                None => found.values[which][side] = Some(value),
                Some(first) => found.uneven |= first != value,
            }
        }
    }

    /// Lattice `part` takes what the pass found, and its masses' drag, where all agree and
    /// something moved: its modes' steps in place ([`crate::kernel::modal::ModalKernel::retune`]).
    fn retune_part(&mut self, system: &System, part: usize) {
        let found = self.found[part];
        let masses = self.lattices.first[part]..self.lattices.first[part + 1];
        let drag = system.drag().get(masses.start).copied().unwrap_or(0.0);
        let even_drag = masses.clone().all(|m| system.drag().get(m).copied().unwrap_or(0.0) == drag);
        let lattice = &mut self.lattices.parts[part];
        // A lattice pulled by anchors off zero or by gravity keeps its values: its constant
        // forces would move with its stiffness.
        if found.uneven || !even_drag || lattice.constant.iter().any(|&f| f != 0.0) {
            return;
        }
        let was = (lattice.stiffness, lattice.damping, lattice.drag);
        for side in 0..2 {
            lattice.stiffness[side] = found.values[STIFFNESS][side].unwrap_or(lattice.stiffness[side]);
            lattice.damping[side] = found.values[DAMPING][side].unwrap_or(lattice.damping[side]);
        }
        lattice.drag = drag;
        if (lattice.stiffness, lattice.damping, lattice.drag) == was {
            return;
        }
        let (lattice, dt) = (&self.lattices.parts[part], self.dt);
        let step = |modes: &_, j| symplectic_euler_mode_step(lattice.oscillator(modes, j), lattice.mass, dt);
        if !self.kernel.retune(part, step) {
            let lattice = &mut self.lattices.parts[part];
            (lattice.stiffness, lattice.damping, lattice.drag) = was;
        }
    }
}
