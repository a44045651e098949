//! What no request may do: start work it cannot finish or store, write where it cannot, leave a
//! temporary file, print NaN as a result, or die on a signal or a closed pipe without saving.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{hooke, stderr, stdout};

/// Every entry of `dir`, sorted.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// A 1 kg mass on a 1D spring of 1e4 N/m, displaced 1 mm, at 1 kHz for `steps` steps.
fn oscillator(steps: u64) -> String {
    format!(
        "[model]\ndimension = 1\n\n[[anchor]]\nid = \"ground\"\n\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
         position = 1e-3\n\n[[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = 1e4\n\n[run]\nrate = 1000\n\
         steps = {steps}\n"
    )
}

/// A guitar string of 80 masses in a file, with a score of `seconds` of silence after a pluck.
fn guitar_files(dir: &Path, seconds: f64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    std::fs::copy(root.join("guitar.toml"), dir.join("g.toml")).unwrap();
    let score = format!(
        "[score]\nduration = {seconds}\n\n[[note]]\nat = 0.0\nstring = 1\nfret = 0\nvelocity = 0.8\n"
    );
    std::fs::write(dir.join("s.toml"), score).unwrap();
}

#[test]
fn every_output_location_is_checked_before_any_simulation() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator(1000)).unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    std::fs::write(dir.path().join("plain"), "a file, not a folder").unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--wav", "folder"], "--wav folder: cannot write the file there: folder is a directory"),
        (
            &["--csv", "missing/out.csv"],
            "--csv missing/out.csv: cannot write the file there: the folder missing does not exist",
        ),
        (
            &["--plot", "missing/p.png"],
            "--plot missing/p.png: cannot write the file there: the folder missing does not exist",
        ),
        (
            &["--wav", "plain/out.wav"],
            "--wav plain/out.wav: cannot write the file there: the folder plain does not exist",
        ),
        (&["--csv", "ok.csv", "--wav", "folder"], "--wav folder: cannot write the file there"),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["run", "m.toml"];
        args.extend_from_slice(flags);
        let out = hooke(&args, dir.path());
        assert!(!out.status.success(), "{flags:?}");
        let message = stderr(&out);
        assert!(message.contains(expected), "{flags:?}: {message}");
        assert!(!message.contains("simulated"), "refused before simulating: {message}");
    }
    let expected: Vec<PathBuf> = ["folder", "m.toml", "plain"].iter().map(|n| dir.path().join(n)).collect();
    assert_eq!(entries(dir.path()), expected, "nothing written, no temporary file");

    guitar_files(dir.path(), 1.0);
    let out = hooke(&["render", "g.toml", "s.toml", "-o", "missing/out.wav"], dir.path());
    assert!(
        stderr(&out).contains("--output missing/out.wav: cannot write the file there"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("rendered"), "{}", stderr(&out));
}

#[test]
fn sizes_are_checked_before_work_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator(1000)).unwrap();
    // 1e12 frames of one f32 channel: 4e12 bytes, beyond the 32-bit sizes of a WAV file.
    let out = hooke(&["run", "m.toml", "--steps", "1000000000000", "--wav", "o.wav"], dir.path());
    let message = stderr(&out);
    assert!(
        message.contains(
            "--wav: 1000000000001 frames of 1 channel(s) in 4-byte samples need 4000000000004 bytes"
        ),
        "{message}"
    );
    assert!(message.contains("more than the 4294967251 a WAV file can hold"), "{message}");
    // 1e300 s at 1 kHz: 1e303 steps, refused against the limit on a run (not wrapped).
    let out = hooke(&["run", "m.toml", "--duration", "1e300"], dir.path());
    let message = stderr(&out);
    let limit = format!("--duration: expected a run of at most 2^40 = {} steps", 1u64 << 40);
    assert!(message.contains(&limit), "{message}");
    assert!(message.contains("found 1e300 s at a step of 0.001 s, 1e303 steps"), "{message}");
    assert!(!out.status.success() && !message.contains("panicked"), "{message}");
    guitar_files(dir.path(), 1.0);
    let out = hooke(&["render", "g.toml", "s.toml", "-o", "o.wav", "--oversample", "0"], dir.path());
    let message = stderr(&out);
    assert!(message.contains("--oversample"), "{message}");
    assert!(
        message.contains("expected a whole number of steps per sample from 1 to 16, found \"0\""),
        "{message}"
    );
    assert!(!message.contains("g.toml"), "the flag, not the file, is at fault: {message}");
    let out = hooke(&["render", "g.toml", "s.toml", "-o", "o.wav", "--threads", "100000"], dir.path());
    assert!(
        stderr(&out).contains("expected a number of threads from 1 to 256, found \"100000\""),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("o.wav").exists());
}

#[test]
fn a_model_with_nothing_to_hear_writes_no_empty_wav() {
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\ndimension = 1\n\n[[anchor]]\nid = \"a\"\n\n[run]\nrate = 1000\nsteps = 10\n";
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let out = hooke(&["run", "m.toml", "--wav", "o.wav"], dir.path());
    assert!(!out.status.success());
    assert!(
        stderr(&out)
            .contains("--wav: no output channel to write: the model has no pickup and no moving mass"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("o.wav").exists());
}

#[test]
fn an_energy_beyond_double_precision_stops_the_run_instead_of_printing_nan() {
    // m g y = 1 kg x 1.7e308 m/s^2 x 1 m is finite; one step later the kinetic energy
    // (v = g h = 1.7e305 m/s) squared overflows.
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\ndimension = 2\ngravity = [0.0, -1.7e308]\n\n[[anchor]]\nid = \"p\"\nposition = [0.0, 1.0]\n\n\
                 [[mass]]\nid = \"bob\"\nmass = 1.0\nposition = [1.0, 1.0]\n\n[[spring]]\na = \"p\"\nb = \"bob\"\n\
                 stiffness = 1e4\n\n[run]\nrate = 1000\nsteps = 10\n";
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let out = hooke(&["run", "m.toml", "--csv", "o.csv", "--energy", "--force"], dir.path());
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("the energy at step 1 is not a finite number"), "{message}");
    assert!(message.contains("overflow double precision"), "{message}");
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "the header and step 0: {csv}");
    let report = stdout(&out);
    assert!(!csv.contains("inf") && !csv.contains("NaN") && !report.contains("NaN"), "{csv}\n{report}");
}

#[test]
fn compare_reports_an_energy_change_when_the_start_energy_is_zero() {
    let reed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/clarinet-reed.toml");
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["compare", reed.to_str().unwrap(), "--schemes", "symplectic-euler,rk4"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let rows: Vec<&str> =
        table.lines().filter(|l| l.starts_with("symplectic-euler ") || l.starts_with("rk4 ")).collect();
    assert_eq!(rows.len(), 2, "{table}");
    for row in rows {
        let figures: Vec<f64> = row.split_whitespace().skip(1).map(|f| f.parse().unwrap()).collect();
        assert!(figures.iter().all(|f| f.is_finite()), "{row}");
    }
    assert!(table.contains("E_end - E_0 in J (E_0 = 0, so no relative figure)"), "{table}");
}

#[test]
fn compare_uses_a_converged_reference_on_a_nonlinear_model() {
    // A 2D pendulum on a stiff spring: geometric, so the linearised "exact" flow is not the
    // solution. The automatic reference is RK4 refined until converged; RK4 at the compared
    // step then differs from it by far less than the 10 m swing.
    let pendulum = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pendulum-nonelastic.toml");
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["compare", pendulum.to_str().unwrap(), "--schemes", "rk4"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("reference: rk4 at"), "{}", stderr(&out));
    let table = stdout(&out);
    let row = table.lines().find(|l| l.starts_with("rk4 ")).expect("an rk4 row");
    let max_error: f64 = row.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(max_error < 1e-6, "{table}");
    let out = hooke(&["compare", pendulum.to_str().unwrap(), "--reference", "exact"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("the exact flow is exact only for a linear network"), "{}", stderr(&out));
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/string-20-morgan-qiao-2008.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(["analyze", model.to_str().unwrap(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe is closed here, as `| head -c 16` does.
    let mut message = String::new();
    child.stderr.take().unwrap().read_to_string(&mut message).unwrap();
    child.wait().unwrap();
    assert!(!message.contains("panicked"), "{message}");
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_stops_cleanly_and_keeps_valid_files() {
    let dir = tempfile::tempdir().unwrap();
    // 2e8 steps: minutes of work, so the signal arrives mid-run.
    std::fs::write(dir.path().join("m.toml"), oscillator(200_000_000)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
        .args(["run", "m.toml", "--csv", "o.csv", "--every", "1000", "--energy"])
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let sent = Instant::now();
    // SAFETY: sending SIGINT to our own child process.
    unsafe { libc_kill(child.id() as i32, 2) };
    let status = child.wait().unwrap();
    let waited = sent.elapsed();
    let mut message = String::new();
    child.stderr.take().unwrap().read_to_string(&mut message).unwrap();
    assert!(!status.success() && waited < Duration::from_secs(2), "{waited:?}: {message}");
    assert!(message.contains("interrupted at step "), "{message}");
    let step: u64 =
        message.split("interrupted at step ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    // The CSV ends on the last step computed, and every row is whole.
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    let last = csv.lines().last().unwrap();
    assert!(last.starts_with(&format!("{step},")), "{last} vs step {step}");
    assert!(csv.lines().skip(1).all(|l| l.split(',').count() == 7));
    let expected = vec![dir.path().join("m.toml"), dir.path().join("o.csv")];
    assert_eq!(entries(dir.path()), expected, "no temporary file left");
}

#[cfg(unix)]
extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, signal: i32) -> i32;
}

#[test]
fn a_step_rate_near_a_whole_number_of_hz_plays_at_it_and_one_far_from_it_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator(100)).unwrap();
    // dt = 0.0003 s is 3333.33 Hz: 1e-4 from 3333 Hz.
    let out = hooke(&["run", "m.toml", "--dt", "0.0003", "--wav", "o.wav"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("note: the WAV plays at 3333 Hz"), "{}", stderr(&out));
    assert_eq!(hound::WavReader::open(dir.path().join("o.wav")).unwrap().spec().sample_rate, 3333);
    // 10.5 Hz is 4.8% from 10 or 11 Hz.
    let out = hooke(&["run", "m.toml", "--rate", "10.5", "--wav", "p.wav"], dir.path());
    assert!(
        stderr(&out).contains("--wav: the step rate 10.5 Hz is 4.76% from a whole number of Hz"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("p.wav").exists());
}
