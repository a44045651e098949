//! `hooke bench --gpu`: the GPU kernels of `hooke-gpu` on the benchmark string's voices
//! (`--string N --voices V`; symplectic Euler on the stencil, any other scheme mode by mode) or
//! membrane (`--membrane WxH`), timed as `hooke bench` times the CPU (same elements, same
//! 48 kHz step, same output lines), after a line naming the adapter.

use crate::bench::BenchArgs;

/// Without the `gpu` feature: says how to build with it.
#[cfg(not(feature = "gpu"))]
pub fn bench_gpu(_: &BenchArgs) -> miette::Result<()> {
    Err(miette::miette!(
        "--gpu: this hooke was built without the GPU backend; build it with \
         `cargo build --release -p hooke-cli --features gpu`"
    ))
}

/// Times the GPU kernel for `args` (in f64 where the device has it, unless `--f32`) and prints
/// the adapter, the real-time factor at 48 kHz and, as the last line, `<number> mass-steps/s`.
#[cfg(feature = "gpu")]
pub fn bench_gpu(args: &BenchArgs) -> miette::Result<()> {
    use hooke::scheme::SchemeKind;
    use hooke_gpu::GpuContext;

    let symplectic_euler = args.scheme == SchemeKind::SymplecticEuler;
    if args.model.is_some() || args.general || (args.membrane.is_some() && !symplectic_euler) {
        return Err(miette::miette!(
            "--gpu times the string's voices (--string N --voices V, any linear scheme) and the \
             symplectic Euler membrane (--membrane WxH) only"
        ));
    }
    let context = GpuContext::new().map_err(gpu_error)?;
    println!("adapter: {}", context.describe());
    if context.is_cpu() {
        println!("(a CPU driver: these figures say nothing about a GPU's speed)");
    }
    if !args.f32 && context.has_f64() {
        time::<f64>(&context, args, "f64")
    } else {
        time::<f32>(&context, args, "f32")
    }
}

/// A GPU error as the flag's.
#[cfg(feature = "gpu")]
fn gpu_error(error: hooke_gpu::GpuError) -> miette::Report {
    miette::miette!("--gpu: {error}")
}

/// Times the kernel for `args` in `T` (named `real`) on `context`, and prints the figures.
#[cfg(feature = "gpu")]
fn time<T: hooke_gpu::GpuReal>(
    context: &hooke_gpu::GpuContext,
    args: &BenchArgs,
    real: &str,
) -> miette::Result<()> {
    use crate::bench::{
        benchmark_chain, measure, parse_size, real_time_line, DAMPING, DISPLACEMENT, MASS, RATE, STIFFNESS,
    };
    use hooke::kernel::chain::Tap;
    use hooke::kernel::grid::UniformGrid;
    use hooke::quantity::Quantity;
    use hooke_gpu::{GpuMembrane, GpuVoices};

    let gpu = gpu_error;
    let dt = 1.0 / RATE;
    let (masses, steps_per_second, path) = if let Some(size) = &args.membrane {
        let (columns, rows) = parse_size(size)?;
        let grid = UniformGrid {
            columns,
            rows,
            mass: MASS,
            stiffness_x: STIFFNESS,
            stiffness_y: STIFFNESS,
            damping_x: DAMPING,
            damping_y: DAMPING,
            drag: 0.0,
            force: 0.0,
        };
        let centre = (rows / 2) * columns + columns / 2;
        let mut x = vec![0.0; columns * rows];
        x[centre] = DISPLACEMENT;
        let mut membrane = GpuMembrane::<T>::new(context, grid, dt, &x, &vec![0.0; x.len()]).map_err(gpu)?;
        if args.step_per_dispatch {
            membrane = membrane.blocking(false);
        }
        let taps = [Tap { mass: centre, quantity: Quantity::Position, weight: 1.0 }];
        let block = hooke_gpu::MEMBRANE_BLOCK;
        let chunk = (10_000_000 / (columns * rows)).clamp(1, 1 << 14).next_multiple_of(block);
        let mut record = vec![0.0; chunk];
        let rate = measure(args.seconds, args.steps, chunk, |steps| {
            record[..steps].fill(0.0);
            membrane.advance(steps, &taps, &mut record).map_err(gpu)
        })?;
        let path = if membrane.is_blocking() {
            "GPU membrane, temporal blocking"
        } else {
            "GPU membrane, a step per dispatch"
        };
        (columns * rows, rate, path)
    } else {
        let n = args.string.unwrap_or(80);
        let voices = args.voices as usize;
        let chain = benchmark_chain(n);
        let pluck = |_| {
            let mut x = vec![0.0; n];
            x[n / 2] = DISPLACEMENT;
            (x, vec![0.0; n])
        };
        let mut bank =
            GpuVoices::<T>::for_scheme(context, chain, args.scheme, dt, voices, pluck).map_err(gpu)?;
        let chunk = bank.block();
        let mut record = vec![T::default(); chunk * voices];
        let rate = measure(args.seconds, args.steps, chunk, |steps| {
            bank.advance(steps, &[(n / 2, Quantity::Position)], &mut record).map_err(gpu)
        })?;
        (n * voices, rate, if bank.is_modal() { "GPU voices, mode by mode" } else { "GPU voices" })
    };
    println!("{masses} masses, {}, {path}, {}, {real}", args.scheme, context.adapter_name());
    println!("{}", real_time_line(steps_per_second, RATE));
    println!("{:.4e} mass-steps/s", steps_per_second * masses as f64);
    Ok(())
}
