//! Rendering a block allocates and frees nothing once the engine has rendered one of that size, on every
//! path (stencil, string bank, general with an explicit scheme, general with an implicit scheme
//! on a small network, whose Newton iteration is dense), with oversampling and with an
//! excitation in play: a counting global allocator proves it. (The sparse LU solves of the
//! implicit schemes on large networks still take faer's scratch memory per solve.)

use hooke::engine::excitation::{Excitation, Pulse};
use hooke::engine::{Engine, EngineConfig, Event, PathKind};
use hooke::format::model::{parse, ModelFile};
use hooke::instrument::guitar::{guitar, GuitarSpec};
use hooke::scheme::SchemeKind;
use hooke::system::System;

mod counting;
use counting::{heap_operations, Counting};

#[global_allocator]
static COUNTING: Counting = Counting;

/// Heap operations (allocations and frees) made while rendering `blocks` blocks of 64 frames, after one warm-up block.
fn heap_operations_per_render(engine: &mut Engine, blocks: usize) -> usize {
    let channels = engine.channels();
    let mut buffers = vec![vec![0.0f32; 64]; channels];
    let render = |engine: &mut Engine, buffers: &mut Vec<Vec<f32>>| {
        let mut slices: [&mut [f32]; 2] = [&mut [], &mut []];
        for (slice, buffer) in slices.iter_mut().zip(buffers.iter_mut()) {
            *slice = &mut buffer[..];
        }
        engine.render(&mut slices[..channels]).unwrap();
    };
    render(engine, &mut buffers);
    let before = heap_operations();
    for _ in 0..blocks {
        render(engine, &mut buffers);
    }
    heap_operations() - before
}

#[test]
fn rendering_blocks_allocates_nothing_on_any_path() {
    let file = parse(
        "[model]\ndimension = 1\n[[string]]\nid = \"s\"\nmasses = 80\nmass = 1e-3\nstiffness = 2e5\n\
         damping = 1e-3\npluck = { position = 0.3, amplitude = 1e-3 }\n",
        "string.toml",
    )
    .unwrap();
    for (config, path) in [
        (EngineConfig::default(), PathKind::Modal),
        (EngineConfig::default().without_modal(), PathKind::Chain),
        (EngineConfig::default().general_only(), PathKind::General),
        (EngineConfig::default().scheme(SchemeKind::Rk4), PathKind::Modal),
        (EngineConfig::default().scheme(SchemeKind::CaldirolaKanai), PathKind::Modal),
        (EngineConfig::default().scheme(SchemeKind::Rk4).general_only(), PathKind::General),
    ] {
        let (config, scheme) = (config.rate(48_000.0), config.scheme);
        let mut engine = Engine::from_system(System::new(&file.model), file.pickups.clone(), config).unwrap();
        assert_eq!(engine.path(), path);
        assert_eq!(heap_operations_per_render(&mut engine, 100), 0, "{scheme}");
        // A pulse held through the blocks: the modal kernel takes each step's force in place.
        let pulse = Pulse { coordinate: 40, peak: 0.5, duration: 0.05 };
        engine.apply(Event::Excite(Excitation::Pulse(pulse))).unwrap();
        assert_eq!(heap_operations_per_render(&mut engine, 100), 0, "{scheme}, pulse");
        if path == PathKind::Modal {
            assert_eq!(engine.path(), path, "{scheme}: the pulse is held in place");
        }
    }

    // The guitar on the modal kernel and on the string bank, oversampled, with a force pulse
    // playing through the blocks.
    let instrument = guitar(&GuitarSpec::default(), SchemeKind::SymplecticEuler, 1.0 / 88_200.0).unwrap();
    for (config, path) in [
        (EngineConfig::default(), PathKind::Modal),
        (EngineConfig::default().without_modal(), PathKind::Strings),
    ] {
        let config = config.dt(instrument.dt).oversample(2);
        let mut engine = Engine::new(&instrument.model, &instrument.pickups, config).unwrap();
        let pulse = Pulse { coordinate: 40, peak: 0.5, duration: 0.05 };
        engine.apply(Event::Excite(Excitation::Pulse(pulse))).unwrap();
        assert_eq!(heap_operations_per_render(&mut engine, 100), 0, "guitar, {path:?}");
        assert_eq!(engine.path(), path);
    }
}

fn example(name: &str) -> ModelFile {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    parse(&source, &path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn implicit_schemes_on_small_nonlinear_networks_allocate_nothing_per_step() {
    // The double pendulum (2D, geometric springs: a Newton iteration at every step) and the
    // clarinet reed (1D, a Hertz contact, drag and a drive), on the dense Newton path.
    let implicit = [
        SchemeKind::EnergyConserving,
        SchemeKind::Midpoint,
        SchemeKind::Trapezoidal,
        SchemeKind::BackwardEuler,
    ];
    // The reed has drag: the splittings apply it as their exact damping flow.
    let splittings = [SchemeKind::CaldirolaKanai, SchemeKind::EnergyConservingCs];
    let cases = [
        ("double-pendulum.toml", implicit.to_vec()),
        ("clarinet-reed.toml", [&implicit[..], &splittings].concat()),
    ];
    for (name, schemes) in cases {
        let file = example(name);
        for scheme in schemes {
            let config = EngineConfig::default().scheme(scheme).rate(44_100.0);
            let mut engine =
                Engine::from_system(System::new(&file.model), file.pickups.clone(), config).unwrap();
            assert_eq!(engine.path(), PathKind::General);
            assert_eq!(heap_operations_per_render(&mut engine, 100), 0, "{name} {scheme}");
        }
    }
}
