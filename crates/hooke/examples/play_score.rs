//! Play a score: the guitar of examples/instruments/guitar.toml plays guitar-phrase.toml,
//! built for its scheme at the smallest stable oversampling, rendered and written to a WAV.
//!
//! `cargo run --release --example play_score [OUT.wav]`

use hooke::prelude::*;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "guitar-phrase.wav".into());
    run(Path::new(&out)).map(|_| ())
}

/// Renders the phrase to `out`; returns the channels at the output rate.
pub fn run(out: &Path) -> Result<Vec<Vec<f64>>, Box<dyn std::error::Error>> {
    let folder = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/instruments"));
    let file = hooke::format::instrument::load(&folder.join("guitar.toml"))?;
    let (oversample, instrument) = file.build_stable(file.scheme, file.rate, file.oversample)?;
    let score = hooke::format::score::load(&folder.join("guitar-phrase.toml"), &instrument)?;
    let options = PerformanceOptions { oversample, ..PerformanceOptions::default() };
    let mut performance = Performance::new(&instrument, score, options)?;
    let mut channels = vec![Vec::new(); performance.channels()];
    performance.render(performance.total_steps(), &mut channels)?;
    performance.finish(&mut channels)?;
    let options = WavOptions { format: SampleFormat::Int24, normalize: true };
    write_wav_file(out, &channels, file.rate as u32, options)?;
    println!("wrote {} ({oversample}x oversampled, {} path)", out.display(), performance.path().name());
    Ok(channels)
}
