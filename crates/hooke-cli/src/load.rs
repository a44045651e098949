//! Loading what the commands share: a model file read and parsed with its run settings
//! settled (the file's `[run]`, then the command line, then the defaults), and the flags that
//! name a scheme, a WAV format or a reference run. Every command loads through here, so none
//! imports another to read its input.

use crate::diagnostics::FileDiagnostic;
use clap::Args;
use hooke::engine::{PartialRunSettings, RunLength, RunSettings, StepSize};
use hooke::format::model::{parse, ModelFile};
use hooke::io::SampleFormat;
use hooke::scheme::SchemeKind;
use miette::{miette, IntoDiagnostic, WrapErr};
use std::path::Path;

/// The step and the length of a run, from the command line; they override the file's `[run]`.
#[derive(Args, Debug, Default, Clone)]
pub struct StepArgs {
    /// Steps per second, Hz.
    #[arg(long, conflicts_with = "dt")]
    pub rate: Option<f64>,
    /// Step length, s.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Simulated time, s.
    #[arg(long, conflicts_with = "steps")]
    pub duration: Option<f64>,
    /// Number of steps.
    #[arg(long)]
    pub steps: Option<u64>,
}

/// A parsed model file with its run settings completed: file, then command line, then defaults.
pub struct LoadedRun {
    /// The model file.
    pub file: ModelFile,
    /// The settings in force.
    pub settings: RunSettings,
    /// The number of steps (at least 1).
    pub steps: u64,
}

/// Parses `source` and settles the run settings; errors point into the file or at the flag.
pub fn load_run(
    source: &str,
    file_name: &str,
    scheme: Option<SchemeKind>,
    step: &StepArgs,
) -> miette::Result<LoadedRun> {
    let file: ModelFile = parse(source, file_name).map_err(|e| FileDiagnostic::new(e, source))?;
    let settings = file.run.overridden_by(command_line_settings(scheme, step)?).or_defaults();
    // The length is the flag's when one was given, else the file's `[run]` at the step in use.
    let steps = settings.step_count().map_err(|e| {
        let source = if step.duration.is_some() || step.steps.is_some() {
            format!("--{}", e.field)
        } else {
            format!("{file_name}: [run] {}", e.field)
        };
        miette!("{source}: expected {}, found {}", e.expected, e.found)
    })?;
    if steps == 0 {
        return Err(miette!(
            "the run is shorter than half a step (dt = {} s): nothing to simulate",
            settings.step.seconds()
        ));
    }
    Ok(LoadedRun { file, settings, steps })
}

/// Refuses a model without a mass for a command that needs one to move: `doing` says what it
/// would do ("plot", "compare schemes on"). Such a model is valid (anchors only), but nothing in
/// it moves, so there is no trajectory, energy or error to show.
pub fn require_mass(loaded: &LoadedRun, file_name: &str, doing: &str) -> miette::Result<()> {
    if loaded.file.model.masses().is_empty() {
        return Err(miette!(
            "{file_name}: the model has no mass to {doing}: nothing in it moves (add a [[mass]], or a \
             generator such as [[string]])"
        ));
    }
    Ok(())
}

/// Reads a model file, with the error naming it when it cannot be read.
pub fn read_model(path: &Path) -> miette::Result<String> {
    std::fs::read_to_string(path)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read model file {}", path.display()))
}

/// `--scheme`: a scheme by name.
pub fn parse_scheme(name: &str) -> Result<SchemeKind, String> {
    name.parse::<SchemeKind>().map_err(|e| e.to_string())
}

/// `--format`: a WAV sample format by name.
pub fn parse_format(name: &str) -> Result<SampleFormat, String> {
    SampleFormat::from_name(name)
        .ok_or_else(|| format!("unknown format \"{name}\"; expected f32, i16 or i24"))
}

/// Settings from the command line, validated as the file's are.
fn command_line_settings(scheme: Option<SchemeKind>, args: &StepArgs) -> miette::Result<PartialRunSettings> {
    let flag = |name: &'static str| {
        move |e: hooke::model::ModelError| miette!("--{name}: expected {}, found {}", e.expected, e.found)
    };
    Ok(PartialRunSettings {
        scheme,
        step: match (args.rate, args.dt) {
            (Some(hz), _) => Some(StepSize::rate(hz).map_err(flag("rate"))?),
            (None, Some(dt)) => Some(StepSize::dt(dt).map_err(flag("dt"))?),
            (None, None) => None,
        },
        length: match (args.duration, args.steps) {
            (Some(d), _) => Some(RunLength::duration(d).map_err(flag("duration"))?),
            (None, Some(0)) => return Err(miette!("--steps: expected at least 1 step, found 0")),
            (None, Some(n)) => Some(RunLength::Steps(n)),
            (None, None) => None,
        },
    })
}

/// The reference scheme and its rate multiple.
pub fn parse_reference(text: &str, rate: f64) -> miette::Result<(SchemeKind, u64)> {
    let Some((name, reference_rate)) = text.split_once('@') else {
        let scheme = text.parse::<SchemeKind>().map_err(|e| miette!("--reference: {e}"))?;
        return Ok((scheme, 1));
    };
    let scheme = name.parse::<SchemeKind>().map_err(|e| miette!("--reference: {e}"))?;
    let reference_rate: f64 = reference_rate
        .parse()
        .map_err(|_| miette!("--reference: expected SCHEME@RATE with RATE in Hz, found \"{text}\""))?;
    let multiple = (reference_rate / rate).round();
    if multiple < 1.0 || (multiple * rate - reference_rate).abs() > 1e-9 * reference_rate {
        return Err(miette!(
            "--reference: the reference rate {reference_rate} Hz must be a whole multiple of the compared rate {rate} Hz"
        ));
    }
    Ok((scheme, multiple as u64))
}
