//! The floating-point types the kernels run in.

use std::ops::{Add, Mul, Sub};

/// `f64` or `f32`: kernels are generic over their working precision.
pub trait Real:
    Copy
    + Default
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + 'static
{
    /// Converts from f64 (rounding for f32).
    fn from_f64(value: f64) -> Self;
    /// Converts to f64.
    fn to_f64(self) -> f64;
    /// Whether the value is neither NaN nor infinite.
    fn is_finite(self) -> bool;
    /// `self * a + b` with one rounding (a fused multiply-add instruction where the CPU has one);
    /// on wasm32, which has no such instruction (its `mul_add` is a software routine, about 40
    /// times slower in the kernels), a product then a sum, with two roundings.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Real for f64 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        if cfg!(target_arch = "wasm32") {
            self * a + b
        } else {
            f64::mul_add(self, a, b)
        }
    }
}

impl Real for f32 {
    #[inline(always)]
    fn from_f64(value: f64) -> Self {
        value as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        if cfg!(target_arch = "wasm32") {
            self * a + b
        } else {
            f32::mul_add(self, a, b)
        }
    }
}
