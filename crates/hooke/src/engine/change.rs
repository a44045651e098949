//! A change made to a running system, recorded as data. [`super::Engine::apply`] makes every
//! change in the [`System`](crate::system::System) first (a link's stiffness, a drag, a held
//! force) and records what changed; once per block boundary the engine's reconcile step
//! (`engine::reconcile`) offers the recorded changes to the running path, which takes them in
//! place ([`super::stage::Stage::take`]) or hands the state on to another path. The system
//! holds every value, so a path built or taking over later reads the same system; only the
//! motions (positions and velocities) and the stops live in the state, and the engine lays the
//! recorded ones over a path's state when it hands it on ([`overlay`]).

use crate::system::State;

/// One change, as the path running must take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Change {
    /// A moving state coordinate's position (m) and velocity (m/s) set.
    Motion { coordinate: usize, x: f64, v: f64 },
    /// Mass `mass` stopped where it is (velocity 0), or freed.
    Stop { mass: usize, stopped: bool },
    /// The spring and damper joining nodes `a` and `b`, as now in the system.
    Link { a: usize, b: usize },
    /// Mass `mass`'s drag, as now in the system.
    Drag { mass: usize },
    /// Mass `mass`'s mass, as now in the system.
    Mass { mass: usize },
    /// The force (N) held on a moving state coordinate until changed (also in the system).
    Force { coordinate: usize, force: f64 },
    /// The mode damping of the string through mass `mass` (its scale or a stop's split), as now
    /// in the system.
    ModeDamping { mass: usize },
}

/// The motion of `coordinate` that `changes` set last, if any: a motion change, or a stop of
/// its mass (in a system of `dimension` axes) that keeps the position `x` and zeroes the
/// velocity.
pub(crate) fn changed_motion(
    changes: &[Change],
    coordinate: usize,
    dimension: usize,
    x: f64,
) -> Option<(f64, f64)> {
    let mut motion = None;
    for change in changes {
        match *change {
            Change::Motion { coordinate: c, x, v } if c == coordinate => motion = Some((x, v)),
            Change::Stop { mass, stopped: true } if mass == coordinate / dimension => {
                motion = Some((motion.map_or(x, |(x, _)| x), 0.0));
            }
            _ => {}
        }
    }
    motion
}

/// `state` with the motions and stops of `changes` laid over it, in order (a path's state
/// before it took them).
pub(crate) fn overlay(changes: &[Change], dimension: usize, state: &mut State) {
    for change in changes {
        match *change {
            Change::Motion { coordinate, x, v } => (state.x[coordinate], state.v[coordinate]) = (x, v),
            Change::Stop { mass, stopped: true } => {
                state.v[mass * dimension..(mass + 1) * dimension].fill(0.0)
            }
            _ => {}
        }
    }
}
