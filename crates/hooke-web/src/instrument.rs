//! An instrument file built for the page: parsed, built for a scheme at an output rate
//! (oversampled as its `[render]` says or as the analysis finds stable), with the gain that puts
//! a fortissimo note at a quarter of full scale, as `hooke play`. Live play ([`crate::LiveInstrument`])
//! and scores ([`crate::ScorePlayer`]) start from it; a score is checked against it.

use crate::playground::WebError;
use hooke::format::instrument::parse;
use hooke::instrument::Instrument;
use hooke::scheme::SchemeKind;
use hooke::score::live::calibrate;
use hooke::score::performance::PerformanceOptions;
use hooke::score::Score;

/// A fortissimo note's peak, as a fraction of full scale (room for chords), as `hooke play`.
const NOTE_LEVEL: f64 = 0.25;

/// An instrument built to be played.
pub struct BuiltInstrument {
    /// The instrument file's name, for errors.
    pub(crate) file: String,
    pub(crate) instrument: Instrument,
    /// Output rate, Hz.
    pub(crate) rate: f64,
    /// Simulation steps per output frame.
    pub(crate) oversample: usize,
    /// Output samples (full scale 1) per pickup unit.
    pub(crate) gain: f64,
}

impl BuiltInstrument {
    /// Parses the instrument file `source` (called `file` in errors) and builds it for `scheme`
    /// (the file's when `None`) at `rate` Hz (the output rate).
    pub fn load(source: &str, file: &str, rate: f64, scheme: Option<SchemeKind>) -> Result<Self, WebError> {
        let instrument_file = parse(source, file)?;
        let scheme = scheme.unwrap_or(instrument_file.scheme);
        let (oversample, instrument) =
            instrument_file.build_stable(scheme, rate, instrument_file.oversample)?;
        let (gain, _) = calibrate(&instrument, Self::options_for(oversample), NOTE_LEVEL)
            .map_err(|e| WebError::run(file, e.to_string()))?;
        Ok(Self { file: file.to_string(), instrument, rate, oversample, gain })
    }

    /// Checks the instrument file `source` (called `file` in errors) as it is read, without
    /// building it (a build designs every string, too slow to do at each keystroke).
    pub fn check(source: &str, file: &str) -> Result<(), WebError> {
        parse(source, file).map(|_| ()).map_err(WebError::from)
    }

    /// The performance's options: the oversampling, the rest as `hooke play`.
    pub(crate) fn options(&self) -> PerformanceOptions {
        Self::options_for(self.oversample)
    }

    fn options_for(oversample: usize) -> PerformanceOptions {
        PerformanceOptions { oversample, ..PerformanceOptions::default() }
    }

    /// Reads the score file `source` (called `file` in errors) against the instrument: every
    /// event resolved, or the first error at its line and column. Files it names (a drive's
    /// WAV) cannot be read in the browser.
    pub fn score(&self, source: &str, file: &str) -> Result<Score, WebError> {
        hooke::format::score::parse(source, file, &self.instrument, None).map_err(WebError::from)
    }

    /// Reads the score file `source` (called `file` in errors) against the instrument and
    /// returns the output frames it lasts, as [`crate::ScorePlayer::frames`] counts them.
    pub fn score_frames(&self, source: &str, file: &str) -> Result<u64, WebError> {
        let steps = self.score(source, file)?.steps(self.instrument.dt);
        Ok(crate::score::output_frames(steps, self.oversample))
    }

    /// The output rate, Hz.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Simulation steps per output frame.
    pub fn oversample(&self) -> usize {
        self.oversample
    }
}
