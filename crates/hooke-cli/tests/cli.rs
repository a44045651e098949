//! The `hooke` binary end to end: outputs, errors, instability, the demo and the benchmark.

use std::path::{Path, PathBuf};

mod common;
use common::{hooke, stderr, stdout};

/// Files in `dir` other than `keep`, sorted.
fn other_files(dir: &Path, keep: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != keep)
        .collect();
    files.sort();
    files
}

/// The step an instability error names ("unstable at step N").
fn unstable_step(message: &str) -> u64 {
    message
        .split("unstable at step ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no step in: {message}"))
}

/// One 1 kg mass on a 1D spring k to the ground, displaced by 1 m.
fn oscillator_model(stiffness: f64, extra: &str) -> String {
    format!(
        "[model]\ndimension = 1\n\n[[anchor]]\nid = \"ground\"\n\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = 1.0\n\n\
         [[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = {stiffness:?}\n{extra}"
    )
}

#[test]
fn a_bad_file_reports_its_position_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.toml"), oscillator_model(-5.0, "")).unwrap();
    let out = hooke(&["run", "bad.toml", "--wav", "out.wav", "--csv", "out.csv", "--energy"], dir.path());
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("bad.toml:15:13"), "{message}");
    assert!(message.contains("expected a value >= 0"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
    assert_eq!(other_files(dir.path(), "bad.toml"), Vec::<PathBuf>::new());
}

#[test]
fn a_missing_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["run", "nowhere.toml"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("cannot read model file nowhere.toml"), "{}", stderr(&out));
}

#[test]
fn bad_command_line_values_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator_model(100.0, "")).unwrap();
    let out = hooke(&["run", "m.toml", "--rate=-3"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--rate: expected a value > 0, found -3"), "{}", stderr(&out));
    let out = hooke(&["run", "m.toml", "--scheme", "leapfrog"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown scheme \"leapfrog\""), "{}", stderr(&out));
}

#[test]
fn an_unstable_run_stops_with_the_step_time_and_mass_and_keeps_valid_outputs() {
    // Symplectic Euler is unstable for w0 h > 2 (Morgan & Qiao 2009, eq. (54)): w0 = 2500 rad/s at
    // 1 kHz.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator_model(2500.0 * 2500.0, "")).unwrap();
    let out = hooke(
        &[
            "run", "m.toml", "--rate", "1000", "--steps", "5000", "--wav", "out.wav", "--csv", "out.csv",
            "--force",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    let message = stderr(&out);
    let failed_step = unstable_step(&message);
    assert!(failed_step > 100 && failed_step < 5000, "{message}");
    assert!(message.contains(&format!("(t = {} s)", failed_step as f64 / 1000.0)), "{message}");
    assert!(message.contains("mass \"m\" has a non-finite"), "{message}");

    // The WAV holds the samples of steps 0 .. failed_step - 1, all finite.
    let mut reader = hound::WavReader::open(dir.path().join("out.wav")).unwrap();
    assert_eq!(reader.spec().sample_rate, 1000);
    let samples: Vec<f32> = reader.samples::<f32>().map(Result::unwrap).collect();
    assert_eq!(samples.len() as u64, failed_step);
    // The CSV holds complete rows for steps 0 .. failed_step - 1.
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "step,t,m.x,m.vx");
    assert_eq!(lines.len() as u64, failed_step + 1);
    assert!(lines[1..].iter().all(|l| l.split(',').count() == 4));
    assert!(lines.last().unwrap().starts_with(&format!("{},", failed_step - 1)));
    let expected = [dir.path().join("out.csv"), dir.path().join("out.wav")];
    assert_eq!(other_files(dir.path(), "m.toml"), expected, "no temporary file left");
}

#[test]
fn csv_rows_every_k_steps_include_the_last_one_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let model = oscillator_model(100.0, "\n[run]\nscheme = \"forward-euler\"\ndt = 0.01\nsteps = 1000\n");
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    // The command line overrides the file: 25 steps of symplectic Euler at 1 kHz.
    let out = hooke(
        &[
            "run",
            "m.toml",
            "--scheme",
            "symplectic-euler",
            "--rate",
            "1000",
            "--steps",
            "25",
            "--csv",
            "o.csv",
            "--every",
            "10",
            "--energy",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    let rows: Vec<Vec<f64>> =
        csv.lines().skip(1).map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    assert_eq!(csv.lines().next().unwrap(), "step,t,m.x,m.vx,kinetic,potential,total");
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), [0.0, 10.0, 20.0, 25.0]);
    // Independent symplectic Euler: v += h (-k x), x += h v.
    let (mut x, mut v, h) = (1.0f64, 0.0f64, 1e-3);
    for step in 1..=25 {
        v += h * (-100.0 * x);
        x += h * v;
        if let Some(row) = rows.iter().find(|r| r[0] == step as f64) {
            assert_eq!((row[2], row[3]), (x, v), "bit-exact round trip at step {step}");
            assert_eq!(row[6], 0.5 * v * v + 50.0 * x * x);
        }
    }
    let report = stdout(&out);
    assert!(report.contains("energy at step 0:   5.000000000000e1 J"), "{report}");
    assert!(report.contains("relative drift:"), "{report}");
}

#[test]
fn wav_formats_and_normalisation() {
    let dir = tempfile::tempdir().unwrap();
    let half = oscillator_model(1000.0, "\n[[pickup]]\nmass = \"m\"\nweight = 0.5\n");
    std::fs::write(dir.path().join("m.toml"), half).unwrap();
    for (format, bits) in [("i16", 16), ("i24", 24)] {
        let out = hooke(
            &["run", "m.toml", "--rate", "8000", "--steps", "800", "--wav", "o.wav", "--format", format],
            dir.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        // Half of a 1 m amplitude (which symplectic Euler's modified energy lets x exceed slightly).
        assert!(!stderr(&out).contains("clipped"), "{}", stderr(&out));
        let reader = hound::WavReader::open(dir.path().join("o.wav")).unwrap();
        assert_eq!(
            (reader.spec().bits_per_sample, reader.spec().sample_rate, reader.len()),
            (bits, 8000, 801)
        );
    }
    // By default the peak is scaled to -1 dBFS, so the file is audible whatever the units.
    let out = hooke(&["run", "m.toml", "--rate", "8000", "--steps", "800", "--wav", "o.wav"], dir.path());
    assert!(out.status.success());
    let mut reader = hound::WavReader::open(dir.path().join("o.wav")).unwrap();
    let peak = reader.samples::<f32>().map(|s| s.unwrap().abs()).fold(0.0f32, f32::max);
    assert!((peak - 0.891_250_9).abs() < 1e-6, "peak {peak} is -1 dBFS");
    // --no-normalize keeps the values in metres: half the 1 m amplitude, and symplectic Euler's
    // modified energy lets x exceed it by at most (w h / 2) of it (w h = 0.004 here).
    let out = hooke(
        &["run", "m.toml", "--rate", "8000", "--steps", "800", "--wav", "o.wav", "--no-normalize"],
        dir.path(),
    );
    assert!(out.status.success());
    let mut reader = hound::WavReader::open(dir.path().join("o.wav")).unwrap();
    let peak = reader.samples::<f32>().map(|s| s.unwrap().abs()).fold(0.0f32, f32::max);
    assert!((0.5..0.5 * 1.002).contains(&peak), "peak {peak} m");
    // A pickup weight of 3 drives the raw float file beyond full scale: kept, and reported.
    let loud = oscillator_model(1000.0, "\n[[pickup]]\nmass = \"m\"\nweight = 3.0\n");
    std::fs::write(dir.path().join("loud.toml"), loud).unwrap();
    let args = ["run", "loud.toml", "--rate", "8000", "--steps", "800", "--wav", "o.wav", "--no-normalize"];
    let out = hooke(&args, dir.path());
    assert!(stderr(&out).contains("exceed full scale"), "{}", stderr(&out));
}

#[test]
fn the_demo_plays_a_guitar_a_piano_a_marimba_and_a_grand_piano_to_a_stereo_wav_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["demo"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    for built in [
        "guitar: symplectic-euler at 88200 Hz (2 x 44100 Hz)",
        "piano: symplectic-euler at 88200 Hz (2 x 44100 Hz)",
        "marimba: symplectic-euler at 220500 Hz (5 x 44100 Hz)",
        "piano: symplectic-euler at 44100 Hz (1 x 44100 Hz), coupled modal kernel path",
    ] {
        assert!(text.contains(built), "{built}: {text}");
    }
    assert!(text.contains("wrote ./hooke-demo.wav"), "{text}");
    assert_eq!(text.matches("x real time\n").count(), 4, "{text}");
    let mut reader = hound::WavReader::open(dir.path().join("hooke-demo.wav")).unwrap();
    assert_eq!(
        (reader.spec().channels, reader.spec().sample_rate, reader.spec().bits_per_sample),
        (2, 44_100, 32)
    );
    // The default format of every command: 32-bit float.
    assert_eq!(reader.spec().sample_format, hound::SampleFormat::Float);
    // The scores' 5 s, 6 s and 6 s and the MIDI piece's 20 s with its 2 s tail, at 44.1 kHz,
    // each followed by 0.5 s of silence.
    assert_eq!(reader.duration(), (5 + 6 + 6 + 22) * 44_100 + 4 * 22_050);
    let samples: Vec<f32> = reader.samples::<f32>().map(|s| s.unwrap()).collect();
    let peak_of = |from: f64, to: f64| {
        let frames = (from * 44_100.0) as usize * 2..(to * 44_100.0) as usize * 2;
        samples[frames].iter().fold(0.0f32, |m, s| m.max(s.abs()))
    };
    // Normalised to -1 dBFS (0.8913), each piece brought to the same peak, silence between.
    for (from, to) in [(0.0, 5.0), (5.5, 11.5), (12.0, 18.0), (18.5, 40.5)] {
        assert!(
            (f64::from(peak_of(from, to)) - 0.891_25).abs() < 1e-3,
            "{from} s to {to} s: {}",
            peak_of(from, to)
        );
    }
    for (from, to) in [(5.0, 5.5), (11.5, 12.0), (18.0, 18.5), (40.5, 41.0)] {
        assert_eq!(peak_of(from, to), 0.0, "{from} s to {to} s");
    }
}

const GUITAR: &str = "[guitar]\nmasses = 80\n";
const SCORE: &str =
    "[score]\nduration = 0.5\n[[pluck]]\ntime = 0.0\npart = \"E4\"\nposition = 0.3\namplitude = 0.001\n";

#[test]
fn render_oversamples_as_the_analysis_says_and_decimates_to_the_output_rate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.toml"), GUITAR).unwrap();
    std::fs::write(dir.path().join("s.toml"), SCORE).unwrap();
    let out = hooke(
        &["render", "g.toml", "s.toml", "-o", "out.wav", "--rate", "48000", "--format", "f32"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("at 96000 Hz (2 x 48000 Hz)"), "{text}");
    assert!(text.contains("stop band from 24000 Hz down 9"), "{text}");
    let reader = hound::WavReader::open(dir.path().join("out.wav")).unwrap();
    assert_eq!((reader.spec().channels, reader.spec().sample_rate), (2, 48_000));
    assert_eq!(reader.duration(), 24_000);
}

#[test]
fn render_refuses_an_unstable_rate_with_the_explanation_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.toml"), GUITAR).unwrap();
    std::fs::write(dir.path().join("s.toml"), SCORE).unwrap();
    let out = hooke(&["render", "g.toml", "s.toml", "-o", "out.wav", "--oversample", "1"], dir.path());
    assert!(!out.status.success());
    let text = stderr(&out);
    for phrase in ["g.toml:1:1", "string E4", "44100 Hz is unstable", "rate / pi", "--oversample 2"] {
        assert!(text.contains(phrase), "{phrase:?} not in {text}");
    }
    assert!(other_files(dir.path(), "g.toml").iter().all(|p| p.file_name().unwrap() == "s.toml"));
}

#[test]
fn render_names_the_score_line_of_a_bad_event_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("g.toml"), GUITAR).unwrap();
    std::fs::write(dir.path().join("s.toml"), SCORE.replace("\"E4\"", "\"E9\"")).unwrap();
    let out = hooke(&["render", "g.toml", "s.toml", "-o", "out.wav"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("s.toml:5:8"), "{}", stderr(&out));
    assert!(!dir.path().join("out.wav").exists());
}

#[test]
fn an_instrument_that_becomes_unstable_keeps_the_sound_before_the_failing_step() {
    // The reed of Chatziioannou 2019 beating on its lay: symplectic Euler cannot follow the stiff
    // contact.
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/instruments");
    let (reed, score) = (examples.join("reed.toml"), examples.join("reed-score.toml"));
    let args = ["render", reed.to_str().unwrap(), score.to_str().unwrap(), "-o", "reed.wav"];
    let out = hooke(&[&args[..], &["--scheme", "symplectic-euler", "--format", "f32"]].concat(), dir.path());
    assert!(!out.status.success());
    let text = stderr(&out);
    let step = unstable_step(&text);
    assert!(text.contains("mass \"reed\""), "{text}");
    assert!(text.contains("wrote reed.wav"), "{text}");
    // Every output sample before the failing step, at 44.1 kHz without oversampling.
    let reader = hound::WavReader::open(dir.path().join("reed.wav")).unwrap();
    assert_eq!(u64::from(reader.duration()), step - 1);
}

#[test]
fn bench_ends_with_mass_steps_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["bench", "--string", "5", "--seconds", "0.05"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let last = text.lines().last().unwrap();
    let (number, unit) = last.split_once(' ').unwrap();
    assert_eq!(unit, "mass-steps/s");
    assert!(number.parse::<f64>().unwrap() > 0.0);
    // The benchmark string runs at 48 kHz; a model file at its own rate (here 1000 Hz).
    assert!(text.contains("real-time factor at 48000 Hz: "), "{text}");
    let model = oscillator_model(1000.0, "[run]\nrate = 1000\n");
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let out = hooke(&["bench", "--model", "m.toml", "--steps", "1000"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("real-time factor at 1000 Hz: "), "{}", stdout(&out));
}

#[test]
fn compare_prints_one_row_per_scheme_against_the_exact_flow() {
    let dir = tempfile::tempdir().unwrap();
    let model = oscillator_model(1000.0, "damping = 0.5\n");
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let out = hooke(
        &["compare", "m.toml", "--schemes", "symplectic-euler,rk4,exact", "--rate", "1000", "--steps", "500"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| ["symplectic-euler ", "rk4 ", "exact "].iter().any(|p| l.starts_with(p)))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    // The exact scheme against itself: zero error.
    let exact: Vec<&str> = rows[2].split_whitespace().collect();
    assert_eq!((exact[1], exact[2]), ("0.0000e0", "0.0000e0"), "{text}");
    // RK4 (fourth order) is far closer to the exact flow than symplectic Euler (first order).
    let max_error = |row: &str| row.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap();
    assert!(max_error(rows[1]) < 1e-3 * max_error(rows[0]), "{text}");
    let bad = hooke(&["compare", "m.toml", "--reference", "rk4@1500", "--rate", "1000"], dir.path());
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("whole multiple"), "{}", stderr(&bad));
}

#[test]
fn schemes_lists_every_scheme() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["schemes"], dir.path());
    let text = stdout(&out);
    for name in ["forward-euler", "caldirola-kanai", "velocity-verlet-cs", "exact"] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name} missing:\n{text}");
    }
    // The symplectic column (the fourth), as the literature has it: the midpoint rule is
    // symplectic, the trapezoidal rule and the discrete-gradient scheme only on linear networks.
    let symplectic = |name: &str| {
        let line = text.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap();
        if line.contains("linear only") {
            "linear only"
        } else {
            line.split_whitespace().nth(3).unwrap()
        }
    };
    for (name, expected) in [
        ("midpoint", "yes"),
        ("symplectic-euler", "yes"),
        ("trapezoidal", "linear only"),
        ("energy-conserving", "linear only"),
        ("caldirola-kanai", "linear only"),
        ("rk4", "no"),
    ] {
        assert_eq!(symplectic(name), expected, "{name}:\n{text}");
    }
}

#[test]
fn an_unstable_run_with_every_k_ends_its_csv_on_the_last_good_step() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator_model(2500.0 * 2500.0, "")).unwrap();
    let out = hooke(
        &[
            "run", "m.toml", "--rate", "1000", "--steps", "5000", "--csv", "out.csv", "--every", "10",
            "--force",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    let message = stderr(&out);
    let failed_step = unstable_step(&message);
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    let steps: Vec<u64> =
        csv.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(*steps.last().unwrap(), failed_step - 1, "the last row is the last good step");
    assert!(steps[..steps.len() - 1].iter().all(|s| s % 10 == 0), "other rows every 10 steps");
}
