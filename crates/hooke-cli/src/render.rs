//! `hooke render INSTRUMENT.toml SCORE.toml -o out.wav`: an instrument played from a score (or
//! a Standard MIDI File, mapped by the library's note map), simulated at K times the output rate
//! and decimated, with a progress bar on a terminal; and `hooke demo`: the guitar on its body,
//! a piano phrase, a marimba run and the 88-key grand piano's piece.

use crate::device::DeviceChoice;
use crate::diagnostics::FileDiagnostic;
use crate::interrupt::{stopped_message, Interrupt};
use crate::limits::{check_memory, check_work};
use crate::load::{parse_format, parse_scheme};
use crate::note_map::NoteMapArgs;
use crate::outputs::check_outputs;
use crate::run::{progress_bar, warn_over_full_scale, write_wav_file};
use hooke::format::instrument::{parse as parse_instrument, InstrumentFile};
use hooke::format::score::parse as parse_score;
use hooke::io::{check_wav_size, SampleFormat, WavOptions};
use hooke::model::number;
use hooke::scheme::SchemeKind;
use hooke::score::performance::{Performance, PerformanceOptions};
use miette::{miette, IntoDiagnostic, WrapErr};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of `hooke render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The instrument file (`[guitar]`, `[piano]`, `[marimba]`, `[drum]`, `[reed]`, `[sitar]` or
    /// `[pendulum]`).
    pub instrument: PathBuf,
    /// The score file (timed plucks, strikes, bows, frets, damps, drives, sets), or a Standard
    /// MIDI File (`.mid`, `.midi`, or any file starting `MThd`).
    pub score: PathBuf,
    /// MIDI: leave out the notes the instrument cannot play (each is named) instead of refusing.
    #[arg(long)]
    pub lenient: bool,
    /// MIDI: how notes choose strings and which controllers set what.
    #[command(flatten)]
    pub notes: NoteMapArgs,
    /// MIDI: seconds rendered after the file's last event.
    #[arg(long, default_value_t = 2.0, value_parser = parse_tail)]
    pub tail: f64,
    /// MIDI: also write the equivalent score file (TOML) here.
    #[arg(long)]
    pub write_score: Option<PathBuf>,
    /// The WAV file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output sample rate, Hz (default: the instrument file's, else 44100).
    #[arg(long)]
    pub rate: Option<u32>,
    /// Simulation steps per output sample, 1 to 16 (default: the file's, else the smallest the
    /// analysis finds stable).
    #[arg(long, value_parser = parse_oversample)]
    pub oversample: Option<usize>,
    /// Scheme (default: the instrument file's).
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<SchemeKind>,
    /// WAV sample encoding: f32 (default, as for `hooke run` and the model file's `[output]`),
    /// i16 or i24.
    #[arg(long, default_value = "f32", value_parser = parse_format)]
    pub format: SampleFormat,
    /// Write the samples as simulated (in metres) instead of normalising the peak to -1 dBFS.
    #[arg(long)]
    pub no_normalize: bool,
    /// Threads for the string kernel (the strings are independent), 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = parse_threads)]
    pub threads: usize,
    /// Use the general path even where a kernel applies.
    #[arg(long)]
    pub general: bool,
    /// Keep uniform strings and membranes off the modal kernel (symplectic Euler on the string
    /// bank and stencils, other schemes on the general path), to compare.
    #[arg(long)]
    pub no_modal: bool,
    /// Where to run: cpu, or gpu (a uniform string with any linear scheme, a uniform membrane
    /// with symplectic Euler; f64 where the GPU has it, else f32; a build with the `gpu`
    /// feature and a Vulkan driver).
    #[arg(long, value_enum, default_value_t)]
    pub device: DeviceChoice,
}

/// `hooke render ...`.
pub fn render(args: &RenderArgs, interrupt: &Interrupt) -> miette::Result<()> {
    check_outputs([
        ("--output", Some(args.output.as_path())),
        ("--write-score", args.write_score.as_deref()),
    ])?;
    let instrument = std::fs::read_to_string(&args.instrument)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read instrument file {}", args.instrument.display()))?;
    let bytes = std::fs::read(&args.score)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read score file {}", args.score.display()))?;
    let score = if is_midi(&args.score, &bytes) {
        ScoreText::Midi(&bytes)
    } else {
        ScoreText::Toml(std::str::from_utf8(&bytes).map_err(|e| {
            miette!(
                "{}: expected a score file in UTF-8 (TOML) or a MIDI file, found {e}",
                args.score.display()
            )
        })?)
    };
    let sources = Sources {
        instrument: (&instrument, &args.instrument.display().to_string()),
        score: (score, &args.score.display().to_string()),
        score_folder: args.score.parent(),
    };
    perform(sources, args, interrupt)
}

impl RenderArgs {
    /// The arguments of a render of texts the program holds (the demo's pieces, a fitted
    /// instrument), not files: every option at its command-line default, writing to `output`.
    pub(crate) fn for_texts(output: PathBuf) -> Self {
        Self {
            instrument: PathBuf::new(),
            score: PathBuf::new(),
            output,
            rate: None,
            oversample: None,
            scheme: None,
            format: SampleFormat::default(),
            no_normalize: false,
            threads: 1,
            general: false,
            no_modal: false,
            device: DeviceChoice::Cpu,
            lenient: false,
            notes: NoteMapArgs::default(),
            tail: 2.0,
            write_score: None,
        }
    }
}

/// `hooke demo`: the pieces of [`DEMO`] one after another, each brought to the same peak and
/// followed by [`DEMO_GAP`] s of silence, to `hooke-demo.wav` (stereo; a mono piece on both
/// channels).
pub fn demo(out_dir: &Path, interrupt: &Interrupt) -> miette::Result<()> {
    let output = out_dir.join("hooke-demo.wav");
    check_outputs([("--out-dir", Some(output.as_path()))])?;
    let args = RenderArgs::for_texts(output);
    let mut sound = Rendered { rate: DEMO_RATE, channels: vec![Vec::new(); 2], stopped: None };
    for piece in &DEMO {
        let sources = Sources {
            instrument: (piece.instrument, piece.instrument_name),
            score: (piece.score, piece.score_name),
            score_folder: None,
        };
        let rendered = render_sources(sources, &args, interrupt)?;
        if rendered.rate != DEMO_RATE {
            return Err(miette!(
                "{}: the demo's pieces are at {DEMO_RATE} Hz, found {} Hz",
                piece.instrument_name,
                rendered.rate
            ));
        }
        let peak = rendered.channels.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
        let gain = if peak > 0.0 { 1.0 / peak } else { 1.0 };
        for (c, channel) in sound.channels.iter_mut().enumerate() {
            let piece_channel = &rendered.channels[c.min(rendered.channels.len() - 1)];
            channel.extend(piece_channel.iter().map(|x| x * gain));
            channel.resize(channel.len() + (DEMO_GAP * DEMO_RATE) as usize, 0.0);
        }
        if rendered.stopped.is_some() {
            sound.stopped = rendered.stopped;
            break;
        }
    }
    let _deferred = interrupt.defer();
    write_rendered(&args, sound)
}

/// One piece of the demo: an instrument file and a score, with the names they are shown by.
struct DemoPiece {
    instrument: &'static str,
    instrument_name: &'static str,
    score: ScoreText<'static>,
    score_name: &'static str,
}

/// The demo: the guitar on its body, a piano phrase, a marimba run and the grand piano's piece.
const DEMO: [DemoPiece; 4] = [
    DemoPiece {
        instrument: include_str!("../../../examples/instruments/acoustic-guitar.toml"),
        instrument_name: "<demo: examples/instruments/acoustic-guitar.toml>",
        score: ScoreText::Toml(include_str!("../../../examples/instruments/guitar-phrase.toml")),
        score_name: "<demo: examples/instruments/guitar-phrase.toml>",
    },
    DemoPiece {
        instrument: include_str!("../../../examples/instruments/piano.toml"),
        instrument_name: "<demo: examples/instruments/piano.toml>",
        score: ScoreText::Toml(include_str!("../../../examples/instruments/piano-phrase.toml")),
        score_name: "<demo: examples/instruments/piano-phrase.toml>",
    },
    DemoPiece {
        instrument: include_str!("../../../examples/instruments/marimba.toml"),
        instrument_name: "<demo: examples/instruments/marimba.toml>",
        score: ScoreText::Toml(include_str!("../../../examples/instruments/marimba-run.toml")),
        score_name: "<demo: examples/instruments/marimba-run.toml>",
    },
    DemoPiece {
        instrument: include_str!("../../../examples/instruments/grand-piano.toml"),
        instrument_name: "<demo: examples/instruments/grand-piano.toml>",
        score: ScoreText::Midi(include_bytes!("../../../examples/instruments/grand-piano-20s.mid")),
        score_name: "<demo: examples/instruments/grand-piano-20s.mid>",
    },
];

/// The demo's output rate, Hz (every piece's `[render] rate`).
const DEMO_RATE: f64 = 44_100.0;

/// The silence after each piece of the demo, s.
const DEMO_GAP: f64 = 0.5;

/// A score's content: a TOML score or a MIDI file's bytes.
#[derive(Clone, Copy)]
pub(crate) enum ScoreText<'a> {
    Toml(&'a str),
    Midi(&'a [u8]),
}

/// Whether a score file is a Standard MIDI File: by its extension, or its first bytes.
fn is_midi(path: &Path, bytes: &[u8]) -> bool {
    let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    matches!(extension.as_deref(), Some("mid" | "midi")) || bytes.starts_with(b"MThd")
}

/// The two files' texts and names.
pub(crate) struct Sources<'a> {
    pub(crate) instrument: (&'a str, &'a str),
    pub(crate) score: (ScoreText<'a>, &'a str),
    pub(crate) score_folder: Option<&'a Path>,
}

fn perform(sources: Sources<'_>, args: &RenderArgs, interrupt: &Interrupt) -> miette::Result<()> {
    let rendered = render_sources(sources, args, interrupt)?;
    let _deferred = interrupt.defer();
    write_rendered(args, rendered)
}

/// A rendered score: the output rate (Hz), one vector of samples per channel, and why it stopped
/// before the score's end, if it did (the samples are those computed until then).
pub(crate) struct Rendered {
    pub(crate) rate: f64,
    pub(crate) channels: Vec<Vec<f64>>,
    pub(crate) stopped: Option<miette::Report>,
}

/// Writes `rendered` to `args.output` as `args` say, then reports why it stopped early, if it
/// did: what was computed is kept as a valid file either way.
fn write_rendered(args: &RenderArgs, rendered: Rendered) -> miette::Result<()> {
    let (output, rate) = (&rendered.channels, rendered.rate);
    let wav = WavOptions { format: args.format, normalize: !args.no_normalize };
    let report = write_wav_file(&args.output, output, rate as u32, wav)?;
    eprintln!(
        "wrote {} ({} channel(s), {:.3} s at {rate} Hz, peak {:.4e} of full scale after gain {:.4e})",
        args.output.display(),
        output.len(),
        output.first().map_or(0, Vec::len) as f64 / rate,
        report.peak,
        report.gain
    );
    warn_over_full_scale(&report, args.format);
    rendered.stopped.map_or(Ok(()), Err)
}

/// Builds the instrument of `sources`, reads its score and renders it.
pub(crate) fn render_sources(
    sources: Sources<'_>,
    args: &RenderArgs,
    interrupt: &Interrupt,
) -> miette::Result<Rendered> {
    let (instrument_text, instrument_name) = sources.instrument;
    let file = parse_instrument(instrument_text, instrument_name)
        .map_err(|e| FileDiagnostic::new(e, instrument_text))?;
    let scheme = args.scheme.unwrap_or(file.scheme);
    let rate = args.rate.map_or(file.rate, f64::from);
    let oversample = args.oversample.or(file.oversample);
    let (oversample, instrument) = build(&file, instrument_text, scheme, rate, oversample)?;
    let (score_text, score_name) = sources.score;
    let score = match score_text {
        ScoreText::Toml(text) => parse_score(text, score_name, &instrument, sources.score_folder)
            .map_err(|e| FileDiagnostic::new(e, text))?,
        ScoreText::Midi(bytes) => {
            let map = args.notes.map(&instrument)?;
            let midi =
                hooke::format::midi::load(bytes, score_name, &instrument, map, args.lenient, args.tail)
                    .map_err(|e| miette!("{e}"))?;
            for note in &midi.skipped {
                eprintln!("warning: {score_name}: left out: {note}");
            }
            if let Some(path) = &args.write_score {
                write_text(path, &midi.text).map_err(|e| miette!("--write-score {}: {e}", path.display()))?;
            }
            let tempo = midi.slowest_beat.map_or_else(String::new, |beat| {
                format!(", its slowest tempo {} s a beat ({} bpm)", number(beat), number(60.0 / beat))
            });
            eprintln!(
                "{score_name}: {} s of sound with the {} s tail{tempo}",
                number(midi.score.duration),
                number(args.tail)
            );
            midi.score
        }
    };
    let duration = score.duration;
    if let Some(name) = &score.name {
        eprintln!("score: {}", hooke::model::clip(name));
    }
    let options = PerformanceOptions {
        oversample,
        threads: args.threads,
        kernels: !args.general,
        modal: !args.no_modal,
    };
    let device = args.device.device()?;
    let mut performance =
        Performance::with_device(&instrument, score, options, device).map_err(|e| miette!("{e}"))?;
    let total = performance.total_steps();
    check_work("the score", total, instrument.model.masses().len())?;
    let frames = total / oversample as u64 + 1;
    check_wav_size(frames, performance.channels(), args.format).map_err(|e| miette!("--output: {e}"))?;
    check_memory(
        "the sound kept until the score ends",
        u128::from(frames) * performance.channels() as u128 * 8,
    )?;
    eprintln!(
        "{}: {} at {} Hz ({oversample} x {rate} Hz), {} path",
        instrument.kind,
        scheme.name(),
        rate * oversample as f64,
        performance.path().name()
    );
    let mut output = vec![Vec::with_capacity(frames as usize); performance.channels()];
    // From here a signal stops the render after its block and keeps what was rendered.
    let _deferred = interrupt.defer();
    let started = Instant::now();
    // Blocks of about a million mass-steps: a signal is seen within a fraction of a second.
    let block = (1_000_000 / instrument.model.masses().len().max(1) as u64).clamp(1, 1 << 16);
    let mut result = Ok(0);
    let progress = progress_bar(total);
    let mut estimated = false;
    while performance.step() < total && result.is_ok() && !interrupt.requested() {
        result = performance.render(block, &mut output);
        progress.set_position(performance.step());
        if !estimated && started.elapsed() >= ESTIMATE_AFTER {
            estimated = true;
            estimate(performance.step(), total, started.elapsed(), duration);
        }
    }
    progress.finish_and_clear();
    // The output has one vector per channel, so the flush cannot be refused.
    let _ = performance.finish(&mut output);
    let seconds = started.elapsed().as_secs_f64();
    if oversample > 1 {
        eprintln!(
            "decimation: windowed-sinc low-pass (Kaiser window), stop band from {} Hz down {:.1} dB",
            rate / 2.0,
            hooke::engine::decimate::Decimator::new(oversample, 1).stop_band_attenuation_db()
        );
    }
    let rendered = performance.step() as f64 / (rate * oversample as f64);
    eprintln!("rendered {rendered:.3} s of sound in {seconds:.3} s: {:.1}x real time", rendered / seconds);
    let stopped = match result.into_diagnostic() {
        Err(report) => Some(report),
        Ok(_) if interrupt.requested() => {
            Some(miette!("{}; score length {duration} s", stopped_message(performance.step(), total)))
        }
        Ok(_) => None,
    };
    Ok(Rendered { rate, channels: output, stopped })
}

/// How long a render runs before it estimates its end.
const ESTIMATE_AFTER: Duration = Duration::from_secs(1);

/// A render predicted to take longer than this says so, with its estimate.
const LONG_RENDER: Duration = Duration::from_secs(20);

/// Says how long the render of a score of `duration` s will take when that is longer than
/// [`LONG_RENDER`], from the pace of its first `done` of `total` steps in `elapsed`.
fn estimate(done: u64, total: u64, elapsed: Duration, duration: f64) {
    let fraction = done as f64 / total.max(1) as f64;
    let seconds = elapsed.as_secs_f64() / fraction.max(f64::MIN_POSITIVE);
    if seconds > LONG_RENDER.as_secs_f64() {
        eprintln!(
            "estimate: {} s of sound take about {} s to render at the pace of the first {} s ({}x real \
             time); Ctrl-C stops and writes what is rendered",
            number(duration),
            number(seconds.round()),
            number(elapsed.as_secs_f64().round()),
            number((duration / seconds * 1e3).round() / 1e3)
        );
    }
}

/// Writes `text` to `path` atomically.
pub(crate) fn write_text(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = hooke::io::AtomicFile::create(path)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    file.commit()
}

/// `--tail`: seconds, >= 0.
fn parse_tail(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("expected a time >= 0 s, found \"{text}\"")),
    }
}

/// `--oversample`: 1 to [`hooke::instrument::MAX_OVERSAMPLE`].
fn parse_oversample(text: &str) -> Result<usize, String> {
    let max = hooke::instrument::MAX_OVERSAMPLE;
    match text.parse::<usize>() {
        Ok(k) if (1..=max).contains(&k) => Ok(k),
        _ => Err(format!("expected a whole number of steps per sample from 1 to {max}, found \"{text}\"")),
    }
}

/// `--threads`: 1 to [`hooke::engine::MAX_THREADS`].
fn parse_threads(text: &str) -> Result<usize, String> {
    let max = hooke::engine::MAX_THREADS;
    match text.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of threads from 1 to {max}, found \"{text}\"")),
    }
}

/// Builds the instrument; when the analysis finds it unstable, says at which oversampling it
/// would be stable.
pub(crate) fn build(
    file: &InstrumentFile,
    text: &str,
    scheme: SchemeKind,
    rate: f64,
    oversample: Option<usize>,
) -> miette::Result<(usize, hooke::instrument::Instrument)> {
    match file.build_stable(scheme, rate, oversample) {
        Ok(built) => Ok(built),
        Err(error) => {
            let hint = match (oversample, file.build_stable(scheme, rate, None)) {
                (Some(_), Ok((stable, _))) => format!(
                    "; refused, not rendered: with --oversample {stable} (a simulation rate of {} Hz) it is stable",
                    rate * stable as f64
                ),
                _ => String::new(),
            };
            let located = hooke::format::SourceError { message: format!("{}{hint}", error.message), ..error };
            Err(FileDiagnostic::new(located, text).into())
        }
    }
}
