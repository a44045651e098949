//! The second fuzzing campaign's classes (issue 35): long lines and values echoed back, numbers
//! too small or too large for a computation or a file, models without a mass, a killed writer's
//! temporary file, and a MIDI file that makes an hour of sound.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

mod common;
use common::{hooke, stderr};

/// A million characters: a line or a value far longer than any message should echo.
const MEGA: usize = 1_000_000;

/// Every entry of `dir`, sorted.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// A 1D mass `m` of `mass` kg on a spring of 1e4 N/m to an anchor, displaced `position` m, at
/// 1 kHz for `steps` steps; `extra` is appended (a pickup, an `[output]`).
fn oscillator(mass: &str, position: &str, steps: u64, extra: &str) -> String {
    format!(
        "[model]\ndimension = 1\n\n[[anchor]]\nid = \"ground\"\n\n[[mass]]\nid = \"m\"\nmass = {mass}\n\
         position = {position}\n\n[[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = 1e4\n\n[run]\nrate = 1000\n\
         steps = {steps}\n{extra}"
    )
}

/// Runs `hooke ARGS` in `dir` after writing `files` there.
fn hooke_with(files: &[(&str, &str)], args: &[&str], dir: &Path) -> Output {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    hooke(args, dir)
}

/// Asserts that the command failed with a message (exit 1), not a panic (exit 101).
fn assert_refused(out: &Output) -> String {
    let message = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    message
}

#[test]
fn a_snippet_shows_a_window_of_a_long_line_at_the_true_column() {
    let dir = tempfile::tempdir().unwrap();
    // A NUL after a 70 000-character string: the error is at column 6 + 70 000 + 2 = 70 008 of
    // line 5, past what miette's padding takes (2^16).
    let text = format!("[model]\ndimension = 1\n\n[[mass]]\nid = \"{}\"\0\nmass = 1.0\n", "x".repeat(70_000));
    let out = hooke_with(&[("nul.toml", &text)], &["run", "nul.toml"], dir.path());
    let message = assert_refused(&out);
    assert!(message.contains("nul.toml:5:70008: "), "{message}");
    assert!(message.contains("[nul.toml:5:70008]"), "miette's position is the file's: {message}");
    assert!(message.contains(" 4 │ [[mass]]"), "a short line around it is shown whole: {message}");
    // The line's last 120 characters: 118 x, the quote and the NUL.
    assert!(message.contains(&format!(" 5 │ ...{}\"\0\n", "x".repeat(118))), "{message}");
    assert!(message.len() < 2_000, "{} bytes", message.len());

    // A 1 MB id: the message cuts it, and the snippet shows at most 120 characters of its line.
    let text = format!("[model]\ndimension = 1\n\n[[mass]]\nid = \"{}\"\nmass = -1.0\n", "i".repeat(MEGA));
    let out = hooke_with(&[("id.toml", &text)], &["run", "id.toml"], dir.path());
    let message = assert_refused(&out);
    assert!(message.contains(&format!("({MEGA} characters)")), "{message}");
    assert!(message.contains("`mass`: expected a value > 0, found -1"), "{message}");
    assert!(message.contains(&format!(" 5 │ id = \"{}...", "i".repeat(114))), "{message}");
    assert!(message.len() < 2_000, "{} bytes", message.len());
}

#[test]
fn a_long_part_name_and_a_long_model_name_are_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    std::fs::copy(root.join("guitar.toml"), dir.path().join("g.toml")).unwrap();
    let score = format!(
        "[score]\nduration = 1.0\n\n[[pluck]]\ntime = 0.0\npart = \"{}\"\namplitude = 1e-3\n",
        "p".repeat(MEGA)
    );
    let out = hooke_with(&[("s.toml", &score)], &["render", "g.toml", "s.toml", "-o", "o.wav"], dir.path());
    let message = assert_refused(&out);
    assert!(message.contains(&format!("\"{}...\" ({MEGA} characters)", "p".repeat(57))), "{message}");
    // The issue measured 4.5 MB: the line, and an underline of 3-byte characters under it.
    assert!(message.len() < 3_000, "{} bytes", message.len());

    let named = oscillator("1.0", "1e-3", 10, "").replace(
        "[model]\ndimension = 1\n",
        &format!("[model]\ndimension = 1\nname = \"{}\"\n", "n".repeat(MEGA)),
    );
    let out = hooke_with(&[("m.toml", &named)], &["run", "m.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let header = format!("{}... ({MEGA} characters): 1 mass(es)", "n".repeat(57));
    assert!(stderr(&out).contains(&header), "{}", stderr(&out));
    assert!(stderr(&out).len() < 1_000, "{} bytes", stderr(&out).len());
}

#[test]
fn a_mass_whose_reciprocal_overflows_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 1 / 5e-324 is infinite: the analysis read NaN and every step as stable.
    let out =
        hooke_with(&[("m.toml", &oscillator("5e-324", "1e-3", 10, ""))], &["analyze", "m.toml"], dir.path());
    let message = assert_refused(&out);
    let expected = "m.toml:9:8: mass \"m\": `mass`: expected a mass of at least 2.2250738585072014e-308 kg \
                    (the smallest whose reciprocal is finite), found 5e-324 kg";
    assert!(message.contains(expected), "{message}");
}

#[test]
fn a_model_without_a_mass_has_nothing_to_compare_or_plot() {
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\ndimension = 1\n\n[[anchor]]\nid = \"a\"\n\n[run]\nrate = 1000\nsteps = 10\n";
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let out = hooke(&["compare", "m.toml"], dir.path());
    let message = assert_refused(&out);
    assert!(
        message.contains("m.toml: the model has no mass to compare schemes on: nothing in it moves"),
        "{message}"
    );
    for kind in ["time", "phase", "spectrum", "energy", "trajectory", "poles"] {
        let out = hooke(&["plot", kind, "m.toml", "-o", "p.png"], dir.path());
        let message = assert_refused(&out);
        assert!(
            message.contains("m.toml: the model has no mass to plot: nothing in it moves"),
            "{kind}: {message}"
        );
        assert!(!message.contains("unknown mass"), "{kind}: {message}");
    }
    assert_eq!(entries(dir.path()), vec![dir.path().join("m.toml")], "no picture written");
}

#[test]
fn a_wav_never_holds_an_infinity() {
    let dir = tempfile::tempdir().unwrap();
    // A pickup weight of 5e-324 on a mass 1 m out: the peak is 5e-324, whose gain to -1 dBFS is
    // infinite.
    let pickup = "\n[[pickup]]\nmass = \"m\"\nweight = 5e-324\n";
    let files = [("w.toml", oscillator("1.0", "1.0", 10, pickup))];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let out = hooke_with(&files, &["run", "w.toml", "--wav", "o.wav"], dir.path());
    let message = assert_refused(&out);
    assert!(message.contains("the loudest sample is 5e-324, below the smallest normal double"), "{message}");
    // 1e39 m as simulated: beyond f32's 3.4e38.
    let out = hooke_with(
        &[("big.toml", &oscillator("1.0", "1e39", 10, ""))],
        &["run", "big.toml", "--wav", "o.wav", "--no-normalize"],
        dir.path(),
    );
    let message = assert_refused(&out);
    assert!(
        message.contains("channel 1, frame 0: the sample 1e39 is beyond the range of 32-bit float samples"),
        "{message}"
    );
    assert!(!dir.path().join("o.wav").exists());
    // 2 m as simulated: beyond full scale, kept in the float file, and said so.
    let out = hooke_with(
        &[("two.toml", &oscillator("1.0", "2.0", 10, ""))],
        &["run", "two.toml", "--wav", "o.wav", "--no-normalize"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("samples exceed full scale: they are kept as they are in the float file"),
        "{}",
        stderr(&out)
    );
    let samples: Vec<f32> = hound::WavReader::open(dir.path().join("o.wav"))
        .unwrap()
        .samples::<f32>()
        .map(Result::unwrap)
        .collect();
    assert_eq!(samples[0], 2.0);
}

#[test]
fn a_render_of_a_strike_beyond_float_range_writes_no_infinity() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    std::fs::copy(root.join("marimba.toml"), dir.path().join("k.toml")).unwrap();
    let score = "[score]\nduration = 0.05\n\n[[strike]]\ntime = 0.0\npart = \"C4\"\nvelocity = 1.8e100\n";
    let out = hooke_with(
        &[("s.toml", score)],
        &["render", "k.toml", "s.toml", "-o", "o.wav", "--no-normalize"],
        dir.path(),
    );
    let message = assert_refused(&out);
    assert!(message.contains("is beyond the range of 32-bit float samples"), "{message}");
    assert!(!message.contains("clipped to full scale"), "{message}");
    assert!(!dir.path().join("o.wav").exists());
}

#[cfg(unix)]
#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    // 2e8 steps: minutes of work, so the kill arrives mid-run.
    std::fs::write(dir.path().join("m.toml"), oscillator("1.0", "1e-3", 200_000_000, "")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(["run", "m.toml", "--csv", "o.csv", "--every", "1000"])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap(); // SIGKILL: nothing can be cleaned up
    child.wait().unwrap();
    let left: Vec<PathBuf> = entries(dir.path())
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".o.csv."))
        .collect();
    assert_eq!(left.len(), 1, "the killed run's temporary file: {:?}", entries(dir.path()));
    // Not touched for a minute: stale. (A fresh one might be a writer that has not locked it yet.)
    let file = std::fs::File::options().write(true).open(&left[0]).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(60)).unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator("1.0", "1e-3", 10, "")).unwrap();
    let out = hooke(&["run", "m.toml", "--csv", "o.csv"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = vec![dir.path().join("m.toml"), dir.path().join("o.csv")];
    assert_eq!(entries(dir.path()), expected, "the stale temporary file is gone");
}

/// A 42-byte Standard MIDI File: one track, 1 tick a beat, the slowest tempo (16.777215 s a
/// beat, 0xFFFFFF us), C4 held for 200 beats: 3355.443 s, and 3357.443 s with a 2 s tail.
fn slow_midi() -> Vec<u8> {
    let track = [
        0x00, 0xff, 0x51, 0x03, 0xff, 0xff, 0xff, // tempo
        0x00, 0x90, 0x3c, 0x64, // note on
        0x81, 0x48, 0x80, 0x3c, 0x00, // 200 ticks later, note off
        0x00, 0xff, 0x2f, 0x00, // end of track
    ];
    let mut bytes = b"MThd\0\0\0\x06\0\0\0\x01\0\x01MTrk".to_vec();
    bytes.extend((track.len() as u32).to_be_bytes());
    bytes.extend(track);
    bytes
}

#[cfg(unix)]
#[test]
fn a_midi_file_of_an_hour_of_sound_says_so_and_estimates_its_render() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    std::fs::copy(root.join("marimba.toml"), dir.path().join("k.toml")).unwrap();
    let midi = slow_midi();
    assert_eq!(midi.len(), 42);
    std::fs::write(dir.path().join("slow.mid"), midi).unwrap();
    let log = std::fs::File::create(dir.path().join("log")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(["render", "k.toml", "slow.mid", "-o", "o.wav"])
        .current_dir(dir.path())
        .stderr(log)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let read_log = || std::fs::read_to_string(dir.path().join("log")).unwrap();
    while !read_log().contains("estimate:") && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc_kill(child.id() as i32, 2) };
    let status = child.wait().unwrap();
    let message = read_log();
    assert!(!status.success());
    assert!(
        message.contains("slow.mid: 3357.443 s of sound with the 2 s tail, its slowest tempo 16.777215 s a beat (3.576279 bpm)"),
        "{message}"
    );
    assert!(message.contains("estimate: 3357.443 s of sound take about "), "{message}");
    assert!(message.contains("Ctrl-C stops and writes what is rendered"), "{message}");
    // What was rendered before the interruption is written.
    let frames = hound::WavReader::open(dir.path().join("o.wav")).unwrap().duration();
    assert!(frames > 0, "{message}");
}

#[cfg(unix)]
extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, signal: i32) -> i32;
}
