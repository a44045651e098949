//! The engine on the GPU ([`Engine::with_device`] with [`GpuDevice`]) against the same engine
//! on the CPU with f32 kernels: the same frames within f32 rounding (the tolerance of
//! `parity.rs`), through events that rebuild the path, the same error at the same step and
//! mass when the step is unstable, and a refusal that says why for what the GPU cannot run.
//! With no adapter each test prints `SKIPPED: ...` and passes.

mod common;

use common::{assert_close, assert_within, context, f64_context, F64_TOLERANCE};
use hooke::engine::{Engine, EngineConfig, EngineError, Event, PathKind, PickupSpec, Precision, RunError};
use hooke::model::{Anchor, Mass, MembraneSpec, Model, Spring, StringSpec};
use hooke::scheme::SchemeKind;
use hooke_gpu::GpuDevice;
use std::sync::Arc;

const RATE: f64 = 48_000.0;

/// Frames of every channel, rendered in calls of `block` frames.
fn render(engine: &mut Engine, frames: usize, block: usize) -> Vec<Vec<f64>> {
    let mut channels = vec![Vec::new(); engine.channels()];
    let mut buffers = vec![vec![0.0f64; block]; engine.channels()];
    for _ in 0..frames / block {
        let mut outputs: Vec<&mut [f64]> = buffers.iter_mut().map(|b| &mut b[..]).collect();
        engine.render(&mut outputs).unwrap();
        for (channel, buffer) in channels.iter_mut().zip(&buffers) {
            channel.extend_from_slice(buffer);
        }
    }
    channels
}

/// A damped string of 80 masses plucked at a fifth, heard at two points, one by its velocity.
fn string(stiffness: f64) -> (Model, Vec<PickupSpec>) {
    long_string(80, stiffness)
}

/// A damped string of `masses` masses plucked at a fifth, heard at 1/8 of its length on
/// channel 1, and at its middle (by the velocity) and 3/4 on channel 2.
fn long_string(masses: usize, stiffness: f64) -> (Model, Vec<PickupSpec>) {
    let mut model = Model::new(1).unwrap();
    let spec = StringSpec::new("s", masses).mass(1e-3).stiffness(stiffness).damping(1e-3).pluck(0.2, 1e-3);
    let nodes = model.add_string(spec).unwrap();
    let pickups = vec![
        PickupSpec::position(nodes[masses / 8]),
        PickupSpec::velocity(nodes[masses / 2 + 1]).weight(1e-3).channel(2),
        PickupSpec::position(nodes[3 * masses / 4]).weight(0.5).channel(2),
    ];
    (model, pickups)
}

/// The engine for `model` on the GPU and on the CPU's kernels, both in f32.
fn engines(model: &Model, pickups: &[PickupSpec], config: EngineConfig) -> Option<(Engine, Engine)> {
    let device = GpuDevice::on(context()?);
    let config = config.precision(Precision::F32);
    let gpu = Engine::with_device(model, pickups, config, Arc::new(device)).unwrap();
    let cpu = Engine::new(model, pickups, config).unwrap();
    Some((gpu, cpu))
}

#[test]
fn a_string_on_the_gpu_renders_the_cpu_frames() {
    let (model, pickups) = string(1e5);
    let Some((mut gpu, mut cpu)) = engines(&model, &pickups, EngineConfig::default().rate(RATE)) else {
        return;
    };
    assert_eq!(gpu.path(), PathKind::Device);
    assert_eq!(cpu.path(), PathKind::Chain);
    // Blocks of 300 frames: calls that cross the GPU's dispatch blocks at odd places.
    let (on_gpu, on_cpu) = (render(&mut gpu, 3000, 300), render(&mut cpu, 3000, 300));
    for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_close(&format!("string, channel {channel}"), g, c);
    }
    let (g, c) = (gpu.state(), cpu.state());
    assert_eq!(g.step, 3000);
    assert_close("string, positions", &g.x[..80], &c.x[..80]);
    assert_close("string, velocities", &g.v[..80], &c.v[..80]);
}

#[test]
fn the_structure_preserving_schemes_run_a_string_on_the_gpu_as_on_the_cpu() {
    // On the GPU mode by mode (GpuVoices::modal); on the CPU the general path in f64, which
    // steps the masses and knows nothing of modes.
    let (model, pickups) = string(1e5);
    let schemes = [
        SchemeKind::VelocityVerlet,
        SchemeKind::CaldirolaKanai,
        SchemeKind::EnergyConserving,
        SchemeKind::Midpoint,
        SchemeKind::VelocityVerletCs,
        SchemeKind::Rk4,
    ];
    for scheme in schemes {
        let config = EngineConfig::default().rate(RATE).scheme(scheme).precision(Precision::F32);
        let Some(context) = context() else { return };
        let mut gpu =
            Engine::with_device(&model, &pickups, config, Arc::new(GpuDevice::on(context))).unwrap();
        let mut cpu = Engine::new(&model, &pickups, config.general_only()).unwrap();
        assert_eq!((gpu.path(), cpu.path()), (PathKind::Device, PathKind::General));
        let (on_gpu, on_cpu) = (render(&mut gpu, 3000, 700), render(&mut cpu, 3000, 700));
        for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
            assert_close(&format!("{}, channel {channel}", scheme.name()), g, c);
        }
        let (g, c) = (gpu.state(), cpu.state());
        assert_close(&format!("{}, positions", scheme.name()), &g.x[..80], &c.x[..80]);
        assert_close(&format!("{}, velocities", scheme.name()), &g.v[..80], &c.v[..80]);
    }
}

#[test]
fn in_f64_the_gpu_renders_the_cpu_frames_to_f64_rounding() {
    let Some(context) = f64_context() else { return };
    // The stencil, and the modes; on the CPU the general path in f64.
    let (model, pickups) = string(1e5);
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::CaldirolaKanai] {
        let config = EngineConfig::default().rate(RATE).scheme(scheme).precision(Precision::F64);
        let device = Arc::new(GpuDevice::on(context.clone()));
        let mut gpu = Engine::with_device(&model, &pickups, config, device).unwrap();
        let mut cpu = Engine::new(&model, &pickups, config.general_only()).unwrap();
        let (on_gpu, on_cpu) = (render(&mut gpu, 3000, 700), render(&mut cpu, 3000, 700));
        for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
            assert_within(&format!("f64 {}, channel {channel}", scheme.name()), g, c, F64_TOLERANCE);
        }
        let (g, c) = (gpu.state(), cpu.state());
        assert_within(&format!("f64 {}, positions", scheme.name()), &g.x[..80], &c.x[..80], F64_TOLERANCE);
    }
}

#[test]
fn a_string_too_long_for_workgroup_memory_runs_as_one_row_of_membrane() {
    // 3000 masses: more than the 1022 that 16 KiB of workgroup memory holds.
    let (model, pickups) = long_string(3000, 1e5);
    let Some((mut gpu, mut cpu)) = engines(&model, &pickups, EngineConfig::default().rate(RATE)) else {
        return;
    };
    assert_eq!(gpu.path(), PathKind::Device);
    let (on_gpu, on_cpu) = (render(&mut gpu, 600, 200), render(&mut cpu, 600, 200));
    for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_close(&format!("long string, channel {channel}"), g, c);
    }
    let (g, c) = (gpu.state(), cpu.state());
    assert_close("long string, positions", &g.x[..3000], &c.x[..3000]);
}

#[test]
fn a_membrane_on_the_gpu_renders_the_cpu_frames() {
    let mut model = Model::new(1).unwrap();
    let spec = MembraneSpec::new("m", 24, 17).mass(1e-3).stiffness(1e5).damping(5e-4);
    let masses = model.add_membrane(spec).unwrap();
    model.set_initial_position(5 * 24 + 7, &[1e-3]).unwrap();
    let pickups = [PickupSpec::position(masses[8 * 24 + 12]), PickupSpec::velocity(masses[3]).channel(2)];
    let Some((mut gpu, mut cpu)) = engines(&model, &pickups, EngineConfig::default().rate(RATE)) else {
        return;
    };
    assert_eq!((gpu.path(), cpu.path()), (PathKind::Device, PathKind::Membrane));
    let (on_gpu, on_cpu) = (render(&mut gpu, 2000, 500), render(&mut cpu, 2000, 500));
    for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_close(&format!("membrane, channel {channel}"), g, c);
    }
}

#[test]
fn events_land_between_gpu_blocks_as_on_the_cpu() {
    let (model, pickups) = string(1e5);
    let Some((mut gpu, mut cpu)) = engines(&model, &pickups, EngineConfig::default().rate(RATE)) else {
        return;
    };
    // A second pluck at step 700, a tension change at step 1500 on every link (nodes 0 to 79
    // are the masses, 80 and 81 the anchors): the path is rebuilt on both.
    let shape: Vec<(usize, f64)> =
        (0..80).map(|i| (i, 5e-4 * (std::f64::consts::PI * (i + 1) as f64 / 81.0).sin())).collect();
    let links = std::iter::once((80, 0)).chain((0..79).map(|i| (i, i + 1))).chain(std::iter::once((79, 81)));
    for engine in [&mut gpu, &mut cpu] {
        engine.schedule(700, Event::Shape(shape.clone())).unwrap();
        for (a, b) in links.clone() {
            engine.schedule(1500, Event::Link { a, b, stiffness: 1.44e5, damping: 1e-3 }).unwrap();
        }
    }
    let (on_gpu, on_cpu) = (render(&mut gpu, 2400, 400), render(&mut cpu, 2400, 400));
    assert_eq!(gpu.path(), PathKind::Device, "the changed string is uniform again: back on the GPU");
    for (channel, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_close(&format!("played string, channel {channel}"), g, c);
    }
}

#[test]
fn a_rebuilt_path_reuses_the_shader_it_compiled() {
    let Some(context) = context() else {
        return;
    };
    let (model, pickups) = string(1e5);
    let device = Arc::new(GpuDevice::on(context.clone()));
    let config = EngineConfig::default().rate(RATE);
    let started = std::time::Instant::now();
    let mut gpu = Engine::with_device(&model, &pickups, config, device.clone()).unwrap();
    let first = started.elapsed();
    // A pluck that the device path cannot take in place: the engine rebuilds the path.
    let shape: Vec<(usize, f64)> = (0..80).map(|i| (i, 1e-5 * i as f64)).collect();
    gpu.schedule(500, Event::Shape(shape)).unwrap();
    render(&mut gpu, 1200, 400);
    assert_eq!(gpu.path(), PathKind::Device);
    let started = std::time::Instant::now();
    let _again = Engine::with_device(&model, &pickups, config, device).unwrap();
    println!("engine on the device: {first:?} the first time, {:?} again", started.elapsed());
    assert_eq!(context.compiled_shaders(), 1, "three paths built on one string's shader");
}

#[test]
fn an_unstable_gpu_run_stops_at_the_cpu_step_and_mass() {
    // omega_max h = 2 sqrt(4 k / m) h = 2.5 > 2: unstable with both schemes (on the GPU: the
    // stencil, and the modes).
    let (model, pickups) = string(2.5f64.powi(2) * 1e-3 * RATE * RATE / 16.0 * 4.0);
    for scheme in [SchemeKind::SymplecticEuler, SchemeKind::VelocityVerlet] {
        let config = EngineConfig::default().rate(RATE).scheme(scheme);
        let Some((mut gpu, _)) = engines(&model, &pickups, config) else { return };
        let mut cpu = Engine::new(&model, &pickups, config.general_only()).unwrap();
        let mut outputs = vec![Vec::new(); 2];
        let on_gpu = gpu.advance(100_000, &mut outputs).unwrap_err();
        let mut outputs = vec![Vec::new(); 2];
        let on_cpu = cpu.advance(100_000, &mut outputs).unwrap_err();
        match (&on_gpu, &on_cpu) {
            (
                RunError::NonFinite { step: gpu_step, mass: gpu_mass, .. },
                RunError::NonFinite { step: cpu_step, mass: cpu_mass, .. },
            ) => {
                println!("{}: GPU: {on_gpu}\nCPU: {on_cpu}", scheme.name());
                // The general path (f64) locates the failure from the GPU's state at the block's
                // start, which differs from the CPU's by f32 rounding: one step either way at most.
                assert!(gpu_step.abs_diff(*cpu_step) <= 1, "steps {gpu_step} and {cpu_step}");
                assert_eq!(gpu_mass, cpu_mass);
            }
            _ => panic!("expected non-finite values on both, got {on_gpu:?} and {on_cpu:?}"),
        }
    }
}

#[test]
fn what_the_gpu_cannot_run_is_refused_with_the_reason() {
    let Some(context) = context() else { return };
    let device = Arc::new(GpuDevice::on(context));
    let mut model = Model::new(1).unwrap();
    let masses = model.add_membrane(MembraneSpec::new("m", 8, 6).mass(1e-3).stiffness(1e5)).unwrap();
    let config = EngineConfig::default().rate(RATE).scheme(SchemeKind::VelocityVerlet);
    let Err(EngineError::Device { reason, .. }) =
        Engine::with_device(&model, &[PickupSpec::position(masses[9])], config, device.clone())
    else {
        panic!("velocity Verlet on a membrane on the GPU was not refused");
    };
    assert!(reason.contains("on uniform strings only"), "{reason}");
    let mut pendulum = Model::new(2).unwrap();
    let bob = pendulum.add_mass(Mass::new("bob", 1.0).position([1.0, 0.0])).unwrap();
    let pivot = pendulum.add_anchor(Anchor::new("pivot").position([0.0, 0.0])).unwrap();
    pendulum.add_spring(Spring::new(pivot, bob, 100.0)).unwrap();
    let error = Engine::with_device(&pendulum, &[PickupSpec::position(bob)], EngineConfig::default(), device)
        .err()
        .expect("a pendulum on the GPU was not refused");
    assert!(error.to_string().contains("uniform strings and membranes only"), "{error}");
}
