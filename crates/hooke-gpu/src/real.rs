//! The floating-point type of a kernel's state, coefficients and record on the device: `f32` on
//! every device, `f64` where the device has 64-bit floats and integers in shaders
//! ([`crate::GpuContext::has_f64`]; the integers test an `f64` for finiteness by its bits).
//! Each shader starts with [`GpuReal::prelude`], which names the type `real`.

use crate::{GpuContext, GpuError};

/// `f32` or `f64` on the device.
pub trait GpuReal: bytemuck::Pod + Default + std::fmt::Debug + Send + Sync + 'static {
    /// Bytes of one value.
    const SIZE: usize = std::mem::size_of::<Self>();
    /// The WGSL source every shader of this type starts with: `alias real` and
    /// `is_finite(value: real) -> bool`, by the exponent's bits (all ones: infinite or NaN),
    /// which no driver's floating-point shortcuts can change.
    const PRELUDE: &'static str;

    /// The value nearest `value`.
    fn from_f64(value: f64) -> Self;

    /// The value as an `f64` (exact).
    fn to_f64(self) -> f64;

    /// The prelude, or an error if `context`'s device cannot run this type.
    fn prelude(_context: &GpuContext) -> Result<&'static str, GpuError> {
        Ok(Self::PRELUDE)
    }
}

impl GpuReal for f32 {
    const PRELUDE: &'static str = "alias real = f32;

fn is_finite(value: real) -> bool {
    return (bitcast<u32>(value) & 0x7f800000u) != 0x7f800000u;
}

";

    fn from_f64(value: f64) -> Self {
        value as f32
    }

    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl GpuReal for f64 {
    const PRELUDE: &'static str = "alias real = f64;

fn is_finite(value: real) -> bool {
    return (bitcast<u64>(value) & 0x7ff0000000000000lu) != 0x7ff0000000000000lu;
}

";

    fn from_f64(value: f64) -> Self {
        value
    }

    fn to_f64(self) -> f64 {
        self
    }

    fn prelude(context: &GpuContext) -> Result<&'static str, GpuError> {
        if context.has_f64() {
            Ok(Self::PRELUDE)
        } else {
            Err(GpuError::Size(format!(
                "{} has no 64-bit floats or integers in shaders: run in f32",
                context.adapter_name()
            )))
        }
    }
}

/// `values` as bytes of `T`.
pub(crate) fn to_bytes<T: GpuReal>(values: impl IntoIterator<Item = f64>) -> Vec<u8> {
    let values: Vec<T> = values.into_iter().map(T::from_f64).collect();
    bytemuck::cast_slice(&values).to_vec()
}

/// The values of `T` in `bytes` (whose length is a multiple of `T::SIZE`), as `f64`.
pub(crate) fn from_bytes<T: GpuReal>(bytes: &[u8]) -> impl Iterator<Item = f64> + '_ {
    bytes.chunks_exact(T::SIZE).map(|chunk| bytemuck::pod_read_unaligned::<T>(chunk).to_f64())
}
