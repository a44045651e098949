//! What the GPU tests share: the adapter (or a skip that says why) and the comparison with the
//! CPU within f32 rounding (see `parity.rs` for the tolerance's derivation).

use hooke_gpu::{GpuContext, GpuError};

/// Relative tolerance (of the peak magnitude), derived in `parity.rs`'s module doc.
pub const TOLERANCE: f64 = 1e-4;

/// The adapter's context, or `None` after printing why the test is skipped.
pub fn context() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(context) => {
            println!("adapter: {}", context.describe());
            Some(context)
        }
        Err(error @ GpuError::NoAdapter(_)) => {
            println!("SKIPPED: {error}");
            None
        }
        Err(error) => panic!("an adapter exists but its device failed: {error}"),
    }
}

/// Relative tolerance (of the peak magnitude) of the f64 kernels: f64 rounding is 2^-29 of
/// f32's, so the f32 runs' 2.3e-5 of the peak after 1000 steps scales to about 4e-14; this
/// leaves 250 times that, and an f32 run (1e-5) fails it by far.
pub const F64_TOLERANCE: f64 = 1e-11;

/// The adapter's context if its shaders have f64, or `None` after printing why the test is
/// skipped.
pub fn f64_context() -> Option<GpuContext> {
    let context = context()?;
    if context.has_f64() {
        Some(context)
    } else {
        println!("SKIPPED: {} has no f64 in shaders", context.adapter_name());
        None
    }
}

/// Asserts `gpu` equals `cpu` within [`TOLERANCE`] of `cpu`'s peak, which must be non-zero; a
/// NaN on one side only fails.
pub fn assert_close(what: &str, gpu: &[f64], cpu: &[f64]) {
    assert_within(what, gpu, cpu, TOLERANCE);
}

/// Asserts `gpu` equals `cpu` within `tolerance` of `cpu`'s peak, as [`assert_close`] does.
pub fn assert_within(what: &str, gpu: &[f64], cpu: &[f64], tolerance: f64) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths");
    let peak = cpu.iter().fold(0.0f64, |peak, value| peak.max(value.abs()));
    assert!(peak > 0.0, "{what}: the CPU run does not move, so it checks nothing");
    let (index, error) = gpu
        .iter()
        .zip(cpu)
        // A NaN on either side is a difference too (it compares false with any tolerance).
        .map(|(g, c)| if g.is_nan() != c.is_nan() { f64::INFINITY } else { (g - c).abs() })
        .enumerate()
        .fold((0, 0.0f64), |worst, (i, e)| if e > worst.1 { (i, e) } else { worst });
    println!(
        "{what}: largest difference {error:.3e} at {index}, {:.3e} of the peak {peak:.3e}",
        error / peak
    );
    assert!(error <= tolerance * peak, "{what}: GPU {} vs CPU {} at {index}", gpu[index], cpu[index]);
}
