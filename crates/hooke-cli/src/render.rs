//! `hooke render INSTRUMENT.toml SCORE.toml -o out.wav`: an instrument played from a score,
//! simulated at K times the output rate and decimated, and `hooke demo`, the guitar phrase.

use crate::diagnostics::FileDiagnostic;
use crate::load::{parse_format, parse_scheme, read_model};
use crate::run::write_wav_file;
use hooke::format::instrument::{parse as parse_instrument, InstrumentFile};
use hooke::format::score::parse as parse_score;
use hooke::io::{SampleFormat, WavOptions};
use hooke::scheme::SchemeKind;
use hooke::score::performance::{Performance, PerformanceOptions};
use miette::{miette, IntoDiagnostic};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `hooke render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The instrument file (`[guitar]`, `[drum]`, `[reed]`, `[sitar]` or `[pendulum]`).
    pub instrument: PathBuf,
    /// The score file (timed plucks, strikes, bows, frets, damps, drives, sets).
    pub score: PathBuf,
    /// The WAV file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Output sample rate, Hz (default: the instrument file's, else 44100).
    #[arg(long)]
    pub rate: Option<u32>,
    /// Simulation steps per output sample (default: the file's, else the smallest the analysis
    /// finds stable).
    #[arg(long)]
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
    /// Threads for the string kernel (the strings are independent).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Use the general path even where the string kernel applies.
    #[arg(long)]
    pub general: bool,
}

const DEMO_INSTRUMENT: &str = include_str!("../../../examples/instruments/guitar.toml");
const DEMO_SCORE: &str = include_str!("../../../examples/instruments/guitar-phrase.toml");

/// `hooke render ...`.
pub fn render(args: &RenderArgs) -> miette::Result<()> {
    let instrument = read_model(&args.instrument)?;
    let score = read_model(&args.score)?;
    let sources = Sources {
        instrument: (&instrument, &args.instrument.display().to_string()),
        score: (&score, &args.score.display().to_string()),
        score_folder: args.score.parent(),
    };
    perform(sources, args)
}

/// `hooke demo`: the guitar phrase of examples/instruments/guitar-phrase.toml to `hooke-demo.wav`.
pub fn demo(out_dir: &Path) -> miette::Result<()> {
    let args = RenderArgs {
        instrument: PathBuf::from("examples/instruments/guitar.toml"),
        score: PathBuf::from("examples/instruments/guitar-phrase.toml"),
        output: out_dir.join("hooke-demo.wav"),
        rate: None,
        oversample: None,
        scheme: None,
        format: SampleFormat::default(),
        no_normalize: false,
        threads: 1,
        general: false,
    };
    let sources = Sources {
        instrument: (DEMO_INSTRUMENT, "<demo: examples/instruments/guitar.toml>"),
        score: (DEMO_SCORE, "<demo: examples/instruments/guitar-phrase.toml>"),
        score_folder: None,
    };
    perform(sources, &args)
}

/// The two files' texts and names.
struct Sources<'a> {
    instrument: (&'a str, &'a str),
    score: (&'a str, &'a str),
    score_folder: Option<&'a Path>,
}

fn perform(sources: Sources<'_>, args: &RenderArgs) -> miette::Result<()> {
    let (instrument_text, instrument_name) = sources.instrument;
    let file = parse_instrument(instrument_text, instrument_name)
        .map_err(|e| FileDiagnostic::new(e, instrument_text))?;
    let scheme = args.scheme.unwrap_or(file.scheme);
    let rate = args.rate.map_or(file.rate, f64::from);
    let oversample = args.oversample.or(file.oversample);
    let (oversample, instrument) = build(&file, instrument_text, scheme, rate, oversample)?;
    let (score_text, score_name) = sources.score;
    let score = parse_score(score_text, score_name, &instrument, sources.score_folder)
        .map_err(|e| FileDiagnostic::new(e, score_text))?;
    let duration = score.duration;
    if let Some(name) = &score.name {
        eprintln!("score: {name}");
    }
    let options = PerformanceOptions { oversample, threads: args.threads.max(1), kernels: !args.general };
    let mut performance = Performance::new(&instrument, score, options).map_err(|e| miette!("{e}"))?;
    eprintln!(
        "{}: {} at {} Hz ({oversample} x {rate} Hz), {} path",
        instrument.kind,
        scheme.name(),
        rate * oversample as f64,
        if performance.uses_kernel() { "string-kernel" } else { "general" }
    );
    let mut output = vec![Vec::new(); performance.channels()];
    let started = Instant::now();
    let result = performance.render(performance.total_steps(), &mut output);
    // The output has one vector per channel, so the flush cannot be refused.
    let _ = performance.finish(&mut output);
    let seconds = started.elapsed().as_secs_f64();
    let wav = WavOptions { format: args.format, normalize: !args.no_normalize };
    let report = write_wav_file(&args.output, &output, rate as u32, wav)?;
    eprintln!(
        "wrote {} ({} channel(s), {:.3} s at {rate} Hz, peak {:.4e} of full scale after gain {:.4e})",
        args.output.display(),
        output.len(),
        output.first().map_or(0, Vec::len) as f64 / rate,
        report.peak,
        report.gain
    );
    if report.over_full_scale > 0 {
        eprintln!("warning: {} samples clipped to full scale", report.over_full_scale);
    }
    if oversample > 1 {
        eprintln!(
            "decimation: windowed-sinc low-pass (Kaiser window), stop band from {} Hz down {:.1} dB",
            rate / 2.0,
            hooke::engine::decimate::Decimator::new(oversample, 1).stop_band_attenuation_db()
        );
    }
    eprintln!("rendered {duration} s of sound in {seconds:.3} s: {:.1}x real time", duration / seconds);
    result.into_diagnostic().map(|_| ())
}

/// Builds the instrument; when the analysis finds it unstable, says at which oversampling it
/// would be stable.
fn build(
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
