//! Build and render a model in code: a plucked string from the generator and a hand-made damped
//! oscillator, two pickups, what the scheme does to the lowest mode, and 1 s of sound to a WAV.
//!
//! `cargo run --release --example string_in_code [OUT.wav]`

use hooke::prelude::*;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "string-in-code.wav".into());
    run(Path::new(&out))
}

/// Builds, analyses and renders; writes the WAV to `out`.
pub fn run(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut model = Model::new(1)?;
    let string = model.add_string(
        StringSpec::new("s", 40)
            .length(0.65)
            .tension(80.0)
            .linear_density(1e-3)
            .decay_time(1.5)
            .pluck(0.3, 1e-3),
    )?;
    let wall = model.add_anchor(Anchor::new("wall"))?;
    let bob = model.add_mass(Mass::new("bob", 0.01).position([1e-3]))?;
    model.add_spring(Spring::new(wall, bob, 4e3).damping(0.02))?;
    let pickups = [PickupSpec::position(string[30]), PickupSpec::position(bob).channel(2)];

    let config = EngineConfig::default().scheme(SchemeKind::VelocityVerlet).rate(48_000.0);
    let mut engine = Engine::new(&model, &pickups, config)?;
    let analysis = engine.analyse(&AnalysisOptions::default())?;
    let lowest = &analysis.modes[0];
    println!(
        "lowest mode {:.2} Hz, simulated at {:.2} Hz ({:+.3} cents), stable: {}",
        lowest.mode.frequency_hz(),
        lowest.discrete.frequency_hz(),
        lowest.cents_error().unwrap_or(0.0),
        analysis.is_stable()
    );

    let mut channels = vec![Vec::new(); engine.channels()];
    engine.advance(48_000, &mut channels)?;
    let options = WavOptions { format: SampleFormat::Float32, normalize: true };
    write_wav_file(out, &channels, 48_000, options)?;
    println!("wrote {} on the {} path", out.display(), engine.path().name());
    Ok(())
}
