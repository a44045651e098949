//! MIDI files: any bytes are read as a Standard MIDI File and played on each example
//! instrument (guitar, drum, reed, sitar, pendulum), leniently (notes an instrument cannot play
//! are left out), or refused with a named error; what is accepted is performed for a few
//! thousand steps. Controllers 1 and 74 are mapped to damping and tension where the instrument
//! has links. Never a panic, a hang or a runaway allocation.
#![no_main]

use hooke::format::midi::{load, MidiError};
use hooke::score::controls::ControlMapping;
use hooke::score::notes::{NoteMap, StringRule};
use hooke_fuzz::{instruments, perform};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rule = if data.len() % 2 == 0 { StringRule::LowestFret } else { StringRule::ByChannel };
    let controls: [ControlMapping; 2] = ["1=damping".parse().unwrap(), "74=tension:0.25:4".parse().unwrap()];
    for (oversample, instrument) in instruments() {
        let map = NoteMap::new(instrument, rule);
        let map = map.clone().with_controls(&controls, instrument).unwrap_or(map);
        match load(data, "fuzz.mid", instrument, map, true, 0.5) {
            Ok(midi) => perform(instrument, *oversample, midi.score),
            Err(MidiError::Score(error)) => panic!("the score written from a MIDI file was refused: {error}"),
            Err(_) => {}
        }
    }
});
