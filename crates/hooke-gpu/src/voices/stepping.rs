//! How voices are stepped, and what each way puts on the device and reads back: symplectic
//! Euler on the chain's stencil (`voices.wgsl`), the state being the masses'; or any linear
//! scheme mode by mode (`modal.wgsl`, [`crate::modes`]), the state being the modal amplitudes.

use super::{MAX_WORKGROUP, VELOCITY};
use crate::modes::{ChainModes, COEFFICIENTS};
use crate::real::{to_bytes, GpuReal};
use crate::{GpuContext, GpuError};
use hooke::kernel::chain::UniformChain;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;

/// Modes per invocation of the modal voices at most (each holds its modes' state and
/// coefficients in registers).
const MAX_MODES_PER_LANE: usize = 8;
/// Steps whose sums the modal voices keep in workgroup memory at most before adding them up.
const MAX_CHUNK: usize = 32;

/// How the voices are stepped.
#[derive(Debug)]
pub(super) enum Stepping {
    /// Symplectic Euler on the chain's stencil.
    Stencil,
    /// A linear scheme mode by mode, with the modes' coefficients on the device.
    Modal { modes: ChainModes, coefficients: wgpu::Buffer },
}

/// A shader's source, and the bindings its bind groups hold beyond the eight all voices share.
pub(super) type Shader<'a> = (String, Vec<(u32, &'a wgpu::Buffer)>);

impl Stepping {
    /// The stencil, if a chain of `masses` masses of `T` fits in workgroup memory (two time
    /// levels of positions and velocities with the anchors).
    pub(super) fn stencil<T: GpuReal>(context: &GpuContext, masses: usize) -> Result<Self, GpuError> {
        let shared = context.limits().max_compute_workgroup_storage_size as usize;
        if 4 * T::SIZE * (masses + 2) > shared {
            return Err(GpuError::Size(format!(
                "a string of {masses} masses does not fit in this GPU's workgroup memory ({shared} bytes hold at most {} masses)",
                shared / (4 * T::SIZE) - 2
            )));
        }
        Ok(Self::Stencil)
    }

    /// `scheme`'s step `dt` (s) on the modes of `chain`, in `T`.
    pub(super) fn modal<T: GpuReal>(
        context: &GpuContext,
        chain: &UniformChain,
        scheme: SchemeKind,
        dt: f64,
    ) -> Result<Self, GpuError> {
        let n = chain.masses;
        let most = MAX_MODES_PER_LANE * modal_workgroup(context, n);
        if n == 0 || n > most {
            return Err(GpuError::Size(format!("the GPU's modal voices take 1 to {most} masses (got {n})")));
        }
        let modes = ChainModes::new(chain, scheme, dt)?;
        let coefficients = context.storage("hooke modal coefficients", (T::SIZE * COEFFICIENTS * n) as u64);
        context.queue.write_buffer(&coefficients, 0, &to_bytes::<T>(modes.coefficients().iter().copied()));
        Ok(Self::Modal { modes, coefficients })
    }

    /// The state on the device (bytes of `T`) of the masses' `values` (positions, m, or
    /// velocities, m/s).
    pub(super) fn to_device<T: GpuReal>(&self, values: &[f64]) -> Vec<u8> {
        match self {
            Self::Stencil => to_bytes::<T>(values.iter().copied()),
            Self::Modal { modes, .. } => to_bytes::<T>(modes.to_modes(values)),
        }
    }

    /// The masses' values of the state on the device.
    pub(super) fn to_masses(&self, values: Vec<f64>) -> Vec<f64> {
        match self {
            Self::Stencil => values,
            Self::Modal { modes, .. } => modes.to_masses(&values),
        }
    }

    /// The mass named by a non-finite value's index in a voice's state (a mass, or a mode).
    pub(super) fn mass_of(&self, index: usize) -> usize {
        match self {
            Self::Stencil => index,
            Self::Modal { modes, .. } => modes.first_mass(index),
        }
    }

    /// The taps as the shader reads them: each tap's mass and quantity flag (a `u32`), or each
    /// tap's weights on the modes (`T`, `capacity` taps' worth).
    pub(super) fn encode<T: GpuReal>(&self, taps: &[(usize, Quantity)], capacity: usize) -> Vec<u8> {
        match self {
            Self::Stencil => {
                let flag = |quantity| if quantity == Quantity::Velocity { VELOCITY } else { 0 };
                taps.iter()
                    .flat_map(|&(mass, quantity)| (mass as u32 | flag(quantity)).to_le_bytes())
                    .collect()
            }
            Self::Modal { modes, .. } => to_bytes::<T>(modes.weights(taps, capacity)),
        }
    }

    /// The bytes of `capacity` taps as [`Stepping::encode`] writes them.
    pub(super) fn tap_bytes<T: GpuReal>(&self, capacity: usize) -> usize {
        match self {
            Self::Stencil => 4 * capacity,
            Self::Modal { modes, .. } => T::SIZE * 2 * capacity * modes.len(),
        }
    }

    /// The shader's source in `T` for `masses` masses and up to `capacity` taps, and its extra
    /// bindings beyond the shared eight.
    pub(super) fn shader<T: GpuReal>(
        &self,
        context: &GpuContext,
        masses: usize,
        capacity: usize,
    ) -> Result<Shader<'_>, GpuError> {
        let head = T::prelude(context)?.to_owned() + include_str!("../voice_bindings.wgsl");
        match self {
            Self::Stencil => {
                let lanes = context.limits().max_compute_invocations_per_workgroup as usize;
                let workgroup = masses.next_multiple_of(32).min(MAX_WORKGROUP).min(lanes);
                let source = (head + include_str!("../voices.wgsl"))
                    .replace("{MASSES}", &masses.to_string())
                    .replace("{WORKGROUP}", &workgroup.to_string());
                Ok((source, Vec::new()))
            }
            Self::Modal { coefficients, .. } => {
                let workgroup = modal_workgroup(context, masses);
                let shared = context.limits().max_compute_workgroup_storage_size as usize;
                // The sums take (CHUNK x capacity + 1) values per invocation.
                let chunk = ((shared / (T::SIZE * workgroup)).saturating_sub(1) / capacity).min(MAX_CHUNK);
                if chunk == 0 {
                    return Err(GpuError::Size(format!(
                        "{capacity} taps of the modal voices exceed this GPU's {shared} bytes of workgroup memory"
                    )));
                }
                let source = (head + include_str!("../modal.wgsl"))
                    .replace("{MODES}", &masses.to_string())
                    .replace("{WORKGROUP}", &workgroup.to_string())
                    .replace("{PER_LANE}", &masses.div_ceil(workgroup).to_string())
                    .replace("{CAPACITY}", &capacity.to_string())
                    .replace("{CHUNK}", &chunk.to_string());
                Ok((source, vec![(8, coefficients)]))
            }
        }
    }
}

/// The modal voices' workgroup for `modes` modes: a multiple of 32 invocations, at most
/// [`MAX_WORKGROUP`] or the device's limit.
fn modal_workgroup(context: &GpuContext, modes: usize) -> usize {
    let lanes = context.limits().max_compute_invocations_per_workgroup as usize;
    modes.next_multiple_of(32).min(MAX_WORKGROUP).min(lanes)
}
