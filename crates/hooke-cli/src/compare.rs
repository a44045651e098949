//! `hooke compare`: every scheme against a reference run, one table row per scheme.

use crate::limits::check_work;
use crate::load::{load_run, parse_reference, read_model, require_mass, StepArgs};
use crate::outputs::check_outputs;
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
    /// The reference: `auto` (the exact flow for a linear network without driving forces or
    /// contacts, else RK4 at a finer step, refined until converged), `exact` (the exact flow,
    /// linear networks only), or `SCHEME@RATE`, a scheme run at a rate (Hz) that is a whole
    /// multiple of the compared rate.
    #[arg(long, default_value = "auto")]
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
        if state.step.is_multiple_of(self.every) {
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

/// Whether the exact scheme is the true flow of `system`: a linear network (its conservative
/// forces affine in `x`) with no driving force and no contact, which it would take as impulses.
fn exact_is_exact(system: &System) -> bool {
    hooke::forces::is_linear(system) && !system.external_forces().drives() && !system.has_contacts()
}

/// The finest step multiple tried for an automatic reference.
const MAX_REFERENCE_MULTIPLE: u64 = 1024;
/// An automatic reference is converged when its estimated error is below this fraction of the
/// largest position magnitude (m per m).
const REFERENCE_TOLERANCE: f64 = 1e-9;

/// RK4 at 4, 8, 16, ... times the compared rate, until two successive runs agree: the finer
/// one's error is estimated by Richardson's rule for a fourth-order scheme, `|x_2M - x_M| / 15`,
/// and accepted below [`REFERENCE_TOLERANCE`] of the peak. Refuses, with the figures, when no
/// multiple up to [`MAX_REFERENCE_MULTIPLE`] converges (a contact or a non-smooth force can
/// keep RK4 from its order).
fn converged_reference(file: &ModelFile, dt: f64, steps: u64) -> miette::Result<(SchemeKind, u64, Run)> {
    let scheme = SchemeKind::Rk4;
    let mut multiple = 4;
    let mut coarse = simulate(file, scheme, dt / multiple as f64, steps * multiple, multiple)?;
    let mut estimate = f64::INFINITY;
    while multiple < MAX_REFERENCE_MULTIPLE {
        let fine_multiple = multiple * 2;
        check_work("the reference run", steps.saturating_mul(fine_multiple), file.model.masses().len())?;
        let fine = simulate(file, scheme, dt / fine_multiple as f64, steps * fine_multiple, fine_multiple)?;
        let (a, b) = (&coarse.trajectory.positions, &fine.trajectory.positions);
        let difference = a.iter().zip(b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        let peak = b.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        estimate = difference / 15.0;
        (multiple, coarse) = (fine_multiple, fine);
        if estimate <= REFERENCE_TOLERANCE * peak {
            eprintln!(
                "reference: {scheme} at {multiple} x the rate, estimated error {estimate:.2e} m (Richardson, \
                 from the run at half its rate)"
            );
            return Ok((scheme, multiple, coarse));
        }
    }
    Err(miette!(
        "no converged reference: {scheme} at {multiple} x the rate still has an estimated error of {estimate:.2e} m \
         (more than {REFERENCE_TOLERANCE:e} of the peak); give one with --reference SCHEME@RATE"
    ))
}

/// `hooke compare MODEL.toml --schemes all|LIST --reference exact|SCHEME@RATE`.
pub fn compare(args: &CompareArgs) -> miette::Result<()> {
    let source = read_model(&args.model)?;
    let file_name = args.model.display().to_string();
    let loaded = load_run(&source, &file_name, None, &args.step)?;
    require_mass(&loaded, &file_name, "compare schemes on")?;
    let (dt, steps, rate) = (loaded.settings.step.seconds(), loaded.steps, loaded.settings.step.hertz());
    let schemes = parse_schemes(&args.schemes)?;
    if let Some(path) = &args.plot {
        crate::plot::check_output(path, false)?;
    }
    check_outputs([("--plot", args.plot.as_deref())])?;
    let masses = loaded.file.model.masses().len() as f64;
    let linear = exact_is_exact(&System::new(&loaded.file.model));
    let (reference_scheme, multiple, reference) = match args.reference.as_str() {
        "auto" if linear => (SchemeKind::Exact, 1, simulate(&loaded.file, SchemeKind::Exact, dt, steps, 1)?),
        "auto" => converged_reference(&loaded.file, dt, steps)?,
        "exact" if !linear => {
            return Err(miette!(
                "--reference exact: the exact flow is exact only for a linear network (1D springs and \
             dampers, gravity) without driving forces or contacts, and this model is not one; use \
             --reference auto (RK4 refined until converged) or SCHEME@RATE"
            ))
        }
        text => {
            let (scheme, multiple) = parse_reference(text, rate)?;
            (
                scheme,
                multiple,
                simulate(&loaded.file, scheme, dt / multiple as f64, steps * multiple, multiple)?,
            )
        }
    };
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
    // Relative to |E_0|, or in joules when the model starts with no energy (a driven model at rest).
    let start_energy = reference_energy[0];
    let drift = |energies: &[f64]| {
        let change = energies[energies.len() - 1] - energies[0];
        if start_energy == 0.0 {
            change
        } else {
            change / start_energy.abs()
        }
    };
    let mean_reference =
        reference_energy[1..].iter().sum::<f64>() / (reference_energy.len() - 1).max(1) as f64;
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
                    if mean_reference > 0.0 {
                        energy_deviation(&energies[1..], &reference_energy[1..])
                    } else {
                        f64::NAN
                    },
                    run.seconds,
                    steps as f64 * masses / run.seconds.max(1e-9)
                )
            }
            Err(error) => format!("failed: {error}"),
        };
        println!("{:<22} {row}", scheme.name());
    }
    let drift_meaning = if start_energy == 0.0 {
        "E_end - E_0 in J (E_0 = 0, so no relative figure)"
    } else {
        "(E_end - E_0)/|E_0|"
    };
    println!(
        "errors: largest |x - x_ref| over masses and steps, and at the last step (m); energy drift: \
         {drift_meaning}; vs reference: minus the reference's drift; H_dev: Chatziioannou 2019, \
         eq. (22), 100 ||H - H_ref||_2 / mean(H_ref), a norm over the N steps that grows with sqrt(N) \
         (NaN when the reference's mean energy is 0)"
    );
    if start_energy > 0.0 && mean_reference < 0.01 * start_energy {
        println!(
            "note: the reference's mean energy is {:.2e} of its initial energy (the run is much longer than \
             the decay), which makes H_dev large; a shorter --duration gives a more telling figure",
            mean_reference / start_energy
        );
    }
    if let Some(path) = &args.plot {
        let resolved = format!("{reference_scheme}@{}", rate * multiple as f64);
        crate::plot::compare_plot(&loaded, &args.model, &schemes, &resolved, path)?;
    }
    Ok(())
}
