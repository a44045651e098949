//! External (driving) forces `F_e(t)` (Chatziioannou 2019, section 3.1, eq. 51): constant forces,
//! sums of sinusoids `A sin(2 pi f t + phase)`, and recorded signals (WAV channels) interpolated
//! linearly between samples. They depend on time only, so they add nothing to the potential,
//! the stiffness or the discrete gradient; a scheme evaluates them at the times its update
//! needs (e.g. `mu_t+ f_ex` in Chatziioannou 2019, eq. (54)).

use crate::model::interpolate;
use crate::system::ExternalForces;

/// Adds every external force at time `t` (s) to `f`, N. One loop per kind.
pub(super) fn add_forces(external: &ExternalForces, t: f64, f: &mut [f64]) {
    let constant = &external.constant;
    for (&coordinate, &value) in constant.coordinate.iter().zip(&constant.value) {
        f[coordinate as usize] += value;
    }
    let sinusoids = &external.sinusoids;
    for i in 0..sinusoids.coordinate.len() {
        let angle = sinusoids.angular_frequency[i] * t + sinusoids.phase[i];
        f[sinusoids.coordinate[i] as usize] += sinusoids.amplitude[i] * angle.sin();
    }
    let sampled = &external.sampled;
    for i in 0..sampled.coordinate.len() {
        let start = sampled.start[i];
        let values = &sampled.values[start..start + sampled.len[i]];
        f[sampled.coordinate[i] as usize] += interpolate(values, t * sampled.rate[i]);
    }
    for (f, held) in f.iter_mut().zip(&external.held) {
        *f += held;
    }
}
