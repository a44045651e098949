//! Analyse a model and design a string: what each scheme does to the modes of the 5-mass string
//! of Morgan & Qiao 2009 (Table 1), and the string whose *simulated* lowest mode sounds at
//! 440 Hz and decays with a 1 s time constant at 6 kHz (their eq. (90)).
//!
//! `cargo run --release --example design_string`

use hooke::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run().map(|_| ())
}

/// Prints the analysis of each scheme and the designed string; returns the design.
pub fn run() -> Result<StringDesign, Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/string-5-table1.toml");
    let file = hooke::format::model::load(std::path::Path::new(path))?;
    let dt = 1.0 / 6000.0;
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet, SchemeKind::CaldirolaKanai] {
        let config = EngineConfig::default().scheme(scheme).dt(dt);
        let engine = Engine::from_system(System::new(&file.model), file.pickups.clone(), config)?;
        let analysis = engine.analyse(&AnalysisOptions::default())?;
        print!("{scheme}: stable {}, modes (Hz):", analysis.is_stable());
        for mode in &analysis.modes {
            print!(" {:.2}", mode.discrete.frequency_hz());
        }
        println!();
    }
    let target = TuneTarget { frequency_hz: 440.0, time_constant: Some(1.0) };
    let design = design_string(5, 1.0, target, SchemeKind::SymplecticEuler, dt)?;
    println!("designed: w0 = {:.9} rad/s, gamma = {:.9} 1/s", design.omega0, design.gamma);
    Ok(design)
}
