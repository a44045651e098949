//! `hooke analyze`: what a scheme will do to each mode of a model, before running it; and the
//! check `hooke run` makes before a run.

use crate::load::{load_run, parse_scheme, read_model, StepArgs};
use clap::{Args, ValueEnum};
use hooke::analysis::lanczos::memory_estimate;
use hooke::analysis::linearise::About;
use hooke::analysis::modes::Damping;
use hooke::analysis::modes::SparseCounts;
use hooke::analysis::report::{analyse, AnalysisOptions, ModeReport, SchemeAnalysis};
use hooke::analysis::stability::StableStep;
use hooke::model::number;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use miette::miette;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The largest model (moving coordinates) `hooke run` analyses before a run. Up to 1000
/// coordinates with modal damping, and 200 without, the analysis is dense and takes at most
/// about 0.4 s and 2 s; beyond, the sparse path (lowest and highest modes) takes about 0.2 s at
/// 10^4 coordinates and 3 s at 10^5.
pub const RUN_CHECK_LIMIT: usize = 100_000;

/// `hooke run` refuses a run in which a mode that the model itself does not grow would grow by
/// more than this factor (120 dB) over the run. Smaller predicted growth, such as forward Euler's
/// slow gain on the blog's examples, is reported as a warning.
pub const REFUSAL_GROWTH: f64 = 1e6;

/// Arguments of `hooke analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The model file (TOML).
    pub model: PathBuf,
    /// Integrator (see `hooke schemes`); default: the file's, else symplectic-euler.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<SchemeKind>,
    /// Steps per second, Hz (default: the file's, else 44100).
    #[arg(long, conflicts_with = "dt")]
    pub rate: Option<f64>,
    /// Step length, s.
    #[arg(long)]
    pub dt: Option<f64>,
    /// The state to linearise about: the initial state, or the static equilibrium (rest) near it.
    #[arg(long, value_enum, default_value_t = AboutArg::Initial)]
    pub about: AboutArg,
    /// How many of the lowest modes to find in a model too large for the dense analysis.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub lowest: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also draw each mode's discrete pole on the z-plane to this file (.png or .svg).
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// The state to linearise about, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AboutArg {
    /// The model's initial positions and velocities.
    Initial,
    /// The static equilibrium nearest the initial positions.
    Rest,
}

/// `hooke analyze MODEL.toml [--scheme S] [--rate HZ | --dt S] [--about initial|rest] [--json]`.
pub fn analyze(args: &AnalyzeArgs) -> miette::Result<()> {
    let source = read_model(&args.model)?;
    let file_name = args.model.display().to_string();
    let step = StepArgs { rate: args.rate, dt: args.dt, duration: None, steps: None };
    let loaded = load_run(&source, &file_name, args.scheme, &step)?;
    if let Some(path) = &args.plot {
        crate::plot::check_output(path, false)?;
    }
    let system = System::new(&loaded.file.model);
    let dt = loaded.settings.step.seconds();
    let options = AnalysisOptions {
        about: match args.about {
            AboutArg::Initial => About::Initial,
            AboutArg::Rest => About::Rest,
        },
        sparse: SparseCounts { lowest: args.lowest as usize, ..SparseCounts::default() },
    };
    crate::limits::check_memory(
        "the analysis (at least: its Lanczos vectors and the modes' shapes)",
        memory_estimate(system.mass_coordinates(), options.sparse),
    )?;
    let report = analyse(&system, loaded.settings.scheme, dt, &options).map_err(|e| miette!("{e}"))?;
    let about = match args.about {
        AboutArg::Initial => "initial",
        AboutArg::Rest => "rest",
    };
    if let Some(path) = &args.plot {
        crate::plot::analyze_plot(&loaded, &args.model, path)?;
    }
    if args.json {
        let json = AnalysisJson::new(&report, about);
        println!("{}", serde_json::to_string_pretty(&json).map_err(|e| miette!("{e}"))?);
        return Ok(());
    }
    let name = loaded.file.name.as_deref().unwrap_or(&file_name);
    println!(
        "{name}: {} mass(es), {} moving coordinate(s), linearised about the {about} state",
        system.mass_count(),
        system.mass_coordinates()
    );
    print!("{}", report_text(&report));
    Ok(())
}

/// The report as text: the scheme and step, the table of modes, the largest stable step, the
/// verdict and the warnings.
pub fn report_text(report: &SchemeAnalysis) -> String {
    let mut text = String::new();
    let which = if report.complete {
        format!("all {}", mode_count(&report.modes))
    } else {
        format!("{} lowest and highest (sparse path)", mode_count(&report.modes))
    };
    let damping = match report.damping {
        Damping::Modal => "modal damping",
        Damping::NonModal => "non-modal damping",
    };
    let _ = writeln!(
        text,
        "{}, dt = {:.6e} s ({} Hz); {damping}; {which}",
        report.scheme,
        report.dt,
        number(1.0 / report.dt)
    );
    text.push_str(&mode_table(&report.modes));
    let _ = writeln!(text, "largest stable step: {}", describe_stable_step(report.largest_stable_step));
    let verdict = if report.is_stable() {
        "stable: every mode's discrete pole is inside the unit circle"
    } else if report.worst_mode().is_some() {
        "UNSTABLE: the scheme makes a mode grow at this step"
    } else {
        "unstable in the model itself (no mode grows because of the scheme)"
    };
    let _ = writeln!(text, "{verdict}");
    for warning in &report.warnings {
        let _ = writeln!(text, "warning: {warning}");
    }
    text
}

/// How many modes, and of which kinds when not all vibrate: `2 modes (1 vibrating, 1 free)`,
/// `5 modes`. A free motion (no stiffness, pole at 0) is one mode; a real pole is a mode of its
/// own (`hooke::analysis::modes::Mode`).
fn mode_count(modes: &[ModeReport]) -> String {
    let free = modes.iter().filter(|m| m.mode.is_free()).count();
    let vibrating = modes.iter().filter(|m| m.mode.pole.im > 0.0).count();
    let real = modes.len() - free - vibrating;
    let total = format!("{} mode{}", modes.len(), if modes.len() == 1 { "" } else { "s" });
    if vibrating == modes.len() {
        return total;
    }
    let kinds: Vec<String> = [(vibrating, "vibrating"), (real, "non-vibrating (real pole)"), (free, "free")]
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, kind)| format!("{count} {kind}"))
        .collect();
    format!("{total} ({})", kinds.join(", "))
}

/// The table of modes: analog frequency and decay, digital frequency and decay, the frequency
/// error in cents, the digital time constant, |z|, the region and the verdict.
pub fn mode_table(modes: &[ModeReport]) -> String {
    let mut text = format!(
        "{:>5} {:>14} {:>13} {:>14} {:>13} {:>10} {:>13} {:>15} {:>9} {:>7}\n",
        "mode",
        "analog Hz",
        "sigma 1/s",
        "digital Hz",
        "sigma_d 1/s",
        "cents",
        "tau s",
        "|z|",
        "region",
        "stable"
    );
    for mode in modes {
        let cents = mode.cents_error().map_or("-".to_string(), |c| format!("{c:+.4}"));
        let _ = writeln!(
            text,
            "{:>5} {:>14} {:>13} {:>14} {:>13} {:>10} {:>13} {:>15} {:>9} {:>7}",
            mode.index,
            fixed(mode.mode.frequency_hz(), 5),
            fixed(mode.mode.decay_rate(), 6),
            fixed(mode.discrete.frequency_hz(), 5),
            fixed(mode.discrete.decay_rate(), 6),
            cents,
            format_time_constant(mode.discrete.time_constant()),
            fixed(mode.discrete.modulus(), 12),
            mode.discrete.region().name(),
            if mode.is_stable() { "yes" } else { "NO" }
        );
    }
    text
}

/// `value` with `decimals` decimals below 1e9 in magnitude, in exponent form beyond (a mode of a
/// stiff model at 1e29 Hz, a pole at |z| = 4e114: never a hundred digits).
fn fixed(value: f64, decimals: usize) -> String {
    if value.abs() < 1e9 {
        format!("{value:.decimals$}")
    } else {
        format!("{value:.6e}")
    }
}

fn format_time_constant(tau: f64) -> String {
    if !tau.is_finite() {
        "inf".to_string()
    } else if tau.abs() < 1e4 {
        format!("{tau:.7}")
    } else {
        format!("{tau:.6e}")
    }
}

/// "3.780600e-4 s (lowest stable rate 2645.08 Hz)", or the unconditional and never cases.
pub fn describe_stable_step(step: StableStep) -> String {
    match step {
        StableStep::UpTo(h) => {
            format!("{h:.6e} s (lowest stable rate {} Hz)", number(1.0 / h))
        }
        StableStep::Unconditional { checked_up_to } if checked_up_to.is_finite() => {
            format!("none: unconditionally stable (checked up to {checked_up_to:.3e} s)")
        }
        StableStep::Unconditional { .. } => "none: every step is stable".to_string(),
        StableStep::Never => "no step is stable with this scheme (no rate is high enough)".to_string(),
    }
}

/// One mode in JSON (the shape the issue gives, plus `cents`).
#[derive(Serialize)]
pub struct ModeJson {
    index: usize,
    /// The analog pole's real part, 1/s.
    sigma: f64,
    /// The analog pole's imaginary part, rad/s.
    mu: f64,
    analog_hz: f64,
    digital_hz: f64,
    /// `ln|z| / h`, 1/s; null when `z = 0`.
    digital_sigma: Option<f64>,
    /// `-1 / digital_sigma`, s; null when the mode does not decay or grow.
    time_constant_s: Option<f64>,
    pole_abs: f64,
    region: &'static str,
    stable: bool,
    /// `1200 log2(digital / analog)`; null when either frequency is 0.
    cents: Option<f64>,
    /// Whether the mode is a free motion (no stiffness about the linearisation state, pole 0).
    free: bool,
}

impl ModeJson {
    /// The JSON form of one mode.
    pub fn new(mode: &ModeReport) -> Self {
        let finite = |x: f64| x.is_finite().then_some(x);
        Self {
            index: mode.index,
            sigma: mode.mode.pole.re,
            mu: mode.mode.pole.im,
            analog_hz: mode.mode.frequency_hz(),
            digital_hz: mode.discrete.frequency_hz(),
            digital_sigma: finite(mode.discrete.decay_rate()),
            time_constant_s: finite(mode.discrete.time_constant()),
            pole_abs: mode.discrete.modulus(),
            region: mode.discrete.region().name(),
            stable: mode.is_stable(),
            cents: mode.cents_error(),
            free: mode.mode.is_free(),
        }
    }
}

/// `hooke analyze --json`.
#[derive(Serialize)]
struct AnalysisJson {
    scheme: &'static str,
    dt: f64,
    stable: bool,
    /// The largest stable step, s: null when unconditionally stable, 0 when no step is stable.
    max_stable_dt: Option<f64>,
    /// `1 / max_stable_dt`, Hz: 0 when unconditionally stable, null when no rate is stable.
    lowest_stable_rate: Option<f64>,
    about: &'static str,
    damping: &'static str,
    complete: bool,
    modes: Vec<ModeJson>,
    warnings: Vec<String>,
}

impl AnalysisJson {
    fn new(report: &SchemeAnalysis, about: &'static str) -> Self {
        let rate = report.largest_stable_step.lowest_rate();
        Self {
            scheme: report.scheme.name(),
            dt: report.dt,
            stable: report.is_stable(),
            max_stable_dt: report.largest_stable_step.seconds(),
            lowest_stable_rate: rate.is_finite().then_some(rate),
            about,
            damping: match report.damping {
                Damping::Modal => "modal",
                Damping::NonModal => "non-modal",
            },
            complete: report.complete,
            modes: report.modes.iter().map(ModeJson::new).collect(),
            warnings: report.warnings.clone(),
        }
    }
}

/// The check `hooke run` makes before a run of `steps` steps (skipped with `--force`): it
/// analyses the model about its initial state, refuses a run in which a mode would grow by more
/// than [`REFUSAL_GROWTH`] because of the scheme, naming the mode, its frequency, the largest
/// stable step and the lowest stable rate, and warns about slower numerical growth. A model
/// larger than [`RUN_CHECK_LIMIT`] coordinates, or one the analysis fails on, runs unchecked with
/// a note.
pub fn check_before_run(system: &System, scheme: SchemeKind, dt: f64, steps: u64) -> miette::Result<()> {
    let n = system.mass_coordinates();
    if n > RUN_CHECK_LIMIT {
        eprintln!("note: not analysed before the run ({n} moving coordinates, more than {RUN_CHECK_LIMIT})");
        return Ok(());
    }
    let report = match analyse(system, scheme, dt, &AnalysisOptions::default()) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("note: the model could not be analysed before the run: {error}");
            return Ok(());
        }
    };
    let Some(worst) = report.worst_mode() else { return Ok(()) };
    let growth = report.growth_over(steps);
    let by = if growth.is_finite() {
        format!("by a factor of {growth:.3e}")
    } else {
        "past the largest floating-point number".to_string()
    };
    let what = format!(
        "with {scheme} at dt = {dt:.6e} s ({} Hz), mode {} ({} Hz) has |z| = {} and would grow {by} over \
         the {steps} steps",
        number(1.0 / dt),
        worst.index,
        number(worst.mode.frequency_hz()),
        fixed(worst.discrete.modulus(), 9)
    );
    let limit = match report.largest_stable_step {
        StableStep::UpTo(h) => {
            format!("the largest stable step is {h:.6e} s (lowest stable rate {} Hz)", number(1.0 / h))
        }
        StableStep::Never => {
            format!("no step is stable: {scheme} makes this model's undamped modes grow at any rate")
        }
        StableStep::Unconditional { .. } => "the scheme is otherwise stable at every step".to_string(),
    };
    if growth > REFUSAL_GROWTH {
        return Err(miette!(
            "the run is predicted unstable: {what}; {limit}. Shorten the step, choose another scheme (`hooke \
             analyze` shows every mode), or run anyway with --force"
        ));
    }
    eprintln!("warning: the scheme makes this run grow: {what}; {limit}");
    Ok(())
}
