//! `hooke analyze`, `hooke design string` and the check before `hooke run`, end to end.

use std::path::{Path, PathBuf};

mod common;
use common::{hooke, stderr, stdout};

/// The workspace's `examples/` folder.
fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// One 1 kg mass on a 1D spring k to the ground, displaced by 1 m.
fn oscillator_model(stiffness: f64) -> String {
    format!(
        "[model]\ndimension = 1\n\n[[anchor]]\nid = \"ground\"\n\n[[mass]]\nid = \"m\"\nmass = 1.0\nposition = 1.0\n\n\
         [[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = {stiffness:?}\n"
    )
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs()
}

#[test]
fn analyze_prints_table_1_and_the_largest_stable_step() {
    let out = hooke(&["analyze", "string-5-table1.toml"], &examples());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // Morgan & Qiao 2009, Table 1, first row: 440.00000 Hz, tau 1.000000 s.
    let first = text.lines().find(|l| l.trim_start().starts_with("1 ")).expect("a row for mode 1");
    assert!(
        first.contains("440.00000") && first.contains("1.0000000") && first.contains("complex"),
        "{first}"
    );
    assert!(text.contains("largest stable step: 1.953184e-4 s (lowest stable rate 5119.84"), "{text}");
    assert!(text.contains("stable: every mode"), "{text}");
}

#[test]
fn analyze_json_has_the_issues_fields() {
    let out = hooke(&["analyze", "string-5-table1.toml", "--json"], &examples());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["scheme"], "symplectic-euler");
    assert!(close(json["dt"].as_f64().unwrap(), 1.0 / 6000.0, 1e-15));
    assert_eq!(json["stable"], true);
    // Eq. 54 (in place of eq. 92; see docs/errata.md) on the top mode: gamma_5 = gamma lambda_5,
    // w_5^2 = k lambda_5.
    let lambda = 4.0 * (5.0 * std::f64::consts::PI / 12.0).sin().powi(2);
    let (gamma, omega_squared) = (7.4628577364145 * lambda, 5293.239300336853f64.powi(2) * lambda);
    let expected = (-gamma + (gamma * gamma + 4.0 * omega_squared).sqrt()) / omega_squared;
    assert!(close(json["max_stable_dt"].as_f64().unwrap(), expected, 1e-9), "{}", json["max_stable_dt"]);
    let modes = json["modes"].as_array().unwrap();
    assert_eq!(modes.len(), 5);
    let keys = [
        "index",
        "sigma",
        "mu",
        "analog_hz",
        "digital_hz",
        "digital_sigma",
        "time_constant_s",
        "pole_abs",
        "region",
        "stable",
    ];
    for mode in modes {
        for key in keys {
            assert!(mode.get(key).is_some(), "missing {key} in {mode}");
        }
        assert_eq!(mode["region"], "complex");
    }
    assert_eq!(modes[0]["index"], 1);
    assert!(close(modes[0]["sigma"].as_f64().unwrap(), -0.99983335, 1e-8));
    assert!(close(modes[0]["mu"].as_f64().unwrap(), 2739.98210, 1e-8));
    assert!(close(modes[0]["digital_hz"].as_f64().unwrap(), 440.0, 1e-12));
    assert!(close(modes[0]["digital_sigma"].as_f64().unwrap(), -1.0, 1e-12));
    assert!(close(modes[0]["time_constant_s"].as_f64().unwrap(), 1.0, 1e-12));
}

#[test]
fn design_string_gives_table_1s_coefficients() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["design", "string", "--f0", "440", "--tau", "1", "--masses", "5", "--rate", "6000", "--json"];
    let out = hooke(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // Morgan & Qiao 2009, eq. (90) (with the exact gamma_out of docs/errata.md).
    let omega0 = json["omega0"].as_f64().unwrap();
    let gamma = json["gamma"].as_f64().unwrap();
    assert!(close(omega0, 5293.239300336853, 1e-9), "{omega0}");
    assert!(close(gamma, 7.4628577364145, 1e-9), "{gamma}");
    assert_eq!(json["m"].as_f64(), Some(1.0));
    assert!(close(json["k"].as_f64().unwrap(), omega0 * omega0, 1e-15));
    assert!(close(json["z"].as_f64().unwrap(), gamma, 1e-15));
    assert!(close(json["modes"][0]["digital_hz"].as_f64().unwrap(), 440.0, 1e-12));

    // With a mass of 2 g the coefficients scale; the text form carries a [[string]] table.
    let args = [
        "design",
        "string",
        "--f0",
        "440",
        "--tau",
        "1",
        "--masses",
        "5",
        "--dt",
        "1.6666666666666666e-4",
        "--mass",
        "0.002",
    ];
    let out = hooke(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("[[string]]") && text.contains("masses = 5") && text.contains("mass = 0.002"),
        "{text}"
    );
    assert!(text.contains("440.00000"), "{text}");
}

#[test]
fn design_with_two_decay_times_puts_every_partial_on_the_law() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "design",
        "string",
        "--f0",
        "110",
        "--tau",
        "3",
        "--high-tau",
        "0.3",
        "--high-frequency",
        "3000",
        "--masses",
        "80",
        "--rate",
        "96000",
        "--mass",
        "1e-4",
        "--json",
    ];
    let out = hooke(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["drag"].as_f64().unwrap() > 0.0 && json["z"].as_f64().unwrap() > 0.0);
    // The law through (110 Hz, 3 s) and (3000 Hz, 0.3 s), against the analysis of the designed
    // model's modes: exact at the fundamental and the partial nearest 3 kHz, within the scheme's
    // warping (under 2%) at every partial below 5 kHz.
    let sigma_1 = (1.0 / 0.3 - 1.0 / 3.0) / (3000.0f64.powi(2) - 110.0f64.powi(2));
    let law = |f: f64| 1.0 / 3.0 + sigma_1 * (f * f - 110.0 * 110.0);
    let modes = json["modes"].as_array().unwrap();
    let mode =
        |m: &serde_json::Value| (m["digital_hz"].as_f64().unwrap(), m["time_constant_s"].as_f64().unwrap());
    let nearest =
        modes.iter().map(mode).min_by(|a, b| (a.0 - 3000.0).abs().total_cmp(&(b.0 - 3000.0).abs())).unwrap();
    assert!(close(mode(&modes[0]).1, 3.0, 1e-9), "{:?}", mode(&modes[0]));
    assert!(close(1.0 / nearest.1, law(nearest.0), 1e-9), "{nearest:?}");
    let below: Vec<(f64, f64)> = modes.iter().map(mode).filter(|(f, _)| *f < 5000.0).collect();
    assert!(below.len() > 40);
    for (f, tau) in below {
        assert!(close(1.0 / tau, law(f), 0.02), "{f} Hz: {tau} s, the law says {} s", 1.0 / law(f));
    }
    // The same request without --high-frequency (nor --json) is refused, naming the flag.
    let alone: Vec<&str> = args[..args.len() - 1]
        .iter()
        .copied()
        .filter(|a| !["--high-frequency", "3000"].contains(a))
        .collect();
    let refused = hooke(&alone, dir.path());
    assert!(stderr(&refused).contains("--high-frequency"), "{}", stderr(&refused));
}

#[test]
fn design_string_with_inharmonicity_places_the_first_partials_on_the_stiff_string_law() {
    let dir = tempfile::tempdir().unwrap();
    let (f0, b) = (82.4, 3e-4);
    let args = [
        "design",
        "string",
        "--f0",
        "82.4",
        "--tau",
        "4",
        "--high-tau",
        "0.5",
        "--high-frequency",
        "2000",
        "--inharmonicity",
        "3e-4",
        "--masses",
        "50",
        "--rate",
        "48000",
        "--mass",
        "2e-4",
        "--scheme",
        "caldirola-kanai",
        "--json",
    ];
    let out = hooke(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["bending"].as_f64().unwrap() > 0.0, "{json}");
    // The analysis of the designed model's modes: the first 10 partials on f_n = n f0 sqrt(1 + B n^2).
    let modes = json["modes"].as_array().unwrap();
    for (index, mode) in modes.iter().take(10).enumerate() {
        let n = (index + 1) as f64;
        let law = n * f0 * (1.0 + b * n * n).sqrt();
        let found = mode["digital_hz"].as_f64().unwrap();
        assert!(close(found, law, 3e-3), "partial {n}: {found} Hz, the law says {law} Hz");
    }
    // Without a second decay time, --inharmonicity is refused, naming the flag it needs.
    let alone: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !["--high-tau", "0.5", "--high-frequency", "2000"].contains(a))
        .collect();
    let refused = hooke(&alone, dir.path());
    assert!(!refused.status.success() && stderr(&refused).contains("--high-tau"), "{}", stderr(&refused));
}

#[test]
fn design_rejects_a_target_the_step_cannot_play() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(
        &["design", "string", "--f0", "4000", "--tau", "1", "--masses", "5", "--rate", "6000"],
        dir.path(),
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("below the Nyquist frequency 3000"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"));
    let out = hooke(&["design", "string", "--f0", "440", "--tau", "1", "--masses", "5"], dir.path());
    assert!(!out.status.success());
    assert!(!stderr(&out).contains("panicked"));
}

#[test]
fn run_refuses_a_predicted_unstable_run_and_writes_nothing() {
    // Symplectic Euler is unstable for w0 h > 2 (Morgan & Qiao 2009, eq. (54)): w0 = 2500 rad/s at
    // 1 kHz. The largest stable step is 2 / w0 = 0.8 ms (lowest stable rate 1250 Hz).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator_model(2500.0 * 2500.0)).unwrap();
    let out = hooke(
        &["run", "m.toml", "--rate", "1000", "--steps", "5000", "--wav", "out.wav", "--csv", "out.csv"],
        dir.path(),
    );
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("predicted unstable"), "{message}");
    assert!(message.contains("mode 1 (397.887358 Hz)"), "{message}");
    assert!(
        message.contains("the largest stable step is 8.000000e-4 s (lowest stable rate 1250 Hz)"),
        "{message}"
    );
    assert!(message.contains("--force"), "{message}");
    assert!(!message.contains("simulated"), "{message}");
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(files, vec![std::ffi::OsString::from("m.toml")]);
    // A stable step runs without a word from the check.
    let out = hooke(&["run", "m.toml", "--rate", "1300", "--steps", "100"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

#[test]
fn slow_growth_is_a_warning_not_a_refusal() {
    // Forward Euler grows every undamped mode by sqrt(1 + (w h)^2) per step: here by 1.2 over
    // the run, a warning.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), oscillator_model(100.0)).unwrap();
    let out = hooke(
        &["run", "m.toml", "--scheme", "forward-euler", "--rate", "1000", "--steps", "3600"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning: the scheme makes this run grow"), "{}", stderr(&out));
    assert!(stderr(&out).contains("no step is stable: forward-euler"), "{}", stderr(&out));
}

#[test]
fn analyze_about_the_rest_state_finds_the_pendulum_swing() {
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\ndimension = 2\ngravity = [0.0, -9.81]\n[[anchor]]\nid = \"pivot\"\nposition = [0.0, 1.0]\n\
                 [[mass]]\nid = \"bob\"\nmass = 1.0\nposition = [1.0, 1.0]\n[[spring]]\na = \"pivot\"\nb = \"bob\"\n\
                 stiffness = 1e4\n[run]\nrate = 1000\n";
    std::fs::write(dir.path().join("pendulum.toml"), model).unwrap();
    let out = hooke(&["analyze", "pendulum.toml", "--about", "rest", "--json"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let swing = (9.81f64 / (1.0 + 9.81 / 1e4)).sqrt();
    assert!(close(json["modes"][0]["mu"].as_f64().unwrap(), swing, 1e-9), "{}", json["modes"][0]);
    assert_eq!(json["about"], "rest");
    // About the initial (horizontal, slack) state the swing has no stiffness: zero frequency.
    let out = hooke(&["analyze", "pendulum.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("linearised about the initial state"), "{}", stdout(&out));
    // Two coordinates, two modes: the swing is one free mode, reported as such.
    assert!(stdout(&out).contains("all 2 modes (1 vibrating, 1 free)"), "{}", stdout(&out));
    assert!(stdout(&out).contains("warning: mode 1 is a free motion"), "{}", stdout(&out));
}

#[test]
fn analyze_reports_bad_input_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["analyze", "nowhere.toml"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("cannot read model file nowhere.toml"), "{}", stderr(&out));
    std::fs::write(dir.path().join("m.toml"), oscillator_model(100.0)).unwrap();
    let out = hooke(&["analyze", "m.toml", "--scheme", "leapfrog"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown scheme \"leapfrog\""), "{}", stderr(&out));
    let out = hooke(&["analyze", "m.toml", "--rate=-1"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--rate: expected a value > 0"), "{}", stderr(&out));
    let empty = "[model]\ndimension = 1\n[[anchor]]\nid = \"a\"\n";
    std::fs::write(dir.path().join("empty.toml"), empty).unwrap();
    let out = hooke(&["analyze", "empty.toml"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no mass"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"));
}

/// A 3D membrane of 4 x 10 000 masses: its sparse analysis takes seconds (about 4.5 s in release
/// on a 2-core machine) inside one Lanczos run, with no block boundary to check for a signal.
#[cfg(unix)]
fn slow_analysis_model() -> String {
    "[model]\ndimension = 3\n[[membrane]]\nid = \"m\"\ncolumns = 4\nrows = 10000\nmass = 0.001\n\
     stiffness = 100.0\nspacing = 0.01\n"
        .to_string()
}

#[cfg(unix)]
#[test]
fn a_signal_stops_an_analysis_or_a_comparison_at_once() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.toml"), slow_analysis_model()).unwrap();
    // 100 s of a 200-mass string by two schemes and a reference at twice the rate: minutes.
    let string =
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 200\nlength = 1.0\ntension = 100.0\n\
                  linear_density = 0.001\ndecay_time = 1.0\npluck = [0.3, 0.001]\n";
    std::fs::write(dir.path().join("s.toml"), string).unwrap();
    let analyze: &[&str] = &["analyze", "m.toml"];
    let compare: &[&str] = &[
        "compare",
        "s.toml",
        "--duration",
        "100",
        "--rate",
        "96000",
        "--schemes",
        "symplectic-euler,rk4",
        "--reference",
        "rk4@192000",
    ];
    let cases = [
        (analyze, "SIGTERM", libc::SIGTERM),
        (analyze, "SIGINT", libc::SIGINT),
        (analyze, "SIGHUP", libc::SIGHUP),
        (compare, "SIGTERM", libc::SIGTERM),
    ];
    for (args, name, signal) in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hooke"))
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: a signal to our own child process.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let sent = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if sent.elapsed() > Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{name}: hooke {} still running 20 s after the signal", args[0]);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let waited = sent.elapsed();
        // A finished command exits with 0 or 1: 130 says the signal ended it, within 2 s.
        assert_eq!(status.code(), Some(130), "{name} to hooke {}: {status:?}", args[0]);
        assert!(
            waited < Duration::from_secs(2),
            "{name} to hooke {}: stopped {waited:?} after the signal",
            args[0]
        );
    }
}

#[cfg(unix)]
#[test]
fn an_analysis_larger_than_the_memory_it_may_use_is_refused_before_it_starts() {
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::time::{Duration, Instant};
    // Issue 35: a legal 4 x 100 001 3D membrane (1 200 012 coordinates) aborted in the Lanczos
    // run under a 3 GB limit. Its Lanczos basis of 81 vectors, the 20 Ritz vectors and the 28
    // modes' shapes (real, complex, and their copy in the report) need at least
    // 1 200 012 x (8 x (101 + 56) + 16 x 56) bytes = 2.58 GB: over 0.8 x 2 GiB, refused at once.
    let dir = tempfile::tempdir().unwrap();
    let model =
        "[model]\ndimension = 3\n[[membrane]]\nid = \"m\"\ncolumns = 4\nrows = 100001\nmass = 0.001\n\
                 stiffness = 100.0\nspacing = 0.01\n";
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let limit = 2_u64 << 30;
    let mut command = Command::new(env!("CARGO_BIN_EXE_hooke"));
    command.args(["analyze", "m.toml"]).current_dir(dir.path());
    // SAFETY: setrlimit is async-signal-safe and touches only the child being started.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit { rlim_cur: limit as libc::rlim_t, rlim_max: limit as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_AS, &rlimit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let started = Instant::now();
    let out = command.output().unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("the analysis (at least: its Lanczos vectors and the modes' shapes) needs 2.582 GB"),
        "{message}"
    );
    assert!(message.contains("`ulimit -v`"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}

#[test]
fn an_instability_far_past_the_step_is_told_in_short_numbers() {
    // k/m = 1e60: w = 1e30 rad/s (1.59155e29 Hz); RK4 at h = 0.1 s has |z| ~ (w h)^4 / 24 =
    // 4.1667e114. Issue 35: the messages printed these with 30 to 115 digits.
    let dir = tempfile::tempdir().unwrap();
    let model = "[model]\ndimension = 1\n[[anchor]]\nid = \"g\"\n[[mass]]\nid = \"m\"\nmass = 1e-30\nposition = 1.0\n\
                 [[spring]]\na = \"g\"\nb = \"m\"\nstiffness = 1e30\n[run]\nscheme = \"rk4\"\nrate = 10\nduration = 1.0\n";
    std::fs::write(dir.path().join("m.toml"), model).unwrap();
    let longest_digit_run =
        |text: &str| text.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
    let out = hooke(&["run", "m.toml"], dir.path());
    let message = stderr(&out);
    assert!(!out.status.success(), "{message}");
    assert!(message.contains("mode 1 (1.59155e29 Hz) has |z| = 4.166667e114"), "{message}");
    assert!(message.contains("lowest stable rate 3.53553e29 Hz"), "{message}");
    assert!(longest_digit_run(&message) <= 12, "{message}");
    let out = hooke(&["analyze", "m.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(longest_digit_run(&stdout(&out)) <= 12, "{}", stdout(&out));
    assert!(stdout(&out).contains("1.591549e29"), "{}", stdout(&out));
}
