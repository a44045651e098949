//! `hooke fit RECORDING.wav... --as string -o fitted.toml`: a guitar whose strings sound like
//! recorded notes, one string per recording (docs/fit.md): each note measured
//! (`hooke::analysis::recording`), a string fitted to it and designed for the scheme and rate;
//! optionally the fitted instrument playing the recorded note (`--wav`) and a table of every
//! partial as recorded, fitted and simulated (`--report`).

use crate::interrupt::Interrupt;
use crate::load::parse_scheme;
use crate::outputs::check_outputs;
use crate::render::{render_sources, write_text, RenderArgs, ScoreText, Sources};
use crate::run::write_wav_file;
use hooke::analysis::recording::fit::{fit_string, StringFit};
use hooke::analysis::recording::{measure_note, t60, NoteMeasurement};
use hooke::format::instrument::{fitted_names, guitar_toml, parse as parse_instrument};
use hooke::instrument::fitted::{fitted_guitar, FittedString};
use hooke::instrument::guitar::{note_frequency, GuitarSpec};
use hooke::io::{read_wav, SampleFormat, WavOptions};
use hooke::scheme::SchemeKind;
use hooke_plot::partials::{decay_chart, spectra_chart, PartialsData};
use hooke_plot::Curve;
use miette::miette;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What a recording is fitted as.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitKind {
    /// A plucked string (one recording), written as a guitar of one string.
    String,
    /// A guitar: one string for each recording.
    Guitar,
    /// A struck bar (one recording), written as a marimba of one key.
    Bar,
    /// A struck bell (one recording), written as a bell of one key.
    Bell,
    /// A struck plate (one recording), written as bell plates of one key.
    Plate,
}

/// Arguments of `hooke fit`.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// The recordings (WAV, any rate from 8 kHz, the channels averaged), one note each.
    #[arg(required = true)]
    pub recordings: Vec<PathBuf>,
    /// What to fit them as.
    #[arg(long = "as", value_enum)]
    pub kind: FitKind,
    /// The note each recording plays (a name such as "E2" or a frequency in Hz), one for every
    /// recording, in order; without it the pitch is found from 25 Hz to 4.5 kHz. A bell's is its
    /// strike note (without it, half its loudest mode's frequency), a plate's its first mode
    /// (without it, its lowest).
    #[arg(long, num_args = 1.., value_delimiter = ',')]
    pub note: Vec<String>,
    /// The scheme the instrument is designed for and written with.
    #[arg(long, default_value = "symplectic-euler", value_parser = parse_scheme)]
    pub scheme: SchemeKind,
    /// The output rate the instrument is written with, Hz (default: the first recording's).
    #[arg(long)]
    pub rate: Option<u32>,
    /// The instrument file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Also render the fitted instrument playing the recorded note (same onset, length and rate,
    /// brought to the recording's level) to this WAV file; one recording only.
    #[arg(long)]
    pub wav: Option<PathBuf>,
    /// Also draw each partial's (or a struck body's mode's) T60 against its frequency, recorded,
    /// simulated (with --wav) and by the fitted law, to this picture (PNG or SVG); with --wav, the two spectra of the first
    /// second as well, to the same name with `-spectrum` before the extension. One recording
    /// only.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Also write the table of every partial, recorded, fitted and simulated, here (Markdown);
    /// it is printed as well.
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// A recording, read and measured.
struct Recorded {
    path: PathBuf,
    samples: Vec<f64>,
    rate: f64,
    note: NoteMeasurement,
    fit: StringFit,
}

/// `hooke fit`.
pub fn fit(args: &FitArgs, interrupt: &Interrupt) -> miette::Result<()> {
    let spectrum_plot = args.plot.as_deref().filter(|_| args.wav.is_some()).map(spectrum_path);
    check_outputs([
        ("--output", Some(args.output.as_path())),
        ("--wav", args.wav.as_deref()),
        ("--report", args.report.as_deref()),
        ("--plot", args.plot.as_deref()),
        ("--plot", spectrum_plot.as_deref()),
    ])?;
    if !args.note.is_empty() && args.note.len() != args.recordings.len() {
        return Err(miette!(
            "--note: expected one note for each of the {} recordings; found {}",
            args.recordings.len(),
            args.note.len()
        ));
    }
    if args.kind != FitKind::Guitar && args.recordings.len() != 1 {
        return Err(miette!(
            "--as {}: expected one recording; found {} (use --as guitar for several strings)",
            match args.kind {
                FitKind::Bar => "bar",
                FitKind::Bell => "bell",
                FitKind::Plate => "plate",
                _ => "string",
            },
            args.recordings.len()
        ));
    }
    for (flag, given) in [("--wav", args.wav.is_some()), ("--plot", args.plot.is_some())] {
        if given && args.recordings.len() != 1 {
            return Err(miette!("{flag}: one recorded note; found {} recordings", args.recordings.len()));
        }
    }
    let hints: Vec<Option<f64>> = if args.note.is_empty() {
        vec![None; args.recordings.len()]
    } else {
        args.note.iter().map(|note| parse_note(note).map(Some)).collect::<miette::Result<_>>()?
    };
    match args.kind {
        FitKind::Bar => return crate::fit_bar::fit_bar(args, hints[0], interrupt),
        FitKind::Bell => return crate::fit_bell::fit_bell(args, hints[0], interrupt),
        FitKind::Plate => return crate::fit_plate::fit_plate(args, hints[0], interrupt),
        FitKind::String | FitKind::Guitar => {}
    }
    let recorded: Vec<Recorded> = args
        .recordings
        .iter()
        .zip(hints)
        .map(|(path, hint)| measure(path, hint))
        .collect::<miette::Result<_>>()?;
    let rate = args.rate.map_or(recorded[0].rate, f64::from);
    let fundamentals: Vec<f64> = recorded.iter().map(|r| r.fit.fundamental_hz).collect();
    let strings: Vec<FittedString> = fitted_names(&fundamentals)
        .into_iter()
        .zip(&recorded)
        .map(|(name, r)| FittedString { name, fit: r.fit.clone() })
        .collect();
    let spec = fitted_guitar(&strings);
    let comment = header(&recorded, args);
    let text = guitar_toml(&spec, args.scheme, rate, &comment);
    write_instrument(&args.output, &text, args.scheme, rate)?;
    let mut report = summary(&recorded, &spec);
    if let (Some(path), [r]) = (&args.wav, &recorded[..]) {
        let sound = resynthesis(&text, &spec, r, rate, args.scheme, interrupt)?;
        write_wav_file(
            path,
            std::slice::from_ref(&sound),
            rate as u32,
            WavOptions { format: SampleFormat::Float32, normalize: false },
        )?;
        eprintln!("wrote {}", path.display());
        let simulated = measure_note(&sound, rate, Some(r.note.fundamental_hz))
            .map_err(|e| miette!("--wav {}: the resynthesis could not be measured: {e}", path.display()))?;
        report.push_str(&table(&r.note, &r.fit, Some(&simulated)));
        if let (Some(plot), Some(spectra)) = (&args.plot, &spectrum_plot) {
            draw(plot, &decay_chart(&partials_data(r, Some(&simulated))))?;
            let top = r.note.partials.iter().fold(0.0f64, |m, p| m.max(p.main.frequency_hz)) * 1.1;
            let title = format!("{}: the first second, recorded and fitted", r.path.display());
            let chart = spectra_chart(
                &title,
                "fitted string",
                (&r.samples, r.rate),
                (&sound, rate),
                r.note.onset_s,
                top,
            );
            draw(spectra, &chart)?;
        }
    } else if let (Some(plot), [r]) = (&args.plot, &recorded[..]) {
        draw(plot, &decay_chart(&partials_data(r, None)))?;
        report.push_str(&table(&r.note, &r.fit, None));
    } else {
        for r in &recorded {
            let _ = writeln!(report, "\n### {}\n", r.path.display());
            report.push_str(&table(&r.note, &r.fit, None));
        }
    }
    println!("{report}");
    if let Some(path) = &args.report {
        write_text(path, &report).map_err(|e| miette!("--report {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// `--note`: a note name or a frequency in Hz.
pub(crate) fn parse_note(text: &str) -> miette::Result<f64> {
    note_frequency(text)
        .or_else(|| text.parse::<f64>().ok().filter(|hz| *hz > 0.0 && hz.is_finite()))
        .ok_or_else(|| {
            miette!("--note: expected a note name such as \"E2\" or a frequency in Hz; found \"{text}\"")
        })
}

/// Reads and measures one recording; errors name the file.
fn measure(path: &Path, hint: Option<f64>) -> miette::Result<Recorded> {
    let wav = read_wav(path).map_err(|e| miette!("{}: expected a readable WAV file: {e}", path.display()))?;
    let samples = wav.mono();
    let note =
        measure_note(&samples, wav.rate, hint).map_err(|e| miette!("{}: expected {e}", path.display()))?;
    let fit = fit_string(&note).map_err(|e| miette!("{}: expected {e}", path.display()))?;
    Ok(Recorded { path: path.to_path_buf(), samples, rate: wav.rate, note, fit })
}

/// The instrument file's opening comment: what it was fitted from and how to play it.
fn header(recorded: &[Recorded], args: &FitArgs) -> String {
    let mut text = String::from("Fitted by `hooke fit` (docs/fit.md) to:\n");
    for r in recorded {
        let _ = writeln!(
            text,
            "  {}: f0 {:.3} Hz, B {:.3e}, {} partials, plucked at {:.3} of the length from an end",
            r.path.display(),
            r.fit.fundamental_hz,
            r.fit.inharmonicity,
            r.note.partials.len(),
            r.fit.pluck_position
        );
    }
    let _ = write!(
        text,
        "Play it: `hooke render {} SCORE.toml -o out.wav` (or a MIDI file).",
        args.output.display()
    );
    text
}

/// The fitted instrument playing the recorded note: plucked where the fit says and let go over
/// the fitted release at the recording's onset, for its length, brought to its level.
fn resynthesis(
    instrument: &str,
    spec: &GuitarSpec,
    recorded: &Recorded,
    rate: f64,
    scheme: SchemeKind,
    interrupt: &Interrupt,
) -> miette::Result<Vec<f64>> {
    let length = recorded.samples.len() as f64 / recorded.rate;
    // Pulled so that it lets go at the onset.
    let pull = spec.pluck.pull.min(recorded.note.onset_s.max(1e-4));
    let score = format!(
        "[score]\nduration = {length:?}\n\n[[pluck]]\ntime = {:?}\npart = {:?}\nposition = {:?}\nshape = \"pull\"\n\
         amplitude = 0.5\npull = {pull:?}\nrelease = {:?}\n",
        (recorded.note.onset_s - pull).max(0.0),
        spec.strings[0].0,
        spec.pluck.position,
        recorded.fit.pluck_release
    );
    let sound = play(instrument, &score, length, rate, scheme, interrupt)?;
    Ok(level_matched(sound, rate, (&recorded.samples, recorded.rate), recorded.note.onset_s))
}

/// `score` (TOML) played on `instrument` (an instrument file's text) for `length` s at `rate`
/// Hz with `scheme`: its first channel, in the simulation's units.
pub(crate) fn play(
    instrument: &str,
    score: &str,
    length: f64,
    rate: f64,
    scheme: SchemeKind,
    interrupt: &Interrupt,
) -> miette::Result<Vec<f64>> {
    let args = RenderArgs {
        rate: Some(rate as u32),
        scheme: Some(scheme),
        no_normalize: true,
        ..RenderArgs::for_texts(PathBuf::new())
    };
    let sources = Sources {
        instrument: (instrument, "<fitted instrument>"),
        score: (ScoreText::Toml(score), "<the recorded note>"),
        score_folder: None,
    };
    let rendered = render_sources(sources, &args, interrupt)?;
    if let Some(stopped) = rendered.stopped {
        return Err(stopped);
    }
    let mut sound = rendered.channels.into_iter().next().unwrap_or_default();
    sound.resize((length * rate).round() as usize, 0.0);
    Ok(sound)
}

/// `sound` at `rate` Hz scaled so that its rms over the first second from `onset_s` is the
/// recording's (samples and rate) over the same second.
pub(crate) fn level_matched(
    mut sound: Vec<f64>,
    rate: f64,
    recording: (&[f64], f64),
    onset_s: f64,
) -> Vec<f64> {
    let rms = |(v, rate): (&[f64], f64)| {
        let from = ((onset_s * rate) as usize).min(v.len());
        let second = &v[from..(from + rate as usize).min(v.len())];
        (second.iter().map(|x| x * x).sum::<f64>() / second.len().max(1) as f64).sqrt()
    };
    let (wanted, found) = (rms(recording), rms((&sound, rate)));
    if found > 0.0 {
        sound.iter_mut().for_each(|x| *x *= wanted / found);
    }
    sound
}

/// The fit in a few lines.
fn summary(recorded: &[Recorded], spec: &GuitarSpec) -> String {
    let mut text = String::from("## Fit\n\n| recording | onset (s) | f0 (Hz) | B | sigma_0 (1/s) | sigma_f (1/s per Hz) | sigma_1 (s) | pluck | release (ms) |\n|---|---|---|---|---|---|---|---|---|\n");
    for r in recorded {
        let _ = writeln!(
            text,
            "| {} | {:.4} | {:.4} | {:.3e} | {:.4} | {:.3e} | {:.3e} | {:.4} | {:.3} |",
            r.path.display(),
            r.note.onset_s,
            r.fit.fundamental_hz,
            r.fit.inharmonicity,
            r.fit.constant_loss,
            r.fit.linear_loss,
            r.fit.quadratic_loss,
            r.fit.pluck_position,
            r.fit.pluck_release * 1e3
        );
    }
    let _ = writeln!(
        text,
        "\n{} masses a string; plucked at {:.4} of the length from the nut.\n",
        spec.masses, spec.pluck.position
    );
    text
}

/// Every partial: as recorded, as the fit gives it (`n f0 sqrt(1 + B n^2)` and the loss law's
/// T60) and, with a resynthesis, as simulated.
fn table(recorded: &NoteMeasurement, fit: &StringFit, simulated: Option<&NoteMeasurement>) -> String {
    let strongest = recorded.partials.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude));
    let mut text = String::from(
        "| n | recorded (Hz) | T60 (s) | level (dB) | fitted (Hz) | T60 (s) | simulated (Hz) | T60 (s) | level (dB) |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let simulated_strongest =
        simulated.map_or(1.0, |s| s.partials.iter().fold(0.0f64, |m, p| m.max(p.main.amplitude)));
    for p in &recorded.partials {
        let n = p.number as f64;
        let fitted_hz = n * fit.fundamental_hz * (1.0 + fit.inharmonicity * n * n).sqrt();
        let simulated_cells =
            simulated.and_then(|s| s.partials.iter().find(|q| q.number == p.number)).map_or_else(
                || " |  | ".to_string(),
                |q| {
                    format!(
                        "{:.3} | {:.3} | {:.1}",
                        q.main.frequency_hz,
                        q.t60(),
                        20.0 * (q.main.amplitude / simulated_strongest).log10()
                    )
                },
            );
        let _ = writeln!(
            text,
            "| {} | {:.3} | {:.3} | {:.1} | {:.3} | {:.3} | {simulated_cells} |",
            p.number,
            p.main.frequency_hz,
            p.t60(),
            20.0 * (p.main.amplitude / strongest).log10(),
            fitted_hz,
            t60(fit.decay_rate(fitted_hz)),
        );
    }
    text
}

/// `fit.png` -> `fit-spectrum.png`.
pub(crate) fn spectrum_path(plot: &Path) -> PathBuf {
    let stem = plot.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let extension = plot.extension().map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    plot.with_file_name(format!("{stem}-spectrum{extension}"))
}

/// Draws `chart` to `path` (800 x 500 px) and says so.
pub(crate) fn draw(path: &Path, chart: &hooke_plot::Chart) -> miette::Result<()> {
    hooke_plot::save(chart, path, (800, 500)).map_err(|e| miette!("--plot {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// The T60s of the recording's partials, the simulation's (if any) and the law's.
fn partials_data(recorded: &Recorded, simulated: Option<&NoteMeasurement>) -> PartialsData {
    let t60s =
        |note: &NoteMeasurement| note.partials.iter().map(|p| (p.main.frequency_hz, p.t60())).collect();
    let top = recorded.note.partials.iter().fold(0.0f64, |m, p| m.max(p.main.frequency_hz));
    let law = (0..=100)
        .map(|i| {
            let f = recorded.fit.fundamental_hz + (top - recorded.fit.fundamental_hz) * i as f64 / 100.0;
            (f, t60(recorded.fit.decay_rate(f)))
        })
        .collect();
    PartialsData {
        title: format!("{}: each partial's T60, recorded and fitted", recorded.path.display()),
        recorded: Curve { label: "recording".into(), points: t60s(&recorded.note) },
        simulated: Curve {
            label: "fitted string, simulated".into(),
            points: simulated.map_or_else(Vec::new, t60s),
        },
        law: Curve { label: "fitted loss law".into(), points: law },
    }
}

/// Writes the fitted instrument file `text` to `path` once it builds for `scheme` at `rate` Hz
/// (a design the scheme cannot reach is refused, and nothing is written).
pub(crate) fn write_instrument(path: &Path, text: &str, scheme: SchemeKind, rate: f64) -> miette::Result<()> {
    let file =
        parse_instrument(text, "<fitted instrument>").map_err(|e| miette!("the fitted instrument: {e}"))?;
    file.build_stable(scheme, rate, None)
        .map_err(|e| miette!("the fitted instrument cannot be built: {e}"))?;
    write_text(path, text).map_err(|e| miette!("--output {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
