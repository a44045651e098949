//! The GPU kernels against the CPU kernels they mirror ([`VoiceBank<f32>`], [`GridKernel<f32>`]),
//! on whatever adapter wgpu finds (Mesa's lavapipe in CI). With no adapter each test prints
//! `SKIPPED: no GPU adapter (...)` and passes.
//!
//! Tolerance: every value within `1e-4` of the run's peak magnitude. Both sides are f32 with
//! the same operations in the same order, so a device whose WGSL `fma` is fused gives the CPU's
//! values exactly. Vulkan's precision rules let `fma` round twice (as a multiply then an add),
//! and lavapipe (Mesa 22.3) does: its results then equal an unfused f32 CPU run bit for bit and
//! differ from the fused CPU kernels by about one rounding per step, which over these runs' 1000
//! steps came to at most 2.3e-5 of the peak (300 masses); the tolerance leaves four times that.
//! A wrong coefficient, neighbour or step order differs by percents of the peak within tens of
//! steps.

use hooke::kernel::chain::{Tap, UniformChain};
use hooke::kernel::grid::{GridKernel, UniformGrid};
use hooke::kernel::voices::VoiceBank;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;
use hooke_gpu::{GpuError, GpuMembrane, GpuVoices, MEMBRANE_DEPTH};

mod common;
use common::{assert_close, assert_within, context, f64_context, F64_TOLERANCE};

const DT: f64 = 1.0 / 48_000.0;

/// A string with dampers, drag and gravity; `omega h = 2 sqrt(k/m) h` is about 1.3.
fn chain(masses: usize, stiffness: f64) -> UniformChain {
    UniformChain {
        masses,
        mass: 1e-3,
        stiffness,
        damping: 2e-3,
        drag: 1e-3,
        force: -9.81e-3,
        left: 0.0,
        right: 1e-3,
    }
}

/// Voice `voice`'s initial state: a pluck at a different place and height per voice, and a
/// strike (velocity) on odd voices.
fn pluck(masses: usize, voice: usize) -> (Vec<f64>, Vec<f64>) {
    let at = 1 + (voice * 7) % (masses - 2);
    let height = 1e-3 * (1.0 + voice as f64 * 0.37);
    let x = (0..masses)
        .map(|i| {
            if i <= at {
                height * i as f64 / at as f64
            } else {
                height * (masses - i) as f64 / (masses - at) as f64
            }
        })
        .collect();
    let v = (0..masses).map(|i| if voice % 2 == 1 && i == masses / 3 { 0.5 } else { 0.0 }).collect();
    (x, v)
}

#[test]
fn voices_match_the_cpu_voice_bank() {
    let Some(context) = context() else { return };
    // 80 masses: fewer than a workgroup's lanes; 300: each lane updates two masses.
    for masses in [80, 300] {
        let (voices, steps, tap) = (5, 1000, masses / 5);
        let chain = chain(masses, 1e6);
        let mut gpu = GpuVoices::new(&context, chain, DT, voices, |voice| pluck(masses, voice)).unwrap();
        let mut cpu = VoiceBank::<f32>::new(chain, DT, voices, |voice| pluck(masses, voice));
        let mut gpu_record = vec![0f32; steps * voices];
        let mut cpu_record = vec![0f64; steps * voices];
        gpu.advance(steps, &[(tap, Quantity::Position)], &mut gpu_record).unwrap();
        cpu.advance(steps, tap, &mut cpu_record);
        let gpu_record: Vec<f64> = gpu_record.iter().map(|&value| f64::from(value)).collect();
        assert_close(&format!("{masses} masses: pickups"), &gpu_record, &cpu_record);
        for voice in 0..voices {
            let gpu_x: Vec<f64> =
                gpu.positions(voice).unwrap().iter().map(|&value| f64::from(value)).collect();
            let cpu_x: Vec<f64> = (0..masses).map(|mass| cpu.position(voice, mass)).collect();
            assert_close(&format!("{masses} masses: voice {voice}'s positions"), &gpu_x, &cpu_x);
        }
        // The voices start differently, so a kernel that mixed them up would differ above.
        assert_ne!(cpu_record[(steps - 1) * voices], cpu_record[(steps - 1) * voices + 1]);
    }
}

#[test]
fn modal_voices_match_the_cpu_voice_bank() {
    let Some(context) = context() else { return };
    // Symplectic Euler mode by mode against the CPU's stencil, with gravity, an anchor off zero
    // and three taps (positions and a velocity); 300 masses: two modes per invocation.
    for masses in [80, 300] {
        let (voices, steps) = (4, 1000);
        let chain = chain(masses, 1e6);
        let taps = [
            (masses / 5, Quantity::Position),
            (masses / 2, Quantity::Velocity),
            (masses - 1, Quantity::Position),
        ];
        let scheme = SchemeKind::SymplecticEuler;
        let mut gpu =
            GpuVoices::modal(&context, chain, scheme, DT, voices, |voice| pluck(masses, voice)).unwrap();
        let mut gpu_record = vec![0f32; steps * taps.len() * voices];
        gpu.advance(steps, &taps, &mut gpu_record).unwrap();
        for (j, &(mass, quantity)) in taps.iter().enumerate() {
            let mut cpu = VoiceBank::<f64>::new(chain, DT, voices, |voice| pluck(masses, voice));
            let (mut cpu_record, mut one) = (Vec::with_capacity(steps * voices), vec![0f64; voices]);
            for _ in 0..steps {
                cpu.advance(1, mass, &mut one);
                cpu_record.extend((0..voices).map(|voice| match quantity {
                    Quantity::Position => cpu.position(voice, mass),
                    Quantity::Velocity => cpu.velocity(voice, mass),
                }));
            }
            let gpu_tap: Vec<f64> = (0..steps * voices)
                .map(|k| f64::from(gpu_record[((k / voices) * taps.len() + j) * voices + k % voices]))
                .collect();
            assert_close(&format!("{masses} masses, tap {j}"), &gpu_tap, &cpu_record);
            if j == 0 {
                for voice in 0..voices {
                    let gpu_x: Vec<f64> =
                        gpu.positions(voice).unwrap().iter().map(|&value| f64::from(value)).collect();
                    let cpu_x: Vec<f64> = (0..masses).map(|mass| cpu.position(voice, mass)).collect();
                    assert_close(&format!("{masses} masses: voice {voice}'s positions"), &gpu_x, &cpu_x);
                }
            }
        }
    }
}

#[test]
fn voices_in_f64_match_the_cpu_voice_bank_to_f64_rounding() {
    let Some(context) = f64_context() else { return };
    let (masses, voices, steps, tap) = (80, 3, 1000, 17);
    let chain = chain(masses, 1e6);
    let mut cpu = VoiceBank::<f64>::new(chain, DT, voices, |voice| pluck(masses, voice));
    let mut cpu_record = vec![0f64; steps * voices];
    cpu.advance(steps, tap, &mut cpu_record);
    let stencil = GpuVoices::<f64>::new(&context, chain, DT, voices, |voice| pluck(masses, voice));
    let scheme = SchemeKind::SymplecticEuler;
    let modal = GpuVoices::<f64>::modal(&context, chain, scheme, DT, voices, |voice| pluck(masses, voice));
    for (name, gpu) in [("stencil", stencil), ("modes", modal)] {
        let mut gpu = gpu.unwrap();
        let mut gpu_record = vec![0f64; steps * voices];
        gpu.advance(steps, &[(tap, Quantity::Position)], &mut gpu_record).unwrap();
        assert_within(&format!("f64 {name}: pickups"), &gpu_record, &cpu_record, F64_TOLERANCE);
        let gpu_x = gpu.positions(1).unwrap();
        let cpu_x: Vec<f64> = (0..masses).map(|mass| cpu.position(1, mass)).collect();
        assert_within(&format!("f64 {name}: positions"), &gpu_x, &cpu_x, F64_TOLERANCE);
    }
}

#[test]
fn a_call_with_other_taps_records_those() {
    let Some(context) = context() else { return };
    // The taps' encoding is kept between calls with the same taps: a call with others must
    // record the others (another mass, another quantity), on the stencil and on the modes.
    let (masses, voices, steps) = (40, 2, 300);
    let chain = chain(masses, 1e6);
    let scheme = SchemeKind::CaldirolaKanai;
    for modal in [false, true] {
        let scheme = if modal { scheme } else { SchemeKind::SymplecticEuler };
        let mut gpu =
            GpuVoices::<f32>::for_scheme(&context, chain, scheme, DT, voices, |v| pluck(masses, v)).unwrap();
        let mut record = vec![0f32; steps * voices];
        gpu.advance(steps, &[(3, Quantity::Position)], &mut record).unwrap();
        let first = gpu.velocities(1).unwrap()[11];
        gpu.advance(1, &[(11, Quantity::Velocity)], &mut record[..voices]).unwrap();
        let second = gpu.velocities(1).unwrap()[11];
        println!("modal {modal}: recorded {} for the velocity {second} (before: {first})", record[1]);
        assert_ne!(first, second, "the velocity changed over the step");
        assert!(
            (record[1] - second).abs() <= 1e-4 * second.abs(),
            "modal {modal}: {} against {second}",
            record[1]
        );
    }
}

#[test]
fn voice_blocks_of_any_length_give_one_long_block() {
    let Some(context) = context() else { return };
    let (masses, voices, tap) = (40, 3, 11);
    let chain = chain(masses, 1e6);
    let new = || GpuVoices::new(&context, chain, DT, voices, |voice| pluck(masses, voice)).unwrap();
    let mut whole = new();
    // More steps than one dispatch holds, so the long call is split on the device side too.
    let steps = whole.block() + 500;
    let mut one_call = vec![0f32; steps * voices];
    whole.advance(steps, &[(tap, Quantity::Position)], &mut one_call).unwrap();
    let mut pieces = new();
    let mut in_pieces = vec![0f32; steps * voices];
    let mut done = 0;
    for length in [1, 7, 300, 17, steps - 325] {
        pieces
            .advance(
                length,
                &[(tap, Quantity::Position)],
                &mut in_pieces[done * voices..(done + length) * voices],
            )
            .unwrap();
        done += length;
    }
    assert_eq!(done, steps);
    assert_eq!(one_call, in_pieces, "the same steps in other blocks differ");
    for voice in 0..voices {
        assert_eq!(whole.positions(voice).unwrap(), pieces.positions(voice).unwrap());
    }
    let mut cpu = VoiceBank::<f32>::new(chain, DT, voices, |voice| pluck(masses, voice));
    let mut cpu_record = vec![0f64; steps * voices];
    cpu.advance(steps, tap, &mut cpu_record);
    let one_call: Vec<f64> = one_call.iter().map(|&value| f64::from(value)).collect();
    assert_close("pickups over several dispatches", &one_call, &cpu_record);
}

#[test]
fn unstable_voices_report_the_step_voice_and_mass() {
    let Some(context) = context() else { return };
    // omega h = 2 sqrt(k/m) h = 2.5 > 2: the highest mode grows about fourfold per step.
    let (masses, voices) = (30, 3);
    let stiffness = (1.25f64 / DT).powi(2) * 1e-3;
    let chain = UniformChain { force: 0.0, right: 0.0, ..chain(masses, stiffness) };
    // Voice 0 is at rest (and stays finite); voices 1 and 2 move, voice 2 ten times more.
    let initial = |voice: usize| {
        let (x, v) = pluck(masses, 1);
        let scale = [0.0, 1.0, 10.0][voice];
        (x.iter().map(|value| value * scale).collect(), v.iter().map(|value| value * scale).collect())
    };
    let mut gpu = GpuVoices::new(&context, chain, DT, voices, initial).unwrap();
    let steps = 400;
    let mut record = vec![0f32; steps * voices];
    let error = gpu.advance(steps, &[(0, Quantity::Position)], &mut record).unwrap_err();
    // The CPU voice bank, one step at a time: the first step leaving a non-finite position.
    let mut cpu = VoiceBank::<f32>::new(chain, DT, voices, initial);
    let mut one = vec![0f64; voices];
    let (step, voice) = (0..steps)
        .find_map(|step| {
            cpu.advance(1, 0, &mut one);
            (0..voices)
                .find(|&voice| (0..masses).any(|mass| !cpu.position(voice, mass).is_finite()))
                .map(|voice| (step, voice))
        })
        .expect("the CPU run is unstable too");
    println!("{error}; the CPU's first non-finite step: {step}, voice {voice}");
    let GpuError::NonFinite { step: gpu_step, voice: Some(gpu_voice), mass, kept } = error else {
        panic!("{error}")
    };
    assert_eq!(
        (gpu_step, gpu_voice, kept),
        (step, voice, 0),
        "the failing step and voice, and the state kept"
    );
    assert_eq!(voice, 2, "the larger voice overflows first");
    // Which mass overflows first depends on rounding: an unfused `fma` (see the module doc)
    // overflows in the product `h k/m x stretch` (h k/m is about 7.5e4 here) where the fused
    // CPU's does not. The mass is one whose CPU position is that close to overflow.
    let cpu_x = cpu.position(voice, mass);
    assert!(
        mass < masses && (!cpu_x.is_finite() || cpu_x.abs() > f64::from(f32::MAX) / 1e6),
        "mass {mass}: {cpu_x}"
    );
    // The state is kept at the start of the block: the initial state.
    let start: Vec<f32> = initial(2).0.iter().map(|&value| value as f32).collect();
    assert_eq!(gpu.positions(2).unwrap(), start);
}

#[test]
fn unstable_voices_after_several_blocks_keep_the_failing_blocks_start() {
    let Some(context) = context() else { return };
    // omega h just above 2 (about 2.0011): the highest mode grows a few percent a step, so the
    // first non-finite position comes after the first block, while the next block is in flight.
    let masses = 30;
    let stiffness = (1.0018f64 / DT).powi(2) * 1e-3;
    let chain = UniformChain { force: 0.0, right: 0.0, ..chain(masses, stiffness) };
    let (voices, tap) = (2, 3);
    let initial = |voice: usize| pluck(masses, voice);
    let mut gpu = GpuVoices::new(&context, chain, DT, voices, initial).unwrap();
    let block = gpu.block();
    let steps = 8 * block;
    let mut record = vec![0f32; steps * voices];
    let error = gpu.advance(steps, &[(tap, Quantity::Position)], &mut record).unwrap_err();
    println!("{error}");
    let GpuError::NonFinite { step, kept, .. } = error else { panic!("{error}") };
    let mut cpu = VoiceBank::<f32>::new(chain, DT, voices, initial);
    let mut one = vec![0f64; voices];
    let cpu_step = (0..steps)
        .find(|_| {
            cpu.advance(1, tap, &mut one);
            (0..voices).any(|voice| (0..masses).any(|mass| !cpu.position(voice, mass).is_finite()))
        })
        .expect("the CPU run is unstable too");
    assert!(cpu_step > block, "the failure comes after the first block ({cpu_step})");
    assert_eq!(step, cpu_step, "the failing step");
    assert_eq!(kept, step / block * block, "the state kept is the failing block's start");
    // The GPU kept the state after `kept` steps, and recorded every step before them.
    let mut cpu = VoiceBank::<f32>::new(chain, DT, voices, initial);
    let mut cpu_record = vec![0f64; kept * voices];
    cpu.advance(kept, tap, &mut cpu_record);
    let gpu_kept: Vec<f64> = record[..kept * voices].iter().map(|&value| f64::from(value)).collect();
    assert_close("taps before the failing block", &gpu_kept, &cpu_record);
    for voice in 0..voices {
        let gpu_x: Vec<f64> = gpu.positions(voice).unwrap().iter().map(|&value| f64::from(value)).collect();
        let cpu_x: Vec<f64> = (0..masses).map(|mass| cpu.position(voice, mass)).collect();
        assert_close(&format!("voice {voice}'s kept positions"), &gpu_x, &cpu_x);
    }
}

#[test]
fn voices_refuse_bad_sizes() {
    let Some(context) = context() else { return };
    let chain = chain(8, 1e6);
    let error = GpuVoices::<f32>::new(&context, chain, DT, 0, |_| pluck(8, 0)).unwrap_err();
    assert!(matches!(error, GpuError::Size(_)), "{error}");
    let long = self::chain(1 << 20, 1e6);
    let error = GpuVoices::<f32>::new(&context, long, DT, 1, |_| pluck(1 << 20, 0)).unwrap_err();
    assert!(error.to_string().contains("workgroup memory"), "{error}");
    let mut voices = GpuVoices::<f32>::new(&context, chain, DT, 2, |voice| pluck(8, voice)).unwrap();
    assert!(
        matches!(voices.advance(4, &[(8, Quantity::Position)], &mut [0.0; 8]), Err(GpuError::Size(_))),
        "a tap beyond the string"
    );
    assert!(
        matches!(voices.advance(4, &[(0, Quantity::Position)], &mut [0.0; 7]), Err(GpuError::Size(_))),
        "a short record"
    );
}

/// A membrane with different links along x and y, dampers, drag and gravity (`omega h` about 1.1).
fn grid(columns: usize, rows: usize, stiffness: f64) -> UniformGrid {
    UniformGrid {
        columns,
        rows,
        mass: 1e-3,
        stiffness_x: stiffness,
        stiffness_y: 0.7 * stiffness,
        damping_x: 1e-3,
        damping_y: 2e-3,
        drag: 1e-3,
        force: -9.81e-3,
    }
}

/// A bump off-centre and a strike elsewhere.
fn bump(columns: usize, rows: usize) -> (Vec<f64>, Vec<f64>) {
    let (ci, cj) = (columns as f64 * 0.3, rows as f64 * 0.6);
    let x = (0..rows * columns)
        .map(|k| {
            let (i, j) = ((k % columns) as f64, (k / columns) as f64);
            1e-3 * (-((i - ci).powi(2) + (j - cj).powi(2)) / 8.0).exp()
        })
        .collect();
    let v = (0..rows * columns)
        .map(|k| if k == columns * (rows / 4) + columns / 2 { 0.3 } else { 0.0 })
        .collect();
    (x, v)
}

/// Position and velocity taps with weights, spread over the membrane.
fn taps(columns: usize, rows: usize, count: usize) -> Vec<Tap> {
    (0..count)
        .map(|j| Tap {
            mass: (j * 7919) % (columns * rows),
            quantity: if j % 3 == 2 { Quantity::Velocity } else { Quantity::Position },
            weight: 0.5 + j as f64,
        })
        .collect()
}

#[test]
fn membrane_matches_the_cpu_grid_kernel() {
    let Some(context) = context() else { return };
    for blocking in [false, true] {
        // Not multiples of the 16 x 16 workgroup, so edge workgroups are partly off the grid.
        let (columns, rows, steps) = (37, 23, 1000);
        let (grid, (x, v), taps) = (grid(columns, rows, 8e5), bump(columns, rows), taps(columns, rows, 5));
        let mut gpu = GpuMembrane::<f32>::new(&context, grid, DT, &x, &v).unwrap().blocking(blocking);
        let mut cpu = GridKernel::<f32>::new(grid, DT, &x, &v);
        let mut gpu_record = vec![0f64; taps.len() * steps];
        let mut cpu_record = vec![0f64; taps.len() * steps];
        gpu.advance(steps, &taps, &mut gpu_record).unwrap();
        cpu.advance(steps, &taps, &mut cpu_record).unwrap();
        for (j, tap) in taps.iter().enumerate() {
            let range = j * steps..(j + 1) * steps;
            assert_close(
                &format!("blocking {blocking}: tap {j} ({:?})", tap.quantity),
                &gpu_record[range.clone()],
                &cpu_record[range],
            );
        }
        let gpu_x: Vec<f64> = gpu.positions().unwrap().iter().map(|&value| f64::from(value)).collect();
        let cpu_x: Vec<f64> = (0..rows * columns).map(|k| cpu.position(k % columns, k / columns)).collect();
        assert_close("positions", &gpu_x, &cpu_x);
    }
}

#[test]
fn membrane_in_f64_matches_the_cpu_grid_kernel_to_f64_rounding() {
    let Some(context) = f64_context() else { return };
    let (columns, rows, steps) = (37, 23, 1000);
    let (grid, (x, v), taps) = (grid(columns, rows, 8e5), bump(columns, rows), taps(columns, rows, 5));
    let mut cpu = GridKernel::<f64>::new(grid, DT, &x, &v);
    let mut cpu_record = vec![0f64; taps.len() * steps];
    cpu.advance(steps, &taps, &mut cpu_record).unwrap();
    let cpu_x: Vec<f64> = (0..rows * columns).map(|k| cpu.position(k % columns, k / columns)).collect();
    for blocking in [false, true] {
        let mut gpu = GpuMembrane::<f64>::new(&context, grid, DT, &x, &v).unwrap().blocking(blocking);
        let mut gpu_record = vec![0f64; taps.len() * steps];
        gpu.advance(steps, &taps, &mut gpu_record).unwrap();
        assert_within(&format!("f64, blocking {blocking}: taps"), &gpu_record, &cpu_record, F64_TOLERANCE);
        let gpu_x = gpu.positions().unwrap();
        assert_within(&format!("f64, blocking {blocking}: positions"), &gpu_x, &cpu_x, F64_TOLERANCE);
    }
}

#[test]
fn membrane_blocks_of_any_length_give_one_long_block() {
    let Some(context) = context() else { return };
    for blocking in [false, true] {
        let (columns, rows, steps) = (20, 17, 400);
        let (grid, (x, v)) = (grid(columns, rows, 8e5), bump(columns, rows));
        // More taps than the recorder first holds, so it grows.
        let taps = taps(columns, rows, 21);
        let mut whole = GpuMembrane::<f32>::new(&context, grid, DT, &x, &v).unwrap().blocking(blocking);
        let mut one_call = vec![0f64; taps.len() * steps];
        whole.advance(steps, &taps, &mut one_call).unwrap();
        let mut pieces = GpuMembrane::<f32>::new(&context, grid, DT, &x, &v).unwrap().blocking(blocking);
        let mut in_pieces = vec![0f64; taps.len() * steps];
        let mut done = 0;
        for length in [1, 63, 64, 65, 207] {
            let mut part = vec![0f64; taps.len() * length];
            pieces.advance(length, &taps, &mut part).unwrap();
            for j in 0..taps.len() {
                in_pieces[j * steps + done..][..length].copy_from_slice(&part[j * length..][..length]);
            }
            done += length;
        }
        assert_eq!(done, steps);
        assert_eq!(one_call, in_pieces, "the same steps in other blocks differ");
        assert_eq!(whole.positions().unwrap(), pieces.positions().unwrap());
        let mut cpu = GridKernel::<f32>::new(grid, DT, &x, &v);
        let mut cpu_record = vec![0f64; taps.len() * steps];
        cpu.advance(steps, &taps, &mut cpu_record).unwrap();
        assert_close("taps over several blocks", &one_call, &cpu_record);
    }
}

#[test]
fn unstable_membrane_reports_the_step_and_keeps_its_dispatch_start() {
    let Some(context) = context() else { return };
    for blocking in [false, true] {
        // omega h = 2 sqrt((k_x + k_y)/m) h = 2.2 > 2: the highest mode grows about 2.4-fold a step.
        let (columns, rows, steps) = (19, 21, 300);
        let stiffness = 1.21 * 1e-3 / (1.7 * DT * DT);
        let (grid, (x, v)) = (grid(columns, rows, stiffness), bump(columns, rows));
        let taps = taps(columns, rows, 3);
        let mut gpu = GpuMembrane::<f32>::new(&context, grid, DT, &x, &v).unwrap().blocking(blocking);
        let mut cpu = GridKernel::<f32>::new(grid, DT, &x, &v);
        let mut gpu_record = vec![0f64; taps.len() * steps];
        let mut cpu_record = vec![0f64; taps.len() * steps];
        let error = gpu.advance(steps, &taps, &mut gpu_record).unwrap_err();
        let step = cpu.advance(steps, &taps, &mut cpu_record).unwrap_err();
        println!("{error}");
        assert!(step > BLOCK_STEPS, "the failure comes after the first block ({step})");
        let GpuError::NonFinite { step: gpu_step, voice: None, mass, kept } = error else {
            panic!("{error}")
        };
        assert_eq!(gpu_step, step, "the failing step");
        // The state kept is the start of the dispatch that failed: with blocking, whole dispatches
        // of DEPTH steps; else the failing step's start.
        let depth = if blocking { MEMBRANE_DEPTH } else { 1 };
        assert_eq!(kept, step / depth * depth, "the state kept");
        assert!(mass < columns * rows);
        // The GPU kept the state after `kept` steps, and recorded the steps before them (the values
        // grow fast, so each is compared with the final peak's tolerance).
        let mut cpu = GridKernel::<f32>::new(grid, DT, &x, &v);
        let mut cpu_record = vec![0f64; taps.len() * kept];
        cpu.advance(kept, &taps, &mut cpu_record).unwrap();
        let gpu_x: Vec<f64> = gpu.positions().unwrap().iter().map(|&value| f64::from(value)).collect();
        let cpu_x: Vec<f64> = (0..rows * columns).map(|k| cpu.position(k % columns, k / columns)).collect();
        assert_close("kept positions", &gpu_x, &cpu_x);
        let gpu_kept: Vec<f64> =
            (0..taps.len()).flat_map(|j| gpu_record[j * steps..][..kept].to_vec()).collect();
        assert_close("taps before the failure", &gpu_kept, &cpu_record);
        assert!(gpu_record.iter().enumerate().all(|(i, &value)| i % steps < kept || value == 0.0));
    }
}

/// Steps per membrane block (`hooke_gpu`'s), so the failure above crosses a block boundary.
const BLOCK_STEPS: usize = 64;

#[test]
fn membrane_refuses_bad_sizes() {
    let Some(context) = context() else { return };
    let grid = grid(0, 5, 8e5);
    assert!(matches!(GpuMembrane::<f32>::new(&context, grid, DT, &[], &[]), Err(GpuError::Size(_))));
    let grid = self::grid(4, 4, 8e5);
    let error = GpuMembrane::<f32>::new(&context, grid, DT, &[0.0; 15], &[0.0; 16]).unwrap_err();
    assert!(matches!(error, GpuError::Size(_)), "{error}");
    let mut membrane = GpuMembrane::<f32>::new(&context, grid, DT, &[0.0; 16], &[0.0; 16]).unwrap();
    let beyond = [Tap { mass: 16, quantity: Quantity::Position, weight: 1.0 }];
    assert!(matches!(membrane.advance(2, &beyond, &mut [0.0; 2]), Err(GpuError::Size(_))));
}
