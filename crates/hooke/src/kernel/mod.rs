//! Fast paths: models compiled to kernels that fit their structure.
//!
//! A uniform string (a 1D chain of equal masses joined by equal spring-dampers between two
//! anchors) needs no index lists: its symplectic Euler step is a three-point stencil
//! ([`chain`]). The kernel runs blocks of many steps at a time over cache-sized tiles (temporal
//! blocking), records pickups inside the loop, and runs tiles on several threads with results
//! identical to one thread. Small strings, which are latency-bound, run many voices at once with
//! the voices in the vector lanes ([`voices`]). Everything else runs through the general path
//! ([`crate::forces`] over edge lists).

pub mod chain;
pub mod coupled;
pub mod grid;
pub mod modal;
mod real;
pub mod strings;
pub mod voices;

pub use real::Real;

/// Calls `run` compiled for the best instruction set the CPU has: AVX-512, AVX2 with FMA, or
/// the portable baseline. `run` is inlined into each variant, so the loops in it are vectorised
/// (and their multiply-adds fused) for that instruction set.
#[inline(always)]
pub(crate) fn with_best_instructions<R>(run: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
        unsafe fn avx512<R>(run: impl FnOnce() -> R) -> R {
            run()
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<R>(run: impl FnOnce() -> R) -> R {
            run()
        }
        if has_wide_registers() {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            return unsafe { avx512(run) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { avx2(run) };
        }
    }
    run()
}

/// Whether the CPU has AVX-512's 32 wide vector registers: loops that keep many lane groups'
/// state in registers take fewer groups at once where it has not (AVX2's 16 registers of 4
/// lanes spill them to the stack).
pub(crate) fn has_wide_registers() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Makes this thread flush subnormal floats to zero (x86 MXCSR FTZ and DAZ), as audio code and
/// the Faust peer's benchmark do: a decaying string otherwise spends most of its time on
/// subnormal arithmetic once its amplitude falls below about 1e-38 (f32) or 1e-308 (f64).
/// Values that small are lost (set to zero); nothing else changes. No effect off x86-64.
pub fn flush_subnormals_to_zero() {
    #[cfg(target_arch = "x86_64")]
    {
        const FLUSH_TO_ZERO: u32 = 1 << 15;
        const DENORMALS_ARE_ZERO: u32 = 1 << 6;
        let mut csr: u32 = 0;
        // SAFETY: reading and writing MXCSR only changes this thread's rounding of subnormals;
        // the pointer is to a local u32.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack));
            csr |= FLUSH_TO_ZERO | DENORMALS_ARE_ZERO;
            std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack));
        }
    }
}
