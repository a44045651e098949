//! `hooke`: run mass-spring models from TOML files, render a demo, time the engine.

mod analyze;
mod bench;
mod bench_gpu;
mod bench_play;
mod compare;
mod design;
mod device;
mod diagnostics;
mod fit;
mod fit_bar;
mod fit_bell;
mod fit_plate;
mod fit_struck;
mod interrupt;
mod limits;
mod load;
mod note_map;
mod outputs;
#[cfg(feature = "play")]
mod play;
#[cfg(feature = "play")]
mod play_keys;
mod plot;
mod render;
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
    /// Before running: each mode's frequency, decay and stability under a scheme at a step, and
    /// the largest stable step.
    Analyze(analyze::AnalyzeArgs),
    /// Coefficients for a model whose simulation has a given pitch and decay.
    Design(design::DesignArgs),
    /// An instrument from recordings: each note measured (partials, inharmonicity, decays,
    /// pluck position) and a string designed to sound it (docs/fit.md).
    Fit(fit::FitArgs),
    /// Play an instrument from a score: simulate (oversampled), decimate, write a WAV.
    Render(render::RenderArgs),
    /// Play an instrument in real time from a MIDI port or the computer keyboard.
    #[cfg(feature = "play")]
    Play(play::PlayArgs),
    /// Play an instrument in real time (this build has no audio: see `hooke play` for how to
    /// build one that has).
    #[cfg(not(feature = "play"))]
    Play {
        /// The arguments, which this build cannot act on.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Render the built-in demo (the guitar on its body, a piano phrase, a marimba run and the
    /// 88-key grand piano's piece) to hooke-demo.wav.
    Demo {
        /// Folder to write the files into.
        #[arg(long, default_value = ".")]
        out_dir: PathBuf,
    },
    /// Run several schemes on one model and compare each with a reference run.
    Compare(compare::CompareArgs),
    /// List the schemes with their order and properties.
    Schemes,
    /// Time the engine on a string of N masses (Faust mi.lib's benchmark string).
    Bench(bench::BenchArgs),
    /// Draw a picture (PNG or SVG; GIF for a trajectory): trajectory, time, phase, energy,
    /// poles, warping or spectrum.
    Plot(plot::PlotArgs),
}

fn main() -> miette::Result<()> {
    restore_broken_pipe_default();
    let cli = Cli::parse();
    miette::set_hook(Box::new(|_| Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())))?;
    let interrupt = interrupt::Interrupt::install();
    match cli.command {
        Command::Run(args) => run::run_command(&args, &interrupt),
        Command::Analyze(args) => analyze::analyze(&args),
        Command::Design(args) => design::design(&args),
        Command::Demo { out_dir } => render::demo(&out_dir, &interrupt),
        Command::Render(args) => render::render(&args, &interrupt),
        Command::Fit(args) => fit::fit(&args, &interrupt),
        #[cfg(feature = "play")]
        Command::Play(args) => play::play(&args, &interrupt),
        #[cfg(not(feature = "play"))]
        Command::Play { .. } => Err(miette::miette!(
            "this hooke was built without real-time audio: install the audio libraries (Debian: \
             libasound2-dev libjack-jackd2-dev) and build with `cargo build --release -p hooke-cli \
             --features play`"
        )),
        Command::Compare(args) => compare::compare(&args),
        Command::Schemes => {
            list_schemes();
            Ok(())
        }
        Command::Bench(args) => bench::bench(&args),
        Command::Plot(args) => plot::plot(&args),
    }
}

/// Lets a closed pipe end the program quietly, as it does other command-line tools
/// (`hooke analyze --json | head`): Rust ignores SIGPIPE, and printing then panics.
fn restore_broken_pipe_default() {
    // SAFETY: setting a signal's disposition to its default at start-up, before any thread.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Prints every scheme with its order (undamped, damped) and properties. "symplectic" is that
/// of the undamped scheme: `yes` on every network, `linear only` for the schemes that equal the
/// implicit midpoint rule on a linear network but not on a nonlinear one (the trapezoidal rule,
/// the energy-conserving scheme and the splittings built on it; see `hooke::scheme::SchemeInfo`).
fn list_schemes() {
    println!("{:<22} {:>6} {:>13} {:>12} {:>9}", "scheme", "order", "damped order", "symplectic", "explicit");
    for scheme in hooke::scheme::SchemeKind::ALL {
        let info = scheme.info();
        let order =
            |o: u32| if o == hooke::scheme::EXACT_ORDER { "exact".to_string() } else { o.to_string() };
        let symplectic = match (info.symplectic, info.linear_symplectic) {
            (true, _) => "yes",
            (false, true) => "linear only",
            (false, false) => "no",
        };
        println!(
            "{:<22} {:>6} {:>13} {:>12} {:>9}",
            scheme.name(),
            order(info.order),
            order(info.damped_order),
            symplectic,
            if info.explicit { "yes" } else { "no" }
        );
    }
}
