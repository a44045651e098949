//! What a discrete pole says about a mode: digital frequency, digital decay, time constant and
//! the region of fig. 12 of Morgan & Qiao 2009 that it falls in.

use faer::c64;
use std::f64::consts::PI;
use std::fmt;

/// Where a mode's dominant discrete pole lies (Morgan & Qiao 2009, section 3.5 and fig. 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// `z` complex inside the unit circle: the mode vibrates at `atan2(Im z, Re z) / h`.
    Complex,
    /// The dominant pole is real and positive: the mode does not vibrate (frequency zero).
    Zero,
    /// The dominant pole is real and negative: the mode alternates at the Nyquist frequency,
    /// `pi / h`.
    Nyquist,
    /// `|z| > 1`: the mode grows.
    Unstable,
}

impl Region {
    /// The name used in tables and JSON: `complex`, `zero`, `nyquist` or `unstable`.
    pub fn name(self) -> &'static str {
        match self {
            Region::Complex => "complex",
            Region::Zero => "zero",
            Region::Nyquist => "nyquist",
            Region::Unstable => "unstable",
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How far beyond 1 a pole's modulus may lie and still count as on the unit circle, for poles
/// computed from oscillators (closed forms or 2 x 2 matrices): rounding only.
pub const OSCILLATOR_TOLERANCE: f64 = 1e-12;

/// The same for poles that are eigenvalues of a measured `2n x 2n` one-step matrix: a defective
/// eigenvalue (a free mass's double pole at 1) is perturbed by the square root of the rounding,
/// and the perturbations of a nonlinear network's step by the Newton tolerance over the
/// perturbation size (about 1e-7).
pub const MATRIX_TOLERANCE: f64 = 1e-6;

/// `|ln|z||` per step below which a pole counts as neither decaying nor growing: the rounding
/// of a pole computed from a one-step matrix (a few units of 1e-16).
pub const ROUNDING_DECAY: f64 = 1e-14;

/// The dominant discrete pole of a mode with the step it belongs to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscretePole {
    /// The pole; for a complex pair the one with `Im z >= 0`.
    pub z: c64,
    /// The step, s.
    pub dt: f64,
    /// How far beyond 1 `|z|` may lie and still count as stable ([`OSCILLATOR_TOLERANCE`] or
    /// [`MATRIX_TOLERANCE`]).
    pub tolerance: f64,
}

impl DiscretePole {
    /// `|z|`, the factor by which the mode's amplitude changes each step.
    pub fn modulus(&self) -> f64 {
        self.z.norm()
    }

    /// The digital angular frequency `atan2(Im z, Re z) / h`, rad/s (Morgan & Qiao 2009, eq. (45)
    /// with the four-quadrant arctangent, as corrected in docs/errata.md): 0 in the zero region,
    /// `pi / h` in the Nyquist region.
    pub fn angular_frequency(&self) -> f64 {
        self.z.im.abs().atan2(self.z.re) / self.dt
    }

    /// The digital frequency, Hz.
    pub fn frequency_hz(&self) -> f64 {
        self.angular_frequency() / (2.0 * PI)
    }

    /// The digital decay rate `sigma_d = ln|z| / h`, 1/s (Morgan & Qiao 2009, eq. (63)); `-inf`
    /// for `z = 0`. A modulus within [`ROUNDING_DECAY`] of 1 per step is rounding, and gives
    /// exactly 0.
    pub fn decay_rate(&self) -> f64 {
        let per_step = self.modulus().ln();
        if per_step.abs() <= ROUNDING_DECAY {
            0.0
        } else {
            per_step / self.dt
        }
    }

    /// The time for the amplitude to fall by `1/e`, `-1 / sigma_d`, s (Morgan & Qiao 2009,
    /// eq. (81)); infinite when the mode does not decay, negative when it grows.
    pub fn time_constant(&self) -> f64 {
        -1.0 / self.decay_rate()
    }

    /// Whether `|z| <= 1` (within the tolerance).
    pub fn is_stable(&self) -> bool {
        self.modulus() <= 1.0 + self.tolerance
    }

    /// The region of fig. 12 of Morgan & Qiao 2009 that this pole is in.
    pub fn region(&self) -> Region {
        if !self.is_stable() {
            Region::Unstable
        } else if self.z.im.abs() > 1e-14 * self.modulus() {
            Region::Complex
        } else if self.z.re >= 0.0 {
            Region::Zero
        } else {
            Region::Nyquist
        }
    }
}

/// Of two discrete poles of one mode, the one that dominates the output: the larger in modulus,
/// and of a conjugate pair the one with `Im z >= 0` (Morgan & Qiao 2009, section 3.5.2).
pub fn dominant(poles: [c64; 2]) -> c64 {
    let [a, b] = poles;
    let pick = if (a.norm() - b.norm()).abs() <= 1e-15 * a.norm().max(b.norm()) {
        if a.im >= b.im {
            a
        } else {
            b
        }
    } else if a.norm() > b.norm() {
        a
    } else {
        b
    };
    if pick.im < 0.0 {
        pick.conj()
    } else {
        pick
    }
}
