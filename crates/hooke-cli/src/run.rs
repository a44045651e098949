//! `hooke run`.

use crate::device::DeviceChoice;
use crate::interrupt::{stopped_message, Interrupt};
use crate::limits::{check_memory, check_work};
use crate::load::{load_run, parse_format, parse_scheme, read_model, LoadedRun, StepArgs};
use crate::outputs::check_outputs;
use clap::Args;
use hooke::analysis::invariants::{contraction_factor, BalanceMonitor};
use hooke::engine::{EnergyMonitor, EnergySummary, Engine, EngineConfig, Observer};
use hooke::io::{check_wav_size, AtomicFile, CsvWriter, SampleFormat, WavOptions, WavReport};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use indicatif::{ProgressBar, ProgressStyle};
use miette::{miette, IntoDiagnostic, WrapErr};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `--energy` measures the contraction factor D for models up to this many moving coordinates.
const CONTRACTION_LIMIT: usize = 200;

/// Arguments of `hooke run`. Settings given here override the file's `[run]` and `[output]`.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// The model file (TOML; see docs/model-format.md).
    pub model: PathBuf,
    /// Integrator (see `hooke schemes`), e.g. symplectic-euler, energy-conserving, rk4.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<SchemeKind>,
    /// Step and length of the run.
    #[command(flatten)]
    pub step: StepArgs,
    /// Write the pickups' output channels to this WAV file (one sample per step).
    #[arg(long)]
    pub wav: Option<PathBuf>,
    /// WAV sample encoding: f32 (default), i16 or i24.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<SampleFormat>,
    /// Write the pickups' values as simulated (m, m/s, N) instead of scaling the WAV's peak to
    /// -1 dBFS (the default, so that the file is audible).
    #[arg(long)]
    pub no_normalize: bool,
    /// Write positions and velocities of every mass to this CSV file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write one CSV row every K steps (step 0 and the last step are always written).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: u64,
    /// Report the initial and final total energy and the drift (and add energy columns to the CSV).
    #[arg(long)]
    pub energy: bool,
    /// Run even when the analysis predicts that the scheme makes the run blow up (see `hooke analyze`).
    #[arg(long)]
    pub force: bool,
    /// Also draw the run (.png or .svg): the trajectories of a 2D or 3D model, else the first
    /// mass against time.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Where to run: cpu, or gpu (a uniform string with any linear scheme, a uniform membrane
    /// with symplectic Euler; f64 where the GPU has it, else f32; a build with the `gpu`
    /// feature and a Vulkan driver).
    #[arg(long, value_enum, default_value_t)]
    pub device: DeviceChoice,
}

/// `hooke run MODEL.toml ...`.
pub fn run_command(args: &RunArgs, interrupt: &Interrupt) -> miette::Result<()> {
    if let Some(path) = &args.plot {
        crate::plot::check_output(path, false)?;
    }
    check_outputs([
        ("--wav", args.wav.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--plot", args.plot.as_deref()),
    ])?;
    let source = read_model(&args.model)?;
    run_source(&source, &args.model.display().to_string(), args, interrupt)?;
    if let Some(path) = &args.plot {
        let loaded = load_run(&source, &args.model.display().to_string(), args.scheme, &args.step)?;
        crate::plot::run_plot(&loaded, &args.model, path)?;
    }
    Ok(())
}

fn run_source(source: &str, file_name: &str, args: &RunArgs, interrupt: &Interrupt) -> miette::Result<()> {
    let LoadedRun { file, settings, steps } = load_run(source, file_name, args.scheme, &args.step)?;
    let dt = settings.step.seconds();
    let wav_rate = wav_rate(settings.step.hertz(), args.wav.is_some())?;
    let wav_options = WavOptions {
        format: args.format.unwrap_or(file.wav.format),
        normalize: !args.no_normalize && file.wav.normalize,
    };
    let system = System::new(&file.model);
    let mass_count = system.mass_count();
    let name = hooke::model::clip(file.name.as_deref().unwrap_or(file_name));
    eprintln!(
        "{name}: {mass_count} mass(es), {}, dt = {dt:.6e} s ({} Hz), {steps} steps ({:.6} s)",
        settings.scheme,
        settings.step.hertz(),
        steps as f64 * dt
    );
    check_work("the run", steps, mass_count)?;
    if !args.force {
        crate::analyze::check_before_run(&system, settings.scheme, dt, steps)?;
    }
    let config = EngineConfig::default().scheme(settings.scheme).dt(dt);
    let device = args.device.device()?;
    if device.is_some() && (args.csv.is_some() || args.energy) {
        return Err(miette!(
            "--device gpu: --csv and --energy read the state after every step, which only the \
             CPU's general path shows; leave them out to run on the GPU"
        ));
    }
    let mut engine =
        Engine::build(system, file.pickups.clone(), config, device).map_err(|e| miette!("{e}"))?;
    let frames = if args.wav.is_some() { steps + 1 } else { 0 };
    if args.wav.is_some() {
        check_wav_size(frames, engine.channels(), wav_options.format).map_err(|e| miette!("--wav: {e}"))?;
        check_memory(
            "--wav: the sound kept until the run ends",
            u128::from(frames) * engine.channels() as u128 * 8,
        )?;
    }

    // From here a signal stops the run after its block and keeps what was computed.
    let _deferred = interrupt.defer();
    // Outputs: every file is written under a temporary name and renamed when complete.
    let mut csv = match &args.csv {
        Some(path) => {
            let out = AtomicFile::create(path)
                .into_diagnostic()
                .wrap_err_with(|| format!("cannot create {}", path.display()))?;
            Some(CsvWriter::new(out, engine.system(), args.every, steps, args.energy).into_diagnostic()?)
        }
        None => None,
    };
    let mut energy = args.energy.then(EnergyMonitor::new);
    let mut balance = args.energy.then(BalanceMonitor::new);
    let mut observers: Vec<&mut dyn Observer> = Vec::new();
    if let Some(c) = csv.as_mut() {
        observers.push(c);
    }
    if let Some(e) = energy.as_mut() {
        observers.push(e);
    }
    if let Some(b) = balance.as_mut() {
        observers.push(b);
    }

    // Blocks of about a million mass-steps: a signal is seen within a fraction of a second.
    let block = (1_000_000 / mass_count.max(1) as u64).clamp(1, 1 << 16);
    let mut channels = vec![Vec::with_capacity(frames as usize); engine.channels()];
    engine.sample(&mut channels);
    let bar = progress_bar(steps);
    let started = Instant::now();
    let mut outcome = Ok(0);
    while engine.step() < steps && outcome.is_ok() && !interrupt.requested() {
        outcome = engine.run(block.min(steps - engine.step()), &mut channels, &mut observers);
        bar.set_position(engine.step());
        if args.wav.is_none() {
            channels.iter_mut().for_each(Vec::clear);
        }
    }
    let wall = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    drop(observers);

    let done = engine.step();
    eprintln!(
        "simulated {done} steps in {wall:.3} s ({}): {:.3e} mass-steps/s, {:.2}x real time",
        engine.path().name(),
        (done as f64 * mass_count as f64) / wall.max(1e-9),
        done as f64 * dt / wall.max(1e-9)
    );
    // Keep what was computed, even when the run stopped early.
    if let Some(path) = &args.wav {
        let report = write_wav_file(path, &channels, wav_rate, wav_options)?;
        report_wav(path, &report, wav_options);
    }
    if let (Some(path), Some(writer)) = (&args.csv, csv) {
        writer
            .finish(engine.system())
            .and_then(AtomicFile::commit)
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(summary) = energy.as_ref().and_then(EnergyMonitor::summary) {
        report_energy(&summary);
        if let Some(balance) = &balance {
            report_balance(balance, &engine, &summary);
        }
    }
    outcome.map_err(|e| miette!("{e}"))?;
    if interrupt.requested() {
        return Err(miette!("{}", stopped_message(done, steps)));
    }
    Ok(())
}

/// The largest relative difference between the step rate and the WAV's whole-Hz rate: 1e-3,
/// 1.7 cents of pitch, below what a listener tells apart.
const WAV_RATE_TOLERANCE: f64 = 1e-3;

/// The WAV header's sample rate: the step rate rounded to whole Hz. A model stepped at, say,
/// dt = 0.0003 s (3333.33 Hz) plays at 3333 Hz, 1e-4 slower, and says so; a rate further than
/// [`WAV_RATE_TOLERANCE`] from a whole number is refused.
fn wav_rate(hz: f64, needed: bool) -> miette::Result<u32> {
    let rounded = hz.round();
    if !needed {
        return Ok(rounded.clamp(0.0, f64::from(u32::MAX)) as u32);
    }
    let deviation = (hz - rounded).abs() / hz;
    if !(1.0..=f64::from(u32::MAX)).contains(&rounded) || deviation > WAV_RATE_TOLERANCE {
        return Err(miette!(
            "--wav: the step rate {hz} Hz is {:.2}% from a whole number of Hz, so the WAV would play at a \
             wrong pitch; give the step as a rate (e.g. --rate 44100)",
            100.0 * deviation
        ));
    }
    if deviation > 0.0 {
        eprintln!(
            "note: the WAV plays at {rounded} Hz, the step rate {hz} Hz rounded ({deviation:.1e} apart)"
        );
    }
    Ok(rounded as u32)
}

pub fn write_wav_file(
    path: &Path,
    channels: &[Vec<f64>],
    rate: u32,
    options: WavOptions,
) -> miette::Result<WavReport> {
    hooke::io::write_wav_file(path, channels, rate, options)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write {}", path.display()))
}

fn report_wav(path: &Path, report: &WavReport, options: WavOptions) {
    eprintln!("wrote {} (gain {:.4e}, peak {:.4e} of full scale)", path.display(), report.gain, report.peak);
    warn_over_full_scale(report, options.format);
}

/// Warns of samples beyond full scale, saying what the file holds: kept in a float file, clipped
/// in an integer one. (Normalisation brings the peak to -1 dBFS, so only raw values get here.)
pub(crate) fn warn_over_full_scale(report: &WavReport, format: SampleFormat) {
    if report.over_full_scale == 0 {
        return;
    }
    let what = match format {
        SampleFormat::Float32 => {
            "exceed full scale: they are kept as they are in the float file (a player clips them)"
        }
        _ => "exceeded full scale and were clipped to it",
    };
    eprintln!(
        "warning: {} samples {what}; normalisation (without --no-normalize) or lower pickup weights \
         scale the output",
        report.over_full_scale
    );
}

fn report_energy(summary: &EnergySummary) {
    println!("energy at step 0:   {:.12e} J", summary.initial.total());
    println!("energy at step {}: {:.12e} J", summary.last_step, summary.last.total());
    if summary.initial.total() == 0.0 {
        println!("change:             {:+.3e} J (E0 = 0, so no relative figure)", summary.relative_drift());
        println!("max |E - E0|:       {:.3e} J", summary.max_deviation);
    } else {
        println!("relative drift:     {:+.3e}", summary.relative_drift());
        println!("max |E - E0| / |E0|: {:.3e}", summary.relative_max_deviation());
    }
}

/// The conserved quantities of Chatziioannou 2019: K from the states (eqs. 18, 54) with its eq. 19
/// metric, and, for a scheme with an exact balance, `H + dissipated - work` as the scheme keeps it.
fn report_balance(balance: &BalanceMonitor, engine: &Engine, summary: &EnergySummary) {
    if let (Some(first), Some(last), Some(metric)) =
        (balance.first(), balance.last(), balance.preservation_metric())
    {
        println!(
            "K (Chatziioannou 2019, eqs. (18)/(54)): {first:.12e} J -> {last:.12e} J, eq. 19 metric {metric:+.3e}"
        );
    }
    // D of eq. 20 at the initial state, where the model is small enough for a 2n x 2n Jacobian.
    let system = engine.system();
    if system.mass_coordinates() <= CONTRACTION_LIMIT {
        let initial = system.initial_state();
        // A linear network's step is affine: unit perturbations give its Jacobian exactly.
        let perturbation = if hooke::forces::is_linear(system) {
            1.0
        } else {
            1e-6 * initial.x.iter().fold(1e-3f64, |m, x| m.max(x.abs()))
        };
        let d = contraction_factor(system, engine.scheme(), engine.dt(), &initial, perturbation);
        if let Some(d) = d.ok().filter(|d| d.is_finite()) {
            println!(
                "symplectic contraction D (Chatziioannou 2019, eq. (20), one step from the start): {d:.15}"
            );
        }
    }
    if let Some(exchanged) = engine.exchanged() {
        let start = summary.initial.total();
        let k = summary.last.total() + exchanged.dissipated - exchanged.external_work;
        let change = if start == 0.0 { k - start } else { (k - start) / start.abs() };
        println!(
            "{} balance: dissipated {:.6e} J, external work {:.6e} J, H + dissipated - work drifted by {change:+.3e}",
            engine.scheme(),
            exchanged.dissipated,
            exchanged.external_work
        );
    }
}

/// A progress bar over `steps` steps, on a terminal and for runs long enough to need one.
pub(crate) fn progress_bar(steps: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() || steps < 100_000 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(steps);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {eta} left") {
        bar.set_style(style);
    }
    bar
}
