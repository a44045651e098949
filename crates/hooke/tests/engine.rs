//! The engine against the run loops it replaced: the instruments' performances reproduce the
//! samples that the former `Performance` loop wrote (tests/data/parity, recorded from it before
//! the engine existed) on the string kernel and on the general path, in blocks of 1, 64 and
//! 4096 steps (bit for bit; the guitar's to 1e-10 of the peak since its fret stops were
//! redesigned, and to rounding with the modal kernel); events scheduled inside a block land on their step exactly; `render` gives the
//! same frames in any block size; a change to the system is never missed by the scheme.

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PathKind, PickupSpec};
use hooke::format::instrument::parse as parse_instrument;
use hooke::format::model::parse as parse_model;
use hooke::format::score::parse as parse_score;
use hooke::instrument::guitar::{guitar, GuitarSpec};
use hooke::instrument::Instrument;
use hooke::scheme::SchemeKind;
use hooke::score::performance::{Performance, PerformanceOptions};
use std::path::Path;

/// A reference recording: channels of f64 samples.
fn reference(name: &str) -> Vec<Vec<f64>> {
    let bytes = std::fs::read(format!("tests/data/parity/{name}.f64")).unwrap();
    let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()) as usize;
    let (channels, frames) = (word(0), word(1));
    let samples: Vec<f64> =
        bytes[8..].chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(samples.len(), channels * frames);
    samples.chunks(frames).map(<[f64]>::to_vec).collect()
}

/// Plays `score` on `instrument`, `chunk` simulation steps per call.
fn perform(
    instrument: &Instrument,
    score: hooke::score::Score,
    options: PerformanceOptions,
    chunk: u64,
) -> (Vec<Vec<f64>>, Performance) {
    let mut performance = Performance::new(instrument, score, options).unwrap();
    let mut output = vec![Vec::new(); performance.channels()];
    while performance.step() < performance.total_steps() {
        performance.render(chunk, &mut output).unwrap();
    }
    performance.finish(&mut output).unwrap();
    (output, performance)
}

/// The largest difference between `a` and the first frames of... `b` (b may be the longer),
/// relative to the peak of `b`.
fn largest_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let peak = b.iter().flatten().fold(0.0f64, |p, x| p.max(x.abs()));
    a.iter().zip(b).flat_map(|(x, y)| x.iter().zip(y)).fold(0.0f64, |d, (x, y)| d.max((x - y).abs())) / peak
}

#[test]
fn the_guitar_plays_the_former_performance_on_both_paths_bit_for_bit_in_any_block_size() {
    let instrument = guitar(&GuitarSpec::default(), SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap();
    let text = std::fs::read_to_string("tests/data/parity/techniques.toml").unwrap();
    let mut string_bank = Vec::new();
    for (kernels, name, path) in [
        (true, "guitar-techniques-kernel", PathKind::Strings),
        (false, "guitar-techniques-general", PathKind::General),
    ] {
        let expected = reference(name);
        let mut first: Option<Vec<Vec<f64>>> = None;
        for chunk in [1, 64, 4096] {
            let score = parse_score(&text, "techniques.toml", &instrument, None).unwrap();
            let options = PerformanceOptions { oversample: 2, threads: 1, kernels, modal: false };
            let (output, performance) = perform(&instrument, score, options, chunk);
            assert_eq!(performance.path(), path);
            assert_eq!(output.len(), expected.len());
            assert_eq!(output[0].len(), expected[0].len(), "{name}, chunk {chunk}");
            // The fret stops are designed anew (tests/fret_tuning.rs): their links moved by a
            // rounding-level amount since the recording, so the former loop's samples hold to
            // 1e-10 of the peak, and the block sizes agree with each other bit for bit.
            let difference = largest_difference(&output, &expected);
            assert!(difference < 1e-10, "{name}, chunk {chunk}: differs by {difference:e} of the peak");
            match &first {
                None => first = Some(output),
                Some(first) => assert!(output == *first, "{name}, chunk {chunk}: differs from chunk 1"),
            }
        }
        if kernels {
            string_bank = first.unwrap_or_default();
        }
    }
    // Allowed the modal kernel, the open strings run mode by mode until the first fret, then
    // on the string bank: the same samples to rounding.
    let score = parse_score(&text, "techniques.toml", &instrument, None).unwrap();
    let options = PerformanceOptions { oversample: 2, threads: 1, ..PerformanceOptions::default() };
    let (output, _) = perform(&instrument, score, options, 4096);
    let difference = largest_difference(&output, &string_bank);
    assert!(difference <= 1e-12 && difference > 0.0, "with the modal kernel: {difference:e}");
}

#[test]
fn every_example_instrument_plays_the_former_performance() {
    let folder = Path::new("../../examples/instruments");
    // The sitar as recorded: the example has since gained a body and sympathetic strings.
    for (name, instrument_file) in [
        ("drum", folder.join("drum.toml")),
        ("reed", folder.join("reed.toml")),
        ("sitar", Path::new("tests/data/parity/sitar.toml").to_path_buf()),
        ("pendulum", folder.join("pendulum.toml")),
    ] {
        let expected = reference(name);
        let text = std::fs::read_to_string(instrument_file).unwrap();
        let file = parse_instrument(&text, name).unwrap();
        let (oversample, instrument) = file.build_stable(file.scheme, file.rate, file.oversample).unwrap();
        let score_text = std::fs::read_to_string(folder.join(format!("{name}-score.toml"))).unwrap();
        let mut first: Option<Vec<Vec<f64>>> = None;
        for chunk in [1, 64, 4096] {
            let score = parse_score(&score_text, name, &instrument, Some(folder)).unwrap();
            let options = PerformanceOptions { oversample, threads: 1, ..PerformanceOptions::default() };
            let (output, _) = perform(&instrument, score, options, chunk);
            let difference = largest_difference(&expected, &output);
            // Within 1e-12 of the peak at most; bit for bit where the arithmetic is the same:
            // the explicit schemes. (The reed's energy-conserving scheme has solved its steps by a
            // dense simplified Newton iteration since the references were recorded, to the same
            // roots within the Newton tolerance; the drum's membrane runs mode by mode on the
            // modal kernel, whose sums run in another order.) Bit for bit across block sizes,
            // always.
            assert!(difference <= 1e-12, "{name}, chunk {chunk}: {difference:e}");
            if file.scheme.info().explicit && name != "drum" {
                assert!(
                    expected.iter().zip(&output).all(|(e, o)| e[..] == o[..e.len()]),
                    "{name}, chunk {chunk}: {difference:e}"
                );
            }
            match &first {
                Some(first) => assert!(*first == output, "{name}, chunk {chunk}: differs from chunk 1"),
                None => first = Some(output),
            }
        }
    }
}

/// The position of mass `s.5` and half the velocity of `s.21`.
fn two_pickups() -> [PickupSpec; 2] {
    [PickupSpec::position("s.5"), PickupSpec::velocity("s.21").channel(2).weight(0.5)]
}

/// A plucked 1D string of 30 masses from the model format, with two pickups.
fn string_engine(config: EngineConfig) -> Engine {
    let file = parse_model(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 30\nmass = 1e-3\nstiffness = 2e5\n\
         damping = 1e-3\npluck = { position = 0.3, amplitude = 1e-3 }\n",
        "string.toml",
    )
    .unwrap();
    let pickups = two_pickups();
    Engine::new(&file.model, &pickups, config).unwrap()
}

/// The events of the test below: a pulse on mass 10, a damper change, a stop and its release.
fn events() -> Vec<(u64, Event)> {
    let pulse = Pulse { coordinate: 10, peak: 0.5, duration: 2e-4 };
    vec![
        (37, Event::Excite(Excitation::Pulse(pulse))),
        (300, Event::Link { a: 3, b: 4, stiffness: 3e5, damping: 2e-3 }),
        (301, Event::Drag { mass: 12, drag: 0.02 }),
        (555, Event::Stop { mass: 20, stopped: true }),
        (901, Event::Stop { mass: 20, stopped: false }),
    ]
}

#[test]
fn scheduled_events_land_on_their_step_in_any_block_size_on_every_path() {
    const FRAMES: usize = 1500;
    for (scheme, kernels) in [
        (SchemeKind::SymplecticEuler, true),
        (SchemeKind::SymplecticEuler, false),
        (SchemeKind::VelocityVerlet, true),
        (SchemeKind::CaldirolaKanai, true),
    ] {
        let config = EngineConfig { kernels, ..EngineConfig::default() }.scheme(scheme).rate(48_000.0);
        // Applied between calls that end exactly at each event's step.
        let mut stepped = string_engine(config);
        let mut expected = vec![Vec::new(); 2];
        for (step, event) in events() {
            stepped.advance(step - stepped.step(), &mut expected).unwrap();
            stepped.apply(event).unwrap();
        }
        stepped.advance(FRAMES as u64 - stepped.step(), &mut expected).unwrap();
        for block in [1, 64, 4096] {
            let mut engine = string_engine(config);
            for (step, event) in events() {
                engine.schedule(step, event).unwrap();
            }
            let mut output = [vec![0.0f64; FRAMES], vec![0.0f64; FRAMES]];
            for start in (0..FRAMES).step_by(block) {
                let end = (start + block).min(FRAMES);
                let [a, b] = &mut output;
                engine.render(&mut [&mut a[start..end], &mut b[start..end]]).unwrap();
            }
            assert_eq!(engine.step(), FRAMES as u64);
            assert!(output[..] == expected[..], "{scheme}, kernels {kernels}, block {block}");
        }
    }
}

#[test]
fn the_kernel_and_the_general_path_render_the_same_events() {
    let run = |config: EngineConfig, first: PathKind| {
        let mut engine = string_engine(config.rate(48_000.0));
        assert_eq!(engine.path(), first);
        for (step, event) in events() {
            engine.schedule(step, event).unwrap();
        }
        let mut output = vec![Vec::new(); 2];
        engine.advance(2000, &mut output).unwrap();
        (output, engine.path())
    };
    let (general, _) = run(EngineConfig::default().general_only(), PathKind::General);
    // From the modal kernel (which takes the pulse in place) or the chain stencil; the changed
    // link makes the string non-uniform, and the played string moves to the string bank.
    for (config, first) in [
        (EngineConfig::default(), PathKind::Modal),
        (EngineConfig::default().without_modal(), PathKind::Chain),
    ] {
        let (fast, path) = run(config, first);
        assert_eq!(path, PathKind::Strings, "played, the string moves to the string bank");
        let difference = largest_difference(&fast, &general);
        assert!(difference <= 1e-12 && difference > 0.0, "from {first:?}: {difference:e}");
    }
}

#[test]
fn oversampled_render_in_blocks_equals_one_block() {
    let config = EngineConfig::default().rate(96_000.0).oversample(2);
    let mut whole = string_engine(config);
    let mut one = [vec![0.0f32; 1000], vec![0.0f32; 1000]];
    let [a, b] = &mut one;
    whole.render(&mut [&mut a[..], &mut b[..]]).unwrap();
    let mut pieces = string_engine(config);
    let mut many = [vec![0.0f32; 1000], vec![0.0f32; 1000]];
    for start in (0..1000).step_by(64) {
        let end = (start + 64).min(1000);
        let [a, b] = &mut many;
        pieces.render(&mut [&mut a[start..end], &mut b[start..end]]).unwrap();
    }
    assert!(one == many);
    assert!(one[0].iter().any(|&x| x != 0.0));
    // Frame n is centred on step 2n: the last of 1000 frames (n = 999) is complete once the
    // filter's half-length D of steps beyond step 1998 have been taken.
    let half_length = (hooke::engine::decimate::Decimator::new(2, 1).taps().len() / 2) as u64;
    assert_eq!(whole.step(), 999 * 2 + half_length + 1);
}

#[test]
fn a_changed_link_is_never_stepped_by_a_stale_scheme() {
    // The implicit midpoint rule factors its matrix for the system it was built for: after a
    // stiffness change the engine must use the new one. Against an engine built with the new
    // stiffness from the start, run from the same state.
    let config = EngineConfig::default().scheme(SchemeKind::Midpoint).rate(48_000.0);
    let mut changed = string_engine(config);
    let mut ignored = vec![Vec::new(); 2];
    changed.advance(100, &mut ignored).unwrap();
    for j in 0..31 {
        let (a, b) = (if j == 0 { 30 } else { j - 1 }, if j == 30 { 31 } else { j });
        changed.apply(Event::Link { a, b, stiffness: 4e5, damping: 1e-3 }).unwrap();
    }
    let state = changed.state();
    let mut after = vec![Vec::new(); 2];
    changed.advance(200, &mut after).unwrap();

    let file = parse_model(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 30\nmass = 1e-3\nstiffness = 4e5\n\
         damping = 1e-3\n",
        "stiffer.toml",
    )
    .unwrap();
    let pickups = two_pickups();
    let mut fresh = Engine::new(&file.model, &pickups, config).unwrap();
    let motions: Vec<(usize, f64)> = (0..30).map(|i| (i, state.x[i])).collect();
    fresh.apply(Event::Shape(motions)).unwrap();
    for i in 0..30 {
        fresh.apply(Event::Motion { coordinate: i, position: state.x[i], velocity: state.v[i] }).unwrap();
    }
    let mut expected = vec![Vec::new(); 2];
    fresh.advance(200, &mut expected).unwrap();
    assert!(largest_difference(&after, &expected) < 1e-12, "{:e}", largest_difference(&after, &expected));
}

#[test]
fn a_mass_change_moves_the_pitch_as_sqrt_k_over_m_says_on_every_path() {
    // One mass between two anchors: w = sqrt(2 k / m). Quadrupling the mass halves it.
    let file = parse_model(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 1\nmass = 1e-3\nstiffness = 1e3\n\
         pluck = { position = 0.5, amplitude = 1e-3 }\n",
        "one.toml",
    )
    .unwrap();
    for config in [EngineConfig::default(), EngineConfig::default().scheme(SchemeKind::Midpoint)] {
        let mut engine = Engine::new(&file.model, &[PickupSpec::position("s.1")], config).unwrap();
        let lowest = |engine: &Engine| {
            engine.analyse(&hooke::analysis::report::AnalysisOptions::default()).unwrap().modes[0]
                .mode
                .frequency_hz()
        };
        let before = lowest(&engine);
        assert!((before - (2.0f64 * 1e3 / 1e-3).sqrt() / std::f64::consts::TAU).abs() < 1e-9 * before);
        engine.apply(Event::Mass { mass: 0, kilograms: 4e-3 }).unwrap();
        assert!((lowest(&engine) - before / 2.0).abs() < 1e-9 * before);
        // And the run follows: the zero crossings of the position come at the new period.
        let mut output = vec![Vec::new()];
        engine.advance(4000, &mut output).unwrap();
        let crossings = output[0].windows(2).filter(|w| w[0] > 0.0 && w[1] <= 0.0).count() as f64;
        let expected = 4000.0 / 44_100.0 * before / 2.0;
        assert!((crossings - expected).abs() <= 1.0, "{crossings} crossings, {expected} expected");
    }
}

#[test]
fn an_event_that_does_not_fit_is_refused_and_changes_nothing() {
    let mut engine = string_engine(EngineConfig::default());
    let path = engine.path();
    for (event, field) in [
        (Event::Mass { mass: 0, kilograms: -1.0 }, "kilograms"),
        (Event::Drag { mass: 99, drag: 1.0 }, "mass"),
        (Event::Motion { coordinate: 30, position: 0.0, velocity: 0.0 }, "coordinate"),
        (Event::Link { a: 0, b: 1, stiffness: f64::NAN, damping: 0.0 }, "stiffness"),
    ] {
        let error = engine.apply(event.clone()).unwrap_err();
        assert_eq!(error.field, field, "{error}");
        assert!(engine.schedule(10, event).is_err());
    }
    assert_eq!(engine.path(), path, "nothing was applied");
}

#[test]
fn an_output_with_the_wrong_number_of_channels_is_refused() {
    let mut engine = string_engine(EngineConfig::default());
    let error = engine.advance(10, &mut [Vec::new()]).unwrap_err();
    assert!(matches!(error, hooke::engine::RunError::Channels { expected: 2, found: 1 }), "{error}");
    let mut one = [0.0f32; 8];
    assert!(engine.render(&mut [&mut one[..]]).is_err());
    assert!(engine.flush(&mut []).is_err());
    assert_eq!(engine.step(), 0, "nothing was stepped");
}
