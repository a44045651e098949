//! `hooke bench --gpu` and `hooke run --device gpu`: with the `gpu` feature they time the GPU
//! kernels and run a string on the GPU as on the CPU (or say there is no adapter, and the test
//! is skipped); without it, they say how to build with it.

mod common;
use common::{hooke, stderr};
use std::path::PathBuf;

/// A file of the repository's `examples/`.
fn example(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    root.display().to_string()
}

#[cfg(not(feature = "gpu"))]
#[test]
fn bench_gpu_without_the_feature_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["bench", "--string", "8", "--voices", "2", "--gpu"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--features gpu"), "{}", stderr(&out));
    let out = hooke(&["run", &example("plucked-string.toml"), "--device", "gpu"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--device gpu: this hooke was built without"), "{}", stderr(&out));
}

/// Every sample of a WAV file, as f64.
#[cfg(feature = "gpu")]
fn samples(path: &std::path::Path) -> Vec<f64> {
    let mut reader = hound::WavReader::open(path).unwrap();
    reader.samples::<f32>().map(|s| f64::from(s.unwrap())).collect()
}

#[cfg(feature = "gpu")]
#[test]
fn run_on_the_gpu_writes_the_cpu_sound_and_refuses_what_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let string = example("plucked-string.toml");
    let run = |device: &str, wav: &str| {
        let args = ["run", &string, "--steps", "4000", "--no-normalize", "--wav", wav, "--device", device];
        hooke(&args, dir.path())
    };
    let out = run("gpu", "gpu.wav");
    if stderr(&out).contains("no GPU adapter") {
        println!("SKIPPED: {}", stderr(&out).trim());
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("(device)"), "the run says it ran on the device: {}", stderr(&out));
    assert!(run("cpu", "cpu.wav").status.success());
    let (gpu, cpu) = (samples(&dir.path().join("gpu.wav")), samples(&dir.path().join("cpu.wav")));
    assert_eq!(gpu.len(), cpu.len());
    // The GPU in f64 where it has it, else in f32, against the CPU's f64 kernel: within 1e-4 of
    // the peak (f32's tolerance in hooke-gpu's tests/parity.rs; f64 lands far inside it).
    let peak = cpu.iter().fold(0.0f64, |p, s| p.max(s.abs()));
    let worst = gpu.iter().zip(&cpu).map(|(g, c)| (g - c).abs()).fold(0.0, f64::max);
    println!("largest difference {worst:.3e} of the peak {peak:.3e}");
    assert!(peak > 0.0 && worst <= 1e-4 * peak, "{worst} against the peak {peak}");

    let out = hooke(&["run", &example("harmonic-oscillator.toml"), "--device", "gpu"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("forward-euler on uniform strings only"), "{}", stderr(&out));
    let out = hooke(&["run", &string, "--device", "gpu", "--csv", "x.csv"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--csv and --energy read the state after every step"), "{}", stderr(&out));
}

#[cfg(feature = "gpu")]
#[test]
fn bench_gpu_times_the_voices_and_the_membrane() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        ["bench", "--string", "16", "--voices", "4", "--gpu", "--steps", "2048"],
        ["bench", "--membrane", "20x12", "--gpu", "--steps", "128", "--seconds", "1"],
    ] {
        let out = hooke(&args, dir.path());
        if stderr(&out).contains("no GPU adapter") {
            println!("SKIPPED: {}", stderr(&out).trim());
            return;
        }
        assert!(out.status.success(), "{}", stderr(&out));
        let text = common::stdout(&out);
        assert!(text.starts_with("adapter: "), "{text}");
        let (number, unit) = text.lines().last().unwrap().split_once(' ').unwrap();
        assert_eq!(unit, "mass-steps/s");
        assert!(number.parse::<f64>().unwrap() > 0.0, "{text}");
    }
}
