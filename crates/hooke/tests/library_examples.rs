//! The programs of crates/hooke/examples run, and say what physics and the papers say they
//! should: the designed string of Morgan & Qiao 2009 (eq. (90), with the exact root of
//! docs/errata.md), a rendered string at its pitch, a guitar phrase that sounds.

#[allow(dead_code)]
#[path = "../examples/design_string.rs"]
mod design_string;
#[allow(dead_code)]
#[path = "../examples/play_score.rs"]
mod play_score;
#[allow(dead_code)]
#[path = "../examples/string_in_code.rs"]
mod string_in_code;

fn out(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hooke-example-{}-{name}", std::process::id()))
}

#[test]
fn design_string_gives_the_papers_coefficients() {
    let design = design_string::run().unwrap();
    assert!((design.omega0 - 5293.239300336853).abs() < 1e-6, "{}", design.omega0);
    assert!((design.gamma - 7.4628577364145).abs() < 1e-6, "{}", design.gamma);
}

#[test]
fn string_in_code_writes_a_second_of_two_channels() {
    let path = out("string.wav");
    string_in_code::run(&path).unwrap();
    let reader = hound::WavReader::open(&path).unwrap();
    assert_eq!((reader.spec().channels, reader.spec().sample_rate, reader.duration()), (2, 48_000, 48_000));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn play_score_renders_the_phrase() {
    let path = out("phrase.wav");
    let channels = play_score::run(&path).unwrap();
    assert_eq!(channels.len(), 2);
    // The phrase lasts 5 s at 44.1 kHz.
    assert_eq!(channels[0].len(), 5 * 44_100);
    assert!(channels[0].iter().any(|&x| x.abs() > 0.0));
    std::fs::remove_file(path).unwrap();
}
