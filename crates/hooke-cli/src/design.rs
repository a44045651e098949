//! `hooke design string`: spring and damper coefficients for a string that, simulated with a
//! given scheme and step, sounds at a given pitch and decays in a given time (Morgan & Qiao 2009,
//! section 4.3, Algorithms 1-4, generalised to every scheme).

use crate::analyze::{mode_table, ModeJson};
use crate::load::parse_scheme;
use clap::{Args, Subcommand};
use hooke::analysis::design::{design_string, TuneTarget};
use hooke::analysis::report::{analyse, AnalysisOptions};
use hooke::analysis::string_partials::{design_string_partials, LossLaw, PartialsTarget};
use hooke::engine::StepSize;
use hooke::scheme::SchemeKind;
use hooke::system::System;
use miette::miette;
use serde::Serialize;

/// Arguments of `hooke design`.
#[derive(Args, Debug)]
pub struct DesignArgs {
    /// What to design.
    #[command(subcommand)]
    pub what: DesignCommand,
}

/// What `hooke design` designs.
#[derive(Subcommand, Debug)]
pub enum DesignCommand {
    /// A uniform string of N masses whose simulated fundamental has the given pitch and decay.
    String(StringArgs),
}

/// Arguments of `hooke design string`.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("step").required(true).args(["rate", "dt"])))]
pub struct StringArgs {
    /// The fundamental as simulated, Hz.
    #[arg(long)]
    pub f0: f64,
    /// The fundamental's time constant (decay to 1/e) as simulated, s.
    #[arg(long)]
    pub tau: f64,
    /// A second time constant, at --high-frequency, s: the string then gets drag as well as
    /// dampers, set so that its partials decay by the two-point law 1/tau = sigma_0 + sigma_1 xi(f)
    /// through both (xi(f) = f^2 without stiffness, (n f0)^2 at a stiff string's partial n).
    #[arg(long, requires = "high_frequency")]
    pub high_tau: Option<f64>,
    /// Where --high-tau applies, Hz (the partial nearest it is matched).
    #[arg(long, requires = "high_tau")]
    pub high_frequency: Option<f64>,
    /// A stiff string: the inharmonicity coefficient B of f_n = n f0 sqrt(1 + B n^2). Springs and
    /// bending elements are fitted so that the first 10 simulated partials follow it (with
    /// --high-tau for the decay).
    #[arg(long, requires = "high_tau")]
    pub inharmonicity: Option<f64>,
    /// Number of masses.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub masses: u32,
    /// Steps per second, Hz.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Step length, s.
    #[arg(long)]
    pub dt: Option<f64>,
    /// The scheme the string will be simulated with.
    #[arg(long, value_parser = parse_scheme, default_value = "symplectic-euler")]
    pub scheme: SchemeKind,
    /// The mass of each mass, kg.
    #[arg(long, default_value_t = 1.0)]
    pub mass: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `hooke design string --json`.
#[derive(Serialize)]
struct StringJson {
    /// `sqrt(k/m)`, rad/s.
    omega0: f64,
    /// `Z/m`, 1/s.
    gamma: f64,
    /// Spring stiffness, N/m.
    k: f64,
    /// Damper coefficient, N s/m.
    z: f64,
    /// Each mass's drag rate `c / m`, 1/s (0 without --high-tau).
    drag: f64,
    /// Each bending element's kappa, N/m (0 without --inharmonicity).
    bending: f64,
    /// Mass, kg.
    m: f64,
    masses: u32,
    scheme: &'static str,
    dt: f64,
    modes: Vec<ModeJson>,
}

/// `hooke design ...`.
pub fn design(args: &DesignArgs) -> miette::Result<()> {
    match &args.what {
        DesignCommand::String(args) => string(args),
    }
}

fn string(args: &StringArgs) -> miette::Result<()> {
    let flag = |name: &'static str| {
        move |e: hooke::model::ModelError| miette!("--{name}: expected {}, found {}", e.expected, e.found)
    };
    let step = match (args.rate, args.dt) {
        (Some(hz), _) => StepSize::rate(hz).map_err(flag("rate"))?,
        (None, Some(dt)) => StepSize::dt(dt).map_err(flag("dt"))?,
        (None, None) => return Err(miette!("give the step with --rate HZ or --dt S")),
    };
    let h = step.seconds();
    let masses = args.masses as usize;
    let design = match (args.high_tau, args.high_frequency) {
        (Some(high_tau), Some(high_hz)) => {
            LossLaw::through(args.f0, args.tau, high_hz, high_tau).and_then(|law| {
                let target = PartialsTarget {
                    fundamental_hz: args.f0,
                    inharmonicity: args.inharmonicity.unwrap_or(0.0),
                    loss: Some(law),
                };
                design_string_partials(masses, args.mass, &target, args.scheme, h)
            })
        }
        _ => {
            let target = TuneTarget { frequency_hz: args.f0, time_constant: Some(args.tau) };
            design_string(masses, args.mass, target, args.scheme, h)
        }
    }
    .map_err(|e| miette!("{e}"))?;
    let report = analyse(&System::new(&design.model), args.scheme, h, &AnalysisOptions::default())
        .map_err(|e| miette!("{e}"))?;
    if args.json {
        let json = StringJson {
            omega0: design.omega0,
            gamma: design.gamma,
            k: design.stiffness,
            z: design.damping,
            drag: design.drag,
            bending: design.bending,
            m: design.mass,
            masses: args.masses,
            scheme: args.scheme.name(),
            dt: h,
            modes: report.modes.iter().map(ModeJson::new).collect(),
        };
        println!("{}", serde_json::to_string_pretty(&json).map_err(|e| miette!("{e}"))?);
        return Ok(());
    }
    println!(
        "a string of {} masses whose fundamental, simulated with {} at dt = {h:.6e} s, sounds at {} Hz and \
         decays with a time constant of {} s:",
        args.masses, args.scheme, args.f0, args.tau
    );
    println!("omega0 = {:?} rad/s   (sqrt(k/m))", design.omega0);
    println!("gamma  = {:?} 1/s   (Z/m)", design.gamma);
    println!("m      = {:?} kg", design.mass);
    println!("k      = {:?} N/m", design.stiffness);
    println!("Z      = {:?} N s/m", design.damping);
    if let (Some(high_tau), Some(high_hz)) = (args.high_tau, args.high_frequency) {
        println!(
            "drag   = {:?} 1/s   (c/m; the partials decay by the law through {} s at {} Hz and {high_tau} s at {high_hz} Hz)",
            design.drag, args.tau, args.f0
        );
    }
    if let Some(b) = args.inharmonicity {
        println!(
            "bending = {:?} N/m   (kappa; the first 10 partials follow f_n = n f0 sqrt(1 + {b} n^2))",
            design.bending
        );
    }
    println!();
    println!(
        "[[string]]  # for a 1D model file: anchors s.0 and s.{}, masses s.1 .. s.{}",
        args.masses + 1,
        args.masses
    );
    println!(
        "id = \"s\"\nmasses = {}\nmass = {:?}\nstiffness = {:?}\ndamping = {:?}",
        args.masses, design.mass, design.stiffness, design.damping
    );
    if design.drag > 0.0 {
        println!("drag = {:?}", design.drag);
    }
    if design.bending > 0.0 {
        println!("bending = {:?}", design.bending);
    }
    println!();
    print!("{}", mode_table(&report.modes));
    if !report.is_stable() {
        println!(
            "warning: the designed string is unstable at this step: {}",
            crate::analyze::describe_stable_step(report.largest_stable_step)
        );
    }
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    Ok(())
}
