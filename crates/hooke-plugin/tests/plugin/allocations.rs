//! nice-plug's allocation assertion (`--features assert_process_allocs`, a debug build) aborts
//! the process at any allocation in `process`. Each test plays notes, the sustain pedal and
//! pitch bend on one instrument in a child process (this test binary again, running
//! [`child`]) and expects it to finish.

use crate::host::{load, melody, shipped, test_build_path, Input};
use hooke::score::notes::NoteKind;
use std::ffi::CStr;
use std::process::Command;

/// The child's environment variable: the instrument file to play (empty: the default preset).
const CHILD: &str = "HOOKE_ALLOCATION_CHILD";
/// The child's environment variable that has it move the tension and the damping too (set: yes).
const RETUNED: &str = "HOOKE_ALLOCATION_RETUNED";

/// Plays notes, with the touch of some (CLAP pressure and brightness, channel pressure, CC 74),
/// the parameters moving (the input drive and the body mix among them), a voice modulated and a note the instrument may not have, on the
/// instrument `$HOOKE_ALLOCATION_CHILD` names, in blocks of 64 frames.
#[test]
#[ignore = "the allocation tests run it in a child process"]
fn child() {
    let Some(file) = std::env::var_os(CHILD) else { return };
    let mut loaded = load(&test_build_path());
    if !file.is_empty() {
        loaded.set_state_file("instrument-file", &shipped(&file.to_string_lossy()));
    }
    let mut param = |name: &str, text: &CStr| {
        let (id, value) = loaded.param(name, text);
        Input::Param(id, value)
    };
    let (Input::Param(tension, _), Input::Param(damping, _)) =
        (param("Tension", c"1"), param("Damping", c"1"))
    else {
        unreachable!("parameters")
    };
    let mut inputs = melody();
    inputs.extend([(1000, param("Position", c"0.7")), (1000, param("Hardness", c"2"))]);
    // The Excitation input (silent) driving the instrument, and the body mix moving.
    inputs.extend([(1200, param("Input drive", c"0.5")), (1500, param("Body mix", c"30"))]);
    // A note no string, bar or key plays (refused, its reason kept as data), where one is.
    inputs.push((600, Input::NoteOn(20, 90)));
    // A voice modulated by the host, then ended.
    let (tuned, damped) =
        (NoteKind::Tuning { note: 62, semitones: 0.3 }, NoteKind::Damping { note: 62, factor: 2.0 });
    inputs.extend([
        (500, Input::VoiceOn(62, 90, 7)),
        (700, Input::Modulate(tension, 7, 0.05, tuned)),
        (800, Input::Modulate(damping, 7, 0.2, damped)),
        (4500, Input::NoteOff(62)),
    ]);
    if std::env::var_os(RETUNED).is_some() {
        inputs.extend([(3000, param("Tension", c"1.02")), (3000, param("Damping", c"1.5"))]);
    }
    inputs.extend([
        (2000, Input::Brightness(59, 0.8)),
        (2500, Input::Pressure(59, 0.6)),
        (6000, Input::Midi([0xd0, 90, 0])),
        (6500, Input::Midi([0xb0, 74, 100])),
    ]);
    inputs.sort_by_key(|(frame, _)| *frame);
    let _ = loaded.render(64, 1 << 15, &inputs);
}

/// Runs [`child`] on `file` (empty: the default preset), the host moving the tension and the
/// damping too where `retuned`, and asserts that it finished.
fn assert_no_allocation_in(file: &str, retuned: bool) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new(exe);
    child.args(["--exact", "allocations::child", "--ignored", "--nocapture", "--test-threads", "1"]);
    if retuned {
        child.env(RETUNED, "1");
    }
    let output = child.env(CHILD, file).output().expect("the child runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let what = if file.is_empty() { "the default preset" } else { file };
    assert!(output.status.success(), "{what}: the child failed ({}):\n{stderr}", output.status);
}

/// A test that [`child`] plays `$file` through (the tension and damping moving where
/// `$retuned`) in the debug build with the allocation assertion.
macro_rules! no_allocation {
    ($name:ident: $file:literal, $retuned:literal) => {
        #[test]
        #[cfg_attr(
            not(all(feature = "assert_process_allocs", debug_assertions)),
            ignore = "needs a debug build with --features assert_process_allocs"
        )]
        fn $name() {
            assert_no_allocation_in($file, $retuned);
        }
    };
}

no_allocation!(the_acoustic_guitar_does_not_allocate: "", true);
// The piano's keys bent, retuned and damped: each string prepared as a region of the coupled
// modal path, retuned in place.
no_allocation!(the_piano_does_not_allocate: "piano.toml", true);
no_allocation!(the_guitar_does_not_allocate: "guitar.toml", true);
no_allocation!(the_marimba_does_not_allocate: "marimba.toml", true);
no_allocation!(the_drum_does_not_allocate: "drum.toml", false);
no_allocation!(the_drum_retuned_does_not_allocate: "drum.toml", true);
no_allocation!(the_reed_does_not_allocate: "reed.toml", false);
// The bell plates: lattices retuned in place.
no_allocation!(the_bell_plates_do_not_allocate: "plates.toml", true);
// The sitar: a fretted string over a jawari barrier, on a body (the general path).
no_allocation!(the_sitar_does_not_allocate: "sitar.toml", true);
// The pendulum: a nonlinear network on the general path.
no_allocation!(the_pendulum_does_not_allocate: "pendulum.toml", true);
// The bell: its partials as a bank of modes.
no_allocation!(the_bell_does_not_allocate: "bell.toml", true);
