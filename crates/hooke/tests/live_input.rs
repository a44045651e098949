//! A live input (a plugin's audio input) pushes on the instrument as a drive of the same samples
//! does: the engine fed block by block, in blocks of 1, 64 and 4096 frames, against the same
//! engine given one drive per input point whose samples are the input delayed by the frames the
//! input acts late, at the output rate, started at step 0 (the score's `drive`, a mechanism of
//! its own: `engine::excitation`). On a body's bridge (the acoustic guitar, oversampled twice),
//! on strings (the guitar, three times), on bars (the marimba, five times) and on a membrane
//! (the drum, not oversampled).

use hooke::engine::excitation::{Drive, Excitation};
use hooke::engine::{Engine, EngineConfig, Event, StepSize};
use hooke::format::instrument::parse;
use hooke::instrument::Instrument;
use hooke::model::{Samples, Signal};
use hooke::score::live::{input_points, live, LiveOptions, INPUT_AT};
use hooke::score::notes::StringRule;
use hooke::score::performance::PerformanceOptions;
use std::path::Path;

/// The shipped instrument `name`, oversampled `oversample` times (its own when `None`), and its
/// output rate (Hz) and oversampling.
fn shipped(name: &str, oversample: Option<usize>) -> (Instrument, f64, usize) {
    let path = Path::new("../../examples/instruments").join(format!("{name}.toml"));
    let file = parse(&std::fs::read_to_string(path).unwrap(), name).unwrap();
    let (oversample, instrument) =
        file.build_stable(file.scheme, file.rate, oversample.or(file.oversample)).unwrap();
    (instrument, file.rate, oversample)
}

/// A reproducible noise in [-1, 1) (a linear congruential generator), `frames` long, falling to
/// silence over its last quarter.
fn noise(frames: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_u64;
    (0..frames)
        .map(|n| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let value = (state >> 40) as f64 / (1u64 << 24) as f64 * 2.0 - 1.0;
            let fade = ((frames - n) as f64 / (0.25 * frames as f64)).min(1.0);
            (value * fade) as f32
        })
        .collect()
}

/// A fresh engine running `instrument` at `oversample` times its output rate.
fn engine(instrument: &Instrument, oversample: usize) -> Engine {
    let config = EngineConfig {
        scheme: instrument.scheme,
        step: StepSize::Dt(instrument.dt),
        oversample,
        ..EngineConfig::default()
    };
    Engine::new(&instrument.model, &instrument.pickups, config).unwrap()
}

/// `frames` output frames of `engine`, rendered in blocks of `block` frames, each block's input
/// fed first from `input` (none: nothing fed).
fn render(engine: &mut Engine, frames: usize, block: usize, input: Option<&[f32]>) -> Vec<Vec<f64>> {
    let mut output = vec![vec![0.0f64; frames]; engine.channels()];
    let mut done = 0;
    while done < frames {
        let end = (done + block).min(frames);
        if let Some(input) = input {
            engine.feed_input(&input[done..end]).unwrap();
        }
        let mut slices: Vec<&mut [f64]> = output.iter_mut().map(|c| &mut c[done..end]).collect();
        engine.render(&mut slices).unwrap();
        done = end;
    }
    output
}

/// The largest difference between `a` and `b`, relative to the peak of `b` (asserted heard).
fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let peak = b.iter().flatten().fold(0.0f64, |p, x| p.max(x.abs()));
    assert!(peak > 0.0, "the driven instrument is silent");
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y)).fold(0.0f64, |d, (x, y)| d.max((x - y).abs())) / peak
}

fn a_live_input_pushes_as_a_drive(name: &str, oversample: Option<usize>) {
    let (instrument, rate, oversample) = shipped(name, oversample);
    let points = input_points(&instrument);
    let frames = (0.15 * rate) as usize;
    let input = noise(frames);
    let gain = 0.05;
    let mut reference = engine(&instrument, oversample);
    let late = reference.open_input(points.clone(), 1).unwrap() as usize;
    let mut values = vec![0.0; late];
    values.extend(input.iter().map(|&x| f64::from(x)));
    let duration = values.len() as f64 / rate;
    for &coordinate in &points {
        let signal = Signal::Samples(Samples { rate, gain, values: values.clone() });
        reference.apply(Event::Excite(Excitation::Drive(Drive { coordinate, signal, duration }))).unwrap();
    }
    let driven = render(&mut reference, frames, 4096, None);
    for block in [1, 64, 4096] {
        let mut live = engine(&instrument, oversample);
        assert_eq!(live.open_input(points.clone(), block).unwrap() as usize, late);
        let silent = render(&mut live, 64, block.min(64), Some(&input[..64]));
        assert!(silent.iter().flatten().all(|&x| x == 0.0), "{name}: an input with no gain pushes");
        let mut live = engine(&instrument, oversample);
        live.open_input(points.clone(), block).unwrap();
        live.set_input_gain(gain).unwrap();
        let heard = render(&mut live, frames, block, Some(&input));
        let difference = largest_difference(&heard, &driven);
        println!(
            "{name}, K = {oversample}, {late} frame(s) late, blocks of {block}: {difference:.2e} of the peak"
        );
        assert!(difference < 1e-9, "{name}, K {oversample}, blocks of {block}: {difference:e} of the peak");
    }
}

#[test]
fn an_input_on_the_acoustic_guitars_bridge_pushes_as_a_drive() {
    a_live_input_pushes_as_a_drive("acoustic-guitar", None);
}

#[test]
fn an_input_on_the_strings_of_the_guitar_oversampled_pushes_as_a_drive() {
    a_live_input_pushes_as_a_drive("guitar", Some(3));
}

#[test]
fn an_input_on_the_marimbas_bars_pushes_as_a_drive() {
    a_live_input_pushes_as_a_drive("marimba", None);
}

#[test]
fn an_input_on_the_drums_membrane_pushes_as_a_drive() {
    a_live_input_pushes_as_a_drive("drum", None);
}

#[test]
fn the_input_points_are_a_bodys_bridge_or_else_each_part() {
    let (acoustic, _, _) = shipped("acoustic-guitar", None);
    let bridge = acoustic.model.node("body.1").map(|node| acoustic.model.node_index(node)).unwrap();
    assert_eq!(input_points(&acoustic), vec![bridge * acoustic.model.dimension()]);
    let (guitar, _, _) = shipped("guitar", None);
    let points = input_points(&guitar);
    let strings: Vec<_> = (guitar.parts.iter())
        .filter_map(|part| match &part.kind {
            hooke::instrument::PartKind::String(string) => Some(string),
            _ => None,
        })
        .collect();
    assert_eq!(points.len(), strings.len());
    for (point, string) in points.iter().zip(strings) {
        let along = string
            .masses
            .iter()
            .position(|&m| m * guitar.model.dimension() == *point)
            .expect("a point on its string");
        let fraction = (along + 1) as f64 / (string.masses.len() + 1) as f64;
        assert!((fraction - INPUT_AT).abs() <= 0.5 / string.masses.len() as f64, "at {fraction}");
    }
}

#[test]
fn the_live_core_heard_in_blocks_of_any_size_is_the_same() {
    let (instrument, rate, oversample) = shipped("acoustic-guitar", None);
    let input = noise((0.1 * rate) as usize);
    let play = |block: usize| {
        let options = LiveOptions {
            performance: PerformanceOptions { oversample, ..PerformanceOptions::default() },
            rate,
            max_frames: 256,
            gain: 1.0,
            queue: 16,
            record: 0,
            rule: StringRule::LowestFret,
            controls: Vec::new(),
            tuning: None,
        };
        let (_, mut core, _, stats) = live(&instrument, options).unwrap();
        core.open_input(input_points(&instrument)).unwrap();
        core.set_input_gain(0.05).unwrap();
        let mut heard = vec![0.0f32; input.len()];
        for (out, fed) in heard.chunks_mut(block).zip(input.chunks(block)) {
            core.process_with_input(out, 1, fed);
        }
        assert_eq!(stats.errors.load(std::sync::atomic::Ordering::Relaxed), 0);
        heard
    };
    let whole = play(4096);
    let peak = whole.iter().fold(0.0f32, |p, x| p.max(x.abs()));
    assert!(peak > 1e-4 && peak < 1.0, "peak {peak}");
    for block in [1, 64, 1000] {
        let heard = play(block);
        let difference = heard.iter().zip(&whole).fold(0.0f32, |d, (a, b)| d.max((a - b).abs())) / peak;
        assert!(difference < 1e-6, "blocks of {block}: {difference:e} of the peak");
    }
}
