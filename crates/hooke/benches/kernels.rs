//! Criterion benches of the cases `hooke bench` times: Faust mi.lib's benchmark string (1 g
//! masses, 230400 N/m, 4.8e-3 N s/m, 48 kHz) on the chain kernel (N = 5 to 1e6, f64 and f32,
//! one and two threads), many voices of a 5-mass string, a membrane, and every scheme on the
//! general path. Throughput is in mass-steps (elements).
//!
//! `cargo bench -p hooke --bench kernels` (add `-- chain/` etc. to pick a group).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hooke::engine::{Engine, EngineConfig, Pickups, Quantity};
use hooke::kernel::chain::{ChainKernel, Tap, UniformChain};
use hooke::kernel::grid::{GridKernel, UniformGrid};
use hooke::kernel::voices::VoiceBank;
use hooke::kernel::Real;
use hooke::model::{Model, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use std::hint::black_box;

const DT: f64 = 1.0 / 48_000.0;

fn chain(masses: usize) -> UniformChain {
    UniformChain {
        masses,
        mass: 1e-3,
        stiffness: 230_400.0,
        damping: 4.8e-3,
        drag: 0.0,
        force: 0.0,
        left: 0.0,
        right: 0.0,
    }
}

fn plucked(n: usize) -> Vec<f64> {
    let mut x = vec![0.0; n];
    x[n / 2] = 1e-3;
    x
}

fn bench_chain<T: Real>(c: &mut Criterion, label: &str, threads: usize) {
    let mut group = c.benchmark_group(format!("chain/{label}"));
    let pool = (threads > 1).then(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap());
    for n in [5usize, 80, 640, 10_000, 100_000, 1_000_000] {
        if threads > 1 && n < 100_000 {
            continue;
        }
        let steps = (2_000_000 / n).max(32);
        group.throughput(Throughput::Elements((n * steps) as u64));
        let mut kernel = ChainKernel::<T>::new(chain(n), DT, &plucked(n), &vec![0.0; n]);
        let taps = [Tap { mass: n / 2, quantity: Quantity::Position, weight: 1.0 }];
        let mut record = vec![0.0; steps];
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| kernel.advance(steps, &taps, &mut record, pool.as_ref()).unwrap());
        });
    }
    group.finish();
}

fn chains(c: &mut Criterion) {
    bench_chain::<f64>(c, "f64", 1);
    bench_chain::<f32>(c, "f32", 1);
    bench_chain::<f64>(c, "f64-2-threads", 2);
}

fn voices(c: &mut Criterion) {
    let mut group = c.benchmark_group("voices/5-masses");
    for voices in [1usize, 16, 64] {
        let steps = 4096;
        group.throughput(Throughput::Elements((5 * voices * steps) as u64));
        let mut bank = VoiceBank::<f64>::new(chain(5), DT, voices, |_| (plucked(5), vec![0.0; 5]));
        let mut record = vec![0.0; steps * voices];
        group.bench_function(BenchmarkId::from_parameter(voices), |b| {
            b.iter(|| bank.advance(steps, 2, &mut record));
        });
    }
    group.finish();
}

fn membrane(c: &mut Criterion) {
    let mut group = c.benchmark_group("membrane");
    for side in [100usize, 1000] {
        let n = side * side;
        let steps = (2_000_000 / n).max(4);
        group.throughput(Throughput::Elements((n * steps) as u64));
        let grid = UniformGrid {
            columns: side,
            rows: side,
            mass: 1e-3,
            stiffness_x: 230_400.0,
            stiffness_y: 230_400.0,
            damping_x: 4.8e-3,
            damping_y: 4.8e-3,
            drag: 0.0,
            force: 0.0,
        };
        let mut kernel = GridKernel::<f64>::new(grid, DT, &plucked(n), &vec![0.0; n]);
        let mut record = vec![0.0; steps];
        let taps = [Tap { mass: n / 2, quantity: Quantity::Position, weight: 1.0 }];
        group.bench_function(BenchmarkId::from_parameter(format!("{side}x{side}")), |b| {
            b.iter(|| kernel.advance(steps, &taps, &mut record).unwrap());
        });
    }
    group.finish();
}

fn schemes(c: &mut Criterion) {
    let mut group = c.benchmark_group("schemes/string-80");
    let n = 80;
    let mut model = Model::new(1).unwrap();
    model.add_string(StringSpec::new("s", n).mass(1e-3).stiffness(230_400.0).damping(4.8e-3)).unwrap();
    model.set_initial_position(n / 2, &[1e-3]).unwrap();
    let system = System::new(&model);
    for scheme in SchemeKind::ALL.into_iter().filter(|s| *s != SchemeKind::ForwardEuler) {
        let steps = 2000;
        group.throughput(Throughput::Elements((n * steps) as u64));
        let mut simulation = Engine::from_system(
            system.clone(),
            Pickups::default(),
            EngineConfig::default().scheme(scheme).dt(DT),
        )
        .unwrap();
        group.bench_function(scheme.name(), |b| {
            b.iter(|| simulation.run(black_box(steps as u64), &mut [], &mut []).unwrap());
        });
    }
    group.finish();
}

criterion_group!(benches, chains, voices, membrane, schemes);
criterion_main!(benches);
