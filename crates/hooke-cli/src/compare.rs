//! `hooke compare`: every scheme against a reference run, one table row per scheme.

use crate::load::{load_run, parse_reference, read_model, StepArgs};
use clap::Args;
use hooke::analysis::energy::energy;
use hooke::analysis::invariants::energy_deviation;
use hooke::engine::{Engine, EngineConfig, Observer, Pickups};
use hooke::format::model::ModelFile;
use hooke::scheme::SchemeKind;
use hooke::system::{State, System};
use miette::miette;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `hooke compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The model file (TOML).
    pub model: PathBuf,
    /// Schemes to compare: `all` or a comma-separated list of names.
    #[arg(long, default_value = "all")]
    pub schemes: String,
    /// The reference: `exact` (the exact flow of the linear network, at the same step) or
    /// `SCHEME@RATE`, a scheme run at a rate (Hz) that is a whole multiple of the compared rate.
    #[arg(long, default_value = "exact")]
    pub reference: String,
    /// Step and length of the runs.
    #[command(flatten)]
    pub step: StepArgs,
    /// Also draw each scheme's error against the reference over time (the first mass's first
    /// coordinate, log scale, largest per pixel column) to this file (.png or .svg).
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// Positions of every mass at every `every`-th step, and the energies there.
struct Trajectory {
    every: u64,
    positions: Vec<f64>,
    energies: Vec<f64>,
}

impl Observer for Trajectory {
    fn observe(&mut self, system: &System, state: &State) -> std::io::Result<()> {
        if state.step % self.every == 0 {
            self.positions.extend_from_slice(&state.x[..system.mass_coordinates()]);
            self.energies.push(energy(system, state).total());
        }
        Ok(())
    }
}

/// One scheme's run: its trajectory and how long it took.
struct Run {
    trajectory: Trajectory,
    seconds: f64,
}

fn simulate(file: &ModelFile, scheme: SchemeKind, dt: f64, steps: u64, every: u64) -> miette::Result<Run> {
    let system = System::new(&file.model);
    let samples = (steps / every + 1) as usize;
    let mut trajectory = Trajectory {
        every,
        positions: Vec::with_capacity(samples * system.mass_coordinates()),
        energies: Vec::with_capacity(samples),
    };
    let config = EngineConfig::default().scheme(scheme).dt(dt);
    let mut engine = Engine::from_system(system, Pickups::default(), config).map_err(|e| miette!("{e}"))?;
    let started = Instant::now();
    engine.run(steps, &mut [], &mut [&mut trajectory]).map_err(|e| miette!("{scheme}: {e}"))?;
    Ok(Run { trajectory, seconds: started.elapsed().as_secs_f64() })
}

fn parse_schemes(text: &str) -> miette::Result<Vec<SchemeKind>> {
    if text == "all" {
        return Ok(SchemeKind::ALL.to_vec());
    }
    text.split(',')
        .map(|name| name.trim().parse::<SchemeKind>().map_err(|e| miette!("--schemes: {e}")))
        .collect()
}

/// `hooke compare MODEL.toml --schemes all|LIST --reference exact|SCHEME@RATE`.
pub fn compare(args: &CompareArgs) -> miette::Result<()> {
    let source = read_model(&args.model)?;
    let loaded = load_run(&source, &args.model.display().to_string(), None, &args.step)?;
    let (dt, steps, rate) = (loaded.settings.step.seconds(), loaded.steps, loaded.settings.step.hertz());
    let schemes = parse_schemes(&args.schemes)?;
    let (reference_scheme, multiple) = parse_reference(&args.reference, rate)?;
    if let Some(path) = &args.plot {
        crate::plot::check_output(path, false)?;
    }
    let masses = loaded.file.model.masses().len() as f64;

    let reference =
        simulate(&loaded.file, reference_scheme, dt / multiple as f64, steps * multiple, multiple)?;
    let reference_peak = reference.trajectory.positions.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let reference_energy = &reference.trajectory.energies;
    println!(
        "{}: {} masses, {steps} steps at {rate} Hz; reference {} at {} Hz (peak |x| {reference_peak:.4e} m)",
        args.model.display(),
        masses,
        reference_scheme,
        rate * multiple as f64
    );
    println!(
        "{:<22} {:>12} {:>12} {:>13} {:>13} {:>11} {:>10} {:>14}",
        "scheme",
        "max error",
        "final error",
        "energy drift",
        "vs reference",
        "H_dev (%)",
        "wall (s)",
        "mass-steps/s"
    );
    let drift = |energies: &[f64]| (energies[energies.len() - 1] - energies[0]) / energies[0].abs();
    for &scheme in &schemes {
        let row = match simulate(&loaded.file, scheme, dt, steps, 1) {
            Ok(run) => {
                let n = loaded.file.model.masses().len() * loaded.file.model.dimension();
                let errors: Vec<f64> = run
                    .trajectory
                    .positions
                    .chunks(n)
                    .zip(reference.trajectory.positions.chunks(n))
                    .map(|(a, b)| a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max))
                    .collect();
                let max_error = errors.iter().copied().fold(0.0, f64::max);
                let energies = &run.trajectory.energies;
                format!(
                    "{:>12.4e} {:>12.4e} {:>+13.4e} {:>+13.4e} {:>11.4e} {:>10.4} {:>14.4e}",
                    max_error,
                    errors[errors.len() - 1],
                    drift(energies),
                    drift(energies) - drift(reference_energy),
                    energy_deviation(&energies[1..], &reference_energy[1..]),
                    run.seconds,
                    steps as f64 * masses / run.seconds.max(1e-9)
                )
            }
            Err(error) => format!("failed: {error}"),
        };
        println!("{:<22} {row}", scheme.name());
    }
    println!(
        "errors: largest |x - x_ref| over masses and steps, and at the last step (m); energy drift: \
         (E_end - E_0)/|E_0|; vs reference: minus the reference's drift; H_dev: Chatziioannou 2019, \
         eq. (22), 100 ||H - H_ref||_2 / mean(H_ref)"
    );
    if let Some(path) = &args.plot {
        crate::plot::compare_plot(&loaded, &args.model, &schemes, &args.reference, path)?;
    }
    Ok(())
}
