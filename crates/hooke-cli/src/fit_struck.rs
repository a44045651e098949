//! What `hooke fit --as bar`, `--as bell` and `--as plate` share: the one recording read, the
//! fitted instrument striking the recorded note (`--wav`), its modes drawn (`--plot`), and the
//! report printed and written.

use crate::fit::{draw, level_matched, play, spectrum_path, FitArgs};
use crate::interrupt::Interrupt;
use crate::render::write_text;
use crate::run::write_wav_file;
use hooke::analysis::recording::{measure_modes, t60, MeasuredPartial, ModesMeasurement};
use hooke::io::{read_wav, SampleFormat, WavOptions};
use hooke_plot::partials::{decay_chart, spectra_chart, PartialsData};
use hooke_plot::Curve;
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

/// The first recording of `args`, read.
pub(crate) fn read_recording(args: &FitArgs) -> miette::Result<Recording> {
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

/// What `--plot` draws of a struck fit.
pub(crate) struct ModesPlot<'a> {
    /// The recording's modes.
    pub recorded: &'a [MeasuredPartial],
    /// Its onset, s.
    pub onset_s: f64,
    /// The fitted instrument, for the legend ("fitted bell").
    pub fitted: &'a str,
    /// The fitted loss law's time constant at a frequency (Hz), s, where the kind has one.
    pub law: Option<&'a dyn Fn(f64) -> f64>,
}

/// With `--plot`: each mode's T60 against its frequency, recorded, simulated (with `resynthesis`:
/// its sound at `rate` Hz and its modes) and by the fitted law, drawn to the `--plot` file; with
/// a resynthesis, the two spectra of the first second too, to its `-spectrum` name.
pub(crate) fn draw_modes(
    args: &FitArgs,
    recording: &Recording,
    plot: &ModesPlot,
    resynthesis: Option<(&[f64], &[MeasuredPartial])>,
    rate: f64,
) -> miette::Result<()> {
    let Some(path) = &args.plot else { return Ok(()) };
    let t60s = |modes: &[MeasuredPartial]| modes.iter().map(|m| (m.main.frequency_hz, m.t60())).collect();
    let (low, top) = plot
        .recorded
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, t), m| (l.min(m.main.frequency_hz), t.max(m.main.frequency_hz)));
    let law = plot.law.map_or_else(Vec::new, |tau| {
        (0..=100).map(|i| low + (top - low) * i as f64 / 100.0).map(|f| (f, t60(1.0 / tau(f)))).collect()
    });
    let data = PartialsData {
        title: format!("{}: each mode's T60, recorded and fitted", recording.path.display()),
        recorded: Curve { label: "recording".into(), points: t60s(plot.recorded) },
        simulated: Curve {
            label: format!("{}, simulated", plot.fitted),
            points: resynthesis.map_or_else(Vec::new, |(_, modes)| t60s(modes)),
        },
        law: Curve { label: "fitted loss law".into(), points: law },
    };
    draw(path, &decay_chart(&data))?;
    if let Some((sound, _)) = resynthesis {
        let title = format!("{}: the first second, recorded and fitted", recording.path.display());
        let chart = spectra_chart(
            &title,
            plot.fitted,
            (&recording.samples, recording.rate),
            (sound, rate),
            plot.onset_s,
            top * 1.1,
        );
        draw(&spectrum_path(path), &chart)?;
    }
    Ok(())
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
