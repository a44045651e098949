//! Stopping a string at a fret.
//!
//! Fret `n` of 12-tone equal temperament stands at the fraction `1 - 2^(-n/12)` of the length
//! from the nut, so the stopped string is `2^(-n/12)` of the open one and sounds `n` semitones
//! higher. Morgan & Qiao 2009 stop the mass nearest the fret ([`FretMethod::Nearest`]): with 80
//! masses the sounding length is then off by up to half a segment, tens of cents.
//! [`FretMethod::Between`] also stops the mass nearest the fret but replaces the link from it
//! towards the bridge by one whose stiffness the analysis chooses so that the stopped string's
//! lowest *simulated* mode (the scheme's discrete pole at the step) is the fret's pitch: a stop
//! placed between the two masses around the fret. The link's stiffness starts at `k / (1 - a)` (a
//! segment shortened by the fraction `a` of the fret past the stopped mass) and is refined by the
//! secant method; its damper keeps the string's ratio `Z / k`. With `|a| <= 1/2` the link stays
//! below `2 k`, so the stopped string's highest mode stays under the open string's: as stable as
//! the open string, which the analysis checks.

use super::{check_stable, secant, InstrumentError, StringPart};
use crate::analysis::error::AnalysisError;
use crate::analysis::report::{analyse, AnalysisOptions};
use crate::model::{Anchor, Bending, Mass, Model, ModelError, Spring};
use crate::scheme::SchemeKind;
use crate::system::System;

/// How a fret stops a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FretMethod {
    /// Stop the mass nearest the fret, as Morgan & Qiao 2009 do.
    Nearest,
    /// Stop the mass nearest the fret and tune the link after it so the simulated pitch is the
    /// fret's.
    Between,
}

/// Where and how a string is stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FretStop {
    /// The stopped mass, 0-based from the nut.
    pub mass: usize,
    /// Stiffness of the link from the stopped mass towards the bridge, N/m.
    pub stiffness: f64,
    /// Damping of that link, N s/m.
    pub damping: f64,
    /// The stopped string's lowest simulated mode, Hz.
    pub frequency_hz: f64,
}

/// The fraction of the length from the nut where fret `fret` stands.
pub fn fret_position(fret: usize) -> f64 {
    1.0 - 2f64.powf(-(fret as f64) / 12.0)
}

/// The pitch of fret `fret` on `string`, Hz.
pub fn fret_pitch(string: &StringPart, fret: usize) -> f64 {
    string.frequency_hz * 2f64.powf(fret as f64 / 12.0)
}

/// The stop for fret `fret` (1-based) of `string` simulated with `scheme` at step `dt` (s).
pub fn fret_stop(
    string: &StringPart,
    fret: usize,
    method: FretMethod,
    scheme: SchemeKind,
    dt: f64,
) -> Result<FretStop, InstrumentError> {
    let n = string.masses.len();
    let place = fret_position(fret) * (n + 1) as f64;
    let stopped = place.round() as usize;
    let part = format!("fret {fret}");
    if fret == 0 || fret > string.frets || stopped + 2 > n + 1 {
        return Err(ModelError::new(
            part,
            "fret",
            format!(
                "a fret from 1 to {} that leaves at least 2 masses sounding",
                string.frets.min(max_fret(n))
            ),
            fret,
        )
        .into());
    }
    let sounding = n - stopped;
    // A stiff string's bending does not commute with its dampers once the stop's link differs,
    // so its damped analysis needs the state matrix's eigenvalues at every iteration: its pitch
    // is searched on the lossless string. A loss that decays the mode in tau seconds moves its
    // frequency by (1 / (w tau))^2 / 2 relative: 1.3e-6 at 100 Hz for tau = 1 s.
    let lossless = string.bending > 0.0;
    let lowest = |stiffness: f64| -> Result<f64, InstrumentError> {
        let system = System::new(&stopped_string(string, sounding, stiffness, lossless)?);
        let analysis = analyse(&system, scheme, dt, &AnalysisOptions::default())
            .map_err(|source| InstrumentError::Analysis { part: part.clone(), source })?;
        Ok(analysis.modes[0].discrete.frequency_hz())
    };
    let k = string.stiffness;
    let damping_ratio = string.damping / k;
    let stop = |stiffness: f64, frequency_hz: f64| FretStop {
        mass: stopped - 1,
        stiffness,
        damping: damping_ratio * stiffness,
        frequency_hz,
    };
    let result = match method {
        FretMethod::Nearest => stop(k, lowest(k)?),
        FretMethod::Between => {
            let target = fret_pitch(string, fret).ln();
            let past = place - stopped as f64;
            let error =
                |log_stiffness: f64| Ok::<_, InstrumentError>(lowest(log_stiffness.exp())?.ln() - target);
            let first = (k / (1.0 - past)).ln();
            let converged = secant(first, first + 1e-3, 1e-12, error)?;
            let Some(log_stiffness) = converged else {
                return Err(InstrumentError::Analysis {
                    part,
                    source: AnalysisError::Target(format!(
                        "no link stiffness puts the stopped string at {:.3} Hz",
                        fret_pitch(string, fret)
                    )),
                });
            };
            stop(log_stiffness.exp(), lowest(log_stiffness.exp())?)
        }
    };
    check_stable(
        &System::new(&stopped_string(string, sounding, result.stiffness, false)?),
        scheme,
        dt,
        &part,
    )?;
    Ok(result)
}

/// The highest fret that leaves two masses sounding on a string of `masses` masses.
fn max_fret(masses: usize) -> usize {
    (1..)
        .take_while(|&f| (fret_position(f) * (masses + 1) as f64).round() as usize + 2 <= masses + 1)
        .last()
        .unwrap_or(0)
}

/// The sounding part of a stopped string: `sounding` masses between the stop and the bridge,
/// the first link of stiffness `stiffness` (its damper keeping the string's `Z / k`), every
/// mass with the string's drag and, on a stiff string, its bending centred at each mass (the
/// stop then pins the sounding part as the bridge does); `lossless`: without dampers or drag.
fn stopped_string(
    string: &StringPart,
    sounding: usize,
    stiffness: f64,
    lossless: bool,
) -> Result<Model, ModelError> {
    let mut model = Model::new(1)?;
    let stop = model.add_anchor(Anchor::new("stop"))?;
    let bridge = model.add_anchor(Anchor::new("bridge"))?;
    let mut nodes = vec![stop];
    for i in 0..sounding {
        let drag = if lossless { 0.0 } else { string.drag };
        nodes.push(model.add_mass(Mass::new(format!("m{i}"), string.mass).drag(drag))?);
    }
    nodes.push(bridge);
    let ratio = if lossless { 0.0 } else { string.damping / string.stiffness };
    for (j, pair) in nodes.windows(2).enumerate() {
        let k = if j == 0 { stiffness } else { string.stiffness };
        model.add_spring(Spring::new(pair[0], pair[1], k).damping(ratio * k))?;
    }
    if string.bending > 0.0 {
        for triple in nodes.windows(3) {
            model.add_bending(Bending::new(triple[0], triple[1], triple[2], string.bending))?;
        }
    }
    Ok(model)
}
