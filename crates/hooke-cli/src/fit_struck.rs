//! What `hooke fit --as bar` and `--as bell` share: the one recording read, the fitted
//! instrument striking the recorded note (`--wav`), and the report printed and written.

use crate::fit::{level_matched, play, FitArgs};
use crate::interrupt::Interrupt;
use crate::render::write_text;
use crate::run::write_wav_file;
use hooke::analysis::recording::{measure_modes, ModesMeasurement};
use hooke::io::{read_wav, SampleFormat, WavOptions};
use miette::miette;
use std::path::PathBuf;

/// The one recording of a struck note, read.
pub(crate) struct Recording {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its samples, the channels averaged (full scale 1).
    pub samples: Vec<f64>,
    /// Its rate, Hz.
    pub rate: f64,
}

/// The first recording of `args`, read; `--plot` refused (it draws a string's partials), with
/// where `modes` (what the kind fits: "a bar's two modes") are instead.
pub(crate) fn read_recording(args: &FitArgs, modes: &str) -> miette::Result<Recording> {
    if args.plot.is_some() {
        return Err(miette!("--plot: draws a string's partials; {modes} are in the report"));
    }
    let path = args.recordings[0].clone();
    let wav =
        read_wav(&path).map_err(|e| miette!("{}: expected a readable WAV file: {e}", path.display()))?;
    Ok(Recording { samples: wav.mono(), rate: wav.rate, path })
}

/// Every mode of `recording` (`hooke::analysis::recording::measure_modes`).
pub(crate) fn recorded_modes(recording: &Recording) -> miette::Result<ModesMeasurement> {
    measure_modes(&recording.samples, recording.rate)
        .map_err(|e| miette!("{}: expected {e}", recording.path.display()))
}

/// With `--wav`: the instrument `instrument` (TOML text) striking its part `key` at 1 m/s at
/// `onset_s`, as long as `recording`, at `rate` Hz with `args`' scheme, brought to the
/// recording's level, written to the `--wav` file and returned; `None` without `--wav`.
pub(crate) fn strike_resynthesis(
    args: &FitArgs,
    instrument: &str,
    key: &str,
    onset_s: f64,
    recording: &Recording,
    rate: f64,
    interrupt: &Interrupt,
) -> miette::Result<Option<Vec<f64>>> {
    let Some(wav_path) = &args.wav else { return Ok(None) };
    let length = recording.samples.len() as f64 / recording.rate;
    let score = format!(
        "[score]\nduration = {length:?}\n\n[[strike]]\ntime = {onset_s:?}\npart = {key:?}\nvelocity = 1.0\n"
    );
    let sound = play(instrument, &score, length, rate, args.scheme, interrupt)?;
    let sound = level_matched(sound, rate, (&recording.samples, recording.rate), onset_s);
    let format = WavOptions { format: SampleFormat::Float32, normalize: false };
    write_wav_file(wav_path, std::slice::from_ref(&sound), rate as u32, format)?;
    eprintln!("wrote {}", wav_path.display());
    Ok(Some(sound))
}

/// The resynthesis' measure, or `None` with a warning where it cannot be measured (its modes
/// beat so that the measure takes it for two notes, say): the WAV is written all the same, and
/// the report has no simulated columns.
pub(crate) fn resynthesis_measured<T, E: std::fmt::Display>(measured: Option<Result<T, E>>) -> Option<T> {
    match measured? {
        Ok(found) => Some(found),
        Err(e) => {
            eprintln!(
                "warning: --wav: the resynthesis could not be measured ({e}); the report leaves it out"
            );
            None
        }
    }
}

/// `report` printed, and written to the `--report` file where given.
pub(crate) fn print_report(report: &str, args: &FitArgs) -> miette::Result<()> {
    println!("{report}");
    if let Some(report_path) = &args.report {
        write_text(report_path, report).map_err(|e| miette!("--report {}: {e}", report_path.display()))?;
        eprintln!("wrote {}", report_path.display());
    }
    Ok(())
}
