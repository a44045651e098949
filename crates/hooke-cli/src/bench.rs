//! `hooke bench`: mass-steps per second on Faust mi.lib's benchmark string, a membrane or any
//! model file, through the engine (which picks the kernel where one applies); `--voices` times
//! many copies of the string at once: through the engine (the modal kernel takes them as
//! bodies side by side), or with symplectic Euler in f32 or `--no-modal` the voice bank kernel
//! itself, which the engine does not drive.

use crate::load::{load_run, read_model, StepArgs};
use clap::Args;
use hooke::engine::{Engine, EngineConfig, PickupSpec, Pickups, Precision};
use hooke::kernel::chain::UniformChain;
use hooke::kernel::voices::VoiceBank;
use hooke::kernel::Real;
use hooke::model::{MembraneSpec, Model, StringSpec};
use hooke::scheme::SchemeKind;
use hooke::system::System;
use miette::miette;
use std::path::PathBuf;
use std::time::Instant;

/// The string the Faust peer (scripts/faust-peer) times: masses of 1 g, spring-dampers of
/// 230400 N/m and 4.8e-3 N s/m, 48 kHz (K h^2 / M = 0.1, Z h / M = 1e-4), mass N / 2 displaced
/// by 1 mm and listened to.
pub(crate) const MASS: f64 = 1e-3;
pub(crate) const STIFFNESS: f64 = 230_400.0;
pub(crate) const DAMPING: f64 = 4.8e-3;
pub(crate) const RATE: f64 = 48_000.0;
pub(crate) const DISPLACEMENT: f64 = 1e-3;

/// The benchmark string of `masses` masses as a uniform chain, at rest between anchors at 0.
pub(crate) fn benchmark_chain(masses: usize) -> UniformChain {
    UniformChain {
        masses,
        mass: MASS,
        stiffness: STIFFNESS,
        damping: DAMPING,
        drag: 0.0,
        force: 0.0,
        left: 0.0,
        right: 0.0,
    }
}

/// Arguments of `hooke bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Time a string of N masses (the Faust peer's string).
    #[arg(long, conflicts_with_all = ["membrane", "model", "play"])]
    pub string: Option<usize>,
    /// Count how many copies of this instrument, every string ringing, `hooke play` renders in
    /// real time on one core with each --buffers size, at --rate, with --scheme; each trial
    /// plays --seconds of sound.
    #[arg(long, conflicts_with_all = ["membrane", "model"])]
    pub play: Option<PathBuf>,
    /// With --play: frames per audio callback, a comma-separated list.
    #[arg(long, value_delimiter = ',', default_value = "64,128,256", value_parser = clap::value_parser!(u64).range(16..=8192))]
    pub buffers: Vec<u64>,
    /// With --play: the output rate, Hz.
    #[arg(long, default_value_t = 48_000, value_parser = clap::value_parser!(u32).range(1000..=384_000))]
    pub rate: u32,
    /// Time a W x H membrane of the same elements, fixed rim (e.g. 1000x1000), on the membrane
    /// kernel.
    #[arg(long, conflicts_with = "model")]
    pub membrane: Option<String>,
    /// Time a model file (with its own step).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Integrator.
    #[arg(long, default_value = "symplectic-euler", value_parser = crate::load::parse_scheme)]
    pub scheme: SchemeKind,
    /// Threads for the string kernel's tiles.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Run the string kernel (or with --gpu, the GPU's kernels) in 32-bit floats.
    #[arg(long)]
    pub f32: bool,
    /// Run this many voices of the string at once, heard together (counts mass-steps over all
    /// voices).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub voices: u64,
    /// Wall-clock seconds to measure for (after a warm-up of a tenth of that); with --play,
    /// seconds of sound per trial.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Use the general path (edge lists) even where a kernel applies, to compare the two.
    #[arg(long)]
    pub general: bool,
    /// Keep uniform strings and membranes off the modal kernel (symplectic Euler on its
    /// stencils and the string bank, other schemes on the general path), to compare.
    #[arg(long)]
    pub no_modal: bool,
    /// Run on the GPU (f64 where it has 64-bit floats, or with --f32): the string's voices
    /// (symplectic Euler on the stencil, any other linear scheme mode by mode) or the
    /// symplectic Euler membrane.
    #[arg(long, conflicts_with = "play")]
    pub gpu: bool,
    /// With --gpu --membrane: a step per dispatch instead of temporal blocking, to compare.
    #[arg(long, requires = "gpu", requires = "membrane")]
    pub step_per_dispatch: bool,
    /// Run exactly this many steps instead, without warm-up (for instruction counts under
    /// `valgrind --tool=callgrind`, which are repeatable where times are not).
    #[arg(long)]
    pub steps: Option<usize>,
}

/// Times the chosen model and prints the real-time factor at the model's own step rate (the
/// file's for `--model`, 48 kHz for the benchmark string and membrane) and, as the last line,
/// `<number> mass-steps/s`. Subnormals are flushed to zero, as in the Faust peer's benchmark (a
/// long run of a damped string reaches them).
pub fn bench(args: &BenchArgs) -> miette::Result<()> {
    if let Some(path) = &args.play {
        let buffers: Vec<usize> = args.buffers.iter().map(|&b| b as usize).collect();
        return crate::bench_play::bench_play(
            path,
            args.scheme,
            f64::from(args.rate),
            &buffers,
            args.seconds,
        );
    }
    if args.gpu {
        return crate::bench_gpu::bench_gpu(args);
    }
    hooke::kernel::flush_subnormals_to_zero();
    let mut step_rate = RATE;
    let (masses, steps_per_second, path) = match (&args.model, &args.membrane, args.string) {
        (Some(path), _, _) => {
            let source = read_model(path)?;
            let loaded =
                load_run(&source, &path.display().to_string(), Some(args.scheme), &StepArgs::default())?;
            let system = System::new(&loaded.file.model);
            step_rate = loaded.settings.step.hertz();
            time_engine(system, loaded.file.pickups, args, loaded.settings.step.seconds())?
        }
        (None, Some(size), _) => {
            let (columns, rows) = parse_size(size)?;
            let mut model = Model::new(1).map_err(|e| miette!("{e}"))?;
            let spec = MembraneSpec::new("m", columns, rows).mass(MASS).stiffness(STIFFNESS).damping(DAMPING);
            model.add_membrane(spec).map_err(|e| miette!("{e}"))?;
            let centre = (rows / 2) * columns + columns / 2;
            model.set_initial_position(centre, &[DISPLACEMENT]).map_err(|e| miette!("{e}"))?;
            time_engine(System::new(&model), centre_pickup(&model, centre)?, args, 1.0 / RATE)?
        }
        (None, None, string) => {
            let n = string.unwrap_or(80);
            if n == 0 {
                return Err(miette!("--string: expected at least 1 mass, found 0"));
            }
            let voice_bank = args.scheme == SchemeKind::SymplecticEuler && (args.f32 || args.no_modal);
            if args.voices > 1 && voice_bank && !args.general {
                let chain = benchmark_chain(n);
                let voices = args.voices as usize;
                let rate = if args.f32 {
                    time_voices::<f32>(chain, voices, args)
                } else {
                    time_voices::<f64>(chain, voices, args)
                };
                (n * voices, rate, "voice bank")
            } else {
                // One string per voice, all heard at their centres on one channel (a mix).
                let mut model = Model::new(1).map_err(|e| miette!("{e}"))?;
                let voices = args.voices as usize;
                let mut pickups = Vec::with_capacity(voices);
                for voice in 0..voices {
                    let id = if voices == 1 { "s".to_string() } else { format!("v{voice}") };
                    let string = StringSpec::new(&id, n).mass(MASS).stiffness(STIFFNESS).damping(DAMPING);
                    model.add_string(string).map_err(|e| miette!("{e}"))?;
                    let centre = voice * n + n / 2;
                    model.set_initial_position(centre, &[DISPLACEMENT]).map_err(|e| miette!("{e}"))?;
                    pickups.push(PickupSpec::position(model.masses()[centre].id.as_str()));
                }
                let pickups = Pickups::new(&pickups, &model).map_err(|e| miette!("{e}"))?;
                time_engine(System::new(&model), pickups, args, 1.0 / RATE)?
            }
        }
    };
    let precision = if args.f32 && path != "general" { "f32" } else { "f64" };
    println!("{masses} masses, {}, {path}, {} thread(s), {precision}", args.scheme, args.threads);
    println!("{}", real_time_line(steps_per_second, step_rate));
    println!("{:.4e} mass-steps/s", steps_per_second * masses as f64);
    Ok(())
}

/// `real-time factor at RATE Hz: F`: steps per second over the steps a second of the model
/// takes at its own rate `step_rate` (Hz), so that 1 is exactly real time for that model.
pub(crate) fn real_time_line(steps_per_second: f64, step_rate: f64) -> String {
    let rate = format!("{step_rate:.3}");
    let rate = rate.trim_end_matches('0').trim_end_matches('.');
    format!("real-time factor at {rate} Hz: {:.2}", steps_per_second / step_rate)
}

pub(crate) fn parse_size(text: &str) -> miette::Result<(usize, usize)> {
    let parse = |s: &str| s.trim().parse::<usize>().ok().filter(|&n| n > 0);
    text.split_once(['x', 'X']).and_then(|(w, h)| Some((parse(w)?, parse(h)?))).ok_or_else(|| {
        miette!("--membrane: expected WxH with positive whole numbers (e.g. 100x100), found \"{text}\"")
    })
}

/// Runs `run(steps)` in chunks until `seconds` have passed (after a tenth of that as warm-up), or
/// for exactly `fixed` steps, and returns steps per second.
pub(crate) fn measure(
    seconds: f64,
    fixed: Option<usize>,
    chunk: usize,
    mut run: impl FnMut(usize) -> miette::Result<()>,
) -> miette::Result<f64> {
    if let Some(total) = fixed {
        let started = Instant::now();
        let mut done = 0;
        while done < total {
            let steps = chunk.min(total - done);
            run(steps)?;
            done += steps;
        }
        return Ok(total as f64 / started.elapsed().as_secs_f64().max(1e-9));
    }
    let mut timed = |limit: f64| -> miette::Result<(usize, f64)> {
        let started = Instant::now();
        let mut steps = 0;
        while started.elapsed().as_secs_f64() < limit {
            run(chunk)?;
            steps += chunk;
        }
        Ok((steps, started.elapsed().as_secs_f64()))
    };
    timed(seconds / 10.0)?;
    let (steps, wall) = timed(seconds)?;
    Ok(steps as f64 / wall)
}

/// One channel listening to the position of mass `mass`.
fn centre_pickup(model: &Model, mass: usize) -> miette::Result<Pickups> {
    let spec = PickupSpec::position(model.masses()[mass].id.as_str());
    Pickups::new(&[spec], model).map_err(|e| miette!("{e}"))
}

/// Steps per second of a bank of `voices` strings.
fn time_voices<T: Real>(chain: UniformChain, voices: usize, args: &BenchArgs) -> f64 {
    let n = chain.masses;
    let mut bank = VoiceBank::<T>::new(chain, 1.0 / RATE, voices, |_| {
        let mut x = vec![0.0; n];
        x[n / 2] = DISPLACEMENT;
        (x, vec![0.0; n])
    });
    let chunk = (10_000_000 / (n * voices)).clamp(256, 1 << 20);
    let mut record = vec![0.0; chunk * voices];
    measure(args.seconds, args.steps, chunk, |steps| {
        bank.advance(steps, n / 2, &mut record);
        Ok(())
    })
    .unwrap_or(0.0)
}

/// Steps per second of the engine (the kernel where one applies, else the general path).
fn time_engine(
    system: System,
    pickups: Pickups,
    args: &BenchArgs,
    dt: f64,
) -> miette::Result<(usize, f64, &'static str)> {
    let masses = system.mass_count();
    let mut channels = vec![Vec::new(); pickups.channel_count()];
    let config = EngineConfig {
        scheme: args.scheme,
        precision: if args.f32 { Precision::F32 } else { Precision::F64 },
        threads: args.threads as usize,
        kernels: !args.general,
        modal: !args.no_modal,
        ..EngineConfig::default()
    }
    .dt(dt);
    let mut engine = Engine::from_system(system, pickups, config).map_err(|e| miette!("{e}"))?;
    let path = engine.path().name();
    let chunk = (10_000_000 / masses.max(1)).clamp(16, 1 << 20);
    let rate = measure(args.seconds, args.steps, chunk, |steps| {
        channels.iter_mut().for_each(Vec::clear);
        engine.advance(steps as u64, &mut channels).map(|_| ()).map_err(|e| miette!("{e}"))
    })?;
    Ok((masses, rate, path))
}

#[cfg(test)]
mod tests {
    use super::real_time_line;

    #[test]
    fn the_real_time_factor_is_at_the_models_own_rate() {
        // 50000 steps/s of a 1000 Hz model is 50 times real time, not 50000 / 44100.
        assert_eq!(real_time_line(50_000.0, 1000.0), "real-time factor at 1000 Hz: 50.00");
        assert_eq!(real_time_line(96_000.0, 48_000.0), "real-time factor at 48000 Hz: 2.00");
        assert_eq!(real_time_line(1000.0, 3333.3333333), "real-time factor at 3333.333 Hz: 0.30");
    }
}
