//! `--device cpu|gpu` of `hooke run` and `hooke render`: the device the engine is given
//! (`hooke::engine::Engine::with_device`); the GPU needs the `gpu` feature and a Vulkan driver.

use hooke::engine::Device;
use std::sync::Arc;

/// Where the engine runs.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The CPU's paths (kernels and the general path).
    #[default]
    Cpu,
    /// The GPU (crates/hooke-gpu): uniform strings with any linear scheme (symplectic Euler on
    /// the stencil, the others mode by mode), uniform membranes with symplectic Euler; f64 where
    /// the GPU has it, else f32.
    Gpu,
}

impl DeviceChoice {
    /// The device to give the engine: none for the CPU; the GPU, or an error naming the flag
    /// when this build has no GPU backend or the machine no adapter.
    pub fn device(self) -> miette::Result<Option<Arc<dyn Device>>> {
        match self {
            Self::Cpu => Ok(None),
            Self::Gpu => gpu().map(Some),
        }
    }
}

#[cfg(feature = "gpu")]
fn gpu() -> miette::Result<Arc<dyn Device>> {
    let device = hooke_gpu::GpuDevice::new().map_err(|e| miette::miette!("--device gpu: {e}"))?;
    eprintln!("device: {}", hooke::engine::Device::name(&device));
    Ok(Arc::new(device))
}

#[cfg(not(feature = "gpu"))]
fn gpu() -> miette::Result<Arc<dyn Device>> {
    Err(miette::miette!(
        "--device gpu: this hooke was built without the GPU backend; build it with \
         `cargo build --release -p hooke-cli --features gpu`"
    ))
}
