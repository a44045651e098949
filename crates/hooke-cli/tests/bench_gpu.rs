//! `hooke bench --gpu`: with the `gpu` feature it times the GPU kernels (or says there is no
//! adapter); without it, it says how to build with it.

mod common;
use common::{hooke, stderr};

#[cfg(not(feature = "gpu"))]
#[test]
fn bench_gpu_without_the_feature_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = hooke(&["bench", "--string", "8", "--voices", "2", "--gpu"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--features gpu"), "{}", stderr(&out));
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
