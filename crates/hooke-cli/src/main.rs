//! `hooke`: run mass-spring models from TOML files, render a demo, time the engine.

mod bench;
mod diagnostics;
mod run;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Hooke: networks of masses, springs and dampers, simulated with known accuracy.
#[derive(Parser)]
#[command(
    name = "hooke",
    version,
    about = "Hooke: networks of masses, springs and dampers, simulated with known accuracy"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a model file; write sound (WAV), trajectories (CSV) and an energy check.
    Run(run::RunArgs),
    /// Render the built-in example (a plucked string) to hooke-demo.wav and hooke-demo.csv.
    Demo {
        /// Folder to write the files into.
        #[arg(long, default_value = ".")]
        out_dir: PathBuf,
    },
    /// Time the engine on a string of N masses (Faust mi.lib's benchmark string).
    Bench(bench::BenchArgs),
}

fn main() -> miette::Result<()> {
    let cli = Cli::parse();
    miette::set_hook(Box::new(|_| Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())))?;
    match cli.command {
        Command::Run(args) => run::run_command(&args),
        Command::Demo { out_dir } => run::demo(&out_dir),
        Command::Bench(args) => bench::bench(&args),
    }
}
