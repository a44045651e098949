//! The data behind the figures of Morgan & Qiao 2009, as tables for plotting: the regions of the
//! s-plane (fig. 12), frequency warping (figs. 10-11), digital damping (figs. 13-15), isofrequency
//! and isodamping lines (figs. 16-17).
//!
//! Everything is in per-step units: `sigma h` and `mu h` for the analog pole `s = sigma + j mu`
//! (`gamma h = -2 sigma h`, `(w0 h)^2 = (sigma h)^2 + (mu h)^2`, eq. 57), `omega_d h` and
//! `sigma_d h` for the digital frequency and decay. The boundaries of fig. 12 come in closed form
//! for symplectic Euler (eqs. 58, 60, 61, 64, with the corrections of docs/errata.md); the other
//! tables, and the region crossings, are computed for any scheme from its own pole mapping
//! ([`super::discrete::oscillator_poles`]), so that the closed forms are checked against the
//! scheme's poles and the same pictures can be drawn for every scheme.

use super::design::inverse_warping;
use super::discrete::{oscillator_poles, Oscillator};
use super::error::AnalysisError;
use super::poles::{dominant, DiscretePole, Region, OSCILLATOR_TOLERANCE};
use crate::scheme::SchemeKind;
use faer::c64;

/// A point of the s-plane in per-step units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SPlanePoint {
    /// `sigma h`, the analog decay per step (<= 0 in the left half-plane).
    pub sigma_h: f64,
    /// `mu h`, the analog frequency per step, rad/sample.
    pub mu_h: f64,
}

/// The stability boundary of symplectic Euler (Morgan & Qiao 2009, eq. (58)):
/// `mu h = sqrt(4 + 4 sigma h - (sigma h)^2)`; poles above it are unstable. `None` where the
/// root is imaginary (every frequency is unstable there).
pub fn stability_boundary(sigma_h: f64) -> Option<f64> {
    real_root(4.0 + 4.0 * sigma_h - sigma_h * sigma_h)
}

/// The boundaries between complex and real poles of symplectic Euler (Morgan & Qiao 2009,
/// eq. (60)):
/// `mu h = sqrt(-(sigma h)^2 + 2 + 2 sigma h +- 2 sqrt(1 + 2 sigma h))`. The lower (`-`) branch
/// divides complex poles (above) from the zero-frequency region (below); the upper (`+`) branch
/// divides them from the Nyquist region (above it). Defined for `-1/2 <= sigma h <= 0`.
pub fn complex_boundary(sigma_h: f64, upper: bool) -> Option<f64> {
    let inner = real_root(1.0 + 2.0 * sigma_h)?;
    let sign = if upper { 2.0 } else { -2.0 };
    real_root(-sigma_h * sigma_h + 2.0 + 2.0 * sigma_h + sign * inner)
}

/// The boundary between the zero-frequency and the Nyquist regions of symplectic Euler where its
/// poles are real because `gamma h >= 1` (Morgan & Qiao 2009, eq. (61)):
/// `mu h = sqrt(-(sigma h)^2 + 2 sigma h + 2)`, for `sigma h <= -1/2`.
pub fn vibration_boundary(sigma_h: f64) -> Option<f64> {
    if sigma_h > -0.5 {
        return None;
    }
    real_root(-sigma_h * sigma_h + 2.0 * sigma_h + 2.0)
}

fn real_root(square: f64) -> Option<f64> {
    (square >= 0.0).then(|| square.sqrt())
}

/// One curve of fig. 12: its name, the equation it plots and its points.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundaryCurve {
    /// What it divides, e.g. `stability`.
    pub name: &'static str,
    /// Its source, e.g. `Morgan & Qiao 2009, eq. (58)`.
    pub equation: &'static str,
    /// Its points, by increasing `sigma h`.
    pub points: Vec<SPlanePoint>,
}

/// The four curves of fig. 12 of Morgan & Qiao 2009 (symplectic Euler), each sampled at `samples`
/// values of `sigma h` from -0.9 to 0 where it is defined.
pub fn region_boundaries(samples: usize) -> Vec<BoundaryCurve> {
    let grid = |from: f64, to: f64| -> Vec<f64> {
        let count = samples.max(2);
        (0..count).map(|i| from + (to - from) * i as f64 / (count - 1) as f64).collect()
    };
    let curve = |name, equation, from, to, boundary: &dyn Fn(f64) -> Option<f64>| BoundaryCurve {
        name,
        equation,
        points: grid(from, to)
            .into_iter()
            .filter_map(|sigma_h| boundary(sigma_h).map(|mu_h| SPlanePoint { sigma_h, mu_h }))
            .collect(),
    };
    vec![
        curve("stability", "Morgan & Qiao 2009, eq. (58)", -0.9, 0.0, &stability_boundary),
        curve("complex / nyquist", "Morgan & Qiao 2009, eq. (60) (+)", -0.5, 0.0, &|s| {
            complex_boundary(s, true)
        }),
        curve("complex / zero", "Morgan & Qiao 2009, eq. (60) (-)", -0.5, 0.0, &|s| {
            complex_boundary(s, false)
        }),
        curve("zero / nyquist", "Morgan & Qiao 2009, eq. (61)", -0.9, -0.5, &vibration_boundary),
    ]
}

/// Where a horizontal line `mu h = const` crosses the boundaries of fig. 12 for symplectic
/// Euler (values of `sigma h`), as in Morgan & Qiao 2009, section 3.7.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SymplecticEulerCrossings {
    /// Complex to zero frequency: eq. 60 (lower branch) solved for `sigma h` (bisection on
    /// `[-1/2, 0]`, where it is monotonic); exists for `mu h < sqrt(3)/2`.
    pub complex_to_zero: Option<f64>,
    /// Zero to Nyquist frequency: eq. 64, `sigma h = 1 - sqrt(3 - (mu h)^2)`, which holds only
    /// where `gamma h >= 1`, i.e. `mu h <= sqrt(3)/2` (see docs/errata.md).
    pub zero_to_nyquist: Option<f64>,
    /// Complex to Nyquist frequency, for `sqrt(3)/2 < mu h < 2`: eq. 60 (upper branch) solved for
    /// `sigma h` (at `mu h = 0.87` this is -0.499994, not the -0.4977 of eq. 64; see
    /// docs/errata.md).
    pub complex_to_nyquist: Option<f64>,
    /// Into the unstable region: eq. 58 solved for `sigma h`, `2 - sqrt(8 - (mu h)^2)`.
    pub unstable: Option<f64>,
}

/// The crossings of the line `mu h` in fig. 12 for symplectic Euler, from the closed forms.
pub fn symplectic_euler_crossings(mu_h: f64) -> SymplecticEulerCrossings {
    let m2 = mu_h * mu_h;
    let lower = |x: f64| -x * x + 2.0 + 2.0 * x - 2.0 * (1.0 + 2.0 * x).max(0.0).sqrt() - m2;
    let upper = |x: f64| -x * x + 2.0 + 2.0 * x + 2.0 * (1.0 + 2.0 * x).max(0.0).sqrt() - m2;
    let sign_change = |f: &dyn Fn(f64) -> f64| -> Option<f64> {
        let (mut a, mut b) = (-0.5, 0.0);
        let (fa, fb) = (f(a), f(b));
        if fa == 0.0 {
            return Some(a);
        }
        if fa.signum() == fb.signum() {
            return None;
        }
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if f(m).signum() == fa.signum() {
                a = m;
            } else {
                b = m;
            }
        }
        Some(0.5 * (a + b))
    };
    let below_threshold = m2 < 0.75;
    SymplecticEulerCrossings {
        complex_to_zero: if below_threshold { sign_change(&lower) } else { None },
        zero_to_nyquist: if m2 <= 0.75 { Some(1.0 - (3.0 - m2).sqrt()) } else { None },
        complex_to_nyquist: if !below_threshold && m2 < 4.0 { sign_change(&upper) } else { None },
        unstable: real_root(8.0 - m2).map(|r| 2.0 - r),
    }
}

/// A change of region along a line of the s-plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionCrossing {
    /// Where, in `sigma h`.
    pub sigma_h: f64,
    /// The region on the right (towards `sigma = 0`).
    pub from: Region,
    /// The region on the left.
    pub to: Region,
}

/// The dominant discrete poles of `scheme` (`h = 1`) for the analog poles at `points`.
pub fn dominant_poles(scheme: SchemeKind, points: &[SPlanePoint]) -> Result<Vec<c64>, AnalysisError> {
    let oscillators: Vec<Oscillator> =
        points.iter().map(|p| Oscillator::from_pole(c64::new(p.sigma_h, p.mu_h))).collect();
    Ok(oscillator_poles(scheme, &oscillators, 1.0)?.into_iter().map(dominant).collect())
}

fn region_of(z: c64) -> Region {
    DiscretePole { z, dt: 1.0, tolerance: OSCILLATOR_TOLERANCE }.region()
}

/// The region crossings of `scheme` along the line `mu h` from `sigma h = 0` to `sigma_h_min`:
/// scanned in `1e-3` steps of `sigma h`, each change then bisected to `1e-13`. For symplectic
/// Euler these agree with [`symplectic_euler_crossings`].
pub fn region_crossings(
    scheme: SchemeKind,
    mu_h: f64,
    sigma_h_min: f64,
) -> Result<Vec<RegionCrossing>, AnalysisError> {
    let count = ((-sigma_h_min) / 1e-3).ceil().max(1.0) as usize;
    let grid: Vec<SPlanePoint> =
        (0..=count).map(|i| SPlanePoint { sigma_h: sigma_h_min * i as f64 / count as f64, mu_h }).collect();
    let regions: Vec<Region> = dominant_poles(scheme, &grid)?.into_iter().map(region_of).collect();
    let region_at = |sigma_h: f64| -> Result<Region, AnalysisError> {
        Ok(region_of(dominant_poles(scheme, &[SPlanePoint { sigma_h, mu_h }])?[0]))
    };
    let mut crossings = Vec::new();
    for i in 1..grid.len() {
        if regions[i] == regions[i - 1] {
            continue;
        }
        let (mut right, mut left) = (grid[i - 1].sigma_h, grid[i].sigma_h);
        while right - left > 1e-13 {
            let middle = 0.5 * (right + left);
            if region_at(middle)? == regions[i - 1] {
                right = middle;
            } else {
                left = middle;
            }
        }
        crossings.push(RegionCrossing {
            sigma_h: 0.5 * (right + left),
            from: regions[i - 1],
            to: regions[i],
        });
    }
    Ok(crossings)
}

/// A point of a frequency warping curve (Morgan & Qiao 2009, figs. 10-11).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarpingPoint {
    /// `w0 h`, rad/sample.
    pub omega0_h: f64,
    /// The analog frequency `mu h = sqrt((w0 h)^2 - (gamma h / 2)^2)`; `None` when overdamped.
    pub mu_h: Option<f64>,
    /// The digital frequency `omega_d h` of the dominant pole, rad/sample (0 or pi outside the
    /// complex region).
    pub omega_d_h: f64,
    /// The region of the dominant pole.
    pub region: Region,
}

/// The frequency warping of `scheme` with damping `gamma h`: `samples` points with `w0 h` from
/// 0 to `omega0_h_max` (fig. 10 is symplectic Euler with `gamma h = 0`, fig. 11 with
/// `gamma h = 0.5`).
pub fn warping_curve(
    scheme: SchemeKind,
    gamma_h: f64,
    omega0_h_max: f64,
    samples: usize,
) -> Result<Vec<WarpingPoint>, AnalysisError> {
    let count = samples.max(2);
    let omega0: Vec<f64> = (0..count).map(|i| omega0_h_max * i as f64 / (count - 1) as f64).collect();
    let oscillators: Vec<Oscillator> =
        omega0.iter().map(|w| Oscillator { gamma: gamma_h, omega0_squared: w * w }).collect();
    let poles = oscillator_poles(scheme, &oscillators, 1.0)?;
    Ok(omega0
        .iter()
        .zip(poles)
        .map(|(&omega0_h, pair)| {
            let pole = DiscretePole { z: dominant(pair), dt: 1.0, tolerance: OSCILLATOR_TOLERANCE };
            WarpingPoint {
                omega0_h,
                mu_h: real_root(omega0_h * omega0_h - 0.25 * gamma_h * gamma_h),
                omega_d_h: pole.angular_frequency(),
                region: pole.region(),
            }
        })
        .collect())
}

/// Where `scheme` stops being stable along the warping curve of damping `gamma h`: the smallest
/// `w0 h` in `(0, omega0_h_max]` at which one of its poles leaves the unit circle (found among
/// `samples` evenly spaced values, then bisected to rounding), or `None` when it is stable up to
/// `omega0_h_max`. For symplectic Euler this is `sqrt(4 - 2 gamma h)` (Morgan & Qiao 2009,
/// eq. (54)); beyond it the warping curve's flat `omega_d h = pi` is no frequency the scheme
/// plays, but a pole that grows.
pub fn warping_stability_limit(
    scheme: SchemeKind,
    gamma_h: f64,
    omega0_h_max: f64,
    samples: usize,
) -> Result<Option<f64>, AnalysisError> {
    let is_stable = |omega0_h: f64| -> Result<bool, AnalysisError> {
        let oscillator = Oscillator { gamma: gamma_h, omega0_squared: omega0_h * omega0_h };
        Ok(oscillator_poles(scheme, &[oscillator], 1.0)?[0]
            .iter()
            .all(|z| z.norm() <= 1.0 + OSCILLATOR_TOLERANCE))
    };
    let count = samples.max(2);
    let mut stable = 0.0;
    for i in 1..count {
        let omega0_h = omega0_h_max * i as f64 / (count - 1) as f64;
        if is_stable(omega0_h)? {
            stable = omega0_h;
            continue;
        }
        let mut unstable = omega0_h;
        while unstable - stable > 4.0 * f64::EPSILON * unstable {
            let middle = 0.5 * (stable + unstable);
            if is_stable(middle)? {
                stable = middle;
            } else {
                unstable = middle;
            }
        }
        return Ok(Some(stable));
    }
    Ok(None)
}

/// A point of a digital damping curve (Morgan & Qiao 2009, figs. 13-15).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DampingPoint {
    /// The analog decay `sigma h`.
    pub sigma_h: f64,
    /// The digital decay `sigma_d h = ln|z|` (eq. 63); `-inf` where `z = 0`.
    pub sigma_d_h: f64,
    /// The region of the dominant pole.
    pub region: Region,
}

/// The digital damping of `scheme` along the line `mu h`: `samples` points with `sigma h` from
/// `sigma_h_min` to 0 (figs. 13, 14 and 15 are symplectic Euler at `mu h` = 0.1, 0.8, 0.87).
pub fn damping_curve(
    scheme: SchemeKind,
    mu_h: f64,
    sigma_h_min: f64,
    samples: usize,
) -> Result<Vec<DampingPoint>, AnalysisError> {
    let count = samples.max(2);
    let points: Vec<SPlanePoint> = (0..count)
        .map(|i| SPlanePoint { sigma_h: sigma_h_min * (1.0 - i as f64 / (count - 1) as f64), mu_h })
        .collect();
    Ok(points
        .iter()
        .zip(dominant_poles(scheme, &points)?)
        .map(|(p, z)| DampingPoint { sigma_h: p.sigma_h, sigma_d_h: z.norm().ln(), region: region_of(z) })
        .collect())
}

/// A line of constant digital frequency or damping (Morgan & Qiao 2009, figs. 16-17).
#[derive(Debug, Clone, PartialEq)]
pub struct IsoLine {
    /// The constant: `omega_d h` (isofrequency) or `sigma_d h` (isodamping).
    pub level: f64,
    /// Its points.
    pub points: Vec<SPlanePoint>,
}

/// Isofrequency lines of symplectic Euler (Morgan & Qiao 2009, fig. 16): for each level `omega_d h`
/// and each `sigma h` of `sigma_h` (from 0 to -0.5 in the figure), the analog `mu h` that
/// symplectic Euler plays at that digital frequency, by the inverse warping of Algorithm 2
/// ([`inverse_warping`]). Points without a solution (`gamma h >= 1`) are left out.
pub fn symplectic_euler_isofrequency(levels: &[f64], sigma_h: &[f64]) -> Vec<IsoLine> {
    levels
        .iter()
        .map(|&level| IsoLine {
            level,
            points: sigma_h
                .iter()
                .filter_map(|&s| {
                    inverse_warping(level, -2.0 * s, 1.0).ok().map(|mu_h| SPlanePoint { sigma_h: s, mu_h })
                })
                .collect(),
        })
        .collect()
}

/// Isofrequency lines of any scheme: for each level and `sigma h`, the lowest `mu h` in
/// `(0, mu_h_max]` where the dominant pole's `omega_d h` reaches the level (scanned in 400 steps,
/// then bisected to `1e-13`).
pub fn isofrequency_lines(
    scheme: SchemeKind,
    levels: &[f64],
    sigma_h: &[f64],
    mu_h_max: f64,
) -> Result<Vec<IsoLine>, AnalysisError> {
    let frequency = |points: &[SPlanePoint]| -> Result<Vec<f64>, AnalysisError> {
        Ok(dominant_poles(scheme, points)?.into_iter().map(|z| z.im.abs().atan2(z.re)).collect())
    };
    let mut lines = Vec::with_capacity(levels.len());
    for &level in levels {
        let mut points = Vec::new();
        for &s in sigma_h {
            let line = |mu_h: f64| SPlanePoint { sigma_h: s, mu_h };
            if let Some(mu_h) = first_crossing(&frequency, &line, 0.0, mu_h_max, level)? {
                points.push(line(mu_h));
            }
        }
        lines.push(IsoLine { level, points });
    }
    Ok(lines)
}

/// Isodamping lines of any scheme (Morgan & Qiao 2009, fig. 17 for symplectic Euler): for each
/// level `sigma_d h` and each `mu h`, the `sigma h` nearest 0 in `[sigma_h_min, 0)` where the
/// dominant pole's `ln|z|` reaches the level (scanned in 400 steps from 0, then bisected). In
/// symplectic Euler's complex region the lines are vertical, `sigma h = (e^{2 sigma_d h} - 1) / 2`
/// (eq. 44).
pub fn isodamping_lines(
    scheme: SchemeKind,
    levels: &[f64],
    mu_h: &[f64],
    sigma_h_min: f64,
) -> Result<Vec<IsoLine>, AnalysisError> {
    let damping = |points: &[SPlanePoint]| -> Result<Vec<f64>, AnalysisError> {
        Ok(dominant_poles(scheme, points)?.into_iter().map(|z| z.norm().ln()).collect())
    };
    let mut lines = Vec::with_capacity(levels.len());
    for &level in levels {
        let mut points = Vec::new();
        for &m in mu_h {
            let line = |sigma_h: f64| SPlanePoint { sigma_h, mu_h: m };
            if let Some(sigma_h) = first_crossing(&damping, &line, 0.0, sigma_h_min, level)? {
                points.push(line(sigma_h));
            }
        }
        lines.push(IsoLine { level, points });
    }
    Ok(lines)
}

/// A quantity evaluated at many points of the s-plane at once.
type Evaluation<'a> = dyn Fn(&[SPlanePoint]) -> Result<Vec<f64>, AnalysisError> + 'a;

/// The first parameter `t` from `start` towards `end` where `value(line(t))` crosses `level`:
/// 400 samples, then bisection to `1e-13` of the range; a jump across the level (a pole leaving
/// the complex region) is not a crossing.
fn first_crossing(
    value: &Evaluation<'_>,
    line: &dyn Fn(f64) -> SPlanePoint,
    start: f64,
    end: f64,
    level: f64,
) -> Result<Option<f64>, AnalysisError> {
    const SAMPLES: usize = 400;
    let parameters: Vec<f64> =
        (0..=SAMPLES).map(|i| start + (end - start) * i as f64 / SAMPLES as f64).collect();
    let points: Vec<SPlanePoint> = parameters.iter().map(|&t| line(t)).collect();
    let values = value(&points)?;
    let side = |v: f64| v >= level;
    for i in 1..=SAMPLES {
        if side(values[i]) == side(values[i - 1]) || !values[i].is_finite() {
            continue;
        }
        let (mut near, mut far) = (parameters[i - 1], parameters[i]);
        let near_side = side(values[i - 1]);
        while (far - near).abs() > 1e-13 * (end - start).abs() {
            let middle = 0.5 * (near + far);
            if side(value(&[line(middle)])?[0]) == near_side {
                near = middle;
            } else {
                far = middle;
            }
        }
        // A jump (a pole leaving the complex region) is not a crossing.
        let t = 0.5 * (near + far);
        let reached = (value(&[line(t)])?[0] - level).abs() <= 1e-6 * level.abs().max(1.0);
        return Ok(reached.then_some(t));
    }
    Ok(None)
}
