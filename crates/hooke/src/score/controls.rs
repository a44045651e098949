//! MIDI controllers mapped to the score's `set` parameters or to how notes are excited: a knob or
//! a fader (CC 1, the mod wheel; CC 74, brightness; ...) that changes a part's tension or damping
//! while it plays, or where and how hard the next notes are plucked or struck.
//!
//! A mapping `CONTROLLER=PARAMETER:LOW:HIGH` turns the controller's value `v` (0 to 127) into
//! the factor `LOW (HIGH / LOW)^(v / 127)` (a geometric sweep: equal steps of the knob are equal
//! musical steps, since the pitch goes as the square root of the tension), which the note map
//! applies as `set PARAMETER` on the parts the controller's channel plays, or to every channel's
//! next notes' excitation (`position`, `hardness`: [`ExciteParameter`]) (docs/play.md). Until
//! the controller first moves, its parameter is the instrument's as built (factor 1).

use crate::model::quoted;
use crate::score::expression::ExciteParameter;
use std::fmt;
use std::str::FromStr;

/// A part parameter a `set` changes (docs/score-format.md, `[[set]]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetParameter {
    /// Every link's stiffness, as a factor of the instrument's.
    Tension,
    /// Every link's damper, as a factor of the instrument's.
    Damping,
}

impl SetParameter {
    /// Its name in a score and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tension => "tension",
            Self::Damping => "damping",
        }
    }

    /// The range a mapping without one sweeps: tension 1/2 to 2 (half an octave of pitch either
    /// way), damping 1/4 to 4.
    pub fn default_range(self) -> (f64, f64) {
        match self {
            Self::Tension => (0.5, 2.0),
            Self::Damping => (0.25, 4.0),
        }
    }
}

/// What a controller moves: a part parameter a `set` changes, or how the next notes are excited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Controlled {
    /// A part's tension or damping, on the parts the channel plays.
    Set(SetParameter),
    /// Where or how hard the next notes (on every channel) are plucked or struck.
    Excite(ExciteParameter),
}

impl Controlled {
    /// The names a mapping gives, each with what it moves.
    const NAMED: [(&'static str, Controlled); 4] = [
        ("tension", Controlled::Set(SetParameter::Tension)),
        ("damping", Controlled::Set(SetParameter::Damping)),
        ("position", Controlled::Excite(ExciteParameter::Position)),
        ("hardness", Controlled::Excite(ExciteParameter::Hardness)),
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        Self::NAMED.iter().find(|(_, c)| *c == self).map_or("", |(name, _)| name)
    }

    /// The range a mapping without one sweeps: a `set` parameter's ([`SetParameter::default_range`]);
    /// an excitation's 1/4 to 4 (the plugin's).
    pub fn default_range(self) -> (f64, f64) {
        match self {
            Self::Set(parameter) => parameter.default_range(),
            Self::Excite(_) => (0.25, 4.0),
        }
    }
}

/// One controller mapped to one parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlMapping {
    /// The MIDI controller number, 0 to 119 except 64 (the sustain pedal).
    pub controller: u8,
    /// What it moves.
    pub parameter: Controlled,
    /// The factor at controller value 0 (> 0).
    pub low: f64,
    /// The factor at controller value 127 (> 0).
    pub high: f64,
}

impl ControlMapping {
    /// The factor for controller value `value` (0 to 127; larger values count as 127).
    pub fn factor(&self, value: u8) -> f64 {
        let share = f64::from(value.min(127)) / 127.0;
        self.low * (self.high / self.low).powf(share)
    }
}

impl fmt::Display for ControlMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}:{}:{}", self.controller, self.parameter.name(), self.low, self.high)
    }
}

/// Why a mapping was refused: what was expected, and what was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("expected {expected}, found {found}")]
pub struct ControlError {
    /// What a mapping must be.
    pub expected: String,
    /// What it was.
    pub found: String,
}

impl FromStr for ControlMapping {
    type Err = ControlError;

    /// Reads `CONTROLLER=PARAMETER` or `CONTROLLER=PARAMETER:LOW:HIGH` (`74=damping:0.5:8`).
    fn from_str(text: &str) -> Result<Self, ControlError> {
        let refuse = |expected: &str, found: &str| ControlError {
            expected: expected.to_string(),
            found: quoted(found),
        };
        let form = "CONTROLLER=PARAMETER or CONTROLLER=PARAMETER:LOW:HIGH (e.g. 74=damping:0.5:8)";
        let (controller, rest) = text.split_once('=').ok_or_else(|| refuse(form, text))?;
        let controller: u8 =
            controller.trim().parse().ok().filter(|c| *c < 120 && *c != 64).ok_or_else(|| {
                refuse("a controller number from 0 to 119 other than 64 (the sustain pedal)", controller)
            })?;
        let mut fields = rest.split(':');
        let name = fields.next().unwrap_or_default().trim();
        let Some(&(_, parameter)) = Controlled::NAMED.iter().find(|(known, _)| *known == name) else {
            return Err(refuse("the parameter \"tension\", \"damping\", \"position\" or \"hardness\"", name));
        };
        let bounds: Vec<&str> = fields.collect();
        let (low, high) = match bounds[..] {
            [] => parameter.default_range(),
            [low, high] => {
                let factor = |field: &str| {
                    field.trim().parse::<f64>().ok().filter(|f| f.is_finite() && *f > 0.0).ok_or_else(|| {
                        refuse("a factor LOW or HIGH that is a finite number greater than 0", field)
                    })
                };
                (factor(low)?, factor(high)?)
            }
            _ => return Err(refuse(form, text)),
        };
        Ok(Self { controller, parameter, low, high })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_sweeps_geometrically_from_low_to_high() {
        let mapping: ControlMapping = "74=tension:0.5:2".parse().unwrap();
        assert_eq!(mapping.controller, 74);
        assert_eq!(mapping.parameter, Controlled::Set(SetParameter::Tension));
        assert_eq!(mapping.factor(0), 0.5);
        assert!((mapping.factor(127) - 2.0).abs() < 1e-15);
        // Half way up the knob is the geometric mean of the ends.
        let half = 0.5 * (2.0f64 / 0.5).powf(63.5 / 127.0);
        assert!((mapping.factor(63) * (2.0f64 / 0.5).powf(0.5 / 127.0) - half).abs() < 1e-15);
        // Geometric: every step of the knob multiplies by the same 4^(1/127).
        let step = 4.0f64.powf(1.0 / 127.0);
        assert!((0..127).all(|v| (mapping.factor(v + 1) / mapping.factor(v) / step - 1.0).abs() < 1e-14));
        assert_eq!("1=damping".parse::<ControlMapping>().unwrap().factor(0), 0.25);
        let hardness: ControlMapping = "20=hardness".parse().unwrap();
        assert_eq!(hardness.parameter, Controlled::Excite(ExciteParameter::Hardness));
        assert_eq!((hardness.factor(0), hardness.factor(127)), (0.25, 4.0));
        let position: ControlMapping = "21=position:1:0.5".parse().unwrap();
        assert_eq!(position.parameter, Controlled::Excite(ExciteParameter::Position));
        assert_eq!(position.to_string(), "21=position:1:0.5");
    }

    #[test]
    fn bad_mappings_say_what_was_expected() {
        for (text, expected) in [
            ("74", "CONTROLLER=PARAMETER"),
            ("64=tension", "other than 64"),
            ("120=tension", "from 0 to 119"),
            ("x=tension", "controller number"),
            ("1=pitch", "\"position\" or \"hardness\""),
            ("1=damping:0:2", "greater than 0"),
            ("1=damping:1:inf", "finite"),
            ("1=damping:1", "CONTROLLER=PARAMETER:LOW:HIGH"),
        ] {
            let error = text.parse::<ControlMapping>().unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
