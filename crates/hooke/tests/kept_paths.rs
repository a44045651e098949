//! Kept paths (`engine::reconcile`): an engine prepared for play on the modal kernel keeps the
//! string bank ready, moves to it when a mass is stopped (a fret) or an excitation plays, and
//! back to the modal kernel once neither is and the strings are as they were; the samples equal
//! the general path's through every move (within 1e-12 of the peak), the folded decimation
//! included, in blocks of 1, 64 and 4096 steps. The path is read after the step that follows
//! each change (the engine reconciles the changes with the path at the block boundary).

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PathKind, PickupSpec};
use hooke::model::{Anchor, Mass, Model, Spring};

/// Two 30-mass strings with dampers, one plucked.
fn strings() -> Model {
    let mut model = Model::new(1).unwrap();
    for name in ["a", "b"] {
        let left = model.add_anchor(Anchor::new(format!("{name}_nut"))).unwrap();
        let masses: Vec<_> = (0..30)
            .map(|i| model.add_mass(Mass::new(format!("{name}{i}"), 1e-3).drag(2.0)).unwrap())
            .collect();
        let right = model.add_anchor(Anchor::new(format!("{name}_bridge"))).unwrap();
        let nodes: Vec<_> = std::iter::once(left).chain(masses).chain(std::iter::once(right)).collect();
        for pair in nodes.windows(2) {
            model.add_spring(Spring::new(pair[0], pair[1], 2e5).damping(2e-3)).unwrap();
        }
    }
    model.set_initial_position(12, &[1e-3]).unwrap();
    model
}

/// Advances `engine` to step `to` in calls of at most `block` steps.
fn advance_to(engine: &mut Engine, to: u64, block: u64, output: &mut [Vec<f64>]) {
    while engine.step() < to {
        engine.advance(block.min(to - engine.step()), output).unwrap();
    }
}

/// Runs the strings at 96 kHz decimated by 2, prepared for play, through a fret on string `a`
/// (mass 9 stopped, the link after it stiffer), a pluck of `b` while it is held, the fret lifted
/// (the link set back, then the mass freed), a last pluck and a force pulse (stepped on the bank
/// while it plays), in calls of at most `block` steps; the frames and the path after each
/// change and at the end.
fn play(general: bool, block: u64) -> (Vec<Vec<f64>>, Vec<PathKind>) {
    let mut config = EngineConfig::default().rate(96_000.0).oversample(2);
    if general {
        config = config.general_only();
    }
    let pickups = [PickupSpec::position("a20"), PickupSpec::velocity("b7").channel(2)];
    let mut engine = Engine::new(&strings(), &pickups, config).unwrap();
    engine.reserve_for_play(4);
    let (mut output, mut paths) = (vec![Vec::new(); 2], vec![engine.path()]);
    let stiff = 2e5 * 1.3;
    let pulse = Excitation::Pulse(Pulse { coordinate: 50, peak: 0.2, duration: 2e-4 });
    let changes: [(u64, &[Event]); 5] = [
        (
            3001,
            &[
                Event::Stop { mass: 9, stopped: true },
                Event::Link { a: 9, b: 10, stiffness: stiff, damping: 2e-3 },
            ],
        ),
        (4000, &[Event::Motion { coordinate: 40, position: 5e-4, velocity: 0.0 }]),
        (
            6001,
            &[
                Event::Link { a: 9, b: 10, stiffness: 2e5, damping: 2e-3 },
                Event::Stop { mass: 9, stopped: false },
            ],
        ),
        (8000, &[Event::Motion { coordinate: 5, position: -3e-4, velocity: 0.0 }]),
        (9001, &[Event::Excite(pulse)]),
    ];
    for (step, events) in changes {
        advance_to(&mut engine, step, block, &mut output);
        for event in events {
            engine.apply(event.clone()).unwrap();
        }
        engine.advance(1, &mut output).unwrap();
        paths.push(engine.path());
    }
    advance_to(&mut engine, 11_000, block, &mut output);
    paths.push(engine.path());
    engine.flush(&mut output).unwrap();
    (output, paths)
}

#[test]
fn frets_and_excitations_move_the_strings_to_the_kept_bank_and_back_to_the_modal_kernel() {
    let (general, _) = play(true, 4096);
    use PathKind::{Modal, Strings};
    for block in [1, 64, 4096] {
        let (fast, paths) = play(false, block);
        assert_eq!(paths, [Modal, Strings, Strings, Modal, Modal, Strings, Modal], "blocks of {block}");
        let mut worst = 0.0f64;
        for (x, y) in fast.iter().zip(&general) {
            assert_eq!(x.len(), y.len());
            let peak = y.iter().fold(0.0f64, |p, v| p.max(v.abs()));
            worst = worst.max(x.iter().zip(y).fold(0.0f64, |d, (p, q)| d.max((p - q).abs())) / peak);
        }
        assert!(worst <= 1e-12, "blocks of {block}: {worst:e} of the peak");
    }
}

#[test]
fn a_path_rebuilt_after_a_mass_change_keeps_no_stale_bank() {
    // Every mass of string `b` made heavier rebuilds the path at the next block (the modal
    // kernel takes no mass change), on the modal kernel again (the strings are uniform): a
    // string bank kept from before would step `b`'s old masses after the next fret.
    let run = |general: bool| {
        let mut config = EngineConfig::default().rate(96_000.0).oversample(2);
        if general {
            config = config.general_only();
        }
        let pickups = [PickupSpec::position("a20"), PickupSpec::position("b7")];
        let mut engine = Engine::new(&strings(), &pickups, config).unwrap();
        engine.reserve_for_play(4);
        let mut output = vec![Vec::new()];
        engine.advance(1000, &mut output).unwrap();
        for mass in 30..60 {
            engine.apply(Event::Mass { mass, kilograms: 3e-3 }).unwrap();
        }
        engine.advance(1, &mut output).unwrap();
        assert!(general || engine.path() == PathKind::Modal, "{:?}", engine.path());
        engine.apply(Event::Motion { coordinate: 40, position: 5e-4, velocity: 0.0 }).unwrap();
        engine.advance(1000, &mut output).unwrap();
        engine.apply(Event::Stop { mass: 9, stopped: true }).unwrap();
        engine.advance(3000, &mut output).unwrap();
        engine.flush(&mut output).unwrap();
        output
    };
    let (fast, general) = (run(false), run(true));
    let peak = general[0].iter().fold(0.0f64, |p, v| p.max(v.abs()));
    let worst = fast[0].iter().zip(&general[0]).fold(0.0f64, |d, (p, q)| d.max((p - q).abs())) / peak;
    assert!(worst <= 1e-12, "{worst:e} of the peak");
}
