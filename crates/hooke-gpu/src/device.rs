//! The GPU as an engine device ([`hooke::engine::Device`]): `Engine::with_device(model,
//! pickups, config, Arc::new(GpuDevice::new()?))` runs a uniform string on [`GpuVoices`] (one
//! voice; a string longer than workgroup memory holds as a one-row [`GpuMembrane`]) and a
//! uniform membrane on [`GpuMembrane`], symplectic Euler, with the pickups recorded on the
//! device and the state read back after every call. Any other scheme runs on a uniform string
//! mode by mode ([`GpuVoices::modal`]). The engine's precision is kept where the device has it:
//! f64 needs 64-bit floats and integers in shaders ([`GpuContext::has_f64`]), else f32.

use crate::real::GpuReal;
use crate::{GpuContext, GpuError, GpuMembrane, GpuVoices};
use hooke::engine::{Device, DevicePath, DeviceRequest, Precision};
use hooke::kernel::chain::{Tap, UniformChain};
use hooke::kernel::grid::UniformGrid;
use hooke::quantity::Quantity;
use hooke::scheme::SchemeKind;
use hooke::system::State;

/// The GPU, as a device the engine offers its systems to.
#[derive(Debug, Clone)]
pub struct GpuDevice {
    context: GpuContext,
}

impl GpuDevice {
    /// The best GPU wgpu finds ([`GpuContext::new`]).
    pub fn new() -> Result<Self, GpuError> {
        Ok(Self { context: GpuContext::new()? })
    }

    /// The device on `context`.
    pub fn on(context: GpuContext) -> Self {
        Self { context }
    }
}

impl Device for GpuDevice {
    fn name(&self) -> String {
        format!("the GPU adapter {}", self.context.describe())
    }

    fn path(&self, request: &DeviceRequest<'_>) -> Result<Box<dyn DevicePath>, String> {
        if request.precision == Precision::F64 && self.context.has_f64() {
            self.path_in::<f64>(request)
        } else {
            self.path_in::<f32>(request)
        }
    }
}

impl GpuDevice {
    /// The path for `request` in `T`.
    fn path_in<T: GpuReal>(&self, request: &DeviceRequest<'_>) -> Result<Box<dyn DevicePath>, String> {
        let (state, scheme) = (request.state, request.scheme);
        let symplectic_euler = scheme == SchemeKind::SymplecticEuler;
        let chain = UniformChain::detect(request.system);
        if let Some(chain) = chain {
            let n = chain.masses;
            let initial = |_| (state.x[..n].to_vec(), state.v[..n].to_vec());
            match GpuVoices::<T>::for_scheme(&self.context, chain, scheme, request.dt, 1, initial) {
                Ok(voice) => return Ok(Box::new(ChainPath::new(voice, request.taps))),
                // Symplectic Euler on a string longer than workgroup memory holds: a one-row
                // membrane, if anchored at 0.
                Err(GpuError::Size(_)) if symplectic_euler && chain.left == 0.0 && chain.right == 0.0 => {}
                Err(error) => return Err(error.to_string()),
            }
        } else if !symplectic_euler {
            return Err(format!(
                "the GPU runs {} on uniform strings only (mode by mode); membranes and other models \
                 take symplectic Euler",
                scheme.name()
            ));
        }
        if let Some(grid) = UniformGrid::detect(request.system).or_else(|| chain.map(one_row)) {
            let n = grid.columns * grid.rows;
            let membrane =
                GpuMembrane::<T>::new(&self.context, grid, request.dt, &state.x[..n], &state.v[..n])
                    .map_err(|e| e.to_string())?;
            return Ok(Box::new(MembranePath { membrane, taps: request.taps.to_vec() }));
        }
        Err("the GPU runs uniform strings and membranes only (as the string and membrane generators \
             build them, with no contact, drive, held force or stopped mass)"
            .into())
    }
}

/// A chain anchored at 0 as a membrane of one row: no links along y, so each mass's update is
/// the chain's (the y terms add exact zeros).
fn one_row(chain: UniformChain) -> UniformGrid {
    UniformGrid {
        columns: chain.masses,
        rows: 1,
        mass: chain.mass,
        stiffness_x: chain.stiffness,
        stiffness_y: 0.0,
        damping_x: chain.damping,
        damping_y: 0.0,
        drag: chain.drag,
        force: chain.force,
    }
}

/// A string as one voice of [`GpuVoices`].
struct ChainPath<T: GpuReal> {
    voice: GpuVoices<T>,
    /// Each tap's mass and quantity.
    taps: Vec<(usize, Quantity)>,
    /// Each tap's weight.
    weights: Vec<f64>,
    /// The taps' raw values of a call, `steps x taps` (scratch).
    raw: Vec<T>,
}

impl<T: GpuReal> ChainPath<T> {
    fn new(voice: GpuVoices<T>, taps: &[Tap]) -> Self {
        Self {
            voice,
            taps: taps.iter().map(|tap| (tap.mass, tap.quantity)).collect(),
            weights: taps.iter().map(|tap| tap.weight).collect(),
            raw: Vec::new(),
        }
    }
}

/// The steps a call kept: all of them, or those before a non-finite value; other failures as
/// words.
fn kept(steps: usize, outcome: Result<(), GpuError>) -> Result<usize, String> {
    match outcome {
        Ok(()) => Ok(steps),
        Err(GpuError::NonFinite { kept, .. }) => Ok(kept),
        Err(error) => Err(error.to_string()),
    }
}

impl<T: GpuReal> DevicePath for ChainPath<T> {
    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<usize, String> {
        let taps = self.taps.len();
        self.raw.resize(steps * taps, T::default());
        let done = kept(steps, self.voice.advance(steps, &self.taps, &mut self.raw))?;
        for (j, weight) in self.weights.iter().enumerate() {
            for (s, out) in record[j * steps..][..done].iter_mut().enumerate() {
                *out = weight * self.raw[s * taps + j].to_f64();
            }
        }
        Ok(done)
    }

    fn read_state(&self, state: &mut State) -> Result<(), String> {
        let x = self.voice.positions(0).map_err(|e| e.to_string())?;
        let v = self.voice.velocities(0).map_err(|e| e.to_string())?;
        write_state(&x, &v, state);
        Ok(())
    }
}

/// A membrane on [`GpuMembrane`].
struct MembranePath<T: GpuReal> {
    membrane: GpuMembrane<T>,
    taps: Vec<Tap>,
}

impl<T: GpuReal> DevicePath for MembranePath<T> {
    fn advance(&mut self, steps: usize, record: &mut [f64]) -> Result<usize, String> {
        record.fill(0.0);
        kept(steps, self.membrane.advance(steps, &self.taps, record))
    }

    fn read_state(&self, state: &mut State) -> Result<(), String> {
        let x = self.membrane.positions().map_err(|e| e.to_string())?;
        let v = self.membrane.velocities().map_err(|e| e.to_string())?;
        write_state(&x, &v, state);
        Ok(())
    }
}

/// Copies the masses' positions (m) and velocities (m/s) into the first entries of `state`.
fn write_state<T: GpuReal>(x: &[T], v: &[T], state: &mut State) {
    for (out, &value) in state.x.iter_mut().zip(x) {
        *out = value.to_f64();
    }
    for (out, &value) in state.v.iter_mut().zip(v) {
        *out = value.to_f64();
    }
}
