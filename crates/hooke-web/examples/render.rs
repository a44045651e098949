//! Renders a model file natively through the same calls the browser's worklet makes, for the
//! browser tests' native-vs-WebAssembly comparison (web/tests/):
//!
//! ```text
//! cargo run --release -p hooke-web --example render -- MODEL.toml SECONDS OUT.f32
//! ```
//!
//! writes channel 1's first `SECONDS * rate` frames (pickup units, m or m/s) as little-endian
//! f32, and prints the analysis' lowest-mode frequency (Hz).

use hooke_web::{Playground, MAX_FRAMES};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, seconds, out] = &args[..] else {
        eprintln!("usage: render MODEL.toml SECONDS OUT.f32");
        return ExitCode::from(2);
    };
    match render(model, seconds, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn render(model: &str, seconds: &str, out: &str) -> Result<(), String> {
    let source = std::fs::read_to_string(model).map_err(|e| format!("cannot read {model}: {e}"))?;
    let mut playground =
        Playground::load(&source, model).map_err(|e| String::from_utf8_lossy(&e.to_json()).into_owned())?;
    let seconds: f64 = seconds.parse().map_err(|_| format!("SECONDS: expected a number, found {seconds}"))?;
    let frames = (seconds * playground.rate()).round() as usize;
    let mut bytes = Vec::with_capacity(frames * 4);
    let mut done = 0;
    while done < frames {
        let n = (frames - done).min(MAX_FRAMES);
        let block = playground.render(n).map_err(|e| String::from_utf8_lossy(&e.to_json()).into_owned())?;
        bytes.extend(block[..n].iter().flat_map(|x| x.to_le_bytes()));
        done += n;
    }
    std::fs::write(out, bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    let lowest =
        playground.lowest_frequency().map_err(|e| String::from_utf8_lossy(&e.to_json()).into_owned())?;
    println!("{}", lowest.map_or(f64::NAN, |f| f));
    Ok(())
}
