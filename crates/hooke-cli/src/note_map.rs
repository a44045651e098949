//! The flags that say how MIDI notes and controllers play an instrument, and in which tuning,
//! shared by `hooke render FILE.mid` and `hooke play` (docs/play.md).

use hooke::format::tuning;
use hooke::instrument::Instrument;
use hooke::score::controls::ControlMapping;
use hooke::score::notes::{NoteMap, StringRule};
use hooke::score::tuning::Tuning;
use miette::miette;
use std::path::PathBuf;

/// How notes choose strings, and which controllers set which parameters.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct NoteMapArgs {
    /// MIDI: channel 1 plays the highest string, 2 the next, ... (instead of the lowest free fret).
    #[arg(long)]
    pub strings_by_channel: bool,
    /// MIDI: map a controller to a `set` parameter (tension or damping) of the parts its channel
    /// plays, or to where (position) or how hard (hardness) the next notes are plucked or struck,
    /// the value 0-127 sweeping the factor geometrically from LOW to HIGH (default 0.5:2 for
    /// tension, 0.25:4 for the others). Repeatable: --cc 1=damping --cc 74=tension:0.9:1.1
    #[arg(long = "cc", value_name = "CONTROLLER=PARAMETER[:LOW:HIGH]")]
    pub controls: Vec<ControlMapping>,
    /// MIDI: play the notes in this Scala scale (.scl), each on the fret or key of the nearest
    /// equal-tempered note with the string's tension moved by the rest (strings only).
    #[arg(long, value_name = "FILE.scl")]
    pub tuning: Option<PathBuf>,
    /// MIDI: the Scala keyboard map (.kbm) for --tuning (default: degree 0 on middle C, MIDI
    /// note 60, at 261.626 Hz, every key the next degree).
    #[arg(long, value_name = "FILE.kbm", requires = "tuning")]
    pub keyboard_map: Option<PathBuf>,
}

impl NoteMapArgs {
    /// How notes choose strings.
    pub fn rule(&self) -> StringRule {
        if self.strings_by_channel {
            StringRule::ByChannel
        } else {
            StringRule::LowestFret
        }
    }

    /// The note map of `instrument` with these flags; a mapping the instrument cannot take is
    /// blamed on `--cc`, a tuning the instrument cannot take on `--tuning`.
    pub fn map(&self, instrument: &Instrument) -> miette::Result<NoteMap> {
        let map = NoteMap::new(instrument, self.rule())
            .with_controls(&self.controls, instrument)
            .map_err(|e| miette!("--cc: {e}"))?;
        match self.tuning()? {
            Some(tuning) => map.with_tuning(tuning, instrument).map_err(|e| miette!("--tuning: {e}")),
            None => Ok(map),
        }
    }

    /// The tuning of `--tuning` and `--keyboard-map`, if any; a file that does not read is an
    /// error at its line and column.
    pub fn tuning(&self) -> miette::Result<Option<Tuning>> {
        let Some(scale) = &self.tuning else {
            return Ok(None);
        };
        tuning::load(scale, self.keyboard_map.as_deref()).map(Some).map_err(|e| miette!("{e}"))
    }
}
