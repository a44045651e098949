//! `hooke plot` and `--plot` end to end: the files appear and decode; bad input gets a clear
//! error and leaves no file.

use std::path::{Path, PathBuf};

mod common;
use common::{hooke, stderr};

/// The files in `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| PathBuf::from(e.unwrap().file_name())).collect();
    files.sort();
    files
}

/// A damped 1D oscillator, 1000 Hz, 100 steps.
const OSCILLATOR: &str = "[model]\ndimension = 1\n[[anchor]]\nid = \"ground\"\n[[mass]]\nid = \"m\"\nmass = 1.0\n\
                          position = 1.0\n[[spring]]\na = \"ground\"\nb = \"m\"\nstiffness = 1e4\ndamping = 5.0\n\
                          [run]\nrate = 1000\nsteps = 100\n";

/// A 2D pendulum on a stiff spring.
const PENDULUM: &str = "[model]\ndimension = 2\ngravity = [0.0, -9.81]\n[[anchor]]\nid = \"pivot\"\nposition = [0.0, 1.0]\n\
                        [[mass]]\nid = \"bob\"\nmass = 1.0\nposition = [1.0, 1.0]\n\
                        [[spring]]\na = \"pivot\"\nb = \"bob\"\nstiffness = 1e4\n[run]\nrate = 1000\nduration = 0.5\n";

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The IHDR chunk: width and height, big-endian, after the 8-byte signature and 8 bytes of
    // chunk header.
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is not a PNG", path.display());
    let read = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (read(16), read(20))
}

#[test]
fn hooke_plot_draws_each_kind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("osc.toml"), OSCILLATOR).unwrap();
    std::fs::write(dir.path().join("pendulum.toml"), PENDULUM).unwrap();
    let runs: [&[&str]; 8] = [
        &["time", "osc.toml", "-o", "time.png", "--scheme", "symplectic-euler", "--scheme", "rk4"],
        &["phase", "osc.toml", "-o", "phase.svg", "--modified"],
        &["energy", "osc.toml", "-o", "energy.png", "--relative", "--scheme", "energy-conserving"],
        &["poles", "osc.toml", "-o", "poles.png", "--plane", "s"],
        &["spectrum", "osc.toml", "-o", "spectrum.png", "--masses", "m"],
        &["warping", "-o", "warping.png", "--gamma-h", "0,0.5", "--size", "400x300"],
        &["trajectory", "pendulum.toml", "-o", "trajectory.png"],
        &["trajectory", "pendulum.toml", "-o", "motion.gif", "--frames", "4"],
    ];
    for args in runs {
        let out = hooke(&[&["plot"], args].concat(), dir.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out)
            .contains(&format!("wrote {}", args[args.iter().position(|a| *a == "-o").unwrap() + 1])));
    }
    assert_eq!(png_size(&dir.path().join("time.png")), (800, 500));
    assert_eq!(png_size(&dir.path().join("warping.png")), (400, 300));
    let svg = std::fs::read_to_string(dir.path().join("phase.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("modified phase space"));
    assert!(std::fs::read(dir.path().join("motion.gif")).unwrap().starts_with(b"GIF89a"));
}

#[test]
fn plot_flags_of_run_compare_and_analyze_write_pictures() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("osc.toml"), OSCILLATOR).unwrap();
    std::fs::write(dir.path().join("pendulum.toml"), PENDULUM).unwrap();
    for args in [
        &["run", "osc.toml", "--plot", "run.png"][..],
        &["run", "pendulum.toml", "--plot", "run-2d.svg"],
        &["compare", "osc.toml", "--schemes", "symplectic-euler,rk4", "--plot", "compare.png"],
        &["analyze", "osc.toml", "--plot", "analyze.png"],
    ] {
        let out = hooke(args, dir.path());
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(png_size(&dir.path().join("run.png")), (800, 500));
    assert_eq!(png_size(&dir.path().join("compare.png")), (800, 500));
    assert_eq!(png_size(&dir.path().join("analyze.png")), (800, 500));
    let svg = std::fs::read_to_string(dir.path().join("run-2d.svg")).unwrap();
    assert!(svg.contains("trajectories"), "a 2D run draws its trajectories");
}

#[test]
fn bad_plot_requests_are_refused_clearly_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("osc.toml"), OSCILLATOR).unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["plot", "histogram", "osc.toml", "-o", "x.png"], "invalid value 'histogram'"),
        (
            &["plot", "time", "osc.toml", "-o", "x.jpg"],
            "x.jpg: expected a file name ending in .png or .svg, found \".jpg\"",
        ),
        (&["plot", "time", "osc.toml", "-o", "x.gif"], "expected a file name ending in .png or .svg"),
        (
            &["plot", "trajectory", "osc.toml", "-o", "x.png"],
            "a trajectory needs a 2D or 3D model, found a 1D model",
        ),
        (
            &["plot", "time", "osc.toml", "-o", "x.png", "--masses", "q"],
            "unknown mass \"q\": expected one of the model's masses (m)",
        ),
        (
            &["run", "osc.toml", "--csv", "out.csv", "--plot", "x.pdf"],
            "expected a file name ending in .png or .svg, found \".pdf\"",
        ),
    ];
    for (args, expected) in cases {
        let out = hooke(args, dir.path());
        assert!(!out.status.success(), "{args:?} succeeded");
        let message = stderr(&out);
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{message}");
        assert_eq!(files(dir.path()), [PathBuf::from("osc.toml")], "{args:?} left a file");
    }
    // A bad model file keeps its position in the message.
    std::fs::write(dir.path().join("bad.toml"), OSCILLATOR.replace("mass = 1.0", "mass = -1.0")).unwrap();
    let out = hooke(&["plot", "time", "bad.toml", "-o", "x.png"], dir.path());
    assert!(stderr(&out).contains("bad.toml:7:"), "{}", stderr(&out));
    assert!(!dir.path().join("x.png").exists());
}
