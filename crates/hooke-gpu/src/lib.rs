//! Hooke's GPU backend: the uniform string and membrane kernels of [`hooke::kernel`] as WGSL
//! compute shaders on wgpu (Vulkan: NVIDIA, AMD and Intel GPUs, and Mesa's CPU driver lavapipe,
//! on which the tests run without a GPU).
//!
//! The stencils are symplectic Euler (Morgan & Qiao 2009, eq. (26)) with the arithmetic of the
//! CPU kernels in the same order, each multiply-add a WGSL `fma`, in f32 or, where the device
//! has 64-bit floats and integers in shaders, f64 ([`GpuReal`]). On a device whose `fma` is
//! fused the results equal the CPU kernels' of the same precision (on an H100 the f64 stencils
//! equalled the CPU's bit for bit); Vulkan lets a driver round `fma` twice (lavapipe does), and then they differ by
//! about one rounding per step (in f32, 1e-5 of the peak after 1000 steps of a string; see
//! `tests/parity.rs`).
//!
//! - [`GpuVoices`]: many voices of one uniform string ([`hooke::kernel::chain`]), one
//!   workgroup per voice with the string in workgroup memory across all the steps of a block,
//!   the pickup recorded on the device; [`GpuVoices::modal`] runs them with any other linear
//!   scheme (the structure-preserving ones of Chatziioannou 2019 included) mode by mode, as
//!   [`hooke::kernel::modal`] does on the CPU;
//! - [`GpuMembrane`]: the membrane's five-point stencil ([`hooke::kernel::grid`]) on device
//!   buffers, many steps per submission, taps recorded on the device.
//!
//! [`GpuDevice`] puts them behind the engine's choice of path: `hooke::engine::Engine::
//! with_device` runs a model on the GPU when it is a uniform string (any linear scheme) or a
//! uniform membrane (symplectic Euler).
//!
//! Pickups are read back once per block, and a block that produced a non-finite value is
//! reported as [`GpuError::NonFinite`] with the step and mass, as the CPU kernels do.

mod context;
mod device;
mod membrane;
mod modes;
mod real;
mod voices;

pub use context::GpuContext;
pub use device::GpuDevice;
pub use membrane::{GpuMembrane, BLOCK as MEMBRANE_BLOCK, DEPTH as MEMBRANE_DEPTH};
pub use real::GpuReal;
pub use voices::GpuVoices;

/// What can go wrong on the GPU path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// wgpu found no adapter: no GPU driver, or none this build can use.
    #[error("no GPU adapter (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers): {0}")]
    NoAdapter(String),
    /// The device could not be created, was lost, or a transfer failed.
    #[error("the GPU device failed: {0}")]
    Device(String),
    /// A shader or pipeline was refused by wgpu's validation (a bug, or a driver limit).
    #[error("a GPU shader was refused: {0}")]
    Shader(String),
    /// A size is out of range: zero voices or masses, a string longer than workgroup memory
    /// holds, a buffer larger than the device allows, a record too short.
    #[error("{0}")]
    Size(String),
    /// A mass's position became NaN or infinite: the step is unstable (e.g. `omega h > 2`).
    #[error(
        "the simulation became unstable: mass {mass}{} is not finite after step {step} of this \
         call (0-based); the state is kept after {kept} steps",
        voice.map(|voice| format!(" of voice {voice}")).unwrap_or_default()
    )]
    NonFinite {
        /// The offending step's index in the `advance` call (the steps before it are recorded).
        step: usize,
        /// The voice (for [`GpuVoices`]; the lowest voice with the earliest failure).
        voice: Option<usize>,
        /// The mass (0-based; row-major `j W + i` on a membrane), the lowest at that step.
        mass: usize,
        /// Steps of the call whose state the kernel kept: it resumes from there.
        kept: usize,
    },
}
