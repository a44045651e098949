//! The coupled modal path (`engine::stage::parts`) against the general path: the instruments
//! whose strings end on a body, and the bars and plates, play the first seconds of their 20 s
//! scores (frets pressed and lifted, plucks, hammers, mallets) on both paths, in blocks of 1, 64
//! and 4096 steps, to within 1e-9 of the peak; the acoustic guitar also with every fret prepared
//! before play (each fret's string swapped in place to its prepared modes). The general path is
//! the reference: Morgan & Qiao 2009's symplectic Euler over the edge lists, mass by mass.

use hooke::engine::PathKind;
use hooke::format::instrument::parse as parse_instrument;
use hooke::format::score::parse as parse_score;
use hooke::score::live::Resolver;
use hooke::score::performance::{Performance, PerformanceOptions};
use std::path::Path;

/// Plays the first `seconds` of `name`'s 20 s score, `chunk` steps per call, with every fret
/// prepared before play where `prepared`; returns the output and the paths the performance ran
/// on after its first block and at its end.
fn play(
    name: &str,
    seconds: f64,
    kernels: bool,
    chunk: u64,
    prepared: bool,
) -> (Vec<Vec<f64>>, Vec<PathKind>) {
    let folder = Path::new("../../examples/instruments");
    let score_text = std::fs::read_to_string(folder.join(format!("{name}-20s.toml"))).unwrap();
    play_score(name, &score_text, seconds / 20.0, [kernels, prepared], chunk)
}

/// Plays the fraction `part` of the score `score_text` on instrument `name`, on the fast paths
/// where `kernels`, every fret prepared before play where `prepared`, `chunk` steps per call.
fn play_score(
    name: &str,
    score_text: &str,
    part: f64,
    [kernels, prepared]: [bool; 2],
    chunk: u64,
) -> (Vec<Vec<f64>>, Vec<PathKind>) {
    let folder = Path::new("../../examples/instruments");
    let text = std::fs::read_to_string(folder.join(format!("{name}.toml"))).unwrap();
    let file = parse_instrument(&text, name).unwrap();
    let (oversample, instrument) = file.build_stable(file.scheme, file.rate, file.oversample).unwrap();
    let score = parse_score(score_text, "score.toml", &instrument, None).unwrap();
    let options = PerformanceOptions { oversample, threads: 1, kernels, modal: true };
    let mut performance = Performance::new(&instrument, score, options).unwrap();
    if prepared {
        performance.prepare_play(Resolver::new(&instrument).unwrap().fret_stops()).unwrap();
    }
    let mut output = vec![Vec::new(); performance.channels()];
    let mut paths = Vec::new();
    let end = (performance.total_steps() as f64 * part) as u64;
    while performance.step() < end {
        performance.render(chunk.min(end - performance.step()), &mut output).unwrap();
        if paths.is_empty() {
            paths.push(performance.path());
        }
    }
    paths.push(performance.path());
    performance.finish(&mut output).unwrap();
    (output, paths)
}

/// The largest difference between `a` and `b`, relative to the peak of `b`.
fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let peak = b.iter().flatten().fold(0.0f64, |p, x| p.max(x.abs()));
    assert!(peak > 0.0, "silent reference");
    assert_eq!(a.iter().map(Vec::len).collect::<Vec<_>>(), b.iter().map(Vec::len).collect::<Vec<_>>());
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y)).fold(0.0f64, |d, (x, y)| d.max((x - y).abs())) / peak
}

fn coupled_path_matches_the_general_path(name: &str, seconds: f64, prepared: bool) {
    let (general, general_paths) = play(name, seconds, false, 4096, false);
    assert_eq!(general_paths, [PathKind::General, PathKind::General]);
    for chunk in [1, 64, 4096] {
        let (coupled, paths) = play(name, seconds, true, chunk, prepared);
        assert_eq!(paths, [PathKind::Parts, PathKind::Parts], "{name}, chunk {chunk}");
        let difference = largest_difference(&coupled, &general);
        println!("{name}, blocks of {chunk}: {difference:.2e} of the peak");
        assert!(difference < 1e-9, "{name}, blocks of {chunk}: differs by {difference:e} of the peak");
    }
}

#[test]
fn the_acoustic_guitar_fretted_and_plucked_matches_the_general_path() {
    coupled_path_matches_the_general_path("acoustic-guitar", 2.5, false);
}

#[test]
fn the_acoustic_guitar_with_its_frets_prepared_matches_the_general_path() {
    coupled_path_matches_the_general_path("acoustic-guitar", 2.5, true);
}

/// Bends (the tension set) and dampings set on fretted and open strings of the acoustic guitar,
/// a fret pressed while its string is bent: each string's prepared modes retuned in place.
const BENT: &str = r#"
[score]
duration = 1.0
[[fret]]
time = 0.0
part = "G3"
fret = 2
[[pluck]]
time = 0.0
part = "G3"
position = 0.8
amplitude = 0.002
[[set]]
time = 0.15
part = "G3"
parameter = "tension"
value = 1.06
[[set]]
time = 0.25
part = "G3"
parameter = "damping"
value = 1.5
[[fret]]
time = 0.35
part = "G3"
fret = 4
[[pluck]]
time = 0.35
part = "B3"
position = 0.85
amplitude = 0.002
[[set]]
time = 0.5
part = "B3"
parameter = "tension"
value = 0.97
[[set]]
time = 0.6
part = "G3"
parameter = "tension"
value = 1.0
[[release]]
time = 0.75
part = "G3"
"#;

/// `score` on `name` with its frets and strings prepared, on the coupled modal path in blocks
/// of each of `chunks` steps, against the general path.
fn prepared_score_matches_the_general_path(name: &str, score: &str, chunks: &[u64]) {
    let (general, _) = play_score(name, score, 1.0, [false, false], 4096);
    for &chunk in chunks {
        let (coupled, paths) = play_score(name, score, 1.0, [true, true], chunk);
        assert_eq!(paths, [PathKind::Parts, PathKind::Parts], "{name}, chunk {chunk}");
        let difference = largest_difference(&coupled, &general);
        println!("{name} with a score, blocks of {chunk}: {difference:.2e} of the peak");
        assert!(difference < 1e-9, "{name}, blocks of {chunk}: differs by {difference:e} of the peak");
    }
}

#[test]
fn the_acoustic_guitar_bent_and_damped_with_its_frets_prepared_matches_the_general_path() {
    prepared_score_matches_the_general_path("acoustic-guitar", BENT, &[1, 64, 4096]);
}

/// Keys of the piano struck and retuned (the tension of a course set, as a pitch bend does on
/// a key), each string prepared before play as a region of its own: each retuned in place.
const PIANO_BENT: &str = r#"
[score]
duration = 0.6
[[strike]]
time = 0.0
part = "C4"
velocity = 1.6
[[strike]]
time = 0.05
part = "G3"
velocity = 1.2
[[set]]
time = 0.15
part = "C4"
parameter = "tension"
value = 1.04
[[set]]
time = 0.3
part = "G3"
parameter = "damping"
value = 2.0
[[set]]
time = 0.4
part = "C4"
parameter = "tension"
value = 0.98
"#;

#[test]
fn the_piano_retuned_with_its_strings_prepared_matches_the_general_path() {
    prepared_score_matches_the_general_path("piano", PIANO_BENT, &[1, 4096]);
}

#[test]
fn the_piano_struck_and_damped_matches_the_general_path() {
    coupled_path_matches_the_general_path("piano", 1.5, false);
}

#[test]
fn the_plates_struck_match_the_general_path() {
    coupled_path_matches_the_general_path("plates", 1.5, false);
}

/// The marimba's bars, damped in proportion to their mass and stiffness (drag and the bending
/// elements' damping), run mode by mode.
#[test]
fn the_marimba_struck_matches_the_general_path() {
    coupled_path_matches_the_general_path("marimba", 1.0, false);
}

/// `count` strings of `masses` masses (lumped, plucked) ending on one bridge mass on a spring to
/// the ground, as a model file.
fn strings_on_a_bridge(count: usize, masses: usize) -> String {
    let mut text = String::from(
        "[model]\ndimension = 1\n[[mass]]\nid = \"bridge\"\nmass = 0.1\n[[anchor]]\nid = \"ground\"\n\
         [[spring]]\na = \"bridge\"\nb = \"ground\"\nstiffness = 1e5\n[[damper]]\na = \"bridge\"\nb = \"ground\"\ndamping = 5.0\n",
    );
    for s in 0..count {
        text += &format!(
            "[[string]]\nid = \"s{s}\"\nmasses = {masses}\nmass = 1e-4\nstiffness = {}\ndamping = 1e-3\nto = \"bridge\"\npluck = {{ position = 0.3, amplitude = 1e-3 }}\n",
            1e4 * (1.0 + 0.1 * s as f64)
        );
    }
    text
}

#[test]
fn the_coupled_path_is_refused_where_finding_its_modes_would_take_too_long() {
    // Finding a part's modes costs about n^3: three strings of 1000 masses (3e9) are split,
    // five (5e9) are past the limit of 4e9 and run the general path, which needs no modes.
    use hooke::engine::{Engine, EngineConfig, PickupSpec};
    use hooke::format::model::parse as parse_model;
    for (count, path) in [(3, PathKind::Parts), (5, PathKind::General)] {
        let file = parse_model(&strings_on_a_bridge(count, 1000), "bridge.toml").unwrap();
        let engine =
            Engine::new(&file.model, &[PickupSpec::velocity("bridge")], EngineConfig::default()).unwrap();
        assert_eq!(engine.path(), path, "{count} strings of 1000 masses");
    }
}

#[test]
fn a_string_touched_at_up_to_six_masses_matches_the_general_path() {
    // String `s0` also leans on the bridge through springs at 0 to 5 of its inner masses: each
    // is a coordinate the kernel reads from the string's modes and drives (the kernel's step
    // reads up to three in its update pass and more through a pass of their own).
    use hooke::engine::{Engine, EngineConfig, PickupSpec};
    use hooke::format::model::parse as parse_model;
    for touched in 0..=5 {
        let mut text = strings_on_a_bridge(2, 30);
        for k in 0..touched {
            text += &format!(
                "[[spring]]\na = \"s0.{}\"\nb = \"bridge\"\nstiffness = {}\n[[damper]]\na = \"s0.{}\"\nb = \"bridge\"\ndamping = 2e-3\n",
                5 + 4 * k,
                300.0 * (k + 1) as f64,
                5 + 4 * k
            );
        }
        let model = parse_model(&text, "bridge.toml").unwrap().model;
        let pickups = [PickupSpec::velocity("bridge"), PickupSpec::position("s0.12").channel(2)];
        let run = |config: EngineConfig, path: PathKind| {
            let mut engine = Engine::new(&model, &pickups, config).unwrap();
            assert_eq!(engine.path(), path, "{touched} springs");
            let mut output = vec![Vec::new(); 2];
            engine.advance(20_000, &mut output).unwrap();
            output
        };
        let general = run(EngineConfig::default().general_only(), PathKind::General);
        let coupled = run(EngineConfig::default(), PathKind::Parts);
        let difference = largest_difference(&coupled, &general);
        println!("{touched} springs: {difference:.2e} of the peak");
        assert!(
            difference < 1e-9,
            "{touched} springs: the coupled path differs by {difference:e} of the peak"
        );
    }
}
