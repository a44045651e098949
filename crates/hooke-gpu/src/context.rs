//! The adapter, device and queue the kernels run on, and the helpers they share: shader
//! compilation with errors as values (each shader compiled once per context), storage buffers,
//! and blocking read-back.

use crate::GpuError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Pipelines made, by shader source and entry points.
type Made = HashMap<(String, Vec<String>), Vec<wgpu::ComputePipeline>>;

/// A device and its queue on the best adapter wgpu finds (a discrete GPU when there is one).
#[derive(Debug, Clone)]
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    /// The pipelines made so far, shared by the context's clones: the engine rebuilds its path
    /// after events, and each rebuild would otherwise compile its shader again.
    made: Arc<Mutex<Made>>,
    /// The number of shaders compiled.
    compiled: Arc<AtomicUsize>,
}

impl GpuContext {
    /// Requests an adapter on any backend this build has (Vulkan), preferring a discrete GPU,
    /// and a device with the adapter's own limits (not wgpu's conservative defaults), so that
    /// a workgroup gets all the shared memory the hardware offers, and 64-bit floats and
    /// integers in shaders where the adapter has them (`SHADER_F64`, `SHADER_INT64`). `WGPU_BACKEND` and
    /// `WGPU_ADAPTER_NAME` in the environment narrow the choice, as wgpu documents.
    pub fn new() -> Result<Self, GpuError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        };
        let adapter = pollster::block_on(instance.request_adapter(&options))
            .map_err(|error| GpuError::NoAdapter(error.to_string()))?;
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("hooke"),
            required_limits: adapter.limits(),
            required_features: adapter.features()
                & (wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
            .map_err(|error| GpuError::Device(error.to_string()))?;
        Ok(Self { device, queue, info: adapter.get_info(), made: Arc::default(), compiled: Arc::default() })
    }

    /// The adapter's name as its driver reports it (e.g. "NVIDIA H100 80GB HBM3", "llvmpipe
    /// (LLVM 15.0.6, 256 bits)").
    pub fn adapter_name(&self) -> &str {
        &self.info.name
    }

    /// Whether the adapter is a CPU implementation (Mesa's lavapipe): correct, but its speed
    /// says nothing about a GPU's.
    pub fn is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// A one-line description: name, kind of device, backend, driver and whether it has f64.
    pub fn describe(&self) -> String {
        let kind = match self.info.device_type {
            wgpu::DeviceType::Cpu => "CPU driver, not a GPU",
            wgpu::DeviceType::DiscreteGpu => "discrete GPU",
            wgpu::DeviceType::IntegratedGpu => "integrated GPU",
            wgpu::DeviceType::VirtualGpu => "virtual GPU",
            wgpu::DeviceType::Other => "other device",
        };
        let f64 = if self.has_f64() { "f64 shaders" } else { "no f64 shaders" };
        format!(
            "{} ({kind}; {:?}, {} {}; {f64})",
            self.info.name, self.info.backend, self.info.driver, self.info.driver_info
        )
    }

    /// Whether shaders can use 64-bit floats and integers on this device (`SHADER_F64` and
    /// `SHADER_INT64`): what the kernels' `f64` versions need.
    pub fn has_f64(&self) -> bool {
        self.device.features().contains(wgpu::Features::SHADER_F64 | wgpu::Features::SHADER_INT64)
    }

    /// The device's limits (as requested: the adapter's).
    pub(crate) fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// The number of times this context (with its clones) has compiled a shader.
    pub fn compiled_shaders(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// A compute pipeline of each entry point of `entries` in `source`: the ones made before for
    /// the same source and entries, or compiled now, returning wgpu's validation message as an
    /// error instead of letting wgpu panic.
    pub(crate) fn pipelines(
        &self,
        label: &str,
        source: &str,
        entries: &[&str],
    ) -> Result<Vec<wgpu::ComputePipeline>, GpuError> {
        let key = (source.to_owned(), entries.iter().map(|&entry| entry.to_owned()).collect());
        let mut made =
            self.made.lock().map_err(|_| GpuError::Device("the pipeline cache was poisoned".into()))?;
        if let Some(pipelines) = made.get(&key) {
            return Ok(pipelines.clone());
        }
        let pipelines = self.compile(label, source, entries)?;
        made.insert(key, pipelines.clone());
        Ok(pipelines)
    }

    /// Compiles `source` and makes a compute pipeline of each entry point of `entries`.
    fn compile(
        &self,
        label: &str,
        source: &str,
        entries: &[&str],
    ) -> Result<Vec<wgpu::ComputePipeline>, GpuError> {
        self.compiled.fetch_add(1, Ordering::Relaxed);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipelines = entries
            .iter()
            .map(|entry| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: None,
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        match pollster::block_on(scope.pop()) {
            Some(error) => Err(GpuError::Shader(error.to_string())),
            None => Ok(pipelines),
        }
    }

    /// A storage buffer of `bytes` bytes (zeroed), usable as a copy source and destination.
    pub(crate) fn storage(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer holding `contents` (which later writes may change).
    pub(crate) fn uniform(&self, label: &str, contents: &[u8]) -> wgpu::Buffer {
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: contents.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&buffer, 0, contents);
        buffer
    }

    /// A buffer the host maps to read `bytes` bytes back.
    pub(crate) fn staging(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A bind group of `pipeline`'s group 0 with each `(binding, buffer)` of `buffers`.
    pub(crate) fn bind(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let entries: Vec<_> = buffers
            .iter()
            .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Submits `encoder` (whose last commands copy into `staging`), waits for it, and returns
    /// the first `bytes` bytes of `staging` as values of `W` (copied, so alignment is no
    /// matter).
    pub(crate) fn submit_and_read<W: bytemuck::Pod>(
        &self,
        encoder: wgpu::CommandEncoder,
        staging: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<W>, GpuError> {
        let submission = self.queue.submit([encoder.finish()]);
        self.read_submitted(submission, staging, bytes, bytemuck::pod_collect_to_vec::<u8, W>)
    }

    /// Waits for `submission` (whose last commands copy into `staging`), and hands the first
    /// `bytes` bytes of `staging` to `read` in place: later submissions may still be running.
    pub(crate) fn read_submitted<R>(
        &self,
        submission: wgpu::SubmissionIndex,
        staging: &wgpu::Buffer,
        bytes: u64,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, GpuError> {
        let slice = staging.slice(..bytes);
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver waits below; a send can only fail if it is gone, and then no one
            // needs the result.
            let _ = sender.send(result);
        });
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: None })
            .map_err(|error| GpuError::Device(error.to_string()))?;
        receiver
            .recv()
            .map_err(|_| GpuError::Device("the read-back was dropped".into()))?
            .map_err(|error| GpuError::Device(error.to_string()))?;
        let result = {
            let view = slice.get_mapped_range().map_err(|error| GpuError::Device(error.to_string()))?;
            read(&view)
        };
        staging.unmap();
        Ok(result)
    }
}
