//! The modal path's folded decimation (`kernel::modal::folding`): where a run oversamples, the
//! modal kernel steps `K` steps at once and reads each output through the low-pass filter folded
//! into its weights. Its outputs must equal the fine steps through the decimator's filter, which
//! the general path computes independently (the scheme on the edge lists, every step filtered):
//! with changes landing inside the filter's windows (plucks on odd steps, two in a row, a force
//! pulse, during which the path runs step by step), in blocks of any size (the same samples to
//! the bit), through the end of the run that the filter flushes, and when a run goes unstable.

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PathKind, PickupSpec, RunError};
use hooke::model::{Anchor, Mass, Model, Spring};
use hooke::scheme::SchemeKind;

/// Three strings side by side (31, 9 and 24 masses, with dampers or drag), no constant force:
/// what the modal path folds. One mass displaced.
fn strings_model() -> Model {
    let mut model = Model::new(1).unwrap();
    for (name, n, mass, damping, drag) in
        [("a", 31, 1e-3, 2e-3, 3.0), ("b", 9, 4e-3, 0.0, 1.0), ("c", 24, 5e-4, 1e-3, 0.0)]
    {
        let left = model.add_anchor(Anchor::new(format!("{name}_nut"))).unwrap();
        let masses = (0..n)
            .map(|i| model.add_mass(Mass::new(format!("{name}{i}"), mass).drag(drag)).unwrap())
            .collect::<Vec<_>>();
        let right = model.add_anchor(Anchor::new(format!("{name}_bridge"))).unwrap();
        let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
        for pair in nodes.windows(2) {
            let spring = Spring::new(pair[0], pair[1], 2e5 * mass / 1e-3);
            model.add_spring(if damping > 0.0 { spring.damping(damping) } else { spring }).unwrap();
        }
    }
    model.set_initial_position(11, &[1e-3]).unwrap();
    model
}

/// Two channels: a position and a velocity on two strings, and a string heard on both.
fn pickups() -> Vec<PickupSpec> {
    vec![
        PickupSpec::position("a12").weight(0.8),
        PickupSpec::velocity("c3"),
        PickupSpec::position("a12").channel(2).weight(0.3),
        PickupSpec::position("b4").channel(2),
    ]
}

/// `strings_model` with `scheme` at 96 kHz decimated by `factor`, its changes scheduled at odd
/// steps inside one another's windows (two plucks in a row, a force pulse), run for `steps`
/// steps in blocks of `blocks` steps in turn, then flushed; the frames and the first path.
fn run(
    scheme: SchemeKind,
    factor: usize,
    kernels: bool,
    steps: u64,
    blocks: &[u64],
) -> (Vec<Vec<f64>>, PathKind) {
    let mut config = EngineConfig::default().scheme(scheme).rate(96_000.0).oversample(factor);
    if !kernels {
        config = config.general_only();
    }
    let mut engine = Engine::new(&strings_model(), &pickups(), config).unwrap();
    let path = engine.path();
    for (step, coordinate, position) in
        [(1001, 40, 5e-4), (1002, 50, -3e-4), (1301, 5, 2e-4), (4001, 20, 1e-4)]
    {
        engine.schedule(step, Event::Motion { coordinate, position, velocity: 0.0 }).unwrap();
    }
    let pulse = Pulse { coordinate: 60, peak: 0.2, duration: 2e-4 };
    engine.schedule(2503, Event::Excite(Excitation::Pulse(pulse))).unwrap();
    let mut output = vec![Vec::new(); 2];
    for &block in blocks.iter().cycle() {
        let left = steps - engine.step();
        if left == 0 {
            break;
        }
        engine.advance(block.min(left), &mut output).unwrap();
    }
    engine.flush(&mut output).unwrap();
    (output, path)
}

/// The largest difference between two recordings, relative to the peak of the second.
fn relative_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut worst = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.len(), y.len(), "frames");
        let peak = y.iter().fold(0.0f64, |p, v| p.max(v.abs()));
        worst = worst.max(x.iter().zip(y).fold(0.0f64, |d, (p, q)| d.max((p - q).abs())) / peak);
    }
    worst
}

#[test]
fn folded_outputs_equal_the_fine_steps_through_the_filter() {
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::CaldirolaKanai, SchemeKind::EnergyConserving] {
        for factor in [2, 3] {
            let (general, _) = run(scheme, factor, false, 6000, &[6000]);
            let (whole, _) = run(scheme, factor, true, 6000, &[6000]);
            for blocks in [&[6000][..], &[1], &[64], &[7, 301, 2, 1024]] {
                let (modal, path) = run(scheme, factor, true, 6000, blocks);
                assert_eq!(path, PathKind::Modal, "{scheme:?}");
                let difference = relative_difference(&modal, &general);
                assert!(
                    difference <= 1e-12,
                    "{scheme:?}, K = {factor}, blocks {blocks:?}: {difference:e} of the peak"
                );
                // A run stopped inside K steps goes on as one that never stopped, to the bit.
                assert!(modal == whole, "{scheme:?}, K = {factor}, blocks {blocks:?} against one block");
            }
        }
    }
}

#[test]
fn frames_rendered_in_any_size_equal_one_render() {
    let config = EngineConfig::default().rate(88_200.0).oversample(2);
    let render = |sizes: &[usize]| {
        let mut engine = Engine::new(&strings_model(), &pickups(), config).unwrap();
        let mut frames = [vec![0.0f64; 3000], vec![0.0f64; 3000]];
        let mut sizes = sizes.iter().cycle();
        for (first, last) in [(0, 1000), (1000, 3000)] {
            if first == 1000 {
                engine.apply(Event::Motion { coordinate: 30, position: 4e-4, velocity: 0.0 }).unwrap();
            }
            let mut start = first;
            while start < last {
                let end = (start + sizes.next().unwrap()).min(last);
                let [a, b] = &mut frames;
                engine.render(&mut [&mut a[start..end], &mut b[start..end]]).unwrap();
                start = end;
            }
        }
        frames
    };
    let whole = render(&[1000]);
    assert!(whole[0].iter().any(|&x| x != 0.0));
    for sizes in [&[1][..], &[128], &[5, 40, 333]] {
        assert!(render(sizes) == whole, "frames in blocks of {sizes:?}");
    }
}

#[test]
fn an_unstable_folded_run_stops_and_keeps_the_frames_before() {
    // Symplectic Euler is unstable above w dt = 2: 9.3e6 N/m on 1 g at 96 kHz puts the top
    // mode of a 31-mass string just past it (w dt = 2.007, growing 1.18 times a step).
    let mut model = Model::new(1).unwrap();
    let left = model.add_anchor(Anchor::new("nut")).unwrap();
    let masses: Vec<_> = (0..31).map(|i| model.add_mass(Mass::new(format!("m{i}"), 1e-3)).unwrap()).collect();
    let right = model.add_anchor(Anchor::new("bridge")).unwrap();
    let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
    for pair in nodes.windows(2) {
        model.add_spring(Spring::new(pair[0], pair[1], 9.3e6)).unwrap();
    }
    model.set_initial_position(11, &[1e-9]).unwrap();
    let half_length = hooke::engine::decimate::Decimator::new(2, 1).taps().len() as u64 / 2;
    let failure = |kernels: bool| {
        let mut config = EngineConfig::default().rate(96_000.0).oversample(2);
        if !kernels {
            config = config.general_only();
        }
        let mut engine = Engine::new(&model, &[PickupSpec::position("m3")], config).unwrap();
        let path = engine.path();
        let mut output = vec![Vec::new()];
        let error = engine.advance(200_000, &mut output).unwrap_err();
        let frames = output[0].len() as u64;
        // Every frame kept is finite: a frame that summed values past the largest float ends
        // them (the state may still be finite then: the run stops on the output).
        assert!(output[0].iter().all(|x| x.is_finite()), "{path:?}");
        match error {
            // The steps before the failing one are the filter's inputs: output m came once
            // input 2 m + D had, so (inputs - 1 - D) / 2 + 1 of them, less those within a
            // filter's length of the failure that summed values near the largest float past it.
            RunError::NonFinite { step, .. } => {
                let inputs = step - 1;
                let complete = (inputs - 1 - half_length) / 2 + 1;
                assert!(frames <= complete && frames + half_length >= complete, "frames kept, {path:?}");
            }
            // The block's first step: the frames completed before it are kept.
            RunError::NonFiniteOutput { step, .. } => {
                assert!(2 * (frames + half_length) >= step, "frames kept, {path:?}")
            }
            other => panic!("{other}"),
        }
        (frames, path)
    };
    let (modal_frames, path) = failure(true);
    assert_eq!(path, PathKind::Modal);
    let (general_frames, _) = failure(false);
    // Where the growing mode overflows depends on the path's intermediate values: the modal
    // kernel's and the general path's differ by a few steps in thousands (without folding too).
    assert!(modal_frames > 1000, "the instability grows for a while: {modal_frames} frames");
    let apart = modal_frames.abs_diff(general_frames) as f64 / general_frames as f64;
    assert!(apart < 0.01, "frames kept: modal {modal_frames}, general {general_frames}");
}
