//! The plugin's parameters and the state it saves with a project.

use crate::presets::Preset;
use crate::sound::Factor;
use crate::voices::Modulated;
use nice_plug::prelude::*;
use std::sync::RwLock;

/// The quietest and loudest gain, dB.
const GAIN_RANGE_DB: (f32, f32) = (-48.0, 12.0);

/// How long the gain takes to reach a new value, ms (no zipper noise).
const GAIN_SMOOTHING_MS: f32 = 50.0;

/// How long the body mix takes to reach a new value, ms (no zipper noise).
const MIX_SMOOTHING_MS: f32 = 50.0;

/// The largest force a full-scale audio input may push with, N: a hundred times a fortissimo
/// pluck's pull (`hooke::score::notes::PLUCK_PEAK`), room for a heavy body's bridge.
const INPUT_MAX_N: f32 = 50.0;

/// The lowest and highest tension factor (an octave of pitch down and up), and the damping,
/// position and hardness factors'.
pub const FACTOR_RANGE: (f32, f32) = (0.25, 4.0);

/// What the host sees and saves.
#[derive(Params)]
pub struct HookeParams {
    /// The output gain (a factor, shown in dB): after the instrument's own calibrated gain,
    /// which puts a fortissimo note at a quarter of full scale.
    #[id = "gain"]
    pub gain: FloatParam,
    /// The strings' tension, a factor of the instrument's own (1: as designed; the pitch goes
    /// as its square root, so 1.06 is about 50 cents up): every string takes it at its next
    /// note, the strings sounding at once (as a pitch bend does). On a drum, the membrane's.
    /// A CLAP host may modulate it voice by voice (`crate::voices`).
    #[id = "tension"]
    pub tension: FloatParam,
    /// The dampers of the strings' links, a factor of the instrument's own (1: as designed; more
    /// shortens the decays, the upper partials' most): taken as the tension is. On a drum, the
    /// membrane's. A CLAP host may modulate it voice by voice.
    #[id = "damping"]
    pub damping: FloatParam,
    /// Where the next notes are plucked or struck, a factor on the distance from a string's
    /// bridge (a bar's or a plate's nearer end) as designed (1): less is nearer the bridge,
    /// brighter and thinner.
    #[id = "position"]
    pub position: FloatParam,
    /// How hard the next notes are plucked or struck, a factor (1: as designed): a pluck's
    /// release takes its time divided by it, a hammer's or a mallet's felt is that much stiffer.
    #[id = "hardness"]
    pub hardness: FloatParam,
    /// For an instrument on a body (the acoustic guitar, the piano, the sitar), how much of its
    /// sound is the body's radiation (1, as designed) rather than the strings heard directly
    /// (0: a pickup on each string near the bridge), both calibrated to the same fortissimo
    /// level. Smoothed; no effect on an instrument without a body.
    #[id = "body-mix"]
    pub body_mix: FloatParam,
    /// The force, N, with which a full-scale signal on the Excitation input (a sidechain) pushes
    /// the instrument: its body's bridge, else each string, bar, plate or membrane (0: off, the
    /// input ignored).
    #[id = "input"]
    pub input: FloatParam,
    /// The shipped instrument played when no instrument file is set. A change rebuilds the
    /// instrument: the plugin asks the host to restart it (deactivate and activate).
    #[id = "preset"]
    pub preset: EnumParam<Preset>,
    /// An instrument file played instead of the preset (empty: none): saved with the project,
    /// so that it reopens with the same sound.
    #[persist = "instrument-file"]
    pub instrument_file: RwLock<String>,
    /// A Scala scale (`.scl`) the notes sound in (empty: 12-tone equal temperament; strings
    /// only), saved with the project; its keyboard map (`.kbm`, empty: the default map).
    #[persist = "tuning-file"]
    pub tuning_file: RwLock<String>,
    /// See [`HookeParams::tuning_file`].
    #[persist = "keyboard-map-file"]
    pub keyboard_map_file: RwLock<String>,
}

impl HookeParams {
    /// The parameter that sets `factor`.
    pub fn of(&self, factor: Factor) -> &FloatParam {
        match factor {
            Factor::Tension => &self.tension,
            Factor::Damping => &self.damping,
            Factor::Position => &self.position,
            Factor::Hardness => &self.hardness,
        }
    }
}

/// A factor parameter over [`FACTOR_RANGE`], 1 (as designed) in the middle of the host's slider.
fn factor(name: &str) -> FloatParam {
    let (min, max) = FACTOR_RANGE;
    FloatParam::new(
        name,
        1.0,
        FloatRange::SymmetricalSkewed { min, max, factor: FloatRange::skew_factor(-1.0), center: 1.0 },
    )
    .with_unit(" x")
    .with_value_to_string(formatters::v2s_f32_rounded(4))
}

impl Default for HookeParams {
    fn default() -> Self {
        let (low, high) = GAIN_RANGE_DB;
        Self {
            gain: FloatParam::new(
                "Gain",
                util::db_to_gain(0.0),
                FloatRange::Skewed {
                    min: util::db_to_gain(low),
                    max: util::db_to_gain(high),
                    factor: FloatRange::gain_skew_factor(low, high),
                },
            )
            .with_smoother(SmoothingStyle::Logarithmic(GAIN_SMOOTHING_MS))
            .with_unit(" dB")
            .with_value_to_string(formatters::v2s_f32_gain_to_db(1))
            .with_string_to_value(formatters::s2v_f32_gain_to_db()),
            tension: factor("Tension").with_poly_modulation_id(Modulated::Tension as u32),
            damping: factor("Damping").with_poly_modulation_id(Modulated::Damping as u32),
            position: factor("Position"),
            hardness: factor("Hardness"),
            body_mix: FloatParam::new("Body mix", 1.0, FloatRange::Linear { min: 0.0, max: 1.0 })
                .with_smoother(SmoothingStyle::Linear(MIX_SMOOTHING_MS))
                .with_unit(" %")
                .with_value_to_string(formatters::v2s_f32_percentage(0))
                .with_string_to_value(formatters::s2v_f32_percentage()),
            input: FloatParam::new(
                "Input drive",
                0.0,
                FloatRange::Skewed { min: 0.0, max: INPUT_MAX_N, factor: FloatRange::skew_factor(-2.0) },
            )
            .with_unit(" N")
            .with_value_to_string(formatters::v2s_f32_rounded(3)),
            preset: EnumParam::new("Instrument", Preset::AcousticGuitar).non_automatable(),
            instrument_file: RwLock::new(String::new()),
            tuning_file: RwLock::new(String::new()),
            keyboard_map_file: RwLock::new(String::new()),
        }
    }
}
