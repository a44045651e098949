//! `simulate(device=...)`: the device the engine is given (`hooke::engine::Engine::with_device`).

use hooke::engine::Device;
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;
use std::sync::Arc;

/// The device named `name`: none for `"cpu"`, the GPU for `"gpu"` (an error saying why when
/// this wheel has no GPU backend or the machine no adapter).
pub fn device(name: &str) -> PyResult<Option<Arc<dyn Device>>> {
    match name {
        "cpu" => Ok(None),
        "gpu" => gpu().map(Some),
        other => {
            Err(PyValueError::new_err(format!("device: expected \"cpu\" or \"gpu\", found \"{other}\"")))
        }
    }
}

#[cfg(feature = "gpu")]
fn gpu() -> PyResult<Arc<dyn Device>> {
    let device = hooke_gpu::GpuDevice::new()
        .map_err(|e| crate::errors::HookeError::new_err(format!("device=\"gpu\": {e}")))?;
    Ok(Arc::new(device))
}

#[cfg(not(feature = "gpu"))]
fn gpu() -> PyResult<Arc<dyn Device>> {
    Err(crate::errors::HookeError::new_err(
        "device=\"gpu\": this wheel was built without the GPU backend; build it with \
         `maturin develop --release -F gpu` (crates/hooke-py)",
    ))
}
