//! `hooke bench`: mass-steps per second on Faust mi.lib's benchmark string.

use clap::Args;
use hooke::model::generate::{add_string, Elements, StringSpec};
use hooke::model::Model;
use hooke::render::Simulation;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use miette::miette;
use std::time::Instant;

/// The string ../shared/bench/faust times: masses of 1 g, spring-dampers of 230400 N/m and
/// 4.8e-3 N s/m, 48 kHz (K h^2 / M = 0.1, Z h / M = 1e-4).
const MASS: f64 = 1e-3;
const STIFFNESS: f64 = 230_400.0;
const DAMPING: f64 = 4.8e-3;
const RATE: f64 = 48_000.0;

/// Arguments of `hooke bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Number of masses of the string.
    #[arg(long, default_value_t = 80, value_parser = clap::value_parser!(u64).range(1..))]
    pub string: u64,
    /// Integrator.
    #[arg(long, default_value = "symplectic-euler", value_parser = |s: &str| s.parse::<SchemeKind>().map_err(|e| e.to_string()))]
    pub scheme: SchemeKind,
    /// Wall-clock seconds to measure for (after a warm-up of a tenth of that).
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
}

/// Times the string and prints, as the last line, `<number> mass-steps/s`.
pub fn bench(args: &BenchArgs) -> miette::Result<()> {
    let masses = usize::try_from(args.string).map_err(|_| miette!("--string: too many masses"))?;
    let mut model = Model::new(1).map_err(|e| miette!("{e}"))?;
    add_string(
        &mut model,
        &StringSpec {
            id: "s".into(),
            masses,
            elements: Elements::Lumped { mass: MASS, stiffness: STIFFNESS, damping: DAMPING },
            drag: 0.0,
            pluck: None,
        },
    )
    .map_err(|e| miette!("{e}"))?;
    model.set_initial_position(masses / 2, &[1e-3]).map_err(|e| miette!("{e}"))?;
    let mut simulation = Simulation::new(System::new(&model), args.scheme, 1.0 / RATE);

    // Run chunks of about 1e6 mass-steps until the time is spent.
    let chunk = (1_000_000 / masses as u64).max(1);
    let mut run_for = |seconds: f64| -> miette::Result<(u64, f64)> {
        let started = Instant::now();
        let mut steps = 0;
        while started.elapsed().as_secs_f64() < seconds {
            simulation.run(chunk, &mut [], &mut |_| {}).map_err(|e| miette!("{e}"))?;
            steps += chunk;
        }
        Ok((steps, started.elapsed().as_secs_f64()))
    };
    run_for(args.seconds / 10.0)?;
    let (steps, wall) = run_for(args.seconds)?;
    let steps_per_second = steps as f64 / wall;
    println!("string of {masses} masses, {}, 1 thread, f64: {steps} steps in {wall:.3} s", args.scheme);
    println!("real-time factor at 44.1 kHz: {:.1}", steps_per_second / 44_100.0);
    println!("{:.4e} mass-steps/s", steps_per_second * masses as f64);
    Ok(())
}
