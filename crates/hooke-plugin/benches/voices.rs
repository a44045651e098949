//! Voices per core in the plugin: each shipped instrument loaded from the bundled `hooke.clap`
//! (`$HOOKE_CLAP`) by the test's headless CLAP host, every voice it has sounding at once (one
//! note for each string, key, bar or plate: the note of its open string or its key), rendered
//! for 2 s in blocks of 128 frames at 44.1 kHz, three times (the instrument built first, not
//! timed). Prints the time one instance takes
//! per second of sound (its load on one core), the instances one core runs in real time
//! (`floor(1 / load)`) and so the voices. A mean over the run: the worst block is not measured.
//!     HOOKE_CLAP=target/plugin/bundled/hooke.clap cargo bench --bench voices   (in crates/hooke-plugin)

#[path = "../tests/plugin/host.rs"]
#[allow(dead_code)]
mod host;

use hooke::format::instrument::load as load_instrument;
use hooke::score::notes::midi_note;
use host::{load, plugin_path, shipped, Input, RATE};
use std::time::Instant;

/// The frames of each render: 2 s.
const FRAMES: usize = 2 * 44_100;

/// The host's block, frames.
const BLOCK: usize = 128;

fn main() {
    println!("instrument            voices  load (3 runs)           instances  voices per core");
    for name in [
        "acoustic-guitar",
        "guitar",
        "piano",
        "marimba",
        "plates",
        "drum",
        "sitar",
        "reed",
        "pendulum",
        "bell",
    ] {
        let file = shipped(&format!("{name}.toml"));
        let spec = load_instrument(&file).expect("a shipped instrument");
        let instrument = spec.build_stable(spec.scheme, RATE, spec.oversample).map(|(_, built)| built);
        // One note for each part that has a pitch; an instrument without (a body) plays one.
        let notes: Vec<(usize, Input)> = instrument
            .expect("the instrument builds as the plugin builds it")
            .parts
            .iter()
            .filter_map(|part| part.kind.pitch_hz())
            .map(|hz| (0, Input::NoteOn(midi_note(hz).clamp(0, 127) as u8, 100)))
            .collect();
        let notes = if notes.is_empty() { vec![(0, Input::NoteOn(60, 100))] } else { notes };
        let loads: Vec<f64> = (0..3)
            .map(|_| {
                let mut loaded = load(&plugin_path());
                loaded.set_state_file("instrument-file", &file);
                // The first activation builds the instrument (its analysis, every fret stop,
                // the gain): not timed. A later one with the same rate and block keeps it.
                loaded.render(BLOCK, BLOCK, &[]);
                let started = Instant::now();
                let played = loaded.render(BLOCK, FRAMES, &notes);
                let seconds = started.elapsed().as_secs_f64();
                assert!(played[0].iter().all(|x| x.is_finite()), "{name}: not finite");
                seconds / (FRAMES as f64 / RATE)
            })
            .collect();
        let best = loads.iter().copied().fold(f64::INFINITY, f64::min);
        let instances = (1.0 / best).floor() as usize;
        let spread = format!("{:.3} - {:.3}", best, loads.iter().copied().fold(0.0, f64::max));
        println!(
            "{name:<20}  {:>6}  {spread:<22}  {instances:>9}  {:>15}",
            notes.len(),
            instances * notes.len()
        );
    }
}
